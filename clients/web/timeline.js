// timeline.js — this tab's own timeline on the world it watches (docs/PROTOCOL.md "timeline"):
// rewinding a live world (or moving through a --play recording) for this viewer alone, and
// forking the moment shown into a new live world ("fork"). No DOM: main.js draws it.
import { fork, num, readPlay, readWorld, timeline } from "./protocol.js";

/* The errors vivd answers a timeline op or a fork with (docs/PROTOCOL.md). */
const TIMELINE_ERRORS = new Set(["missing_field", "bad_field", "unknown_world", "not_subscribed", "not_a_recording", "world_busy", "replay_failed"]);
const FORK_ERRORS = new Set(["forbidden", "missing_field", "bad_field", "unknown_world", "not_a_recording", "world_limit", "replay_failed", "node_lost", "cluster_down"]);

export class Timeline {
    /* viewer: a Viewer (viewer.js); onChange(): something shown changed. */
    constructor(viewer, { onChange = () => {} } = {}) {
        this.v = viewer;
        this.onChange = onChange;
        this.forking = null;      /* {world, tick} of a fork asked for, until forked or refused */
        this.forks = [];          /* [{world (the new id), from, tick}] that came */
        this.#clear();
    }

    #clear() {
        this.world = this.v.cur;
        this.subs = this.v.subs;
        this.open = false;        /* the subscription plays this tab's timeline, not the world */
        this.tick = null;         /* the tick of the last answer */
        this.play = null;         /* its play map: {session, start, end, paused, speed, file} */
        this.pending = 0;         /* ops sent and not yet answered */
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

    /* op: seek {tick}, pause, resume, step, back, speed {speed}, live. */
    send(op, args = {}) {
        this.sync();
        const w = this.v.world;
        if (!w || !this.usable) return false;
        if (op === "seek") args = { tick: Math.max(0, Math.round(args.tick)) };
        const ok = this.v.conn.send(timeline(w.id, op, args));
        if (ok) this.pending++;
        return ok;
    }

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
            this.pending = Math.max(0, this.pending - 1);
            this.tick = num(m.tick);
            this.open = m.live !== true;
            this.play = this.open && m.play ? readPlay(m.play, "timeline.play") : null;
            this.onChange();
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
            /* the viewer notes it; here only what was waiting for an answer stops waiting */
            if (this.forking && FORK_ERRORS.has(m.code)) this.forking = null;
            else if (this.pending && TIMELINE_ERRORS.has(m.code)) this.pending--;
        }
        return false;
    }
}
