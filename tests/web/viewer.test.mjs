// viewer.test.mjs — the page's session (clients/web/viewer.js) against a real vivd, over TCP
// through a WebSocket look-alike (tcp.mjs): the frames it rebuilds are the ones `viv sim`
// renders; a dropped connection resumes from a keyframe with no hash mismatch; inputs are acked;
// a recording plays, pauses, steps and seeks. Skipped when bin/vivd and bin/viv are not built.
import test from "node:test";
import assert from "node:assert/strict";
import { Viewer } from "../../clients/web/viewer.js";
import { Controls } from "../../clients/web/inputs.js";
import { TcpWebSocket } from "./tcp.mjs";
import { PLAYER, haveBinaries, startVivd, vivSim } from "./vivd.mjs";
import { alignRect } from "../../clients/web/protocol.js";
import { FakeSocket, fakeClock, rawFrame } from "./fakes.mjs";
import { load } from "./corpus.mjs";

const skip = haveBinaries() ? false : "bin/vivd and bin/viv are not built (make -j2 all)";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const running = new Set();
test.afterEach(() => {
    for (const v of running) v.stop();
    running.clear();
});

function viewer(port, opts = {}) {
    const frames = [];
    const v = new Viewer({ url: "ws://127.0.0.1/ws", token: PLAYER, makeSocket: () => new TcpWebSocket("127.0.0.1", port),
                           onFrame: (r) => frames.push({ ...r, hash: v.stream.hash, sh: v.stream.sh }), ...opts });
    v.frames = frames;
    running.add(v);
    return v;
}

async function until(what, pred, ms = 10000) {
    const t0 = Date.now();
    while (!pred()) {
        if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
        await sleep(10);
    }
}

const hex = (b) => b.toString(16).padStart(16, "0");

test("120 frames of a live world, each equal to the frame viv sim renders at its tick", { skip }, async () => {
    const srv = await startVivd(["--no-record", "--world", "sand:seed=7:w=64,h=48", "--world", "terrarium:seed=2"]);
    try {
        const v = viewer(srv.port);
        v.start();
        await until("120 frames", () => v.frames.length >= 120);
        const h = v.hook();
        assert.equal(h.mismatches, 0);
        assert.equal(h.kind, "sand");
        for (const f of [v.frames[0], v.frames[60], v.frames[119]]) {
            const ref = vivSim("sand", 7, "w=64,h=48", f.tick);
            assert.equal(hex(f.hash), ref.fh, `frame hash at tick ${f.tick}`);
            assert.equal(hex(f.sh), ref.sh, `state hash at tick ${f.tick}`);
        }
        /* the other world, its x-ray view at 13 fps (every 3) */
        const terra = v.worlds.find((w) => w.kind === "terrarium");
        v.setEvery(3);
        v.setView("xray");
        v.select(terra.id);
        const from = v.frames.length;
        await until("30 terrarium frames", () => v.frames.length >= from + 30);
        const got = v.frames.slice(from + 1);
        assert.ok(got.every((f) => f.tick % 3 === 0), "every 3 ticks");
        const last = got.at(-1);
        assert.equal(hex(last.hash), vivSim("terrarium", 2, "", last.tick, "xray").fh, "the x-ray frame");
        assert.equal(h.mismatches, 0);
        v.stop();
    } finally {
        await srv.stop();
    }
});

/* The nearest-sampled div-th of a w×h picture (docs/PROTOCOL.md, sub's div). */
function divOf(px, w, h, div) {
    const ow = Math.ceil(w / div), oh = Math.ceil(h / div), out = new Uint8Array(ow * oh);
    for (let y = 0; y < oh; y++)
        for (let x = 0; x < ow; x++)
            out[y * ow + x] = px[Math.min(y * div + (div >> 1), h - 1) * w + Math.min(x * div + (div >> 1), w - 1)];
    return { w: ow, h: oh, px: out };
}

test("the 13 fps homage beside the full stream: every third tick, a third of the size, each the nearest-sampled third of the world's own homage view (the terrarium draws it)", { skip }, async () => {
    const srv = await startVivd(["--no-record", "--world", "terrarium:seed=5"]);
    try {
        const full = new Map(), homage = [];
        const snap = (v, into) => (r) => into(v.stream.tick, { tick: v.stream.tick, w: v.stream.w, h: v.stream.h,
                                                               px: v.stream.px.slice(), hashOk: r.hashOk, sh: v.stream.sh });
        /* The terrarium draws its own homage (view "homage": the world at a third of the
         * resolution, each pixel a 3×3 block), which the page asks for when the homage is on. */
        const a = viewer(srv.port, { want: { view: "homage" } });
        a.onFrame = snap(a, (t, f) => full.set(t, f));
        const b = viewer(srv.port, { want: { every: 3, div: 3 } });
        b.onFrame = snap(b, (t, f) => homage.push(f));
        assert.ok(b.homage);
        a.start();
        b.start();
        await until("40 homage frames", () => homage.length >= 40 && full.has(homage[39].tick), 20000);
        let compared = 0, moved = false;
        for (const f of homage.slice(0, 40)) {
            assert.ok(f.hashOk, `homage frame ${f.tick} matches its hash`);
            assert.equal(f.tick % 3, 0);
            assert.equal(f.w, 107);
            assert.equal(f.h, 60);
            const g = full.get(f.tick);
            if (!g) continue;
            const want = divOf(g.px, g.w, g.h, 3);
            assert.deepEqual(f.px, want.px, `tick ${f.tick}: the nearest-sampled third of the full homage frame`);
            for (let y = 0; y + 2 < g.h; y += 3)           /* each small pixel is a whole 3×3 block there */
                for (let x = 0; x + 2 < g.w; x += 3)
                    assert.equal(g.px[(y + 2) * g.w + x + 2], g.px[y * g.w + x], `tick ${f.tick}: block (${x}, ${y})`);
            assert.equal(f.sh, g.sh);
            moved ||= compared > 0 && !homage[0].px.every((p, i) => p === f.px[i]);
            compared++;
        }
        assert.ok(compared >= 30, `compared ${compared} frames`);
        assert.ok(moved, "the creatures moved");
        assert.equal(a.hook().mismatches + b.hook().mismatches, 0);
        /* off again: full frames, every tick */
        b.hook().setHomage(false);
        const from = homage.length;
        await until("full frames", () => homage.length >= from + 6 && homage.at(-1).w === 320);
        assert.equal(homage.at(-1).h, 180);
        assert.equal(b.hook().homage, false);
    } finally {
        await srv.stop();
    }
});

/* The part [x, y, w, h] of a W-wide picture px, nearest-sampled at div (docs/PROTOCOL.md, sub). */
function cropOf(px, W, [x, y, w, h], div) {
    const ow = Math.ceil(w / div), oh = Math.ceil(h / div), out = new Uint8Array(ow * oh), half = div >> 1;
    for (let j = 0; j < oh; j++)
        for (let i = 0; i < ow; i++)
            out[j * ow + i] = px[(y + Math.min(j * div + half, h - 1)) * W + x + Math.min(i * div + half, w - 1)];
    return out;
}

test("the part of the world in view: a sub with a rect, its frames that rect's pixels at the div asked for", { skip }, async () => {
    const srv = await startVivd(["--no-record", "--world", "sand:seed=3:w=640,h=480"]);
    try {
        const whole = new Map(), parts = [];
        const a = viewer(srv.port);
        a.onFrame = () => whole.set(a.stream.tick, a.stream.px.slice());
        let lens = { rect: [150, 100, 200, 120], div: 1 };
        const b = viewer(srv.port, { lens: () => lens });
        b.onFrame = (r) => parts.push({ tick: b.stream.tick, key: r.key, rect: b.stream.rect, div: b.stream.div, w: b.stream.w, h: b.stream.h, px: b.stream.px.slice(), ok: r.hashOk });
        a.start();
        b.start();
        /* each part is the whole frame's, cut where its rect says and sampled at its div */
        const check = async (asked, what) => {
            const aligned = alignRect(asked.rect, 640, 480);
            await until(`${what}: 20 frames of [${aligned}]`, () => parts.filter((f) => String(f.rect) === String(aligned)).length >= 20, 20000);
            const mine = parts.filter((f) => String(f.rect) === String(aligned));
            assert.ok(mine[0].key, `${what}: a keyframe first`);
            let compared = 0;
            for (const f of mine) {
                assert.ok(f.ok, `${what}: tick ${f.tick} matches its hash`);
                assert.equal(f.div, asked.div, `${what}: placed at the div asked for`);
                assert.deepEqual([f.w, f.h], [Math.ceil(aligned[2] / asked.div), Math.ceil(aligned[3] / asked.div)]);
                const g = whole.get(f.tick);
                if (!g) continue;
                assert.deepEqual(f.px, cropOf(g, 640, aligned, asked.div), `${what}: tick ${f.tick}`);
                compared++;
            }
            assert.ok(compared >= 10, `${what}: ${compared} frames compared with the whole world's`);
            assert.deepEqual(b.hook().lens.aligned, aligned);
        };
        await check(lens, "a rect");
        assert.deepEqual(alignRect(lens.rect, 640, 480), [128, 64, 256, 192]);
        lens = { rect: [500, 400, 300, 300], div: 2 };        /* the corner, zoomed out */
        b.resubscribe();
        await check(lens, "a clipped rect at div 2");
        /* back to the whole world */
        lens = null;
        b.resubscribe();
        await until("whole frames", () => parts.at(-1).rect === null && parts.at(-1).w === 640);
        assert.equal(a.hook().mismatches + b.hook().mismatches + a.hook().badFrames + b.hook().badFrames, 0);
    } finally {
        await srv.stop();
    }
});

/* A Viewer on a scripted socket (no vivd), welcomed with the demo set's welcome (world 1: sand,
 * 320×180); lens() says what to subscribe to. */
function scripted(lens) {
    const socks = [], clock = fakeClock();
    const v = new Viewer({ url: "ws://h/ws", token: PLAYER, makeSocket: (u) => new FakeSocket(u, socks), lens: () => lens.now, ...clock });
    v.start();
    socks[0].open();
    socks[0].recv(load("welcome.msgs")[0].body);
    return { v, clock, sock: () => socks.at(-1), subs: () => socks.flatMap((s) => s.sent).filter((m) => m.t === "sub") };
}

test("a keyframe is placed by the sub it answers: an older sub's may come after a newer one was sent", () => {
    const lens = { now: { rect: [0, 0, 100, 100], div: 4 } };
    const { v, sock, subs } = scripted(lens);
    assert.deepEqual(subs().at(-1), { t: "sub", world: 1, div: 4, events: true, rect: [0, 0, 100, 100] });
    assert.deepEqual(v.lens.aligned, [0, 0, 128, 128]);
    lens.now = { rect: [10, 10, 100, 100], div: 1 };
    v.resubscribe();
    assert.deepEqual(subs().at(-1).rect, [10, 10, 100, 100]);
    /* the first sub's keyframe, then a delta of it, then the second's */
    sock().recv(rawFrame([0, 0, 128, 128], 32, 32, { tick: 5 }));
    assert.equal(v.stream.div, 4, "32×32 of [0,0,128,128]: the div 4 sub's, not the latest");
    sock().recv(rawFrame([0, 0, 128, 128], 32, 32, { tick: 6, key: false, seed: 1 }));
    assert.equal(v.stream.div, 4);
    sock().recv(rawFrame([0, 0, 128, 128], 128, 128, { tick: 7 }));
    assert.equal(v.stream.div, 1, "128×128 of the same rect: the second sub's");
    assert.equal(v.lenses.length, 1, "the first sub is done with");
    assert.deepEqual([v.counts.frames, v.counts.mismatches, v.counts.badFrames], [3, 0, 0]);
    v.stop();
});

test("a rect refused: too_many_streams, the world whole for a while; a relay's bad_field, whole on this connection", () => {
    const lens = { now: { rect: [64, 64, 64, 64], div: 1 } };
    const { v, clock, sock, subs } = scripted(lens);
    assert.deepEqual(subs().at(-1).rect, [64, 64, 64, 64]);
    sock().recv({ t: "error", code: "too_many_streams", msg: "this world already serves 64 (view, every, div, enc, rect) combinations" });
    assert.equal(subs().at(-1).rect, undefined, "subscribed again, whole");
    assert.ok(v.rectsOff > v.now() && v.rectsOff < v.now() + 20000, "rects again in a while");
    assert.equal(v.lens.rect, null);
    v.rectsOff = 0;                      /* the while has passed */
    v.resubscribe();
    assert.deepEqual(subs().at(-1).rect, [64, 64, 64, 64]);
    sock().recv({ t: "error", code: "bad_field", msg: "a rect of another member's world is not served yet: watch it whole" });
    assert.equal(subs().at(-1).rect, undefined);
    assert.equal(v.rectsOff, Infinity);
    const n = subs().length;
    sock().recv({ t: "error", code: "bad_field", msg: "field 'every' must be 1..3600" });
    assert.equal(subs().length, n, "another field's error: no new sub");
    /* another connection (perhaps to a vivd that hosts the world): rects are asked for again */
    sock().close();
    clock.fire();
    sock().open();
    sock().recv(load("welcome.msgs")[0].body);
    assert.deepEqual(subs().at(-1).rect, [64, 64, 64, 64]);
    v.stop();
});

test("a connection dropped mid-stream reconnects and resumes from a keyframe, with 0 mismatches", { skip }, async () => {
    const srv = await startVivd(["--no-record", "--world", "merge:seed=3"]);
    try {
        const v = viewer(srv.port);
        v.start();
        const h = v.hook();
        for (let round = 1; round <= 3; round++) {
            await until("frames", () => v.frames.length >= 40 * round);
            h.drop();
            await until("the reconnect", () => h.connects === round + 1);
        }
        await until("frames after", () => v.frames.length >= 160);
        assert.equal(h.mismatches, 0);
        assert.equal(h.badFrames, 0);
        const keys = v.frames.filter((f) => f.key).length;
        assert.ok(keys >= 4, `a keyframe at the start and after each reconnect (${keys})`);
        for (let i = 1; i < v.frames.length; i++) assert.ok(v.frames[i].tick > v.frames[i - 1].tick, "ticks only go forward");
        const f = v.frames.at(-1);
        assert.equal(hex(f.hash), vivSim("merge", 3, "", f.tick).fh);
        v.stop();
    } finally {
        await srv.stop();
    }
});

test("a stroke of paint is acked, and sand appears in later frames", { skip }, async () => {
    const srv = await startVivd(["--no-record", "--world", "sand:seed=1:w=96,h=64,scene=empty"]);
    try {
        const v = viewer(srv.port);
        v.start();
        await until("a frame", () => v.frames.length >= 2);
        const c = v.ctl;
        assert.ok(c instanceof Controls && c.scheme === "paint");
        const empty = v.hook().pixels();
        c.setBrush(3);
        v.sendInputs(c.pointer("down", 20, 10, 0));
        v.sendInputs(c.pointer("move", 60, 10, 1));
        v.sendInputs(c.pointer("up", 60, 10, 2));
        await until("acks", () => v.counts.acks >= 6);
        await sleep(100);
        const now = v.hook().pixels();
        let changed = 0;
        for (let i = 0; i < now.length; i++) if (now[i] !== empty[i]) changed++;
        assert.ok(changed > 50, `sand painted (${changed} pixels)`);
        assert.equal(v.counts.errors, 0);
        /* a viewer may not paint: the page does not even send */
        const w = viewer(srv.port, { token: "" });
        w.start();
        await until("a viewer's frame", () => w.frames.length >= 1);
        assert.equal(w.role, "viewer");
        assert.equal(w.sendInput(w.ctl.build("paint", { x: 1, y: 1 })), 0);
        w.stop();
        v.stop();
    } finally {
        await srv.stop();
    }
});

test("a recording: play, pause, step and seek; a sought frame is the one viv sim renders", { skip }, async () => {
    const rec = await startVivd(["--db", "rec.db", "--world", "sand:seed=4:w=64,h=40"], { keep: true });
    await sleep(2500);
    await rec.stop();
    const srv = await startVivd(["--play", "rec.db:1"], { dir: rec.dir });
    try {
        const v = viewer(srv.port);
        v.start();
        await until("the first frame", () => v.frames.length >= 1);
        const h = v.hook();
        const play = h.playState;
        assert.ok(play && play.paused && play.end > play.start + 100, JSON.stringify(play));
        assert.equal(v.frames[0].tick, play.start);
        v.play("step");
        await until("a step", () => v.frames.length >= 2);
        assert.equal(v.frames[1].tick, play.start + 1);
        v.play("speed", { speed: 400 });
        v.play("resume");
        await until("frames playing", () => v.frames.length >= 30);
        v.play("pause");
        await until("paused", () => v.world.play.paused);
        await sleep(100);
        v.play("seek", { tick: 100 });
        await until("the frame at 100", () => v.frames.at(-1).tick === 100 && v.frames.at(-1).key);
        await until("playing", () => v.world.play.tick === 100);
        assert.equal(hex(v.frames.at(-1).hash), vivSim("sand", 4, "w=64,h=40", 100).fh);
        assert.equal(h.mismatches, 0);
        /* inputs to a recording are not sent */
        assert.equal(v.sendInput({ kind: "paint", args: [1, 1, 1, 3] }), 0);
        v.stop();
    } finally {
        await srv.stop();
    }
});
