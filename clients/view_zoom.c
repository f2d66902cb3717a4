/* view_zoom.c — zoom and pan in `viv view`, in every world.
 *
 * A world is shown whole, fitted to the terminal (zoom 0), or at 1, 2, 4 … VW_ZOOM_MAX screen
 * pixels per world pixel around a world point (levels at which the whole world would fit are
 * skipped: each shows less of it than the one before). + or = zooms in, - out, z shows the whole
 * world again; w a s d pan by a quarter of the view; the wheel (players, who have the mouse)
 * zooms at the pointer. None of these keys is a world mode's or a recording's.
 *
 * A zoomed view subscribes to the rect of the world it shows (docs/PROTOCOL.md, sub), aligned
 * as the server aligns it, so a big world costs what the terminal shows. It subscribes again only
 * when the view leaves that rect, or when zooming in left it more than four times what the view
 * needs; until the new rect's keyframe the old rect's frames are drawn at their place. */
#include <string.h>
#include "view.h"

/* The picture area in screen pixels: the columns, and two per row above the status line. */
static int pic_w(const vw_screen *s) { return s->cols; }
static int pic_h(const vw_screen *s) { return 2 * (s->rows - 1); }

/* The whole world fits the picture at zoom z. */
static int zoom_fits(const vw_screen *s, const vw_world *w, int z)
{
    return (long long)w->w * z <= pic_w(s) && (long long)w->h * z <= pic_h(s);
}

/* The zoom one step in (dir > 0) or out from w's: 0 is the fitted world. */
static int zoom_step(const vw_screen *s, const vw_world *w, int dir)
{
    int z = w->zoom;
    if (dir > 0) {
        z = z ? z * 2 : 1;
        while (z <= VW_ZOOM_MAX && zoom_fits(s, w, z)) z *= 2;
        return z <= VW_ZOOM_MAX ? z : w->zoom;
    }
    z /= 2;
    return z >= 1 && !zoom_fits(s, w, z) ? z : 0;
}

/* The view moved: lay it out, draw it, and follow it with the subscription. */
static int zoom_moved(vw_view *v)
{
    vw_screen_place(&v->scr, &v->worlds[v->cur]);
    v->repaint = 1;
    return view_zoom_follow(v);
}

/* Zoom to z with world pixel (x, y) at screen pixel (px, py). */
static int zoom_to(vw_view *v, int z, int x, int y, int px, int py)
{
    vw_world *w = &v->worlds[v->cur];
    w->zoom = z;
    if (z) {
        w->zx = x - px / z + pic_w(&v->scr) / (2 * z);
        w->zy = y - py / z + pic_h(&v->scr) / (2 * z);
    }
    return zoom_moved(v);
}

/* A rewound view waiting for its timeline keeps its subscription (a new one would drop it). */
static int zoom_busy(vw_view *v)
{
    if (!v->worlds[v->cur].tl_wait) return 0;
    view_note(v, "rewinding…");
    return 1;
}

int view_zoom_key(vw_view *v, int key)
{
    vw_world *w = &v->worlds[v->cur];
    int in = key == '+' || key == '=', out = key == '-';
    int dx = key == 'a' ? -1 : key == 'd' ? 1 : 0, dy = key == 'w' ? -1 : key == 's' ? 1 : 0;
    if (!in && !out && !dx && !dy && key != 'z') return 0;
    if (zoom_busy(v)) return 1;
    const vw_screen *s = &v->scr;
    if (key == 'z' || out || in) {
        int z = key == 'z' ? 0 : zoom_step(s, w, in ? 1 : -1);
        if (z == w->zoom && z) view_note(v, "zoomed in fully (%dx)", z);
        else if (z == w->zoom) view_note(v, "the whole world is in view");
        if (z == w->zoom) return 1;
        /* From the whole world, zoom in on its middle; else around the view's. */
        int x = w->zoom ? w->zx : w->w / 2, y = w->zoom ? w->zy : w->h / 2;
        return zoom_to(v, z, x, y, pic_w(s) / 2, pic_h(s) / 2) < 0 ? -1 : 1;
    }
    if (!w->zoom) {
        view_note(v, "the whole world is in view: + zooms in");
        return 1;
    }
    int stepx = pic_w(s) / (4 * w->zoom), stepy = pic_h(s) / (4 * w->zoom);
    w->zx += dx * (stepx > 1 ? stepx : 1);
    w->zy += dy * (stepy > 1 ? stepy : 1);
    return zoom_moved(v) < 0 ? -1 : 1;
}

int view_zoom_wheel(vw_view *v, int col, int row, int dir)
{
    vw_world *w = &v->worlds[v->cur];
    if (zoom_busy(v)) return 0;
    int z = zoom_step(&v->scr, w, dir), x, y;
    if (z == w->zoom) return 0;
    /* The pointer's world point stays under it (the cell's middle: its lower pixel row). */
    if (vw_screen_to_world(&v->scr, w, col, row, 0, &x, &y))
        return zoom_to(v, z, w->zoom ? w->zx : w->w / 2, w->zoom ? w->zy : w->h / 2,
                       pic_w(&v->scr) / 2, pic_h(&v->scr) / 2);
    return zoom_to(v, z, x, y, col, 2 * row + 1);
}

void view_zoom_need(vw_view *v, int32_t need[4])
{
    vw_world *w = &v->worlds[v->cur];
    memset(need, 0, 4 * sizeof *need);
    if (!w->zoom) return;
    vw_screen_place(&v->scr, w);
    const vw_screen *s = &v->scr;
    if (s->vw < 1 || s->vh < 1) return;          /* no picture area (a one-row terminal) */
    int x0 = s->vx / VW_REGION * VW_REGION, y0 = s->vy / VW_REGION * VW_REGION;
    int x1 = (s->vx + s->vw + VW_REGION - 1) / VW_REGION * VW_REGION;
    int y1 = (s->vy + s->vh + VW_REGION - 1) / VW_REGION * VW_REGION;
    if (x1 > w->w) x1 = w->w;
    if (y1 > w->h) y1 = w->h;
    if (x0 == 0 && y0 == 0 && x1 == w->w && y1 == w->h) return;    /* the whole world: no rect */
    need[0] = x0;
    need[1] = y0;
    need[2] = x1 - x0;
    need[3] = y1 - y0;
}

/* Rect r (w 0: the whole world) holds the view. */
static int rect_holds(const int32_t r[4], const vw_screen *s)
{
    return !r[2] || (s->vx >= r[0] && s->vy >= r[1] && s->vx + s->vw <= r[0] + r[2] &&
                     s->vy + s->vh <= r[1] + r[3]);
}

static long long rect_area(const int32_t r[4], const vw_world *w)
{
    return r[2] ? (long long)r[2] * r[3] : (long long)w->w * w->h;
}

int view_zoom_follow(vw_view *v)
{
    vw_world *w = &v->worlds[v->cur];
    int32_t need[4];
    vw_screen_place(&v->scr, w);
    v->repaint = 1;
    if (w->tl_wait || v->offline) return 0;      /* the timeline being opened keeps the sub */
    view_zoom_need(v, need);
    if (memcmp(need, v->sub_rect, sizeof need) == 0 && view_div(v) == v->sub_div) return 0;
    if (w->zoom && need[2] && rect_holds(v->sub_rect, &v->scr) &&
        rect_area(v->sub_rect, w) <= 4 * rect_area(need, w))
        return 0;
    return view_resub(v);
}
