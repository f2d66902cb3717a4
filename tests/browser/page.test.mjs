// page.test.mjs — the page (clients/web/) in a real browser: Debian's Chromium, headless, driven by
// playwright-core, against a real bin/vivd serving the page and its WebSocket on a free loopback
// port. What the canvas shows is read back (getImageData) and hashed as docs/PROTOCOL.md defines
// the frame hash, then compared with the frame `viv sim` renders for the same world, seed, tick
// and inputs, or with the hash a recording holds. The test hook window.viv
// (clients/web/README.md) only says which tick is shown; the pixels come from the canvas.
//
// Run: `make test-web` (or `node --test tests/browser/` after `make` and scripts/deps.sh).
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const nodeMajor = +process.versions.node.split(".")[0];
if (nodeMajor < 18)
    throw new Error(`Node ${process.versions.node}: playwright-core 1.61.1 needs Node 18 or newer (Debian 12's nodejs is 18)`);
let chromium;
try {
    ({ chromium } = await import("playwright-core"));
} catch (e) {
    throw new Error(`playwright-core is not installed in tests/browser/node_modules (${e.code ?? e.message}): run scripts/deps.sh, which runs npm ci there`);
}
const { PLAYER, haveBinaries, startVivd } = await import("../web/vivd.mjs");
const L = await import("./lib.mjs");
const { CHROMIUM, CHROMIUM_ARGS, TESTED_MAJOR, ROOT, until, openPage, readCanvas, settledCanvas, canvasFrame, simFrame, ackedInputs } = L;
const { OP, frame, wsConnect } = await import("./wsraw.mjs");
const { decodePng } = await import("./pngread.mjs");

if (!haveBinaries()) throw new Error("bin/vivd and bin/viv are not built: make -j2 all");
if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (scripts/deps.sh does)`);

/* ---- the browser, checked first ------------------------------------------------------------- */
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const version = browser.version();
console.log(`# Chromium ${version} (${CHROMIUM}), playwright-core 1.61.1, Node ${process.versions.node}`);
const wrongBrowser = +version.split(".")[0] === TESTED_MAJOR ? null
    : `${CHROMIUM} is Chromium ${version}; these tests were written and checked with major version ${TESTED_MAJOR} ` +
      `(the one playwright-core 1.61.1 drives). Run them against this one by hand, then change TESTED_MAJOR in tests/browser/lib.mjs ` +
      `(and playwright-core's version in tests/browser/package.json to one made for it)`;
const skip = wrongBrowser ? "the browser is not the version these tests were checked with" : false;

const KINDS = L.kinds();
const allLogs = [];                 /* every page's wire log: the inputs any page sent to any world */
let srv = null, desk = null, main = null, worlds = [];
const byKind = (k) => worlds.find((w) => w.kind === k);

async function page(context, url) {
    const p = await openPage(context, url);
    allLogs.push(p.log);
    return p;
}

/* What the canvas shows now (a tick at or after `from`) is the frame viv sim renders for world at
 * that tick, with every input any page sent it that was applied before then. */
async function canvasIsSim(p, world, from, what) {
    const cv = await settledCanvas(p.page, from);
    const inputs = (await ackedInputs(allLogs, world.id)).filter((i) => i.tick < cv.tick);
    const ref = simFrame(world, cv.tick, inputs);
    const got = canvasFrame(cv, ref);
    assert.equal(got.hash, ref.fh, `${what}: the canvas at tick ${cv.tick} hashes to ${got.hash}, viv sim's frame (${inputs.length} inputs) ` +
                 `to ${ref.fh}: ${got.differ} pixels differ, ${got.foreign} of a colour in no palette entry`);
    return { cv, ref, inputs };
}

/* The page's counters say it never saw a bad frame, and it threw nothing. */
async function clean(p) {
    const h = await L.viewed(p.page);
    assert.equal(h.mismatches, 0, "frame hash mismatches on the page");
    assert.equal(h.badFrames, 0, "frames that did not decode on the page");
    assert.deepEqual(p.problems.filter((s) => s.startsWith("page error")), [], "errors thrown in the page");
    return h;
}

/* Switch the page to world w with its tab (a click, or a tap of a finger), and wait until the
 * canvas shows that world. */
async function pickTab(p, w, how = "click") {
    const f0 = await p.page.evaluate(() => viv.frames);
    const tab = `#worlds button[title^="${w.kind} #${w.id} "]`;
    await (how === "tap" ? p.page.tap(tab) : p.page.click(tab));
    await until(`the canvas to show ${w.kind} #${w.id}`, () => p.page.evaluate(({ id, f }) =>
        viv.world === id && viv.frames >= f + 5 && viv.canvasMismatches() === 0, { id: w.id, f: f0 }));
}

/* Frame coordinates → the page's CSS pixels (the centre of that frame pixel on the canvas). */
async function toClient(p, world, fx, fy) {
    const box = await p.page.locator("#screen").boundingBox();
    return { x: box.x + (fx + 0.5) * box.width / world.w, y: box.y + (fy + 0.5) * box.height / world.h };
}

before(async () => {
    if (wrongBrowser) return;
    /* the demo set (one world of every kind), recorded, so that the last test can play it back */
    srv = await startVivd(["--db", "live.db"], { http: true, keep: true });
    desk = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    main = await page(desk, `http://127.0.0.1:${srv.httpPort}/#token=${PLAYER}`);
    worlds = await main.page.evaluate(() => viv.worlds);
});

after(async () => {
    await browser.close();
    if (srv) {
        await srv.stop();
        fs.rmSync(srv.dir, { recursive: true, force: true });
    }
});

test(`Chromium is major version ${TESTED_MAJOR}, the one these tests were checked with`, () => {
    if (wrongBrowser) throw new Error(wrongBrowser);
});

test("the page served by vivd lists the demo set, one world of every kind, as tabs", { skip }, async () => {
    assert.deepEqual(worlds.map((w) => w.kind).sort(), [...KINDS].sort(), "the welcome's kinds against viv sim --list-kinds");
    const tabs = await main.page.locator("#worlds button .kind").allTextContents();
    assert.deepEqual(tabs.map((t) => t.toLowerCase()), worlds.map((w) => w.kind));
    assert.equal(await main.page.evaluate(() => viv.role), "player");
});

test("the token leaves the address once the page has read it, and the role stays (issue 29)", { skip }, async () => {
    await until("the page's player role", () => main.page.evaluate(() => document.querySelector(".role")?.textContent.includes("you can play")));
    const hash = await main.page.evaluate(() => location.hash);
    assert.ok(!hash.includes("token"), `the address has no token after load: ${hash}`);
    assert.ok(!hash.includes(PLAYER), `nor the token's value: ${hash}`);
});

test("a screenshot of the page for the README: the world drawn pixel-sharp at a whole scale", { skip }, async () => {
    const w = byKind("sand") ?? worlds[0];
    await pickTab(main, w);
    await main.page.mouse.move(0, 0);
    /* a few seconds in, when the demo is going (a picture, not a check) */
    await until("4 s of the world", () => main.page.evaluate((t) => viv.shownTick >= t, 4 * w.hz));
    const look = await main.page.evaluate(() => {
        const c = document.getElementById("screen"), r = c.getBoundingClientRect();
        return { scale: viv.scale, rendering: getComputedStyle(c).imageRendering, x: r.x, y: r.y, cw: r.width, ch: r.height, w: c.width, h: c.height, dpr: devicePixelRatio };
    });
    assert.ok(Number.isInteger(look.scale) && look.scale >= 2, `a whole scale of 2 or more (${look.scale})`);
    assert.equal(look.rendering, "pixelated");
    assert.equal(look.cw * look.dpr, look.w * look.scale, "the canvas is scale × the frame's width in device pixels");
    assert.equal(look.ch * look.dpr, look.h * look.scale);
    const out = path.join(ROOT, "build/browser/web-viewer.png");
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const shot = decodePng(await main.page.screenshot({ path: out }), out);
    /* pixel-sharp: in the screenshot each world pixel is a block of scale × scale screen pixels
     * of one colour (no smoothing between them) */
    const k = look.scale, x0 = Math.round(look.x * look.dpr), y0 = Math.round(look.y * look.dpr);
    assert.ok(x0 + look.w * k <= shot.w && y0 + look.h * k <= shot.h, "the picture is on the screen");
    let blurred = 0;
    for (let fy = 0; fy < look.h; fy++) {
        for (let fx = 0; fx < look.w; fx++) {
            const at = (dx, dy) => ((y0 + fy * k + dy) * shot.w + x0 + fx * k + dx) * shot.ch;
            const c = at(0, 0);
            let same = true;
            for (let dy = 0; dy < k && same; dy++)
                for (let dx = 0; dx < k && same; dx++)
                    for (let j = 0; j < 3; j++) same &&= shot.data[at(dx, dy) + j] === shot.data[c + j];
            if (!same) blurred++;
        }
    }
    assert.equal(blurred, 0, `world pixels drawn as blocks of more than one colour (of ${look.w * look.h})`);
    console.log(`# screenshot: ${path.relative(ROOT, out)} (${look.w}×${look.h} at ×${look.scale}, every block one colour; make web-screenshot copies it to docs/)`);
});

for (const kind of KINDS) {
    test(`${kind}: picked by its tab, 120 frames later the canvas read back is viv sim's frame at its tick`, { skip }, async () => {
        const w = byKind(kind);
        assert.ok(w, `the demo set hosts no ${kind} world`);
        await pickTab(main, w);
        const f0 = await main.page.evaluate(() => viv.frames);
        await until(`120 frames of ${kind}`, () => main.page.evaluate((f) => viv.frames >= f + 120, f0));
        const { cv } = await canvasIsSim(main, w, 1, kind);
        const h = await clean(main);
        assert.equal(h.world, w.id);
        console.log(`# ${kind} #${w.id}: tick ${cv.tick} on the canvas equals viv sim's (seed ${w.seed}, ${w.params})`);
    });
}

test("sand: a mouse stroke on the canvas paints sand; the server acks it and later frames are viv sim's with those inputs", { skip }, async () => {
    const w = byKind("sand");
    assert.ok(w, "the demo set hosts no sand world");
    const p = main;
    await pickTab(p, w);
    const sandId = await p.page.evaluate(() => viv.viewer.world.names.element.sand);
    await p.page.click(`#controls .elements button[title="sand (${sandId})"]`);
    const sent0 = p.log.inputs.length;
    const a = await toClient(p, w, Math.round(w.w * 0.3), Math.round(w.h * 0.12));
    const b = await toClient(p, w, Math.round(w.w * 0.7), Math.round(w.h * 0.12));
    await p.page.mouse.move(a.x, a.y);
    await p.page.mouse.down();
    await p.page.mouse.move(b.x, b.y, { steps: 16 });
    await p.page.mouse.up();
    const stroke = p.log.inputs.slice(sent0);
    assert.ok(stroke.length >= 4, `the stroke sent ${stroke.length} inputs`);
    for (const i of stroke) {
        assert.equal(i.kind, "paint");
        assert.equal(i.args[3], sandId, "painted with the element picked");
    }
    const acked = await ackedInputs(allLogs, w.id);
    const last = Math.max(...acked.map((i) => i.tick));
    assert.ok(await p.page.evaluate((n) => viv.acks >= n, stroke.length), "the page counted the acks");
    /* half a second after the last disc: the sand has fallen some way */
    const { cv, ref } = await canvasIsSim(p, w, last + 1 + 30, "after the stroke");
    const plain = simFrame(w, cv.tick);
    assert.notEqual(ref.sh, plain.sh, "the state with the stroke differs from the state without it");
    const shown = canvasFrame(cv, plain);
    assert.ok(shown.differ >= 100, `the painted sand shows: ${shown.differ} canvas pixels differ from the unpainted world's`);
    const wire = p.log.frames.find((f) => f.world === w.id && f.tick === cv.tick);
    assert.ok(wire && wire.sh === ref.sh, "the frame's state hash is viv sim's with the stroke");
    await clean(p);
    console.log(`# sand: ${stroke.length} paint inputs acked at ticks ${acked[0].tick}..${last}; ${shown.differ} pixels of sand at tick ${cv.tick}`);
});

test("a WebSocket closed by the page and one reset under it: each time the page reconnects and resumes from a keyframe, 0 mismatches", { skip }, async () => {
    /* a world nothing in these tests plays with, so viv sim needs no inputs */
    const w = byKind("merge") ?? worlds[0];
    const net = await L.relay(srv.httpPort);
    const ctx = await browser.newContext({ viewport: { width: 1024, height: 700 } });
    try {
        const p = await page(ctx, `http://127.0.0.1:${net.port}/#world=${w.id}`);
        const framesOn = (c) => p.log.frames.filter((f) => f.conn === c && f.world === w.id).length;
        await until("30 frames", () => framesOn(0) >= 30);
        await p.page.evaluate(() => viv.drop());                      /* the page closes its socket */
        await until("the first reconnect", () => p.page.evaluate(() => viv.connects === 2));
        await until("30 frames after it", () => framesOn(1) >= 30);
        assert.ok(net.cut() >= 1, "the relay carried the page's WebSocket");   /* an RST, mid-stream */
        await until("the second reconnect", () => p.page.evaluate(() => viv.connects === 3));
        await until("30 frames after it", () => framesOn(2) >= 30);
        assert.equal(p.log.conns.length, 3, "three WebSockets in all");
        const fr = p.log.frames.filter((f) => f.world === w.id);
        for (let c = 0; c < 3; c++) assert.equal(fr.find((f) => f.conn === c).key, true, `connection ${c} starts with a keyframe`);
        for (let i = 1; i < fr.length; i++) assert.ok(fr[i].tick > fr[i - 1].tick, `ticks only go forward (${fr[i - 1].tick} then ${fr[i].tick})`);
        const h = await clean(p);
        assert.equal(h.connects, 3);
        await canvasIsSim(p, w, fr.at(-1).tick, "after two reconnects");
        console.log(`# reconnects: ${fr.length} frames over 3 connections, ticks ${fr[0].tick}..${fr.at(-1).tick}, 0 mismatches`);
    } finally {
        await ctx.close();
        await net.close();
    }
});

test("a hostile WebSocket client gets errors and is disconnected, while the page beside it keeps every frame", { skip }, async () => {
    const w = byKind("cycle") ?? worlds[0];
    const ctx = await browser.newContext({ viewport: { width: 1024, height: 700 } });
    try {
        const p = await page(ctx, `http://127.0.0.1:${srv.httpPort}/#world=${w.id}`);
        const mine = () => p.log.frames.filter((f) => f.world === w.id);
        await until("20 frames", () => mine().length >= 20);
        const from = mine().length, shown0 = await p.page.evaluate(() => viv.frames);
        const greet = async () => {
            const c = await wsConnect(srv.httpPort);
            c.sendMsg({ t: "hello", v: 1, name: "hostile" });
            await c.next("welcome", (m) => m.t === "welcome");
            return c;
        };
        const errorsOf = (c) => c.messages.filter((m) => m.t === "error").map((m) => m.code);
        const endsWith = async (c, code, what) => {
            await until(`${what}: the end of the connection`, () => c.gone, 10000);
            assert.ok(c.closeFrame, `${what}: a close frame before the end`);
            assert.equal(c.closeFrame.code, code, `${what}: close status (reason: ${c.closeFrame.reason})`);
        };
        await Promise.all([
            (async () => {           /* text, not msgpack, not a map: errors; then a length over 64 KiB */
                const c = await greet();
                c.send(frame(OP.text, "hello?"));
                await c.next("not_binary", (m) => m.code === "not_binary");
                c.send(frame(OP.binary, Buffer.from([0xc1])));
                await c.next("bad_msgpack", (m) => m.code === "bad_msgpack");
                c.send(frame(OP.binary, Buffer.from([0x93, 1, 2, 3])));
                await c.next("not_map", (m) => m.code === "not_map");
                c.send(frame(OP.binary, Buffer.alloc(100, 0x81), { declare: 70000 }));   /* the rest never comes */
                await endsWith(c, 1008, "a declared length of 70,000");
                assert.deepEqual(errorsOf(c), ["not_binary", "bad_msgpack", "not_map", "too_large"]);
            })(),
            (async () => {           /* a message fragmented past the cap */
                const c = await greet();
                c.send(frame(OP.binary, Buffer.alloc(40000, 0x81), { fin: false }));
                c.send(frame(OP.cont, Buffer.alloc(40000, 0x81), { fin: false }));
                await endsWith(c, 1008, "fragments adding up to 80,000");
                assert.deepEqual(errorsOf(c), ["too_large"]);
            })(),
            (async () => {           /* the budget: 16 errors, then too_many_errors */
                const c = await greet();
                for (let i = 0; i < 16; i++) c.send(frame(OP.text, `spam ${i}`));
                await endsWith(c, 1008, "the error budget");
                assert.deepEqual(errorsOf(c), [...Array(16).fill("not_binary"), "too_many_errors"]);
            })(),
            ...[["a continuation with no message", frame(OP.cont, "x")],
                ["a reserved opcode", frame(3, "x")],
                ["a fragmented ping", frame(OP.ping, "x", { fin: false })]].map(async ([what, bad]) => {
                const c = await greet();
                c.send(bad);
                await endsWith(c, 1002, what);
                assert.deepEqual(errorsOf(c), [], `${what}: no error message, only the close`);
            }),
        ]);
        /* the page, all along: every tick, each frame checked */
        const end = mine().length;
        await until("20 frames after", () => mine().length >= end + 20);
        const fr = mine().slice(from - 1);
        for (let i = 1; i < fr.length; i++)
            assert.equal(fr[i].tick, fr[i - 1].tick + 1, `no tick missed (${fr[i - 1].tick} then ${fr[i].tick})`);
        const h = await clean(p);
        assert.equal(h.connects, 1, "the page never lost its connection");
        await until(`the page to verify the ${fr.length - 1} frames it received`, () => p.page.evaluate((n) => viv.frames >= n, shown0 + fr.length - 1));
        console.log(`# hostile: 6 connections refused and closed; the page took ticks ${fr[0].tick}..${fr.at(-1).tick} without a gap`);
    } finally {
        await ctx.close();
    }
});

/* A finger on the screen, through the DevTools protocol's touch events (Chromium makes them touch
 * pointer events, as a phone's): down at points[0], moving through the rest, up. cdp: a session
 * opened beforehand, so that the finger comes down without delay. */
async function touchStroke(cdp, points) {
    const at = (q) => [{ x: q.x, y: q.y, id: 1, radiusX: 4, radiusY: 4, force: 1 }];
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: at(points[0]) });
    for (const q of points.slice(1)) await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: at(q) });
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
}

const line = (a, b, n) => Array.from({ length: n + 1 }, (_, i) => ({ x: a.x + (b.x - a.x) * i / n, y: a.y + (b.y - a.y) * i / n }));

/* Where a creature is on the canvas: the densest place where it differs from the same room with
 * no creature in it (room: viv sim's frame of the world's room, scene=empty, the same at every
 * tick). */
function creatureAt(cv, room) {
    const { w, h } = cv, mask = new Uint8Array(w * h);
    for (let i = 0; i < w * h; i++) {
        const k = 3 * room.px[i];
        mask[i] = cv.rgba[4 * i] !== room.pal[k] || cv.rgba[4 * i + 1] !== room.pal[k + 1] || cv.rgba[4 * i + 2] !== room.pal[k + 2] ? 1 : 0;
    }
    let best = null, most = 0;
    for (let y = 4; y < h - 4; y++) {
        for (let x = 4; x < w - 4; x++) {
            if (!mask[y * w + x]) continue;
            let n = 0;
            for (let dy = -4; dy <= 4; dy++) for (let dx = -4; dx <= 4; dx++) n += mask[(y + dy) * w + x + dx];
            if (n > most) { most = n; best = { x, y }; }
        }
    }
    return best;
}

test("touch on a phone-sized screen: a finger paints sand, and drags a creature in the terrarium", { skip }, async () => {
    const sand = byKind("sand"), terra = byKind("terrarium");
    assert.ok(sand && terra, "the demo set has a sand and a terrarium world");
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    try {
        const p = await page(ctx, `http://127.0.0.1:${srv.httpPort}/#token=${PLAYER}&world=${sand.id}`);
        await until("a sand frame", () => p.page.evaluate((id) => viv.world === id && viv.verified && viv.shownTick > 0, sand.id));
        const box = await p.page.locator("#screen").boundingBox();
        assert.ok(box.x >= 0 && box.x + box.width <= 390, `the picture fits the phone's width (${JSON.stringify(box)})`);
        /* paint: a finger across the sky */
        const a = await toClient(p, sand, Math.round(sand.w * 0.2), Math.round(sand.h * 0.2));
        const b = await toClient(p, sand, Math.round(sand.w * 0.45), Math.round(sand.h * 0.25));
        await touchStroke(await ctx.newCDPSession(p.page), line(a, b, 12));
        await until("the touch's paint inputs", () => p.log.inputs.length >= 3);
        assert.ok(p.log.inputs.every((i) => i.kind === "paint"), "a finger on the sand paints");
        const painted = await ackedInputs([p.log], sand.id);
        await canvasIsSim(p, sand, Math.max(...painted.map((i) => i.tick)) + 1 + 10, "after the touch stroke");
        /* the terrarium: tap its tab, find a creature, drag it up by a finger */
        await pickTab(p, terra, "tap");
        /* Drag a creature up by a finger: aim at one on the canvas, then check with viv sim that
         * the grab took it. A creature may walk off between the picture and the finger (on a
         * loaded machine the finger can land a second later), so up to three tries. */
        const scene = /scene=[a-z]+/.test(terra.params) ? terra.params.replace(/scene=[a-z]+/, "scene=empty") : `${terra.params},scene=empty`;
        const room = simFrame({ ...terra, params: scene }, 1);
        const cdp = await ctx.newCDPSession(p.page);
        let caught = null;
        for (let attempt = 1; attempt <= 3 && !caught; attempt++) {
            const at = creatureAt(await settledCanvas(p.page), room);
            assert.ok(at, "a creature in the terrarium");
            const down = await toClient(p, terra, at.x, at.y), up = await toClient(p, terra, at.x, Math.max(4, at.y - 50));
            const sent0 = p.log.inputs.length;
            await touchStroke(cdp, line(down, up, 10));
            await until("the drag's inputs", () => p.log.inputs.slice(sent0).some((i) => i.kind === "release"));
            const mine = p.log.inputs.slice(sent0);
            assert.deepEqual([mine[0].kind, mine.at(-1).kind], ["grab", "release"]);
            assert.ok(mine.slice(1, -1).length >= 3 && mine.slice(1, -1).every((i) => i.kind === "drag"), `drags between: ${mine.map((i) => i.kind).join(" ")}`);
            /* the finger's path in frame pixels (a touch point may round by one) */
            assert.ok(Math.abs(mine[0].args[0] - at.x) <= 1 && Math.abs(mine[0].args[1] - at.y) <= 1, `grab at ${mine[0].args} for (${at.x},${at.y})`);
            const last = mine.at(-2).args;
            assert.ok(Math.abs(last[0] - at.x) <= 1 && Math.abs(last[1] - Math.max(4, at.y - 50)) <= 1, `the last drag at ${last}`);
            const all = await ackedInputs(allLogs, terra.id);
            const client = p.log.conns[mine[0].conn].client, seqs = new Set(mine.map((i) => i.seq));
            const without = all.filter((i) => !(i.client === client && seqs.has(i.seq)));
            const end = Math.max(...all.map((i) => i.tick)) + 1;
            if (simFrame(terra, end, all).sh !== simFrame(terra, end, without).sh)
                caught = { at, attempt, drags: mine.length - 2, tick: all.find((i) => i.client === client && i.seq === mine[0].seq).tick };
        }
        assert.ok(caught, "in three tries the finger caught no creature");
        const { cv } = await canvasIsSim(p, terra, caught.tick + 40, "after the drag");
        const h = await clean(p);
        assert.equal(h.errors, 0);
        console.log(`# touch: ${painted.length} paint inputs; a creature grabbed at (${caught.at.x},${caught.at.y}) (try ${caught.attempt}) and ${caught.drags} drags, acked; canvas = viv sim at tick ${cv.tick}`);
    } finally {
        await ctx.close();
    }
});

/* The controls move this tab's own timeline on the recording (`timeline`; a player's token no
 * longer makes them move the world for everyone with `play`): recordings.test.mjs has them
 * without a token, and two pages that do not move each other. */
test("a recording (vivd --play): the seek bar moves to a tick, and the canvas is the frame recorded there", { skip }, async () => {
    const sand = byKind("sand");
    const painted = await ackedInputs(allLogs, sand.id);
    assert.ok(painted.length > 0, "the live tests painted the sand world");
    const lastPaint = Math.max(...painted.map((i) => i.tick));
    await main.page.close();
    await desk.close();
    const dir = srv.dir, db = path.join(dir, "live.db");
    assert.equal(await srv.stop(), 0, "vivd stopped cleanly");
    srv = null;
    const session = L.sessions(db).find((s) => s.kind === "sand");
    assert.ok(session, "the recording holds the sand world's session");
    const play = await startVivd(["--play", `live.db:${session.id}`], { http: true, dir, keep: true });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
        const p = await page(ctx, `http://127.0.0.1:${play.httpPort}/#token=${PLAYER}`);
        await until("the recording's first frame", () => p.page.evaluate(() => viv.playState !== null && viv.verified && viv.shownTick >= 0));
        const ps = await p.page.evaluate(() => viv.playState);
        assert.ok(ps.paused && ps.end > lastPaint, `a paused recording that goes past the paint (${JSON.stringify(ps)})`);
        /* click the seek bar between the last paint and the end */
        const bar = p.page.locator("#rec-seek");
        const bb = await bar.boundingBox();
        const target = lastPaint + Math.round((ps.end - lastPaint) / 2);
        const thumb = 16;          /* the track is the bar less the thumb's width */
        const x = bb.x + thumb / 2 + (bb.width - thumb) * (target - ps.start) / (ps.end - ps.start);
        await p.page.mouse.click(x, bb.y + bb.height / 2);
        await until("the seek sent", () => p.log.timelines.some((q) => q.op === "seek"));
        const tick = p.log.timelines.find((q) => q.op === "seek").tick;
        assert.ok(tick > lastPaint, `sought to ${tick}, after the last paint at ${lastPaint}`);
        await until(`the frame at ${tick}`, () => p.page.evaluate((t) => viv.tick === t && viv.shownTick === t, tick));
        const rec = L.recordedHashes(db, session.id, tick);
        const cv = await readCanvas(p.page);
        assert.equal(cv.tick, tick);
        const ref = L.exportedFrame(db, session.id, tick, rec.fh);
        const got = canvasFrame(cv, ref);
        assert.equal(got.hash, rec.fh, `the canvas at ${tick} hashes to the recorded frame hash (${got.differ} pixels differ)`);
        assert.deepEqual(await p.page.evaluate(() => [viv.fh, viv.hash, viv.sh]), [rec.fh, rec.fh, rec.sh], "the hashes the page shows are the recorded ones");
        const wire = p.log.frames.find((f) => f.tick === tick);
        assert.ok(wire.key, "a seek answers with a keyframe");
        /* one step on with the key the page documents (→), the next recorded frame */
        await p.page.keyboard.press("ArrowRight");
        await until("the step sent", () => p.log.timelines.at(-1).op === "step");
        await until(`the frame at ${tick + 1}`, () => p.page.evaluate((t) => viv.shownTick === t, tick + 1));
        const next = await readCanvas(p.page);
        const rec2 = L.recordedHashes(db, session.id, tick + 1);
        assert.equal(canvasFrame(next, L.exportedFrame(db, session.id, tick + 1, rec2.fh)).hash, rec2.fh, "the step's frame is the recorded one");
        assert.deepEqual(p.log.plays, [], "no play message: the recording moved for this tab only");
        await clean(p);
        console.log(`# recording: session ${session.id} (${ps.start}..${ps.end}), sought to ${tick} (paint until ${lastPaint}) and stepped: canvas = recorded ${rec.fh}, ${rec2.fh}`);
    } finally {
        await ctx.close();
        assert.equal(await play.stop(), 0, "vivd --play stopped cleanly");
        fs.rmSync(dir, { recursive: true, force: true });
    }
});
