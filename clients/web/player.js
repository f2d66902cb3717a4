// player.js — the player of a one-file replay (`viv replay export FILE --html OUT.html`, made from
// player.html): the session arrives as the bytes of vivd's `replay` stream (docs/PROTOCOL.md,
// length-prefixed messages), which RecordingVerifier (replay.js) checks in full, tick by tick, as
// it checks a stream from vivd, while a second copy of the sim module plays it: play, pause, step
// both ways, seek, speed and integer zoom. A step back or a seek backwards re-runs from the
// nearest state kept on the way (one every CACHE_EVERY ticks) or from the span's checkpoint.
//
// When the verifier is done, <body> gets data-verdict (bit-exact, diverged, damaged, unverifiable),
// data-ticks (the ticks checked, as `viv replay verify` counts them) and, for a divergence,
// data-diverged-at; data-tick is the tick shown.
import { decompress } from "./vendor/fzstd.js";
import { buildLut, paint } from "./palette.js";
import { decodeMessage, num } from "./protocol.js";
import { describeResult, RecordingVerifier } from "./replay.js";
import { loadSim } from "./sim.js";

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const CACHE_EVERY = 60;                   /* keep the state every this many ticks... */
const CACHE_BYTES = 96 * 1024 * 1024;     /* ...while they take less than this */
const MAX_STEPS_PER_FRAME = 480;          /* a fast speed on a slow machine drops frames, not ticks */

/* The stream's bytes → its messages ([4-byte big-endian length][msgpack map] each). */
export function splitStream(bytes) {
    const out = [], dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let o = 0; o < bytes.length;) {
        if (o + 4 > bytes.length) throw new Error(`the session's stream is cut at byte ${o}`);
        const n = dv.getUint32(o);
        if (o + 4 + n > bytes.length) throw new Error(`the session's stream is cut in a message at byte ${o}`);
        out.push(decodeMessage(bytes.subarray(o + 4, o + 4 + n)));
        o += 4 + n;
    }
    return out;
}

/* The messages → what the player needs: info, and spans [{start, reach (the last tick with
 * recorded hashes), state (the checkpoint, inflated), inputs: Map tick → [input]}]. */
export function readSession(msgs) {
    let info = null, span = null, state = null;
    const spans = [];
    for (const m of msgs) {
        switch (m.t) {
        case "replay_info":
            info = { session: num(m.session), kind: String(m.kind), seed: BigInt.asUintN(64, BigInt(m.seed)),
                     params: String(m.params ?? ""), hz: num(m.hz), start: num(m.start), end: num(m.end) };
            break;
        case "replay_span":
            state = new Uint8Array(num(m.size));
            span = { start: num(m.start), end: num(m.end), reach: num(m.start), state, inputs: new Map(), cache: new Map() };
            spans.push(span);
            break;
        case "replay_state":
            state.set(m.data, num(m.off));
            break;
        case "replay_ticks":
            for (const i of m.inputs) {
                const t = num(i[0]);
                if (!span.inputs.has(t)) span.inputs.set(t, []);
                span.inputs.get(t).push({ client: num(i[1]), seq: num(i[2]), kind: num(i[3]), args: i[4].map((a) => num(a)) });
            }
            span.reach = num(m.from) + num(m.n);
            break;
        default:
            break;
        }
    }
    for (const s of spans)
        if (ZSTD_MAGIC.every((b, k) => s.state[k] === b)) s.state = decompress(s.state);
    if (!info) throw new Error("the session's stream has no replay_info");
    return { info, spans };
}

/* Plays the spans on its own world: seek(t) shows tick t (within a span's start..reach). */
export class Player {
    constructor(sim, session) {
        this.sim = sim;
        this.info = session.info;
        this.spans = session.spans;
        this.world = null;
        this.span = -1;
        this.cacheBytes = 0;
    }

    get first() { return this.spans[0]?.start ?? 0; }
    get last() { return this.spans.at(-1)?.reach ?? 0; }
    get tick() { return this.world ? Number(this.world.tick) : -1; }

    /* Show tick t (clamped to what the recording has; a tick in a gap shows the next span's
     * start). Returns the tick shown. */
    seek(t) {
        if (!this.spans.length) return -1;
        t = Math.max(this.first, Math.min(this.last, Math.round(t)));
        let i = this.spans.findIndex((s) => t <= s.reach);
        if (i < 0) i = this.spans.length - 1;
        const sp = this.spans[i];
        if (t < sp.start) t = sp.start;
        /* from here if it is on the way, else from the nearest kept state at or before t */
        let from = sp.start, blob = sp.state;
        for (const [k, b] of sp.cache) if (k <= t && k > from) { from = k; blob = b; }
        if (!(this.span === i && this.tick <= t && this.tick >= from)) {
            if (this.world) this.world.load(blob);
            else this.world = this.sim.fromState(blob);
            this.span = i;
        }
        while (this.tick < t) {
            const now = this.tick;
            for (const x of sp.inputs.get(now) ?? []) this.world.input(now, x.client, x.seq, x.kind, x.args);
            this.world.step();
            const at = now + 1;
            if (at % CACHE_EVERY === 0 && !sp.cache.has(at) && this.cacheBytes < CACHE_BYTES) {
                const b = this.world.save();
                sp.cache.set(at, b);
                this.cacheBytes += b.length;
            }
        }
        return t;
    }

    /* The tick before t that the recording has (across a gap: the previous span's reach). */
    before(t) {
        const i = this.spans.findIndex((s) => t >= s.start && t <= s.reach);
        if (i > 0 && t === this.spans[i].start) return this.spans[i - 1].reach;
        return Math.max(this.first, t - 1);
    }

    frame() { return this.world.render(0); }
}

/* The page: the controls in doc (player.html), the verdict on <body>. */
export async function startPlayer({ wasm, stream, doc }) {
    const $ = (id) => doc.getElementById(id);
    const body = doc.body;
    const msgs = splitStream(stream);
    const session = readSession(msgs);
    const info = session.info;
    /* two instances of the module: the verifier's and the player's never share memory */
    const [simV, simP] = await Promise.all([loadSim(wasm), loadSim(wasm)]);
    const player = new Player(simP, session);
    const title = `session ${info.session}: ${info.kind}, seed ${info.seed}${info.params ? ` (${info.params})` : ""}, ` +
        `ticks ${info.start}..${info.end} at ${info.hz} Hz`;
    doc.title = `Vivarium replay: ${title}`;
    $("title").innerHTML = "";
    $("title").append("Vivarium replay: ", Object.assign(doc.createElement("b"), { textContent: title }));

    /* ---- the picture ---- */
    const canvas = $("view"), ctx = canvas.getContext("2d");
    let img = null, out32 = null, zoom = 0;
    const lut = new Uint32Array(256);
    const draw = () => {
        const f = player.frame();
        if (!img || img.width !== f.w || img.height !== f.h) {
            canvas.width = f.w;
            canvas.height = f.h;
            img = ctx.createImageData(f.w, f.h);
            out32 = new Uint32Array(img.data.buffer);
            if (!zoom) fitZoom(f.w, f.h);
            applyZoom();
        }
        buildLut(f.palette, f.count, lut);
        paint(f.pixels, lut, out32);
        ctx.putImageData(img, 0, 0);
        $("tick").textContent = `tick ${player.tick} / ${player.last}`;
        $("seek").value = String(player.tick);
        body.dataset.tick = String(player.tick);
    };
    const zoomSel = $("zoom");
    for (let z = 1; z <= 8; z++) zoomSel.append(new Option(`${z}×`, String(z)));
    const fitZoom = (w, h) => {
        const room = Math.max(1, Math.min(Math.floor((innerWidth - 32) / w), Math.floor((innerHeight - 160) / h)));
        zoom = Math.max(1, Math.min(8, room));
        zoomSel.value = String(zoom);
    };
    const applyZoom = () => {
        canvas.style.width = `${canvas.width * zoom}px`;
        canvas.style.height = `${canvas.height * zoom}px`;
    };
    zoomSel.onchange = () => { zoom = Number(zoomSel.value); applyZoom(); };

    /* ---- the controls ---- */
    let playing = false, speed = 1, acc = 0, lastTs = null;
    const seekBar = $("seek");
    seekBar.min = String(player.first);
    seekBar.max = String(player.last);
    const setPlaying = (on) => {
        playing = on && player.tick < player.last;
        acc = 0;
        lastTs = null;
        $("play").textContent = playing ? "❚❚" : "▶︎";
        body.dataset.playing = String(playing);
    };
    const go = (t) => { setPlaying(false); player.seek(t); draw(); };
    $("play").onclick = () => {
        if (!playing && player.tick >= player.last) player.seek(player.first);
        setPlaying(!playing);
    };
    $("back").onclick = () => go(player.before(player.tick));
    $("fwd").onclick = () => go(player.tick + 1);
    seekBar.oninput = () => go(Number(seekBar.value));
    $("speed").onchange = () => { speed = Number($("speed").value); };
    doc.addEventListener("keydown", (e) => {
        if (e.target instanceof HTMLSelectElement) return;
        if (e.key === " ") $("play").click();
        else if (e.key === "ArrowLeft") $("back").click();
        else if (e.key === "ArrowRight") $("fwd").click();
        else if (e.key === "Home") go(player.first);
        else if (e.key === "End") go(player.last);
        else return;
        e.preventDefault();
    });
    const frame = (ts) => {
        if (playing) {
            if (lastTs !== null) acc += (ts - lastTs) / 1000 * info.hz * speed;
            lastTs = ts;
            const n = Math.min(MAX_STEPS_PER_FRAME, Math.floor(acc));
            if (n > 0) {
                acc -= n;
                player.seek(player.tick + n);
                draw();
                if (player.tick >= player.last) setPlaying(false);
            }
        }
        requestAnimationFrame(frame);
    };
    player.seek(player.first);
    draw();
    requestAnimationFrame(frame);
    /* for tests and the console */
    globalThis.vivPlayer = { player, go, get tick() { return player.tick; } };

    /* ---- the verdict ---- */
    const v = new RecordingVerifier(simV, {
        session: info.session,
        onProgress: (p) => { $("verdict").textContent = `verifying… ${p.verified} of ${p.total} ticks`; },
    });
    for (const m of msgs) v.feed(m);
    const r = await v.run();
    $("verdict").textContent = describeResult(r) +
        (r.warning ? `\n${r.warning}` : "");
    if (r.divergedAt !== null) body.dataset.divergedAt = String(r.divergedAt);
    body.dataset.ticks = String(r.ticks);
    body.dataset.verdict = r.verdict;
    return r;
}
