/* worlds.c — the worlds vivd hosts, and the tick scheduler.
 *
 * Each world keeps absolute deadlines: tick k (counted from a base) is due at t0 + k·10⁹/hz on
 * uv_hrtime, so timer jitter never accumulates into drift. One one-shot uv_timer is re-armed
 * after every wake for the earliest deadline of any world (a timerfd: microseconds, not uv_timer's
 * milliseconds). A late world runs at most
 * SRV_MAX_CATCHUP ticks back to back; past that it skips ahead (counted as overruns) rather than
 * let one slow tick snowball. Nothing here waits on a client: fan-out only queues writes. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/timerfd.h>
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

srv_world *srv_world_build(sim_world *sw, char *err, size_t errlen)
{
    srv_world *w = calloc(1, sizeof *w);
    const sim_kind *k = sim_world_kind(sw);
    if (!w) goto oom;
    w->w = sw;
    w->kind = k;
    w->rec.session = -1;
    w->seed = sim_world_seed(sw);
    snprintf(w->params, sizeof w->params, "%s", sim_world_params(sw));
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
    return w;
oom:
    snprintf(err, errlen, "out of memory hosting the world");
    if (w) srv_world_free(w);
    else sim_world_destroy(sw);
    return NULL;
}

void srv_world_join(srv *s, srv_world *w)
{
    sim_world_set_tasks(w->w, pool_tasks(s->pool));   /* new, resumed and played worlds alike */
    w->sched.t0 = uv_hrtime();
    w->sched.tick_base = sim_world_tick(w->w);
    w->id = s->next_world_id++;
    s->worlds[s->nworlds++] = w;
}

/* Host a sim world at once (start-up, and the tests that build a server by hand). Takes sw. */
static srv_world *host(srv *s, sim_world *sw, char *err, size_t errlen)
{
    srv_world *w = srv_world_build(sw, err, errlen);
    if (w) srv_world_join(s, w);
    return w;
}

srv_world *srv_world_new(const char *kind, uint64_t seed, const char *params, int local, int *rc,
                         char *err, size_t errlen)
{
    sim_config cfg = sim_config_default();
    cfg.kind = kind;
    cfg.seed = seed;
    cfg.params = params;
    cfg.err = err;
    cfg.errlen = errlen;
    cfg.files = local ? &rpl_files : NULL;
    int src;
    sim_world *sw = sim_world_create(&cfg, &src);
    if (!sw) {
        if (!err[0]) snprintf(err, errlen, "%s", sim_strerror(src));
        *rc = src == SIM_EKIND ? SRV_EKIND : src == SIM_EPARAM ? SRV_EPARAM : src == SIM_EFILE ? SRV_EFILE
            : src == SIM_ENOMEM ? SRV_ENOMEM : SRV_EWORLD;
        return NULL;
    }
    srv_world *w = srv_world_build(sw, err, errlen);
    *rc = w ? 0 : SRV_ENOMEM;
    return w;
}

void srv_world_begin(srv *s, srv_world *w)
{
    srv_log(s, SRV_LOG_INFO, "world %u: %s seed=%" PRIu64 " %s (%dx%d, %u Hz)", w->id, w->kind->name,
            w->seed, w->params, w->fw, w->fh, (unsigned)w->kind->hz);
    srv_record_begin(s, w);
}

static int add_world(srv *s, const char *kind, uint64_t seed, const char *params, int local,
                     char *err, size_t errlen)
{
    if (s->nworlds + s->ncreating >= SRV_MAX_WORLDS) {
        snprintf(err, errlen, "the server already hosts %d worlds (the limit)", SRV_MAX_WORLDS);
        return SRV_ELIMIT;
    }
    int rc;
    srv_world *w = srv_world_new(kind, seed, params, local, &rc, err, errlen);
    if (!w) return rc;
    srv_world_join(s, w);
    srv_world_begin(s, w);
    return (int)w->id;
}

int srv_world_add(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                  size_t errlen)
{
    return add_world(s, kind, seed, params, 0, err, errlen);
}

int srv_world_add_local(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                        size_t errlen)
{
    return add_world(s, kind, seed, params, 1, err, errlen);
}

srv_world *srv_world_adopt(srv *s, sim_world *sw, char *err, size_t errlen)
{
    if (s->nworlds + s->ncreating >= SRV_MAX_WORLDS) {
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
    /* A worker still holds a busy world (a seek): it is freed when the job comes back. */
    if (w->busy) w->closed = 1;
    else srv_world_free_later(s, w);
}

uint64_t srv_world_tick(const srv_world *w)
{
    return w->busy ? w->busy_tick : sim_world_tick(w->w);
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
                w->id, w->kind->name, srv_world_tick(w), (double)srv_world_lateness(w, 50) / 1000.0,
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
    if (w->play || w->closed || w->busy) return;
    /* The hash cached at the last tick is that of the state before anything was queued; the
     * saved state (and so its hash) holds the queue too: a difference is queued inputs. */
    const srv_frame_cache *fc = &w->cache;
    if (fc->sh_tick == sim_world_tick(w->w) && sim_world_hash(w->w) != fc->sh) run_tick(s, w);
}

static void arm(srv *s, uint64_t at);
static void on_tick_timer(uv_timer_t *t);

/* Run every world that is due (a late one at most SRV_MAX_CATCHUP ticks back to back), then
 * sleep until the earliest deadline. */
static void on_tick(srv *s)
{
    if (s->stopping) return;
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < s->nworlds; i++) {
        srv_world *w = s->worlds[i];
        /* A paused recording has no deadline; a busy world (a worker holds it) has none until
         * the worker gives it back (srv_tick_kick then). */
        if (w->busy || (w->play && srv_play_paused(w))) continue;
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
    arm(s, next);
}

/* The wake-up at the next deadline. A timerfd armed at the absolute deadline (CLOCK_MONOTONIC,
 * uv_hrtime's clock) wakes the loop within microseconds of it; a uv_timer (the fallback where
 * there is no timerfd) counts whole milliseconds, rounded up, which makes every tick up to 1 ms
 * late. A deadline already past fires at once — after the loop has polled the network, so a world
 * that is behind never starves the clients. */
/* The timerfd failed: ticks use the millisecond timer from now on. */
static void fall_back(srv *s, const char *why)
{
    srv_log(s, SRV_LOG_WARN, "the tick timer failed (%s); ticks use a millisecond timer from now", why);
    uv_poll_stop(&s->tick_poll);
    s->tick_fd = -s->tick_fd;                /* closed with the poll handle (srv_tick_close) */
}

static void arm(srv *s, uint64_t at)
{
    if (s->tick_fd > 0) {
        struct itimerspec its;
        memset(&its, 0, sizeof its);
        if (at == 0) at = 1;                 /* 0 would disarm it */
        its.it_value.tv_sec = (time_t)(at / 1000000000u);
        its.it_value.tv_nsec = (long)(at % 1000000000u);
        if (timerfd_settime(s->tick_fd, TFD_TIMER_ABSTIME, &its, NULL) == 0) return;
        fall_back(s, strerror(errno));
    }
    uint64_t now = uv_hrtime();
    /* At least 1 ms: a 0 ms timer re-armed from its own callback runs again in the same timer
     * pass (libuv < 1.48), and the loop would never poll the network while a world is behind. */
    uint64_t delay_ms = at > now ? (at - now + 999999) / 1000000 : 1;
    uv_update_time(s->loop);
    uv_timer_start(&s->tick_timer, on_tick_timer, delay_ms, 0);
}

static void on_tick_timer(uv_timer_t *t)
{
    on_tick(t->data);
}

static void on_tick_fd(uv_poll_t *p, int status, int events)
{
    srv *s = p->data;
    uint64_t expirations;
    (void)events;
    if (s->tick_fd <= 0) return;
    if (status < 0 || read(s->tick_fd, &expirations, sizeof expirations) < 0) {
        /* EAGAIN: woken with nothing expired (it was re-armed meanwhile): not a tick. */
        if (status == 0 && errno == EAGAIN) return;
        fall_back(s, status < 0 ? uv_strerror(status) : strerror(errno));
        arm(s, uv_hrtime());
        return;
    }
    on_tick(s);
}

void srv_tick_kick(srv *s)
{
    if (s->tick_fd > 0) {
        arm(s, uv_hrtime());
        return;
    }
    uv_timer_stop(&s->tick_timer);
    uv_timer_start(&s->tick_timer, on_tick_timer, 0, 0);
}

void srv_tick_stop(srv *s)
{
    if (s->tick_fd > 0) {
        struct itimerspec off;
        memset(&off, 0, sizeof off);
        timerfd_settime(s->tick_fd, 0, &off, NULL);
        uv_poll_stop(&s->tick_poll);
    }
    if (s->tick_timer.type == UV_TIMER) uv_timer_stop(&s->tick_timer);
}

static void on_tick_poll_closed(uv_handle_t *h)
{
    srv *s = h->data;
    close(s->tick_fd > 0 ? s->tick_fd : -s->tick_fd);
    s->tick_fd = 0;
}

void srv_tick_close(srv *s)
{
    if (s->tick_timer.type == UV_TIMER && !uv_is_closing((uv_handle_t *)&s->tick_timer))
        uv_close((uv_handle_t *)&s->tick_timer, NULL);
    if (s->tick_fd != 0 && s->tick_poll.type == UV_POLL && !uv_is_closing((uv_handle_t *)&s->tick_poll))
        uv_close((uv_handle_t *)&s->tick_poll, on_tick_poll_closed);
}


void srv_tick_start(srv *s)
{
    /* Deadlines count from the moment the loop starts: start-up (building the worlds, the first
     * write to the log) is not lateness of any tick. */
    for (int i = 0; i < s->nworlds; i++) srv_world_rebase(s->worlds[i]);
    uv_timer_init(s->loop, &s->tick_timer);
    s->tick_timer.data = s;
    s->tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (s->tick_fd > 0 && uv_poll_init(s->loop, &s->tick_poll, s->tick_fd) == 0) {
        s->tick_poll.data = s;
        uv_poll_start(&s->tick_poll, UV_READABLE, on_tick_fd);
        arm(s, uv_hrtime());
        return;
    }
    if (s->tick_fd > 0) close(s->tick_fd);
    s->tick_fd = 0;
    uv_timer_start(&s->tick_timer, on_tick_timer, 0, 0);
}
