// local.js — a world run in the page itself, with no server: the sim module (sim.js, the same
// sim/ as vivd's) steps it at its own rate, the page's control schemes (inputs.js) drive it as
// they drive a world on vivd, and the picture goes through the same FrameStream (frame.js) as a
// served frame, whose hash, computed here in JavaScript, must equal the module's. A standalone
// toy: `#local=sand&seed=5` (clients/web/README.md).
//
// LocalViewer has the face of Viewer (viewer.js) that main.js draws from — worlds, the picture,
// the controls, the counters, the test hook — so the page needs no second drawing path. Its
// worlds are the kinds the module has; picking one starts it from the seed. Like `viv sim` it is a
// pure function of (kind, seed, params, inputs): every input applied is kept, with the tick it
// was applied at, as a `viv sim --inputs` line, and every tick's state and frame hash is kept, so
// a test can hold the chain to `viv sim`'s.
import { FrameError, FrameStream } from "./frame.js";
import { Controls } from "./inputs.js";
import { frameHash, hex64 } from "./hash.js";
import { readWorld } from "./protocol.js";

const CATCH_UP = 4;           /* ticks run back to back when late (vivd's SRV_MAX_CATCHUP) */
const CLIENT = 1;             /* the `client` of the page's inputs */
const NOTES = 8;
const WINDOW_MS = 1000;

export class LocalViewer {
    /* sim: a loaded Sim. opts: kind, seed (BigInt or decimal string), params, view, every, now,
     * setTimeout/clearTimeout, and the callbacks of Viewer: onFrame, onChange, onNote. */
    constructor(sim, opts = {}) {
        this.sim = sim;
        this.now = opts.now ?? (() => performance.now());
        this.setTimeout = opts.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
        this.clearTimeout = opts.clearTimeout ?? ((t) => globalThis.clearTimeout(t));
        /* the callbacks start with start(): the page is not ready for them while this is made */
        this.onFrame = this.onChange = this.onNote = () => {};
        this.callbacks = opts;
        this.seed = BigInt(opts.seed ?? 1);
        this.params = opts.params ?? "";
        this.view = opts.view ?? "";
        this.every = opts.every ?? 1;
        this.div = Math.max(1, Math.min(8, opts.div ?? 1));   /* a div-th of the size (the homage: 3) */
        this.enc = "";
        this.role = "local";
        this.server = "this page";
        this.state = "local";
        this.lastError = null;
        this.applyMs = 0;
        this.notes = [];
        this.samples = [];
        this.counts = { frames: 0, mismatches: 0, badFrames: 0, resyncs: 0, acks: 0, errors: 0, inputs: 0 };
        this.stream = new FrameStream();
        this.verified = false;
        /* the worlds are the module's kinds, id = index + 1 (the tabs) */
        this.worlds = sim.kinds().map((k, i) => ({
            ...readWorld({ id: i + 1, kind: k.name, seed: 0, params: "", tick: 0, hz: k.hz, w: 0, h: 0, ...this.#entry(k.name) }),
            local: true,
        }));
        this.cur = null;
        this.ctl = null;
        this.w = null;
        this.timer = null;
        this.seq = 0;
        this.applied = [];            /* the inputs, as `viv sim --inputs` lines */
        this.chain = { sh: new BigUint64Array(1024), fh: new BigUint64Array(1024), n: 0, first: 1 };
        this.paused = false;
        this.conn = { token: "", connects: 0, setToken: () => {} };   /* no connection */
        const first = this.worlds.find((w) => w.kind === opts.kind) ?? this.worlds[0];
        if (!first) throw new Error("the sim module has no world kinds");
        if (opts.kind && first.kind !== opts.kind) this.note(`no world kind '${opts.kind}' here; ${first.kind} instead`);
        this.#start(first.id);
    }

    /* A welcome-style world entry for a kind: what it takes, from the module. */
    #entry(kind) {
        const d = this.sim.describe(kind);
        const inputs = {}, ranges = {};
        for (const i of d.inputs) {
            inputs[i.name] = i.args.map((a) => a.name);
            ranges[i.name] = i.args.map((a) => [a.lo, a.hi]);
        }
        return { views: d.views, inputs, ranges, names: d.names };
    }

    get world() { return this.worlds.find((w) => w.id === this.cur) ?? null; }
    get canInput() { return true; }

    note(text) {
        this.notes.push({ t: this.now(), text });
        if (this.notes.length > NOTES) this.notes.shift();
        this.onNote(text);
    }

    /* Start world `id` from the seed: tick 0, no inputs. Throws SimError for params it refuses. */
    #start(id) {
        const entry = this.worlds.find((w) => w.id === id);
        const w = this.sim.create(entry.kind, this.seed, this.cur === null ? this.params : "");
        this.w?.destroy();
        this.w = w;
        this.cur = id;
        this.params = w.params;
        Object.assign(entry, { seed: this.seed, params: w.params, tick: 0 });
        this.applied = [];
        this.chain.n = 0;
        this.chain.first = 1;
        this.seq = 0;
        this.stream = new FrameStream();
        this.verified = false;
        const full = this.w.render(0);
        Object.assign(entry, { w: full.w, h: full.h });       /* the world's size: inputs speak in it */
        this.#publish();
        this.ctl = new Controls(entry);
        this.t0 = this.now();
        this.base = 0;
        this.onChange();
    }

    start() {
        this.onFrame = this.callbacks.onFrame ?? (() => {});
        this.onChange = this.callbacks.onChange ?? (() => {});
        this.onNote = this.callbacks.onNote ?? (() => {});
        this.onFrame({ palette: true });      /* the picture made before: draw it */
        this.onChange();
        this.#schedule();
    }

    stop() {
        if (this.timer !== null) this.clearTimeout(this.timer);
        this.timer = null;
    }

    /* Another kind (a tab): it starts from the seed. */
    select(id) {
        if (id === this.cur || !this.worlds.some((w) => w.id === id)) return;
        this.#start(id);
    }

    /* From tick 0 again (the same kind, seed and params). */
    restart() {
        const id = this.cur;
        this.cur = null;
        this.params = this.world?.params ?? this.params;
        this.#start(id);
    }

    setView(name) { this.view = name; this.#publish(); this.onChange(); }
    setEvery(n) { this.every = Math.max(1, Math.min(3600, Math.round(n))); this.onChange(); }
    /* The homage, as on a served world: every third tick at a third of the size. */
    setHomage(on) {
        this.every = on ? 3 : 1;
        this.div = on ? 3 : 1;
        this.stream = new FrameStream();
        this.#publish();
        this.onChange();
    }
    get homage() { return this.every === 3 && this.div === 3; }
    setEnc() {}
    play() { return false; }

    /* ---- inputs: applied at the next tick, as a server would -------------------------------- */
    /* One input {kind (a name), args}: queued for the world's next tick. Returns its seq, or 0
     * when the world refuses it (the reason is a note). */
    sendInput(i) {
        if (!i) return 0;
        const k = this.world.inputs.findIndex((x) => x.name === i.kind);
        if (k < 0) return 0;
        this.seq = (this.seq + 1) >>> 0 || 1;
        const tick = Number(this.w.tick);
        const rc = this.w.input(tick, CLIENT, this.seq, k, i.args);
        if (rc) {
            this.counts.errors++;
            this.lastError = { code: "bad_input", msg: this.w.error, seq: this.seq };
            this.note(`${i.kind} refused: ${this.w.error}`);
            return 0;
        }
        this.counts.inputs++;
        this.counts.acks++;
        this.applied.push(`${tick} ${i.kind} ${i.args.join(" ")}`);
        return this.seq;
    }

    sendInputs(list) {
        for (const i of list) this.sendInput(i);
    }

    /* ---- the clock ------------------------------------------------------------------------- */
    /* Ticks are due at t0 + n·period (absolute deadlines, as vivd's scheduler); a late page runs
     * at most CATCH_UP back to back and lets the rest go. */
    #schedule() {
        const hz = this.world.hz || 60, period = 1000 / hz;
        const due = this.t0 + (Number(this.w.tick) - this.base + 1) * period;
        this.timer = this.setTimeout(() => this.#tick(), Math.max(0, due - this.now()));
    }

    #tick() {
        this.timer = null;
        const hz = this.world.hz || 60, period = 1000 / hz;
        if (!this.paused) {
            let n = 0;
            while (n < CATCH_UP && this.now() >= this.t0 + (Number(this.w.tick) - this.base + 1) * period) {
                this.#step();
                n++;
            }
            if (n === CATCH_UP && this.now() >= this.t0 + (Number(this.w.tick) - this.base + 1) * period) {
                this.t0 = this.now();          /* too far behind: start the deadlines again */
                this.base = Number(this.w.tick);
            }
            if (n) this.#publish();
        } else {
            this.t0 = this.now();
            this.base = Number(this.w.tick);
        }
        this.#schedule();
    }

    /* One tick: step, then both hashes, kept in the chain (a render every tick, as vivd does). */
    #step() {
        this.w.step();
        this.w.render(0);
        const c = this.chain;
        if (c.n === c.sh.length) {
            const grow = (a) => { const b = new BigUint64Array(a.length * 2); b.set(a); return b; };
            c.sh = grow(c.sh);
            c.fh = grow(c.fh);
        }
        c.sh[c.n] = this.w.hash();
        c.fh[c.n] = this.w.frameHash();
        c.n++;
    }

    /* The present tick's picture (of the view watched) through the FrameStream, every `every`th. */
    #publish() {
        const t0 = this.now(), tick = Number(this.w.tick);
        if (tick % this.every !== 0 && this.stream.haveKey) return;
        /* The homage of a world that draws its own (the terrarium's "homage" view), as served. */
        const own = this.homage && (!this.view || this.view === "normal") && this.w.view("homage") >= 0;
        const view = own ? this.w.view("homage") : this.view ? Math.max(0, this.w.view(this.view)) : 0;
        const f = this.w.render(view);
        const m = {
            t: "frame", world: this.cur, tick, key: true, w: f.w, h: f.h, pv: f.version,
            pal: f.palette.slice(), enc: "raw", data: f.pixels.slice(), fh: this.w.frameHash(), sh: this.w.hash(),
        };
        if (this.div > 1) {
            /* nearest-sampled at the centre of each div × div block, as vivd's div streams
             * (server/fanout.c); its hash is this picture's, computed here */
            const k = this.div, half = k >> 1, w = Math.ceil(f.w / k), h = Math.ceil(f.h / k), px = new Uint8Array(w * h);
            for (let y = 0; y < h; y++) {
                const sy = Math.min(y * k + half, f.h - 1);
                for (let x = 0; x < w; x++) px[y * w + x] = m.data[sy * f.w + Math.min(x * k + half, f.w - 1)];
            }
            Object.assign(m, { w, h, data: px, fh: frameHash(w, h, m.pal, f.count, px) });
        }
        let r;
        try {
            r = this.stream.apply(m);
        } catch (e) {
            if (!(e instanceof FrameError)) throw e;
            this.counts.badFrames++;
            this.note(`a bad frame at tick ${tick}: ${e.message}`);
            return;
        }
        this.applyMs += (this.now() - t0 - this.applyMs) / 20;
        if (!r.hashOk) {
            this.counts.mismatches++;
            this.note(`frame hash mismatch at tick ${tick}: ${hex64(this.stream.hash)} here, ${hex64(m.fh)} from the module`);
        }
        this.verified = r.hashOk;
        this.counts.frames++;
        this.world.tick = tick;
        this.samples.push([this.now(), m.data.length, true]);
        while (this.samples.length && this.samples[0][0] < this.now() - WINDOW_MS) this.samples.shift();
        this.onFrame(r);
    }

    rates() {
        const t = this.now();
        while (this.samples.length && this.samples[0][0] < t - WINDOW_MS) this.samples.shift();
        return { fps: this.samples.length * 1000 / WINDOW_MS, bps: 0 };
    }

    /* [[tick, sh, fh]] (16 hex digits each) of ticks from..to, as `viv sim --every 1` prints them. */
    chainOf(from = 1, to = Infinity) {
        const c = this.chain, out = [];
        for (let t = Math.max(from, 1); t <= Math.min(to, c.n); t++) out.push([t, hex64(c.sh[t - 1]), hex64(c.fh[t - 1])]);
        return out;
    }

    /* ---- the test hook (as Viewer's, plus what a local world has) ----------------------------- */
    hook() {
        const v = this;
        return {
            get tick() { return v.stream.haveKey ? v.stream.tick : -1; },
            get world() { return v.cur; },
            get kind() { return v.world?.kind ?? null; },
            get w() { return v.stream.w; },
            get h() { return v.stream.h; },
            get hash() { return hex64(v.stream.hash); },
            get fh() { return hex64(v.stream.fh); },
            get sh() { return hex64(v.stream.sh); },
            get verified() { return v.verified; },
            get frames() { return v.counts.frames; },
            get mismatches() { return v.counts.mismatches; },
            get badFrames() { return v.counts.badFrames; },
            get acks() { return v.counts.acks; },
            get errors() { return v.counts.errors; },
            get lastError() { return v.lastError; },
            get state() { return "local"; },
            get connects() { return 0; },
            get role() { return v.role; },
            get worlds() { return v.worlds.map((w) => ({ id: w.id, kind: w.kind, seed: String(w.seed), params: w.params, w: w.w, h: w.h, hz: w.hz, views: [...w.views], play: null })); },
            get playState() { return null; },
            get local() { return { kind: v.world.kind, seed: String(v.seed), params: v.world.params, tick: Number(v.w.tick), paused: v.paused }; },
            pixels() { return v.stream.px.slice(); },
            palette() { return v.stream.pal.slice(); },
            frameHash() { return hex64(v.stream.computeHash()); },
            rates() { return v.rates(); },
            select(id) { v.select(id); },
            setView(name) { v.setView(name); },
            setEvery(n) { v.setEvery(n); },
            setEnc() {},
            input(kind, args) { return v.sendInput({ kind, args }); },
            play() { return false; },
            drop() {},
            localChain(from, to) { return v.chainOf(from, to); },
            localInputs() { return [...v.applied]; },
            pause(on = true) { v.paused = on; v.onChange(); },
            restart() { v.restart(); },
        };
    }
}
