/* worlds.c — the worlds vivd hosts, and the tick scheduler.
 *
 * Each world keeps absolute deadlines: tick k (counted from a base) is due at t0 + k·10⁹/hz on
 * uv_hrtime, so timer jitter never accumulates into drift. One one-shot uv_timer is re-armed
 * after every wake for the earliest deadline of any world. A late world runs at most
 * SRV_MAX_CATCHUP ticks back to back; past that it skips ahead (counted as overruns) rather than
 * let one slow tick snowball. Nothing here waits on a client: fan-out only queues writes. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "srv.h"
#include "files.h"


static uint64_t deadline(const srv_world *w, uint64_t tick)
{
    /* Tick k after the base is due k·10¹¹/(hz·speed%) ns after t0, split into quotient and
     * remainder so it never overflows (a live world rebases only when it skips). */
    uint64_t k = tick - w->tick_base;
    uint64_t rate = (uint64_t)w->kind->hz * (uint64_t)w->speed;
    return w->t0 + (k / rate) * 100000000000ull + ((k % rate) * 100000000000ull) / rate;
}

void srv_world_rebase(srv_world *w)
{
    w->t0 = uv_hrtime();
    w->tick_base = sim_world_tick(w->w);
}

/* Host a sim world: the common part of a new world and a resumed one. Takes sw. */
static srv_world *host(srv *s, sim_world *sw, char *err, size_t errlen)
{
    srv_world *w = calloc(1, sizeof *w);
    const sim_kind *k = sim_world_kind(sw);
    if (!w) goto oom;
    w->w = sw;
    w->kind = k;
    w->session = -1;
    sim_world_frame_size(sw, &w->fw, &w->fh);
    w->frames = calloc((size_t)k->nviews, sizeof *w->frames);
    w->frame_tick = calloc((size_t)k->nviews, sizeof *w->frame_tick);
    w->frame_fh = calloc((size_t)k->nviews, sizeof *w->frame_fh);
    if (!w->frames || !w->frame_tick || !w->frame_fh) goto oom;
    for (int v = 0; v < k->nviews; v++) {
        if (sim_frame_init(&w->frames[v], w->fw, w->fh) != 0) goto oom;
        w->frame_tick[v] = UINT64_MAX;
    }
    w->sh_tick = UINT64_MAX;
    w->period_ns = 1000000000ull / k->hz;
    w->speed = 100;
    w->t0 = uv_hrtime();
    w->tick_base = sim_world_tick(sw);
    w->id = s->next_world_id++;
    s->worlds[s->nworlds++] = w;
    return w;
oom:
    snprintf(err, errlen, "out of memory hosting the world");
    if (w) srv_world_free(w);
    else sim_world_destroy(sw);
    return NULL;
}

static int add_world(srv *s, const char *kind, uint64_t seed, const char *params,
                     const sim_file_reader *files, char *err, size_t errlen);

int srv_world_add(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                  size_t errlen)
{
    return add_world(s, kind, seed, params, NULL, err, errlen);
}

int srv_world_add_local(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                        size_t errlen)
{
    return add_world(s, kind, seed, params, &rpl_files, err, errlen);
}

static int add_world(srv *s, const char *kind, uint64_t seed, const char *params,
                     const sim_file_reader *files, char *err, size_t errlen)
{
    if (s->nworlds >= SRV_MAX_WORLDS) {
        snprintf(err, errlen, "the server already hosts %d worlds (the limit)", SRV_MAX_WORLDS);
        return SIM_EFULL;
    }
    sim_config cfg = sim_config_default();
    cfg.kind = kind;
    cfg.seed = seed;
    cfg.params = params;
    cfg.err = err;
    cfg.errlen = errlen;
    cfg.files = files;
    int rc;
    sim_world *sw = sim_world_create(&cfg, &rc);
    if (!sw) {
        if (!err[0]) snprintf(err, errlen, "%s", sim_strerror(rc));
        return rc;
    }
    srv_world *w = host(s, sw, err, errlen);
    if (!w) return SIM_ENOMEM;
    srv_log(s, SRV_LOG_INFO, "world %u: %s seed=%" PRIu64 " %s (%dx%d, %u Hz)", w->id, w->kind->name,
            seed, sim_world_params(sw), w->fw, w->fh, (unsigned)w->kind->hz);
    srv_record_begin(s, w);
    return (int)w->id;
}

srv_world *srv_world_adopt(srv *s, sim_world *sw, char *err, size_t errlen)
{
    if (s->nworlds >= SRV_MAX_WORLDS) {
        snprintf(err, errlen, "the server already hosts %d worlds (the limit)", SRV_MAX_WORLDS);
        sim_world_destroy(sw);
        return NULL;
    }
    return host(s, sw, err, errlen);
}

void srv_world_free(srv_world *w)
{
    if (!w) return;
    for (int i = 0; i < SRV_MAX_STREAMS; i++) free(w->streams[i].prev);
    if (w->frames)
        for (int v = 0; v < w->kind->nviews; v++) sim_frame_free(&w->frames[v]);
    free(w->frames);
    free(w->frame_tick);
    free(w->frame_fh);
    free(w->acks);
    free(w->cpbuf);
    srv_play_free(w->play);
    sim_world_destroy(w->w);
    free(w);
}

srv_world *srv_world_find(srv *s, uint32_t id)
{
    for (int i = 0; i < s->nworlds; i++)
        if (s->worlds[i]->id == id) return s->worlds[i];
    return NULL;
}

/* Close a world: its subscribers are told, its pending inputs are refused, and it is freed. */
void srv_world_close(srv *s, srv_world *w)
{
    for (srv_client *c = s->clients; c; c = c->next) {
        for (int i = 0; i < SRV_MAX_SUBS; i++) {
            if (c->subs[i].world != w) continue;
            srv_sub_drop(c, &c->subs[i]);
            wire_buf b;
            wire_buf_init(&b);
            wire_msg_begin(&b);
            wire_put_map(&b, 2);
            wire_put_str(&b, "t"); wire_put_str(&b, "closed");
            wire_put_str(&b, "world"); wire_put_uint(&b, w->id);
            wire_msg_end(&b);
            srv_client_send_buf(c, &b);
            wire_buf_free(&b);
        }
    }
    srv_record_end(s, w);
    for (size_t i = w->ackhead; i < w->nacks; i++) {
        if (!w->acks[i].client) continue;
        int64_t seq = w->acks[i].seq;
        srv_client_notice(w->acks[i].client, "unknown_world",
                          "the world was closed before the input's tick was committed", &seq);
    }
    for (int i = 0; i < s->nworlds; i++)
        if (s->worlds[i] == w) {
            memmove(&s->worlds[i], &s->worlds[i + 1], (size_t)(s->nworlds - i - 1) * sizeof *s->worlds);
            s->nworlds--;
            break;
        }
    srv_log(s, SRV_LOG_INFO, "world %u closed after %" PRIu64 " ticks", w->id, w->ticks);
    srv_world_free(w);
}

static void record_lateness(srv_world *w, uint64_t late_ns)
{
    uint64_t us = late_ns / 1000;
    uint64_t b = us / 100;                       /* 0.1 ms buckets */
    w->lat_hist[b < SRV_LAT_BUCKETS ? b : SRV_LAT_BUCKETS]++;
    w->lat_count++;
    if (us > w->late_max_us) w->late_max_us = us;
}

/* Lateness percentile in microseconds (bucket upper bound). */
static uint64_t lateness_pct(const srv_world *w, double pct)
{
    if (!w->lat_count) return 0;
    uint64_t want = (uint64_t)((double)w->lat_count * pct / 100.0);
    uint64_t seen = 0;
    for (int b = 0; b <= SRV_LAT_BUCKETS; b++) {
        seen += w->lat_hist[b];
        if (seen > want) {
            uint64_t edge = (uint64_t)(b + 1) * 100;      /* the bucket's upper edge, capped */
            return edge < w->late_max_us ? edge : w->late_max_us;
        }
    }
    return w->late_max_us;
}

void srv_world_stats_log(srv *s, int level)
{
    for (int i = 0; i < s->nworlds; i++) {
        srv_world *w = s->worlds[i];
        srv_log(s, level,
                "world %u %s: tick %" PRIu64 ", lateness p50 %.1f ms p99 %.1f ms max %.1f ms, "
                "overruns %" PRIu64 ", skipped %" PRIu64 ", %d subscriber(s)",
                w->id, w->kind->name, sim_world_tick(w->w), (double)lateness_pct(w, 50) / 1000.0,
                (double)lateness_pct(w, 99) / 1000.0, (double)w->late_max_us / 1000.0,
                w->overruns, w->skipped, w->nsubs);
    }
}

void srv_world_stats_put(const srv_world *w, wire_buf *b)
{
    wire_put_map(b, 9);
    wire_put_str(b, "id"); wire_put_uint(b, w->id);
    wire_put_str(b, "tick"); wire_put_uint(b, sim_world_tick(w->w));
    wire_put_str(b, "ticks"); wire_put_uint(b, w->ticks);
    wire_put_str(b, "late_p50_us"); wire_put_uint(b, lateness_pct(w, 50));
    wire_put_str(b, "late_p99_us"); wire_put_uint(b, lateness_pct(w, 99));
    wire_put_str(b, "late_max_us"); wire_put_uint(b, w->late_max_us);
    wire_put_str(b, "overruns"); wire_put_uint(b, w->overruns);
    wire_put_str(b, "skipped"); wire_put_uint(b, w->skipped);
    wire_put_str(b, "subs"); wire_put_uint(b, (uint64_t)w->nsubs);
}

/* One tick of one world: apply queued inputs and step, acknowledge them, fan out frames. */
static void run_tick(srv *s, srv_world *w)
{
    uint64_t tick = sim_world_tick(w->w);
    if (w->play) srv_play_feed(w);        /* a recording: its logged inputs, nobody else's */
    sim_world_step(w->w);
    w->ticks++;
    if (!w->play) srv_record_tick(s, w, tick);   /* acks now, or when the log committed it */
    if (w->nsubs) srv_fanout_tick(s, w);
    if (w->play) srv_play_after_tick(s, w);
}

static void on_tick_timer(uv_timer_t *t)
{
    srv *s = t->data;
    if (s->stopping) return;
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < s->nworlds; i++) {
        srv_world *w = s->worlds[i];
        if (w->play && srv_play_paused(w)) continue;     /* a paused recording has no deadline */
        int ran = 0;
        for (;;) {
            uint64_t now = uv_hrtime();
            uint64_t due = deadline(w, sim_world_tick(w->w));
            if (due > now) break;
            if (ran == SRV_MAX_CATCHUP) {
                /* Still behind: skip ahead instead of running a backlog. */
                uint64_t behind = (now - due) / w->period_ns + 1;
                w->skipped += behind;
                /* One warning per 10 s per world at most: a log that floods helps nobody. */
                uint64_t now_ms = uv_now(s->loop);
                if (!w->warned_at || now_ms - w->warned_at >= 10000) {
                    srv_log(s, SRV_LOG_WARN, "world %u is falling behind: %" PRIu64 " tick(s) skipped "
                            "so far (the server is overloaded)", w->id, w->skipped);
                    w->warned_at = now_ms;
                }
                w->t0 = now;
                w->tick_base = sim_world_tick(w->w);
                break;
            }
            record_lateness(w, now - due);
            run_tick(s, w);
            /* An overrun: the tick (fan-out included) finished after the next one was due. */
            if (uv_hrtime() > deadline(w, sim_world_tick(w->w))) w->overruns++;
            ran++;
            if (w->play && srv_play_paused(w)) break;
        }
        if (w->play && srv_play_paused(w)) continue;
        uint64_t d = deadline(w, sim_world_tick(w->w));
        if (d < next) next = d;
    }
    if (next == UINT64_MAX) return;          /* no worlds: a create will restart the timer */
    uint64_t now = uv_hrtime();
    /* At least 1 ms: a 0 ms timer re-armed from its own callback runs again in the same timer
     * pass (libuv < 1.48), and the loop would never poll the network while a world is behind. */
    uint64_t delay_ms = next > now ? (next - now + 999999) / 1000000 : 1;
    uv_update_time(s->loop);
    uv_timer_start(&s->tick_timer, on_tick_timer, delay_ms, 0);
}

void srv_tick_kick(srv *s)
{
    uv_timer_stop(&s->tick_timer);
    uv_timer_start(&s->tick_timer, on_tick_timer, 0, 0);
}

void srv_tick_start(srv *s)
{
    s->tick_timer.data = s;
    uv_timer_start(&s->tick_timer, on_tick_timer, 0, 0);
}

void srv_world_describe(srv *s, srv_world *w, wire_buf *b)
{
    const sim_kind *k = w->kind;
    (void)s;
    wire_put_map(b, w->play ? 13 : 12);
    if (w->play) {
        wire_put_str(b, "play");
        srv_play_describe(w, b);
    }
    wire_put_str(b, "id"); wire_put_uint(b, w->id);
    wire_put_str(b, "kind"); wire_put_str(b, k->name);
    wire_put_str(b, "seed"); wire_put_uint(b, sim_world_seed(w->w));
    wire_put_str(b, "params"); wire_put_str(b, sim_world_params(w->w));
    wire_put_str(b, "tick"); wire_put_uint(b, sim_world_tick(w->w));
    wire_put_str(b, "hz"); wire_put_uint(b, k->hz);
    wire_put_str(b, "w"); wire_put_uint(b, (uint64_t)w->fw);
    wire_put_str(b, "h"); wire_put_uint(b, (uint64_t)w->fh);
    wire_put_str(b, "views");
    wire_put_array(b, (uint32_t)k->nviews);
    for (int v = 0; v < k->nviews; v++) wire_put_str(b, k->views[v]);
    wire_put_str(b, "inputs");
    wire_put_map(b, (uint32_t)k->ninputs);
    for (int i = 0; i < k->ninputs; i++) {
        wire_put_str(b, k->inputs[i].name);
        wire_put_array(b, (uint32_t)k->inputs[i].nargs);
        for (int a = 0; a < k->inputs[i].nargs; a++) wire_put_str(b, k->inputs[i].args[a].name);
    }
    wire_put_str(b, "ranges");
    wire_put_map(b, (uint32_t)k->ninputs);
    for (int i = 0; i < k->ninputs; i++) {
        wire_put_str(b, k->inputs[i].name);
        wire_put_array(b, (uint32_t)k->inputs[i].nargs);
        for (int a = 0; a < k->inputs[i].nargs; a++) {
            wire_put_array(b, 2);
            wire_put_int(b, k->inputs[i].args[a].min);
            wire_put_int(b, k->inputs[i].args[a].max);
        }
    }
    wire_put_str(b, "names");
    wire_put_map(b, (uint32_t)k->nenums);
    for (int e = 0; e < k->nenums; e++) {
        wire_put_str(b, k->enums[e].name);
        wire_put_map(b, (uint32_t)k->enums[e].count);
        for (int v = 0; v < k->enums[e].count; v++) {
            wire_put_str(b, k->enums[e].values[v]);
            wire_put_uint(b, (uint64_t)v);
        }
    }
}
