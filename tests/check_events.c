/* check_events.c — world events end to end (issue 27): a real vivd hosting a merge world sends a
 * subscriber who asked ("events": true) one events message per step that had any, and those are
 * exactly the events `viv sim --events` prints for the same world at the same ticks (events are
 * a pure function of the state, like frames); a subscriber who did not ask gets none. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "cli.h"
#include "e2e.h"

#define SEED 42
#define MAX_LINES 512

/* Is line one of the `event …` lines `viv sim` prints for merge (seed SEED) up to tick `ticks`? */
static int offline_has(const char *line, uint64_t ticks)
{
    const char *bin = getenv("VIV_BIN");
    char cmd[512], got[512];
    snprintf(cmd, sizeof cmd, "%s/viv sim --world merge --seed %d --ticks %" PRIu64 " --events",
             bin ? bin : "../bin", SEED, ticks);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int found = 0;
    while (fgets(got, sizeof got, p)) {
        got[strcspn(got, "\n")] = '\0';
        found |= strcmp(got, line) == 0;
    }
    ck_assert_int_eq(pclose(p), 0);
    return found;
}

START_TEST(events_reach_who_asked_as_viv_sim_prints_them)
{
    static e2e_fixture fx;
    char (*lines)[256] = calloc(MAX_LINES, sizeof *lines);   /* on the heap: see e2e.h */
    ck_assert_ptr_nonnull(lines);
    e2e_fixture_start(&fx, (const char *const[]){ "merge:seed=42", NULL }, E2E_NO_RECORD);
    e2e_peer *asked = e2e_hello(&fx, "asked", NULL, NULL);
    e2e_peer *plain = e2e_hello(&fx, "plain", NULL, NULL);
    wire_buf b;
    wire_buf_init(&b);
    cli_put_sub_events(&b, 1, 1, 1, NULL, NULL, 1);
    send_msg(&asked->c, &b);
    e2e_sub(plain, 1, 1, NULL, NULL);
    /* The autopilot drops fruit after 5 s without input: drops and merges follow. */
    int nlines = 0, messages = 0;
    uint64_t last_tick = 0;
    double t0 = now_s();
    wire_msg m;
    while (nlines < 6 && now_s() - t0 < 30) {
        if (recv_until_not_frame(&asked->c, &asked->t, &m, 200) != 1 || !cli_msg_is(&m, "events"))
            continue;
        uint64_t world;
        ck_assert_int_eq(wire_get_u64(&m, "world", &world), 0);
        ck_assert_uint_eq(world, 1);
        ck_assert_int_eq(wire_get_u64(&m, "tick", &last_tick), 0);
        messages++;
        int n = cli_event_text(&m, 0, lines[nlines], sizeof lines[0]);
        ck_assert_int_gt(n, 0);
        for (int i = 0; i < n && nlines < MAX_LINES; i++) cli_event_text(&m, i, lines[nlines++], sizeof lines[0]);
    }
    ck_assert_msg(nlines >= 6, "only %d events in 30 s of a merge world's autopilot", nlines);
    ck_assert_int_gt(asked->t.count[1], 0);            /* its frames came too */
    for (int i = 0; i < nlines; i++)
        ck_assert_msg(offline_has(lines[i], last_tick + 1), "vivd sent '%s', which viv sim --events "
                      "does not print for the same world", lines[i]);
    free(lines);
    /* The one who did not ask: frames, never an events message. */
    int plain_frames_before = plain->t.count[1];
    t0 = now_s();
    while (now_s() - t0 < 1.0)
        if (recv_until_not_frame(&plain->c, &plain->t, &m, 100) == 1)
            ck_assert_msg(!cli_msg_is(&m, "events"), "a subscriber who did not ask got events");
    ck_assert_int_gt(plain->t.count[1], plain_frames_before);
    wire_buf_free(&b);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

/* "events" must be a boolean: anything else is a bad_field, and the subscription is not made. */
START_TEST(events_field_must_be_a_boolean)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "merge:seed=42", NULL }, E2E_NO_RECORD);
    e2e_peer *p = e2e_hello(&fx, "p", NULL, NULL);
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 3);
    put_kv_str(&b, "t", "sub");
    wire_put_str(&b, "world"); wire_put_uint(&b, 1);
    put_kv_str(&b, "events", "yes");
    wire_msg_end(&b);
    expect_error_msg(&p->c, &p->t, &b, "bad_field");
    wire_buf_free(&b);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

Suite *suite_events(void)
{
    Suite *s = suite_create("events");
    TCase *tc = tcase_create("e2e");
    tcase_set_timeout(tc, 120);
    tcase_set_tags(tc, "slow");
    tcase_add_test(tc, events_reach_who_asked_as_viv_sim_prints_them);
    tcase_add_test(tc, events_field_must_be_a_boolean);
    suite_add_tcase(s, tc);
    return s;
}
