/* host.h — vivd's host layer: the worlds it hosts (worlds.c), the tick scheduler (sched.c), the
 * ack queue (acks.c), recording (record.c) and playback (play.c). The host never calls the
 * network layer (network.h): it reports what happened through one table of callbacks,
 * srv_host_events, which the network layer fills in at start-up. It owns its refusals: an input
 * it will not take is refused with its own code (srv_world_takes_inputs), which the network
 * layer turns into a protocol error.
 *
 * Each part of a hosted world keeps its own struct, written only by the file that owns it:
 * scheduling and statistics (sched.c), the frame cache (worlds.c, read through
 * srv_world_frame / srv_world_state_hash), acks (acks.c), recording (record.c), playback
 * (play.c) and the streams of its subscribers (fanout.c, opaque here). */
#ifndef VIVARIUM_SRV_HOST_H
#define VIVARIUM_SRV_HOST_H

#include <stdint.h>
#include <stdio.h>
#include <uv.h>
#include "sim.h"
#include "acks.h"

#define SRV_VERSION SIM_VERSION

#define SRV_MAX_CATCHUP 4                   /* ticks a world may run back to back when late */
#define SRV_MAX_WORLDS 64
#define SRV_MAX_TIMELINES 64                /* viewers' own timelines on recordings, in all */
#define SRV_MAX_OPENED 16                   /* recordings viewers opened (`open`), in all */
#define SRV_OPENED_IDLE_MS 60000u           /* an opened recording nobody watches closes after (default) */

/* ---- errors: 0 or a negative SRV_E… code, -101..-199 of the one space (sim/errors.h, where the
 * codes and their sentences are; sim_strerror names them). A world's SIM_E… code is turned into
 * the host's where the host calls the world (srv_world_new, srv_world_input), the world's
 * sentence kept in err. */
enum { SRV_OK = 0 };

/* ---- logging ------------------------------------------------------------------------------------ */
enum { SRV_LOG_DEBUG, SRV_LOG_INFO, SRV_LOG_WARN, SRV_LOG_ERROR };
typedef struct srv srv;
/* One line per event on stderr: `2026-11-30T12:00:00.123Z info  text`. s may be NULL (start-up:
 * info and above). */
void srv_log(const srv *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

typedef struct srv_world srv_world;

/* ---- what the host reports ------------------------------------------------------------------------ */
/* Why an input was refused after it was queued. */
enum { SRV_REFUSED_NOT_LOGGED = 1, SRV_REFUSED_WORLD_CLOSED = 2 };

typedef struct srv_host_events {
    void *ud;
    /* The input (client, seq) applied at `tick` is committed: acknowledge it. */
    void (*input_acked)(void *ud, uint32_t client, uint32_t seq, uint64_t tick);
    /* The input (client, seq) will not be acknowledged: why is SRV_REFUSED_…. */
    void (*input_refused)(void *ud, uint32_t client, uint32_t seq, int why);
    /* w stepped a tick (or landed on one after a seek): fan its frames out. */
    void (*tick_done)(void *ud, srv_world *w);
    /* w's picture jumped (a seek): every stream starts over from a keyframe. */
    void (*world_reset)(void *ud, srv_world *w);
    /* w is closing (it is freed after this returns): tell and drop its subscribers. */
    void (*world_closed)(void *ud, srv_world *w);
    /* How many subscribers w has (for the statistics). */
    int (*subscribers)(void *ud, const srv_world *w);
    /* A create asked for by `client` (srv_world_create_async) is done: w is hosted and ticking,
     * or w is NULL and err (SRV_E…) and msg say why. */
    void (*world_created)(void *ud, uint32_t client, srv_world *w, int err, const char *msg);
    /* A seek asked for by `client` (srv_play_control) is done: w landed (its subscribers have
     * the frame), or err (SRV_EPLAY) and msg say why it stayed where it was. */
    void (*play_done)(void *ud, uint32_t client, srv_world *w, int err, const char *msg);
    /* A fork asked for by `client` (srv_world_fork_async) is done: w is hosted and ticking, forked
     * from world `from` at `tick`; or w is NULL and code (an error code of docs/PROTOCOL.md) and
     * msg say why. */
    void (*world_forked)(void *ud, uint32_t client, srv_world *w, uint32_t from, uint64_t tick,
                         const char *code, const char *msg);
    /* A timeline `client` asked for on world `of` (srv_timeline_open, its `gen`) is built: tl,
     * paused or playing at its tick, to be shown to that client (0), or -1 when nobody wants it
     * any more (the host closes it); or tl is NULL, and err (SRV_E…) and msg say why. */
    int (*timeline_opened)(void *ud, uint32_t client, uint32_t of, uint32_t gen, srv_world *tl,
                           int err, const char *msg);
    /* A timeline is let go (srv_timelines_sweep, srv_timelines_free): what the network keeps for
     * it (its fan-out) goes now; it is never ticked or shown again. */
    void (*timeline_gone)(void *ud, srv_world *tl);
    /* A recording `client` opened (srv_recording_open) is hosted: w (paused at its start); or w
     * is NULL, and code (an error code of docs/PROTOCOL.md) and msg say why. */
    void (*recording_opened)(void *ud, uint32_t client, srv_world *w, const char *code, const char *msg);
} srv_host_events;

/* ---- the parts of a hosted world ------------------------------------------------------------------ */
#define SRV_LAT_BUCKETS 1001   /* lateness histogram: 0.1 ms buckets up to 100 ms, then overflow */

typedef struct srv_sched {     /* sched.c */
    uint64_t period_ns;
    uint64_t t0;               /* uv_hrtime of the deadline of tick_base */
    uint64_t tick_base;        /* world tick at t0 */
    int speed;                 /* percent of real time (100; recordings may play faster or slower) */
    uint64_t warned_at;        /* uv_now of the last falling-behind warning */
} srv_sched;

typedef struct srv_time_hist {    /* sched.c: times of ticks, in 0.1 ms buckets */
    uint32_t b[SRV_LAT_BUCKETS + 1];   /* the last: SRV_LAT_BUCKETS × 0.1 ms or more */
    uint64_t count, sum_us, max_us;    /* (the sum for /metrics) */
} srv_time_hist;

typedef struct srv_tick_stats {   /* sched.c */
    uint64_t ticks, overruns, skipped;
    srv_time_hist late;        /* how long after its deadline each scheduled tick started */
    srv_time_hist work;        /* how long each one's work took: the step and the fan-out */
} srv_tick_stats;

typedef struct srv_frame_cache {  /* worlds.c: one frame per view, rendered lazily each tick */
    sim_frame *frames;
    uint64_t *frame_tick;      /* tick each view's frame was rendered at (UINT64_MAX: never) */
    uint64_t *frame_fh;
    uint64_t sh, sh_tick;
    uint8_t *saved;            /* a small state saved for its hash (sim_world_save_max bytes); a
                                  big one is hashed as it is saved, with no copy */
    size_t saved_cap;
} srv_frame_cache;

/* The hashes of sim/ (sim_frame_hash_rect, and XXH3-64 of bytes as sim_world_hash takes it), with
 * AVX-512 or AVX2 where the CPU has it (hash.c dispatches; hash_wide512.c is compiled with
 * -mavx512f, hash_wide.c with -mavx2): the same values either way, XXH3 being defined byte for
 * byte. srv_hash_vectors: the width used, 512, 256 or 0 (sim/'s baseline); a _wide512 function
 * may be called only where it says 512, a _wide one where it says 256 or more. */
int srv_hash_vectors(void);
uint64_t srv_frame_hash_rect(const sim_frame *f, int x, int y, int w, int h);
uint64_t srv_xxh3(const void *p, size_t n);
uint64_t srv__frame_hash_rect_wide(const sim_frame *f, int x, int y, int w, int h);
uint64_t srv__xxh3_wide(const void *p, size_t n);
void srv__xxh3_update_wide(void *state, const void *p, size_t n);   /* XXH3_64bits_update */
uint64_t srv__frame_hash_rect_wide512(const sim_frame *f, int x, int y, int w, int h);
uint64_t srv__xxh3_wide512(const void *p, size_t n);
void srv__xxh3_update_wide512(void *state, const void *p, size_t n);
/* sim_world_hash's value, the state hashed as it is written (sim_world_hash_stream): no copy of a
 * big state, and AVX2 where the CPU has it. */
uint64_t srv_world_hash_stream(const sim_world *w);

enum { SRV_REC_NONE, SRV_REC_BEGIN, SRV_REC_RESUME };

typedef struct srv_rec_state {    /* record.c */
    int64_t session;           /* replay session, or -1 when not recording */
    int pending;               /* SRV_REC_…: what srv_record_start writes (nothing before it) */
    uint64_t cp_every;         /* ticks between checkpoints */
    uint8_t *cpbuf;            /* for the next checkpoint (cpcap bytes; NULL: take one from the
                                  recorder then): handed to the recorder with each */
    size_t cpcap;
    uint64_t not_logged;       /* ticks the recorder could not take */
    uint64_t settled;          /* ticks before it are committed or known lost (their acks sent) */
    int outage;                /* it lost ticks in the current outage (record.c's srv_rec_outage) */
    int in_gap;                /* its last settled ticks were lost */
    uint64_t logged_tick;      /* the last state handed to the log: its tick and state hash */
    uint64_t logged_sh;        /* (a clean stop checkpoints it only if the world is still there) */
    struct rpl_lineage *fork;  /* a forked world's lineage, written with its session (then freed) */
} srv_rec_state;

struct srv_world {
    uint32_t id;               /* worlds.c */
    sim_world *w;              /* worlds.c (play.c swaps it on a seek) */
    const sim_kind *kind;
    uint64_t seed;             /* the world's, kept here: readable while a worker holds w */
    char params[SIM_PARAMS_MAX];
    int fw, fh;
    /* A worker holds w (jobs.c: a seek): the loop must not touch w->w, step, render or save it.
     * busy_tick is the tick it had when the worker took it (what welcome and stats show). */
    int busy;
    uint64_t busy_tick;
    int closed;                /* closed while busy: freed when the worker gives it back */
    srv_sched sched;
    srv_tick_stats stats;
    srv_frame_cache cache;
    srv_acks acks;             /* acks.c, through its functions */
    srv_rec_state rec;
    struct srv_play *play;     /* play.c: a recorded session played back (--play), or NULL */
    struct srv_fan *fan;       /* fanout.c: the streams of its subscribers (opaque to the host) */
    /* The network layer's counts for it (fanout.c, proto.c), for /metrics: here rather than in
     * fan, which exists only while someone watches. The host never writes them. */
    struct { uint64_t frames_sent, bytes_sent, inputs_refused; } netc;
};

/* ---- the server ------------------------------------------------------------------------------------ */
typedef struct srv_config {
    const char *listen_host;
    int listen_port;
    const char *port_file;
    char admin_token[80];
    char player_token[80];
    int max_clients;
    int log_level;
} srv_config;

struct srv {
    uv_loop_t *loop;
    srv_config cfg;
    /* The tick scheduler's wake-up (sched.c): a timerfd watched by tick_poll when there is one
     * (tick_fd > 0; a negative one is closed with the poll and not used), else tick_timer. */
    uv_timer_t tick_timer;
    uv_poll_t tick_poll;
    int tick_fd;
    uv_signal_t sig_int, sig_term;
    srv_world *worlds[SRV_MAX_WORLDS];
    int nworlds;
    uint32_t next_world_id;
    int stopping;
    srv_host_events ev;        /* set by the network layer */
    struct srv_net *net;       /* the network layer (network.h); the host never touches it */
    /* recording (server/record.c) */
    const char *db_path;       /* NULL: --no-record */
    const char *node_name;     /* the cluster member's name (vivd.c sets it), written into every
                                  session recorded; NULL on a single node */
    int durability;
    size_t rec_queue_bytes;    /* --record-queue: the writer's queue limit; 0: its default */
    struct rpl_recorder *rec;
    uv_async_t rec_async;
    int rec_failing;
    /* An outage of the log (record.c): while it lasts, a line every rec_say_ms (60 s, or
     * $VIVD_FAILING_LOG_SECONDS) says what it has cost since it began. */
    uv_timer_t rec_timer;
    uint64_t rec_say_ms;
    struct srv_rec_outage {
        uint64_t since_ms;     /* uv_now when it was noticed */
        uint64_t back_ms;      /* uv_now when the log took writes again (0: not yet) */
        uint64_t ticks;        /* ticks of recorded worlds not in the log */
        uint64_t inputs;       /* inputs refused: log_unavailable on arrival, not_logged after */
        int sessions;          /* sessions that lost ticks */
    } rec_out;
    int lock_fd;
    int rec_starting;          /* start-up: sessions are begun and resumed by srv_record_start */
    int64_t *rec_closing;      /* start-up: sessions srv_record_start closes (--fresh, unresumable) */
    size_t nrec_closing;
    struct srv_retain *retain; /* --retain: the compaction thread (server/retain.c), or NULL */
    /* work off the loop (server/jobs.c) */
    struct srv_job *jobs;      /* in flight: queued or running on libuv's thread pool */
    int ncreating;             /* of them, creates: they count toward SRV_MAX_WORLDS */
    /* viewers' own timelines (play.c): ticked like worlds, listed nowhere */
    srv_world *timelines[SRV_MAX_TIMELINES];
    int ntimelines;
    int ntlopening;            /* being built on a worker: they count toward the limit */
    int nopening;              /* recordings viewers opened, being read on a worker (play.c) */
    uint64_t open_idle_ms;     /* one nobody watches closes after this (0: SRV_OPENED_IDLE_MS) */
    struct pool *pool;         /* --threads: the workers every hosted world's passes run on
                                  (pool/pool.h), or NULL: inline on the loop thread */
};

/* ---- server/worlds.c ---------------------------------------------------------------------------- */
/* A new hosted world, built on the spot (start-up: nothing ticks yet): its id, or a negative
 * SRV_E… code with a sentence in err. The world may not read files (a create from the network
 * must never make the server open a path it names). A client's create goes through
 * srv_world_create_async (jobs.c) instead, off the loop. */
int srv_world_add(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                  size_t errlen);
/* The same for a world given on vivd's command line: it may read the file it is built from
 * (cycle's scene=file:PATH), with vivd's own permissions. */
int srv_world_add_local(srv *s, const char *kind, uint64_t seed, const char *params, char *err,
                        size_t errlen);
srv_world *srv_world_find(srv *s, uint32_t id);
/* The parts of a host, split so that the slow ones run off the loop (jobs.c):
 * srv_world_new creates the sim world and its server side (frame cache) and touches no srv, so a
 * worker may run it: the world, or NULL with *rc (SRV_E…) and a sentence in err. local: it may
 * read the file it is built from (vivd's command line only). srv_world_build is the server side
 * alone, around an existing sim world (takes sw). srv_world_join (loop) gives it its id and a
 * place in the schedule from now; srv_world_begin (loop) logs it and begins its session. */
srv_world *srv_world_new(const char *kind, uint64_t seed, const char *params, int local, int *rc,
                         char *err, size_t errlen);
srv_world *srv_world_build(sim_world *sw, char *err, size_t errlen);
void srv_world_join(srv *s, srv_world *w);
void srv_world_begin(srv *s, srv_world *w);
/* The world's tick as clients are told it: while busy, the tick it had when the worker took it. */
uint64_t srv_world_tick(const srv_world *w);
/* Host an existing sim world (a resumed session): no new session is begun. Takes sw. */
srv_world *srv_world_adopt(srv *s, sim_world *sw, char *err, size_t errlen);
/* Close a world: the network layer is told (world_closed), its pending inputs are refused
 * (input_refused), and it is freed (a busy one when its worker is done with it). */
void srv_world_close(srv *s, srv_world *w);
void srv_world_free(srv_world *w);
/* Whether w takes inputs now: 0, or the host's refusal: SRV_EPLAY (a recording, played back
 * read-only), SRV_EBUSY (a worker holds it) or SRV_ELOG (the replay log cannot be written, so
 * nothing would be logged). */
int srv_world_takes_inputs(srv *s, const srv_world *w);
/* Queue an input for w's next tick (in.tick, in.client, in.seq filled in), with room for its
 * ack reserved first. 0, or nothing is applied and the code says why: a refusal of
 * srv_world_takes_inputs, SRV_ENOMEM, SRV_EFULL, SRV_EDUP or SRV_EINPUT (with the world's
 * sentence in err). */
int srv_world_input(srv *s, srv_world *w, const sim_input *in, char *err, size_t errlen);
/* w is a recording shown paused, not held by a worker: a new subscriber is sent its picture at
 * once (a playing world sends it at its next tick, a seeking one when it lands). */
int srv_world_shows_paused(const srv_world *w);
/* The frame of `view` at the current tick, rendered once per tick; *fh its hash. */
const sim_frame *srv_world_frame(srv_world *w, int view, uint64_t *fh);
uint64_t srv_world_state_hash(srv_world *w);
void srv_world_invalidate(srv_world *w);   /* the state jumped: render and hash afresh */

/* ---- server/sched.c: the tick scheduler ----------------------------------------------------------- */
void srv_tick_start(srv *s);
void srv_tick_kick(srv *s);                /* re-plan now (a world was resumed or re-timed) */
void srv_tick_stop(srv *s);                /* no more ticks (shutdown) */
void srv_tick_close(srv *s);               /* close the scheduler's handles */
void srv_world_rebase(srv_world *w);       /* deadlines start again from now */
void srv_world_stats_log(srv *s, int level);
/* A clean stop: inputs accepted for w's next tick (queued, not applied) are applied by one more
 * tick, logged and acknowledged like any other, so that w's state is the one its log ends with
 * (and the final checkpoint can be written). Nothing queued: nothing happens. */
void srv_world_finish(srv *s, srv_world *w);
/* Lateness percentile in microseconds (bucket upper bound). */
/* The pct percentile of a histogram of tick times (the upper edge of its bucket, at most the
 * largest time counted), in µs; 0 when it counts nothing. */
uint64_t srv_time_pct(const srv_time_hist *h, double pct);

/* ---- server/record.c ---------------------------------------------------------------------------- */
int srv_record_open(srv *s, char *err, size_t errlen);      /* lock, open, start the writer */
void srv_record_begin(srv *s, srv_world *w);               /* a new session for a new world */
void srv_record_tick(srv *s, srv_world *w, uint64_t tick); /* after stepping `tick` */
void srv_record_end(srv *s, srv_world *w);
/* A clean stop: w's session is suspended with a checkpoint at its tick (the next start resumes
 * it). Neither end nor suspend touches a session srv_record_start has not written yet. */
void srv_record_suspend(srv *s, srv_world *w);
void srv_record_close(srv *s);                             /* flush, settle, removes the lock file */
/* Start-up writes nothing to the log until it has succeeded: with s->rec_starting set, begin and
 * resume only mark the world; srv_record_start then clears it, closes the sessions resume_all
 * set aside, begins and resumes the marked ones, and waits until that is written. 0 or SRV_ELOG. */
int srv_record_start(srv *s);
void srv_record_free(srv_world *w);                        /* the world's recording buffers */
/* Resume every session a crash left running or a clean stop suspended: replay each to its last
 * committed tick, checking the recorded hashes, and host it live. fresh: resume none, and close
 * them all instead (--fresh). A session that cannot be resumed is closed as it stands. The
 * writes wait for srv_record_start. Returns how many were resumed. */
int srv_record_resume_all(srv *s, int fresh);
int srv_record_failing(srv *s);
/* Acknowledge (ok) or refuse (not logged) the stepped inputs of ticks before upto. */
void srv_world_settle(srv *s, srv_world *w, uint64_t upto, int ok);

/* ---- server/retain.c — vivd --retain: old closed sessions compacted, off the loop ------------------
 * A thread of its own, with its own connection to the --db FILE (SQLite's WAL lets it write
 * beside the recorder's; neither the loop nor libuv's pool waits for it): it compacts every closed
 * session closed more than older_than seconds ago (rpl_compact) at once, then every
 * SRV_RETAIN_EVERY_S, and logs what it thinned. start: 0, or SRV_ELOG with a sentence (no
 * thread); stop (the shutdown, and a failed start): the run stops between two transactions and
 * the thread is joined; nothing when none was started. */
#define SRV_RETAIN_EVERY_S 3600
int srv_retain_start(srv *s, uint64_t older_than, const char *shown, char *err, size_t errlen);
void srv_retain_stop(srv *s);

/* ---- server/health.c — /healthz's verdict and the host's part of /metrics (docs/OPERATIONS.md) ----
 * A live world is stalled when its next tick is overdue by more than SRV_HEALTH_LATE_PERIODS
 * periods and at least SRV_HEALTH_LATE_MIN_MS (a paused recording, or a world a worker holds for
 * a seek, has no deadline). The recorder is unhealthy while it is failing (rpl_recorder_failing)
 * or has been writing one group for more than SRV_HEALTH_COMMIT_MS. */
#define SRV_HEALTH_LATE_PERIODS 5
#define SRV_HEALTH_LATE_MIN_MS 1000u
#define SRV_HEALTH_COMMIT_MS 5000u
struct rpl_rec_stats;
/* 0 (healthy), or -1 with one line in why: the first rule broken, at now_ns (uv_hrtime's clock). */
int srv_health(srv *s, uint64_t now_ns, char *why, size_t cap);
/* The recorder's rule alone, on its counters: 0, or -1 with one line in why. */
int srv_health_recorder(const struct rpl_rec_stats *st, uint64_t now_ns, char *why, size_t cap);
/* How far past its deadline w's next tick is at now_ns (0: not overdue, or w has no deadline). */
uint64_t srv_world_overdue_ns(const srv_world *w, uint64_t now_ns);
/* The recorder's metric families (vivd_recorder_…), in the text format, to out. Nothing when
 * vivd does not record. */
void srv_health_metrics(srv *s, FILE *out);

/* ---- server/tokens.c — the admin and player tokens, kept across restarts ------------------------ */
enum { SRV_TOKEN_ADMIN = 0, SRV_TOKEN_PLAYER = 1 };
enum { SRV_TOKEN_GIVEN, SRV_TOKEN_FILE, SRV_TOKEN_NEW };   /* where a token came from */
/* Fill s->cfg.admin_token and player_token. given[SRV_TOKEN_…]: from a flag or the environment
 * (NULL or "": none), used as they are. Else the token file at path (mode 0600; NULL: no file,
 * as with --no-record), unless rotate (--new-tokens); else a new random token, written to the
 * file. origin[…] says which (SRV_TOKEN_GIVEN, _FILE, _NEW). 0, or SRV_EINVAL with a sentence
 * in err (a bad token, a damaged or unwritable file, equal tokens). */
int srv_tokens_setup(srv *s, const char *path, const char *given[2], int rotate, int origin[2],
                     char *err, size_t errlen);

/* ---- server/jobs.c — slow work off the loop, on libuv's thread pool ----------------------------------
 * Create a world as srv_world_add does, on a worker: the loop goes on ticking meanwhile. Checks
 * what is cheap first (the limit, the kind, the params): 0 (queued: the answer comes through
 * ev.world_created, with `client`), or a negative SRV_E… code with a sentence in err. */
int srv_world_create_async(srv *s, const char *kind, uint64_t seed, const char *params,
                           uint32_t client, char *err, size_t errlen);
/* Run work(w, arg) on a worker while w is busy, then done(s, w, arg) on the loop (w is closed, and
 * freed after done, if it was closed meanwhile; s->stopping says whether the server is stopping).
 * 0, or SRV_ENOMEM (nothing queued, w not busy). */
int srv_world_job(srv *s, srv_world *w, void (*work)(srv_world *w, void *arg),
                  void (*done)(srv *s, srv_world *w, void *arg), void *arg);
/* Run work(arg) on a worker, then done(s, arg, cancelled) on the loop (cancelled: the server is
 * stopping and work never ran). 0, or SRV_ENOMEM (nothing queued). */
int srv_job_queue(srv *s, void (*work)(void *arg), void (*done)(srv *s, void *arg, int cancelled),
                  void *arg);

/* ---- server/fork.c — a world forked from a recording or a live world's recorded past ----------------
 * A new live world whose initial state is world `from`'s recorded state at `tick`: the session it
 * plays (a recording) or records (a live world) replayed to `tick` on a worker (rpl_state_at, the
 * file read on its own connection), then hosted and recorded as a fork of that session (its
 * lineage in the file's fork table). Checks what is cheap first: 0 (queued: the answer comes
 * through ev.world_forked, with `client`), or a negative SRV_E… code with a sentence in err and
 * the error code for the client in *code. */
int srv_world_fork_async(srv *s, srv_world *from, uint64_t tick, uint32_t client,
                         const char **code, char *err, size_t errlen);

/* Free a closed world (nobody refers to it any more) on a worker. */
void srv_world_free_later(srv *s, srv_world *w);
/* The server is stopping: jobs not started yet are cancelled (their results discarded). */
void srv_jobs_cancel(srv *s);

/* ---- server/play.c — a recorded session hosted as a read-only world ------------------------------ */
typedef struct srv_play srv_play;
int srv_play_open(srv *s, const char *spec, char *err, size_t errlen);   /* FILE[:SESSION] */
void srv_play_feed(srv_world *w);
void srv_play_after_tick(srv *s, srv_world *w);
int srv_play_paused(const srv_world *w);
/* op: pause, resume, step, seek (tick), speed (percent). 0, or SRV_ENOTREC / SRV_EPLAY /
 * SRV_EBUSY (16 already wait for a seek) with a sentence in err. A seek runs on a worker: it
 * returns 1 (started), and ev.play_done answers `client` when the world has landed. An op that
 * comes meanwhile returns 1 too: it waits, is applied once the seek has landed, in order, and is
 * answered through ev.play_done then. */
int srv_play_control(srv *s, srv_world *w, const char *op, size_t oplen, uint64_t tick, int speed,
                     uint32_t client, char *err, size_t errlen);
void srv_play_free(srv_play *p);
/* The session w plays and the path of its file (for a fork of it): 0, or -1 if w is not a
 * recording or the path does not fit in cap. */
struct rpl_session;
int srv_play_session(const srv_world *w, struct rpl_session *out, char *path, size_t cap);
/* A viewer's own timeline on w's recording (docs/PROTOCOL.md, timeline): built on a worker at
 * `tick` (from_end: that many ticks before the recording's end), paused unless resume, at speed
 * percent; ev.timeline_opened tells `client` (with gen) when it is ready. 0 (queued), or
 * SRV_ENOTREC (w is live and not recorded), SRV_EBUSY (SRV_MAX_TIMELINES), SRV_ENOMEM, with a
 * sentence in err. Its ops then are srv_play_control's (pause, resume, step, back, seek, speed). */
int srv_timeline_open(srv *s, srv_world *w, uint64_t tick, int from_end, int resume, int speed,
                      uint32_t client, uint32_t gen, char *err, size_t errlen);
int srv_play_is_timeline(const srv_world *w);
/* Let a timeline go (its subscription has gone): freed now, or when its worker gives it back. */
void srv_timeline_close(srv *s, srv_world *w);
void srv_timelines_sweep(srv *s);          /* the scheduler's turn: the closed ones go */
void srv_timelines_free(srv *s);           /* shutdown: what is left */
/* The "play" map of a world entry, for wire_put_play: 1 (out filled in) if w is a recording,
 * else 0. */
struct wire_play;
int srv_play_info(const srv_world *w, struct wire_play *out);
/* A viewer opens session `session` of path (a file vivd records to or plays; the caller checked):
 * 0 with *now, the world already showing it (a recording of it, or the live world recording it);
 * 0 with *now NULL, queued: it is read and built on a worker, hosted paused at its start, and
 * ev.recording_opened answers `client`; or SRV_ELIMIT / SRV_ENOMEM with code and a sentence. */
int srv_recording_open(srv *s, const char *path, int64_t session, uint32_t client, srv_world **now,
                       const char **code, char *err, size_t errlen);
/* The network's sweep: whether anyone watches w (an opened recording), which closes once nobody
 * has for SRV_OPENED_IDLE_MS. */
void srv_recording_watched(srv *s, srv_world *w, int watched);
int srv_play_opened(const srv_world *w);

#endif
