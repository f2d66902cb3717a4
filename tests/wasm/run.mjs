// run.mjs — run a WASI command module (a C program built with clang --target=wasm32-wasi) under
// Node's node:wasi as a native program runs: `node tests/wasm/run.mjs MODULE [ARGS...]`.
//
// The program gets MODULE as argv[0] and ARGS after it, no environment, the process's stdin,
// stdout and stderr, and the current directory preopened both as "." and as "/", so that a
// relative path (an inputs file, a scene, --chain OUT) means what it would natively; paths
// outside the current directory (absolute ones, "../") are not reachable. The exit status is
// the program's. tests/cross.sh runs the wasm32 build of `viv sim` and `viv fuzz` through it.
import fs from "node:fs";
import { WASI } from "node:wasi";

const [modulePath, ...args] = process.argv.slice(2);
if (!modulePath) {
    console.error("usage: node tests/wasm/run.mjs MODULE.wasm [ARGS...]");
    process.exit(2);
}
let bytes;
try {
    bytes = fs.readFileSync(modulePath);
} catch (e) {
    console.error(`run.mjs: cannot read ${modulePath}: ${e.message}`);
    process.exit(2);
}
const cwd = process.cwd();
const wasi = new WASI({
    version: "preview1",
    args: [modulePath, ...args],
    env: {},
    preopens: { ".": cwd, "/": cwd },
    returnOnExit: true,
});
let module;
try {
    module = await WebAssembly.compile(bytes);
} catch (e) {
    console.error(`run.mjs: ${modulePath} is not a WebAssembly module: ${e.message}`);
    process.exit(2);
}
const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
process.exitCode = wasi.start(instance);
