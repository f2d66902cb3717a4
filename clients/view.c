/* view.c — `viv view`: watch a world of a running vivd in the terminal.
 *
 * Every rebuilt frame is drawn with ANSI 24-bit colour half-blocks ("▀": foreground = the upper
 * pixel, background = the lower one, so a character cell holds two pixels), fitted to the
 * terminal and centred. The cells as last drawn are kept, and only those that differ are written:
 * cursor moves and colour changes for the changed cells, in one write() per frame. The socket,
 * the keyboard (raw mode) and the signals (a signalfd) share one poll(); every pending message is
 * applied before drawing, so a slow terminal skips frames and always shows the latest one.
 *
 * `--frames N` is the non-interactive mode for tests and scripts: N frames at a fixed size to
 * stdout, no alternate screen, no raw mode. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "net.h"

#define VW_NAME 32
#define VW_MAX_VIEWS 8
#define VW_MAX_INPUTS 16
#define VW_MAX_ENUMS 4
#define VW_MAX_VALUES 64
#define VW_NONE 0x01000000u       /* no pixel here: the terminal's own background */
#define VW_UNSET 0xFFFFFFFFu      /* an SGR colour the terminal is not known to have */
#define VW_WAIT_MS 10000          /* --frames gives up when the server is silent this long */
#define VW_DRAIN_MAX 512          /* messages applied per loop turn before the keys get a look */
#define VW_STALE_KEYS 0.1         /* a partial escape sequence older than this is a lone Esc */
/* Strokes send at most this many inputs per tick-long window: two windows can meet in one
 * server tick, and 2 x 12 stays under its 32 (the 33rd is rate_limited, and 16 errors end the
 * connection). */
#define VW_INPUTS_PER_TICK 12

/* ---- what the welcome says about a world ------------------------------------------------------- */
typedef struct vw_input {
    char name[VW_NAME];
    int nargs;
    char arg[SIM_INPUT_MAX_ARGS][VW_NAME];
    int32_t lo[SIM_INPUT_MAX_ARGS], hi[SIM_INPUT_MAX_ARGS];
} vw_input;

typedef struct vw_enum {
    char name[VW_NAME];
    int n;
    char value[VW_MAX_VALUES][VW_NAME];
    int id[VW_MAX_VALUES];
} vw_enum;

enum { VW_POINT_NONE, VW_POINT_PAINT, VW_POINT_GRAB };
enum { VW_PRESS, VW_MOTION, VW_RELEASE };          /* what the left mouse button did */

typedef struct vw_world {
    uint32_t id;
    char kind[VW_NAME];
    int w, h, hz;
    int nviews;
    char views[VW_MAX_VIEWS][VW_NAME];
    int ninputs;
    vw_input inputs[VW_MAX_INPUTS];
    int nenums;
    vw_enum enums[VW_MAX_ENUMS];
    /* Derived from the inputs, never from the kind's name. */
    int pointer;                      /* VW_POINT_*: what a mouse drag does */
    int in_paint, in_grab, in_drag, in_release;        /* input indexes, or -1 */
    int paint_enum, paint_enum_arg;   /* the enum the paint input takes, and which arg; or -1 */
    int element;                      /* the chosen value of that enum */
} vw_world;

typedef struct vw_opts {
    const char *host, *world, *token, *view;
    uint32_t every;
    long frames;                      /* 0: interactive */
    int cols, rows;                   /* --size */
    int size_given;
} vw_opts;

/* ---- the screen --------------------------------------------------------------------------------- */
typedef struct vw_out {
    char *p;
    size_t len, cap;
    int oom;
} vw_out;

typedef struct vw_screen {
    int cols, rows;                   /* the whole terminal: picture rows-1, status the last row */
    uint64_t *want, *have;            /* per cell: upper colour << 32 | lower colour */
    int have_valid;                   /* have[] mirrors the terminal */
    int *colmap, *rowmap;             /* frame x per column, frame y per half-row; -1: outside */
    int fw, fh;                       /* the frame size the maps were built for (0: none yet) */
    int ox, oy, ow, oh;               /* picture offset and size in columns and half-rows */
    int num, den;                     /* frame pixels per screen pixel: num / den */
    char status[512];                 /* the status line as last drawn */
    int status_valid;
    uint32_t fg, bg;                  /* the SGR colours the terminal has now */
    int cur_r, cur_c;                 /* the cursor, or cur_r = -1 when unknown */
} vw_screen;

typedef struct vw_view {
    vw_opts o;
    cli_conn conn;
    wire_buf b;
    vw_world *worlds;
    int nworlds, cur;
    char role[16];
    int can_input;                    /* player or admin */
    cli_frame frame;
    int frame_ok;                     /* frame holds a verified picture of the current world */
    int frame_new;                    /* ... not drawn yet */
    vw_screen scr;
    vw_out out;
    /* terminal */
    int tty_on, sigfd, sigmask_on;
    struct termios saved;
    sigset_t oldmask;
    uint8_t kbuf[256];
    size_t klen;
    double ktime;
    /* pointer */
    int pressed, last_x, last_y;
    uint32_t seq;
    double in_t0;                     /* the current input window, and what it has sent */
    int in_count;
    /* counters */
    uint64_t frames_rx, frames_drawn, inputs_sent, acks, errors, resyncs;
    char last_err[40];
    char final_err[200];              /* the last error, when nothing followed it */
    char note[48];                    /* news for the status line, shown for a few seconds */
    double note_t;
    double win_t0, fps, dps, bps;     /* the rates' one-second window, and the last rates */
    uint64_t win_frames, win_drawn, win_bytes;
    int have_rates;
    char err[512];
} vw_view;

static const char vw_upper[] = "\xe2\x96\x80", vw_lower[] = "\xe2\x96\x84",
                  vw_full[] = "\xe2\x96\x88";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- help ------------------------------------------------------------------------------------- */
static void view_usage(FILE *out)
{
    fprintf(out,
        "usage: viv view [--host HOST:PORT] [--world ID|KIND] [--every N] [--view NAME]\n"
        "                [--token T] [--frames N [--size COLSxROWS]]\n"
        "\n"
        "Watches a world of a running vivd in the terminal. Each character cell shows two pixels\n"
        "as an upper half-block in 24-bit colour (foreground = upper pixel, background = lower),\n"
        "so the terminal needs truecolor and UTF-8. The picture is scaled down to fit (nearest\n"
        "pixel, aspect kept), or up by a whole factor when the world is small, and centred; it\n"
        "re-fits when the terminal is resized. Only the cells that change are redrawn, and when\n"
        "the terminal cannot keep up, frames are skipped: the latest one is always drawn.\n"
        "\n"
        "  --host HOST:PORT  the server (default 127.0.0.1:7400)\n"
        "  --world ID|KIND   the world to watch first: its id, or the first world of a kind\n"
        "                    (default: the server's first world)\n"
        "  --every N         one frame every N ticks, 1..3600 (default 1)\n"
        "  --view NAME       render layer by name (default: the normal picture); a world without\n"
        "                    that view shows its normal picture\n"
        "  --token T         player or admin token, to paint with the mouse (default:\n"
        "                    $VIVD_PLAYER_TOKEN). Without one you watch as a viewer.\n"
        "  --frames N        non-interactive: draw N frames to stdout (a file or pipe is fine),\n"
        "                    each as the changes to the one before, then exit 0\n"
        "  --size COLSxROWS  the screen size --frames draws for (default 80x24)\n"
        "\n"
        "keys:\n"
        "  q, Ctrl-C         quit\n"
        "  Tab, n            next world (the new stream starts with a keyframe)\n"
        "  p, Shift-Tab      previous world\n"
        "  1-9, 0            choose the paint element: the values 1..10 of the paint input's\n"
        "                    enum, from the server's names table\n"
        "  Ctrl-L            redraw the whole screen\n"
        "mouse (with a player or admin token):\n"
        "  left drag         in a world with a paint input: paint the chosen element in a disc\n"
        "                    about one cell wide; in a world with grab/drag/release inputs:\n"
        "                    press grabs, motion drags, release lets go\n"
        "\n"
        "The status line (last row) shows the world id and kind, the tick, frames per second\n"
        "received (and drawn, when fewer), bytes per second received, your role, the paint\n"
        "element, and the acknowledged inputs and errors (with the last error's code).\n"
        "\n"
        "Exit status: 0 after q or --frames, 1 for a connection or server problem, 2 for a bad\n"
        "option, 128+N after signal N. The terminal is restored in every case.\n");
    for (int i = 0; i < sim_kind_count(); i++) {
        const sim_kind *k = sim_kind_at(i);
        for (int e = 0; e < k->nenums; e++) {
            fprintf(out, "\n%s %s keys:", k->name, k->enums[e].name);
            for (int v = 1; v <= 10 && v < k->enums[e].count; v++)
                fprintf(out, " %d %s", v % 10, k->enums[e].values[v]);
            fprintf(out, "\n");
        }
    }
}

/* ---- the welcome ------------------------------------------------------------------------------ */
static int val_str(const wire_val *v, char *dst, size_t cap)
{
    if (v->type != WIRE_STR || v->n == 0 || v->n >= cap) return -1;
    memcpy(dst, v->p, v->n);
    dst[v->n] = '\0';
    return 0;
}

static int val_int(const wire_val *v, int64_t *out)
{
    if (v->type == WIRE_UINT && v->u <= (uint64_t)INT64_MAX) *out = (int64_t)v->u;
    else if (v->type == WIRE_INT) *out = v->i;
    else return -1;
    return 0;
}

static int32_t clamp32(int64_t v)
{
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

static int world_input(const vw_world *w, const char *name)
{
    for (int i = 0; i < w->ninputs; i++)
        if (strcmp(w->inputs[i].name, name) == 0) return i;
    return -1;
}

/* inputs: {name: [arg names]}. Inputs past VW_MAX_INPUTS are ignored (never sent). */
static int parse_inputs(const wire_val *v, vw_world *w)
{
    if (v->type != WIRE_MAP) return -1;
    const uint8_t *it = v->p, *end = v->raw + v->rawlen;
    for (uint32_t i = 0; i < v->n; i++) {
        wire_val k, args, a;
        if (wire_next(&it, end, &k) || wire_next(&it, end, &args) || args.type != WIRE_ARRAY ||
            args.n > SIM_INPUT_MAX_ARGS)
            return -1;
        if (w->ninputs == VW_MAX_INPUTS) continue;
        vw_input *in = &w->inputs[w->ninputs];
        if (val_str(&k, in->name, sizeof in->name)) return -1;
        const uint8_t *ai = args.p, *ae = args.raw + args.rawlen;
        for (uint32_t j = 0; j < args.n; j++) {
            if (wire_next(&ai, ae, &a) || val_str(&a, in->arg[j], sizeof in->arg[j])) return -1;
            in->lo[j] = INT32_MIN;
            in->hi[j] = INT32_MAX;
        }
        in->nargs = (int)args.n;
        w->ninputs++;
    }
    return 0;
}

/* ranges: {name: [[lo, hi], ...]}, matched to the inputs by name. */
static int parse_ranges(const wire_val *v, vw_world *w)
{
    if (v->type != WIRE_MAP) return -1;
    const uint8_t *it = v->p, *end = v->raw + v->rawlen;
    for (uint32_t i = 0; i < v->n; i++) {
        wire_val k, arr, pair, x;
        char name[VW_NAME];
        if (wire_next(&it, end, &k) || wire_next(&it, end, &arr) || arr.type != WIRE_ARRAY ||
            val_str(&k, name, sizeof name))
            return -1;
        int ii = world_input(w, name);
        const uint8_t *ai = arr.p, *ae = arr.raw + arr.rawlen;
        for (uint32_t j = 0; j < arr.n; j++) {
            if (wire_next(&ai, ae, &pair) || pair.type != WIRE_ARRAY || pair.n != 2) return -1;
            const uint8_t *pi = pair.p, *pe = pair.raw + pair.rawlen;
            int64_t lo, hi;
            if (wire_next(&pi, pe, &x) || val_int(&x, &lo) || wire_next(&pi, pe, &x) ||
                val_int(&x, &hi))
                return -1;
            if (ii >= 0 && (int)j < w->inputs[ii].nargs) {
                w->inputs[ii].lo[j] = clamp32(lo);
                w->inputs[ii].hi[j] = clamp32(hi);
            }
        }
    }
    return 0;
}

/* names: {enum: {value name: id}}. */
static int parse_names(const wire_val *v, vw_world *w)
{
    if (v->type != WIRE_MAP) return -1;
    const uint8_t *it = v->p, *end = v->raw + v->rawlen;
    for (uint32_t i = 0; i < v->n; i++) {
        wire_val k, map, vk, vv;
        if (wire_next(&it, end, &k) || wire_next(&it, end, &map) || map.type != WIRE_MAP)
            return -1;
        if (w->nenums == VW_MAX_ENUMS) continue;
        vw_enum *e = &w->enums[w->nenums];
        if (val_str(&k, e->name, sizeof e->name)) return -1;
        const uint8_t *mi = map.p, *me = map.raw + map.rawlen;
        for (uint32_t j = 0; j < map.n; j++) {
            int64_t id;
            if (wire_next(&mi, me, &vk) || wire_next(&mi, me, &vv) || vv.type != WIRE_UINT ||
                val_int(&vv, &id) || id > INT32_MAX)
                return -1;
            if (e->n == VW_MAX_VALUES) continue;
            if (val_str(&vk, e->value[e->n], sizeof e->value[e->n])) return -1;
            e->id[e->n++] = (int)id;
        }
        w->nenums++;
    }
    return 0;
}

static const char *enum_name(const vw_enum *e, int id)
{
    for (int i = 0; i < e->n; i++)
        if (e->id[i] == id) return e->value[i];
    return NULL;
}

/* One entry of the welcome's "worlds". 0, or -1 when it is not what the protocol describes. */
static int parse_world(const wire_val *v, vw_world *w)
{
    memset(w, 0, sizeof *w);
    wire_msg m;
    if (v->type != WIRE_MAP || wire_msg_decode(v->raw, v->rawlen, &m)) return -1;
    uint64_t id, fw, fh;
    const char *k;
    size_t kl;
    if (wire_get_u64(&m, "id", &id) || id > UINT32_MAX || wire_get_str(&m, "kind", &k, &kl) ||
        kl == 0 || kl >= sizeof w->kind || wire_get_u64(&m, "w", &fw) ||
        wire_get_u64(&m, "h", &fh) || fw > 4096 || fh > 4096)
        return -1;
    w->id = (uint32_t)id;
    memcpy(w->kind, k, kl);
    w->kind[kl] = '\0';
    w->w = (int)fw;
    w->h = (int)fh;
    uint64_t hz = 60;
    wire_get_u64(&m, "hz", &hz);
    w->hz = hz >= 1 && hz <= 1000 ? (int)hz : 60;
    const wire_val *views = wire_msg_get(&m, "views"), *f;
    if (views) {
        if (views->type != WIRE_ARRAY) return -1;
        const uint8_t *it = views->p, *end = views->raw + views->rawlen;
        wire_val s;
        for (uint32_t i = 0; i < views->n; i++) {
            if (wire_next(&it, end, &s)) return -1;
            if (w->nviews < VW_MAX_VIEWS && val_str(&s, w->views[w->nviews], VW_NAME) == 0)
                w->nviews++;
        }
    }
    if ((f = wire_msg_get(&m, "inputs")) && parse_inputs(f, w)) return -1;
    if ((f = wire_msg_get(&m, "ranges")) && parse_ranges(f, w)) return -1;
    if ((f = wire_msg_get(&m, "names")) && parse_names(f, w)) return -1;

    w->in_paint = world_input(w, "paint");
    w->in_grab = world_input(w, "grab");
    w->in_drag = world_input(w, "drag");
    w->in_release = world_input(w, "release");
    w->pointer = (w->in_grab >= 0 && w->in_drag >= 0 && w->in_release >= 0) ? VW_POINT_GRAB
               : w->in_paint >= 0 ? VW_POINT_PAINT : VW_POINT_NONE;
    w->paint_enum = w->paint_enum_arg = -1;
    if (w->in_paint >= 0) {
        const vw_input *in = &w->inputs[w->in_paint];
        for (int a = 0; a < in->nargs && w->paint_enum < 0; a++)
            for (int e = 0; e < w->nenums; e++)
                if (strcmp(in->arg[a], w->enums[e].name) == 0) {
                    w->paint_enum = e;
                    w->paint_enum_arg = a;
                    break;
                }
    }
    if (w->paint_enum >= 0) {
        /* A falling powder is the friendliest first brush; otherwise value 1 (0 is usually
         * "empty"), otherwise whatever comes first. */
        const vw_enum *e = &w->enums[w->paint_enum];
        w->element = e->n ? e->id[0] : 0;
        if (enum_name(e, 1)) w->element = 1;
        for (int i = 0; i < e->n; i++)
            if (strcmp(e->value[i], "sand") == 0) w->element = e->id[i];
    }
    return 0;
}

static int view_read_welcome(vw_view *v, const wire_msg *m)
{
    const char *role;
    size_t rl;
    if (wire_get_str(m, "role", &role, &rl) || rl == 0 || rl >= sizeof v->role) {
        snprintf(v->err, sizeof v->err, "the server's welcome has no role");
        return -1;
    }
    memcpy(v->role, role, rl);
    v->role[rl] = '\0';
    v->can_input = strcmp(v->role, "player") == 0 || strcmp(v->role, "admin") == 0;
    const wire_val *ws = wire_msg_get(m, "worlds");
    if (!ws || ws->type != WIRE_ARRAY) {
        snprintf(v->err, sizeof v->err, "the server's welcome has no list of worlds");
        return -1;
    }
    v->worlds = calloc(ws->n ? ws->n : 1, sizeof *v->worlds);
    if (!v->worlds) {
        snprintf(v->err, sizeof v->err, "out of memory for %u worlds", ws->n);
        return -1;
    }
    const uint8_t *it = ws->p, *end = ws->raw + ws->rawlen;
    for (uint32_t i = 0; i < ws->n; i++) {
        wire_val wv;
        if (wire_next(&it, end, &wv) || parse_world(&wv, &v->worlds[i])) {
            snprintf(v->err, sizeof v->err,
                     "the server's welcome describes world #%u in a form this viv does not "
                     "understand (is viv older than vivd?)", i + 1);
            return -1;
        }
    }
    v->nworlds = (int)ws->n;
    return 0;
}

static void world_list(const vw_view *v, char *s, size_t cap)
{
    size_t k = 0;
    s[0] = '\0';
    for (int i = 0; i < v->nworlds && k + 1 < cap; i++) {
        int n = snprintf(s + k, cap - k, "%s%u %s", i ? ", " : "", v->worlds[i].id,
                         v->worlds[i].kind);
        if (n < 0) break;
        k += (size_t)n;
    }
}

/* --world ID|KIND, or the first world. 0, or -1 with the reason in v->err. */
static int view_pick_world(vw_view *v)
{
    char list[400];
    world_list(v, list, sizeof list);
    if (v->nworlds == 0) {
        snprintf(v->err, sizeof v->err, "%s hosts no worlds yet (an admin can create one)",
                 v->o.host);
        return -1;
    }
    v->cur = 0;
    if (!v->o.world) return 0;
    const char *s = v->o.world;
    int numeric = *s != '\0';
    for (const char *p = s; *p; p++) numeric &= *p >= '0' && *p <= '9';
    unsigned long long id = numeric && strlen(s) < 12 ? strtoull(s, NULL, 10) : ~0ULL;
    for (int i = 0; i < v->nworlds; i++) {
        if (numeric ? id == v->worlds[i].id : strcmp(s, v->worlds[i].kind) == 0) {
            v->cur = i;
            return 0;
        }
    }
    snprintf(v->err, sizeof v->err, "no world '%s' (worlds: %s)", s, list);
    return -1;
}

static int world_has_view(const vw_world *w, const char *name)
{
    for (int i = 0; i < w->nviews; i++)
        if (strcmp(w->views[i], name) == 0) return 1;
    return 0;
}

/* ---- messages to the server ------------------------------------------------------------------- */
static int view_send(vw_view *v)
{
    int rc = cli_send(&v->conn, &v->b);
    wire_buf_reset(&v->b);
    if (rc) snprintf(v->err, sizeof v->err, "sending to the server failed: %s", strerror(errno));
    return rc;
}

/* (Re)subscribe to the current world: the server answers with a keyframe first. --view applies
 * where the world has that view. */
static int view_put_sub(vw_view *v)
{
    const vw_world *w = &v->worlds[v->cur];
    const char *view = v->o.view && world_has_view(w, v->o.view) ? v->o.view : NULL;
    cli_put_sub(&v->b, w->id, v->o.every, NULL, view);   /* default: tile.zst */
    return view_send(v);
}

/* Watch the current world from scratch: the old picture is dropped. */
static int view_subscribe(vw_view *v)
{
    cli_frame_free(&v->frame);
    v->frame_ok = 0;
    v->frame_new = 0;
    v->pressed = 0;
    return view_put_sub(v);
}

/* The brush radius in frame pixels: a disc about one terminal cell across. */
static int view_brush(const vw_view *v)
{
    int step = v->scr.den ? (v->scr.num + v->scr.den - 1) / v->scr.den : 1;
    return step < 2 ? 2 : step;
}

static int view_unsubscribe(vw_view *v, uint32_t id)
{
    wire_msg_begin(&v->b);
    wire_put_map(&v->b, 2);
    wire_put_str(&v->b, "t"); wire_put_str(&v->b, "unsub");
    wire_put_str(&v->b, "world"); wire_put_uint(&v->b, id);
    wire_msg_end(&v->b);
    return view_send(v);
}

/* Send input ii of the current world at frame pixel (x, y). Arguments are filled by name: x, y,
 * r (the brush), the paint enum's arg (the chosen element); any other takes 0, or its range's
 * nearest end. Every value is clamped to the range the welcome gave. */
static int view_send_input(vw_view *v, int ii, int x, int y)
{
    const vw_world *w = &v->worlds[v->cur];
    const vw_input *in = &w->inputs[ii];
    int brush = view_brush(v);
    wire_msg_begin(&v->b);
    wire_put_map(&v->b, 5);
    wire_put_str(&v->b, "t"); wire_put_str(&v->b, "input");
    wire_put_str(&v->b, "world"); wire_put_uint(&v->b, w->id);
    wire_put_str(&v->b, "seq"); wire_put_uint(&v->b, ++v->seq);
    wire_put_str(&v->b, "kind"); wire_put_str(&v->b, in->name);
    wire_put_str(&v->b, "args");
    wire_put_array(&v->b, (uint32_t)in->nargs);
    for (int a = 0; a < in->nargs; a++) {
        int64_t val = 0;
        if (strcmp(in->arg[a], "x") == 0) val = x;
        else if (strcmp(in->arg[a], "y") == 0) val = y;
        else if (strcmp(in->arg[a], "r") == 0) val = brush;
        else if (ii == w->in_paint && a == w->paint_enum_arg) val = w->element;
        if (val < in->lo[a]) val = in->lo[a];
        if (val > in->hi[a]) val = in->hi[a];
        wire_put_int(&v->b, val);
    }
    wire_msg_end(&v->b);
    v->inputs_sent++;
    return view_send(v);
}

static int view_switch(vw_view *v, int dir)
{
    if (v->nworlds < 2) return 0;
    const vw_world *w = &v->worlds[v->cur];
    uint32_t old = w->id;
    /* Nothing stays grabbed in a world no longer watched. */
    if (v->pressed && w->pointer == VW_POINT_GRAB &&
        view_send_input(v, w->in_release, v->last_x, v->last_y))
        return -1;
    v->cur = (v->cur + dir + v->nworlds) % v->nworlds;
    if (view_unsubscribe(v, old) || view_subscribe(v)) return -1;
    v->scr.have_valid = 0;        /* a clean screen until the new world's keyframe */
    return 0;
}

/* ---- messages from the server ----------------------------------------------------------------- */
static void view_forget_world(vw_view *v, int i)
{
    memmove(&v->worlds[i], &v->worlds[i + 1], (size_t)(v->nworlds - i - 1) * sizeof *v->worlds);
    v->nworlds--;
    if (v->cur > i) v->cur--;
}

/* Handle one message. 1: the current world has a new verified picture; 0: nothing to draw;
 * -1: the view cannot go on (v->err says why). */
static int view_on_message(vw_view *v, const wire_msg *m)
{
    const char *s;
    size_t sl;
    uint64_t id;
    v->final_err[0] = '\0';        /* kept only while an error is the latest message */
    if (cli_msg_is(m, "frame")) {
        if (wire_get_u64(m, "world", &id) || id != v->worlds[v->cur].id) return 0;
        char e[256];
        int rc = cli_frame_apply(&v->frame, m, e, sizeof e);
        if (rc == 0) {
            v->frames_rx++;
            v->win_frames++;
            v->frame_ok = 1;
            v->frame_new = 1;
            return 1;
        }
        if (rc == -3) return 0;    /* deltas still in flight from before a keyframe was asked */
        /* A frame that does not decode or match its hash: the picture is wrong from here on.
         * Subscribing again makes the server start over with a keyframe. */
        v->resyncs++;
        snprintf(v->last_err, sizeof v->last_err, "%s", rc == -2 ? "frame_hash" : "bad_frame");
        v->frame.have_key = 0;
        v->frame_ok = 0;
        return view_put_sub(v) ? -1 : 0;
    }
    if (cli_msg_is(m, "ack")) {
        v->acks++;
        return 0;
    }
    if (cli_msg_is(m, "error")) {
        v->errors++;
        const char *msg = "";
        size_t ml = 0;
        if (wire_get_str(m, "code", &s, &sl)) { s = "?"; sl = 1; }
        wire_get_str(m, "msg", &msg, &ml);
        snprintf(v->last_err, sizeof v->last_err, "%.*s", (int)(sl > 32 ? 32 : sl), s);
        snprintf(v->final_err, sizeof v->final_err, "%.*s: %.*s", (int)(sl > 32 ? 32 : sl), s,
                 (int)(ml > 150 ? 150 : ml), msg);
        /* Without a seq it is about a sub or unsub; --frames has no one to show it to. */
        if (v->o.frames && !wire_msg_get(m, "seq") && !v->frames_drawn) {
            snprintf(v->err, sizeof v->err, "the server refused: %s", v->final_err);
            return -1;
        }
        return 0;
    }
    if (cli_msg_is(m, "closed")) {
        if (wire_get_u64(m, "world", &id)) return 0;
        for (int i = 0; i < v->nworlds; i++) {
            if (v->worlds[i].id != id) continue;
            int was_current = i == v->cur;
            if (v->nworlds == 1) {
                snprintf(v->err, sizeof v->err, "world %u (%s) was closed, and no world is left",
                         v->worlds[i].id, v->worlds[i].kind);
                return -1;
            }
            view_forget_world(v, i);
            if (was_current) {
                if (v->cur >= v->nworlds) v->cur = 0;
                v->scr.have_valid = 0;
                if (view_subscribe(v)) return -1;
            }
            snprintf(v->note, sizeof v->note, "world %u was closed", (unsigned)id);
            v->note_t = now_s();
            return 0;
        }
        return 0;
    }
    return 0;
}

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
static int write_all(int fd, const char *p, size_t n)
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
static void screen_free(vw_screen *s)
{
    free(s->want);
    free(s->have);
    free(s->colmap);
    free(s->rowmap);
    memset(s, 0, sizeof *s);
}

/* A cols x rows terminal. Everything is drawn afresh next time. 0, or -1 out of memory. */
static int screen_resize(vw_screen *s, int cols, int rows)
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
    s->have_valid = 0;
    return s->want && s->have && s->colmap && s->rowmap ? 0 : -1;
}

/* Fit an fw x fh frame into the picture area (cols x 2*(rows-1) square pixels): nearest
 * sampling with one ratio num/den for both axes, so the aspect is kept; a frame that fits is
 * scaled up by the largest whole factor that still fits. Centred. */
static void screen_layout(vw_screen *s, int fw, int fh)
{
    int W = s->cols, H = 2 * (s->rows - 1);
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

/* The picture of f (or an empty screen when f is NULL) into want[]. */
static void screen_paint(vw_screen *s, const sim_frame *f)
{
    int prow = s->rows - 1;
    uint32_t pal[256];
    if (f) {
        if (s->fw != f->w || s->fh != f->h) screen_layout(s, f->w, f->h);
        for (int i = 0; i < 256; i++)
            pal[i] = i < f->pal.count ? (uint32_t)f->pal.rgb[3 * i] << 16 |
                                        (uint32_t)f->pal.rgb[3 * i + 1] << 8 | f->pal.rgb[3 * i + 2]
                                      : 0;
    }
    for (int r = 0; r < prow; r++) {
        int yt = f ? s->rowmap[2 * r] : -1, yb = f ? s->rowmap[2 * r + 1] : -1;
        for (int c = 0; c < s->cols; c++) {
            int x = f ? s->colmap[c] : -1;
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

/* Terminal cell (col, row), 0-based, to a frame pixel: the cell's centre, which lies between
 * its two pixel rows. Outside the picture: -1, unless clamp (a drag that left the picture). */
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

/* ---- status ----------------------------------------------------------------------------------- */
static void view_rates(vw_view *v, double now)
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

static void view_status(const vw_view *v, double now, char *s, size_t cap)
{
    const vw_world *w = &v->worlds[v->cur];
    double fps = v->fps, dps = v->dps, bps = v->bps, dt = now - v->win_t0;
    if (!v->have_rates && dt > 0.05) {          /* the first second: what there is so far */
        fps = (double)v->win_frames / dt;
        dps = (double)v->win_drawn / dt;
        bps = (double)(v->conn.bytes_in - v->win_bytes) / dt;
    }
    char rate[32], tick[32];
    if (bps < 1e3) snprintf(rate, sizeof rate, "%.0f B/s", bps);
    else if (bps < 1e6) snprintf(rate, sizeof rate, "%.1f kB/s", bps / 1e3);
    else snprintf(rate, sizeof rate, "%.2f MB/s", bps / 1e6);
    if (v->frame_ok) snprintf(tick, sizeof tick, "tick %llu", (unsigned long long)v->frame.tick);
    else snprintf(tick, sizeof tick, "waiting for a keyframe");
    size_t k = 0;
#define ADD(...) do { int n_ = snprintf(s + k, cap - k, __VA_ARGS__); \
                      if (n_ > 0) k = k + (size_t)n_ < cap ? k + (size_t)n_ : cap - 1; } while (0)
    ADD(" world %u %s  %s  %.0f fps", w->id, w->kind, tick, fps);
    if (v->frames_rx && dps + 0.5 < fps) ADD(" (%.0f drawn)", dps);
    ADD("  %s  %s", rate, v->role);
    int paints = v->can_input && w->pointer == VW_POINT_PAINT && w->paint_enum >= 0;
    if (paints) {
        const char *el = enum_name(&w->enums[w->paint_enum], w->element);
        ADD("  %s %s", w->enums[w->paint_enum].name, el ? el : "?");
    }
    if (v->inputs_sent) ADD("  acks %llu", (unsigned long long)v->acks);
    if (v->last_err[0]) ADD("  err %s x%llu", v->last_err, (unsigned long long)(v->errors + v->resyncs));
    if (v->note[0] && now - v->note_t < 5.0) ADD("  (%s)", v->note);
    ADD("  | q quit");
    if (v->nworlds > 1) ADD("  Tab/n/p world");
    if (paints) ADD("  1-9,0 element  drag paint");
    else if (v->can_input && w->pointer == VW_POINT_GRAB) ADD("  drag grab");
#undef ADD
}

/* Draw what changed: the picture when there is a new frame (or the screen was reset), and the
 * status line when its text changed. One write(). 0, or -1 (v->err) when stdout failed. */
static int view_draw(vw_view *v, double now)
{
    char status[512];
    int fresh = v->frame_new || !v->scr.have_valid;
    if (fresh) screen_paint(&v->scr, v->frame_ok ? &v->frame.f : NULL);
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
    if (v->out.len && write_all(STDOUT_FILENO, v->out.p, v->out.len)) {
        snprintf(v->err, sizeof v->err, "writing to the terminal failed: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- the terminal ----------------------------------------------------------------------------- */
static void term_size(int *cols, int *rows)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
        *cols = ws.ws_col;
        *rows = ws.ws_row;
    } else {
        *cols = 80;
        *rows = 24;
    }
}

#define VW_TERM_LEAVE "\x1b[0m\x1b[?1006l\x1b[?1002l\x1b[?1000l\x1b[?25h\x1b[?1049l"

/* Undo term_enter; safe to call twice. Needs no allocation, so it works on every way out. */
static void term_leave(vw_view *v)
{
    if (v->tty_on) {
        if (write_all(STDOUT_FILENO, VW_TERM_LEAVE, sizeof VW_TERM_LEAVE - 1)) { /* gone */ }
        tcsetattr(STDIN_FILENO, TCSADRAIN, &v->saved);
        v->tty_on = 0;
    }
    if (v->sigfd >= 0) {
        close(v->sigfd);
        v->sigfd = -1;
    }
    if (v->sigmask_on) {
        sigprocmask(SIG_SETMASK, &v->oldmask, NULL);
        v->sigmask_on = 0;
    }
}

/* Signals first (blocked and read from a signalfd, so none can strike while the terminal is
 * half set up), then raw mode, the alternate screen, a hidden cursor, and mouse reporting for
 * players. 0, or -1 (v->err) with everything undone. */
static int term_enter(vw_view *v)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGWINCH);
    if (sigprocmask(SIG_BLOCK, &set, &v->oldmask)) {
        snprintf(v->err, sizeof v->err, "sigprocmask: %s", strerror(errno));
        return -1;
    }
    v->sigmask_on = 1;
    v->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (v->sigfd < 0) {
        snprintf(v->err, sizeof v->err, "signalfd: %s", strerror(errno));
        term_leave(v);
        return -1;
    }
    if (tcgetattr(STDIN_FILENO, &v->saved)) {
        snprintf(v->err, sizeof v->err, "cannot read the terminal settings: %s", strerror(errno));
        term_leave(v);
        return -1;
    }
    struct termios raw = v->saved;
    cfmakeraw(&raw);
    raw.c_cc[VMIN] = 0;               /* reads never block: poll() says when there is a key */
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSANOW, &raw)) {
        snprintf(v->err, sizeof v->err, "cannot set the terminal to raw mode: %s", strerror(errno));
        term_leave(v);
        return -1;
    }
    v->tty_on = 1;
    const char *enter = "\x1b[?1049h\x1b[?25l\x1b[0m\x1b[2J";
    const char *mouse = "\x1b[?1000h\x1b[?1002h\x1b[?1006h";
    if (write_all(STDOUT_FILENO, enter, strlen(enter)) ||
        (v->can_input && write_all(STDOUT_FILENO, mouse, strlen(mouse)))) {
        snprintf(v->err, sizeof v->err, "writing to the terminal failed: %s", strerror(errno));
        term_leave(v);
        return -1;
    }
    return 0;
}

/* ---- keys and the mouse ----------------------------------------------------------------------- */
/* May a stroke send another input now? Presses and releases do not ask: they always go. */
static int view_input_budget(vw_view *v)
{
    double now = now_s();
    if (now - v->in_t0 >= 1.0 / v->worlds[v->cur].hz) {
        v->in_t0 = now;
        v->in_count = 0;
    }
    if (v->in_count >= VW_INPUTS_PER_TICK) return 0;
    v->in_count++;
    return 1;
}

/* The left button at terminal cell (col, row), 0-based: a press on the picture starts a stroke
 * (paint, or grab), motion continues it even off the picture (clamped to its edge), a release
 * ends it. Only for a player in a world with pointer inputs. 0, or -1 when sending failed. */
static int view_pointer(vw_view *v, int col, int row, int kind)
{
    const vw_world *w = &v->worlds[v->cur];
    if (!v->can_input || w->pointer == VW_POINT_NONE || !v->frame_ok) return 0;
    int x, y;
    if (kind == VW_PRESS) {
        if (screen_to_frame(&v->scr, col, row, 0, &x, &y)) return 0;   /* not on the picture */
        v->pressed = 1;
        v->last_x = x;
        v->last_y = y;
        return view_send_input(v, w->pointer == VW_POINT_GRAB ? w->in_grab : w->in_paint, x, y);
    }
    if (!v->pressed || screen_to_frame(&v->scr, col, row, 1, &x, &y)) return 0;
    if (kind == VW_RELEASE) {
        v->pressed = 0;
        return w->pointer == VW_POINT_GRAB ? view_send_input(v, w->in_release, x, y) : 0;
    }
    if (x == v->last_x && y == v->last_y) return 0;
    if (w->pointer == VW_POINT_GRAB) {
        if (!view_input_budget(v)) return 0;       /* the next motion catches up */
        v->last_x = x;
        v->last_y = y;
        return view_send_input(v, w->in_drag, x, y);
    }
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

/* A CSI sequence: SGR mouse reports (ESC [ < b ; x ; y M|m) and Shift-Tab (ESC [ Z). */
static int view_csi(vw_view *v, const uint8_t *p, size_t n, uint8_t final)
{
    if (final == 'Z') return view_switch(v, -1);
    if ((final != 'M' && final != 'm') || n < 1 || p[0] != '<') return 0;
    long f[3] = { 0, 0, 0 };
    int nf = 0;
    for (size_t i = 1; i < n && nf < 3; i++) {
        if (p[i] >= '0' && p[i] <= '9') {
            if (f[nf] < 100000) f[nf] = f[nf] * 10 + (p[i] - '0');
        } else if (p[i] == ';') nf++;
        else return 0;
    }
    if (nf != 2) return 0;
    long b = f[0];
    if ((b & 3) != 0 || (b & 64)) return 0;     /* the left button only; no wheel */
    int kind = final == 'm' ? VW_RELEASE : (b & 32) ? VW_MOTION : VW_PRESS;
    return view_pointer(v, (int)f[1] - 1, (int)f[2] - 1, kind);
}

/* 1: quit; 0: go on; -1: the server is unreachable (v->err). */
static int view_key(vw_view *v, uint8_t ch)
{
    vw_world *w = &v->worlds[v->cur];
    if (ch == 'q' || ch == 'Q' || ch == 3) return 1;
    if (ch == '\t' || ch == 'n') return view_switch(v, 1);
    if (ch == 'p') return view_switch(v, -1);
    if (ch == 12) {
        v->scr.have_valid = 0;
        v->frame_new = v->frame_ok;
        return 0;
    }
    if (ch >= '0' && ch <= '9' && w->paint_enum >= 0) {
        int id = ch == '0' ? 10 : ch - '0';
        if (enum_name(&w->enums[w->paint_enum], id)) w->element = id;
    }
    return 0;
}

/* Feed bytes from the keyboard. Escape sequences split across reads wait for their rest. */
static int view_keys(vw_view *v, const uint8_t *p, size_t n, double now)
{
    if (v->klen && now - v->ktime > VW_STALE_KEYS) v->klen = 0;    /* a lone Esc */
    if (n > sizeof v->kbuf - v->klen) n = sizeof v->kbuf - v->klen;
    memcpy(v->kbuf + v->klen, p, n);
    v->klen += n;
    v->ktime = now;
    size_t i = 0;
    int rc = 0;
    while (i < v->klen && rc == 0) {
        uint8_t c = v->kbuf[i];
        if (c != 0x1b) {
            rc = view_key(v, c);
            i++;
            continue;
        }
        if (i + 1 >= v->klen) break;
        if (v->kbuf[i + 1] == '[') {
            size_t j = i + 2;
            while (j < v->klen && !(v->kbuf[j] >= 0x40 && v->kbuf[j] <= 0x7e)) j++;
            if (j >= v->klen) {
                if (v->klen - i > 64) i = v->klen;                 /* junk, not a sequence */
                break;
            }
            rc = view_csi(v, v->kbuf + i + 2, j - i - 2, v->kbuf[j]);
            i = j + 1;
        } else if (v->kbuf[i + 1] == 'O') {                        /* SS3: keypad, F1-F4 */
            if (i + 2 >= v->klen) break;
            i += 3;
        } else {
            i++;                      /* Alt+key or a lone Esc: the key itself counts */
        }
    }
    memmove(v->kbuf, v->kbuf + i, v->klen - i);
    v->klen -= i;
    return rc;
}

/* ---- the two modes ---------------------------------------------------------------------------- */
/* Receive and apply whatever the server has sent, at most VW_DRAIN_MAX messages. 1: more may be
 * waiting; 0: drained; -1: the connection is gone or the view cannot go on (v->err). */
static int view_drain(vw_view *v)
{
    wire_msg m;
    char e[256];
    for (int i = 0; i < VW_DRAIN_MAX; i++) {
        int rc = cli_recv_msg(&v->conn, 0, &m, e, sizeof e);
        if (rc < 0) {
            if (v->final_err[0])
                snprintf(v->err, sizeof v->err, "%s (its last word: %s)", e, v->final_err);
            else snprintf(v->err, sizeof v->err, "%s", e);
            return -1;
        }
        if (rc == 0) return 0;
        if (view_on_message(v, &m) < 0) return -1;
    }
    return 1;
}

static int view_interactive(vw_view *v)
{
    if (!isatty(STDIN_FILENO)) {
        fprintf(stderr, "viv view: stdin is not a terminal, and the keys come from it; use "
                        "--frames N for a non-interactive run\n");
        return 2;
    }
    int cols, rows;
    term_size(&cols, &rows);
    if (screen_resize(&v->scr, cols, rows)) {
        fprintf(stderr, "viv view: out of memory for a %dx%d screen\n", cols, rows);
        return 1;
    }
    if (view_subscribe(v) || term_enter(v)) {
        fprintf(stderr, "viv view: %s\n", v->err);
        return 1;
    }
    int status = 0, more = 0;
    v->err[0] = '\0';
    for (;;) {
        double now = now_s();
        int timeout = more ? 0 : (int)((v->win_t0 + 1.0 - now) * 1000.0) + 1;
        if (timeout < 0) timeout = 0;
        if (timeout > 1000) timeout = 1000;
        struct pollfd pf[3] = {
            { v->conn.fd, POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 }, { v->sigfd, POLLIN, 0 },
        };
        if (poll(pf, 3, timeout) < 0 && errno != EINTR) {
            snprintf(v->err, sizeof v->err, "poll: %s", strerror(errno));
            status = 1;
            break;
        }
        if (pf[2].revents & POLLIN) {
            struct signalfd_siginfo si;
            int resized = 0;
            while (read(v->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
                if (si.ssi_signo == SIGWINCH) resized = 1;
                else status = 128 + (int)si.ssi_signo;
            }
            if (status) break;
            if (resized) {
                term_size(&cols, &rows);
                if (screen_resize(&v->scr, cols, rows)) {
                    snprintf(v->err, sizeof v->err, "out of memory for a %dx%d screen", cols, rows);
                    status = 1;
                    break;
                }
            }
        }
        if (pf[1].revents & POLLIN) {
            uint8_t kb[256];
            ssize_t n = read(STDIN_FILENO, kb, sizeof kb);
            if (n > 0) {
                int rc = view_keys(v, kb, (size_t)n, now_s());
                if (rc) {
                    status = rc > 0 ? 0 : 1;
                    break;
                }
            }
        } else if (pf[1].revents & (POLLHUP | POLLERR | POLLNVAL)) {
            snprintf(v->err, sizeof v->err, "the terminal went away");
            status = 1;
            break;
        }
        if (more || (pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            more = view_drain(v);
            if (more < 0) {
                status = 1;
                break;
            }
        }
        now = now_s();
        view_rates(v, now);
        if (view_draw(v, now)) {
            status = 1;
            break;
        }
    }
    term_leave(v);
    if (v->err[0]) fprintf(stderr, "viv view: %s\n", v->err);
    return status;
}

static int view_frames(vw_view *v)
{
    if (screen_resize(&v->scr, v->o.cols, v->o.rows)) {
        fprintf(stderr, "viv view: out of memory for a %dx%d screen\n", v->o.cols, v->o.rows);
        return 1;
    }
    if (view_subscribe(v)) {
        fprintf(stderr, "viv view: %s\n", v->err);
        return 1;
    }
    while ((long)v->frames_drawn < v->o.frames) {
        wire_msg m;
        char e[256];
        int rc = cli_recv_msg(&v->conn, VW_WAIT_MS, &m, e, sizeof e);
        if (rc == 0) {
            fprintf(stderr, "viv view: no frame of world %u within %d s (%llu of %ld drawn)\n",
                    v->worlds[v->cur].id, VW_WAIT_MS / 1000,
                    (unsigned long long)v->frames_drawn, v->o.frames);
            return 1;
        }
        if (rc < 0) {
            fprintf(stderr, "viv view: %s%s%s%s\n", e, v->final_err[0] ? " (its last word: " : "",
                    v->final_err, v->final_err[0] ? ")" : "");
            return 1;
        }
        rc = view_on_message(v, &m);
        if (rc < 0) {
            fprintf(stderr, "viv view: %s\n", v->err);
            return 1;
        }
        double now = now_s();
        view_rates(v, now);
        if (rc > 0 && view_draw(v, now)) {
            fprintf(stderr, "viv view: %s\n", v->err);
            return 1;
        }
    }
    char tail[32];
    snprintf(tail, sizeof tail, "\x1b[0m\x1b[%d;1H\n", v->scr.rows);
    if (write_all(STDOUT_FILENO, tail, strlen(tail))) {
        fprintf(stderr, "viv view: writing the frames failed: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

/* ---- main --------------------------------------------------------------------------------------- */
static int parse_size(const char *s, int *cols, int *rows)
{
    char *end;
    long c = strtol(s, &end, 10);
    if (end == s || (*end != 'x' && *end != 'X')) return -1;
    const char *r0 = end + 1;
    long r = strtol(r0, &end, 10);
    if (end == r0 || *end || c < 10 || c > 1000 || r < 3 || r > 1000) return -1;
    *cols = (int)c;
    *rows = (int)r;
    return 0;
}

static int view_args(vw_opts *o, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            view_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--host") && strcmp(a, "--world") && strcmp(a, "--every") &&
            strcmp(a, "--token") && strcmp(a, "--view") && strcmp(a, "--frames") &&
            strcmp(a, "--size")) {
            fprintf(stderr, "viv view: unknown option '%s' (see viv view --help)\n", a);
            return 2;
        }
        if (!val) {
            fprintf(stderr, "viv view: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--host") == 0) o->host = val;
        else if (strcmp(a, "--world") == 0) o->world = val;
        else if (strcmp(a, "--token") == 0) o->token = val;
        else if (strcmp(a, "--view") == 0) o->view = val;
        else if (strcmp(a, "--every") == 0) {
            if (cli_parse_int(a, val, 1, 3600, &n)) return 2;
            o->every = (uint32_t)n;
        } else if (strcmp(a, "--frames") == 0) {
            if (cli_parse_int(a, val, 1, 100000000, &n)) return 2;
            o->frames = n;
        } else {
            if (parse_size(val, &o->cols, &o->rows)) {
                fprintf(stderr, "viv view: --size needs COLSxROWS with 10..1000 columns and "
                                "3..1000 rows, e.g. 80x24; got '%s'\n", val);
                return 2;
            }
            o->size_given = 1;
        }
    }
    return -1;
}

int cli_view_main(int argc, char **argv)
{
    vw_view *v = calloc(1, sizeof *v);
    if (!v) {
        fprintf(stderr, "viv view: out of memory\n");
        return 1;
    }
    v->o.host = "127.0.0.1:7400";
    v->o.every = 1;
    v->o.cols = 80;
    v->o.rows = 24;
    v->sigfd = -1;
    v->conn.fd = -1;
    wire_buf_init(&v->b);
    const char *env = getenv("VIVD_PLAYER_TOKEN");
    if (env && *env) v->o.token = env;
    int rc = view_args(&v->o, argc, argv);
    if (rc >= 0) goto done;
    if (v->o.token && !*v->o.token) v->o.token = NULL;
    if (v->o.size_given && !v->o.frames) {
        fprintf(stderr, "viv view: --size goes with --frames (the interactive view fits the "
                        "terminal)\n");
        rc = 2;
        goto done;
    }
    if (!v->o.frames && !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "viv view: stdout is not a terminal; use --frames N [--size COLSxROWS] "
                        "to draw N frames to a file or pipe\n");
        rc = 2;
        goto done;
    }
    char err[512];
    if (cli_connect(&v->conn, v->o.host, err, sizeof err)) {
        fprintf(stderr, "viv view: %s\n", err);
        rc = 1;
        goto done;
    }
    wire_msg welcome;
    if (cli_hello(&v->conn, "viv-view", v->o.token, &welcome, err, sizeof err)) {
        fprintf(stderr, "viv view: %s: %s\n", v->o.host, err);
        rc = 1;
        goto done;
    }
    if (view_read_welcome(v, &welcome)) {
        fprintf(stderr, "viv view: %s: %s\n", v->o.host, v->err);
        rc = 1;
        goto done;
    }
    if (view_pick_world(v)) {
        fprintf(stderr, "viv view: %s\n", v->err);
        rc = 2;
        goto done;
    }
    const vw_world *w = &v->worlds[v->cur];
    if (v->o.view && !world_has_view(w, v->o.view)) {
        char views[200] = "";
        for (int i = 0; i < w->nviews; i++)
            snprintf(views + strlen(views), sizeof views - strlen(views), "%s%s", i ? ", " : "",
                     w->views[i]);
        fprintf(stderr, "viv view: world %u (%s) has no view '%s' (views: %s)\n", w->id, w->kind,
                v->o.view, views);
        rc = 2;
        goto done;
    }
    v->win_t0 = now_s();
    rc = v->o.frames ? view_frames(v) : view_interactive(v);
done:
    term_leave(v);
    cli_close(&v->conn);
    cli_frame_free(&v->frame);
    wire_buf_free(&v->b);
    screen_free(&v->scr);
    free(v->out.p);
    free(v->worlds);
    free(v);
    return rc;
}
