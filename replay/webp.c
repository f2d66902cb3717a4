/* webp.c — animated WebP export with libwebp's WebPAnimEncoder (lossless). Each frame goes to the
 * encoder as ARGB through the frame's own palette, at its start time in milliseconds; the encoder
 * picks key frames and sub-rectangles, merges a frame identical to the one before into its
 * duration, and the library writes the RIFF container: nothing here writes WebP bytes by hand.
 *
 * Timestamps are exact to the millisecond: frame n starts at n·every·1000/hz ms (floored), so the
 * durations spread the remainders the way the GIF writer spreads centiseconds (at 60 Hz with
 * every=2: 33, 33, 34…). The encoder holds the whole animation in memory until close (its API
 * assembles the file at the end); open creates the temporary file, so that a path that cannot be
 * written fails before any frame is encoded, and close writes it and renames it. bench/run.sh
 * compares the sizes with the GIF's and gif2webp's. */
#include "replay.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <webp/encode.h>
#include <webp/mux.h>

#define WEBP_MAX_SIDE 16383            /* WEBP_MAX_DIMENSION of libwebp's format */

struct rpl_webp {
    WebPAnimEncoder *enc;
    WebPConfig config;
    WebPPicture pic;
    FILE *out;                         /* the temporary file, made at open so a bad path fails first */
    char path[4096], tmp[4200];
    int w, h, scale;                   /* frame size, and the pixel scale */
    unsigned hz, every;
    uint64_t nframes;
    char err[200];
};

/* Everything of g let go, the temporary file closed and removed. */
static void webp_discard(rpl_webp *g)
{
    if (g->out) {
        fclose(g->out);
        unlink(g->tmp);
    }
    if (g->enc) WebPAnimEncoderDelete(g->enc);
    WebPPictureFree(&g->pic);          /* safe on a picture never allocated */
    free(g);
}

/* Start of frame n in milliseconds. */
static int start_ms(const rpl_webp *g, uint64_t n)
{
    return (int)(n * g->every * 1000u / g->hz);
}

rpl_webp *rpl_webp_open(const char *path, int w, int h, int scale, unsigned hz, unsigned every,
                        char *err, size_t errlen)
{
    /* every·1000 >= hz keeps each frame at least 1 ms long, so no two start at the same time. */
    if (scale < 1 || scale > 16 || w < 1 || h < 1 || w * scale > WEBP_MAX_SIDE ||
        h * scale > WEBP_MAX_SIDE || hz == 0 || every == 0 || (uint64_t)every * 1000u < hz) {
        snprintf(err, errlen, "webp: bad size %dx%d at scale %d (at most %d pixels a side), or "
                 "rate %u/%u", w, h, scale, WEBP_MAX_SIDE, hz, every);
        return NULL;
    }
    rpl_webp *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "webp: out of memory");
        return NULL;
    }
    g->w = w; g->h = h; g->scale = scale; g->hz = hz; g->every = every;
    snprintf(g->path, sizeof g->path, "%s", path);
    snprintf(g->tmp, sizeof g->tmp, "%s.tmp.%ld", path, (long)getpid());
    g->out = fopen(g->tmp, "wb");
    if (!g->out) {
        snprintf(err, errlen, "webp: cannot create %s: %s", g->tmp, strerror(errno));
        free(g);
        return NULL;
    }
    WebPAnimEncoderOptions eo;
    if (!WebPAnimEncoderOptionsInit(&eo) || !WebPConfigInit(&g->config) || !WebPPictureInit(&g->pic)) {
        snprintf(err, errlen, "webp: this libwebp does not match the headers Vivarium was built with");
        webp_discard(g);
        return NULL;
    }
    eo.anim_params.loop_count = 0;     /* loop forever, as the GIF does */
    eo.allow_mixed = 0;                /* lossless only: every frame exact */
    g->config.lossless = 1;
    g->config.exact = 1;               /* keep the RGB of transparent pixels: nothing is guessed */
    g->pic.use_argb = 1;
    g->pic.width = w * scale;
    g->pic.height = h * scale;
    if (!WebPPictureAlloc(&g->pic)) {
        snprintf(err, errlen, "webp: out of memory for a %dx%d picture", w * scale, h * scale);
        webp_discard(g);
        return NULL;
    }
    g->enc = WebPAnimEncoderNew(w * scale, h * scale, &eo);
    if (!g->enc) {
        snprintf(err, errlen, "webp: out of memory for the animation encoder");
        webp_discard(g);
        return NULL;
    }
    return g;
}

int rpl_webp_frame(rpl_webp *g, const sim_frame *f)
{
    if (f->w != g->w || f->h != g->h) {
        snprintf(g->err, sizeof g->err, "webp: frame is %dx%d, the file is %dx%d", f->w, f->h, g->w, g->h);
        return RPL_EIMAGE;
    }
    uint32_t argb[256];
    int count = f->pal.count;
    for (int i = 0; i < 256; i++) {
        int c = i < count ? i : 0;     /* an index past the palette reads as 0, as in the GIF */
        const uint8_t *rgb = &f->pal.rgb[3 * c];
        argb[i] = count ? 0xff000000u | (uint32_t)rgb[0] << 16 | (uint32_t)rgb[1] << 8 | rgb[2]
                        : 0xff000000u;
    }
    int s = g->scale, W = g->pic.width;
    for (int y = 0; y < g->h; y++) {
        uint32_t *row = &g->pic.argb[(size_t)y * s * g->pic.argb_stride];
        const uint8_t *src = &f->px[(size_t)y * g->w];
        for (int x = 0; x < g->w; x++)
            for (int k = 0; k < s; k++) row[x * s + k] = argb[src[x]];
        for (int k = 1; k < s; k++)
            memcpy(&row[(size_t)k * g->pic.argb_stride], row, (size_t)W * sizeof *row);
    }
    if (!WebPAnimEncoderAdd(g->enc, &g->pic, start_ms(g, g->nframes), &g->config)) {
        snprintf(g->err, sizeof g->err, "webp: encoding frame %llu failed: %s",
                 (unsigned long long)g->nframes, WebPAnimEncoderGetError(g->enc));
        return RPL_EIMAGE;
    }
    g->nframes++;
    return 0;
}

const char *rpl_webp_error(const rpl_webp *g) { return g->err; }
uint64_t rpl_webp_frames(const rpl_webp *g) { return g->nframes; }


int rpl_webp_close(rpl_webp *g, char *err, size_t errlen)
{
    int rc = 0;
    WebPData data;
    WebPDataInit(&data);
    FILE *out = g->out;
    g->out = NULL;
    if (g->nframes == 0) {
        snprintf(err, errlen, "webp: no frames were written");
        rc = RPL_EIMAGE;
        goto done;
    }
    /* The last frame lasts until the end time, as long as the others. */
    if (!WebPAnimEncoderAdd(g->enc, NULL, start_ms(g, g->nframes), NULL) ||
        !WebPAnimEncoderAssemble(g->enc, &data)) {
        snprintf(err, errlen, "webp: finishing %s failed: %s", g->path, WebPAnimEncoderGetError(g->enc));
        rc = RPL_EIMAGE;
        goto done;
    }
    if (fwrite(data.bytes, 1, data.size, out) != data.size || fflush(out) != 0) {
        snprintf(err, errlen, "webp: writing %s failed: %s", g->tmp, strerror(errno));
        rc = RPL_EIMAGE;
    }
    int closed = fclose(out);
    out = NULL;
    if (closed != 0 && rc == 0) {
        snprintf(err, errlen, "webp: writing %s failed: %s", g->tmp, strerror(errno));
        rc = RPL_EIMAGE;
    }
    if (rc == 0 && rename(g->tmp, g->path) != 0) {
        snprintf(err, errlen, "webp: cannot rename %s to %s: %s", g->tmp, g->path, strerror(errno));
        rc = RPL_EIMAGE;
    }
done:
    if (out) fclose(out);
    if (rc) unlink(g->tmp);
    WebPDataClear(&data);
    webp_discard(g);
    return rc;
}

void rpl_webp_abort(rpl_webp *g)
{
    webp_discard(g);
}
