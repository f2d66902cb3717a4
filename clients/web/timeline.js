// timeline.js — this tab's own timeline on the world it watches (docs/PROTOCOL.md "timeline"):
// rewinding a live world, or moving through a recording, for this viewer alone and with no
// token; opening any recorded session to watch ("open"); and forking the moment shown into a new
// live world ("fork"). No DOM: main.js draws it.
import { fork, num, open, readError, readOpened, readPlay, readWorld, timeline } from "./protocol.js";

/* The errors vivd answers a timeline op, a fork or an open with (docs/PROTOCOL.md). An open's own
 * (OPEN_ONLY) are the open's whatever else waits; the ones it shares with the timeline are the
 * timeline's while one of its ops waits. */
const TIMELINE_ERRORS = new Set(["missing_field", "bad_field", "unknown_world", "not_subscribed", "not_a_recording", "world_busy", "replay_failed"]);
const FORK_ERRORS = new Set(["forbidden", "missing_field", "bad_field", "unknown_world", "not_a_recording", "world_limit", "replay_failed", "node_lost", "cluster_down"]);
const OPEN_ONLY = new Set(["unknown_file", "unknown_session", "world_limit"]);
const OPEN_ERRORS = new Set([...OPEN_ONLY, "missing_field", "bad_field", "replay_failed"]);

export class Timeline {
    /* viewer: a Viewer (viewer.js); onChange(): something shown changed. */
    constructor(viewer, { onChange = () => {} } = {}) {
        this.v = viewer;
        this.onChange = onChange;
        this.forking = null;      /* {world, tick} of a fork asked for, until forked or refused */
        this.forks = [];          /* [{world (the new id), from, tick}] that came */
        this.opens = [];          /* [{session, file, tick}] opens asked for, until opened or refused */
        this.#clear();
    }

    #clear() {
        this.world = this.v.cur;
        this.subs = this.v.subs;
        this.open = false;        /* the subscription plays this tab's timeline, not the world */
        this.tick = null;         /* the tick of the last answer */
        this.play = null;         /* its play map: {session, start, end, paused, speed, file} */
        this.pending = 0;         /* ops sent and not yet answered */
        this.held = [];           /* ops held until the timeline being opened is (vivd refuses them meanwhile) */
        this.aim = {};            /* {tick, paused, speed, live} the ops unanswered ask for: a key pressed
                                   * again before the answer goes on from there */
        this.carry = null;        /* the tick a new sub's timeline is being opened at (resubscribe) */
    }

    /* A timeline ends with its subscription (a world switched, a new sub, a reconnect). */
    sync() {
        if (this.world !== this.v.cur || this.subs !== this.v.subs) this.#clear();
        return this;
    }

    /* Can the world shown be rewound here? A world on this vivd, live or a recording. */
    get usable() { return this.v.world !== null && this.v.state === "open" && !this.v.world.local; }
    get live() { return !this.sync().open; }
    get paused() { return this.open && this.play?.paused === true; }

    /* op: seek {tick}, pause, resume, step, back, speed {speed}, live. While the first op is
     * opening the timeline, the next ones wait here and go once it is open. */
    send(op, args = {}) {
        this.sync();
        const w = this.v.world;
        if (!w || !this.usable) return false;
        if (op === "seek") args = { tick: Math.max(0, Math.round(args.tick)) };
        this.#aimAt(op, args);
        if (!this.open && this.pending) {
            this.held.push([op, args]);
            return true;
        }
        const ok = this.v.conn.send(timeline(w.id, op, args));
        if (ok) this.pending++;
        return ok;
    }

    #aimAt(op, args) {
        if (op === "live") {
            this.aim = { live: true };
            return;
        }
        const a = this.aim;
        delete a.live;
        if (op === "seek") a.tick = args.tick;
        else if ((op === "step" || op === "back") && a.tick !== undefined) a.tick += op === "step" ? 1 : -1;
        if (op === "speed") a.speed = args.speed;
        if (op === "pause" || op === "resume") a.paused = op === "pause";
        if (op === "step" || op === "back") a.paused = true;
    }

    /* An answer, or a refusal: with nothing left unanswered, vivd's word is the position. */
    #answered() {
        this.pending = Math.max(0, this.pending - 1);
        if (!this.pending && !this.held.length) this.aim = {};
        if (!this.pending && !this.open) this.carry = null;
    }

    #release() {
        while (this.held.length && (this.open || !this.pending)) this.send(...this.held.shift());
    }

    /* ---- a recording (a world with a play map), moved on this tab's timeline: no token, and
     * nobody else's picture moves ------------------------------------------------------------- */
    /* {start, end, tick (shown), paused, speed}, or null when the world shown is no recording.
     * Before the first op the tab shows the world's own position; at its end it is paused (vivd
     * stops it there without a word). */
    recording() {
        const w = this.sync().v.world, p = w?.play;
        if (!p) return null;
        const s = this.v.stream, a = this.aim, tick = a.tick ?? (s.haveKey ? s.tick : p.tick ?? w.tick);
        const own = this.open && this.play ? this.play : p;
        return { start: p.start, end: p.end, tick, paused: a.paused ?? (own.paused || tick >= p.end), speed: a.speed ?? own.speed };
    }

    playToggle() {
        const r = this.recording();
        if (!r) return false;
        if (!r.paused) return this.send("pause");
        if (r.tick >= r.end) this.send("seek", { tick: r.start });
        return this.send("resume");
    }

    /* One tick on or back, from a pause (playing, it pauses first). */
    stepOn() { return this.#step("step", (r) => r.tick < r.end); }
    stepBack() { return this.#step("back", (r) => r.tick > r.start); }
    #step(op, can) {
        const r = this.recording();
        if (!r || !can(r)) return false;
        if (!r.paused) this.send("pause");
        return this.send(op);
    }

    seekTo(tick) {
        const r = this.recording();
        return r ? this.send("seek", { tick: Math.max(r.start, Math.min(r.end, Math.round(tick))) }) : false;
    }

    setSpeed(speed) {
        return this.recording() ? this.send("speed", { speed: Math.max(10, Math.min(1000, Math.round(speed))) }) : false;
    }

    /* A new subscription of the world (another view, the homage, the part of the world in view)
     * ends the timeline at vivd: the new one lands where this tab was, as it was (paused or
     * playing, at its speed), in a recording or a live world rewound. */
    resubscribe(fn) {
        const r = this.#position();
        fn();
        if (!r) return;
        this.send("seek", { tick: r.tick });
        if (r.speed !== 100) this.send("speed", { speed: r.speed });
        if (!r.paused) this.send("resume");
        this.carry = r.tick;
    }

    /* Where this tab's timeline is, or is being opened at (the view may move again before vivd
     * answers): {tick, paused, speed}, what unanswered ops ask for first; null when it is live or
     * going live. */
    #position() {
        this.sync();
        const a = this.aim;
        if ((!this.open && !this.pending) || a.live) return null;
        const r = this.recording();
        if (r) return r;
        const s = this.v.stream;
        return { tick: a.tick ?? (s.haveKey ? s.tick : this.tick), paused: a.paused ?? this.play?.paused ?? true, speed: a.speed ?? this.play?.speed ?? 100 };
    }

    /* Is a frame of tick not this tab's picture? While a new sub's timeline is being opened where
     * the tab was (resubscribe), vivd sends the world's own frames; they are not shown. */
    hides(tick) {
        this.sync();
        return this.carry !== null && !this.open && this.pending > 0 && tick !== this.carry;
    }

    /* ---- opening a recorded session (any role) ------------------------------------------------ */
    /* Watch session of file (absent: vivd's first file); the tab switches to the world vivd
     * answers with, and, given a tick, this tab's timeline seeks there. */
    openSession(session, file = "", tick = null) {
        if (this.v.state !== "open") return false;
        const ok = this.v.conn.send(open(session, file));
        if (ok) this.opens.push({ session, file, tick });
        this.onChange();
        return ok;
    }

    /* Is an open of session (of file) waiting for its answer? */
    opening(session, file = "") {
        return this.opens.some((o) => o.session === session && (!o.file || !file || o.file === file));
    }

    #opened(m) {
        const o = readOpened(m);
        const i = this.opens.findIndex((x) => x.session === o.session && (!x.file || x.file === o.file));
        const asked = i >= 0 ? this.opens.splice(i, 1)[0] : null;
        this.v.addWorld(o.world);
        if (this.v.cur !== o.world.id)
            this.v.note(`session ${o.session} of ${o.file}: world ${o.world.id}${o.world.play ? ", a recording" : ", live"}`);
        this.v.select(o.world.id);
        if (asked?.tick !== null && asked?.tick !== undefined) this.send("seek", { tick: asked.tick });
        this.onChange();
    }

    #openRefused(m) {
        const o = this.opens.shift();
        this.v.refused(readError(m), `session ${o.session}${o.file ? ` of ${o.file}` : ""} cannot be watched`);
        this.onChange();
        return true;
    }

    /* ---- play from here ----------------------------------------------------------------------- */
    /* Fork the world shown at tick (a player's right): vivd answers `forked`, and the tab
     * switches to the new world. */
    fork(tick) {
        const w = this.v.world;
        if (!w || !this.usable) return false;
        if (!this.v.canInput) {
            this.v.note("“play from here” needs a player token: press “token” above");
            return false;
        }
        const ok = this.v.conn.send(fork(w.id, Math.max(0, Math.round(tick))));
        if (ok) this.forking = { world: w.id, tick: Math.round(tick) };
        this.onChange();
        return ok;
    }

    /* A message from vivd (before the viewer sees it); true: it was taken here. */
    feed(m) {
        if (m.t === "timeline") {
            this.sync();
            if (num(m.world) !== this.world) return true;         /* of a world left */
            this.#answered();
            this.tick = num(m.tick);
            this.open = m.live !== true;
            this.play = this.open && m.play ? readPlay(m.play, "timeline.play") : null;
            this.#release();
            this.onChange();
            return true;
        }
        if (m.t === "opened") {
            this.#opened(m);
            return true;
        }
        if (m.t === "forked") {
            const w = readWorld(m.world);
            this.forks.push({ world: w.id, from: num(m.from), tick: num(m.tick) });
            this.forking = null;
            this.v.addWorld(w);
            this.v.note(`forked world ${num(m.from)} at tick ${num(m.tick)}: this is world ${w.id}`);
            this.v.select(w.id);
            this.onChange();
            return true;
        }
        if (m.t === "error") {
            /* the viewer notes it (an open's refusal is noted here, naming the session); here
             * only what was waiting for an answer stops waiting */
            if (this.forking && FORK_ERRORS.has(m.code)) this.forking = null;
            else if (this.opens.length && (OPEN_ONLY.has(m.code) || (OPEN_ERRORS.has(m.code) && !this.pending))) return this.#openRefused(m);
            else if (this.pending && TIMELINE_ERRORS.has(m.code)) {
                if (!this.open) this.held = [];        /* the timeline did not open: what waited for it goes */
                this.#answered();
            }
        }
        return false;
    }
}
