/* view.c — `viv view`: watch a world of a running vivd in the terminal.
 *
 * Every rebuilt frame is drawn with ANSI 24-bit colour half-blocks ("▀": foreground = the upper
 * pixel, background = the lower one, so a character cell holds two pixels), fitted to the
 * terminal and centred, or zoomed and panned over a rect of the world (view_zoom.c). The cells
 * as last drawn are kept, and only those that differ are written: cursor moves and colour
 * changes for the changed cells, in one write() per frame. The socket, the keyboard (raw mode)
 * and the signals (a signalfd) share one poll(); every pending message is applied before
 * drawing, so a slow terminal skips frames and always shows the latest one.
 *
 * `--frames N` is the non-interactive mode for tests and scripts: N frames at a fixed size to
 * stdout, no alternate screen, no raw mode. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "opt.h"
#include "view.h"

double vw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- help ------------------------------------------------------------------------------------- */
static void view_head(FILE *out)
{
    fprintf(out,
        "usage: viv view [--host HOST:PORT[,HOST:PORT...] | --host ws://HOST:PORT[/ws]] [--world ID|KIND]\n"
        "                [--every N] [--div D] [--view NAME] [--token T] [--frames N [--size COLSxROWS]]\n"
        "\n"
        "Watches a world of a running vivd in the terminal. Each character cell shows two pixels\n"
        "as an upper half-block in 24-bit colour (foreground = upper pixel, background = lower),\n"
        "so the terminal needs truecolor and UTF-8. The picture is scaled down to fit (nearest\n"
        "pixel, aspect kept), or up by a whole factor when the world is small, and centred; it\n"
        "re-fits when the terminal is resized. + zooms in and w a s d pan (below): zoomed, only\n"
        "the rect of the world in view is subscribed. Only the cells that change are redrawn,\n"
        "and when the terminal cannot keep up, frames are skipped: the latest one is always\n"
        "drawn.\n"
        "\n");
}

/* Below the options: the keys, the status line, reconnecting, the exit status. */
static void view_tail(FILE *out)
{
    fprintf(out,
        "\n"
        "keys in every world:\n"
        "  q, Ctrl-C         quit (also while reconnecting)\n"
        "  Tab, n            next world (the new stream starts with a keyframe)\n"
        "  p, Shift-Tab      previous world\n"
        "  Ctrl-L            redraw the whole screen\n"
        "  h                 the 13 fps homage (seed 001), on or off: every third tick at a third\n"
        "                    of the resolution, each held until the next (--every 3 --div 3)\n"
        "  + or =, -         zoom in, out: the whole world fitted, then 1, 2, 4, 8, 16 screen\n"
        "                    pixels a world pixel (a cell is two screen pixels, one above the\n"
        "                    other), skipping those at which the whole world fits\n"
        "  z                 the whole world again, fitted\n"
        "  w a s d           pan up, left, down, right by a quarter of the view\n"
        "  wheel             (with a token: the mouse is on) zoom in or out at the pointer\n"
        "  Zoomed, the subscription asks only for the rect of the world in view (widened to the\n"
        "  server's 64-pixel grid), and asks again when the view leaves it or needs less than a\n"
        "  quarter of it; the mouse still acts on the world pixel under it. Rewound, a pan out\n"
        "  of the rect reopens the timeline at the tick shown.\n"
        "sand (with a token):\n"
        "  1-9, 0            paint with element 1..10 (the names are below)\n"
        "  e                 the erase tool: a drag empties discs, walls included (e again: paint)\n"
        "  x                 the explode tool: a click or drag flings everything out of a disc\n"
        "                    (x again: paint)\n"
        "  [ ]               a smaller or larger brush (radius in world pixels, 1..64; it starts\n"
        "                    at about one character cell)\n"
        "  left drag         apply the tool along the stroke\n"
        "terrarium (with a token):\n"
        "  left drag         press grabs the nearest creature or rope, motion drags, release\n"
        "                    lets go\n"
        "  1, 2              spawn a lizard, a scrambler at the mouse pointer (where it last\n"
        "                    moved over the picture; the middle before that)\n"
        "  arrow keys        shove everything near the pointer that way\n"
        "cycle (with a token):\n"
        "  space             pause the colour cycling, or resume it\n"
        "  [ ]               cycle slower or faster: 10 25 50 75 100 150 200 300 400 %%\n"
        "  0-9               choose cycle range 0..9 (for t and m)\n"
        "  t                 switch the chosen range off (base colours) or back on\n"
        "  m                 switch the chosen range between standard and blend\n"
        "garden (with a token):\n"
        "  left click        poke: the creature there flashes (a gnome or a villager jumps),\n"
        "                    the pond splashes (above it a stone drops in), the grass parts\n"
        "  left drag         lead the butterfly: the serpents circle it, the vines reach for it\n"
        "  t                 let the butterfly go (it wanders again)\n"
        "  Left, Right       the wind a step of 20 that way (-100..100); Down: calm\n"
        "  1-4               spawn a serpent, vine, biped, walker at the mouse pointer\n"
        "a recording (vivd --play FILE:N; it starts paused; inputs are refused; with a token):\n");
    fprintf(out,
        "  space             play or pause (at the end: play from the start)\n"
        "  Right, Left       pause, and step one tick forward or back\n"
        "  Up, Down          jump one second (the world's rate in ticks) forward or back; also\n"
        "                    Shift-Right and Shift-Left\n"
        "  Home, End         jump to the first or the last recorded tick\n"
        "  [ ]               play slower or faster: 10 25 50 100 200 400 1000 %% of real time\n"
        "  f                 fork: a new live world from the recorded state at the tick shown\n"
        "a live world that vivd records (not --no-record): rewinding, for you alone (no token):\n"
        "  r                 rewind: your view stops at the last recorded tick (the live edge;\n"
        "                    the world ticks on for everyone else); rewound, r jumps a second\n"
        "                    further back\n"
        "  l                 live again (from a keyframe)\n"
        "  rewound, the recording's keys: space play or pause (it plays up to the world and\n"
        "  pauses there), Left/Right step, Up/Down a second, Home/End the first or the last\n"
        "  tick read, [ ] the speed; the world's own keys and the mouse wait until l\n"
        "  f                 fork (with a token): a new live world from the world's recorded\n"
        "                    state at the tick shown (live: at the live edge, rewinding to it\n"
        "                    first); when vivd has made it, the view switches to it\n"
        "\n"
        "The status line (last row) shows the world id and kind, the view, the tick, frames per\n"
        "second received (and drawn, when fewer), bytes per second received, your role, the\n"
        "world's tool and settings (the sand element and brush, the cycle speed and range), the\n"
        "acknowledged inputs and errors (with the last error's code), and the keys; in a\n"
        "recording, the tick / the last tick with a seek bar and the speed instead; rewound,\n"
        "\"rewound\", the tick shown, about how many ticks the world is ahead (\"-N ticks\": its\n"
        "rate times the time since vivd last said where it is), paused or playing and the speed,\n"
        "and after going live again \"live\" after the tick. Zoomed, it shows the zoom and the\n"
        "world rect in view (\"zoom 2x at X,Y WxH\", then the frames' rect; short: \"2x@X,Y\").\n"
        "When the terminal is narrow (80 columns) it uses a shorter form.\n"
        "\n"
        "When the server goes away, the picture stays, the status line says \"reconnecting…\",\n"
        "and viv view tries again after 0.25 s, doubling the wait up to 4 s, for as long as it\n"
        "runs (each attempt goes round a --host list, starting after the address that was lost);\n"
        "then it watches the same world (by id, else the first of its kind) with the same\n"
        "--view, --every and --div (or the homage), from a keyframe.\n"
        "\n"
        "Exit status: 0 after q or --frames, 1 for a connection or server problem (with\n"
        "--frames, or when the first connection fails), 2 for a bad option, 128+N after signal N.\n"
        "The terminal is restored in every case.\n");
    view_modes_help(out);
}

/* ---- messages to the server ------------------------------------------------------------------- */
/* Interactive, a failed send marks the connection lost (view_interactive reconnects) and is
 * not an error; while offline nothing is sent. */
int view_send(vw_view *v)
{
    if (v->conn.fd < 0 || v->lost) {
        wire_buf_reset(&v->b);
        return v->o.frames ? -1 : 0;
    }
    int rc = cli_send(&v->conn, &v->b);
    wire_buf_reset(&v->b);
    if (rc) {
        snprintf(v->err, sizeof v->err, "sending to the server failed: %s", strerror(errno));
        if (!v->o.frames) {
            v->lost = 1;
            return 0;
        }
    }
    return rc ? -1 : 0;            /* the view's -1 (view.h), not cli_send's CLI_EPROTO */
}

void view_note(vw_view *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->note, sizeof v->note, fmt, ap);
    va_end(ap);
    v->note_t = vw_now();
}

int view_play(vw_view *v, const char *op, uint64_t tick, int speed)
{
    const vw_world *w = &v->worlds[v->cur];
    int seek = strcmp(op, "seek") == 0, sp = strcmp(op, "speed") == 0;
    wire_msg_begin(&v->b);
    wire_put_map(&v->b, 3 + seek + sp);
    wire_put_str(&v->b, "t"); wire_put_str(&v->b, w->is_play ? "play" : "timeline");
    wire_put_str(&v->b, "world"); wire_put_uint(&v->b, w->id);
    wire_put_str(&v->b, "op"); wire_put_str(&v->b, op);
    if (seek) { wire_put_str(&v->b, "tick"); wire_put_uint(&v->b, tick); }
    if (sp) { wire_put_str(&v->b, "speed"); wire_put_uint(&v->b, (uint64_t)speed); }
    wire_msg_end(&v->b);
    return view_send(v);
}

int view_fork(vw_view *v, uint64_t tick)
{
    const vw_world *w = &v->worlds[v->cur];
    wire_msg_begin(&v->b);
    wire_put_map(&v->b, 3);
    wire_put_str(&v->b, "t"); wire_put_str(&v->b, "fork");
    wire_put_str(&v->b, "world"); wire_put_uint(&v->b, w->id);
    wire_put_str(&v->b, "tick"); wire_put_uint(&v->b, tick);
    wire_msg_end(&v->b);
    v->fork_wait = 1;
    view_note(v, "forking world %u at tick %llu…", w->id, (unsigned long long)tick);
    return view_send(v);
}

uint32_t view_div(const vw_view *v)
{
    if (v->o.homage) return 3;
    const vw_world *w = &v->worlds[v->cur];
    if (w->zoom || (long long)w->w * w->h <= 640LL * 480) return v->o.div;
    long long pw = v->scr.cols, ph = 2LL * (v->scr.rows - 1);
    long long d = pw > 0 && ph > 0 ? (w->w / pw < w->h / ph ? w->w / pw : w->h / ph) : 8;
    if (d > 8) d = 8;
    return d > (long long)v->o.div ? (uint32_t)d : v->o.div;
}

/* (Re)subscribe to the current world: the server answers with a keyframe first. --view applies
 * where the world has that view; a zoomed view asks for the rect it needs. */
static int view_put_sub(vw_view *v)
{
    vw_world *w = &v->worlds[v->cur];
    const char *view = v->o.view && vw_world_has_view(w, v->o.view) ? v->o.view : NULL;
    /* The homage of a world that draws its own (the terrarium's view "homage", the world drawn
     * at a third of the resolution as seed 001 does), unless another view was asked for. */
    if (v->o.homage && !view && vw_world_has_view(w, "homage")) view = "homage";
    uint32_t every = v->o.homage ? 3 : v->o.every;
    /* A new sub drops a timeline (the view is live again). */
    w->tl = w->tl_wait = w->tl_reopen = 0;
    v->fork_at_edge = 0;
    view_zoom_need(v, v->sub_rect);
    v->sub_div = view_div(v);
    /* default: tile.zst; the world's events too, for the status line */
    cli_put_sub_rect(&v->b, w->id, every, v->sub_div, NULL, view, 1,
                     v->sub_rect[2] ? v->sub_rect : NULL);
    return view_send(v);
}

int view_resub(vw_view *v)
{
    vw_world *w = &v->worlds[v->cur];
    int rewound = w->tl;
    uint64_t tick = w->play_tick;
    if (view_put_sub(v)) return -1;
    if (!rewound) return 0;
    /* The new sub let the timeline go: open it again at the tick shown (paused), and draw none
     * of the live frames that come meanwhile. */
    w->tl_wait = w->tl_reopen = 1;
    w->tl_replay = w->play_paused ? 0 : w->play_speed;
    return view_play(v, "seek", tick, 0);
}

/* A timeline opened again by view_resub (paused) plays on if it was playing, at its speed. */
static int view_tl_replay(vw_view *v, vw_world *w)
{
    int speed = w->tl_replay;
    w->tl_replay = 0;
    if (!speed) return 0;
    if (speed != w->play_speed && view_play(v, "speed", 0, speed)) return -1;
    w->play_speed = speed;
    w->play_paused = 0;
    return view_play(v, "resume", 0, 0);
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

static int view_unsubscribe(vw_view *v, uint32_t id)
{
    cli_put_unsub(&v->b, id);
    return view_send(v);
}

int view_homage(vw_view *v)
{
    v->o.homage = !v->o.homage;
    view_note(v, v->o.homage ? "the 13 fps homage: every third tick, a third of the size"
                             : "every frame again");
    return view_subscribe(v);
}

/* Watch world index to instead of the current one. */
static int view_goto(vw_view *v, int to)
{
    vw_world *w = &v->worlds[v->cur];
    uint32_t old = w->id;
    if (v->pressed && w->mode->leave && w->mode->leave(v, w)) return -1;
    w->tl = w->tl_wait = w->tl_reopen = 0;       /* the unsub lets its timeline go */
    v->fork_at_edge = 0;
    v->cur = to;
    v->note[0] = '\0';           /* news of the world left behind */
    if (view_unsubscribe(v, old) || view_subscribe(v)) return -1;
    v->scr.have_valid = 0;        /* a clean screen until the new world's keyframe */
    return 0;
}

int view_switch(vw_view *v, int dir)
{
    if (v->nworlds < 2) return 0;
    return view_goto(v, (v->cur + dir + v->nworlds) % v->nworlds);
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
        if (rc == 0 && v->worlds[v->cur].tl_reopen) {
            v->frame_ok = 1;            /* shown once the timeline is open again */
            return 0;
        }
        if (rc == 0) {
            vw_world *w = &v->worlds[v->cur];
            if (w->is_play) {
                w->play_tick = v->frame.tick;
                if (w->play_tick >= w->play_end) w->play_paused = 1;   /* it stops there */
            } else if (w->tl && !w->tl_wait) {
                /* A playing timeline reads on past the end it said; it never passes the world. */
                w->play_tick = v->frame.tick;
                if (w->play_tick > w->play_end) w->play_end = w->play_tick;
            }
            v->frames_rx++;
            v->win_frames++;
            v->frame_ok = 1;
            v->frame_new = 1;
            return 1;
        }
        /* deltas still in flight from before a keyframe was asked */
        if (rc == WIRE_FRAME_ENOKEY) return 0;
        /* A frame that does not decode or match its hash: the picture is wrong from here on.
         * Subscribing again makes the server start over with a keyframe. */
        v->resyncs++;
        snprintf(v->last_err, sizeof v->last_err, "%s",
                 rc == WIRE_FRAME_EHASH ? "frame_hash" : "bad_frame");
        v->frame.have_key = 0;
        v->frame_ok = 0;
        return view_put_sub(v) ? -1 : 0;
    }
    if (cli_msg_is(m, "playing")) {
        const wire_val *pv = wire_msg_get(m, "play");
        uint64_t tick;
        for (int i = 0; i < v->nworlds; i++)
            if (wire_get_u64(m, "world", &id) == 0 && v->worlds[i].id == id && pv &&
                vw_play_read(pv, &v->worlds[i]) == 0 && wire_get_u64(m, "tick", &tick) == 0)
                v->worlds[i].play_tick = tick;
        return 0;
    }
    if (cli_msg_is(m, "timeline")) {    /* this viewer's rewind of a live world */
        uint64_t tick;
        int live = 0;
        if (wire_get_u64(m, "world", &id) || wire_get_u64(m, "tick", &tick)) return 0;
        wire_get_bool(m, "live", &live);
        for (int i = 0; i < v->nworlds; i++) {
            vw_world *w = &v->worlds[i];
            if (w->id != id || w->is_play) continue;
            int reopen = w->tl_reopen;
            w->tl_wait = w->tl_reopen = 0;
            if (reopen && i == v->cur) v->frame_new = v->frame_ok;   /* its keyframe */
            if (live) {
                w->tl = 0;
                if (i == v->cur) view_note(v, "live again (tick %llu)", (unsigned long long)tick);
                continue;
            }
            const wire_val *pv = wire_msg_get(m, "play");
            if (i == v->cur && !w->tl && !v->fork_at_edge && !reopen)
                view_note(v, "rewound to tick %llu", (unsigned long long)tick);
            if (pv && vw_play_read(pv, w) == 0) {
                w->is_play = 0;             /* vw_play_read is for recordings too */
                w->tl = w->tl_used = 1;
                w->play_tick = tick;
                w->tl_edge = w->play_end;
                w->tl_edge_t = vw_now();
            }
            if (i == v->cur && v->fork_at_edge) {
                v->fork_at_edge = 0;
                if (view_fork(v, tick)) return -1;
            }
            if (i == v->cur && reopen && view_tl_replay(v, w)) return -1;
        }
        return 0;
    }
    if (cli_msg_is(m, "forked")) {      /* our fork: watch the new world */
        const wire_val *ev = wire_msg_get(m, "world");
        uint64_t from = 0, tick = 0;
        wire_get_u64(m, "from", &from);
        wire_get_u64(m, "tick", &tick);
        v->fork_wait = 0;
        int i = ev ? view_add_world(v, ev) : -1;
        if (i < 0) {
            view_note(v, "%.90s", ev ? v->err : "a forked answer without its world");
            v->err[0] = '\0';
            return 0;
        }
        if (view_goto(v, i)) return -1;
        view_note(v, "forked world %u from world %llu at tick %llu", v->worlds[i].id,
                  (unsigned long long)from, (unsigned long long)tick);
        return 0;
    }
    if (cli_msg_is(m, "ack")) {
        v->acks++;
        return 0;
    }
    if (cli_msg_is(m, "events")) {      /* the current world's latest, as news on the status line */
        char line[160];
        int n;
        if (wire_get_u64(m, "world", &id) || id != v->worlds[v->cur].id ||
            (n = cli_event_text(m, 0, line, sizeof line)) <= 0)
            return 0;
        cli_event_text(m, n - 1, line, sizeof line);
        v->events_rx += (uint64_t)n;
        view_note(v, "%.95s", line + 6);     /* without "event " */
        return 0;
    }
    if (cli_msg_is(m, "error")) {
        v->errors++;
        cli_error e;
        cli_error_read(m, "", &e);
        s = e.code;
        sl = e.code_len;
        const char *msg = e.msg;
        size_t ml = e.msg_len;
        snprintf(v->last_err, sizeof v->last_err, "%.*s", (int)(sl > 32 ? 32 : sl), s);
        snprintf(v->final_err, sizeof v->final_err, "%.*s: %.*s", (int)(sl > 32 ? 32 : sl), s,
                 (int)(ml > 150 ? 150 : ml), msg);
        /* A timeline being opened, or a fork, refused: say why (the error names neither). */
        vw_world *cw = &v->worlds[v->cur];
        if (!wire_msg_get(m, "seq") && (v->fork_wait || v->fork_at_edge || cw->tl_wait)) {
            const char *what = v->fork_wait || v->fork_at_edge ? "fork" : "rewind";
            v->fork_wait = v->fork_at_edge = 0;
            cw->tl_wait = 0;
            if (cw->tl_reopen) v->frame_new = v->frame_ok;     /* live, then */
            cw->tl_reopen = 0;
            view_note(v, "%s: %.80s", what, v->final_err);
        }
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
            v->note_t = vw_now();
            return 0;
        }
        return 0;
    }
    return 0;
}

/* ---- the two runs: interactive, and --frames ------------------------------------------------- */
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
            v->lost = 1;
            return -1;
        }
        if (rc == 0) return 0;
        if (view_on_message(v, &m) < 0) return -1;
    }
    return 1;
}

/* ---- reconnecting ------------------------------------------------------------------------------ */
/* The connection is gone: keep the picture, say so, and try again at retry_at. */
static void view_go_offline(vw_view *v, double now)
{
    cli_close(&v->conn);
    v->offline = 1;
    v->lost = 0;
    v->attempts = 0;
    v->pressed = 0;
    v->fork_wait = v->fork_at_edge = 0;     /* their answers went with the connection */
    v->backoff = VW_RETRY_MIN;
    v->retry_at = now + v->backoff;
    snprintf(v->note, sizeof v->note, "%.90s", v->err);     /* why: shown while reconnecting */
    v->note_t = now;
    v->err[0] = '\0';
}

/* Carry what the user chose in a world (tool, element, brush, cycle settings) to its entry in
 * a new welcome. */
static void view_carry(vw_world *to, const vw_world *from)
{
    to->element = from->element;
    to->tool = from->tool;
    to->brush = from->brush;
    to->cyc_speed = from->cyc_speed;
    to->cyc_paused = from->cyc_paused;
    to->cyc_range = from->cyc_range;
    to->cyc_blend = from->cyc_blend;
    to->cyc_off = from->cyc_off;
    to->zoom = from->zoom;
    to->zx = from->zx;
    to->zy = from->zy;
}

/* Connected to address at of --host's list. */
static void view_connected(vw_view *v, int at)
{
    v->host_at = at;
    if (cli_addr_at(v->o.host, at, v->addr, sizeof v->addr) != 0)
        snprintf(v->addr, sizeof v->addr, "%s", v->o.host);
}

/* One attempt: connect, hello, read the welcome, find the same world (by id and kind, else the
 * first of its kind, else the first), subscribe as before. 0, or -1 (the next wait doubles). */
static int view_reconnect(vw_view *v, double now)
{
    char err[256];
    wire_msg welcome;
    v->attempts++;
    int at = v->host_at + 1;           /* the others of a list first: this one just went away */
    int rc = cli_connect_list(&v->conn, v->o.host, &at, err, sizeof err);
    if (rc == 0) view_connected(v, at);
    if (rc != 0 || cli_hello(&v->conn, "viv-view", v->o.token, &welcome, err, sizeof err)) {
        cli_close(&v->conn);
        snprintf(v->note, sizeof v->note, "%.90s", err);
        v->note_t = now;
        v->backoff = v->backoff * 2 > VW_RETRY_MAX ? VW_RETRY_MAX : v->backoff * 2;
        v->retry_at = vw_now() + v->backoff;
        return -1;
    }
    vw_world *old = v->worlds, cur = old[v->cur];
    int nold = v->nworlds;
    v->worlds = NULL;
    if (view_read_welcome(v, &welcome) || v->nworlds == 0) {
        snprintf(v->note, sizeof v->note, "%.90s", v->nworlds ? v->err : "the server hosts no worlds");
        free(v->worlds);
        v->worlds = old;
        v->nworlds = nold;
        cli_close(&v->conn);
        v->backoff = v->backoff * 2 > VW_RETRY_MAX ? VW_RETRY_MAX : v->backoff * 2;
        v->retry_at = vw_now() + v->backoff;
        return -1;
    }
    int pick = -1;
    for (int i = 0; i < v->nworlds; i++) {
        for (int j = 0; j < nold; j++)
            if (old[j].id == v->worlds[i].id && strcmp(old[j].kind, v->worlds[i].kind) == 0)
                view_carry(&v->worlds[i], &old[j]);
        if (pick < 0 && v->worlds[i].id == cur.id && strcmp(v->worlds[i].kind, cur.kind) == 0)
            pick = i;
    }
    for (int i = 0; pick < 0 && i < v->nworlds; i++)
        if (strcmp(v->worlds[i].kind, cur.kind) == 0) pick = i;
    free(old);
    v->cur = pick < 0 ? 0 : pick;
    v->offline = 0;
    v->win_bytes = 0;                   /* the new connection counts from 0 */
    v->klen = 0;
    view_note(v, "reconnected after %d attempt%s", v->attempts, v->attempts == 1 ? "" : "s");
    if (view_subscribe(v)) return -1;
    v->scr.have_valid = 0;
    return 0;
}

static int view_interactive(vw_view *v)
{
    if (!isatty(STDIN_FILENO)) {
        fprintf(stderr, "viv view: stdin is not a terminal, and the keys come from it; use "
                        "--frames N for a non-interactive run\n");
        return 2;
    }
    int cols, rows;
    vw_term_size(&cols, &rows);
    if (vw_screen_resize(&v->scr, cols, rows)) {
        fprintf(stderr, "viv view: out of memory for a %dx%d screen\n", cols, rows);
        return 1;
    }
    if (view_subscribe(v) || vw_term_enter(v)) {
        fprintf(stderr, "viv view: %s\n", v->err);
        return 1;
    }
    int status = 0, more = 0;
    v->err[0] = '\0';
    for (;;) {
        double now = vw_now();
        if (v->lost) {
            view_go_offline(v, now);
            more = 0;
        }
        if (v->offline && now >= v->retry_at) {
            view_reconnect(v, now);
            now = vw_now();
        }
        int timeout = more ? 0 : (int)((v->win_t0 + 1.0 - now) * 1000.0) + 1;
        if (v->offline && (int)((v->retry_at - now) * 1000.0) + 1 < timeout)
            timeout = (int)((v->retry_at - now) * 1000.0) + 1;
        if (v->offline && timeout > 100) timeout = 100;      /* the countdown moves */
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
                vw_term_size(&cols, &rows);
                if (vw_screen_resize(&v->scr, cols, rows)) {
                    snprintf(v->err, sizeof v->err, "out of memory for a %dx%d screen", cols, rows);
                    status = 1;
                    break;
                }
                if (view_zoom_follow(v) && !v->lost) {      /* the view's rect changed size */
                    status = 1;
                    break;
                }
            }
        }
        if (pf[1].revents & POLLIN) {
            uint8_t kb[256];
            ssize_t n = read(STDIN_FILENO, kb, sizeof kb);
            if (n > 0) {
                int rc = view_keys(v, kb, (size_t)n, vw_now());
                if (rc < 0 && v->lost) rc = 0;
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
        if (!v->offline && !v->lost && (more || (pf[0].revents & (POLLIN | POLLHUP | POLLERR)))) {
            more = view_drain(v);
            if (more < 0 && v->lost) more = 0;          /* gone: reconnect at the next turn */
            else if (more < 0) {
                status = 1;
                break;
            }
        }
        now = vw_now();
        view_rates(v, now);
        if (view_draw(v, now)) {
            status = 1;
            break;
        }
    }
    vw_term_leave(v);
    if (v->err[0]) fprintf(stderr, "viv view: %s\n", v->err);
    return status;
}

static int view_frames(vw_view *v)
{
    if (vw_screen_resize(&v->scr, v->o.cols, v->o.rows)) {
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
        double now = vw_now();
        view_rates(v, now);
        if (rc > 0 && view_draw(v, now)) {
            fprintf(stderr, "viv view: %s\n", v->err);
            return 1;
        }
    }
    char tail[32];
    snprintf(tail, sizeof tail, "\x1b[0m\x1b[%d;1H\n", v->scr.rows);
    if (vw_write_all(STDOUT_FILENO, tail, strlen(tail))) {
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

static int set_host(const opt_prog *p, const opt *o, const char *v)
{
    char err[400];
    if (cli_addr_list_check(v, err, sizeof err)) {
        fprintf(stderr, "viv view: --host %s\n", err);
        return OPT_BAD;
    }
    *(const char **)o->ptr = v;
    return OPT_OK;
}

/* --every and --div: an integer in the row's range, into a uint32_t. */
static int set_u32(const opt_prog *p, const opt *o, const char *v)
{
    long n;
    if (opt_parse_long(p->who, o->name, v, o->min, o->max, &n)) return OPT_BAD;
    *(uint32_t *)o->ptr = (uint32_t)n;
    return OPT_OK;
}

static int set_size(const opt_prog *p, const opt *o, const char *v)
{
    vw_opts *vo = o->ptr;
    if (parse_size(v, &vo->cols, &vo->rows)) {
        fprintf(stderr, "viv view: --size needs COLSxROWS with 10..1000 columns and "
                        "3..1000 rows, e.g. 80x24; got '%s'\n", v);
        return OPT_BAD;
    }
    vo->size_given = 1;
    return OPT_OK;
}

/* The command line into o (opt.h): OPT_OK, OPT_DONE (--help) or OPT_BAD (a message printed). */
static int view_args(vw_opts *o, int argc, char **argv)
{
    const opt table[] = {
        OPT_CALL("--host", "HOST:PORT", set_host, &o->host,
                 "the server (default 127.0.0.1:7400); or a list of up to 16,\n"
                 "separated by commas (a cluster's relays, docs/CLUSTER.md): the\n"
                 "first that answers is used, and when it goes away the next ones\n"
                 "are tried first (with --frames, a lost server ends the run); or\n"
                 "ws://HOST:PORT[/PATH], vivd's WebSocket on its --http port (path\n"
                 "/ws by default), as viv bot and the page take it"),
        OPT_STR("--world", "ID|KIND", &o->world,
                "the world to watch first: its id, or the first world of a kind\n"
                "(default: the server's first world)"),
        { .name = "--every", .arg = "N", .set = set_u32, .ptr = &o->every, .min = 1, .max = 3600,
          .help = "one frame every N ticks, 1..3600 (default 1)" },
        { .name = "--div", .arg = "D", .set = set_u32, .ptr = &o->div, .min = 1, .max = 8,
          .help = "frames a D-th of the world's size, 1..8 (default 1), nearest-sampled\n"
                  "by the server and shown at the largest whole scale that fits. A world\n"
                  "over 640x480 shown whole gets more: the largest D up to 8 that still\n"
                  "leaves a pixel for each screen pixel (its whole frame would not fit\n"
                  "in a message)" },
        OPT_STR("--view", "NAME", &o->view,
                "render layer by name (default: the normal picture); a world without\n"
                "that view shows its normal picture, and the status line says\n"
                "\"normal (no NAME)\""),
        OPT_STR("--token", "T", &o->token,
                "player or admin token, to send inputs and play controls (default:\n"
                "$VIVD_PLAYER_TOKEN). Without one you watch as a viewer, and a key\n"
                "that needs a token says so on the status line."),
        OPT_LONG("--frames", "N", &o->frames, 1, 100000000,
                 "non-interactive: draw N frames to stdout (a file or pipe is fine),\n"
                 "each as the changes to the one before, then exit 0"),
        OPT_CALL("--size", "COLSxROWS", set_size, o, "the screen size --frames draws for (default 80x24)"),
        OPT_END
    };
    const opt_prog prog = { .who = "viv view", .opts = table, .column = 20, .head = view_head,
                            .tail = view_tail };
    return opt_parse(&prog, argc, argv);
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
    v->o.div = 1;
    v->o.cols = 80;
    v->o.rows = 24;
    v->sigfd = -1;
    v->conn.fd = -1;
    wire_buf_init(&v->b);
    const char *env = getenv("VIVD_PLAYER_TOKEN");
    if (env && *env) v->o.token = env;
    int rc = view_args(&v->o, argc, argv);
    if (rc != OPT_OK) {
        rc = OPT_EXIT(rc);
        goto done;
    }
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
    if (cli_connect_list(&v->conn, v->o.host, &v->host_at, err, sizeof err)) {
        fprintf(stderr, "viv view: %s\n", err);
        rc = 1;
        goto done;
    }
    view_connected(v, v->host_at);
    wire_msg welcome;
    if (cli_hello(&v->conn, "viv-view", v->o.token, &welcome, err, sizeof err)) {
        fprintf(stderr, "viv view: %s: %s\n", v->addr, err);
        rc = 1;
        goto done;
    }
    if (view_read_welcome(v, &welcome)) {
        fprintf(stderr, "viv view: %s: %s\n", v->addr, v->err);
        rc = 1;
        goto done;
    }
    if (view_pick_world(v)) {
        fprintf(stderr, "viv view: %s\n", v->err);
        rc = 2;
        goto done;
    }
    v->win_t0 = vw_now();
    rc = v->o.frames ? view_frames(v) : view_interactive(v);
done:
    vw_term_leave(v);
    cli_close(&v->conn);
    cli_frame_free(&v->frame);
    wire_buf_free(&v->b);
    vw_screen_free(&v->scr);
    free(v->out.p);
    free(v->worlds);
    free(v);
    return rc;
}

