// recordings.js — the panel's Recordings: the sessions vivd can hand out (its `sessions` reply),
// Watch (this tab's timeline opens one) and Verify (replay.js replays one here against every
// recorded hash), with the verification's progress and its verdict.
import { RecordingVerifier, describeResult, readSessions } from "./replay.js";
import { el } from "./dom.js";

export class Recordings {
    /* viewer: the page's (viewer.js); isLocal: a world run here (no recordings); sim(): the sim
     * module's promise; timeline(): this tab's timeline (timeline.js); changed(): the panel needs
     * drawing again. */
    constructor({ viewer, isLocal, sim, timeline, changed }) {
        Object.assign(this, { viewer, isLocal, sim, timeline, changed });
        this.files = [];          /* readSessions(): {file, recording, total, sessions} */
        this.pick = "";           /* "file\nsession" picked in the list */
        this.pickFor = null;      /* the world the pick followed */
        this.busy = false;        /* a verification runs */
        this.run = null;          /* its RecordingVerifier, while vivd streams it */
        this.progress = null;
        this.result = null;
        this.error = "";
        this.asked = false;       /* a `sessions` request is unanswered */
        this.link = 0;            /* the connection the list was asked on */
        this.waiting = [];        /* resolved when the list came (or will not) */
        this.bar = null;          /* the progress bar and its line, while shown */
        this.out = null;
    }

    /* A message of vivd's for this panel: the list, a refusal of it, or the verification's
     * stream. True when it was this panel's. */
    message(m) {
        if (m.t === "sessions") {
            this.files = readSessions(m);
            this.asked = false;
            this.wake();
            this.changed();
            return true;
        }
        if (m.t === "error" && this.asked && !this.run && /^replay_(busy|failed)$/.test(m.code)) {
            this.asked = false;   /* the list is not coming: the viewer notes why */
            this.wake();
            return false;
        }
        return this.run !== null && this.run.feed(m);
    }

    wake() {
        for (const w of this.waiting.splice(0)) w();
    }

    /* Ask vivd for its sessions (not while a verification streams: one stream at a time). */
    refresh() {
        const v = this.viewer;
        if (this.isLocal || this.busy || v.state !== "open") return false;
        this.asked = v.conn.send({ t: "sessions" });
        return this.asked;
    }

    /* After each welcome, the list again; a connection that drops ends a verification. */
    checkLink() {
        const v = this.viewer;
        if (this.isLocal) return;
        if (v.state === "open" && v.conn.connects !== this.link) {
            this.link = v.conn.connects;
            this.refresh();
        }
        if (v.state !== "open") {
            this.run?.abort("the connection to vivd closed");
            this.asked = false;   /* a new connection: that list is not coming */
            this.wake();
        }
    }

    /* The file of a recording, where a link needs it: when it is not the first file vivd lists
     * (the one `open` takes when none is named). */
    fileParam(p) {
        return p.file && this.files[0]?.file !== p.file ? p.file : "";
    }

    /* The session a world is (a recording played, or a live world recorded): "file\nid", or "". */
    sessionOf(w) {
        if (!w) return "";
        if (w.play) return `${w.play.file}\n${w.play.session}`;
        for (const f of this.files)
            for (const x of f.sessions)
                if (f.recording && x.world === w.id && x.kind === w.kind && x.status === "running") return `${f.file}\n${x.session}`;
        return "";
    }

    /* Verify session (of file) here; resolves to the result (replay.js). flip: tests only. */
    async verify({ session, file, flip = null } = {}) {
        if (this.busy) throw new Error("a verification is already running");
        this.busy = true;
        try {
            return await this.verifyNow(session, file, flip);
        } finally {
            this.busy = false;
            this.refresh();       /* running sessions have grown meanwhile */
            this.changed();
        }
    }

    async verifyNow(session, file, flip) {
        this.result = null;
        this.error = "";
        this.progress = { received: 0, verified: 0, total: 0 };
        this.changed();
        let s;
        try {
            s = await this.sim();
        } catch (e) {
            this.error = `the sim module did not load (${e.message}): make builds it, and vivd serves it at /vivarium.wasm`;
            this.progress = null;
            return { verdict: "unverifiable", message: this.error };
        }
        /* one stream at a time on the connection: a session list asked for comes first */
        if (this.asked) await new Promise((r) => this.waiting.push(r));
        const v = new RecordingVerifier(s, { session, file, flip, onProgress: (p) => { this.progress = p; this.follow(); } });
        this.run = v;
        if (!this.viewer.conn.send(v.request())) v.abort("not connected to vivd");
        const r = await v.run();
        this.result = r;
        this.progress = v.progress();
        this.changed();
        await v.drained();        /* what vivd still sends of it, after a divergence */
        this.run = null;
        return r;
    }

    /* The panel, in box. */
    render(box) {
        const viewer = this.viewer, tl = this.timeline();
        if (this.isLocal) {
            box.replaceChildren();
            return;
        }
        const all = this.files.flatMap((f) => f.sessions.map((x) => ({ f, x, key: `${f.file}\n${x.session}` })));
        const mine = this.sessionOf(viewer.world);
        /* the pick follows the world shown: a tab switched to picks that world's session (a pick
         * made by hand holds until the tab changes) */
        if (mine && this.pickFor !== viewer.cur) {
            this.pick = mine;
            this.pickFor = viewer.cur;
        }
        if (!all.some((a) => a.key === this.pick)) this.pick = mine || all[0]?.key || "";
        const option = ({ f, x, key }) => {
            const o = el("option", { value: key, title: `${f.file}: session ${x.session}, ${x.kind} seed ${x.seed} ${x.params}, ticks ${x.start}..${x.end}, ${x.status}` },
                `${key === mine ? "this world: " : ""}${x.kind} #${x.session} · ${x.end - x.start} ticks${x.status === "running" ? " so far" : ""}`);
            o.selected = key === this.pick;
            return o;
        };
        /* several files: a group each, named by the file */
        const pick = el("select", { class: "grow", id: "rec-pick", title: "A recorded session", disabled: !!this.busy || all.length === 0 },
            ...(this.files.length > 1 ? this.files.map((f) => el("optgroup", { label: f.file }, ...all.filter((a) => a.f === f).map(option)))
                : all.map(option)));
        pick.addEventListener("change", () => { this.pick = pick.value; this.changed(); });
        const [pickFile, pickId] = this.pick.split("\n");
        const go = el("button", { type: "button", class: "btn", id: "verify-go", title: "Replay it here and check every recorded hash",
            disabled: !!this.busy || !this.pick || viewer.state !== "open",
            onclick: () => this.verify({ session: +pickId, file: pickFile }) }, this.busy ? "Verifying…" : "Verify");
        const opening = !!this.pick && tl.opening(+pickId, pickFile);
        const watch = el("button", { type: "button", class: "btn", id: "rec-watch", title: "Show it here, on your own timeline (no token needed)",
            disabled: !this.pick || this.pick === mine || opening || viewer.state !== "open",
            onclick: () => tl.openSession(+pickId, pickFile) }, this.pick && this.pick === mine ? "Watching" : opening ? "Opening…" : "Watch");
        const parts = [el("div", { class: "label" }, "Recordings"),
            ...(all.length ? [el("div", { class: "row" }, pick), el("div", { class: "row wrap" }, watch, go)]
                : [el("div", { class: "small" }, this.asked ? "asking vivd for its recordings…" : "vivd records nothing here and plays no recording.")])];
        if (this.progress) {
            this.bar = el("progress", { max: String(Math.max(1, this.progress.total)), value: String(this.progress.verified) });
            this.out = el("div", { class: "small mono" });
            parts.push(this.bar, this.out);
        }
        if (this.result) parts.push(verdict(this.result));
        if (this.error) parts.push(el("div", { class: "small err" }, this.error));
        box.replaceChildren(...parts);
        this.follow();
    }

    /* The progress moves without rebuilding the panel. */
    follow() {
        const p = this.progress, bar = this.bar;
        if (!p || !bar?.isConnected) return;
        bar.max = Math.max(1, p.total);
        bar.value = p.verified;
        this.out.textContent = `${p.verified} / ${p.total} ticks checked · ${p.received} received`;
    }

    /* What the page's test hook says of it. */
    state() {
        return { running: this.busy, progress: this.progress && { ...this.progress }, result: this.result, error: this.error };
    }
}

/* A verification's verdict, and what else the result says. */
function verdict(r) {
    const ok = r.verdict === "bit-exact";
    const lines = [describeResult(r)];
    for (const g of r.skipped) lines.push(`NOT VERIFIED: ticks [${g.from}, ${g.to}) (${g.to - g.from} ticks) were not recorded (${g.reason})`);
    if (r.warning) lines.push(r.warning);
    if (r.ticks && r.replaySeconds > 0) {
        const tps = r.ticks / r.replaySeconds;
        lines.push(`${r.ticks} ticks in ${r.replaySeconds.toFixed(2)} s of replay (${r.seconds.toFixed(2)} s in all): ${Math.round(tps)} ticks/s, ${(tps / (r.hz || 60)).toFixed(0)}× real time`);
    }
    return el("div", { class: `verdict ${ok ? "ok" : "bad"}`, id: "verdict" },
        el("strong", {}, ok ? "✓ bit-exact" : r.verdict === "diverged" ? `✗ diverged at tick ${r.divergedAt}` : r.verdict === "damaged" ? "✗ damaged" : "not verified"),
        ...lines.map((t) => el("div", { class: "small" }, t)));
}
