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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "view.h"

double vw_now(void)
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

/* ---- messages to the server ------------------------------------------------------------------- */
int view_send(vw_view *v)
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
    const char *view = v->o.view && vw_world_has_view(w, v->o.view) ? v->o.view : NULL;
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

static int view_unsubscribe(vw_view *v, uint32_t id)
{
    cli_put_unsub(&v->b, id);
    return view_send(v);
}

int view_switch(vw_view *v, int dir)
{
    if (v->nworlds < 2) return 0;
    vw_world *w = &v->worlds[v->cur];
    uint32_t old = w->id;
    if (v->pressed && w->mode->leave && w->mode->leave(v, w)) return -1;
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
        if (rc == CLI_ENOKEY) return 0;    /* deltas still in flight from before a keyframe was asked */
        /* A frame that does not decode or match its hash: the picture is wrong from here on.
         * Subscribing again makes the server start over with a keyframe. */
        v->resyncs++;
        snprintf(v->last_err, sizeof v->last_err, "%s", rc == CLI_EHASH ? "frame_hash" : "bad_frame");
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
        cli_error e;
        cli_error_read(m, "", &e);
        s = e.code;
        sl = e.code_len;
        const char *msg = e.msg;
        size_t ml = e.msg_len;
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
                vw_term_size(&cols, &rows);
                if (vw_screen_resize(&v->scr, cols, rows)) {
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
                int rc = view_keys(v, kb, (size_t)n, vw_now());
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
            if (cli_parse_int("view", a, val, 1, 3600, &n)) return 2;
            o->every = (uint32_t)n;
        } else if (strcmp(a, "--frames") == 0) {
            if (cli_parse_int("view", a, val, 1, 100000000, &n)) return 2;
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
    if (v->o.view && !vw_world_has_view(w, v->o.view)) {
        char views[200] = "";
        for (int i = 0; i < w->nviews; i++)
            snprintf(views + strlen(views), sizeof views - strlen(views), "%s%s", i ? ", " : "",
                     w->views[i]);
        fprintf(stderr, "viv view: world %u (%s) has no view '%s' (views: %s)\n", w->id, w->kind,
                v->o.view, views);
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

