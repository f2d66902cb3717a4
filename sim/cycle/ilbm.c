/* ilbm.c — IFF ILBM and PBM scenes in and out, with their colour-cycling ranges: the files Deluxe
 * Paint and Grafx2 write, Ferrari's own format.
 *
 * Reading: FORM ILBM (planar: rows of 1–8 bitplanes, word-aligned, an optional interleaved mask
 * plane) or FORM PBM (chunky: a byte a pixel, rows padded to even); BMHD, CMAP, CAMG (EHB expands
 * the palette, HAM is refused), BODY uncompressed or ByteRun1; CRNG (rate, ACTIVE and REVERSE
 * flags, low, high) and CCRT (direction, low, high, step interval) ranges; other chunks skipped.
 * A private chunk VIVC (one byte of direction and one of mode per range, then, for a scene that
 * plays by Canvas Cycle's timing, the byte 1) carries what CRNG cannot say — ping-pong, Canvas
 * Cycle's sine swings, BlendShift, and which clock the rates are for — so our own files round-trip;
 * other readers skip it, as IFF says, and read the rates as CRNG rates (which is what a Canvas
 * Cycle rate is: lbm2json copied it from CRNG).
 *
 * Everything is a pure function of (bytes, length): no file access, no globals, every read
 * bounds-checked, every failure an SIM_EFILE with a sentence. It is meant to be a fuzz target. */
#include "scene_int.h"
#include <stdlib.h>

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static void id_text(const uint8_t *id, char *out)
{
    for (int i = 0; i < 4; i++) out[i] = (id[i] >= 32 && id[i] < 127) ? (char)id[i] : '?';
    out[4] = '\0';
}

/* ByteRun1: fill out[0..n) from the stream at *pos (ending at end). Runs may cross row and plane
 * boundaries (some writers do that); a run that overshoots the row is carried into `carry`.
 * 0, or -1 when the stream ends first. */
typedef struct unpacker {
    const uint8_t *p, *end;
    uint8_t rep;             /* a repeat run in progress: the byte… */
    int left;                /* …and how many copies are still owed (negative: literals owed) */
} unpacker;

static int unpack(unpacker *u, uint8_t *out, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (u->left > 0) {                       /* finish a repeat run */
            out[i++] = u->rep;
            u->left--;
            continue;
        }
        if (u->left < 0) {                       /* finish a literal run */
            if (u->p >= u->end) return -1;
            out[i++] = *u->p++;
            u->left++;
            continue;
        }
        if (u->p >= u->end) return -1;
        int8_t c = (int8_t)*u->p++;
        if (c >= 0) {
            u->left = -((int)c + 1);
        } else if (c != -128) {
            if (u->p >= u->end) return -1;
            u->rep = *u->p++;
            u->left = -(int)c + 1;
        }
    }
    return 0;
}

int sim_cycle_from_ilbm(const uint8_t *buf, size_t len, sim_cycle_scene *out, char *notes,
                        size_t noteslen, char *err, size_t errlen)
{
    char msg[160], tag[5];
    memset(out, 0, sizeof *out);
    if (notes && noteslen) notes[0] = '\0';
    if (!buf || len < 12) {
        sim__fmt(err, errlen, "IFF: file is %u bytes, too short for a FORM header", (unsigned)len);
        return SIM_EFILE;
    }
    if (memcmp(buf, "FORM", 4) != 0) {
        sim__fmt(err, errlen, "IFF: not an IFF file (no FORM at the start)");
        return SIM_EFILE;
    }
    uint32_t formlen = be32(buf + 4);
    int pbm;
    if (memcmp(buf + 8, "ILBM", 4) == 0) pbm = 0;
    else if (memcmp(buf + 8, "PBM ", 4) == 0) pbm = 1;
    else {
        id_text(buf + 8, tag);
        sim__fmt(err, errlen, "IFF: FORM %s is not a picture (ILBM or PBM)", tag);
        return SIM_EFILE;
    }
    if (formlen < 4 || (uint64_t)formlen + 8 > len) {
        sim__fmt(err, errlen, "IFF: FORM says %u bytes but the file holds %u after its header "
                 "(truncated?)", (unsigned)formlen, (unsigned)(len - 8));
        return SIM_EFILE;
    }
    const uint8_t *end = buf + 8 + formlen;
    const uint8_t *bmhd = NULL, *cmap = NULL, *body = NULL;
    uint32_t cmaplen = 0, bodylen = 0, camg = 0;
    const uint8_t *vivc = NULL;
    uint32_t vivclen = 0;
    /* Ranges as found, before the checks. */
    struct { int low, high, rate, dir, active; } raw[64];
    int nraw = 0, nextra = 0;
    const uint8_t *p = buf + 12;
    while (p < end) {
        if (end - p < 8) {
            sim__fmt(err, errlen, "IFF: %u stray bytes at the end of the FORM (a truncated chunk "
                     "header)", (unsigned)(end - p));
            return SIM_EFILE;
        }
        uint32_t clen = be32(p + 4);
        id_text(p, tag);
        if (clen > (uint64_t)(end - p) - 8) {
            sim__fmt(err, errlen, "IFF: chunk %s at offset %u says %u bytes, only %u are left in "
                     "the FORM", tag, (unsigned)(p - buf), (unsigned)clen, (unsigned)(end - p - 8));
            return SIM_EFILE;
        }
        const uint8_t *d = p + 8;
        if (memcmp(p, "BMHD", 4) == 0) {
            if (clen < 20) {
                sim__fmt(err, errlen, "IFF: BMHD is %u bytes; it needs 20", (unsigned)clen);
                return SIM_EFILE;
            }
            bmhd = d;
        } else if (memcmp(p, "CMAP", 4) == 0) {
            cmap = d;
            cmaplen = clen;
        } else if (memcmp(p, "CAMG", 4) == 0) {
            if (clen < 4) {
                sim__fmt(err, errlen, "IFF: CAMG is %u bytes; it needs 4", (unsigned)clen);
                return SIM_EFILE;
            }
            camg = be32(d);
        } else if (memcmp(p, "BODY", 4) == 0) {
            body = d;
            bodylen = clen;
        } else if (memcmp(p, "VIVC", 4) == 0) {
            vivc = d;
            vivclen = clen;
        } else if (memcmp(p, "CRNG", 4) == 0 || memcmp(p, "CCRT", 4) == 0) {
            uint32_t need = p[1] == 'R' ? 8 : 14;
            if (clen < need) {
                sim__fmt(err, errlen, "IFF: %s at offset %u is %u bytes; it needs %u", tag,
                         (unsigned)(p - buf), (unsigned)clen, (unsigned)need);
                return SIM_EFILE;
            }
            if (nraw == (int)(sizeof raw / sizeof raw[0])) {
                nextra++;
            } else if (p[1] == 'R') {                      /* CRNG: pad, rate, flags, low, high */
                raw[nraw].rate = be16(d + 2);
                int flags = be16(d + 4);
                raw[nraw].active = flags & 1;
                raw[nraw].dir = (flags & 2) ? SIM_CYCLE_REVERSE : SIM_CYCLE_FORWARD;
                raw[nraw].low = d[6];
                raw[nraw].high = d[7];
                nraw++;
            } else {                                       /* CCRT: dir, low, high, s, µs, pad */
                int dir = (int16_t)be16(d);
                uint64_t us = (uint64_t)be32(d + 4) * 1000000u + be32(d + 8);
                /* A step every `us` microseconds is 10⁶/us steps a second; ×16384/60. */
                uint64_t rate = us ? ((uint64_t)2 * 16384 * 1000000 + 60 * us) / (120 * us) : 0;
                raw[nraw].rate = rate > SIM_CYCLE_RATE_MAX ? SIM_CYCLE_RATE_MAX : (int)rate;
                raw[nraw].active = dir != 0;
                raw[nraw].dir = dir < 0 ? SIM_CYCLE_REVERSE : SIM_CYCLE_FORWARD;
                raw[nraw].low = d[2];
                raw[nraw].high = d[3];
                nraw++;
            }
        }
        p = d + clen + (clen & 1);
        if (p > end) p = end;                  /* a missing pad byte at the very end is common */
    }
    if (!bmhd) {
        sim__fmt(err, errlen, "IFF: no BMHD chunk (the bitmap header)");
        return SIM_EFILE;
    }
    if (!body) {
        sim__fmt(err, errlen, "IFF: no BODY chunk (the pixels)");
        return SIM_EFILE;
    }
    int w = be16(bmhd), h = be16(bmhd + 2);
    int planes = bmhd[8], masking = bmhd[9], comp = bmhd[10];
    if (w < 1 || h < 1 || w > SIM_CYCLE_MAX_W || h > SIM_CYCLE_MAX_H) {
        sim__fmt(err, errlen, "IFF: image is %dx%d; a cycle scene is 1x1 to %dx%d", w, h,
                 SIM_CYCLE_MAX_W, SIM_CYCLE_MAX_H);
        return SIM_EFILE;
    }
    if (camg & 0x800) {
        sim__fmt(err, errlen, "IFF: a HAM image has no palette to cycle");
        return SIM_EFILE;
    }
    if (pbm ? planes != 8 : (planes < 1 || planes > 8)) {
        sim__fmt(err, errlen, "IFF: %d bitplanes; a palette %s has %s", planes, pbm ? "PBM" : "ILBM",
                 pbm ? "8" : "1 to 8 (24 and 32 are true colour, with no palette to cycle)");
        return SIM_EFILE;
    }
    if (comp > 1) {
        sim__fmt(err, errlen, "IFF: unknown BODY compression %d (0 = none and 1 = ByteRun1 are "
                 "the ones that exist)", comp);
        return SIM_EFILE;
    }
    if (masking > 3) {
        sim__fmt(err, errlen, "IFF: unknown masking %d", masking);
        return SIM_EFILE;
    }
    if (!cmap || cmaplen < 3) {
        sim__fmt(err, errlen, "IFF: no CMAP chunk (the palette)");
        return SIM_EFILE;
    }
    int ncol = (int)(cmaplen / 3);
    if (ncol > SIM_PALETTE_MAX) {
        sim__fmt(msg, sizeof msg, "CMAP has %d colours; the first 256 are used", ncol);
        sim__cycle_note(notes, noteslen, msg);
        ncol = SIM_PALETTE_MAX;
    }
    memcpy(out->rgb, cmap, (size_t)ncol * 3);
    if ((camg & 0x80) && planes == 6 && ncol <= 32) {
        /* Extra Half-Brite: entries 32..63 are 0..31 at half brightness. */
        for (int i = ncol; i < 32; i++) memset(&out->rgb[3 * i], 0, 3);
        for (int i = 0; i < 96; i++) out->rgb[96 + i] = (uint8_t)(out->rgb[i] >> 1);
        ncol = 64;
    }

    /* The pixels. */
    size_t npx = (size_t)w * (size_t)h;
    out->px = calloc(npx, 1);
    if (!out->px) {
        sim__fmt(err, errlen, "IFF: out of memory for a %dx%d image", w, h);
        return SIM_ENOMEM;
    }
    int rowbytes = pbm ? w + (w & 1) : ((w + 15) / 16) * 2;
    int nplanes = pbm ? 1 : planes + (masking == 1 ? 1 : 0);
    uint8_t row[9 * (SIM_CYCLE_MAX_W / 8)];     /* 8 planes + a mask of 80 bytes; PBM ≤ 640 */
    size_t need = (size_t)rowbytes * (size_t)nplanes;
    unpacker u = { body, body + bodylen, 0, 0 };
    int maxpx = 0;
    for (int y = 0; y < h; y++) {
        if (comp == 1) {
            if (unpack(&u, row, need) != 0) goto short_body;
        } else {
            if ((size_t)(u.end - u.p) < need) goto short_body;
            memcpy(row, u.p, need);
            u.p += need;
        }
        uint8_t *dst = out->px + (size_t)y * w;
        if (pbm) {
            memcpy(dst, row, (size_t)w);
        } else {
            for (int x = 0; x < w; x++) {
                int byte = x >> 3, bit = 7 - (x & 7), v = 0;
                for (int pl = 0; pl < planes; pl++) v |= ((row[pl * rowbytes + byte] >> bit) & 1) << pl;
                dst[x] = (uint8_t)v;
            }
        }
        for (int x = 0; x < w; x++)
            if (dst[x] > maxpx) maxpx = dst[x];
    }
    if (maxpx >= ncol) {
        sim_cycle_scene_free(out);
        memset(out, 0, sizeof *out);
        sim__fmt(err, errlen, "IFF: pixels use colour %d but CMAP has only %d colours (a truncated "
                 "CMAP?)", maxpx, ncol);
        return SIM_EFILE;
    }
    out->w = (uint16_t)w;
    out->h = (uint16_t)h;
    out->ncolors = (uint16_t)ncol;

    /* Ranges: keep what can cycle in this palette, say what was dropped. */
    int dropped = 0;
    for (int i = 0; i < nraw; i++) {
        int lo = raw[i].low, hi = raw[i].high;
        if (hi >= ncol) hi = ncol - 1;
        if (lo >= hi) {
            if (raw[i].active && raw[i].rate) dropped++;
            continue;
        }
        if (out->nranges == SIM_CYCLE_MAX_RANGES) {
            nextra++;
            continue;
        }
        sim_cycle_range *r = &out->ranges[out->nranges];
        r->low = (uint8_t)lo;
        r->high = (uint8_t)hi;
        r->rate = (uint16_t)raw[i].rate;
        r->dir = (uint8_t)raw[i].dir;
        r->mode = SIM_CYCLE_STANDARD;
        r->active = (uint8_t)raw[i].active;
        out->nranges++;
    }
    if (vivc) {
        /* Our own extension: direction and mode of each kept range, in file order, and the
         * timing byte after them when it is Canvas Cycle's. */
        if (vivclen != 2u * out->nranges && vivclen != 2u * out->nranges + 1) {
            sim__fmt(err, errlen, "IFF: VIVC describes %u ranges but the file has %u",
                     (unsigned)(vivclen / 2), (unsigned)out->nranges);
            goto bad_scene;
        }
        if (vivclen & 1) {
            if (vivc[vivclen - 1] != SIM_CYCLE_TIMING_CANVAS) {
                sim__fmt(err, errlen, "IFF: VIVC gives timing %u (1 is Canvas Cycle's)",
                         (unsigned)vivc[vivclen - 1]);
                goto bad_scene;
            }
            out->timing = SIM_CYCLE_TIMING_CANVAS;
        }
        int dirmax = out->timing == SIM_CYCLE_TIMING_CANVAS ? SIM_CYCLE_SINE_FULL : SIM_CYCLE_PINGPONG;
        for (int i = 0; i < out->nranges; i++) {
            if (vivc[2 * i] > dirmax || vivc[2 * i + 1] > SIM_CYCLE_BLEND) {
                sim__fmt(err, errlen, "IFF: VIVC gives range %d direction %u and mode %u", i,
                         (unsigned)vivc[2 * i], (unsigned)vivc[2 * i + 1]);
                goto bad_scene;
            }
            out->ranges[i].dir = vivc[2 * i];
            out->ranges[i].mode = vivc[2 * i + 1];
        }
    }
    if (dropped) {
        sim__fmt(msg, sizeof msg, "%d active range%s with nothing to cycle (low ≥ high) dropped",
                 dropped, dropped == 1 ? "" : "s");
        sim__cycle_note(notes, noteslen, msg);
    }
    if (nextra) {
        sim__fmt(msg, sizeof msg, "%d range%s beyond the first %d dropped", nextra,
                 nextra == 1 ? "" : "s", SIM_CYCLE_MAX_RANGES);
        sim__cycle_note(notes, noteslen, msg);
    }
    return 0;
bad_scene:
    sim_cycle_scene_free(out);
    memset(out, 0, sizeof *out);
    return SIM_EFILE;
short_body:
    sim_cycle_scene_free(out);
    memset(out, 0, sizeof *out);
    sim__fmt(err, errlen, "IFF: BODY ends before the image does (%u bytes for %dx%d, %d plane%s, "
             "%s)", (unsigned)bodylen, w, h, nplanes, nplanes == 1 ? "" : "s",
             comp ? "ByteRun1" : "uncompressed");
    return SIM_EFILE;
}

/* ---- writing ------------------------------------------------------------------------------------ */
typedef struct bew {
    uint8_t *buf;
    size_t cap, len;
} bew;

static void put(bew *b, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++, b->len++)
        if (b->len < b->cap) b->buf[b->len] = ((const uint8_t *)p)[i];
}
static void put8(bew *b, unsigned v) { uint8_t c = (uint8_t)v; put(b, &c, 1); }
static void put16(bew *b, unsigned v) { put8(b, v >> 8); put8(b, v); }
static void put32(bew *b, uint32_t v) { put16(b, v >> 16); put16(b, v & 0xFFFFu); }
static void patch32(bew *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        if (at + (size_t)i < b->cap) b->buf[at + (size_t)i] = (uint8_t)(v >> (24 - 8 * i));
}
static size_t chunk_begin(bew *b, const char *id)
{
    put(b, id, 4);
    put32(b, 0);
    return b->len;
}
static void chunk_end(bew *b, size_t start)
{
    patch32(b, start - 4, (uint32_t)(b->len - start));
    if ((b->len - start) & 1) put8(b, 0);
}

/* ByteRun1 (PackBits) of n bytes: repeats of 3 or more become runs, the rest literals. */
static void pack_row(bew *b, const uint8_t *s, int n)
{
    int i = 0;
    while (i < n) {
        int run = 1;
        while (i + run < n && run < 128 && s[i + run] == s[i]) run++;
        if (run >= 3) {
            put8(b, (unsigned)(257 - run) & 0xFFu);
            put8(b, s[i]);
            i += run;
            continue;
        }
        int lit = 0;
        while (i + lit < n && lit < 128) {
            if (i + lit + 2 < n && s[i + lit] == s[i + lit + 1] && s[i + lit] == s[i + lit + 2]) break;
            lit++;
        }
        put8(b, (unsigned)(lit - 1));
        put(b, s + i, (size_t)lit);
        i += lit;
    }
}

size_t sim_cycle_to_ilbm(const sim_cycle_scene *s, int pbm, uint8_t *buf, size_t cap)
{
    char why[8];
    if (sim_cycle_scene_check(s, why, sizeof why) != 0) return 0;
    bew b = { buf, cap, 0 };
    int planes = 1;
    while ((1 << planes) < s->ncolors) planes++;
    if (pbm) planes = 8;
    put(&b, "FORM", 4);
    put32(&b, 0);
    put(&b, pbm ? "PBM " : "ILBM", 4);
    size_t at = chunk_begin(&b, "BMHD");
    put16(&b, s->w);
    put16(&b, s->h);
    put16(&b, 0);
    put16(&b, 0);
    put8(&b, (unsigned)planes);
    put8(&b, 0);                     /* no mask */
    put8(&b, 1);                     /* ByteRun1 */
    put8(&b, 0);
    put16(&b, 0);                    /* transparent colour */
    put8(&b, 1);                     /* square pixels */
    put8(&b, 1);
    put16(&b, s->w);
    put16(&b, s->h);
    chunk_end(&b, at);
    at = chunk_begin(&b, "CMAP");
    put(&b, s->rgb, (size_t)s->ncolors * 3);
    chunk_end(&b, at);
    for (int i = 0; i < s->nranges; i++) {
        const sim_cycle_range *r = &s->ranges[i];
        at = chunk_begin(&b, "CRNG");
        put16(&b, 0);
        put16(&b, r->rate);
        put16(&b, (r->active ? 1u : 0u) | (r->dir == SIM_CYCLE_REVERSE ? 2u : 0u));
        put8(&b, r->low);
        put8(&b, r->high);
        chunk_end(&b, at);
    }
    if (s->nranges || s->timing != SIM_CYCLE_TIMING_CRNG) {
        at = chunk_begin(&b, "VIVC");
        for (int i = 0; i < s->nranges; i++) {
            put8(&b, s->ranges[i].dir);
            put8(&b, s->ranges[i].mode);
        }
        if (s->timing != SIM_CYCLE_TIMING_CRNG) put8(&b, s->timing);
        chunk_end(&b, at);
    }
    at = chunk_begin(&b, "BODY");
    int rowbytes = pbm ? s->w + (s->w & 1) : ((s->w + 15) / 16) * 2;
    uint8_t plane[SIM_CYCLE_MAX_W + 2];
    for (int y = 0; y < s->h; y++) {
        const uint8_t *src = s->px + (size_t)y * s->w;
        if (pbm) {
            memcpy(plane, src, s->w);
            if (s->w & 1) plane[s->w] = 0;
            pack_row(&b, plane, rowbytes);
            continue;
        }
        for (int pl = 0; pl < planes; pl++) {
            memset(plane, 0, (size_t)rowbytes);
            for (int x = 0; x < s->w; x++)
                if ((src[x] >> pl) & 1) plane[x >> 3] |= (uint8_t)(0x80u >> (x & 7));
            pack_row(&b, plane, rowbytes);
        }
    }
    chunk_end(&b, at);
    patch32(&b, 4, (uint32_t)(b.len - 8));
    return b.len;
}
