/* check_opt.c — the option tables (opt/opt.c): values reach their variables in order, a missing
 * value, an unknown option and a bad number get their sentences and stop the parse, and --help
 * is generated from the table. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check_suites.h"
#include "opt.h"

/* ---- a small program to parse for ---------------------------------------------------------- */
typedef struct demo {
    const char *name, *files[4];
    int nfiles, fast, level, stopped;
    uint64_t seed;
    long scale;
    const char *out;
} demo;

static void demo_head(FILE *out) { fprintf(out, "usage: demo [options] FILE...\n\n"); }
static void demo_tail(FILE *out) { fprintf(out, "\nThe end.\n"); }

static int demo_operand(const opt_prog *p, const char *arg)
{
    demo *d = p->ud;
    if (d->nfiles == 4) {
        fprintf(stderr, "%s: four files at most\n", p->who);
        return OPT_BAD;
    }
    d->files[d->nfiles++] = arg;
    return OPT_OK;
}

/* A setter that answers at once, as --version does. */
static int demo_stop(const opt_prog *p, const opt *o, const char *v)
{
    ((demo *)o->ptr)->stopped = 1;
    printf("demo 1.0\n");
    return OPT_DONE;
}

/* The table is built where the variables are, as the programs' are. */
#define DEMO_TABLE(d)                                                                              \
    const opt table[] = {                                                                          \
        OPT_STR("--name", "NAME", &(d)->name, "who it is"),                                        \
        OPT_FLAG("--fast", &(d)->fast, "go fast"),                                                 \
        OPT_SET("--loud", &(d)->level, 3, "log everything,\nand then some more"),                  \
        OPT_U64("--seed", "N", &(d)->seed, "the seed (default 1)"),                                \
        OPT_LONG("--scale", "S", &(d)->scale, 1, 16, "pixel scale, 1..16"),                        \
        OPT_FORM("--scale", "WxH", "another form, shown only"),                                    \
        OPT_FORM("--scale", "WxHxD", "one short of the column: one space"),                        \
        OPT_CALL("--a-very-long-option", "VALUE", demo_stop, (d), "two spaces, then this\nand this"), \
        OPT_CALL("--version", NULL, demo_stop, (d), NULL),                                         \
        { .name = "-o", .arg = "FILE", .help = "only in mode 1", .set = opt_str, .ptr = &(d)->out, \
          .mode = 1 },                                                                             \
        OPT_END                                                                                    \
    }

/* Run opt_parse on a command line of words split at spaces, catching stdout and stderr. */
typedef struct run {
    int rc;
    char out[4096], err[1024];
} run;

static void slurp(FILE *f, char *buf, size_t cap)
{
    rewind(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Catch stdout and stderr in files from begin to end (each test runs in its own process). */
typedef struct catch {
    FILE *o, *e;
    int so, se;
} catch;

static void catch_begin(catch *c)
{
    c->o = tmpfile();
    c->e = tmpfile();
    ck_assert_ptr_nonnull(c->o);
    ck_assert_ptr_nonnull(c->e);
    fflush(stdout);
    fflush(stderr);
    c->so = dup(1);
    c->se = dup(2);
    dup2(fileno(c->o), 1);
    dup2(fileno(c->e), 2);
}

static void catch_end(catch *c, run *r)
{
    fflush(stdout);
    fflush(stderr);
    dup2(c->so, 1);
    dup2(c->se, 2);
    close(c->so);
    close(c->se);
    slurp(c->o, r->out, sizeof r->out);
    slurp(c->e, r->err, sizeof r->err);
}

static run parse_line(const opt_prog *p, const char *line)
{
    static char words[512];
    char *argv[32] = { "demo" };
    int argc = 1;
    snprintf(words, sizeof words, "%s", line);
    for (char *w = strtok(words, " "); w && argc < 31; w = strtok(NULL, " ")) argv[argc++] = w;
    run r;
    catch c;
    catch_begin(&c);
    r.rc = opt_parse(p, argc, argv);
    catch_end(&c, &r);
    return r;
}

static opt_prog demo_prog(const opt *table, demo *d)
{
    memset(d, 0, sizeof *d);
    d->seed = 1;
    d->scale = 1;
    opt_prog p = { .who = "demo", .opts = table, .column = 16, .head = demo_head, .tail = demo_tail,
                   .operand = demo_operand, .ud = d };
    return p;
}

START_TEST(values_reach_their_variables_in_order)
{
    demo d;
    DEMO_TABLE(&d);
    opt_prog p = demo_prog(table, &d);
    run r = parse_line(&p, "--name ann --fast a.db --seed 0x10 --scale 16 --name -bob - --loud");
    ck_assert_int_eq(r.rc, OPT_OK);
    ck_assert_str_eq(r.err, "");
    ck_assert_str_eq(d.name, "-bob");            /* a value may start with '-'; the last one wins */
    ck_assert_int_eq(d.fast, 1);
    ck_assert_int_eq(d.level, 3);
    ck_assert_uint_eq(d.seed, 16);               /* base 0, as strtoull */
    ck_assert_int_eq(d.scale, 16);
    ck_assert_int_eq(d.nfiles, 2);               /* "-" alone is a file */
    ck_assert_str_eq(d.files[0], "a.db");
    ck_assert_str_eq(d.files[1], "-");
    ck_assert_ptr_null(d.out);
}
END_TEST

START_TEST(a_missing_value_is_one_sentence_and_stops)
{
    demo d;
    DEMO_TABLE(&d);
    opt_prog p = demo_prog(table, &d);
    run r = parse_line(&p, "--fast --seed");
    ck_assert_int_eq(r.rc, OPT_BAD);
    ck_assert_int_eq(OPT_EXIT(r.rc), 2);
    ck_assert_str_eq(r.err, "demo: --seed needs a value (see demo --help)\n");
    ck_assert_int_eq(d.fast, 1);                 /* what came before was applied */
    ck_assert_uint_eq(d.seed, 1);
    p.see = "demo main";                         /* a mode's sentences name the program's --help */
    r = parse_line(&p, "--name");
    ck_assert_str_eq(r.err, "demo: --name needs a value (see demo main --help)\n");
}
END_TEST

START_TEST(unknown_options_are_one_sentence_and_stop)
{
    demo d;
    DEMO_TABLE(&d);
    opt_prog p = demo_prog(table, &d);
    static const char *const cases[][2] = {
        { "--bogus --fast", "--bogus" },
        { "--fast -x", "-x" },
        { "--name=ann", "--name=ann" },          /* no --name=value form: none of the programs had one */
        { "--fast=1", "--fast=1" },
        { "-o out.png", "-o" },                  /* a row of another mode */
        { "--", "--" },                          /* no end-of-options marker either */
        { "--bogus --help", "--bogus" },         /* in order: the unknown one comes first */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run r = parse_line(&p, cases[i][0]);
        char want[128];
        snprintf(want, sizeof want, "demo: unknown option '%s' (see demo --help)\n", cases[i][1]);
        ck_assert_int_eq(r.rc, OPT_BAD);
        ck_assert_str_eq(r.err, want);
        ck_assert_str_eq(r.out, "");
    }
    ck_assert_int_eq(d.fast, 1);                 /* only from the case where --fast came first */
    /* Without an operand callback a file is an unknown option too. */
    p.operand = NULL;
    run r = parse_line(&p, "a.db");
    ck_assert_str_eq(r.err, "demo: unknown option 'a.db' (see demo --help)\n");
    /* In mode 1 the mode-1 row is taken and the others are unknown. */
    p.mode = 1;
    r = parse_line(&p, "-o out.png --fast");
    ck_assert_int_eq(r.rc, OPT_BAD);
    ck_assert_str_eq(d.out, "out.png");
    ck_assert_str_eq(r.err, "demo: unknown option '--fast' (see demo --help)\n");
}
END_TEST

START_TEST(bad_numbers_keep_their_sentences)
{
    demo d;
    DEMO_TABLE(&d);
    opt_prog p = demo_prog(table, &d);
    static const char *const cases[][2] = {
        { "--seed -1", "demo: --seed needs a non-negative integer, got '-1'\n" },
        { "--seed 12x", "demo: --seed needs a non-negative integer, got '12x'\n" },
        { "--seed 99999999999999999999", "demo: --seed needs a non-negative integer, got '99999999999999999999'\n" },
        { "--scale 0", "demo: --scale needs an integer in 1..16, got '0'\n" },
        { "--scale 17", "demo: --scale needs an integer in 1..16, got '17'\n" },
        { "--scale 0x4", "demo: --scale needs an integer in 1..16, got '0x4'\n" },   /* base 10 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run r = parse_line(&p, cases[i][0]);
        ck_assert_int_eq(r.rc, OPT_BAD);
        ck_assert_str_eq(r.err, cases[i][1]);
    }
    ck_assert_uint_eq(d.seed, 1);                /* a bad value stores nothing */
    ck_assert_int_eq(d.scale, 1);
    /* An empty value is no number; a negative one is, where the range allows it. */
    uint64_t u = 7;
    long l = 7;
    catch c;
    run q;
    catch_begin(&c);
    ck_assert_int_eq(opt_parse_u64("x", "--n", "", &u), -1);
    ck_assert_int_eq(opt_parse_long("x", "--n", "", 0, 9, &l), -1);
    ck_assert_int_eq(opt_parse_long("x", "--n", "-3", -5, 9, &l), 0);
    catch_end(&c, &q);
    ck_assert_str_eq(q.err, "x: --n needs a non-negative integer, got ''\nx: --n needs an integer in 0..9, got ''\n");
    ck_assert_uint_eq(u, 7);
    ck_assert_int_eq(l, -3);
    /* The program's own setters and operand callback say what is wrong, and stop the parse. */
    run r = parse_line(&p, "a b c d e --fast");
    ck_assert_int_eq(r.rc, OPT_BAD);
    ck_assert_str_eq(r.err, "demo: four files at most\n");
}
END_TEST

START_TEST(a_setter_may_answer_and_stop)
{
    demo d;
    DEMO_TABLE(&d);
    opt_prog p = demo_prog(table, &d);
    run r = parse_line(&p, "--version --bogus");
    ck_assert_int_eq(r.rc, OPT_DONE);
    ck_assert_int_eq(OPT_EXIT(r.rc), 0);
    ck_assert_str_eq(r.out, "demo 1.0\n");
    ck_assert_str_eq(r.err, "");
    ck_assert_int_eq(d.stopped, 1);
}
END_TEST

static const char demo_help[] =
    "usage: demo [options] FILE...\n"
    "\n"
    "  --name NAME   who it is\n"
    "  --fast        go fast\n"
    "  --loud        log everything,\n"
    "                and then some more\n"
    "  --seed N      the seed (default 1)\n"
    "  --scale S     pixel scale, 1..16\n"
    "  --scale WxH   another form, shown only\n"
    "  --scale WxHxD one short of the column: one space\n"
    "  --a-very-long-option VALUE  two spaces, then this\n"
    "                and this\n"
    "  -o FILE       only in mode 1\n"
    "\n"
    "The end.\n";

START_TEST(help_comes_from_the_table)
{
    demo d;
    DEMO_TABLE(&d);
    opt_prog p = demo_prog(table, &d);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    opt_help(&p, f);
    fclose(f);
    ck_assert_str_eq(buf, demo_help);            /* --version has no help: not shown */
    free(buf);
    /* --help and -h print it to stdout wherever they come, after what came before. */
    run r = parse_line(&p, "--fast --help --bogus");
    ck_assert_int_eq(r.rc, OPT_DONE);
    ck_assert_str_eq(r.out, demo_help);
    ck_assert_str_eq(r.err, "");
    ck_assert_int_eq(d.fast, 1);
    r = parse_line(&p, "-h");
    ck_assert_int_eq(r.rc, OPT_DONE);
    ck_assert_str_eq(r.out, demo_help);
}
END_TEST

START_TEST(list_options_gives_the_table)
{
    demo d;
    DEMO_TABLE(&d);
    opt_prog p = demo_prog(table, &d);
    run r = parse_line(&p, "--list-options");
    ck_assert_int_eq(r.rc, OPT_DONE);
    /* every row that parses in this mode: not the form, not the mode-1 row */
    ck_assert_str_eq(r.out, "--name value shown\n--fast flag shown\n--loud flag shown\n--seed value shown\n"
                            "--scale value shown\n--a-very-long-option value shown\n--version flag hidden\n");
    p.mode = 1;
    r = parse_line(&p, "--list-options");
    ck_assert_str_eq(r.out, "-o value shown\n");
}
END_TEST

Suite *suite_opt(void)
{
    Suite *s = suite_create("opt");
    TCase *tc = tcase_create("opt");
    tcase_add_test(tc, values_reach_their_variables_in_order);
    tcase_add_test(tc, a_missing_value_is_one_sentence_and_stops);
    tcase_add_test(tc, unknown_options_are_one_sentence_and_stop);
    tcase_add_test(tc, bad_numbers_keep_their_sentences);
    tcase_add_test(tc, a_setter_may_answer_and_stop);
    tcase_add_test(tc, help_comes_from_the_table);
    tcase_add_test(tc, list_options_gives_the_table);
    suite_add_tcase(s, tc);
    return s;
}
