/* io.c — the little-endian state writer and reader, and a tiny formatter for error sentences.
 *
 * Saved state is written field by field so that the bytes (and so the state hash) are the same
 * on every machine: no struct dumps, no padding, no host byte order, no pointers. */
#include "sim_internal.h"
#include <stdarg.h>

void sim__w_flush(sim_writer *w)
{
    if (!w->put || !w->len) return;
    w->put(w->ud, w->buf, w->len);
    w->done += w->len;
    w->len = 0;
}

void sim__w_bytes(sim_writer *w, const void *p, size_t n)
{
    if (w->put && !w->overflow && n > w->cap - w->len) {
        sim__w_flush(w);
        if (n >= w->cap) {                   /* a long run: to the sink as it is */
            w->put(w->ud, p, n);
            w->done += n;
            return;
        }
    }
    if (w->overflow || n > w->cap - w->len) {
        w->overflow = 1;
        return;
    }
    if (n && w->buf) memcpy(w->buf + w->len, p, n);
    w->len += n;
}

void sim__w_u8(sim_writer *w, uint8_t v) { sim__w_bytes(w, &v, 1); }

void sim__w_u16(sim_writer *w, uint16_t v)
{
    uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    sim__w_bytes(w, b, 2);
}

void sim__w_u32(sim_writer *w, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    sim__w_bytes(w, b, 4);
}

void sim__w_u64(sim_writer *w, uint64_t v)
{
    sim__w_u32(w, (uint32_t)v);
    sim__w_u32(w, (uint32_t)(v >> 32));
}

void sim__w_i32(sim_writer *w, int32_t v) { sim__w_u32(w, (uint32_t)v); }

void sim__w_f64(sim_writer *w, double v)
{
    /* A NaN or infinity in the state is a simulation bug; the caller must never hash one. */
    uint64_t bits;
    memcpy(&bits, &v, 8);
    if (!sim_isfinite(v)) w->overflow = 1;       /* makes the save fail loudly (returns 0) */
    sim__w_u64(w, bits);
}

void sim__w_f32(sim_writer *w, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    if (!sim_isfinite((double)v)) w->overflow = 1;
    sim__w_u32(w, bits);
}

int sim__r_bytes(sim_reader *r, void *p, size_t n)
{
    if (r->err || n > r->len - r->pos) {
        sim__r_fail(r, SIM_ETRUNC);
        if (n) memset(p, 0, n);
        return r->err;
    }
    if (n) memcpy(p, r->buf + r->pos, n);
    r->pos += n;
    return 0;
}

uint8_t sim__r_u8(sim_reader *r)
{
    uint8_t v;
    sim__r_bytes(r, &v, 1);
    return v;
}

uint16_t sim__r_u16(sim_reader *r)
{
    uint8_t b[2];
    sim__r_bytes(r, b, 2);
    return (uint16_t)(b[0] | (b[1] << 8));
}

uint32_t sim__r_u32(sim_reader *r)
{
    uint8_t b[4];
    sim__r_bytes(r, b, 4);
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

uint64_t sim__r_u64(sim_reader *r)
{
    uint64_t lo = sim__r_u32(r);
    uint64_t hi = sim__r_u32(r);
    return lo | (hi << 32);
}

int32_t sim__r_i32(sim_reader *r) { return (int32_t)sim__r_u32(r); }

double sim__r_f64(sim_reader *r)
{
    uint64_t bits = sim__r_u64(r);
    double v;
    memcpy(&v, &bits, 8);
    if (!sim_isfinite(v)) {
        sim__r_fail(r, SIM_ECORRUPT);
        return 0.0;
    }
    return v;
}

float sim__r_f32(sim_reader *r)
{
    uint32_t bits = sim__r_u32(r);
    float v;
    memcpy(&v, &bits, 4);
    if (!sim_isfinite((double)v)) {
        sim__r_fail(r, SIM_ECORRUPT);
        return 0.0f;
    }
    return v;
}

/* ---- formatting -------------------------------------------------------------------------------
 * The core has no stdio, yet its error sentences must name values ("radius 80 is over 64").
 * Supports %s %d %u %lld %llu %c %%; always NUL-terminates; truncates silently. */
static void put_c(char *dst, size_t cap, size_t *n, char c)
{
    if (*n + 1 < cap) dst[*n] = c;
    (*n)++;
}

static void put_u(char *dst, size_t cap, size_t *n, unsigned long long v)
{
    char tmp[24];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    while (k) put_c(dst, cap, n, tmp[--k]);
}

static void put_i(char *dst, size_t cap, size_t *n, long long v)
{
    if (v < 0) {
        put_c(dst, cap, n, '-');
        put_u(dst, cap, n, (unsigned long long)(-(v + 1)) + 1u);
    } else {
        put_u(dst, cap, n, (unsigned long long)v);
    }
}

static void vfmt(char *dst, size_t cap, const char *fmt, va_list ap);

void sim__fmt(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfmt(dst, cap, fmt, ap);
    va_end(ap);
}

void sim_diff_line(sim_diff_out *o, const char *fmt, ...)
{
    o->lines++;
    if (o->lines > o->max_lines || !o->buf || o->len + 2 >= o->cap) return;
    va_list ap;
    va_start(ap, fmt);
    vfmt(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    o->len += strlen(o->buf + o->len);
    if (o->len + 1 < o->cap) {
        o->buf[o->len++] = '\n';
        o->buf[o->len] = '\0';
    }
}

/* ---- desync reports: the shared pieces of every kind's diff ---------------------------------- */
void sim__fmt_double(char *dst, size_t cap, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    char hex[19];
    static const char digits[] = "0123456789abcdef";
    hex[0] = '0';
    hex[1] = 'x';
    for (int i = 0; i < 16; i++) hex[2 + i] = digits[(bits >> (60 - 4 * i)) & 0xF];
    hex[18] = '\0';
    if (!sim_isfinite(v) || (v < 0.0 ? -v : v) >= 9.0e12) {
        sim__fmt(dst, cap, "(%s)", hex);
        return;
    }
    int neg = v < 0.0;
    double a = neg ? -v : v;
    long long ip = (long long)a;
    long long frac = (long long)((a - (double)ip) * 1e6 + 0.5);
    if (frac >= 1000000) {
        ip++;
        frac -= 1000000;
    }
    char fs[8];
    for (int i = 5; i >= 0; i--) {
        fs[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    fs[6] = '\0';
    sim__fmt(dst, cap, "%s%lld.%s (%s)", neg ? "-" : "", ip, fs, hex);
}

long sim__diff_int(sim_diff_out *o, const char *what, long long a, long long b)
{
    if (a == b) return 0;
    sim_diff_line(o, "%s: %lld → %lld", what, a, b);
    return 1;
}

long sim__diff_f64(sim_diff_out *o, const char *what, double a, double b)
{
    if (memcmp(&a, &b, sizeof a) == 0) return 0;
    char sa[64], sb[64];
    sim__fmt_double(sa, sizeof sa, a);
    sim__fmt_double(sb, sizeof sb, b);
    sim_diff_line(o, "%s: %s → %s", what, sa, sb);
    return 1;
}

/* ---- PCG32 streams as state ---------------------------------------------------------------- */
void sim__w_rng(sim_writer *w, const sim_rng *r)
{
    sim__w_u64(w, r->state);
    sim__w_u64(w, r->inc);
}

void sim__r_rng(sim_reader *r, sim_rng *rng)
{
    rng->state = sim__r_u64(r);
    rng->inc = sim__r_u64(r);
    if (!(rng->inc & 1)) sim__r_fail(r, SIM_ECORRUPT);    /* PCG's increment is always odd */
}

static void vfmt(char *dst, size_t cap, const char *fmt, va_list ap)
{
    if (!dst || cap == 0) return;
    size_t n = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') {
            put_c(dst, cap, &n, *p);
            continue;
        }
        p++;
        if (*p == 's') {
            const char *s = va_arg(ap, const char *);
            for (s = s ? s : "(null)"; *s; s++) put_c(dst, cap, &n, *s);
        } else if (*p == 'd') {
            put_i(dst, cap, &n, va_arg(ap, int));
        } else if (*p == 'u') {
            put_u(dst, cap, &n, va_arg(ap, unsigned));
        } else if (*p == 'c') {
            put_c(dst, cap, &n, (char)va_arg(ap, int));
        } else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'd') {
            put_i(dst, cap, &n, va_arg(ap, long long));
            p += 2;
        } else if (p[0] == 'l' && p[1] == 'l' && p[2] == 'u') {
            put_u(dst, cap, &n, va_arg(ap, unsigned long long));
            p += 2;
        } else if (*p == '%') {
            put_c(dst, cap, &n, '%');
        } else {
            if (!*p) break;
            put_c(dst, cap, &n, '%');
            put_c(dst, cap, &n, *p);
        }
    }
    dst[n < cap ? n : cap - 1] = '\0';
}
