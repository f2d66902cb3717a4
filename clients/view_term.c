/* view_term.c — the terminal of `viv view`: its size, raw mode, the alternate screen, mouse
 * reporting (buttons and any motion), and the signals (blocked and read from a signalfd, so that every way out restores
 * the terminal). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>
#include "view.h"

/* ---- the terminal ----------------------------------------------------------------------------- */
void vw_term_size(int *cols, int *rows)
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

#define VW_TERM_LEAVE "\x1b[0m\x1b[?1006l\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?25h\x1b[?1049l"

/* Undo term_enter; safe to call twice. Needs no allocation, so it works on every way out. */
void vw_term_leave(vw_view *v)
{
    if (v->tty_on) {
        if (vw_write_all(STDOUT_FILENO, VW_TERM_LEAVE, sizeof VW_TERM_LEAVE - 1)) { /* gone */ }
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
int vw_term_enter(vw_view *v)
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
        vw_term_leave(v);
        return -1;
    }
    if (tcgetattr(STDIN_FILENO, &v->saved)) {
        snprintf(v->err, sizeof v->err, "cannot read the terminal settings: %s", strerror(errno));
        vw_term_leave(v);
        return -1;
    }
    struct termios raw = v->saved;
    cfmakeraw(&raw);
    raw.c_cc[VMIN] = 0;               /* reads never block: poll() says when there is a key */
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSANOW, &raw)) {
        snprintf(v->err, sizeof v->err, "cannot set the terminal to raw mode: %s", strerror(errno));
        vw_term_leave(v);
        return -1;
    }
    v->tty_on = 1;
    const char *enter = "\x1b[?1049h\x1b[?25l\x1b[0m\x1b[2J";
    /* Any-motion reports (1003) too: keys that act at the pointer need to know where it is. */
    const char *mouse = "\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1006h";
    if (vw_write_all(STDOUT_FILENO, enter, strlen(enter)) ||
        (v->can_input && vw_write_all(STDOUT_FILENO, mouse, strlen(mouse)))) {
        snprintf(v->err, sizeof v->err, "writing to the terminal failed: %s", strerror(errno));
        vw_term_leave(v);
        return -1;
    }
    return 0;
}

