// inputs.js — what the pointer and the keys do in a world: the control schemes of the page, in
// the manner of clients/view_modes.c (the terminal viewer's modes). No DOM: the page hands in
// pointer events in frame pixels and key names, and gets back the inputs to send.
//
// Every input is built from what the welcome described: arguments filled by name and clamped to
// the ranges it gave. A scheme is chosen by kind name (the KINDS table); a kind without a row, or
// whose welcome lacks its row's inputs, gets the first scheme its inputs fit, so a new kind works
// here without editing this file (with "watch", nothing to send, when none fits).
//
// Schemes:
//   paint  (sand)       a stroke paints discs of the chosen element along its path; the erase and
//                       explode tools when the world has those inputs; a brush radius.
//   grab   (terrarium)  press grabs, motion drags, release lets go; the shove tool turns a swipe
//                       into a shove of what is near its start; the spawn tool adds a body of the
//                       chosen kind where you click; arrows shove what is near the pointer; hover
//                       points (heads turn to look) when the world has a pointer input.
//   cycle  (cycle)      pause/resume, speed steps, and per range on/off and standard/blend.
//   carry  (merge)      arrows walk (keydown: move −1/+1, keyup: move 0), space drops where the
//                       hand is (drop x = −1), a click drops at the pointer's x.
//   tend   (garden)     a click (no motion between press and release) pokes there; a drag leads
//                       the target along; ← → the wind a step of WIND_STEP, ↓ calm; 1–9 spawn
//                       value key−1 of spawn's enum at the pointer; t lets the target go.
//   watch               nothing to send.

/* One row per known kind: its scheme, the paint enum value to start with, and the enum of the
 * number keys. */
export const KINDS = {
    sand: { scheme: "paint", firstValue: "sand", keyEnum: "element" },
    terrarium: { scheme: "grab", keyEnum: "body" },
    cycle: { scheme: "cycle" },
    merge: { scheme: "carry" },
    garden: { scheme: "tend", keyEnum: "creature" },
};

/* A kind without a row: the first scheme that fits (view_modes.c's order). */
export const FALLBACK_ORDER = ["grab", "paint", "cycle", "carry", "tend", "watch"];

/* A stroke sends at most this many inputs per world tick (the server takes 32). */
export const INPUTS_PER_TICK = 12;
/* A shove by the arrow keys: pixels per tick (the world caps it). */
export const SHOVE_PX = 16;
/* Hover sends `pointer` at most this often, in ms. */
export const POINTER_MS = 200;
/* Speed steps, in percent (the world's range clamps them). */
export const CYCLE_SPEEDS = [10, 25, 50, 75, 100, 150, 200, 300, 400];
/* tend: a wind key's step (the world clamps to its range). */
export const WIND_STEP = 20;
export const PLAY_SPEEDS = [10, 25, 50, 100, 200, 400, 1000];

/* What each scheme needs from the welcome's inputs. */
const NEEDS = {
    paint: ["paint"],
    grab: ["grab", "drag", "release"],
    cycle: ["speed", "pause", "resume", "toggle", "mode"],
    carry: ["move", "drop"],
    tend: ["poke", "target"],
    watch: [],
};

const clamp = (v, lo, hi) => (v < lo ? lo : v > hi ? hi : v);

/* The next step of steps after (dir > 0) or before (dir < 0) v. */
export function stepOf(steps, v, dir) {
    let i = 0;
    while (i < steps.length - 1 && steps[i] < v) i++;
    if (dir > 0 && steps[i] <= v && i < steps.length - 1) i++;
    if (dir < 0 && i > 0 && (steps[i] >= v)) i--;
    return steps[i];
}

/* An enum of the world: {name, values: [{name, id}] by id}. */
function readEnum(world, name) {
    const map = world.names[name];
    if (!map) return null;
    const values = Object.entries(map).map(([n, id]) => ({ name: n, id })).sort((a, b) => a.id - b.id);
    return { name, values };
}

export class Controls {
    /* world: a world description from protocol.readWorld. */
    constructor(world) {
        this.world = world;
        this.byName = new Map(world.inputs.map((i) => [i.name, i]));
        const row = KINDS[world.kind];
        const fits = (s) => NEEDS[s].every((n) => this.byName.has(n));
        this.scheme = row && fits(row.scheme) ? row.scheme : FALLBACK_ORDER.find(fits);
        this.recording = world.play !== null;
        /* paint: the enum named like one of paint's arguments */
        this.paintEnum = null;
        this.paintArg = -1;
        const paint = this.byName.get("paint");
        if (paint)
            paint.args.forEach((a, i) => {
                if (!this.paintEnum && world.names[a.name]) {
                    this.paintEnum = readEnum(world, a.name);
                    this.paintArg = i;
                }
            });
        this.element = 0;
        if (this.paintEnum) {
            const v = this.paintEnum.values;
            this.element = v.length ? v[0].id : 0;
            if (v.some((e) => e.id === 1)) this.element = 1;          /* 0 is usually "empty" */
            const first = row && v.find((e) => e.name === row.firstValue);
            if (first) this.element = first.id;
        }
        /* spawn: the row's enum, else the only one */
        const names = Object.keys(world.names);
        this.spawnEnum = readEnum(world, row && world.names[row.keyEnum] ? row.keyEnum : names.length === 1 ? names[0] : "");
        this.spawnKind = this.spawnEnum ? (this.spawnEnum.values.find((e) => e.id === 1) || this.spawnEnum.values[0]).id : 0;
        /* the tool: paint, erase, explode (paint); grab, shove, spawn (grab) */
        this.tool = this.scheme === "grab" ? "grab" : "paint";
        this.brush = 0;                       /* 0: the default for the frame size */
        this.cycle = { speed: 100, paused: false, range: 0, off: new Set(), blend: new Set() };
        this.carryDir = 0;
        this.wind = 0;                        /* tend: the last wind sent */
        this.dragged = false;                 /* tend: the press became a drag */
        this.pressed = false;
        this.last = { x: 0, y: 0 };
        this.hover = null;                    /* {x, y}: the pointer over the picture */
        this.budget = { t0: -Infinity, n: 0 };
        this.pointerAt = -Infinity;
        this.swipe = null;
    }

    has(name) {
        return this.byName.has(name);
    }

    /* The tools the scheme offers in this world. */
    tools() {
        if (this.scheme === "paint") return ["paint", "erase", "explode"].filter((t) => this.has(t));
        if (this.scheme === "grab") return ["grab", "shove", "spawn"].filter((t) => this.has(t));
        return [];
    }

    /* The brush radius: the chosen one, else about 1/40 of the frame's width (at least 2), within
     * the range of the paint tool's r. */
    brushRadius() {
        const r = this.byName.get("paint")?.args.find((a) => a.name === "r");
        const lo = r ? Math.max(1, r.lo) : 1, hi = r ? Math.min(64, r.hi) : 64;
        return clamp(this.brush > 0 ? this.brush : Math.max(2, Math.round(this.world.w / 40)), lo, hi);
    }

    setBrush(r) {
        this.brush = Math.max(1, Math.round(r));
        this.brush = this.brushRadius();
    }

    /* Input `name` with arguments filled by name: from `named` first, then x, y, r (the brush)
     * and the paint enum's argument (the element); any other takes 0. Each is clamped to the
     * range the welcome gave. null when the world has no such input. */
    build(name, named = {}) {
        const desc = this.byName.get(name);
        if (!desc) return null;
        const args = desc.args.map((a, i) => {
            let v = 0;
            if (Object.hasOwn(named, a.name)) v = named[a.name];
            else if (a.name === "r") v = this.brushRadius();
            else if (name === "paint" && i === this.paintArg) v = this.element;
            return clamp(Math.round(Number(v) || 0), a.lo, a.hi);
        });
        return { kind: name, args };
    }

    /* May a stroke send another input at time now (ms)? Presses and releases do not ask. */
    #spend(now) {
        const tick = 1000 / (this.world.hz || 60);
        if (now - this.budget.t0 >= tick) {
            this.budget.t0 = now;
            this.budget.n = 0;
        }
        if (this.budget.n >= INPUTS_PER_TICK) return false;
        this.budget.n++;
        return true;
    }

    #paintInput() {
        return this.tool === "erase" || this.tool === "explode" ? this.tool : "paint";
    }

    /* The pointer, in frame pixels: what is "down" (a press on the picture), "move" or "up".
     * now: a time in ms. Returns the inputs to send, in order. */
    pointer(what, x, y, now = 0) {
        x = Math.floor(x);
        y = Math.floor(y);
        const out = [];
        const push = (i) => i && out.push(i);
        if (what !== "up") this.hover = { x, y };
        if (this.recording) return out;
        switch (this.scheme) {
        case "paint": {
            const name = this.#paintInput();
            if (what === "down") {
                this.pressed = true;
                this.last = { x, y };
                push(this.build(name, { x, y }));
            } else if (what === "move" && this.pressed) {
                /* along the stroke, a disc every brush radius, so a quick drag leaves no gaps (at
                 * most 8 per event, within the budget: a very fast stroke gets gaps, not errors) */
                const r = this.brushRadius(), dx = x - this.last.x, dy = y - this.last.y;
                const n = Math.min(8, Math.ceil(Math.max(Math.abs(dx), Math.abs(dy)) / r));
                for (let i = 1; i <= n && this.#spend(now); i++)
                    push(this.build(name, { x: this.last.x + Math.trunc(dx * i / n), y: this.last.y + Math.trunc(dy * i / n) }));
                this.last = { x, y };
            } else if (what === "up") {
                this.pressed = false;
            }
            break;
        }
        case "grab":
            if (this.tool === "spawn") {
                if (what === "down") push(this.build("spawn", { x, y, kind: this.spawnKind, [this.spawnEnum?.name ?? "kind"]: this.spawnKind }));
                break;
            }
            if (this.tool === "shove") {
                /* a swipe: where it starts is what gets shoved, its vector is the push */
                if (what === "down") this.swipe = { x, y, t: now };
                else if (what === "up" && this.swipe) {
                    const s = this.swipe;
                    this.swipe = null;
                    const ticks = Math.max(1, ((now - s.t) / 1000) * (this.world.hz || 60));
                    const k = Math.min(4, 8 / ticks);     /* a quick swipe shoves harder */
                    const dx = Math.round((x - s.x) * k), dy = Math.round((y - s.y) * k);
                    if (dx || dy) push(this.build("shove", { x: s.x, y: s.y, dx, dy }));
                }
                break;
            }
            if (what === "down") {
                this.pressed = true;
                this.last = { x, y };
                push(this.build("grab", { x, y }));
            } else if (what === "move" && this.pressed) {
                if ((x !== this.last.x || y !== this.last.y) && this.#spend(now)) {
                    this.last = { x, y };
                    push(this.build("drag", { x, y }));
                }
            } else if (what === "up" && this.pressed) {
                this.pressed = false;
                push(this.build("release", {}));
            } else if (what === "move" && this.has("pointer") && now - this.pointerAt >= POINTER_MS) {
                this.pointerAt = now;
                push(this.build("pointer", { x, y }));
            }
            break;
        case "carry":
            if (what === "down") {
                this.carryDir = 0;
                push(this.build("drop", { x }));
            }
            break;
        case "tend":
            if (what === "down") {
                this.pressed = true;
                this.dragged = false;
                this.last = { x, y };
            } else if (what === "move" && this.pressed) {
                if ((x !== this.last.x || y !== this.last.y) && this.#spend(now)) {
                    this.dragged = true;
                    this.last = { x, y };
                    push(this.build("target", { x, y }));
                }
            } else if (what === "up" && this.pressed) {
                this.pressed = false;
                if (!this.dragged) push(this.build("poke", this.last));
            }
            break;
        }
        return out;
    }

    /* tend: set the wind (clamped to the input's range); the inputs to send. */
    setWind(s) {
        const a = this.byName.get("wind")?.args[0];
        this.wind = a ? clamp(Math.round(s), a.lo, a.hi) : Math.round(s);
        const i = this.build("wind", { [a?.name ?? "strength"]: this.wind });
        return i ? [i] : [];
    }

    /* tend: spawn value id of spawn's enum at (x, y). */
    spawnAt(id, x, y) {
        const i = this.build("spawn", { x, y, kind: id, [this.spawnEnum?.name ?? "kind"]: id });
        return i ? [i] : [];
    }

    /* Nothing stays grabbed in a world the page leaves, or when the pointer is lost. */
    leave() {
        const out = [];
        if (this.scheme === "grab" && this.pressed) out.push(this.build("release", {}));
        if (this.scheme === "carry" && this.carryDir !== 0) {
            this.carryDir = 0;
            out.push(this.build("move", { dir: 0 }));
        }
        this.pressed = false;
        this.swipe = null;
        return out;
    }

    /* A key, by KeyboardEvent.key ("ArrowLeft", " ", "e", "[", …), pressed (down) or released.
     * Returns {inputs, used}: used says the key belongs to this world (the page then prevents
     * its default action, such as scrolling). Repeats (held keys) are the caller's to drop. */
    key(k, down) {
        const out = [];
        const push = (i) => i && out.push(i);
        const digit = k.length === 1 && k >= "0" && k <= "9" ? (k === "0" ? 10 : +k) : -1;
        let used = false;
        if (this.recording) return { inputs: out, used };
        switch (this.scheme) {
        case "paint":
            if (!down) break;
            if (digit >= 0 && this.paintEnum?.values.some((e) => e.id === digit)) {
                this.element = digit;
                this.tool = "paint";
                used = true;
            } else if ((k === "e" || k === "x") && this.has(k === "e" ? "erase" : "explode")) {
                const t = k === "e" ? "erase" : "explode";
                this.tool = this.tool === t ? "paint" : t;
                used = true;
            } else if (k === "[" || k === "]") {
                this.setBrush(this.brushRadius() + (k === "]" ? 1 : -1));
                used = true;
            }
            break;
        case "grab": {
            if (!down) break;
            const at = this.hover ?? { x: this.world.w >> 1, y: this.world.h >> 1 };
            if (digit >= 0 && this.has("spawn") && this.spawnEnum?.values.some((e) => e.id === digit)) {
                push(this.build("spawn", { x: at.x, y: at.y, kind: digit, [this.spawnEnum.name]: digit }));
                used = true;
                break;
            }
            const dx = k === "ArrowRight" ? SHOVE_PX : k === "ArrowLeft" ? -SHOVE_PX : 0;
            const dy = k === "ArrowDown" ? SHOVE_PX : k === "ArrowUp" ? -SHOVE_PX : 0;
            if ((dx || dy) && this.has("shove")) {
                push(this.build("shove", { x: at.x, y: at.y, dx, dy }));
                used = true;
            }
            break;
        }
        case "cycle": {
            if (!down) break;
            const c = this.cycle;
            if (k === " ") {
                out.push(...this.cyclePause(!c.paused));
                used = true;
            } else if (k === "[" || k === "]") {
                out.push(...this.cycleSpeed(stepOf(CYCLE_SPEEDS, c.speed, k === "]" ? 1 : -1)));
                used = true;
            } else if (digit >= 0) {
                c.range = digit % 10;
                used = true;
            } else if (k === "t") {
                out.push(...this.cycleToggle(c.range));
                used = true;
            } else if (k === "m") {
                out.push(...this.cycleBlend(c.range, !c.blend.has(c.range)));
                used = true;
            }
            break;
        }
        case "carry": {
            const dir = k === "ArrowLeft" ? -1 : k === "ArrowRight" ? 1 : k === "ArrowDown" ? 0 : null;
            if (dir !== null) {
                used = true;
                if (down && this.carryDir !== dir) {
                    this.carryDir = dir;
                    push(this.build("move", { dir }));
                } else if (!down && dir !== 0 && this.carryDir === dir) {
                    /* a browser reports the release: the carrier stops when its key comes up */
                    this.carryDir = 0;
                    push(this.build("move", { dir: 0 }));
                }
            } else if (k === " ") {
                used = true;
                if (down) push(this.build("drop", { x: -1 }));
            }
            break;
        }
        case "tend": {
            if (!down) break;
            const at = this.hover ?? { x: this.world.w >> 1, y: this.world.h >> 1 };
            if ((k === "ArrowLeft" || k === "ArrowRight" || k === "ArrowDown") && this.has("wind")) {
                out.push(...this.setWind(k === "ArrowDown" ? 0 : this.wind + (k === "ArrowRight" ? WIND_STEP : -WIND_STEP)));
                used = true;
            } else if (k === "t") {
                push(this.build("target", { x: -1, y: -1 }));
                used = true;
            } else if (digit >= 1 && digit <= 9 && this.has("spawn") && this.spawnEnum?.values.some((e) => e.id === digit - 1)) {
                out.push(...this.spawnAt(digit - 1, at.x, at.y));
                used = true;
            }
            break;
        }
        }
        return { inputs: out, used };
    }

    /* ---- cycle controls (buttons call these too) ---------------------------------------- */
    cyclePause(paused) {
        this.cycle.paused = paused;
        const i = this.build(paused ? "pause" : "resume", {});
        return i ? [i] : [];
    }

    cycleSpeed(percent) {
        const sp = this.byName.get("speed")?.args[0];
        this.cycle.speed = sp ? clamp(Math.round(percent), sp.lo, sp.hi) : Math.round(percent);
        const i = this.build("speed", { [sp?.name ?? "percent"]: this.cycle.speed });
        return i ? [i] : [];
    }

    /* The ranges the toggle input takes: 0..its range's hi. */
    cycleRanges() {
        const r = this.byName.get("toggle")?.args[0];
        return r ? { lo: Math.max(0, r.lo), hi: Math.min(r.hi, 63) } : { lo: 0, hi: 9 };
    }

    cycleToggle(range) {
        const c = this.cycle;
        if (c.off.has(range)) c.off.delete(range);
        else c.off.add(range);
        const arg = this.byName.get("toggle")?.args[0]?.name ?? "range";
        const i = this.build("toggle", { [arg]: range });
        return i ? [i] : [];
    }

    cycleBlend(range, blend) {
        const c = this.cycle;
        if (blend) c.blend.add(range);
        else c.blend.delete(range);
        const i = this.build("mode", { range, mode: blend ? 1 : 0 });
        return i ? [i] : [];
    }
}
