/* verlet.c — the Verlet frame: chunks, distance links, pins, terrain collision (seed 001).
 *
 * Everything is + − × ÷ and sim_sqrt on doubles, in a fixed order, so a step is bit-identical on
 * every IEEE 754 machine built with -ffp-contract=off. Nothing here allocates after init. */
#include "verlet.h"
#include <stdlib.h>

static double clamp_spin(double w)
{
    return w > SIM_VL_MAX_SPIN ? SIM_VL_MAX_SPIN : w < -SIM_VL_MAX_SPIN ? -SIM_VL_MAX_SPIN : w;
}

/* ---- lifetime ------------------------------------------------------------------------------ */
int sim_verlet_init(sim_verlet *v, int cap_chunk, int cap_link, int cap_pin, int cap_body)
{
    memset(v, 0, sizeof *v);
    if (cap_chunk < 1 || cap_link < 1 || cap_pin < 1 || cap_body < 1 || cap_chunk > 65535 ||
        cap_link > 65535 || cap_pin > 65535 || cap_body > 65535)
        return SIM_EINVAL;
    v->chunk = calloc((size_t)cap_chunk, sizeof *v->chunk);
    v->link = calloc((size_t)cap_link, sizeof *v->link);
    v->pin = calloc((size_t)cap_pin, sizeof *v->pin);
    v->body = calloc((size_t)cap_body, sizeof *v->body);
    v->ax = calloc((size_t)cap_chunk, sizeof *v->ax);
    v->ay = calloc((size_t)cap_chunk, sizeof *v->ay);
    v->ox = calloc((size_t)cap_chunk, sizeof *v->ox);
    v->oy = calloc((size_t)cap_chunk, sizeof *v->oy);
    v->contact = calloc((size_t)cap_chunk, 1);
    v->cap_pair = SIM_VL_PAIRS_PER_CHUNK * cap_chunk;
    v->pair = calloc((size_t)v->cap_pair, sizeof *v->pair);
    v->pair_tmp = calloc((size_t)v->cap_pair, sizeof *v->pair_tmp);
    v->pair_cnt = calloc((size_t)cap_chunk + 1, sizeof *v->pair_cnt);
    v->order = calloc((size_t)cap_chunk, sizeof *v->order);
    v->key = calloc((size_t)cap_chunk, sizeof *v->key);
    v->cbody = calloc((size_t)cap_chunk, sizeof *v->cbody);
    v->pn = calloc((size_t)v->cap_pair, sizeof *v->pn);
    v->im = calloc((size_t)cap_chunk, sizeof *v->im);
    v->yorder = calloc((size_t)cap_chunk, sizeof *v->yorder);
    v->rank = calloc((size_t)cap_chunk, sizeof *v->rank);
    v->shock = calloc((size_t)v->cap_pair, sizeof *v->shock);
    v->at = calloc((size_t)cap_chunk, sizeof *v->at);
    v->iw = calloc((size_t)cap_chunk, sizeof *v->iw);
    v->sc = calloc((size_t)v->cap_pair, sizeof *v->sc);
    v->scp = calloc((size_t)v->cap_pair, sizeof *v->scp);
    v->pressed = calloc((size_t)cap_chunk, sizeof *v->pressed);
    v->scn = calloc((size_t)v->cap_pair, sizeof *v->scn);
    if (!v->chunk || !v->link || !v->pin || !v->body || !v->ax || !v->ay || !v->ox || !v->oy ||
        !v->contact || !v->pair || !v->pair_tmp || !v->pair_cnt || !v->order || !v->key ||
        !v->cbody || !v->pn || !v->sc || !v->scn || !v->im || !v->iw || !v->at ||
        !v->yorder || !v->rank || !v->shock || !v->scp || !v->pressed) {
        sim_verlet_free(v);
        return SIM_ENOMEM;
    }
    v->cap_chunk = cap_chunk;
    v->cap_link = cap_link;
    v->cap_pin = cap_pin;
    v->cap_body = cap_body;
    v->dt = 1.0 / 40.0;
    v->friction = SIM_VL_FRICTION;
    return 0;
}

void sim_verlet_free(sim_verlet *v)
{
    free(v->chunk);
    free(v->link);
    free(v->pin);
    free(v->body);
    free(v->ax);
    free(v->ay);
    free(v->ox);
    free(v->oy);
    free(v->contact);
    free(v->pair);
    free(v->pair_tmp);
    free(v->pair_cnt);
    free(v->order);
    free(v->key);
    free(v->cbody);
    free(v->pn);
    free(v->im);
    free(v->yorder);
    free(v->rank);
    free(v->shock);
    free(v->at);
    free(v->iw);
    free(v->sc);
    free(v->scp);
    free(v->pressed);
    free(v->scn);
    memset(v, 0, sizeof *v);
}

void sim_verlet_clear(sim_verlet *v)
{
    v->nchunk = v->nlink = v->npin = v->nbody = 0;
    v->npair = v->npair_lost = v->norder = v->nyorder = 0;
}

/* ---- building ------------------------------------------------------------------------------ */
int sim_verlet_body_begin(sim_verlet *v, uint8_t kind)
{
    if (v->nbody >= v->cap_body) return -1;
    sim_body *b = &v->body[v->nbody];
    b->kind = kind;
    b->c0 = (uint16_t)v->nchunk;
    b->nc = 0;
    b->l0 = (uint16_t)v->nlink;
    b->nl = 0;
    return v->nbody++;
}

int sim_verlet_add_chunk(sim_verlet *v, double x, double y, double r, double m)
{
    if (v->nbody == 0 || v->nchunk >= v->cap_chunk) return -1;
    if (!(r >= SIM_VL_MIN_RADIUS && r <= SIM_VL_MAX_RADIUS) || !(m >= SIM_VL_MIN_MASS && m <= SIM_VL_MAX_MASS))
        return -1;
    if (!sim_isfinite(x) || !sim_isfinite(y)) return -1;
    int i = v->nchunk++;
    sim_chunk *c = &v->chunk[i];
    c->x = c->px = x;
    c->y = c->py = y;
    c->r = r;
    c->m = m;
    c->a = c->w = 0.0;
    v->ax[i] = v->ay[i] = 0.0;
    v->contact[i] = 0;
    if (v->norder == i) v->order[v->norder++] = (uint16_t)i;
    if (v->nyorder == i) v->yorder[v->nyorder++] = (uint16_t)i;
    v->body[v->nbody - 1].nc++;
    return i;
}

int sim_verlet_add_link(sim_verlet *v, int a, int b, double rest, double stiff)
{
    if (v->nbody == 0 || v->nlink >= v->cap_link) return -1;
    const sim_body *bd = &v->body[v->nbody - 1];
    if (a == b || a < bd->c0 || b < bd->c0 || a >= bd->c0 + bd->nc || b >= bd->c0 + bd->nc) return -1;
    if (!(stiff >= 0.0 && stiff <= 1.0)) return -1;
    if (rest < 0.0) {
        double dx = v->chunk[b].x - v->chunk[a].x, dy = v->chunk[b].y - v->chunk[a].y;
        rest = sim_sqrt(dx * dx + dy * dy);
    }
    if (!sim_isfinite(rest)) return -1;
    int i = v->nlink++;
    v->link[i].a = (uint16_t)a;
    v->link[i].b = (uint16_t)b;
    v->link[i].rest = rest;
    v->link[i].stiff = stiff;
    v->body[v->nbody - 1].nl++;
    return i;
}

void sim_verlet_body_drop_last(sim_verlet *v)
{
    if (v->nbody == 0) return;
    int bi = v->nbody - 1;
    for (int i = v->npin - 1; i >= 0; i--)
        if (v->pin[i].body == bi) sim_verlet_pin_remove(v, i);
    v->nchunk = v->body[bi].c0;
    v->nlink = v->body[bi].l0;
    v->nbody--;
    v->norder = v->nyorder = 0;
}

void sim_verlet_body_remove(sim_verlet *v, int b)
{
    if (b < 0 || b >= v->nbody) return;
    int c0 = v->body[b].c0, nc = v->body[b].nc, l0 = v->body[b].l0, nl = v->body[b].nl;
    int c1 = c0 + nc, l1 = l0 + nl;
    /* Pins are ordered by body, so b's are one run: drop it, renumber the ones after it. */
    int p0 = 0;
    while (p0 < v->npin && v->pin[p0].body < b) p0++;
    int p1 = p0;
    while (p1 < v->npin && v->pin[p1].body == b) p1++;
    memmove(&v->pin[p0], &v->pin[p1], (size_t)(v->npin - p1) * sizeof *v->pin);
    v->npin -= p1 - p0;
    for (int i = p0; i < v->npin; i++) {
        v->pin[i].chunk = (uint16_t)(v->pin[i].chunk - nc);
        v->pin[i].body = (uint16_t)(v->pin[i].body - 1);
    }
    size_t tail = (size_t)(v->nchunk - c1);
    memmove(&v->chunk[c0], &v->chunk[c1], tail * sizeof *v->chunk);
    memmove(&v->ax[c0], &v->ax[c1], tail * sizeof *v->ax);
    memmove(&v->ay[c0], &v->ay[c1], tail * sizeof *v->ay);
    memmove(&v->ox[c0], &v->ox[c1], tail * sizeof *v->ox);
    memmove(&v->oy[c0], &v->oy[c1], tail * sizeof *v->oy);
    memmove(&v->contact[c0], &v->contact[c1], tail);
    v->nchunk -= nc;
    memmove(&v->link[l0], &v->link[l1], (size_t)(v->nlink - l1) * sizeof *v->link);
    v->nlink -= nl;
    for (int i = l0; i < v->nlink; i++) {
        v->link[i].a = (uint16_t)(v->link[i].a - nc);
        v->link[i].b = (uint16_t)(v->link[i].b - nc);
    }
    memmove(&v->body[b], &v->body[b + 1], (size_t)(v->nbody - b - 1) * sizeof *v->body);
    v->nbody--;
    for (int i = b; i < v->nbody; i++) {
        v->body[i].c0 = (uint16_t)(v->body[i].c0 - nc);
        v->body[i].l0 = (uint16_t)(v->body[i].l0 - nl);
    }
    /* The pair list: a monotone renumbering keeps it ascending. */
    int n = 0;
    for (int k = 0; k < v->npair; k++) {
        int i = v->pair[k][0], j = v->pair[k][1];
        if ((i >= c0 && i < c1) || (j >= c0 && j < c1)) continue;
        v->pair[n][0] = (uint16_t)(i >= c1 ? i - nc : i);
        v->pair[n][1] = (uint16_t)(j >= c1 ? j - nc : j);
        memmove(v->pn[n], v->pn[k], sizeof v->pn[k]);
        n++;
    }
    v->npair = n;
    v->norder = v->nyorder = 0;                   /* the next step rebuilds the sweep orders */
}

int sim_verlet_make_rope(sim_verlet *v, uint8_t kind, double x, double y, double ux, double uy)
{
    if (v->nbody >= v->cap_body || v->nchunk + SIM_ROPE_CHUNKS > v->cap_chunk ||
        v->nlink + SIM_ROPE_CHUNKS - 1 > v->cap_link)
        return -1;
    int b = sim_verlet_body_begin(v, kind);
    int first = v->nchunk;
    for (int i = 0; i < SIM_ROPE_CHUNKS; i++)
        sim_verlet_add_chunk(v, x + ux * SIM_ROPE_LINK * i, y + uy * SIM_ROPE_LINK * i,
                             SIM_ROPE_RADIUS, 1.0);
    for (int i = 0; i + 1 < SIM_ROPE_CHUNKS; i++)
        sim_verlet_add_link(v, first + i, first + i + 1, SIM_ROPE_LINK, 1.0);
    return b;
}

/* ---- pins ---------------------------------------------------------------------------------- */
int sim_verlet_body_of(const sim_verlet *v, int chunk)
{
    if (chunk < 0 || chunk >= v->nchunk) return -1;
    /* Bodies tile the chunks in order: binary search over c0. */
    int lo = 0, hi = v->nbody - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (v->body[mid].c0 <= chunk) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int sim_verlet_pin_add(sim_verlet *v, int chunk, uint32_t tag, double x, double y, double stiff)
{
    int body = sim_verlet_body_of(v, chunk);
    if (body < 0 || v->npin >= v->cap_pin || !(stiff > 0.0 && stiff <= 1.0) || !sim_isfinite(x) ||
        !sim_isfinite(y))
        return -1;
    int at = v->npin;
    while (at > 0 && v->pin[at - 1].body > body) at--;
    memmove(&v->pin[at + 1], &v->pin[at], (size_t)(v->npin - at) * sizeof *v->pin);
    sim_pin *p = &v->pin[at];
    p->chunk = (uint16_t)chunk;
    p->body = (uint16_t)body;
    p->tag = tag;
    p->x = x;
    p->y = y;
    p->stiff = stiff;
    v->npin++;
    return at;
}

void sim_verlet_pin_remove(sim_verlet *v, int i)
{
    if (i < 0 || i >= v->npin) return;
    memmove(&v->pin[i], &v->pin[i + 1], (size_t)(v->npin - i - 1) * sizeof *v->pin);
    v->npin--;
}

int sim_verlet_pin_find(const sim_verlet *v, uint32_t tag)
{
    for (int i = 0; i < v->npin; i++)
        if (v->pin[i].tag == tag) return i;
    return -1;
}

/* ---- terrain queries ----------------------------------------------------------------------- */
double sim_seg_closest(const sim_seg *s, double x, double y, double *qx, double *qy, double *t)
{
    double ex = s->bx - s->ax, ey = s->by - s->ay;
    double len2 = ex * ex + ey * ey;
    double u = len2 > 0.0 ? ((x - s->ax) * ex + (y - s->ay) * ey) / len2 : 0.0;
    if (u < 0.0) u = 0.0;
    else if (u > 1.0) u = 1.0;
    double cx = s->ax + ex * u, cy = s->ay + ey * u;
    if (qx) *qx = cx;
    if (qy) *qy = cy;
    if (t) *t = u;
    return (x - cx) * (x - cx) + (y - cy) * (y - cy);
}

void sim_seg_normal(const sim_seg *s, double *nx, double *ny)
{
    double ex = s->bx - s->ax, ey = s->by - s->ay;
    double len = sim_sqrt(ex * ex + ey * ey);
    if (len > 0.0) {
        *nx = ey / len;
        *ny = -ex / len;
    } else {
        *nx = 0.0;
        *ny = -1.0;
    }
}

int sim_verlet_ground(const sim_verlet *v, double x, double y, double maxd, double *gy)
{
    int best = -1;
    double by = 0.0;
    for (int i = 0; i < v->nseg; i++) {
        const sim_seg *s = &v->seg[i];
        if (s->kind == SIM_SEG_POLE) continue;
        double x0 = s->ax < s->bx ? s->ax : s->bx, x1 = s->ax < s->bx ? s->bx : s->ax;
        if (x1 - x0 < 1e-9 || x < x0 || x > x1) continue;          /* vertical, or not under x */
        double sy = s->ay + (s->by - s->ay) * ((x - s->ax) / (s->bx - s->ax));
        if (sy < y || sy - y > maxd) continue;
        double nx, ny;
        sim_seg_normal(s, &nx, &ny);
        /* Standing needs an upward face on the side we come from: a one-way plank's open side,
         * or whichever side of a solid segment (x, y) is on. */
        if (s->kind == SIM_SEG_SOLID && (x - s->ax) * nx + (y - s->ay) * ny < 0.0) {
            nx = -nx;
            ny = -ny;
        }
        if (ny > -0.3) continue;
        if (best < 0 || sy < by) {
            best = i;
            by = sy;
        }
    }
    if (best >= 0 && gy) *gy = by;
    return best;
}

/* Do segments p0–p1 and q0–q1 cross (touching counts)? Orientation tests only. */
static int cross_sign(double ax, double ay, double bx, double by, double cx, double cy)
{
    double c = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    return (c > 0.0) - (c < 0.0);
}

int sim_verlet_blocked(const sim_verlet *v, double x0, double y0, double x1, double y1, int skip)
{
    for (int i = 0; i < v->nseg; i++) {
        const sim_seg *s = &v->seg[i];
        if (i == skip || s->kind == SIM_SEG_POLE) continue;
        int d1 = cross_sign(s->ax, s->ay, s->bx, s->by, x0, y0);
        int d2 = cross_sign(s->ax, s->ay, s->bx, s->by, x1, y1);
        int d3 = cross_sign(x0, y0, x1, y1, s->ax, s->ay);
        int d4 = cross_sign(x0, y0, x1, y1, s->bx, s->by);
        if (d1 * d2 < 0 && d3 * d4 < 0) return 1;
    }
    return 0;
}

/* ---- the solve ----------------------------------------------------------------------------- */
static void solve_link(sim_verlet *v, const sim_link *l)
{
    sim_chunk *a = &v->chunk[l->a], *b = &v->chunk[l->b];
    double dx = b->x - a->x, dy = b->y - a->y;
    double d2 = dx * dx + dy * dy;
    if (d2 < 1e-18) return;                       /* coincident: no direction to push along */
    double d = sim_sqrt(d2);
    double wa = 1.0 / a->m, wb = 1.0 / b->m;
    double k = (d - l->rest) / (d * (wa + wb)) * l->stiff;
    a->x += dx * k * wa;
    a->y += dy * k * wa;
    b->x -= dx * k * wb;
    b->y -= dy * k * wb;
}

static void solve_pin(sim_verlet *v, const sim_pin *p)
{
    sim_chunk *c = &v->chunk[p->chunk];
    c->x += (p->x - c->x) * p->stiff;
    c->y += (p->y - c->y) * p->stiff;
}

/* Keep chunk i within SIM_VL_MAX_STEP of where it started the step. */
static inline void cap_step(sim_verlet *v, int i)
{
    sim_chunk *c = &v->chunk[i];
    double dx = c->x - v->ox[i], dy = c->y - v->oy[i];
    double d2 = dx * dx + dy * dy;
    if (d2 <= SIM_VL_MAX_STEP * SIM_VL_MAX_STEP) return;
    double s = SIM_VL_MAX_STEP / sim_sqrt(d2);
    c->x = v->ox[i] + dx * s;
    c->y = v->oy[i] + dy * s;
}

/* Collide chunk i with every segment: push out along the normal, then rewrite the implicit
 * velocity — approaching normal part cancelled, separating part kept, tangential part × 0.93.
 *
 * Which side to keep it on is decided by where it started the step: something that crossed a
 * surface mid-step pops back out the way it came. That start only speaks for a segment it was
 * beside (or one its path went through); a chunk coming round the end of a segment keeps the side
 * it is on now. A path through a segment is pushed back even when it ends past the segment's end,
 * where the round end cap alone would let it through. */
static void collide(sim_verlet *v, int i, int record)
{
    sim_chunk *c = &v->chunk[i];
    double ox = v->ox[i], oy = v->oy[i], r = c->r;
    double reach = r + SIM_VL_SKIN + 1.0;
    cap_step(v, i);
    /* Every contact below needs the chunk within r + skin of the segment, or its path from the
     * start through the segment: if the path's box, grown by that (and a unit for rounding), misses
     * the segment's box, nothing below would act. Skipping changes no result, and saves the square
     * root and the divisions for all but the few segments near the chunk. The box follows the
     * chunk's pushes. */
    double x0 = (ox < c->x ? ox : c->x) - reach, x1 = (ox < c->x ? c->x : ox) + reach;
    double y0 = (oy < c->y ? oy : c->y) - reach, y1 = (oy < c->y ? c->y : oy) + reach;
    int hit = 0;
    for (int k = 0; k < v->nseg; k++) {
        const sim_seg *s = &v->seg[k];
        if (s->kind == SIM_SEG_POLE) continue;
        if (x1 < (s->ax < s->bx ? s->ax : s->bx) || x0 > (s->ax < s->bx ? s->bx : s->ax) ||
            y1 < (s->ay < s->by ? s->ay : s->by) || y0 > (s->ay < s->by ? s->by : s->ay))
            continue;
        double ex = s->bx - s->ax, ey = s->by - s->ay;
        double len2 = ex * ex + ey * ey;
        if (len2 <= 0.0) continue;
        double len = sim_sqrt(len2);
        double nx = ey / len, ny = -ex / len;
        double so = (ox - s->ax) * nx + (oy - s->ay) * ny;
        if (s->kind == SIM_SEG_ONEWAY && so < 0.0) continue;      /* a ghost from below */
        double to = ((ox - s->ax) * ex + (oy - s->ay) * ey) / len2;
        double t = ((c->x - s->ax) * ex + (c->y - s->ay) * ey) / len2;
        double sp = (c->x - s->ax) * nx + (c->y - s->ay) * ny;
        /* Did the path from the start go through the segment itself? */
        int crossed = (so > 0.0 && sp < 0.0) || (so < 0.0 && sp > 0.0);
        if (crossed) {
            int d3 = cross_sign(ox, oy, c->x, c->y, s->ax, s->ay);
            int d4 = cross_sign(ox, oy, c->x, c->y, s->bx, s->by);
            crossed = d3 * d4 < 0;
        }
        double side = (to >= 0.0 && to <= 1.0) || crossed ? so : sp;
        if (s->kind == SIM_SEG_ONEWAY && side < 0.0) continue;    /* came round under the end */
        if (side < 0.0) {
            nx = -nx;
            ny = -ny;
        }
        double cnx, cny, depth = 0.0;
        if ((t > 0.0 && t < 1.0) || crossed) {
            double dist = (c->x - s->ax) * nx + (c->y - s->ay) * ny;
            if (dist >= r + SIM_VL_SKIN) continue;
            cnx = nx;
            cny = ny;
            if (dist < r) {
                depth = r - dist;
                c->x += nx * (r - dist);
                c->y += ny * (r - dist);
            }
        } else {
            double qx = t <= 0.0 ? s->ax : s->bx, qy = t <= 0.0 ? s->ay : s->by;
            double dx = c->x - qx, dy = c->y - qy;
            double d2 = dx * dx + dy * dy;
            if (d2 >= (r + SIM_VL_SKIN) * (r + SIM_VL_SKIN)) continue;
            double d = sim_sqrt(d2);
            if (d > 1e-9) {
                cnx = dx / d;
                cny = dy / d;
            } else {
                cnx = nx;
                cny = ny;
            }
            if (d < r) {
                depth = r - d;
                c->x = qx + cnx * r;
                c->y = qy + cny * r;
            }
        }
        v->contact[i] |= SIM_VL_TOUCH;
        if (cny < -0.5) v->contact[i] |= SIM_VL_GROUND;
        hit = 1;
        if (v->collide_chunks) {
            /* A pile only moves in the passes; the last one notes the contact for the velocity
             * phase (seg_velocity), and whether the segment pressed the chunk in the step. */
            uint32_t bit = k < 31 ? UINT32_C(1) << k : UINT32_C(1) << 31;
            if (depth > SIM_VL_PRESS) v->pressed[i] |= bit;
            if (record && v->nsc < v->cap_pair) {
                v->sc[v->nsc] = (uint16_t)i;
                v->scn[v->nsc][0] = cnx;
                v->scn[v->nsc][1] = cny;
                v->scp[v->nsc] = (v->pressed[i] & bit) != 0;
                v->nsc++;
            }
            x0 = (ox < c->x ? ox : c->x) - reach;
            x1 = (ox < c->x ? c->x : ox) + reach;
            y0 = (oy < c->y ? oy : c->y) - reach;
            y1 = (oy < c->y ? c->y : oy) + reach;
            continue;
        }
        double vx = c->x - c->px, vy = c->y - c->py;
        double vn = vx * cnx + vy * cny;
        double tx, ty;
        if (v->spin) {
            /* Friction on the slip s at the contact point (verlet.h, "Spin"). The impulse J along
             * the tangent that removes the fraction f of s gives Δv = J/m and Δw = −r·J/I; with
             * I = ½ m r² that is Δv = −f·s/3 and Δw = 2·f·s/(3r): a third of the slip is taken
             * from the sliding, two thirds from the spin. */
            double ux = -cny, uy = cnx;
            double slip = vx * ux + vy * uy - c->w * r;
            double dv = -v->friction * slip / 3.0;
            c->w = clamp_spin(c->w + 2.0 * v->friction * slip / (3.0 * r));
            tx = vx - vn * cnx + ux * dv;
            ty = vy - vn * cny + uy * dv;
        } else {
            tx = (vx - vn * cnx) * SIM_VL_TANGENT_KEEP;
            ty = (vy - vn * cny) * SIM_VL_TANGENT_KEEP;
        }
        if (vn < 0.0) vn = 0.0;
        c->px = c->x - (vn * cnx + tx);
        c->py = c->y - (vn * cny + ty);
        x0 = (ox < c->x ? ox : c->x) - reach;
        x1 = (ox < c->x ? c->x : ox) + reach;
        y0 = (oy < c->y ? oy : c->y) - reach;
        y1 = (oy < c->y ? c->y : oy) + reach;
    }
    /* A push can only move the chunk further from where it started when it started overlapping;
     * the cap holds anyway. Both ends lie on the kept side of every surface, so the capped point
     * does too. In a pile (a new mode: no old bytes to keep) a chunk nothing touched is where
     * the first cap left it, and the second is skipped. */
    if (hit || !v->collide_chunks) cap_step(v, i);
}

/* ---- chunk against chunk, and the velocity of a pile (collide_chunks) ------------------------ */
/* The pile step (verlet.h) is position-based: the passes only move chunks, so at their end
 * x − px is each chunk's displacement over the step, and a chunk held still by the pile has no
 * velocity at all. Rewriting the velocity at every push instead, as the terrain does for a lone
 * chunk, was tried first: a fruit squeezed between the floor and a heavy neighbour then keeps the
 * floor's last push as a phantom speed, and a pile never reads as at rest (docs/verlet.md). */

/* Push each listed pair of chunks (i < j) apart when they overlap, along the centre line, split
 * by inverse mass (so the centre of mass stays put), in list order. Coincident centres push i
 * up. */
static void push_pairs(sim_verlet *v, const uint16_t (*list)[2], int n)
{
    for (int k = 0; k < n; k++) {
        int i = list[k][0], j = list[k][1];
        sim_chunk *ci = &v->chunk[i], *cj = &v->chunk[j];
        double dx = ci->x - cj->x, dy = ci->y - cj->y;
        double rs = ci->r + cj->r;
        double d2 = dx * dx + dy * dy;
        if (d2 >= rs * rs) continue;
        double d = sim_sqrt(d2);
        double wi = v->im[i], wj = v->im[j], q;
        if (d > 1e-9) {
            /* As solve_link: one division, the correction along (dx, dy) itself. */
            q = (rs - d) / (d * (wi + wj));
        } else {
            dx = 0.0;
            dy = -1.0;
            q = (rs - d) / (wi + wj);
        }
        ci->x += dx * q * wi;
        ci->y += dy * q * wi;
        cj->x -= dx * q * wj;
        cj->y -= dy * q * wj;
    }
}

/* The last pass of a pile step under gravity propagates the pile's weight (shock propagation,
 * Guendelman, Bridson & Fedkiw 2003): the candidate pairs are pushed bottom first, and where one
 * chunk rests on the other (the centre line at least SIM_VL_SHOCK_STEEP from horizontal) the
 * lower one does not move, so each layer is lifted clear of the layer it rests on. Weighting by
 * mass alone, a light fruit under a heavy one (mass goes as r², 44 to 1 across the tiers) gives
 * way for pass after pass, while the floor under it pushes it back: the pile sinks into itself.
 * Bottom first is by (−y, index) of the lower chunk of each pair (the one with the larger y, at a
 * tie the higher index): an insertion sort of the chunks (nearly sorted from the last step), then
 * a stable counting sort of the pairs. This pass conserves no momentum: the floor is pushing. */
static void shock_pairs(sim_verlet *v, int ncand)
{
    int n = v->nchunk;
    uint16_t *o = v->yorder;
    if (v->nyorder != n) {
        for (int i = 0; i < n; i++) o[i] = (uint16_t)i;
        v->nyorder = n;
    }
    for (int k = 1; k < n; k++) {
        uint16_t c = o[k];
        double yc = v->chunk[c].y;
        int m = k;
        while (m > 0 &&
               (v->chunk[o[m - 1]].y < yc || (v->chunk[o[m - 1]].y == yc && o[m - 1] > c))) {
            o[m] = o[m - 1];
            m--;
        }
        o[m] = c;
    }
    for (int k = 0; k < n; k++) v->rank[o[k]] = k;
    int *cnt = v->pair_cnt;
    memset(cnt, 0, (size_t)(n + 1) * sizeof *cnt);
    for (int k = 0; k < ncand; k++) {
        int i = v->pair_tmp[k][0], j = v->pair_tmp[k][1];
        int lower = v->chunk[i].y > v->chunk[j].y ? i : j;
        cnt[v->rank[lower] + 1]++;
    }
    for (int i = 0; i < n; i++) cnt[i + 1] += cnt[i];
    for (int k = 0; k < ncand; k++) {
        int i = v->pair_tmp[k][0], j = v->pair_tmp[k][1];
        int lower = v->chunk[i].y > v->chunk[j].y ? i : j;
        v->shock[cnt[v->rank[lower]]++] = k;
    }
    for (int kk = 0; kk < ncand; kk++) {
        int k = v->shock[kk], i = v->pair_tmp[k][0], j = v->pair_tmp[k][1];
        sim_chunk *ci = &v->chunk[i], *cj = &v->chunk[j];
        double dx = ci->x - cj->x, dy = ci->y - cj->y;
        double rs = ci->r + cj->r;
        double d2 = dx * dx + dy * dy;
        if (d2 >= rs * rs || d2 <= 1e-18) continue;  /* coincident ones: the mass-weighted passes */
        double d = sim_sqrt(d2);
        double wi = v->im[i], wj = v->im[j];
        if (dy > SIM_VL_SHOCK_STEEP * d) wi = 0.0;            /* i is below j (y down) */
        else if (dy < -SIM_VL_SHOCK_STEEP * d) wj = 0.0;
        double q = (rs - d) / (d * (wi + wj));
        ci->x += dx * q * wi;
        ci->y += dy * q * wi;
        cj->x -= dx * q * wj;
        cj->y -= dy * q * wj;
    }
}

/* Insertion sort of the sweep order by (x − r, index), a total order, so the result never depends
 * on what the array held; from one pass to the next it is nearly sorted, and this is O(n). */
static void sort_order(sim_verlet *v)
{
    uint16_t *o = v->order;
    double *key = v->key;
    int n = v->nchunk;
    for (int i = 0; i < n; i++) key[i] = v->chunk[i].x - v->chunk[i].r;
    for (int k = 1; k < n; k++) {
        uint16_t c = o[k];
        double kc = key[c];
        int m = k;
        while (m > 0 && (key[o[m - 1]] > kc || (key[o[m - 1]] == kc && o[m - 1] > c))) {
            o[m] = o[m - 1];
            m--;
        }
        o[m] = c;
    }
}

/* Sort and sweep on x: intervals [x − r, x + r] sorted by their left end, so the chunks after i in
 * the order that can come within `gap` of it are a run that ends at the first whose left end is
 * past i's right end plus the gap (exact pruning: no need for the largest radius; a skin of slack
 * keeps rounding from cutting a pair the exact test would take). Collects the pairs of different
 * bodies with dx² + dy² ≤ (r_i + r_j + gap)² into out (lower index first, in sweep order), up to
 * cap of them, counting the rest in *lost; returns how many it collected. */
static int sweep(sim_verlet *v, double gap, uint16_t (*out)[2], int cap, int *lost)
{
    const uint16_t *o = v->order;
    int n = v->nchunk, np = 0;
    for (int k = 0; k < n; k++) {
        int i = o[k];
        const sim_chunk *ci = &v->chunk[i];
        double right = ci->x + ci->r + gap + SIM_VL_SKIN;
        for (int m = k + 1; m < n; m++) {
            int j = o[m];
            if (v->key[j] > right) break;
            if (v->cbody[i] == v->cbody[j]) continue;
            const sim_chunk *cj = &v->chunk[j];
            double reach = ci->r + cj->r + gap;
            double dy = ci->y - cj->y;
            if (dy > reach || dy < -reach) continue;
            int lo = i < j ? i : j, hi = i < j ? j : i;
            const sim_chunk *a = &v->chunk[lo], *b = &v->chunk[hi];
            double ex = a->x - b->x, ey = a->y - b->y;
            double rr = a->r + b->r + gap;
            if (ex * ex + ey * ey > rr * rr) continue;
            if (np < cap) {
                out[np][0] = (uint16_t)lo;
                out[np][1] = (uint16_t)hi;
                np++;
            } else {
                (*lost)++;
            }
        }
    }
    return np;
}

/* The pair list of the step: touching pairs at its end, bucketed by first chunk (counting sort,
 * stable), put in order within each bucket (a few entries: insertion sort), each with its unit
 * normal from the second chunk toward the first. */
static void list_pairs(sim_verlet *v, int ncand, int cand_lost)
{
    int n = v->nchunk, np = 0;
    v->npair_lost = 0;
    /* If no chunk moved by more than half of (margin − 2 skins) since the candidates were found,
     * a pair that was not a candidate (farther apart than the margin) is still more than a skin
     * apart: the touching pairs are the candidates that touch, and the sweep can be skipped. */
    double far2 = 0.0, lim = 0.5 * (SIM_VL_PAIR_MARGIN - 2.0 * SIM_VL_SKIN);
    for (int i = 0; i < n && !cand_lost; i++) {
        double dx = v->chunk[i].x - v->at[i][0], dy = v->chunk[i].y - v->at[i][1];
        double d2 = dx * dx + dy * dy;
        if (d2 > far2) far2 = d2;
    }
    if (!cand_lost && far2 <= lim * lim) {
        for (int k = 0; k < ncand; k++) {
            const sim_chunk *a = &v->chunk[v->pair_tmp[k][0]], *b = &v->chunk[v->pair_tmp[k][1]];
            double ex = a->x - b->x, ey = a->y - b->y;
            double rr = a->r + b->r + SIM_VL_SKIN;
            if (ex * ex + ey * ey > rr * rr) continue;
            if (np < v->cap_pair) {
                v->pair_tmp[np][0] = v->pair_tmp[k][0];
                v->pair_tmp[np][1] = v->pair_tmp[k][1];
                np++;
            } else {
                v->npair_lost++;
            }
        }
    } else {
        sort_order(v);
        np = sweep(v, SIM_VL_SKIN, v->pair_tmp, v->cap_pair, &v->npair_lost);
    }
    int *cnt = v->pair_cnt;
    memset(cnt, 0, (size_t)(n + 1) * sizeof *cnt);
    for (int k = 0; k < np; k++) cnt[v->pair_tmp[k][0] + 1]++;
    for (int i = 0; i < n; i++) cnt[i + 1] += cnt[i];
    for (int k = 0; k < np; k++) {
        int at = cnt[v->pair_tmp[k][0]]++;
        v->pair[at][0] = v->pair_tmp[k][0];
        v->pair[at][1] = v->pair_tmp[k][1];
    }
    for (int k = 1; k < np; k++) {
        uint16_t a = v->pair[k][0], b = v->pair[k][1];
        int m = k;
        while (m > 0 && v->pair[m - 1][0] == a && v->pair[m - 1][1] > b) {
            v->pair[m][0] = v->pair[m - 1][0];
            v->pair[m][1] = v->pair[m - 1][1];
            m--;
        }
        v->pair[m][0] = a;
        v->pair[m][1] = b;
    }
    for (int k = 0; k < np; k++) {
        int i = v->pair[k][0], j = v->pair[k][1];
        const sim_chunk *a = &v->chunk[i], *b = &v->chunk[j];
        double dx = a->x - b->x, dy = a->y - b->y;
        double d = sim_sqrt(dx * dx + dy * dy);
        v->pn[k][0] = d > 1e-9 ? dx / d : 0.0;
        v->pn[k][1] = d > 1e-9 ? dy / d : -1.0;
        v->pn[k][2] = 1.0 / (v->im[i] + v->im[j]);
        v->pn[k][3] = v->friction * v->pn[k][2] / 3.0;
        v->contact[i] |= SIM_VL_CHUNK;
        v->contact[j] |= SIM_VL_CHUNK;
    }
    v->npair = np;
}

/* The velocity treatment of one touching pair (i < j, unit normal n from j toward i): the
 * relative normal velocity, if approaching, is cancelled by an equal and opposite impulse. The
 * relative tangential velocity keeps SIM_VL_TANGENT_KEEP, or with spin the slip s at the contact
 * point loses the fraction f: the tangential impulse J = −f·s / (3 (1/m_i + 1/m_j)) changes v_i by
 * J/m_i, v_j by −J/m_j, and each w by −2J/(m r) (I = ½ m r²; the slip sees v_i − v_j and both
 * spins). Momentum is conserved. */
static void pair_velocity(sim_verlet *v, int k)
{
    int i = v->pair[k][0], j = v->pair[k][1];
    sim_chunk *ci = &v->chunk[i], *cj = &v->chunk[j];
    double nx = v->pn[k][0], ny = v->pn[k][1], tx = -ny, ty = nx;
    double wi = v->im[i], wj = v->im[j], mred = v->pn[k][2];   /* 1 / (1/m_i + 1/m_j) */
    double rvx = (ci->x - ci->px) - (cj->x - cj->px), rvy = (ci->y - ci->py) - (cj->y - cj->py);
    double vn = rvx * nx + rvy * ny;
    double vt = rvx * tx + rvy * ty;
    double jn = vn < 0.0 ? -vn * mred : 0.0;       /* normal impulse */
    double jt;                                      /* tangential impulse */
    if (v->spin) {
        /* pn[k][3] is f / (3 (1/m_i + 1/m_j)); w is clamped once the phase is over. */
        jt = -(vt - ci->w * ci->r - cj->w * cj->r) * v->pn[k][3];
        ci->w -= jt * v->iw[i];
        cj->w -= jt * v->iw[j];
    } else {
        jt = -(1.0 - SIM_VL_TANGENT_KEEP) * vt * mred;
    }
    ci->px -= (nx * jn + tx * jt) * wi;
    ci->py -= (ny * jn + ty * jt) * wi;
    cj->px += (nx * jn + tx * jt) * wj;
    cj->py += (ny * jn + ty * jt) * wj;
}

/* The same against a terrain contact noted by the last pass (normal from the surface toward the
 * chunk): approaching part cancelled, tangential × SIM_VL_TANGENT_KEEP, or with spin the slip
 * friction of collide(). */
static void seg_velocity(sim_verlet *v, int k)
{
    sim_chunk *c = &v->chunk[v->sc[k]];
    double nx = v->scn[k][0], ny = v->scn[k][1], tx = -ny, ty = nx;
    double vx = c->x - c->px, vy = c->y - c->py;
    double vn = vx * nx + vy * ny;
    double vt = vx * tx + vy * ty;
    double dv;
    if (!v->scp[k]) {
        dv = 0.0;                                   /* touching, not pressed: no friction */
    } else if (v->spin) {
        double slip = vt - c->w * c->r;
        dv = -v->friction * slip / 3.0;
        c->w += 2.0 * v->friction * slip / (3.0 * c->r);
    } else {
        dv = -(1.0 - SIM_VL_TANGENT_KEEP) * vt;
    }
    double dn = vn < 0.0 ? -vn : 0.0;
    c->px -= nx * dn + tx * dv;
    c->py -= ny * dn + ty * dv;
}

void sim_verlet_step(sim_verlet *v)
{
    double dt2 = v->dt * v->dt;
    double keep = 1.0 - v->drag;
    for (int i = 0; i < v->nchunk; i++) {
        sim_chunk *c = &v->chunk[i];
        double vx = (c->x - c->px) * keep, vy = (c->y - c->py) * keep;
        v->ox[i] = c->x;
        v->oy[i] = c->y;
        c->px = c->x;
        c->py = c->y;
        c->x += vx + v->ax[i] * dt2;
        c->y += vy + (v->ay[i] + v->gravity) * dt2;
        v->ax[i] = v->ay[i] = 0.0;
        v->contact[i] = 0;
        v->pressed[i] = 0;
        if (v->spin) {
            /* |a| < π and |w| ≤ π, so one wrap lands in [−π, π); both subtractions are exact
             * (Sterbenz: the operands are within a factor of two). */
            double w = clamp_spin(c->w * (1.0 - v->spin_drag));
            double a = c->a + w;
            if (a >= SIM_PI) a -= 2.0 * SIM_PI;
            else if (a < -SIM_PI) a += 2.0 * SIM_PI;
            c->w = w;
            c->a = a;
        }
    }
    int passes = v->passes > 0 ? v->passes : SIM_VL_PASSES;
    if (v->collide_chunks) {
        for (int b = 0; b < v->nbody; b++)
            for (int k = v->body[b].c0; k < v->body[b].c0 + v->body[b].nc; k++)
                v->cbody[k] = (uint16_t)b;
        for (int i = 0; i < v->nchunk; i++) {
            v->im[i] = 1.0 / v->chunk[i].m;
            v->iw[i] = 2.0 * v->im[i] / v->chunk[i].r;
        }
        if (v->norder != v->nchunk) {
            for (int i = 0; i < v->nchunk; i++) v->order[i] = (uint16_t)i;
            v->norder = v->nchunk;
        }
    }
    /* The candidate pairs of the step: within SIM_VL_PAIR_MARGIN once integrated. A pair that
     * closes a wider gap within the passes is pushed from the next step on. If they do not all
     * fit, every pass sweeps afresh instead. */
    int ncand = 0, cand_lost = 0;
    if (v->collide_chunks) {
        sort_order(v);
        ncand = sweep(v, SIM_VL_PAIR_MARGIN, v->pair_tmp, v->cap_pair, &cand_lost);
        for (int i = 0; i < v->nchunk; i++) {
            v->at[i][0] = v->chunk[i].x;
            v->at[i][1] = v->chunk[i].y;
        }
    }
    v->nsc = 0;
    for (int pass = 0; pass < passes; pass++) {
        /* Links are stored body by body, so index order is body order. */
        for (int l = 0; l < v->nlink; l++) solve_link(v, &v->link[l]);
        for (int p = 0; p < v->npin; p++) solve_pin(v, &v->pin[p]);
        if (!v->collide_chunks) {
            /* the terrarium: no chunk pairs */
        } else if (cand_lost) {
            int lost = 0;
            sort_order(v);
            ncand = sweep(v, SIM_VL_PAIR_MARGIN, v->pair_tmp, v->cap_pair, &lost);
            push_pairs(v, (const uint16_t (*)[2])v->pair_tmp, ncand);
            /* The ones that did not fit: a sweep again from where the list stopped would cost
             * more code than it saves; a pile this dense gets them pushed as its pairs move. */
        } else if (pass == passes - 1 && v->gravity > 0.0) {
            shock_pairs(v, ncand);
        } else {
            push_pairs(v, (const uint16_t (*)[2])v->pair_tmp, ncand);
        }
        for (int i = 0; i < v->nchunk; i++) collide(v, i, pass == passes - 1);
    }
    if (v->collide_chunks) {
        list_pairs(v, ncand, cand_lost);
        for (int pass = 0; pass < passes; pass++) {
            for (int k = 0; k < v->npair; k++) pair_velocity(v, k);
            for (int k = 0; k < v->nsc; k++) seg_velocity(v, k);
        }
        if (v->spin)
            for (int i = 0; i < v->nchunk; i++) v->chunk[i].w = clamp_spin(v->chunk[i].w);
    } else {
        v->npair = 0;
        v->npair_lost = 0;
    }
}

/* ---- state --------------------------------------------------------------------------------- */
#define BODY_BYTES 9
#define CHUNK_BYTES 48
#define SPIN_BYTES 16                /* spin: f64 a, w after a chunk's other fields */
#define LINK_BYTES 20
#define PIN_BYTES 32

size_t sim_verlet_save_max(const sim_verlet *v)
{
    size_t chunk = CHUNK_BYTES + (v->spin ? SPIN_BYTES : 0);
    return 8 + (size_t)v->cap_body * BODY_BYTES + (size_t)v->cap_chunk * chunk +
           (size_t)v->cap_link * LINK_BYTES + (size_t)v->cap_pin * PIN_BYTES;
}

void sim_verlet_save(const sim_verlet *v, sim_writer *wr)
{
    sim__w_u16(wr, (uint16_t)v->nbody);
    sim__w_u16(wr, (uint16_t)v->nchunk);
    sim__w_u16(wr, (uint16_t)v->nlink);
    sim__w_u16(wr, (uint16_t)v->npin);
    for (int i = 0; i < v->nbody; i++) {
        const sim_body *b = &v->body[i];
        sim__w_u8(wr, b->kind);
        sim__w_u16(wr, b->c0);
        sim__w_u16(wr, b->nc);
        sim__w_u16(wr, b->l0);
        sim__w_u16(wr, b->nl);
    }
    for (int i = 0; i < v->nchunk; i++) {
        const sim_chunk *c = &v->chunk[i];
        sim__w_f64(wr, c->x);
        sim__w_f64(wr, c->y);
        sim__w_f64(wr, c->px);
        sim__w_f64(wr, c->py);
        sim__w_f64(wr, c->r);
        sim__w_f64(wr, c->m);
        if (v->spin) {
            sim__w_f64(wr, c->a);
            sim__w_f64(wr, c->w);
        }
    }
    for (int i = 0; i < v->nlink; i++) {
        const sim_link *l = &v->link[i];
        sim__w_u16(wr, l->a);
        sim__w_u16(wr, l->b);
        sim__w_f64(wr, l->rest);
        sim__w_f64(wr, l->stiff);
    }
    for (int i = 0; i < v->npin; i++) {
        const sim_pin *p = &v->pin[i];
        sim__w_u16(wr, p->chunk);
        sim__w_u16(wr, p->body);
        sim__w_u32(wr, p->tag);
        sim__w_f64(wr, p->x);
        sim__w_f64(wr, p->y);
        sim__w_f64(wr, p->stiff);
    }
}

static int coord_ok(double x) { return x > -SIM_VL_MAX_COORD && x < SIM_VL_MAX_COORD; }

int sim_verlet_load(sim_verlet *v, sim_reader *rd)
{
    int nb = sim__r_u16(rd), nc = sim__r_u16(rd), nl = sim__r_u16(rd), np = sim__r_u16(rd);
    if (rd->err) return rd->err;
    if (nb > v->cap_body || nc > v->cap_chunk || nl > v->cap_link || np > v->cap_pin)
        return SIM_ECORRUPT;
    int c_next = 0, l_next = 0;
    for (int i = 0; i < nb; i++) {
        sim_body *b = &v->body[i];
        b->kind = sim__r_u8(rd);
        b->c0 = sim__r_u16(rd);
        b->nc = sim__r_u16(rd);
        b->l0 = sim__r_u16(rd);
        b->nl = sim__r_u16(rd);
        if (rd->err) return rd->err;
        /* Bodies tile the chunk and link arrays in order, each with at least one chunk. */
        if (b->c0 != c_next || b->l0 != l_next || b->nc == 0) return SIM_ECORRUPT;
        c_next += b->nc;
        l_next += b->nl;
        if (c_next > nc || l_next > nl) return SIM_ECORRUPT;
    }
    if (c_next != nc || l_next != nl) return SIM_ECORRUPT;
    v->nbody = nb;
    v->nchunk = nc;
    v->nlink = nl;
    v->npair = v->npair_lost = v->norder = v->nyorder = 0;
    for (int i = 0; i < nc; i++) {
        sim_chunk *c = &v->chunk[i];
        c->x = sim__r_f64(rd);
        c->y = sim__r_f64(rd);
        c->px = sim__r_f64(rd);
        c->py = sim__r_f64(rd);
        c->r = sim__r_f64(rd);
        c->m = sim__r_f64(rd);
        c->a = v->spin ? sim__r_f64(rd) : 0.0;
        c->w = v->spin ? sim__r_f64(rd) : 0.0;
        if (rd->err) return rd->err;
        if (!coord_ok(c->x) || !coord_ok(c->y) || !coord_ok(c->px) || !coord_ok(c->py) ||
            !(c->r >= SIM_VL_MIN_RADIUS && c->r <= SIM_VL_MAX_RADIUS) ||
            !(c->m >= SIM_VL_MIN_MASS && c->m <= SIM_VL_MAX_MASS) ||
            !(c->a >= -SIM_PI && c->a <= SIM_PI) ||
            !(c->w >= -SIM_VL_MAX_SPIN && c->w <= SIM_VL_MAX_SPIN))
            return SIM_ECORRUPT;
        v->ax[i] = v->ay[i] = 0.0;
        v->contact[i] = 0;
    }
    for (int i = 0; i < nb; i++) {
        const sim_body *b = &v->body[i];
        for (int k = b->l0; k < b->l0 + b->nl; k++) {
            sim_link *l = &v->link[k];
            l->a = sim__r_u16(rd);
            l->b = sim__r_u16(rd);
            l->rest = sim__r_f64(rd);
            l->stiff = sim__r_f64(rd);
            if (rd->err) return rd->err;
            if (l->a == l->b || l->a < b->c0 || l->b < b->c0 || l->a >= b->c0 + b->nc ||
                l->b >= b->c0 + b->nc || !(l->rest >= 0.0 && l->rest < SIM_VL_MAX_COORD) ||
                !(l->stiff >= 0.0 && l->stiff <= 1.0))
                return SIM_ECORRUPT;
        }
    }
    for (int i = 0; i < np; i++) {
        sim_pin *p = &v->pin[i];
        p->chunk = sim__r_u16(rd);
        p->body = sim__r_u16(rd);
        p->tag = sim__r_u32(rd);
        p->x = sim__r_f64(rd);
        p->y = sim__r_f64(rd);
        p->stiff = sim__r_f64(rd);
        if (rd->err) return rd->err;
        if (p->chunk >= nc || sim_verlet_body_of(v, p->chunk) != p->body || !coord_ok(p->x) ||
            !coord_ok(p->y) || !(p->stiff > 0.0 && p->stiff <= 1.0) ||
            (i > 0 && v->pin[i - 1].body > p->body))
            return SIM_ECORRUPT;
    }
    v->npin = np;
    return 0;
}

/* ---- desync reports ---------------------------------------------------------------------------- */
static long diff_f64(sim_diff_out *o, const char *what, int idx, const char *field, double a, double b)
{
    if (memcmp(&a, &b, sizeof a) == 0) return 0;
    char sa[64], sb[64];
    sim__fmt_double(sa, sizeof sa, a);
    sim__fmt_double(sb, sizeof sb, b);
    sim_diff_line(o, "%s %d %s: %s → %s", what, idx, field, sa, sb);
    return 1;
}

long sim_verlet_diff(const sim_verlet *a, const sim_verlet *b, sim_diff_out *o)
{
    long n = 0;
    if (a->nbody != b->nbody || a->nchunk != b->nchunk || a->nlink != b->nlink) {
        sim_diff_line(o, "bodies/chunks/links: %d/%d/%d → %d/%d/%d", a->nbody, a->nchunk, a->nlink,
                      b->nbody, b->nchunk, b->nlink);
        return 1;
    }
    for (int i = 0; i < a->nbody; i++)
        if (a->body[i].kind != b->body[i].kind || a->body[i].nc != b->body[i].nc ||
            a->body[i].nl != b->body[i].nl) {
            sim_diff_line(o, "body %d: kind %d, %d chunks → kind %d, %d chunks", i, a->body[i].kind,
                          a->body[i].nc, b->body[i].kind, b->body[i].nc);
            n++;
        }
    for (int i = 0; i < a->nchunk; i++) {
        const sim_chunk *x = &a->chunk[i], *y = &b->chunk[i];
        n += diff_f64(o, "chunk", i, "x", x->x, y->x);
        n += diff_f64(o, "chunk", i, "y", x->y, y->y);
        n += diff_f64(o, "chunk", i, "prev x", x->px, y->px);
        n += diff_f64(o, "chunk", i, "prev y", x->py, y->py);
        n += diff_f64(o, "chunk", i, "radius", x->r, y->r);
        n += diff_f64(o, "chunk", i, "mass", x->m, y->m);
        if (a->spin || b->spin) {
            n += diff_f64(o, "chunk", i, "angle", x->a, y->a);
            n += diff_f64(o, "chunk", i, "spin", x->w, y->w);
        }
    }
    for (int i = 0; i < a->nlink; i++) {
        const sim_link *x = &a->link[i], *y = &b->link[i];
        if (x->a != y->a || x->b != y->b) {
            sim_diff_line(o, "link %d: %d–%d → %d–%d", i, x->a, x->b, y->a, y->b);
            n++;
        }
        n += diff_f64(o, "link", i, "rest", x->rest, y->rest);
        n += diff_f64(o, "link", i, "stiffness", x->stiff, y->stiff);
    }
    if (a->npin != b->npin) {
        sim_diff_line(o, "pins: %d → %d", a->npin, b->npin);
        return n + 1;
    }
    for (int i = 0; i < a->npin; i++) {
        const sim_pin *x = &a->pin[i], *y = &b->pin[i];
        if (x->chunk != y->chunk || x->tag != y->tag) {
            sim_diff_line(o, "pin %d: chunk %d tag %u → chunk %d tag %u", i, x->chunk, x->tag,
                          y->chunk, y->tag);
            n++;
        }
        n += diff_f64(o, "pin", i, "x", x->x, y->x);
        n += diff_f64(o, "pin", i, "y", x->y, y->y);
        n += diff_f64(o, "pin", i, "stiffness", x->stiff, y->stiff);
    }
    return n;
}
