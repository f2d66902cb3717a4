/* check_replay_stream.c — server/replay_stream.c against a real vivd on 127.0.0.1: the read-only
 * `sessions` and `replay` messages (docs/PROTOCOL.md), and the page's sim module served at
 * /vivarium.wasm:
 *   - `sessions` lists the file vivd records to (and the files it plays), newest session first;
 *   - `replay` of a session still running streams it whole: its info, its checkpoint byte for byte
 *     as the file stores it, every logged input and every recorded row in order, then
 *     replay_end; replayed here from those bytes alone, every state and frame hash matches;
 *   - bad requests get the protocol's error codes (missing or bad fields, a file vivd does not
 *     know, a session the file does not hold, a second stream on one connection), and the
 *     connection goes on;
 *   - a client that stops reading a long recording is sent no more than it takes (vivd holds
 *     a bounded queue for it; a viewer beside it misses no frame), and it gets the whole stream,
 *     exact, once it reads again (tag "slow": a few seconds of waiting);
 *   - GET /vivarium.wasm is the module, as application/wasm with the page's headers. */
#define _GNU_SOURCE 1
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>
#include <zstd.h>
#include "check_suites.h"
#include "e2e.h"
#include "read.h"
#include "wsc.h"

/* ---- a stream, as a client receives it ------------------------------------------------------------ */
typedef struct stream {
    char kind[32], file[256], status[16];
    uint64_t start, end, ticks, spans, seed;
    int nspans;
    uint64_t span_start[8], span_end[8], span_sh[8];
    uint8_t *state[8];                 /* the checkpoint of each span, as stored */
    size_t state_len[8], state_got[8];
    uint64_t *sh, *fh;                 /* rows of ticks first+1 … first+nrows */
    uint8_t *bits;                     /* their recorded bits (64 when the stream gave none) */
    size_t nrows, caprows;
    uint64_t next;                     /* the next step a chunk must start at */
    sim_input *in;
    size_t nin, capin;
    int ended, damaged;
    int have_end_sh;               /* replay_end's end_sh: the checkpoint at the session's end */
    uint64_t end_sh;
    uint64_t after;
    char error[64], why[600];          /* an error reply instead */
    size_t biggest;                    /* the largest message body */
    size_t bytes;                      /* the bodies of every message of the stream */
} stream;

static void stream_free(stream *s)
{
    for (int i = 0; i < 8; i++) free(s->state[i]);
    free(s->sh);
    free(s->fh);
    free(s->bits);
    free(s->in);
    memset(s, 0, sizeof *s);
}

static uint64_t get_u(const wire_msg *m, const char *k)
{
    uint64_t v;
    ck_assert_msg(wire_get_u64(m, k, &v) == 0, "field %s", k);
    return v;
}

static void copy_str(const wire_msg *m, const char *k, char *dst, size_t cap)
{
    const char *s;
    size_t n;
    ck_assert_msg(wire_get_str(m, k, &s, &n) == 0, "field %s", k);
    snprintf(dst, cap, "%.*s", (int)n, s);
}

static const wire_val *get_bin(const wire_msg *m, const char *k)
{
    const wire_val *v = wire_msg_get(m, k);
    ck_assert_msg(v && v->type == WIRE_BIN, "field %s is not bin", k);
    return v;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = v << 8 | p[k];
    return v;
}

/* One message of a stream into s. Returns 1 when the stream is over (replay_end, replay_damage
 * or an error), else 0. Frames go to t. */
static int stream_take(stream *s, const wire_msg *m, size_t bodylen)
{
    if (bodylen > s->biggest) s->biggest = bodylen;
    s->bytes += bodylen;
    if (cli_msg_is(m, "error")) {
        copy_str(m, "code", s->error, sizeof s->error);
        copy_str(m, "msg", s->why, sizeof s->why);
        return 1;
    }
    if (cli_msg_is(m, "replay_info")) {
        copy_str(m, "kind", s->kind, sizeof s->kind);
        copy_str(m, "file", s->file, sizeof s->file);
        copy_str(m, "status", s->status, sizeof s->status);
        s->start = get_u(m, "start");
        s->end = get_u(m, "end");
        s->ticks = get_u(m, "ticks");
        s->spans = get_u(m, "spans");
        s->seed = get_u(m, "seed");
        return 0;
    }
    if (cli_msg_is(m, "replay_span")) {
        ck_assert_int_lt(s->nspans, 8);
        int i = s->nspans++;
        s->span_start[i] = get_u(m, "start");
        s->span_end[i] = get_u(m, "end");
        s->span_sh[i] = get_u(m, "sh");
        s->state_len[i] = get_u(m, "size");
        s->state[i] = malloc(s->state_len[i]);
        ck_assert_ptr_nonnull(s->state[i]);
        s->next = s->span_start[i];
        return 0;
    }
    if (cli_msg_is(m, "replay_state")) {
        int i = s->nspans - 1;
        ck_assert_int_ge(i, 0);
        const wire_val *d = get_bin(m, "data");
        ck_assert_uint_eq(get_u(m, "off"), s->state_got[i]);
        ck_assert_uint_le(s->state_got[i] + d->n, s->state_len[i]);
        memcpy(s->state[i] + s->state_got[i], d->p, d->n);
        s->state_got[i] += d->n;
        return 0;
    }
    if (cli_msg_is(m, "replay_ticks")) {
        uint64_t from = get_u(m, "from"), n = get_u(m, "n");
        ck_assert_uint_eq(from, s->next);     /* in order, no hole, no overlap */
        const wire_val *sh = get_bin(m, "sh"), *fh = get_bin(m, "fh");
        ck_assert_uint_eq(sh->n, 8 * n);
        ck_assert_uint_eq(fh->n, 8 * n);
        if (s->nrows + n > s->caprows) {
            s->caprows = (s->nrows + n) * 2;
            s->sh = realloc(s->sh, s->caprows * sizeof *s->sh);
            s->fh = realloc(s->fh, s->caprows * sizeof *s->fh);
            s->bits = realloc(s->bits, s->caprows);
            ck_assert(s->sh && s->fh && s->bits);
        }
        /* "bits", when present: how many low bits of each tick's hashes the file keeps. */
        const wire_val *bits = wire_msg_get(m, "bits");
        ck_assert(!bits || (bits->type == WIRE_BIN && bits->n == n));
        for (uint64_t k = 0; k < n; k++) {
            s->sh[s->nrows + k] = le64(sh->p + 8 * k);
            s->fh[s->nrows + k] = le64(fh->p + 8 * k);
            s->bits[s->nrows + k] = bits ? bits->p[k] : 64;
        }
        s->nrows += n;
        s->next = from + n;
        /* The inputs: [tick, client, seq, kind, [args…]] each. Checked without ck_assert per
         * value (Check writes to its pipe on every one: millions of writes for a long stream). */
        const wire_val *in = wire_msg_get(m, "inputs");
        ck_assert(in && in->type == WIRE_ARRAY);
        if (s->nin + in->n > s->capin) {
            s->capin = (s->nin + in->n) * 2;
            s->in = realloc(s->in, s->capin * sizeof *s->in);
            ck_assert_ptr_nonnull(s->in);
        }
        const uint8_t *it = in->p, *end = in->raw + in->rawlen;
        int bad = 0;
        for (uint32_t k = 0; k < in->n && !bad; k++) {
            wire_val e, f;
            bad |= wire_next(&it, end, &e) != 0 || e.type != WIRE_ARRAY || e.n != 5;
            if (bad) break;
            sim_input *x = &s->in[s->nin++];
            memset(x, 0, sizeof *x);
            const uint8_t *eit = e.p, *eend = e.raw + e.rawlen;
            uint64_t v[4];
            for (int j = 0; j < 4 && !bad; j++) {
                bad |= wire_next(&eit, eend, &f) != 0 || f.type != WIRE_UINT;
                v[j] = f.u;
            }
            bad |= wire_next(&eit, eend, &f) != 0 || f.type != WIRE_ARRAY || f.n > SIM_INPUT_MAX_ARGS;
            if (bad) break;
            x->tick = v[0];
            x->client = (uint32_t)v[1];
            x->seq = (uint32_t)v[2];
            x->kind = (uint16_t)v[3];
            bad |= x->tick < from || x->tick >= from + n;
            const uint8_t *ait = f.p, *aend = f.raw + f.rawlen;
            x->nargs = (uint16_t)f.n;
            for (uint32_t a = 0; a < f.n && !bad; a++) {
                wire_val av;
                bad |= wire_next(&ait, aend, &av) != 0 || (av.type != WIRE_UINT && av.type != WIRE_INT);
                x->args[a] = (int32_t)(av.type == WIRE_UINT ? (int64_t)av.u : av.i);
            }
        }
        ck_assert_msg(!bad, "a malformed input in the chunk from tick %llu", (unsigned long long)from);
        return 0;
    }
    if (cli_msg_is(m, "replay_damage")) {
        s->damaged = 1;
        s->after = get_u(m, "after");
        copy_str(m, "msg", s->why, sizeof s->why);
        return 1;
    }
    ck_assert_msg(cli_msg_is(m, "replay_end"), "a message that is not part of the stream");
    s->ended = 1;
    s->have_end_sh = wire_get_u64(m, "end_sh", &s->end_sh) == 0;
    return 1;
}

/* Receive a whole stream (frames on the way go to t) within timeout_ms. */
static void stream_recv(cli_conn *c, tracker *t, stream *s, int timeout_ms)
{
    char err[256];
    double end = now_s() + timeout_ms / 1000.0;
    for (;;) {
        int left = (int)((end - now_s()) * 1000.0);
        ck_assert_msg(left > 0, "the stream did not end within %d ms (%zu rows so far)", timeout_ms, s->nrows);
        const uint8_t *body;
        size_t len;
        int rc = cli_recv(c, left, &body, &len, err, sizeof err);
        ck_assert_msg(rc >= 0, "receive: %s", err);
        if (rc == 0) continue;
        wire_msg m;
        ck_assert_int_eq(wire_msg_decode(body, len, &m), 0);
        if (cli_msg_is(&m, "frame")) {
            if (t) track_frame(t, &m);
            continue;
        }
        if (stream_take(s, &m, len)) return;
    }
}

static void send_replay(cli_conn *c, int64_t session, const char *file)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, file ? 3 : 2);
    put_kv_str(&b, "t", "replay");
    wire_put_str(&b, "session");
    wire_put_int(&b, session);
    if (file) put_kv_str(&b, "file", file);
    wire_msg_end(&b);
    send_msg(c, &b);
    wire_buf_free(&b);
}

/* The streamed checkpoint of span i, as the saved state (decompressed when stored as zstd). */
static uint8_t *state_bytes(const stream *s, int i, size_t *len)
{
    const uint8_t *p = s->state[i];
    if (s->state_len[i] >= 4 && p[0] == 0x28 && p[1] == 0xB5 && p[2] == 0x2F && p[3] == 0xFD) {
        unsigned long long n = ZSTD_getFrameContentSize(p, s->state_len[i]);
        ck_assert(n != ZSTD_CONTENTSIZE_ERROR && n != ZSTD_CONTENTSIZE_UNKNOWN && n < (1u << 30));
        uint8_t *out = malloc(n);
        ck_assert_ptr_nonnull(out);
        ck_assert_uint_eq(ZSTD_decompress(out, n, p, s->state_len[i]), n);
        *len = (size_t)n;
        return out;
    }
    uint8_t *out = malloc(s->state_len[i]);
    ck_assert_ptr_nonnull(out);
    memcpy(out, p, s->state_len[i]);
    *len = s->state_len[i];
    return out;
}

/* Replay the stream from its own bytes alone — the first checkpoint, then the logged inputs — and
 * check every state and frame hash it carries, as the page does. */
static void replay_stream_checks(const stream *s)
{
    ck_assert_int_eq(s->nspans, 1);
    size_t len;
    uint8_t *blob = state_bytes(s, 0, &len);
    uint16_t kid;
    uint64_t seed, tick;
    char params[SIM_PARAMS_MAX];
    ck_assert_int_eq(sim_state_peek(blob, len, &kid, &seed, &tick, params, sizeof params), 0);
    ck_assert_uint_eq(tick, s->span_start[0]);
    sim_config cfg = sim_config_default();
    cfg.kind = sim_kind_by_id(kid)->name;
    cfg.seed = seed;
    cfg.params = params;
    cfg.bare = 1;
    int rc;
    sim_world *w = sim_world_create(&cfg, &rc);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(sim_world_load(w, blob, len), 0);
    ck_assert_uint_eq(sim_world_hash(w), s->span_sh[0]);
    sim_frame fr;
    ck_assert_int_eq(sim_world_frame_init(w, &fr), 0);
    size_t k = 0;
    for (uint64_t t = s->span_start[0]; t < s->span_end[0]; t++) {
        for (; k < s->nin && s->in[k].tick == t; k++) ck_assert_int_eq(sim_world_input(w, &s->in[k]), 0);
        sim_world_step(w);
        sim_world_render(w, 0, &fr);
        size_t r = (size_t)(t - s->span_start[0]);
        ck_assert_msg(!rpl_hash_differs(s->sh[r], sim_world_hash(w), s->bits[r]), "state hash of tick %llu",
                      (unsigned long long)(t + 1));
        ck_assert_msg(!rpl_hash_differs(s->fh[r], sim_frame_hash(&fr), s->bits[r]), "frame hash of tick %llu",
                      (unsigned long long)(t + 1));
    }
    ck_assert_uint_eq(k, s->nin);
    sim_frame_free(&fr);
    sim_world_destroy(w);
    free(blob);
}

/* The rows the file holds for session id, against the stream's. Of a session still running,
 * the last row streamed was the last of its open hash block, whole (64 bits); the recorder may
 * have added ticks to that block since, which keeps only its new last tick whole and the others'
 * low RPL_HASH_BITS bits (docs/REPLAY.md, "Recorded hashes"): that row may now be cut, to the
 * same low bits. Any other difference fails. */
static void rows_match_file(const stream *s, const char *db, int64_t id, int running)
{
    rpl_file *f;
    char err[512];
    ck_assert_msg(rpl_open(db, RPL_READ, RPL_DUR_NORMAL, &f, err, sizeof err) == 0, "%s", err);
    rpl_tick_row *rows;
    size_t n;
    ck_assert_int_eq(rpl_ticks_load(f, id, s->start + 1, s->end, &rows, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, s->nrows);
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) {
        const rpl_tick_row *r = &rows[i];
        int same = r->tick == s->start + 1 + i && r->state_hash == s->sh[i] && r->frame_hash == s->fh[i] &&
                   r->bits == s->bits[i];
        int cut = running && i == n - 1 && r->tick == s->start + 1 + i && s->bits[i] == 64 &&
                  r->bits == RPL_HASH_BITS && !rpl_hash_differs(r->state_hash, s->sh[i], r->bits) &&
                  !rpl_hash_differs(r->frame_hash, s->fh[i], r->bits);
        differ += !same && !cut;
    }
    ck_assert_msg(differ == 0, "%zu of %zu streamed rows differ from the file's", differ, n);
    free(rows);
    /* The checkpoint, byte for byte as stored. */
    rpl_session sess;
    ck_assert_int_eq(rpl_session_get(f, id, &sess, err, sizeof err), 0);
    rpl_checkpoint cp;
    uint8_t *stored;
    size_t slen;
    ck_assert_int_eq(rpl_checkpoint_find_stored(f, &sess, s->span_start[0], RPL_AT_OR_BEFORE, &cp, &stored,
                                                &slen, err, sizeof err), 0);
    ck_assert_uint_eq(slen, s->state_len[0]);
    ck_assert_int_eq(memcmp(stored, s->state[0], slen), 0);
    ck_assert_uint_eq(cp.hash, s->span_sh[0]);
    free(stored);
    rpl_checkpoint_free(&cp);
    rpl_close(f);
}

static void stats_queued_max(e2e_peer *p, uint64_t *qmax)
{
    wire_buf b;
    wire_buf_init(&b);
    cli_put_bare(&b, "stats");
    send_msg(&p->c, &b);
    wire_buf_free(&b);
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 5000), 1);
    ck_assert(cli_msg_is(&m, "stats"));
    ck_assert_int_eq(wire_get_u64(&m, "queued_max", qmax), 0);
}

/* ---- the tests ------------------------------------------------------------------------------------ */
START_TEST(a_running_session_is_streamed_whole_and_replays_exactly)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=5:w=64,h=48", NULL }, 0);
    e2e_peer *player = e2e_hello(&fx, "player", PLAYER, NULL);
    e2e_peer *viewer = e2e_hello(&fx, "viewer", NULL, NULL);
    acked log[6];
    for (int i = 0; i < 6; i++) {
        send_paint(&player->c, (uint32_t)(i + 1), 10 + 8 * i, 6, 3, 3 + (i & 1), &log[i], player->client);
        wait_ack(&player->c, &player->t, &log[i]);
    }
    /* sessions: the file vivd records to, with this world's session running. */
    wire_buf b;
    wire_buf_init(&b);
    cli_put_bare(&b, "sessions");
    send_msg(&viewer->c, &b);
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&viewer->c, &viewer->t, &m, 5000), 1);
    ck_assert(cli_msg_is(&m, "sessions"));
    const wire_val *files = wire_msg_get(&m, "files");
    ck_assert(files && files->type == WIRE_ARRAY && files->n == 1);
    char db[160];
    snprintf(db, sizeof db, "%s/replay.db", fx.sv.dir);
    ck_assert_ptr_nonnull(memmem(files->raw, files->rawlen, db, strlen(db)));
    ck_assert_ptr_nonnull(memmem(files->raw, files->rawlen, "running", 7));
    ck_assert_ptr_nonnull(memmem(files->raw, files->rawlen, "\xa9recording\xc3", 11));   /* true */
    /* replay of session 1 (the file vivd records to: no file named). */
    stream s;
    memset(&s, 0, sizeof s);
    send_replay(&viewer->c, 1, NULL);
    stream_recv(&viewer->c, &viewer->t, &s, 20000);
    ck_assert_msg(s.ended, "the stream did not end with replay_end: %s %s", s.error, s.why);
    /* running: no checkpoint at its last tick yet (vivd's suspend writes one), so no end_sh */
    ck_assert_msg(!s.have_end_sh, "end_sh for a running session without a checkpoint at its end");
    ck_assert_str_eq(s.kind, "sand");
    ck_assert_str_eq(s.status, "running");
    ck_assert_str_eq(s.file, db);
    ck_assert_uint_eq(s.seed, 5);
    ck_assert_uint_ge(s.end, log[5].tick + 1);
    ck_assert_uint_eq(s.ticks, s.end - s.start);
    ck_assert_uint_eq(s.nrows, s.ticks);
    ck_assert_uint_eq(s.state_got[0], s.state_len[0]);
    /* Every acked input, at the tick its ack named. */
    ck_assert_uint_eq(s.nin, 6);
    for (int i = 0; i < 6; i++) {
        ck_assert_uint_eq(s.in[i].tick, log[i].tick);
        ck_assert_uint_eq(s.in[i].client, player->client);
        ck_assert_uint_eq(s.in[i].seq, log[i].seq);
        ck_assert_int_eq(memcmp(s.in[i].args, log[i].in.args, 4 * sizeof(int32_t)), 0);
    }
    rows_match_file(&s, db, 1, 1);
    replay_stream_checks(&s);
    ck_assert_uint_le(s.biggest, WIRE_MAX_SERVER_MSG);
    /* The connection goes on: a second stream, of what the session has become since. */
    stream s2;
    memset(&s2, 0, sizeof s2);
    send_replay(&viewer->c, 1, db);
    stream_recv(&viewer->c, &viewer->t, &s2, 20000);
    ck_assert(s2.ended);
    ck_assert_uint_ge(s2.end, s.end);
    stream_free(&s);
    stream_free(&s2);
    wire_buf_free(&b);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

static void bad_replay(e2e_peer *p, const char *code, int nfields, ...)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, (uint32_t)nfields + 1);
    put_kv_str(&b, "t", "replay");
    va_list ap;
    va_start(ap, nfields);
    for (int i = 0; i < nfields; i++) {
        const char *k = va_arg(ap, const char *), *kind = va_arg(ap, const char *);
        wire_put_str(&b, k);
        if (strcmp(kind, "int") == 0) wire_put_int(&b, va_arg(ap, long long));
        else wire_put_str(&b, va_arg(ap, const char *));
    }
    va_end(ap);
    wire_msg_end(&b);
    expect_error_msg(&p->c, &p->t, &b, code);
    wire_buf_free(&b);
}

START_TEST(bad_requests_get_error_codes_and_the_connection_goes_on)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=1:w=32,h=32", "cycle:seed=2", NULL }, 0);
    e2e_peer *v = e2e_hello(&fx, "viewer", NULL, NULL);
    usleep(200 * 1000);
    bad_replay(v, "missing_field", 0);
    bad_replay(v, "bad_field", 1, "session", "int", 0LL);
    bad_replay(v, "bad_field", 1, "session", "int", -3LL);
    bad_replay(v, "bad_field", 1, "session", "str", "1");
    bad_replay(v, "bad_field", 2, "session", "int", 1LL, "file", "int", 7LL);
    bad_replay(v, "unknown_file", 2, "session", "int", 1LL, "file", "str", "/etc/passwd");
    bad_replay(v, "unknown_session", 1, "session", "int", 99LL);
    /* The sentence names the sessions the file holds. */
    wire_buf b;
    wire_buf_init(&b);
    send_replay(&v->c, 4242, NULL);
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 5000), 1);
    cli_error e;
    cli_error_read(&m, "", &e);
    ck_assert_msg(wire_str_eq((const uint8_t *)e.code, e.code_len, "unknown_session"), "%.*s", (int)e.code_len, e.code);
    ck_assert_msg(memmem(e.msg, e.msg_len, "session 4242 not found", 22) && memmem(e.msg, e.msg_len, "(sessions: 1, 2)", 16),
                  "%.*s", (int)e.msg_len, e.msg);
    /* Two requests in one write: the second finds the first still streaming. */
    for (int i = 0; i < 2; i++) {
        wire_msg_begin(&b);
        wire_put_map(&b, 2);
        put_kv_str(&b, "t", "replay");
        wire_put_str(&b, "session");
        wire_put_int(&b, 2);
        wire_msg_end(&b);
    }
    ck_assert_int_eq(cli_send(&v->c, &b), 0);
    wire_buf_reset(&b);
    stream s;
    memset(&s, 0, sizeof s);
    stream_recv(&v->c, &v->t, &s, 10000);
    ck_assert_str_eq(s.error, "replay_busy");
    memset(&s, 0, sizeof s);
    stream_recv(&v->c, &v->t, &s, 10000);
    ck_assert_msg(s.ended, "the first stream went on to its end: %s", s.why);
    ck_assert_str_eq(s.kind, "cycle");
    stream_free(&s);
    /* Still greeted and served. */
    cli_put_bare(&b, "ping");
    send_msg(&v->c, &b);
    ck_assert_int_eq(recv_until_not_frame(&v->c, &v->t, &m, 5000), 1);
    ck_assert(cli_msg_is(&m, "pong"));
    /* Before hello, like every message but hello. */
    cli_conn raw;
    char err[256];
    ck_assert_int_eq(cli_connect(&raw, fx.sv.addr, err, sizeof err), 0);
    tracker t;
    memset(&t, 0, sizeof t);
    wire_msg_begin(&b);
    wire_put_map(&b, 1);
    put_kv_str(&b, "t", "sessions");
    wire_msg_end(&b);
    expect_error_msg(&raw, &t, &b, "hello_first");
    cli_close(&raw);
    wire_buf_free(&b);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

/* Bytes the kernel holds between vivd and the client on fd: vivd's socket's send queue (from
 * /proc/net/tcp: sent or not, not yet acknowledged) and what fd has received but not read. */
static long kernel_bytes(int fd, const char *vivd_addr)
{
    struct sockaddr_in me;
    socklen_t len = sizeof me;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&me, &len), 0);
    unsigned vport = (unsigned)atoi(strrchr(vivd_addr, ':') + 1), cport = ntohs(me.sin_port);
    int rx = 0;
    ck_assert_int_eq(ioctl(fd, FIONREAD, &rx), 0);
    FILE *fp = fopen("/proc/net/tcp", "r");
    ck_assert_ptr_nonnull(fp);
    char line[512];
    long tx = -1;
    while (fgets(line, sizeof line, fp)) {
        unsigned lport, rport;
        unsigned long txq, rxq;
        if (sscanf(line, " %*d: %*8x:%4x %*8x:%4x %*2x %lx:%lx", &lport, &rport, &txq, &rxq) == 4 &&
            lport == vport && rport == cport)
            tx = (long)txq;
    }
    fclose(fp);
    ck_assert_msg(tx >= 0, "vivd's end of the connection is not in /proc/net/tcp");
    return tx + rx;
}

#define LONG_TICKS 20000
#define LONG_INPUTS 80

START_TEST(a_client_that_stops_reading_is_sent_only_what_it_takes)
{
    char dir[] = "/tmp/vivrs.XXXXXX", db[128], cmd[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/long.db", dir);
    const char *bin = getenv("VIV_BIN");
    /* 20,000 ticks with 80 inputs each: a stream of about 20 MB, several times what the kernel's
     * socket buffers hold (Linux grows a loopback send buffer up to tcp_wmem's 4 MiB), so that
     * vivd's own queue is what would fill if it did not wait for the client. */
    char inputs[160];
    snprintf(inputs, sizeof inputs, "%s/inputs.txt", dir);
    FILE *fp = fopen(inputs, "w");
    ck_assert_ptr_nonnull(fp);
    for (int t = 0; t < LONG_TICKS; t++)
        for (int i = 0; i < LONG_INPUTS; i++) fprintf(fp, "%d speed %d\n", t, 100 + i % 3);
    ck_assert_int_eq(fclose(fp), 0);
    snprintf(cmd, sizeof cmd, "%s/viv sim --world cycle --seed 3 --params w=160,h=90 --ticks %d "
             "--inputs %s --record %s >/dev/null 2>&1", bin ? bin : "../bin", LONG_TICKS, inputs, db);
    ck_assert_int_eq(system(cmd), 0);
    long wmem_max = 4 << 20;
    if ((fp = fopen("/proc/sys/net/ipv4/tcp_wmem", "r"))) {
        if (fscanf(fp, "%*d %*d %ld", &wmem_max) != 1) wmem_max = 4 << 20;
        fclose(fp);
    }
    static e2e_fixture fx;
    e2e_fixture_start_args(&fx, (const char *const[]){ "sand:seed=2:w=64,h=48", NULL },
                           (const char *const[]){ "--play", db, NULL }, 0, 0);
    e2e_peer *good = e2e_hello(&fx, "good", NULL, NULL);
    e2e_peer *slow = e2e_hello(&fx, "stops-reading", NULL, NULL);
    /* A small receive buffer: the client's side holds next to nothing. */
    int small = 4096;
    setsockopt(slow->c.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    e2e_sub(good, 1, 1, NULL, NULL);
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 500), 0);
    send_replay(&slow->c, 1, db);
    /* 4 s of not reading: the viewer beside it gets every frame, and vivd holds little for it. */
    double t0 = now_s();
    while (now_s() - t0 < 4.0) ck_assert_int_eq(recv_until_not_frame(&good->c, &good->t, &m, 50), 0);
    uint64_t q0;
    stats_queued_max(good, &q0);
    long held = (long)q0 + kernel_bytes(slow->c.fd, fx.sv.addr);
    ck_assert_int_eq(good->t.gaps, 0);
    ck_assert_int_gt(good->t.count[1], 150);
    /* vivd's queue: at most the low-water mark plus one message (a piece of a state: 128 KiB at
     * most), under the soft limit. All it made for the client (that queue and what the kernel
     * holds: the client read nothing) is what the socket takes, not the stream: it stopped. */
    ck_assert_msg(q0 < 256 * 1024, "vivd holds %llu bytes for a client that stopped reading", (unsigned long long)q0);
    ck_assert_msg(held <= wmem_max + 512 * 1024, "vivd made %ld bytes for a client that read none (the "
                  "kernel takes at most %ld)", held, wmem_max);
    /* It reads again for 3 s (a 4 KiB window closed for seconds reopens slowly on Linux: a little
     * of the stream), in order from its start. */
    stream s;
    memset(&s, 0, sizeof s);
    t0 = now_s();
    char err[256];
    while (now_s() - t0 < 3.0) {
        const uint8_t *body;
        size_t len;
        int rc = cli_recv(&slow->c, 100, &body, &len, err, sizeof err);
        ck_assert_msg(rc >= 0, "receive: %s", err);
        if (rc == 0) continue;
        ck_assert_int_eq(wire_msg_decode(body, len, &m), 0);
        ck_assert_int_eq(stream_take(&s, &m, len), 0);
    }
    ck_assert_str_eq(s.kind, "cycle");
    ck_assert_uint_eq(s.state_got[0], s.state_len[0]);
    ck_assert_uint_gt(s.nrows, 0);
    stream_free(&s);
    e2e_close(slow);
    /* The one that left holds no stream once vivd has seen it go: 4 may run at once, and these 4
     * all start (one may find the slot still taken for a moment, and asks again). The first reads
     * at full speed: the whole recording, exact; the others leave after its info. */
    e2e_peer *more[4];
    memset(&s, 0, sizeof s);
    for (int i = 0; i < 4; i++) {
        more[i] = e2e_hello(&fx, "reader", NULL, NULL);
        for (t0 = now_s();; usleep(50 * 1000)) {
            send_replay(&more[i]->c, 1, db);
            ck_assert_int_eq(recv_until_not_frame(&more[i]->c, &more[i]->t, &m, 10000), 1);
            if (cli_msg_is(&m, "replay_info")) break;
            cli_error e;
            cli_error_read(&m, "", &e);
            ck_assert_msg(wire_str_eq((const uint8_t *)e.code, e.code_len, "replay_busy") && now_s() - t0 < 5.0,
                          "reader %d: %.*s: %.*s", i, (int)e.code_len, e.code, (int)e.msg_len, e.msg);
        }
        if (i == 0) stream_take(&s, &m, 0);
    }
    for (int i = 1; i < 4; i++) e2e_close(more[i]);
    stream_recv(&more[0]->c, &more[0]->t, &s, 60000);
    ck_assert_msg(s.ended, "no replay_end: %s %s", s.error, s.why);
    ck_assert_uint_eq(s.nrows, LONG_TICKS);
    ck_assert_uint_eq(s.nin, (size_t)LONG_TICKS * LONG_INPUTS);
    rows_match_file(&s, db, 1, 0);
    ck_assert_msg((long)s.bytes > 3 * held, "a %zu-byte stream (%ld held)", s.bytes, held);
    ck_assert_uint_le(s.biggest, WIRE_MAX_SERVER_MSG);
    stream_free(&s);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(the_page_sim_module_is_served_as_application_wasm)
{
    const char *bin = getenv("VIV_BIN");
    char path[512];
    snprintf(path, sizeof path, "%s/vivarium.wasm", bin ? bin : "../bin");
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp, "%s is not built (make wasm)", path);
    uint8_t *want = malloc(4 << 20);                 /* on the heap: see e2e.h */
    ck_assert_ptr_nonnull(want);
    size_t n = fread(want, 1, 4 << 20, fp);
    fclose(fp);
    ck_assert_uint_gt(n, 1000);
    static e2e_fixture fx;
    e2e_fixture_start_args(&fx, (const char *const[]){ "sand:seed=1:w=32,h=32", NULL },
                           (const char *const[]){ "--wasm", path, NULL }, 0, E2E_NO_RECORD);
    http_reply r;
    char err[256];
    ck_assert_msg(http_get(fx.sv.http, "/vivarium.wasm", &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.content_type, "application/wasm");
    ck_assert_uint_eq(r.body_len, n);
    ck_assert_int_eq(memcmp(r.body, want, n), 0);
    free(want);
    ck_assert_msg(strcasestr(r.headers, "\r\ncontent-security-policy: default-src 'none'; script-src 'self' 'wasm-unsafe-eval'"),
                  "no policy allowing WebAssembly:\n%s", r.headers);
    ck_assert_ptr_nonnull(strcasestr(r.headers, "\r\nx-content-type-options: nosniff"));
    http_reply_free(&r);
    /* That path alone: nothing else of the binary's folder. */
    static const char *const others[] = { "/vivarium.wasm/vivd", "/vivarium.wasm/", "/vivarium.wasmx", "/vivd", "/viv" };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        ck_assert_msg(http_get(fx.sv.http, others[i], &r, err, sizeof err) == 0, "%s", err);
        ck_assert_msg(r.status == 404, "GET %s: %d", others[i], r.status);
        http_reply_free(&r);
    }
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
    /* Without the module: 404, and vivd says what to build. */
    e2e_fixture_start_args(&fx, (const char *const[]){ "sand:seed=1:w=32,h=32", NULL },
                           (const char *const[]){ "--wasm", "/nonexistent/vivarium.wasm", NULL }, 0,
                           E2E_NO_RECORD | E2E_LOG);
    ck_assert_msg(http_get(fx.sv.http, "/vivarium.wasm", &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.status, 404);
    http_reply_free(&r);
    ck_assert_int_eq(e2e_fixture_stop_keep(&fx), 0);
    char log[160];
    snprintf(log, sizeof log, "%s/vivd.log", fx.sv.dir);
    ck_assert(file_contains(log, "the page's sim module is not there: /nonexistent/vivarium.wasm is missing (make wasm"));
    server_cleanup(&fx.sv);
}
END_TEST

Suite *suite_replay_stream(void)
{
    Suite *s = suite_create("replay_stream");
    TCase *tc = tcase_create("replay_stream");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_running_session_is_streamed_whole_and_replays_exactly);
    tcase_add_test(tc, bad_requests_get_error_codes_and_the_connection_goes_on);
    tcase_add_test(tc, the_page_sim_module_is_served_as_application_wasm);
    suite_add_tcase(s, tc);
    TCase *slow = tcase_create("replay_stream_slow");
    tcase_set_tags(slow, "slow");
    tcase_set_timeout(slow, 120);
    tcase_add_test(slow, a_client_that_stops_reading_is_sent_only_what_it_takes);
    suite_add_tcase(s, slow);
    return s;
}
