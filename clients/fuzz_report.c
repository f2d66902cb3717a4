/* fuzz_report.c — `viv fuzz --report`'s JSON (docs/FUZZ.md): the writer the campaign streams
 * into, a small strict JSON reader for reading reports back, and the merge of shards.
 *
 * The layout is fixed so that two reports of one campaign compare as text once the "seconds" line
 * (the only timing) is set aside: one top-level key a line, one session a line, keys in one order,
 * integers in decimal. The reader accepts any JSON with the same content (keys in any order,
 * any spacing), so a report that passed through jq still merges. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ci_report.h"
#include "fuzz_report.h"

static const char *const result_names[] = { "identical", "diverged", "error" };

const char *cli_fuzz_result_name(int result)
{
    return result >= 0 && result <= CLI_FUZZ_ERROR ? result_names[result] : "?";
}

/* ---- JUnit ---------------------------------------------------------------------------------------- */
static const char *way_name(int way)
{
    return way == 2 ? "the replay of its recording" : way == 3 ? "the sync test"
         : way == 4 ? "an invalid input took effect" : "?";
}

int cli_fuzz_junit_session(struct ci_junit *j, uint64_t campaign_seed, const char *case_path,
                           const cli_fuzz_session *s, double seconds)
{
    char cls[64], name[SIM_PARAMS_MAX + 4300], msg[1024], first[768];
    char *text = NULL;
    const char *params = s->params[0] ? s->params : "(default)";
    const char *repro = case_path ? case_path : s->case_file;
    if (case_path) {
        snprintf(cls, sizeof cls, "viv fuzz --case");
        snprintf(name, sizeof name, "case %.4096s: %s seed=%llu params=%s ticks=%llu", case_path, s->kind,
                 (unsigned long long)s->seed, params, (unsigned long long)s->ticks);
    } else {
        snprintf(cls, sizeof cls, "viv fuzz seed %llu", (unsigned long long)campaign_seed);
        snprintf(name, sizeof name, "session %llu: %s seed=%llu params=%s", (unsigned long long)s->index,
                 s->kind, (unsigned long long)s->seed, params);
    }
    if (s->result == CLI_FUZZ_IDENTICAL) return ci_junit_case(j, cls, name, seconds, CI_PASS, NULL, NULL, NULL);
    if (s->result == CLI_FUZZ_ERROR)
        return ci_junit_case(j, cls, name, seconds, CI_ERROR, "error", s->why, s->why);
    ci_first_lines(s->why, 6, first, sizeof first);
    snprintf(msg, sizeof msg, "DIVERGED (way %d, %s) at tick %llu: %s", s->way, way_name(s->way),
             (unsigned long long)s->tick, first);
    size_t tcap = strlen(s->why) + strlen(repro) + 64;
    if (repro[0] && (text = malloc(tcap)))
        snprintf(text, tcap, "%s\nreproduce with: viv fuzz --case %s\n", s->why, repro);
    int rc = ci_junit_case(j, cls, name, seconds, CI_FAIL, "divergence", msg, text ? text : s->why);
    free(text);
    return rc;
}

/* ---- writing -------------------------------------------------------------------------------------- */
struct cli_fuzz_writer {
    FILE *fp;
    int to_stdout;
    char path[4096], tmp[4200];
    uint64_t n, ticks, inputs, refused;
};

static void put_u64_or_null(FILE *fp, uint64_t v, uint64_t none)
{
    if (v == none) fputs("null", fp);
    else fprintf(fp, "%llu", (unsigned long long)v);
}

cli_fuzz_writer *cli_fuzz_report_open(const char *path, const cli_fuzz_campaign *c, uint64_t shard,
                                      uint64_t shards, char *err, size_t errlen)
{
    cli_fuzz_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        w->fp = stdout;
        w->to_stdout = 1;
    } else {
        snprintf(w->path, sizeof w->path, "%s", path);
        snprintf(w->tmp, sizeof w->tmp, "%s.tmp", path);
        if (!(w->fp = fopen(w->tmp, "w"))) {
            snprintf(err, errlen, "cannot write the report %s: %s", w->tmp, strerror(errno));
            free(w);
            return NULL;
        }
    }
    FILE *fp = w->fp;
    fprintf(fp, "{\n  \"report\": \"viv fuzz\",\n  \"version\": %d,\n", CLI_FUZZ_REPORT_VERSION);
    fprintf(fp, "  \"campaign\": {\"seed\": %llu, \"sessions\": ", (unsigned long long)c->seed);
    put_u64_or_null(fp, c->sessions, UINT64_MAX);
    fprintf(fp, ", \"ticks\": %llu, \"budget_seconds\": ", (unsigned long long)c->ticks);
    put_u64_or_null(fp, c->budget, 0);
    fputs(", \"kinds\": [", fp);
    const char *k = c->kinds;
    for (int first = 1; *k; first = 0) {
        size_t l = strcspn(k, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(l < 63 ? l : 63), k);
        if (!first) fputs(", ", fp);
        ci_json_str(fp, name);
        k += l;
        if (*k == ',') k++;
    }
    fprintf(fp, "], \"recorded\": %s, \"fault\": %llu, \"sim\": ", c->recorded ? "true" : "false",
            (unsigned long long)c->fault);
    ci_json_str(fp, c->sim);
    fprintf(fp, "},\n  \"slice\": \"%llu/%llu\",\n  \"sessions\": [", (unsigned long long)shard,
            (unsigned long long)shards);
    return w;
}

int cli_fuzz_report_session(cli_fuzz_writer *w, const cli_fuzz_session *s)
{
    FILE *fp = w->fp;
    fprintf(fp, "%s\n    {\"index\": %llu, \"kind\": ", w->n ? "," : "", (unsigned long long)s->index);
    ci_json_str(fp, s->kind);
    fprintf(fp, ", \"seed\": %llu, \"params\": ", (unsigned long long)s->seed);
    ci_json_str(fp, s->params);
    fprintf(fp, ", \"ticks\": %llu, \"inputs\": %llu, \"refused\": %llu, \"result\": \"%s\"",
            (unsigned long long)s->ticks, (unsigned long long)s->inputs,
            (unsigned long long)s->refused, cli_fuzz_result_name(s->result));
    if (s->result == CLI_FUZZ_DIVERGED)
        fprintf(fp, ", \"way\": %d, \"tick\": %llu", s->way, (unsigned long long)s->tick);
    if (s->result != CLI_FUZZ_IDENTICAL) {
        fputs(", \"why\": ", fp);
        ci_json_str(fp, s->why);
    }
    if (s->result == CLI_FUZZ_DIVERGED) {
        fputs(", \"case\": ", fp);
        if (s->case_file[0]) ci_json_str(fp, s->case_file);
        else fputs("null", fp);
    }
    fputc('}', fp);
    w->n++;
    w->ticks += s->ticks;
    w->inputs += s->inputs;
    w->refused += s->refused;
    return ferror(fp) ? -1 : 0;
}

int cli_fuzz_report_close(cli_fuzz_writer *w, int result, double seconds, char *err, size_t errlen)
{
    FILE *fp = w->fp;
    fprintf(fp, "%s],\n  \"result\": \"%s\",\n", w->n ? "\n  " : "", cli_fuzz_result_name(result));
    fprintf(fp, "  \"totals\": {\"sessions\": %llu, \"ticks\": %llu, \"inputs\": %llu, \"refused\": %llu},\n",
            (unsigned long long)w->n, (unsigned long long)w->ticks, (unsigned long long)w->inputs,
            (unsigned long long)w->refused);
    fprintf(fp, "  \"seconds\": %.3f\n}\n", seconds);
    int bad = ferror(fp) != 0;
    if (w->to_stdout) bad |= fflush(fp) != 0;
    else bad |= fclose(fp) != 0;
    int rc = 0;
    if (bad) {
        snprintf(err, errlen, "writing the report %s failed: %s", w->to_stdout ? "(stdout)" : w->tmp,
                 strerror(errno));
        rc = -1;
    } else if (!w->to_stdout && rename(w->tmp, w->path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", w->tmp, w->path, strerror(errno));
        rc = -1;
    }
    if (rc && !w->to_stdout) remove(w->tmp);
    free(w);
    return rc;
}

int cli_fuzz_report_write(const cli_fuzz_report *r, const char *path, char *err, size_t errlen)
{
    cli_fuzz_writer *w = cli_fuzz_report_open(path, &r->c, r->shard, r->shards, err, errlen);
    if (!w) return -1;
    for (size_t i = 0; i < r->n; i++) cli_fuzz_report_session(w, &r->v[i]);
    return cli_fuzz_report_close(w, r->result, r->seconds, err, errlen);
}

/* ---- a small JSON reader -------------------------------------------------------------------------- */
enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jnode {
    int type;
    int b;                             /* J_BOOL */
    char *text;                        /* J_STR decoded; J_NUM its literal */
    struct jnode *kid;                 /* J_ARR, J_OBJ */
    char **key;                        /* J_OBJ */
    size_t n;
} jnode;

typedef struct jparser {
    const char *s, *end, *p;
    char *err;
    size_t errlen;
    const char *file;
} jparser;

static void jfree(jnode *j)
{
    for (size_t i = 0; i < j->n; i++) {
        jfree(&j->kid[i]);
        if (j->key) free(j->key[i]);
    }
    free(j->kid);
    free(j->key);
    free(j->text);
    memset(j, 0, sizeof *j);
}

static int jfail(jparser *P, const char *what)
{
    int line = 1, col = 1;
    for (const char *q = P->s; q < P->p && q < P->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    snprintf(P->err, P->errlen, "%s is not a viv fuzz report: line %d, column %d: %s", P->file, line,
             col, what);
    return -1;
}

static void jspace(jparser *P)
{
    while (P->p < P->end && (*P->p == ' ' || *P->p == '\t' || *P->p == '\n' || *P->p == '\r')) P->p++;
}

static int jvalue(jparser *P, jnode *out, int depth);

static int jstring(jparser *P, char **out)
{
    P->p++;                                            /* the opening quote */
    size_t cap = 32, n = 0;
    char *b = malloc(cap);
    if (!b) return jfail(P, "out of memory");
    for (;;) {
        if (P->p >= P->end) {
            free(b);
            return jfail(P, "a string is not closed");
        }
        unsigned char c = (unsigned char)*P->p++;
        if (c == '"') break;
        if (c < 0x20) {
            free(b);
            return jfail(P, "a control character inside a string");
        }
        if (c == '\\') {
            if (P->p >= P->end) {
                free(b);
                return jfail(P, "a string is not closed");
            }
            char e = *P->p++;
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *f = strchr(from, e);
            if (e && f) {
                c = (unsigned char)to[f - from];
            } else if (e == 'u' && P->end - P->p >= 4) {
                unsigned v = 0;
                int okx = 1;
                for (int i = 0; i < 4; i++) {
                    char h = *P->p++;
                    int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                          : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                    okx &= d >= 0;
                    v = v * 16 + (unsigned)(d >= 0 ? d : 0);
                }
                if (!okx || v == 0 || v > 0x7f) {  /* the writer escapes control bytes only */
                    free(b);
                    return jfail(P, "a \\u escape other than an ASCII character");
                }
                c = (unsigned char)v;
            } else {
                free(b);
                return jfail(P, "a bad escape in a string");
            }
        }
        if (n + 2 > cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                return jfail(P, "out of memory");
            }
            b = nb;
        }
        b[n++] = (char)c;
    }
    b[n] = '\0';
    *out = b;
    return 0;
}

static int jpush(jparser *P, jnode *parent, size_t *cap, jnode *kid, char *key)
{
    if (parent->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        jnode *k = realloc(parent->kid, nc * sizeof *k);
        if (!k) return jfail(P, "out of memory");
        parent->kid = k;
        if (parent->type == J_OBJ) {
            char **ks = realloc(parent->key, nc * sizeof *ks);
            if (!ks) return jfail(P, "out of memory");
            parent->key = ks;
        }
        *cap = nc;
    }
    parent->kid[parent->n] = *kid;
    if (parent->type == J_OBJ) parent->key[parent->n] = key;
    parent->n++;
    return 0;
}

/* An array or object: its items until the closing bracket. */
static int jcompound(jparser *P, jnode *out, int depth)
{
    char close = *P->p == '[' ? ']' : '}';
    out->type = close == ']' ? J_ARR : J_OBJ;
    size_t cap = 0;
    P->p++;
    jspace(P);
    if (P->p < P->end && *P->p == close) {
        P->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        jnode kid;
        memset(&kid, 0, sizeof kid);
        jspace(P);
        if (out->type == J_OBJ) {
            if (P->p >= P->end || *P->p != '"') return jfail(P, "expected a key in quotes");
            if (jstring(P, &key)) return -1;
            for (size_t i = 0; i < out->n; i++)
                if (strcmp(out->key[i], key) == 0) {
                    free(key);
                    return jfail(P, "a key given twice");
                }
            jspace(P);
            if (P->p >= P->end || *P->p != ':') {
                free(key);
                return jfail(P, "expected ':' after a key");
            }
            P->p++;
        }
        if (jvalue(P, &kid, depth + 1) || jpush(P, out, &cap, &kid, key)) {
            jfree(&kid);
            free(key);
            return -1;
        }
        jspace(P);
        if (P->p < P->end && *P->p == ',') {
            P->p++;
            continue;
        }
        if (P->p < P->end && *P->p == close) {
            P->p++;
            return 0;
        }
        return jfail(P, close == ']' ? "expected ',' or ']'" : "expected ',' or '}'");
    }
}

static int jvalue(jparser *P, jnode *out, int depth)
{
    memset(out, 0, sizeof *out);
    if (depth > 8) return jfail(P, "nested too deeply");
    jspace(P);
    if (P->p >= P->end) return jfail(P, "it ends where a value should be");
    char c = *P->p;
    if (c == '{' || c == '[') return jcompound(P, out, depth);
    if (c == '"') {
        out->type = J_STR;
        return jstring(P, &out->text);
    }
    static const struct { const char *word; int type, b; } words[] = {
        { "true", J_BOOL, 1 }, { "false", J_BOOL, 0 }, { "null", J_NULL, 0 },
    };
    for (size_t i = 0; i < 3; i++) {
        size_t l = strlen(words[i].word);
        if ((size_t)(P->end - P->p) >= l && memcmp(P->p, words[i].word, l) == 0) {
            P->p += l;
            out->type = words[i].type;
            out->b = words[i].b;
            return 0;
        }
    }
    const char *q = P->p;
    while (q < P->end && strchr("+-0123456789.eE", *q)) q++;
    if (q == P->p) return jfail(P, "expected a value");
    out->type = J_NUM;
    if (!(out->text = malloc((size_t)(q - P->p) + 1))) return jfail(P, "out of memory");
    memcpy(out->text, P->p, (size_t)(q - P->p));
    out->text[q - P->p] = '\0';
    P->p = q;
    return 0;
}

/* ---- reading a report ----------------------------------------------------------------------------- */
typedef struct rd {
    const char *file;
    char *err;
    size_t errlen;
    const char *where;                 /* "", or "session 4: " */
} rd;

static const jnode *jget(const jnode *o, const char *key)
{
    for (size_t i = 0; o->type == J_OBJ && i < o->n; i++)
        if (strcmp(o->key[i], key) == 0) return &o->kid[i];
    return NULL;
}

static int bad_field(rd *R, const char *key, const char *want)
{
    snprintf(R->err, R->errlen, "%s is not a viv fuzz report: %s\"%s\" %s", R->file, R->where, key, want);
    return -1;
}

/* A non-negative integer field; `null_as` is what null reads as (or 1 when null is refused). */
static int get_u64(rd *R, const jnode *o, const char *key, uint64_t *out, int null_ok, uint64_t null_as)
{
    const jnode *j = jget(o, key);
    if (!j) return bad_field(R, key, "is missing");
    if (j->type == J_NULL && null_ok) {
        *out = null_as;
        return 0;
    }
    if (j->type != J_NUM || j->text[0] < '0' || j->text[0] > '9' || strlen(j->text) > 20)
        return bad_field(R, key, "is not a non-negative integer");
    char *e;
    errno = 0;
    unsigned long long v = strtoull(j->text, &e, 10);
    if (*e || errno) return bad_field(R, key, "is not a non-negative integer");
    *out = v;
    return 0;
}

static int get_str(rd *R, const jnode *o, const char *key, char *out, size_t cap, int null_ok)
{
    const jnode *j = jget(o, key);
    if (!j) return bad_field(R, key, "is missing");
    if (j->type == J_NULL && null_ok) {
        out[0] = '\0';
        return 0;
    }
    if (j->type != J_STR) return bad_field(R, key, "is not a string");
    if (strlen(j->text) >= cap) return bad_field(R, key, "is too long");
    snprintf(out, cap, "%s", j->text);
    return 0;
}

static int get_result(rd *R, const jnode *o, int *out)
{
    char s[16];
    if (get_str(R, o, "result", s, sizeof s, 0)) return -1;
    for (int i = 0; i <= CLI_FUZZ_ERROR; i++)
        if (strcmp(s, result_names[i]) == 0) {
            *out = i;
            return 0;
        }
    return bad_field(R, "result", "is not \"identical\", \"diverged\" or \"error\"");
}

static int read_campaign(rd *R, const jnode *c, cli_fuzz_campaign *out)
{
    if (!c || c->type != J_OBJ) return bad_field(R, "campaign", "is missing or not an object");
    const jnode *kinds = jget(c, "kinds"), *rec = jget(c, "recorded");
    if (get_u64(R, c, "seed", &out->seed, 0, 0) || get_u64(R, c, "sessions", &out->sessions, 1, UINT64_MAX) ||
        get_u64(R, c, "ticks", &out->ticks, 0, 0) || get_u64(R, c, "budget_seconds", &out->budget, 1, 0) ||
        get_u64(R, c, "fault", &out->fault, 0, 0) || get_str(R, c, "sim", out->sim, sizeof out->sim, 0))
        return -1;
    if (!rec || rec->type != J_BOOL) return bad_field(R, "recorded", "is not true or false");
    out->recorded = rec->b;
    if (!kinds || kinds->type != J_ARR || kinds->n == 0) return bad_field(R, "kinds", "is not a list of kinds");
    size_t len = 0;
    for (size_t i = 0; i < kinds->n; i++) {
        if (kinds->kid[i].type != J_STR) return bad_field(R, "kinds", "is not a list of kinds");
        int w = snprintf(out->kinds + len, sizeof out->kinds - len, "%s%s", i ? "," : "", kinds->kid[i].text);
        if (w < 0 || (size_t)w >= sizeof out->kinds - len) return bad_field(R, "kinds", "is too long");
        len += (size_t)w;
    }
    return 0;
}

static int read_session(rd *R, const jnode *j, cli_fuzz_session *s)
{
    memset(s, 0, sizeof *s);
    if (j->type != J_OBJ) return bad_field(R, "sessions", "holds something that is not a session");
    uint64_t u;
    if (get_u64(R, j, "index", &s->index, 0, 0)) return -1;
    static char where[64];
    snprintf(where, sizeof where, "session %llu: ", (unsigned long long)s->index);
    R->where = where;
    if (get_str(R, j, "kind", s->kind, sizeof s->kind, 0) || get_u64(R, j, "seed", &s->seed, 0, 0) ||
        get_str(R, j, "params", s->params, sizeof s->params, 0) || get_u64(R, j, "ticks", &s->ticks, 0, 0) ||
        get_u64(R, j, "inputs", &s->inputs, 0, 0) || get_u64(R, j, "refused", &s->refused, 0, 0) ||
        get_result(R, j, &s->result))
        return -1;
    if (s->result == CLI_FUZZ_DIVERGED) {
        if (get_u64(R, j, "way", &u, 0, 0) || get_u64(R, j, "tick", &s->tick, 0, 0) ||
            get_str(R, j, "case", s->case_file, sizeof s->case_file, 1))
            return -1;
        if (u < 2 || u > 4) return bad_field(R, "way", "is not 2, 3 or 4");
        s->way = (int)u;
    }
    if (s->result != CLI_FUZZ_IDENTICAL && get_str(R, j, "why", s->why, sizeof s->why, 0)) return -1;
    R->where = "";
    return 0;
}

/* The report's own consistency: its slice, its sessions' indices, its totals, its result. */
static int check_report(rd *R, const cli_fuzz_report *r, const uint64_t *tot)
{
    if (r->shards == 0 || r->shard == 0 || r->shard > r->shards) {
        snprintf(R->err, R->errlen, "%s is not a viv fuzz report: its slice %llu/%llu is not K/N with 1 <= K "
                 "<= N", R->file, (unsigned long long)r->shard, (unsigned long long)r->shards);
        return -1;
    }
    int stopped = 0;
    for (size_t i = 0; i < r->n; i++) {
        uint64_t want = (r->shard - 1) + (uint64_t)i * r->shards;
        if (r->v[i].index != want || want >= r->c.sessions || stopped) {
            snprintf(R->err, R->errlen, "%s is damaged: slice %llu/%llu of a %llu-session campaign runs "
                     "sessions %llu, %llu, … in order, each until the first that fails, but its session "
                     "%zu is session %llu", R->file, (unsigned long long)r->shard,
                     (unsigned long long)r->shards, (unsigned long long)r->c.sessions,
                     (unsigned long long)(r->shard - 1), (unsigned long long)(r->shard - 1 + r->shards),
                     i + 1, (unsigned long long)r->v[i].index);
            return -1;
        }
        stopped = r->v[i].result != CLI_FUZZ_IDENTICAL;
    }
    uint64_t sum[3] = { 0, 0, 0 };
    for (size_t i = 0; i < r->n; i++) {
        sum[0] += r->v[i].ticks;
        sum[1] += r->v[i].inputs;
        sum[2] += r->v[i].refused;
    }
    if (tot[0] != r->n || tot[1] != sum[0] || tot[2] != sum[1] || tot[3] != sum[2]) {
        snprintf(R->err, R->errlen, "%s is damaged: its totals are not the sums of its sessions", R->file);
        return -1;
    }
    int last = r->n ? r->v[r->n - 1].result : CLI_FUZZ_IDENTICAL;
    if ((last != CLI_FUZZ_IDENTICAL && r->result != last) || (r->result == CLI_FUZZ_DIVERGED && last != r->result)) {
        snprintf(R->err, R->errlen, "%s is damaged: its result \"%s\" is not what its sessions say", R->file,
                 cli_fuzz_result_name(r->result));
        return -1;
    }
    return 0;
}

int cli_fuzz_report_read(const char *path, cli_fuzz_report *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errlen, "cannot open the report %s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int code = -1;
    jnode root;
    memset(&root, 0, sizeof root);
    while (buf) {
        if (n == cap) {
            if (cap >= (size_t)256 << 20) {
                snprintf(err, errlen, "%s is larger than 256 MB: not a viv fuzz report", path);
                goto done;
            }
            char *nb = realloc(buf, cap *= 2);
            if (!nb) break;
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, fp);
        n += r;
        if (r == 0) break;
    }
    if (!buf) {
        snprintf(err, errlen, "out of memory reading %s", path);
        goto done;
    }
    if (ferror(fp)) {
        snprintf(err, errlen, "cannot read the report %s: %s", path, strerror(errno));
        goto done;
    }
    jparser P = { buf, buf + n, buf, err, errlen, path };
    if (jvalue(&P, &root, 0) != 0) goto done;
    jspace(&P);
    if (P.p != P.end) {
        jfail(&P, "something follows the report");
        goto done;
    }
    rd R = { path, err, errlen, "" };
    char kind[32];
    uint64_t version, tot[4];
    const jnode *totals = jget(&root, "totals"), *sessions = jget(&root, "sessions"),
                *secs = jget(&root, "seconds");
    if (root.type != J_OBJ) {
        snprintf(err, errlen, "%s is not a viv fuzz report: it is not a JSON object", path);
        goto done;
    }
    if (get_str(&R, &root, "report", kind, sizeof kind, 0)) goto done;
    if (strcmp(kind, "viv fuzz") != 0) {
        bad_field(&R, "report", "is not \"viv fuzz\"");
        goto done;
    }
    if (get_u64(&R, &root, "version", &version, 0, 0)) goto done;
    if (version != CLI_FUZZ_REPORT_VERSION) {
        snprintf(err, errlen, "%s is a viv fuzz report of version %llu; this build reads version %d",
                 path, (unsigned long long)version, CLI_FUZZ_REPORT_VERSION);
        goto done;
    }
    if (read_campaign(&R, jget(&root, "campaign"), &out->c)) goto done;
    char slice[48];
    if (get_str(&R, &root, "slice", slice, sizeof slice, 0)) goto done;
    unsigned long long k, m;
    char tail;
    if (sscanf(slice, "%llu/%llu%c", &k, &m, &tail) != 2 || slice[0] < '0' || slice[0] > '9') {
        bad_field(&R, "slice", "is not K/N");
        goto done;
    }
    out->shard = k;
    out->shards = m;
    if (get_result(&R, &root, &out->result)) goto done;
    if (!totals || totals->type != J_OBJ) {
        bad_field(&R, "totals", "is missing or not an object");
        goto done;
    }
    if (get_u64(&R, totals, "sessions", &tot[0], 0, 0) || get_u64(&R, totals, "ticks", &tot[1], 0, 0) ||
        get_u64(&R, totals, "inputs", &tot[2], 0, 0) || get_u64(&R, totals, "refused", &tot[3], 0, 0))
        goto done;
    if (!secs || secs->type != J_NUM) {
        bad_field(&R, "seconds", "is not a number");
        goto done;
    }
    out->seconds = strtod(secs->text, NULL);
    if (!sessions || sessions->type != J_ARR) {
        bad_field(&R, "sessions", "is missing or not a list");
        goto done;
    }
    if (sessions->n && !(out->v = calloc(sessions->n, sizeof *out->v))) {
        snprintf(err, errlen, "out of memory reading %s", path);
        goto done;
    }
    for (size_t i = 0; i < sessions->n; i++, out->n++)
        if (read_session(&R, &sessions->kid[i], &out->v[i])) goto done;
    if (check_report(&R, out, tot)) goto done;
    code = 0;
done:
    jfree(&root);
    free(buf);
    fclose(fp);
    if (code) cli_fuzz_report_free(out);
    return code;
}

void cli_fuzz_report_free(cli_fuzz_report *r)
{
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

/* ---- merging -------------------------------------------------------------------------------------- */
/* The first campaign field in which a and b differ, said as "seed 11 against 12"; "" if none. */
static void campaign_diff(const cli_fuzz_campaign *a, const cli_fuzz_campaign *b, char *out, size_t cap)
{
    out[0] = '\0';
    static const char *const names[] = { "seed", "sessions", "ticks", "budget_seconds", "fault" };
    uint64_t va[] = { a->seed, a->sessions, a->ticks, a->budget, a->fault };
    uint64_t vb[] = { b->seed, b->sessions, b->ticks, b->budget, b->fault };
    for (size_t i = 0; i < 5; i++)
        if (va[i] != vb[i]) {
            snprintf(out, cap, "%s %llu against %llu", names[i], (unsigned long long)va[i],
                     (unsigned long long)vb[i]);
            return;
        }
    if (strcmp(a->kinds, b->kinds) != 0) snprintf(out, cap, "kinds %s against %s", a->kinds, b->kinds);
    else if (a->recorded != b->recorded) snprintf(out, cap, "one recorded, the other --no-record");
    else if (strcmp(a->sim, b->sim) != 0) snprintf(out, cap, "sim version %s against %s", a->sim, b->sim);
}

int cli_fuzz_report_merge(const cli_fuzz_report *in, size_t n, const char *const *names,
                          cli_fuzz_report *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n == 0) {
        snprintf(err, errlen, "no reports to merge");
        return -1;
    }
    const cli_fuzz_report *a = &in[0];
    if (a->c.budget || a->c.sessions == UINT64_MAX) {
        snprintf(err, errlen, "%s is the report of a --seconds campaign, whose sessions depend on the "
                 "clock: only campaigns of a fixed --sessions N are sharded and merged", names[0]);
        return -1;
    }
    for (size_t i = 1; i < n; i++) {
        char diff[700];
        campaign_diff(&a->c, &in[i].c, diff, sizeof diff);
        if (diff[0]) {
            snprintf(err, errlen, "%s and %s are reports of different campaigns (%s)", names[0], names[i], diff);
            return -1;
        }
        if (in[i].shards != a->shards) {
            snprintf(err, errlen, "%s is slice %llu/%llu but %s is slice %llu/%llu: merge the shards of "
                     "one split", names[0], (unsigned long long)a->shard, (unsigned long long)a->shards,
                     names[i], (unsigned long long)in[i].shard, (unsigned long long)in[i].shards);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (in[j].shard == in[i].shard) {
                snprintf(err, errlen, "%s and %s are both slice %llu/%llu", names[j], names[i],
                         (unsigned long long)in[i].shard, (unsigned long long)in[i].shards);
                return -1;
            }
    }
    if (n != a->shards) {
        char missing[256] = "";
        size_t len = 0;
        for (uint64_t k = 1; k <= a->shards && len < 200; k++) {
            int have = 0;
            for (size_t i = 0; i < n && !have; i++) have = in[i].shard == k;
            if (!have)
                len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%llu/%llu", len ? ", " : "",
                                        (unsigned long long)k, (unsigned long long)a->shards);
        }
        snprintf(err, errlen, "the campaign was split in %llu shards and %zu report%s given: missing %s",
                 (unsigned long long)a->shards, n, n == 1 ? " is" : "s are", missing);
        return -1;
    }
    /* The unsharded run stops at the first session that diverges or fails: so does the merge. */
    uint64_t stop = UINT64_MAX;
    int other_error = 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += in[i].n;
        if (in[i].n && in[i].v[in[i].n - 1].result != CLI_FUZZ_IDENTICAL && in[i].v[in[i].n - 1].index < stop)
            stop = in[i].v[in[i].n - 1].index;
        if (in[i].result == CLI_FUZZ_ERROR) other_error = 1;
    }
    /* Every shard must have run its whole slice up to that point. */
    uint64_t upto = stop == UINT64_MAX ? a->c.sessions : stop + 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = in[i].shard - 1;
        uint64_t want = upto > k ? (upto - k + a->shards - 1) / a->shards : 0;
        if (in[i].n < want) {
            snprintf(err, errlen, "%s (slice %llu/%llu) holds %zu session%s but its slice has %llu before "
                     "the campaign %s: it is incomplete (interrupted?)", names[i],
                     (unsigned long long)in[i].shard, (unsigned long long)in[i].shards, in[i].n,
                     in[i].n == 1 ? "" : "s", (unsigned long long)want,
                     stop == UINT64_MAX ? "ends" : "stops");
            return -1;
        }
    }
    out->c = a->c;
    out->shard = out->shards = 1;
    if (!(out->v = calloc(total ? total : 1, sizeof *out->v))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint64_t idx = 0; idx < upto; idx++) {
        const cli_fuzz_report *r = &in[0];
        for (size_t i = 0; i < n; i++)
            if (in[i].shard - 1 == idx % a->shards) r = &in[i];
        out->v[out->n++] = r->v[idx / a->shards];
    }
    out->result = stop != UINT64_MAX ? out->v[out->n - 1].result : other_error ? CLI_FUZZ_ERROR
                                                                               : CLI_FUZZ_IDENTICAL;
    for (size_t i = 0; i < n; i++) out->seconds += in[i].seconds;
    return 0;
}
