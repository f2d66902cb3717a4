/* fanout.c — encode once, fan out many.
 *
 * A world's subscribers are grouped into streams by (view, every, div, encoding). Per stream and
 * tick the frame is downsampled at most once (div > 1: the 13 fps homage's third of the
 * resolution) and the frame message is built at most twice — a delta for subscribers in step, a keyframe for those
 * that need one — into a refcounted buffer that every subscriber's write points at; no copy per
 * client. A rect at full resolution (a "tiled" stream) keeps no picture of its own: its data is
 * put together from the view's tiles (tiles.c), each changed tile encoded once a tick for every
 * rect that shows it. A client whose output queue is over the soft limit is skipped (and will need
 * a keyframe); the hard limit in client.c disconnects it. A slow client never delays a tick. */
#include <stdlib.h>
#include <string.h>
#include "network.h"
#include "pool.h"

void srv_msg_reserve(wire_buf *b)
{
    static const uint8_t zero[SRV_MSG_PRE - 4];
    wire_put_raw(b, zero, sizeof zero);       /* the message's 4-byte prefix completes it */
}

srv_msg *srv_msg_from_buf(wire_buf *b)
{
    if (b->oom || b->len < b->msg_start + 4) return NULL;
    srv_msg *m = malloc(sizeof *m);
    if (!m) return NULL;
    const uint8_t *framed = b->p + b->msg_start;
    atomic_init(&m->refs, 1);
    m->len = b->len - b->msg_start;
    memcpy(m->prefix, framed, 4);
    if (b->msg_start == SRV_MSG_PRE - 4) {    /* reserved: the body already sits at SRV_MSG_PRE */
        m->data = b->p;
        b->p = NULL;
        b->len = b->cap = b->msg_start = 0;
        return m;
    }
    m->data = malloc(SRV_MSG_PRE + m->len - 4);
    if (!m->data) {
        free(m);
        return NULL;
    }
    memcpy(m->data + SRV_MSG_PRE, framed + 4, m->len - 4);
    return m;
}

/* Taking a reference needs no ordering (the taker already holds one); the last release must see
 * every other thread's use of the buffer before it frees it. */
void srv_msg_ref(srv_msg *m) { atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed); }

srv_msg *srv_msg_from_body(const uint8_t *p, size_t n)
{
    if (n == 0 || n > UINT32_MAX) return NULL;
    srv_msg *m = malloc(sizeof *m);
    if (!m) return NULL;
    m->data = malloc(SRV_MSG_PRE + n);
    if (!m->data) {
        free(m);
        return NULL;
    }
    atomic_init(&m->refs, 1);
    m->len = n + 4;
    m->prefix[0] = (uint8_t)(n >> 24);
    m->prefix[1] = (uint8_t)(n >> 16);
    m->prefix[2] = (uint8_t)(n >> 8);
    m->prefix[3] = (uint8_t)n;
    memcpy(m->data + SRV_MSG_PRE, p, n);
    return m;
}

void srv_msg_unref(srv_msg *m)
{
    if (m && atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) == 1) {
        free(m->data);
        free(m);
    }
}

int srv_fanout_subs(const srv_world *w)
{
    return w->fan ? w->fan->nsubs : 0;
}

static void stream_clear(srv_stream *st)
{
    free(st->prev);
    free(st->small.px);
    memset(st, 0, sizeof *st);
}

void srv_fanout_free(srv_world *w)
{
    if (!w->fan) return;
    for (int i = 0; i < w->fan->nstreams; i++) stream_clear(&w->fan->streams[i]);
    if (w->fan->tiles)
        for (int v = 0; v < w->kind->nviews; v++) srv_tiles_free(&w->fan->tiles[v]);
    free(w->fan->tiles);
    free(w->fan->tiles_fresh);
    free(w->fan->jobs);
    free(w->fan->tiled);
    free(w->fan->crowd_any);
    free(w->fan->crowd_enc);
    free(w->fan->streams);
    free(w->fan);
    w->fan = NULL;
}

void srv_rect_align(srv_stream_key *k, int w, int h)
{
    if (k->rw <= 0 || k->rh <= 0) {
        k->rx = k->ry = k->rw = k->rh = 0;
        return;
    }
    /* In 64-bit: the rect asked for may reach far outside the world. */
    int64_t x0 = k->rx, y0 = k->ry, x1 = x0 + k->rw, y1 = y0 + k->rh;
    x0 = x0 < 0 ? 0 : x0 / SRV_REGION * SRV_REGION;
    y0 = y0 < 0 ? 0 : y0 / SRV_REGION * SRV_REGION;
    x1 = (x1 + SRV_REGION - 1) / SRV_REGION * SRV_REGION;
    y1 = (y1 + SRV_REGION - 1) / SRV_REGION * SRV_REGION;
    if (x1 > w) x1 = w;
    if (y1 > h) y1 = h;
    if (x0 >= w) x0 = (w - 1) / SRV_REGION * SRV_REGION;    /* wholly outside: the nearest region */
    if (y0 >= h) y0 = (h - 1) / SRV_REGION * SRV_REGION;
    if (x1 <= x0) x1 = x0 + SRV_REGION < w ? x0 + SRV_REGION : w;
    if (y1 <= y0) y1 = y0 + SRV_REGION < h ? y0 + SRV_REGION : h;
    k->rx = (int)x0;
    k->ry = (int)y0;
    k->rw = (int)(x1 - x0);
    k->rh = (int)(y1 - y0);
}

int srv_stream_key_eq(const srv_stream_key *a, const srv_stream_key *b)
{
    return a->view == b->view && a->every == b->every && a->div == b->div && a->enc == b->enc &&
           a->rx == b->rx && a->ry == b->ry && a->rw == b->rw && a->rh == b->rh;
}

/* A rect at full resolution in tiles: built from the view's shared tiles (tiles.c). */
static int key_tiled(const srv_stream_key *k)
{
    return k->rw > 0 && k->div <= 1 && k->enc != SRV_ENC_RAW;
}

int srv_stream_find(srv_world *w, const srv_stream_key *k)
{
    if (!w->fan && !(w->fan = calloc(1, sizeof *w->fan))) return -1;
    srv_fan *fan = w->fan;
    int free_slot = -1;
    for (int i = 0; i < fan->nstreams; i++) {
        srv_stream *st = &fan->streams[i];
        if (st->used && srv_stream_key_eq(&st->k, k)) return i;
        if (!st->used && free_slot < 0) free_slot = i;
    }
    if (free_slot < 0) {                /* room for more: the slots double (indexes stay) */
        if (fan->nstreams >= SRV_MAX_STREAMS) return -1;
        int n = fan->nstreams ? fan->nstreams * 2 : 16;
        if (n > SRV_MAX_STREAMS) n = SRV_MAX_STREAMS;
        srv_stream *p = realloc(fan->streams, (size_t)n * sizeof *p);
        if (!p) return -1;
        memset(p + fan->nstreams, 0, (size_t)(n - fan->nstreams) * sizeof *p);
        free_slot = fan->nstreams;
        fan->streams = p;
        fan->nstreams = n;
    }
    srv_stream *st = &w->fan->streams[free_slot];
    memset(st, 0, sizeof *st);
    if (key_tiled(k)) {
        st->used = st->tiled = 1;
        st->k = *k;
        return free_slot;
    }
    int rw = k->rw ? k->rw : w->fw, rh = k->rw ? k->rh : w->fh;
    size_t sw = (size_t)((rw + (int)k->div - 1) / (int)k->div), sh = (size_t)((rh + (int)k->div - 1) / (int)k->div);
    st->prev = malloc(sw * sh);
    int own = k->div > 1 || k->rw;           /* a picture of its own, not the world's frame */
    if (own) {
        st->small.w = (uint16_t)sw;
        st->small.h = (uint16_t)sh;
        st->small.px = malloc(sw * sh);
    }
    if (!st->prev || (own && !st->small.px)) {
        stream_clear(st);
        return -1;
    }
    st->used = 1;
    st->k = *k;
    return free_slot;
}

/* The stream's picture of f: f itself; or its rect, downsampled when div > 1 (nearest-sampled at
 * the centre of each div × div block, the last block's centre clamped into the rect), with f's
 * palette. *fh is the hash of what is returned: a rect's frames are frames of their own. */
static const sim_frame *stream_picture(srv_fan *fan, srv_stream *st, const sim_frame *f, uint64_t *fh)
{
    const srv_stream_key *k = &st->k;
    if (k->div <= 1 && !k->rw) return f;
    if (k->div > 1) fan->downsampled++;
    sim_frame *d = &st->small;
    uint32_t n = k->div, half = n / 2;
    uint32_t rx = (uint32_t)k->rx, ry = (uint32_t)k->ry;
    uint32_t rw = k->rw ? (uint32_t)k->rw : (uint32_t)f->w, rh = k->rw ? (uint32_t)k->rh : (uint32_t)f->h;
    for (uint32_t y = 0; y < d->h; y++) {
        uint32_t sy = ry + (y * n + half < rh ? y * n + half : rh - 1);
        const uint8_t *src = f->px + (size_t)sy * f->w + rx;
        uint8_t *dst = d->px + (size_t)y * d->w;
        if (n == 1) {
            memcpy(dst, src, d->w);
            continue;
        }
        for (uint32_t x = 0; x < d->w; x++) dst[x] = src[x * n + half < rw ? x * n + half : rw - 1];
    }
    d->pal = f->pal;
    *fh = sim_frame_hash(d);
    return d;
}

void srv_stream_attach(srv_world *w, srv_sub *sub)
{
    srv_stream *st = &w->fan->streams[sub->stream];
    sub->sprev = NULL;
    sub->snext = st->head;
    if (st->head) st->head->sprev = sub;
    st->head = sub;
    st->nsubs++;
    w->fan->nsubs++;
}

void srv_stream_detach(srv_world *w, srv_sub *sub)
{
    srv_stream *st = &w->fan->streams[sub->stream];
    if (sub->sprev) sub->sprev->snext = sub->snext;
    else st->head = sub->snext;
    if (sub->snext) sub->snext->sprev = sub->sprev;
    sub->snext = sub->sprev = NULL;
    st->nsubs--;
    w->fan->nsubs--;
    /* Last one out: the stream and its frames go, unless relays still watch it. */
    if (st->nsubs == 0 && !st->remote_until) stream_clear(st);
}

/* Build one frame message (wire/msg.c writes it) into a shared buffer. */
static srv_msg *build_frame(srv *s, srv_world *w, const srv_stream *st, uint64_t tick,
                            const sim_frame *f, uint64_t fh, uint64_t sh, int key, int with_pal)
{
    wire_buf b;
    wire_buf_init(&b);
    srv_msg_reserve(&b);                      /* headroom for the WebSocket header: no copy */
    wire_frame m = { .world = w->id, .tick = tick, .key = key, .with_pal = with_pal,
                     .enc = st->k.enc, .fh = fh, .sh = sh,
                     .rect = { st->k.rx, st->k.ry, st->k.rw, st->k.rh } };
    if (wire_msg_frame(&s->net->enc, &b, &m, f, st->prev) < 0) goto oom;
    w->fan->msgs_built++;
    w->fan->bytes_built += b.len - b.msg_start;   /* the framed message, not the headroom */
    srv_msg *msg = srv_msg_from_buf(&b);
    if (!msg) goto oom;
    return msg;
oom:
    wire_buf_free(&b);
    return NULL;
}

/* The views' shared tiles, allocated (0), or -1: out of memory. */
static int tiles_alloc(srv_world *w)
{
    srv_fan *fan = w->fan;
    int nv = w->kind->nviews;
    if (!fan->tiles) {
        fan->tiles = calloc((size_t)nv, sizeof *fan->tiles);
        fan->tiles_fresh = calloc((size_t)nv, 1);
        if (!fan->tiles || !fan->tiles_fresh) {
            free(fan->tiles);
            free(fan->tiles_fresh);
            fan->tiles = NULL;
            fan->tiles_fresh = NULL;
            return -1;
        }
    }
    return 0;
}

/* The view's shared tiles, updated from f once per fan-out (NULL: out of memory). */
static srv_tiles *view_tiles(srv_world *w, int view, const sim_frame *f)
{
    srv_fan *fan = w->fan;
    if (tiles_alloc(w) != 0) return NULL;
    srv_tiles *t = &fan->tiles[view];
    if (!fan->tiles_fresh[view]) {
        if (srv_tiles_update(t, f) != 0) return NULL;
        fan->tiles_fresh[view] = 1;
    }
    return t;
}

/* One stream's work in one fan-out: planned and (unless tiled) built on the loop, a tiled one
 * built by a worker of the pool (build_jobs), then delivered on the loop in stream order. */
typedef struct fan_job {
    int stream;
    int force_key, remote, rkey, pal_changed, want_key, want_delta;
    const sim_frame *f;
    srv_tiles *t;          /* a tiled stream's view tiles, or NULL */
    uint64_t fh, sh;
    srv_msg *key, *delta;
    uint64_t msgs, bytes;  /* built by a worker: added to the fan's counters on the loop */
} fan_job;

/* A tiled stream's frame message: its rect's tile data from the shared tiles, a keyframe or a
 * delta since the generation it sent last; its frame hash that of the rect's pixels, computed
 * when a tile of the rect or the palette changed. Runs on a pool worker (bd is that worker's):
 * it reads the tiles, whose payloads are all encoded already (srv_tiles_prepare), and writes
 * only its own stream's hash and the job. */
static srv_msg *build_rect_frame(srv_builder *bd, const srv_world *w, srv_stream *st, fan_job *j,
                                 uint64_t tick, int zlevel, int key, int with_pal)
{
    const srv_stream_key *k = &st->k;
    const sim_frame *f = j->f;
    wire_buf b;
    wire_buf_init(&b);
    srv_msg_reserve(&b);
    wire_frame m = { .world = w->id, .tick = tick, .key = key, .with_pal = with_pal, .enc = k->enc,
                     .sh = j->sh, .rect = { k->rx, k->ry, k->rw, k->rh }, .zlevel = zlevel };
    uint64_t newest;
    if (zlevel == WIRE_ZLEVEL_NONE) {
        /* Uncompressed (a crowd): the tile data written where the message holds it. fh is in the
         * tail, so it may be found after the data. */
        size_t dlen = srv_tiles_rect_size(j->t, k->rx, k->ry, k->rw, k->rh, key, st->sent_gen);
        if (wire_msg_frame_head(&b, &m, k->rw, k->rh, &f->pal, dlen) != 0 ||
            srv_tiles_rect_to(j->t, k->rx, k->ry, k->rw, k->rh, key, st->sent_gen, &b, &newest) != (long)dlen) {
            wire_buf_free(&b);
            return NULL;
        }
    } else {
        wire_buf_reset(&bd->data);
        if (srv_tiles_rect(j->t, k->rx, k->ry, k->rw, k->rh, key, st->sent_gen, &bd->data, &newest) < 0) {
            wire_buf_free(&b);
            return NULL;
        }
    }
    if (!st->have_fh || newest > st->fh_gen || st->fh_pv != f->pal.version) {
        st->fh = srv_frame_hash_rect(f, k->rx, k->ry, k->rw, k->rh);
        st->fh_gen = newest;
        st->fh_pv = f->pal.version;
        st->have_fh = 1;
    }
    m.fh = st->fh;
    long r = zlevel == WIRE_ZLEVEL_NONE
                 ? wire_msg_frame_tail(&b, &m)
                 : wire_msg_frame_data(&bd->enc, &b, &m, k->rw, k->rh, &f->pal, bd->data.p, bd->data.len);
    if (r < 0) {
        wire_buf_free(&b);
        return NULL;
    }
    j->msgs++;
    j->bytes += b.len - b.msg_start;
    srv_msg *msg = srv_msg_from_buf(&b);
    if (!msg) wire_buf_free(&b);
    return msg;
}

typedef struct build_pass {
    srv_net *net;
    const srv_world *w;
    fan_job *jobs;
    const uint64_t *tiled; /* the tiled ones: their indexes into jobs in the low 32 bits */
    uint64_t tick;
    int zlevel;
} build_pass;

static void build_jobs(int start, int end, int worker, void *ctx)
{
    build_pass *bp = ctx;
    srv_builder *bd = &bp->net->builders[worker];
    for (int i = start; i < end; i++) {
        fan_job *j = &bp->jobs[(uint32_t)bp->tiled[i]];
        srv_stream *st = &bp->w->fan->streams[j->stream];
        if (j->want_key) j->key = build_rect_frame(bd, bp->w, st, j, bp->tick, bp->zlevel, 1, 1);
        if (j->want_delta) j->delta = build_rect_frame(bd, bp->w, st, j, bp->tick, bp->zlevel, 0, j->pal_changed);
    }
}

/* One builder for each worker of the pool (worker 0 is the loop itself). 0, or -1. */
static int builders_ready(srv *s, int n)
{
    srv_net *net = s->net;
    if (net->nbuilders >= n) return 0;
    srv_builder *b = realloc(net->builders, (size_t)n * sizeof *b);
    if (!b) return -1;
    net->builders = b;
    for (; net->nbuilders < n; net->nbuilders++) {
        srv_builder *bd = &b[net->nbuilders];
        memset(bd, 0, sizeof *bd);
        if (wire_encoder_init(&bd->enc) != 0) return -1;
    }
    return 0;
}

void srv_builders_free(srv_net *net)
{
    for (int i = 0; i < net->nbuilders; i++) {
        wire_encoder_free(&net->builders[i].enc);
        wire_buf_free(&net->builders[i].data);
    }
    free(net->builders);
    net->builders = NULL;
    net->nbuilders = 0;
}

void srv_fanout_rekey(srv_world *w)
{
    if (!w->fan) return;
    for (int i = 0; i < w->fan->nstreams; i++) {
        srv_stream *st = &w->fan->streams[i];
        if (!st->used) continue;
        st->have_prev = 0;
        st->remote_key = 1;
        for (srv_sub *sub = st->head; sub; sub = sub->snext) sub->need_key = 1;
    }
}

void srv_fanout_plan(srv *s, srv_sub *head, int force_key, int *want_key, int *want_delta)
{
    uint64_t now_ms = uv_now(s->loop);
    *want_key = *want_delta = 0;
    for (srv_sub *sub = head; sub; sub = sub->snext) {
        srv_client *c = sub->client;
        if (srv_client_queued(c) > SRV_SOFT_LIMIT) {
            if (!c->over_soft_since) c->over_soft_since = now_ms ? now_ms : 1;
            sub->need_key = 1;
            sub->skipped++;
            s->net->msgs_dropped++;
            srv_tr_of(c)->soft_skips++;
            continue;
        }
        c->over_soft_since = 0;
        if (force_key || sub->need_key) *want_key = 1;
        else *want_delta = 1;
    }
}

void srv_fanout_deliver(srv *s, srv_sub *head, int force_key, srv_msg *key, srv_msg *delta)
{
    srv_net *net = s->net;
    for (srv_sub *sub = head, *nx; sub; sub = nx) {
        nx = sub->snext;           /* a send can close the client and unlink this sub */
        srv_client *c = sub->client;
        if (c->over_soft_since) continue;
        int k = force_key || sub->need_key;
        srv_msg *m = k ? key : delta;
        if (!m) continue;
        sub->need_key = 0;
        sub->frames++;
        c->frames_out++;
        net->frames_sent++;
        net->bytes_sent += m->len;
        srv_client_send(c, m);
    }
}

/* The relays' lease on st (cluster): live, or lapsed now (and the stream goes if nobody here
 * watches it either). */
static int remote_live(srv_fan *fan, srv_stream *st, uint64_t now_ms)
{
    if (!st->remote_until) return 0;
    if (now_ms < st->remote_until) return 1;
    st->remote_until = 0;
    fan->nremote--;
    if (!st->nsubs) stream_clear(st);
    return 0;
}

static srv_msg *events_msg(const srv_world *w, const sim_event *ev, int n, uint32_t dropped)
{
    wire_buf b;
    wire_buf_init(&b);
    srv_msg_reserve(&b);
    srv_msg *m = NULL;
    if (wire_msg_events(&b, w->id, ev[0].tick, ev, n, dropped) >= 0) m = srv_msg_from_buf(&b);
    wire_buf_free(&b);
    return m;
}

/* The events of w's last step, once per step, in one message: to every subscriber that asked
 * for them, and to the channel of each stream published beyond this server (a relay hands them
 * on to its own subscribers that asked). Events are few and small: the soft limit, which skips
 * frames, does not skip them; the hard limit still applies. */
static void fanout_events(srv *s, srv_world *w, uint64_t now_ms)
{
    const sim_event *ev;
    uint32_t dropped;
    int n = sim_world_events(w->w, &ev, &dropped);
    if (n == 0) return;                      /* none, or (dropped only) none kept to say */
    if (w->fan->events_tick == ev[0].tick + 1) return;   /* this step's are sent */
    w->fan->events_tick = ev[0].tick + 1;
    srv_msg *m = NULL;
    int built = 0;
    for (int i = 0; i < w->fan->nstreams; i++) {
        srv_stream *st = &w->fan->streams[i];
        if (!st->used) continue;
        int remote = st->remote_until && now_ms < st->remote_until && s->net->hooks.publish;
        for (srv_sub *sub = st->head, *nx; sub; sub = nx) {
            nx = sub->snext;                  /* a send can close the client and unlink sub */
            if (!sub->events) continue;
            if (!built++) m = events_msg(w, ev, n, dropped);
            if (m) srv_client_send(sub->client, m);
        }
        if (remote && st->used) {
            if (!built++) m = events_msg(w, ev, n, dropped);
            if (m) s->net->hooks.publish(s, w, st, m);
        }
    }
    srv_msg_unref(m);
}

/* A frame message over the size a client accepts (a big world watched whole): no client could
 * read it, so its subscribers are told and let go, and nothing is published; the stream goes with
 * its last subscriber. 1 if it was so. */
static int too_large(srv *s, srv_world *w, srv_stream *st, const srv_msg *key, const srv_msg *delta)
{
    size_t n = key && SRV_MSG_BODYLEN(key) > WIRE_MAX_SERVER_MSG ? SRV_MSG_BODYLEN(key)
             : delta && SRV_MSG_BODYLEN(delta) > WIRE_MAX_SERVER_MSG ? SRV_MSG_BODYLEN(delta) : 0;
    if (!n) return 0;
    char msg[300];
    int fw = st->tiled ? st->k.rw : st->small.px ? st->small.w : w->fw;
    int fh = st->tiled ? st->k.rh : st->small.px ? st->small.h : w->fh;
    snprintf(msg, sizeof msg, "world %u's frames for this subscription (%dx%d) came to a message of %zu "
             "bytes, over the %u a client accepts: subscribe with a rect or a div (docs/PROTOCOL.md, "
             "sub)", w->id, fw, fh, n, WIRE_MAX_SERVER_MSG);
    srv_log(s, SRV_LOG_WARN, "%s", msg);
    st->remote_key = 1;
    while (st->used && st->head) {
        srv_sub *sub = st->head;
        srv_client *c = sub->client;
        srv_sub_drop(c, sub);
        srv_client_notice(c, "frame_too_large", msg, NULL);
    }
    return 1;
}

/* A job's end, on the loop: out of memory, too large, or delivered (and published); then the
 * stream's reference for its next delta. */
static void finish_job(srv *s, srv_world *w, fan_job *j, uint64_t tick)
{
    srv_stream *st = &w->fan->streams[j->stream];
    w->fan->msgs_built += j->msgs;
    w->fan->bytes_built += j->bytes;
    srv_msg *key = j->key, *delta = j->delta;
    if (!st->used) {                         /* its last subscriber left during this fan-out */
        srv_msg_unref(key);
        srv_msg_unref(delta);
        return;
    }
    if (!j->f || (j->want_key && !key) || (j->want_delta && !delta)) {
        srv_log(s, SRV_LOG_ERROR, "world %u: out of memory building frame %llu", w->id,
                (unsigned long long)tick);
        srv_msg_unref(key);
        srv_msg_unref(delta);
        /* Everyone must resynchronise from a keyframe once memory allows. */
        for (srv_sub *sub = st->head; sub; sub = sub->snext) sub->need_key = 1;
        st->have_prev = 0;
        st->have_fh = 0;
        st->remote_key = 1;
        return;
    }
    if (too_large(s, w, st, key, delta)) {
        srv_msg_unref(key);
        srv_msg_unref(delta);
        return;
    }
    srv_net *net = s->net;
    uint64_t frames0 = net->frames_sent, bytes0 = net->bytes_sent;
    srv_fanout_deliver(s, st->head, j->force_key, key, delta);
    w->netc.frames_sent += net->frames_sent - frames0;      /* per world, once per stream */
    w->netc.bytes_sent += net->bytes_sent - bytes0;
    /* The same bytes, once, to the stream's channel: a dropped one restarts the chain. */
    if (j->remote) {
        const srv_net_hooks *hk = &s->net->hooks;
        st->remote_key = !hk->publish || hk->publish(s, w, st, j->rkey ? key : delta) != 0;
    }
    srv_msg_unref(key);
    srv_msg_unref(delta);
    /* A failed send closes its client, and the last subscriber out frees the stream (and its
     * reference frame): nobody is left to send a delta to. */
    if (!st->used) return;
    const sim_frame *f = j->f;
    if (j->t) st->sent_gen = j->t->gen;
    else memcpy(st->prev, f->px, (size_t)f->w * (size_t)f->h);
    st->have_prev = 1;
    st->prev_pv = f->pal.version;
    if (j->force_key) st->last_key = tick;
}

/* Plan stream st's frame at tick: who gets a keyframe and who a delta, and the picture. 0: nothing
 * to send; 1: j is filled in (a stream that is not tiled has its messages built already). */
static int plan_job(srv *s, srv_world *w, int i, uint64_t tick, uint64_t now_ms, fan_job *j)
{
    srv_stream *st = &w->fan->streams[i];
    if (!st->used) return 0;
    int remote = remote_live(w->fan, st, now_ms);
    if (!st->used || (!st->head && !remote) || tick % st->k.every != 0) return 0;
    /* The periodic keyframe: at most key_every ticks after the last, at a phase of the stream's
     * own (from its slot, spread over the period as a Weyl sequence), so that streams that started
     * on one tick — a crowd of viewers arriving together, or every stream after a seek — do not
     * all build keyframes on one tick every period. The window is the stream's `every` ticks
     * from its phase: it emits on exactly one of them. A stream's first periodic keyframe may
     * come early (its phase falls soon after it started): once. */
    uint64_t key_every = (uint64_t)w->kind->hz * SRV_KEYFRAME_SECONDS;
    uint64_t key_phase = ((uint64_t)((uint32_t)i * 2654435769u) * key_every) >> 32;   /* 2^32/φ */
    memset(j, 0, sizeof *j);
    j->stream = i;
    j->remote = remote;
    j->force_key = !st->have_prev || st->k.enc == SRV_ENC_RAW || tick - st->last_key >= key_every ||
                   (tick + key_phase) % key_every < st->k.every;
    /* Who gets what: skip clients over the soft limit (they will need a keyframe). Relays (one
     * publish to the stream's channel, whatever their number) get the delta, or the keyframe when
     * the stream's chain starts over. */
    srv_fanout_plan(s, st->head, j->force_key, &j->want_key, &j->want_delta);
    j->rkey = remote && (j->force_key || st->remote_key);
    if (remote) {
        j->want_key |= j->rkey;
        j->want_delta |= !j->rkey;
    }
    if (!j->want_key && !j->want_delta) return 0;
    const sim_frame *f = srv_world_frame(w, st->k.view, &j->fh);
    j->sh = srv_world_state_hash(w);
    if (f && st->tiled) {
        j->t = view_tiles(w, st->k.view, f);
        if (j->t) srv_tiles_prepare(j->t, st->k.rx, st->k.ry, st->k.rw, st->k.rh);
        else f = NULL;
    } else if (f) {
        f = stream_picture(w->fan, st, f, &j->fh);
    }
    j->f = f;
    if (!f) {
        j->t = NULL;
        j->want_key = j->want_delta = 0;     /* out of memory: finish_job resynchronises */
        return 1;
    }
    j->pal_changed = !st->have_prev || st->prev_pv != f->pal.version;
    if (!j->t) {
        if (j->want_key) j->key = build_frame(s, w, st, tick, f, j->fh, j->sh, 1, 1);
        if (j->want_delta) j->delta = build_frame(s, w, st, tick, f, j->fh, j->sh, 0, j->pal_changed);
    }
    return 1;
}

/* ---- a crowd of rects: what every one of them needs, made once and in parallel ---------------- *
 * With more than SRV_RECT_FAST_STREAMS rect streams due, nearly every tile a view changed is asked
 * for, and every frame carries the state hash. Before the streams are planned, each view they show
 * is rendered (a pass of its own, sim_world_render), then one pass on the pool does the rest: item
 * 0 hashes the state (srv_world_state_hash) while the other items cut the views' frames into tile
 * rows and encode every tile not yet encoded (srv_tiles_band). The loop used to do these one after
 * another as the streams asked, and looked at every tile of every rect for one to encode
 * (srv_tiles_prepare, which now finds them all encoded). The hash, the tiles and their payloads
 * are the same, whichever thread made them. */
#define CROWD_VIEWS 8
typedef struct crowd_pass {
    srv_world *w;
    int views[CROWD_VIEWS], nv;    /* the views shown by the crowd (rows of views[0] first) */
    const sim_frame *f[CROWD_VIEWS];
    int rows[CROWD_VIEWS];
    uint8_t *any;          /* per item (item 0 the hash): its row changed */
    uint64_t *enc;         /* per item: payloads encoded */
} crowd_pass;

static void crowd_items(int start, int end, int worker, void *ctx)
{
    crowd_pass *cp = ctx;
    (void)worker;
    for (int i = start; i < end; i++) {
        if (i == 0) {
            srv_world_state_hash(cp->w);
            continue;
        }
        int k = i - 1, v = 0;
        while (k >= cp->rows[v]) k -= cp->rows[v++];
        cp->enc[i] = 0;
        cp->any[i] = (uint8_t)srv_tiles_band(&cp->w->fan->tiles[cp->views[v]], cp->f[v], k, &cp->enc[i]);
    }
}

static void crowd_prepare(srv *s, srv_world *w, uint64_t tick)
{
    srv_fan *fan = w->fan;
    int due = 0;
    unsigned shown = 0;
    for (int i = 0; i < fan->nstreams; i++) {
        const srv_stream *st = &fan->streams[i];
        if (!st->used || !st->tiled || tick % st->k.every != 0 || st->k.view >= CROWD_VIEWS) continue;
        due++;
        shown |= 1u << st->k.view;
    }
    if (due <= SRV_RECT_FAST_STREAMS || tiles_alloc(w) != 0) return;
    crowd_pass cp = { .w = w };
    int items = 1;
    for (int v = 0; v < w->kind->nviews && v < CROWD_VIEWS; v++) {
        if (!(shown >> v & 1u) || fan->tiles_fresh[v]) continue;
        uint64_t fh;
        const sim_frame *f = srv_world_frame(w, v, &fh);
        int rows = f ? srv_tiles_begin(&fan->tiles[v], f) : -1;
        if (rows < 0) break;               /* out of memory: the plan tries again, and says so */
        fan->tiles_fresh[v] = 1;
        cp.views[cp.nv] = v;
        cp.f[cp.nv] = f;
        cp.rows[cp.nv++] = rows;
        items += rows;
    }
    if (fan->crowd_cap < items) {
        uint8_t *a = realloc(fan->crowd_any, (size_t)items);
        if (a) fan->crowd_any = a;
        uint64_t *e = realloc(fan->crowd_enc, (size_t)items * sizeof *e);
        if (e) fan->crowd_enc = e;
        if (!a || !e) {
            for (int i = 0; i < cp.nv; i++) fan->tiles_fresh[cp.views[i]] = 0;   /* the plan's, then */
            return;
        }
        fan->crowd_cap = items;
    }
    cp.any = fan->crowd_any;
    cp.enc = fan->crowd_enc;
    const sim_tasks *tk = pool_tasks(s->pool);
    void *task = tk && tk->workers > 1 ? tk->enqueue(crowd_items, items, 1, &cp, tk->user) : NULL;
    if (task) tk->finish(task, tk->user);
    else if (!tk || tk->workers <= 1) crowd_items(0, items, 0, &cp);   /* (NULL from enqueue: ran) */
    for (int v = 0, i = 1; v < cp.nv; v++) {
        int any = 0;
        uint64_t enc = 0;
        for (int r = 0; r < cp.rows[v]; r++, i++) {
            any |= cp.any[i];
            enc += cp.enc[i];
        }
        srv_tiles_end(&fan->tiles[cp.views[v]], any, enc);
    }
}

/* A rect's place for the build's order: its view, then its region row, then its column. */
static uint64_t rect_place(const srv_stream_key *k)
{
    return (uint64_t)(k->view & 0xff) << 24 | (uint64_t)(k->ry / SRV_REGION & 0xfff) << 12 |
           (uint64_t)(k->rx / SRV_REGION & 0xfff);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void srv_fanout_tick(srv *s, srv_world *w)
{
    srv_fan *fan = w->fan;
    if (!fan || (!fan->nsubs && !fan->nremote)) return;
    if (fan->tiles_fresh) memset(fan->tiles_fresh, 0, (size_t)w->kind->nviews);
    fanout_events(s, w, uv_now(s->loop));
    uint64_t tick = sim_world_tick(w->w);
    uint64_t now_ms = uv_now(s->loop);
    if (fan->jobs_cap < fan->nstreams) {
        fan_job *jb = realloc(fan->jobs, (size_t)fan->nstreams * sizeof *jb);
        uint64_t *tl = realloc(fan->tiled, (size_t)fan->nstreams * sizeof *tl);
        if (jb) fan->jobs = jb;
        if (tl) fan->tiled = tl;
        if (!jb || !tl) {
            srv_log(s, SRV_LOG_ERROR, "world %u: out of memory planning frame %llu", w->id,
                    (unsigned long long)tick);
            return;
        }
        fan->jobs_cap = fan->nstreams;
    }
    crowd_prepare(s, w, tick);
    fan_job *jobs = fan->jobs;
    int njobs = 0, ntiled = 0;
    for (int i = 0; i < fan->nstreams; i++) {
        if (!plan_job(s, w, i, tick, now_ms, &jobs[njobs])) continue;
        if (jobs[njobs].t) fan->tiled[ntiled++] = rect_place(&fan->streams[i].k) << 32 | (uint32_t)njobs;
        njobs++;
    }
    /* Built in the order of their rects in the world: neighbours read mostly the same rows of the
     * frame (for the frame hash) and the same tiles, which are then still in the cache. The order
     * changes no byte of any message. */
    if (ntiled > 1) qsort(fan->tiled, (size_t)ntiled, sizeof *fan->tiled, cmp_u64);
    /* The tiled streams' messages, on the pool's workers: each reads the shared tiles and writes
     * its own job; which worker builds which changes no byte. */
    if (ntiled) {
        const sim_tasks *tk = pool_tasks(s->pool);
        int nw = tk ? tk->workers : 1;
        if (builders_ready(s, nw) != 0) {
            nw = 1;
            tk = NULL;
        }
        /* Many rects at once (a crowd panning a big world): their tile data goes uncompressed
         * (docs/PROTOCOL.md, tile.zst), so that the tick keeps its time. zstd took 42 % of vivd's
         * CPU at 1,000 rect viewers; its fastest levels saved only a tenth of the bytes of the
         * (already packed) tile data, for a third of the fan-out's time. */
        build_pass bp = { .net = s->net, .w = w, .jobs = jobs, .tiled = fan->tiled, .tick = tick,
                          .zlevel = ntiled > SRV_RECT_FAST_STREAMS ? WIRE_ZLEVEL_NONE : 1 };
        if (s->net->nbuilders < 1) {
            for (int i = 0; i < ntiled; i++) jobs[(uint32_t)fan->tiled[i]].want_key = jobs[(uint32_t)fan->tiled[i]].want_delta = 0;
        } else if (!tk || nw <= 1) {
            build_jobs(0, ntiled, 0, &bp);
        } else {
            void *task = tk->enqueue(build_jobs, ntiled, 4, &bp, tk->user);   /* NULL: ran inline */
            if (task) tk->finish(task, tk->user);
        }
    }
    for (int i = 0; i < njobs; i++) finish_job(s, w, &jobs[i], tick);
}
