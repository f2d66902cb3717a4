/* image.c — PNG export of palette-index frames with libpng. Frames are already indexed, so the
 * PNG is written as colour type PALETTE with the frame's own palette: no quantising, no loss. */
#include "replay.h"
#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void png_err(png_structp png, png_const_charp msg)
{
    char *err = png_get_error_ptr(png);
    if (err) snprintf(err, 200, "%s", msg);
    png_longjmp(png, 1);
}

static void png_warn(png_structp png, png_const_charp msg)
{
    (void)png; (void)msg;
}

int rpl_png_write(const char *path, const sim_frame *f, int scale, char *err, size_t errlen)
{
    char tmp[4096], perr[200] = "";
    FILE *fp = NULL;
    png_structp png = NULL;
    png_infop info = NULL;
    uint8_t *row = NULL;
    volatile int rc = RPL_EIMAGE;
    if (scale < 1 || scale > 16) {
        snprintf(err, errlen, "png: scale %d is out of range 1..16", scale);
        return RPL_EIMAGE;
    }
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp) {
        snprintf(err, errlen, "png: path too long: %s", path);
        return RPL_EIMAGE;
    }
    fp = fopen(tmp, "wb");
    if (!fp) {
        snprintf(err, errlen, "png: cannot create %s: %s", tmp, strerror(errno));
        return RPL_EIMAGE;
    }
    size_t ow = (size_t)f->w * (size_t)scale;
    row = malloc(ow);
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, perr, png_err, png_warn);
    info = png ? png_create_info_struct(png) : NULL;
    if (!row || !png || !info) {
        snprintf(err, errlen, "png: out of memory");
        goto done;
    }
    if (setjmp(png_jmpbuf(png))) {
        snprintf(err, errlen, "png: writing %s failed: %s", path, perr);
        goto done;
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)ow, (png_uint_32)f->h * (png_uint_32)scale, 8,
                 PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_color pal[SIM_PALETTE_MAX];
    int n = f->pal.count ? f->pal.count : 1;
    for (int i = 0; i < n; i++) {
        pal[i].red = f->pal.rgb[i * 3];
        pal[i].green = f->pal.rgb[i * 3 + 1];
        pal[i].blue = f->pal.rgb[i * 3 + 2];
    }
    png_set_PLTE(png, info, pal, n);
    png_write_info(png, info);
    for (int y = 0; y < f->h; y++) {
        const uint8_t *src = &f->px[(size_t)y * f->w];
        for (size_t x = 0; x < ow; x++) {
            uint8_t v = src[x / (size_t)scale];
            row[x] = v < n ? v : 0;          /* an index past the palette would be invalid PNG */
        }
        for (int k = 0; k < scale; k++) png_write_row(png, row);
    }
    png_write_end(png, info);
    if (fflush(fp) != 0 || ferror(fp)) {
        snprintf(err, errlen, "png: writing %s failed: %s", path, strerror(errno));
        goto done;
    }
    rc = 0;
done:
    if (png) png_destroy_write_struct(&png, info ? &info : NULL);
    free(row);
    if (fp && fclose(fp) != 0 && rc == 0) {
        snprintf(err, errlen, "png: closing %s failed: %s", path, strerror(errno));
        rc = RPL_EIMAGE;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        snprintf(err, errlen, "png: cannot rename %s to %s: %s", tmp, path, strerror(errno));
        rc = RPL_EIMAGE;
    }
    if (rc != 0) unlink(tmp);
    return rc;
}
