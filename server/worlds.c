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
#include "files.h"
#include "host.h"
#include "pool.h"


static uint64_t deadline(const srv_world *w, uint64_t tick)
{
    /* Tick k after the base is due k·10¹¹/(hz·speed%) ns after t0, split into quotient and
     * remainder so it never overflows (a live world rebases only when it skips). */
    const srv_sched *sc = &w->sched;
    uint64_t k = tick - sc->tick_base;
    uint64_t rate = (uint64_t)w->kind->hz * (uint64_t)sc->speed;
    return sc->t0 + (k / rate) * 100000000000ull + ((k % rate) * 100000000000ull) / rate;
}

void srv_world_rebase(srv_world *w)
{
    w->sched.t0 = uv_hrtime();
    w->sched.tick_base = sim_world_tick(w->w);
}

void srv_world_invalidate(srv_world *w)
{
    for (int v = 0; v < w->kind->nviews; v++) w->cache.frame_tick[v] = UINT64_MAX;
    w->cache.sh_tick = UINT64_MAX;
}

const sim_frame *srv_world_frame(srv_world *w, int view, uint64_t *fh)
{
    srv_frame_cache *fc = &w->cache;
    uint64_t tick = sim_world_tick(w->w);
    if (fc->frame_tick[view] != tick) {
        sim_world_render(w->w, view, &fc->frames[view]);
        fc->frame_fh[view] = sim_frame_hash(&fc->frames[view]);
        fc->frame_tick[view] = tick;
    }
    *fh = fc->frame_fh[view];
    return &fc->frames[view];
}

uint64_t srv_world_state_hash(srv_world *w)
{
    srv_frame_cache *fc = &w->cache;
    uint64_t tick = sim_world_tick(w->w);
    if (fc->sh_tick != tick) {
        fc->sh = sim_world_hash(w->w);
        fc->sh_tick = tick;
    }
    return fc->sh;
}

int srv_world_input(srv_world *w, const sim_input *in)
{
    if (srv_acks_reserve(&w->acks) != 0) return SRV_ENOMEM;
    int rc = sim_world_input(w->w, in);
    if (rc) return rc;
    srv_acks_push(&w->acks, in->client, in);
    return 0;
}

/* Host a sim world: the common part of a new world and a resumed one. Takes sw. */
static srv_world *host(srv *s, sim_world *sw, char *err, size_t errlen)
{
    srv_world *w = calloc(1, sizeof *w);
    const sim_kind *k = sim_world_kind(sw);
    if (!w) goto oom;
    w->w = sw;
    w->kind = k;
    w->rec.session = -1;
    sim_world_set_tasks(sw, pool_tasks(s->pool));   /* new, resumed and played worlds alike */
    sim_world_frame_size(sw, &w->fw, &w->fh);
    srv_frame_cache *fc = &w->cache;
    fc->frames = calloc((size_t)k->nviews, sizeof *fc->frames);
    fc->frame_tick = calloc((size_t)k->nviews, sizeof *fc->frame_tick);
    fc->frame_fh = calloc((size_t)k->nviews, sizeof *fc->frame_fh);
    if (!fc->frames || !fc->frame_tick || !fc->frame_fh) goto oom;
    for (int v = 0; v < k->nviews; v++) {
        if (sim_frame_init(&fc->frames[v], w->fw, w->fh) != 0) goto oom;
        fc->frame_tick[v] = UINT64_MAX;
    }
    fc->sh_tick = UINT64_MAX;
    w->sched.period_ns = 1000000000ull / k->hz;
    w->sched.speed = 100;
    w->sched.t0 = uv_hrtime();
    w->sched.tick_base = sim_world_tick(sw);
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
        return SRV_ELIMIT;
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
        return rc == SIM_EKIND ? SRV_EKIND : rc == SIM_EPARAM ? SRV_EPARAM : rc == SIM_EFILE ? SRV_EFILE
             : rc == SIM_ENOMEM ? SRV_ENOMEM : SRV_EWORLD;
    }
    srv_world *w = host(s, sw, err, errlen);
    if (!w) return SRV_ENOMEM;
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
    srv_frame_cache *fc = &w->cache;
    if (fc->frames)
        for (int v = 0; v < w->kind->nviews; v++) sim_frame_free(&fc->frames[v]);
    free(fc->frames);
    free(fc->frame_tick);
    free(fc->frame_fh);
    srv_acks_free(&w->acks);
    srv_record_free(w);
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

static void refuse_closed(void *ud, const srv_ack *a, int ok)
{
    const srv *s = ud;
    (void)ok;
    if (s->ev.input_refused) s->ev.input_refused(s->ev.ud, a->client, a->seq, SRV_REFUSED_WORLD_CLOSED);
}

/* Close a world: the network side is told (its subscribers), its pending inputs are refused, and
 * it is freed. */
void srv_world_close(srv *s, srv_world *w)
{
    if (s->ev.world_closed) s->ev.world_closed(s->ev.ud, w);
    srv_record_end(s, w);
    srv_acks_drain(&w->acks, refuse_closed, s);
    for (int i = 0; i < s->nworlds; i++)
        if (s->worlds[i] == w) {
            memmove(&s->worlds[i], &s->worlds[i + 1], (size_t)(s->nworlds - i - 1) * sizeof *s->worlds);
            s->nworlds--;
            break;
        }
    srv_log(s, SRV_LOG_INFO, "world %u closed after %" PRIu64 " ticks", w->id, w->stats.ticks);
    srv_world_free(w);
}

static void record_lateness(srv_world *w, uint64_t late_ns)
{
    srv_tick_stats *st = &w->stats;
    uint64_t us = late_ns / 1000;
    uint64_t b = us / 100;                       /* 0.1 ms buckets */
    st->lat_hist[b < SRV_LAT_BUCKETS ? b : SRV_LAT_BUCKETS]++;
    st->lat_count++;
    if (us > st->late_max_us) st->late_max_us = us;
}

uint64_t srv_world_lateness(const srv_world *w, double pct)
{
    const srv_tick_stats *st = &w->stats;
    if (!st->lat_count) return 0;
    uint64_t want = (uint64_t)((double)st->lat_count * pct / 100.0);
    uint64_t seen = 0;
    for (int b = 0; b <= SRV_LAT_BUCKETS; b++) {
        seen += st->lat_hist[b];
        if (seen > want) {
            uint64_t edge = (uint64_t)(b + 1) * 100;      /* the bucket's upper edge, capped */
            return edge < st->late_max_us ? edge : st->late_max_us;
        }
    }
    return st->late_max_us;
}

void srv_world_stats_log(srv *s, int level)
{
    for (int i = 0; i < s->nworlds; i++) {
        srv_world *w = s->worlds[i];
        srv_log(s, level,
                "world %u %s: tick %" PRIu64 ", lateness p50 %.1f ms p99 %.1f ms max %.1f ms, "
                "overruns %" PRIu64 ", skipped %" PRIu64 ", %d subscriber(s)",
                w->id, w->kind->name, sim_world_tick(w->w), (double)srv_world_lateness(w, 50) / 1000.0,
                (double)srv_world_lateness(w, 99) / 1000.0, (double)w->stats.late_max_us / 1000.0,
                w->stats.overruns, w->stats.skipped,
                s->ev.subscribers ? s->ev.subscribers(s->ev.ud, w) : 0);
    }
}

/* One tick of one world: apply queued inputs and step, acknowledge them, fan out frames. */
static void run_tick(srv *s, srv_world *w)
{
    uint64_t tick = sim_world_tick(w->w);
    if (w->play) srv_play_feed(w);        /* a recording: its logged inputs, nobody else's */
    sim_world_step(w->w);
    w->stats.ticks++;
    if (!w->play) srv_record_tick(s, w, tick);   /* acks now, or when the log committed it */
    if (s->ev.tick_done) s->ev.tick_done(s->ev.ud, w);     /* fan-out */
    if (w->play) srv_play_after_tick(s, w);
}

void srv_world_finish(srv *s, srv_world *w)
{
    if (w->play || w->closed) return;
    /* The hash cached at the last tick is that of the state before anything was queued; the
     * saved state (and so its hash) holds the queue too: a difference is queued inputs. */
    const srv_frame_cache *fc = &w->cache;
    if (fc->sh_tick == sim_world_tick(w->w) && sim_world_hash(w->w) != fc->sh) run_tick(s, w);
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
                uint64_t behind = (now - due) / w->sched.period_ns + 1;
                w->stats.skipped += behind;
                /* One warning per 10 s per world at most: a log that floods helps nobody. */
                uint64_t now_ms = uv_now(s->loop);
                if (!w->sched.warned_at || now_ms - w->sched.warned_at >= 10000) {
                    srv_log(s, SRV_LOG_WARN, "world %u is falling behind: %" PRIu64 " tick(s) skipped "
                            "so far (the server is overloaded)", w->id, w->stats.skipped);
                    w->sched.warned_at = now_ms;
                }
                w->sched.t0 = now;
                w->sched.tick_base = sim_world_tick(w->w);
                break;
            }
            record_lateness(w, now - due);
            run_tick(s, w);
            /* An overrun: the tick (fan-out included) finished after the next one was due. */
            if (uv_hrtime() > deadline(w, sim_world_tick(w->w))) w->stats.overruns++;
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
