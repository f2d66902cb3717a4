/* cli_common.c — the inputs-file reader shared by viv's subcommands (their options: opt/opt.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static int cmp_tick(const void *a, const void *b)
{
    const sim_input *x = a, *y = b;
    if (x->tick != y->tick) return x->tick < y->tick ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int cli_inputs_load(const char *path, const sim_world *w, cli_inputs *out)
{
    const sim_kind *k = sim_world_kind(w);
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "%s: cannot open inputs file: %s\n", path, strerror(errno));
        return -1;
    }
    char line[1024], err[256];
    unsigned lineno = 0;
    int rc = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(fp)) {
            fprintf(stderr, "%s:%u: line is longer than %zu bytes\n", path, lineno,
                    sizeof line - 2);
            rc = -1;
            break;
        }
        sim_input in;
        int r = sim_input_parse_line(k, line, &in, err, sizeof err);
        if (r == 1) continue;
        if (r == 0) {
            in.client = 0;
            in.seq = lineno;
            r = sim_world_check_input(w, &in);
            if (r) snprintf(err, sizeof err, "%s", sim_world_error(w));
        }
        if (r) {
            fprintf(stderr, "%s:%u: %s\n", path, lineno, err);
            rc = -1;
            break;
        }
        if (out->n == out->cap) {
            size_t nc = out->cap ? out->cap * 2 : 64;
            sim_input *nv = realloc(out->v, nc * sizeof *nv);
            if (!nv) {
                fprintf(stderr, "%s: out of memory\n", path);
                rc = -1;
                break;
            }
            out->v = nv;
            out->cap = nc;
        }
        out->v[out->n++] = in;
    }
    if (rc == 0 && ferror(fp)) {
        fprintf(stderr, "%s: read error: %s\n", path, strerror(errno));
        rc = -1;
    }
    fclose(fp);
    if (rc) {
        cli_inputs_free(out);
        return rc;
    }
    if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp_tick);
    return 0;
}

void cli_inputs_free(cli_inputs *in)
{
    free(in->v);
    memset(in, 0, sizeof *in);
}


int cli_event_line(const sim_event *e, char *out, size_t cap)
{
    int n = snprintf(out, cap, "event %llu %s", (unsigned long long)e->tick, e->name);
    for (int i = 0; i < e->nfields && n >= 0; i++) {
        const sim_event_field *f = &e->f[i];
        size_t at = (size_t)n < cap ? (size_t)n : cap;
        int k = f->str ? snprintf(out + at, cap - at, " %s=%s", f->key, f->str)
                       : snprintf(out + at, cap - at, " %s=%lld", f->key, (long long)f->num);
        n = k < 0 ? k : n + k;
    }
    return n;
}
