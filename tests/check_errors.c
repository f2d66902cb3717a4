/* check_errors.c — the one error space (sim/errors.h, sim/errors.c): every folder's codes in a
 * range of its own that no other range overlaps, every code with a sentence of its own, an unknown
 * code said to be one; and, at the seams between layers, a code that arrives in the space of the
 * function that returns it. */
#include <check.h>
#include <limits.h>
#include <string.h>
#include "check_suites.h"
#include "host.h"
#include "net.h"
#include "files.h"
#include "replay.h"

/* The list as errors.h writes it. */
typedef struct code_row {
    const char *name;
    int value;
    const char *sentence;
} code_row;
typedef struct range_row {
    int first, last;                   /* first > last: -101 .. -199 */
    const char *prefix;
} range_row;

static const code_row codes[] = {
#define SIM_ERROR_RANGE(first, last, prefix)
#define SIM_ERROR(name, value, sentence) { #name, name, sentence },
#include "errors.h"
#undef SIM_ERROR
#undef SIM_ERROR_RANGE
};
static const range_row ranges[] = {
#define SIM_ERROR_RANGE(first, last, prefix) { first, last, prefix },
#define SIM_ERROR(name, value, sentence)
#include "errors.h"
#undef SIM_ERROR
#undef SIM_ERROR_RANGE
};
#define NCODES (sizeof codes / sizeof codes[0])
#define NRANGES (sizeof ranges / sizeof ranges[0])

static int in_range(const range_row *r, int v) { return v <= r->first && v >= r->last; }

START_TEST(ranges_do_not_overlap)
{
    ck_assert_uint_ge(NRANGES, 7);     /* sim, server, replay, three of wire, clients */
    for (size_t i = 0; i < NRANGES; i++) {
        const range_row *a = &ranges[i];
        ck_assert_msg(a->first < 0 && a->last <= a->first, "range %s is %d..%d", a->prefix,
                      a->first, a->last);
        for (size_t k = i + 1; k < NRANGES; k++) {
            const range_row *b = &ranges[k];
            ck_assert_msg(a->last > b->first || b->last > a->first, "%s %d..%d overlaps %s %d..%d",
                          a->prefix, a->first, a->last, b->prefix, b->first, b->last);
            /* A code's name picks its range: no prefix may start another. */
            ck_assert_msg(strncmp(a->prefix, b->prefix, strlen(a->prefix)) != 0 &&
                          strncmp(b->prefix, a->prefix, strlen(b->prefix)) != 0,
                          "prefixes %s and %s", a->prefix, b->prefix);
        }
    }
}
END_TEST

START_TEST(every_code_is_in_its_folders_range)
{
    ck_assert_uint_ge(NCODES, 40);
    for (size_t i = 0; i < NCODES; i++) {
        const range_row *mine = NULL;
        for (size_t k = 0; k < NRANGES; k++)
            if (strncmp(codes[i].name, ranges[k].prefix, strlen(ranges[k].prefix)) == 0) {
                ck_assert_msg(!mine, "%s has two ranges", codes[i].name);
                mine = &ranges[k];
            }
        ck_assert_msg(mine != NULL, "%s has no range", codes[i].name);
        ck_assert_msg(in_range(mine, codes[i].value), "%s is %d, outside %s's %d..%d",
                      codes[i].name, codes[i].value, mine->prefix, mine->first, mine->last);
        for (size_t k = 0; k < NRANGES; k++)
            if (&ranges[k] != mine)
                ck_assert_msg(!in_range(&ranges[k], codes[i].value), "%s (%d) is in %s's range",
                              codes[i].name, codes[i].value, ranges[k].prefix);
        for (size_t k = i + 1; k < NCODES; k++)
            ck_assert_msg(codes[i].value != codes[k].value, "%s and %s are both %d", codes[i].name,
                          codes[k].name, codes[i].value);
    }
}
END_TEST

START_TEST(every_code_has_a_sentence_of_its_own)
{
    for (size_t i = 0; i < NCODES; i++) {
        const char *s = sim_strerror(codes[i].value);
        ck_assert_ptr_nonnull(s);
        ck_assert_str_eq(s, codes[i].sentence);
        /* Not a generic word: the sentence says what kind of failure it is. */
        ck_assert_msg(strchr(s, ' ') != NULL, "%s: '%s'", codes[i].name, s);
        ck_assert_msg(strcmp(s, "unknown error") != 0 && strcmp(s, "ok") != 0, "%s: '%s'",
                      codes[i].name, s);
        for (size_t k = i + 1; k < NCODES; k++)
            ck_assert_msg(strcmp(s, sim_strerror(codes[k].value)) != 0, "%s and %s both say '%s'",
                          codes[i].name, codes[k].name, s);
    }
}
END_TEST

START_TEST(an_unknown_code_says_so)
{
    ck_assert_str_eq(sim_strerror(0), "ok");
    static const int outside[] = { 1, 7, -100, -200, -300, -330, -360, -400, -500, -999,
                                   INT_MIN, INT_MAX };
    for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
        ck_assert_str_eq(sim_strerror(outside[i]), "unknown error");
    /* Every value of a range that no code has yet. */
    for (size_t k = 0; k < NRANGES; k++)
        for (int v = ranges[k].first; v >= ranges[k].last; v--) {
            int used = 0;
            for (size_t i = 0; i < NCODES; i++) used |= codes[i].value == v;
            if (!used) ck_assert_str_eq(sim_strerror(v), "unknown error");
        }
}
END_TEST

/* What reaches users as it was before the one space: sim/'s sentences (viv, vivd's errors, the
 * web page through vw_strerror) and wire/'s (vivd's "message is not valid: …"); and sim/'s values,
 * which the page compares (clients/web/sim.js, tests/wasm/api.test.mjs). */
START_TEST(what_users_see_is_unchanged)
{
    static const struct { int code, value; const char *sentence; } seen[] = {
        { SIM_EINVAL, -1, "invalid argument" },
        { SIM_ENOMEM, -2, "out of memory" },
        { SIM_EKIND, -3, "unknown world kind" },
        { SIM_EPARAM, -4, "bad world params" },
        { SIM_EINPUT, -5, "bad input" },
        { SIM_ETICK, -6, "input is not for the next tick" },
        { SIM_EFULL, -7, "input queue full for this tick" },
        { SIM_EMAGIC, -8, "not a saved Vivarium world" },
        { SIM_EVERSION, -9, "saved by an unsupported format or state version" },
        { SIM_EWRONGKIND, -10, "saved state belongs to another world kind" },
        { SIM_ETRUNC, -11, "saved state is truncated or has the wrong length" },
        { SIM_ECORRUPT, -12, "saved state is corrupt" },
        { SIM_ENOSPC, -13, "buffer too small" },
        { SIM_EDUP, -14, "duplicate input (client, seq)" },
        { SIM_EFILE, -15, "the file the world is built from cannot be used" },
        { WIRE_EMSGPACK, WIRE_EMSGPACK, "malformed msgpack: truncated, a length or count larger "
          "than the message, an unused type byte (0xc1), or bytes after the value" },
        { WIRE_ENOTMAP, WIRE_ENOTMAP, "a message must be a msgpack map of string keys to values" },
        { WIRE_ETOOMANY, WIRE_ETOOMANY,
          "a message map must have at most 24 keys, all of them strings" },
        { WIRE_EDEPTH, WIRE_EDEPTH, "msgpack nested deeper than 8 arrays/maps" },
    };
    for (size_t i = 0; i < sizeof seen / sizeof seen[0]; i++) {
        ck_assert_int_eq(seen[i].code, seen[i].value);
        ck_assert_str_eq(sim_strerror(seen[i].code), seen[i].sentence);
    }
}
END_TEST

/* ---- the seams ------------------------------------------------------------------------------ */
/* A "frame" message body of a w×h raw frame of index 0 (decoded into *m, pointing into b). */
static void frame_msg(wire_buf *b, wire_msg *m, int key, int with_pal, uint64_t fh)
{
    static const uint8_t px[4], pal[3] = { 10, 20, 30 };
    wire_buf_reset(b);
    wire_put_map(b, 10 + (uint32_t)with_pal);
    wire_put_str(b, "world"); wire_put_uint(b, 1);
    wire_put_str(b, "tick"); wire_put_uint(b, 5);
    wire_put_str(b, "key"); wire_put_bool(b, key);
    wire_put_str(b, "w"); wire_put_uint(b, 2);
    wire_put_str(b, "h"); wire_put_uint(b, 2);
    wire_put_str(b, "pv"); wire_put_uint(b, 1);
    wire_put_str(b, "fh"); wire_put_uint(b, fh);
    wire_put_str(b, "sh"); wire_put_uint(b, 0);
    wire_put_str(b, "enc"); wire_put_str(b, "raw");
    wire_put_str(b, "data"); wire_put_bin(b, px, sizeof px);
    if (with_pal) {
        wire_put_str(b, "pal");
        wire_put_bin(b, pal, sizeof pal);
    }
    ck_assert_int_eq(wire_msg_decode(b->p, b->len, m), WIRE_OK);
}

/* The client library reads a frame with wire/'s reader and says so: its codes are wire/'s, each
 * named as such (it passed them off as CLI_E… codes of the same numbers before). */
START_TEST(a_frame_read_by_a_client_gives_wire_codes)
{
    sim_frame f;
    ck_assert_int_eq(sim_frame_init(&f, 2, 2), 0);
    f.pal.count = 1;
    f.pal.rgb[0] = 10;
    f.pal.rgb[1] = 20;
    f.pal.rgb[2] = 30;
    uint64_t good = sim_frame_hash(&f);
    sim_frame_free(&f);

    wire_buf b;
    wire_buf_init(&b);
    wire_msg m;
    cli_frame cf;
    memset(&cf, 0, sizeof cf);
    char err[160];
    frame_msg(&b, &m, 0, 0, good);
    ck_assert_int_eq(cli_frame_apply(&cf, &m, err, sizeof err), WIRE_FRAME_ENOKEY);
    frame_msg(&b, &m, 1, 0, good);     /* a keyframe without its palette */
    ck_assert_int_eq(cli_frame_apply(&cf, &m, err, sizeof err), WIRE_FRAME_EPROTO);
    ck_assert_str_eq(err, "a keyframe without its palette");
    frame_msg(&b, &m, 1, 1, good ^ 1);
    ck_assert_int_eq(cli_frame_apply(&cf, &m, err, sizeof err), WIRE_FRAME_EHASH);
    ck_assert_str_eq(sim_strerror(WIRE_FRAME_EHASH),
                     "a rebuilt frame does not match its frame hash");
    frame_msg(&b, &m, 1, 1, good);
    ck_assert_int_eq(cli_frame_apply(&cf, &m, err, sizeof err), WIRE_FRAME_OK);
    cli_frame_free(&cf);
    wire_buf_free(&b);
}
END_TEST

/* The host turns a world's failure into its own code, with the world's sentence; a file reader's
 * code (replay/'s RPL_EREAD) stays inside the world, which says SIM_EFILE. */
START_TEST(the_host_translates_a_worlds_codes)
{
    char err[256] = "";
    int rc = 0;
    ck_assert_ptr_null(srv_world_new("no-such-kind", 1, "", 0, &rc, err, sizeof err));
    ck_assert_int_eq(rc, SRV_EKIND);
    ck_assert_ptr_nonnull(strstr(err, "no-such-kind"));

    err[0] = '\0';
    rc = 0;
    ck_assert_ptr_null(srv_world_new("cycle", 1, "scene=file:/nonexistent/scene.lbm", 1, &rc, err,
                                     sizeof err));
    ck_assert_int_eq(rc, SRV_EFILE);
    ck_assert_msg(strstr(err, "cannot open /nonexistent/scene.lbm") != NULL, "said '%s'", err);

    sim_config cfg = sim_config_default();
    cfg.kind = "cycle";
    cfg.params = "scene=file:/nonexistent/scene.lbm";
    cfg.files = &rpl_files;
    sim_world *w = sim_world_create(&cfg, &rc);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(rc, SIM_EFILE);
}
END_TEST

Suite *suite_errors(void)
{
    Suite *s = suite_create("errors");
    TCase *tc = tcase_create("space");
    tcase_add_test(tc, ranges_do_not_overlap);
    tcase_add_test(tc, every_code_is_in_its_folders_range);
    tcase_add_test(tc, every_code_has_a_sentence_of_its_own);
    tcase_add_test(tc, an_unknown_code_says_so);
    tcase_add_test(tc, what_users_see_is_unchanged);
    suite_add_tcase(s, tc);
    tc = tcase_create("seams");
    tcase_add_test(tc, a_frame_read_by_a_client_gives_wire_codes);
    tcase_add_test(tc, the_host_translates_a_worlds_codes);
    suite_add_tcase(s, tc);
    return s;
}
