/* view_modes.c — the world modes of `viv view`: what the keys and the mouse do in a world.
 *
 * A mode is a row of hooks (view.h's vw_mode): paint (a paint input: keys 1-9,0 choose the
 * element of its enum, a drag paints discs along the stroke), grab (grab/drag/release inputs: a
 * press grabs, motion drags, a release lets go) and watch (nothing to send). The kinds table
 * gives each known kind its mode; a kind without a row gets the first mode its welcome's inputs
 * fit, so a new kind works in the viewer without editing it — with watch only, and the generic
 * status line, when it has no pointer inputs. */
#include <stdlib.h>
#include <string.h>
#include "view.h"

/* The brush radius in frame pixels: a disc about one terminal cell across. */
static int view_brush(const vw_view *v)
{
    int step = v->scr.den ? (v->scr.num + v->scr.den - 1) / v->scr.den : 1;
    return step < 2 ? 2 : step;
}

/* Send input ii of the current world at frame pixel (x, y). Arguments are filled by name: x, y,
 * r (the brush), the paint enum's arg (the chosen element); any other takes 0, or its range's
 * nearest end. Every value is clamped to the range the welcome gave. */
static int view_send_input(vw_view *v, int ii, int x, int y)
{
    const vw_world *w = &v->worlds[v->cur];
    const cli_input_desc *in = &w->inputs[ii];
    int brush = view_brush(v);
    int64_t args[SIM_INPUT_MAX_ARGS];
    for (int a = 0; a < in->nargs; a++) {
        int64_t val = 0;
        if (strcmp(in->arg[a], "x") == 0) val = x;
        else if (strcmp(in->arg[a], "y") == 0) val = y;
        else if (strcmp(in->arg[a], "r") == 0) val = brush;
        else if (ii == w->in_paint && a == w->paint_enum_arg) val = w->element;
        if (val < in->lo[a]) val = in->lo[a];
        if (val > in->hi[a]) val = in->hi[a];
        args[a] = val;
    }
    cli_put_input(&v->b, w->id, ++v->seq, in->name, args, in->nargs);
    v->inputs_sent++;
    return view_send(v);
}

/* May a stroke send another input now? Presses and releases do not ask: they always go. */
static int view_input_budget(vw_view *v)
{
    double now = vw_now();
    if (now - v->in_t0 >= 1.0 / v->worlds[v->cur].hz) {
        v->in_t0 = now;
        v->in_count = 0;
    }
    if (v->in_count >= VW_INPUTS_PER_TICK) return 0;
    v->in_count++;
    return 1;
}

/* ---- paint ------------------------------------------------------------------------------------ */
static int paint_fit(vw_world *w)
{
    w->in_paint = cli_input_find(w->inputs, w->ninputs, "paint");
    return w->in_paint >= 0 ? 0 : -1;
}

/* 1-9, 0: the values 1..10 of the paint enum. */
static int paint_key(vw_view *v, vw_world *w, uint8_t ch)
{
    if (ch >= '0' && ch <= '9' && w->paint_enum >= 0) {
        int id = ch == '0' ? 10 : ch - '0';
        if (vw_enum_name(&w->enums[w->paint_enum], id)) w->element = id;
    }
    return 0;
}

static int paint_pointer(vw_view *v, vw_world *w, int what, int x, int y)
{
    if (what == VW_PRESS) return view_send_input(v, w->in_paint, x, y);
    if (what == VW_RELEASE) return 0;
    /* Paint along the stroke, a disc every brush radius, so a quick drag leaves no gaps (at
     * most 8 per event, and within the budget: a very fast stroke gets gaps, not errors). */
    int r = view_brush(v);
    int dx = x - v->last_x, dy = y - v->last_y;
    int dist = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
    int n = (dist + r - 1) / r;
    if (n > 8) n = 8;
    for (int i = 1; i <= n && view_input_budget(v); i++)
        if (view_send_input(v, w->in_paint, v->last_x + dx * i / n, v->last_y + dy * i / n))
            return -1;
    v->last_x = x;
    v->last_y = y;
    return 0;
}

static void paint_status(const vw_view *v, const vw_world *w, char *s, size_t cap)
{
    s[0] = '\0';
    if (w->paint_enum < 0) return;
    const char *el = vw_enum_name(&w->enums[w->paint_enum], w->element);
    snprintf(s, cap, "  %s %s", w->enums[w->paint_enum].name, el ? el : "?");
}

static const char *paint_hints(const vw_world *w)
{
    return w->paint_enum >= 0 ? "  1-9,0 element  drag paint" : NULL;
}

/* ---- grab ------------------------------------------------------------------------------------- */
static int grab_fit(vw_world *w)
{
    w->in_grab = cli_input_find(w->inputs, w->ninputs, "grab");
    w->in_drag = cli_input_find(w->inputs, w->ninputs, "drag");
    w->in_release = cli_input_find(w->inputs, w->ninputs, "release");
    return w->in_grab >= 0 && w->in_drag >= 0 && w->in_release >= 0 ? 0 : -1;
}

static int grab_pointer(vw_view *v, vw_world *w, int what, int x, int y)
{
    if (what == VW_PRESS) return view_send_input(v, w->in_grab, x, y);
    if (what == VW_RELEASE) return view_send_input(v, w->in_release, x, y);
    if (!view_input_budget(v)) return 0;       /* the next motion catches up */
    v->last_x = x;
    v->last_y = y;
    return view_send_input(v, w->in_drag, x, y);
}

/* Nothing stays grabbed in a world no longer watched. */
static int grab_leave(vw_view *v, vw_world *w)
{
    return view_send_input(v, w->in_release, v->last_x, v->last_y);
}

static const char *grab_hints(const vw_world *w) { return "  drag grab"; }

/* ---- the table -------------------------------------------------------------------------------- */
static const vw_mode vw_mode_paint = { "paint", paint_fit, paint_key, paint_pointer, NULL,
                                       paint_status, paint_hints };
static const vw_mode vw_mode_grab = { "grab", grab_fit, NULL, grab_pointer, grab_leave, NULL,
                                      grab_hints };
static const vw_mode vw_mode_watch = { "watch", NULL, NULL, NULL, NULL, NULL, NULL };

/* One row per world kind. A falling powder is the friendliest first brush. */
static const vw_kind_row vw_kinds[] = {
    { "sand", &vw_mode_paint, "sand" },
    { "terrarium", &vw_mode_grab, NULL },
    { "cycle", &vw_mode_watch, NULL },
};

/* A kind without a row (or whose world lacks its row's inputs): the first mode that fits. */
static const vw_mode *const vw_default_modes[] = { &vw_mode_grab, &vw_mode_paint, &vw_mode_watch };

static int mode_fits(const vw_mode *m, vw_world *w)
{
    return !m->fit || m->fit(w) == 0;
}

/* The paint enum: the enum named like one of the paint input's arguments. */
static void find_paint_enum(vw_world *w, const char *first_value)
{
    w->paint_enum = w->paint_enum_arg = -1;
    if (w->in_paint < 0) return;
    const cli_input_desc *in = &w->inputs[w->in_paint];
    for (int a = 0; a < in->nargs && w->paint_enum < 0; a++)
        for (int e = 0; e < w->nenums; e++)
            if (strcmp(in->arg[a], w->enums[e].name) == 0) {
                w->paint_enum = e;
                w->paint_enum_arg = a;
                break;
            }
    if (w->paint_enum < 0) return;
    /* The row's first value, otherwise value 1 (0 is usually "empty"), otherwise whatever comes
     * first. */
    const vw_enum *e = &w->enums[w->paint_enum];
    w->element = e->n ? e->id[0] : 0;
    if (vw_enum_name(e, 1)) w->element = 1;
    for (int i = 0; first_value && i < e->n; i++)
        if (strcmp(e->value[i], first_value) == 0) w->element = e->id[i];
}

void view_mode_pick(vw_world *w)
{
    const vw_kind_row *row = NULL;
    for (size_t i = 0; i < sizeof vw_kinds / sizeof vw_kinds[0]; i++)
        if (strcmp(vw_kinds[i].kind, w->kind) == 0) row = &vw_kinds[i];
    w->in_paint = w->in_grab = w->in_drag = w->in_release = -1;
    w->mode = NULL;
    if (row && mode_fits(row->mode, w)) w->mode = row->mode;
    for (size_t i = 0; !w->mode && i < sizeof vw_default_modes / sizeof vw_default_modes[0]; i++)
        if (mode_fits(vw_default_modes[i], w)) w->mode = vw_default_modes[i];
    find_paint_enum(w, row ? row->first_value : NULL);
}

/* ---- the pointer ------------------------------------------------------------------------------ */
/* A press on the picture starts a stroke, motion continues it even off the picture (clamped to
 * its edge), a release ends it. Only for a player, in a world whose mode uses the pointer. */
int view_pointer(vw_view *v, int col, int row, int what)
{
    vw_world *w = &v->worlds[v->cur];
    if (!v->can_input || !w->mode->pointer || !v->frame_ok) return 0;
    int x, y;
    if (what == VW_PRESS) {
        if (vw_screen_to_frame(&v->scr, col, row, 0, &x, &y)) return 0;   /* not on the picture */
        v->pressed = 1;
        v->last_x = x;
        v->last_y = y;
        return w->mode->pointer(v, w, VW_PRESS, x, y);
    }
    if (!v->pressed || vw_screen_to_frame(&v->scr, col, row, 1, &x, &y)) return 0;
    if (what == VW_RELEASE) {
        v->pressed = 0;
        return w->mode->pointer(v, w, VW_RELEASE, x, y);
    }
    if (x == v->last_x && y == v->last_y) return 0;
    return w->mode->pointer(v, w, VW_MOTION, x, y);
}
