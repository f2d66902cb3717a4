// camera.js — where the page looks in a world: a zoom (a whole number of device pixels per frame
// pixel, or, zoomed out, one device pixel per frame pixel of a `div` stream) and a place, the
// mapping between the screen and world pixels, and the part of the world to subscribe to (a `rect`
// when the view shows only part of it: docs/PROTOCOL.md, sub). No DOM: main.js hands in the
// viewport's size and the pointer in device pixels, and moves the picture where this says.
import { REGION, alignRect } from "./protocol.js";

/* Device pixels per frame pixel, zooming in; and the divs of zooming out below one device pixel
 * per world pixel (a whole-numbered look at every level: no smoothing, no uneven pixels). */
export const ZOOMS = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16];
export const OUT_DIVS = [8, 4, 2];

/* The zoom levels, {k, d} (k device pixels per frame pixel of a div-d stream: k/d device pixels
 * per world pixel), by scale: a stream of div base (the homage's 3, or the address's div) zooms
 * in its own frame pixels; at div 1, out too, by div. */
export function zoomLevels(base = 1, out = true) {
    const levels = base === 1 && out ? OUT_DIVS.map((d) => ({ k: 1, d })) : [];
    for (const k of ZOOMS) levels.push({ k, d: base });
    return levels;
}
export const scaleOf = (l) => l.k / l.d;
/* "4" (4 device pixels a frame pixel), "1/2" (a div 2 stream at one): the address's zoom=. */
export const levelName = (l) => (l.d > 1 && l.k === 1 ? `1/${l.d}` : String(l.k));

const area = (r) => r[2] * r[3];
/* A subscription this many times the area wanted is worth a new one (and its keyframe). */
const SPARE = 1.25;
const contains = (a, b) => b[0] >= a[0] && b[1] >= a[1] && b[0] + b[2] <= a[0] + a[2] && b[1] + b[3] <= a[1] + a[3];

export class Camera {
    constructor() {
        this.W = 0;                /* the world, in world pixels */
        this.H = 0;
        this.vw = 1;               /* the viewport, in device pixels */
        this.vh = 1;
        this.padX = 0;             /* what "fit" leaves free around the world, in device pixels */
        this.padY = 0;
        this.levels = zoomLevels();
        this.fit = true;           /* the largest level that shows the whole world, kept on resizes */
        this.i = 0;                /* the level, when not fit */
        /* Where the viewport's top-left corner is on the world drawn at the level's scale, in
         * device pixels (whole ones: every frame pixel lands on the same grid). */
        this.x0 = 0;
        this.y0 = 0;
    }

    /* A world of W×H; another size than before starts again at fit. */
    setWorld(W, H) {
        if (W === this.W && H === this.H) return;
        this.W = W;
        this.H = H;
        this.fit = true;
        this.clamp();
    }

    setViewport(vw, vh, padX = 0, padY = 0) {
        const c = this.center();
        Object.assign(this, { vw: Math.max(1, Math.round(vw)), vh: Math.max(1, Math.round(vh)), padX, padY });
        this.#centerAt(c);
    }

    /* Other levels (the homage turned on or off): the nearest in scale, or fit. */
    setLevels(levels) {
        if (levels.map(levelName).join() === this.levels.map(levelName).join()) return;
        const s = this.scale, c = this.center();
        this.levels = levels;
        this.i = this.nearestIndex(s);
        this.#centerAt(c);
    }

    /* The level nearest to scale s (device pixels a world pixel), by ratio. */
    nearestIndex(s) {
        let best = 0;
        for (let i = 0; i < this.levels.length; i++)
            if (Math.abs(Math.log(scaleOf(this.levels[i]) / s)) < Math.abs(Math.log(scaleOf(this.levels[best]) / s))) best = i;
        return best;
    }

    /* The largest level at which the whole world fits (less the padding), else the smallest. */
    fitIndex() {
        let best = 0;
        this.levels.forEach((l, i) => {
            if (this.W * scaleOf(l) <= this.vw - this.padX && this.H * scaleOf(l) <= this.vh - this.padY) best = i;
        });
        return best;
    }

    get index() { return this.fit ? this.fitIndex() : this.i; }
    get level() { return this.levels[this.index]; }
    get scale() { return scaleOf(this.level); }

    /* Does the viewport show the whole world? */
    get whole() {
        const s = this.scale;
        return this.W * s <= this.vw && this.H * s <= this.vh;
    }

    /* Screen (device pixels from the viewport's top-left) ↔ world pixels (fractional). */
    toWorld(sx, sy) {
        const s = this.scale;
        return { x: (sx + this.x0) / s, y: (sy + this.y0) / s };
    }
    toScreen(wx, wy) {
        const s = this.scale;
        return { x: wx * s - this.x0, y: wy * s - this.y0 };
    }

    /* The world point at the viewport's centre. */
    center() {
        return this.toWorld(this.vw / 2, this.vh / 2);
    }

    #centerAt(c) {
        const s = this.scale;
        this.x0 = Math.round(c.x * s - this.vw / 2);
        this.y0 = Math.round(c.y * s - this.vh / 2);
        this.clamp();
    }

    /* Keep the world on the screen: a side the viewport is larger than is centred; a longer one
     * is never scrolled past its ends. */
    clamp() {
        const s = this.scale;
        const one = (p, span, v) => (span <= v ? -Math.round((v - span) / 2) : Math.max(0, Math.min(span - v, p)));
        this.x0 = one(this.x0, Math.round(this.W * s), this.vw);
        this.y0 = one(this.y0, Math.round(this.H * s), this.vh);
    }

    /* Level i (or "fit"), about the screen point (sx, sy) (default: the centre): the world point
     * there stays there. Returns whether anything changed. */
    setLevel(i, sx = this.vw / 2, sy = this.vh / 2) {
        const before = `${this.index} ${this.fit} ${this.x0} ${this.y0}`;
        const p = this.toWorld(sx, sy);
        if (i === "fit") this.fit = true;
        else {
            this.fit = false;
            this.i = Math.max(0, Math.min(this.levels.length - 1, i));
        }
        const s = this.scale;
        this.x0 = Math.round(p.x * s - sx);
        this.y0 = Math.round(p.y * s - sy);
        this.clamp();
        return before !== `${this.index} ${this.fit} ${this.x0} ${this.y0}`;
    }

    /* steps levels in (> 0) or out, about (sx, sy). */
    zoom(steps, sx, sy) {
        return this.setLevel(this.index + steps, sx, sy);
    }

    /* The picture moved by (dx, dy) device pixels (a drag: the world follows the pointer). */
    panBy(dx, dy) {
        const x = this.x0, y = this.y0;
        this.x0 -= Math.round(dx);
        this.y0 -= Math.round(dy);
        this.clamp();
        return x !== this.x0 || y !== this.y0;
    }

    /* The world point (wx, wy) to the viewport's centre. */
    centerOn(wx, wy) {
        const x = this.x0, y = this.y0;
        this.#centerAt({ x: wx, y: wy });
        return x !== this.x0 || y !== this.y0;
    }

    /* The part of the world on the screen, [x, y, w, h] in whole world pixels, clipped to it. */
    visible() {
        const a = this.toWorld(0, 0), b = this.toWorld(this.vw, this.vh);
        const x = Math.max(0, Math.floor(a.x)), y = Math.max(0, Math.floor(a.y));
        const x1 = Math.min(this.W, Math.ceil(b.x)), y1 = Math.min(this.H, Math.ceil(b.y));
        return [x, y, Math.max(0, x1 - x), Math.max(0, y1 - y)];
    }

    /* What to subscribe to for this view: {rect (asked, or null: the whole world), aligned (the
     * rect the frames will show), div}. The rect is what is visible and half a region's margin
     * around it (with the widening to the grid, a small pan needs no new sub); the whole world when
     * that would cover it anyway, or when rects are not to be used. */
    lens(rects = true) {
        const l = this.level, m = (REGION / 2) * l.d, v = this.visible();
        if (!rects || !v[2] || !v[3]) return { rect: null, aligned: null, div: l.d };
        const rect = [v[0] - m, v[1] - m, v[2] + 2 * m, v[3] + 2 * m];
        const aligned = alignRect(rect, this.W, this.H);
        if (area(aligned) === this.W * this.H) return { rect: null, aligned: null, div: l.d };
        return { rect, aligned, div: l.d };
    }

    /* Does the subscription (cur: {aligned, div}, as lens() gives) serve this view? "now": it
     * lacks part of what is on the screen, or is of another div; "idle": it covers the view but
     * is a quarter more than the rect wanted, or more (zoomed in: subscribe again once the view
     * stops moving); "": it does. */
    plan(cur, rects = true) {
        const want = this.lens(rects);
        if (!cur || cur.div !== want.div) return "now";
        const whole = [0, 0, this.W, this.H], have = cur.aligned ?? whole;
        if (!contains(have, this.visible())) return "now";
        if (area(have) >= SPARE * area(want.aligned ?? whole)) return "idle";
        return "";
    }
}

/* The whole world small, for the minimap: one palette index every m world pixels (m the least that
 * fits maxW×maxH), taken from the frames as they come (a rect's go where they are), and which of
 * them were ever seen. */
export class MiniPicture {
    constructor() {
        this.reset(1, 1, 1, 1);
        this.dirty = false;
        this.at = -Infinity;
        this.key = "";
    }

    reset(W, H, maxW, maxH) {
        this.W = W;
        this.H = H;
        this.m = Math.max(1, Math.ceil(Math.max(W / maxW, H / maxH)));
        this.mw = Math.ceil(W / this.m);
        this.mh = Math.ceil(H / this.m);
        this.px = new Uint8Array(this.mw * this.mh);
        this.seen = new Uint8Array(this.mw * this.mh);
    }

    /* Forget what was seen (another world). */
    clear() {
        this.seen.fill(0);
        this.key = "";
    }

    /* A frame px (fw×fh, of world rect [rx, ry, rw, rh] at div) into the picture: each small pixel
     * whose world point (the centre of its m×m block) the rect holds. */
    take(px, fw, fh, [rx, ry, rw, rh], div = 1) {
        const { m, mw, mh } = this, half = m >> 1;
        for (let j = 0; j < mh; j++) {
            const wy = Math.min(this.H - 1, j * m + half);
            if (wy < ry || wy >= ry + rh) continue;
            const row = Math.min(fh - 1, Math.floor((wy - ry) / div)) * fw;
            for (let i = 0; i < mw; i++) {
                const wx = Math.min(this.W - 1, i * m + half);
                if (wx < rx || wx >= rx + rw) continue;
                this.px[j * mw + i] = px[row + Math.min(fw - 1, Math.floor((wx - rx) / div))];
                this.seen[j * mw + i] = 1;
            }
        }
    }

    /* Into out (mw·mh RGBA words) through lut; what was never seen in colour none. */
    paint(lut, out, none) {
        for (let i = 0; i < out.length; i++) out[i] = this.seen[i] ? lut[this.px[i]] : none;
    }
}
