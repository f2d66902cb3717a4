/* view_modes.c — the world modes of `viv view`: what the keys and the mouse do in a world.
 *
 * A mode is a row of hooks (view.h's vw_mode): paint (sand: a paint input, with erase and
 * explode when the world has them; keys 1-9,0 choose the element of its enum, e and x the
 * tool, [ and ] the brush; a drag applies the tool along the stroke), grab (terrarium:
 * grab/drag/release inputs: a press grabs, motion drags, a release lets go; with spawn and
 * shove, the number keys spawn a body at the pointer and the arrows shove what is near it),
 * cycle (speed, pause/resume, toggle and mode keys), carry (merge: the arrows walk and stop the
 * carrier, space drops, a click drops at the pointer), tend (garden: a click pokes, a drag leads
 * the target, the arrows set the wind, 1-4 spawn at the pointer, t lets the target go) and watch
 * (nothing to send). The kinds table
 * gives each known kind its mode; a kind without a row gets the first mode its welcome's inputs
 * fit, so a new kind works in the viewer without editing it — with watch only, and the generic
 * status line, when it has no inputs the modes know.
 *
 * Every input is built from what the welcome described: arguments by name, clamped to the
 * ranges it gave. A recording (vivd --play) takes no inputs: its keys are the playback keys
 * (view_keys.c), and this file only draws its seek bar. */
#include <stdlib.h>
#include <string.h>
#include "view.h"

/* The brush radius in world pixels: the chosen one, or a disc about one terminal cell across
 * (num/den: the map's pixels per screen pixel, world pixels when zoomed). */
static int view_brush(const vw_view *v, const vw_world *w)
{
    if (w->brush > 0) return w->brush;
    int step = v->scr.den ? (v->scr.num + v->scr.den - 1) / v->scr.den : 1;
    return step < 2 ? 2 : step;
}

/* Send input ii of the current world. Arguments are filled by name: x, y, r (the brush), the
 * paint enum's arg (the chosen element), then n1 = a1 and n2 = a2 (either name may be NULL);
 * any other takes 0, or its range's nearest end. Every value is clamped to the range the
 * welcome gave. */
static int send_in(vw_view *v, int ii, int x, int y, const char *n1, int64_t a1, const char *n2,
                   int64_t a2)
{
    const vw_world *w = &v->worlds[v->cur];
    const cli_input_desc *in = &w->inputs[ii];
    int64_t args[SIM_INPUT_MAX_ARGS];
    for (int a = 0; a < in->nargs; a++) {
        int64_t val = 0;
        if (n1 && strcmp(in->arg[a], n1) == 0) val = a1;
        else if (n2 && strcmp(in->arg[a], n2) == 0) val = a2;
        else if (strcmp(in->arg[a], "x") == 0) val = x;
        else if (strcmp(in->arg[a], "y") == 0) val = y;
        else if (strcmp(in->arg[a], "r") == 0) val = view_brush(v, w);
        else if (ii == w->in_paint && a == w->paint_enum_arg) val = w->element;
        if (val < in->lo[a]) val = in->lo[a];
        if (val > in->hi[a]) val = in->hi[a];
        args[a] = val;
    }
    cli_put_input(&v->b, w->id, ++v->seq, in->name, args, in->nargs);
    v->inputs_sent++;
    return view_send(v);
}

static int view_send_input(vw_view *v, int ii, int x, int y)
{
    return send_in(v, ii, x, y, NULL, 0, NULL, 0);
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

/* Where a key acts: the pointer (as last reported), else the middle of the view. */
static void key_point(const vw_view *v, const vw_world *w, int *x, int *y)
{
    if (v->hover) {
        *x = v->hover_x;
        *y = v->hover_y;
    } else {
        *x = w->zoom ? w->zx : w->w / 2;
        *y = w->zoom ? w->zy : w->h / 2;
    }
}

static int find_in(const vw_world *w, const char *name)
{
    return cli_input_find(w->inputs, w->ninputs, name);
}

static int find_enum(const vw_world *w, const char *name)
{
    for (int e = 0; name && e < w->nenums; e++)
        if (strcmp(w->enums[e].name, name) == 0) return e;
    return -1;
}

/* ---- paint ------------------------------------------------------------------------------------ */
static int paint_fit(vw_world *w)
{
    w->in_paint = find_in(w, "paint");
    w->in_erase = find_in(w, "erase");
    w->in_explode = find_in(w, "explode");
    return w->in_paint >= 0 ? 0 : -1;
}

static int paint_tool_input(const vw_world *w)
{
    return w->tool == VW_TOOL_ERASE ? w->in_erase
         : w->tool == VW_TOOL_EXPLODE ? w->in_explode : w->in_paint;
}

/* 1-9, 0: paint the values 1..10 of the paint enum; e, x: the erase and explode tools (again:
 * back to paint); [ and ]: a smaller or larger brush. */
static int paint_key(vw_view *v, vw_world *w, int key)
{
    const cli_input_desc *in = &w->inputs[w->in_paint];
    int ri = -1;
    for (int a = 0; a < in->nargs; a++)
        if (strcmp(in->arg[a], "r") == 0) ri = a;
    if (key >= '0' && key <= '9' && w->paint_enum >= 0) {
        int id = key == '0' ? 10 : key - '0';
        if (vw_enum_name(&w->enums[w->paint_enum], id)) {
            w->element = id;
            w->tool = VW_TOOL_PAINT;
        }
    } else if (key == 'e' && w->in_erase >= 0) {
        w->tool = w->tool == VW_TOOL_ERASE ? VW_TOOL_PAINT : VW_TOOL_ERASE;
    } else if (key == 'x' && w->in_explode >= 0) {
        w->tool = w->tool == VW_TOOL_EXPLODE ? VW_TOOL_PAINT : VW_TOOL_EXPLODE;
    } else if ((key == '[' || key == ']') && ri >= 0) {
        int r = view_brush(v, w) + (key == ']' ? 1 : -1);
        int lo = in->lo[ri] < 1 ? 1 : in->lo[ri], hi = in->hi[ri] > 64 ? 64 : in->hi[ri];
        w->brush = r < lo ? lo : r > hi ? hi : r;
    }
    return 0;
}

static int paint_pointer(vw_view *v, vw_world *w, int what, int x, int y)
{
    int ii = paint_tool_input(w);
    if (ii < 0) return 0;
    if (what == VW_PRESS) return view_send_input(v, ii, x, y);
    if (what == VW_RELEASE) return 0;
    /* Along the stroke, a disc every brush radius, so a quick drag leaves no gaps (at most 8
     * per event, and within the budget: a very fast stroke gets gaps, not errors). */
    int r = view_brush(v, w);
    int dx = x - v->last_x, dy = y - v->last_y;
    int dist = abs(dx) > abs(dy) ? abs(dx) : abs(dy);
    int n = (dist + r - 1) / r;
    if (n > 8) n = 8;
    for (int i = 1; i <= n && view_input_budget(v); i++)
        if (view_send_input(v, ii, v->last_x + dx * i / n, v->last_y + dy * i / n)) return -1;
    v->last_x = x;
    v->last_y = y;
    return 0;
}

static void paint_status(const vw_view *v, const vw_world *w, int shrt, char *s, size_t cap)
{
    const char *el = w->paint_enum >= 0 ? vw_enum_name(&w->enums[w->paint_enum], w->element) : NULL;
    int r = view_brush(v, w);
    if (w->tool == VW_TOOL_ERASE) snprintf(s, cap, shrt ? " erase r%d" : "  erase  brush %d", r);
    else if (w->tool == VW_TOOL_EXPLODE)
        snprintf(s, cap, shrt ? " explode r%d" : "  explode  brush %d", r);
    else if (el && shrt) snprintf(s, cap, " %s r%d", el, r);
    else if (el) snprintf(s, cap, "  %s %s  brush %d", w->enums[w->paint_enum].name, el, r);
    else snprintf(s, cap, shrt ? " r%d" : "  brush %d", r);
}

static const char *paint_hints(const vw_world *w, int shrt)
{
    if (w->in_erase >= 0 && w->in_explode >= 0)
        return shrt ? " 1-0 e x [] drag" : "  1-9,0 element  e erase  x explode  [ ] brush  drag paint";
    return shrt ? " 1-0 [] drag" : "  1-9,0 element  [ ] brush  drag paint";
}

/* ---- grab ------------------------------------------------------------------------------------- */
static int grab_fit(vw_world *w)
{
    w->in_grab = find_in(w, "grab");
    w->in_drag = find_in(w, "drag");
    w->in_release = find_in(w, "release");
    w->in_spawn = find_in(w, "spawn");
    w->in_shove = find_in(w, "shove");
    return w->in_grab >= 0 && w->in_drag >= 0 && w->in_release >= 0 ? 0 : -1;
}

/* 1-9, 0: spawn the values 1..10 of spawn's enum at the pointer; arrows: shove what is near
 * the pointer that way. */
static int grab_key(vw_view *v, vw_world *w, int key)
{
    int x, y;
    key_point(v, w, &x, &y);
    if (key >= '0' && key <= '9' && w->in_spawn >= 0 && w->spawn_enum >= 0) {
        int id = key == '0' ? 10 : key - '0';
        const char *name = vw_enum_name(&w->enums[w->spawn_enum], id);
        if (!name) return 0;
        view_note(v, "spawn %s at %d,%d", name, x, y);
        return send_in(v, w->in_spawn, x, y, "kind", id, w->enums[w->spawn_enum].name, id);
    }
    if (w->in_shove < 0) return 0;
    int dx = key == VW_K_RIGHT ? VW_SHOVE_PX : key == VW_K_LEFT ? -VW_SHOVE_PX : 0;
    int dy = key == VW_K_DOWN ? VW_SHOVE_PX : key == VW_K_UP ? -VW_SHOVE_PX : 0;
    if (!dx && !dy) return 0;
    return send_in(v, w->in_shove, x, y, "dx", dx, "dy", dy);
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

static const char *grab_hints(const vw_world *w, int shrt)
{
    if (w->in_spawn >= 0 && w->in_shove >= 0)
        return shrt ? " drag 1-2 arrows" : "  drag grab  1-2 spawn at pointer  arrows shove";
    return shrt ? " drag" : "  drag grab";
}

/* ---- cycle ------------------------------------------------------------------------------------ */
static int cycle_fit(vw_world *w)
{
    w->in_speed = find_in(w, "speed");
    w->in_pause = find_in(w, "pause");
    w->in_resume = find_in(w, "resume");
    w->in_toggle = find_in(w, "toggle");
    w->in_cmode = find_in(w, "mode");
    return w->in_speed >= 0 && w->in_pause >= 0 && w->in_resume >= 0 && w->in_toggle >= 0 &&
           w->in_cmode >= 0 ? 0 : -1;
}

/* The speed steps of [ and ], in percent; the world's range clamps them. */
static const int vw_cycle_speeds[] = { 10, 25, 50, 75, 100, 150, 200, 300, 400 };
#define VW_NSPEEDS (int)(sizeof vw_cycle_speeds / sizeof vw_cycle_speeds[0])

/* space: pause or resume; [ ]: slower, faster; 0-9: choose a range; t: switch it off or on;
 * m: switch it between standard and blend. */
static int cycle_key(vw_view *v, vw_world *w, int key)
{
    if (key == ' ') {
        w->cyc_paused = !w->cyc_paused;
        return send_in(v, w->cyc_paused ? w->in_pause : w->in_resume, 0, 0, NULL, 0, NULL, 0);
    }
    if (key == '[' || key == ']') {
        int i = 0;
        while (i < VW_NSPEEDS - 1 && vw_cycle_speeds[i] < w->cyc_speed) i++;
        if (key == ']' && vw_cycle_speeds[i] <= w->cyc_speed && i < VW_NSPEEDS - 1) i++;
        if (key == '[' && i > 0) i--;
        const cli_input_desc *in = &w->inputs[w->in_speed];
        int sp = vw_cycle_speeds[i];
        if (in->nargs && sp < in->lo[0]) sp = in->lo[0];
        if (in->nargs && sp > in->hi[0]) sp = in->hi[0];
        w->cyc_speed = sp;
        return send_in(v, w->in_speed, 0, 0, "percent", sp, NULL, 0);
    }
    if (key >= '0' && key <= '9') {
        w->cyc_range = key - '0';
        return 0;
    }
    uint32_t bit = 1u << (w->cyc_range & 31);
    if (key == 't') {
        w->cyc_off ^= bit;
        return send_in(v, w->in_toggle, 0, 0, "range", w->cyc_range, NULL, 0);
    }
    if (key == 'm') {
        w->cyc_blend ^= bit;
        return send_in(v, w->in_cmode, 0, 0, "range", w->cyc_range, "mode",
                       (w->cyc_blend & bit) ? 1 : 0);
    }
    return 0;
}

static void cycle_status(const vw_view *v, const vw_world *w, int shrt, char *s, size_t cap)
{
    uint32_t bit = 1u << (w->cyc_range & 31);
    snprintf(s, cap, shrt ? " %d%%%s r%d%s%s" : "  speed %d%%%s  range %d%s%s", w->cyc_speed,
             w->cyc_paused ? (shrt ? " paused" : "  paused") : "", w->cyc_range,
             (w->cyc_off & bit) ? " off" : "", (w->cyc_blend & bit) ? " blend" : "");
}

static const char *cycle_hints(const vw_world *w, int shrt)
{
    return shrt ? " spc [] 0-9 t m" : "  space pause  [ ] speed  0-9 range  t on/off  m blend";
}

/* ---- carry (merge) ------------------------------------------------------------------------------ */
static int carry_fit(vw_world *w)
{
    w->in_move = find_in(w, "move");
    w->in_drop = find_in(w, "drop");
    return w->in_move >= 0 && w->in_drop >= 0 ? 0 : -1;
}

/* left, right: walk that way; down: stop (a terminal reports no key release); space: drop where
 * the hand is. */
static int carry_key(vw_view *v, vw_world *w, int key)
{
    int dir = key == VW_K_LEFT ? -1 : key == VW_K_RIGHT ? 1 : key == VW_K_DOWN ? 0 : 2;
    if (dir != 2) {
        w->car_dir = dir;
        return send_in(v, w->in_move, 0, 0, "dir", dir, NULL, 0);
    }
    if (key == ' ') return send_in(v, w->in_drop, 0, 0, "x", -1, NULL, 0);
    return 0;
}

/* A click drops at the pointer: the carrier walks there first. */
static int carry_pointer(vw_view *v, vw_world *w, int what, int x, int y)
{
    if (what != VW_PRESS) return 0;
    v->last_x = x;
    v->last_y = y;
    w->car_dir = 0;
    return send_in(v, w->in_drop, x, y, NULL, 0, NULL, 0);
}

static void carry_status(const vw_view *v, const vw_world *w, int shrt, char *s, size_t cap)
{
    (void)v;
    const char *d = w->car_dir < 0 ? "left" : w->car_dir > 0 ? "right" : "stopped";
    snprintf(s, cap, shrt ? " %s" : "  walking %s", d);
}

static const char *carry_hints(const vw_world *w, int shrt)
{
    (void)w;
    return shrt ? " <- -> v spc click" : "  <- -> walk  down stop  space drop  click drop there";
}

/* ---- tend (garden) ------------------------------------------------------------------------------ */
/* The wind steps of the arrows, and the number keys' creatures (values 0.. of spawn's enum). */
#define VW_WIND_STEP 20
static int tend_fit(vw_world *w)
{
    w->in_poke = find_in(w, "poke");
    w->in_target = find_in(w, "target");
    w->in_wind = find_in(w, "wind");
    w->in_spawn = find_in(w, "spawn");
    return w->in_poke >= 0 && w->in_target >= 0 ? 0 : -1;
}

/* left, right: the wind a step that way; down: calm; 1-9: spawn value key−1 of spawn's enum at
 * the pointer; t: let the target go. */
static int tend_key(vw_view *v, vw_world *w, int key)
{
    if ((key == VW_K_LEFT || key == VW_K_RIGHT || key == VW_K_DOWN) && w->in_wind >= 0) {
        const cli_input_desc *in = &w->inputs[w->in_wind];
        int s = key == VW_K_DOWN ? 0 : w->wind + (key == VW_K_RIGHT ? VW_WIND_STEP : -VW_WIND_STEP);
        if (in->nargs && s < in->lo[0]) s = (int)in->lo[0];
        if (in->nargs && s > in->hi[0]) s = (int)in->hi[0];
        w->wind = s;
        return send_in(v, w->in_wind, 0, 0, "strength", s, NULL, 0);
    }
    if (key == 't') return send_in(v, w->in_target, 0, 0, "x", -1, "y", -1);
    if (key >= '1' && key <= '9' && w->in_spawn >= 0 && w->spawn_enum >= 0) {
        int id = key - '1';
        const char *name = vw_enum_name(&w->enums[w->spawn_enum], id);
        if (!name) return 0;
        int x, y;
        key_point(v, w, &x, &y);
        view_note(v, "spawn %s at %d,%d", name, x, y);
        return send_in(v, w->in_spawn, x, y, "kind", id, NULL, 0);
    }
    return 0;
}

/* A click (a press and a release on the same pixel) pokes; a drag leads the target along. */
static int tend_pointer(vw_view *v, vw_world *w, int what, int x, int y)
{
    if (what == VW_PRESS) {
        w->dragged = 0;
        v->last_x = x;
        v->last_y = y;
        return 0;
    }
    if (what == VW_RELEASE) {
        if (w->dragged) return 0;
        return view_send_input(v, w->in_poke, v->last_x, v->last_y);
    }
    w->dragged = 1;
    if (!view_input_budget(v)) return 0;       /* the next motion catches up */
    v->last_x = x;
    v->last_y = y;
    return view_send_input(v, w->in_target, x, y);
}

static void tend_status(const vw_view *v, const vw_world *w, int shrt, char *s, size_t cap)
{
    (void)v;
    snprintf(s, cap, shrt ? " wind %+d" : "  wind %+d", w->wind);
}

static const char *tend_hints(const vw_world *w, int shrt)
{
    (void)w;
    return shrt ? " click drag <- -> v 1-4 t"
                : "  click poke  drag target  <- -> wind  down calm  1-4 spawn  t let go";
}

/* ---- the table -------------------------------------------------------------------------------- */
static const vw_mode vw_mode_paint = { "paint", paint_fit, "1234567890ex[]", 0, paint_key,
                                       paint_pointer, NULL, paint_status, paint_hints };
static const vw_mode vw_mode_grab = { "grab", grab_fit, "1234567890", 1, grab_key, grab_pointer,
                                      grab_leave, NULL, grab_hints };
static const vw_mode vw_mode_cycle = { "cycle", cycle_fit, " []1234567890tm", 0, cycle_key, NULL,
                                       NULL, cycle_status, cycle_hints };
static const vw_mode vw_mode_carry = { "carry", carry_fit, " ", 1, carry_key, carry_pointer,
                                       NULL, carry_status, carry_hints };
static const vw_mode vw_mode_tend = { "tend", tend_fit, "123456789t", 1, tend_key, tend_pointer,
                                      NULL, tend_status, tend_hints };
static const vw_mode vw_mode_watch = { "watch", NULL, "", 0, NULL, NULL, NULL, NULL, NULL };

/* One row per world kind. A falling powder is the friendliest first brush. */
static const vw_kind_row vw_kinds[] = {
    { "sand", &vw_mode_paint, "sand", "element", "paint (drag)", 0 },
    { "terrarium", &vw_mode_grab, NULL, "body", "spawn at the pointer", 0 },
    { "cycle", &vw_mode_cycle, NULL, NULL, NULL, 0 },
    { "merge", &vw_mode_carry, NULL, NULL, NULL, 0 },
    { "garden", &vw_mode_tend, NULL, "creature", "spawn at the pointer", 1 },
};

/* A kind without a row (or whose world lacks its row's inputs): the first mode that fits. */
static const vw_mode *const vw_default_modes[] = { &vw_mode_grab, &vw_mode_paint, &vw_mode_cycle,
                                                   &vw_mode_carry, &vw_mode_tend, &vw_mode_watch };

void view_modes_help(FILE *out)
{
    for (size_t r = 0; r < sizeof vw_kinds / sizeof vw_kinds[0]; r++) {
        const sim_kind *k = sim_kind_find(vw_kinds[r].kind);
        for (int e = 0; k && vw_kinds[r].key_enum && e < k->nenums; e++) {
            if (strcmp(k->enums[e].name, vw_kinds[r].key_enum)) continue;
            fprintf(out, "\n%s %s keys, %s:", k->name, k->enums[e].name, vw_kinds[r].key_does);
            int from0 = vw_kinds[r].key_from0;
            for (int i = from0 ? 0 : 1; i <= (from0 ? 8 : 10) && i < k->enums[e].count; i++)
                fprintf(out, " %d %s", from0 ? i + 1 : i % 10, k->enums[e].values[i]);
            fprintf(out, "\n");
        }
    }
}

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
    w->in_erase = w->in_explode = w->in_spawn = w->in_shove = -1;
    w->in_speed = w->in_pause = w->in_resume = w->in_toggle = w->in_cmode = -1;
    w->in_move = w->in_drop = -1;
    w->car_dir = 0;
    w->in_poke = w->in_target = w->in_wind = -1;
    w->wind = 0;
    w->dragged = 0;
    w->mode = NULL;
    if (row && mode_fits(row->mode, w)) w->mode = row->mode;
    for (size_t i = 0; !w->mode && i < sizeof vw_default_modes / sizeof vw_default_modes[0]; i++)
        if (mode_fits(vw_default_modes[i], w)) w->mode = vw_default_modes[i];
    find_paint_enum(w, row ? row->first_value : NULL);
    /* spawn's enum: the row's, else the only one; its argument is named after it or "kind". */
    w->spawn_enum = find_enum(w, row ? row->key_enum : NULL);
    if (w->spawn_enum < 0 && w->nenums == 1) w->spawn_enum = 0;
    w->tool = VW_TOOL_PAINT;
    w->cyc_speed = 100;
}

/* ---- the pointer ------------------------------------------------------------------------------ */
/* A press on the picture starts a stroke, motion continues it even off the picture (clamped to
 * its edge), a release ends it. Only for a player, in a live world whose mode uses the pointer. */
int view_pointer(vw_view *v, int col, int row, int what)
{
    vw_world *w = &v->worlds[v->cur];
    int x, y;
    if (vw_screen_to_world(&v->scr, w, col, row, 1, &x, &y) == 0) {
        v->hover = 1;
        v->hover_x = x;
        v->hover_y = y;
    }
    if (!v->can_input || !w->mode->pointer || !v->frame_ok || w->is_play || w->tl) return 0;
    if (what == VW_PRESS) {
        if (vw_screen_to_world(&v->scr, w, col, row, 0, &x, &y)) return 0;   /* not on the picture */
        v->pressed = 1;
        v->last_x = x;
        v->last_y = y;
        return w->mode->pointer(v, w, VW_PRESS, x, y);
    }
    if (!v->pressed || vw_screen_to_world(&v->scr, w, col, row, 1, &x, &y)) return 0;
    if (what == VW_RELEASE) {
        v->pressed = 0;
        return w->mode->pointer(v, w, VW_RELEASE, x, y);
    }
    if (x == v->last_x && y == v->last_y) return 0;
    return w->mode->pointer(v, w, VW_MOTION, x, y);
}

void view_hover(vw_view *v, int col, int row)
{
    int x, y;
    if (vw_screen_to_world(&v->scr, &v->worlds[v->cur], col, row, 0, &x, &y))
        return;                                                   /* off the picture */
    v->hover = 1;
    v->hover_x = x;
    v->hover_y = y;
}

/* ---- a recording ------------------------------------------------------------------------------ */
void view_play_status(const vw_view *v, const vw_world *w, int shrt, char *s, size_t cap)
{
    uint64_t span = w->play_end > w->play_start ? w->play_end - w->play_start : 0;
    uint64_t at = w->play_tick > w->play_start ? w->play_tick - w->play_start : 0;
    if (at > span) at = span;
    int width = shrt ? 8 : 20, fill = span ? (int)(at * (uint64_t)width / span) : width;
    char bar[32];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '-';
    bar[width] = '\0';
    snprintf(s, cap, shrt ? "  %s %llu/%llu [%s] %d%%" : "  %s  tick %llu / %llu  [%s]  speed %d%%",
             w->play_paused ? (shrt ? "||" : "paused") : (shrt ? ">" : "playing"),
             (unsigned long long)w->play_tick, (unsigned long long)w->play_end, bar, w->play_speed);
}

/* A rewound live world: the tick shown, and about how far behind the world it is (the live edge
 * of the last answer, moved on at the world's rate since). */
void view_timeline_status(const vw_view *v, const vw_world *w, double now, int shrt, char *s,
                          size_t cap)
{
    (void)v;
    double ahead = now > w->tl_edge_t ? (now - w->tl_edge_t) * w->hz : 0;
    uint64_t world = w->tl_edge + (uint64_t)ahead;
    uint64_t behind = world > w->play_tick ? world - w->play_tick : 0;
    snprintf(s, cap, shrt ? " rewound t%llu -%llu %s %d%%"
                          : "  rewound  tick %llu  -%llu ticks  %s  speed %d%%",
             (unsigned long long)w->play_tick, (unsigned long long)behind,
             w->play_paused ? (shrt ? "||" : "paused") : (shrt ? ">" : "playing"), w->play_speed);
}
