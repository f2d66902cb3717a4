/* check_rect.c — sub's "rect" (docs/PROTOCOL.md, sub; issue 30): a viewer watches part of a world.
 * Its frames cover the rect asked for, widened to the 64-pixel region grid and clipped to the
 * world, carry it as "rect", and are frames of their own (w, h and fh are the rect's), the same
 * pixels as the whole frame of the same tick; moving the rect sends a keyframe of the new one;
 * downsampling applies to the rect; bad rects are refused. End to end, on a real vivd. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_suites.h"
#include "e2e.h"

/* {"t":"sub","world":1,"rect":[x,y,w,h](,"div":div)} */
static void sub_rect(e2e_peer *p, int x, int y, int w, int h, int div)
{
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, div > 1 ? 4 : 3);
    put_kv_str(&b, "t", "sub");
    wire_put_str(&b, "world"); wire_put_uint(&b, 1);
    wire_put_str(&b, "rect");
    wire_put_array(&b, 4);
    wire_put_int(&b, x); wire_put_int(&b, y); wire_put_int(&b, w); wire_put_int(&b, h);
    if (div > 1) { wire_put_str(&b, "div"); wire_put_uint(&b, (uint64_t)div); }
    wire_msg_end(&b);
    send_msg(&p->c, &b);
    wire_buf_free(&b);
}

/* Receive on p until its frame of world 1 is of tick >= t; a copy of it (when it is of tick t
 * exactly) in out, and 1; 0 when tick t was passed by. Every frame's hash is checked on the way
 * (track_frame), so a rect frame's fh is the hash of the rect's pixels. */
static int frame_at(e2e_peer *p, uint64_t t, sim_frame *out)
{
    wire_msg m;
    char err[256];
    double t0 = now_s();
    while (p->t.count[1] == 0 || p->t.f[1].tick < t) {      /* one message at a time */
        ck_assert_msg(now_s() - t0 < 30, "no frame of tick %llu within 30 s", (unsigned long long)t);
        int rc = cli_recv_msg(&p->c, 200, &m, err, sizeof err);
        ck_assert_msg(rc >= 0, "receive: %s", err);
        if (rc == 0) continue;
        ck_assert_msg(cli_msg_is(&m, "frame"), "a message other than a frame");
        track_frame(&p->t, &m);
    }
    if (p->t.f[1].tick != t) return 0;
    const sim_frame *f = &p->t.f[1].f;
    ck_assert_int_eq(sim_frame_init(out, f->w, f->h), 0);
    memcpy(out->px, f->px, (size_t)f->w * f->h);
    out->pal = f->pal;
    return 1;
}

/* Both peers' frames of one tick: the whole one and the rect one. */
static uint64_t same_tick(e2e_peer *whole, e2e_peer *part, sim_frame *fw, sim_frame *fp)
{
    sim_frame none;
    if (frame_at(whole, 0, &none)) sim_frame_free(&none);      /* a first frame each: where they are */
    if (frame_at(part, 0, &none)) sim_frame_free(&none);
    uint64_t a0 = whole->t.f[1].tick, b0 = part->t.f[1].tick;
    uint64_t t = (a0 > b0 ? a0 : b0) + 30;
    for (int tries = 0; tries < 20; tries++, t += 7) {
        int a = frame_at(whole, t, fw), b = frame_at(part, t, fp);
        if (a && b) return t;
        if (a) sim_frame_free(fw);
        if (b) sim_frame_free(fp);
    }
    ck_abort_msg("the two viewers never had a frame of the same tick");
    return 0;
}

/* fp is the w × h part of fw at (x, y), sampled every div pixels at the centre of each block. */
static void assert_crop(const sim_frame *fw, const sim_frame *fp, int x, int y, int w, int h, int div)
{
    ck_assert_int_eq(fp->w, (w + div - 1) / div);
    ck_assert_int_eq(fp->h, (h + div - 1) / div);
    for (int j = 0; j < fp->h; j++)
        for (int i = 0; i < fp->w; i++) {
            int sx = i * div + div / 2 < w ? i * div + div / 2 : w - 1;
            int sy = j * div + div / 2 < h ? j * div + div / 2 : h - 1;
            ck_assert_msg(fp->px[j * fp->w + i] == fw->px[(y + sy) * fw->w + x + sx],
                          "pixel (%d,%d) of the rect is not the world's (%d,%d)", i, j, x + sx, y + sy);
        }
    ck_assert_int_eq(fp->pal.count, fw->pal.count);
}

static void assert_rect(const e2e_peer *p, int x, int y, int w, int h)
{
    const int32_t *r = p->t.f[1].rect;
    ck_assert_msg(r[0] == x && r[1] == y && r[2] == w && r[3] == h, "rect [%d,%d,%d,%d], expected "
                  "[%d,%d,%d,%d]", r[0], r[1], r[2], r[3], x, y, w, h);
}

START_TEST(a_rect_is_the_worlds_pixels_on_the_region_grid)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=4:w=300,h=200", NULL }, E2E_NO_RECORD);
    e2e_peer *whole = e2e_hello(&fx, "whole", NULL, NULL);
    e2e_peer *part = e2e_hello(&fx, "part", NULL, NULL);
    e2e_sub(whole, 1, 1, NULL, NULL);
    /* Asked 100×50 at (70, 10): widened to the grid, 128×64 at (64, 0). */
    sub_rect(part, 70, 10, 100, 50, 1);
    sim_frame fw, fp;
    same_tick(whole, part, &fw, &fp);
    assert_rect(part, 64, 0, 128, 64);
    ck_assert_int_eq(whole->t.f[1].rect[2], 0);           /* a whole frame carries no rect */
    assert_crop(&fw, &fp, 64, 0, 128, 64, 1);
    sim_frame_free(&fw);
    sim_frame_free(&fp);
    /* Moved to the world's bottom-right corner and past it: clipped (300×200 ends mid-region). */
    int keys = part->t.keys[1];
    sub_rect(part, 250, 150, 400, 400, 1);
    same_tick(whole, part, &fw, &fp);
    ck_assert_int_gt(part->t.keys[1], keys);              /* a keyframe of the new rect */
    assert_rect(part, 192, 128, 108, 72);
    assert_crop(&fw, &fp, 192, 128, 108, 72, 1);
    sim_frame_free(&fw);
    sim_frame_free(&fp);
    /* A rect downsampled: div applies to the rect. */
    sub_rect(part, 0, 0, 128, 128, 2);
    same_tick(whole, part, &fw, &fp);
    assert_rect(part, 0, 0, 128, 128);
    assert_crop(&fw, &fp, 0, 0, 128, 128, 2);
    sim_frame_free(&fw);
    sim_frame_free(&fp);
    ck_assert_int_eq(part->t.gaps, 0);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

START_TEST(bad_rects_are_refused)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=4:w=64,h=48", NULL }, E2E_NO_RECORD);
    e2e_peer *p = e2e_hello(&fx, "p", NULL, NULL);
    static const int bad[][4] = { { 0, 0, 0, 10 }, { 0, 0, 10, -1 }, { 70000, 0, 10, 10 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wire_buf b;
        wire_buf_init(&b);
        wire_msg_begin(&b);
        wire_put_map(&b, 3);
        put_kv_str(&b, "t", "sub");
        wire_put_str(&b, "world"); wire_put_uint(&b, 1);
        wire_put_str(&b, "rect");
        wire_put_array(&b, 4);
        for (int k = 0; k < 4; k++) wire_put_int(&b, bad[i][k]);
        wire_msg_end(&b);
        expect_error_msg(&p->c, &p->t, &b, "bad_field");
        wire_buf_free(&b);
    }
    /* Three numbers, and a string: not a rect. */
    wire_buf b;
    wire_buf_init(&b);
    wire_msg_begin(&b);
    wire_put_map(&b, 3);
    put_kv_str(&b, "t", "sub");
    wire_put_str(&b, "world"); wire_put_uint(&b, 1);
    wire_put_str(&b, "rect");
    wire_put_array(&b, 3);
    for (int k = 0; k < 3; k++) wire_put_int(&b, 8);
    wire_msg_end(&b);
    expect_error_msg(&p->c, &p->t, &b, "bad_field");
    wire_msg_begin(&b);
    wire_put_map(&b, 3);
    put_kv_str(&b, "t", "sub");
    wire_put_str(&b, "world"); wire_put_uint(&b, 1);
    put_kv_str(&b, "rect", "0,0,8,8");
    wire_msg_end(&b);
    expect_error_msg(&p->c, &p->t, &b, "bad_field");
    wire_buf_free(&b);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST


/* A big world watched whole in raw (2048x1024: 2 MB a frame) cannot reach a client, whose limit
 * is 1 MiB + 64 KiB a message: the subscription is dropped with frame_too_large (not counted),
 * the connection stays, and a rect of the same world is served. */
START_TEST(a_frame_no_client_could_read_drops_the_subscription_not_the_client)
{
    static e2e_fixture fx;
    e2e_fixture_start(&fx, (const char *const[]){ "sand:seed=2:w=2048,h=1024", NULL }, E2E_NO_RECORD);
    e2e_peer *p = e2e_hello(&fx, "whole", NULL, NULL);
    sub(&p->c, 1, 1, "raw", NULL);
    wire_msg m;
    ck_assert_int_eq(recv_until_not_frame(&p->c, &p->t, &m, 20000), 1);
    const char *code;
    size_t n;
    ck_assert(cli_msg_is(&m, "error"));
    ck_assert_int_eq(wire_get_str(&m, "code", &code, &n), 0);
    ck_assert_msg(n == 15 && memcmp(code, "frame_too_large", 15) == 0, "%.*s", (int)n, code);
    ck_assert_int_eq(p->t.count[1], 0);                  /* no frame came */
    sub_rect(p, 1000, 500, 320, 180, 1);
    sim_frame f;
    if (frame_at(p, 0, &f)) sim_frame_free(&f);          /* the rect's first frame */
    ck_assert_int_gt(p->t.count[1], 0);
    assert_rect(p, 960, 448, 384, 256);
    ck_assert_int_eq(e2e_fixture_stop(&fx), 0);
}
END_TEST

Suite *suite_rect(void)
{
    Suite *s = suite_create("rect");
    TCase *tc = tcase_create("e2e");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_rect_is_the_worlds_pixels_on_the_region_grid);
    tcase_add_test(tc, bad_rects_are_refused);
    tcase_add_test(tc, a_frame_no_client_could_read_drops_the_subscription_not_the_client);
    suite_add_tcase(s, tc);
    return s;
}
