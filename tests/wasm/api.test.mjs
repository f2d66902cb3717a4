// api.test.mjs — bin/vivarium.wasm (wasm/api.c) through clients/web/sim.js, as the page will use
// it, against bin/viv sim, the native build: `make test-wasm` (node --test tests/wasm/).
//
// Every kind of the one list (bin/viv sim --list-kinds; nothing here names a kind) runs its
// golden script (tests/golden/<kind>.args and .inputs) in the module, and its state and frame
// hashes every 50 ticks must equal `viv sim`'s for the same kind, seed, inputs and ticks. The
// frame the module renders into shared memory must hash in JavaScript (clients/web/hash.js) to
// the same value, so the page paints what was hashed. Save and load (into the same world and into
// a new one) must continue the same chain; what the module says each kind takes (sim.describe)
// is what viv sim says; bad blobs, kinds, params and inputs are refused with a
// sentence and change nothing; and in the counting build (build/wasm/vivarium-count.wasm) a step,
// a render, both hashes and a save call malloc, calloc, realloc and free not once.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { loadSim, SimError } from "../../clients/web/sim.js";
import { frameHash } from "../../clients/web/hash.js";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const golden = path.join(root, "tests/golden");
/* make test-wasm passes the Makefile's BIN and WASM_COUNT (another BUILD under SANITIZE=…) */
const bin = path.resolve(root, process.env.VIV_BIN ?? "bin");
const viv = path.join(bin, "viv");
const MODULE = path.join(bin, "vivarium.wasm");
const COUNT_MODULE = path.resolve(root, process.env.WASM_COUNT ?? "build/wasm/vivarium-count.wasm");
const EVERY = 50;

const hex = (v) => v.toString(16).padStart(16, "0");
const kinds = execFileSync(viv, ["sim", "--list-kinds"], { encoding: "utf8" })
    .trim().split("\n").map((l) => l.split(" ")[0]);

/* tests/golden/<kind>.args: the viv sim options of the golden run. */
function goldenArgs(kind) {
    const words = fs.readFileSync(path.join(golden, `${kind}.args`), "utf8")
        .split("\n").filter((l) => !l.startsWith("#")).join(" ").trim().split(/\s+/);
    const o = { seed: 1n, ticks: 600, params: "", words };
    for (let i = 0; i < words.length; i += 2) {
        if (words[i] === "--seed") o.seed = BigInt(words[i + 1]);
        else if (words[i] === "--ticks") o.ticks = Number(words[i + 1]);
        else if (words[i] === "--params") o.params = words[i + 1];
        else throw new Error(`${kind}.args: option ${words[i]} is not known to this test`);
    }
    return o;
}

/* The inputs file's lines by tick: [tick, line number (the seq viv sim gives), text]. */
function goldenInputs(kind) {
    const byTick = new Map();
    fs.readFileSync(path.join(golden, `${kind}.inputs`), "utf8").split("\n").forEach((line, i) => {
        const t = line.trim();
        if (!t || t.startsWith("#")) return;
        const tick = BigInt(t.split(/\s+/)[0]);
        if (!byTick.has(tick)) byTick.set(tick, []);
        byTick.get(tick).push([i + 1, line]);
    });
    return byTick;
}

/* `viv sim`'s chain for the kind's golden run, every EVERY ticks up to ticks. */
function nativeChain(kind, ticks) {
    const a = goldenArgs(kind);
    const args = ["sim", "--world", kind, "--seed", String(a.seed), "--ticks", String(ticks),
        "--every", String(EVERY), "--inputs", `${kind}.inputs`];
    if (a.params) args.push("--params", a.params);
    return execFileSync(viv, args, { cwd: golden, encoding: "utf8" }).trim().split("\n");
}

/* Run world w from its present tick to `to`, feeding the kind's golden inputs, and return the
 * chain lines it prints at every EVERY-th tick, as viv sim prints them. */
function runChain(w, inputs, to, check) {
    const lines = [];
    while (w.tick < BigInt(to)) {
        for (const [seq, line] of inputs.get(w.tick) ?? []) {
            const rc = w.inputLine(0, seq, line);
            assert.equal(rc, 0, `${w.kind} tick ${w.tick}: ${line}: ${w.error}`);
        }
        w.step();
        const t = w.tick;
        if (t % BigInt(EVERY) === 0n || t === BigInt(to)) {
            const f = w.render(0);
            const fh = w.frameHash();
            if (check) check(f, fh);
            lines.push(`${t} ${hex(w.hash())} ${hex(fh)}`);
        }
    }
    return lines;
}

const sim = await loadSim(fs.readFileSync(MODULE));

test("the module's kinds are the one list, in the same order", () => {
    assert.ok(kinds.length >= 1);
    assert.deepEqual(sim.kinds().map((k) => k.name), kinds);
    for (const k of sim.kinds()) assert.ok(k.hz > 0, `${k.name} has a tick rate`);
});

test("every kind's inputs and views as the module describes them (sim.describe) are viv sim's, and they work", () => {
    const help = execFileSync(viv, ["sim", "--help"], { encoding: "utf8" });
    for (const kind of kinds) {
        const d = sim.describe(kind);
        /* `viv sim --help`: "<kind> (N Hz) params: …" then "  inputs: paint x y r element; …" */
        const line = new RegExp(`^${kind} \\(\\d+ Hz\\).*\\n\\s+inputs: (.*)$`, "m").exec(help);
        assert.ok(line, `viv sim --help describes ${kind}`);
        assert.equal(d.inputs.map((i) => [i.name, ...i.args.map((a) => a.name)].join(" ")).join("; "), line[1].trim(), kind);
        assert.ok(d.views.length >= 1 && d.views[0] === "normal", `${kind}: view 0 is the normal picture`);
        for (const i of d.inputs) for (const a of i.args) assert.ok(a.lo <= a.hi, `${kind} ${i.name} ${a.name}: a range`);
        /* the ranges are the ones the world holds inputs to: its first argument one past its
         * range is refused (the page's local world clamps to them, as it does to a welcome's) */
        const w = sim.create(kind, 1n, "");
        d.inputs.forEach((i, k) => {
            const args = i.args.map((a, n) => (n === 0 ? a.hi + 1 : Math.max(a.lo, Math.min(a.hi, 0))));
            if (i.args.length) assert.notEqual(w.input(w.tick, 1, k + 1, k, args), 0, `${kind} ${i.name}: over its range`);
        });
        w.destroy();
        for (const [e, values] of Object.entries(d.names)) assert.ok(Object.keys(values).length > 0, `${kind}: enum ${e}`);
    }
    assert.equal(sim.describe("no-such-kind"), null);
    assert.deepEqual(Object.keys(sim.describe("sand").names.element).slice(0, 4), ["empty", "wall", "stone", "sand"]);
});

for (const kind of kinds) {
    test(`${kind}: the golden run in wasm gives viv sim's state and frame hashes`, () => {
        const a = goldenArgs(kind);
        const want = nativeChain(kind, a.ticks);
        const w = sim.create(kind, a.seed, a.params);
        let frames = 0;
        const got = runChain(w, goldenInputs(kind), a.ticks, (f, fh) => {
            /* The shared buffer is the frame: the page's own hash of it is the module's. */
            assert.equal(f.pixels.length, f.w * f.h);
            assert.equal(frameHash(f.w, f.h, f.palette, f.count, f.pixels), fh);
            frames++;
        });
        assert.ok(frames >= a.ticks / EVERY);
        assert.equal(got.length, want.length);
        for (let i = 0; i < want.length; i++) assert.equal(got[i], want[i], `${kind}, line ${i + 1}`);
        w.destroy();
    });

    test(`${kind}: save and load, into the same world and into a new one, continue the chain`, () => {
        const a = goldenArgs(kind);
        const ticks = Math.min(a.ticks, 1000), half = 500;
        const want = nativeChain(kind, ticks).filter((l) => Number(l.split(" ")[0]) > half);
        const inputs = goldenInputs(kind);
        const w = sim.create(kind, a.seed, a.params);
        runChain(w, inputs, half);
        const blob = w.save();
        const sh = w.hash();
        const other = sim.fromState(blob);            /* a new handle: the blob names the kind */
        assert.equal(other.hash(), sh);
        assert.equal(other.kind, kind);
        assert.equal(other.params, w.params);
        assert.deepEqual(runChain(other, inputs, ticks), want);
        runChain(w, inputs, ticks);                   /* run on, then back to the save */
        w.load(blob);
        assert.equal(w.tick, BigInt(half));
        assert.equal(w.hash(), sh);
        assert.deepEqual(runChain(w, inputs, ticks), want);
        other.destroy();
        w.destroy();
    });
}

test("a blob's state hash is its world's (sim.stateHash), and a new world compares as an older state's version (saveAs)", () => {
    for (const kind of kinds) {
        const w = sim.create(kind, 3n);
        w.step(40);
        const blob = w.save();
        assert.equal(sim.stateHash(blob), w.hash(), kind);
        if (kind !== "sand") {
            /* no hashed form: XXH3-64 of the bytes, and no older version to save as */
            assert.throws(() => w.saveAs(Uint8Array.from([...blob.subarray(0, 8), 99, 0, 0, 0, ...blob.subarray(12)])),
                          (e) => e instanceof SimError);
            w.destroy();
            continue;
        }
        /* sand: version 3 hashes by chunk digests (docs/STATE.md); as version 2, its bytes alone */
        assert.equal(blob[8], 3);
        const old = blob.slice();
        old[8] = 2;
        const fresh = sim.create(kind, 3n);
        fresh.step(40);
        assert.equal(fresh.hash(), w.hash());
        fresh.saveAs(old);
        assert.notEqual(fresh.hash(), w.hash());
        assert.equal(fresh.hash(), sim.stateHash(old));
        assert.deepEqual(fresh.save(), old);
        const loaded = sim.fromState(old);            /* a version 2 state stays version 2 */
        assert.equal(loaded.hash(), sim.stateHash(old));
        assert.equal(loaded.save()[8], 2);
        loaded.destroy();
        fresh.destroy();
        w.destroy();
    }
});

test("refusals: bad kinds, params, blobs and inputs say why and change nothing", () => {
    const kind = kinds[0];
    assert.throws(() => sim.create("no-such-kind", 1n), (e) => e instanceof SimError && e.code === -3 &&
        kinds.every((k) => e.message.includes(k)));
    assert.throws(() => sim.create(kind, 1n, "no_such_param=1"), (e) => e.code === -4 && /unknown key/.test(e.message));
    const w = sim.create(kind, 7n);
    w.step(3);
    const sh = w.hash(), blob = w.save();
    const bad = blob.slice();
    bad[0] ^= 1;                                        /* the magic */
    assert.throws(() => w.load(bad), (e) => e.code === -8);
    assert.throws(() => w.load(blob.subarray(0, blob.length - 1)), (e) => e.code === -11);
    assert.throws(() => sim.fromState(new Uint8Array(10)), (e) => e.code === -11 || e.code === -8);
    assert.equal(w.hash(), sh);
    assert.equal(w.tick, 3n);
    /* a valid input (the golden script's first) for another tick, an unknown input kind:
     * refused with a sentence */
    const [, first] = [...goldenInputs(kind).values()][0][0];
    assert.equal(w.inputLine(0, 1, first.trim().replace(/^\d+/, "99")), -6);
    assert.match(w.error, /next tick is 3/);
    assert.equal(w.input(3n, 0, 1, 999, []), -5);
    assert.ok(w.inputLine(0, 1, "3 no-such-input 1 2") < 0);
    assert.match(w.error, /unknown input/);
    assert.equal(w.inputLine(0, 1, "# a comment"), 1);
    assert.equal(w.hash(), sh);
    /* a world is never hashed into anything but its own state: loading another kind replaces it */
    if (kinds.length > 1) {
        const o = sim.create(kinds[1], 5n);
        o.step(2);
        w.load(o.save());
        assert.equal(w.kind, kinds[1]);
        assert.equal(w.hash(), o.hash());
        o.destroy();
    }
    w.destroy();
});

test("a world built from a file is refused: the module reads no file", () => {
    /* the cycle world's scene=file:PATH, if the list has it; any kind with a STR param that names
     * a file would do, and a list without one has nothing to refuse */
    if (!kinds.includes("cycle")) return;
    assert.throws(() => sim.create("cycle", 1n, "scene=file:tests/golden/cycle-scene.lbm"),
        (e) => e instanceof SimError && e.code === -15);
});

test("a step, a render, both hashes and a save allocate nothing (every kind, its golden inputs)", async () => {
    const counted = await loadSim(fs.readFileSync(COUNT_MODULE));
    const calls = counted.x.vwt_heap_calls;
    for (const kind of kinds) {
        const a = goldenArgs(kind);
        const inputs = goldenInputs(kind);
        const w = counted.create(kind, a.seed, a.params);
        /* queue the lines first (inputLine copies each into the module: that allocates), then
         * count around everything the tick itself does */
        let during = 0, ticks = 0;
        while (w.tick < 600n) {
            for (const [seq, line] of inputs.get(w.tick) ?? []) assert.equal(w.inputLine(0, seq, line), 0);
            const before = calls();
            w.step();
            w.x.vw_render(w.h, 0);
            w.x.vw_frame_hash(w.h);
            w.x.vw_hash(w.h);
            assert.ok(w.x.vw_save(w.h) > 0);
            during += calls() - before;
            ticks++;
        }
        assert.equal(during, 0, `${kind}: ${during} heap calls in ${ticks} ticks`);
        const before = calls();
        w.destroy();
        assert.ok(calls() > before, "the counter counts: destroying a world frees");
    }
});
