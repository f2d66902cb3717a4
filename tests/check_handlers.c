/* check_handlers.c — the handler table of server/proto.c: every message type of docs/PROTOCOL.md
 * has a row, each row names the least role it needs, and the one role check in
 * srv_handle_message answers exactly as the protocol says (hello_first, forbidden with the row's
 * sentence, unknown_type), checked against a real vivd. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "e2e.h"
#include "network.h"

static const struct { const char *type; int least; } PROTOCOL[] = {
    { "hello", SRV_ROLE_NONE },    { "sub", SRV_ROLE_VIEWER },    { "unsub", SRV_ROLE_VIEWER },
    { "input", SRV_ROLE_PLAYER },  { "ping", SRV_ROLE_VIEWER },   { "create", SRV_ROLE_ADMIN },
    { "close", SRV_ROLE_ADMIN },   { "stats", SRV_ROLE_VIEWER },  { "play", SRV_ROLE_PLAYER },
    { "sessions", SRV_ROLE_VIEWER }, { "replay", SRV_ROLE_VIEWER }, { "fork", SRV_ROLE_PLAYER },
    { "timeline", SRV_ROLE_VIEWER }, { "open", SRV_ROLE_VIEWER },
};
#define NPROTO ((int)(sizeof PROTOCOL / sizeof PROTOCOL[0]))

START_TEST(every_type_has_one_row_with_its_role)
{
    ck_assert_int_eq(srv_nhandlers, NPROTO);
    for (int i = 0; i < NPROTO; i++) {
        const char *t = PROTOCOL[i].type;
        const srv_handler *h = srv_handler_find((const uint8_t *)t, strlen(t));
        ck_assert_msg(h != NULL, "no handler for %s", t);
        ck_assert_str_eq(h->type, t);
        ck_assert(h->fn != NULL);
        ck_assert_msg(h->least_role == PROTOCOL[i].least, "%s needs role %d, the table says %d", t,
                      PROTOCOL[i].least, h->least_role);
        /* A row above viewer says why it refuses; one at viewer or below never refuses. */
        if (h->least_role > SRV_ROLE_VIEWER) ck_assert_msg(h->forbidden && strlen(h->forbidden) > 10, "%s", t);
        for (int j = 0; j < srv_nhandlers; j++)       /* no duplicate rows */
            if (&srv_handlers[j] != h) ck_assert_str_ne(srv_handlers[j].type, t);
    }
    ck_assert_ptr_null(srv_handler_find((const uint8_t *)"dance", 5));
    ck_assert_ptr_null(srv_handler_find((const uint8_t *)"hell", 4));        /* exact bytes only */
    ck_assert_ptr_null(srv_handler_find((const uint8_t *)"helloo", 6));
    ck_assert_ptr_null(srv_handler_find((const uint8_t *)"", 0));
}
END_TEST

/* Send {t, seq: 77, world: 1} and read the error: its code, sentence and echoed seq (-1: none). */
static void ask(cli_conn *c, const char *t, char *code, char *msg, int64_t *seq)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 3);
    put_kv_str(&b, "t", t);
    wire_put_str(&b, "seq"); wire_put_uint(&b, 77);
    wire_put_str(&b, "world"); wire_put_uint(&b, 1);
    wire_msg_end(&b);
    send_msg(c, &b);
    wire_buf_free(&b);
    static tracker tr;
    memset(&tr, 0, sizeof tr);
    wire_msg m;
    ck_assert_msg(recv_until_not_frame(c, &tr, &m, 5000) == 1, "no reply to %s", t);
    code[0] = msg[0] = '\0';
    *seq = -1;
    const char *s;
    size_t n;
    if (!cli_msg_is(&m, "error")) return;
    ck_assert_int_eq(wire_get_str(&m, "code", &s, &n), 0);
    memcpy(code, s, n < 63 ? n : 63);
    code[n < 63 ? n : 63] = '\0';
    ck_assert_int_eq(wire_get_str(&m, "msg", &s, &n), 0);
    memcpy(msg, s, n < 199 ? n : 199);
    msg[n < 199 ? n : 199] = '\0';
    wire_get_i64(&m, "seq", seq);
}

START_TEST(role_checks_answer_as_the_protocol_says)
{
    server sv;
    const char *const extra[] = { "--world", "sand:seed=2:w=64,h=64,scene=bench", NULL };
    server_start(&sv, extra);
    char err[256], code[64], msg[200];
    int64_t seq;
    /* Before hello: every type but hello, and an unknown one, gets hello_first (seq echoed). */
    cli_conn c;
    ck_assert_msg(cli_connect(&c, sv.addr, err, sizeof err) == 0, "%s", err);
    const char *before[] = { "sub", "unsub", "input", "ping", "create", "close", "stats", "play", "sessions",
                             "replay", "dance" };
    for (size_t i = 0; i < sizeof before / sizeof before[0]; i++) {
        ask(&c, before[i], code, msg, &seq);
        ck_assert_msg(strcmp(code, "hello_first") == 0, "%s before hello: %s", before[i], code);
        ck_assert_str_eq(msg, "the first message must be hello");
        ck_assert_int_eq(seq, 77);
    }
    cli_close(&c);
    /* A viewer: input, create, close and play are forbidden, each with its own sentence; only
     * input's error echoes the seq (as it always has). */
    connect_hello(&c, &sv, "viewer", NULL, NULL);
    struct { const char *t, *msg; int64_t seq; } want[] = {
        { "input", "inputs need the player or admin token in hello", 77 },
        { "create", "create needs the admin token in hello", -1 },
        { "close", "close needs the admin token in hello", -1 },
        { "play", "play controls need the player or admin token in hello", -1 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ask(&c, want[i].t, code, msg, &seq);
        ck_assert_msg(strcmp(code, "forbidden") == 0, "viewer %s: %s", want[i].t, code);
        ck_assert_str_eq(msg, want[i].msg);
        ck_assert_int_eq(seq, want[i].seq);
    }
    ask(&c, "dance", code, msg, &seq);
    ck_assert_str_eq(code, "unknown_type");
    ck_assert_str_eq(msg, "unknown message type 'dance'");
    ck_assert_int_eq(seq, 77);
    ask(&c, "ping", code, msg, &seq);             /* a viewer may ping: a pong, no error */
    ck_assert_str_eq(code, "");
    cli_close(&c);
    /* A player passes the input row (and fails later, on its fields), but not create or close. */
    connect_hello(&c, &sv, "player", PLAYER, NULL);
    ask(&c, "input", code, msg, &seq);
    ck_assert_str_eq(code, "missing_field");
    ask(&c, "create", code, msg, &seq);
    ck_assert_str_eq(code, "forbidden");
    ask(&c, "play", code, msg, &seq);              /* past the role check: a live world */
    ck_assert_str_eq(code, "missing_field");
    cli_close(&c);
    /* An admin passes every row. */
    connect_hello(&c, &sv, "admin", ADMIN, NULL);
    ask(&c, "create", code, msg, &seq);
    ck_assert_str_eq(code, "missing_field");
    cli_close(&c);
    ck_assert_int_eq(server_stop(&sv), 0);
}
END_TEST

Suite *suite_handlers(void)
{
    Suite *s = suite_create("handlers");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, every_type_has_one_row_with_its_role);
    tcase_add_test(tc, role_checks_answer_as_the_protocol_says);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
