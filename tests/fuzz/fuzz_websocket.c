/* fuzz_websocket.c — libFuzzer target: what a WebSocket server sends a client (clients/websocket.c,
 * the client side `viv bot --ws` and `viv view` use).
 *
 * The input: one byte of flags (bit 0: the subprotocol "vivarium" was offered; bits 1-3: the size
 * of the pieces the stream arrives in; bits 4-7: the reader's message limit), two bytes of
 * big-endian length L, then L bytes of the server's answer to the upgrade, then the frames the
 * server sends after it. The answer goes through cli_ws_answer_len, cli_ws_answer_not_http and
 * cli_ws_answer_check (against a fixed key); the frames through cli_ws_read, once in one piece and
 * once in pieces, and cli_ws_close_status. Besides memory safety, the target checks what
 * websocket.h promises:
 *   - an answer's header length is within the bytes and ends with the blank line; the check
 *     answers 0, CLI_WS_REFUSED or CLI_EPROTO, with a terminated sentence when it is not 0, and a
 *     101 is accepted only with the right Sec-WebSocket-Accept in it;
 *   - every event is a whole message (text or binary, within the limit) or a control frame of at
 *     most 125 bytes; its payload lies in the bytes given or in the reader;
 *   - the stream read in pieces gives the same events, byte for byte, and the same end (an error
 *     at the same event, or none) as read in one piece: a frame cut by the end of a read is
 *     carried over, never lost or doubled;
 *   - a close frame's status is 1005 exactly when it carries fewer than 2 bytes. */
#include "fuzz.h"
#include "net.h"
#include "websocket.h"

#define KEY "dGhlIHNhbXBsZSBub25jZQ=="

typedef struct seen {
    int op;
    size_t n;
    uint64_t hash;             /* FNV-1a of the payload */
} seen;

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void event_check(const cli_ws_event *ev, uint64_t max, const uint8_t *lo, const uint8_t *hi,
                        const cli_ws_reader *r)
{
    FUZZ_CHECK(ev->op == CLI_WS_TEXT || ev->op == CLI_WS_BIN || ev->op == CLI_WS_CLOSE ||
               ev->op == CLI_WS_PING || ev->op == CLI_WS_PONG, "event opcode %d", ev->op);
    if (ev->op == CLI_WS_TEXT || ev->op == CLI_WS_BIN)
        FUZZ_CHECK(ev->n <= max, "a message of %zu bytes over the limit %llu", ev->n, (unsigned long long)max);
    else
        FUZZ_CHECK(ev->n <= CLI_WS_CONTROL_MAX, "a control frame of %zu bytes", ev->n);
    if (!ev->n) return;
    int in_input = ev->p >= lo && ev->p <= hi && ev->n <= (size_t)(hi - ev->p);
    int in_frame = r->frame && ev->p >= r->frame && ev->p + ev->n <= r->frame + r->fcap;
    int in_msg = r->msg && ev->p >= r->msg && ev->p + ev->n <= r->msg + r->mcap;
    FUZZ_CHECK(in_input || in_frame || in_msg, "an event's payload outside the bytes and the reader");
    if (ev->op == CLI_WS_CLOSE) {
        const char *reason;
        size_t rl;
        int st = cli_ws_close_status(ev, &reason, &rl);
        FUZZ_CHECK((ev->n < 2) == (st == 1005), "close status %d for %zu bytes", st, ev->n);
        FUZZ_CHECK(ev->n < 2 || rl == ev->n - 2, "close reason of %zu bytes in %zu", rl, ev->n);
    }
}

/* Read the stream in pieces of `piece` bytes (0: all at once), each piece an exact-size heap copy.
 * The events go to out (at most cap); *failed says whether it ended in an error. Their count. */
static size_t read_stream(const uint8_t *s, size_t len, size_t piece, uint64_t max, seen *out,
                          size_t cap, int *failed)
{
    cli_ws_reader r;
    cli_ws_reader_init(&r, max);
    size_t nev = 0, off = 0;
    *failed = 0;
    while (off < len && !*failed) {
        size_t k = piece && len - off > piece ? piece : len - off;
        uint8_t *buf = fuzz_dup(s + off, k);
        const uint8_t *p = buf;
        size_t n = k;
        for (;;) {
            cli_ws_event ev;
            char err[96];
            err[0] = '\0';
            int rc = cli_ws_read(&r, &p, &n, &ev, err, sizeof err);
            FUZZ_CHECK(p >= buf && p <= buf + k && n == (size_t)(buf + k - p), "the read moved outside its bytes");
            if (rc == CLI_EPROTO) {
                FUZZ_CHECK(fuzz_terminated(err, sizeof err) && err[0], "an error without a sentence");
                *failed = 1;
                break;
            }
            FUZZ_CHECK(rc == 0 || rc == 1, "cli_ws_read returned %d", rc);
            if (rc == 0) {
                FUZZ_CHECK(n == 0, "0 with %zu bytes left", n);
                break;
            }
            event_check(&ev, max, buf, buf + k, &r);
            if (nev < cap) out[nev] = (seen){ ev.op, ev.n, fnv(ev.p, ev.n) };
            nev++;
        }
        free(buf);
        off += k;
    }
    cli_ws_reader_free(&r);
    return nev;
}

static void answer_check(const uint8_t *a, size_t n, const char *proto)
{
    char *copy = (char *)fuzz_dup(a, n);
    size_t hl = cli_ws_answer_len((const uint8_t *)copy, n);
    FUZZ_CHECK(hl <= n, "header length %zu of %zu bytes", hl, n);
    if (hl) FUZZ_CHECK(hl >= 4 && memcmp(copy + hl - 4, "\r\n\r\n", 4) == 0, "the header does not end with a blank line");
    int not_http = cli_ws_answer_not_http((const uint8_t *)copy, n);
    FUZZ_CHECK(not_http == 0 || not_http == 1, "not_http %d", not_http);
    char err[200];
    err[0] = '\0';
    int rc = cli_ws_answer_check(copy, hl ? hl : n, KEY, proto, err, sizeof err);
    FUZZ_CHECK(rc == CLI_OK || rc == CLI_WS_REFUSED || rc == CLI_EPROTO, "answer check returned %d", rc);
    FUZZ_CHECK(fuzz_terminated(err, sizeof err), "unterminated sentence");
    if (rc != CLI_OK) FUZZ_CHECK(err[0] != '\0' || rc == CLI_WS_REFUSED, "a refusal without a sentence");
    if (rc == CLI_OK) {
        char want[CLI_WS_ACCEPT_LEN + 1];
        cli_ws_accept(KEY, want);
        size_t len = hl ? hl : n;
        int found = 0;
        for (size_t i = 0; !found && i + CLI_WS_ACCEPT_LEN <= len; i++)
            found = memcmp(copy + i, want, CLI_WS_ACCEPT_LEN) == 0;
        FUZZ_CHECK(found && not_http == 0, "a 101 accepted without the right Sec-WebSocket-Accept");
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    int flags = data[0];
    size_t alen = (size_t)data[1] << 8 | data[2];
    data += 3;
    size -= 3;
    if (alen > size) alen = size;
    answer_check(data, alen, flags & 1 ? CLI_WS_SUBPROTOCOL : NULL);

    const uint8_t *s = data + alen;
    size_t len = size - alen;
    static const size_t pieces[8] = { 1, 2, 3, 5, 7, 13, 64, 1000 };
    size_t piece = pieces[(flags >> 1) & 7];
    uint64_t max = 1 + (uint64_t)((flags >> 4) & 15) * 4099;   /* 1 .. 61,486 bytes */
    enum { CAP = 256 };
    static seen whole[CAP], cut[CAP];
    int fw, fc;
    size_t nw = read_stream(s, len, 0, max, whole, CAP, &fw);
    size_t nc = read_stream(s, len, piece, max, cut, CAP, &fc);
    FUZZ_CHECK(nw == nc && fw == fc, "in one piece: %zu events%s; in pieces of %zu: %zu events%s", nw,
               fw ? " then an error" : "", piece, nc, fc ? " then an error" : "");
    for (size_t i = 0; i < nw && i < CAP; i++)
        FUZZ_CHECK(whole[i].op == cut[i].op && whole[i].n == cut[i].n && whole[i].hash == cut[i].hash,
                   "event %zu differs read in pieces of %zu", i, piece);
    return 0;
}
