// wasm.mjs — ticks per second of every world in WebAssembly under Node (bin/vivarium.wasm through
// clients/web/sim.js, as the page runs it) beside the native build, measured in the same run:
// `node bench/wasm.mjs [BUILD_DIR] [TICKS]` (bench/run.sh runs it, pinned to one core).
//
// For each kind of the one list, with its default params and seed 1: 60 warm-up ticks, then TICKS
// ticks (default 3000, more where the native run is shorter than 0.25 s, so that a fast loop is
// timed over a long enough run, the same count for both), best of 3, two ways: stepped only (the page's standalone toy draws far
// fewer frames than it steps), and stepped, rendered (the normal view) and hashed (state and
// frame) every tick, as the server and a replay verifier do. The native figure is
// $BUILD/bench_ticks running the same loop in C. Both report a check (the final state hash XOR
// every hash taken): they must be equal, or the runs did not do the same work and the script
// fails. Prints a Markdown table of ticks per second by the wall clock and per CPU second of the
// process (Node's included: its compiler and GC threads count), which other work on a shared
// machine skews far less; the ratio is the CPU one.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { loadSim } from "../clients/web/sim.js";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const build = path.resolve(root, process.argv[2] ?? "build/default");
const ticks = Number(process.argv[3] ?? 3000);
const bin = path.resolve(root, process.env.BIN ?? "bin");
const SEED = 1n;

const sim = await loadSim(fs.readFileSync(path.join(bin, "vivarium.wasm")));
const x = sim.x;

function wasmRun(kind, full, ticks) {
    let best = Infinity, bestCpu = Infinity, check = null;
    for (let rep = 0; rep < 3; rep++) {
        const w = sim.create(kind, SEED, "");
        const h = w.h;
        w.step(60);
        let sink = 0n;
        const t0 = performance.now(), c0 = process.cpuUsage();
        for (let t = 0; t < ticks; t++) {
            x.vw_step(h);
            if (full) {
                x.vw_render(h, 0);
                sink ^= BigInt.asUintN(64, x.vw_frame_hash(h)) ^ BigInt.asUintN(64, x.vw_hash(h));
            }
        }
        const dt = (performance.now() - t0) / 1000;
        const c = process.cpuUsage(c0), dc = (c.user + c.system) / 1e6;
        sink ^= w.hash();
        if (check !== null && sink !== check) throw new Error(`${kind}: repetitions disagree: nondeterminism!`);
        check = sink;
        best = Math.min(best, dt);
        bestCpu = Math.min(bestCpu, dc);
        w.destroy();
    }
    return { secs: best, cpu: bestCpu, check: check.toString(16).padStart(16, "0") };
}

console.log(`| world | ticks | loop | native ticks/s (wall, CPU) | wasm ticks/s, Node ${process.versions.node} (wall, CPU) | wasm / native (CPU) |`);
console.log("|---|---|---|---|---|---|");
let status = 0;
for (const { name } of sim.kinds()) {
    for (const mode of ["step", "full"]) {
        let runTicks = ticks, nsecs, ncpu, ncheck;
        for (;;) {
            const out = execFileSync(path.join(build, "bench_ticks"), [name, String(SEED), String(runTicks), mode],
                { encoding: "utf8" });
            [, , nsecs, ncpu, ncheck] = out.trim().split(" ");
            nsecs = Number(nsecs);
            ncpu = Number(ncpu);
            if (nsecs >= 0.25 || runTicks >= 1e8) break;
            runTicks = Math.ceil(runTicks * Math.min(100, 0.3 / Math.max(nsecs, 1e-4)));
        }
        const wr = wasmRun(name, mode === "full", runTicks);
        if (wr.check !== ncheck) {
            console.error(`wasm.mjs: ${name} ${mode}: the wasm run's check ${wr.check} is not the native ${ncheck}`);
            status = 1;
        }
        const rate = (secs) => (runTicks / secs).toFixed(0);
        const loop = mode === "full" ? "step + render + both hashes" : "step";
        console.log(`| ${name} | ${runTicks} | ${loop} | ${rate(nsecs)}, ${rate(ncpu)} | ${rate(wr.secs)}, ` +
            `${rate(wr.cpu)} | ${(ncpu / wr.cpu).toFixed(2)} |`);
    }
}
process.exitCode = status;
