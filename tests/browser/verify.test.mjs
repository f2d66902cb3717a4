// verify.test.mjs — the page verifies recordings itself, and runs a world with no server (issue
// 19), in Debian's Chromium driven by playwright-core, against a real bin/vivd serving the page,
// its WebSocket and the sim module (/vivarium.wasm) on a free loopback port:
//   - a session of every kind (the kinds list of `viv sim --list-kinds`), recorded by vivd while
//     the page painted into the sand world, is replayed in the page's WebAssembly with the Verify
//     button and the test hook, and gets the verdict and the tick count `viv replay verify` gets on
//     the same file; so does a copy of the file with one recorded hash changed (damaged, naming
//     the tick); the test-only flip of one recorded hash is reported at that tick; a running session
//     verifies up to its last committed tick while it records;
//   - #local=sand: the world runs in the tab with no vivd at all (the page's files from a plain
//     static server), the mouse paints it, the canvas shows the frame `viv sim` renders at the
//     same tick with the same inputs, and its whole hash chain is viv sim's.
//
// Run: `make test-web` (or `node --test tests/browser/` after `make` and scripts/deps.sh).
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

let chromium;
try {
    ({ chromium } = await import("playwright-core"));
} catch (e) {
    throw new Error(`playwright-core is not installed in tests/browser/node_modules (${e.code ?? e.message}): run scripts/deps.sh, which runs npm ci there`);
}
const { PLAYER, VIV, haveBinaries, replayVerify, startVivd } = await import("../web/vivd.mjs");
const L = await import("./lib.mjs");
const { CHROMIUM, CHROMIUM_ARGS, TESTED_MAJOR, ROOT, until, openPage, settledCanvas, canvasFrame, simFrame } = L;

const BIN = process.env.VIV_BIN ? path.resolve(process.env.VIV_BIN) : path.join(ROOT, "bin");
const WASM = path.join(BIN, "vivarium.wasm");
if (!haveBinaries() || !fs.existsSync(WASM)) throw new Error("bin/vivd, bin/viv and bin/vivarium.wasm are not built: make -j2 all");
if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (scripts/deps.sh does)`);

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const skip = +browser.version().split(".")[0] === TESTED_MAJOR ? false : `Chromium ${browser.version()} is not the version these tests were checked with (${TESTED_MAJOR}); page.test.mjs says what to do`;
const KINDS = L.kinds();
let live = null, dir = null;

/* Frame coordinates → CSS pixels on the page (the centre of that frame pixel). */
async function toClient(page, fw, fh, fx, fy) {
    const box = await page.locator("#screen").boundingBox();
    return { x: box.x + (fx + 0.5) * box.width / fw, y: box.y + (fy + 0.5) * box.height / fh };
}

/* A mouse stroke across the canvas, frame pixel a to b. */
async function stroke(page, fw, fh, a, b) {
    const p = await toClient(page, fw, fh, a[0], a[1]), q = await toClient(page, fw, fh, b[0], b[1]);
    await page.mouse.move(p.x, p.y);
    await page.mouse.down();
    await page.mouse.move(q.x, q.y, { steps: 12 });
    await page.mouse.up();
}

before(async () => {
    if (skip) return;
    /* one world of every kind (the demo set), recorded; the page paints the sand world */
    live = await startVivd(["--db", "live.db"], { http: true, keep: true });
    dir = live.dir;
});

after(async () => {
    await browser.close();
    if (live) await live.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test("a running session verifies in the page while vivd records it, up to its last committed tick", { skip }, async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
        const { page, problems } = await openPage(ctx, `http://127.0.0.1:${live.httpPort}/#token=${PLAYER}&world=sand`);
        await until("the sand world's frames", () => page.evaluate(() => viv.kind === "sand" && viv.verified && viv.shownTick > 30));
        const w = await page.evaluate(() => ({ w: viv.w, h: viv.h }));
        const sandId = await page.evaluate(() => viv.viewer.world.names.element.sand);
        await page.click(`#controls .elements button[title="sand (${sandId})"]`);
        await stroke(page, w.w, w.h, [Math.round(w.w * 0.3), 8], [Math.round(w.w * 0.6), 10]);
        await until("the stroke acked", () => page.evaluate(() => viv.acks >= 3));
        /* let every world run a while, so that each session has ticks and the paint has fallen, and
         * its first block of hashes (240 ticks) is whole before its last tick (the next test) */
        await until("5 s of the sand world", () => page.evaluate(() => viv.shownTick >= 300));
        await until("vivd's sessions in the panel", () => page.evaluate((n) => viv.sessions.length === 1 && viv.sessions[0].sessions.length === n, KINDS.length));
        /* the panel picks this world's running session: the Verify button */
        const picked = await page.locator("#verify select option:checked").textContent();
        assert.match(picked, /^this world: sand #\d+ · \d+ ticks so far$/);
        await page.click("#verify-go");
        await until("the verdict", () => page.evaluate(() => viv.verifyState.result !== null), 60000);
        const r = await page.evaluate(() => viv.verifyState.result);
        assert.equal(r.verdict, "bit-exact", r.message);
        assert.equal(r.status, "running");
        assert.ok(r.ticks >= 180 && r.ticks === r.total, `${r.ticks} of ${r.total} ticks`);
        assert.match(await page.locator("#verdict").textContent(), /✓ bit-exact.*bit-exact: \d+ ticks replayed from tick 0 to \d+/);
        assert.deepEqual(problems.filter((p) => p.startsWith("page error")), []);
        console.log(`# live: sand session verified in the page while recording: ${r.ticks} ticks, ${r.replaySeconds.toFixed(2)} s of replay`);
    } finally {
        await ctx.close();
    }
});

test("a session of every kind: the page's verdict and tick count are viv replay verify's; a changed hash and the flip hook are reported at their tick", { skip }, async () => {
    /* vivd stopped cleanly: every session suspended, the file still; played back by a second vivd */
    assert.equal(await live.stop(), 0);
    live = null;
    const db = path.join(dir, "live.db");
    const sessions = L.sessions(db);
    assert.deepEqual(sessions.map((s) => s.kind).sort(), [...KINDS].sort(), "one session of every kind");
    const sand = sessions.find((s) => s.kind === "sand");
    /* a copy with one recorded state hash changed, as a corrupted or forged file would have it */
    const bad = path.join(dir, "changed.db");
    execFileSync("sqlite3", [db, `.backup '${bad}'`]);        /* (what the WAL holds too) */
    /* (the last tick of the block of hashes that holds tick 150, whose hashes the file keeps
     * whole; a tick the session went on after, so that later hashes confirm the damage) */
    const q = `WHERE session = ${sand.id} AND tick <= 150 AND tick + n > 150 AND tick + n - 1 < (SELECT end_tick FROM session WHERE id = ${sand.id})`;
    const at = +execFileSync("sqlite3", [bad, `SELECT tick + n - 1 FROM hashes ${q}`], { encoding: "utf8" }).trim();
    assert.ok(at > 150, `the block holding tick 150 ends at ${at}, before the session's last tick`);
    execFileSync("sqlite3", [bad, `UPDATE hashes SET last_sh = (last_sh | 1) - (last_sh & 1) ${q}`]);
    const play = await startVivd([...sessions.flatMap((s) => ["--play", `live.db:${s.id}`]), "--play", `changed.db:${sand.id}`], { http: true, dir, keep: true });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
        const { page, problems } = await openPage(ctx, `http://127.0.0.1:${play.httpPort}/`);
        await until("the sessions of both files", () => page.evaluate(() => viv.sessions.length === 2));
        for (const s of sessions) {
            const want = replayVerify(db, s.id);
            assert.equal(want.verdict, "bit-exact", want.out);
            const got = await page.evaluate((id) => viv.verify({ session: id, file: "live.db" }), s.id);
            assert.equal(got.verdict, want.verdict, `${s.kind}: ${got.message}`);
            assert.equal(got.ticks, want.ticks, `${s.kind}: the page replayed ${got.ticks} ticks, viv replay verify ${want.ticks}`);
            assert.equal(got.kind, s.kind);
            console.log(`# ${s.kind}: session ${s.id} bit-exact in the page and in viv replay verify: ${got.ticks} ticks (${(got.ticks / got.replaySeconds / got.hz).toFixed(0)}× real time)`);
        }
        /* one row changed and every hash after it matching again: the file is damaged, not desynced
         * (issue 28), in the page as in viv replay verify */
        const want = replayVerify(bad, sand.id);
        assert.equal(want.verdict, "damaged", want.out);
        assert.match(want.out, new RegExp(`tick ${at}, its recorded state hash`));
        const got = await page.evaluate((id) => viv.verify({ session: id, file: "changed.db" }), sand.id);
        assert.equal(got.verdict, "damaged", got.message);
        assert.match(got.message, new RegExp(`tick ${at}, its recorded state hash: recorded ([0-9a-f]{16}), replayed ([0-9a-f]{16})`));
        assert.match(await page.locator("#verdict").textContent(), /✗ damaged/);
        /* the test-only hook: one recorded hash flipped as it arrives */
        const flip = Math.round(replayVerify(db, sand.id).ticks / 2);
        const f = await page.evaluate(({ id, flip }) => viv.verify({ session: id, file: "live.db", flip }), { id: sand.id, flip });
        assert.equal(f.verdict, "damaged", f.message);
        /* (the file keeps the low 8 bits of a tick in the middle of a block: two digits after dots) */
        const [, rec, rep] = new RegExp(`tick ${flip}, its recorded state hash: recorded (\\.*[0-9a-f]+), replayed ([0-9a-f]{16})`).exec(f.message) ?? [];
        assert.ok(rec, f.message);
        assert.equal(rec.length, 16);
        const kept = rec.replace(/\./g, "");
        assert.equal((BigInt(`0x${kept}`) ^ BigInt(`0x${rep}`)) & ((1n << BigInt(4 * kept.length)) - 1n), 1n);
        /* a session the file does not hold */
        const none = await page.evaluate(() => viv.verify({ session: 999, file: "live.db" }));
        assert.equal(none.verdict, "error");
        assert.match(none.message, /^unknown_session: session 999 not found in live\.db/);
        assert.deepEqual(problems.filter((p) => p.startsWith("page error")), []);
    } finally {
        await ctx.close();
        assert.equal(await play.stop(), 0);
    }
});

/* The page's files and the module from a plain static server: no vivd anywhere. */
function staticServer() {
    const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };
    const web = path.join(ROOT, "clients/web");
    return new Promise((resolve) => {
        const server = http.createServer((req, res) => {
            const url = new URL(req.url, "http://x");
            const file = url.pathname === "/vivarium.wasm" ? WASM : path.join(web, path.normalize(url.pathname === "/" ? "/index.html" : url.pathname));
            if (!file.startsWith(web) && file !== WASM) return res.writeHead(404).end();
            fs.readFile(file, (err, data) => {
                if (err) return res.writeHead(404).end();
                res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" }).end(data);
            });
        });
        server.listen(0, "127.0.0.1", () => resolve({ port: server.address().port, close: () => new Promise((r) => server.close(r)) }));
    });
}

test("#local=sand: the world runs in the tab with no server; the mouse paints it; its chain and canvas are viv sim's", { skip }, async () => {
    const web = await staticServer();
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
        const params = "w=160,h=90,scene=demo";
        const { page, problems } = await openLocal(ctx, `http://127.0.0.1:${web.port}/#local=sand&seed=5&params=${encodeURIComponent(params)}`);
        const w = await page.evaluate(() => ({ w: viv.w, h: viv.h, local: viv.local }));
        assert.deepEqual(w.local.kind, "sand");
        assert.equal(w.local.seed, "5");
        assert.equal(w.local.params, params);
        assert.match(await page.locator("#status").textContent(), /local · no server/);
        assert.deepEqual(await page.locator("#worlds button .kind").allTextContents().then((t) => t.map((x) => x.toLowerCase())), KINDS, "a tab for every kind");
        await until("a second of the world", () => page.evaluate(() => viv.local.tick >= 60));
        /* paint water with the mouse, as on a served world */
        const water = await page.evaluate(() => viv.viewer.world.names.element.water);
        await page.click(`#controls .elements button[title="water (${water})"]`);
        await stroke(page, w.w, w.h, [30, 8], [120, 12]);
        await until("the stroke applied", () => page.evaluate(() => viv.localInputs().length >= 3));
        const t1 = await page.evaluate(() => viv.local.tick);
        await until("half a second after it", () => page.evaluate((t) => viv.local.tick >= t, t1 + 30));
        await page.evaluate(() => viv.pause(true));
        await until("the last tick drawn", () => page.evaluate(() => viv.shownTick === viv.local.tick && viv.canvasMismatches() === 0));
        const { chain, inputs, tick } = await page.evaluate(() => ({ chain: viv.localChain(), inputs: viv.localInputs(), tick: viv.local.tick }));
        assert.ok(inputs.every((l) => new RegExp(`^\\d+ paint \\d+ \\d+ \\d+ ${water}$`).test(l)), inputs.join(" | "));
        assert.equal(chain.length, tick);
        /* viv sim with the same inputs: every tick's state and frame hash */
        const file = path.join(fs.mkdtempSync(path.join(dir ?? "/tmp", "local-")), "in.txt");
        fs.writeFileSync(file, inputs.map((l) => `${l}\n`).join(""));
        const out = execFileSync(VIV, ["sim", "--world", "sand", "--seed", "5", "--params", params, "--ticks", String(tick), "--every", "1", "--inputs", file], { encoding: "utf8" });
        const want = out.trim().split("\n").map((l) => l.split(/\s+/)).map(([t, sh, fh]) => [+t, sh, fh]);
        assert.deepEqual(chain, want, "the page's hash chain, tick by tick, is viv sim's");
        /* the canvas is viv sim's frame at that tick with those inputs */
        const cv = await settledCanvas(page, tick);
        const ref = simFrame({ kind: "sand", seed: 5, params }, tick, inputs.map((l) => { const [t, kind, ...a] = l.split(" "); return { tick: +t, kind, args: a.map(Number) }; }));
        assert.equal(canvasFrame(cv, ref).hash, ref.fh, "the canvas is viv sim's frame");
        assert.notEqual(simFrame({ kind: "sand", seed: 5, params }, tick).sh, ref.sh, "the paint changed the world");
        assert.equal(await page.evaluate(() => viv.mismatches), 0);
        assert.deepEqual(problems, [], "no error in the page, and no request to anything but its own files");
        console.log(`# local: sand seed 5 ran ${tick} ticks in the tab with ${inputs.length} paint inputs from the mouse; chain and canvas = viv sim`);
    } finally {
        await ctx.close();
        await web.close();
    }
});

/* Open a local page: no WebSocket is ever opened. */
async function openLocal(ctx, url) {
    const page = await ctx.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
    page.on("websocket", (ws) => problems.push(`a WebSocket to ${ws.url()}`));
    await page.goto(url);
    await until("the local world", () => page.evaluate(() => window.viv?.isLocal === true && viv.frames > 0));
    return { page, problems };
}
