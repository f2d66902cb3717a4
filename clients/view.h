/* view.h — the parts of `viv view` (private to clients/view*.c). See view.c for what it does.
 *
 *   view.c          options, the welcome and the server's messages, the two run modes, main
 *   view_welcome.c  what the welcome says about each world (inputs, ranges, names, views)
 *   view_modes.c    the world modes: one row per world kind with its key and mouse handling and
 *                   its status hints, and the default for a kind without a row
 *   view_keys.c     the key map: escape sequences, mouse reports, the keys every world shares
 *   view_screen.c   the half-block picture: fitting or zooming, diffing, ANSI output; the status
 *                   line
 *   view_zoom.c     zoom and pan: the keys and the wheel, and the rect the subscription asks for
 *   view_term.c     the terminal: size, raw mode, the alternate screen, signals */
#ifndef VIVARIUM_VIEW_H
#define VIVARIUM_VIEW_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <termios.h>
#include "net.h"

#define VW_NAME CLI_NAME_MAX
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
#define VW_RETRY_MIN 0.25         /* reconnecting: the first wait, doubled after each failure */
#define VW_RETRY_MAX 4.0          /* ... up to this */
#define VW_SHOVE_PX 16            /* a terrarium shove: pixels per tick (the world caps it) */
#define VW_ZOOM_MAX 16            /* the closest zoom: screen pixels per world pixel */
/* The server widens a sub's rect to this grid of world pixels (docs/PROTOCOL.md, sub): the
 * viewer aligns the rect it asks for the same way, to know what its frames will cover. */
#define VW_REGION 64

/* Keys that are not one byte: arrows, Home and End (escape sequences), after the 256 bytes. */
enum { VW_K_UP = 256, VW_K_DOWN, VW_K_RIGHT, VW_K_LEFT, VW_K_SUP, VW_K_SDOWN, VW_K_SRIGHT,
       VW_K_SLEFT, VW_K_HOME, VW_K_END };
enum { VW_TOOL_PAINT, VW_TOOL_ERASE, VW_TOOL_EXPLODE };   /* what a sand stroke does */

/* ---- what the welcome says about a world ------------------------------------------------------- */
typedef struct vw_enum {
    char name[VW_NAME];
    int n;
    char value[VW_MAX_VALUES][VW_NAME];
    int id[VW_MAX_VALUES];
} vw_enum;

enum { VW_PRESS, VW_MOTION, VW_RELEASE };          /* what the left mouse button did */

typedef struct vw_world vw_world;
typedef struct vw_view vw_view;

/* A world mode: what the keys and the left mouse button do in a world, and what the status line
 * adds. Every hook may be NULL (nothing to do). Modes only send inputs the world described in
 * its welcome, so a mode never needs to know a kind's rules. */
typedef struct vw_mode {
    const char *name;                 /* "paint", "grab", "watch" */
    /* Fit the mode to a world: find the inputs it uses. 0, or -1 when the world lacks them. */
    int (*fit)(vw_world *w);
    /* The keys the mode uses (a byte string; VW_K_* arrows when uses_arrows): for a viewer,
     * these say that they need a player token instead of doing nothing. */
    const char *keys;
    int uses_arrows;
    /* A key the common key map (view_keys.c) does not use: a byte, or a VW_K_* code. Only
     * called for a player or admin. 0, or -1: sending failed. */
    int (*key)(vw_view *v, vw_world *w, int key);
    /* The left button did VW_PRESS, VW_MOTION or VW_RELEASE at frame pixel (x, y); motion only
     * when the pixel changed. Updates v->last_x/y as it sends. 0, or -1: sending failed. */
    int (*pointer)(vw_view *v, vw_world *w, int what, int x, int y);
    /* The world stops being watched while the button is down: let go of what is held. */
    int (*leave)(vw_view *v, vw_world *w);
    /* For a player or admin: the mode's part of the status line, and its key hints. */
    void (*status)(const vw_view *v, const vw_world *w, int shrt, char *s, size_t cap);
    /* The key hints: long (wide terminals) or short (80 columns). */
    const char *(*hints)(const vw_world *w, int shrt);
} vw_mode;

/* One row per world kind the viewer knows: its mode, the first value of the paint enum, and the
 * enum its number keys choose from (for --help). */
typedef struct vw_kind_row {
    const char *kind;
    const vw_mode *mode;
    const char *first_value;          /* a value name of the paint enum to start with, or NULL */
    const char *key_enum;             /* the enum whose values 1..10 the keys 1-9,0 take */
    const char *key_does;             /* what such a key does, for --help */
    int key_from0;                    /* 1: the keys 1-9 take values 0..8 instead (garden) */
} vw_kind_row;

struct vw_world {
    uint32_t id;
    char kind[VW_NAME];
    int w, h, hz;
    int nviews;
    char views[VW_MAX_VIEWS][VW_NAME];
    int ninputs;
    cli_input_desc inputs[VW_MAX_INPUTS];
    int nenums;
    vw_enum enums[VW_MAX_ENUMS];
    /* The mode (view_mode_pick), and what it found among the inputs. */
    const vw_mode *mode;
    int in_paint, in_grab, in_drag, in_release;        /* input indexes, or -1 */
    int in_erase, in_explode, in_spawn, in_shove;      /* sand, terrarium */
    int in_speed, in_pause, in_resume, in_toggle, in_cmode;    /* cycle */
    int in_move, in_drop;             /* merge */
    int car_dir;                      /* merge: the last move this viewer sent */
    int in_poke, in_target, in_wind;  /* garden */
    int wind;                         /* garden: the last wind this viewer sent */
    int dragged;                      /* garden: the press became a drag (a target, not a poke) */
    int paint_enum, paint_enum_arg;   /* the enum the paint input takes, and which arg; or -1 */
    int element;                      /* the chosen value of that enum */
    int tool, brush;                  /* sand: VW_TOOL_*, the brush radius (0: about a cell) */
    int spawn_enum;                   /* terrarium: the enum of spawn's kind, or -1 */
    int cyc_speed, cyc_paused, cyc_range;              /* cycle: what this viewer last sent */
    uint32_t cyc_blend, cyc_off;      /* cycle: ranges this viewer set to blend, switched off */
    /* A recording hosted with vivd --play (the welcome's "play" map, then "playing" replies). */
    int is_play, play_paused, play_speed;
    uint64_t play_start, play_end, play_tick;
    /* A live world rewound by this viewer (the timeline message): the play_* fields above then
     * describe the timeline (start, end = the last tick it read, paused, speed, tick). */
    int tl;                           /* rewound: the subscription shows a timeline */
    int tl_wait;                      /* the op that opens it is unanswered (others: world_busy) */
    int tl_used;                      /* it was rewound once: the status line says "live" */
    int tl_reopen;                    /* tl_wait after view_resub: live frames are not drawn, */
    int tl_replay;                    /* and then it plays at this speed (0: stays paused) */
    uint64_t tl_edge;                 /* the live edge the last answer gave, */
    double tl_edge_t;                 /* and when it came (for "-N ticks") */
    /* Zoom and pan (view_zoom.c): 0, the whole world fitted to the terminal; else screen pixels
     * per world pixel (1, 2, 4 … VW_ZOOM_MAX), with world pixel (zx, zy) in the middle. */
    int zoom, zx, zy;
};

typedef struct vw_opts {
    const char *host, *world, *token, *view;
    uint32_t every, div;              /* --every, --div */
    int homage;                       /* the h key: every 3rd tick at a third of the size */
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
    int *colmap, *rowmap;             /* x per column, y per half-row (below); -1: outside */
    /* zoom 0: the whole frame fitted, and the maps give frame pixels, for an fw x fh frame (0:
     * none yet). Zoomed: zoom screen pixels per world pixel, the maps give world pixels of a
     * ww x wh world, and [vx, vy, vw, vh] is the world rect in view, around (zx, zy). */
    int zoom;
    int fw, fh;
    int ww, wh, zx, zy;
    int vx, vy, vw, vh;
    int ox, oy, ow, oh;               /* picture offset and size in columns and half-rows */
    int num, den;                     /* map pixels (frame or world) per screen pixel: num / den */
    char status[512];                 /* the status line as last drawn */
    int status_valid;
    uint32_t fg, bg;                  /* the SGR colours the terminal has now */
    int cur_r, cur_c;                 /* the cursor, or cur_r = -1 when unknown */
} vw_screen;

struct vw_view {
    vw_opts o;
    cli_conn conn;
    int host_at;                      /* which address of --host's list it is connected to, */
    char addr[300];                   /* and that address (for messages) */
    wire_buf b;
    vw_world *worlds;
    int nworlds, cur;
    char role[16];
    int can_input;                    /* player or admin */
    cli_frame frame;
    int frame_ok;                     /* frame holds a verified picture of the current world */
    int frame_new;                    /* ... not drawn yet */
    int repaint;                      /* the picture moved (zoom, pan): draw it again */
    /* The rect the subscription asked for, aligned as the server aligns it (w 0: the whole
     * world). */
    int32_t sub_rect[4];
    uint32_t sub_div;                 /* the div it asked for (view_div at the time) */
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
    int hover, hover_x, hover_y;      /* where the pointer is (any-motion reports), if known */
    uint32_t seq;
    double in_t0;                     /* the current input window, and what it has sent */
    int in_count;
    /* counters */
    uint64_t frames_rx, frames_drawn, inputs_sent, acks, errors, resyncs;
    uint64_t events_rx;               /* world events received (the latest is the note) */
    char last_err[40];
    char final_err[200];              /* the last error, when nothing followed it */
    char note[96];                    /* news for the status line, shown for a few seconds */
    double note_t;
    double win_t0, fps, dps, bps;     /* the rates' one-second window, and the last rates */
    uint64_t win_frames, win_drawn, win_bytes;
    int have_rates;
    /* reconnecting: the connection is gone, the next attempt is due at retry_at */
    int lost, offline, attempts;      /* lost: a send or receive failed (go offline) */
    double retry_at, backoff;
    char err[512];
    /* fork: a fork sent and not answered yet; fork_at_edge: fork once the timeline opened by
     * the f key on a live view answers (at its tick, the live edge) */
    int fork_wait, fork_at_edge;
};

double vw_now(void);

/* view.c: messages to the server */
int view_send(vw_view *v);            /* v->b, then empty it. 0, or -1 (v->err) */
int view_switch(vw_view *v, int dir);
int view_homage(vw_view *v);          /* the h key: the homage on or off, from a keyframe */
/* The div the subscription asks for: --div, the homage's 3, or, for a world of more than 640×480
 * shown whole, the largest (up to 8) that still gives the terminal a pixel for each of its own:
 * the server downsamples it, and a whole big world's frame would not fit a message. */
uint32_t view_div(const vw_view *v);
/* Subscribe the current world again with the rect its view needs (view_zoom_need), keeping the
 * picture until the new keyframe; a rewound view reopens its timeline at the tick shown. */
int view_resub(vw_view *v);
void view_note(vw_view *v, const char *fmt, ...);
/* Send a play op for the current recording, or a timeline op for the current live world (seek:
 * to tick; speed: to speed). 0, or -1. */
int view_play(vw_view *v, const char *op, uint64_t tick, int speed);
/* Fork the current world at tick: a new live world (the forked answer switches to it). */
int view_fork(vw_view *v, uint64_t tick);

/* view_welcome.c */
/* The welcome's role and worlds into v. 0, or -1 with the reason in v->err. */
int view_read_welcome(vw_view *v, const wire_msg *m);
/* --world ID|KIND, or the first world. 0, or -1 with the reason in v->err. */
int view_pick_world(vw_view *v);
int vw_world_has_view(const vw_world *w, const char *name);
int vw_play_read(const wire_val *v, vw_world *w);
/* A world entry (a forked answer's) appended to v->worlds. Its index, or -1 (v->err). */
int view_add_world(vw_view *v, const wire_val *entry);
const char *vw_enum_name(const vw_enum *e, int id);

/* view_modes.c */
/* Choose w's mode: its kind's row when the world has that mode's inputs, else the first mode
 * of the default list its inputs fit (watch only when none does). */
void view_mode_pick(vw_world *w);
/* The left button at terminal cell (col, row), 0-based. 0, or -1 when sending failed. */
int view_pointer(vw_view *v, int col, int row, int what);
/* The pointer moved with no button down: remembered, for keys that act at the pointer. */
void view_hover(vw_view *v, int col, int row);
/* For --help: one line per kind row whose number keys choose from an enum. */
void view_modes_help(FILE *out);
/* The status line's part for a recording: its position, a seek bar and the speed. */
void view_play_status(const vw_view *v, const vw_world *w, int shrt, char *s, size_t cap);
/* The same for a rewound live world: the tick, how far behind the world, paused, the speed. */
void view_timeline_status(const vw_view *v, const vw_world *w, double now, int shrt, char *s,
                          size_t cap);

/* view_keys.c */
/* Feed bytes from the keyboard. 1: quit; 0: go on; -1: the server is unreachable (v->err). */
int view_keys(vw_view *v, const uint8_t *p, size_t n, double now);

/* view_zoom.c */
/* Zoom and pan keys (+ = - z w a s d): 1 the key was one (done, or refused with a note), 0 it
 * was not, -1 sending failed. */
int view_zoom_key(vw_view *v, int key);
/* The wheel at cell (col, row): dir > 0 zooms in, < 0 out, keeping the world point under the
 * pointer there. 0, or -1 sending failed. */
int view_zoom_wheel(vw_view *v, int col, int row, int dir);
/* The rect the current world's view needs, aligned to the server's grid; w 0: the whole world. */
void view_zoom_need(vw_view *v, int32_t need[4]);
/* After the view moved or the terminal changed size: subscribe again when the view has left the
 * subscribed rect, or that rect is over four times what it needs. 0, or -1 sending failed. */
int view_zoom_follow(vw_view *v);

/* view_screen.c */
void vw_screen_free(vw_screen *s);
int vw_screen_resize(vw_screen *s, int cols, int rows);
/* Lay the screen out for world w's zoom (clamping its centre so the view stays in the world);
 * a fitted world is laid out when its frame is drawn. */
void vw_screen_place(vw_screen *s, vw_world *w);
/* Terminal cell (col, row) to a world pixel of w. -1 off the picture, unless clamp. */
int vw_screen_to_world(const vw_screen *s, const vw_world *w, int col, int row, int clamp, int *x,
                       int *y);
void view_rates(vw_view *v, double now);
int view_draw(vw_view *v, double now);
int vw_write_all(int fd, const char *p, size_t n);

/* view_term.c */
void vw_term_size(int *cols, int *rows);
int vw_term_enter(vw_view *v);
void vw_term_leave(vw_view *v);

#endif
