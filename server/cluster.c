/* cluster.c — this vivd as a member of a cluster joined through Redis (docs/CLUSTER.md).
 *
 * Every member (a node, which hosts worlds, or a relay, which hosts none) claims its name in
 * Redis with an expiry and refreshes it with a heartbeat; a node also claims its world-id space
 * (ids num·65536 + 1.., so that world ids are unique in the cluster and the same after a restart)
 * and lists its worlds in its registration. Every member reads the registry (which worlds exist,
 * on which node) at each heartbeat and whenever a member says it changed.
 *
 * Members talk on one channel each (vivd:to:NAME), in msgpack maps:
 *   want   a relay watches a stream of one of this node's worlds: publish it (lease: one expiry)
 *   proxy  a client's message for one of this node's worlds, with the client's token: played
 *          through a proxy client here, exactly as if the client were connected (server/proto.c)
 *   gone   that client left: its proxy goes
 *   reply  what a proxy was sent (an ack, an error, created, closed, playing): for the client
 * A node publishes each watched stream's frame messages — the bytes it built for its own
 * subscribers — on the stream's channel (vivd:frames:WORLD:VIEW:EVERY:DIV:ENC).
 *
 * Nothing waits on Redis: every command is queued on the loop (server/redis.c), and while Redis is
 * away frames are dropped (the chain restarts with a keyframe), members reconnect with back-off,
 * and register, subscribe and ask for keyframes again when it is back. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <unistd.h>
#include <hiredis/hiredis.h>
#include "cluster.h"

#define K_MEMBERS "vivd:members"
#define CH_REGISTRY "vivd:registry"

/* One heartbeat, atomically: refuse when another process owns the name (or another name owns
 * the id space); else claim or renew the owner key, the registration and the id space, and
 * list the name. KEYS: owner, registration, id space ("" for a relay). ARGV: boot, value, ttl
 * (ms), name. Returns 1, 0 (the name is taken) or -1 (the id space is taken). */
static const char beat_script[] =
    "local o = redis.call('GET', KEYS[1])\n"
    "if o and o ~= ARGV[1] then return 0 end\n"
    "if KEYS[3] ~= '' then\n"
    "  local i = redis.call('GET', KEYS[3])\n"
    "  if i and i ~= ARGV[4] then return -1 end\n"
    "  redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[3])\n"
    "end\n"
    "redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])\n"
    "redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])\n"
    "redis.call('SADD', '" K_MEMBERS "', ARGV[4])\n"
    "return 1\n";

/* A clean stop: the keys go, if they are still ours. KEYS and ARGV as beat_script's. */
static const char leave_script[] =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
    "  redis.call('DEL', KEYS[1], KEYS[2])\n"
    "  if KEYS[3] ~= '' and redis.call('GET', KEYS[3]) == ARGV[4] then redis.call('DEL', KEYS[3]) end\n"
    "  redis.call('SREM', '" K_MEMBERS "', ARGV[4])\n"
    "end\n"
    "return 1\n";

static srv_cluster *CL(const srv *s) { return srv_net_hooks_ud(s); }

static void on_kick(uv_timer_t *t);

/* Deferred work at the next turn of the loop (never from inside a hiredis callback's own
 * subscription bookkeeping): freeing proxies, registering a change, subscribing. */
static void kick(srv_cluster *cl, uint64_t ms)
{
    if (cl->timers_open) uv_timer_start(&cl->kick_timer, on_kick, ms, 0);
}

int srv_cluster_on(const srv *s)
{
    return CL(s) != NULL;
}

void srv_cluster_channel(char *out, size_t cap, uint32_t world, const srv_stream_key *k)
{
    int32_t rect[4] = { k->rx, k->ry, k->rw, k->rh };
    srv_cchan_format(out, cap, world, k->view, k->every, k->div, rect, k->enc);
}

const srv_member *srv_cluster_member(const srv *s, const char *name)
{
    const srv_cluster *cl = CL(s);
    for (int i = 0; cl && i < cl->nmembers; i++)
        if (strcmp(cl->members[i].name, name) == 0) return &cl->members[i];
    return NULL;
}

/* ---- small msgpack helpers for the members' own messages ------------------------------------------ */
static void kv_str(wire_buf *b, const char *k, const char *v)
{
    wire_put_str(b, k);
    wire_put_str(b, v);
}

static void kv_uint(wire_buf *b, const char *k, uint64_t v)
{
    wire_put_str(b, k);
    wire_put_uint(b, v);
}

int srv_cluster_send_cb(srv *s, const char *to, wire_buf *body, srv_redis_cb cb, void *ud)
{
    srv_cluster *cl = CL(s);
    if (!cl || body->oom || !srv_redis_ready(cl->r)) return -1;
    char chan[SRV_CLUSTER_NAME_MAX + 16];
    snprintf(chan, sizeof chan, "vivd:to:%s", to);
    const char *argv[3] = { "PUBLISH", chan, (const char *)body->p };
    size_t lens[3] = { 7, strlen(chan), body->len };
    return srv_redis_command(cl->r, cb, ud, 3, argv, lens);
}

int srv_cluster_send(srv *s, const char *to, wire_buf *body)
{
    return srv_cluster_send_cb(s, to, body, NULL, NULL);
}

/* ---- registration ---------------------------------------------------------------------------------- */
/* This member's registration: who it is and, for a node, every world it hosts (the entries its
 * welcome gives), so that any member can list them. "starting" is 1 from the claim of its name
 * until every world is in place (srv_cluster_run): its worlds are not listed yet, and a relay
 * answers their inputs node_lost, not unknown_world, as while the node was gone. */
static void registration(srv *s, wire_buf *b)
{
    srv_cluster *cl = CL(s);
    wire_put_map(b, 10);
    kv_str(b, "name", cl->name);
    kv_str(b, "role", cl->relay ? "relay" : "node");
    kv_uint(b, "num", cl->num);
    kv_uint(b, "boot", cl->boot);
    kv_uint(b, "beat", cl->beat);
    kv_uint(b, "pid", (uint64_t)getpid());
    kv_str(b, "listen", cl->listen);
    kv_str(b, "http", cl->http);
    kv_uint(b, "starting", !cl->relay && !cl->running);
    wire_put_str(b, "worlds");
    wire_put_array(b, (uint32_t)s->nworlds);
    for (int i = 0; i < s->nworlds; i++) {
        const srv_world *w = s->worlds[i];
        wire_world ww;
        memset(&ww, 0, sizeof ww);
        ww.id = w->id;
        ww.kind = w->kind;
        ww.seed = w->seed;
        ww.params = w->params;
        ww.tick = srv_world_tick(w);
        ww.w = w->fw;
        ww.h = w->fh;
        wire_put_world(b, &ww);
    }
}

static void keys(const srv_cluster *cl, char owner[96], char reg[96], char space[48])
{
    snprintf(owner, 96, "vivd:owner:%s", cl->name);
    snprintf(reg, 96, "vivd:node:%s", cl->name);
    if (cl->relay) space[0] = '\0';
    else snprintf(space, 48, "vivd:idspace:%u", cl->num);
}

static void on_beat_reply(srv *s, const redisReply *r, void *ud);

/* Run the heartbeat script with the current registration. 0, or -1 (Redis not ready). */
static int send_beat(srv *s, const char *script)
{
    srv_cluster *cl = CL(s);
    char owner[96], reg[96], space[48], boot[24], ttl[24];
    keys(cl, owner, reg, space);
    snprintf(boot, sizeof boot, "%" PRIu64, cl->boot);
    snprintf(ttl, sizeof ttl, "%" PRIu64, cl->expiry_ms);
    wire_buf b;
    wire_buf_init(&b);
    if (script == beat_script) registration(s, &b);
    else wire_put_nil(&b);
    if (b.oom) {
        wire_buf_free(&b);
        return -1;
    }
    const char *argv[] = { "EVAL", script, "3", owner, reg, space, boot, (const char *)b.p, ttl, cl->name };
    size_t lens[] = { 4, strlen(script), 1, strlen(owner), strlen(reg), strlen(space), strlen(boot),
                      b.len, strlen(ttl), strlen(cl->name) };
    int rc = srv_redis_command(cl->r, script == beat_script ? on_beat_reply : NULL, NULL, 10, argv, lens);
    wire_buf_free(&b);
    if (rc == 0 && script == beat_script) cl->beat++;
    return rc;
}

/* Tell every member the registry changed (they read it at once). */
static void announce(srv *s)
{
    srv_cluster *cl = CL(s);
    if (!cl) return;
    const char *argv[3] = { "PUBLISH", CH_REGISTRY, cl->name };
    size_t lens[3] = { 7, strlen(CH_REGISTRY), strlen(cl->name) };
    srv_redis_command(cl->r, NULL, NULL, 3, argv, lens);
}

static void claim_failed(srv *s, const char *why)
{
    srv_cluster *cl = CL(s);
    snprintf(cl->start_err, sizeof cl->start_err, "%s", why);
    cl->start_state = SRV_CS_FAILED;
}

static void on_holder(srv *s, const redisReply *r, void *ud);

static void on_beat_reply(srv *s, const redisReply *r, void *ud)
{
    srv_cluster *cl = CL(s);
    (void)ud;
    if (!cl || !r) return;
    if (r->type == REDIS_REPLY_ERROR) {
        char why[600];
        snprintf(why, sizeof why, "Redis at %s:%d refuses the registration: %.200s%s", cl->redis_host,
                 cl->redis_port, r->str, strstr(r->str, "NOSCRIPT") || strstr(r->str, "unknown command")
                 ? " (vivd needs Redis 2.6 or later, with scripting)" : "");
        if (cl->start_state != SRV_CS_DONE) claim_failed(s, why);
        else srv_log(s, SRV_LOG_ERROR, "%s", why);
        return;
    }
    if (r->type != REDIS_REPLY_INTEGER) return;
    if (r->integer == 1) {
        if (cl->start_state != SRV_CS_DONE) {
            cl->start_state = SRV_CS_DONE;
            if (cl->claim_seen)
                srv_log(s, SRV_LOG_INFO, "the previous registration of '%s' expired: it is ours", cl->name);
        }
        if (!cl->claimed) announce(s);
        cl->claimed = 1;
        return;
    }
    uint64_t now = uv_now(s->loop);
    if (r->integer == -1) {
        char why[400];
        snprintf(why, sizeof why, "the node names '%s' and another node's map to the same world-id "
                 "space (%u): give this node another --node name", cl->name, cl->num);
        if (cl->start_state != SRV_CS_DONE) claim_failed(s, why);
        else srv_log(s, SRV_LOG_ERROR, "%s", why);
        return;
    }
    /* The name is held by another process: a live one, or one killed less than an expiry ago
     * (its keys outlive it). At start-up, wait for them to expire; past that, it is alive. */
    if (cl->start_state == SRV_CS_DONE) {
        if (cl->claimed)
            srv_log(s, SRV_LOG_ERROR, "another vivd has taken the name '%s' in the cluster (while Redis was "
                    "away?): this member is not registered until it goes", cl->name);
        cl->claimed = 0;
        return;
    }
    if (!cl->claim_seen) {
        cl->claim_seen = 1;
        cl->claim_deadline = now + cl->expiry_ms + 1000;
        srv_log(s, SRV_LOG_INFO, "the name '%s' is registered by another process: waiting up to %.1f s "
                "for that registration to expire (a vivd killed a moment ago)", cl->name,
                (double)(cl->expiry_ms + 1000) / 1000.0);
    }
    if (now >= cl->claim_deadline) {
        /* Say who holds it: its registration names its address and pid. */
        char reg[96];
        snprintf(reg, sizeof reg, "vivd:node:%s", cl->name);
        const char *argv[2] = { "GET", reg };
        size_t lens[2] = { 3, strlen(reg) };
        if (srv_redis_command(cl->r, on_holder, NULL, 2, argv, lens) != 0)
            on_holder(s, NULL, NULL);
        return;
    }
    cl->start_state = SRV_CS_WAITING;      /* the kick timer tries again */
    kick(cl, 250);
}

static void on_holder(srv *s, const redisReply *r, void *ud)
{
    srv_cluster *cl = CL(s);
    char why[800], where[160] = "";
    srv_creg reg;
    (void)ud;
    if (r && r->type == REDIS_REPLY_STRING && srv_creg_decode((const uint8_t *)r->str, r->len, &reg) == 0)
        snprintf(where, sizeof where, " (pid %" PRIu64 ", listening on %s)", reg.pid,
                 reg.listen[0] ? reg.listen : "?");
    snprintf(why, sizeof why, "another vivd named '%s' is running in the cluster at %s:%d%s: give "
             "this one another --node name", cl->name, cl->redis_host, cl->redis_port, where);
    claim_failed(s, why);
}

/* ---- the registry: read every member's registration -------------------------------------------------- */
static void on_members(srv *s, const redisReply *r, void *ud);
static void on_regs(srv *s, const redisReply *r, void *ud);

static void refresh(srv *s)
{
    srv_cluster *cl = CL(s);
    if (cl->refreshing) {
        cl->refresh_again = 1;
        return;
    }
    const char *argv[2] = { "SMEMBERS", K_MEMBERS };
    size_t lens[2] = { 8, sizeof K_MEMBERS - 1 };
    if (srv_redis_command(cl->r, on_members, NULL, 2, argv, lens) == 0) {
        cl->refreshing = 1;
        cl->refresh_started = uv_now(s->loop);
    }
}

static void refresh_done(srv *s)
{
    srv_cluster *cl = CL(s);
    cl->refreshing = 0;
    if (cl->refresh_again && !cl->stopping) {
        cl->refresh_again = 0;
        refresh(s);
    }
}

/* The names of a registry read, in the order of its MGET (the reply comes in that order). */
typedef struct reg_names {
    size_t n;
    char name[][SRV_CLUSTER_NAME_MAX];
} reg_names;

/* The names listed; then their registrations, in one MGET (a name whose registration expired is
 * a member that died: it leaves the list). */
static void on_members(srv *s, const redisReply *r, void *ud)
{
    srv_cluster *cl = CL(s);
    (void)ud;
    if (!cl) return;
    if (!r || r->type != REDIS_REPLY_ARRAY) {
        refresh_done(s);
        return;
    }
    size_t n = r->elements > SRV_CLUSTER_MAX_MEMBERS ? SRV_CLUSTER_MAX_MEMBERS : r->elements;
    reg_names *rn = malloc(sizeof *rn + (n ? n : 1) * SRV_CLUSTER_NAME_MAX);
    const char **argv = malloc((n + 1) * sizeof *argv);
    size_t *lens = malloc((n + 1) * sizeof *lens);
    char (*keys)[SRV_CLUSTER_NAME_MAX + 16] = malloc((n ? n : 1) * sizeof *keys);
    if (!rn || !argv || !lens || !keys) goto done;
    rn->n = 0;
    for (size_t i = 0; i < n; i++) {
        const redisReply *e = r->element[i];
        if (e->type != REDIS_REPLY_STRING || e->len == 0 || e->len >= SRV_CLUSTER_NAME_MAX) continue;
        memcpy(rn->name[rn->n], e->str, e->len);
        rn->name[rn->n][e->len] = '\0';
        snprintf(keys[rn->n], sizeof keys[rn->n], "vivd:node:%s", rn->name[rn->n]);
        argv[rn->n + 1] = keys[rn->n];
        lens[rn->n + 1] = strlen(keys[rn->n]);
        rn->n++;
    }
    if (rn->n == 0) {                  /* nobody registered: every other member's world is gone */
        cl->nmembers = 0;
        srv_relay_refreshed(s);
        goto done;
    }
    argv[0] = "MGET";
    lens[0] = 4;
    if (srv_redis_command(cl->r, on_regs, rn, (int)rn->n + 1, argv, lens) == 0) {
        rn = NULL;                     /* on_regs has it */
        free(argv);
        free(lens);
        free(keys);
        return;
    }
done:
    free(rn);
    free(argv);
    free(lens);
    free(keys);
    refresh_done(s);
}

/* One registration into the member list, and its worlds into the relay's view. */
static void read_registration(srv *s, const char *name, const uint8_t *p, size_t n)
{
    srv_cluster *cl = CL(s);
    srv_creg reg;
    if (srv_creg_decode(p, n, &reg) != 0 || strcmp(reg.name, name) != 0 ||
        cl->nmembers == SRV_CLUSTER_MAX_MEMBERS)
        return;
    srv_member *mb = &cl->members[cl->nmembers];
    memset(mb, 0, sizeof *mb);
    memcpy(mb->name, reg.name, sizeof mb->name);
    mb->relay = reg.relay;
    mb->num = reg.num;
    mb->boot = reg.boot;
    mb->beat = reg.beat;
    mb->starting = reg.starting;
    memcpy(mb->listen, reg.listen, sizeof mb->listen);
    memcpy(mb->http, reg.http, sizeof mb->http);
    const uint8_t *it = reg.worlds;
    for (uint32_t i = 0; it && i < reg.nworlds; i++) {
        wire_val e;
        if (wire_next(&it, reg.worlds_end, &e)) break;
        mb->nworlds++;
        if (strcmp(name, cl->name) != 0 && e.type == WIRE_MAP)
            srv_relay_entry(s, name, e.raw, e.rawlen);
    }
    cl->nmembers++;
}

/* Proxies of clients of members no longer registered (a relay that died) go. */
static void drop_orphans(srv *s)
{
    srv_cluster *cl = CL(s);
    for (srv_client *c = cl->proxies, *nx; c; c = nx) {
        nx = c->via_next;
        if (!srv_cluster_member(s, c->via) && c->connected_at < cl->refresh_started)
            srv_client_close(c, "its member left the cluster");
    }
}

static void on_regs(srv *s, const redisReply *r, void *ud)
{
    srv_cluster *cl = CL(s);
    reg_names *rn = ud;
    if (!cl || !r || r->type != REDIS_REPLY_ARRAY || r->elements != rn->n) {
        free(rn);
        if (cl) refresh_done(s);
        return;
    }
    cl->nmembers = 0;
    for (size_t i = 0; i < rn->n; i++) {
        const redisReply *e = r->element[i];
        if (e->type == REDIS_REPLY_STRING) {
            read_registration(s, rn->name[i], (const uint8_t *)e->str, e->len);
        } else {
            /* Expired: the member died (or stopped without saying so). Clean the list. */
            const char *argv[3] = { "SREM", K_MEMBERS, rn->name[i] };
            size_t lens[3] = { 4, sizeof K_MEMBERS - 1, strlen(rn->name[i]) };
            srv_redis_command(cl->r, NULL, NULL, 3, argv, lens);
        }
    }
    free(rn);
    cl->refreshed_at = uv_now(s->loop);
    srv_relay_refreshed(s);
    drop_orphans(s);
    refresh_done(s);
}

/* ---- placement -------------------------------------------------------------------------------------- */
const char *srv_cluster_place(srv *s, const char *want, size_t wantlen, char *err, size_t errlen)
{
    srv_cluster *cl = CL(s);
    if (want) {
        if (!cl->relay && wantlen == strlen(cl->name) && memcmp(want, cl->name, wantlen) == 0)
            return cl->name;
        for (int i = 0; i < cl->nmembers; i++) {
            srv_member *mb = &cl->members[i];
            if (!mb->relay && wantlen == strlen(mb->name) && memcmp(want, mb->name, wantlen) == 0) {
                mb->nworlds++;         /* counted at once: the next create sees it */
                return mb->name;
            }
        }
        int k = snprintf(err, errlen, "no node named '%.*s' in the cluster (nodes:", (int)(wantlen > 63 ? 63 : wantlen), want);
        int any = 0;
        if (!cl->relay) {
            k += snprintf(err + k, errlen - (size_t)k, " %s", cl->name);
            any = 1;
        }
        for (int i = 0; i < cl->nmembers && k > 0 && (size_t)k < errlen; i++)
            if (!cl->members[i].relay && strcmp(cl->members[i].name, cl->name) != 0) {
                k += snprintf(err + k, errlen - (size_t)k, " %s", cl->members[i].name);
                any = 1;
            }
        if (k > 0 && (size_t)k < errlen) snprintf(err + k, errlen - (size_t)k, "%s)", any ? "" : " none");
        return NULL;
    }
    /* The fewest worlds; ties to the first name, so that placement is predictable. A node still
     * starting is passed over: its worlds are not listed yet, and it could not create one now. */
    const char *best = NULL;
    int best_n = 0, starting = 0;
    srv_member *best_m = NULL;
    if (!cl->relay) {
        best = cl->name;
        best_n = s->nworlds + s->ncreating;
    }
    for (int i = 0; i < cl->nmembers; i++) {
        srv_member *mb = &cl->members[i];
        if (mb->relay || strcmp(mb->name, cl->name) == 0) continue;
        if (mb->starting) {
            starting++;
            continue;
        }
        if (!best || mb->nworlds < best_n || (mb->nworlds == best_n && strcmp(mb->name, best) < 0)) {
            best = mb->name;
            best_n = mb->nworlds;
            best_m = mb;
        }
    }
    if (!best && starting) {
        snprintf(err, errlen, "the cluster's world nodes are starting (%d): create the world again in a "
                 "moment", starting);
        return NULL;
    }
    if (!best) {
        snprintf(err, errlen, "there is no world node in the cluster to create the world on (only relays)");
        return NULL;
    }
    if (best_m) best_m->nworlds++;
    return best;
}

/* A create (srv_net_hooks.place): to the node with the fewest worlds, or the one named. One
 * proxied from another member was placed there already: it is built here. 1: forwarded or
 * refused (answered); 0: built here. */
static int place_create(srv_client *c, const char *node, size_t nodelen)
{
    srv *s = c->s;
    srv_cluster *cl = CL(s);
    if (c->tr->proxied) return 0;
    char err[256] = "";
    const char *to = srv_cluster_place(s, node, nodelen, err, sizeof err);
    if (!to) {
        srv_client_error(c, node ? "unknown_node" : "no_node", err, NULL);
        return 1;
    }
    if (strcmp(to, cl->name) == 0) return 0;
    srv_relay_forward(c, to, NULL);
    return 1;
}

/* ---- a node's streams for relays ------------------------------------------------------------------------ */
int srv_cluster_publish(srv *s, srv_world *w, const srv_stream *st, srv_msg *m)
{
    srv_cluster *cl = CL(s);
    if (!cl || !m) return -1;
    if (!srv_redis_ready(cl->r) || srv_redis_queued(cl->r) > SRV_CLUSTER_OBUF_MAX) {
        cl->publish_dropped++;
        return -1;
    }
    char chan[96];
    srv_cluster_channel(chan, sizeof chan, w->id, &st->k);
    const char *argv[3] = { "PUBLISH", chan, (const char *)SRV_MSG_BODY(m) };
    size_t lens[3] = { 7, strlen(chan), SRV_MSG_BODYLEN(m) };
    if (srv_redis_command(cl->r, NULL, NULL, 3, argv, lens) != 0) {
        cl->publish_dropped++;
        return -1;
    }
    cl->published++;
    cl->publish_bytes += SRV_MSG_BODYLEN(m);
    return 0;
}

void srv_cluster_world_closed(srv *s, srv_world *w)
{
    srv_cluster *cl = CL(s);
    if (!cl || !w->fan) return;
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_closed(&b, w->id);
    for (int i = 0; i < w->fan->nstreams && !b.oom; i++) {
        const srv_stream *st = &w->fan->streams[i];
        if (!st->used || !st->remote_until) continue;
        char chan[96];
        srv_cluster_channel(chan, sizeof chan, w->id, &st->k);
        const char *argv[3] = { "PUBLISH", chan, (const char *)b.p + 4 };
        size_t lens[3] = { 7, strlen(chan), b.len - 4 };
        srv_redis_command(cl->r, NULL, NULL, 3, argv, lens);
    }
    wire_buf_free(&b);
    srv_cluster_changed(s);
}

/* want: a relay watches stream (view, every, div, enc) of world: it is published until the lease
 * (one expiry) runs out unless renewed; key: the next message there is a keyframe. */
static void on_want(srv *s, const srv_cmsg *m)
{
    srv_cluster *cl = CL(s);
    int key = m->key;
    srv_world *w = srv_world_find(s, m->world);
    if (!w || m->view >= (uint32_t)w->kind->nviews || m->div > SRV_MAX_DIV) return;
    srv_stream_key k = { .view = (int)m->view, .every = m->every, .div = m->div, .enc = m->enc,
                         .rx = m->rect[0], .ry = m->rect[1], .rw = m->rect[2], .rh = m->rect[3] };
    srv_rect_align(&k, w->fw, w->fh);      /* the relay aligned it so: this is the same rect */
    int i = srv_stream_find(w, &k);
    if (i < 0) {
        srv_log(s, SRV_LOG_WARN, "world %u: a relay's stream is refused (" SRV_STR(SRV_MAX_STREAMS) " streams already)", w->id);
        return;
    }
    srv_stream *st = &w->fan->streams[i];
    if (!st->remote_until) w->fan->nremote++;
    st->remote_until = uv_now(s->loop) + cl->expiry_ms;
    if (key) st->remote_key = 1;
    /* A paused recording has no tick to publish at: its picture goes now. */
    if (key && srv_world_shows_paused(w)) srv_fanout_tick(s, w);
}

/* ---- proxies: clients of other members --------------------------------------------------------------- */
static srv_client *find_proxy(srv_cluster *cl, const char *via, uint32_t client)
{
    for (srv_client *c = cl->proxies; c; c = c->via_next)
        if (c->via_client == client && strcmp(c->via, via) == 0) return c;
    return NULL;
}

static void proxy_send(srv_client *c, srv_msg *m)
{
    if (c->via_greeting) return;       /* the welcome to its played hello: nobody asked */
    wire_buf b;
    wire_buf_init(&b);
    srv_cmsg_reply(&b, CL(c->s)->name, c->via_client, SRV_MSG_BODY(m), SRV_MSG_BODYLEN(m));
    srv_cluster_send(c->s, c->via, &b);   /* Redis away: the answer is lost, as over a dead link */
    wire_buf_free(&b);
}

static size_t proxy_queued(const srv_client *c)
{
    (void)c;
    return 0;
}

static void proxy_finish(srv_client *c)
{
    (void)c;                           /* the sweep closes it after the drain time */
}

static void proxy_close(srv_client *c)
{
    srv_cluster *cl = CL(c->s);
    for (srv_client **p = &cl->proxies; *p; p = &(*p)->via_next)
        if (*p == c) {
            *p = c->via_next;
            break;
        }
    c->via_next = cl->graveyard;       /* freed at the next kick: a caller may still read it */
    cl->graveyard = c;
    kick(cl, 0);
}

const srv_transport srv_transport_proxy = { "proxy", proxy_send, proxy_queued, proxy_finish,
                                            proxy_close, 1, NULL, SRV_TR_PROXY };

/* A message for a node that is not running yet: answered node_lost (with its seq, if it has one)
 * without a proxy, so that the member settles it and its client may send it again. */
static void proxy_not_ready(srv *s, const srv_cmsg *m)
{
    srv_cluster *cl = CL(s);
    wire_msg bm;
    uint64_t seqv = 0;
    int64_t seq = 0;
    int has_seq = wire_msg_decode(m->body, m->bodylen, &bm) == 0 && wire_get_u64(&bm, "seq", &seqv) == 0 &&
                  seqv <= UINT32_MAX;
    seq = (int64_t)seqv;
    char msg[160];
    snprintf(msg, sizeof msg, "node '%s' is starting: its worlds are not in place yet (send again)", cl->name);
    wire_buf e, b;
    wire_buf_init(&e);
    wire_buf_init(&b);
    if (wire_msg_error(&e, "node_lost", msg, has_seq ? &seq : NULL) > 0 && e.len >= 4) {
        srv_cmsg_reply(&b, cl->name, m->client, e.p + 4, e.len - 4);
        srv_cluster_send(s, m->from, &b);
    }
    wire_buf_free(&b);
    wire_buf_free(&e);
}

/* proxy: client `client` of member `from` sent body about one of this node's worlds. Its proxy is
 * made at its first message and greeted with its token, as the client was greeted where it is:
 * this node checks the token itself. */
static void on_proxy(srv *s, const srv_cmsg *m)
{
    srv_cluster *cl = CL(s);
    const char *from = m->from, *name = m->name, *token = m->token;
    uint32_t client = m->client;
    srv_client *c = find_proxy(cl, from, client);
    if (!c && !cl->running) {
        /* Still starting (srv_cluster_start turns the loop while a stale registration of our
         * name expires): the worlds are not in place, so nothing here can be answered yet. The
         * member is told node_lost, as while this node was gone; a later message makes the proxy. */
        proxy_not_ready(s, m);
        return;
    }
    if (!c) {
        c = srv_client_new(s, &srv_transport_proxy);
        if (!c) return;
        snprintf(c->peer, sizeof c->peer, "member %.40s", from);
        snprintf(c->via, sizeof c->via, "%s", from);
        c->via_client = (uint32_t)client;
        c->via_next = cl->proxies;
        cl->proxies = c;
        srv_client_attach(c);
        if (c->closing || c->draining) return;
        wire_buf hb;
        wire_buf_init(&hb);
        wire_put_map(&hb, token[0] ? 4 : 3);
        kv_str(&hb, "t", "hello");
        kv_uint(&hb, "v", 1);
        kv_str(&hb, "name", name[0] ? name : "?");
        if (token[0]) kv_str(&hb, "token", token);
        c->via_greeting = 1;
        if (!hb.oom) srv_client_received(c, hb.p, hb.len);
        c->via_greeting = 0;
        wire_buf_free(&hb);
        if (c->role == SRV_ROLE_NONE) {
            wire_msg bm;
            uint64_t seqv = 0;
            int64_t seq = 0;
            int has_seq = wire_msg_decode(m->body, m->bodylen, &bm) == 0 &&
                          wire_get_u64(&bm, "seq", &seqv) == 0 && seqv <= UINT32_MAX;
            seq = (int64_t)seqv;
            char msg[200];
            snprintf(msg, sizeof msg, "node '%s' does not accept this connection's token (the cluster's "
                     "nodes and relays must be given the same tokens)", cl->name);
            srv_client_notice(c, "forbidden", msg, has_seq ? &seq : NULL);
            srv_client_close(c, "its token is not this node's");
            return;
        }
    }
    srv_client_received(c, m->body, m->bodylen);
}

static void on_gone(srv *s, const srv_cmsg *m)
{
    srv_client *c = find_proxy(CL(s), m->from, m->client);
    if (c) srv_client_close(c, "its client left");
}

/* ---- messages ------------------------------------------------------------------------------------------ */
/* What another member sent this one: decoded whole first (cluster_msg.c), else ignored. */
static void on_member_message(srv *s, const uint8_t *p, size_t n)
{
    srv_cmsg m;
    if (srv_cmsg_decode(p, n, &m)) return;
    switch (m.type) {
    case SRV_CMSG_WANT: on_want(s, &m); break;
    case SRV_CMSG_PROXY: on_proxy(s, &m); break;
    case SRV_CMSG_GONE: on_gone(s, &m); break;
    case SRV_CMSG_REPLY: srv_relay_reply(s, m.from, m.client, m.body, m.bodylen); break;
    }
}

static void on_message(srv *s, const char *chan, size_t clen, const uint8_t *p, size_t n)
{
    srv_cluster *cl = CL(s);
    char own[SRV_CLUSTER_NAME_MAX + 16];
    int ownlen = snprintf(own, sizeof own, "vivd:to:%s", cl->name);
    if (clen == (size_t)ownlen && memcmp(chan, own, clen) == 0) on_member_message(s, p, n);
    else if (clen == sizeof CH_REGISTRY - 1 && memcmp(chan, CH_REGISTRY, clen) == 0) {
        if (!(n == strlen(cl->name) && memcmp(p, cl->name, n) == 0)) refresh(s);
    } else srv_relay_message(s, chan, clen, p, n);
}

static void on_subscribed(srv *s, const char *chan, size_t clen)
{
    srv_relay_subscribed(s, chan, clen, 1);
}

static void on_unsubscribed(srv *s, const char *chan, size_t clen)
{
    srv_relay_subscribed(s, chan, clen, 0);
}

/* Redis is there (at start-up, or back): our channels, our registration, the registry, and the
 * streams relays watch start over from keyframes. */
static void on_up(srv *s)
{
    srv_cluster *cl = CL(s);
    char own[SRV_CLUSTER_NAME_MAX + 16];
    snprintf(own, sizeof own, "vivd:to:%s", cl->name);
    srv_redis_subscribe(cl->r, own);
    srv_redis_subscribe(cl->r, CH_REGISTRY);
    if (cl->start_state != SRV_CS_DONE) {     /* start-up (or Redis came back during it) */
        cl->start_state = SRV_CS_CLAIMING;
        send_beat(s, beat_script);
        return;
    }
    srv_log(s, SRV_LOG_INFO, "Redis at %s:%d is back: registering and resubscribing", cl->redis_host,
            cl->redis_port);
    cl->redis_reconnects++;
    uint64_t now = uv_now(s->loop);
    for (int i = 0; i < s->nworlds; i++) {     /* leases ride out the outage; chains restart */
        srv_fan *fan = s->worlds[i]->fan;
        for (int k = 0; fan && k < fan->nstreams; k++)
            if (fan->streams[k].remote_until) {
                fan->streams[k].remote_until = now + cl->expiry_ms;
                fan->streams[k].remote_key = 1;
            }
    }
    send_beat(s, beat_script);
    announce(s);
    refresh(s);
    srv_relay_up(s);
}

static void on_down(srv *s, const char *why)
{
    srv_cluster *cl = CL(s);
    srv_log(s, SRV_LOG_WARN, "%s; reconnecting (frames to relays are dropped meanwhile)", why);
    cl->redis_losses++;
    cl->refreshing = 0;
    cl->refresh_again = 0;
    srv_relay_down(s);
}

static void on_failed(srv *s, const char *why)
{
    srv_cluster *cl = CL(s);
    cl->redis_failures++;
    if (cl->start_state == SRV_CS_CONNECTING) {     /* at start-up: a clear line, and exit */
        claim_failed(s, why);
        return;
    }
    /* Once a minute at most while Redis stays away. */
    uint64_t f = srv_redis_failures(cl->r);
    if (f == 1 || f % 30 == 0) srv_log(s, SRV_LOG_WARN, "%s; trying again", why);
}

/* ---- timers ---------------------------------------------------------------------------------------------- */
static void on_kick(uv_timer_t *t)
{
    srv *s = t->data;
    srv_cluster *cl = CL(s);
    while (cl->graveyard) {
        srv_client *c = cl->graveyard;
        cl->graveyard = c->via_next;
        srv_client_free(c);
    }
    if (cl->start_state == SRV_CS_WAITING && !cl->stopping) {
        cl->start_state = SRV_CS_CLAIMING;
        send_beat(s, beat_script);     /* refused again: on_beat_reply waits once more */
        return;
    }
    if (cl->dirty && cl->start_state == SRV_CS_DONE && !cl->stopping && srv_redis_ready(cl->r)) {
        cl->dirty = 0;
        send_beat(s, beat_script);
        announce(s);
    }
    if (!cl->stopping) srv_relay_kick(s);    /* subscriptions to make (leases: the beat) */
}

static void on_beat(uv_timer_t *t)
{
    srv *s = t->data;
    srv_cluster *cl = CL(s);
    if (cl->stopping || !srv_redis_ready(cl->r)) return;
    send_beat(s, beat_script);
    refresh(s);
    srv_relay_beat(s);
}

void srv_cluster_kick(srv *s)
{
    srv_cluster *cl = CL(s);
    if (cl && !cl->stopping) kick(cl, 0);
}

void srv_cluster_changed(srv *s)
{
    srv_cluster *cl = CL(s);
    if (!cl) return;
    cl->dirty = 1;
    kick(cl, 0);
}

/* ---- start and stop ---------------------------------------------------------------------------------------- */
static int name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '-' || ch == '_' || ch == ':';
}

/* A member's name goes into Redis keys and channels: 1..63 of these characters. */
const char *srv_cluster_node(const srv *s)
{
    const srv_cluster *cl = CL(s);
    return cl ? cl->name : NULL;
}

int srv_cluster_name_ok(const char *n)
{
    size_t len = strlen(n);
    if (len == 0 || len >= SRV_CLUSTER_NAME_MAX) return 0;
    for (size_t i = 0; i < len; i++)
        if (!name_char(n[i])) return 0;
    return 1;
}

/* FNV-1a 64 of the name, into 1..32767: a node's world ids are num·65536 + 1.., below 2^31. */
static uint32_t name_num(const char *n)
{
    uint64_t h = 1469598103934665603ull;
    for (; *n; n++) h = (h ^ (uint8_t)*n) * 1099511628211ull;
    return 1 + (uint32_t)(h % 32767u);
}

static uint64_t random_boot(void)
{
    uint64_t v = 0;
    FILE *fp = fopen("/dev/urandom", "rb");
    if (fp) {
        if (fread(&v, sizeof v, 1, fp) != 1) v = 0;
        fclose(fp);
    }
    return (v ^ uv_hrtime() ^ ((uint64_t)getpid() << 32)) & 0x7fffffffffffffffull;
}

int srv_cluster_start(srv *s, const srv_cluster_config *cfg, char *err, size_t errlen)
{
    srv_cluster *cl = calloc(1, sizeof *cl);
    if (!cl) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    cl->s = s;
    if (srv_redis_parse_url(cfg->url, cl->redis_host, sizeof cl->redis_host, &cl->redis_port, err, errlen)) {
        free(cl);
        return -1;
    }
    /* Resolved once: a reconnect never waits on a name lookup (hiredis's would block the loop). */
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    char ports[16];
    snprintf(ports, sizeof ports, "%d", cl->redis_port);
    int gai = getaddrinfo(cl->redis_host, ports, &hints, &res);
    if (gai != 0 || !res) {
        snprintf(err, errlen, "cannot resolve the Redis host '%s': %s", cl->redis_host,
                 gai ? gai_strerror(gai) : "no address");
        free(cl);
        return -1;
    }
    char ip[64] = "";
    uv_ip_name(res->ai_addr, ip, sizeof ip);
    freeaddrinfo(res);
    if (!ip[0]) {
        snprintf(err, errlen, "the Redis host '%s' has no usable address", cl->redis_host);
        free(cl);
        return -1;
    }
    char shown_host[256];
    snprintf(shown_host, sizeof shown_host, "%s", cl->redis_host);
    if (cfg->name) {
        if (!srv_cluster_name_ok(cfg->name)) {
            snprintf(err, errlen, "--node '%s': a name is 1..63 letters, digits and . - _ :", cfg->name);
            free(cl);
            return -1;
        }
        snprintf(cl->name, sizeof cl->name, "%s", cfg->name);
    } else {
        char host[64] = "vivd";
        gethostname(host, sizeof host - 1);
        host[sizeof host - 1] = '\0';
        const char *port = strrchr(cfg->listen, ':');
        snprintf(cl->name, sizeof cl->name, "%.40s%s", host, port ? port : "");
        for (char *p = cl->name; *p; p++)
            if (!name_char(*p)) *p = '_';
    }
    cl->relay = cfg->relay;
    cl->num = cl->relay ? 0 : name_num(cl->name);
    cl->boot = random_boot();
    cl->expiry_ms = cfg->expiry_ms ? cfg->expiry_ms : SRV_CLUSTER_EXPIRY_MS;
    snprintf(cl->listen, sizeof cl->listen, "%s", cfg->listen ? cfg->listen : "");
    snprintf(cl->http, sizeof cl->http, "%s", cfg->http ? cfg->http : "");
    static const srv_redis_events ev = { on_up, on_down, on_failed, on_message, on_subscribed,
                                         on_unsubscribed };
    cl->r = srv_redis_new(s, ip, cl->redis_port, &ev);
    if (!cl->r) {
        free(cl);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uv_timer_init(s->loop, &cl->beat_timer);
    uv_timer_init(s->loop, &cl->kick_timer);
    cl->beat_timer.data = cl->kick_timer.data = s;
    cl->timers_open = 1;
    /* From here on the network layer reaches the cluster through these, and only these. */
    const srv_net_hooks hooks = {
        .ud = cl,
        .route = srv_relay_route,
        .place = place_create,
        .entries = srv_relay_entries,
        .publish = srv_cluster_publish,
        .sub_dropped = srv_relay_detach,
        .client_gone = srv_relay_client_gone,
        .world_closed = srv_cluster_world_closed,
        .worlds_changed = srv_cluster_changed,
        .free = srv_cluster_free,
        .metrics = srv_cluster_metrics,
        .health = srv_cluster_health,
    };
    srv_net_hooks_set(s, &hooks);
    cl->start_state = SRV_CS_CONNECTING;
    srv_redis_start(cl->r);
    while (cl->start_state != SRV_CS_DONE && cl->start_state != SRV_CS_FAILED)
        uv_run(s->loop, UV_RUN_ONCE);
    if (cl->start_state == SRV_CS_FAILED) {
        snprintf(err, errlen, "%s", cl->start_err);
        return -1;
    }
    if (!cl->relay) s->next_world_id = cl->num * SRV_CLUSTER_WORLD_SPACE + 1;
    srv_log(s, SRV_LOG_INFO, "in the cluster at redis://%s:%d as %s '%s' (registrations expire "
            "after %.1f s)", cl->redis_host, cl->redis_port, cl->relay ? "relay" : "node", cl->name,
            (double)cl->expiry_ms / 1000.0);
    if (!cl->relay)
        srv_log(s, SRV_LOG_INFO, "this node's world ids: %u.. (id space %u)",
                cl->num * SRV_CLUSTER_WORLD_SPACE + 1, cl->num);
    return 0;
}

void srv_cluster_run(srv *s)
{
    srv_cluster *cl = CL(s);
    if (!cl) return;
    cl->running = 1;
    uint64_t every = cl->expiry_ms / 4 ? cl->expiry_ms / 4 : 1;
    uv_timer_start(&cl->beat_timer, on_beat, every, every);
    cl->dirty = 1;
    refresh(s);
    kick(cl, 0);
}

void srv_cluster_stop(srv *s)
{
    srv_cluster *cl = CL(s);
    if (!cl || cl->stopping) return;
    cl->stopping = 1;
    if (cl->inputs_lost)
        srv_log(s, SRV_LOG_INFO, "%" PRIu64 " input(s) for other nodes were answered node_lost (their "
                "node was gone, restarted or unreachable)", cl->inputs_lost);
    if (cl->requests_lost)
        srv_log(s, SRV_LOG_INFO, "%" PRIu64 " play, close, fork or create request(s) for other nodes were "
                "answered node_lost", cl->requests_lost);
    if (cl->claimed && srv_redis_ready(cl->r)) {
        send_beat(s, leave_script);        /* the worlds leave the registry now, not at expiry */
        announce(s);
    }
    if (cl->timers_open) {
        uv_timer_stop(&cl->beat_timer);
    }
    srv_redis_close(cl->r);
}

void srv_cluster_close(srv *s)
{
    srv_cluster *cl = CL(s);
    if (!cl) return;
    while (cl->graveyard) {
        srv_client *c = cl->graveyard;
        cl->graveyard = c->via_next;
        srv_client_free(c);
    }
    if (cl->r) srv_redis_free(cl->r);  /* its timer closes with it */
    cl->r = NULL;
    if (cl->timers_open) {
        cl->timers_open = 0;
        uv_close((uv_handle_t *)&cl->beat_timer, NULL);
        uv_close((uv_handle_t *)&cl->kick_timer, NULL);
    }
}

void srv_cluster_free(srv *s)
{
    srv_cluster *cl = CL(s);
    if (!cl) return;
    srv_relay_free(s);
    free(cl);
    memset(&s->net->hooks, 0, sizeof s->net->hooks);
}
