/* render.c — the merge world's frame: the backdrop and container, the fruit (each drawn from the
 * 16 pre-baked rotations of its tier, with its eyes upright on top), the carrier (torso and hands
 * from the cel-set engine, arms from the shoulders to the hands, head and hat from their lean
 * sets, the carried fruit dangling from the right hand, the next one in the left, or in the air
 * in front of the body), and the score panel.
 * Nothing rotates at draw time: every rotated picture is an image baked at create.
 *
 * The xray view draws what the solver sees: each fruit's circle and orientation, and the touching
 * pairs of the last step. */
#include "merge_int.h"

#define HOLD_GAP 1.0                 /* ours: a held fruit hangs this far below its hand */
#define MERGE_ARM_R 1.0              /* ours: the sleeve's radius (3 px across), and 1 px of ink */

static double rad(double deg) { return deg * (SIM_PI / 180.0); }

/* The nearest of n clockwise steps to `deg` degrees. */
static int step_of(double deg, int n)
{
    int k = (int)sim_floor(deg * (double)n / 360.0 + 0.5) % n;
    return k < 0 ? k + n : k;
}

/* Baked image k of s with its pivot pixel on the pixel holding (px, py). */
static void blit_rot(sim_frame *f, const sim_rot_set *s, int k, double px, double py)
{
    sim_rot_blit(f, s, k, (int)sim_floor(px), (int)sim_floor(py), 0);
}

/* The point at distance len below (x, y), turned clockwise by deg: a pendulum. */
static void hang(double x, double y, double len, double deg, double *ox, double *oy)
{
    double a = rad(deg);
    *ox = x - len * sim_sin(a);
    *oy = y + len * sim_cos(a);
}

void sim__merge_held_pos(const merge_world *w, double *x, double *y)
{
    double r = sim__merge_desc[w->held.tier].r;
    double hx = w->car.x + MERGE_HAND_DX, hy = MERGE_HAND_Y;
    double rx, ry;
    hang(hx, hy, r + HOLD_GAP, w->car.fruit_angle, &rx, &ry);
    if (w->car.juggle) {
        /* In the air: from the left hand's seat to where the right hand holds it now. */
        double lx = w->car.x - MERGE_HAND_DX, ly = hy + r + HOLD_GAP;
        sim__merge_juggle_pos(&w->car, &w->ccfg, lx, ly, rx, ry, x, y);
        return;
    }
    *x = rx;
    *y = ry;
}

void sim__merge_next_pos(const merge_world *w, double *x, double *y)
{
    *x = w->car.x - MERGE_HAND_DX;
    *y = MERGE_HAND_Y + sim__merge_desc[w->next.tier].r + HOLD_GAP;
}

/* A fruit with its eyes; angle in degrees for the carried ones, the solver's radians for the rest. */
static void draw_fruit(sim_frame *f, const merge_art *a, int tier, double x, double y, int k,
                       int fine, const merge_fruit_life *life)
{
    blit_rot(f, fine ? &a->fruit_rot_fine[tier] : &a->fruit_rot[tier], k, x, y);
    sim__merge_draw_eyes(f, a, tier, (int)sim_floor(x), (int)sim_floor(y),
                         life->look_flip ? -1 : 1, life->blinking ? 1 : 0);
}

static int utoa10(char *dst, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < n; i++) dst[i] = tmp[n - 1 - i];
    dst[n] = '\0';
    return n;
}

static void draw_panel(const merge_world *w, sim_frame *f)
{
    const merge_art *a = &w->art;
    char num[24];
    int cx = (MERGE_SCORE_X0 + MERGE_SCORE_X1) / 2;
    sim__merge_draw_text(f, a, cx - sim__merge_text_width("SCORE", 1) / 2, MERGE_SCORE_Y0 + 7,
                         "SCORE", MERGE_C_GOLD);
    utoa10(num, w->score);
    sim__merge_draw_text_scaled(f, a, cx - sim__merge_text_width(num, 2) / 2, MERGE_SCORE_Y0 + 16,
                                num, MERGE_C_WHITE, 2);
    sim__merge_draw_text(f, a, cx - sim__merge_text_width("BEST", 1) / 2, MERGE_SCORE_Y0 + 35,
                         "BEST", MERGE_C_GOLD);
    utoa10(num, w->best > w->score ? w->best : w->score);
    sim__merge_draw_text(f, a, cx - sim__merge_text_width(num, 1) / 2, MERGE_SCORE_Y0 + 44, num,
                         MERGE_C_WHITE);
    int nx = (MERGE_NEXT_X0 + MERGE_NEXT_X1) / 2;
    sim__merge_draw_text(f, a, nx - sim__merge_text_width("NEXT", 1) / 2, MERGE_NEXT_Y0 + 7,
                         "NEXT", MERGE_C_GOLD);
    const merge_fruit_life still = { 0 };
    draw_fruit(f, a, w->upcoming, MERGE_NEXT_CX, MERGE_NEXT_CY, 0, 0, &still);
    if (w->over) {
        const char *t = "GAME OVER";
        sim__merge_draw_text_scaled(f, a, (MERGE_X0 + MERGE_X1) / 2 - sim__merge_text_width(t, 2) / 2,
                                    96, t, MERGE_C_LINE_RED, 2);
    }
}

/* A hand slot's flips as blit flags. */
static unsigned hand_flags(const sim_anim_slot *h)
{
    return (h->shown_flags & SIM_CEL_XFLIP ? (unsigned)SIM_BLIT_FLIPX : 0u) |
           (h->shown_flags & SIM_CEL_YFLIP ? (unsigned)SIM_BLIT_FLIPY : 0u);
}

/* The arms: a sleeve from each shoulder to its hand's wrist, outlined, drawn before the torso and
 * the hands so that each covers an end. The hands are where and as the cel-set engine showed
 * them this tick (their slots' origin is the hand's centre pixel, their cel the drawing, their
 * flags the flips), the shoulders ride the torso's breath. */
static void draw_arms(const merge_world *w, sim_frame *f)
{
    const sim_anim_slot *body = &w->anim.slot[w->anim_slot[0]];
    if (!body->shown)
        return;
    for (int side = 0; side < 2; side++) {
        const sim_anim_slot *h = &w->anim.slot[w->anim_slot[1 + side]];
        if (!h->shown)
            continue;
        int dx, dy;
        sim__merge_hand_wrist(sim__merge_anim_cel_closed(h->shown_cel), hand_flags(h), &dx, &dy);
        int out = side ? 1 : -1;  /* toward the hand's side of the body */
        int sx = body->shown_x + out * MERGE_SHOULDER_DX, sy = body->shown_y + MERGE_SHOULDER_DY;
        int hx = h->shown_x + dx, hy = h->shown_y + dy;
        sim_raster_capsule(f, sx, sy, hx, hy, MERGE_ARM_R + 1.0, MERGE_ARM_R + 1.0,
                           MERGE_C_OUTLINE);
        sim_raster_capsule(f, sx, sy, hx, hy, MERGE_ARM_R, MERGE_ARM_R, MERGE_C_HAT_BAND);
    }
}

/* The hands again, exactly as the cel-set engine drew them this tick (slot, cel, flips), over
 * a fruit in the air: the hands throw and catch it, so they are in front of it. */
static void redraw_hands(const merge_world *w, sim_frame *f)
{
    for (int side = 0; side < 2; side++) {
        const sim_anim_slot *h = &w->anim.slot[w->anim_slot[1 + side]];
        if (h->shown)
            sim__merge_draw_hand(f, &w->art, h->shown_x, h->shown_y, side,
                                 sim__merge_anim_cel_closed(h->shown_cel),
                                 (hand_flags(h) & SIM_BLIT_FLIPY) != 0);
    }
}

/* The carrier, back to front: the fruit in the hands (each hangs under its hand, which is drawn
 * over its top), the arms, the torso and the hands (the cel-set engine), the head and the hat,
 * each from its own angle's image of its lean set (1° steps: the 2° shudder and the hat's 0.9 lag
 * both show), and a fruit in the air last but for the hands that throw and catch it: the toss
 * passes in front of the body. */
static void draw_carrier(const merge_world *w, sim_frame *f)
{
    const merge_art *a = &w->art;
    double nx, ny, hx, hy;
    sim__merge_next_pos(w, &nx, &ny);
    draw_fruit(f, a, w->next.tier, nx, ny, MERGE_LEAN_SPAN, 1, &w->next.life);
    sim__merge_held_pos(w, &hx, &hy);
    int fruit_i = sim__merge_lean_index(w->car.fruit_angle);
    int tossed = w->car.juggle != MERGE_JUGGLE_IDLE;
    if (!tossed)
        draw_fruit(f, a, w->held.tier, hx, hy, fruit_i, 1, &w->held.life);
    draw_arms(w, f);
    sim_anim_draw(&w->anim, f);
    double neck_x = sim_floor(w->car.x) + 0.5, neck_y = MERGE_NECK_Y + 0.5;
    int head_i = sim__merge_lean_index(w->car.head_angle);
    blit_rot(f, &a->head_rot, head_i, neck_x, neck_y);
    /* The hat sits on the top of the drawn head (and goes round with it) and turns 0.9 as far:
     * its own angle, its own image. */
    double tx, ty;
    hang(neck_x, neck_y, MERGE_HAT_ON_HEAD_DY, (double)(head_i - MERGE_LEAN_SPAN), &tx, &ty);
    blit_rot(f, &a->hat_rot, sim__merge_lean_index(w->car.hat_angle), tx, ty);
    if (tossed) {
        draw_fruit(f, a, w->held.tier, hx, hy, fruit_i, 1, &w->held.life);
        redraw_hands(w, f);
    }
}

static void draw_xray(const merge_world *w, sim_frame *f)
{
    sim_raster_clear(f, MERGE_C_OUTLINE);
    for (int s = 0; s < w->v.nseg; s++)
        sim_raster_line(f, sim_snap(w->seg[s].ax), sim_snap(mg_clamp(w->seg[s].ay, -10, 200)),
                        sim_snap(w->seg[s].bx), sim_snap(mg_clamp(w->seg[s].by, -10, 200)),
                        MERGE_C_WOOD);
    sim_raster_line(f, MERGE_X0, MERGE_LINE, MERGE_X1, MERGE_LINE, MERGE_C_LINE_RED);
    const uint16_t (*pair)[2] = (const uint16_t (*)[2])w->v.pair;
    int np = w->v.npair;
    for (int k = 0; k < np; k++) {
        const sim_chunk *p = &w->v.chunk[pair[k][0]], *q = &w->v.chunk[pair[k][1]];
        sim_raster_line(f, sim_snap(p->x), sim_snap(p->y), sim_snap(q->x), sim_snap(q->y),
                        MERGE_C_LINE_RED);
    }
    for (int i = 0; i < w->nfruit; i++) {
        const sim_chunk *c = &w->v.chunk[i];
        int cx = sim_snap(c->x), cy = sim_snap(c->y), r = sim_snap(c->r);
        sim_raster_ring(f, cx, cy, r, MERGE_C_WHITE);
        sim_raster_line(f, cx, cy, sim_snap(c->x + c->r * sim_cos(c->a)),
                        sim_snap(c->y + c->r * sim_sin(c->a)), w->fruit[i].frozen ? MERGE_C_LINE_RED : MERGE_C_GOLD);
    }
    int x = sim_snap(w->car.x);
    sim_raster_line(f, x - MERGE_HAND_DX, MERGE_HAND_Y, x + MERGE_HAND_DX, MERGE_HAND_Y,
                    MERGE_C_GOLD);
}

void sim__merge_render(const merge_world *w, const sim_ctx *ctx, int view, sim_frame *out)
{
    (void)ctx;
    out->pal = w->art.pal;
    if (view == 1) {
        draw_xray(w, out);
        return;
    }
    memcpy(out->px, w->backdrop, (size_t)MERGE_W * MERGE_H);
    for (int i = 0; i < w->nfruit; i++) {
        const sim_chunk *c = &w->v.chunk[i];
        draw_fruit(out, &w->art, w->fruit[i].desc->tier, c->x, c->y,
                   step_of(c->a * (180.0 / SIM_PI), MERGE_FRUIT_ANGLES), 0, &w->fruit[i].life);
    }
    draw_carrier(w, out);
    draw_panel(w, out);
}
