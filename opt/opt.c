/* opt.c — the option tables' parser, --help and error sentences (opt.h). */
#include "opt.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *see_of(const opt_prog *p)
{
    return p->see ? p->see : p->who;
}

/* The row of p's table that argument a names in p's mode, or NULL. */
static const opt *find(const opt_prog *p, const char *a)
{
    for (const opt *o = p->opts; o && o->name; o++)
        if (o->set && o->mode == p->mode && strcmp(o->name, a) == 0) return o;
    return NULL;
}

/* --list-options: every row that parses in this mode, for scripts (opt.h). */
static void list_options(const opt_prog *p)
{
    for (const opt *o = p->opts; o && o->name; o++)
        if (o->set && o->mode == p->mode)
            printf("%s %s %s\n", o->name, o->arg ? "value" : "flag", o->help ? "shown" : "hidden");
}

int opt_parse(const opt_prog *p, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            opt_help(p, stdout);
            return OPT_DONE;
        }
        if (strcmp(a, "--list-options") == 0) {
            list_options(p);
            return OPT_DONE;
        }
        int rc;
        if ((a[0] != '-' || a[1] == '\0') && p->operand) {
            rc = p->operand(p, a);
        } else {
            const opt *o = find(p, a);
            if (!o) {
                fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", p->who, a, see_of(p));
                return OPT_BAD;
            }
            if (o->arg && i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value (see %s --help)\n", p->who, a, see_of(p));
                return OPT_BAD;
            }
            rc = o->set(p, o, o->arg ? argv[++i] : NULL);
        }
        if (rc != OPT_OK) return rc;
    }
    return OPT_OK;
}

/* One entry: "  NAME ARG" padded to the column (a name that reaches it gets two spaces), then
 * the help's lines, each after the first indented to the column. */
static void help_entry(const opt_prog *p, const opt *o, FILE *out)
{
    int n = fprintf(out, "  %s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    int pad = n < p->column ? p->column - n : 2;
    const char *line = o->help;
    for (int first = 1;; first = 0) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        if (len == 0) fputc('\n', out);       /* a blank line, without trailing spaces */
        else fprintf(out, "%*s%.*s\n", first ? pad : p->column, "", len, line);
        if (!nl) break;
        line = nl + 1;
    }
}

void opt_help(const opt_prog *p, FILE *out)
{
    if (p->head) p->head(out);
    for (const opt *o = p->opts; o && o->name; o++)
        if (o->help) help_entry(p, o, out);
    if (p->tail) p->tail(out);
}

int opt_str(const opt_prog *p, const opt *o, const char *value)
{
    (void)p;
    *(const char **)o->ptr = value;
    return OPT_OK;
}

int opt_flag(const opt_prog *p, const opt *o, const char *value)
{
    (void)p;
    (void)value;
    *(int *)o->ptr = (int)o->min;
    return OPT_OK;
}

int opt_u64(const opt_prog *p, const opt *o, const char *value)
{
    return opt_parse_u64(p->who, o->name, value, o->ptr) ? OPT_BAD : OPT_OK;
}

int opt_long(const opt_prog *p, const opt *o, const char *value)
{
    return opt_parse_long(p->who, o->name, value, o->min, o->max, o->ptr) ? OPT_BAD : OPT_OK;
}

int opt_parse_u64(const char *who, const char *flag, const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-') goto bad;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end) goto bad;
    *out = v;
    return 0;
bad:
    fprintf(stderr, "%s: %s needs a non-negative integer, got '%s'\n", who, flag, s ? s : "");
    return -1;
}

int opt_parse_long(const char *who, const char *flag, const char *s, long min, long max, long *out)
{
    char *end;
    if (!s || !*s) goto bad;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max) goto bad;
    *out = v;
    return 0;
bad:
    fprintf(stderr, "%s: %s needs an integer in %ld..%ld, got '%s'\n", who, flag, min, max, s ? s : "");
    return -1;
}
