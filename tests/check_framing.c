/* check_framing.c — the 4-byte big-endian length prefix that frames every message over TCP
 * (wire_msg_begin / wire_msg_end in wire/wire.c) and wire_be32, which reads it back: exact bytes,
 * a second message after the first, a length that needs three bytes, and an empty body. */
#include "check_suites.h"
#include "check_wire.h"

START_TEST(framing)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 1);
    wire_put_str(&b, "t");
    wire_put_str(&b, "hi");
    ck_assert_int_eq(wire_msg_end(&b), 6);
    static const uint8_t one[] = { 0, 0, 0, 6, 0x81, 0xa1, 't', 0xa2, 'h', 'i' };
    assert_bytes(&b, one, sizeof one);

    /* a second message after the first, long enough to need three length bytes */
    size_t start = b.len;
    wire_msg_begin(&b);
    ck_assert_uint_eq(b.msg_start, start);
    char *blob = calloc(1, 70000);
    ck_assert_ptr_nonnull(blob);
    wire_put_bin(&b, blob, 70000);
    ck_assert_int_eq(wire_msg_end(&b), 70005);
    ck_assert_uint_eq(wire_be32(b.p + start), 70005);
    static const uint8_t len70005[] = { 0x00, 0x01, 0x11, 0x75, 0xc6 };
    ck_assert_mem_eq(b.p + start, len70005, sizeof len70005);
    ck_assert_uint_eq(b.len, start + 4 + 70005);
    ck_assert_uint_eq(wire_be32(b.p), 6);   /* the first prefix is untouched */

    /* an empty body */
    wire_buf_reset(&b);
    wire_msg_begin(&b);
    ck_assert_int_eq(wire_msg_end(&b), 0);
    static const uint8_t zero[] = { 0, 0, 0, 0 };
    assert_bytes(&b, zero, 4);

    static const uint8_t be[] = { 0xde, 0xad, 0xbe, 0xef };
    ck_assert_uint_eq(wire_be32(be), 0xdeadbeefu);
    free(blob);
    wire_buf_free(&b);
}
END_TEST

Suite *suite_framing(void)
{
    Suite *s = suite_create("framing");
    TCase *f = tcase_create("framing");
    tcase_add_test(f, framing);
    suite_add_tcase(s, f);
    return s;
}
