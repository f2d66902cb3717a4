/* check_acks.c — the ack queue of one world (server/acks.c): order, a client that leaves, and
 * settling on commit and on failure. */
#include <check.h>
#include <string.h>
#include "acks.h"
#include "check_suites.h"
#include "host.h"

typedef struct seen {
    int n;
    uint32_t client[64], seq[64];
    uint64_t tick[64];
    int ok[64];
} seen;

static void record(void *ud, const srv_ack *a, int ok)
{
    seen *s = ud;
    ck_assert_int_lt(s->n, 64);
    s->client[s->n] = a->client;
    s->seq[s->n] = a->seq;
    s->tick[s->n] = a->in.tick;
    s->ok[s->n] = ok;
    s->n++;
}

static sim_input input(uint64_t tick, uint32_t client, uint32_t seq)
{
    sim_input in;
    memset(&in, 0, sizeof in);
    in.tick = tick;
    in.client = client;
    in.seq = seq;
    in.kind = 1;
    in.nargs = 1;
    in.args[0] = (int32_t)(client * 100 + seq);
    return in;
}

static void push(srv_acks *q, uint64_t tick, uint32_t client, uint32_t seq)
{
    sim_input in = input(tick, client, seq);
    ck_assert_int_eq(srv_acks_reserve(q), 0);
    srv_acks_push(q, client, &in);
}

/* The inputs of a tick come out in queue order, and are acknowledged in that order, once. */
START_TEST(step_and_settle_keep_order)
{
    srv_acks q;
    memset(&q, 0, sizeof q);
    push(&q, 5, 2, 10);
    push(&q, 5, 1, 11);
    push(&q, 5, 2, 12);
    sim_input out[SIM_TICK_INPUTS_MAX];
    size_t n;
    ck_assert_int_eq(srv_acks_step(&q, out, SIM_TICK_INPUTS_MAX, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(out[0].seq, 10);
    ck_assert_uint_eq(out[1].seq, 11);
    ck_assert_uint_eq(out[2].seq, 12);
    ck_assert_int_eq(out[1].args[0], 111);
    /* The next tick's input waits; it is not part of tick 5. */
    push(&q, 6, 3, 1);
    ck_assert_uint_eq(srv_acks_pending(&q), 4);
    seen s = { 0 };
    srv_acks_settle(&q, 6, 1, record, &s);       /* tick 5 committed */
    ck_assert_int_eq(s.n, 3);
    ck_assert_uint_eq(s.seq[0], 10);
    ck_assert_uint_eq(s.client[1], 1);
    ck_assert_uint_eq(s.seq[2], 12);
    ck_assert_int_eq(s.ok[0], 1);
    ck_assert_uint_eq(srv_acks_pending(&q), 1);
    /* Not stepped yet: a later commit does not settle it. */
    srv_acks_settle(&q, 100, 1, record, &s);
    ck_assert_int_eq(s.n, 3);
    ck_assert_int_eq(srv_acks_step(&q, out, SIM_TICK_INPUTS_MAX, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(out[0].client, 3);
    srv_acks_settle(&q, 7, 1, record, &s);
    ck_assert_int_eq(s.n, 4);
    ck_assert_uint_eq(s.tick[3], 6);
    ck_assert_uint_eq(srv_acks_pending(&q), 0);
    srv_acks_free(&q);
}
END_TEST

/* A commit only settles ticks before its bound; a failure refuses (ok = 0) the same way. */
START_TEST(settle_on_failure_and_partial_commit)
{
    srv_acks q;
    memset(&q, 0, sizeof q);
    sim_input out[8];
    size_t n;
    push(&q, 1, 1, 1);
    srv_acks_step(&q, out, 8, &n);
    push(&q, 2, 1, 2);
    srv_acks_step(&q, out, 8, &n);
    push(&q, 3, 1, 3);
    srv_acks_step(&q, out, 8, &n);
    seen s = { 0 };
    srv_acks_settle(&q, 2, 1, record, &s);        /* tick 1 committed */
    ck_assert_int_eq(s.n, 1);
    srv_acks_settle(&q, 3, 0, record, &s);        /* tick 2 failed */
    ck_assert_int_eq(s.n, 2);
    ck_assert_uint_eq(s.seq[1], 2);
    ck_assert_int_eq(s.ok[1], 0);
    ck_assert_uint_eq(srv_acks_pending(&q), 1);
    srv_acks_settle(&q, 4, 1, record, &s);
    ck_assert_int_eq(s.n, 3);
    ck_assert_int_eq(s.ok[2], 1);
    srv_acks_free(&q);
}
END_TEST

/* Entries hold ids: a client that left needs no clean-up in the queue; its inputs stay, are
 * logged with the others, and settling reports its id, which the network side then finds gone. */
START_TEST(client_leaving_keeps_its_inputs)
{
    srv_acks q;
    memset(&q, 0, sizeof q);
    push(&q, 9, 4, 1);
    push(&q, 9, 5, 1);          /* client 5 disconnects now: nothing to do here */
    push(&q, 9, 4, 2);
    sim_input out[8];
    size_t n;
    ck_assert_int_eq(srv_acks_step(&q, out, 8, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(out[1].client, 5);
    seen s = { 0 };
    srv_acks_settle(&q, 10, 1, record, &s);
    ck_assert_int_eq(s.n, 3);
    ck_assert_uint_eq(s.client[1], 5);
    srv_acks_free(&q);
}
END_TEST

/* A tick with more inputs than the buffer: none copied (never truncated), all marked. */
START_TEST(too_many_inputs_is_an_error_not_a_truncation)
{
    srv_acks q;
    memset(&q, 0, sizeof q);
    for (uint32_t i = 0; i < 5; i++) push(&q, 1, 1, i);
    sim_input out[4];
    size_t n = 99;
    ck_assert_int_eq(srv_acks_step(&q, out, 4, &n), SRV_ETOOMANY);
    ck_assert_uint_eq(n, 0);
    seen s = { 0 };
    srv_acks_settle(&q, 2, 0, record, &s);
    ck_assert_int_eq(s.n, 5);
    for (int i = 0; i < 5; i++) ck_assert_int_eq(s.ok[i], 0);
    ck_assert_str_ne(sim_strerror(SRV_ETOOMANY), sim_strerror(SRV_ENOMEM));
    srv_acks_free(&q);
}
END_TEST

/* Growth and compaction keep the FIFO intact across many ticks; drain refuses everything left. */
START_TEST(growth_compaction_and_drain)
{
    srv_acks q;
    memset(&q, 0, sizeof q);
    sim_input out[SIM_TICK_INPUTS_MAX];
    size_t n;
    uint32_t next_settled = 0, seq = 0;
    seen s;
    for (uint64_t t = 0; t < 50; t++) {
        for (int i = 0; i < 7; i++) push(&q, t, 1, seq++);
        ck_assert_int_eq(srv_acks_step(&q, out, SIM_TICK_INPUTS_MAX, &n), 0);
        ck_assert_uint_eq(n, 7);
        ck_assert_uint_eq(out[0].seq, seq - 7);
        if (t % 3 == 2) {                         /* commits lag behind the ticks */
            memset(&s, 0, sizeof s);
            srv_acks_settle(&q, t, 1, record, &s);
            for (int i = 0; i < s.n; i++) ck_assert_uint_eq(s.seq[i], next_settled++);
        }
    }
    push(&q, 50, 2, 7777);                        /* queued, not stepped */
    memset(&s, 0, sizeof s);
    srv_acks_drain(&q, record, &s);
    ck_assert_int_eq(s.n, (int)(seq - next_settled) + 1);
    ck_assert_uint_eq(s.seq[0], next_settled);
    ck_assert_uint_eq(s.seq[s.n - 1], 7777);
    for (int i = 0; i < s.n; i++) ck_assert_int_eq(s.ok[i], 0);
    ck_assert_uint_eq(srv_acks_pending(&q), 0);
    srv_acks_free(&q);
}
END_TEST

Suite *suite_acks(void)
{
    Suite *s = suite_create("acks");
    TCase *tc = tcase_create("queue");
    tcase_add_test(tc, step_and_settle_keep_order);
    tcase_add_test(tc, settle_on_failure_and_partial_commit);
    tcase_add_test(tc, client_leaving_keeps_its_inputs);
    tcase_add_test(tc, too_many_inputs_is_an_error_not_a_truncation);
    tcase_add_test(tc, growth_compaction_and_drain);
    suite_add_tcase(s, tc);
    return s;
}
