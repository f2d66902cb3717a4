/* replay.h — the replay file (docs/REPLAY.md): recording, reading, verification and export.
 * replay/ depends on sim/ and SQLite only (never on server/): the verifier runs without a network. */
#ifndef VIVARIUM_REPLAY_H
#define VIVARIUM_REPLAY_H
#include <stddef.h>
#include <stdint.h>
#include "sim.h"

/* ---- errors ---------------------------------------------------------------------------------------
 * Functions of replay/ return 0 (or a count, where they say so) on success and a negative RPL_E…
 * code on failure, with a sentence for the user in their err buffer (the code says what kind of
 * failure it is; the sentence says what was wrong and what to do). The codes are -201..-299 of the
 * one space (sim/errors.h, with their fixed sentences: sim_strerror names them); every one is
 * negative, so a caller that tests `!= 0` or `< 0` needs no list of them. */
enum { RPL_OK = 0 };

/* Write frame f as an indexed-colour PNG (its palette, no quantisation), each pixel scaled to
 * scale×scale (1..16). Writes to a temporary name and renames, so a failure never leaves half a
 * file at `path`. 0, or RPL_EIMAGE with a sentence in err. */
int rpl_png_write(const char *path, const sim_frame *f, int scale, char *err, size_t errlen);
/* MMPX magnification for exports (sim/anim/mmpx.h), mmpx 1, 2 or 4 times: init sizes up[] for
 * frames like fr (0, or RPL_ENOMEM), magnify returns fr itself (mmpx 1) or up[0] / up[1], and
 * free lets go of up[] (zeroed first by the caller). */
int rpl_magnify_init(const sim_frame *fr, int mmpx, sim_frame up[2]);
const sim_frame *rpl_magnify(const sim_frame *fr, int mmpx, sim_frame up[2]);
void rpl_magnify_free(sim_frame up[2]);

/* Animated GIF, streamed frame by frame. hz/every set the delays (whole centiseconds, remainders
 * carried so the average rate is exact). Written to a temporary name and renamed by close. */
typedef struct rpl_gif rpl_gif;
rpl_gif *rpl_gif_open(const char *path, int w, int h, int scale, unsigned hz, unsigned every,
                      char *err, size_t errlen);
int rpl_gif_frame(rpl_gif *g, const sim_frame *f);        /* 0, or RPL_EIMAGE/RPL_ENOMEM: see rpl_gif_error */
const char *rpl_gif_error(const rpl_gif *g);
uint64_t rpl_gif_frames(const rpl_gif *g);
int rpl_gif_close(rpl_gif *g, char *err, size_t errlen);  /* finishes and renames; frees g. 0 or RPL_EIMAGE */
void rpl_gif_abort(rpl_gif *g);                           /* removes the partial file; frees g */

/* Animated WebP, lossless, through libwebp's WebPAnimEncoder (webp.c). Frame n starts at
 * n·every·1000/hz ms; identical frames may be merged into one longer frame by the encoder. The
 * animation is held in memory and written (temporary name, renamed) by close. */
typedef struct rpl_webp rpl_webp;
rpl_webp *rpl_webp_open(const char *path, int w, int h, int scale, unsigned hz, unsigned every,
                        char *err, size_t errlen);
int rpl_webp_frame(rpl_webp *g, const sim_frame *f);      /* 0, or RPL_EIMAGE: see rpl_webp_error */
const char *rpl_webp_error(const rpl_webp *g);
uint64_t rpl_webp_frames(const rpl_webp *g);
int rpl_webp_close(rpl_webp *g, char *err, size_t errlen); /* encodes, writes, renames; frees g. 0 or RPL_EIMAGE */
void rpl_webp_abort(rpl_webp *g);                         /* removes the temporary file; frees g */

/* ---- the file ------------------------------------------------------------------------------------ */
#define RPL_APP_ID 0x56495652          /* "VIVR" */
#define RPL_SCHEMA 4                   /* 4: the hashes table, checkpoint.base; 3: session.node,
                                          origin_id; 2: status 'suspended'. Older ones are read as
                                          they are, migrated on write */

typedef struct rpl_file rpl_file;
typedef struct sqlite3 sqlite3;
enum { RPL_READ = 0, RPL_WRITE = 1 };
enum { RPL_DUR_NORMAL = 0, RPL_DUR_FULL = 1 };

/* Open a replay file. RPL_READ: it must exist and be a valid replay file (read-only; the file is
 * never changed). RPL_WRITE: created with the schema if missing or empty; WAL mode; durability as
 * given. Refused with a sentence in err: a missing file, a file that is not SQLite, a truncated
 * or damaged database, another application id, a newer schema, a missing table. 0, or RPL_EFILE
 * (RPL_EDB when a usable file cannot be set up, RPL_ENOMEM). */
int rpl_open(const char *path, int mode, int durability, rpl_file **out, char *err, size_t errlen);
void rpl_close(rpl_file *f);
sqlite3 *rpl_db(rpl_file *f);
const char *rpl_path(const rpl_file *f);
/* The file's schema version (1..RPL_SCHEMA): what a reader may select (schema 3 has node and
 * origin_id). A file opened for writing is always at RPL_SCHEMA. */
int rpl_schema(const rpl_file *f);
/* A statement for sql: one an earlier read prepared and handed back (rpl_stmt_done), or one
 * prepared now. SQLITE_OK, or sqlite3_prepare_v2's code (*st NULL). Parsing the SQL is most of a
 * small read's time; a file keeps up to 32 statements, each used by one caller at a time. */
typedef struct sqlite3_stmt sqlite3_stmt;
int rpl_stmt_prepare(rpl_file *f, const char *sql, sqlite3_stmt **st);
/* Hand st back (NULL: nothing): reset, its bindings cleared, kept for the next read of its SQL,
 * or finalized when the file keeps enough. rpl_close finalizes the ones kept. */
void rpl_stmt_done(rpl_file *f, sqlite3_stmt *st);

/* ---- sessions ------------------------------------------------------------------------------------ */
#define RPL_NODE_MAX 64
typedef struct rpl_session {
    int64_t id;
    char kind[32];
    uint16_t kind_id;
    uint64_t seed;
    char params[SIM_PARAMS_MAX];
    char sim_version[32];
    uint32_t hz;
    uint64_t start_tick, end_tick;
    int running;                       /* status 'running' (1), else 0 */
    int suspended;                     /* status 'suspended' (1): stopped cleanly, to be resumed */
    char source[16];
    int64_t world;
    uint64_t checkpoint_every;
    char created_at[40], closed_at[40];
    char node[RPL_NODE_MAX];           /* the node that recorded it, "" if not named (schema 3) */
    int64_t origin_id;                 /* its id in that node's own file once collected, else -1 */
} rpl_session;

/* A node name is 1..RPL_NODE_MAX-1 bytes of letters, digits, '-', '_' and '.' (a host name fits):
 * it is printed in lists and reports as it is. 0, or RPL_EUSAGE with a sentence naming it. */
int rpl_node_name_check(const char *name, char *err, size_t errlen);

/* ---- forks: a session that starts from another's state at a tick (fork.c, docs/REPLAY.md) -------
 * The optional fork table, like the phase table: not in the schema version (still 3), added by
 * the first fork written into a file; a file without it holds no forks, and a build that does not
 * know it never looks (a fork is an ordinary suspended session to it). One row per forked
 * session: its parent, the tick it was forked at, and the parent's recorded state hash there.
 * parent_file is NULL when the parent is a session of this same file, else the path of the file
 * that held it when the fork was made. */
#define RPL_FORK_TABLE_SQL                                                                        \
    "CREATE TABLE IF NOT EXISTS fork ("                                                           \
    " session INTEGER PRIMARY KEY REFERENCES session(id), parent INTEGER NOT NULL,"               \
    " tick INTEGER NOT NULL, parent_state_hash INTEGER NOT NULL, parent_file TEXT);"

typedef struct rpl_lineage {
    int64_t parent;                    /* the parent session's id (in parent_file when it is set) */
    uint64_t tick;                     /* the tick it was forked at: the fork's start_tick */
    uint64_t parent_hash;              /* the parent's recorded state hash at that tick */
    uint64_t frame_hash;               /* its frame hash there: written (with parent_hash) as the
                                          fork's own tick row at its start, not in the fork row */
    char parent_file[1024];            /* "" : this same file; else the parent's file */
} rpl_lineage;

/* The lineage of session `session`: 1 and *out filled when it is a fork, 0 when it is not (or the
 * file has no fork table), or a negative code with a sentence (RPL_ECORRUPT: a damaged row). */
int rpl_lineage_get(rpl_file *f, int64_t session, rpl_lineage *out, char *err, size_t errlen);

/* The state of session s at tick `tick`, replayed with this build's sim from the nearest
 * checkpoint at or before it and the logged inputs, every recorded state hash on the way checked
 * and, at `tick`, the frame hash (view 0) too. 0 and *out (a new world at `tick`, the caller's to
 * destroy), *recorded_sh / *recorded_fh (the recorded hashes at `tick`: its tick row, or at a
 * checkpoint without one its state hash and the frame drawn from it) and *from_cp (the checkpoint
 * it started from). Refused with a sentence: RPL_EUSAGE (tick outside start_tick..end_tick, or
 * inside a gap, whose state was never recorded), 1 (the replay disagrees with the recording
 * before or at `tick`: the state there is unknown), RPL_ECORRUPT (a damaged checkpoint, input or
 * a hash row missing), RPL_EKIND, RPL_ESTATE, RPL_EINPUT, RPL_EDB, RPL_ENOMEM. progress (may be
 * NULL) gets ticks replayed of ticks to replay, now and then, from the calling thread. */
int rpl_state_at(rpl_file *f, const rpl_session *s, uint64_t tick, sim_world **out,
                 uint64_t *recorded_sh, uint64_t *recorded_fh, uint64_t *from_cp,
                 void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud, char *err,
                 size_t errlen);

typedef struct rpl_fork_opts {
    const char *path;                  /* the file holding the parent session */
    int64_t session;                   /* the parent */
    uint64_t tick;
    const char *out;                   /* NULL or path: the fork goes into the same file */
    int durability;
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *ud;
} rpl_fork_opts;

typedef struct rpl_fork_result {
    int64_t id;                        /* the new session, in out */
    uint64_t from_cp;                  /* the checkpoint the replay started from */
    uint64_t state_hash, frame_hash;   /* the state and frame at tick (equal to the parent's) */
    int same_file;                     /* the fork is in the parent's file */
    char warning[320];                 /* "" or a sentence (recorded by another sim version…) */
} rpl_fork_result;

/* `viv replay fork`: a new session in o->out (or o->path) whose initial state is session
 * o->session's state at o->tick (rpl_state_at), suspended there as vivd leaves the sessions it
 * stops (status 'suspended', a checkpoint at tick), with its lineage in the fork table; a vivd
 * started on the file resumes it as a live world. Refused with a sentence, nothing written:
 * rpl_state_at's refusals, RPL_EFILE (a file missing, damaged or not a replay file, or one a
 * running vivd records into: its lock is held), RPL_EDB/RPL_EFAILING (the write failed). */
int rpl_fork(const rpl_fork_opts *o, rpl_fork_result *res, char *err, size_t errlen);

/* ---- the recorder: a writer thread with its own connection ----------------------------------------
 * The caller (vivd's loop, or viv sim) hands it each tick's inputs and hashes; it copies them into a
 * queue and returns at once — it never waits on the disk. The thread writes batches in
 * transactions (group commit) and reports, through poll, which ticks are committed (acks may be
 * sent) or failed. While writes fail it drops batches, says so (rpl_recorder_failing), and resumes
 * at the next batch that carries a checkpoint, recording the gap honestly. */
typedef struct rpl_recorder rpl_recorder;

typedef struct rpl_rec_config {
    const char *path;
    int durability;                    /* RPL_DUR_NORMAL (default) or RPL_DUR_FULL */
    size_t max_queue_bytes;            /* 0: 256 MiB. Beyond it batches are refused (failing). */
    void (*wake)(void *ud);            /* called from the writer thread after each commit/failure */
    void *ud;
    const char *node;                  /* NULL, or the node name written into every session it
                                          begins (rpl_node_name_check; a cluster node's own) */
    int phases;                        /* 1: heavy mode: the file gets the optional phase table
                                          (created if missing) for rpl_recorder_tick_phases */
    int legacy;                        /* 1: write schema 3's rows (a tick row a tick, whole
                                          checkpoints) into the file: benchmarks and compatibility
                                          tests compare the formats with it */
    uint32_t full_every;               /* a full checkpoint after this many deltas; 0:
                                          RPL_FULL_EVERY */
} rpl_rec_config;

/* Schema 4's recorded hashes (docs/REPLAY.md, "Recorded hashes"): blocks of up to RPL_HASH_BLOCK
 * ticks, the last tick's two hashes whole, the others' low RPL_HASH_BITS bits; the data blob's
 * first byte says how the truncated hashes are stored. */
#define RPL_HASH_BLOCK 240
#define RPL_HASH_BITS 8
enum { RPL_HASHES_RAW = 1, RPL_HASHES_ZSTD = 2 };
/* Checkpoints: one every RPL_CHECKPOINT_SECONDS of world time for a world of up to
 * RPL_CHECKPOINT_PIXELS (640×480) frame pixels, more often for a bigger one (rpl_checkpoint_every);
 * a full one, then up to RPL_FULL_EVERY deltas against it (docs/REPLAY.md): a full one every 10
 * minutes at 60 s. Schema 3's writers (and the legacy mode) took one every
 * RPL_CHECKPOINT_SECONDS_3. */
#define RPL_CHECKPOINT_SECONDS 60
#define RPL_CHECKPOINT_SECONDS_MIN 20
#define RPL_CHECKPOINT_PIXELS (640u * 480u)
#define RPL_CHECKPOINT_SECONDS_3 10
#define RPL_FULL_EVERY 9
/* The spacing of a new session's periodic checkpoints, in ticks: RPL_CHECKPOINT_SECONDS of world
 * time divided by how many RPL_CHECKPOINT_PIXELS its frame holds (rounded up), whole seconds, at
 * least RPL_CHECKPOINT_SECONDS_MIN: a seek or a resume replays about as many cells of a big world
 * as 60 s of a 640×480 one, down to that floor (2048×1024: 20 s), which keeps a 2048×1024 demo
 * world's recording near 11 MB a world-hour (docs/REPLAY.md). */
uint64_t rpl_checkpoint_every(const sim_world *w);

/* The optional phase table (docs/REPLAY.md, "Phase hashes"): not in the schema every file has
 * (RPL_SCHEMA is unchanged), added by a recorder in heavy mode; a file without it reads as one
 * recorded without phase hashes. tick is the tick table's: the state the step produced. */
#define RPL_PHASE_TABLE_SQL                                                                       \
    "CREATE TABLE IF NOT EXISTS phase ("                                                          \
    " session INTEGER NOT NULL REFERENCES session(id), tick INTEGER NOT NULL,"                    \
    " idx INTEGER NOT NULL, name TEXT NOT NULL, hash INTEGER NOT NULL,"                           \
    " PRIMARY KEY (session, tick, idx)) WITHOUT ROWID;"

/* One phase hash of a step (sim_phase_hook): the phase's name and the state hash after it. */
#define RPL_PHASE_NAME 32
typedef struct rpl_phase {
    char name[RPL_PHASE_NAME];
    uint64_t hash;
} rpl_phase;

typedef struct rpl_commit {
    int64_t session;
    uint64_t tick;                     /* batches for ticks < tick are settled */
    int ok;                            /* 1 committed; 0 failed (not logged: a gap) */
} rpl_commit;

rpl_recorder *rpl_recorder_open(const rpl_rec_config *cfg, char *err, size_t errlen);
/* What the recorder has done, for vivd's /metrics and /healthz (docs/OPERATIONS.md). The writer
 * thread times each group it writes (one transaction: from taking the queue to its commit or
 * rollback) into a histogram of RPL_COMMIT_BUCKETS upper bounds (RPL_COMMIT_BOUNDS_US, then
 * +Inf); the caller's side only counts what it queues. Times are CLOCK_MONOTONIC ns (uv_hrtime's
 * clock). */
#define RPL_COMMIT_BUCKETS 14
#define RPL_COMMIT_BOUNDS_US { 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, \
                               500000, 1000000, 2500000, 5000000, 10000000 }
typedef struct rpl_rec_stats {
    uint64_t queued_batches, queued_bytes;   /* waiting for the writer now */
    uint64_t batches;                  /* queued since the start */
    uint64_t groups, groups_failed;    /* transactions written, and of them rolled back */
    uint64_t commit_hist[RPL_COMMIT_BUCKETS + 1];   /* per bucket (not cumulative), last +Inf */
    uint64_t commit_ns_sum;
    int writing;                       /* the writer holds a group now, */
    uint64_t writing_since_ns;         /* since then */
    uint64_t settled_at_ns;            /* the last group's end (its open, before the first) */
    int failing;
    char failmsg[256];
} rpl_rec_stats;
void rpl_recorder_stats(rpl_recorder *r, rpl_rec_stats *out);
/* Which bucket a group that took us microseconds falls into (0..RPL_COMMIT_BUCKETS). */
int rpl_commit_bucket(uint64_t us);
/* A new session for world w as it is now (its state is the initial checkpoint). Returns the
 * session id (assigned at once), or RPL_ENOMEM (RPL_ESTATE) with err if its state cannot be saved. */
int64_t rpl_recorder_begin(rpl_recorder *r, const sim_world *w, const char *source, int64_t world_id,
                           uint64_t checkpoint_every, char *err, size_t errlen);
/* The same for a fork: the session's lineage (lin) is written with its row, in the same
 * transaction, into the fork table (created if the file lacks it), and a tick row at its start
 * holding the state and frame hash there (the parent's), so the start is exported and verified
 * like any recorded tick. w is at lin->tick. */
int64_t rpl_recorder_begin_fork(rpl_recorder *r, const sim_world *w, const char *source,
                                int64_t world_id, uint64_t checkpoint_every,
                                const rpl_lineage *lin, char *err, size_t errlen);
/* Continue an interrupted session whose world (rebuilt by replaying the log) is now at
 * sim_world_tick(w): records a checkpoint there and carries on. 0, or RPL_ENOMEM (RPL_ESTATE). */
int rpl_recorder_resume(rpl_recorder *r, int64_t session, const sim_world *w);
/* One stepped tick. in[0..nin): the inputs applied at `tick` (before stepping it); sh/fh: the
 * hashes after stepping (the state at tick + 1); cp: optionally the saved state at tick + 1 (a
 * checkpoint). Copies everything. 0, or a negative code if it was not queued: RPL_EFAILING (the
 * queue is over its limit: the tick's session enters a gap there, as if its write had failed,
 * and the recorder is failing until a checkpoint of it is written), RPL_ENOMEM. Queued while
 * writes fail too: the writer drops the ticks of a session in a gap until one with a checkpoint
 * (poll reports them failed), so that each gap is exactly [its session's first tick not
 * written, the checkpoint that ended it). */
int rpl_recorder_tick(rpl_recorder *r, int64_t session, uint64_t tick, const sim_input *in,
                      size_t nin, uint64_t sh, uint64_t fh, const uint8_t *cp, size_t cplen);
/* rpl_recorder_tick, and the hashes after each phase of that step, ph[0..nph), written to the
 * phase table in the same transaction as the tick's row (a recorder opened with phases = 1;
 * otherwise they are ignored). Same results. */
int rpl_recorder_tick_phases(rpl_recorder *r, int64_t session, uint64_t tick, const sim_input *in,
                             size_t nin, uint64_t sh, uint64_t fh, const uint8_t *cp, size_t cplen,
                             const rpl_phase *ph, size_t nph);
/* rpl_recorder_tick_phases with the checkpoint handed over instead of copied: cp (cplen bytes of
 * cpcap), from malloc or rpl_recorder_cp_buffer, the recorder's from then on whatever the result
 * (freed, or kept for rpl_recorder_cp_buffer once written). For a big world, whose checkpoint
 * copied on the tick thread cost more than the save itself. */
int rpl_recorder_tick_own(rpl_recorder *r, int64_t session, uint64_t tick, const sim_input *in,
                          size_t nin, uint64_t sh, uint64_t fh, uint8_t *cp, size_t cplen, size_t cpcap,
                          const rpl_phase *ph, size_t nph);
/* A buffer of at least cap bytes for the next checkpoint (rpl_recorder_tick_own): the last one the
 * recorder wrote when it is big enough (its pages already in memory), else a new one; NULL when
 * out of memory. The caller frees it if it does not hand it over. */
uint8_t *rpl_recorder_cp_buffer(rpl_recorder *r, size_t cap);
/* The session's tick `tick` will not be handed over (its caller could not log it: e.g. vivd's
 * acks and the world's inputs disagree): the session enters a gap there, its ticks are dropped
 * until one with a checkpoint, and the gap row gives `why` as its reason ("not recorded" for
 * NULL). Ticks handed over before it are written. 0, or RPL_ENOMEM. */
int rpl_recorder_lost(rpl_recorder *r, int64_t session, uint64_t tick, const char *why);
/* The session ends (status 'closed', end tick as committed). */
void rpl_recorder_end(rpl_recorder *r, int64_t session);
/* The session is suspended (a clean stop: status 'suspended', end tick as committed). w is its
 * world, now at sim_world_tick(w), the tick after the last one handed to rpl_recorder_tick: its
 * state is written as a checkpoint there, so a resume starts from it and replays nothing. (Not
 * when the session is in a gap: the resume then starts from its last checkpoint, as after a
 * crash.) w NULL: no checkpoint (the caller knows w is not the state the log ends with, e.g. it
 * holds queued inputs). rpl_recorder_resume makes it 'running' again. 0, or RPL_ENOMEM
 * (RPL_ESTATE): then the session is suspended without the checkpoint. */
int rpl_recorder_suspend(rpl_recorder *r, int64_t session, const sim_world *w);
/* Settled batches since the last call, in order per session. Returns how many were written. */
size_t rpl_recorder_poll(rpl_recorder *r, rpl_commit *out, size_t max);
/* 1 while writes are failing (msg says why), else 0. */
int rpl_recorder_failing(rpl_recorder *r, char *msg, size_t len);
/* Wait until everything queued is settled. 0 if all of it was written, RPL_EFAILING otherwise. */
int rpl_recorder_flush(rpl_recorder *r);
/* Flush, stop the thread, close the file. Returns rpl_recorder_flush's result. */
int rpl_recorder_close(rpl_recorder *r);

/* ---- collecting the files of several nodes into one (collect.c) -----------------------------------
 * Every session of every source, in the order given (each file's in id order), is copied into a
 * new file with ids 1, 2, …: its session row, inputs, hash rows, checkpoints and gaps exactly as
 * stored (values bound as read, blobs byte for byte), with session.node set to the node that
 * recorded it (the row's own node when the source stores one, else the source's name) and
 * session.origin_id to its id in that node's file (the row's own when it has one). Verify gives
 * every copied session the verdict it has in its source. */
typedef struct rpl_collect_src {
    const char *path;
    const char *node;                  /* NULL: the file's base name without its extension */
} rpl_collect_src;

typedef struct rpl_collect_opts {
    const rpl_collect_src *src;
    size_t nsrc;
    const char *out;
    int force;                         /* replace out if it exists (never while a WAL is beside it) */
    /* Rows copied of all rows, from the calling thread, now and then and once at the end. */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *ud;
} rpl_collect_opts;

typedef struct rpl_collect_map {
    int64_t id;                        /* in the collected file */
    size_t src;                        /* index in opts.src */
    int64_t src_id;                    /* its id in that source */
    char node[RPL_NODE_MAX];
    int64_t origin_id;                 /* its id in the node's own file */
} rpl_collect_map;

typedef struct rpl_collect_result {
    rpl_collect_map *map;              /* one per session, malloc'd: rpl_collect_result_free */
    size_t n;
    uint64_t rows;                     /* rows copied, sessions included */
    char warning[512];                 /* "" or a sentence for stderr (a --node the file overrides) */
} rpl_collect_result;

/* Collect o->src into o->out. The sources are opened read-only, each read in one transaction
 * (a consistent snapshot even while a vivd writes to it), and never changed. The output is
 * written to a temporary file beside it, made whole (checkpointed, closed), then renamed over
 * out, so a failure leaves no file at out and nothing of the temporary one. 0, or with a sentence:
 * RPL_EFILE (a source missing, not a replay file, damaged, of a newer schema), RPL_EUSAGE (no
 * sources, out exists and not force, out is a source, a source given twice, a bad node name, two
 * sources defaulting to the same node name), RPL_EDB (reading or writing failed), RPL_ENOMEM. */
int rpl_collect(const rpl_collect_opts *o, rpl_collect_result *res, char *err, size_t errlen);
void rpl_collect_result_free(rpl_collect_result *res);

/* ---- upgrading a file to schema 4 (upgrade.c, docs/REPLAY.md "Upgrading a file") ----------------- */
typedef struct rpl_upgrade_opts {
    const char *path;
    int keep_backup;                   /* 1: keep the copy of the file as it was (path.schema3) */
    /* Ticks verified of the ticks to verify, from the calling thread, now and then (twice over:
     * before the rewrite and after it). */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *ud;
} rpl_upgrade_opts;

typedef struct rpl_upgrade_session {
    int64_t id;
    uint64_t ticks;                    /* its tick rows (schema 3's), 0: nothing to rewrite */
    int verdict;                       /* rpl_verify's before (0 bit-exact) */
    int convert;                       /* rewritten (ticks and bit-exact) */
    uint64_t blocks, checkpoints_before, checkpoints_after, full_tick;
} rpl_upgrade_session;

typedef struct rpl_upgrade_result {
    rpl_upgrade_session *s;            /* one per session, malloc'd: rpl_upgrade_result_free */
    size_t n, converted;
    uint64_t bytes_before, bytes_after;
    char backup[4200];                 /* the copy kept, or "" */
} rpl_upgrade_result;

/* `viv replay upgrade`: every session of o->path held in schema 3's rows that verifies
 * bit-exactly is rewritten as schema 4 records (blocks of hashes; checkpoints at the session's
 * start and end, at gaps' ends and every RPL_CHECKPOINT_SECONDS, as deltas), one transaction a
 * session, after the file is copied whole to path.schema3; the file is vacuumed; every rewritten
 * session must verify bit-exactly again, or the copy is put back. Sessions that do not verify
 * (or hold no tick rows) are left as they are. 0 (nothing to do included), or with a sentence:
 * RPL_EFILE (not a replay file, or a vivd records into it), RPL_EUSAGE (path.schema3 exists),
 * RPL_EDB, RPL_ENOMEM. */
int rpl_upgrade(const rpl_upgrade_opts *o, rpl_upgrade_result *res, char *err, size_t errlen);
void rpl_upgrade_result_free(rpl_upgrade_result *res);

/* ---- retention: dropping and compacting sessions (compact.c, lock.c; docs/REPLAY.md) --------------
 * Nothing here runs unless asked: `viv replay drop`, `viv replay compact`, `vivd --retain`. Both
 * work on the file as they find it, whatever its schema (they never migrate it): the tables and
 * columns of schema 4 (hashes, checkpoint.base) are used where the file has them. */

/* 1 when a running vivd records into path (it holds the exclusive flock on path.lock that
 * server/record.c takes), with its pid in pid ("" if the lock file does not say); else 0. */
int rpl_recorded_by(const char *path, char *pid, size_t pidlen);

/* The optional grain table (docs/REPLAY.md, "Compaction and retention"): one row per compacted
 * session, created by the first compaction of a file. A session with a row was thinned on
 * purpose: a tick without a recorded hash inside it is not damage. */
#define RPL_GRAIN_TABLE_SQL                                                                       \
    "CREATE TABLE IF NOT EXISTS grain ("                                                          \
    " session INTEGER PRIMARY KEY REFERENCES session(id), hash_every INTEGER NOT NULL,"           \
    " checkpoint_every INTEGER NOT NULL, compacted_at TEXT NOT NULL);"
#define RPL_HASH_GRAIN 600             /* a compacted session keeps a recorded hash every 600 ticks
                                          at most (schema 3's tick rows); a thinned block of schema 4
                                          keeps its last tick's: every RPL_HASH_BLOCK ticks */
#define RPL_CHECKPOINT_GRAIN_S 600     /* and a checkpoint every 10 minutes of world time */

typedef struct rpl_grain {
    uint64_t hash_every;               /* a recorded hash every this many ticks (at most) */
    uint64_t checkpoint_every;         /* a checkpoint every this many ticks (at most) */
    char compacted_at[40];             /* UTC, ISO 8601 */
} rpl_grain;

/* The grain of session `session`: 1 and *out filled when it was compacted, 0 when it was not (or
 * the file has no grain table), or a negative code with a sentence (RPL_ECORRUPT: a damaged row,
 * RPL_EDB). */
int rpl_grain_get(rpl_file *f, int64_t session, rpl_grain *out, char *err, size_t errlen);

/* A duration as the retention options take it: a positive whole number and one unit, s, m, h or
 * d (`45s`, `90m`, `12h`, `30d`), at most 100 years. 0 and *seconds, or RPL_EUSAGE with a sentence
 * (a combination such as `1d12h`, no unit, 0, a negative or too large number). */
int rpl_duration_parse(const char *text, uint64_t *seconds, char *err, size_t errlen);

/* `viv replay drop`: sessions deleted with every row of theirs in every table (input, tick,
 * hashes, checkpoint, gap, and the optional fork, phase and grain), in one transaction. */
typedef struct rpl_drop_opts {
    const char *path;
    const int64_t *sessions;
    size_t n;
    int with_forks;                    /* also drop every session forked from them in this file */
    int force;                         /* drop a parent anyway: its forks' lineage rows stay */
    int vacuum;                        /* then VACUUM (refused while a vivd records into the file) */
} rpl_drop_opts;

/* The rows of one session, by table. */
enum { RPL_T_INPUT, RPL_T_TICK, RPL_T_HASHES, RPL_T_CHECKPOINT, RPL_T_GAP, RPL_T_FORK, RPL_T_PHASE,
       RPL_T_GRAIN, RPL_T_N };
extern const char *const rpl_table_names[RPL_T_N];

typedef struct rpl_dropped {
    int64_t id;
    char kind[32];
    char status[16];
    uint64_t start_tick, end_tick;
    int64_t forked_from;               /* the parent in this file when it is a fork of one, else 0 */
    uint64_t rows[RPL_T_N];            /* deleted, by table (its session row not counted) */
} rpl_dropped;

typedef struct rpl_drop_result {
    rpl_dropped *v;                    /* malloc'd, in id order: rpl_drop_result_free */
    size_t n;
    int64_t payload_before, payload_after;   /* bytes of the tables' cells (dbstat), or -1:
                                                 no dbstat, or a vivd records into the file */
    int64_t free_before, free_after;   /* bytes of the file's free pages, before and after */
    int64_t size_before, size_after;   /* --vacuum: the file's bytes (with its WAL), else -1 */
    char note[512];                    /* "" or a sentence (the forks whose parent went, --force) */
} rpl_drop_result;

/* 0 dropped; refused with a sentence and nothing changed: RPL_EFILE (missing, not a replay file,
 * damaged), RPL_ENOSESSION (an unknown id: the sentence lists the file's), RPL_EUSAGE (a session
 * a running vivd records, one with forks in the file without with_forks or force, vacuum on a
 * file a vivd records into), RPL_EDB (the write failed: rolled back), RPL_ENOMEM. */
int rpl_drop(const rpl_drop_opts *o, rpl_drop_result *res, char *err, size_t errlen);
void rpl_drop_result_free(rpl_drop_result *res);

/* `viv replay compact` and `vivd --retain`: every closed session closed more than older_than
 * seconds ago and not compacted yet keeps its session row, inputs, gaps and lineage untouched,
 * and thins its hashes and checkpoints to a grain (docs/REPLAY.md, "Compaction and retention"),
 * written as its grain row. A session's work is done a few thousand ticks per transaction, so a
 * vivd recording into the same file waits at most milliseconds for its commits; the grain row
 * comes last, with the last of them. */
enum { RPL_C_TICK, RPL_C_HASHES, RPL_C_CHECKPOINT, RPL_C_PHASE, RPL_C_N };
extern const char *const rpl_compact_names[RPL_C_N];   /* "tick rows", "hash blocks", … */

typedef struct rpl_compacted {
    int64_t id;
    char kind[32];
    char closed_at[40];
    uint32_t hz;
    uint64_t start_tick, end_tick;
    rpl_grain grain;                   /* what it is thinned to */
    int deltas;                        /* its checkpoints include deltas (schema 4) */
    /* Rows (hash blocks: those holding every tick's hashes) and bytes of the values they hold
     * (hashes 8 bytes each, blobs their length), before and after, by RPL_C_…. */
    uint64_t rows_before[RPL_C_N], rows_after[RPL_C_N];
    uint64_t bytes_before[RPL_C_N], bytes_after[RPL_C_N];
} rpl_compacted;

typedef struct rpl_compact_opts {
    const char *path;
    uint64_t older_than;               /* seconds (rpl_duration_parse) */
    int64_t now;                       /* 0: the clock's (UTC seconds since 1970) */
    int dry_run;                       /* measure and say, write nothing */
    int measure;                       /* also dbstat's bytes of the tables before and after */
    /* Ticks of the chosen sessions done of all, from the calling thread, now and then. */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    /* Each session once it is thinned (dry run: measured), in id order. */
    void (*each)(void *ud, const rpl_compacted *c);
    /* Asked between transactions: nonzero stops the run there (what is done stays done; the
     * session being thinned gets its grain row at the next run, which finishes it). */
    int (*stop)(void *ud);
    void *ud;
} rpl_compact_opts;

typedef struct rpl_compact_result {
    size_t sessions;                   /* compacted (dry run: that would be) */
    size_t newer;                      /* closed sessions left: closed too recently, */
    size_t compacted_before;           /* or compacted before */
    uint64_t bytes_before, bytes_after;      /* sums of the sessions' values */
    int64_t payload_before, payload_after;   /* measure: dbstat's, else -1 */
    int64_t free_before, free_after;   /* bytes of the file's free pages */
    int stopped;                       /* opts.stop stopped it */
} rpl_compact_result;

/* 0 (also when nothing was old enough); or with a sentence RPL_EFILE (missing, not a replay file,
 * damaged), RPL_EUSAGE (older_than 0), RPL_EDB (a write failed: that transaction rolled back;
 * what was committed before stays, and the next run finishes the session), RPL_ENOMEM. */
int rpl_compact(const rpl_compact_opts *o, rpl_compact_result *res, char *err, size_t errlen);
/* What was (or would be) thinned of a session, as viv and vivd say it: "tick rows 40000 → 67,
 * checkpoints 67 → 3; 657406 → 1856 bytes; grain: a hash every 600 ticks, …". */
void rpl_compacted_describe(const rpl_compacted *c, char *out, size_t cap);

#endif
