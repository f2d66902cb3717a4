// viewer.js — the page's session, without the DOM: the worlds from welcome, the one watched, its
// frames applied and checked, the inputs and playback controls sent, and the counters the debug
// overlay and the test hook read. main.js draws it; tests/web/viewer.test.mjs drives it against a
// real vivd.
//
// A frame that does not decode or does not match its hash counts, drops the picture and asks for a
// keyframe (subscribing again), once: deltas still in flight from before are ignored until the
// keyframe comes (FrameStream refuses them as "nokey"), as viv view does. After a reconnect the
// page subscribes again the same way, so it resumes from a keyframe.
import { Connection } from "./conn.js";
import { FrameError, FrameStream } from "./frame.js";
import { Controls } from "./inputs.js";
import { hex64 } from "./hash.js";
import { alignRect, eventLines, input, num, play, readError, readPlay, readWorld, sub, unsub } from "./protocol.js";

const WINDOW_MS = 1000;       /* frames/s and bytes/s over the last second */
const NOTES = 8;
const RECT_RETRY_MS = 10000;  /* after too_many_streams, whole frames this long before a rect again */

export class Viewer {
    /* opts: url (or urls: a list, conn.js), token, makeSocket (see conn.js), want: {world (id or kind), view, every, div, enc},
     * now (ms clock), setTimeout/clearTimeout, the callbacks onFrame(result), onChange(),
     * onNote(text), and lens(world) → {rect, div} or null: the part of the world to subscribe
     * to (rect [x, y, w, h] in world pixels, null: all of it) and the div, asked at each sub
     * (the page's camera: what is on the screen); without it, the whole world at `div`. */
    constructor(opts = {}) {
        this.now = opts.now ?? (() => performance.now());
        this.onFrame = opts.onFrame ?? (() => {});
        this.onChange = opts.onChange ?? (() => {});
        this.onNote = opts.onNote ?? (() => {});
        /* every message first goes here (a recording being verified: replay.js); true: it was
         * taken, and the viewer does nothing more with it */
        this.onExtra = opts.onExtra ?? (() => false);
        this.lensOf = opts.lens ?? (() => null);
        const want = opts.want ?? {};
        this.want = want.world ?? null;          /* the first world to watch: an id or a kind */
        this.view = want.view ?? "";             /* "" = the world's first view */
        this.every = want.every ?? 1;
        this.div = want.div ?? 1;                /* frames a div-th of the size (the homage: 3) */
        this.enc = want.enc ?? "";               /* "" = the server's default, tile.zst */
        this.worlds = [];                        /* from protocol.readWorld, in welcome's order */
        this.controls = new Map();               /* world id → Controls */
        this.cur = null;                         /* the world watched */
        this.role = "viewer";
        this.client = 0;
        this.server = "";
        this.stream = new FrameStream();
        this.verified = false;                   /* the picture is the last frame, hash checked */
        this.seq = 0;
        this.counts = { frames: 0, mismatches: 0, badFrames: 0, resyncs: 0, acks: 0, errors: 0, inputs: 0, events: 0 };
        this.lastEvent = "";           /* the current world's latest event, for the debug overlay */
        this.lastError = null;
        this.applyMs = 0;
        this.notes = [];
        this.samples = [];                       /* [t, bytes, isFrame] of the last second */
        this.conn = new Connection({
            url: opts.url, urls: opts.urls, token: opts.token ?? "", name: opts.name ?? "viv-web", makeSocket: opts.makeSocket,
            setTimeout: opts.setTimeout, clearTimeout: opts.clearTimeout,
            onWelcome: (w) => this.#welcome(w),
            onMessage: (m) => this.#message(m),
            onState: (s, why) => {
                if (s === "offline" && why && why !== "closed") {
                    this.note(`offline: ${why}; reconnecting`);
                    this.notes.at(-1).offline = true;
                }
                this.onChange();
            },
        });
        this.lastBytes = 0;
        this.subs = 0;                           /* subs sent, counted */
        this.curKind = null;                     /* the kind of the world watched, for a reconnect */
        /* The last sub's {rect (as asked, or null), aligned (the rect its frames show, or null),
         * div}; and the subs sent whose keyframe may still come, oldest first: a keyframe is
         * matched to its sub by rect and size, so that each picture is placed where it belongs. */
        this.lens = { rect: null, aligned: null, div: this.div };
        this.lenses = [];
        this.rectsOff = 0;        /* rects refused: 0, Infinity (this connection: a relay) or until when */
    }

    start() { this.conn.start(); }
    stop() { this.conn.close(); }

    get state() { return this.conn.state; }
    get world() { return this.worlds.find((w) => w.id === this.cur) ?? null; }
    get ctl() { return this.cur === null ? null : this.controls.get(this.cur) ?? null; }
    get canInput() { return this.role === "player" || this.role === "admin"; }

    /* err: a refusal or a failure (the page shows it as one) */
    note(text, err = false) {
        this.notes.push({ t: this.now(), text, err });
        if (this.notes.length > NOTES) this.notes.shift();
        this.onNote(text);
    }

    /* ---- what to watch ------------------------------------------------------------------- */
    #subscribe() {
        const w = this.world;
        if (!w) return;
        /* The homage of a world that draws its own (the terrarium's view "homage": the world drawn
         * at a third of the resolution, as seed 001 does), unless another view was chosen. */
        const own = this.homage && w.views.includes("homage") && (!this.view || this.view === w.views[0]);
        const view = own ? "homage" : this.view && w.views.includes(this.view) ? this.view : "";
        this.stream.reset();
        this.verified = false;
        this.lastEvent = "";
        this.subs++;             /* a new sub ends a timeline of the world (timeline.js) */
        const l = this.#lensFor(w);
        this.conn.send(sub(w.id, { every: this.every, div: l.div, enc: this.enc, view, events: true, rect: l.rect ?? undefined }));
    }

    /* What the next sub of w asks for: the page's lens, whole when rects are refused. */
    #lensFor(w) {
        const want = this.lensOf(w) ?? {};
        const rect = want.rect && this.now() >= this.rectsOff ? want.rect.map(Math.round) : null;
        const l = { rect, aligned: rect ? alignRect(rect, w.w, w.h) : null, div: want.div ?? this.div };
        this.lens = l;
        this.lenses.push(l);
        if (this.lenses.length > 16) this.lenses.shift();
        return l;
    }

    /* Subscribe again with what the lens now says (the page moved its view). */
    resubscribe() {
        this.#subscribe();
        this.onChange();
    }

    /* The sub a keyframe answers: the oldest one still waiting whose rect and size it has (an
     * older sub's keyframe may come after a newer sub was sent); the subs before it are done. */
    #keyed() {
        const s = this.stream, fits = (l) => String(l.aligned) === String(s.rect) &&
            Math.ceil((l.aligned?.[2] ?? this.world?.w ?? s.w) / l.div) === s.w && Math.ceil((l.aligned?.[3] ?? this.world?.h ?? s.h) / l.div) === s.h;
        const i = this.lenses.findIndex(fits);
        if (i > 0) this.lenses.splice(0, i);
        s.div = i >= 0 ? this.lenses[0].div : this.lens.div;
    }

    /* A rect refused: by a relay (bad_field naming it: for this connection) or for want of
     * streams (too_many_streams: for a while); the world is watched whole meanwhile. */
    #rectRefused(e) {
        if (!this.lens.rect || !(e.code === "too_many_streams" || (e.code === "bad_field" && /\brect\b/.test(e.msg)))) return;
        this.rectsOff = e.code === "bad_field" ? Infinity : this.now() + RECT_RETRY_MS;
        this.note(`the world is shown whole, not the part in view (${e.code})`);
        this.#subscribe();
    }

    /* Watch world id (the picture starts over with its keyframe). */
    select(id) {
        if (id === this.cur) return;
        const old = this.cur;
        const leaving = this.ctl;
        if (leaving) for (const i of leaving.leave()) this.sendInput(i);
        if (old !== null && this.worlds.some((w) => w.id === old)) this.conn.send(unsub(old));
        this.#setCur(id);
        this.#subscribe();
        this.onChange();
    }

    #setCur(id) {
        this.cur = id;
        this.curKind = this.world?.kind ?? null;
    }

    /* The render layer ("" or a name from the world's views), the frame interval (every N ticks),
     * the encoding ("" = tile.zst): each subscribes again. */
    setView(name) { this.view = name; this.#subscribe(); this.onChange(); }
    setEvery(n) { this.every = Math.max(1, Math.min(3600, Math.round(n))); this.#subscribe(); this.onChange(); }
    /* Seed 001's 13 fps homage, a property of the stream: every third tick at a third of the size
     * (the server downsamples; the page draws it at the largest whole scale), or every frame. */
    setHomage(on) { this.every = on ? 3 : 1; this.div = on ? 3 : 1; this.#subscribe(); this.onChange(); }
    get homage() { return this.every === 3 && this.div === 3; }
    setEnc(enc) { this.enc = enc; this.#subscribe(); this.onChange(); }

    /* ---- sending ------------------------------------------------------------------------- */
    /* One input {kind, args} to the world watched. Returns its seq, or 0 when not sent. */
    sendInput(i) {
        const w = this.world;
        if (!w || !i || !this.canInput || w.play) return 0;
        this.seq = (this.seq + 1) >>> 0 || 1;
        if (!this.conn.send(input(w.id, this.seq, i.kind, i.args))) return 0;
        this.counts.inputs++;
        return this.seq;
    }

    sendInputs(list) {
        for (const i of list) this.sendInput(i);
    }

    /* A playback control of the recording watched: pause, resume, step, seek {tick}, speed
     * {speed}. The local state follows at once; the server's `playing` confirms it. */
    play(op, args = {}) {
        const w = this.world;
        if (!w || !w.play || !this.canInput) return false;
        if (op === "seek") args = { tick: Math.max(w.play.start, Math.min(w.play.end, Math.round(args.tick))) };
        if (op === "speed") args = { speed: Math.max(10, Math.min(1000, Math.round(args.speed))) };
        if (op === "pause" || op === "step") w.play.paused = true;
        if (op === "resume") w.play.paused = false;
        if (op === "speed") w.play.speed = args.speed;
        if (op === "seek") w.play.tick = args.tick;
        const ok = this.conn.send(play(w.id, op, args));
        this.onChange();
        return ok;
    }

    /* An error vivd answered (protocol.readError), counted and noted: as "code: sentence", or,
     * when what was refused is known, "what: sentence (code)". */
    refused(e, what = "") {
        this.counts.errors++;
        this.lastError = e;
        this.note(what ? `${what}: ${e.msg} (${e.code})` : `${e.code}: ${e.msg}`, true);
        this.onChange();
    }

    /* A world entry (protocol.readWorld) this connection learnt of outside welcome (a fork's
     * `forked`, a recording's `opened`), listed like a `created` one. */
    addWorld(w) {
        if (!this.worlds.some((x) => x.id === w.id)) {
            this.worlds.push(w);
            this.controls.set(w.id, new Controls(w));
        }
        this.onChange();
    }

    /* ---- receiving ----------------------------------------------------------------------- */
    #welcome(wl) {
        if (this.rectsOff === Infinity) this.rectsOff = 0;     /* another connection: ask again */
        this.lenses = [];
        this.role = wl.role;
        this.client = wl.client;
        this.server = wl.server;
        const old = this.controls;
        this.controls = new Map();
        this.worlds = wl.worlds;
        for (const w of this.worlds) {
            if (w.play) w.play.tick = w.tick;
            const c = new Controls(w), prev = old.get(w.id);
            /* what was chosen in a world carries over a reconnect (viv view's view_carry) */
            if (prev && prev.world.kind === w.kind) {
                c.element = prev.element;
                c.tool = prev.tool;
                c.brush = prev.brush;
                c.cycle = prev.cycle;
                c.spawnKind = prev.spawnKind;
            }
            this.controls.set(w.id, c);
        }
        /* the same world (by id and kind), else the first of its kind, else the one asked for in
         * the URL (an id or a kind), else the first */
        let pick = this.worlds.find((w) => w.id === this.cur && w.kind === this.curKind);
        if (!pick && this.curKind) pick = this.worlds.find((w) => w.kind === this.curKind);
        if (!pick && this.want !== null)
            pick = this.worlds.find((w) => String(w.id) === String(this.want)) ?? this.worlds.find((w) => w.kind === this.want);
        pick = pick ?? this.worlds[0] ?? null;
        this.#setCur(pick ? pick.id : null);
        /* "offline: …; reconnecting" is no longer true: it goes (a token added reconnects) */
        this.notes = this.notes.filter((n) => !n.offline);
        if (this.conn.connects > 1)
            this.note(`reconnected (${this.conn.connects - 1} time${this.conn.connects > 2 ? "s" : ""})` +
                      (this.conn.urls.length > 1 ? ` to ${this.conn.url}` : ""));
        if (!pick) this.note("the server hosts no worlds");
        this.#subscribe();
        this.onChange();
    }

    #sample(bytes, isFrame) {
        const t = this.now();
        this.samples.push([t, bytes, isFrame]);
        while (this.samples.length && this.samples[0][0] < t - WINDOW_MS) this.samples.shift();
    }

    /* Frames/s and bytes/s over the last second. */
    rates() {
        const t = this.now();
        while (this.samples.length && this.samples[0][0] < t - WINDOW_MS) this.samples.shift();
        let frames = 0, bytes = 0;
        for (const [, b, f] of this.samples) {
            bytes += b;
            if (f) frames++;
        }
        return { fps: frames * 1000 / WINDOW_MS, bps: bytes * 1000 / WINDOW_MS };
    }

    #message(m) {
        const bytes = this.conn.bytesIn - this.lastBytes;
        this.lastBytes = this.conn.bytesIn;
        if (m.t !== "frame" && this.onExtra(m)) {
            this.#sample(bytes, false);
            return;
        }
        switch (m.t) {
        case "frame": this.#sample(bytes, true); this.#frame(m); return;
        case "ack": this.#sample(bytes, false); this.counts.acks++; return;
        case "events": {
            this.#sample(bytes, false);
            const lines = num(m.world) === this.cur ? eventLines(m) : [];
            if (lines.length) {
                this.counts.events += lines.length;
                this.lastEvent = lines.at(-1);
            }
            return;
        }
        case "error": {
            this.#sample(bytes, false);
            const e = readError(m);
            this.refused(e);
            this.#rectRefused(e);
            return;
        }
        case "local_error":
            this.lastError = { code: m.code, msg: m.msg, seq: null };
            this.note(m.code === "bad_token" ? `the token was refused (${m.msg}); watching as a viewer` : `${m.code}: ${m.msg}`);
            this.onChange();
            return;
        case "playing": {
            this.#sample(bytes, false);
            const id = num(m.world), w = this.worlds.find((x) => x.id === id);
            if (w && m.play) {
                w.play = { ...readPlay(m.play), tick: num(m.tick) };
                this.onChange();
            }
            return;
        }
        case "closed": {
            const id = num(m.world), i = this.worlds.findIndex((x) => x.id === id);
            if (i < 0) return;
            this.worlds.splice(i, 1);
            this.controls.delete(id);
            this.note(`world ${id} was closed`);
            if (id === this.cur) {
                this.#setCur(this.worlds[0]?.id ?? null);
                this.#subscribe();
            }
            this.onChange();
            return;
        }
        case "created": {
            const w = readWorld(m.world);
            if (!this.worlds.some((x) => x.id === w.id)) {
                this.worlds.push(w);
                this.controls.set(w.id, new Controls(w));
            }
            this.onChange();
            return;
        }
        default:
            this.#sample(bytes, false);
        }
    }

    #frame(m) {
        if (num(m.world) !== this.cur) return;     /* in flight from a world left */
        let r;
        const t0 = this.now();
        try {
            r = this.stream.apply(m);
            /* decode and hash, smoothed over about 20 frames */
            this.applyMs += (this.now() - t0 - this.applyMs) / 20;
        } catch (e) {
            if (!(e instanceof FrameError)) throw e;
            if (e.code === "nokey") return;          /* from before the keyframe asked for */
            this.counts.badFrames++;
            this.note(`a bad frame at tick ${String(m.tick)}: ${e.message}`);
            this.#resync();
            return;
        }
        if (!r.hashOk) {
            this.counts.mismatches++;
            this.note(`frame hash mismatch at tick ${r.tick}: ${hex64(this.stream.hash)} here, ${hex64(this.stream.fh)} sent`);
            this.#resync();
            return;
        }
        if (r.key) this.#keyed();
        this.verified = true;
        this.counts.frames++;
        const w = this.world;
        if (w && w.play) {
            w.play.tick = r.tick;
            if (r.tick >= w.play.end) w.play.paused = true;     /* it stops there */
        }
        if (w) w.tick = r.tick;
        this.onFrame(r);
    }

    #resync() {
        this.verified = false;
        this.counts.resyncs++;
        this.#subscribe();
    }

    /* ---- the test hook --------------------------------------------------------------------- */
    /* A plain object of getters and functions for tests (window.viv; clients/web/README.md). */
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
            /* the rect of the frame held ([x, y, w, h], null: the whole world) and its div;
             * what the last sub asked for ({rect, aligned, div}); subs sent */
            get rect() { return v.stream.haveKey && v.stream.rect ? [...v.stream.rect] : null; },
            get div() { return v.stream.div; },
            get lens() { return { rect: v.lens.rect && [...v.lens.rect], aligned: v.lens.aligned && [...v.lens.aligned], div: v.lens.div }; },
            get subs() { return v.subs; },
            get verified() { return v.verified; },
            get frames() { return v.counts.frames; },
            get mismatches() { return v.counts.mismatches; },
            get badFrames() { return v.counts.badFrames; },
            get acks() { return v.counts.acks; },
            get errors() { return v.counts.errors; },
            get lastError() { return v.lastError; },
            get state() { return v.conn.state; },
            get connects() { return v.conn.connects; },
            get role() { return v.role; },
            get worlds() { return v.worlds.map((w) => ({ id: w.id, kind: w.kind, seed: String(w.seed), params: w.params, w: w.w, h: w.h, hz: w.hz, views: [...w.views], play: w.play ? { ...w.play } : null })); },
            get playState() { return v.world?.play ? { ...v.world.play } : null; },
            pixels() { return v.stream.px.slice(); },
            palette() { return v.stream.pal.slice(); },
            frameHash() { return hex64(v.stream.computeHash()); },
            rates() { return v.rates(); },
            select(id) { v.select(id); },
            setView(name) { v.setView(name); },
            setEvery(n) { v.setEvery(n); },
            setHomage(on) { v.setHomage(on); },
            get homage() { return v.homage; },
            setEnc(enc) { v.setEnc(enc); },
            input(kind, args) { return v.sendInput({ kind, args }); },
            play(op, args) { return v.play(op, args); },
            drop() { v.conn.drop(); },
        };
    }
}
