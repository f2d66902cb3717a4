/* fanout.c — encode once, fan out many.
 *
 * A world's subscribers are grouped into streams by (view, every, encoding). Per stream and tick
 * the frame message is built at most twice — a delta for subscribers in step, a keyframe for those
 * that need one — into a refcounted buffer that every subscriber's write points at; no copy per
 * client. A client whose output queue is over the soft limit is skipped (and will need a
 * keyframe); the hard limit in client.c disconnects it. A slow client never delays a tick. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "codec.h"
#include "srv.h"

srv_msg *srv_msg_from_buf(wire_buf *b)
{
    srv_msg *m = malloc(sizeof *m);
    if (!m) return NULL;
    m->refs = 1;
    m->len = b->len;
    m->data = b->p;
    b->p = NULL;
    b->len = b->cap = 0;
    return m;
}

void srv_msg_ref(srv_msg *m) { m->refs++; }

void srv_msg_unref(srv_msg *m)
{
    if (m && --m->refs == 0) {
        free(m->data);
        free(m);
    }
}

int srv_stream_find(srv_world *w, int view, uint32_t every, int enc)
{
    int free_slot = -1;
    for (int i = 0; i < SRV_MAX_STREAMS; i++) {
        srv_stream *st = &w->streams[i];
        if (st->used && st->view == view && st->every == every && st->enc == enc) return i;
        if (!st->used && free_slot < 0) free_slot = i;
    }
    if (free_slot < 0) return -1;
    srv_stream *st = &w->streams[free_slot];
    memset(st, 0, sizeof *st);
    st->prev = malloc((size_t)w->fw * (size_t)w->fh);
    if (!st->prev) return -1;
    st->used = 1;
    st->view = view;
    st->every = every;
    st->enc = enc;
    return free_slot;
}

void srv_stream_attach(srv_world *w, srv_sub *sub)
{
    srv_stream *st = &w->streams[sub->stream];
    sub->sprev = NULL;
    sub->snext = st->head;
    if (st->head) st->head->sprev = sub;
    st->head = sub;
    st->nsubs++;
    w->nsubs++;
}

void srv_stream_detach(srv_world *w, srv_sub *sub)
{
    srv_stream *st = &w->streams[sub->stream];
    if (sub->sprev) sub->sprev->snext = sub->snext;
    else st->head = sub->snext;
    if (sub->snext) sub->snext->sprev = sub->sprev;
    sub->snext = sub->sprev = NULL;
    st->nsubs--;
    w->nsubs--;
    if (st->nsubs == 0) {            /* last one out: the stream and its reference frame go */
        free(st->prev);
        memset(st, 0, sizeof *st);
    }
}

/* Build one frame message. data: the tile encoding (a delta when not key), zstd-compressed as one
 * stateless frame when the stream asks for it and it is smaller, or the raw pixels. */
static srv_msg *build_frame(srv *s, srv_world *w, const srv_stream *st, uint64_t tick,
                            const sim_frame *f, uint64_t fh, uint64_t sh, int key, int with_pal)
{
    wire_buf b;
    wire_buf_init(&b);
    size_t pixels = (size_t)w->fw * (size_t)w->fh;
    const uint8_t *data = f->px;
    size_t dlen = pixels;
    const char *enc = "raw";
    if (st->enc != SRV_ENC_RAW) {
        wire_buf_reset(&s->scratch);
        if (codec_encode(&s->scratch, f->px, key ? NULL : st->prev, f->w, f->h) < 0) goto oom;
        data = s->scratch.p;
        dlen = s->scratch.len;
        enc = "tile";
    }
    if (wire_buf_reserve(&b, dlen + ZSTD_compressBound(dlen) + 2048) != 0) goto oom;
    wire_msg_begin(&b);
    wire_put_map(&b, with_pal ? 12 : 11);
    wire_put_str(&b, "t"); wire_put_str(&b, "frame");
    wire_put_str(&b, "world"); wire_put_uint(&b, w->id);
    wire_put_str(&b, "tick"); wire_put_uint(&b, tick);
    wire_put_str(&b, "key"); wire_put_bool(&b, key);
    wire_put_str(&b, "w"); wire_put_uint(&b, f->w);
    wire_put_str(&b, "h"); wire_put_uint(&b, f->h);
    wire_put_str(&b, "pv"); wire_put_uint(&b, f->pal.version);
    if (with_pal) {
        wire_put_str(&b, "pal");
        wire_put_bin(&b, f->pal.rgb, (size_t)f->pal.count * 3);
    }
    size_t zlen = 0;
    uint8_t *z = NULL;
    /* Tiny messages (a palette-only change is one byte) are not worth a zstd frame header. */
    if (st->enc == SRV_ENC_TILEZ && dlen > 32) {
        z = b.p + b.cap - ZSTD_compressBound(dlen);      /* compress into the reserve's tail */
        size_t r = ZSTD_compressCCtx(s->zctx, z, ZSTD_compressBound(dlen), data, dlen, 1);
        if (!ZSTD_isError(r) && r < dlen) zlen = r;
    }
    wire_put_str(&b, "enc"); wire_put_str(&b, zlen ? "tile.zst" : enc);
    wire_put_str(&b, "data");
    if (zlen) {
        /* The compressed bytes sit in the buffer's tail, beyond anything written so far. */
        uint8_t tmp[5] = { 0xc6, (uint8_t)(zlen >> 24), (uint8_t)(zlen >> 16), (uint8_t)(zlen >> 8),
                           (uint8_t)zlen };
        wire_put_raw(&b, tmp, 5);
        memmove(b.p + b.len, z, zlen);
        b.len += zlen;
    } else {
        wire_put_bin(&b, data, dlen);
    }
    wire_put_str(&b, "fh"); wire_put_uint(&b, fh);
    wire_put_str(&b, "sh"); wire_put_uint(&b, sh);
    if (wire_msg_end(&b) < 0) goto oom;
    w->msgs_built++;
    w->bytes_built += b.len;
    srv_msg *m = srv_msg_from_buf(&b);
    if (!m) goto oom;
    return m;
oom:
    wire_buf_free(&b);
    return NULL;
}

void srv_fanout_tick(srv *s, srv_world *w)
{
    uint64_t tick = sim_world_tick(w->w);
    uint64_t key_every = (uint64_t)w->kind->hz * SRV_KEYFRAME_SECONDS;
    for (int i = 0; i < SRV_MAX_STREAMS; i++) {
        srv_stream *st = &w->streams[i];
        if (!st->used || !st->head || tick % st->every != 0) continue;
        /* Who gets what: skip clients over the soft limit (they will need a keyframe). */
        int force_key = !st->have_prev || st->enc == SRV_ENC_RAW || tick - st->last_key >= key_every;
        int want_key = 0, want_delta = 0;
        uint64_t now_ms = uv_now(s->loop);
        for (srv_sub *sub = st->head; sub; sub = sub->snext) {
            srv_client *c = sub->client;
            if (srv_client_queued(c) > SRV_SOFT_LIMIT) {
                if (!c->over_soft_since) c->over_soft_since = now_ms ? now_ms : 1;
                sub->need_key = 1;
                sub->skipped++;
                s->msgs_dropped++;
                continue;
            }
            c->over_soft_since = 0;
            if (force_key || sub->need_key) want_key = 1;
            else want_delta = 1;
        }
        if (!want_key && !want_delta) continue;
        sim_frame *f = &w->frames[st->view];
        if (w->frame_tick[st->view] != tick) {
            sim_world_render(w->w, st->view, f);
            w->frame_fh[st->view] = sim_frame_hash(f);
            w->frame_tick[st->view] = tick;
        }
        if (w->sh_tick != tick) {
            w->sh = sim_world_hash(w->w);
            w->sh_tick = tick;
        }
        int pal_changed = !st->have_prev || st->prev_pv != f->pal.version;
        srv_msg *key = want_key ? build_frame(s, w, st, tick, f, w->frame_fh[st->view], w->sh, 1, 1) : NULL;
        srv_msg *delta = want_delta ? build_frame(s, w, st, tick, f, w->frame_fh[st->view], w->sh, 0,
                                                  pal_changed) : NULL;
        if ((want_key && !key) || (want_delta && !delta)) {
            srv_log(s, SRV_LOG_ERROR, "world %u: out of memory building frame %llu", w->id,
                    (unsigned long long)tick);
            srv_msg_unref(key);
            srv_msg_unref(delta);
            /* Everyone must resynchronise from a keyframe once memory allows. */
            for (srv_sub *sub = st->head; sub; sub = sub->snext) sub->need_key = 1;
            st->have_prev = 0;
            continue;
        }
        for (srv_sub *sub = st->head, *nx; sub; sub = nx) {
            nx = sub->snext;           /* a send can close the client and unlink this sub */
            srv_client *c = sub->client;
            if (c->over_soft_since) continue;
            int k = force_key || sub->need_key;
            srv_msg *m = k ? key : delta;
            sub->need_key = 0;
            sub->frames++;
            c->frames_out++;
            s->frames_sent++;
            s->bytes_sent += m->len;
            srv_client_send(c, m);
        }
        srv_msg_unref(key);
        srv_msg_unref(delta);
        /* A failed send closes its client, and the last subscriber out frees the stream (and its
         * reference frame): nobody is left to send a delta to. */
        if (!st->used) continue;
        memcpy(st->prev, f->px, (size_t)w->fw * (size_t)w->fh);
        st->have_prev = 1;
        st->prev_pv = f->pal.version;
        if (force_key) st->last_key = tick;
    }
}
