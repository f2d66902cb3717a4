/* tsan_fanout.c — rect streams built on the pool's workers, for ThreadSanitizer (tests/tsan.sh).
 * A 640x480 sand demo with eight rect streams (overlapping, every 1, 2 and 3 ticks), then with a
 * crowd of 70 (more than SRV_RECT_FAST_STREAMS: the state hash and the tiles made in a pass of
 * their own, fanout.c's crowd_prepare), published as to a cluster's relays into a capture, for
 * 60 ticks: on a pool of 3 workers with every pass handed to them, then on the loop alone. Exit 0
 * when each pair of captures is the same bytes (and TSan, which halts on a race, said nothing);
 * 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "network.h"
#include "pool.h"

static int capture_publish(srv *s, srv_world *w, const srv_stream *st, srv_msg *m)
{
    wire_buf *b = s->net->hooks.ud;
    uint8_t idx = (uint8_t)(st - w->fan->streams);
    wire_put_raw(b, &idx, 1);
    wire_put_raw(b, SRV_MSG_BODY(m), SRV_MSG_BODYLEN(m));
    return 0;
}

static int run(int workers, int nstreams, wire_buf *out)
{
    uv_loop_t loop;
    srv s;
    srv_net net;
    memset(&s, 0, sizeof s);
    memset(&net, 0, sizeof net);
    if (uv_loop_init(&loop) != 0) return -1;
    s.loop = &loop;
    s.cfg.log_level = SRV_LOG_ERROR;
    s.next_world_id = 1;
    char err[256] = "";
    if (srv_net_init(&s, &net) != 0) return -1;
    if (workers > 1) {
        if (pool_create(workers, &s.pool, err, sizeof err) != 0) {
            fprintf(stderr, "tsan_fanout: %s\n", err);
            return -1;
        }
        pool_adaptive(s.pool, 0);
    }
    int id = srv_world_add(&s, "sand", 4, "w=640,h=480,scene=demo", err, sizeof err);
    if (id <= 0) {
        fprintf(stderr, "tsan_fanout: %s\n", err);
        return -1;
    }
    srv_world *w = srv_world_find(&s, (uint32_t)id);
    net.hooks.ud = out;
    net.hooks.publish = capture_publish;
    for (int i = 0; i < nstreams; i++) {
        srv_stream_key k = { .view = 0, .every = nstreams > 8 ? 1 : (uint32_t)(1 + i % 3), .div = 1,
                             .enc = SRV_ENC_TILEZ, .rx = 64 * (i % 5), .ry = 64 * (i % 4), .rw = 320,
                             .rh = 192 + 64 * (i % 2) };
        if (nstreams > 8) {                 /* 70 different rects */
            k.rx = 64 * (i % 10);
            k.ry = 64 * ((i / 10) % 7);
            k.rw = 128 + 64 * (i % 3);
            k.rh = 64 + 64 * (i % 2);
            srv_rect_align(&k, w->fw, w->fh);
        }
        int st = srv_stream_find(w, &k);
        if (st < 0) return -1;
        w->fan->streams[st].remote_until = UINT64_MAX;
        w->fan->nremote++;
    }
    for (int t = 0; t < 60; t++) {
        sim_world_step(w->w);
        srv_fanout_tick(&s, w);
    }
    net.hooks.publish = NULL;
    for (int i = 0; i < nstreams; i++) w->fan->streams[i].remote_until = 0;
    w->fan->nremote = 0;
    srv_net_free(&s);
    for (int i = 0; i < s.nworlds; i++) srv_world_free(s.worlds[i]);
    pool_destroy(s.pool);
    uv_loop_close(&loop);
    return 0;
}

int main(void)
{
    static const int counts[2] = { 8, 70 };
    int status = 0;
    for (int c = 0; c < 2; c++) {
        wire_buf pooled, alone;
        wire_buf_init(&pooled);
        wire_buf_init(&alone);
        if (run(3, counts[c], &pooled) != 0 || run(1, counts[c], &alone) != 0) return 1;
        int same = pooled.len == alone.len && pooled.len > 0 && memcmp(pooled.p, alone.p, alone.len) == 0;
        printf("tsan_fanout: %d rect streams, %zu bytes of rect frames from 3 workers, %zu from the loop alone: %s\n",
               counts[c], pooled.len, alone.len, same ? "the same" : "DIFFERENT");
        wire_buf_free(&pooled);
        wire_buf_free(&alone);
        if (!same) status = 1;
    }
    return status;
}
