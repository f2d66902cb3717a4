/* script.c — see script.h. */
#include "script.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define SCRIPT_MAX 4096

script script_load(const char *kind, const char *path)
{
    script s = { 0 };
    const sim_kind *k = sim_kind_find(kind);
    ck_assert_msg(k != NULL, "no world kind '%s'", kind);
    FILE *fp = fopen(path, "r");
    ck_assert_msg(fp != NULL, "cannot open %s (tests run from tests/)", path);
    char line[512], err[256];
    s.v = calloc(SCRIPT_MAX, sizeof *s.v);
    ck_assert_ptr_nonnull(s.v);
    unsigned lineno = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        sim_input x;
        int rc = sim_input_parse_line(k, line, &x, err, sizeof err);
        ck_assert_msg(rc >= 0, "%s:%u: %s", path, lineno, err);
        if (rc == 1) continue;                      /* a blank line or a comment */
        x.seq = lineno;
        ck_assert_msg(s.n < SCRIPT_MAX, "%s: more than %d inputs", path, SCRIPT_MAX);
        s.v[s.n++] = x;
    }
    fclose(fp);
    return s;
}

void script_free(script *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

void script_feed(sim_world *w, const script *s, size_t *next)
{
    while (*next < s->n && s->v[*next].tick == sim_world_tick(w)) {
        ck_assert_msg(sim_world_input(w, &s->v[*next]) == 0, "%s", sim_world_error(w));
        (*next)++;
    }
}

int script_golden(sim_world *w, const script *s, const char *chain, int ticks, int every)
{
    FILE *fp = fopen(chain, "r");
    ck_assert_msg(fp != NULL, "missing %s (tests/golden.sh writes it, only ever on purpose)", chain);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    size_t next = 0;
    int lines = 0;
    for (int t = 1; t <= ticks; t++) {
        script_feed(w, s, &next);
        sim_world_step(w);
        if (t % every) continue;
        sim_world_render(w, 0, &f);
        unsigned long long gt, gsh, gfh;
        ck_assert_msg(fscanf(fp, "%llu %llx %llx", &gt, &gsh, &gfh) == 3, "%s ends early at tick %d",
                      chain, t);
        ck_assert_uint_eq(gt, (unsigned long long)t);
        ck_assert_msg(gsh == sim_world_hash(w), "%s: state hash differs at tick %d", chain, t);
        ck_assert_msg(gfh == sim_frame_hash(&f), "%s: frame hash differs at tick %d", chain, t);
        lines++;
    }
    ck_assert_uint_eq(next, s->n);                  /* every scripted input was applied */
    fclose(fp);
    sim_frame_free(&f);
    return lines;
}
