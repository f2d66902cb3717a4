/* view_keys.c — the key map of `viv view`: bytes from the keyboard in raw mode become keys,
 * SGR mouse reports and Shift-Tab; q, Tab/n/p and Ctrl-L are the same in every world, and every
 * other key goes to the world's mode (view_modes.c). */
#include <string.h>
#include "view.h"

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

/* The keys every world shares; the rest go to the world's mode. 1: quit; 0: go on; -1: the
 * server is unreachable (v->err). */
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
    return w->mode->key ? w->mode->key(v, w, ch) : 0;    /* the world mode's keys */
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
            i += 3;
        } else {
            i++;                      /* Alt+key or a lone Esc: the key itself counts */
        }
    }
    memmove(v->kbuf, v->kbuf + i, v->klen - i);
    v->klen -= i;
    return rc;
}

