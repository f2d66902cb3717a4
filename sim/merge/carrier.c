/* carrier.c — the carrier's motion and juggle, and the fruit's idle life (seed 003; carrier.h).
 *
 * Everything is the seed's arithmetic with its two fixes: the catch measures its progress against
 * the catch time (the seed divides by the drop time and overshoots when the two differ), and the
 * timers are clamped so a saved state stays in a checkable range. Phases are accumulators
 * advanced by dt × frequency, never sin(time × frequency): a frequency may change between steps
 * and the wave goes on from where it was: the shared phase accumulator and fading wave of
 * sim/anim/spring.c. */
#include "carrier.h"
#include "anim/spring.h"

#define TWO_PI (2.0 * SIM_PI)
/* Ours: a blink whose time left is within a nanosecond of zero has ended, so a duration that is a
 * whole number of ticks (0.3 s = 18 ticks at 60 Hz) lasts exactly that many despite rounding. */
#define BLINK_EPS 1e-9

static double absd(double v) { return v < 0.0 ? -v : v; }
static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
static double good_dt(double dt) { return sim_isfinite(dt) && dt > 0.0 ? dt : 0.0; }
/* a×(1−t) + b×t: exactly a at t = 0 and exactly b at t = 1, so a finished lerp is on its end. */
static double lerp(double a, double b, double t) { return a * (1.0 - t) + b * t; }

/* ---- the carrier ----------------------------------------------------------------------------- */
merge_carrier_cfg sim__merge_carrier_cfg_default(void)
{
    return (merge_carrier_cfg){
        .speed = MERGE_CARRIER_SPEED,
        .xmin = 16.0, .xmax = 304.0,
        .drop_time = MERGE_DROP_TIME, .catch_time = MERGE_CATCH_TIME,
        .juggle_height = MERGE_JUGGLE_HEIGHT,
        .head_amp = MERGE_HEAD_WOBBLE_AMPLITUDE, .fruit_amp = MERGE_FRUIT_DANGLE_AMPLITUDE,
        .wiggle_amp = MERGE_SPEED_WIGGLE_AMPLITUDE, .wiggle_freq = MERGE_SPEED_WIGGLE_FREQUENCY,
        .hat_mult = MERGE_HAT_WOBBLE_MULTIPLIER,
        .fruit_dangle_time = MERGE_FRUIT_DANGLE_TIME,
        .fruit_dangle_freq = MERGE_FRUIT_DANGLE_FREQUENCY,
        .hat_wobble_time = MERGE_HAT_WOBBLE_TIME, .hat_wobble_freq = MERGE_HAT_WOBBLE_FREQUENCY,
    };
}

int sim__merge_carrier_cfg_check(const merge_carrier_cfg *cfg)
{
    const double all[] = {
        cfg->speed, cfg->xmin, cfg->xmax, cfg->drop_time, cfg->catch_time, cfg->juggle_height,
        cfg->head_amp, cfg->fruit_amp, cfg->wiggle_amp, cfg->wiggle_freq, cfg->hat_mult,
        cfg->fruit_dangle_time, cfg->fruit_dangle_freq, cfg->hat_wobble_time,
        cfg->hat_wobble_freq,
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!sim_isfinite(all[i])) return SIM_EINVAL;
    if (cfg->speed < 0.0 || cfg->xmin > cfg->xmax) return SIM_EINVAL;
    if (cfg->drop_time <= 0.0 || cfg->catch_time <= 0.0) return SIM_EINVAL;
    if (cfg->fruit_dangle_time <= 0.0 || cfg->hat_wobble_time <= 0.0) return SIM_EINVAL;
    if (cfg->wiggle_freq < 0.0 || cfg->fruit_dangle_freq < 0.0 || cfg->hat_wobble_freq < 0.0)
        return SIM_EINVAL;
    return 0;
}

void sim__merge_carrier_init(merge_carrier *c, const merge_carrier_cfg *cfg, double x)
{
    *c = (merge_carrier){ 0 };
    c->x = clampd(sim_isfinite(x) ? x : cfg->xmin, cfg->xmin, cfg->xmax);
    /* at rest: the fade of a stop that never happened is already over */
    c->dangle_timer = cfg->fruit_dangle_time;
    c->hat_timer = cfg->hat_wobble_time;
    c->juggle = MERGE_JUGGLE_IDLE;
}

/* One decaying wobble (the seed's stop block, for the fruit or the head): while the timer has not
 * run out, the angle is sin(acc) × (1 − t/T) × amp × lastDir × −1: it swings opposite to the last
 * travel first (what is carried keeps going), and the accumulator advances by dt × f × amplitude,
 * so the wobble slows as it fades (sim_fade_wave_step, sim/anim/spring.c). Angle first, then
 * advance, as the seed orders it. The timer is clamped at T (the seed lets it run past; nothing
 * reads it there). Returns the angle, or 0 once the fade is over. */
static double wobble(double *timer, double *acc, double T, double f, double amp, int last_dir,
                     double dt)
{
    if (!(*timer < T)) return 0.0;
    return sim_fade_wave_step(timer, acc, T, f, dt) * amp * (double)last_dir * -1.0;
}

void sim__merge_carrier_update(merge_carrier *c, const merge_carrier_cfg *cfg, double dt,
                               int input_dir)
{
    dt = good_dt(dt);
    int dir = input_dir > 0 ? 1 : input_dir < 0 ? -1 : 0;       /* Mathf.Sign(input) */
    c->move_dir = (int8_t)dir;

    /* the walk */
    c->x = clampd(c->x + (double)dir * cfg->speed * dt, cfg->xmin, cfg->xmax);

    /* the lean: a constant pose toward travel */
    double fruit = (double)dir * cfg->fruit_amp;
    double head = (double)dir * cfg->head_amp;
    if (dir != 0) {
        /* the speed wiggle on top, added to both (the seed adds the same amplitude to each) */
        c->speed_wiggle_acc = sim_phase_advance(c->speed_wiggle_acc, dt * cfg->wiggle_freq);
        double w = sim_sin(c->speed_wiggle_acc) * cfg->wiggle_amp;
        head += w;
        fruit += w;
        /* moving: the hard cut. A stop later starts its wobbles from nothing. */
        c->last_move_dir = (int8_t)dir;
        c->dangle_timer = 0.0;
        c->fruit_dangle_acc = 0.0;
        c->hat_timer = 0.0;
        c->hat_acc = 0.0;
    } else {
        /* stopped: the fruit dangles (4 s) and the head nods (0.75 s), each on its own timer and
         * accumulator, so the two never settle into one rhythm */
        if (c->dangle_timer < cfg->fruit_dangle_time)
            fruit = wobble(&c->dangle_timer, &c->fruit_dangle_acc, cfg->fruit_dangle_time,
                           cfg->fruit_dangle_freq, cfg->fruit_amp, c->last_move_dir, dt);
        if (c->hat_timer < cfg->hat_wobble_time)
            head = wobble(&c->hat_timer, &c->hat_acc, cfg->hat_wobble_time,
                          cfg->hat_wobble_freq, cfg->head_amp, c->last_move_dir, dt);
    }
    c->fruit_angle = fruit;
    c->head_angle = head;
    c->hat_angle = head * cfg->hat_mult;                 /* overlapping action is a multiply */

    /* the juggle. The remainder of a finished drop carries into the catch, so the toss keeps
     * real time across the join; a finished catch lands (idle: exactly on the right socket). */
    if (c->juggle == MERGE_JUGGLE_DROPPING) {
        c->anim_timer += dt;
        if (c->anim_timer >= cfg->drop_time) {
            c->juggle = MERGE_JUGGLE_CATCHING;
            c->anim_timer -= cfg->drop_time;
            /* the fix: the catch's completion is its own time (and so is its progress) */
            if (c->anim_timer >= cfg->catch_time) {
                c->juggle = MERGE_JUGGLE_IDLE;
                c->anim_timer = 0.0;
            }
        }
    } else if (c->juggle == MERGE_JUGGLE_CATCHING) {
        c->anim_timer += dt;
        if (c->anim_timer >= cfg->catch_time) {
            c->juggle = MERGE_JUGGLE_IDLE;
            c->anim_timer = 0.0;
        }
    }
}

int sim__merge_carrier_can_drop(const merge_carrier *c) { return c->juggle == MERGE_JUGGLE_IDLE; }

int sim__merge_carrier_start_juggle(merge_carrier *c)
{
    if (!sim__merge_carrier_can_drop(c)) return SIM_EINVAL;
    c->juggle = MERGE_JUGGLE_DROPPING;
    c->anim_timer = 0.0;
    return 0;
}

void sim__merge_juggle_pos(const merge_carrier *c, const merge_carrier_cfg *cfg, double lx,
                           double ly, double rx, double ry, double *x, double *y)
{
    double mx = (lx + rx) * 0.5, my = (ly + ry) * 0.5;
    if (c->juggle == MERGE_JUGGLE_DROPPING) {
        double t = clampd(c->anim_timer / cfg->drop_time, 0.0, 1.0);
        double theta = SIM_PI * 0.5 * t;
        *x = lerp(lx, mx, t);
        *y = lerp(ly, my, t) - sim_sin(theta) * cfg->juggle_height;
    } else if (c->juggle == MERGE_JUGGLE_CATCHING) {
        /* the seed divides by AnimDropTime here; the catch's own time is the fix */
        double t = clampd(c->anim_timer / cfg->catch_time, 0.0, 1.0);
        double theta = SIM_PI * 0.5 * t;
        *x = lerp(mx, rx, t);
        *y = lerp(my, ry, t) - sim_cos(theta) * cfg->juggle_height;
    } else {
        *x = rx;
        *y = ry;
    }
}

int sim__merge_carrier_dir_to(const merge_carrier *c, const merge_carrier_cfg *cfg,
                              double target_x, double dt)
{
    if (!sim_isfinite(target_x)) return 0;
    double d = clampd(target_x, cfg->xmin, cfg->xmax) - c->x;
    double half = cfg->speed * good_dt(dt) * 0.5;
    /* Past half a step, a step lands closer than half a step beyond or short of the target:
     * the next call says 0, never the opposite sign, so there is no back-and-forth. */
    if (d > half) return 1;
    if (d < -half) return -1;
    return 0;
}

void sim__merge_hand_poses(const merge_carrier *c, int *left, int *right)
{
    switch (c->juggle) {
    case MERGE_JUGGLE_DROPPING:
        *left = MERGE_HAND_OPEN_FLIPV;       /* LeftOpen.FlipV = true */
        *right = MERGE_HAND_OPEN;            /* RightOpen.FlipV = false */
        break;
    case MERGE_JUGGLE_CATCHING:
        *left = MERGE_HAND_CLOSED_FLIPV;
        *right = MERGE_HAND_OPEN;
        break;
    default:
        *left = MERGE_HAND_CLOSED;
        *right = MERGE_HAND_CLOSED;
        break;
    }
}

static int is_dir(int d) { return d >= -1 && d <= 1; }

int sim__merge_carrier_check(const merge_carrier *c, const merge_carrier_cfg *cfg)
{
    const double all[] = {
        c->x, c->speed_wiggle_acc, c->dangle_timer, c->fruit_dangle_acc, c->hat_timer,
        c->hat_acc, c->head_angle, c->fruit_angle, c->hat_angle, c->anim_timer,
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!sim_isfinite(all[i])) return SIM_ECORRUPT;
    if (c->x < cfg->xmin || c->x > cfg->xmax) return SIM_ECORRUPT;
    if (!is_dir(c->move_dir) || !is_dir(c->last_move_dir)) return SIM_ECORRUPT;
    if (!(c->speed_wiggle_acc >= 0.0 && c->speed_wiggle_acc < TWO_PI)) return SIM_ECORRUPT;
    if (c->dangle_timer < 0.0 || c->dangle_timer > cfg->fruit_dangle_time) return SIM_ECORRUPT;
    if (c->hat_timer < 0.0 || c->hat_timer > cfg->hat_wobble_time) return SIM_ECORRUPT;
    if (c->fruit_dangle_acc < 0.0
        || c->fruit_dangle_acc > cfg->fruit_dangle_freq * cfg->fruit_dangle_time)
        return SIM_ECORRUPT;
    if (c->hat_acc < 0.0 || c->hat_acc > cfg->hat_wobble_freq * cfg->hat_wobble_time)
        return SIM_ECORRUPT;
    /* moving: the dangle state was cut to zero and the last direction is this one */
    if (c->move_dir != 0
        && (c->last_move_dir != c->move_dir || c->dangle_timer != 0.0
            || c->fruit_dangle_acc != 0.0 || c->hat_timer != 0.0 || c->hat_acc != 0.0))
        return SIM_ECORRUPT;
    double wa = absd(cfg->wiggle_amp);
    if (absd(c->head_angle) > absd(cfg->head_amp) + wa) return SIM_ECORRUPT;
    if (absd(c->fruit_angle) > absd(cfg->fruit_amp) + wa) return SIM_ECORRUPT;
    if (c->hat_angle != c->head_angle * cfg->hat_mult) return SIM_ECORRUPT;
    switch (c->juggle) {
    case MERGE_JUGGLE_IDLE:
        if (c->anim_timer != 0.0) return SIM_ECORRUPT;
        break;
    case MERGE_JUGGLE_DROPPING:
        if (c->anim_timer < 0.0 || c->anim_timer >= cfg->drop_time) return SIM_ECORRUPT;
        break;
    case MERGE_JUGGLE_CATCHING:
        if (c->anim_timer < 0.0 || c->anim_timer >= cfg->catch_time) return SIM_ECORRUPT;
        break;
    default:
        return SIM_ECORRUPT;
    }
    return 0;
}

/* ---- the fruit's idle life ------------------------------------------------------------------- */
void sim__merge_life_init(merge_fruit_life *l, uint64_t seed, uint64_t serial)
{
    *l = (merge_fruit_life){ 0 };
    /* (seed, serial) → a state and a stream selector through splitmix64, so neighbouring serials
     * get unrelated sequences rather than PCG streams that differ only in their increment */
    uint64_t k = seed ^ sim_mix64(serial + 0x6d65726765ULL);      /* "merge" */
    uint64_t st = sim_splitmix64(&k);
    uint64_t seq = sim_splitmix64(&k);
    sim_rng_seed(&l->rng, st, seq);
    l->blink_every = MERGE_BLINK_EVERY_MIN
                     + (MERGE_BLINK_EVERY_MAX - MERGE_BLINK_EVERY_MIN) * sim_rng_unit(&l->rng);
    l->blink_prob = MERGE_BLINK_PROB_MIN
                    + (MERGE_BLINK_PROB_MAX - MERGE_BLINK_PROB_MIN) * sim_rng_unit(&l->rng);
    /* ours: random starting phases, so twenty fruit spawned on one tick still check apart */
    l->look_timer = MERGE_LOOK_TIME * sim_rng_unit(&l->rng);
    l->blink_timer = l->blink_every * sim_rng_unit(&l->rng);
}

void sim__merge_life_update(merge_fruit_life *l, double dt)
{
    dt = good_dt(dt);
    if (l->blinking) {
        l->blink_left -= dt;
        if (l->blink_left <= BLINK_EPS) {
            l->blinking = 0;
            l->blink_left = 0.0;
        }
    }
    /* the glance: LookTimer -= LookTime keeps the remainder, so checks keep a 1 s rhythm whatever
     * dt is; a loop rather than the seed's if, so a long dt runs every check it covers */
    l->look_timer += dt;
    while (l->look_timer >= MERGE_LOOK_TIME) {
        l->look_timer -= MERGE_LOOK_TIME;
        if (sim_rng_unit(&l->rng) < MERGE_LOOK_CHANCE) l->look_flip = (uint8_t)!l->look_flip;
    }
    /* the blink: its own timer and chance; a check that falls inside a blink is skipped */
    l->blink_timer += dt;
    while (l->blink_timer >= l->blink_every) {
        l->blink_timer -= l->blink_every;
        if (!l->blinking && sim_rng_unit(&l->rng) < l->blink_prob) {
            l->blinking = 1;
            l->blink_left = MERGE_BLINK_TIME;
        }
    }
}

double sim__merge_life_eye_scale(const merge_fruit_life *l)
{
    return l->blinking ? MERGE_BLINK_SCALE : 1.0;
}

int sim__merge_life_check(const merge_fruit_life *l)
{
    const double all[] = { l->look_timer, l->blink_timer, l->blink_left, l->blink_every,
                           l->blink_prob };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!sim_isfinite(all[i])) return SIM_ECORRUPT;
    if (l->look_timer < 0.0 || l->look_timer >= MERGE_LOOK_TIME) return SIM_ECORRUPT;
    if (l->blink_every < MERGE_BLINK_EVERY_MIN || l->blink_every >= MERGE_BLINK_EVERY_MAX)
        return SIM_ECORRUPT;
    if (l->blink_prob < MERGE_BLINK_PROB_MIN || l->blink_prob >= MERGE_BLINK_PROB_MAX)
        return SIM_ECORRUPT;
    if (l->blink_timer < 0.0 || l->blink_timer >= l->blink_every) return SIM_ECORRUPT;
    if (l->look_flip > 1 || l->blinking > 1) return SIM_ECORRUPT;
    if (l->blinking ? !(l->blink_left > 0.0 && l->blink_left <= MERGE_BLINK_TIME)
                    : l->blink_left != 0.0)
        return SIM_ECORRUPT;
    if ((l->rng.inc & 1u) == 0) return SIM_ECORRUPT;          /* a PCG increment is odd */
    return 0;
}
