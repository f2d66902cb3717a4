/* fuzz_frame.c — libFuzzer target: the bytes vivd sends a client, as clients/net.c reads them
 * (`viv view`, `viv bot` and the end-to-end tests all use it).
 *
 * The input is the TCP stream from the server: it is written into a socketpair and read back
 * with cli_recv_msg (the framing: a 4-byte length up to WIRE_MAX_SERVER_MSG, the receive buffer
 * growing to fit), until the stream ends. Every "frame" message goes to cli_frame_apply for its
 * world, which rebuilds pictures from raw, tile and tile.zst data (zstd, then codec_decode) and
 * checks the frame hash. Besides memory safety: every result is one of the documented codes with
 * a terminated sentence, and an applied frame has the size and tick its message gave. */
#include <sys/socket.h>
#include <unistd.h>
#include "fuzz.h"
#include "net.h"

#define SLOTS 4
#define MAX_STREAM (128u * 1024u)       /* fits a socketpair's buffer: the write never blocks */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_STREAM) return 0;
    int sv[2];
    FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
    int sz = (int)MAX_STREAM * 2;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    size_t off = 0;
    while (off < size) {
        ssize_t k = write(sv[1], data + off, size - off);
        FUZZ_CHECK(k > 0, "socketpair write");
        off += (size_t)k;
    }
    shutdown(sv[1], SHUT_WR);
    cli_conn c;
    memset(&c, 0, sizeof c);
    c.fd = sv[0];
    cli_frame frames[SLOTS];
    memset(frames, 0, sizeof frames);
    char err[200];
    wire_msg m;
    for (;;) {
        int rc = cli_recv_msg(&c, 0, &m, err, sizeof err);
        FUZZ_CHECK(rc == CLI_EPROTO || rc == CLI_RECV_TIMEOUT || rc == CLI_RECV_MSG, "cli_recv_msg gave %d", rc);
        if (rc != 1) {
            FUZZ_CHECK(rc == 0 || err[0] != '\0', "a failed receive says nothing");
            break;
        }
        if (!cli_msg_is(&m, "frame")) continue;
        uint64_t world = 0, w = 0, h = 0, tick = 0;
        wire_get_u64(&m, "world", &world);
        cli_frame *cf = &frames[world % SLOTS];
        size_t errlen = 1 + (size_t)(world % 150);
        char *e = malloc(errlen);
        FUZZ_CHECK(e != NULL, "oom");
        e[0] = '\0';
        int r = cli_frame_apply(cf, &m, e, errlen);
        FUZZ_CHECK(r == WIRE_FRAME_OK || r == WIRE_FRAME_EPROTO || r == WIRE_FRAME_EHASH ||
                   r == WIRE_FRAME_ENOKEY, "cli_frame_apply gave %d", r);
        FUZZ_CHECK(fuzz_terminated(e, errlen), "unterminated error");
        FUZZ_CHECK(r == 0 || errlen == 1 || e[0] != '\0', "a refused frame says nothing");
        if (r == WIRE_FRAME_OK || r == WIRE_FRAME_EHASH) {
            FUZZ_CHECK(wire_get_u64(&m, "w", &w) == 0 && wire_get_u64(&m, "h", &h) == 0 &&
                       wire_get_u64(&m, "tick", &tick) == 0, "an applied frame lacks w, h or tick");
            FUZZ_CHECK(cf->f.w == w && cf->f.h == h && cf->tick == tick && cf->have_key,
                       "applied frame is %ux%u, message said %llux%llu", cf->f.w, cf->f.h,
                       (unsigned long long)w, (unsigned long long)h);
            FUZZ_CHECK(cf->f.pal.count >= 1 && cf->f.pal.count <= SIM_PALETTE_MAX, "palette of %u", cf->f.pal.count);
        }
        free(e);
    }
    for (int i = 0; i < SLOTS; i++) cli_frame_free(&frames[i]);
    cli_close(&c);
    close(sv[1]);
    return 0;
}
