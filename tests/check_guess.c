/* check_guess.c — server/guess.c: token guessing slowed down (issue 28, item 7). The table of
 * addresses alone (its back-offs, its bounds, what clears it), then a real vivd: a burst of wrong
 * tokens from one address is answered one at a time, late, and every one of them in the end,
 * while a right token from the same address is answered at once. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "e2e.h"
#include "network.h"

static void key4(uint8_t key[16], unsigned n)
{
    char peer[64];
    snprintf(peer, sizeof peer, "10.%u.%u.%u:4000", (n >> 16) & 255, (n >> 8) & 255, n & 255);
    ck_assert_int_eq(srv_guess_key(peer, key), 0);
}

START_TEST(keys_are_addresses_and_v6_prefixes)
{
    uint8_t a[16], b[16];
    ck_assert_int_eq(srv_guess_key("127.0.0.1:5000", a), 0);
    ck_assert_int_eq(srv_guess_key("127.0.0.1:6000", b), 0);
    ck_assert_mem_eq(a, b, 16);                                   /* the port does not count */
    ck_assert_int_eq(srv_guess_key("127.0.0.2:5000", b), 0);
    ck_assert(memcmp(a, b, 16) != 0);
    ck_assert_int_eq(srv_guess_key("::ffff:127.0.0.1:5000", b), 0);
    ck_assert_mem_eq(a, b, 16);                                   /* v4 on a v6 socket */
    ck_assert_int_eq(srv_guess_key("2001:db8:1:2::7:5000", a), 0);
    ck_assert_int_eq(srv_guess_key("2001:db8:1:2:ffff::9:5000", b), 0);
    ck_assert_mem_eq(a, b, 16);                                   /* one /64 */
    ck_assert_int_eq(srv_guess_key("2001:db8:1:3::7:5000", b), 0);
    ck_assert(memcmp(a, b, 16) != 0);
    ck_assert_int_eq(srv_guess_key("?", a), -1);
    ck_assert_int_eq(srv_guess_key("member node-1", a), -1);
}
END_TEST

/* The Nth wrong token in a row waits min(2^N ms, the cap) after the answer before it. */
START_TEST(backoffs_grow_and_answers_come_one_at_a_time)
{
    ck_assert_uint_eq(srv_guess_backoff(1), 2);
    ck_assert_uint_eq(srv_guess_backoff(10), 1024);
    ck_assert_uint_eq(srv_guess_backoff(12), SRV_GUESS_MAX_MS);
    ck_assert_uint_eq(srv_guess_backoff(40), SRV_GUESS_MAX_MS);
    ck_assert_uint_eq(srv_guess_backoff(UINT32_MAX), SRV_GUESS_MAX_MS);
    srv_guess *g = srv_guess_new(1);
    ck_assert_ptr_nonnull(g);
    uint8_t k[16], other[16];
    key4(k, 1);
    key4(other, 2);
    uint64_t due, want = 1000;
    for (uint32_t n = 1; n <= 20; n++) {           /* a burst at t = 1000 ms */
        ck_assert_int_eq(srv_guess_fail(g, k, 100 + n, 1000, &due), 0);
        want += srv_guess_backoff(n);
        ck_assert_uint_eq(due, want);
    }
    ck_assert_int_eq(srv_guess_failures(g, k), 20);
    /* Another address is not held up by this one. */
    ck_assert_int_eq(srv_guess_fail(g, other, 7, 1000, &due), 0);
    ck_assert_uint_eq(due, 1002);
    /* Answers come out in time order, each client once, none early. */
    uint32_t id;
    ck_assert_int_eq(srv_guess_due(g, 1001, &id), 0);
    ck_assert_int_eq(srv_guess_due(g, 1002, &id), 1);
    ck_assert_uint_eq(id, 101);                     /* queued first, at the same time as other's */
    ck_assert_int_eq(srv_guess_due(g, 1002, &id), 1);
    ck_assert_uint_eq(id, 7);
    ck_assert_int_eq(srv_guess_due(g, 1002, &id), 0);
    ck_assert_uint_eq(srv_guess_next(g), 1006);
    int within_a_second = 2;                        /* answers due by t = 2000 ms */
    while (srv_guess_due(g, 2000, &id)) within_a_second++;
    ck_assert_int_eq(within_a_second, 9);          /* 8 of the 20 (the 9th: 2,022 ms), and other's */
    uint32_t last = 0;
    int n = 0;
    while (srv_guess_due(g, UINT64_MAX - 1, &id)) {
        ck_assert_uint_gt(id, last);
        last = id;
        n++;
    }
    ck_assert_int_eq(n, 12);
    ck_assert_uint_eq(last, 120);
    ck_assert_uint_eq(srv_guess_next(g), UINT64_MAX);
    srv_guess_free(g);
}
END_TEST

/* A success (the admin token; proto.c calls it for no other) clears its address's count; an
 * address quiet for SRV_GUESS_FORGET_MS starts again from 2 ms. */
START_TEST(what_clears_the_count)
{
    srv_guess *g = srv_guess_new(2);
    uint8_t k[16];
    key4(k, 3);
    uint64_t due;
    uint32_t id;
    for (int i = 0; i < 5; i++) ck_assert_int_eq(srv_guess_fail(g, k, 1, 0, &due), 0);
    while (srv_guess_due(g, UINT64_MAX - 1, &id)) {}
    ck_assert_int_eq(srv_guess_failures(g, k), 5);
    ck_assert_int_eq(srv_guess_fail(g, k, 1, 100, &due), 0);
    ck_assert_uint_eq(due, 100 + 64);               /* the 6th in a row */
    while (srv_guess_due(g, UINT64_MAX - 1, &id)) {}
    srv_guess_success(g, k);
    ck_assert_int_eq(srv_guess_failures(g, k), 0);
    ck_assert_int_eq(srv_guess_addresses(g), 0);    /* nothing left to remember */
    ck_assert_int_eq(srv_guess_fail(g, k, 1, 200, &due), 0);
    ck_assert_uint_eq(due, 202);
    ck_assert_int_eq(srv_guess_fail(g, k, 1, 200 + SRV_GUESS_FORGET_MS, &due), 0);   /* just in time */
    ck_assert_int_eq(srv_guess_failures(g, k), 2);
    ck_assert_int_eq(srv_guess_fail(g, k, 1, 201 + 2 * (uint64_t)SRV_GUESS_FORGET_MS, &due), 0);
    ck_assert_int_eq(srv_guess_failures(g, k), 1);  /* quiet long enough: forgotten */
    srv_guess_free(g);
}
END_TEST

/* Bounded memory: at most SRV_GUESS_ADDRS addresses, the least recent one without an answer
 * waiting making room; at most SRV_GUESS_PER_ADDR answers waiting for one address and
 * SRV_GUESS_QUEUE in all, beyond which a token is not admitted (not read). */
START_TEST(the_table_is_bounded)
{
    srv_guess *g = srv_guess_new(3);
    uint8_t k[16], first[16], recent[16];
    uint64_t due;
    uint32_t id;
    /* One address's answers: 32 may wait, the 33rd is not admitted until one is sent. */
    key4(first, 0);
    for (int i = 0; i < SRV_GUESS_PER_ADDR; i++) {
        ck_assert_int_eq(srv_guess_admit(g, first), 0);
        ck_assert_int_eq(srv_guess_fail(g, first, 1, 0, &due), 0);
    }
    ck_assert_int_eq(srv_guess_admit(g, first), -1);
    ck_assert_int_eq(srv_guess_fail(g, first, 1, 0, &due), -1);
    ck_assert_int_eq(srv_guess_failures(g, first), SRV_GUESS_PER_ADDR);   /* not counted either */
    key4(k, 1);
    ck_assert_int_eq(srv_guess_admit(g, k), 0);                           /* others still are */
    ck_assert_int_eq(srv_guess_due(g, 2, &id), 1);
    ck_assert_int_eq(srv_guess_admit(g, first), 0);
    /* Many more addresses than the table holds, each with one wrong token whose answer is sent:
     * the table stays full, never larger, and keeps first (its answers still wait) and the most
     * recent ones. */
    key4(recent, 999);
    for (unsigned a = 1; a < 3 * SRV_GUESS_ADDRS; a++) {
        key4(k, a);
        ck_assert_int_eq(srv_guess_fail(g, k, 2, 10, &due), 0);
        ck_assert_int_le(srv_guess_addresses(g), SRV_GUESS_ADDRS);
        if (a == 3 * SRV_GUESS_ADDRS - 2) {       /* recent fails again: the most recent of all */
            ck_assert_int_eq(srv_guess_fail(g, recent, 2, 10, &due), 0);
        }
        while (srv_guess_due(g, 10 + 2, &id)) {}  /* its answer (2 ms) is sent */
    }
    ck_assert_int_eq(srv_guess_addresses(g), SRV_GUESS_ADDRS);
    ck_assert_int_eq(srv_guess_failures(g, first), SRV_GUESS_PER_ADDR);  /* answers waiting: kept */
    ck_assert_int_eq(srv_guess_failures(g, recent), 1);                  /* forgotten, then again */
    key4(k, 3 * SRV_GUESS_ADDRS - 1);
    ck_assert_int_eq(srv_guess_failures(g, k), 1);                       /* the newest */
    key4(k, 5);
    ck_assert_int_eq(srv_guess_failures(g, k), 0);                       /* an old one: gone */
    while (srv_guess_due(g, UINT64_MAX - 1, &id)) {}
    /* The server-wide queue: SRV_GUESS_QUEUE answers from many addresses, then no more. */
    for (int i = 0; i < SRV_GUESS_QUEUE; i++) {
        key4(k, 100000 + (unsigned)i / 8);
        ck_assert_int_eq(srv_guess_fail(g, k, 3, 20, &due), 0);
    }
    key4(k, 200000);
    ck_assert_int_eq(srv_guess_admit(g, k), -1);
    ck_assert_int_eq(srv_guess_fail(g, k, 3, 20, &due), -1);
    ck_assert_int_eq(srv_guess_due(g, UINT64_MAX - 1, &id), 1);
    ck_assert_int_eq(srv_guess_admit(g, k), 0);
    srv_guess_free(g);
}
END_TEST

/* ---- against a real vivd ------------------------------------------------------------------------ */

static void send_hello(cli_conn *c, const char *token)
{
    wire_buf b;
    wire_buf_init(&b);
    cli_put_hello(&b, "guesser", token);
    send_msg(c, &b);
    wire_buf_free(&b);
}

/* BURST wrong tokens: under the 16-error budget of one connection, and answered (4,094 ms) well
 * before the 10 s an un-greeted connection is given to say hello. */

/* Read c's answers for up to ms, or until `bad` reaches BURST; count bad_token errors and
 * welcomes (nothing else may come). */
#define BURST 11
static void read_answers(cli_conn *c, tracker *t, int ms, int *bad, int *welcome)
{
    double end = now_s() + ms / 1000.0;
    while (*bad < BURST) {
        int left = (int)((end - now_s()) * 1000.0);
        if (left <= 0) return;
        wire_msg m;
        if (recv_until_not_frame(c, t, &m, left) != 1) return;
        if (cli_msg_is(&m, "welcome")) {
            (*welcome)++;
            continue;
        }
        ck_assert_msg(cli_msg_is(&m, "error"), "an answer that is neither welcome nor error");
        const char *code;
        size_t cl;
        ck_assert_int_eq(wire_get_str(&m, "code", &code, &cl), 0);
        ck_assert_msg(wire_str_eq((const uint8_t *)code, cl, "bad_token"), "got %.*s", (int)cl, code);
        (*bad)++;
    }
}


START_TEST(wrong_tokens_are_answered_late_right_ones_at_once)
{
    server sv;
    const char *const w[] = { "--world", "sand:seed=1:w=32,h=24", "--no-record", NULL };
    server_start(&sv, w);
    cli_conn guesser, player;
    static tracker tg, tp;
    memset(&tg, 0, sizeof tg);
    memset(&tp, 0, sizeof tp);
    char err[256];
    ck_assert_msg(cli_connect(&guesser, sv.addr, err, sizeof err) == 0, "%s", err);
    /* A burst of wrong tokens: the Nth answer comes 2 + 4 + … + 2^N ms after the burst, so at
     * most 8 of them (510 ms; the 9th is due at 1,022 ms) can arrive within its first second. */
    double t0 = now_s();
    for (int i = 0; i < BURST; i++) send_hello(&guesser, "not-the-token");
    int bad = 0, welcomed = 0;
    read_answers(&guesser, &tg, (int)((t0 + 1.0 - now_s()) * 1000.0), &bad, &welcomed);
    ck_assert_msg(bad <= 8, "%d of %d wrong tokens were answered within a second (at most 8 may be)",
                  bad, BURST);
    ck_assert_int_eq(welcomed, 0);
    /* A right token from the same address, meanwhile: welcomed at once, before the wrong ones
     * still queued (the 11th is due 2 + 4 + … + 2048 = 4,094 ms after the burst). */
    ck_assert_msg(cli_connect(&player, sv.addr, err, sizeof err) == 0, "%s", err);
    send_hello(&player, PLAYER);
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&player, &tp, &m, 10000), 1);
    ck_assert_msg(cli_msg_is(&m, "welcome"), "the right token was not welcomed");
    int bad_then = bad;
    read_answers(&guesser, &tg, 20, &bad, &welcomed);  /* what had already come */
    ck_assert_msg(bad < BURST, "all %d wrong answers came before the right token's welcome (%d "
                  "in the first second)", BURST, bad_then);
    /* Every wrong token is answered in the end: none is lost. */
    double until = now_s() + 30.0;
    while (bad < BURST && now_s() < until)
        read_answers(&guesser, &tg, (int)((until - now_s()) * 1000.0), &bad, &welcomed);
    ck_assert_int_eq(bad, BURST);
    ck_assert_int_eq(welcomed, 0);
    /* The guesser's connection is still open and may still say hello without a token. */
    send_hello(&guesser, NULL);
    ck_assert_int_eq(recv_until_not_frame(&guesser, &tg, &m, 10000), 1);
    ck_assert(cli_msg_is(&m, "welcome"));
    cli_close(&guesser);
    cli_close(&player);
    ck_assert_int_eq(server_stop(&sv), 0);
}
END_TEST

Suite *suite_guess(void)
{
    Suite *s = suite_create("guess");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, keys_are_addresses_and_v6_prefixes);
    tcase_add_test(tc, backoffs_grow_and_answers_come_one_at_a_time);
    tcase_add_test(tc, what_clears_the_count);
    tcase_add_test(tc, the_table_is_bounded);
    suite_add_tcase(s, tc);
    TCase *e2e = tcase_create("e2e");
    tcase_set_timeout(e2e, 120);
    tcase_add_test(e2e, wrong_tokens_are_answered_late_right_ones_at_once);
    suite_add_tcase(s, e2e);
    return s;
}
