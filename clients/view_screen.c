/* view_screen.c — the picture of `viv view`: each character cell shows two pixels as a
 * half-block in 24-bit colour; the frame is fitted (nearest pixel, aspect kept) and centred; the
 * cells as last drawn are kept, and only those that differ are written, with the fewest cursor
 * moves and colour changes, in one write() per frame. The status line is the last row. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "view.h"

static const char vw_upper[] = "\xe2\x96\x80", vw_lower[] = "\xe2\x96\x84",
                  vw_full[] = "\xe2\x96\x88";

/* ---- output ------------------------------------------------------------------------------------ */
static void out_put(vw_out *o, const void *p, size_t n)
{
    if (o->oom) return;
    if (o->cap - o->len < n) {
        size_t nc = o->cap ? o->cap : 16384;
        while (nc - o->len < n) nc *= 2;
        char *q = realloc(o->p, nc);
        if (!q) {
            o->oom = 1;
            return;
        }
        o->p = q;
        o->cap = nc;
    }
    memcpy(o->p + o->len, p, n);
    o->len += n;
}

static void out_str(vw_out *o, const char *s) { out_put(o, s, strlen(s)); }

static void out_fmt(vw_out *o, const char *fmt, ...)
{
    char t[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    if (n > 0) out_put(o, t, (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

/* Write all of p, waiting out EAGAIN and EINTR. 0, or -1 with errno. */
int vw_write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd pfd = { fd, POLLOUT, 0 };
                poll(&pfd, 1, 100);
                continue;
            }
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* ---- the screen --------------------------------------------------------------------------------- */
void vw_screen_free(vw_screen *s)
{
    free(s->want);
    free(s->have);
    free(s->colmap);
    free(s->rowmap);
    memset(s, 0, sizeof *s);
}

/* A cols x rows terminal. Everything is drawn afresh next time. 0, or -1 out of memory. */
int vw_screen_resize(vw_screen *s, int cols, int rows)
{
    if (cols < 1) cols = 1;
    if (rows < 1) rows = 1;
    size_t cells = (size_t)cols * (size_t)(rows - 1);
    free(s->want);
    free(s->have);
    free(s->colmap);
    free(s->rowmap);
    s->want = calloc(cells + 1, sizeof *s->want);
    s->have = calloc(cells + 1, sizeof *s->have);
    s->colmap = calloc((size_t)cols, sizeof *s->colmap);
    s->rowmap = calloc(2 * (size_t)rows, sizeof *s->rowmap);
    s->cols = cols;
    s->rows = rows;
    s->fw = s->fh = 0;
    s->ww = s->wh = 0;                /* a zoomed layout is made again too */
    s->have_valid = 0;
    return s->want && s->have && s->colmap && s->rowmap ? 0 : -1;
}

/* Fit an fw x fh frame into the picture area (cols x 2*(rows-1) square pixels): nearest
 * sampling with one ratio num/den for both axes, so the aspect is kept; a frame that fits is
 * scaled up by the largest whole factor that still fits. Centred. */
static void screen_layout(vw_screen *s, int fw, int fh)
{
    int W = s->cols, H = 2 * (s->rows - 1);
    s->zoom = 0;
    s->fw = fw;
    s->fh = fh;
    if (H <= 0) {
        s->ow = s->oh = s->ox = s->oy = 0;
        s->num = s->den = 1;
        for (int c = 0; c < W; c++) s->colmap[c] = -1;
        return;
    }
    if (fw <= W && fh <= H) {
        int k = W / fw < H / fh ? W / fw : H / fh;
        s->num = 1;
        s->den = k;
        s->ow = fw * k;
        s->oh = fh * k;
    } else if ((long long)fw * H >= (long long)fh * W) {       /* width decides */
        s->num = fw;
        s->den = W;
        s->ow = W;
        s->oh = (int)((long long)fh * W / fw);
    } else {
        s->num = fh;
        s->den = H;
        s->oh = H;
        s->ow = (int)((long long)fw * H / fh);
    }
    if (s->ow < 1) s->ow = 1;
    if (s->oh < 1) s->oh = 1;
    s->ox = (W - s->ow) / 2;
    s->oy = (H - s->oh) / 2;
    /* Screen pixel i samples the frame at the centre of its footprint: (i + 1/2) * num/den. */
    for (int c = 0; c < W; c++) {
        long long i = c - s->ox;
        long long f = (2 * i + 1) * s->num / (2LL * s->den);
        s->colmap[c] = i < 0 || i >= s->ow ? -1 : (int)(f < fw ? f : fw - 1);
    }
    for (int r = 0; r < H; r++) {
        long long i = r - s->oy;
        long long f = (2 * i + 1) * s->num / (2LL * s->den);
        s->rowmap[r] = i < 0 || i >= s->oh ? -1 : (int)(f < fh ? f : fh - 1);
    }
}

/* One axis of a zoomed picture: n screen pixels showing a world len pixels long at z screen
 * pixels a world pixel, around world pixel *c. A world that fits is centred whole; otherwise
 * the view starts at world pixel *v0 and touches *vn of them (the last maybe in part), kept
 * inside the world (*c moves with it). *off and *ext: the picture's screen offset and extent. */
static void zoom_axis(int n, int len, int z, int *c, int *v0, int *vn, int *off, int *ext)
{
    if ((long long)len * z <= n) {
        *v0 = 0;
        *vn = len;
        *ext = len * z;
        *off = (n - *ext) / 2;
        *c = len / 2;
        return;
    }
    int vis = (n + z - 1) / z, start = *c - n / (2 * z);
    if (start > len - vis) start = len - vis;
    if (start < 0) start = 0;
    *v0 = start;
    *vn = vis;
    *off = 0;
    *ext = n;
    *c = start + n / (2 * z);
}

/* The zoomed layout of w: the maps give world pixels. */
static void screen_layout_zoom(vw_screen *s, vw_world *w)
{
    int W = s->cols, H = 2 * (s->rows - 1);
    s->zoom = w->zoom;
    s->ww = w->w;
    s->wh = w->h;
    s->fw = s->fh = 0;                /* a fitted layout is made again after this one */
    s->num = 1;
    s->den = w->zoom;
    zoom_axis(W, w->w, w->zoom, &w->zx, &s->vx, &s->vw, &s->ox, &s->ow);
    zoom_axis(H > 0 ? H : 0, w->h, w->zoom, &w->zy, &s->vy, &s->vh, &s->oy, &s->oh);
    s->zx = w->zx;
    s->zy = w->zy;
    for (int c = 0; c < W; c++) {
        int i = c - s->ox;
        s->colmap[c] = H <= 0 || i < 0 || i >= s->ow ? -1 : s->vx + i / w->zoom;
    }
    for (int r = 0; r < H; r++) {
        int i = r - s->oy;
        s->rowmap[r] = i < 0 || i >= s->oh ? -1 : s->vy + i / w->zoom;
    }
}

void vw_screen_place(vw_screen *s, vw_world *w)
{
    if (!w->zoom) {
        if (s->zoom) s->zoom = s->fw = s->fh = 0;      /* fitted when its frame is drawn */
        return;
    }
    if (s->zoom != w->zoom || s->ww != w->w || s->wh != w->h || s->zx != w->zx || s->zy != w->zy)
        screen_layout_zoom(s, w);
}

/* A map's pixel m (frame pixels fitted, world pixels zoomed) to a pixel of a frame n pixels
 * long whose pixel i shows map pixels from r0 + d·i on; -1 when the frame does not show it. */
static int map_to_frame(int m, int r0, int d, int n)
{
    if (m < r0) return -1;
    int i = (m - r0) / d;
    return i < n ? i : -1;
}

/* The picture of cf, a frame of w of a stream with that div (or an empty screen when cf is
 * NULL), into want[]. Zoomed, a rect's frame is drawn at its place in the world. */
static void screen_paint(vw_screen *s, const cli_frame *cf, vw_world *w, int div)
{
    int prow = s->rows - 1;
    uint32_t pal[256];
    const sim_frame *f = cf ? &cf->f : NULL;
    vw_screen_place(s, w);
    if (f && !s->zoom && cf->rect[2]) {   /* a rect's frame, before the whole world's keyframe */
        if (s->have_valid) return;        /* the picture stays as it was */
        f = NULL;
    }
    int rx = 0, ry = 0, d = 1;
    if (f && s->zoom) {
        rx = cf->rect[2] ? cf->rect[0] : 0;
        ry = cf->rect[2] ? cf->rect[1] : 0;
        d = div;
    }
    if (f) {
        if (!s->zoom && (s->fw != f->w || s->fh != f->h)) screen_layout(s, f->w, f->h);
        for (int i = 0; i < 256; i++)
            pal[i] = i < f->pal.count ? (uint32_t)f->pal.rgb[3 * i] << 16 |
                                        (uint32_t)f->pal.rgb[3 * i + 1] << 8 | f->pal.rgb[3 * i + 2]
                                      : 0;
    }
    for (int r = 0; r < prow; r++) {
        int yt = f ? map_to_frame(s->rowmap[2 * r], ry, d, f->h) : -1;
        int yb = f ? map_to_frame(s->rowmap[2 * r + 1], ry, d, f->h) : -1;
        for (int c = 0; c < s->cols; c++) {
            int x = f ? map_to_frame(s->colmap[c], rx, d, f->w) : -1;
            uint64_t top = x >= 0 && yt >= 0 ? pal[f->px[(size_t)yt * f->w + (size_t)x]] : VW_NONE;
            uint64_t bot = x >= 0 && yb >= 0 ? pal[f->px[(size_t)yb * f->w + (size_t)x]] : VW_NONE;
            s->want[(size_t)r * s->cols + c] = top << 32 | bot;
        }
    }
}

static void put_rgb(vw_out *o, uint32_t c)
{
    out_fmt(o, "%u;%u;%u", (c >> 16) & 255u, (c >> 8) & 255u, c & 255u);
}

/* Make the terminal's colours fg/bg: VW_UNSET for fg means "any". */
static void screen_sgr(vw_screen *s, vw_out *o, uint32_t fg, uint32_t bg)
{
    int set_fg = fg != VW_UNSET && fg != s->fg, set_bg = bg != s->bg;
    if (!set_fg && !set_bg) return;
    out_str(o, "\x1b[");
    if (set_fg) {
        out_str(o, "38;2;");
        put_rgb(o, fg);
        s->fg = fg;
    }
    if (set_bg) {
        if (set_fg) out_str(o, ";");
        if (bg == VW_NONE) out_str(o, "49");
        else {
            out_str(o, "48;2;");
            put_rgb(o, bg);
        }
        s->bg = bg;
    }
    out_str(o, "m");
}

/* One cell with the fewest colour changes: a space or a full block when both halves agree, the
 * upper or the lower half-block otherwise, whichever the current colours suit better. */
static void screen_cell(vw_screen *s, vw_out *o, uint32_t top, uint32_t bot)
{
    if (top == bot) {
        if (s->bg == top) out_str(o, " ");
        else if (top != VW_NONE && s->fg == top) out_str(o, vw_full);
        else {
            screen_sgr(s, o, VW_UNSET, top);
            out_str(o, " ");
        }
    } else if (top == VW_NONE) {
        screen_sgr(s, o, bot, VW_NONE);
        out_str(o, vw_lower);
    } else if (bot == VW_NONE) {
        screen_sgr(s, o, top, VW_NONE);
        out_str(o, vw_upper);
    } else {
        int cost_up = (s->fg != top) + (s->bg != bot), cost_low = (s->fg != bot) + (s->bg != top);
        if (cost_low < cost_up) {
            screen_sgr(s, o, bot, top);
            out_str(o, vw_lower);
        } else {
            screen_sgr(s, o, top, bot);
            out_str(o, vw_upper);
        }
    }
}

static void screen_move(vw_screen *s, vw_out *o, int r, int c)
{
    if (s->cur_r == r && s->cur_c == c) return;
    if (s->cur_r == r && s->cur_c < c) out_fmt(o, "\x1b[%dC", c - s->cur_c);
    else out_fmt(o, "\x1b[%d;%dH", r + 1, c + 1);
    s->cur_r = r;
    s->cur_c = c;
}

/* Append to o what turns the terminal from have[] into want[], and the status line when it
 * changed. Runs of changed cells on a row need one cursor move; unchanged cells cost nothing. */
static void screen_emit(vw_screen *s, vw_out *o, const char *status)
{
    int prow = s->rows - 1;
    size_t cells = (size_t)s->cols * (size_t)prow;
    if (!s->have_valid) {
        out_str(o, "\x1b[0m\x1b[2J");
        s->fg = VW_UNSET;
        s->bg = VW_NONE;
        s->cur_r = -1;
        for (size_t i = 0; i < cells; i++) s->have[i] = (uint64_t)VW_NONE << 32 | VW_NONE;
        s->status_valid = 0;
        s->have_valid = 1;
    }
    for (int r = 0; r < prow; r++)
        for (int c = 0; c < s->cols; c++) {
            size_t i = (size_t)r * s->cols + c;
            if (s->want[i] == s->have[i]) continue;
            screen_move(s, o, r, c);
            screen_cell(s, o, (uint32_t)(s->want[i] >> 32), (uint32_t)s->want[i]);
            s->have[i] = s->want[i];
            /* After the last column the cursor waits to wrap: where it is depends on the
             * terminal, so the next cell moves it explicitly. */
            if (++s->cur_c >= s->cols) s->cur_r = -1;
        }
    /* The last column is left alone: writing it could scroll some terminals. */
    int width = s->cols > 1 ? s->cols - 1 : 1;
    int n = (int)strlen(status);
    if (n > width) n = width;
    if (n >= (int)sizeof s->status) n = (int)sizeof s->status - 1;
    if (!s->status_valid || strncmp(status, s->status, (size_t)n) != 0 ||
        s->status[n] != '\0') {
        screen_move(s, o, s->rows - 1, 0);
        out_str(o, "\x1b[0;7m");
        out_put(o, status, (size_t)n);
        for (int i = n; i < width; i++) out_str(o, " ");
        out_str(o, "\x1b[0m");
        s->fg = VW_UNSET;
        s->bg = VW_NONE;
        s->cur_c = width;
        memcpy(s->status, status, (size_t)n);
        s->status[n] = '\0';
        s->status_valid = 1;
    }
}

/* Terminal cell (col, row), 0-based, to a pixel of the fitted frame: the cell's centre, which
 * lies between its two pixel rows. Outside the picture: -1, unless clamp (a drag that left the
 * picture). */
static int screen_to_frame(const vw_screen *s, int col, int row, int clamp, int *fx, int *fy)
{
    if (!s->fw || !s->ow || !s->den) return -1;
    long long px = col - s->ox, hy = 2LL * row + 1 - s->oy;     /* hy in half-rows */
    if (!clamp && (px < 0 || px >= s->ow || hy <= 0 || hy - 1 >= s->oh)) return -1;
    long long x = px < 0 ? 0 : (2 * px + 1) * s->num / (2LL * s->den);
    long long y = hy < 0 ? 0 : hy * s->num / s->den;
    *fx = (int)(x < 0 ? 0 : x >= s->fw ? s->fw - 1 : x);
    *fy = (int)(y < 0 ? 0 : y >= s->fh ? s->fh - 1 : y);
    return 0;
}

static long long clamp_ll(long long a, long long lo, long long hi)
{
    return a < lo ? lo : a > hi ? hi : a;
}

/* Inputs speak world pixels. Fitted, the frame may be a div stream's smaller one (the homage),
 * and its pixel stands for the middle of the block it samples; zoomed, the maps are the world's,
 * the cell's middle as above. */
int vw_screen_to_world(const vw_screen *s, const vw_world *w, int col, int row, int clamp, int *x,
                       int *y)
{
    if (!s->zoom) {
        if (screen_to_frame(s, col, row, clamp, x, y)) return -1;
        if (s->fw != w->w) *x = (int)(((long long)*x * 2 + 1) * w->w / (2LL * s->fw));
        if (s->fh != w->h) *y = (int)(((long long)*y * 2 + 1) * w->h / (2LL * s->fh));
        return 0;
    }
    if (!s->ow || !s->oh) return -1;
    long long px = col - s->ox, hy = 2LL * row + 1 - s->oy;     /* hy in half-rows */
    if (!clamp && (px < 0 || px >= s->ow || hy <= 0 || hy - 1 >= s->oh)) return -1;
    *x = (int)clamp_ll(s->vx + clamp_ll(px, 0, s->ow - 1) / s->zoom, s->vx, s->vx + s->vw - 1);
    *y = (int)clamp_ll(s->vy + clamp_ll(hy, 0, s->oh - 1) / s->zoom, s->vy, s->vy + s->vh - 1);
    return 0;
}

/* ---- the status line ------------------------------------------------------------------------- */
void view_rates(vw_view *v, double now)
{
    double dt = now - v->win_t0;
    if (dt < 1.0) return;
    v->fps = (double)v->win_frames / dt;
    v->dps = (double)v->win_drawn / dt;
    v->bps = (double)(v->conn.bytes_in - v->win_bytes) / dt;
    v->win_frames = v->win_drawn = 0;
    v->win_bytes = v->conn.bytes_in;
    v->win_t0 = now;
    v->have_rates = 1;
}

/* The view the picture shows: --view when the world has it, else "normal (no NAME)". */
static void view_name(const vw_view *v, const vw_world *w, char *s, size_t cap)
{
    if (!v->o.view) snprintf(s, cap, "normal");
    else if (vw_world_has_view(w, v->o.view)) snprintf(s, cap, "%s", v->o.view);
    else snprintf(s, cap, "normal (no %s)", v->o.view);
}

/* Zoomed: the zoom and the world rect in view; long, the rect of the frames too (the
 * subscription's, on the server's grid), once they come. */
static void view_zoom_status(const vw_view *v, int shrt, char *s, size_t cap)
{
    const vw_screen *sc = &v->scr;
    const int32_t *r = v->frame.rect;
    if (shrt) {
        snprintf(s, cap, " %dx@%d,%d", sc->zoom, sc->vx, sc->vy);
        return;
    }
    int n = snprintf(s, cap, "  zoom %dx at %d,%d %dx%d", sc->zoom, sc->vx, sc->vy, sc->vw,
                     sc->vh);
    if (n > 0 && (size_t)n < cap && v->frame_ok && r[2])
        snprintf(s + n, cap - (size_t)n, "  rect %d,%d %dx%d", (int)r[0], (int)r[1], (int)r[2],
                 (int)r[3]);
}

/* The status line: the long form, or a short one (for narrow terminals) of the information
 * (shrt) and of the key hints (shints). */
static void view_status_form(const vw_view *v, double now, int shrt, int shints, char *s,
                             size_t cap)
{
    const vw_world *w = &v->worlds[v->cur];
    double fps = v->fps, dps = v->dps, bps = v->bps, dt = now - v->win_t0;
    if (!v->have_rates && dt > 0.05) {          /* the first second: what there is so far */
        fps = (double)v->win_frames / dt;
        dps = (double)v->win_drawn / dt;
        bps = (double)(v->conn.bytes_in - v->win_bytes) / dt;
    }
    if (bps < 0) bps = 0;
    char rate[32], tick[48], view[VW_NAME + 16], part[160];
    if (bps < 1e3) snprintf(rate, sizeof rate, "%.0f B/s", bps);
    else if (bps < 1e6) snprintf(rate, sizeof rate, "%.1f kB/s", bps / 1e3);
    else snprintf(rate, sizeof rate, "%.2f MB/s", bps / 1e6);
    if (v->frame_ok) snprintf(tick, sizeof tick, shrt ? "t%llu" : "tick %llu",
                              (unsigned long long)v->frame.tick);
    else snprintf(tick, sizeof tick, shrt ? "no keyframe" : "waiting for a keyframe");
    view_name(v, w, view, sizeof view);
    size_t k = 0;
#define ADD(...) do { int n_ = snprintf(s + k, cap - k, __VA_ARGS__); \
                      if (n_ > 0) k = k + (size_t)n_ < cap ? k + (size_t)n_ : cap - 1; } while (0)
    if (shrt) ADD(" %u %s %s", w->id, w->kind, view);
    else ADD(" world %u %s  view %s", w->id, w->kind, view);
    if (v->o.homage) ADD(shrt ? " 13fps" : "  homage: every 3rd tick, 1/3 size");
    else if (view_div(v) > 1) ADD(shrt ? " 1/%u" : "  1/%u size", view_div(v));
    if (v->offline) {
        double left = v->retry_at - now;
        ADD(shrt ? "  reconnecting… #%d %.1fs" : "  reconnecting… (attempt %d, next in %.1f s)",
            v->attempts + 1, left < 0 ? 0.0 : left);
        if (v->note[0] && !shrt) ADD("  (%s)", v->note);
        ADD(shrt ? " | q" : "  | q quit");
        return;
    }
    if (w->is_play) {
        view_play_status(v, w, shrt, part, sizeof part);
        ADD("%s", part);
        ADD(shrt ? " %.0ffps" : "  %.0f fps", fps);
    } else if (w->tl) {
        view_timeline_status(v, w, now, shrt, part, sizeof part);
        ADD("%s", part);
        ADD(shrt ? " %.0ffps" : "  %.0f fps", fps);
    } else {
        ADD(shrt ? " %s%s %.0ffps" : "  %s%s  %.0f fps", tick,
            w->tl_used ? (shrt ? " live" : "  live") : "", fps);
        if (v->frames_rx && dps + 0.5 < fps && !shrt) ADD(" (%.0f drawn)", dps);
    }
    if (w->zoom) {
        view_zoom_status(v, shrt, part, sizeof part);
        ADD("%s", part);
    }
    if (!shrt) ADD("  %s", rate);
    ADD(shrt ? " %s" : "  %s", v->role);
    if (v->can_input && !w->is_play && !w->tl && w->mode->status) {
        w->mode->status(v, w, shrt, part, sizeof part);
        ADD("%s", part);
    }
    if (v->inputs_sent) ADD(shrt ? " ack%llu" : "  acks %llu", (unsigned long long)v->acks);
    if (v->last_err[0])
        ADD(shrt ? " err %s" : "  err %s x%llu", v->last_err,
            (unsigned long long)(v->errors + v->resyncs));
    int note = v->note[0] && now - v->note_t < 5.0;
    if (note && !shints) ADD("  (%s)", v->note);
    ADD(shints ? " | q" : "  | q quit");
    if (v->nworlds > 1) ADD(shints ? " Tab" : "  Tab/n/p world");
    if (w->tl) {
        ADD("%s", shints ? " spc <> ^v [] r l f" : "  space play  Left/Right step  Up/Down/r 1 s  "
                                                  "[ ] speed  l live  f fork");
    } else if (w->is_play) {
        if (v->can_input)
            ADD("%s", shints ? " spc <> ^v Home End []"
                           : "  space play  Left/Right step  Up/Down 1 s  Home/End  [ ] speed  f fork");
        else if (!(note && shints))        /* short: the note says it */
            ADD("%s", shints ? " (--token to play)" : "  (a recording: --token T to play it)");
    } else if (v->can_input) {
        const char *hints = w->mode->hints ? w->mode->hints(w, shints) : NULL;
        if (hints) ADD("%s", hints);
        ADD("%s", shints ? " r f" : "  r rewind  f fork");
    } else if (w->mode->key && !(note && shints)) {
        ADD("%s", shints ? " (--token to play) r" : "  (watching: --token T to play)  r rewind");
    } else {
        ADD("%s", shints ? " r" : "  r rewind");
    }
    if (note && shints) ADD(" (%s)", v->note);     /* short: the key hints first */
#undef ADD
}

static void view_status(const vw_view *v, double now, char *s, size_t cap)
{
    int width = v->scr.cols - 1;
    view_status_form(v, now, 0, 0, s, cap);
    if ((int)strlen(s) > width) view_status_form(v, now, 0, 1, s, cap);
    if ((int)strlen(s) > width) view_status_form(v, now, 1, 1, s, cap);
}

/* Draw what changed: the picture when there is a new frame (or the screen was reset), and the
 * status line when its text changed. One write(). 0, or -1 (v->err) when stdout failed. */
int view_draw(vw_view *v, double now)
{
    char status[512];
    int fresh = v->frame_new || !v->scr.have_valid;
    if (v->repaint && v->frame_ok) fresh = 1;
    v->repaint = 0;
    if (fresh) screen_paint(&v->scr, v->frame_ok ? &v->frame : NULL, &v->worlds[v->cur],
                            (int)view_div(v));
    if (v->frame_new) {
        v->frames_drawn++;
        v->win_drawn++;
        v->frame_new = 0;
    }
    view_status(v, now, status, sizeof status);
    v->out.len = 0;
    screen_emit(&v->scr, &v->out, status);
    if (v->out.oom) {
        snprintf(v->err, sizeof v->err, "out of memory for the screen buffer");
        return -1;
    }
    if (v->out.len && vw_write_all(STDOUT_FILENO, v->out.p, v->out.len)) {
        snprintf(v->err, sizeof v->err, "writing to the terminal failed: %s", strerror(errno));
        return -1;
    }
    return 0;
}

