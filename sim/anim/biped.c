/* biped.c — the parametric biped, its hair and its breathing (biped.h). */
#include "biped.h"
#include "outline.h"
#include "timing.h"

#define TWO_PI (2.0 * SIM_PI)

static int finite_in(double v, double lo, double hi) { return sim_isfinite(v) && v >= lo && v <= hi; }
static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* ---- hair ------------------------------------------------------------------------------------ */
static int hair_cfg_check(const sim_hair_cfg *c)
{
    if (c->nodes < SIM_HAIR_MIN || c->nodes > SIM_HAIR_MAX || c->iters < 2 || c->iters > 4)
        return SIM_EINVAL;
    if (!finite_in(c->link, 0.0, 16.0) || !(c->link > 0.0) || !finite_in(c->damping, 0.0, 1.0) ||
        !finite_in(c->gravity, 0.0, 4.0) || !finite_in(c->back, 0.0, 4.0))
        return SIM_EINVAL;
    return 0;
}

void sim_hair_init(sim_hair *h, const sim_hair_cfg *cfg, double ax, double ay)
{
    memset(h, 0, sizeof *h);
    h->n = (uint8_t)cfg->nodes;
    for (int i = 0; i < h->n; i++) {
        h->x[i] = h->px[i] = ax;
        h->y[i] = h->py[i] = ay + cfg->link * i;
    }
}

void sim_hair_step(sim_hair *h, const sim_hair_cfg *cfg, double ax, double ay, int facing,
                   double wind)
{
    if (!sim_isfinite(ax) || !sim_isfinite(ay)) return;
    if (!sim_isfinite(wind)) wind = 0.0;
    wind = clampd(wind, -4.0, 4.0);
    double fx = wind - (facing < 0 ? -1.0 : 1.0) * cfg->back;
    /* pinned to the anchor on the sprite, every frame */
    h->x[0] = h->px[0] = ax;
    h->y[0] = h->py[0] = ay;
    for (int i = 1; i < h->n; i++) {
        /* pos_new = pos + (pos − prev) × damping + acceleration × dt² (dt = one tick) */
        double vx = (h->x[i] - h->px[i]) * cfg->damping, vy = (h->y[i] - h->py[i]) * cfg->damping;
        h->px[i] = h->x[i];
        h->py[i] = h->y[i];
        h->x[i] += vx + fx;
        h->y[i] += vy + cfg->gravity;
    }
    for (int it = 0; it < cfg->iters; it++) {
        for (int i = 1; i < h->n; i++) {
            double dx = h->x[i] - h->x[i - 1], dy = h->y[i] - h->y[i - 1];
            double m = sim_sqrt(dx * dx + dy * dy);
            if (!(m > 0.0)) continue;                 /* coincident: the next pass separates */
            double k = (m - cfg->link) / m;
            if (i == 1) {                             /* the root does not move */
                h->x[i] -= dx * k;
                h->y[i] -= dy * k;
            } else {
                h->x[i - 1] += dx * k * 0.5;
                h->y[i - 1] += dy * k * 0.5;
                h->x[i] -= dx * k * 0.5;
                h->y[i] -= dy * k * 0.5;
            }
        }
    }
    /* a node flung absurdly far (a teleported anchor) is brought back onto the chain */
    for (int i = 1; i < h->n; i++)
        if (!finite_in(h->x[i], -SIM_BIPED_MAX_COORD, SIM_BIPED_MAX_COORD) ||
            !finite_in(h->y[i], -SIM_BIPED_MAX_COORD, SIM_BIPED_MAX_COORD)) {
            h->x[i] = h->px[i] = h->x[i - 1];
            h->y[i] = h->py[i] = h->y[i - 1] + cfg->link;
        }
}

int sim_hair_block(int n, int i)
{
    if (n < 2) return 3;
    return 3 - (4 * i + (n - 1)) / (2 * (n - 1));     /* 3 − round(2i/(n−1)), halves up */
}

typedef struct hair_shape {
    int n;
    int x[SIM_HAIR_MAX], y[SIM_HAIR_MAX], s[SIM_HAIR_MAX];
} hair_shape;

static void hair_paint(const void *ud, sim_frame *f, int dx, int dy, uint8_t ink)
{
    const hair_shape *sh = ud;
    for (int i = sh->n - 1; i >= 0; i--) {
        int s = sh->s[i], o = (s - 1) / 2;
        sim_raster_rect(f, sh->x[i] - o + dx, sh->y[i] - o + dy, s, s, ink);
    }
}

void sim_hair_draw(const sim_hair *h, sim_frame *f, uint8_t ink, int outline)
{
    hair_shape sh;
    sh.n = h->n;
    for (int i = 0; i < h->n; i++) {
        sh.x[i] = sim_snap(h->x[i]);
        sh.y[i] = sim_snap(h->y[i]);
        sh.s[i] = sim_hair_block(h->n, i);
    }
    sim_draw_outlined(f, hair_paint, &sh, ink, outline);
}

/* ---- breathing ------------------------------------------------------------------------------- */
double sim_breath_phase(uint64_t seed, uint64_t id)
{
    uint64_t k = seed ^ sim_mix64(id + 0x627265617468ULL);         /* "breath" */
    uint64_t r = sim_splitmix64(&k);
    double ph = (double)(r >> 11) * (1.0 / 9007199254740992.0) * TWO_PI;
    return ph < TWO_PI ? ph : 0.0;
}

int sim_breath_dy(uint64_t tick, int period, double phase)
{
    if (period < 1) period = 1;
    double t = (double)(tick % (uint64_t)period);
    return sim_snap(SIM_BREATH_AMP * sim_sin(TWO_PI * t / (double)period + phase));
}

/* ---- the walk -------------------------------------------------------------------------------- */
sim_biped_cfg sim_biped_cfg_default(void)
{
    return (sim_biped_cfg){
        .stride = SIM_BIPED_STRIDE, .lift = SIM_BIPED_LIFT, .poses = SIM_BIPED_POSES,
        .lean_k = SIM_BIPED_LEAN_K, .lean_max = SIM_BIPED_LEAN_MAX, .hip_h = SIM_BIPED_HIP_H,
        .breath_period = SIM_BREATH_PERIOD, .hair_dx = -3, .hair_dy = 8,
        .hair = { .nodes = SIM_HAIR_NODES, .iters = SIM_HAIR_ITERS, .link = SIM_HAIR_LINK,
                  .damping = SIM_HAIR_DAMPING, .gravity = SIM_HAIR_GRAVITY,
                  .back = SIM_HAIR_BACK },
    };
}

int sim_biped_cfg_check(const sim_biped_cfg *cfg)
{
    if (!finite_in(cfg->stride, 2.0, 256.0)) return SIM_EINVAL;
    if (cfg->poses != 4 && cfg->poses != 6 && cfg->poses != 8) return SIM_EINVAL;
    if (!finite_in(cfg->lift, 0.0, 64.0) || sim_snap(cfg->lift * sim_sin(TWO_PI / cfg->poses)) < 1)
        return SIM_EINVAL;
    if (!finite_in(cfg->lean_k, -64.0, 64.0) || cfg->lean_max < 0 || cfg->lean_max > 4)
        return SIM_EINVAL;
    if (cfg->hip_h < 1 || cfg->hip_h > 64) return SIM_EINVAL;
    if (cfg->breath_period < 60 || cfg->breath_period > 120) return SIM_EINVAL;
    if (cfg->hair_dx < -64 || cfg->hair_dx > 64 || cfg->hair_dy < -64 || cfg->hair_dy > 64 ||
        cfg->hold_pose < 0 || cfg->hold_pose > 1)
        return SIM_EINVAL;
    return hair_cfg_check(&cfg->hair);
}

static int pose_k(const sim_biped *b, const sim_biped_cfg *cfg)
{
    int k = (int)sim_floor(b->dist / cfg->stride * (double)cfg->poses);
    return k < 0 ? 0 : k >= cfg->poses ? cfg->poses - 1 : k;
}

static int foot_k(int k, int j, int poses) { return (k + j * poses / 2) % poses; }
static int swinging(int kj, int poses) { return kj > 0 && 2 * kj < poses; }

/* A swinging foot's x from the hip, facing right: −a cos 2πψ with a = stride/4. */
static double swing_rel(const sim_biped_cfg *cfg, int kj)
{
    return -(cfg->stride * 0.25) * sim_cos(TWO_PI * (double)kj / (double)cfg->poses);
}

static double wrap_dist(double d, double stride)
{
    if (d >= stride) {
        d -= stride * sim_floor(d / stride);
        if (!(d >= 0.0 && d < stride)) d = 0.0;
    }
    return d;
}

/* Where the body is drawn in pose k: where it stood when the pose began (hold_pose, walking),
 * else where it is. */
static double drawn_x(const sim_biped *b, const sim_biped_cfg *cfg, int k)
{
    if (!cfg->hold_pose || b->speed == 0.0) return b->x;
    double into = b->dist - (double)k * cfg->stride / (double)cfg->poses;
    return b->x - (b->speed > 0.0 ? into : -into);
}

/* Lift a foot whose pose swings; put down, where it is drawn now, one whose pose stands. */
static void feet(sim_biped *b, const sim_biped_cfg *cfg)
{
    int k = pose_k(b, cfg);
    double x = drawn_x(b, cfg, k);
    for (int j = 0; j < 2; j++) {
        int kj = foot_k(k, j, cfg->poses);
        if (swinging(kj, cfg->poses)) {
            b->planted[j] = 0;
        } else if (!b->planted[j]) {
            b->planted[j] = 1;
            b->plant_x[j] = x + (double)b->facing * swing_rel(cfg, kj);
        }
    }
}

int sim_biped_idle(const sim_biped *b)
{
    return b->speed == 0.0 && b->planted[0] && b->planted[1];
}

void sim_biped_pose_at(const sim_biped *b, const sim_biped_cfg *cfg, uint64_t tick,
                       sim_biped_pose *out)
{
    int k = pose_k(b, cfg), ground = sim_snap(b->ground);
    double s = sim_sin(TWO_PI * (double)k / (double)cfg->poses);
    double x = drawn_x(b, cfg, k);
    out->k = k;
    out->bob = sim_snap(s < 0.0 ? -s : s);             /* |sin|: two bobs a cycle, 1 px */
    for (int j = 0; j < 2; j++) {
        int kj = foot_k(k, j, cfg->poses);
        if (b->planted[j]) {
            out->foot_x[j] = sim_snap(b->plant_x[j]);
            out->lift[j] = 0;
        } else {
            out->foot_x[j] = sim_snap(x + (double)b->facing * swing_rel(cfg, kj));
            out->lift[j] = sim_snap(cfg->lift * sim_sin(TWO_PI * (double)kj / (double)cfg->poses));
        }
        out->foot_y[j] = ground - 1 - out->lift[j];
    }
    int lean = sim_snap(b->speed * cfg->lean_k);
    out->lean = lean > cfg->lean_max ? cfg->lean_max : lean < -cfg->lean_max ? -cfg->lean_max : lean;
    out->breath = sim_biped_idle(b) ? sim_breath_dy(tick, cfg->breath_period, b->breath_phase) : 0;
    out->hip_x = sim_snap(x);
    out->hip_y = ground - 1 - cfg->hip_h - out->bob;
    out->hair_x = out->hip_x + b->facing * cfg->hair_dx + out->lean;
    out->hair_y = out->hip_y - cfg->hair_dy + out->breath;
}

int sim_biped_init(sim_biped *b, const sim_biped_cfg *cfg, double x, double ground, int facing,
                   uint64_t seed, uint64_t id)
{
    memset(b, 0, sizeof *b);
    if (sim_biped_cfg_check(cfg) || !finite_in(x, -SIM_BIPED_MAX_COORD, SIM_BIPED_MAX_COORD) ||
        !finite_in(ground, -SIM_BIPED_MAX_COORD, SIM_BIPED_MAX_COORD))
        return SIM_EINVAL;
    b->x = x;
    b->ground = ground;
    b->facing = (int8_t)(facing < 0 ? -1 : 1);
    b->breath_phase = sim_breath_phase(seed, id);
    feet(b, cfg);
    sim_biped_pose p;
    sim_biped_pose_at(b, cfg, 0, &p);
    sim_hair_init(&b->hair, &cfg->hair, p.hair_x, p.hair_y);
    return 0;
}

void sim_biped_step(sim_biped *b, const sim_biped_cfg *cfg, double dx, uint64_t tick, double wind)
{
    if (!sim_isfinite(dx)) dx = 0.0;
    dx = clampd(dx, -cfg->stride, cfg->stride);
    b->speed = dx;
    if (dx != 0.0) {
        b->facing = (int8_t)(dx > 0.0 ? 1 : -1);
        b->x = clampd(b->x + dx, -SIM_BIPED_MAX_COORD, SIM_BIPED_MAX_COORD);
        b->dist = wrap_dist(b->dist + (dx < 0.0 ? -dx : dx), cfg->stride);
    } else if (!b->planted[0] || !b->planted[1]) {
        /* stopped with a foot up: step in place at the walk's cadence (a pose per
         * SIM_HOLD_WALK ticks) until it is down */
        b->dist = wrap_dist(b->dist + cfg->stride / (double)(cfg->poses * SIM_HOLD_WALK),
                            cfg->stride);
    }
    feet(b, cfg);
    sim_biped_pose p;
    sim_biped_pose_at(b, cfg, tick, &p);
    sim_hair_step(&b->hair, &cfg->hair, p.hair_x, p.hair_y, b->facing, wind);
}

/* ---- drawing --------------------------------------------------------------------------------- */
static void body_row(sim_frame *f, const sim_sprite *spr, int r, int x, int y, unsigned flags)
{
    sim_sprite row = { spr->w, 1, spr->px + (size_t)r * spr->w, spr->key };
    sim_raster_blit(f, &row, x, y, flags);
}

void sim_biped_draw(const sim_biped *b, const sim_biped_cfg *cfg, const sim_biped_look *look,
                    uint64_t tick, sim_frame *f)
{
    sim_biped_pose p;
    sim_biped_pose_at(b, cfg, tick, &p);
    sim_hair_draw(&b->hair, f, look->hair_ink[b->state < SIM_BIPED_STATES ? b->state : 0],
                  look->outline);
    /* the far leg (foot 1) first, then the near one; a foot is leg_w + 1 px long, toward the
     * facing */
    int lw = look->leg_w < 1 ? 1 : look->leg_w > 3 ? 3 : look->leg_w;
    for (int j = 1; j >= 0; j--) {
        uint8_t ink = j ? look->leg_far : look->leg;
        for (int k = 0; k < lw; k++)
            sim_raster_line(f, p.hip_x - b->facing * k, p.hip_y + 1, p.foot_x[j] - b->facing * k,
                            p.foot_y[j], ink);
        sim_raster_rect(f, b->facing > 0 ? p.foot_x[j] - (lw - 1) : p.foot_x[j] - 1, p.foot_y[j],
                        lw + 1, 1, ink);
    }
    const sim_sprite *spr = look->body;
    if (!spr || !spr->px) return;
    unsigned flags = b->facing > 0 ? 0u : SIM_BLIT_FLIPX;
    int bx = p.hip_x - (b->facing > 0 ? look->hip_col : spr->w - 1 - look->hip_col);
    int by = p.hip_y - look->hip_row;
    for (int r = look->breath_row; r < spr->h; r++)      /* the lower slice stays */
        body_row(f, spr, r, bx + (r < look->lean_row ? p.lean : 0), by + r, flags);
    /* breathing in opens a row under the upper slice: the slice's last row fills it (the chest
     * grows); breathing out, the slice covers the top row below it */
    if (p.breath < 0 && look->breath_row > 0) {
        int r = look->breath_row - 1;
        body_row(f, spr, r, bx + (r < look->lean_row ? p.lean : 0), by + r, flags);
    }
    for (int r = 0; r < look->breath_row && r < spr->h; r++)
        body_row(f, spr, r, bx + (r < look->lean_row ? p.lean : 0), by + r + p.breath, flags);
}

/* ---- state ----------------------------------------------------------------------------------- */
size_t sim_biped_save_max(void)
{
    return 4 * 8 + 1 + 2 + 2 * 8 + 1 + 8 + 1 + (size_t)SIM_HAIR_MAX * 4 * 8;
}

void sim_biped_save(const sim_biped *b, sim_writer *wr)
{
    sim__w_f64(wr, b->x);
    sim__w_f64(wr, b->ground);
    sim__w_f64(wr, b->dist);
    sim__w_f64(wr, b->speed);
    sim__w_u8(wr, (uint8_t)b->facing);
    sim__w_u8(wr, b->planted[0]);
    sim__w_u8(wr, b->planted[1]);
    sim__w_f64(wr, b->plant_x[0]);
    sim__w_f64(wr, b->plant_x[1]);
    sim__w_u8(wr, b->state);
    sim__w_f64(wr, b->breath_phase);
    sim__w_u8(wr, b->hair.n);
    for (int i = 0; i < b->hair.n; i++) {
        sim__w_f64(wr, b->hair.x[i]);
        sim__w_f64(wr, b->hair.y[i]);
        sim__w_f64(wr, b->hair.px[i]);
        sim__w_f64(wr, b->hair.py[i]);
    }
}

int sim_biped_load(sim_biped *b, const sim_biped_cfg *cfg, sim_reader *rd)
{
    sim_biped t;
    memset(&t, 0, sizeof t);
    t.x = sim__r_f64(rd);
    t.ground = sim__r_f64(rd);
    t.dist = sim__r_f64(rd);
    t.speed = sim__r_f64(rd);
    t.facing = (int8_t)sim__r_u8(rd);
    t.planted[0] = sim__r_u8(rd);
    t.planted[1] = sim__r_u8(rd);
    t.plant_x[0] = sim__r_f64(rd);
    t.plant_x[1] = sim__r_f64(rd);
    t.state = sim__r_u8(rd);
    t.breath_phase = sim__r_f64(rd);
    t.hair.n = sim__r_u8(rd);
    if (rd->err) return rd->err;
    if (t.hair.n != cfg->hair.nodes) return SIM_ECORRUPT;
    for (int i = 0; i < t.hair.n; i++) {
        t.hair.x[i] = sim__r_f64(rd);
        t.hair.y[i] = sim__r_f64(rd);
        t.hair.px[i] = sim__r_f64(rd);
        t.hair.py[i] = sim__r_f64(rd);
    }
    if (rd->err) return rd->err;
    const double M = SIM_BIPED_MAX_COORD;
    if (!finite_in(t.x, -M, M) || !finite_in(t.ground, -M, M) || !finite_in(t.plant_x[0], -M, M) ||
        !finite_in(t.plant_x[1], -M, M))
        return SIM_ECORRUPT;
    if (!(t.dist >= 0.0 && t.dist < cfg->stride)) return SIM_ECORRUPT;
    if (!finite_in(t.speed, -cfg->stride, cfg->stride)) return SIM_ECORRUPT;
    if ((t.facing != 1 && t.facing != -1) || t.planted[0] > 1 || t.planted[1] > 1 ||
        t.state >= SIM_BIPED_STATES)
        return SIM_ECORRUPT;
    if (!(t.breath_phase >= 0.0 && t.breath_phase < TWO_PI)) return SIM_ECORRUPT;
    int k = pose_k(&t, cfg);
    for (int j = 0; j < 2; j++)
        if (t.planted[j] == swinging(foot_k(k, j, cfg->poses), cfg->poses)) return SIM_ECORRUPT;
    for (int i = 0; i < t.hair.n; i++)
        if (!finite_in(t.hair.x[i], -M, M) || !finite_in(t.hair.y[i], -M, M) ||
            !finite_in(t.hair.px[i], -M, M) || !finite_in(t.hair.py[i], -M, M))
            return SIM_ECORRUPT;
    /* the root is pinned: it is where it was last put and has no velocity */
    if (t.hair.x[0] != t.hair.px[0] || t.hair.y[0] != t.hair.py[0]) return SIM_ECORRUPT;
    *b = t;
    return 0;
}
