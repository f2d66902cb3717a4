// replay.js — verifying a recording in the page, without trusting the server's replay: the
// session vivd streams (docs/PROTOCOL.md, `replay`: its kind, seed and params, the checkpoints a
// replay starts from, every logged input, the recorded state and frame hash of every tick) is
// replayed here in WebAssembly (sim.js, the same sim/ as vivd's) and every recorded hash is
// compared with the one computed, as `viv replay verify` does (docs/REPLAY.md, "How verify
// works"): the same verdict (bit-exact, diverged at tick T, damaged, or not verifiable) and the
// same count of ticks. No DOM: the page drives it, and tests/web/replay.test.mjs drives it from
// Node against a real vivd.
//
//   const v = new RecordingVerifier(sim, { session, file, onProgress });
//   connection.send(v.request());            // {t: "replay", session, file}
//   ... v.feed(msg) for every message that arrives ...
//   const result = await v.run();            // {verdict, ticks, divergedAt, …}
//
// The replay is continuous from the session's first checkpoint (and from the checkpoint at the end
// of each gap, which nothing can verify); verify cuts it at every checkpoint and checks each piece
// from its checkpoint, which is the same proof when the checkpoints are sound, and vivd checks
// them (their bytes, their hashes, the input rows each piece needs) as it streams, saying
// `replay_damage` where verify would stop on damage. The work runs in slices of a few ms, so the
// page keeps drawing while it verifies.
import { decompress } from "./vendor/fzstd.js";
import { hex64 } from "./hash.js";
import { num, readError, u64 } from "./protocol.js";
import { SimError } from "./sim.js";

const SIM_EDUP = -14;         /* sim.h: the input is already queued (a checkpoint holds it) */
const SIM_EFILE = -15;        /* sim.h: a world built from a file (create reads none) */
const SLICE_MS = 12;          /* replay this long, then let the page draw */
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const CONFIRM_TICKS = 60;     /* replay/verify.c: ticks past a suspect hash row that must all match again */

/* Give the page a turn: scheduler.yield where the browser has it, else a macrotask. */
const yieldNow = () => (globalThis.scheduler?.yield ? globalThis.scheduler.yield() : new Promise((r) => setTimeout(r, 0)));

export class RecordingVerifier {
    /* sim: a loaded Sim (sim.js). opts: session (id), file (one the server's `sessions` lists, or
     * undefined: the file vivd records to), onProgress({received, verified, total}), now (ms
     * clock), and, for tests only, flip: a tick whose recorded state hash is taken with its lowest
     * bit flipped, as a damaged or forged recording would carry it. */
    constructor(sim, opts = {}) {
        this.sim = sim;
        this.session = opts.session;
        this.file = opts.file;
        this.onProgress = opts.onProgress ?? (() => {});
        this.now = opts.now ?? (() => performance.now());
        this.flip = opts.flip ?? null;
        this.info = null;
        this.spans = [];              /* {start, end, skipped, size, sh, row, state, got, chunks} */
        this.chunks = [];             /* of the span being received */
        this.damage = null;           /* {after, msg}: the stream ends there, damaged */
        this.ended = false;           /* replay_end */
        this.trailing = [];           /* ranges skipped after the last span */
        this.endSh = null;            /* the checkpoint at the session's last tick: its state hash */
        this.failure = null;          /* an error reply, or a stream that breaks the protocol */
        this.finished = false;        /* run() has its verdict: the rest of the stream is dropped */
        this.received = 0;            /* ticks whose rows arrived */
        this.verified = 0;
        this.wake = null;
        this.t0 = this.now();
    }

    /* The message that asks vivd for the recording. */
    request() {
        return { t: "replay", session: this.session, file: this.file };
    }

    /* Take one message from the connection: true when it belonged to this stream. */
    feed(m) {
        if (typeof m.t !== "string" || this.done()) return false;
        if (m.t === "error") {
            /* the errors a replay request can get (the connection's other errors are not ours) */
            const e = readError(m);
            if (!/^(unknown_session|unknown_file|replay_busy|replay_failed|bad_field|missing_field)$/.test(e.code)) return false;
            this.failure = e;
            this.#poke();
            return true;
        }
        if (!m.t.startsWith("replay_") || m.session === undefined || num(m.session) !== this.session) return false;
        if (this.finished) {
            /* the verdict is in (a divergence): the rest of the stream is only let go by, to its end */
            if (m.t === "replay_end") this.ended = true;
            if (m.t === "replay_damage") this.damage = { after: num(m.after), msg: String(m.msg ?? "") };
            this.#poke();
            return true;
        }
        try {
            this.#take(m);
        } catch (e) {
            this.failure = { code: "bad_stream", msg: e.message };
        }
        this.#poke();
        return true;
    }

    /* Stop waiting for a stream that cannot come any more (the connection dropped): the result
     * is "unverifiable" with why. */
    abort(why) {
        if (this.done()) return;
        this.failure = { code: "aborted", msg: why };
        this.#poke();
    }

    /* Resolves once the stream has ended (vivd sends one stream at a time per connection: the next
     * request waits for this one's end, which comes soon after a divergence stops the replay). */
    async drained() {
        while (!this.done()) await new Promise((r) => { this.wake = r; });
    }

    done() {
        return this.failure !== null || this.damage !== null || this.ended;
    }

    #poke() {
        const w = this.wake;
        this.wake = null;
        if (w) w();
        this.onProgress(this.progress());
    }

    progress() {
        return { received: this.received, verified: this.verified, total: this.info ? this.info.ticks : 0 };
    }

    #take(m) {
        const span = this.spans.at(-1);
        switch (m.t) {
        case "replay_info":
            this.info = {
                session: num(m.session), file: String(m.file), kind: String(m.kind), seed: u64(m.seed),
                params: String(m.params ?? ""), simVersion: String(m.sim_version ?? ""), hz: num(m.hz),
                status: String(m.status ?? ""), start: num(m.start), end: num(m.end), ticks: num(m.ticks),
                spans: num(m.spans), world: m.world === undefined ? null : num(m.world),
            };
            return;
        case "replay_span": {
            if (!this.info) throw new Error("replay_span before replay_info");
            const size = num(m.size);
            this.spans.push({
                start: num(m.start), end: num(m.end), skipped: readGaps(m.skipped), size, sh: u64(m.sh),
                row: Array.isArray(m.row) ? { sh: u64(m.row[0]), fh: u64(m.row[1]), bits: m.row.length > 2 ? num(m.row[2]) : 64 } : null,
                state: new Uint8Array(size), got: 0, chunks: [], next: num(m.start),
            });
            return;
        }
        case "replay_state": {
            if (!span) throw new Error("replay_state before replay_span");
            const off = num(m.off), data = m.data;
            if (!(data instanceof Uint8Array) || off !== span.got || off + data.length > span.size)
                throw new Error(`a piece of the checkpoint at tick ${span.start} out of order or too long`);
            span.state.set(data, off);
            span.got += data.length;
            return;
        }
        case "replay_ticks": {
            if (!span || span.got !== span.size) throw new Error("replay_ticks before its span's checkpoint");
            const from = num(m.from), n = num(m.n);
            if (from !== span.next || from + n > span.end || !(m.sh instanceof Uint8Array) || !(m.fh instanceof Uint8Array) ||
                m.sh.length !== 8 * n || m.fh.length !== 8 * n || !Array.isArray(m.inputs) ||
                (m.bits !== undefined && (!(m.bits instanceof Uint8Array) || m.bits.length !== n)))
                throw new Error(`a chunk of ticks from ${from} that does not follow tick ${span.next} in the span ${span.start}..${span.end}`);
            span.chunks.push({
                from, n,
                sh: new DataView(m.sh.buffer, m.sh.byteOffset, m.sh.byteLength),
                fh: new DataView(m.fh.buffer, m.fh.byteOffset, m.fh.byteLength),
                bits: m.bits ?? null,     /* recorded low bits of each tick's hashes; null: all 64 */
                inputs: m.inputs.map((i) => ({ tick: num(i[0]), client: num(i[1]), seq: num(i[2]), kind: num(i[3]), args: i[4].map((a) => num(a)) })),
            });
            span.next = from + n;
            this.received += n;
            return;
        }
        case "replay_damage":
            this.damage = { after: num(m.after), msg: String(m.msg ?? "") };
            return;
        case "replay_end":
            this.trailing = readGaps(m.skipped);
            this.endSh = m.end_sh !== undefined ? u64(m.end_sh) : null;
            this.ended = true;
            return;
        default:
            throw new Error(`an unknown message '${m.t}' in the stream`);
        }
    }

    /* Wait until pred() holds or the stream can bring nothing more: pred()'s value, or false. */
    async #until(pred) {
        for (;;) {
            const v = pred();
            if (v) return v;
            if (this.done()) return pred();
            await new Promise((r) => { this.wake = r; });
        }
    }

    /* Replay and compare; resolves to the result (see #result). */
    async run() {
        const t0 = this.t0;
        let replayMs = 0, world = null;
        const res = (verdict, extra = {}) => {
            world?.destroy();
            const out = this.#result(verdict, { seconds: (this.now() - t0) / 1000, replaySeconds: replayMs / 1000, ...extra });
            this.finished = true;         /* from here the stream is let go by */
            this.spans.length = 0;
            return out;
        };
        /* A recorded hash that disagrees is first a suspect, as viv replay verify treats it: when
         * every recorded hash after it, up to the next checkpoint or CONFIRM_TICKS ticks (whichever
         * is later), matches again, and the checkpoints on the way hold the replayed state, the one
         * row was changed after it was written (damaged); a real divergence carries on. */
        let suspect = null, prevEnd = null;
        const damaged = (byEndCp = false) => res("damaged", { message: lone(this.info, suspect, prevEnd, byEndCp), divergedAt: null });
        /* The stream stopped with a suspect: confirmed by what came after it, or at the session's
         * last tick by the checkpoint there (replay_end's end_sh: vivd's suspend leaves one), or
         * else (damage reported further on, a failure, nothing after it) a divergence, which wins. */
        const atEnd = () => this.ended && suspect.at === this.info.end && prevEnd === suspect.at &&
            this.endSh !== null && this.endSh === suspect.result.replayed.sh;
        const ended = () => !suspect ? this.#ended(res)
            : this.damage || this.failure ? res("diverged", suspect.result)
            : prevEnd > suspect.at ? damaged()
            : atEnd() ? damaged(true) : res("diverged", suspect.result);
        try {
            if (!(await this.#until(() => this.info))) return ended();
            const info = this.info;
            for (let i = 0; i < info.spans; i++) {
                const span = await this.#until(() => this.spans[i]?.got === this.spans[i]?.size && this.spans[i]);
                if (!span) return ended();
                let bytes = span.state;
                if (ZSTD_MAGIC.every((b, k) => bytes[k] === b)) bytes = decompress(bytes);
                const held = this.sim.stateHash(bytes);     /* docs/STATE.md: as the recorder took it */
                if (held !== span.sh && suspect)     /* nothing confirms the suspect: as verify says it */
                    return res("diverged", suspect.result);
                if (held !== span.sh)
                    return res("damaged", { message: `checkpoint at tick ${span.start} of session ${info.session} is corrupted (its ${bytes.length} bytes do not match the hash recorded with them)` });
                if (suspect) {
                    if (span.start !== prevEnd)           /* a gap: what was confirmed before it decides */
                        return prevEnd > suspect.at ? damaged() : res("diverged", suspect.result);
                    if (world.hash() !== span.sh) return res("diverged", suspect.result);
                    suspect.checkpoint = span.start;
                }
                if (world) world.load(bytes);
                else world = this.sim.fromState(bytes);
                if (i === 0 && info.start === 0 && span.start === 0) {
                    /* tick 0: the recorded initial state must be what this build creates */
                    const first = this.#initial(span.sh, bytes);
                    if (first) return res(first.verdict, first);
                }
                if (span.row) {
                    world.render(0);
                    const fh = world.frameHash();
                    if (differs(span.row.fh, fh, span.row.bits))
                        return res("diverged", { divergedAt: span.start, recorded: { sh: span.row.sh, fh: span.row.fh, bits: span.row.bits }, replayed: { sh: span.sh, fh } });
                }
                let t = span.start, c = 0, slice = this.now();
                while (t < span.end) {
                    const chunk = await this.#until(() => span.chunks[c]);
                    if (!chunk) return ended();
                    let k = 0;
                    const ins = chunk.inputs;
                    for (let j = 0; j < chunk.n; j++, t++) {
                        for (; k < ins.length && ins[k].tick === t; k++) {
                            const x = ins[k], rc = world.input(t, x.client, x.seq, x.kind, x.args);
                            if (rc && rc !== SIM_EDUP)
                                return res("unverifiable", { message: `session ${info.session}, input at tick ${t} (client ${x.client}, seq ${x.seq}): the world refuses it: ${world.error}` });
                        }
                        world.step();
                        world.render(0);
                        const sh = world.hash(), fh = world.frameHash();
                        let want = chunk.sh.getBigUint64(8 * j, true);
                        if (this.flip !== null && t + 1 === this.flip) want ^= 1n;
                        const wantFh = chunk.fh.getBigUint64(8 * j, true);
                        const bits = chunk.bits ? chunk.bits[j] : 64;
                        if (differs(want, sh, bits) || differs(wantFh, fh, bits)) {
                            const result = { divergedAt: t + 1, recorded: { sh: want, fh: wantFh, bits }, replayed: { sh, fh } };
                            if (suspect) return res("diverged", suspect.result);
                            suspect = { at: t + 1, until: Math.max(t + 1 + CONFIRM_TICKS, span.end), result };
                        } else this.verified++;
                        prevEnd = t + 1;
                        if (suspect && t + 1 >= suspect.until) return damaged();
                        if ((this.verified & 7) === 0 && this.now() - slice >= SLICE_MS) {
                            replayMs += this.now() - slice;
                            this.onProgress(this.progress());
                            await yieldNow();
                            slice = this.now();
                        }
                    }
                    c++;
                    span.chunks[c - 1] = null;       /* replayed: let it go */
                }
                replayMs += this.now() - slice;
            }
            await this.#until(() => this.ended);
            return ended();
        } catch (e) {
            if (e instanceof SimError) return res("unverifiable", { message: `the sim module refused: ${e.message}` });
            throw e;
        }
    }

    /* The stream stopped: its end, damage, or a failure. */
    #ended(res) {
        if (this.failure) {
            const f = this.failure;
            return res(f.code === "unknown_session" || f.code === "unknown_file" ? "error" : "unverifiable", { message: `${f.code}: ${f.msg}` });
        }
        if (this.damage) return res("damaged", { message: this.damage.msg, after: this.damage.after });
        if (this.ended && this.info && this.verified !== this.info.ticks)
            return res("unverifiable", { message: `the stream ended after ${this.verified} of ${this.info.ticks} ticks` });
        return res(this.ended ? "bit-exact" : "unverifiable", this.ended ? {} : { message: "the stream stopped" });
    }

    /* The recorded tick-0 state against a world made from (kind, seed, params): null when equal
     * (or when the world is built from a file, which the recording alone holds: a warning). */
    #initial(sh, bytes) {
        const i = this.info;
        let w;
        try {
            w = this.sim.create(i.kind, i.seed, i.params);
        } catch (e) {
            if (e instanceof SimError && e.code === SIM_EFILE) {
                this.warning = `session ${i.session}'s world is built from a file (${i.params}): its tick-0 state comes from the recording and is not re-created`;
                return null;
            }
            return { verdict: "unverifiable", message: `session ${i.session}: cannot create its ${i.kind} world: ${e.message}` };
        }
        try {
            w.saveAs(bytes);      /* a state an older build saved (sand's version 2) is compared as that version */
        } catch { /* a version this build does not read: it differs below */ }
        const h = w.hash();
        w.destroy();
        if (h === sh) return null;
        return { verdict: "diverged", divergedAt: 0, initial: true, recorded: { sh, fh: null }, replayed: { sh: h, fh: null },
                 message: "tick 0: the recorded initial state is not what this build creates for this kind, seed and params" };
    }

    /* {verdict: "bit-exact" | "diverged" | "damaged" | "unverifiable" | "error", session, kind,
     *  seed, ticks (stepped and checked, as verify counts them), first, last, divergedAt,
     *  recorded/replayed {sh, fh} (hex), skipped [{from, to, reason}], message, warning, seconds
     *  (from the request), replaySeconds (in the replay itself), hz}. */
    #result(verdict, extra) {
        const i = this.info;
        const hexes = (h) => (h ? { sh: h.sh === null ? null : hexRecorded(h.sh, h.bits), fh: h.fh === null ? null : hexRecorded(h.fh, h.bits) } : null);
        return {
            verdict,
            session: this.session,
            file: i?.file ?? this.file ?? null,
            kind: i?.kind ?? null,
            seed: i ? String(i.seed) : null,
            params: i?.params ?? null,
            hz: i?.hz ?? 0,
            status: i?.status ?? null,
            first: this.spans[0]?.start ?? i?.start ?? 0,
            last: i?.end ?? 0,
            total: i?.ticks ?? 0,
            ticks: this.verified,
            divergedAt: extra.divergedAt ?? null,
            recorded: hexes(extra.recorded),
            replayed: hexes(extra.replayed),
            skipped: [...this.spans.flatMap((s) => s.skipped), ...this.trailing],
            message: extra.message ?? "",
            warning: this.warning ?? "",
            seconds: extra.seconds,
            replaySeconds: extra.replaySeconds,
        };
    }
}

/* The sentence for a lone damaged hash row (viv replay verify's, in one paragraph). */
function lone(info, suspect, end, byEndCp) {
    const { divergedAt: t, recorded: r, replayed: p } = suspect.result;
    const cols = [];
    if (differs(r.sh, p.sh, r.bits)) cols.push(`its recorded state hash: recorded ${hexRecorded(r.sh, r.bits)}, replayed ${hex64(p.sh)}`);
    if (differs(r.fh, p.fh, r.bits)) cols.push(`its recorded frame hash: recorded ${hexRecorded(r.fh, r.bits)}, replayed ${hex64(p.fh)}`);
    const confirmed = byEndCp
        ? `the checkpoint recorded at tick ${t} holds exactly the replayed state`
        : `every hash recorded for ticks ${t + 1} to ${end} matches the replay again` +
          (suspect.checkpoint !== undefined ? ` (the replayed state equals the checkpoint at tick ${suspect.checkpoint})` : "");
    return `one recorded hash is wrong: tick ${t}, ${cols.join("; ")}; ${confirmed}` +
        `: the simulation replays bit-exactly around it, so the value was changed after it was written (a disk or copy fault, or an edit). ` +
        `Check the file (sqlite3 FILE 'PRAGMA integrity_check') and restore it from a backup`;
}

/* Whether a hash computed now differs from one recorded with its low `bits` bits (docs/REPLAY.md,
 * "Recorded hashes": 64 whole, 8 for most ticks of a block, 0 none: nothing to compare). */
export function differs(recorded, actual, bits = 64) {
    if (bits <= 0) return false;
    if (bits >= 64) return recorded !== actual;
    return ((recorded ^ actual) & ((1n << BigInt(bits)) - 1n)) !== 0n;
}

/* A recorded hash as viv replay verify prints it: 16 hex digits, or only the recorded low bits'
 * digits after dots ("..............3f"). */
export function hexRecorded(v, bits = 64) {
    if (bits >= 64) return hex64(v);
    const digits = bits > 0 ? Math.ceil(bits / 4) : 0;
    const low = digits ? (v & ((1n << BigInt(bits)) - 1n)).toString(16).padStart(digits, "0") : "";
    return ".".repeat(16 - digits) + low;
}

function readGaps(v) {
    return Array.isArray(v) ? v.map((g) => ({ from: num(g[0]), to: num(g[1]), reason: String(g[2] ?? "") })) : [];
}

/* The sessions reply → [{file, recording, total, error, sessions: [{session, kind, seed (string),
 * params, simVersion, hz, start, end, status, world}]}]. */
export function readSessions(m) {
    return (Array.isArray(m.files) ? m.files : []).map((f) => ({
        file: String(f.file), recording: f.recording === true, total: num(f.total ?? 0),
        error: typeof f.error === "string" ? f.error : null,
        sessions: (Array.isArray(f.sessions) ? f.sessions : []).map((s) => ({
            session: num(s.session), kind: String(s.kind), seed: String(u64(s.seed)), params: String(s.params ?? ""),
            simVersion: String(s.sim_version ?? ""), hz: num(s.hz ?? 0), start: num(s.start), end: num(s.end),
            status: String(s.status ?? ""), world: s.world === undefined ? null : num(s.world),
        })),
    }));
}

/* One line, as `viv replay verify` would put it. */
export function describeResult(r) {
    switch (r.verdict) {
    case "bit-exact":
        return `session ${r.session} (${r.kind}, seed ${r.seed}): bit-exact: ${r.ticks} tick${r.ticks === 1 ? "" : "s"} replayed from tick ${r.first} to ${r.last}, the state hash and frame hash of every tick matching the recording`;
    case "diverged":
        return `desync in session ${r.session} (${r.kind}, seed ${r.seed}): first divergent tick: ${r.divergedAt}` +
            (r.recorded ? ` (state hash recorded ${r.recorded.sh} replayed ${r.replayed.sh}${r.recorded.fh ? `, frame hash recorded ${r.recorded.fh} replayed ${r.replayed.fh}` : ""})` : "");
    case "damaged":
        return `session ${r.session} is damaged: ${r.message}`;
    default:
        return `session ${r.session}: not verified: ${r.message}`;
    }
}
