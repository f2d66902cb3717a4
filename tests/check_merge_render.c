/* check_merge_render.c — sim/merge/render.c (issue 27, seed 003): the carrier as it is drawn.
 * Every test reads the rendered frame. During a one-second walk (scripted: `move 1`) the face
 * changes from frame to frame (the 2° shudder shows), the hat changes too and is not the picture
 * the hat would make if it followed the head's angle (the 0.9 lag shows); at the top of the toss
 * the fruit is drawn over the torso; each hand is its pose's drawing, joined to the torso by a
 * sleeve. Crops are taken around the neck pixel (the carrier walks, the crop walks with it) and
 * keep only the carrier's pixels: a pixel that is the backdrop's own is blanked, so the stars
 * sliding past do not count as a change. */
#include <check.h>
#include <string.h>
#include "check_suites.h"
#include "script.h"
#include "merge/merge_int.h"

#define BG 0xEE                      /* a filler no draw function writes (≤ 64 colours) */
#define SKY 0xFF                     /* a crop pixel that shows the backdrop */
#define WALK 60                      /* frames: one second of walking */
#define CROP_DX 14                   /* crops are 29 px wide, centred on the neck pixel */
#define CROP_W (2 * CROP_DX + 1)

static sim_world *mk(void) { return script_world("merge", 7, "scene=empty,autopilot=0"); }
static merge_world *impl(sim_world *w) { return sim__world_impl(w); }

static void move(sim_world *w, int dir)
{
    static uint32_t seq;
    sim_input in = { 0 };
    in.tick = sim_world_tick(w);
    in.client = 1;
    in.seq = ++seq;
    in.kind = (uint16_t)sim_kind_input_find(sim_world_kind(w), "move");
    in.nargs = 1;
    in.args[0] = dir;
    ck_assert_int_eq(sim_world_input(w, &in), 0);
}

static int neck_x(const merge_world *m) { return (int)sim_floor(m->car.x); }

/* Rows y0..y1 (from the neck row, negative is up) of the frame, CROP_W wide around the neck
 * pixel, with every pixel that equals the backdrop's there blanked to SKY. */
static void crop(const merge_world *m, const sim_frame *f, int y0, int y1, uint8_t *out)
{
    int nx = neck_x(m), k = 0;
    for (int y = MERGE_NECK_Y + y0; y <= MERGE_NECK_Y + y1; y++)
        for (int x = nx - CROP_DX; x <= nx + CROP_DX; x++) {
            uint8_t v = f->px[y * f->w + x];
            out[k++] = v == m->backdrop[y * MERGE_W + x] ? SKY : v;
        }
}

/* The face: rows 9..1 above the neck, under the hat's brim at every lean. The hat: rows 26..11
 * above the neck (its crown to its brim, and the hair under it). */
enum { FACE_Y0 = -9, FACE_Y1 = -1, HAT_Y0 = -26, HAT_Y1 = -11 };
#define FACE_N ((FACE_Y1 - FACE_Y0 + 1) * CROP_W)
#define HAT_N ((HAT_Y1 - HAT_Y0 + 1) * CROP_W)

/* A one-second walk to the right (after 5 frames to get going), rendered every frame: how many
 * frames' face crop differs from the frame before, how many frames' hat crop does, and how many
 * frames' hat crop differs from the crop of the same frame drawn with the hat at the head's own
 * angle (car.hat_angle = car.head_angle, the hat that would be painted on). */
static void walk(int *face_changed, int *hat_changed, int *hat_lags)
{
    sim_world *w = mk();
    merge_world *m = impl(w);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    uint8_t face[2][FACE_N], hat[2][HAT_N], follow[HAT_N];
    move(w, 1);
    for (int t = 0; t < 5; t++) sim_world_step(w);
    sim_world_render(w, 0, &f);
    crop(m, &f, FACE_Y0, FACE_Y1, face[0]);
    crop(m, &f, HAT_Y0, HAT_Y1, hat[0]);
    *face_changed = *hat_changed = *hat_lags = 0;
    for (int t = 1; t <= WALK; t++) {
        sim_world_step(w);
        ck_assert_int_eq(m->car.move_dir, 1);
        sim_world_render(w, 0, &f);
        uint8_t *fc = face[t & 1], *hc = hat[t & 1];
        crop(m, &f, FACE_Y0, FACE_Y1, fc);
        crop(m, &f, HAT_Y0, HAT_Y1, hc);
        *face_changed += memcmp(fc, face[!(t & 1)], FACE_N) != 0;
        *hat_changed += memcmp(hc, hat[!(t & 1)], HAT_N) != 0;
        double hat_angle = m->car.hat_angle;
        m->car.hat_angle = m->car.head_angle;
        sim_world_render(w, 0, &f);
        m->car.hat_angle = hat_angle;
        crop(m, &f, HAT_Y0, HAT_Y1, follow);
        *hat_lags += memcmp(hc, follow, HAT_N) != 0;
    }
    sim_frame_free(&f);
    sim_world_destroy(w);
}

/* Seed 003's speed wiggle, 2° at 32 rad/s on the −12° lean, is a 5 Hz shudder: over a
 * one-second walk the face's crop changes from one frame to the next in at least half the
 * frames (measured: 41 of 60), and so does the hat's (49 of 60). With the old 64-angle bakes the
 * head showed one image for the whole walk. */
START_TEST(walk_shudders_the_head)
{
    int face, hat, lag;
    walk(&face, &hat, &lag);
    ck_assert_msg(2 * face >= WALK, "the face changed in %d of %d walking frames", face, WALK);
    ck_assert_msg(2 * hat >= WALK, "the hat changed in %d of %d walking frames", hat, WALK);
}
END_TEST

/* The hat turns 0.9 as far as the head (seed 003: "always slightly behind"): in at least nine
 * tenths of the walking frames the hat drawn is not the hat that would follow the head's angle
 * (measured: 60 of 60; the lean's 1.2° of lag is an image of the hat's lean set). */
START_TEST(hat_lags_the_head)
{
    int face, hat, lag;
    walk(&face, &hat, &lag);
    ck_assert_msg(10 * lag >= 9 * WALK, "the hat differs from a hat at the head's angle in only "
                  "%d of %d walking frames", lag, WALK);
}
END_TEST

/* The tossed fruit is thrown in front of the body: through the toss, every pixel of the fruit's
 * own picture (its baked image and eyes, drawn alone) that falls on the torso's box is in the
 * frame as the fruit drew it, and at the top of the toss there are many such pixels. */
START_TEST(toss_passes_in_front_of_the_torso)
{
    sim_world *w = mk();
    merge_world *m = impl(w);
    m->next.tier = 2;                                /* a grape: r 8, it crosses the torso */
    sim_frame f, alone;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    ck_assert_int_eq(sim_world_frame_init(w, &alone), 0);
    sim_input in = { 0 };
    in.tick = sim_world_tick(w);
    in.client = 1;
    in.seq = 1;
    in.kind = (uint16_t)sim_kind_input_find(sim_world_kind(w), "drop");
    in.nargs = 1;
    in.args[0] = -1;
    ck_assert_int_eq(sim_world_input(w, &in), 0);
    int frames = 0, most = 0;
    for (int t = 0; t < 40; t++) {
        sim_world_step(w);
        if (m->car.juggle == MERGE_JUGGLE_IDLE)
            continue;
        ck_assert_int_eq(m->held.tier, 2);
        sim_world_render(w, 0, &f);
        double x, y;
        sim__merge_held_pos(m, &x, &y);
        memset(alone.px, BG, (size_t)alone.w * alone.h);
        sim_rot_blit(&alone, &m->art.fruit_rot_fine[2], sim__merge_lean_index(m->car.fruit_angle),
                     (int)sim_floor(x), (int)sim_floor(y), 0);
        sim__merge_draw_eyes(&alone, &m->art, 2, (int)sim_floor(x), (int)sim_floor(y),
                             m->held.life.look_flip ? -1 : 1, m->held.life.blinking);
        int nx = neck_x(m), over = 0;
        /* the torso's box: its 17 × 10 picture from the neck pixel, a pixel lower when it
         * breathes out */
        for (int py = MERGE_NECK_Y; py < MERGE_NECK_Y + MERGE_BODY_H + 1; py++)
            for (int px = nx - MERGE_BODY_NECK_X; px < nx - MERGE_BODY_NECK_X + MERGE_BODY_W; px++) {
                uint8_t v = alone.px[py * alone.w + px];
                if (v == BG)
                    continue;
                over++;
                ck_assert_msg(f.px[py * f.w + px] == v, "tick %d: the tossed fruit's pixel (%d,%d) "
                              "is covered", (int)m->tick, px, py);
            }
        frames += over > 0;
        if (over > most)
            most = over;
    }
    ck_assert_int_ge(frames, 5);                     /* measured: 25 of the 30 */
    ck_assert_int_ge(most, 60);                      /* measured: 149 of the torso's 187 */
    sim_frame_free(&f);
    sim_frame_free(&alone);
    sim_world_destroy(w);
}
END_TEST

/* The hands are hands on arms: in each pose (idle, throwing, catching) each hand's whole drawing
 * is in the frame where its slot shows it, and every column between the torso's side and the
 * hand's box holds sleeve pixels: an arm spans the gap. */
static void hands_and_arms_drawn(const merge_world *m, const sim_frame *f, const char *when)
{
    int pose[2];
    sim__merge_hand_poses(&m->car, &pose[0], &pose[1]);
    int nx = neck_x(m);
    for (int side = 0; side < 2; side++) {
        const sim_anim_slot *s = &m->anim.slot[m->anim_slot[1 + side]];
        ck_assert(s->shown);
        sim_frame hand;
        ck_assert_int_eq(sim_frame_init(&hand, MERGE_W, MERGE_H), 0);
        memset(hand.px, BG, (size_t)MERGE_W * MERGE_H);
        int closed = pose[side] == MERGE_HAND_CLOSED || pose[side] == MERGE_HAND_CLOSED_FLIPV;
        int flipv = pose[side] == MERGE_HAND_CLOSED_FLIPV || pose[side] == MERGE_HAND_OPEN_FLIPV;
        sim__merge_draw_hand(&hand, &m->art, s->shown_x, s->shown_y, side, closed, flipv);
        int n = 0;
        for (int i = 0; i < MERGE_W * MERGE_H; i++) {
            if (hand.px[i] == BG)
                continue;
            n++;
            ck_assert_msg(f->px[i] == hand.px[i], "%s: the %s hand's pixel %d is not drawn", when,
                          side ? "right" : "left", i);
        }
        ck_assert_int_ge(n, 30);
        sim_frame_free(&hand);
        int out = side ? 1 : -1;
        int x0 = nx + out * (MERGE_BODY_W / 2 + 1), x1 = s->shown_x - out * (MERGE_HAND_W / 2 + 1);
        ck_assert_int_ge(out * (x1 - x0), 1);        /* a gap of two columns or more */
        for (int x = x0; x != x1 + out; x += out) {
            int sleeve = 0;
            for (int y = MERGE_NECK_Y; y <= MERGE_HAND_Y + MERGE_HAND_H; y++)
                sleeve += f->px[y * f->w + x] == MERGE_C_HAT_BAND;
            ck_assert_msg(sleeve > 0, "%s: no arm in column %d between the torso and the %s hand",
                          when, x, side ? "right" : "left");
        }
    }
}

START_TEST(hands_on_arms_in_every_pose)
{
    sim_world *w = mk();
    merge_world *m = impl(w);
    sim_frame f;
    ck_assert_int_eq(sim_world_frame_init(w, &f), 0);
    for (int t = 0; t < 3; t++) sim_world_step(w);
    sim_world_render(w, 0, &f);
    hands_and_arms_drawn(m, &f, "idle");
    sim_input in = { 0 };
    in.tick = sim_world_tick(w);
    in.client = 1;
    in.seq = 1;
    in.kind = (uint16_t)sim_kind_input_find(sim_world_kind(w), "drop");
    in.nargs = 1;
    in.args[0] = -1;
    ck_assert_int_eq(sim_world_input(w, &in), 0);
    int seen[3] = { 0, 0, 0 };
    for (int t = 0; t < 40; t++) {
        sim_world_step(w);
        if (seen[m->car.juggle]++)
            continue;
        sim_world_render(w, 0, &f);
        static const char *const phase[3] = { "landed", "throwing", "catching" };
        hands_and_arms_drawn(m, &f, phase[m->car.juggle]);
    }
    ck_assert(seen[0] && seen[1] && seen[2]);
    sim_frame_free(&f);
    sim_world_destroy(w);
}
END_TEST

Suite *suite_merge_render(void)
{
    Suite *s = suite_create("merge_render");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, walk_shudders_the_head);
    tcase_add_test(tc, hat_lags_the_head);
    tcase_add_test(tc, toss_passes_in_front_of_the_torso);
    tcase_add_test(tc, hands_on_arms_in_every_pose);
    suite_add_tcase(s, tc);
    return s;
}
