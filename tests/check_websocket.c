/* check_websocket.c — the client side of RFC 6455 (clients/websocket.c), byte for byte against
 * the RFC's own examples, with no server:
 *   - the handshake: the sample key and accept of §1.3 and §4.2.2, and the checks of an answer
 *     (a refusal is told from a broken 101 and from something that is not HTTP at all);
 *   - frames: the example frames of §5.7 (unmasked and masked "Hello", "Hel" + "lo", a ping,
 *     256 bytes and 64 KiB), and the header's three length forms at their boundaries;
 *   - the reader gives the same messages however the bytes are cut, joins fragments around a
 *     control frame, and refuses what a server may not send before buffering its payload;
 *   - addresses: ws://HOST:PORT/PATH, and clear sentences for the wrong ones. */
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "net.h"
#include "websocket.h"

START_TEST(rfc_sample_handshake)
{
    /* §1.3 and §4.2.2: the nonce "the sample nonce", its key, and the answer's accept. */
    char key[CLI_WS_KEY_LEN + 1], acc[CLI_WS_ACCEPT_LEN + 1];
    cli_ws_key((const uint8_t *)"the sample nonce", key);
    ck_assert_str_eq(key, "dGhlIHNhbXBsZSBub25jZQ==");
    cli_ws_accept(key, acc);
    ck_assert_str_eq(acc, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");

    char req[512];
    size_t n = cli_ws_request(req, sizeof req, "127.0.0.1:7401", "/ws", key, CLI_WS_SUBPROTOCOL);
    ck_assert_uint_eq(n, strlen(req));
    ck_assert_msg(strncmp(req, "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:7401\r\n", 40) == 0, "%s", req);
    ck_assert_ptr_nonnull(strstr(req, "\r\nUpgrade: websocket\r\n"));
    ck_assert_ptr_nonnull(strstr(req, "\r\nConnection: Upgrade\r\n"));
    ck_assert_ptr_nonnull(strstr(req, "\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"));
    ck_assert_ptr_nonnull(strstr(req, "\r\nSec-WebSocket-Version: 13\r\n"));
    ck_assert_ptr_nonnull(strstr(req, "\r\nSec-WebSocket-Protocol: vivarium\r\n"));
    ck_assert_str_eq(req + n - 4, "\r\n\r\n");
    n = cli_ws_request(req, sizeof req, "h:1", "/ws", key, NULL);
    ck_assert_ptr_null(strstr(req, "Sec-WebSocket-Protocol"));
    ck_assert_uint_eq(cli_ws_request(req, 40, "127.0.0.1:7401", "/ws", key, NULL), 0);
}
END_TEST

static int check(const char *answer, const char *proto, char *err, size_t errlen)
{
    size_t hl = cli_ws_answer_len((const uint8_t *)answer, strlen(answer));
    ck_assert_msg(hl == strlen(answer), "answer length %zu of %zu", hl, strlen(answer));
    return cli_ws_answer_check(answer, hl, "dGhlIHNhbXBsZSBub25jZQ==", proto, err, errlen);
}

START_TEST(answer_checks)
{
    char err[256];
    const char *good = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
                       "Sec-WebSocket-Protocol: vivarium\r\n\r\n";
    ck_assert_int_eq(check(good, CLI_WS_SUBPROTOCOL, err, sizeof err), 0);
    /* Field names in any case, a Connection list, no subprotocol chosen: all fine. */
    ck_assert_int_eq(check("HTTP/1.1 101 OK\r\nupgrade: WebSocket\r\nconnection: keep-alive, upgrade\r\n"
                           "sec-websocket-accept:   s3pPLMBiTxaQ9kYGzzhZRbK+xOo=  \r\n\r\n",
                           CLI_WS_SUBPROTOCOL, err, sizeof err), 0);
    /* A refusal: its status line. */
    ck_assert_int_eq(check("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n", NULL, err, sizeof err),
                     CLI_WS_REFUSED);
    ck_assert_str_eq(err, "HTTP/1.1 403 Forbidden");
    /* A 101 that breaks the RFC. */
    static const struct { const char *answer, *proto, *says; } bad[] = {
        { "HTTP/1.1 101 x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n", NULL, "wrong or no Sec-WebSocket-Accept" },
        { "HTTP/1.1 101 x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", NULL,
          "wrong or no Sec-WebSocket-Accept" },
        { "HTTP/1.1 101 x\r\nConnection: Upgrade\r\n"
          "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n", NULL, "Upgrade: websocket" },
        { "HTTP/1.1 101 x\r\nUpgrade: websocket\r\nConnection: close\r\n"
          "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n", NULL, "Connection: Upgrade" },
        { "HTTP/1.1 101 x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\n\r\n",
          CLI_WS_SUBPROTOCOL, "the subprotocol 'chat', which was not offered" },
        { "HTTP/1.1 101 x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: vivarium\r\n\r\n",
          NULL, "not offered" },
        { "HTTP/1.1 101 x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
          "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n", NULL, "extension 'permessage-deflate'" },
        { "SSH-2.0-OpenSSH_9.2\r\n\r\n", NULL, "not HTTP" },
        { "HTTP/1.1 \r\n\r\n", NULL, "not HTTP" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        ck_assert_msg(check(bad[i].answer, bad[i].proto, err, sizeof err) == CLI_EPROTO, "answer %zu passed", i);
        ck_assert_msg(strstr(err, bad[i].says), "answer %zu: '%s' lacks '%s'", i, err, bad[i].says);
    }
    /* Whole only with its blank line; "not HTTP" can be told from the first byte. */
    ck_assert_uint_eq(cli_ws_answer_len((const uint8_t *)"HTTP/1.1 101 x\r\n\r", 17), 0);
    ck_assert_int_eq(cli_ws_answer_not_http((const uint8_t *)"HTT", 3), 0);
    ck_assert_int_eq(cli_ws_answer_not_http((const uint8_t *)"\0\0\0\x52", 4), 1);
}
END_TEST

/* ---- frames --------------------------------------------------------------------------------- */
START_TEST(rfc_example_frames)
{
    /* §5.7: a single-frame masked text message "Hello", as a client sends it. */
    static const uint8_t masked[] = { 0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58 };
    static const uint8_t key[4] = { 0x37, 0xfa, 0x21, 0x3d };
    wire_buf b;
    wire_buf_init(&b);
    cli_ws_put_frame(&b, 1, CLI_WS_TEXT, "Hello", 5, key);
    ck_assert_uint_eq(b.len, sizeof masked);
    ck_assert_mem_eq(b.p, masked, sizeof masked);
    /* The header's length forms (§5.2) at their boundaries: 7 bits, 16 bits, 64 bits. */
    static const struct { uint64_t len; size_t hl; uint8_t b1; } forms[] = {
        { 0, 2, 0 }, { 125, 2, 125 }, { 126, 4, 126 }, { 65535, 4, 126 }, { 65536, 10, 127 },
        { 1ull << 62, 10, 127 },
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        uint8_t h[CLI_WS_HEADER_MAX];
        ck_assert_uint_eq(cli_ws_header_put(h, 1, CLI_WS_BIN, forms[i].len, NULL), forms[i].hl);
        ck_assert_uint_eq(h[0], 0x82);
        ck_assert_uint_eq(h[1], forms[i].b1);
        uint64_t got = forms[i].hl == 2 ? h[1] : 0;
        for (size_t k = 2; k < forms[i].hl; k++) got = got << 8 | h[k];
        ck_assert_uint_eq(got, forms[i].len);
        ck_assert_uint_eq(cli_ws_header_put(h, 0, CLI_WS_CONT, forms[i].len, key), forms[i].hl + 4);
        ck_assert_uint_eq(h[0], 0x00);
        ck_assert_uint_eq(h[1], 0x80 | forms[i].b1);
        ck_assert_mem_eq(h + forms[i].hl, key, 4);
    }
    /* Masking is its own inverse, from any offset. */
    uint8_t txt[9] = "abcdefgh";
    cli_ws_mask(txt, 3, key, 0);
    cli_ws_mask(txt + 3, 5, key, 3);
    ck_assert(memcmp(txt, "abcdefgh", 8) != 0);
    cli_ws_mask(txt, 8, key, 0);
    ck_assert_mem_eq(txt, "abcdefgh", 8);

    /* §5.7 as a server sends them: "Hello"; "Hel" + "lo"; a ping "Hello"; 256 and 65536 bytes. */
    wire_buf_reset(&b);
    static const uint8_t hello[] = { 0x81, 0x05, 'H', 'e', 'l', 'l', 'o' };
    static const uint8_t frag[] = { 0x01, 0x03, 'H', 'e', 'l', 0x80, 0x02, 'l', 'o' };
    static const uint8_t ping[] = { 0x89, 0x05, 'H', 'e', 'l', 'l', 'o' };
    static const uint8_t h256[] = { 0x82, 0x7e, 0x01, 0x00 };
    static const uint8_t h64k[] = { 0x82, 0x7f, 0, 0, 0, 0, 0, 1, 0, 0 };
    wire_put_raw(&b, hello, sizeof hello);
    wire_put_raw(&b, frag, sizeof frag);
    wire_put_raw(&b, ping, sizeof ping);
    wire_put_raw(&b, h256, sizeof h256);
    for (int i = 0; i < 256; i++) wire_put_raw(&b, &(uint8_t){ (uint8_t)i }, 1);
    wire_put_raw(&b, h64k, sizeof h64k);
    for (int i = 0; i < 65536; i++) wire_put_raw(&b, &(uint8_t){ (uint8_t)(i * 7) }, 1);
    cli_ws_reader r;
    cli_ws_reader_init(&r, 1 << 20);
    const uint8_t *p = b.p;
    size_t n = b.len;
    cli_ws_event ev;
    char err[160];
    static const struct { int op; size_t n; } want[] = {
        { CLI_WS_TEXT, 5 }, { CLI_WS_TEXT, 5 }, { CLI_WS_PING, 5 }, { CLI_WS_BIN, 256 }, { CLI_WS_BIN, 65536 },
    };
    for (size_t i = 0; i < 5; i++) {
        ck_assert_int_eq(cli_ws_read(&r, &p, &n, &ev, err, sizeof err), 1);
        ck_assert_int_eq(ev.op, want[i].op);
        ck_assert_uint_eq(ev.n, want[i].n);
        if (i < 3) ck_assert_mem_eq(ev.p, "Hello", 5);
        for (size_t k = 0; i >= 3 && k < ev.n; k++)
            ck_assert_uint_eq(ev.p[k], (uint8_t)(i == 3 ? k : k * 7));
    }
    /* A whole frame is read in place, with nothing allocated. */
    ck_assert_ptr_eq(ev.p, b.p + b.len - 65536);
    ck_assert_int_eq(cli_ws_read(&r, &p, &n, &ev, err, sizeof err), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(r.frame);
    cli_ws_reader_free(&r);
    wire_buf_free(&b);
}
END_TEST

/* A server's stream of many kinds of frame: small and large, fragmented around a ping, a close. */
static void stream_build(wire_buf *b)
{
    uint8_t h[CLI_WS_HEADER_MAX];
    static uint8_t big[70000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (uint8_t)(i * 31 + 7);
    static const size_t lens[] = { 0, 1, 125, 126, 127, 65535, 65536, 70000 };
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        wire_put_raw(b, h, cli_ws_header_put(h, 1, CLI_WS_BIN, lens[i], NULL));
        wire_put_raw(b, big, lens[i]);
    }
    /* 70000 bytes in three fragments, a ping and a pong between them */
    wire_put_raw(b, h, cli_ws_header_put(h, 0, CLI_WS_BIN, 1000, NULL));
    wire_put_raw(b, big, 1000);
    wire_put_raw(b, h, cli_ws_header_put(h, 1, CLI_WS_PING, 3, NULL));
    wire_put_raw(b, "abc", 3);
    wire_put_raw(b, h, cli_ws_header_put(h, 0, CLI_WS_CONT, 60000, NULL));
    wire_put_raw(b, big + 1000, 60000);
    wire_put_raw(b, h, cli_ws_header_put(h, 1, CLI_WS_PONG, 0, NULL));
    wire_put_raw(b, h, cli_ws_header_put(h, 1, CLI_WS_CONT, 9000, NULL));
    wire_put_raw(b, big + 61000, 9000);
    static const uint8_t close[] = { 0x03, 0xf0, 'b', 'y', 'e' };    /* 1008 "bye" */
    wire_put_raw(b, h, cli_ws_header_put(h, 1, CLI_WS_CLOSE, sizeof close, NULL));
    wire_put_raw(b, close, sizeof close);
}

typedef struct seen { int op; size_t n; uint64_t sum; } seen;

/* Read the stream in pieces of `step` bytes (0: irregular pieces from seed); every event's opcode,
 * length and a checksum of its payload into out. The count. */
static int stream_read(const wire_buf *b, size_t step, unsigned seed, seen *out, int max)
{
    cli_ws_reader r;
    cli_ws_reader_init(&r, 1 << 20);
    size_t at = 0;
    int k = 0;
    char err[160];
    while (at < b->len) {
        size_t piece = step ? step : 1 + (size_t)(rand_r(&seed) % 9000);
        if (piece > b->len - at) piece = b->len - at;
        /* A copy that is gone after the call: the reader must have kept what it needs. */
        uint8_t *copy = malloc(piece);
        memcpy(copy, b->p + at, piece);
        const uint8_t *p = copy;
        size_t n = piece;
        cli_ws_event ev;
        int rc;
        while ((rc = cli_ws_read(&r, &p, &n, &ev, err, sizeof err)) == 1) {
            ck_assert_int_lt(k, max);
            out[k].op = ev.op;
            out[k].n = ev.n;
            out[k].sum = 0;
            for (size_t i = 0; i < ev.n; i++) out[k].sum = out[k].sum * 131 + ev.p[i];
            k++;
        }
        ck_assert_msg(rc == 0, "step %zu: %s", step, err);
        ck_assert_uint_eq(n, 0);
        free(copy);
        at += piece;
    }
    cli_ws_reader_free(&r);
    return k;
}

START_TEST(reader_any_cut_same_messages)
{
    wire_buf b;
    wire_buf_init(&b);
    stream_build(&b);
    seen whole[16], cut[16];
    int n = stream_read(&b, b.len, 0, whole, 16);
    /* 8 messages, ping, pong, the joined one, close */
    ck_assert_int_eq(n, 12);
    ck_assert_int_eq(whole[8].op, CLI_WS_PING);
    ck_assert_int_eq(whole[9].op, CLI_WS_PONG);
    ck_assert_int_eq(whole[10].op, CLI_WS_BIN);
    ck_assert_uint_eq(whole[10].n, 70000);
    ck_assert_uint_eq(whole[10].sum, whole[7].sum);     /* the same 70000 bytes as one frame */
    ck_assert_int_eq(whole[11].op, CLI_WS_CLOSE);
    static const size_t steps[] = { 1, 2, 3, 5, 13, 125, 126, 4096, 65537 };
    for (size_t s = 0; s < sizeof steps / sizeof steps[0] + 20; s++) {
        size_t step = s < sizeof steps / sizeof steps[0] ? steps[s] : 0;
        ck_assert_int_eq(stream_read(&b, step, (unsigned)s, cut, 16), n);
        for (int i = 0; i < n; i++) {
            ck_assert_msg(cut[i].op == whole[i].op && cut[i].n == whole[i].n && cut[i].sum == whole[i].sum,
                          "step %zu: event %d differs", step, i);
        }
    }
    /* The close frame's status and reason. */
    cli_ws_event ev = { CLI_WS_CLOSE, (const uint8_t *)"\x03\xf0" "bye", 5 };
    const char *why;
    size_t wl;
    ck_assert_int_eq(cli_ws_close_status(&ev, &why, &wl), 1008);
    ck_assert_uint_eq(wl, 3);
    ck_assert_mem_eq(why, "bye", 3);
    ev.n = 0;
    ck_assert_int_eq(cli_ws_close_status(&ev, &why, &wl), 1005);
    wire_buf_free(&b);
}
END_TEST

/* A fragmented message whose first fragments are empty (found by tests/fuzz/fuzz_websocket.c):
 * the reader had no buffer yet and copied 0 bytes to NULL + 0, which UBSan (make test-san) stops
 * at; the message is the later fragments' bytes, and an all-empty one is an empty message. */
START_TEST(reader_empty_first_fragments)
{
    static const uint8_t s[] = {
        0x02, 0x00,                 /* binary, not final, empty */
        0x00, 0x00,                 /* continuation, empty */
        0x80, 0x02, 'h', 'i',       /* final continuation: "hi" */
        0x01, 0x00, 0x80, 0x00,     /* text, empty, then an empty final continuation */
    };
    cli_ws_reader r;
    cli_ws_reader_init(&r, 1000);
    const uint8_t *p = s;
    size_t n = sizeof s;
    cli_ws_event ev;
    char err[128];
    ck_assert_int_eq(cli_ws_read(&r, &p, &n, &ev, err, sizeof err), 1);
    ck_assert_int_eq(ev.op, CLI_WS_BIN);
    ck_assert_uint_eq(ev.n, 2);
    ck_assert_mem_eq(ev.p, "hi", 2);
    ck_assert_int_eq(cli_ws_read(&r, &p, &n, &ev, err, sizeof err), 1);
    ck_assert_int_eq(ev.op, CLI_WS_TEXT);
    ck_assert_uint_eq(ev.n, 0);
    ck_assert_int_eq(cli_ws_read(&r, &p, &n, &ev, err, sizeof err), 0);
    ck_assert_uint_eq(n, 0);
    cli_ws_reader_free(&r);
}
END_TEST

START_TEST(reader_refuses_what_a_server_may_not_send)
{
    static const struct { uint8_t bytes[16]; size_t n; const char *says; } bad[] = {
        { { 0x82, 0x81, 1, 2, 3, 4, 'x' }, 7, "masked" },
        { { 0xc2, 0x01, 'x' }, 3, "reserved bit" },
        { { 0x83, 0x01, 'x' }, 3, "unknown data opcode 3" },
        { { 0x8b, 0x00 }, 2, "unknown control opcode 11" },
        { { 0x09, 0x01, 'x' }, 3, "fragmented control frame" },
        { { 0x89, 0x7e, 0x00, 0x7e }, 4, "malformed control frame of 126 bytes" },
        { { 0x88, 0x01, 0x03 }, 3, "malformed control frame of 1 bytes" },
        /* close statuses that are never sent (found by tests/fuzz/fuzz_websocket.c: 1005 on the
         * wire read as "no status") */
        { { 0x88, 0x02, 0x03, 0xed }, 4, "close frame with the status 1005" },
        { { 0x88, 0x02, 0x03, 0xee }, 4, "status 1006" },
        { { 0x88, 0x02, 0x03, 0xf7 }, 4, "status 1015" },
        { { 0x88, 0x02, 0x03, 0xe7 }, 4, "status 999" },
        { { 0x88, 0x02, 0x0b, 0xb7 }, 4, "status 2999" },
        { { 0x88, 0x02, 0x13, 0x88 }, 4, "status 5000" },
        { { 0x80, 0x01, 'x' }, 3, "no message to continue" },
        { { 0x02, 0x01, 'x', 0x82, 0x01, 'y' }, 6, "a new message inside a fragmented one" },
        /* over the reader's 1000 bytes: refused at the header, before any payload */
        { { 0x82, 0x7e, 0x03, 0xe9 }, 4, "1001 bytes or more, over the 1000 accepted" },
        { { 0x82, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 0 }, 10, "over the 1000 accepted" },
        { { 0x02, 0x7e, 0x03, 0x00 }, 4, NULL },   /* 768: fine alone... */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cli_ws_reader r;
        cli_ws_reader_init(&r, 1000);
        const uint8_t *p = bad[i].bytes;
        size_t n = bad[i].n;
        cli_ws_event ev;
        char err[160] = "";
        int rc;
        while ((rc = cli_ws_read(&r, &p, &n, &ev, err, sizeof err)) == 1) {}
        if (!bad[i].says) {
            ck_assert_int_eq(rc, 0);
            /* ...but 768 + 768 is more than 1000 */
            uint8_t payload[768 + 4] = { 0 };
            p = payload;
            n = 768;
            ck_assert_int_eq(cli_ws_read(&r, &p, &n, &ev, err, sizeof err), 0);
            static const uint8_t more[] = { 0x80, 0x7e, 0x03, 0x00 };
            p = more;
            n = sizeof more;
            ck_assert_int_eq(cli_ws_read(&r, &p, &n, &ev, err, sizeof err), CLI_EPROTO);
            ck_assert_msg(strstr(err, "1536 bytes or more, over the 1000 accepted"), "%s", err);
        } else {
            ck_assert_msg(rc == CLI_EPROTO, "case %zu (%s) was read", i, bad[i].says);
            ck_assert_msg(strstr(err, bad[i].says), "case %zu: '%s' lacks '%s'", i, err, bad[i].says);
            ck_assert_ptr_null(r.frame);    /* nothing of a refused frame was kept */
        }
        cli_ws_reader_free(&r);
    }
}
END_TEST

/* ---- addresses ------------------------------------------------------------------------------------ */
START_TEST(urls)
{
    char hp[64], path[64], err[200];
    static const struct { const char *url, *hp, *path; } good[] = {
        { "ws://127.0.0.1:7401/ws", "127.0.0.1:7401", "/ws" },
        { "ws://localhost:1", "localhost:1", "/ws" },
        { "WS://[::1]:7401/other?x=1", "[::1]:7401", "/other?x=1" },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ck_assert_msg(cli_ws_url_split(good[i].url, hp, sizeof hp, path, sizeof path, err, sizeof err) == 0,
                      "%s: %s", good[i].url, err);
        ck_assert_str_eq(hp, good[i].hp);
        ck_assert_str_eq(path, good[i].path);
    }
    ck_assert_int_eq(cli_ws_is_url("ws://x:1"), 1);
    ck_assert_int_eq(cli_ws_is_url("127.0.0.1:7400"), 0);
    static const struct { const char *url, *says; } bad[] = {
        { "wss://127.0.0.1:7401/ws", "wss:// (WebSocket over TLS) is not supported" },
        { "http://127.0.0.1:7401/", "not a ws:// address" },
        { "127.0.0.1:7401", "not a ws:// address" },
        { "ws://127.0.0.1/ws", "needs a host and a port" },
        { "ws://:7401/ws", "needs a host and a port" },
        { "ws://127.0.0.1:/ws", "needs a host and a port" },
        { "ws://127.0.0.1:99999/ws", "needs a host and a port" },
        { "ws://127.0.0.1:74x1/ws", "needs a host and a port" },
        { "ws://::1:7401/ws", "needs a host and a port" },
        { "ws:///ws", "no host" },
        { "ws://h:1/a b", "a space or a control character" },
        { "ws://h:1/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "path is too long" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        ck_assert_msg(cli_ws_url_split(bad[i].url, hp, sizeof hp, path, sizeof path, err, sizeof err) == CLI_EPROTO,
                      "%s was accepted", bad[i].url);
        ck_assert_msg(strstr(err, bad[i].says), "%s: '%s' lacks '%s'", bad[i].url, err, bad[i].says);
    }
}
END_TEST

Suite *suite_websocket(void)
{
    Suite *s = suite_create("websocket");
    TCase *t = tcase_create("websocket");
    tcase_add_test(t, rfc_sample_handshake);
    tcase_add_test(t, answer_checks);
    tcase_add_test(t, rfc_example_frames);
    tcase_add_test(t, reader_any_cut_same_messages);
    tcase_add_test(t, reader_empty_first_fragments);
    tcase_add_test(t, reader_refuses_what_a_server_may_not_send);
    tcase_add_test(t, urls);
    suite_add_tcase(s, t);
    return s;
}
