// page_verify.mjs — how fast the page verifies a recording in Chromium, as a multiple of real
// time: `node bench/page_verify.mjs [SECONDS]` (bench/run.sh runs it; default 60 s of world time).
//
// For each kind of the one list (`viv sim --list-kinds`), `viv sim --record` makes a session of
// SECONDS of world time (the kind's default params and scene, seed 1); bin/vivd plays the file
// (--play) and serves the page and the sim module on a free loopback port; Debian's Chromium,
// headless through playwright-core (tests/browser/), opens the page and verifies each session
// there (window.viv.verify: the `replay` stream, then the replay in WebAssembly with a render and
// both hashes every tick, in slices that let the page draw), best of 3. Beside it, in the same
// run, `viv replay verify --threads 1` on the same file (native, one thread). Prints a Markdown
// table: ticks, the page's replay alone (ticks/s and × real time), the page from the request to
// the verdict (the stream included), and the native verifier. Every run must be bit-exact, with
// the tick count of `viv replay verify`, or the script fails: the figures are of real work.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const seconds = Number(process.argv[2] ?? 60);
process.env.VIV_BIN ??= path.resolve(root, process.env.BIN ?? "bin");
const { PLAYER, VIV, startVivd } = await import("../tests/web/vivd.mjs");
const { CHROMIUM, CHROMIUM_ARGS } = await import("../tests/browser/lib.mjs");
const { chromium } = await import(path.join(root, "tests/browser/node_modules/playwright-core/index.mjs"));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "viv-bench-page-"));
const db = path.join(dir, "bench.db");
const kinds = execFileSync(VIV, ["sim", "--list-kinds"], { encoding: "utf8" }).trim().split("\n").map((l) => l.split(/\s+/)).map(([name, , hz]) => ({ name, hz: +hz }));
for (const k of kinds)
    execFileSync(VIV, ["sim", "--world", k.name, "--ticks", String(k.hz * seconds), "--record", db], { stdio: "ignore" });

/* The native verifier on one thread: ticks/s from its own report line. */
function native(session) {
    const r = spawnSync(VIV, ["replay", "verify", db, "--session", String(session), "--threads", "1", "--quiet"], { encoding: "utf8" });
    const m = /(\d+) ticks in ([\d.]+) s: (\d+) ticks\/s/.exec(r.stdout);
    if (r.status !== 0 || !m) throw new Error(`viv replay verify --session ${session}: ${r.stdout}${r.stderr}`);
    return { ticks: +m[1], tps: +m[3] };
}

const srv = await startVivd(kinds.flatMap((_, i) => ["--play", `bench.db:${i + 1}`]), { http: true, dir, keep: true });
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const rows = [];
try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`http://127.0.0.1:${srv.httpPort}/#token=${PLAYER}`);
    await page.waitForFunction(() => window.viv?.state === "open" && viv.sessions.length === 1, null, { timeout: 30000 });
    const version = browser.version();
    for (let i = 0; i < kinds.length; i++) {
        const k = kinds[i], id = i + 1, ref = native(id);
        let best = null;
        for (let rep = 0; rep < 3; rep++) {
            const r = await page.evaluate((id) => viv.verify({ session: id, file: "bench.db" }), id);
            if (r.verdict !== "bit-exact" || r.ticks !== ref.ticks)
                throw new Error(`${k.name}: the page says ${r.verdict} after ${r.ticks} ticks (${r.message}); viv replay verify: bit-exact, ${ref.ticks}`);
            if (!best || r.replaySeconds < best.replaySeconds) best = r;
        }
        rows.push({ k, ticks: best.ticks, replay: best.ticks / best.replaySeconds, whole: best.ticks / best.seconds, native: ref.tps });
    }
    console.log(`Chromium ${version} (${CHROMIUM}), headless; ${seconds} s of world time per kind, seed 1, default params; best of 3.`);
    console.log();
    console.log("| world | ticks | page: replay in wasm, ticks/s (× real time) | page: request to verdict, ticks/s (× real time) | viv replay verify --threads 1, ticks/s (× real time) |");
    console.log("|---|---|---|---|---|");
    const x = (tps, hz) => `${Math.round(tps)} (${(tps / hz).toFixed(1)}×)`;
    for (const r of rows)
        console.log(`| ${r.k.name} | ${r.ticks} | ${x(r.replay, r.k.hz)} | ${x(r.whole, r.k.hz)} | ${x(r.native, r.k.hz)} |`);
} finally {
    await browser.close();
    await srv.stop();
    fs.rmSync(dir, { recursive: true, force: true });
}
