/* relay.c — the worlds other cluster members host, served to this member's viewers as if they
 * were its own (docs/CLUSTER.md). A relay (vivd --relay) does nothing else; a node does it for
 * the worlds of the other nodes.
 *
 * A stream of a remote world is watched through its Redis channel while at least one viewer here
 * watches it: subscribed at the first viewer, unsubscribed when the last one leaves. The node
 * publishes the frame messages it builds once per stream and tick; each one is applied to the
 * picture kept here (wire/frame_in.c, the same reader as every client's) and its frame hash
 * checked, and then handed on unchanged: a delta to the viewers in step with the stream, the
 * node's keyframe to all. A viewer that joins mid-stream (or was skipped over the soft output
 * limit) gets a keyframe encoded here from the kept picture, the same bytes the node would have
 * built, so that no node ever encodes anything per viewer. The output limits are this member's
 * own (server/fanout.c's plan and deliver).
 *
 * Everything a relay does not serve from its picture — inputs, play controls, create, close —
 * goes to the world's node as the client sent it, with the client's token, and the node's
 * answers come back to the client (server/cluster.c's proxies). A relay decides nothing about a
 * world. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <hiredis/hiredis.h>
#include "cluster.h"

static srv_cluster *CL(const srv *s) { return srv_net_hooks_ud(s); }

static void rstream_clear(srv_rstream *rs)
{
    wire_frame_in_free(&rs->pic);
    memset(rs, 0, sizeof *rs);
}

static void rworld_free(srv_rworld *rw)
{
    for (int i = 0; i < rw->nstreams; i++) rstream_clear(&rw->streams[i]);
    free(rw->streams);
    free(rw->entry);
    free(rw);
}

srv_rworld *srv_relay_world(srv *s, uint32_t id)
{
    srv_cluster *cl = CL(s);
    for (int i = 0; cl && i < cl->nrworlds; i++)
        if (cl->rworlds[i]->id == id) return cl->rworlds[i];
    return NULL;
}

static void channel_of(const srv_rworld *rw, const srv_rstream *rs, char *out, size_t cap)
{
    srv_cluster_channel(out, cap, rw->id, &rs->k);
}

/* vivd:frames:WORLD:VIEW:EVERY:DIV:ENC back into its stream here, or NULL. */
static srv_rstream *stream_of_channel(srv *s, const char *chan, size_t clen, srv_rworld **rwp)
{
    srv_cchan ch;
    if (srv_cchan_parse(chan, clen, &ch)) return NULL;
    srv_rworld *rw = srv_relay_world(s, ch.world);
    if (!rw) return NULL;
    for (int i = 0; i < rw->nstreams; i++) {
        srv_rstream *rs = &rw->streams[i];
        const srv_stream_key *k = &rs->k;
        if (rs->used && k->view == ch.view && k->every == ch.every && k->div == ch.div && k->enc == ch.enc &&
            k->rx == ch.rect[0] && k->ry == ch.rect[1] && k->rw == ch.rect[2] && k->rh == ch.rect[3]) {
            *rwp = rw;
            return rs;
        }
    }
    return NULL;
}

/* Ask the node for the stream (renewing its lease), and for a keyframe when key. */
static void send_want(srv *s, srv_rworld *rw, srv_rstream *rs, int key)
{
    srv_cluster *cl = CL(s);
    wire_buf b;
    wire_buf_init(&b);
    int32_t rect[4] = { rs->k.rx, rs->k.ry, rs->k.rw, rs->k.rh };
    srv_cmsg_want(&b, cl->name, rw->id, (uint32_t)rs->k.view, rs->k.every, rs->k.div, rs->k.enc, rect, key);
    if (srv_cluster_send(s, rw->node, &b) == 0 && key) rs->asked_key_at = uv_now(s->loop);
    wire_buf_free(&b);
}

static void subscribe(srv *s, srv_rworld *rw, srv_rstream *rs)
{
    char chan[96];
    channel_of(rw, rs, chan, sizeof chan);
    if (srv_redis_subscribe(CL(s)->r, chan) == 0) rs->state = SRV_RS_SUBSCRIBING;
}

/* The last viewer left (or the world did): stop the channel, or forget the stream. */
static void unsubscribe(srv *s, srv_rworld *rw, srv_rstream *rs)
{
    rs->resub = 0;
    rs->have = 0;
    if (rs->state == SRV_RS_LIVE || rs->state == SRV_RS_SUBSCRIBING) {
        char chan[96];
        channel_of(rw, rs, chan, sizeof chan);
        if (srv_redis_unsubscribe(CL(s)->r, chan) == 0) {
            rs->state = SRV_RS_UNSUBSCRIBING;
            return;
        }
        rs->state = SRV_RS_NONE;
    }
    if (rs->state == SRV_RS_NONE && rs->nsubs == 0) rstream_clear(rs);
}

/* ---- the registry's view ---------------------------------------------------------------------------- */
void srv_relay_entry(srv *s, const char *node, const uint8_t *entry, size_t len)
{
    srv_cluster *cl = CL(s);
    srv_centry e;
    if (srv_centry_decode(entry, len, &e)) return;
    uint64_t id = e.id, w = (uint64_t)e.w, h = (uint64_t)e.h;
    if (srv_world_find(s, (uint32_t)id)) return;      /* hosted here (a stale entry) */
    srv_rworld *rw = srv_relay_world(s, (uint32_t)id);
    if (!rw) {
        if (cl->nrworlds == SRV_CLUSTER_MAX_WORLDS) return;
        if (cl->nrworlds % 64 == 0) {
            srv_rworld **p = realloc(cl->rworlds, (size_t)(cl->nrworlds + 64) * sizeof *p);
            if (!p) return;
            cl->rworlds = p;
        }
        if (!(rw = calloc(1, sizeof *rw))) return;
        rw->id = (uint32_t)id;
        memcpy(rw->kind_name, e.kind, sizeof rw->kind_name);
        rw->kind = sim_kind_find(rw->kind_name);
        cl->rworlds[cl->nrworlds++] = rw;
    }
    if (rw->entrylen != len) {
        uint8_t *p = realloc(rw->entry, len);
        if (!p) return;
        rw->entry = p;
        rw->entrylen = len;
    }
    memcpy(rw->entry, entry, len);
    snprintf(rw->node, sizeof rw->node, "%s", node);
    rw->w = (int)w;
    rw->h = (int)h;
    rw->seen = 1;
    if (!rw->present) {
        rw->present = 1;
        if (rw->nsubs) {               /* back (its node restarted): its viewers go on */
            srv_log(s, SRV_LOG_INFO, "world %u is back on node '%s': %d viewer(s) resume from a keyframe",
                    rw->id, rw->node, rw->nsubs);
            srv_cluster_kick(s);
        }
    }
}

static void pending_sweep(srv *s);

/* The world's node left the registry: its viewers are told, and wait for it. */
static void lost(srv *s, srv_rworld *rw)
{
    srv_log(s, SRV_LOG_WARN, "world %u left the registry: node '%s' stopped answering%s", rw->id,
            rw->node, rw->nsubs ? "; its viewers here wait for it" : "");
    char msg[240];
    snprintf(msg, sizeof msg, "world %u is gone from the cluster: its node '%s' stopped answering. "
             "This subscription resumes, from a keyframe, if the world comes back", rw->id, rw->node);
    for (int i = 0; i < rw->nstreams; i++) {
        srv_rstream *rs = &rw->streams[i];
        if (!rs->used) continue;
        for (srv_sub *sub = rs->head; sub; sub = sub->snext) {
            sub->need_key = 1;
            srv_client_notice(sub->client, "node_lost", msg, NULL);
        }
        if (rs->state != SRV_RS_NONE && rs->state != SRV_RS_UNSUBSCRIBING) {
            char chan[96];
            channel_of(rw, rs, chan, sizeof chan);
            rs->state = srv_redis_unsubscribe(CL(s)->r, chan) == 0 ? SRV_RS_UNSUBSCRIBING : SRV_RS_NONE;
        }
        rs->resub = 0;
        rs->have = 0;
    }
}

static int settled(const srv_rworld *rw)
{
    for (int i = 0; i < rw->nstreams; i++)
        if (rw->streams[i].used && rw->streams[i].state != SRV_RS_NONE) return 0;
    return 1;
}

/* After a registry read. A world unseen whose node is registered and running was closed there (or
 * its node restarted without it): it goes once nobody here watches it. One whose node left the
 * cluster, or is starting again (its worlds not in place yet), is remembered a while
 * (SRV_CLUSTER_LOST_KEEP_MS), so that its inputs are answered node_lost, not unknown_world, until
 * it comes back. Then the inputs owed an answer are looked at. */
void srv_relay_refreshed(srv *s)
{
    srv_cluster *cl = CL(s);
    uint64_t now = uv_now(s->loop);
    int grace = now < cl->lost_grace_until;
    for (int i = 0; i < cl->nrworlds; i++) {
        srv_rworld *rw = cl->rworlds[i];
        if (rw->seen) {
            rw->seen = 0;
            rw->lost_at = 0;
            continue;
        }
        const srv_member *mb = srv_cluster_member(s, rw->node);
        int node_here = mb && !mb->starting;
        if (rw->present && !grace) {
            rw->present = 0;
            rw->lost_at = node_here ? 0 : now ? now : 1;
            lost(s, rw);
        }
        int forget = !rw->lost_at || node_here || now - rw->lost_at >= SRV_CLUSTER_LOST_KEEP_MS;
        if (!rw->present && rw->nsubs == 0 && settled(rw) && forget) {
            rworld_free(rw);
            cl->rworlds[i--] = cl->rworlds[--cl->nrworlds];
        }
    }
    pending_sweep(s);
}

void srv_relay_created(srv *s, const char *node, const uint8_t *body, size_t len)
{
    wire_msg m;
    const wire_val *v;
    if (wire_msg_decode(body, len, &m) == 0 && (v = wire_msg_get(&m, "world")) && v->type == WIRE_MAP)
        srv_relay_entry(s, node, v->raw, v->rawlen);
}

int srv_relay_entries(srv_client *c, wire_raw **out)
{
    srv_cluster *cl = CL(c->s);
    *out = NULL;
    if (!cl || !cl->nrworlds || !(*out = malloc((size_t)cl->nrworlds * sizeof **out))) return 0;
    int n = 0;
    for (int i = 0; i < cl->nrworlds; i++)
        if (cl->rworlds[i]->present && cl->rworlds[i]->entry) {
            (*out)[n].p = cl->rworlds[i]->entry;
            (*out)[n].n = cl->rworlds[i]->entrylen;
            n++;
        }
    return n;
}

/* ---- subscribers ------------------------------------------------------------------------------------------ */
int srv_relay_attach(srv *s, srv_rworld *rw, srv_sub *sub, const srv_stream_key *k)
{
    int idx = -1, free_slot = -1;
    for (int i = 0; i < rw->nstreams && idx < 0; i++) {
        srv_rstream *rs = &rw->streams[i];
        if (rs->used && srv_stream_key_eq(&rs->k, k)) idx = i;
        else if (!rs->used && free_slot < 0) free_slot = i;
    }
    if (idx < 0 && free_slot < 0) {     /* room for more: the slots double (indexes stay) */
        if (rw->nstreams >= SRV_MAX_STREAMS) return -1;
        int n = rw->nstreams ? rw->nstreams * 2 : 16;
        if (n > SRV_MAX_STREAMS) n = SRV_MAX_STREAMS;
        srv_rstream *p = realloc(rw->streams, (size_t)n * sizeof *p);
        if (!p) return -1;
        memset(p + rw->nstreams, 0, (size_t)(n - rw->nstreams) * sizeof *p);
        free_slot = rw->nstreams;
        rw->streams = p;
        rw->nstreams = n;
    }
    if (idx < 0) {
        idx = free_slot;
        srv_rstream *rs = &rw->streams[idx];
        memset(rs, 0, sizeof *rs);
        rs->used = 1;
        rs->k = *k;
    }
    srv_rstream *rs = &rw->streams[idx];
    sub->remote = rw;
    sub->world = NULL;
    sub->stream = idx;
    sub->sprev = NULL;
    sub->snext = rs->head;
    if (rs->head) rs->head->sprev = sub;
    rs->head = sub;
    rs->nsubs++;
    rw->nsubs++;
    if (rs->state == SRV_RS_NONE) subscribe(s, rw, rs);
    else if (rs->state == SRV_RS_UNSUBSCRIBING) rs->resub = 1;
    return 0;
}

void srv_relay_detach(srv *s, srv_sub *sub)
{
    srv_rworld *rw = sub->remote;
    srv_rstream *rs = &rw->streams[sub->stream];
    if (sub->sprev) sub->sprev->snext = sub->snext;
    else rs->head = sub->snext;
    if (sub->snext) sub->snext->sprev = sub->sprev;
    sub->snext = sub->sprev = NULL;
    rs->nsubs--;
    rw->nsubs--;
    if (rs->nsubs == 0) unsubscribe(s, rw, rs);
}

/* ---- the channels -------------------------------------------------------------------------------------- */
void srv_relay_subscribed(srv *s, const char *chan, size_t clen, int on)
{
    static const char pre[] = "vivd:frames:";
    if (clen < sizeof pre - 1 || memcmp(chan, pre, sizeof pre - 1) != 0) return;   /* not a stream's */
    srv_rworld *rw = NULL;
    srv_rstream *rs = stream_of_channel(s, chan, clen, &rw);
    if (!rs) {
        if (on) {                      /* nobody here wants it any more */
            char buf[128];
            if (clen < sizeof buf) {
                memcpy(buf, chan, clen);
                buf[clen] = '\0';
                srv_redis_unsubscribe(CL(s)->r, buf);
            }
        }
        return;
    }
    if (on) {
        if (rs->state != SRV_RS_SUBSCRIBING) return;     /* unsubscribed meanwhile */
        rs->state = SRV_RS_LIVE;
        rs->have = 0;
        send_want(s, rw, rs, 1);       /* the node's next message there is a keyframe */
        return;
    }
    rs->state = SRV_RS_NONE;
    if (rs->nsubs > 0 || rs->resub) {
        /* A viewer came meanwhile: subscribe again, from the next turn of the loop (hiredis
         * forgets a channel after this confirmation, so not from inside it). */
        rs->resub = 0;
        srv_cluster_kick(s);
    } else {
        rstream_clear(rs);
    }
}

/* A keyframe of the kept picture, as the node would build it (the same encoder, the same
 * bytes), for the viewers that need one. NULL: out of memory. */
static srv_msg *local_key(srv *s, const srv_rworld *rw, const srv_rstream *rs)
{
    wire_buf b;
    wire_buf_init(&b);
    srv_msg_reserve(&b);
    wire_frame m = { .world = rw->id, .tick = rs->pic.tick, .key = 1, .with_pal = 1, .enc = rs->k.enc,
                     .fh = rs->pic.fh, .sh = rs->pic.sh, .rect = { rs->k.rx, rs->k.ry, rs->k.rw, rs->k.rh } };
    if (wire_msg_frame(&s->net->enc, &b, &m, &rs->pic.f, NULL) < 0) {
        wire_buf_free(&b);
        return NULL;
    }
    srv_msg *msg = srv_msg_from_buf(&b);
    if (!msg) wire_buf_free(&b);
    return msg;
}

/* The world closed on its node: its viewers here are told, as a node tells its own. */
static void closed(srv *s, srv_rworld *rw)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_closed(&b, rw->id);
    for (int i = 0; i < rw->nstreams; i++) {
        srv_rstream *rs = &rw->streams[i];
        while (rs->used && rs->head) {
            srv_sub *sub = rs->head;
            srv_client *c = sub->client;
            srv_sub_drop(c, sub);
            if (c->last_closed != rw->id) srv_client_send_buf(c, &b);
            c->last_closed = rw->id;
        }
    }
    wire_buf_free(&b);
    rw->present = 0;
}

void srv_relay_message(srv *s, const char *chan, size_t clen, const uint8_t *p, size_t n)
{
    srv_cluster *cl = CL(s);
    srv_rworld *rw = NULL;
    srv_rstream *rs = stream_of_channel(s, chan, clen, &rw);
    if (!rs || rs->state != SRV_RS_LIVE) return;
    wire_msg m;
    int kind = srv_cstream_kind(p, n, &m);
    if (kind == SRV_CSTREAM_CLOSED) {
        closed(s, rw);
        return;
    }
    if (kind == SRV_CSTREAM_EVENTS) {   /* as they came, to who asked */
        srv_msg *pass = NULL;
        for (srv_sub *sub = rs->head, *nx; sub; sub = nx) {
            nx = sub->snext;                   /* a send can close the client and unlink sub */
            if (!sub->events || (!pass && !(pass = srv_msg_from_body(p, n)))) continue;
            srv_client_send(sub->client, pass);
        }
        srv_msg_unref(pass);
        return;
    }
    if (kind != SRV_CSTREAM_FRAME) return;
    char err[160];
    int rc = wire_frame_apply(&rs->pic, &m, err, sizeof err);
    uint64_t now = uv_now(s->loop);
    if (rc != WIRE_FRAME_OK) {
        /* Not a picture this member can vouch for: nothing goes to its viewers until the node's
         * next keyframe (asked for at once, then once a second). */
        rs->have = 0;
        if (rc == WIRE_FRAME_ENOKEY) cl->relay_nokey++;
        else {
            cl->relay_mismatches += rc == WIRE_FRAME_EHASH;
            srv_log(s, SRV_LOG_WARN, "world %u: a frame from node '%s' does not check: %s; waiting for "
                    "a keyframe", rw->id, rw->node, err);
        }
        for (srv_sub *sub = rs->head; sub; sub = sub->snext) sub->need_key = 1;
        if (now - rs->asked_key_at >= 1000) send_want(s, rw, rs, 1);
        return;
    }
    rs->have = 1;
    int key = 0;
    wire_get_bool(&m, "key", &key);
    srv_msg *pass = srv_msg_from_body(p, n);
    if (!pass) {
        for (srv_sub *sub = rs->head; sub; sub = sub->snext) sub->need_key = 1;
        return;
    }
    int want_key, want_delta;
    srv_fanout_plan(s, rs->head, key, &want_key, &want_delta);
    srv_msg *local = !key && want_key ? local_key(s, rw, rs) : NULL;
    srv_fanout_deliver(s, rs->head, key, key ? pass : local, key ? NULL : pass);
    cl->relayed++;
    cl->relay_keys += local != NULL;
    srv_msg_unref(local);
    srv_msg_unref(pass);
}

void srv_relay_kick(srv *s)
{
    srv_cluster *cl = CL(s);
    if (!cl || !srv_redis_ready(cl->r)) return;
    for (int i = 0; i < cl->nrworlds; i++) {
        srv_rworld *rw = cl->rworlds[i];
        for (int k = 0; rw->present && k < rw->nstreams; k++) {
            srv_rstream *rs = &rw->streams[k];
            if (rs->used && rs->nsubs > 0 && rs->state == SRV_RS_NONE) subscribe(s, rw, rs);
        }
    }
}

void srv_relay_beat(srv *s)
{
    srv_cluster *cl = CL(s);
    uint64_t now = uv_now(s->loop);
    for (int i = 0; cl && i < cl->nrworlds; i++) {
        srv_rworld *rw = cl->rworlds[i];
        for (int k = 0; rw->present && k < rw->nstreams; k++) {
            srv_rstream *rs = &rw->streams[k];
            if (rs->used && rs->nsubs > 0 && rs->state == SRV_RS_LIVE)
                send_want(s, rw, rs, !rs->have && now - rs->asked_key_at >= 1000);
        }
    }
    srv_relay_kick(s);
}

/* Redis went or came back: the subscriptions were the old connection's. */
static void reset_streams(srv *s)
{
    srv_cluster *cl = CL(s);
    for (int i = 0; cl && i < cl->nrworlds; i++) {
        srv_rworld *rw = cl->rworlds[i];
        for (int k = 0; k < rw->nstreams; k++) {
            srv_rstream *rs = &rw->streams[k];
            if (!rs->used) continue;
            rs->state = SRV_RS_NONE;
            rs->have = 0;
            rs->resub = 0;
            for (srv_sub *sub = rs->head; sub; sub = sub->snext) sub->need_key = 1;
            if (rs->nsubs == 0) rstream_clear(rs);
        }
    }
}

void srv_relay_up(srv *s)
{
    srv_cluster *cl = CL(s);
    /* The nodes are registering again too: no world is lost for one expiry. */
    cl->lost_grace_until = uv_now(s->loop) + cl->expiry_ms;
    reset_streams(s);
    srv_relay_kick(s);
}

static void pending_answer_all(srv *s, srv_pendq *pq, const char *fmt);

void srv_relay_down(srv *s)
{
    srv_cluster *cl = CL(s);
    reset_streams(s);
    /* Their answers would come through Redis: none can now. */
    for (int i = 0; cl && i < cl->npendq; i++)
        pending_answer_all(s, &cl->pendq[i], "this server lost the cluster's Redis before node '%s' "
                           "answered this input: it was not acknowledged, and may or may not have been "
                           "applied");
}

/* ---- routing: the messages that name a world another member hosts ------------------------------------------ */
/* The world m names, when another member hosts it and this one knows of it; NULL when it is
 * hosted here, or nowhere this member knows of (the handler says so then). */
static srv_rworld *named_remote(srv *s, const wire_msg *m)
{
    uint64_t id;
    if (wire_get_u64(m, "world", &id) || id > UINT32_MAX) return NULL;
    if (srv_world_find(s, (uint32_t)id)) return NULL;
    return srv_relay_world(s, (uint32_t)id);
}

/* A remote world whose node has left the registry: 0 (present), or -1 with the notice sent
 * (node_lost, not counted: the client did nothing wrong, and its messages to other worlds go on). */
static int remote_absent(srv_client *c, const srv_rworld *rw, const int64_t *seq)
{
    if (rw->present) return 0;
    char msg[240];
    snprintf(msg, sizeof msg, "world %u is not in the cluster now: its node '%s' stopped answering. "
             "Nothing was sent; send it again when the world is back in welcome", rw->id, rw->node);
    srv_client_notice(c, "node_lost", msg, seq);
    if (seq) CL(c->s)->inputs_lost++;
    return -1;
}

/* sub: watched here, from the node's stream on its channel. */
static void watch(srv_client *c, srv_rworld *rw, const wire_msg *m)
{
    if (remote_absent(c, rw, NULL)) return;
    if (!rw->kind) {
        char msg[160];
        snprintf(msg, sizeof msg, "world %u is a '%s' world, a kind this member's build lacks", rw->id,
                 rw->kind_name);
        srv_client_error(c, "unknown_world", msg, NULL);
        return;
    }
    srv_sub_req req;
    if (srv_sub_read(c, m, rw->kind, &req)) return;
    srv_rect_align(&req.k, rw->w, rw->h);   /* as its node will: one channel per aligned rect */
    srv_sub *slot = srv_sub_slot(c, NULL, rw);
    if (!slot) return;
    memset(slot, 0, sizeof *slot);
    slot->client = c;
    slot->need_key = 1;
    slot->events = req.events;
    if (srv_relay_attach(c->s, rw, slot, &req.k) != 0) {
        memset(slot, 0, sizeof *slot);
        srv_send_too_many_streams(c);
        return;
    }
    srv_client_offload(c);
}

static void unwatch(srv_client *c, srv_rworld *rw)
{
    for (int i = 0; i < SRV_MAX_SUBS; i++)
        if (c->subs[i].remote == rw) {
            srv_sub_drop(c, &c->subs[i]);
            return;
        }
    srv_client_error(c, "not_subscribed", "this connection does not watch that world", NULL);
}

int srv_relay_route(srv_client *c, int route, const wire_msg *m, const int64_t *seq)
{
    srv_rworld *rw = named_remote(c->s, m);
    if (!rw) return 0;
    switch (route) {
    case SRV_ROUTE_WATCH: watch(c, rw, m); break;
    case SRV_ROUTE_UNWATCH: unwatch(c, rw); break;
    default:                           /* its node checks the token, decides and answers */
        if (!remote_absent(c, rw, seq)) srv_relay_forward(c, rw->node, seq);
        break;
    }
    return 1;
}

/* ---- what goes to a world's node ------------------------------------------------------------------------- */
/* ---- inputs owed an answer -------------------------------------------------------------------------------- *
 * Per node, a ring of the inputs forwarded there, in the order sent, until the node's ack or error
 * for each comes back. An input whose answer cannot come is answered node_lost here: PUBLISH
 * reached nobody (the node is not listening), the node left the registry or restarted, Redis went,
 * or nothing came within SRV_CLUSTER_ANSWER_MS. */
static srv_pendq *pendq_of(srv_cluster *cl, const char *node, int make)
{
    srv_pendq *spare = NULL;
    for (int i = 0; i < cl->npendq; i++) {
        if (strcmp(cl->pendq[i].node, node) == 0) return &cl->pendq[i];
        if (!spare && cl->pendq[i].live == 0) spare = &cl->pendq[i];
    }
    if (!make) return NULL;
    if (!cl->pendq && !(cl->pendq = calloc(SRV_CLUSTER_MAX_MEMBERS, sizeof *cl->pendq))) return NULL;
    if (!spare) {
        if (cl->npendq == SRV_CLUSTER_MAX_MEMBERS) return NULL;
        spare = &cl->pendq[cl->npendq++];
    }
    spare->head = spare->n = 0;          /* empty: its ring is reused as it is */
    spare->boot = 0;
    snprintf(spare->node, sizeof spare->node, "%s", node);
    return spare;
}

static srv_pending *pending_at(srv_pendq *pq, uint32_t i)
{
    return &pq->q[(pq->head + i) % pq->cap];
}

/* The answered ones at the head go. */
static void pending_trim(srv_pendq *pq)
{
    while (pq->n && !pq->q[pq->head].live) {
        pq->head = (pq->head + 1) % pq->cap;
        pq->n--;
    }
    if (!pq->n) pq->head = 0;
}

/* Room for one more at the tail: the ring grows (its live entries, in order). 0, or -1. */
static int pending_room(srv_pendq *pq)
{
    pending_trim(pq);
    if (pq->n < pq->cap) return 0;
    uint32_t cap = pq->cap ? pq->cap * 2 : 64;
    srv_pending *q = malloc((size_t)cap * sizeof *q);
    if (!q) return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < pq->n; i++)
        if (pending_at(pq, i)->live) q[k++] = *pending_at(pq, i);
    free(pq->q);
    pq->q = q;
    pq->cap = cap;
    pq->head = 0;
    pq->n = k;
    return 0;
}

static uint32_t node_hash(const char *node)
{
    uint32_t h = 2166136261u;                         /* FNV-1a */
    for (; *node; node++) h = (h ^ (uint8_t)*node) * 16777619u;
    return h;
}

/* Answered node_lost here: remembered, so that the node's own answer, if it comes after all (it
 * was starting and refused it, or it was slow), does not answer it a second time. */
static void settled_add(srv_cluster *cl, const char *node, uint32_t client, uint32_t seq, int request)
{
    if (!cl->settled && !(cl->settled = calloc(SRV_CLUSTER_SETTLED, sizeof *cl->settled))) return;
    cl->settled[cl->nsettled++ % SRV_CLUSTER_SETTLED] =
        (struct srv_settled){ .client = client, .seq = seq, .node = node_hash(node), .request = request };
}

/* 1: (node, client, seq) — or a request of (node, client) — was answered here already, and is
 * forgotten now. */
static int settled_take(srv_cluster *cl, const char *node, uint32_t client, uint32_t seq, int request)
{
    uint32_t n = cl->nsettled < SRV_CLUSTER_SETTLED ? cl->nsettled : SRV_CLUSTER_SETTLED;
    uint32_t h = node_hash(node);
    for (uint32_t i = 0; cl->settled && i < n; i++) {     /* rare: only an answer nobody owed */
        struct srv_settled *e = &cl->settled[i];
        if (e->client == client && e->request == request && (request || e->seq == seq) && e->node == h) {
            e->client = 0;               /* client ids start at 1 */
            return 1;
        }
    }
    return 0;
}

/* e answered node_lost here. msg speaks of "this input"; a request is told the same of "this
 * request" (the word swapped in a copy). */
static void pending_answer(srv *s, srv_pendq *pq, srv_pending *e, const char *msg)
{
    e->live = 0;
    pq->live--;
    if (!e->request) CL(s)->inputs_lost++;
    else CL(s)->requests_lost++;
    settled_add(CL(s), pq->node, e->client, e->seq, e->request);
    srv_client *c = srv_client_by_id(s, e->client);
    if (!c || c->tr->proxied) return;
    if (!e->request) {
        int64_t seq = e->seq;
        srv_client_notice(c, "node_lost", msg, &seq);
        return;
    }
    char req[360];
    const char *at = strstr(msg, "this input");
    if (at) snprintf(req, sizeof req, "%.*sthis request%s", (int)(at - msg), msg, at + strlen("this input"));
    else snprintf(req, sizeof req, "%s", msg);
    srv_client_notice(c, "node_lost", req, NULL);
}

/* Every input and request pq's node owes: node_lost, with fmt's sentence (%s: the node). */
static void pending_answer_all(srv *s, srv_pendq *pq, const char *fmt)
{
    if (!pq->live) return;
    char msg[320];
    snprintf(msg, sizeof msg, fmt, pq->node);
    srv_log(s, SRV_LOG_WARN, "%u input(s) or request(s) in flight answered node_lost: %s", pq->live, msg);
    for (uint32_t i = 0; i < pq->n && pq->live; i++)
        if (pending_at(pq, i)->live) pending_answer(s, pq, pending_at(pq, i), msg);
    pending_trim(pq);
}

/* After each registry read: a node gone or restarted owes nothing it will ever answer; an input
 * older than SRV_CLUSTER_ANSWER_MS is given up on (the node is stuck, or its answer was lost). */
static void pending_sweep(srv *s)
{
    srv_cluster *cl = CL(s);
    uint64_t now = uv_now(s->loop);
    int grace = now < cl->lost_grace_until;
    for (int i = 0; i < cl->npendq; i++) {
        srv_pendq *pq = &cl->pendq[i];
        const srv_member *mb = srv_cluster_member(s, pq->node);
        if (!mb && !grace)
            pending_answer_all(s, pq, "node '%s' left the cluster (its registration expired) before it "
                               "answered this input: it was not acknowledged, and may or may not have "
                               "been applied");
        else if (mb && pq->boot && mb->boot != pq->boot)
            pending_answer_all(s, pq, "node '%s' restarted before it answered this input: it was not "
                               "acknowledged, and may or may not have been applied");
        if (mb) pq->boot = mb->boot;
        char msg[320];
        snprintf(msg, sizeof msg, "node '%s' has not answered this input within %u s: it was not "
                 "acknowledged, and may or may not have been applied", pq->node,
                 SRV_CLUSTER_ANSWER_MS / 1000);
        for (uint32_t k = 0; k < pq->n && pq->live; k++) {
            srv_pending *e = pending_at(pq, k);
            if (!e->live) continue;
            if (now - e->sent_at < SRV_CLUSTER_ANSWER_MS) break;    /* the rest are younger */
            pending_answer(s, pq, e, msg);
        }
        pending_trim(pq);
    }
}

/* The node's ack or error for (client, seq) came — or, with request, its answer to the client's
 * oldest request: that one is answered. 1: it was owed; 0: it was not (answered already, or
 * nothing owed: a message of the node's own). */
static int pending_done(srv *s, const char *node, uint32_t client, uint32_t seq, int request)
{
    srv_pendq *pq = pendq_of(CL(s), node, 0);
    if (!pq) return 0;
    for (uint32_t i = 0; i < pq->n; i++) {
        srv_pending *e = pending_at(pq, i);
        if (e->live && e->client == client && e->request == request && (request || e->seq == seq)) {
            e->live = 0;
            pq->live--;
            pending_trim(pq);
            return 1;
        }
    }
    return 0;
}

typedef struct sent_input {
    uint64_t id;
    char node[SRV_CLUSTER_NAME_MAX];
} sent_input;

/* PUBLISH's reply to a forwarded input: received by nobody means its node is not listening (it
 * died and its registration has not expired yet, or it is restarting): it cannot be answered. */
static void on_input_published(srv *s, const redisReply *r, void *ud)
{
    sent_input *si = ud;
    srv_cluster *cl = CL(s);
    srv_pendq *pq = cl && r && r->type == REDIS_REPLY_INTEGER && r->integer == 0 ? pendq_of(cl, si->node, 0) : NULL;
    for (uint32_t i = pq ? pq->n : 0; i-- > 0;) {         /* the newest first: it was just sent */
        srv_pending *e = pending_at(pq, i);
        if (e->id != si->id) continue;
        if (e->live) {
            char msg[320];
            snprintf(msg, sizeof msg, "node '%s' is not listening (it stopped, or is restarting): this "
                     "input was not delivered; send it again when its world is back in welcome", si->node);
            pending_answer(s, pq, e, msg);
            pending_trim(pq);
        }
        break;
    }
    free(si);
}

void srv_relay_forward(srv_client *c, const char *node, const int64_t *seq)
{
    srv *s = c->s;
    srv_cluster *cl = CL(s);
    if (!c->cur_body) return;
    /* An input, or a request (play, close, fork, create: one answer each, no seq), is owed an
     * answer from here on: room for it first. */
    srv_pendq *pq = NULL;
    sent_input *si = NULL;
    {
        pq = pendq_of(cl, node, 1);
        if (!pq || pq->live >= SRV_CLUSTER_PENDING_MAX || pending_room(pq) || !(si = malloc(sizeof *si))) {
            char msg[240];
            snprintf(msg, sizeof msg, "too many inputs and requests wait for node '%s' to answer: this "
                     "one was not sent; send it again in a moment", node);
            srv_client_notice(c, "world_busy", msg, seq);
            return;
        }
        const srv_member *mb = srv_cluster_member(s, node);
        if (mb && mb->boot != pq->boot) {
            pending_answer_all(s, pq, "node '%s' restarted before it answered this input: it was not "
                               "acknowledged, and may or may not have been applied");
            pq->boot = mb->boot;
        }
        si->id = ++cl->pending_next;
        snprintf(si->node, sizeof si->node, "%s", node);
    }
    wire_buf b;
    wire_buf_init(&b);
    srv_cmsg_proxy(&b, cl->name, c->id, c->name, c->token, c->cur_body, c->cur_len);
    int rc = si ? srv_cluster_send_cb(s, node, &b, on_input_published, si) : srv_cluster_send(s, node, &b);
    wire_buf_free(&b);
    if (rc != 0) {
        free(si);
        srv_client_notice(c, "cluster_down", "this server has lost the cluster's Redis and is "
                          "reconnecting: nothing was sent; send it again in a moment", seq);
        return;
    }
    if (si) {
        pq->q[(pq->head + pq->n++) % pq->cap] = (srv_pending){ .client = c->id,
                                                               .seq = seq ? (uint32_t)*seq : 0,
                                                               .request = !seq, .id = si->id,
                                                               .sent_at = uv_now(s->loop), .live = 1 };
        pq->live++;
    }
    for (int i = 0; i < c->nsent_to; i++)
        if (strcmp(c->sent_to[i], node) == 0) return;
    if (c->nsent_to < (int)(sizeof c->sent_to / sizeof c->sent_to[0]))
        snprintf(c->sent_to[c->nsent_to++], sizeof c->sent_to[0], "%s", node);
    else
        c->sent_to_more = 1;
}

void srv_relay_reply(srv *s, const char *from, uint32_t client, const uint8_t *body, size_t len)
{
    srv_client *c = srv_client_by_id(s, client);
    wire_msg m;
    const char *t;
    size_t tl;
    if (!c || c->tr->proxied || wire_msg_decode(body, len, &m) || wire_get_str(&m, "t", &t, &tl)) return;
    if (wire_str_eq((const uint8_t *)t, tl, "welcome")) return;
    uint64_t seq;
    int is_error = wire_str_eq((const uint8_t *)t, tl, "error");
    if ((wire_str_eq((const uint8_t *)t, tl, "ack") || is_error) && wire_get_u64(&m, "seq", &seq) == 0) {
        if (seq <= UINT32_MAX && !pending_done(s, from, client, (uint32_t)seq, 0) &&
            settled_take(CL(s), from, client, (uint32_t)seq, 0))
            return;                      /* answered node_lost here already */
    } else if (is_error || wire_str_eq((const uint8_t *)t, tl, "playing") ||
               wire_str_eq((const uint8_t *)t, tl, "closed") || wire_str_eq((const uint8_t *)t, tl, "created") ||
               wire_str_eq((const uint8_t *)t, tl, "forked")) {
        /* The answer to the client's oldest request to that node. */
        if (!pending_done(s, from, client, 0, 1) && settled_take(CL(s), from, client, 0, 1))
            return;                      /* answered node_lost here already */
    }
    if (wire_str_eq((const uint8_t *)t, tl, "created") || wire_str_eq((const uint8_t *)t, tl, "forked"))
        srv_relay_created(s, from, body, len);   /* a fork's new world is an entry like a create's */
    if (wire_str_eq((const uint8_t *)t, tl, "closed")) {
        uint64_t world;
        if (wire_get_u64(&m, "world", &world) == 0 && world == c->last_closed) return;   /* said */
        c->last_closed = (uint32_t)world;
    }
    srv_msg *msg = srv_msg_from_body(body, len);
    if (!msg) return;
    srv_client_send(c, msg);
    srv_msg_unref(msg);
}

static void send_gone(srv *s, const char *to, uint32_t client)
{
    wire_buf b;
    wire_buf_init(&b);
    srv_cmsg_gone(&b, CL(s)->name, client);
    srv_cluster_send(s, to, &b);
    wire_buf_free(&b);
}

void srv_relay_client_gone(srv_client *c)
{
    srv_cluster *cl = CL(c->s);
    if (!cl || c->tr->proxied) return;
    for (int i = 0; i < cl->npendq; i++) {      /* nobody to answer: they are owed nothing */
        srv_pendq *pq = &cl->pendq[i];
        for (uint32_t k = 0; k < pq->n && pq->live; k++) {
            srv_pending *e = pending_at(pq, k);
            if (e->live && e->client == c->id) {
                e->live = 0;
                pq->live--;
            }
        }
    }
    for (int i = 0; i < c->nsent_to; i++) send_gone(c->s, c->sent_to[i], c->id);
    for (int i = 0; c->sent_to_more && i < cl->nmembers; i++)
        if (!cl->members[i].relay) send_gone(c->s, cl->members[i].name, c->id);
}

void srv_relay_free(srv *s)
{
    srv_cluster *cl = CL(s);
    if (!cl) return;
    for (int i = 0; i < cl->nrworlds; i++) rworld_free(cl->rworlds[i]);
    free(cl->rworlds);
    cl->rworlds = NULL;
    cl->nrworlds = 0;
    for (int i = 0; i < cl->npendq; i++) free(cl->pendq[i].q);
    free(cl->pendq);
    cl->pendq = NULL;
    free(cl->settled);
    cl->settled = NULL;
    cl->nsettled = 0;
    cl->npendq = 0;
}
