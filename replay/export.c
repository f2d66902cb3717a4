/* export.c — a recorded session's frames as an animated GIF (gif.c), an animated lossless WebP
 * (webp.c) and/or a directory of indexed PNGs (image.c). Frames are already palette-indexed: all
 * use the world's own palette, with no quantising. The replay seeks through the checkpoint at or before the first frame, and each
 * exported frame of view 0 is checked against the recorded frame hash on the way. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "anim/mmpx.h"
#include "read.h"

rpl_export_opts rpl_export_defaults(void)
{
    rpl_export_opts o;
    memset(&o, 0, sizeof o);
    o.to = UINT64_MAX;
    o.scale = 1;
    o.mmpx = 1;
    return o;
}

static int digits(uint64_t v)
{
    int n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

typedef struct exporter {
    const rpl_export_opts *o;
    sim_frame up[2];                   /* MMPX's 2× and 4× of the frame (mmpx > 1) */
    rpl_export_result *res;
    rpl_gif *gif;
    rpl_webp *webp;
    int width;                         /* digits of the tick in PNG names */
    const rpl_tick_row *rows;          /* the span's recorded hashes */
    size_t nrows, r;
} exporter;

int rpl_magnify_init(const sim_frame *fr, int mmpx, sim_frame up[2])
{
    for (int i = 0, k = 2; k <= mmpx; i++, k *= 2)
        if (!up[i].px && sim_frame_init(&up[i], fr->w * k, fr->h * k) != 0) return RPL_ENOMEM;
    return 0;
}

const sim_frame *rpl_magnify(const sim_frame *fr, int mmpx, sim_frame up[2])
{
    for (int i = 0, k = 2; k <= mmpx; i++, k *= 2) {
        sim_mmpx_2x(fr, &up[i]);
        fr = &up[i];
    }
    return fr;
}

void rpl_magnify_free(sim_frame up[2])
{
    for (int i = 0; i < 2; i++)
        if (up[i].px) sim_frame_free(&up[i]);
}

/* Write the frame of tick t. 0, or RPL_EIMAGE/RPL_ENOMEM with err. */
static int emit(exporter *x, uint64_t t, const sim_frame *fr, char *err, size_t errlen)
{
    const rpl_export_opts *o = x->o;
    if (o->view == 0) {
        while (x->r < x->nrows && x->rows[x->r].tick < t) x->r++;
        if (x->r < x->nrows && x->rows[x->r].tick == t &&
            rpl_hash_differs(x->rows[x->r].frame_hash, sim_frame_hash(fr), x->rows[x->r].bits)) {
            if (x->res->mismatched++ == 0)
                snprintf(x->res->warning, sizeof x->res->warning, "the frame of tick %llu (and maybe "
                         "later ones) differs from the recording: the export does not show what was "
                         "recorded; run `viv replay verify` on this session",
                         (unsigned long long)t);
        }
    }
    int rc;
    fr = rpl_magnify(fr, o->mmpx, x->up);       /* the recorded hash was checked on the world's own */
    if (x->gif && (rc = rpl_gif_frame(x->gif, fr)) != 0) {
        snprintf(err, errlen, "%s", rpl_gif_error(x->gif));
        return rc;
    }
    if (x->webp && (rc = rpl_webp_frame(x->webp, fr)) != 0) {
        snprintf(err, errlen, "%s", rpl_webp_error(x->webp));
        return rc;
    }
    if (o->png_dir) {
        char path[4200];
        snprintf(path, sizeof path, "%s/frame-%0*llu.png", o->png_dir, x->width, (unsigned long long)t);
        if ((rc = rpl_png_write(path, fr, o->scale, err, errlen)) != 0) return rc;
    }
    if (x->res->frames++ == 0) x->res->first = t;
    x->res->last = t;
    return 0;
}

int rpl_export(rpl_file *f, const rpl_export_opts *o, rpl_export_result *res, char *err,
               size_t errlen)
{
    rpl_session s;
    rpl_plan plan = { 0 };
    sim_world *w = NULL;
    sim_frame fr = { 0 };
    rpl_checkpoint cp = { 0 };
    rpl_inputs *it = NULL;
    rpl_tick_row *rows = NULL;
    size_t nrows = 0;
    exporter x;
    int status;
    memset(res, 0, sizeof *res);
    memset(&x, 0, sizeof x);
    x.o = o;
    x.res = res;
    if (!o->gif && !o->webp && !o->png_dir) {
        snprintf(err, errlen, "export needs a GIF path, a WebP path or a PNG directory");
        return RPL_EUSAGE;
    }
    if (o->scale < 1 || o->scale > 16) {
        snprintf(err, errlen, "scale %d is out of range 1..16", o->scale);
        return RPL_EUSAGE;
    }
    if (o->mmpx != 1 && o->mmpx != 2 && o->mmpx != 4) {
        snprintf(err, errlen, "MMPX magnifies 2 or 4 times (or 1: not at all), not %d", o->mmpx);
        return RPL_EUSAGE;
    }
    if ((status = rpl_session_get(f, o->session, &s, err, errlen)) != 0) return status;
    const sim_kind *k = rpl_session_kind(f, &s, res->warning, sizeof res->warning, err, errlen);
    if (!k) return rpl_kind_error(&s);
    if (o->view < 0 || o->view >= k->nviews) {
        snprintf(err, errlen, "%s has no view %d (it has %d)", k->name, o->view, k->nviews);
        return RPL_EUSAGE;
    }
    uint64_t every = o->every;
    if (every == 0 && o->gif) every = (2u * s.hz + 99u) / 100u;     /* browsers slow < 2/100 s */
    if (every == 0 && o->webp) every = s.hz / 100u + 1u;    /* and WebP frames of <= 10 ms */
    if (every == 0) every = 1;
    res->every = every;
    if ((status = rpl_plan_make(f, &s, o->from, o->to, 0, &plan, err, errlen)) != 0) return status;
    for (size_t i = 0; i < plan.nskipped; i++) res->skipped += plan.skipped[i].to - plan.skipped[i].from;
    if (res->skipped && !res->warning[0])
        snprintf(res->warning, sizeof res->warning, "%llu tick%s in gaps were not recorded and have "
                 "no frames (the first: [%llu, %llu), %s)", (unsigned long long)res->skipped,
                 res->skipped == 1 ? "" : "s", (unsigned long long)plan.skipped[0].from,
                 (unsigned long long)plan.skipped[0].to, plan.skipped[0].reason);
    x.width = digits(plan.to) > 6 ? digits(plan.to) : 6;
    if (o->png_dir && mkdir(o->png_dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create the directory %s: %s", o->png_dir, strerror(errno));
        status = RPL_EIMAGE;
        goto done;
    }
    if (o->png_dir) {
        struct stat st;
        if (stat(o->png_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s is not a directory", o->png_dir);
            status = RPL_EIMAGE;
            goto done;
        }
    }
    uint64_t stepped = 0, last_emitted = UINT64_MAX;
    for (size_t i = 0; i < plan.nspans; i++) {
        const rpl_span *sp = &plan.spans[i];
        status = rpl_checkpoint_find(f, &s, sp->start, RPL_AT_OR_BEFORE, &cp, err, errlen);
        if (status > 0) {
            snprintf(err, errlen, "session %lld: no checkpoint at tick %llu",
                     (long long)s.id, (unsigned long long)sp->start);
            status = RPL_ECORRUPT;
        }
        if (status) goto done;
        if ((status = rpl_world_load(&s, &cp, &w, err, errlen)) != 0) goto done;
        rpl_checkpoint_free(&cp);
        if (!fr.px) {
            if (sim_world_frame_init(w, &fr) != 0) {
                snprintf(err, errlen, "out of memory for a frame");
                status = RPL_ENOMEM;
                goto done;
            }
            if (rpl_magnify_init(&fr, o->mmpx, x.up) != 0) {
                snprintf(err, errlen, "out of memory for a magnified frame");
                status = RPL_ENOMEM;
                goto done;
            }
            if (o->gif) {
                x.gif = rpl_gif_open(o->gif, fr.w * o->mmpx, fr.h * o->mmpx, o->scale, s.hz, (unsigned)every,
                                     err, errlen);
                if (!x.gif) {
                    status = RPL_EIMAGE;
                    goto done;
                }
            }
            if (o->webp) {
                x.webp = rpl_webp_open(o->webp, fr.w * o->mmpx, fr.h * o->mmpx, o->scale, s.hz,
                                       (unsigned)every, err, errlen);
                if (!x.webp) {
                    status = RPL_EIMAGE;
                    goto done;
                }
            }
        }
        if ((status = rpl_inputs_open(f, s.id, sp->start, sp->end, w, &it, err, errlen)) != 0) goto done;
        if ((status = rpl_ticks_load(f, s.id, sp->start, sp->end, &rows, &nrows, err, errlen)) != 0)
            goto done;
        x.rows = rows;
        x.nrows = nrows;
        x.r = 0;
        for (uint64_t t = sp->start;; t++) {
            if (t >= plan.from && (t - plan.from) % every == 0 && t != last_emitted) {
                sim_world_render(w, o->view, &fr);
                if ((status = emit(&x, t, &fr, err, errlen)) != 0) goto done;
                last_emitted = t;
            }
            if (t == sp->end) break;
            if ((status = rpl_inputs_feed(it, w)) < 0) {
                snprintf(err, errlen, "%s", rpl_inputs_error(it));
                goto done;
            }
            sim_world_step(w);
            if (o->progress && (++stepped & 63) == 0) o->progress(o->ud, stepped, plan.ticks);
        }
        rpl_inputs_close(it);
        it = NULL;
        free(rows);
        rows = NULL;
    }
    if (o->progress) o->progress(o->ud, plan.ticks, plan.ticks);
    if (res->frames == 0) {
        snprintf(err, errlen, "no frames: session %lld has no recorded tick from %llu to %llu",
                 (long long)s.id, (unsigned long long)plan.from, (unsigned long long)plan.to);
        status = RPL_EUSAGE;
        goto done;
    }
    if (x.gif) {
        rpl_gif *g = x.gif;
        x.gif = NULL;
        if ((status = rpl_gif_close(g, err, errlen)) != 0) goto done;
    }
    if (x.webp) {
        rpl_webp *g = x.webp;
        x.webp = NULL;
        if ((status = rpl_webp_close(g, err, errlen)) != 0) goto done;
    }
    status = 0;
done:
    if (x.gif) rpl_gif_abort(x.gif);
    if (x.webp) rpl_webp_abort(x.webp);
    rpl_inputs_close(it);
    free(rows);
    rpl_checkpoint_free(&cp);
    if (fr.px) sim_frame_free(&fr);
    rpl_magnify_free(x.up);
    sim_world_destroy(w);
    rpl_plan_free(&plan);
    return status;
}
