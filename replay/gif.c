/* gif.c — animated GIF export with giflib. Frames are already palette-indexed, so the GIF uses
 * the frame's own palette (padded to a power of two): no quantising, no dithering, no loss.
 *
 * Each frame after the first writes only the bounding box of the pixels that changed (disposal
 * "do not dispose"), as gifsicle -O1 would; a frame whose palette differs from the global one
 * carries a local colour table and is written whole. Delays are whole centiseconds; the writer
 * spreads the remainders so the average rate is exact (at 60 Hz with every=2: 3, 3, 4, 3, 3, 4…). */
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
    uint8_t *prev;                /* the previous frame's indexes (unscaled) */
    sim_palette prevpal;
    uint8_t *line;                /* one scaled row */
    char err[200];
};

static ColorMapObject *make_map(const sim_palette *p)
{
    int n = p->count ? p->count : 1, size = 2;
    while (size < n) size *= 2;
    GifColorType colors[256];
    memset(colors, 0, sizeof colors);
    for (int i = 0; i < n; i++) {
        colors[i].Red = p->rgb[3 * i];
        colors[i].Green = p->rgb[3 * i + 1];
        colors[i].Blue = p->rgb[3 * i + 2];
    }
    return GifMakeMapObject(size, colors);
}

static int same_palette(const sim_palette *a, const sim_palette *b)
{
    return a->count == b->count && memcmp(a->rgb, b->rgb, (size_t)a->count * 3) == 0;
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
    g->prev = malloc((size_t)w * (size_t)h);
    g->line = malloc((size_t)w * (size_t)scale);
    int e = 0;
    /* Open it ourselves: giflib would create the file mode 0600. */
    int fd = (g->prev && g->line) ? open(g->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
    if (fd < 0 && g->prev && g->line) {
        snprintf(err, errlen, "gif: cannot create %s: %s", g->tmp, strerror(errno));
        free(g->prev); free(g->line); free(g);
        return NULL;
    }
    g->gif = fd >= 0 ? EGifOpenFileHandle(fd, &e) : NULL;
    if (!g->gif) {
        if (fd >= 0) {
            close(fd);
            unlink(g->tmp);
        }
        snprintf(err, errlen, "gif: cannot create %s: %s", g->tmp,
                 e ? GifErrorString(e) : "out of memory");
        free(g->prev); free(g->line); free(g);
        return NULL;
    }
    EGifSetGifVersion(g->gif, true);
    return g;
}

/* Write the rectangle (x0,y0)-(x1,y1) of f, scaled. 0, or RPL_EIMAGE (giflib's error in g->gif). */
static int put_rect(rpl_gif *g, const sim_frame *f, int x0, int y0, int x1, int y1,
                    const ColorMapObject *local, int delay)
{
    GraphicsControlBlock gcb = { DISPOSE_DO_NOT, false, delay, NO_TRANSPARENT_COLOR };
    GifByteType ext[4];
    size_t n = EGifGCBToExtension(&gcb, ext);
    int s = g->scale;
    if (EGifPutExtension(g->gif, GRAPHICS_EXT_FUNC_CODE, (int)n, ext) == GIF_ERROR) return RPL_EIMAGE;
    if (EGifPutImageDesc(g->gif, x0 * s, y0 * s, (x1 - x0 + 1) * s, (y1 - y0 + 1) * s, false,
                         local) == GIF_ERROR)
        return RPL_EIMAGE;
    int maxidx = (local ? local->ColorCount : g->gif->SColorMap->ColorCount) - 1;
    for (int y = y0; y <= y1; y++) {
        const uint8_t *src = &f->px[(size_t)y * f->w];
        int k = 0;
        for (int x = x0; x <= x1; x++)
            for (int r = 0; r < s; r++) g->line[k++] = src[x] <= maxidx ? src[x] : 0;
        for (int r = 0; r < s; r++)
            if (EGifPutLine(g->gif, g->line, k) == GIF_ERROR) return RPL_EIMAGE;
    }
    return 0;
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
    if (g->nframes == 0) {
        g->global = f->pal;
        ColorMapObject *map = make_map(&f->pal);
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
        rc = put_rect(g, f, 0, 0, g->w - 1, g->h - 1, NULL, delay);
    } else {
        int x0 = 0, y0 = 0, x1 = g->w - 1, y1 = g->h - 1;
        if (same_palette(&f->pal, &g->prevpal)) {
            /* Only the changed box; an unchanged frame still needs one pixel for its delay. */
            x0 = g->w; y0 = g->h; x1 = -1; y1 = -1;
            for (int y = 0; y < g->h; y++) {
                const uint8_t *a = &f->px[(size_t)y * g->w], *b = &g->prev[(size_t)y * g->w];
                if (memcmp(a, b, (size_t)g->w) == 0) continue;
                if (y < y0) y0 = y;
                y1 = y;
                for (int x = 0; x < g->w; x++)
                    if (a[x] != b[x]) {
                        if (x < x0) x0 = x;
                        if (x > x1) x1 = x;
                    }
            }
            if (x1 < 0) x0 = x1 = y0 = y1 = 0;
        }
        ColorMapObject *local = same_palette(&f->pal, &g->global) ? NULL : make_map(&f->pal);
        if (!same_palette(&f->pal, &g->global) && !local) goto no_memory;
        rc = put_rect(g, f, x0, y0, x1, y1, local, delay);
        if (local) GifFreeMapObject(local);
    }
    if (rc) goto gif_error;
    memcpy(g->prev, f->px, (size_t)g->w * g->h);
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
    free(g->line);
    free(g);
}
