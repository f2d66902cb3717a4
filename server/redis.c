/* redis.c — vivd's connection to the cluster's Redis (docs/CLUSTER.md): two connections through
 * hiredis's asynchronous API on vivd's own loop (its libuv adapter), one for commands and
 * publishes, one for subscriptions (a subscribed connection takes no other command). Nothing here
 * waits: a command is queued and its reply comes through a callback on the loop.
 *
 * When either connection fails or drops, both are let go and opened again after a back-off
 * (100 ms, doubling up to 2 s); events.down says so at once, events.up once both are back and
 * Redis has answered a PING, and the caller restores its subscriptions and registrations then. A
 * connection that has not opened within SRV_REDIS_CONNECT_MS counts as failed (hiredis 0.14's
 * asynchronous connect has no timeout of its own). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <hiredis/sds.h>
#include <hiredis/adapters/libuv.h>
#include "cluster.h"

#define SRV_REDIS_CONNECT_MS 3000u
#define SRV_REDIS_BACKOFF_MIN 100u
#define SRV_REDIS_BACKOFF_MAX 2000u
#define SRV_REDIS_CLOSE_MS 1000u          /* a clean stop waits this long for Redis's replies */
#define SRV_REDIS_PROBE_MS 100u           /* how often the sockets' errors are looked at */
#define SRV_REDIS_PING_MS 1000u           /* a PING on the command connection this often, */
#define SRV_REDIS_DEAD_MS 5000u           /* and unanswered this long, the connection is dead */

enum { CMD = 0, SUB = 1 };

struct srv_redis {
    srv *s;
    char host[256];
    int port;
    srv_redis_events ev;
    redisAsyncContext *ctx[2];
    int connected[2];          /* the connection opened */
    int ready;                 /* both open and Redis answered PING */
    int was_ready;             /* ready once since the last down: down is said once per outage */
    int closing;               /* srv_redis_close: no reconnecting */
    int started;               /* a connect is under way or done (the timer is armed for it) */
    uv_timer_t timer;          /* the connect deadline, then the back-off */
    int timer_open;
    /* libuv reports a socket error (a refused connect, a reset) to the adapter's poll callback,
     * which ignores it and stops watching: hiredis never hears of it. So the sockets' pending
     * errors are looked at here, and a PING on the command connection must be answered. */
    uv_timer_t probe;
    uint64_t ping_sent;        /* ms of the PING awaiting its answer, or 0 */
    uint64_t ping_last;
    int timers_closed;
    uint64_t backoff_ms;
    uint64_t failures;         /* connects that failed in a row */
    char err[600];
};

/* A command's callback with its arguments (commands without a callback need none). */
typedef struct pending_cmd {
    srv_redis *r;
    srv_redis_cb cb;
    void *ud;
} pending_cmd;

static void start(srv_redis *r);
static void lost(srv_redis *r, const char *why);

static void on_ping_watch(redisAsyncContext *ac, void *reply, void *priv)
{
    srv_redis *r = ac->data;
    (void)priv;
    if (r && reply) r->ping_sent = 0;
}

static void on_probe(uv_timer_t *t)
{
    srv_redis *r = t->data;
    if (r->closing) return;
    for (int i = 0; i < 2; i++) {
        redisAsyncContext *ac = r->ctx[i];
        int e = 0;
        socklen_t len = sizeof e;
        if (!ac || ac->c.fd < 0 || getsockopt(ac->c.fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0 || !e) continue;
        char why[600];
        if (r->connected[i]) snprintf(why, sizeof why, "lost Redis at %s:%d: %s", r->host, r->port, strerror(e));
        else snprintf(why, sizeof why, "cannot connect to Redis at %s:%d: %s", r->host, r->port, strerror(e));
        lost(r, why);
        return;
    }
    uint64_t now = uv_now(r->s->loop);
    if (!r->ready || !r->ctx[0]) return;
    if (r->ping_sent && now - r->ping_sent > SRV_REDIS_DEAD_MS) {
        char why[600];
        snprintf(why, sizeof why, "Redis at %s:%d stopped answering (no PONG for %u s)", r->host, r->port,
                 SRV_REDIS_DEAD_MS / 1000);
        lost(r, why);
        return;
    }
    if (!r->ping_sent && now - r->ping_last >= SRV_REDIS_PING_MS) {
        r->ping_last = now;
        if (redisAsyncCommand(r->ctx[0], on_ping_watch, NULL, "PING") == REDIS_OK) r->ping_sent = now ? now : 1;
    }
}

const char *srv_redis_error(const srv_redis *r)
{
    return r->err;
}

int srv_redis_ready(const srv_redis *r)
{
    return r && r->ready;
}

uint64_t srv_redis_failures(const srv_redis *r)
{
    return r->failures;
}

size_t srv_redis_queued(const srv_redis *r)
{
    if (!r->ctx[CMD] || !r->ctx[CMD]->c.obuf) return 0;
    return sdslen(r->ctx[CMD]->c.obuf);
}

/* Let connection i go now (its pending callbacks run with no reply). Our callbacks see data NULL
 * and ignore what hiredis reports while it frees. */
static void drop(srv_redis *r, int i)
{
    redisAsyncContext *ac = r->ctx[i];
    if (!ac) return;
    r->ctx[i] = NULL;
    r->connected[i] = 0;
    ac->data = NULL;
    redisAsyncFree(ac);
}

static void on_timer(uv_timer_t *t);

static void arm(srv_redis *r, uint64_t ms)
{
    if (!r->timer_open) return;
    uv_timer_stop(&r->timer);
    uv_timer_start(&r->timer, on_timer, ms, 0);
}

/* Connection i failed or dropped (why): let both go, tell the caller once, try again later. */
static void lost(srv_redis *r, const char *why)
{
    int had = r->was_ready;
    snprintf(r->err, sizeof r->err, "%s", why);
    r->ready = 0;
    r->was_ready = 0;
    r->ping_sent = 0;
    drop(r, CMD);
    drop(r, SUB);
    if (r->closing) return;
    r->failures++;
    arm(r, r->backoff_ms);
    r->backoff_ms = r->backoff_ms * 2 > SRV_REDIS_BACKOFF_MAX ? SRV_REDIS_BACKOFF_MAX : r->backoff_ms * 2;
    if (had && r->ev.down) r->ev.down(r->s, why);
    else if (!had && r->ev.failed) r->ev.failed(r->s, why);
}

static void on_timer(uv_timer_t *t)
{
    srv_redis *r = t->data;
    if (r->closing) {                 /* a clean stop that Redis does not answer: let go now */
        drop(r, CMD);
        drop(r, SUB);
        return;
    }
    if (r->ctx[CMD] || r->ctx[SUB]) {
        if (!r->ready) {
            char why[600];
            snprintf(why, sizeof why, "no answer from Redis at %s:%d within %u s", r->host, r->port,
                     SRV_REDIS_CONNECT_MS / 1000);
            lost(r, why);
        }
        return;
    }
    start(r);
}

static void on_pong(redisAsyncContext *ac, void *reply, void *priv)
{
    srv_redis *r = ac->data;
    const redisReply *rep = reply;
    (void)priv;
    if (!r || !rep) return;
    if (rep->type == REDIS_REPLY_ERROR || rep->type != REDIS_REPLY_STATUS) {
        char why[600];
        snprintf(why, sizeof why, "Redis at %s:%d refuses us: %.200s", r->host, r->port,
                 rep->type == REDIS_REPLY_ERROR ? rep->str : "an unexpected answer to PING");
        lost(r, why);
        return;
    }
    r->ready = r->was_ready = 1;
    r->backoff_ms = SRV_REDIS_BACKOFF_MIN;
    r->failures = 0;
    r->err[0] = '\0';
    if (r->timer_open) uv_timer_stop(&r->timer);
    if (r->ev.up) r->ev.up(r->s);
}

static int which(const srv_redis *r, const redisAsyncContext *ac)
{
    return r->ctx[CMD] == ac ? CMD : r->ctx[SUB] == ac ? SUB : -1;
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    srv_redis *r = ac->data;
    if (!r) return;
    int i = which(r, ac);
    if (i < 0) return;
    if (status != REDIS_OK) {
        char why[600];
        snprintf(why, sizeof why, "cannot connect to Redis at %s:%d: %.150s", r->host, r->port,
                 ac->errstr ? ac->errstr : "connection failed");
        r->ctx[i] = NULL;              /* hiredis frees it after this callback */
        r->connected[i] = 0;
        lost(r, why);
        return;
    }
    r->connected[i] = 1;
    if (r->connected[CMD] && r->connected[SUB])
        redisAsyncCommand(r->ctx[CMD], on_pong, NULL, "PING");
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    srv_redis *r = ac->data;
    if (!r) return;
    int i = which(r, ac);
    if (i < 0) return;
    r->ctx[i] = NULL;                  /* hiredis frees it after this callback */
    r->connected[i] = 0;
    if (r->closing) {
        if (!r->ctx[CMD] && !r->ctx[SUB] && r->timer_open) uv_timer_stop(&r->timer);
        return;
    }
    char why[600];
    const char *what = status == REDIS_OK ? "the connection was closed" : ac->errstr ? ac->errstr : "error";
    if (r->was_ready)
        snprintf(why, sizeof why, "lost Redis at %s:%d: %.150s", r->host, r->port, what);
    else   /* it never answered as Redis does: a wrong port, or not Redis at all */
        snprintf(why, sizeof why, "no Redis answers at %s:%d: %.150s (is that Redis's port?)", r->host,
                 r->port, what);
    lost(r, why);
}

static redisAsyncContext *open_one(srv_redis *r, char *why, size_t whylen)
{
    redisAsyncContext *ac = redisAsyncConnect(r->host, r->port);
    if (!ac) {
        snprintf(why, whylen, "out of memory connecting to Redis");
        return NULL;
    }
    if (ac->err) {
        snprintf(why, whylen, "cannot connect to Redis at %s:%d: %.150s", r->host, r->port, ac->errstr);
        redisAsyncFree(ac);
        return NULL;
    }
    if (redisLibuvAttach(ac, r->s->loop) != REDIS_OK) {
        snprintf(why, whylen, "cannot watch the Redis connection on the loop");
        redisAsyncFree(ac);
        return NULL;
    }
    ac->data = r;
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    return ac;
}

static void start(srv_redis *r)
{
    char why[600] = "";
    r->started = 1;
    for (int i = 0; i < 2 && !why[0]; i++) r->ctx[i] = open_one(r, why, sizeof why);
    if (why[0]) {
        lost(r, why);
        return;
    }
    arm(r, SRV_REDIS_CONNECT_MS);
}

int srv_redis_parse_url(const char *url, char *host, size_t hostlen, int *port, char *err,
                        size_t errlen)
{
    static const char scheme[] = "redis://";
    if (strncmp(url, scheme, sizeof scheme - 1) != 0) {
        snprintf(err, errlen, "--cluster wants redis://HOST:PORT, e.g. redis://127.0.0.1:6379; got '%s'", url);
        return -1;
    }
    const char *hp = url + sizeof scheme - 1;
    size_t n = strlen(hp);
    if (n && hp[n - 1] == '/') n--;            /* redis://h:p/ */
    const char *colon = NULL;
    for (size_t i = 0; i < n; i++)
        if (hp[i] == ':') colon = hp + i;
    if (!colon || colon == hp || (size_t)(colon - hp) >= hostlen) {
        snprintf(err, errlen, "--cluster %s: give the port too: redis://HOST:PORT (Redis's default "
                 "is 6379)", url);
        return -1;
    }
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (end != hp + n || end == colon + 1 || p < 1 || p > 65535) {
        snprintf(err, errlen, "--cluster %s: the port must be a number in 1..65535", url);
        return -1;
    }
    memcpy(host, hp, (size_t)(colon - hp));
    host[colon - hp] = '\0';
    *port = (int)p;
    return 0;
}

srv_redis *srv_redis_new(srv *s, const char *host, int port, const srv_redis_events *ev)
{
    srv_redis *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->s = s;
    snprintf(r->host, sizeof r->host, "%s", host);
    r->port = port;
    r->ev = *ev;
    r->backoff_ms = SRV_REDIS_BACKOFF_MIN;
    uv_timer_init(s->loop, &r->timer);
    r->timer.data = r;
    r->timer_open = 1;
    uv_timer_init(s->loop, &r->probe);
    r->probe.data = r;
    uv_timer_start(&r->probe, on_probe, SRV_REDIS_PROBE_MS, SRV_REDIS_PROBE_MS);
    return r;
}

void srv_redis_start(srv_redis *r)
{
    if (!r->started) start(r);
}

static void on_reply(redisAsyncContext *ac, void *reply, void *priv)
{
    pending_cmd *pc = priv;
    /* The connection going (ac->data NULL, or no reply) still answers: the caller learns it. */
    if (pc->cb) pc->cb(pc->r->s, ac->data ? reply : NULL, pc->ud);
    free(pc);
}

int srv_redis_command(srv_redis *r, srv_redis_cb cb, void *ud, int argc, const char **argv,
                      const size_t *lens)
{
    if (!r->ready || !r->ctx[CMD]) return -1;
    if (!cb) return redisAsyncCommandArgv(r->ctx[CMD], NULL, NULL, argc, argv, lens) == REDIS_OK ? 0 : -1;
    pending_cmd *pc = malloc(sizeof *pc);
    if (!pc) return -1;
    pc->r = r;
    pc->cb = cb;
    pc->ud = ud;
    if (redisAsyncCommandArgv(r->ctx[CMD], on_reply, pc, argc, argv, lens) != REDIS_OK) {
        free(pc);
        return -1;
    }
    return 0;
}

/* Every reply on the subscription connection: confirmations and messages. */
static void on_sub_reply(redisAsyncContext *ac, void *reply, void *priv)
{
    srv_redis *r = ac->data;
    const redisReply *rep = reply;
    (void)priv;
    if (!r || !rep) return;
    if (rep->type == REDIS_REPLY_ERROR) {
        srv_log(r->s, SRV_LOG_WARN, "Redis refused a subscription: %.200s", rep->str);
        return;
    }
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 3 || rep->element[0]->type != REDIS_REPLY_STRING ||
        rep->element[1]->type != REDIS_REPLY_STRING)
        return;
    const redisReply *kind = rep->element[0], *chan = rep->element[1], *body = rep->element[2];
    if (kind->len == 7 && memcmp(kind->str, "message", 7) == 0 && body->type == REDIS_REPLY_STRING) {
        if (r->ev.message) r->ev.message(r->s, chan->str, chan->len, (const uint8_t *)body->str, body->len);
    } else if (kind->len == 9 && memcmp(kind->str, "subscribe", 9) == 0) {
        if (r->ev.subscribed) r->ev.subscribed(r->s, chan->str, chan->len);
    } else if (kind->len == 11 && memcmp(kind->str, "unsubscribe", 11) == 0) {
        if (r->ev.unsubscribed) r->ev.unsubscribed(r->s, chan->str, chan->len);
    }
}

int srv_redis_subscribe(srv_redis *r, const char *chan)
{
    if (!r->ready || !r->ctx[SUB]) return -1;
    return redisAsyncCommand(r->ctx[SUB], on_sub_reply, NULL, "SUBSCRIBE %s", chan) == REDIS_OK ? 0 : -1;
}

int srv_redis_unsubscribe(srv_redis *r, const char *chan)
{
    if (!r->ready || !r->ctx[SUB]) return -1;
    return redisAsyncCommand(r->ctx[SUB], NULL, NULL, "UNSUBSCRIBE %s", chan) == REDIS_OK ? 0 : -1;
}

void srv_redis_close(srv_redis *r)
{
    if (!r || r->closing) return;
    r->closing = 1;
    r->ready = 0;
    uv_timer_stop(&r->probe);
    /* What is queued (the last registry update) goes first; then each connection closes. */
    for (int i = 0; i < 2; i++)
        if (r->ctx[i]) {
            if (r->connected[i]) redisAsyncDisconnect(r->ctx[i]);
            else drop(r, i);
        }
    if (r->ctx[CMD] || r->ctx[SUB]) arm(r, SRV_REDIS_CLOSE_MS);
    else if (r->timer_open) uv_timer_stop(&r->timer);
}

/* r goes with the last of its two timers. */
static void on_timer_closed(uv_handle_t *h)
{
    srv_redis *r = h->data;
    if (++r->timers_closed == 2) free(r);
}

void srv_redis_free(srv_redis *r)
{
    if (!r) return;
    r->closing = 1;
    drop(r, CMD);
    drop(r, SUB);
    r->timer_open = 0;
    uv_close((uv_handle_t *)&r->timer, on_timer_closed);
    uv_close((uv_handle_t *)&r->probe, on_timer_closed);
}
