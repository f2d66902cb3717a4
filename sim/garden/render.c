/* render.c — the garden's frame, in painter's order, back to front: the still scene (sky, sun,
 * hills, the three planes, the windmill's tower, the basin, the fire's stones, the pole); the sky's
 * life (the clouds where they have drifted, a passing flock); the windmill's sails; the middle
 * meadow (the flag, its grass, the vines, the campfire's particles, the villagers, the gnomes,
 * the pond and its basin's rim, the stones); the near bank (its grass, the lizards); the serpents
 * and the butterfly over all; then, with inks=N, the ink lock over the whole frame. Nothing is
 * rotated or scaled at draw time: every changed picture (squash, stretch, smear, flash, status,
 * the sails' angles) is an image baked at create (art.c).
 *
 * The xray view draws what the simulation sees: the spines' points and their targets, the
 * reachers' joints, the bipeds' hips, feet and hair nodes, the gnomes' boxes and hop heights, the
 * lizards' spines and feet (planted white, stepping red), the flag's nodes (pinned ones white),
 * the water line, every particle and stone. */
#include "garden_int.h"
#include "anim/outline.h"

static void px_put(sim_frame *f, int x, int y, uint8_t c)
{
    if (x >= 0 && y >= 0 && x < f->w && y < f->h) f->px[y * f->w + x] = c;
}

/* ---- the flag ---------------------------------------------------------------------------------- */
static const uint8_t flag_bands[3][3] = {
    { GC_RED_LIGHT, GC_RED, GC_RED_DARK },
    { GC_WHITE, GC_WHITE, GC_CLOTH_SHADE },
    { GC_RED_LIGHT, GC_RED, GC_RED_DARK },
};

/* ---- vines: a tapered stalk, leaves at every other joint, a flower at the tip ---------------------- */
#define VINE_R_ROOT 2.2
#define VINE_R_TIP 0.8
/* The stalk, tapered as sim_fabrik_draw tapers it (thick at the root), drawn as a tube of quads
 * from a radius per joint with the spine's renderer (sim_spine_draw: quads sharing snapped edges,
 * round caps, a 1-px outline). sim_fabrik_draw's tapered capsules, five times over for the
 * outline, were a third of a crowd's frame when capsules tested every pixel of their box with a
 * division (before issue 17's capsule rule). The quads are always simple: a vine's radii
 * (≤ 2.2 px) are far below its segments' 6.5 px, so two rungs of one segment never cross, however
 * sharp the bend. */
_Static_assert(SIM_FABRIK_MAX <= SIM_SPINE_MAX, "a reacher's joints fit in a tube");
static void vine_stalk(const sim_fabrik *r, sim_frame *f, uint8_t fill)
{
    sim_spine tube;
    memset(&tube, 0, sizeof tube);
    tube.n = r->n;
    double reach = sim_fabrik_reach(r), along = 0.0;
    for (int i = 0; i < r->n; i++) {
        along += r->len[i];
        double t = reach > 0.0 ? along / reach : 0.0;
        tube.x[i] = r->x[i];
        tube.y[i] = r->y[i];
        tube.radius[i] = VINE_R_ROOT + (VINE_R_TIP - VINE_R_ROOT) * t;
    }
    sim_spine_draw(&tube, f, fill, GC_INK);
}

static void draw_vine(const garden_vine *v, sim_frame *f)
{
    const sim_fabrik *r = &v->reach;
    int flash = v->juice.flash_left != 0;
    vine_stalk(r, f, flash ? GC_WHITE : GC_GRASS);
    if (flash) return;
    for (int i = 2; i < r->n - 1; i += 2) {
        double dx = r->x[i] - r->x[i - 1], dy = r->y[i] - r->y[i - 1];
        double m = sim_sqrt(dx * dx + dy * dy);
        if (!(m > 0.0)) continue;
        double side = (i & 2) ? 1.0 : -1.0, nx = -dy / m * side, ny = dx / m * side;
        int lx = sim_snap(r->x[i] + nx * 2.5), ly = sim_snap(r->y[i] + ny * 2.5);
        int tx = sim_snap(r->x[i] + nx * 4.0 + dx / m), ty = sim_snap(r->y[i] + ny * 4.0 + dy / m);
        px_put(f, lx, ly, GC_GRASS_LIGHT);
        px_put(f, tx, ty, GC_GRASS_LIGHT);
        px_put(f, (lx + tx) / 2, ly, GC_GRASS_LIGHT);
    }
    int e = r->n - 1, fx = sim_snap(r->x[e]), fy = sim_snap(r->y[e]);
    static const int petal[4][2] = { { -1, 0 }, { 1, 0 }, { 0, -1 }, { 0, 1 } };
    for (int k = 0; k < 4; k++) {
        px_put(f, fx + petal[k][0] * 2, fy + petal[k][1] * 2, GC_INK);
        px_put(f, fx + petal[k][0], fy + petal[k][1], GC_PINK);
    }
    px_put(f, fx - 1, fy - 1, GC_PINK_DARK);
    px_put(f, fx + 1, fy + 1, GC_PINK_DARK);
    px_put(f, fx + 1, fy - 1, GC_PINK_DARK);
    px_put(f, fx - 1, fy + 1, GC_PINK_DARK);
    px_put(f, fx, fy, GC_FIRE_YELLOW);
}

/* ---- villagers ------------------------------------------------------------------------------------- */
static void draw_biped(const garden_world *w, const garden_biped *g, sim_frame *f)
{
    const garden_art *a = w->art;
    const sim_biped_cfg *cfg = &w->bcfg[g->style];
    int pose = g->task == GB_THROW ? sim_clip_frame(&g->clip, sim__garden_throw_anim, w->now)
                                   : GB_POSE_STAND;
    sim_biped_look look = a->look[g->style];
    int st = g->b.state < SIM_BIPED_STATES ? g->b.state : 0;
    look.body = &a->body[g->style][st][pose];
    if (g->juice.flash_left) {
        /* the hit flash: the pre-baked highlight silhouette, legs and hair in the same ink */
        look.body = &a->body_flash[g->style][pose];
        look.leg = look.leg_far = GC_WHITE;
        for (int k = 0; k < SIM_BIPED_STATES; k++) look.hair_ink[k] = GC_WHITE;
    }
    sim_biped b = g->b;
    int dy = sim_snap(g->juice.y);
    if (dy) {
        /* a startled jump: the whole figure, hair and all, drawn dy higher */
        b.ground += dy;
        for (int k = 0; k < b.hair.n; k++) b.hair.y[k] += dy;
    }
    sim_biped_draw(&b, cfg, &look, w->now, f);
}

/* ---- gnomes --------------------------------------------------------------------------------------- */
static void draw_walker(const garden_world *w, int i, sim_frame *f)
{
    const garden_art *a = w->art;
    const garden_walker *g = &w->walker[i];
    int img = sim__garden_walker_image(w, i);
    sim_juice_look look;
    sim_juice_look_at(&g->juice, &w->jcfg, &look);
    int fw = a->walk.w, fh = a->walk.h, x = sim_snap(g->x) - fw / 2;
    sim_juice_draw(&a->gnome[img], &look, f, x, GARDEN_GROUND - fh, g->facing);
    if (look.shape == SIM_LOOK_SMEAR) {
        /* the smear is the trail; the gnome itself, stretched, leads it, so the face is in every
         * frame of the hop (issue 27) */
        sim_juice_look lead = look;
        lead.shape = SIM_LOOK_STRETCH;
        const sim_juice_img *st = sim_juice_art_image(&a->gnome[img], &lead);
        if (look.smear_dir < 0) lead.dy += st->h - a->gnome[img].h;      /* rising: top leads */
        sim_juice_draw(&a->gnome[img], &lead, f, x, GARDEN_GROUND - fh, g->facing);
    }
}

/* ---- the lizard: far legs, the body, near legs; toes on the ground ------------------------------- */
typedef struct leg_shape {
    int hx, hy, kx, ky, fx, fy;
} leg_shape;

/* A leg: the thigh 2 px thick from the hip to the knee, the shin from the knee to the foot. */
static void leg_paint(const void *ud, sim_frame *f, int dx, int dy, uint8_t ink)
{
    const leg_shape *l = ud;
    sim_raster_line(f, l->hx + dx, l->hy + dy, l->kx + dx, l->ky + dy, ink);
    sim_raster_line(f, l->hx + dx, l->hy + 1 + dy, l->kx + dx, l->ky + 1 + dy, ink);
    sim_raster_line(f, l->kx + dx, l->ky + dy, l->fx + dx, l->fy - 1 + dy, ink);
}

static void draw_leg(const garden_world *w, const garden_lizard *z, int i, sim_frame *f, uint8_t ink,
                     uint8_t toe)
{
    double hx, hy, kx, ky;
    sim__garden_lizard_hip(z, i >= 2, &hx, &hy);
    const sim_leg *g = &z->legs.leg[i];
    /* front legs bend their elbows back, hind legs their knees forward (the knee up, a lizard's
     * sprawl seen from the side) */
    int bend = (i < 2 ? 1 : -1) * z->facing;
    sim_two_bone(hx, hy, g->x, g->y, w->lcfg.thigh, w->lcfg.shin, bend, &kx, &ky);
    leg_shape l = { sim_snap(hx), sim_snap(hy), sim_snap(kx), sim_snap(ky), sim_snap(g->x),
                    sim_snap(g->y) };
    sim_draw_outlined(f, leg_paint, &l, ink, GC_INK);
    /* the toes: three pixels splayed on the ground, the foot's drawn place */
    sim_raster_rect(f, l.fx - 1, l.fy, 3, 1, toe);
}

static void draw_lizard(const garden_world *w, const garden_lizard *z, sim_frame *f)
{
    int flash = z->juice.flash_left != 0;
    uint8_t skin = flash ? GC_WHITE : GC_LIZARD, dark = flash ? GC_WHITE : GC_LIZARD_DARK;
    uint8_t toe = flash ? GC_WHITE : GC_TOE;
    draw_leg(w, z, 1, f, dark, toe);
    draw_leg(w, z, 3, f, dark, toe);
    sim_spine_draw(&z->body, f, skin, GC_INK);
    if (!flash) {
        /* the belly: a pale row under the body; dark spots along the back */
        for (int k = 1; k < z->body.n - 3; k++)
            px_put(f, sim_snap(z->body.x[k]), sim_snap(z->body.y[k] + z->body.radius[k] - 0.6),
                   GC_LIZARD_BELLY);
        for (int k = 2; k < z->body.n - 1; k += 2)
            px_put(f, sim_snap(z->body.x[k]), sim_snap(z->body.y[k] - z->body.radius[k] + 1.0), dark);
        int hx = sim_snap(z->body.x[0]), hy = sim_snap(z->body.y[0]);
        px_put(f, hx + z->facing, hy - 1, GC_INK);                   /* the eye */
        px_put(f, hx, hy - 1, GC_WHITE);
        if (z->tongue)
            for (int k = 0; k < 3; k++) px_put(f, hx + z->facing * (3 + k), hy + 1, GC_RED);
    }
    draw_leg(w, z, 0, f, skin, toe);
    draw_leg(w, z, 2, f, skin, toe);
}

/* ---- the sky's life ------------------------------------------------------------------------------ */
static void draw_sky(const garden_world *w, sim_frame *f)
{
    const garden_art *a = w->art;
    for (int k = 0; k < GARDEN_CLOUDS; k++) {
        int x = (int)(w->cloud_x[k] >> 8);
        sim_raster_blit(f, &a->cloud[k], x, sim__garden_clouds[k].y, 0);
    }
    for (int k = 0; k < GARDEN_BIRDS; k++) {
        int x, y, fr;
        if (sim__garden_bird(w->seed, w->now, k, &x, &y, &fr))
            sim_raster_blit(f, &a->bird[fr], x - 2, y - 1, 0);
    }
    /* the windmill's sails: the bake of this angle, the hub over it */
    int k = (int)(w->mill >> (32 - 5)) % GARDEN_MILL_ANGLES;
    sim_raster_blit(f, &a->sails[k], GARDEN_MILL_X - GARDEN_SAILS_D / 2,
                    GARDEN_MILL_HUB_Y - GARDEN_SAILS_D / 2, 0);
    sim_raster_rect(f, GARDEN_MILL_X - 1, GARDEN_MILL_HUB_Y - 1, 3, 3, GC_INK);
    px_put(f, GARDEN_MILL_X, GARDEN_MILL_HUB_Y, GC_WOOD);
}

/* ---- serpents: the body outlined, a lit back, a row of dorsal spikes, an eye, two horns ------------ */
/* The unit normal of the body at joint i that points up the screen. */
static void up_normal(const sim_spine *sp, int i, double *nx, double *ny, double *tx, double *ty)
{
    int a = i > 0 ? i - 1 : 0, b = i + 1 < sp->n ? i + 1 : i;
    double dx = sp->x[a] - sp->x[b], dy = sp->y[a] - sp->y[b];
    double m = sim_sqrt(dx * dx + dy * dy);
    if (!(m > 0.0)) { dx = 1.0; dy = 0.0; m = 1.0; }
    *tx = dx / m;                                      /* toward the head */
    *ty = dy / m;
    *nx = -*ty;
    *ny = *tx;
    if (*ny > 0) { *nx = -*nx; *ny = -*ny; }
}

static void draw_serpent(const garden_serpent *s, sim_frame *f)
{
    const sim_spine *sp = &s->spine;
    int flash = s->juice.flash_left != 0;
    double nx, ny, tx, ty;
    /* spikes along the back, drawn first so the body's outline closes over their roots */
    if (!flash)
        for (int i = 2; i < sp->n - 3; i += 2) {
            up_normal(sp, i, &nx, &ny, &tx, &ty);
            double r = sp->radius[i];
            int bx = sim_snap(sp->x[i] + nx * r), by = sim_snap(sp->y[i] + ny * r);
            int px = sim_snap(sp->x[i] + nx * (r + 2.5) - tx * 1.5);
            int py = sim_snap(sp->y[i] + ny * (r + 2.5) - ty * 1.5);
            sim_raster_line(f, bx, by, px, py, GC_INK);
        }
    sim_spine_draw(sp, f, flash ? GC_WHITE : GC_TEAL, GC_INK);
    if (flash) return;
    /* the lit back: a thinner copy of the body, a pixel up */
    sim_spine lit = *sp;
    for (int i = 0; i < lit.n; i++) {
        lit.radius[i] *= 0.4;
        lit.y[i] -= 1.0;
    }
    sim_spine_draw(&lit, f, GC_TEAL_LIGHT, -1);
    /* the belly: dark under the tail half */
    for (int i = sp->n / 2; i < sp->n - 1; i++) {
        up_normal(sp, i, &nx, &ny, &tx, &ty);
        px_put(f, sim_snap(sp->x[i] - nx * (sp->radius[i] - 0.6)), sim_snap(sp->y[i] - ny * (sp->radius[i] - 0.6)),
               GC_TEAL_DARK);
    }
    /* the head: an eye forward on its upper side, two horns swept back */
    up_normal(sp, 0, &nx, &ny, &tx, &ty);
    double hx = sp->x[0], hy = sp->y[0];
    int ex = sim_snap(hx + tx * 1.0 + nx * 1.0), ey = sim_snap(hy + ty * 1.0 + ny * 1.0);
    px_put(f, ex, ey, GC_INK);
    px_put(f, sim_snap(hx + tx * 1.0 + nx * 1.0 - tx), ey, GC_WHITE);
    int hbx = sim_snap(hx - tx * 1.0 + nx * 3.0), hby = sim_snap(hy - ty * 1.0 + ny * 3.0);
    sim_raster_line(f, hbx, hby, sim_snap(hx - tx * 4.0 + nx * 5.0), sim_snap(hy - ty * 4.0 + ny * 5.0), GC_GOLD);
}

/* ---- the butterfly: wings on a hold list, rising on the downstroke ----------------------------------- */
static const sim_hold flap_holds[] = { { 0, 4 }, { 1, 3 }, { 2, 3 }, { 3, 4 }, { 2, 3 }, { 1, 3 } };
static const sim_holds flap = { flap_holds, 6, 1 };

int sim__garden_fly_frame(uint64_t now) { return sim_holds_frame(&flap, now); }

static void draw_butterfly(const garden_world *w, sim_frame *f)
{
    int k = sim_holds_frame(&flap, w->now);
    int x = sim_snap(w->fly_x), y = sim_snap(w->fly_y) + (k == 3 ? 1 : 0);
    sim_raster_blit(f, &w->art->fly[k], x - GARDEN_FLY_W / 2, y - GARDEN_FLY_H / 2, 0);
}

/* ---- the pond ------------------------------------------------------------------------------------- */
static const sim_water_look pond_look = {
    .surface = GC_FOAM, .body = GC_WATER, .deep = GC_WATER_DEEP, .deep_below = 9,
    .band = { GC_WATER_LIGHT, GC_WATER, GC_WATER_LIGHT, GC_FOAM, GC_WATER_LIGHT, GC_WATER },
    .nband = 6, .band_rows = 2, .cycle_ticks = 8,
};

static void draw_pond(const garden_world *w, sim_frame *f)
{
    sim_water_draw(&w->pond, f, &pond_look, GARDEN_POND_X0, GARDEN_POND_REST, GARDEN_H - 1, w->now);
    /* the basin under the water: the earth of the still scene again */
    for (int i = 0; i < GARDEN_POND_N; i++) {
        int x = GARDEN_POND_X0 + i;
        for (int y = w->art->basin[i]; y < GARDEN_H; y++) f->px[y * f->w + x] = w->backdrop[y * f->w + x];
    }
}

static void draw_stones(const garden_world *w, sim_frame *f)
{
    for (int i = 0; i < w->nstone; i++) {
        /* a pebble: 2×2, lit top-left, in a 1-px outline with the corners cut */
        int x = sim_snap(w->stone[i].x), y = sim_snap(w->stone[i].y);
        sim_raster_rect(f, x - 1, y, 4, 2, GC_INK);
        sim_raster_rect(f, x, y - 1, 2, 4, GC_INK);
        sim_raster_rect(f, x, y, 2, 2, GC_STONE);
        px_put(f, x, y, GC_STONE_LIGHT);
    }
}

/* ---- the x-ray --------------------------------------------------------------------------------------- */
static void cross(sim_frame *f, int x, int y, uint8_t c)
{
    px_put(f, x, y, c);
    px_put(f, x - 2, y, c);
    px_put(f, x + 2, y, c);
    px_put(f, x, y - 2, c);
    px_put(f, x, y + 2, c);
}

static void draw_xray(const garden_world *w, sim_frame *f)
{
    sim_raster_clear(f, GC_INK);
    sim_raster_line(f, 0, GARDEN_GROUND, GARDEN_W - 1, GARDEN_GROUND, GC_SOIL);
    for (int i = 0; i < GARDEN_POND_N; i++)
        px_put(f, GARDEN_POND_X0 + i, GARDEN_POND_REST - sim_water_height(&w->pond, i), GC_WATER_LIGHT);
    for (int i = 0; i < w->back.ntuft; i++)
        px_put(f, w->back.tuft[i].x + sim_grass_lean(&w->back, i), w->back.tuft[i].y - 6, GC_GRASS);
    for (int i = 0; i < w->nvine; i++) {
        const sim_fabrik *r = &w->vine[i].reach;
        for (int k = 1; k < r->n; k++)
            sim_raster_line(f, sim_snap(r->x[k - 1]), sim_snap(r->y[k - 1]), sim_snap(r->x[k]),
                            sim_snap(r->y[k]), GC_GRASS_LIGHT);
        for (int k = 0; k < r->n; k++) px_put(f, sim_snap(r->x[k]), sim_snap(r->y[k]), GC_WHITE);
    }
    for (int i = 0; i < w->nserpent; i++) {
        const sim_spine *s = &w->serpent[i].spine;
        for (int k = 1; k < s->n; k++)
            sim_raster_line(f, sim_snap(s->x[k - 1]), sim_snap(s->y[k - 1]), sim_snap(s->x[k]),
                            sim_snap(s->y[k]), GC_TEAL);
        for (int k = 0; k < s->n; k++) px_put(f, sim_snap(s->x[k]), sim_snap(s->y[k]), GC_WHITE);
        double tx, ty;
        sim__garden_serpent_target(w, i, &tx, &ty);
        cross(f, sim_snap(tx), sim_snap(ty), GC_TEAL_LIGHT);
    }
    for (int i = 0; i < w->nbiped; i++) {
        const garden_biped *g = &w->biped[i];
        sim_biped_pose p;
        sim_biped_pose_at(&g->b, &w->bcfg[g->style], w->now, &p);
        for (int j = 0; j < 2; j++)
            sim_raster_line(f, p.hip_x, p.hip_y, p.foot_x[j], p.foot_y[j], j ? GC_SOIL_LIGHT : GC_GOLD);
        for (int k = 0; k < g->b.hair.n; k++)
            px_put(f, sim_snap(g->b.hair.x[k]), sim_snap(g->b.hair.y[k]), GC_RED_LIGHT);
        if (g->goal_x >= 0) px_put(f, g->goal_x, GARDEN_GROUND + 2, GC_GOLD);
    }
    for (int i = 0; i < w->nwalker; i++) {
        const garden_walker *g = &w->walker[i];
        int x = sim_snap(g->x), dy = sim_snap(g->juice.y);
        int x0 = x - 6, y0 = GARDEN_GROUND - 16 + dy;
        sim_raster_line(f, x0, y0, x0 + 12, y0, GC_BLUE);
        sim_raster_line(f, x0, y0 + 15, x0 + 12, y0 + 15, GC_BLUE);
        sim_raster_line(f, x0, y0, x0, y0 + 15, GC_BLUE);
        sim_raster_line(f, x0 + 12, y0, x0 + 12, y0 + 15, GC_BLUE);
        if (g->task == GW_WALK) px_put(f, g->goal_x, GARDEN_GROUND + 2, GC_BLUE);
    }
    for (int i = 0; i < w->nlizard; i++) {
        const garden_lizard *z = &w->lizard[i];
        for (int k = 1; k < z->body.n; k++)
            sim_raster_line(f, sim_snap(z->body.x[k - 1]), sim_snap(z->body.y[k - 1]),
                            sim_snap(z->body.x[k]), sim_snap(z->body.y[k]), GC_LIZARD);
        for (int k = 0; k < z->legs.n; k++) {
            double hx, hy;
            sim__garden_lizard_hip(z, k >= 2, &hx, &hy);
            int fx = sim_snap(z->legs.leg[k].x), fy = sim_snap(z->legs.leg[k].y);
            sim_raster_line(f, sim_snap(hx), sim_snap(hy), fx, fy, GC_LIZARD_DARK);
            px_put(f, fx, fy, sim_legs_planted(&z->legs, k) ? GC_WHITE : GC_RED);
        }
    }
    for (int j = 0; j < w->flag.h; j++)
        for (int i = 0; i < w->flag.w; i++) {
            int k = j * w->flag.w + i;
            px_put(f, sim_snap(w->flag.x[k]), sim_snap(w->flag.y[k]), w->flag.pin[k] ? GC_WHITE : GC_RED);
        }
    for (int i = 0; i < w->fire.cap; i++) {
        int st = sim_particle_stage(&w->fire, i);
        if (st < 0) continue;
        int x, y;
        sim_particle_pixel(&w->fire, i, &x, &y);
        px_put(f, x, y, w->fire.kinds[w->fire.p[i].kind].ramp[st]);
    }
    for (int i = 0; i < w->nstone; i++)
        px_put(f, sim_snap(w->stone[i].x), sim_snap(w->stone[i].y), GC_STONE_LIGHT);
    cross(f, sim_snap(w->fly_x), sim_snap(w->fly_y), GC_PINK);
    if (w->aim_hold) cross(f, w->aim_x, w->aim_y, GC_FIRE_YELLOW);
}

void sim__garden_render(const garden_world *w, const sim_ctx *ctx, int view, sim_frame *out)
{
    (void)ctx;
    sim__garden_palette(&out->pal);
    if (view == 1) {
        draw_xray(w, out);
    } else if (!w->art || !w->backdrop) {
        sim_raster_clear(out, GC_INK);          /* a world built never to be drawn (bare 2) */
    } else {
        memcpy(out->px, w->backdrop, (size_t)GARDEN_W * GARDEN_H);
        draw_sky(w, out);
        sim_cloth_draw(&w->flag, out, flag_bands, 3);
        sim_grass_draw(&w->back, out);
        for (int i = 0; i < w->nvine; i++) draw_vine(&w->vine[i], out);
        sim_particles_draw(&w->fire, out, w->seed, w->now);
        for (int i = 0; i < w->nbiped; i++) draw_biped(w, &w->biped[i], out);
        for (int i = 0; i < w->nwalker; i++) draw_walker(w, i, out);
        draw_pond(w, out);
        draw_stones(w, out);
        sim_grass_draw(&w->front, out);
        for (int i = 0; i < w->nlizard; i++) draw_lizard(w, &w->lizard[i], out);
        for (int i = 0; i < w->nserpent; i++) draw_serpent(&w->serpent[i], out);
        draw_butterfly(w, out);
    }
    if (w->inks) sim_inks_apply(&w->lock, out);
}
