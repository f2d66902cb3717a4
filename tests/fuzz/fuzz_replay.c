/* fuzz_replay.c — libFuzzer target: the rows of a replay file (docs/REPLAY.md) as the reader and
 * the verifier take them: sessions, the input log, the recorded hashes, checkpoints and gaps.
 *
 * A file with the schema is made once (rpl_open, RPL_WRITE), in memory (":memory:": the readers
 * take it as any file; no disk, no locks), and kept open; each input is a list of rows, inserted
 * with statements prepared once, in one transaction that is rolled back afterwards, so every run
 * starts from the empty file. A row is a table byte, then one value per
 * column, each a type byte and its bytes: a small or a 64-bit integer, a real, text, a blob or
 * NULL (SQLite stores any type in any column, as a damaged or hostile file may), or a "preset" —
 * the value a real recording would hold there: a kind's name, id, seed, params and rate for a
 * session; for a checkpoint the saved state of that kind's small world at tick 0 or 8 and its
 * hash (raw, or zstd-compressed as the recorder stores it; the tick-8 one's variant is schema
 * 4's delta against tick 0's state, with base 0); for a tick row the state and frame hashes that
 * world really has at that tick; for a row of the hashes table (schema 4) the block of ticks
 * 1..CHAIN (raw or zstd); optionally with one bit flipped. So libFuzzer starts
 * from sessions that verify bit-exactly and walks from there into damaged ones.
 *
 * Then every reader runs on every session: rpl_sessions_list, rpl_session_get and _info_get,
 * rpl_session_kind, rpl_checkpoint_find (both directions), rpl_inputs_load (with and without a
 * check world), rpl_ticks_load, rpl_gaps_list, rpl_plan_make, and rpl_verify when the plan steps
 * at most MAX_VERIFY_TICKS ticks. What the readers promise is checked: a result is 0, 1 or a
 * documented negative code with a terminated sentence; lists come back ascending; a session made
 * only of untouched presets verifies bit-exactly (0). */
#define XXH_INLINE_ALL
#include <xxhash.h>
#include <zstd.h>
#include <sqlite3.h>
#include "fuzz_scene.h"
#include "fuzz_world.h"
#include "read.h"
#include "replay.h"

#define MAX_KINDS 16
#define CHAIN 16                 /* ticks of each kind's real hashes */
#define MAX_ROWS 64
#define MAX_VERIFY_TICKS 64

typedef struct kind_preset {
    const sim_kind *k;
    char params[SIM_PARAMS_MAX];
    uint8_t *state[2];           /* saved at tick 0 and tick 8 */
    size_t len[2];
    uint8_t *zstate[2];          /* the same, zstd-compressed */
    size_t zlen[2];
    uint64_t hash[2];
    uint64_t sh[CHAIN + 1], fh[CHAIN + 1];   /* the hashes after stepping to tick t */
    uint8_t *delta;              /* the tick-8 state as schema 4's delta against tick 0's */
    size_t dlen;
    uint8_t block[1 + 2 * (CHAIN - 1)];      /* ticks 1..CHAIN as one block's data, raw */
    uint8_t *zblock;                         /* the same, zstd (RPL_HASHES_ZSTD) */
    size_t zblen;
} kind_preset;

static kind_preset kinds[MAX_KINDS];

/* The presets of schema 4 (docs/REPLAY.md): the tick-8 checkpoint as a delta against tick 0's
 * state, and ticks 1..CHAIN as one block of hashes (the last whole in its columns). */
static void keep_schema4(kind_preset *p)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    FUZZ_CHECK(c != NULL, "zstd");
    size_t cap = ZSTD_compressBound(p->len[1]);
    p->delta = malloc(cap);
    FUZZ_CHECK(p->delta != NULL, "oom");
    FUZZ_CHECK(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3)) &&
               !ZSTD_isError(ZSTD_CCtx_refPrefix(c, p->state[0], p->len[0])), "zstd prefix");
    p->dlen = ZSTD_compress2(c, p->delta, cap, p->state[1], p->len[1]);
    FUZZ_CHECK(!ZSTD_isError(p->dlen), "zstd delta");
    p->block[0] = RPL_HASHES_RAW;
    for (int t = 1; t < CHAIN; t++) {
        p->block[t] = (uint8_t)p->sh[t];
        p->block[CHAIN - 1 + t] = (uint8_t)p->fh[t];
    }
    size_t zcap = ZSTD_compressBound(2 * (CHAIN - 1)) + 1;
    p->zblock = malloc(zcap);
    FUZZ_CHECK(p->zblock != NULL, "oom");
    p->zblock[0] = RPL_HASHES_ZSTD;
    size_t z = ZSTD_compressCCtx(c, p->zblock + 1, zcap - 1, p->block + 1, 2 * (CHAIN - 1), 3);
    FUZZ_CHECK(!ZSTD_isError(z), "zstd block");
    p->zblen = z + 1;
    ZSTD_freeCCtx(c);
}
static int nkinds;
static rpl_file *file;

static void keep_state(kind_preset *p, const sim_world *w, int slot)
{
    size_t cap = sim_world_save_max(w);
    uint8_t *buf = malloc(cap);
    FUZZ_CHECK(buf != NULL, "oom");
    p->len[slot] = sim_world_save(w, buf, cap);
    FUZZ_CHECK(p->len[slot] > 0, "%s: no save", p->k->name);
    p->state[slot] = buf;
    p->hash[slot] = sim_state_hash(buf, p->len[slot]);
    size_t zcap = ZSTD_compressBound(p->len[slot]);
    p->zstate[slot] = malloc(zcap);
    FUZZ_CHECK(p->zstate[slot] != NULL, "oom");
    p->zlen[slot] = ZSTD_compress(p->zstate[slot], zcap, buf, p->len[slot], 3);
    FUZZ_CHECK(!ZSTD_isError(p->zlen[slot]), "zstd");
}

enum { T_SESSION, T_INPUT, T_TICK, T_CHECKPOINT, T_GAP, T_HASHES, T_COUNT };
static const char *const insert_sql[T_COUNT] = {
    "INSERT INTO session (id, kind, kind_id, seed, params, sim_version, hz, start_tick, end_tick,"
    " status, source, world, checkpoint_every, created_at, closed_at, node, origin_id)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO input (session, tick, client, seq, kind, args) VALUES (?,?,?,?,?,?)",
    "INSERT INTO tick (session, tick, state_hash, frame_hash) VALUES (?,?,?,?)",
    "INSERT INTO checkpoint (session, tick, state, state_hash, base) VALUES (?,?,?,?,?)",
    "INSERT INTO gap (session, from_tick, to_tick, reason) VALUES (?,?,?,?)",
    "INSERT INTO hashes (session, tick, n, last_sh, last_fh, data) VALUES (?,?,?,?,?,?)",
};
static const int ncols[T_COUNT] = { 17, 6, 4, 5, 4, 6 };
static sqlite3_stmt *insert_st[T_COUNT];

/* The cycle world of the presets is built from a small file scene (8x6, three ranges) rather
 * than painted: the verifier's initial-state check creates the session's world anew, and painting
 * the smallest procedural scene (160x90) was 29 % of this target's time (perf). A world from a
 * file cannot be created again without the file, which the verifier never reads: it says so in a
 * warning and goes on with the recorded state, as it does for `vivd --world cycle:scene=file:…`.
 * The check itself is the same code for every kind, run on the sand and terrarium sessions. */
static sim_world *cycle_from_file(void)
{
    sim_cycle_scene scene;
    fuzz_make_scene(&scene, 8, 6, 8, 3);
    sim_file_reader rd = { fuzz_scene_reader, &scene };
    char err[256] = "";
    sim_config cfg = sim_config_default();
    cfg.kind = "cycle";
    cfg.seed = 1;
    cfg.params = "scene=file:fuzz.lbm";
    cfg.files = &rd;
    cfg.err = err;
    cfg.errlen = sizeof err;
    int rc;
    sim_world *w = sim_world_create(&cfg, &rc);
    FUZZ_CHECK(w != NULL, "cannot create a cycle world from a file scene: %s", err);
    sim_cycle_scene_free(&scene);
    return w;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The verifier creates a world of the session's kind several times a run (the initial-state
     * check, each span, the checkpoint loads). The merge world bakes its RotSprite fruit art at
     * every create (about 60 ms under this build) and the garden paints its backdrop: both are
     * left out unless named in VIV_FUZZ_KINDS (their states are fuzzed by the state target, into
     * worlds made once; the readers and the verifier are the same code for every kind). With
     * them a run makes about a quarter of the executions (116 against 412 a CPU second). The
     * terrarium draws its room at every create: 13 % of this target's time (perf record, 25 s of
     * the schema-4 target), so it is left out too; sand and cycle remain. */
    const char *only = getenv("VIV_FUZZ_KINDS");
    for (int i = 0; i < sim_kind_count(); i++) {
        const char *name = sim_kind_at(i)->name;
        if (only ? !fuzz_listed(only, name)
                 : strcmp(name, "merge") == 0 || strcmp(name, "garden") == 0 || strcmp(name, "terrarium") == 0)
            continue;
        FUZZ_CHECK(nkinds < MAX_KINDS, "too many kinds");
        kind_preset *p = &kinds[nkinds++];
        p->k = sim_kind_at(i);
        sim_world *w = strcmp(name, "cycle") == 0 ? cycle_from_file() : fuzz_small_world(p->k, 1, NULL);
        snprintf(p->params, sizeof p->params, "%s", sim_world_params(w));
        sim_frame fr;
        FUZZ_CHECK(sim_world_frame_init(w, &fr) == 0, "frame");
        keep_state(p, w, 0);
        for (int t = 1; t <= CHAIN; t++) {
            sim_world_step(w);
            sim_world_render(w, 0, &fr);
            p->sh[t] = sim_world_hash(w);
            p->fh[t] = sim_frame_hash(&fr);
            if (t == 8) keep_state(p, w, 1);
        }
        sim_frame_free(&fr);
        sim_world_destroy(w);
        keep_schema4(p);
    }
    FUZZ_CHECK(nkinds > 0, "no kinds (VIV_FUZZ_KINDS=%s)", only ? only : "");
    char err[256];
    FUZZ_CHECK(rpl_open(":memory:", RPL_WRITE, RPL_DUR_NORMAL, &file, err, sizeof err) == 0, "%s", err);
    for (int t = 0; t < T_COUNT; t++)
        FUZZ_CHECK(sqlite3_prepare_v2(rpl_db(file), insert_sql[t], -1, &insert_st[t], NULL) == SQLITE_OK,
                   "prepare: %s", sqlite3_errmsg(rpl_db(file)));
    return 0;
}

/* ---- the input, read as rows ---------------------------------------------------------------------- */
typedef struct reader {
    const uint8_t *p;
    size_t n, off;
} reader;

static uint64_t take(reader *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)(r->off < r->n ? r->p[r->off++] : 0) << (8 * i);
    return v;
}

/* What a row's presets refer to: the kind of the last session, its id, the tick rows so far. */
typedef struct context {
    int kind;                    /* index into kinds[] */
    int64_t session;
    uint64_t next_tick;          /* the preset tick of the next tick row */
    int slot;                    /* the checkpoint preset: state at tick 0 or 8 */
    int delta;                   /* this checkpoint row's state is the preset delta (base 0) */
    int touched;                 /* some value of the session's rows was not a pristine preset */
    int has_cp;                  /* a preset checkpoint at tick 0 was inserted */
    int64_t pristine[MAX_ROWS];  /* sessions made of presets only */
    int npristine;
    int stray;                   /* a row named its session itself: it may have landed in any one */
    int refused;                 /* the last session row was refused: its id is still free */
    uint8_t written[MAX_ROWS + 2];  /* ids that rows were written to without their session row */
} context;

/* A preset value, as an int64 or text or blob. */
typedef struct preset {
    int type;                    /* SQLITE_INTEGER, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL */
    int64_t i;
    const char *s;
    const uint8_t *b;
    size_t blen;
} preset;

static preset preset_of(const context *cx, int table, int col, int zflag)
{
    const kind_preset *k = &kinds[cx->kind];
    preset v = { SQLITE_INTEGER, 0, NULL, NULL, 0 };
    uint64_t t = cx->next_tick;
    switch (table) {
    case T_SESSION:
        switch (col) {
        case 0: v.i = cx->session; break;
        case 1: v.type = SQLITE_TEXT; v.s = k->k->name; break;
        case 2: v.i = k->k->id; break;
        case 3: v.i = 1; break;
        case 4: v.type = SQLITE_TEXT; v.s = k->params; break;
        case 5: v.type = SQLITE_TEXT; v.s = SIM_VERSION; break;
        case 6: v.i = k->k->hz; break;
        case 7: v.i = 0; break;
        case 8: v.i = CHAIN; break;
        case 9: v.type = SQLITE_TEXT; v.s = zflag ? "suspended" : "closed"; break;
        case 10: v.type = SQLITE_TEXT; v.s = "live"; break;
        case 11: v.i = 1; break;
        case 12: v.i = 8; break;
        case 13: case 14: v.type = SQLITE_TEXT; v.s = "2026-12-06T00:00:00Z"; break;
        case 15: v.type = zflag ? SQLITE_TEXT : SQLITE_NULL; v.s = "node-1"; break;
        default: v.i = -1; break;
        }
        break;
    case T_INPUT:
        v.i = col == 0 ? cx->session : col == 1 ? (int64_t)t : 0;
        if (col == 5) { v.type = SQLITE_BLOB; v.b = (const uint8_t *)"\0\0\0\0\0\0\0\0"; v.blen = 8; }
        break;
    case T_TICK:
        v.i = col == 0 ? cx->session : col == 1 ? (int64_t)t
            : col == 2 ? (int64_t)k->sh[t <= CHAIN ? t : 0] : (int64_t)k->fh[t <= CHAIN ? t : 0];
        break;
    case T_CHECKPOINT:
        if (col == 0) v.i = cx->session;
        else if (col == 1) v.i = cx->slot ? 8 : 0;
        else if (col == 2) {
            /* slot 1's variant is schema 4's delta against slot 0 (base 0, column 4) */
            v.type = SQLITE_BLOB;
            v.b = zflag ? (cx->slot ? k->delta : k->zstate[0]) : k->state[cx->slot];
            v.blen = zflag ? (cx->slot ? k->dlen : k->zlen[0]) : k->len[cx->slot];
        } else if (col == 3) {
            v.i = (int64_t)k->hash[cx->slot];
        } else if (cx->delta) {
            v.i = 0;
        } else {
            v.type = SQLITE_NULL;
        }
        break;
    case T_HASHES:
        switch (col) {
        case 0: v.i = cx->session; break;
        case 1: v.i = 1; break;
        case 2: v.i = CHAIN; break;
        case 3: v.i = (int64_t)k->sh[CHAIN]; break;
        case 4: v.i = (int64_t)k->fh[CHAIN]; break;
        default:
            v.type = SQLITE_BLOB;
            v.b = zflag ? k->zblock : k->block;
            v.blen = zflag ? k->zblen : sizeof k->block;
            break;
        }
        break;
    default:
        if (col == 0) v.i = cx->session;
        else if (col == 1) v.i = (int64_t)t;
        else if (col == 2) v.i = (int64_t)t + 4;
        else { v.type = SQLITE_TEXT; v.s = "the disk was full"; }
        break;
    }
    return v;
}

/* Bind one column's value from the input. */
static void bind_value(sqlite3_stmt *st, int col, reader *r, context *cx, int table)
{
    uint8_t ty = (uint8_t)take(r, 1);
    int i = col + 1;
    /* A row of another table whose session is not the preset (the current session) may change a
     * session judged pristine already: none is then (found by this target: a tick row of 0.5
     * for session 1, added while session 2 was being built, made session 1 damaged). */
    if (col == 0 && table != T_SESSION && (ty & 7) != 6) cx->stray = 1;
    switch (ty & 7) {
    case 0: cx->touched = 1; sqlite3_bind_int64(st, i, (int64_t)(int8_t)take(r, 1)); return;
    case 1: cx->touched = 1; sqlite3_bind_int64(st, i, (int64_t)take(r, 8)); return;
    case 2: {
        cx->touched = 1;
        uint64_t bits = take(r, 8);
        double d;
        memcpy(&d, &bits, sizeof d);
        sqlite3_bind_double(st, i, d);
        return;
    }
    case 3: case 4: {
        cx->touched = 1;
        size_t len = (size_t)take(r, (ty & 7) == 3 ? 1 : 2);
        if (len > r->n - r->off) len = r->n - r->off;
        if ((ty & 7) == 3) sqlite3_bind_text(st, i, (const char *)r->p + r->off, (int)len, SQLITE_TRANSIENT);
        else sqlite3_bind_blob(st, i, r->p + r->off, (int)len, SQLITE_TRANSIENT);
        r->off += len;
        return;
    }
    case 5: cx->touched = 1; sqlite3_bind_null(st, i); return;
    default: break;                          /* 6: a preset; 7: a preset with one bit flipped */
    }
    preset v = preset_of(cx, table, col, (ty >> 3) & 1);
    if (table == T_CHECKPOINT && col == 2) cx->delta = cx->slot == 1 && ((ty >> 3) & 1);
    int flip = (ty & 7) == 7;
    unsigned bit = flip ? (unsigned)take(r, 2) : 0;
    if (flip) cx->touched = 1;
    if (v.type == SQLITE_INTEGER) {
        sqlite3_bind_int64(st, i, flip ? (int64_t)((uint64_t)v.i ^ (1ull << (bit % 64))) : v.i);
    } else if (v.type == SQLITE_TEXT) {
        sqlite3_bind_text(st, i, v.s, -1, SQLITE_TRANSIENT);
    } else if (v.type == SQLITE_BLOB) {
        uint8_t *b = fuzz_dup(v.b, v.blen);
        if (flip && v.blen) b[(bit / 8) % v.blen] ^= (uint8_t)(1u << (bit % 8));
        sqlite3_bind_blob(st, i, b, (int)v.blen, SQLITE_TRANSIENT);
        free(b);
    } else {
        sqlite3_bind_null(st, i);
    }
}

/* ---- the readers ---------------------------------------------------------------------------------- */
static void check_code(int rc, const char *err, size_t cap, const char *what)
{
    FUZZ_CHECK(fuzz_terminated(err, cap), "%s: sentence not terminated", what);
    FUZZ_CHECK(rc >= -299 || rc == SIM_ENOMEM, "%s: code %d is not a replay code", what, rc);
    if (rc < 0) FUZZ_CHECK(err[0] != '\0' && sim_strerror(rc)[0] != '\0', "%s: %d says nothing", what, rc);
}

static void read_session(int64_t id, int pristine)
{
    char err[512];
    rpl_session s;
    int rc = rpl_session_get(file, id, &s, err, sizeof err);
    check_code(rc, err, sizeof err, "session_get");
    if (rc != 0) return;
    FUZZ_CHECK(s.id == id, "session_get %lld gave %lld", (long long)id, (long long)s.id);
    rpl_session_info info;
    rc = rpl_session_info_get(file, id, &info, err, sizeof err);
    check_code(rc, err, sizeof err, "session_info_get");
    char warn[256];
    const sim_kind *k = rpl_session_kind(file, &s, warn, sizeof warn, err, sizeof err);
    FUZZ_CHECK(fuzz_terminated(warn, sizeof warn) && fuzz_terminated(err, sizeof err), "session_kind");
    if (!k) {
        FUZZ_CHECK(err[0] != '\0', "session_kind refused silently");
        FUZZ_CHECK(!pristine, "a pristine session's kind is refused: %s", err);
        return;
    }
    uint64_t lo = s.start_tick, hi = s.end_tick;
    /* The second checkpoint loads into the world the first built, as a replay's next span does
     * (a world built, then reused: both ways of rpl_world_load). */
    sim_world *w = NULL;
    for (int dir_i = 0; dir_i < 2; dir_i++) {
        rpl_checkpoint c;
        memset(&c, 0, sizeof c);
        rc = rpl_checkpoint_find(file, &s, dir_i ? hi : lo, dir_i ? RPL_AT_OR_BEFORE : RPL_AT_OR_AFTER,
                                 &c, err, sizeof err);
        check_code(rc, err, sizeof err, "checkpoint_find");
        if (rc == 0) {
            FUZZ_CHECK(sim_state_hash(c.state, c.len) == c.hash, "a checkpoint's hash was not checked");
            rc = rpl_world_load(&s, &c, &w, err, sizeof err);
            check_code(rc, err, sizeof err, "world_load");
            rpl_checkpoint_free(&c);
        }
    }
    if (w) sim_world_destroy(w);
    uint64_t *cts;
    size_t nct;
    rc = rpl_checkpoint_ticks(file, id, 0, UINT64_MAX, &cts, &nct, err, sizeof err);
    check_code(rc, err, sizeof err, "checkpoint_ticks");
    if (rc == 0) {
        for (size_t i = 1; i < nct; i++) FUZZ_CHECK(cts[i - 1] < cts[i], "checkpoint ticks not ascending");
        free(cts);
    }
    sim_input *in;
    size_t nin;
    rc = rpl_inputs_load(file, id, 0, UINT64_MAX, NULL, &in, &nin, err, sizeof err);
    check_code(rc, err, sizeof err, "inputs_load");
    if (rc == 0) {
        for (size_t i = 0; i < nin; i++) {
            FUZZ_CHECK(in[i].nargs <= 8, "an input with %u args", in[i].nargs);
            if (i) FUZZ_CHECK(in[i - 1].tick <= in[i].tick, "inputs not in tick order");
        }
        free(in);
    }
    rpl_tick_row *tr;
    size_t ntr;
    rc = rpl_ticks_load(file, id, 0, UINT64_MAX, &tr, &ntr, err, sizeof err);
    check_code(rc, err, sizeof err, "ticks_load");
    if (rc == 0) {
        for (size_t i = 1; i < ntr; i++) FUZZ_CHECK(tr[i - 1].tick < tr[i].tick, "tick rows not ascending");
        free(tr);
    }
    rpl_gap *gaps;
    size_t ngaps;
    rc = rpl_gaps_list(file, id, &gaps, &ngaps, err, sizeof err);
    check_code(rc, err, sizeof err, "gaps_list");
    if (rc == 0) {
        for (size_t i = 0; i < ngaps; i++) {
            FUZZ_CHECK(gaps[i].from < gaps[i].to, "a gap with to <= from was accepted");
            FUZZ_CHECK(fuzz_terminated(gaps[i].reason, sizeof gaps[i].reason), "gap reason");
        }
        free(gaps);
    }
    rpl_plan plan;
    memset(&plan, 0, sizeof plan);
    rc = rpl_plan_make(file, &s, 0, UINT64_MAX, 1, &plan, err, sizeof err);
    check_code(rc, err, sizeof err, "plan_make");
    uint64_t steps = rc == 0 ? plan.ticks : UINT64_MAX;
    if (rc == 0) rpl_plan_free(&plan);
    if (steps > MAX_VERIFY_TICKS) {
        FUZZ_CHECK(!pristine, "a pristine session's plan: %d, %llu ticks", rc, (unsigned long long)steps);
        return;
    }
    rpl_verify_opts o = rpl_verify_defaults();
    o.session = id;
    o.threads = 1;
    rpl_verify_result res;
    size_t cap = 1 + (size_t)(id & 1023) % 2048;
    char *report = malloc(cap);
    FUZZ_CHECK(report != NULL, "oom");
    rc = rpl_verify(file, &o, &res, report, cap);
    FUZZ_CHECK(fuzz_terminated(report, cap), "verify report not terminated (cap %zu)", cap);
    FUZZ_CHECK(rc == 0 || rc == 1 || (rc < 0 && sim_strerror(rc)[0]), "verify gave %d", rc);
    FUZZ_CHECK(!pristine || rc == 0, "a pristine session does not verify (%d): %s", rc, report);
    free(report);
}

/* The session being built is made of presets alone: a checkpoint at tick 0 and every tick row
 * up to its end, untouched. It must verify bit-exactly. */
static int complete(const context *cx)
{
    return !cx->touched && cx->has_cp && cx->next_tick == CHAIN + 1 && cx->npristine < MAX_ROWS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sqlite3 *db = rpl_db(file);
    FUZZ_CHECK(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK, "begin: %s", sqlite3_errmsg(db));
    reader r = { data, size, 0 };
    static context cx;
    memset(&cx, 0, sizeof cx);
    int64_t sessions[MAX_ROWS];
    int nsessions = 0, cur_pristine = 0, rows = 0;
    while (r.off < r.n && rows++ < MAX_ROWS) {
        uint8_t tag = (uint8_t)take(&r, 1);
        int table = tag % T_COUNT;
        if (table == T_SESSION) {
            /* A session's presets: its kind, its id (one more than the last), which checkpoint. */
            if (cur_pristine && complete(&cx)) cx.pristine[cx.npristine++] = cx.session;
            cx.kind = (tag / T_COUNT) % nkinds;
            cx.session = nsessions + 1;
            cx.next_tick = 1;
            cx.touched = cx.written[cx.session];
            cx.has_cp = 0;
            cur_pristine = 1;
        }
        if (table == T_CHECKPOINT) cx.slot = (tag / T_COUNT) & 1;
        if (table == T_INPUT || table == T_GAP) cx.touched = 1;   /* presets of these change a session */
        if (table == T_CHECKPOINT && cx.slot == 1) cx.touched = 1; /* a second checkpoint, maybe a gap */
        sqlite3_stmt *st = insert_st[table];
        for (int c = 0; c < ncols[table]; c++) bind_value(st, c, &r, &cx, table);
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE && table == T_SESSION && nsessions < MAX_ROWS)
            sessions[nsessions++] = sqlite3_last_insert_rowid(db);
        if (rc != SQLITE_DONE) cx.touched = 1;       /* a row refused (a constraint): not pristine */
        /* A session row refused leaves its id to the next one, and the rows written meanwhile
         * (their session the preset) to that session: it is not pristine (found by this target: a
         * refused session row, an input row for its id, then a session of presets that took it). */
        if (table == T_SESSION) cx.refused = rc != SQLITE_DONE;
        else if (rc == SQLITE_DONE && cx.refused) cx.written[cx.session] = 1;
        if (rc == SQLITE_DONE && table == T_TICK && ++cx.next_tick > CHAIN + 1) cx.touched = 1;
        if (rc == SQLITE_DONE && table == T_CHECKPOINT && cx.slot == 0) cx.has_cp = 1;
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
    if (cur_pristine && complete(&cx)) cx.pristine[cx.npristine++] = cx.session;
    if (cx.stray) cx.npristine = 0;

    char err[512];
    rpl_session_info *list;
    size_t n;
    int rc = rpl_sessions_list(file, &list, &n, err, sizeof err);
    check_code(rc, err, sizeof err, "sessions_list");
    if (rc == 0) {
        for (size_t i = 1; i < n; i++) FUZZ_CHECK(list[i - 1].s.id < list[i].s.id, "sessions not in id order");
        free(list);
    }
    int64_t only;
    rc = rpl_session_only(file, &only, err, sizeof err);
    check_code(rc, err, sizeof err, "session_only");
    for (int i = 0; i < nsessions; i++) {
        int pristine = 0;
        /* A session is pristine when its id is the one its presets named and nothing touched it
         * (a session row without tick rows verifies nothing, but still verifies). */
        for (int j = 0; j < cx.npristine; j++) pristine |= cx.pristine[j] == sessions[i] && sessions[i] == i + 1;
        read_session(sessions[i], pristine);
    }
    read_session(0, 0);
    read_session(INT64_MAX, 0);
    FUZZ_CHECK(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK, "rollback: %s", sqlite3_errmsg(db));
    return 0;
}
