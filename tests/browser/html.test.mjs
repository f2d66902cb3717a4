// html.test.mjs — one-file replays (issue 29): `viv replay export FILE --html OUT.html` opened from
// disk (file://, no server) in Debian's Chromium driven by playwright-core, with every request the
// page makes recorded and any to the network refused:
//   - a recording made by `viv sim --record` verifies in the file's own WebAssembly to
//     data-verdict="bit-exact" with data-ticks equal to `viv replay verify`'s count, loading
//     nothing but the file (and the blob: URLs it makes of its own modules); the player steps
//     forward and back and seeks, and the canvas shows the frame `viv replay export` renders at
//     the tick it names;
//   - one recorded hash flipped in the file (sqlite3 UPDATE) is what replay.js and viv replay
//     verify call a lone damaged row: data-verdict="damaged", as verify says;
//   - an input row moved to another tick is a true divergence: data-verdict="diverged" with
//     data-diverged-at the tick verify names;
//   - a cycle world built from a scene file plays and verifies from the file alone.
//
// Run: `VIV_BIN=bin node --test tests/browser/html.test.mjs` (part of make test-web).
import test, { after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

let chromium;
try {
    ({ chromium } = await import("playwright-core"));
} catch (e) {
    throw new Error(`playwright-core is not installed in tests/browser/node_modules (${e.code ?? e.message}): run scripts/deps.sh, which runs npm ci there`);
}
const { VIV, haveBinaries, replayVerify } = await import("../web/vivd.mjs");
const L = await import("./lib.mjs");
const { CHROMIUM, CHROMIUM_ARGS, TESTED_MAJOR, until, canvasFrame, exportedFrame, recordedHashes } = L;

if (!haveBinaries()) throw new Error("bin/vivd, bin/viv and bin/vivarium.wasm are not built: make -j2 all");
if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (scripts/deps.sh does)`);

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const skip = +browser.version().split(".")[0] === TESTED_MAJOR ? false : `Chromium ${browser.version()} is not the version these tests were checked with (${TESTED_MAJOR}); page.test.mjs says what to do`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "viv-html-"));
after(async () => {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
});

const TICKS = 900;
const INPUTS = "30 paint 100 20 5 water\n90 paint 160 30 4 sand\n400 paint 60 40 6 oil\n";

/* A fresh recording of sand: TICKS ticks with INPUTS, by viv sim --record. */
function record(name) {
    const db = path.join(dir, `${name}.db`), inputs = path.join(dir, "inputs.txt");
    fs.writeFileSync(inputs, INPUTS);
    execFileSync(VIV, ["sim", "--world", "sand", "--seed", "7", "--ticks", String(TICKS), "--inputs", inputs, "--record", db], { stdio: "pipe" });
    return db;
}

function exportHtml(db) {
    const out = db.replace(/\.db$/, ".html");
    execFileSync(VIV, ["replay", "export", db, "--session", "1", "--html", out], { stdio: "pipe" });
    return out;
}

/* Open the file from disk with every request recorded (and any to the network refused); wait
 * for its verdict. Returns {page, verdict, ticks, divergedAt, requests, refused, problems}. */
async function openFile(file) {
    const context = await browser.newContext();
    const requests = [], refused = [];
    await context.route((url) => !url.href.startsWith("file:") && !url.href.startsWith("blob:") && !url.href.startsWith("data:"),
                        (route) => { refused.push(route.request().url()); return route.abort(); });
    const page = await context.newPage();
    const problems = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
    await page.goto(pathToFileURL(file).href);
    await until("the file's verdict", () => page.evaluate(() => document.body.dataset.verdict), 120000, 100);
    const got = await page.evaluate(() => ({ ...document.body.dataset, text: document.getElementById("verdict").textContent }));
    return { context, page, requests, refused, problems, ...got };
}

/* The canvas of the player, read back: {w, h, rgba}. */
async function playerCanvas(page) {
    const c = await page.evaluate(() => {
        const cv = document.getElementById("view");
        const d = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
        let s = "";
        for (let i = 0; i < d.length; i += 0x8000) s += String.fromCharCode.apply(null, d.subarray(i, i + 0x8000));
        return { w: cv.width, h: cv.height, b64: btoa(s), tick: +document.body.dataset.tick };
    });
    return { w: c.w, h: c.h, tick: c.tick, rgba: Buffer.from(c.b64, "base64") };
}

async function shows(page, db, tick) {
    const c = await playerCanvas(page);
    assert.equal(c.tick, tick, "the tick the player names");
    const want = recordedHashes(db, 1, tick).fh;
    const cmp = canvasFrame(c, exportedFrame(db, 1, tick, want));
    assert.equal(cmp.differ, 0, `pixels of tick ${tick} that are not viv replay export's`);
    assert.equal(cmp.hash, want);
}

test("the exported file verifies bit-exact from disk, loads nothing, and plays both ways", { skip, timeout: 300000 }, async () => {
    const db = record("exact");
    const ref = replayVerify(db, 1);
    assert.equal(ref.verdict, "bit-exact", ref.out);
    const html = exportHtml(db);
    const text = fs.readFileSync(html, "utf8");
    assert.doesNotMatch(text, /https?:\/\//, "the file names no http(s) address");
    const r = await openFile(html);
    try {
        assert.deepEqual(r.problems, []);
        assert.equal(r.verdict, "bit-exact", r.text);
        assert.equal(+r.ticks, ref.ticks);
        assert.deepEqual(r.refused, [], "requests to the network");
        const own = pathToFileURL(html).href;
        assert.deepEqual(r.requests.filter((u) => u !== own && !u.startsWith("blob:")), [], "requests other than the file and its own blob: modules");
        /* the player: tick 0 (which has no recorded row), a step forward, a seek, a step back, each showing the frame */
        assert.equal((await playerCanvas(r.page)).tick, 0, "the player starts at the first tick");
        await r.page.click("#fwd");
        await until("tick 1", () => r.page.evaluate(() => document.body.dataset.tick === "1"));
        await shows(r.page, db, 1);
        await r.page.evaluate(() => vivPlayer.go(455));
        await r.page.click("#back");
        await until("tick 454", () => r.page.evaluate(() => document.body.dataset.tick === "454"));
        await shows(r.page, db, 454);
        await r.page.keyboard.press("ArrowLeft");
        await until("tick 453", () => r.page.evaluate(() => document.body.dataset.tick === "453"));
        await shows(r.page, db, 453);
        /* play runs to the end and stops there */
        await r.page.selectOption("#speed", "8");
        await r.page.click("#play");
        await until("the end", () => r.page.evaluate((t) => document.body.dataset.tick === String(t) && document.body.dataset.playing === "false", TICKS), 60000, 50);
        await shows(r.page, db, TICKS);
        /* integer zoom: the canvas is shown at 3 screen pixels a world pixel */
        await r.page.selectOption("#zoom", "3");
        const box = await r.page.locator("#view").boundingBox();
        assert.equal(Math.round(box.width), 3 * (await playerCanvas(r.page)).w);
    } finally {
        await r.context.close();
    }
});

test("one recorded hash flipped in the file: damaged, as viv replay verify says", { skip, timeout: 300000 }, async () => {
    const db = record("flip");
    /* the lowest bit of tick 240's state hash, the last of the first block of hashes, which the
     * file keeps whole (docs/REPLAY.md; an i64: x - (x & 1) + (1 - (x & 1))) */
    execFileSync("sqlite3", [db, "UPDATE hashes SET last_sh = last_sh - (last_sh & 1) + (1 - (last_sh & 1)) WHERE session = 1 AND tick = 1 AND n = 240;"]);
    const ref = replayVerify(db, 1);
    assert.equal(ref.verdict, "damaged", ref.out);
    const r = await openFile(exportHtml(db));
    try {
        assert.equal(r.verdict, "damaged", r.text);
        assert.match(r.text, /tick 240\b/);
        assert.deepEqual(r.refused, []);
    } finally {
        await r.context.close();
    }
});

test("an input moved to another tick: diverged at the tick viv replay verify names", { skip, timeout: 300000 }, async () => {
    const db = record("moved");
    execFileSync("sqlite3", [db, "UPDATE input SET tick = 60 WHERE session = 1 AND tick = 90;"]);
    const ref = replayVerify(db, 1);
    assert.equal(ref.verdict, "diverged", ref.out);
    assert.equal(ref.divergedAt, 61);
    const r = await openFile(exportHtml(db));
    try {
        assert.equal(r.verdict, "diverged", r.text);
        assert.equal(+r.divergedAt, ref.divergedAt);
        assert.deepEqual(r.refused, []);
    } finally {
        await r.context.close();
    }
});

test("a world built from a file (cycle scene=file:…) plays from the file alone: its checkpoints hold the scene", { skip, timeout: 300000 }, async () => {
    const db = path.join(dir, "scene.db");
    execFileSync(VIV, ["sim", "--world", "cycle", "--params", `scene=file:${path.join(L.ROOT, "tests/golden/cycle-scene.lbm")}`, "--ticks", "240", "--record", db], { stdio: "pipe" });
    const ref = replayVerify(db, 1);
    assert.equal(ref.verdict, "bit-exact", ref.out);
    const r = await openFile(exportHtml(db));
    try {
        assert.equal(r.verdict, "bit-exact", r.text);
        assert.equal(+r.ticks, ref.ticks);
        assert.match(r.text, /built from a file/);
        await r.page.evaluate(() => vivPlayer.go(120));
        await shows(r.page, db, 120);
    } finally {
        await r.context.close();
    }
});
