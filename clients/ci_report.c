/* ci_report.c — JUnit XML for CI systems, and text escaped into XML and JSON (ci_report.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ci_report.h"

/* ---- text ------------------------------------------------------------------------------------- */
int ci_utf8_len(const unsigned char *s, unsigned long *cp)
{
    unsigned char c = s[0];
    int n;
    unsigned long v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) n = 2, v = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef) n = 3, v = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, v = c & 0x07, min = 0x10000;
    else return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;           /* the NUL ends it here too */
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return n;
}

static const char replacement[] = "\xef\xbf\xbd";     /* U+FFFD */

void ci_xml_text(FILE *fp, const char *s, int attr)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned long cp;
        int n = ci_utf8_len(p, &cp);
        if (n == 0) {
            fputs(replacement, fp);
            p++;
            continue;
        }
        switch (cp) {
        case '&': fputs("&amp;", fp); break;
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '"': fputs(attr ? "&quot;" : "\"", fp); break;
        case '\t': fputs(attr ? "&#9;" : "\t", fp); break;
        case '\n': fputs(attr ? "&#10;" : "\n", fp); break;
        case '\r': fputs("&#13;", fp); break;      /* a raw CR would read back as a newline */
        default:
            if (cp < 0x20 || cp == 0xfffe || cp == 0xffff) fputs(replacement, fp);
            else fwrite(p, 1, (size_t)n, fp);
        }
        p += n;
    }
}

void ci_json_str(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', fp);
    while (*p) {
        unsigned long cp;
        int n = ci_utf8_len(p, &cp);
        if (n == 0) fputs(replacement, fp), n = 1;
        else if (cp == '"' || cp == '\\') fprintf(fp, "\\%c", (int)cp);
        else if (cp == '\n') fputs("\\n", fp);
        else if (cp == '\t') fputs("\\t", fp);
        else if (cp < 0x20) fprintf(fp, "\\u%04lx", cp);
        else fwrite(p, 1, (size_t)n, fp);
        p += n;
    }
    fputc('"', fp);
}

static size_t indent_of(const char *line)
{
    return strspn(line, " ");
}

void ci_first_lines(const char *report, int max_lines, char *out, size_t cap)
{
    const char *p = report, *end = report;
    size_t second = 0;                 /* the indentation of the second line */
    for (int i = 0; *p && i < max_lines; i++) {
        const char *nl = strchr(p, '\n');
        const char *next = nl ? nl + 1 : p + strlen(p);
        if (i == 1) second = indent_of(p);
        else if (i > 1 && indent_of(p) <= second) break;
        end = nl ? nl : next;
        p = next;
    }
    size_t len = (size_t)(end - report);
    if (cap == 0) return;
    if (len >= cap) len = cap - 1;
    memcpy(out, report, len);
    out[len] = '\0';
}

/* ---- JUnit XML -------------------------------------------------------------------------------- */
typedef struct ci_case {
    char *classname, *name, *type, *message, *text;
    double seconds;
    int outcome;
} ci_case;

struct ci_junit {
    FILE *fp;
    char *path, *tmp, *suite;
    char timestamp[32];
    ci_case *v;
    size_t n, cap;
    int oom;
};

static char *dup_or_null(const char *s, int *oom)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) *oom = 1;
    return d;
}

static void cases_free(ci_junit *j)
{
    for (size_t i = 0; i < j->n; i++) {
        free(j->v[i].classname);
        free(j->v[i].name);
        free(j->v[i].type);
        free(j->v[i].message);
        free(j->v[i].text);
    }
    free(j->v);
}

static void junit_free(ci_junit *j)
{
    cases_free(j);
    free(j->path);
    free(j->tmp);
    free(j->suite);
    free(j);
}

ci_junit *ci_junit_open(const char *path, const char *suite, char *err, size_t errlen)
{
    ci_junit *j = calloc(1, sizeof *j);
    size_t plen = strlen(path);
    if (!j || !(j->path = strdup(path)) || !(j->suite = strdup(suite)) ||
        !(j->tmp = malloc(plen + 5))) {
        snprintf(err, errlen, "out of memory");
        if (j) junit_free(j);
        return NULL;
    }
    snprintf(j->tmp, plen + 5, "%s.tmp", path);
    if (!(j->fp = fopen(j->tmp, "w"))) {
        snprintf(err, errlen, "cannot write the JUnit report %s: %s", j->tmp, strerror(errno));
        junit_free(j);
        return NULL;
    }
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(j->timestamp, sizeof j->timestamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return j;
}

int ci_junit_case(ci_junit *j, const char *classname, const char *name, double seconds, int outcome,
                  const char *type, const char *message, const char *text)
{
    if (j->n == j->cap) {
        size_t nc = j->cap ? j->cap * 2 : 16;
        ci_case *v = realloc(j->v, nc * sizeof *v);
        if (!v) {
            j->oom = 1;
            return -1;
        }
        j->v = v;
        j->cap = nc;
    }
    ci_case *c = &j->v[j->n++];
    memset(c, 0, sizeof *c);
    c->classname = dup_or_null(classname, &j->oom);
    c->name = dup_or_null(name, &j->oom);
    c->seconds = seconds;
    c->outcome = outcome;
    if (outcome != CI_PASS) {
        c->type = dup_or_null(type ? type : "", &j->oom);
        c->message = dup_or_null(message ? message : "", &j->oom);
        c->text = dup_or_null(text, &j->oom);
    }
    return j->oom ? -1 : 0;
}

static void put_attr(FILE *fp, const char *name, const char *value)
{
    fprintf(fp, " %s=\"", name);
    ci_xml_text(fp, value ? value : "", 1);
    fputc('"', fp);
}

static void put_case(FILE *fp, const ci_case *c)
{
    fputs("    <testcase", fp);
    put_attr(fp, "classname", c->classname);
    put_attr(fp, "name", c->name);
    fprintf(fp, " time=\"%.3f\"", c->seconds);
    if (c->outcome == CI_PASS) {
        fputs("/>\n", fp);
        return;
    }
    const char *el = c->outcome == CI_FAIL ? "failure" : "error";
    fprintf(fp, ">\n      <%s", el);
    put_attr(fp, "message", c->message);
    put_attr(fp, "type", c->type);
    fputc('>', fp);
    if (c->text) ci_xml_text(fp, c->text, 0);
    fprintf(fp, "</%s>\n    </testcase>\n", el);
}

void ci_junit_discard(ci_junit *j)
{
    if (!j) return;
    fclose(j->fp);
    remove(j->tmp);
    junit_free(j);
}

int ci_junit_close(ci_junit *j, double seconds, char *err, size_t errlen)
{
    FILE *fp = j->fp;
    size_t fails = 0, errors = 0;
    for (size_t i = 0; i < j->n; i++) {
        fails += j->v[i].outcome == CI_FAIL;
        errors += j->v[i].outcome == CI_ERROR;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", fp);
    fprintf(fp, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n", j->n, fails, errors,
            seconds);
    fputs("  <testsuite", fp);
    put_attr(fp, "name", j->suite);
    fprintf(fp, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.3f\"", j->n,
            fails, errors, seconds);
    if (j->timestamp[0]) put_attr(fp, "timestamp", j->timestamp);
    fputs(">\n", fp);
    for (size_t i = 0; i < j->n; i++) put_case(fp, &j->v[i]);
    fputs("  </testsuite>\n</testsuites>\n", fp);
    int bad = ferror(fp) != 0;
    bad |= fclose(fp) != 0;
    int rc = 0;
    if (j->oom) {
        snprintf(err, errlen, "the JUnit report %s: out of memory, cases left out: nothing written", j->path);
        rc = -1;
    } else if (bad) {
        snprintf(err, errlen, "writing the JUnit report %s failed: %s", j->tmp, strerror(errno));
        rc = -1;
    } else if (rename(j->tmp, j->path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", j->tmp, j->path, strerror(errno));
        rc = -1;
    }
    if (rc) remove(j->tmp);
    junit_free(j);
    return rc;
}
