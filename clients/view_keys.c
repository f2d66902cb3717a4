/* view_keys.c — the key map of `viv view`: bytes from the keyboard in raw mode become keys
 * (arrows, Home and End from their escape sequences), SGR mouse reports and Shift-Tab. q,
 * Tab/n/p, Ctrl-L, and zoom and pan (+ = - z w a s d and the wheel: view_zoom.c) are the same
 * in every world; in a recording (vivd --play) the playback keys come next; r rewinds a live
 * world (a timeline of this viewer's own: docs/PROTOCOL.md "timeline"), and while it is rewound
 * the playback keys move it and l goes live again; f forks the world at the tick shown; every
 * other key goes to the world's mode (view_modes.c). A key that would send something, pressed
 * without a player token, says so on the status line. */
#include <string.h>
#include "view.h"

/* ---- playback --------------------------------------------------------------------------------- */
/* The speed steps of [ and ], in percent of real time (the server takes 10..1000). */
static const int vw_play_speeds[] = { 10, 25, 50, 100, 200, 400, 1000 };
#define VW_NPLAY (int)(sizeof vw_play_speeds / sizeof vw_play_speeds[0])

static int play_seek(vw_view *v, vw_world *w, int64_t t)
{
    if (t < (int64_t)w->play_start) t = (int64_t)w->play_start;
    if (t > (int64_t)w->play_end) t = (int64_t)w->play_end;
    w->play_tick = (uint64_t)t;
    return view_play(v, "seek", (uint64_t)t, 0);
}

static int play_pause(vw_view *v, vw_world *w)
{
    if (w->play_paused) return 0;
    w->play_paused = 1;
    return view_play(v, "pause", 0, 0);
}

/* 1: the key was a playback key (done, or refused with a note); 0: it was not; -1: failed. */
static int play_key(vw_view *v, vw_world *w, int key)
{
    int64_t t = (int64_t)w->play_tick, sec = w->hz;
    int is = key == ' ' || key == '[' || key == ']' || (key >= VW_K_UP && key <= VW_K_END);
    if (!is) return 0;
    if (w->tl_wait) {                  /* a timeline being built answers world_busy */
        view_note(v, "rewinding…");
        return 1;
    }
    if (!v->can_input && w->is_play) {
        view_note(v, "playback keys need a player token: --token T");
        return 1;
    }
    int rc = 0;
    switch (key) {
    case ' ':
        if (!w->play_paused) rc = play_pause(v, w);
        else {
            if (w->play_tick >= w->play_end && w->is_play)
                rc = play_seek(v, w, (int64_t)w->play_start);
            w->play_paused = 0;
            if (!rc) rc = view_play(v, "resume", 0, 0);
        }
        break;
    case VW_K_RIGHT:
        if (w->play_tick >= w->play_end) {
            view_note(v, w->is_play ? "at the end of the recording" : "at the live edge: l goes live");
            break;
        }
        rc = play_pause(v, w);
        w->play_tick++;
        if (!rc) rc = view_play(v, "step", 0, 0);
        break;
    case VW_K_LEFT:
        rc = play_pause(v, w);
        if (!rc) rc = play_seek(v, w, t - 1);
        break;
    case VW_K_UP: case VW_K_SRIGHT: case VW_K_SUP: rc = play_seek(v, w, t + sec); break;
    case VW_K_DOWN: case VW_K_SLEFT: case VW_K_SDOWN: rc = play_seek(v, w, t - sec); break;
    case VW_K_HOME: rc = play_seek(v, w, (int64_t)w->play_start); break;
    case VW_K_END: rc = play_seek(v, w, (int64_t)w->play_end); break;
    case '[': case ']': {
        int i = 0;
        while (i < VW_NPLAY - 1 && vw_play_speeds[i] < w->play_speed) i++;
        if (key == ']' && vw_play_speeds[i] <= w->play_speed && i < VW_NPLAY - 1) i++;
        if (key == '[' && i > 0) i--;
        w->play_speed = vw_play_speeds[i];
        rc = view_play(v, "speed", 0, w->play_speed);
        break;
    }
    }
    return rc < 0 ? -1 : 1;
}

/* ---- rewinding a live world, and forking ---------------------------------------------------- */
/* r: rewind (open this viewer's timeline, paused at the live edge; rewound: a second further
 * back); l: live again; f: fork at the tick shown (a live view first rewinds to the live edge,
 * the last recorded tick, and forks there). 1: the key was one of these; 0: not; -1: failed. */
static int timeline_key(vw_view *v, vw_world *w, int key)
{
    if (key != 'r' && key != 'l' && key != 'f') return 0;
    int rc = 0;
    if (key == 'f') {
        if (!v->can_input) {
            view_note(v, "'f' needs a player token: --token T");
            return 1;
        }
        if (v->fork_wait || v->fork_at_edge || w->tl_wait) {
            view_note(v, v->fork_wait || v->fork_at_edge ? "forking…" : "rewinding…");
            return 1;
        }
        if (w->is_play || w->tl) rc = view_fork(v, w->play_tick);
        else {
            v->fork_at_edge = 1;
            w->tl_wait = 1;
            view_note(v, "rewinding to the live edge to fork there…");
            rc = view_play(v, "pause", 0, 0);
        }
        return rc < 0 ? -1 : 1;
    }
    if (w->is_play) return 0;         /* a recording has its own keys */
    if (w->tl_wait) {
        view_note(v, "rewinding…");
        return 1;
    }
    if (key == 'l') {
        if (!w->tl) {
            view_note(v, "live already");
            return 1;
        }
        w->tl = 0;
        rc = view_play(v, "live", 0, 0);
    } else if (w->tl) {
        rc = play_seek(v, w, (int64_t)w->play_tick - w->hz);
    } else {
        w->tl_wait = 1;
        view_note(v, "rewinding…");
        rc = view_play(v, "pause", 0, 0);
    }
    return rc < 0 ? -1 : 1;
}

/* ---- the key map ------------------------------------------------------------------------------ */
/* The keys every world shares (zoom and pan among them: view_zoom.c), then playback, then the
 * world mode's keys. 1: quit; 0: go on; -1: the server is unreachable (v->err). */
static int view_key(vw_view *v, int key)
{
    vw_world *w = &v->worlds[v->cur];
    if (key == 'q' || key == 'Q' || key == 3) return 1;
    if (key == '\t' || key == 'n') return view_switch(v, 1);
    if (key == 'p') return view_switch(v, -1);
    if (key == 'h') return view_homage(v);
    if (key == 12) {
        v->scr.have_valid = 0;
        v->frame_new = v->frame_ok;
        return 0;
    }
    int rc = view_zoom_key(v, key);
    if (!rc) rc = timeline_key(v, w, key);
    if (rc) return rc < 0 ? -1 : 0;
    if (w->is_play || w->tl) {
        rc = play_key(v, w, key);
        if (rc < 0) return -1;
        if (rc == 0 && key < 256 && strchr(w->mode->keys, key) && key)
            view_note(v, w->is_play ? "a recording takes no inputs"
                                    : "rewound: l to play");
        return 0;
    }
    int mine = key >= 256 ? w->mode->uses_arrows && key <= VW_K_LEFT
                          : key && strchr(w->mode->keys, key) != NULL;
    if (!mine || !w->mode->key) return 0;
    if (!v->can_input) {
        char name[8] = { (char)key, 0 };
        view_note(v, "'%s' needs a player token: --token T",
                  key == ' ' ? "space" : key >= 256 ? "arrow" : name);
        return 0;
    }
    return w->mode->key(v, w, key);
}

/* CSI parameters: up to 3 numbers separated by ';'. -1 when it is not that form. */
static int csi_params(const uint8_t *p, size_t n, long *f, int *nf)
{
    f[0] = f[1] = f[2] = 0;
    *nf = n ? 1 : 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] >= '0' && p[i] <= '9') {
            if (f[*nf - 1] < 100000) f[*nf - 1] = f[*nf - 1] * 10 + (p[i] - '0');
        } else if (p[i] == ';' && *nf < 3) (*nf)++;
        else return -1;
    }
    return 0;
}

/* An arrow, Home or End final byte, with CSI modifier mod (2: Shift). 0 for anything else. */
static int cursor_key(uint8_t final, long mod)
{
    int shift = mod == 2;
    switch (final) {
    case 'A': return shift ? VW_K_SUP : VW_K_UP;
    case 'B': return shift ? VW_K_SDOWN : VW_K_DOWN;
    case 'C': return shift ? VW_K_SRIGHT : VW_K_RIGHT;
    case 'D': return shift ? VW_K_SLEFT : VW_K_LEFT;
    case 'H': return VW_K_HOME;
    case 'F': return VW_K_END;
    }
    return 0;
}

static int view_csi(vw_view *v, const uint8_t *p, size_t n, uint8_t final)
{
    long f[3];
    int nf;
    if (final == 'Z') return view_switch(v, -1);
    if (final != 'M' && final != 'm') {
        if (csi_params(p, n, f, &nf)) return 0;
        if (final == '~') {            /* ESC[1~ ESC[7~ Home, ESC[4~ ESC[8~ End */
            if (f[0] == 1 || f[0] == 7) return view_key(v, VW_K_HOME);
            if (f[0] == 4 || f[0] == 8) return view_key(v, VW_K_END);
            return 0;
        }
        int k = cursor_key(final, nf >= 2 ? f[1] : 1);
        return k ? view_key(v, k) : 0;
    }
    if (n < 1 || p[0] != '<' || csi_params(p + 1, n - 1, f, &nf) || nf != 3) return 0;
    long b = f[0];
    if (b & 64)                                /* the wheel: up zooms in at the pointer */
        return (b & 3) < 2 ? view_zoom_wheel(v, (int)f[1] - 1, (int)f[2] - 1, (b & 1) ? -1 : 1) : 0;
    if ((b & 32) && (b & 3) == 3) {            /* motion with no button: the pointer */
        view_hover(v, (int)f[1] - 1, (int)f[2] - 1);
        return 0;
    }
    if ((b & 3) != 0) return 0;                /* the left button only */
    int kind = final == 'm' ? VW_RELEASE : (b & 32) ? VW_MOTION : VW_PRESS;
    return view_pointer(v, (int)f[1] - 1, (int)f[2] - 1, kind);
}

/* Escape sequences split across reads wait for their rest. */
int view_keys(vw_view *v, const uint8_t *p, size_t n, double now)
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
            int k = cursor_key(v->kbuf[i + 2], 1);
            i += 3;
            if (k) rc = view_key(v, k);
        } else {
            i++;                      /* Alt+key or a lone Esc: the key itself counts */
        }
    }
    memmove(v->kbuf, v->kbuf + i, v->klen - i);
    v->klen -= i;
    return rc;
}
