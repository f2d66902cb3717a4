/* ccjson.c — Canvas Cycle scene JSON in and out: the format Joseph Huckaby's converter made from
 * Ferrari's ILBM files for the web (seed 000, section 5):
 *
 *   {"filename": "…", "width": W, "height": H, "colors": [[r,g,b], …],
 *    "cycles": [{"reverse": 0|2|3, "rate": R, "low": L, "high": H}, …], "pixels": [i, …]}
 *
 * Canvas Cycle plays a cycle at rate/280 steps a second; ours count 16384 as 60 steps a second,
 * so a rate converts as R·16384/16800 (rounded half up) on the way in and back on the way out.
 * reverse 2 runs the range backwards, 3 ping-pongs; 4 and 5 (Canvas Cycle's sine wobble) are read
 * as ping-pong, with a note. Our writer adds keys Canvas Cycle ignores — "active", "mode" and
 * "crng_rate" (the exact rate) — so our own files round-trip exactly. A JSONP wrapper
 * (`name({…});`) is accepted.
 *
 * The parser is hand-written and bounded: one pass over (bytes, length), nesting at most 32 deep,
 * numbers of at most 15 digits, no allocation but the pixel buffer (at most 640×480). Pure, like
 * ilbm.c, so it can become a fuzz target. */
#include "scene_int.h"
#include <stdlib.h>

#define JSON_DEPTH 32
#define CC_RATE_UNIT 16800u        /* 280 per step a second · 60 */

typedef struct jp {
    const uint8_t *buf, *p, *end;
    char *err;
    size_t errlen;
    int failed;
} jp;

/* Record the first error with its line and column. */
static int fail(jp *j, const char *what)
{
    if (j->failed) return -1;
    j->failed = 1;
    unsigned line = 1, col = 1;
    for (const uint8_t *q = j->buf; q < j->p && q < j->end; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    sim__fmt(j->err, j->errlen, "JSON: line %u, column %u: %s", line, col, what);
    return -1;
}

static void ws(jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

/* Expect character c (after whitespace). */
static int expect(jp *j, char c, const char *what)
{
    ws(j);
    if (j->p >= j->end || *j->p != (uint8_t)c) return fail(j, what);
    j->p++;
    return 0;
}

/* 1 if the next non-space character is c (consumed), else 0. */
static int accept(jp *j, char c)
{
    ws(j);
    if (j->p < j->end && *j->p == (uint8_t)c) {
        j->p++;
        return 1;
    }
    return 0;
}

/* A string; its raw bytes (escapes not decoded) into out (cap bytes, NUL-terminated, cut). */
static int string(jp *j, char *out, size_t cap)
{
    size_t n = 0;
    if (expect(j, '"', "expected a string") != 0) return -1;
    while (j->p < j->end && *j->p != '"') {
        uint8_t c = *j->p;
        if (c < 0x20) return fail(j, "control character inside a string");
        if (c == '\\') {
            j->p++;
            if (j->p >= j->end) break;
            c = *j->p;
            if (c == 'u') {
                for (int i = 1; i <= 4; i++) {
                    if (j->p + i >= j->end) return fail(j, "string ends inside a \\u escape");
                    uint8_t h = j->p[i];
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F')))
                        return fail(j, "bad \\u escape");
                }
                j->p += 4;
                c = '?';
            } else if (!strchr("\"\\/bfnrt", c)) {
                return fail(j, "bad escape in a string");
            }
        }
        if (out && n + 1 < cap) out[n++] = (char)c;
        j->p++;
    }
    if (out && cap) out[n] = '\0';
    if (j->p >= j->end) return fail(j, "string is not closed");
    j->p++;
    return 0;
}

/* A number. *isint is 0 when it has a fraction or an exponent (*v is then its integer part). */
static int number(jp *j, int64_t *v, int *isint)
{
    ws(j);
    int neg = 0, digits = 0;
    int64_t x = 0;
    *isint = 1;
    if (j->p < j->end && *j->p == '-') {
        neg = 1;
        j->p++;
    }
    if (j->p >= j->end || *j->p < '0' || *j->p > '9') return fail(j, "expected a number");
    if (*j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' && j->p[1] <= '9')
        return fail(j, "number with a leading zero");
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        if (++digits > 15) return fail(j, "number is too large");
        x = x * 10 + (*j->p - '0');
        j->p++;
    }
    if (j->p < j->end && *j->p == '.') {
        *isint = 0;
        j->p++;
        if (j->p >= j->end || *j->p < '0' || *j->p > '9') return fail(j, "bad number");
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        *isint = 0;
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (j->p >= j->end || *j->p < '0' || *j->p > '9') return fail(j, "bad number");
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    }
    *v = neg ? -x : x;
    return 0;
}

/* An integer in [lo, hi]; `what` names it in the error. */
static int integer(jp *j, int64_t lo, int64_t hi, const char *what, int64_t *v)
{
    int isint;
    if (number(j, v, &isint) != 0) return -1;
    if (!isint || *v < lo || *v > hi) {
        char msg[96];
        sim__fmt(msg, sizeof msg, "%s must be an integer in %lld..%lld", what, (long long)lo,
                 (long long)hi);
        return fail(j, msg);
    }
    return 0;
}

static int literal(jp *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0) return fail(j, "unexpected character");
    j->p += n;
    return 0;
}

/* Any value, skipped. */
static int skip(jp *j, int depth)
{
    if (depth > JSON_DEPTH) return fail(j, "nested too deeply");
    ws(j);
    if (j->p >= j->end) return fail(j, "expected a value");
    uint8_t c = *j->p;
    if (c == '"') return string(j, NULL, 0);
    if (c == '{') {
        j->p++;
        if (accept(j, '}')) return 0;
        do {
            if (string(j, NULL, 0) || expect(j, ':', "expected ':' after a key") || skip(j, depth + 1))
                return -1;
        } while (accept(j, ','));
        return expect(j, '}', "expected ',' or '}' in an object");
    }
    if (c == '[') {
        j->p++;
        if (accept(j, ']')) return 0;
        do {
            if (skip(j, depth + 1)) return -1;
        } while (accept(j, ','));
        return expect(j, ']', "expected ',' or ']' in an array");
    }
    if (c == 't') return literal(j, "true");
    if (c == 'f') return literal(j, "false");
    if (c == 'n') return literal(j, "null");
    int64_t v;
    int isint;
    return number(j, &v, &isint);
}

static int boolean(jp *j, int *v)
{
    ws(j);
    if (j->p < j->end && *j->p == 't') {
        *v = 1;
        return literal(j, "true");
    }
    if (j->p < j->end && *j->p == 'f') {
        *v = 0;
        return literal(j, "false");
    }
    return fail(j, "expected true or false");
}

typedef struct cc_cycle {
    int64_t reverse, rate, low, high, crng;
    int active, mode;
} cc_cycle;

static int cycle_obj(jp *j, cc_cycle *c)
{
    char key[32];
    c->reverse = c->rate = c->low = c->high = 0;
    c->crng = -1;
    c->active = 1;
    c->mode = SIM_CYCLE_STANDARD;
    if (expect(j, '{', "a cycle must be an object")) return -1;
    if (accept(j, '}')) return 0;
    do {
        if (string(j, key, sizeof key) || expect(j, ':', "expected ':' after a key")) return -1;
        if (strcmp(key, "reverse") == 0) {
            if (integer(j, 0, 5, "reverse", &c->reverse)) return -1;
        } else if (strcmp(key, "rate") == 0) {
            if (integer(j, 0, 1000000, "rate", &c->rate)) return -1;
        } else if (strcmp(key, "low") == 0) {
            if (integer(j, 0, 255, "low", &c->low)) return -1;
        } else if (strcmp(key, "high") == 0) {
            if (integer(j, 0, 255, "high", &c->high)) return -1;
        } else if (strcmp(key, "crng_rate") == 0) {
            if (integer(j, 0, SIM_CYCLE_RATE_MAX, "crng_rate", &c->crng)) return -1;
        } else if (strcmp(key, "active") == 0) {
            if (boolean(j, &c->active)) return -1;
        } else if (strcmp(key, "mode") == 0) {
            char m[16];
            if (string(j, m, sizeof m)) return -1;
            if (strcmp(m, "standard") == 0) c->mode = SIM_CYCLE_STANDARD;
            else if (strcmp(m, "blend") == 0) c->mode = SIM_CYCLE_BLEND;
            else return fail(j, "mode must be \"standard\" or \"blend\"");
        } else if (skip(j, 2)) {
            return -1;
        }
    } while (accept(j, ','));
    return expect(j, '}', "expected ',' or '}' in a cycle");
}

int sim_cycle_from_ccjson(const uint8_t *buf, size_t len, sim_cycle_scene *out, char *notes,
                          size_t noteslen, char *err, size_t errlen)
{
    jp j = { buf, buf, buf + len, err, errlen, 0 };
    char key[32], msg[160];
    int64_t w = -1, h = -1;
    size_t npx = 0;
    int have_colors = 0, have_pixels = 0;
    cc_cycle cyc[64];
    int ncyc = 0, extra = 0;
    memset(out, 0, sizeof *out);
    if (notes && noteslen) notes[0] = '\0';
    if (!buf) {
        sim__fmt(err, errlen, "JSON: no data");
        return SIM_EFILE;
    }
    uint8_t *px = malloc((size_t)SIM_CYCLE_MAX_W * SIM_CYCLE_MAX_H);
    if (!px) {
        sim__fmt(err, errlen, "JSON: out of memory");
        return SIM_ENOMEM;
    }
    /* A JSONP wrapper: an identifier (dots allowed) and '(' before the object. */
    ws(&j);
    const uint8_t *q = j.p;
    while (q < j.end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_' ||
                         *q == '$' || *q == '.' || (q > j.p && *q >= '0' && *q <= '9')))
        q++;
    int jsonp = q > j.p && q < j.end && *q == '(';
    if (jsonp) j.p = q + 1;
    if (expect(&j, '{', "a Canvas Cycle scene is a JSON object")) goto bad;
    if (!accept(&j, '}')) {
        do {
            if (string(&j, key, sizeof key) || expect(&j, ':', "expected ':' after a key")) goto bad;
            if (strcmp(key, "width") == 0) {
                if (integer(&j, 1, SIM_CYCLE_MAX_W, "width", &w)) goto bad;
            } else if (strcmp(key, "height") == 0) {
                if (integer(&j, 1, SIM_CYCLE_MAX_H, "height", &h)) goto bad;
            } else if (strcmp(key, "colors") == 0) {
                have_colors = 1;
                out->ncolors = 0;
                if (expect(&j, '[', "colors must be an array")) goto bad;
                if (!accept(&j, ']')) {
                    do {
                        if (out->ncolors == SIM_PALETTE_MAX) {
                            fail(&j, "more than 256 colors");
                            goto bad;
                        }
                        if (expect(&j, '[', "a color is an array [r, g, b]")) goto bad;
                        for (int c = 0; c < 3; c++) {
                            int64_t v;
                            if (c && expect(&j, ',', "a color has three components")) goto bad;
                            if (integer(&j, 0, 255, "a color component", &v)) goto bad;
                            out->rgb[3 * out->ncolors + c] = (uint8_t)v;
                        }
                        if (expect(&j, ']', "a color has three components")) goto bad;
                        out->ncolors++;
                    } while (accept(&j, ','));
                    if (expect(&j, ']', "expected ',' or ']' in colors")) goto bad;
                }
            } else if (strcmp(key, "cycles") == 0) {
                ncyc = extra = 0;
                if (expect(&j, '[', "cycles must be an array")) goto bad;
                if (!accept(&j, ']')) {
                    do {
                        cc_cycle c;
                        if (cycle_obj(&j, &c)) goto bad;
                        if (ncyc < (int)(sizeof cyc / sizeof cyc[0])) cyc[ncyc++] = c;
                        else extra++;
                    } while (accept(&j, ','));
                    if (expect(&j, ']', "expected ',' or ']' in cycles")) goto bad;
                }
            } else if (strcmp(key, "pixels") == 0) {
                have_pixels = 1;
                npx = 0;
                if (expect(&j, '[', "pixels must be an array")) goto bad;
                if (!accept(&j, ']')) {
                    do {
                        int64_t v;
                        if (npx == (size_t)SIM_CYCLE_MAX_W * SIM_CYCLE_MAX_H) {
                            fail(&j, "more pixels than a 640x480 scene holds");
                            goto bad;
                        }
                        if (integer(&j, 0, 255, "a pixel", &v)) goto bad;
                        px[npx++] = (uint8_t)v;
                    } while (accept(&j, ','));
                    if (expect(&j, ']', "expected ',' or ']' in pixels")) goto bad;
                }
            } else if (skip(&j, 1)) {
                goto bad;
            }
        } while (accept(&j, ','));
        if (expect(&j, '}', "expected ',' or '}' after a value")) goto bad;
    }
    if (jsonp) {
        if (expect(&j, ')', "the JSONP call is not closed")) goto bad;
        accept(&j, ';');
    }
    ws(&j);
    if (j.p != j.end) {
        fail(&j, "trailing characters after the scene");
        goto bad;
    }
    if (w < 0 || h < 0 || !have_colors || !have_pixels) {
        sim__fmt(err, errlen, "JSON: a Canvas Cycle scene needs width, height, colors and pixels "
                 "(missing: %s%s%s%s)", w < 0 ? "width " : "", h < 0 ? "height " : "",
                 have_colors ? "" : "colors ", have_pixels ? "" : "pixels");
        goto fail_msg;
    }
    if (out->ncolors == 0) {
        sim__fmt(err, errlen, "JSON: colors is empty");
        goto fail_msg;
    }
    if (npx != (size_t)(w * h)) {
        sim__fmt(err, errlen, "JSON: pixels holds %u values; width x height is %lld",
                 (unsigned)npx, (long long)(w * h));
        goto fail_msg;
    }
    for (size_t i = 0; i < npx; i++)
        if (px[i] >= out->ncolors) {
            sim__fmt(err, errlen, "JSON: pixel %u is colour %u, but colors has %u", (unsigned)i,
                     (unsigned)px[i], (unsigned)out->ncolors);
            goto fail_msg;
        }
    int dropped = 0, sine = 0;
    for (int i = 0; i < ncyc; i++) {
        const cc_cycle *c = &cyc[i];
        int64_t hi = c->high < out->ncolors ? c->high : out->ncolors - 1;
        if (c->low >= hi) {
            if (c->rate && c->active) dropped++;
            continue;
        }
        if (out->nranges == SIM_CYCLE_MAX_RANGES) {
            extra++;
            continue;
        }
        sim_cycle_range *r = &out->ranges[out->nranges++];
        r->low = (uint8_t)c->low;
        r->high = (uint8_t)hi;
        int64_t rate = c->crng >= 0 ? c->crng
                                    : (c->rate * 16384 + CC_RATE_UNIT / 2) / CC_RATE_UNIT;
        if (rate > SIM_CYCLE_RATE_MAX) {
            sim__fmt(msg, sizeof msg, "cycle %d: rate %lld is faster than 240 steps a second; "
                     "capped", i, (long long)c->rate);
            sim__cycle_note(notes, noteslen, msg);
            rate = SIM_CYCLE_RATE_MAX;
        }
        r->rate = (uint16_t)rate;
        r->dir = c->reverse == 2 ? SIM_CYCLE_REVERSE
               : c->reverse >= 3 ? SIM_CYCLE_PINGPONG : SIM_CYCLE_FORWARD;
        sine += c->reverse >= 4;
        r->mode = (uint8_t)c->mode;
        /* Canvas Cycle has no "active": a range with rate 0 is still. Ours says it. */
        r->active = (uint8_t)(c->crng >= 0 ? c->active : c->active && c->rate > 0);
    }
    if (dropped) {
        sim__fmt(msg, sizeof msg, "%d cycle%s with nothing to cycle (low ≥ high) dropped", dropped,
                 dropped == 1 ? "" : "s");
        sim__cycle_note(notes, noteslen, msg);
    }
    if (extra) {
        sim__fmt(msg, sizeof msg, "%d cycle%s beyond the first %d dropped", extra,
                 extra == 1 ? "" : "s", SIM_CYCLE_MAX_RANGES);
        sim__cycle_note(notes, noteslen, msg);
    }
    if (sine) {
        sim__fmt(msg, sizeof msg, "%d sine-wave cycle%s (reverse 4 or 5) played as ping-pong",
                 sine, sine == 1 ? "" : "s");
        sim__cycle_note(notes, noteslen, msg);
    }
    out->w = (uint16_t)w;
    out->h = (uint16_t)h;
    uint8_t *shrunk = realloc(px, npx);
    out->px = shrunk ? shrunk : px;
    return 0;
bad:
fail_msg:
    free(px);
    memset(out, 0, sizeof *out);
    return SIM_EFILE;
}

/* ---- writing ------------------------------------------------------------------------------------ */
typedef struct tw {
    uint8_t *buf;
    size_t cap, len;
} tw;

static void put_s(tw *t, const char *s)
{
    for (; *s; s++, t->len++)
        if (t->len < t->cap) t->buf[t->len] = (uint8_t)*s;
}
static void put_u(tw *t, unsigned long long v)
{
    char d[24];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    char s[24];
    for (int i = 0; i < n; i++) s[i] = d[n - 1 - i];
    s[n] = '\0';
    put_s(t, s);
}
/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_str(tw *t, const char *s)
{
    put_s(t, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        char e[8] = { 0 };
        if (c == '"' || c == '\\') {
            e[0] = '\\';
            e[1] = (char)c;
        } else if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            memcpy(e, "\\u00", 4);
            e[4] = hex[c >> 4];
            e[5] = hex[c & 15];
        } else {
            e[0] = (char)c;
        }
        put_s(t, e);
    }
    put_s(t, "\"");
}

size_t sim_cycle_to_ccjson(const sim_cycle_scene *s, const char *filename, uint8_t *buf,
                           size_t cap)
{
    char why[8];
    if (sim_cycle_scene_check(s, why, sizeof why) != 0) return 0;
    tw t = { buf, cap, 0 };
    put_s(&t, "{\"filename\":");
    put_str(&t, filename ? filename : "");
    put_s(&t, ",\"width\":");
    put_u(&t, s->w);
    put_s(&t, ",\"height\":");
    put_u(&t, s->h);
    put_s(&t, ",\n\"colors\":[");
    for (int i = 0; i < s->ncolors; i++) {
        put_s(&t, i ? ",[" : "[");
        for (int c = 0; c < 3; c++) {
            if (c) put_s(&t, ",");
            put_u(&t, s->rgb[3 * i + c]);
        }
        put_s(&t, "]");
    }
    put_s(&t, "],\n\"cycles\":[");
    for (int i = 0; i < s->nranges; i++) {
        const sim_cycle_range *r = &s->ranges[i];
        static const int REV[3] = { 0, 2, 3 };
        put_s(&t, i ? ",\n{\"reverse\":" : "\n{\"reverse\":");
        put_u(&t, (unsigned)REV[r->dir % 3]);
        put_s(&t, ",\"rate\":");
        /* Canvas Cycle's unit; an inactive range has rate 0 there. */
        put_u(&t, r->active ? ((unsigned long long)r->rate * CC_RATE_UNIT + 8192u) / 16384u : 0u);
        put_s(&t, ",\"low\":");
        put_u(&t, r->low);
        put_s(&t, ",\"high\":");
        put_u(&t, r->high);
        put_s(&t, ",\"active\":");
        put_s(&t, r->active ? "true" : "false");
        put_s(&t, ",\"mode\":");
        put_s(&t, r->mode == SIM_CYCLE_BLEND ? "\"blend\"" : "\"standard\"");
        put_s(&t, ",\"crng_rate\":");
        put_u(&t, r->rate);
        put_s(&t, "}");
    }
    put_s(&t, "],\n\"pixels\":[");
    size_t n = (size_t)s->w * s->h;
    for (size_t i = 0; i < n; i++) {
        if (i) put_s(&t, (i % s->w) ? "," : ",\n");
        put_u(&t, s->px[i]);
    }
    put_s(&t, "]}\n");
    return t.len;
}
