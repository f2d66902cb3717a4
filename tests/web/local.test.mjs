// local.test.mjs — clients/web/local.js, a world run in the page with no server, in Node with a
// scripted clock: it keeps its rate with absolute deadlines, the page's control schemes paint
// into it, every frame it shows hashes in JavaScript to the module's own frame hash, and its hash
// chain (every tick's state and frame hash) is the one `viv sim --every 1` prints for the same
// kind, seed, params and inputs. The browser test runs the same in the page.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadSim } from "../../clients/web/sim.js";
import { LocalViewer } from "../../clients/web/local.js";
import { ROOT, VIV, haveBinaries } from "./vivd.mjs";

const WASM = path.join(process.env.VIV_BIN ? path.resolve(process.env.VIV_BIN) : path.join(ROOT, "bin"), "vivarium.wasm");
const skip = haveBinaries() && fs.existsSync(WASM) ? false : "bin/viv and bin/vivarium.wasm are not built (make -j2 all)";

/* A clock the test moves: now() and one pending timer. */
function clock() {
    const c = { t: 1000, fn: null, at: 0 };
    c.now = () => c.t;
    c.setTimeout = (fn, ms) => { c.fn = fn; c.at = c.t + ms; return 1; };
    c.clearTimeout = () => { c.fn = null; };
    /* move to the next deadline and run what is due */
    c.next = () => { c.t = Math.max(c.t, c.at); const f = c.fn; c.fn = null; f?.(); };
    return c;
}

/* `viv sim --every 1` for (kind, seed, params) with inputs lines, to tick n: [[tick, sh, fh]]. */
function vivChain(kind, seed, params, lines, n) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "viv-local-"));
    try {
        const file = path.join(dir, "in.txt");
        fs.writeFileSync(file, lines.map((l) => `${l}\n`).join(""));
        const out = execFileSync(VIV, ["sim", "--world", kind, "--seed", String(seed), "--params", params, "--ticks", String(n),
                                       "--every", "1", "--render-all", "--inputs", file], { encoding: "utf8" });
        return out.trim().split("\n").map((l) => l.split(/\s+/)).map(([t, sh, fh]) => [+t, sh, fh]);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

test("a local world: its rate, the page's painting, and viv sim's hash chain", { skip }, async () => {
    const sim = await loadSim(fs.readFileSync(WASM));
    const c = clock();
    let frames = 0, changes = 0;
    const v = new LocalViewer(sim, { kind: "sand", seed: 5n, params: "w=96,h=64,scene=empty", now: c.now, setTimeout: c.setTimeout,
                                     clearTimeout: c.clearTimeout, onFrame: () => frames++, onChange: () => changes++ });
    assert.deepEqual(v.worlds.map((w) => w.kind), sim.kinds().map((k) => k.name), "a tab for every kind the module has");
    assert.equal(v.world.kind, "sand");
    assert.equal(v.world.params, "w=96,h=64,scene=empty");
    assert.equal(v.stream.w, 96);
    v.start();
    assert.ok(changes >= 1 && frames >= 1, "start shows the picture at tick 0");
    /* 60 deadlines at 60 Hz: one second, 60 ticks */
    for (let i = 0; i < 60; i++) c.next();
    assert.equal(v.hook().tick, 60);
    assert.ok(Math.abs(c.t - 1000 - 1000) < 1e-6, `60 ticks took ${c.t - 1000} ms of the clock`);
    /* paint with the sand scheme of inputs.js: a stroke from (20, 10) to (70, 12) */
    const ctl = v.ctl;
    assert.equal(ctl.scheme, "paint");
    ctl.element = v.world.names.element.sand;
    v.sendInputs(ctl.pointer("down", 20, 10, c.t));
    v.sendInputs(ctl.pointer("move", 70, 12, c.t));
    v.sendInputs(ctl.pointer("up", 70, 12, c.t));
    for (let i = 0; i < 40; i++) c.next();
    const lines = v.hook().localInputs();
    assert.ok(lines.length >= 3 && lines.every((l) => /^60 paint \d+ \d+ \d+ 3$/.test(l)), `the stroke: ${lines.join(" | ")}`);
    /* a late page: 10 periods late, it runs 4 back to back and lets the rest go */
    c.t += 10 * 1000 / 60;
    const before = v.hook().tick;
    c.next();
    assert.equal(v.hook().tick, before + 4);
    for (let i = 0; i < 20; i++) c.next();
    const n = v.hook().tick;
    const mine = v.chainOf(1, n);
    assert.equal(mine.length, n);
    assert.deepEqual(mine, vivChain("sand", 5, "w=96,h=64,scene=empty", lines, n), "the page's chain is viv sim's, tick by tick");
    assert.notEqual(vivChain("sand", 5, "w=96,h=64,scene=empty", [], n).at(-1)[1], mine.at(-1)[1], "the paint changed the world");
    assert.equal(v.counts.mismatches, 0, "every frame shown hashed in JavaScript to the module's frame hash");
    assert.equal(v.hook().hash, mine.at(-1)[2], "the picture shown is the last tick's");
    /* another kind: from its seed, tick 0, no inputs */
    v.select(v.worlds.find((w) => w.kind === "terrarium").id);
    assert.equal(v.hook().tick, 0);
    assert.deepEqual(v.hook().localInputs(), []);
    for (let i = 0; i < 40; i++) c.next();
    const t = v.hook().tick;
    assert.deepEqual(v.chainOf(t, t), vivChain("terrarium", 5, v.world.params, [], t).slice(-1));
    v.stop();
});
