/* ccjson.c — Canvas Cycle scenes in and out: the files Joseph Huckaby's lbm2json made from
 * Ferrari's ILBM files for his web player (seed 000, section 5). lbm2json writes a JavaScript
 * object literal, not JSON — unquoted keys, single-quoted strings:
 *
 *   {filename:'V08.LBM',width:640,height:480,colors:[[r,g,b],…],
 *    cycles:[{reverse:0,rate:1536,low:135,high:143},…],pixels:[
 *   111,107,…
 *   ,108,…]}
 *
 * and Canvas Cycle's image.php serves it wrapped as JSONP, `CanvasCycle.processImage({…});`. This
 * reader takes that, strict JSON, and anything between: keys bare or in either quotes, strings in
 * either quotes (with JavaScript's escapes), trailing commas, // and block comments, and the object
 * bare, in a call `name(…)` (`a.b.c(…);`) or in an assignment `[var|let|const] name = …;`.
 *
 * A scene from Canvas Cycle plays by Canvas Cycle's own clock and arithmetic (cctiming.c): its
 * rate is kept as it is (rate/280 steps a second), reverse 0..5 as Canvas Cycle reads it, and
 * BlendShift on, as Canvas Cycle's player starts — unless the file says "blendShift": false or a
 * cycle says "mode". Our own files (sim_cycle_to_ccjson) say which clock they play by ("timing")
 * and carry keys Canvas Cycle ignores — "active", "mode", and the exact rate ("crng_rate" in CRNG
 * units, "cc_rate" in Canvas Cycle's) — so they round-trip exactly; a file with "crng_rate" and no
 * "timing" is one of ours from before the key and plays by CRNG timing.
 *
 * The parser is hand-written and bounded: one pass over (bytes, length), nesting at most 32 deep,
 * numbers of at most 15 digits, no allocation but the pixel buffer (at most 640×480); every
 * failure names the line and column of what was expected. Pure, like ilbm.c: a fuzz target
 * (tests/fuzz/fuzz_ccjson.c). */
#include "scene_int.h"
#include <stdlib.h>

#define JSON_DEPTH 32
#define CC_RATE_UNIT 16800u        /* 280 per step a second · 60: Canvas Cycle rate → CRNG */

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

static int is_ident_start(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
static int is_ident(uint8_t c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

/* Whitespace and JavaScript comments. An unclosed block comment is an error (the parse then fails
 * at the next thing it expects, keeping this first sentence). */
static void ws(jp *j)
{
    while (j->p < j->end) {
        uint8_t c = *j->p;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            j->p++;
        } else if (c == '/' && j->p + 1 < j->end && j->p[1] == '/') {
            while (j->p < j->end && *j->p != '\n') j->p++;
        } else if (c == '/' && j->p + 1 < j->end && j->p[1] == '*') {
            const uint8_t *q = j->p + 2;
            while (q + 1 < j->end && !(q[0] == '*' && q[1] == '/')) q++;
            if (q + 1 >= j->end) {
                fail(j, "comment is not closed (no */)");
                j->p = j->end;
                return;
            }
            j->p = q + 2;
        } else {
            return;
        }
    }
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

static int is_hex(uint8_t h)
{
    return (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
}

/* A string in double or single quotes (at j->p, after whitespace); its raw bytes (escapes not
 * decoded, \u and \x as '?') into out (cap bytes, NUL-terminated, cut). JSON's escapes and
 * JavaScript's: \' \v \0 \xHH and a backslash before a line break. */
static int string(jp *j, char *out, size_t cap, const char *what)
{
    size_t n = 0;
    ws(j);
    if (j->p >= j->end || (*j->p != '"' && *j->p != '\'')) return fail(j, what);
    uint8_t quote = *j->p++;
    while (j->p < j->end && *j->p != quote) {
        uint8_t c = *j->p;
        if (c < 0x20) return fail(j, "control character inside a string");
        if (c == '\\') {
            j->p++;
            if (j->p >= j->end) break;
            c = *j->p;
            int hex = c == 'u' ? 4 : c == 'x' ? 2 : 0;
            if (hex) {
                for (int i = 1; i <= hex; i++) {
                    if (j->p + i >= j->end) return fail(j, "string ends inside an escape");
                    if (!is_hex(j->p[i])) return fail(j, c == 'u' ? "bad \\u escape" : "bad \\x escape");
                }
                j->p += hex;
                c = '?';
            } else if (c == '\n' || c == '\r') {
                j->p++;                             /* a line continuation: nothing */
                if (c == '\r' && j->p < j->end && *j->p == '\n') j->p++;
                continue;
            } else if (!strchr("\"'\\/bfnrtv0", c)) {
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

/* An object's key: a name (letters, digits, _ and $, as lbm2json writes them) or a string in
 * either quotes, into out (cut to cap). */
static int key(jp *j, char *out, size_t cap)
{
    ws(j);
    if (j->p < j->end && is_ident(*j->p)) {
        size_t n = 0;
        while (j->p < j->end && is_ident(*j->p)) {
            if (out && n + 1 < cap) out[n++] = (char)*j->p;
            j->p++;
        }
        if (out && cap) out[n] = '\0';
        return 0;
    }
    return string(j, out, cap, "expected a key (a name, or a string in quotes)");
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
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0 ||
        ((size_t)(j->end - j->p) > n && is_ident(j->p[n])))
        return fail(j, "unexpected character");
    j->p += n;
    return 0;
}

/* The end of a list: after an element, a comma (then 0: another element, or the closing bracket
 * of a trailing comma, which JavaScript allows) or the closing bracket (1). */
static int list_next(jp *j, char close, const char *what, int *done)
{
    if (accept(j, ',')) {
        *done = accept(j, close);
        return 0;
    }
    *done = 1;
    return expect(j, close, what);
}

/* Any value, skipped. */
static int skip(jp *j, int depth)
{
    if (depth > JSON_DEPTH) return fail(j, "nested too deeply");
    ws(j);
    if (j->p >= j->end) return fail(j, "expected a value");
    uint8_t c = *j->p;
    int done = 0;
    if (c == '"' || c == '\'') return string(j, NULL, 0, "expected a string");
    if (c == '{') {
        j->p++;
        if (accept(j, '}')) return 0;
        while (!done)
            if (key(j, NULL, 0) || expect(j, ':', "expected ':' after a key") || skip(j, depth + 1) ||
                list_next(j, '}', "expected ',' or '}' in an object", &done))
                return -1;
        return 0;
    }
    if (c == '[') {
        j->p++;
        if (accept(j, ']')) return 0;
        while (!done)
            if (skip(j, depth + 1) || list_next(j, ']', "expected ',' or ']' in an array", &done))
                return -1;
        return 0;
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
    int64_t reverse, rate, low, high, crng, cc;     /* crng, cc: -1 when absent */
    int active, mode;                               /* mode: -1 when absent */
} cc_cycle;

static int cycle_obj(jp *j, cc_cycle *c)
{
    char k[32];
    int done = 0;
    c->reverse = c->rate = c->low = c->high = 0;
    c->crng = c->cc = -1;
    c->active = 1;
    c->mode = -1;
    if (expect(j, '{', "a cycle must be an object")) return -1;
    if (accept(j, '}')) return 0;
    while (!done) {
        if (key(j, k, sizeof k) || expect(j, ':', "expected ':' after a key")) return -1;
        if (strcmp(k, "reverse") == 0) {
            if (integer(j, 0, 5, "reverse", &c->reverse)) return -1;
        } else if (strcmp(k, "rate") == 0) {
            if (integer(j, 0, 1000000, "rate", &c->rate)) return -1;
        } else if (strcmp(k, "low") == 0) {
            if (integer(j, 0, 255, "low", &c->low)) return -1;
        } else if (strcmp(k, "high") == 0) {
            if (integer(j, 0, 255, "high", &c->high)) return -1;
        } else if (strcmp(k, "crng_rate") == 0) {
            if (integer(j, 0, SIM_CYCLE_RATE_MAX, "crng_rate", &c->crng)) return -1;
        } else if (strcmp(k, "cc_rate") == 0) {
            if (integer(j, 0, SIM_CYCLE_RATE_MAX, "cc_rate", &c->cc)) return -1;
        } else if (strcmp(k, "active") == 0) {
            if (boolean(j, &c->active)) return -1;
        } else if (strcmp(k, "mode") == 0) {
            char m[16];
            if (string(j, m, sizeof m, "expected a string")) return -1;
            if (strcmp(m, "standard") == 0) c->mode = SIM_CYCLE_STANDARD;
            else if (strcmp(m, "blend") == 0) c->mode = SIM_CYCLE_BLEND;
            else return fail(j, "mode must be \"standard\" or \"blend\"");
        } else if (skip(j, 2)) {
            return -1;
        }
        if (list_next(j, '}', "expected ',' or '}' in a cycle", &done)) return -1;
    }
    return 0;
}

/* What comes before the scene object: nothing, a call `a.b(` or an assignment
 * `[var|let|const] a.b =`. *close is ')' for a call, else 0. */
static int wrapper(jp *j, char *close)
{
    *close = 0;
    ws(j);
    if (j->p < j->end && *j->p == '{') return 0;
    if (j->p >= j->end || !is_ident_start(*j->p))
        return fail(j, "expected a Canvas Cycle scene: an object {…}, bare, in a call name({…}) "
                       "or in an assignment name = {…}");
    for (int names = 0;; names++) {
        const uint8_t *w = j->p;
        while (j->p < j->end && is_ident(*j->p)) j->p++;
        size_t n = (size_t)(j->p - w);
        int decl = names == 0 && ((n == 3 && (memcmp(w, "var", 3) == 0 || memcmp(w, "let", 3) == 0)) ||
                                  (n == 5 && memcmp(w, "const", 5) == 0));
        ws(j);
        if (decl && j->p < j->end && is_ident_start(*j->p)) continue;   /* the declared name */
        if (accept(j, '.')) {
            ws(j);
            if (j->p >= j->end || !is_ident_start(*j->p)) return fail(j, "expected a name after '.'");
            continue;
        }
        if (accept(j, '(')) {
            *close = ')';
            return 0;
        }
        if (accept(j, '=')) return 0;
        return fail(j, "expected '(' or '=' after the name before the scene");
    }
}

int sim_cycle_from_ccjson(const uint8_t *buf, size_t len, sim_cycle_scene *out, char *notes,
                          size_t noteslen, char *err, size_t errlen)
{
    jp j = { buf, buf, buf + len, err, errlen, 0 };
    char k[32], msg[200];
    int64_t w = -1, h = -1;
    size_t npx = 0;
    int have_colors = 0, have_pixels = 0, done = 0, timing = -1, blendshift = 1;
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
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) j.p += 3;        /* a UTF-8 BOM */
    char close;
    if (wrapper(&j, &close)) goto bad;
    if (expect(&j, '{', "expected the scene's object {…}")) goto bad;
    if (accept(&j, '}')) done = 1;
    while (!done) {
        if (key(&j, k, sizeof k) || expect(&j, ':', "expected ':' after a key")) goto bad;
        if (strcmp(k, "width") == 0) {
            if (integer(&j, 1, SIM_CYCLE_MAX_W, "width", &w)) goto bad;
        } else if (strcmp(k, "height") == 0) {
            if (integer(&j, 1, SIM_CYCLE_MAX_H, "height", &h)) goto bad;
        } else if (strcmp(k, "timing") == 0) {
            char t[16];
            if (string(&j, t, sizeof t, "expected a string")) goto bad;
            if (strcmp(t, "crng") == 0) timing = SIM_CYCLE_TIMING_CRNG;
            else if (strcmp(t, "canvascycle") == 0) timing = SIM_CYCLE_TIMING_CANVAS;
            else {
                fail(&j, "timing must be \"crng\" or \"canvascycle\"");
                goto bad;
            }
        } else if (strcmp(k, "blendShift") == 0) {
            if (boolean(&j, &blendshift)) goto bad;
        } else if (strcmp(k, "colors") == 0) {
            int cdone = 0;
            have_colors = 1;
            out->ncolors = 0;
            if (expect(&j, '[', "colors must be an array")) goto bad;
            cdone = accept(&j, ']');
            while (!cdone) {
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
                accept(&j, ',');                            /* [r,g,b,] */
                if (expect(&j, ']', "a color has three components")) goto bad;
                out->ncolors++;
                if (list_next(&j, ']', "expected ',' or ']' in colors", &cdone)) goto bad;
            }
        } else if (strcmp(k, "cycles") == 0) {
            int cdone = 0;
            ncyc = extra = 0;
            if (expect(&j, '[', "cycles must be an array")) goto bad;
            cdone = accept(&j, ']');
            while (!cdone) {
                cc_cycle c;
                if (cycle_obj(&j, &c)) goto bad;
                if (ncyc < (int)(sizeof cyc / sizeof cyc[0])) cyc[ncyc++] = c;
                else extra++;
                if (list_next(&j, ']', "expected ',' or ']' in cycles", &cdone)) goto bad;
            }
        } else if (strcmp(k, "pixels") == 0) {
            int pdone = 0;
            have_pixels = 1;
            npx = 0;
            if (expect(&j, '[', "pixels must be an array")) goto bad;
            pdone = accept(&j, ']');
            while (!pdone) {
                int64_t v;
                if (npx == (size_t)SIM_CYCLE_MAX_W * SIM_CYCLE_MAX_H) {
                    fail(&j, "more pixels than a 640x480 scene holds");
                    goto bad;
                }
                if (integer(&j, 0, 255, "a pixel", &v)) goto bad;
                px[npx++] = (uint8_t)v;
                if (list_next(&j, ']', "expected ',' or ']' in pixels", &pdone)) goto bad;
            }
        } else if (skip(&j, 1)) {
            goto bad;
        }
        if (list_next(&j, '}', "expected ',' or '}' after a value", &done)) goto bad;
    }
    if (close && expect(&j, close, "the call around the scene is not closed (expected ')')")) goto bad;
    accept(&j, ';');
    ws(&j);
    if (j.failed) goto bad;
    if (j.p != j.end) {
        fail(&j, "trailing characters after the scene");
        goto bad;
    }
    if (w < 0 || h < 0 || !have_colors || !have_pixels) {
        sim__fmt(err, errlen, "JSON: a Canvas Cycle scene needs width, height, colors and pixels "
                 "(missing: %s%s%s%s)", w < 0 ? "width " : "", h < 0 ? "height " : "",
                 have_colors ? "" : "colors ", have_pixels ? "" : "pixels");
        goto bad;
    }
    if (out->ncolors == 0) {
        sim__fmt(err, errlen, "JSON: colors is empty");
        goto bad;
    }
    if (npx != (size_t)(w * h)) {
        sim__fmt(err, errlen, "JSON: pixels holds %u values; width x height is %lld",
                 (unsigned)npx, (long long)(w * h));
        goto bad;
    }
    for (size_t i = 0; i < npx; i++)
        if (px[i] >= out->ncolors) {
            sim__fmt(err, errlen, "JSON: pixel %u is colour %u, but colors has %u", (unsigned)i,
                     (unsigned)px[i], (unsigned)out->ncolors);
            goto bad;
        }
    /* The clock: as the file says, else ours from before "timing" if it has crng_rate, else
     * Canvas Cycle's. */
    if (timing < 0) {
        timing = SIM_CYCLE_TIMING_CANVAS;
        for (int i = 0; i < ncyc; i++)
            if (cyc[i].crng >= 0) timing = SIM_CYCLE_TIMING_CRNG;
    }
    out->timing = (uint8_t)timing;
    int cc = timing == SIM_CYCLE_TIMING_CANVAS;
    int dropped = 0, sine = 0, capped = 0;
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
        int64_t exact = cc ? c->cc : c->crng;           /* our own key for the rate, if any */
        int64_t rate = exact >= 0 ? exact
                     : cc ? c->rate
                          : (c->rate * 16384 + CC_RATE_UNIT / 2) / CC_RATE_UNIT;
        if (rate > SIM_CYCLE_RATE_MAX) {
            capped++;
            if (capped == 1) {
                sim__fmt(msg, sizeof msg, "cycle %d: rate %lld is faster than this world plays; "
                         "capped at %s", i, (long long)c->rate, cc ? "65535" : "240 steps a second");
                sim__cycle_note(notes, noteslen, msg);
            }
            rate = SIM_CYCLE_RATE_MAX;
        }
        r->rate = (uint16_t)rate;
        static const uint8_t CC_DIR[6] = { SIM_CYCLE_FORWARD, SIM_CYCLE_FORWARD, SIM_CYCLE_REVERSE,
                                           SIM_CYCLE_PINGPONG, SIM_CYCLE_SINE_HALF, SIM_CYCLE_SINE_FULL };
        r->dir = CC_DIR[c->reverse];
        if (!cc && r->dir > SIM_CYCLE_PINGPONG) r->dir = SIM_CYCLE_PINGPONG;
        sine += c->reverse >= 4;
        /* Canvas Cycle plays every cycle blended (its BlendShift option starts on); CRNG has no
         * mode and starts standard. */
        r->mode = (uint8_t)(c->mode >= 0 ? c->mode
                            : cc && blendshift ? SIM_CYCLE_BLEND : SIM_CYCLE_STANDARD);
        /* Canvas Cycle has no "active": a range with rate 0 is still. Ours says it. */
        r->active = (uint8_t)(exact >= 0 ? c->active : c->active && c->rate > 0);
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
    if (sine && cc) {
        sim__fmt(msg, sizeof msg, "%d sine-wave cycle%s (reverse 4 or 5), played as Canvas Cycle's "
                 "code means them; its published palette.js stops on them (docs/cycle.md)", sine,
                 sine == 1 ? "" : "s");
        sim__cycle_note(notes, noteslen, msg);
    } else if (sine) {
        sim__fmt(msg, sizeof msg, "%d sine-wave cycle%s (reverse 4 or 5) played as ping-pong by "
                 "CRNG timing", sine, sine == 1 ? "" : "s");
        sim__cycle_note(notes, noteslen, msg);
    }
    out->w = (uint16_t)w;
    out->h = (uint16_t)h;
    uint8_t *shrunk = realloc(px, npx);
    out->px = shrunk ? shrunk : px;
    return 0;
bad:
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
    put_s(&t, s->timing == SIM_CYCLE_TIMING_CANVAS ? ",\"timing\":\"canvascycle\""
                                                   : ",\"timing\":\"crng\"");
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
    int cc = s->timing == SIM_CYCLE_TIMING_CANVAS;
    for (int i = 0; i < s->nranges; i++) {
        const sim_cycle_range *r = &s->ranges[i];
        static const int REV[5] = { 0, 2, 3, 4, 5 };
        put_s(&t, i ? ",\n{\"reverse\":" : "\n{\"reverse\":");
        put_u(&t, (unsigned)REV[r->dir % 5]);
        put_s(&t, ",\"rate\":");
        /* Canvas Cycle's unit (a CRNG rate converted); an inactive range has rate 0 there. */
        put_u(&t, !r->active ? 0u
                  : cc ? r->rate : ((unsigned long long)r->rate * CC_RATE_UNIT + 8192u) / 16384u);
        put_s(&t, ",\"low\":");
        put_u(&t, r->low);
        put_s(&t, ",\"high\":");
        put_u(&t, r->high);
        put_s(&t, ",\"active\":");
        put_s(&t, r->active ? "true" : "false");
        put_s(&t, ",\"mode\":");
        put_s(&t, r->mode == SIM_CYCLE_BLEND ? "\"blend\"" : "\"standard\"");
        put_s(&t, cc ? ",\"cc_rate\":" : ",\"crng_rate\":");
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
