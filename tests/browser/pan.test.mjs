// pan.test.mjs — panning and zooming a world bigger than the view (issue 30, the page's part), in
// Debian's Chromium driven by playwright-core against a real bin/vivd hosting a 640×480 sand world
// (recorded to a file) on a free loopback port. At 4× a 984×738 stage shows a quarter of it:
//   - the wheel zooms about the pointer (the world point under it stays there), in whole device
//     pixels per world pixel, and the page subscribes with a rect: the sub carries it, the frames
//     come with the rect vivd widened it to (docs/PROTOCOL.md, sub);
//   - the screen is the world: this tab's timeline paused at tick T, points all over the stage,
//     read from a screenshot, are the colours of the world's pixels there in `viv replay export`'s
//     frame of T (where the camera says each world pixel is drawn);
//   - a drag with the right button pans: the picture follows the pointer, a new rect is subscribed
//     (a few subs for a long fast drag, not one per pointer event), its keyframe arrives, the
//     timeline stays at T, and the screen is the world again at the new place;
//   - zoomed out below 1× the page asks for the whole world at div 2, drawn one device pixel a
//     frame pixel, and the screen is that frame;
//   - painting still paints while zoomed: the left button's inputs name the world point under the
//     pointer; the minimap moves the view; the debug overlay shows the rect and the bytes/s; 0
//     hash mismatches and 0 bad frames throughout.
// A second test does it in the world issue 30 is about, a vivd hosting the 2048×1024 sand demo:
// zoomed to 4× (a rect of 384×320 of it), paused, dragged to another rect, the screen is the
// recorded frame point by point at both, and no frame's hash differs.
//
// Run: `VIV_BIN=bin node --test tests/browser/pan.test.mjs` (part of make test-web).
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";

let chromium;
try {
    ({ chromium } = await import("playwright-core"));
} catch (e) {
    throw new Error(`playwright-core is not installed in tests/browser/node_modules (${e.code ?? e.message}): run scripts/deps.sh, which runs npm ci there`);
}
const { PLAYER, VIV, haveBinaries, startVivd } = await import("../web/vivd.mjs");
const L = await import("./lib.mjs");
const { CHROMIUM, CHROMIUM_ARGS, TESTED_MAJOR, until, openPage } = L;
const { decodePng } = await import("./pngread.mjs");
const { alignRect } = await import("../../clients/web/protocol.js");

if (!haveBinaries()) throw new Error("bin/vivd and bin/viv are not built: make -j2 all");
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const skip = +browser.version().split(".")[0] === TESTED_MAJOR ? false : `Chromium ${browser.version()} is not the version these tests were checked with (${TESTED_MAJOR}); page.test.mjs says what to do`;
const W = 640, H = 480;
let live = null, db = "";

before(async () => {
    if (skip) return;
    live = await startVivd(["--db", "pan.db", "--world", `sand:seed=5:w=${W},h=${H}`], { http: true });
    db = path.join(live.dir, "pan.db");
});
after(async () => {
    await browser.close();
    if (live) await live.stop();
});

const state = (pg) => pg.evaluate(() => ({ cam: viv.camera, lens: viv.lens, rect: viv.rect, div: viv.div, tick: viv.shownTick, subs: viv.subs,
                                            timeline: viv.timeline, mismatches: viv.mismatches, badFrames: viv.badFrames }));
const inside = (a, b) => b[0] >= a[0] && b[1] >= a[1] && b[0] + b[2] <= a[0] + a[2] && b[1] + b[3] <= a[1] + a[3];

/* Wait until the page shows tick t of this tab's paused timeline, drawn from a frame of rect
 * `rect` (null: the whole world). */
async function holds(pg, t, rect, what, ms = 30000) {
    await until(`${what}: tick ${t} drawn from ${rect ? `[${rect}]` : "the whole world"}`, () => pg.evaluate(({ t, rect }) =>
        viv.shownTick === t && viv.verified && String(viv.rect) === String(rect) && viv.canvasMismatches() === 0 &&
        viv.timeline.open && viv.timeline.play?.paused && viv.timeline.pending === 0, { t, rect }), ms);
}

/* After a drag: the rect the page asks for once it has caught up with the view. The subs follow a
 * drag at most every 150 ms, so the first rect that holds the view may be one from the middle of
 * the drag (on a busy machine); wait until the rect has stayed the same for half a second. */
async function settledRect(pg, what, ms = 20000) {
    return until(what, async () => {
        const a = await state(pg);
        await new Promise((r) => setTimeout(r, 500));
        const x = await state(pg);
        const ok = x.lens.aligned && String(x.lens.aligned) === String(a.lens.aligned) && inside(x.lens.aligned, x.cam.visible);
        return ok ? x.lens.aligned : null;
    }, ms);
}

/* The screen is the world at tick t: a screenshot, read at the centre of where the camera says
 * each sampled world pixel is drawn (every 3rd of the visible ones), against the colour of the
 * frame vivd recorded at t (viv replay export's), sampled as the stream's div samples it. The
 * debug overlay and the minimap (with its shadow) are left out. */
async function screenIsWorld(pg, session, t, what, wd = { W, H, db }) {
    const s = await state(pg);
    const boxes = await pg.evaluate(() => Object.fromEntries(["stage", "overlay", "minimap"].map((id) => {
        const e = document.getElementById(id), r = e.getBoundingClientRect();
        return [id, e.hidden ? null : { x: r.x, y: r.y, w: r.width, h: r.height }];
    })));
    const shot = decodePng(await pg.screenshot(), what);
    assert.equal((await state(pg)).tick, t, `${what}: still tick ${t} after the screenshot`);
    const ref = L.exportedFrame(wd.db, session, t, L.recordedHashes(wd.db, session, t).fh);
    const { scale, x0, y0, d } = s.cam, r = s.rect ?? [0, 0, wd.W, wd.H], stage = boxes.stage;
    /* (and the minimap's shadow, 30 pixels around it) */
    const margin = { overlay: 2, minimap: 32 };
    const covered = (x, y) => ["overlay", "minimap"].some((k) => boxes[k] && x >= boxes[k].x - margin[k] && y >= boxes[k].y - margin[k] &&
                                                                 x < boxes[k].x + boxes[k].w + margin[k] && y < boxes[k].y + boxes[k].h + margin[k]);
    const [vx, vy, vw, vh] = s.cam.visible;
    let compared = 0, differ = 0, first = "";
    for (let wy = vy; wy < vy + vh; wy += 3) {
        for (let wx = vx; wx < vx + vw; wx += 3) {
            const sx = Math.floor(stage.x + (wx + 0.5) * scale - x0), sy = Math.floor(stage.y + (wy + 0.5) * scale - y0);
            if (sx < stage.x + 1 || sy < stage.y + 1 || sx >= stage.x + stage.w - 1 || sy >= stage.y + stage.h - 1 || covered(sx, sy)) continue;
            /* the world pixel the frame shows there: its div×div block's centre, in its rect */
            const qx = r[0] + Math.min(Math.floor((wx - r[0]) / d) * d + (d >> 1), r[2] - 1);
            const qy = r[1] + Math.min(Math.floor((wy - r[1]) / d) * d + (d >> 1), r[3] - 1);
            const k = 3 * ref.px[qy * wd.W + qx], o = (sy * shot.w + sx) * shot.ch;
            compared++;
            if (shot.data[o] !== ref.pal[k] || shot.data[o + 1] !== ref.pal[k + 1] || shot.data[o + 2] !== ref.pal[k + 2]) {
                differ++;
                first ||= `world (${wx}, ${wy}) at screen (${sx}, ${sy}): ${[...shot.data.subarray(o, o + 3)]} against ${[...ref.pal.subarray(k, k + 3)]}`;
            }
        }
    }
    assert.ok(compared >= 1000, `${what}: ${compared} points compared`);
    assert.equal(differ, 0, `${what}: ${differ} of ${compared} screen points are not the world's pixel there (first: ${first})`);
    return compared;
}

test("a world bigger than the view: the wheel zooms to a rect, the screen is the world, a drag pans to a new rect, painting lands under the pointer, the minimap moves the view", { skip, timeout: 240000 }, async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
        const { page: pg, log, problems } = await openPage(ctx, `http://127.0.0.1:${live.httpPort}/#token=${PLAYER}&world=sand&debug=1`);
        await until("the world drawn", () => pg.evaluate(() => viv.verified && viv.shownTick > 30 && viv.canvasMismatches() === 0));
        const id = await pg.evaluate(() => viv.world);
        const session = L.sessions(db).find((x) => x.kind === "sand").id;
        let s = await state(pg);
        assert.deepEqual([s.cam.fit, s.cam.whole, s.cam.zoom, s.lens.rect, s.rect], [true, true, "1", null, null], "at first the whole world, at fit");
        assert.ok(log.subs.length >= 1 && log.subs.every((x) => x.rect === null), "subscribed whole");
        assert.equal(await pg.locator("#minimap").isHidden(), true, "no minimap while the whole world shows");

        /* the wheel, three notches in, over world point Q (its centre, placed by the canvas that
         * shows the whole world) */
        const Q = { x: 250, y: 180 };
        const box = await pg.locator("#screen").boundingBox();
        const P = { x: box.x + (Q.x + 0.5) * box.width / W, y: box.y + (Q.y + 0.5) * box.height / H };
        await pg.mouse.move(P.x, P.y);
        for (let i = 0; i < 3; i++) await pg.mouse.wheel(0, -100);
        await until("zoomed to 4×", async () => (await state(pg)).cam.zoom === "4");
        s = await state(pg);
        assert.deepEqual([s.cam.fit, s.cam.whole, s.cam.scale], [false, false, 4]);
        assert.deepEqual(await pg.evaluate(({ x, y }) => viv.toWorld(x, y), P), Q, "the world point under the pointer stays under it");
        /* a rect subscribed, and its frames */
        await until("a sub with a rect", () => log.subs.some((x) => x.rect));
        const sub1 = log.subs.find((x) => x.rect);
        const rect1 = alignRect(sub1.rect, W, H);
        assert.equal(sub1.world, id);
        assert.ok(inside(rect1, s.cam.visible), `the rect [${rect1}] holds the view [${s.cam.visible}]`);
        assert.ok(rect1[2] * rect1[3] <= W * H / 2, `the rect [${rect1}] is at most half the world`);
        await until("the rect's keyframe and frames", () => log.frames.filter((f) => String(f.rect) === String(rect1)).length >= 10);
        const frames1 = log.frames.slice(log.frames.findIndex((f) => String(f.rect) === String(rect1)));
        assert.ok(frames1[0].key, "a keyframe first");
        assert.ok(frames1.every((f) => String(f.rect) === String(rect1) && f.w === rect1[2] && f.h === rect1[3]), "every frame since is of the rect, its size");
        await until("the rect drawn", async () => String((await state(pg)).rect) === String(rect1));
        assert.deepEqual(await pg.evaluate(() => viv.lens.aligned), rect1);

        /* the tab's timeline paused: the picture holds still at T, and the screen is the world */
        await pg.click("#tl-pause");
        await until("this tab's timeline paused", async () => { const t = (await state(pg)).timeline; return t.open && t.play?.paused && t.pending === 0; });
        const T = (await state(pg)).timeline.tick;
        await holds(pg, T, rect1, "paused");
        const n1 = await screenIsWorld(pg, session, T, "zoomed in at 4×");

        /* a long fast drag with the right button: the picture follows the pointer; the ticks
         * drawn meanwhile are watched (every 4 ms) */
        await pg.evaluate(() => { window.drawn = new Set(); window.watching = setInterval(() => drawn.add(viv.shownTick), 4); });
        const before = (await state(pg)).cam, subs0 = log.subs.length;
        const from = { x: 800, y: 500 }, to = { x: 800 - 900, y: 500 - 200 };
        await pg.mouse.move(from.x, from.y);
        await pg.mouse.down({ button: "right" });
        const t0 = Date.now();
        for (let i = 1; i <= 60; i++) await pg.mouse.move(from.x + (to.x - from.x) * i / 60, from.y + (to.y - from.y) * i / 60);
        await pg.mouse.up({ button: "right" });
        const dragMs = Date.now() - t0;
        const moved = (await state(pg)).cam;
        assert.deepEqual([moved.x0 - before.x0, moved.y0 - before.y0], [900, 200], "the world moved with the pointer, device pixel for device pixel");
        assert.equal(problems.length, 0, problems.join("; "));
        /* a new rect, and its keyframe; the timeline reopened where it was */
        const rect2 = await settledRect(pg, "the view's rect subscribed, and settled");
        const duringDrag = log.subs.slice(subs0).filter((x) => x.at <= t0 + dragMs + 50).length;
        assert.ok(duringDrag <= 1 + Math.ceil(dragMs / 150), `${duringDrag} subs in a ${dragMs} ms drag of 60 moves: not one a move, at most one every 150 ms`);
        assert.notDeepEqual(rect2, rect1);
        await until("a keyframe of the new rect", () => log.frames.some((f) => f.key && String(f.rect) === String(rect2)));
        await holds(pg, T, rect2, "after the pan");
        const drawn = await pg.evaluate(() => { clearInterval(watching); return [...drawn]; });
        assert.deepEqual(drawn, [T], "paused: only tick T drawn while the view moved (the world's own frames, sent while the timeline opens again, are not)");
        const n2 = await screenIsWorld(pg, session, T, "after the pan");

        /* zoomed out below 1× (the − key four times: 3×, 2×, 1×, ½): the whole world at div 2,
         * drawn at one device pixel a frame pixel */
        for (let i = 0; i < 4; i++) await pg.keyboard.press("Minus");
        await until("zoomed out to ½", async () => (await state(pg)).cam.zoom === "1/2");
        await until("the whole world at div 2", async () => { const x = await state(pg); return x.lens.rect === null && x.lens.div === 2; });
        assert.deepEqual(log.subs.at(-1), { ...log.subs.at(-1), rect: null, div: 2 });
        await until("its keyframe", () => log.frames.some((f) => f.key && f.rect === null && f.w === W / 2 && f.h === H / 2));
        await holds(pg, T, null, "zoomed out");
        assert.equal(await pg.evaluate(() => viv.div), 2);
        const n3 = await screenIsWorld(pg, session, T, "at ½ (div 2)");

        /* back in and live; a stroke of paint with the left button names the world points under it */
        for (let i = 0; i < 4; i++) await pg.keyboard.press("Equal");
        await until("4× again", async () => (await state(pg)).cam.zoom === "4");
        await pg.click("#tl-live");
        await until("live", async () => { const x = await state(pg); return !x.timeline.open && x.tick > T; });
        const c = (await state(pg)).cam, st = await pg.locator("#stage").boundingBox();
        const worldAt = (p) => ({ x: Math.floor((p.x - st.x + c.x0) / c.scale), y: Math.floor((p.y - st.y + c.y0) / c.scale) });
        const a = { x: st.x + 420.5, y: st.y + 300.5 }, b = { x: a.x + 160, y: a.y + 40 };
        const in0 = log.inputs.length;
        await pg.mouse.move(a.x, a.y);
        await pg.mouse.down();
        await pg.mouse.move(b.x, b.y, { steps: 8 });
        await pg.mouse.up();
        /* all of them: three or more, and no more coming */
        await until("the stroke's inputs", async () => {
            const n = log.inputs.length;
            await new Promise((r) => setTimeout(r, 200));
            return n >= in0 + 3 && n === log.inputs.length;
        });
        const stroke = log.inputs.slice(in0);
        assert.ok(stroke.length >= 3, `${stroke.length} inputs`);
        assert.ok(stroke.every((i) => i.kind === "paint" && i.world === id), stroke.map((i) => i.kind).join(" "));
        assert.deepEqual(stroke[0].args.slice(0, 2), [worldAt(a).x, worldAt(a).y], "the press paints at the world point under the pointer");
        assert.deepEqual(stroke.at(-1).args.slice(0, 2), [worldAt(b).x, worldAt(b).y], "the stroke ends under the pointer");
        assert.deepEqual((await state(pg)).cam, c, "a left-button drag paints; it does not pan");
        await L.ackedInputs([log], id);

        /* the minimap: a press there centres the view on that point */
        const mini = await pg.locator("#minimap").boundingBox();
        assert.ok(mini && mini.width > 40, "the minimap shows while zoomed in");
        const target = { x: 560, y: 400 };
        await pg.mouse.click(mini.x + (target.x + 0.5) * mini.width / W, mini.y + (target.y + 0.5) * mini.height / H);
        await until("the view there", async () => { const v = (await state(pg)).cam.visible; return v[0] + v[2] === W && v[1] + v[3] === H; });
        await until("its rect subscribed and drawn", async () => { const x = await state(pg); return x.lens.aligned && inside(x.lens.aligned, x.cam.visible) && String(x.rect) === String(x.lens.aligned); });
        assert.deepEqual(log.inputs.slice(in0 + stroke.length), [], "a press on the minimap paints nothing");

        /* the overlay: the rect and the bytes */
        const rect3 = (await state(pg)).lens.aligned;
        await until("the overlay's rect", async () => (await pg.locator("#overlay").textContent()).includes(`rect      [${rect3.join(",")}]`));
        assert.match(await pg.locator("#overlay").textContent(), /bytes\/s [\d.]+ (KB|MB)/);
        s = await state(pg);
        assert.deepEqual([s.mismatches, s.badFrames], [0, 0]);
        assert.deepEqual(problems, []);
        const keyOf = (pred) => log.frames.find((f) => f.key && pred(f));
        const wholeKey = keyOf((f) => f.rect === null && f.w === W), rectKey = keyOf((f) => String(f.rect) === String(rect1));
        console.log(`# pan: 4× at Q=(${Q.x},${Q.y}) → rect [${rect1}]; ${n1} + ${n2} + ${n3} screen points = the recorded frame of tick ${T}; ` +
                    `a ${dragMs} ms drag sent ${duringDrag} subs; keyframes ${wholeKey.bytes} B whole, ${rectKey.bytes} B the rect; ${stroke.length} paint inputs under the pointer`);
    } finally {
        await ctx.close();
    }
});

/* The big world of issue 30 itself: vivd hosting the 2048×1024 sand demo (recorded), the page
 * zoomed into it to 4× (a rect of 384×320 of it), paused, then dragged to another rect: each time
 * the screen is the world's recorded frame, point by point, and no frame's hash ever differed
 * (viv.mismatches, the page's check of every frame it rebuilt); then vivd's recording verifies. */
test("the 2048×1024 demo world: zoomed to a rect, the screen is the world; dragged to another rect, the screen is the world again; 0 hash mismatches", { skip, timeout: 240000 }, async () => {
    const BW = 2048, BH = 1024, LONG = 90000;    /* ms: the other suites may share the CPUs */
    const big = await startVivd(["--db", "big.db", "--world", `sand:seed=1:w=${BW},h=${BH},scene=demo`], { http: true, keep: true });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    let stopped = false;
    try {
        const wd = { W: BW, H: BH, db: path.join(big.dir, "big.db") };
        const { page: pg, log, problems } = await openPage(ctx, `http://127.0.0.1:${big.httpPort}/#token=${PLAYER}&world=sand&debug=1`);
        await until("the big world drawn", () => pg.evaluate(() => viv.verified && viv.shownTick > 30 && viv.canvasMismatches() === 0), LONG);
        const session = L.sessions(wd.db).find((x) => x.kind === "sand").id;
        let s = await state(pg);
        assert.equal(s.cam.fit, true, "at first the whole world, fitted to the window");
        /* the wheel, a quarter of the way across the window, until 4× (it zooms about the
         * pointer, as the test above checks; not checked here, since at the levels where this
         * world is narrower than the window the page centres it) */
        const box = await pg.locator("#screen").boundingBox();
        const P = { x: Math.floor(box.x + box.width / 4) + 0.5, y: Math.floor(box.y + box.height / 3) + 0.5 };
        await pg.mouse.move(P.x, P.y);
        for (let i = 0; i < 12 && (await state(pg)).cam.zoom !== "4"; i++) {
            await pg.mouse.wheel(0, -100);
            await new Promise((r) => setTimeout(r, 100));
        }
        await until("zoomed to 4×", async () => (await state(pg)).cam.zoom === "4", LONG);
        await until("a sub with a rect", () => log.subs.some((x) => x.rect), LONG);
        /* (the subs follow the view a little behind the wheel: the one at 4× is a small rect) */
        const small = (r) => r && r[2] * r[3] <= BW * BH / 16;
        await until("the view's rect at 4× drawn", async () => { const x = await state(pg); return small(x.lens.aligned) && inside(x.lens.aligned, x.cam.visible) && String(x.rect) === String(x.lens.aligned); }, LONG);
        const rect1 = (await state(pg)).lens.aligned;
        assert.equal(String(rect1), String(alignRect(rect1, BW, BH)), "on the region grid");
        await until("the rect's frames", () => log.frames.filter((f) => String(f.rect) === String(rect1)).length >= 10, LONG);
        /* paused at T: the screen is the world */
        await pg.click("#tl-pause");
        await until("this tab's timeline paused", async () => { const t = (await state(pg)).timeline; return t.open && t.play?.paused && t.pending === 0; }, LONG);
        const T = (await state(pg)).timeline.tick;
        await holds(pg, T, rect1, "paused in the big world", LONG);
        const n1 = await screenIsWorld(pg, session, T, "the big world at 4×", wd);
        /* a drag with the right button to another rect (the picture follows the pointer) */
        const before = (await state(pg)).cam, st = await pg.locator("#stage").boundingBox();
        /* (from the middle of the stage, clear of the minimap in its corner) */
        const from = { x: Math.round(st.x + st.width * 0.55), y: Math.round(st.y + st.height * 0.5) };
        const to = { x: Math.round(st.x + st.width * 0.05), y: Math.round(st.y + st.height * 0.1) };
        await pg.mouse.move(from.x, from.y);
        await pg.mouse.down({ button: "right" });
        for (let i = 1; i <= 40; i++) await pg.mouse.move(from.x + (to.x - from.x) * i / 40, from.y + (to.y - from.y) * i / 40);
        await pg.mouse.up({ button: "right" });
        const moved = (await state(pg)).cam;
        assert.deepEqual([moved.x0 - before.x0, moved.y0 - before.y0], [from.x - to.x, from.y - to.y], "the world moved with the pointer");
        const rect2 = await settledRect(pg, "the new view's rect subscribed, and settled", LONG);
        assert.notDeepEqual(rect2, rect1);
        await until("a keyframe of the new rect", () => log.frames.some((f) => f.key && String(f.rect) === String(rect2)), LONG);
        await holds(pg, T, rect2, "after the pan in the big world", LONG);
        const n2 = await screenIsWorld(pg, session, T, "the big world after the pan", wd);
        /* live again: frames of the rect go on arriving, every one rebuilt to its hash */
        await pg.click("#tl-live");
        await until("live", async () => { const x = await state(pg); return !x.timeline.open && x.tick > T + 30; }, LONG);
        s = await state(pg);
        assert.deepEqual([s.mismatches, s.badFrames], [0, 0], "no frame's hash differed, none was refused");
        assert.deepEqual(problems, []);
        const rectFrames = log.frames.filter((f) => f.rect).length;
        console.log(`# pan (2048×1024 demo): rect [${rect1}] then [${rect2}]; ${n1} + ${n2} screen points = the recorded frame of tick ${T}; ` +
                    `${rectFrames} rect frames, 0 hash mismatches`);
        /* and vivd's recording of it, stopped cleanly, verifies: every tick's state and frame hash */
        await ctx.close();
        assert.equal(await big.stop(), 0, "vivd stopped cleanly");
        stopped = true;
        const v = spawnSync(VIV, ["replay", "verify", wd.db, "--session", String(session)], { encoding: "utf8" });
        assert.equal(v.status, 0, `viv replay verify of the big world's recording: ${v.stdout}${v.stderr}`);
        console.log(`# pan (2048×1024 demo): its recording: ${v.stdout.trim().split("\n").at(-1)}`);
    } finally {
        if (!stopped) {
            await ctx.close();
            await big.stop();
        }
        fs.rmSync(big.dir, { recursive: true, force: true });
    }
});
