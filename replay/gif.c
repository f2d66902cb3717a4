/* gif.c — animated GIF export with giflib. Frames are already palette-indexed, so the GIF uses
 * the frame's own palette (padded to a power of two): no quantising, no dithering, no loss.
 *
 * Each frame after the first writes only the bounding box of the pixels whose colour changed,
 * with the unchanged pixels inside it transparent and disposal "do not dispose", as gifsicle -O2
 * would: the long transparent runs cost LZW almost nothing. Colours are compared as RGB, so a
 * palette-cycling frame writes only the pixels whose colour cycled, with its palette as a local
 * colour table. Delays are whole centiseconds; the writer spreads the remainders so the average
 * rate is exact (at 60 Hz with every=2: 3, 3, 4, 3, 3, 4…). bench/gif.sh compares the sizes with
 * gifsicle -O3. */
#include "replay.h"
#include <errno.h>
#include <fcntl.h>
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rpl_gif {
    GifFileType *gif;
    char path[4096], tmp[4200];
    int w, h, scale;              /* frame size, and the pixel scale */
    unsigned hz, every;
    uint64_t nframes;
    sim_palette global;           /* the first frame's palette */
    int gsize;                    /* entries in the global colour table (a power of two) */
    uint8_t *prev;                /* what a viewer shows now: indexes into prevpal (unscaled) */
    sim_palette prevpal;
    uint8_t *cur;                 /* this frame's indexes, those past the palette read as 0 */
    uint8_t *changed;             /* 1 where this frame's colour differs from the shown one */
    uint8_t *line;                /* one scaled row */
    char err[200];
};

static int pow2_at_least(int n)
{
    int size = 2;                 /* GIF's smallest table */
    while (size < n) size *= 2;
    return size;
}

static ColorMapObject *make_map(const sim_palette *p, int size)
{
    GifColorType colors[256];
    memset(colors, 0, sizeof colors);
    for (int i = 0; i < p->count && i < size; i++) {
        colors[i].Red = p->rgb[3 * i];
        colors[i].Green = p->rgb[3 * i + 1];
        colors[i].Blue = p->rgb[3 * i + 2];
    }
    return GifMakeMapObject(size, colors);
}

static uint32_t rgb_at(const sim_palette *p, int i)
{
    const uint8_t *c = &p->rgb[3 * i];
    return (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
}

rpl_gif *rpl_gif_open(const char *path, int w, int h, int scale, unsigned hz, unsigned every,
                      char *err, size_t errlen)
{
    if (scale < 1 || scale > 16 || w < 1 || h < 1 || w * scale > 65535 || h * scale > 65535 ||
        hz == 0 || every == 0) {
        snprintf(err, errlen, "gif: bad size %dx%d at scale %d, or rate %u/%u", w, h, scale, hz, every);
        return NULL;
    }
    rpl_gif *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "gif: out of memory");
        return NULL;
    }
    g->w = w; g->h = h; g->scale = scale; g->hz = hz; g->every = every;
    snprintf(g->path, sizeof g->path, "%s", path);
    snprintf(g->tmp, sizeof g->tmp, "%s.tmp.%ld", path, (long)getpid());
    size_t n = (size_t)w * (size_t)h;
    g->prev = malloc(n);
    g->cur = malloc(n);
    g->changed = malloc(n);
    g->line = malloc((size_t)w * (size_t)scale);
    int ok = g->prev && g->cur && g->changed && g->line, e = 0;
    /* Open it ourselves: giflib would create the file mode 0600. */
    int fd = ok ? open(g->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
    if (fd < 0 && ok) {
        snprintf(err, errlen, "gif: cannot create %s: %s", g->tmp, strerror(errno));
        goto fail;
    }
    g->gif = fd >= 0 ? EGifOpenFileHandle(fd, &e) : NULL;
    if (!g->gif) {
        if (fd >= 0) {
            close(fd);
            unlink(g->tmp);
        }
        snprintf(err, errlen, "gif: cannot create %s: %s", g->tmp,
                 e ? GifErrorString(e) : "out of memory");
        goto fail;
    }
    EGifSetGifVersion(g->gif, true);
    return g;
fail:
    free(g->prev); free(g->cur); free(g->changed); free(g->line); free(g);
    return NULL;
}

/* Write the rectangle (x0,y0)-(x1,y1) of this frame, scaled: a changed pixel as its index, an
 * unchanged one as `trans` (or as its index when trans < 0). 0, or RPL_EIMAGE (giflib's error in
 * g->gif). */
static int put_rect(rpl_gif *g, int x0, int y0, int x1, int y1, const ColorMapObject *local,
                    int trans, int delay)
{
    GraphicsControlBlock gcb = { DISPOSE_DO_NOT, false, delay,
                                 trans >= 0 ? trans : NO_TRANSPARENT_COLOR };
    GifByteType ext[4];
    size_t n = EGifGCBToExtension(&gcb, ext);
    int s = g->scale;
    if (EGifPutExtension(g->gif, GRAPHICS_EXT_FUNC_CODE, (int)n, ext) == GIF_ERROR) return RPL_EIMAGE;
    /* giflib keeps a copy of the last local colour table in Image.ColorMap and, when the next
     * image has none, overwrites the pointer without freeing it (giflib 5.2): free it here. */
    if (!local && g->gif->Image.ColorMap) {
        GifFreeMapObject(g->gif->Image.ColorMap);
        g->gif->Image.ColorMap = NULL;
    }
    if (EGifPutImageDesc(g->gif, x0 * s, y0 * s, (x1 - x0 + 1) * s, (y1 - y0 + 1) * s, false,
                         local) == GIF_ERROR)
        return RPL_EIMAGE;
    for (int y = y0; y <= y1; y++) {
        const uint8_t *src = &g->cur[(size_t)y * g->w], *ch = &g->changed[(size_t)y * g->w];
        int k = 0;
        for (int x = x0; x <= x1; x++) {
            uint8_t v = trans < 0 || ch[x] ? src[x] : (uint8_t)trans;
            for (int r = 0; r < s; r++) g->line[k++] = v;
        }
        for (int r = 0; r < s; r++)
            if (EGifPutLine(g->gif, g->line, k) == GIF_ERROR) return RPL_EIMAGE;
    }
    return 0;
}

/* The lowest index below size that no pixel of `used` needs, or -1. */
static int free_index(const uint8_t *used, int size)
{
    for (int i = 0; i < size; i++)
        if (!used[i]) return i;
    return -1;
}

/* A frame after the first: only the rectangle whose colours changed (compared as RGB, so a
 * palette-cycling frame writes just the pixels whose colour cycled), unchanged pixels inside it
 * transparent, disposal "do not dispose", so the viewer's canvas is the frame. The global table
 * serves when every written index means there what it means now; otherwise the frame carries its
 * own palette as a local table. An unchanged frame is one transparent pixel carrying the delay. */
static int put_delta(rpl_gif *g, const sim_frame *f, int delay)
{
    int w = g->w, h = g->h;
    int x0 = w, y0 = h, x1 = -1, y1 = -1;
    int same = f->pal.count == g->prevpal.count &&
               memcmp(f->pal.rgb, g->prevpal.rgb, (size_t)f->pal.count * 3) == 0;
    uint32_t curc[256], prevc[256];
    if (!same)
        for (int i = 0; i < 256; i++) {
            curc[i] = i < f->pal.count ? rgb_at(&f->pal, i) : 0;
            prevc[i] = i < g->prevpal.count ? rgb_at(&g->prevpal, i) : 0;
        }
    for (int y = 0; y < h; y++) {
        const uint8_t *a = &g->cur[(size_t)y * w], *b = &g->prev[(size_t)y * w];
        uint8_t *ch = &g->changed[(size_t)y * w];
        int any = 0;
        if (same && memcmp(a, b, (size_t)w) == 0) {
            memset(ch, 0, (size_t)w);
            continue;
        }
        for (int x = 0; x < w; x++) {
            ch[x] = same ? a[x] != b[x] : curc[a[x]] != prevc[b[x]];
            if (ch[x]) {
                if (x < x0) x0 = x;
                if (x > x1) x1 = x;
                any = 1;
            }
        }
        if (any) {
            if (y < y0) y0 = y;
            y1 = y;
        }
    }
    if (x1 < 0) {
        g->changed[0] = 0;
        return put_rect(g, 0, 0, 0, 0, NULL, g->cur[0] < g->gsize ? g->cur[0] : 0, delay);
    }
    /* Which indexes the changed pixels use, and which all the rectangle's pixels use. */
    uint8_t used[256] = { 0 }, used_all[256] = { 0 };
    int maxidx = 0;
    for (int y = y0; y <= y1; y++) {
        const uint8_t *a = &g->cur[(size_t)y * w], *ch = &g->changed[(size_t)y * w];
        for (int x = x0; x <= x1; x++) {
            used_all[a[x]] = 1;
            if (ch[x]) {
                used[a[x]] = 1;
                if (a[x] > maxidx) maxidx = a[x];
            }
        }
    }
    int global_ok = 1, global_all_ok = 1;
    for (int i = 0; i < 256; i++) {
        int means = i < g->gsize && i < f->pal.count && i < g->global.count &&
                    rgb_at(&f->pal, i) == rgb_at(&g->global, i);
        if (used[i] && !means) global_ok = 0;
        if (used_all[i] && !means) global_all_ok = 0;
    }
    int trans = -1, rc;
    if (global_ok && (trans = free_index(used, g->gsize)) >= 0)
        return put_rect(g, x0, y0, x1, y1, NULL, trans, delay);
    if (global_all_ok)      /* every index of the table is needed: the rectangle opaque */
        return put_rect(g, x0, y0, x1, y1, NULL, -1, delay);
    /* A local table: the frame's palette, as large as its indexes need plus a transparent one. */
    int size = pow2_at_least(maxidx + 1);
    if ((trans = free_index(used, size)) < 0 && size < 256) trans = size, size *= 2;
    ColorMapObject *local = make_map(&f->pal, size);   /* trans < 0: all 256 changed, opaque */
    if (!local) return RPL_ENOMEM;
    rc = put_rect(g, x0, y0, x1, y1, local, trans, delay);
    GifFreeMapObject(local);
    return rc;
}

int rpl_gif_frame(rpl_gif *g, const sim_frame *f)
{
    if (f->w != g->w || f->h != g->h) {
        snprintf(g->err, sizeof g->err, "gif: frame is %dx%d, the file is %dx%d", f->w, f->h, g->w, g->h);
        return RPL_EIMAGE;
    }
    /* Delay of this frame: the time until the next, in centiseconds, remainders carried. */
    uint64_t t0 = g->nframes * g->every * 100 / g->hz;
    uint64_t t1 = (g->nframes + 1) * g->every * 100 / g->hz;
    int delay = (int)(t1 - t0);
    int rc;
    size_t n = (size_t)g->w * g->h;
    int count = f->pal.count ? f->pal.count : 1;
    for (size_t i = 0; i < n; i++) g->cur[i] = f->px[i] < count ? f->px[i] : 0;
    if (g->nframes == 0) {
        g->global = f->pal;
        g->gsize = pow2_at_least(count);
        ColorMapObject *map = make_map(&f->pal, g->gsize);
        if (!map) goto no_memory;
        rc = EGifPutScreenDesc(g->gif, g->w * g->scale, g->h * g->scale, 8, 0, map);
        GifFreeMapObject(map);
        if (rc == GIF_ERROR) goto gif_error;
        /* NETSCAPE2.0: loop forever. */
        static const GifByteType app[] = "NETSCAPE2.0";
        static const GifByteType loop[] = { 1, 0, 0 };
        if (EGifPutExtensionLeader(g->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
            EGifPutExtensionBlock(g->gif, 11, app) == GIF_ERROR ||
            EGifPutExtensionBlock(g->gif, 3, loop) == GIF_ERROR ||
            EGifPutExtensionTrailer(g->gif) == GIF_ERROR)
            goto gif_error;
        rc = put_rect(g, 0, 0, g->w - 1, g->h - 1, NULL, -1, delay);
    } else {
        rc = put_delta(g, f, delay);
    }
    if (rc == RPL_ENOMEM) goto no_memory;
    if (rc) goto gif_error;
    memcpy(g->prev, g->cur, n);
    g->prevpal = f->pal;
    g->nframes++;
    return 0;
gif_error:
    snprintf(g->err, sizeof g->err, "gif: writing failed: %s", GifErrorString(g->gif->Error));
    return RPL_EIMAGE;
no_memory:
    snprintf(g->err, sizeof g->err, "gif: out of memory");
    return RPL_ENOMEM;
}

const char *rpl_gif_error(const rpl_gif *g) { return g->err; }
uint64_t rpl_gif_frames(const rpl_gif *g) { return g->nframes; }

int rpl_gif_close(rpl_gif *g, char *err, size_t errlen)
{
    int e = 0, rc = 0;
    if (g->nframes == 0) {
        snprintf(err, errlen, "gif: no frames were written");
        rc = RPL_EIMAGE;
    }
    if (EGifCloseFile(g->gif, &e) == GIF_ERROR && rc == 0) {
        snprintf(err, errlen, "gif: finishing %s failed: %s", g->path, GifErrorString(e));
        rc = RPL_EIMAGE;
    }
    if (rc == 0 && rename(g->tmp, g->path) != 0) {
        snprintf(err, errlen, "gif: cannot rename %s to %s: %s", g->tmp, g->path, strerror(errno));
        rc = RPL_EIMAGE;
    }
    if (rc) unlink(g->tmp);
    free(g->prev);
    free(g->cur);
    free(g->changed);
    free(g->line);
    free(g);
    return rc;
}

void rpl_gif_abort(rpl_gif *g)
{
    int e;
    EGifCloseFile(g->gif, &e);
    unlink(g->tmp);
    free(g->prev);
    free(g->cur);
    free(g->changed);
    free(g->line);
    free(g);
}
