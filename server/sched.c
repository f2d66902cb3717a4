/* sched.c — the tick scheduler: when each hosted world steps, and how late it was.
 *
 * Each world keeps absolute deadlines: tick k (counted from a base) is due at t0 + k·10⁹/hz on
 * uv_hrtime, so timer jitter never accumulates into drift. One one-shot wake-up is re-armed
 * after every wake for the earliest deadline of any world (a timerfd: microseconds, not
 * uv_timer's milliseconds). A late world runs at most SRV_MAX_CATCHUP ticks back to back; past
 * that it skips ahead (counted as overruns) rather than let one slow tick snowball. Nothing here
 * waits on a client: the tick_done event (fan-out) only queues writes. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include "host.h"

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

uint64_t srv_world_overdue_ns(const srv_world *w, uint64_t now_ns)
{
    /* As on_tick skips them: no deadline while a worker holds it or a recording is paused. */
    if (w->busy || (w->play && srv_play_paused(w))) return 0;
    uint64_t due = deadline(w, sim_world_tick(w->w));
    return now_ns > due ? now_ns - due : 0;
}

static void hist_add(srv_time_hist *h, uint64_t ns)
{
    uint64_t us = ns / 1000;
    uint64_t b = us / 100;                       /* 0.1 ms buckets */
    h->b[b < SRV_LAT_BUCKETS ? b : SRV_LAT_BUCKETS]++;
    h->count++;
    h->sum_us += us;
    if (us > h->max_us) h->max_us = us;
}

uint64_t srv_time_pct(const srv_time_hist *h, double pct)
{
    if (!h->count) return 0;
    uint64_t want = (uint64_t)((double)h->count * pct / 100.0);
    uint64_t seen = 0;
    for (int b = 0; b <= SRV_LAT_BUCKETS; b++) {
        seen += h->b[b];
        if (seen > want) {
            uint64_t edge = (uint64_t)(b + 1) * 100;      /* the bucket's upper edge, capped */
            return edge < h->max_us ? edge : h->max_us;
        }
    }
    return h->max_us;
}

void srv_world_stats_log(srv *s, int level)
{
    for (int i = 0; i < s->nworlds; i++) {
        srv_world *w = s->worlds[i];
        srv_log(s, level,
                "world %u %s: tick %" PRIu64 ", lateness p50 %.1f ms p99 %.1f ms max %.1f ms, "
                "a tick's work p50 %.1f ms p99 %.1f ms max %.1f ms, "
                "overruns %" PRIu64 ", skipped %" PRIu64 ", %d subscriber(s)",
                w->id, w->kind->name, srv_world_tick(w), (double)srv_time_pct(&w->stats.late, 50) / 1000.0,
                (double)srv_time_pct(&w->stats.late, 99) / 1000.0, (double)w->stats.late.max_us / 1000.0,
                (double)srv_time_pct(&w->stats.work, 50) / 1000.0,
                (double)srv_time_pct(&w->stats.work, 99) / 1000.0, (double)w->stats.work.max_us / 1000.0,
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
    srv_timelines_sweep(s);
    uint64_t next = UINT64_MAX;
    /* The hosted worlds, then the viewers' own timelines (play.c), which tick the same way. */
    for (int i = 0; i < s->nworlds + s->ntimelines; i++) {
        srv_world *w = i < s->nworlds ? s->worlds[i] : s->timelines[i - s->nworlds];
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
            hist_add(&w->stats.late, now - due);
            run_tick(s, w);
            /* An overrun: the tick (fan-out included) finished after the next one was due. */
            uint64_t end = uv_hrtime();
            hist_add(&w->stats.work, end - now);
            if (end > deadline(w, sim_world_tick(w->w))) w->stats.overruns++;
            ran++;
            if (w->busy || (w->play && srv_play_paused(w))) break;   /* busy: reading more (play.c) */
        }
        if (w->busy || (w->play && srv_play_paused(w))) continue;
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
