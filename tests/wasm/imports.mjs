// imports.mjs — what a WebAssembly module asks of its host: `node tests/wasm/imports.mjs MODULE`
// prints the module's imports, one a line (`module.name kind`), and exits 1 if any is outside the
// allowed set, naming each with the reason. tests/layers.sh runs it on bin/vivarium.wasm, after
// running it on a module built to break the rule.
//
// The allowed set is what wasi-libc needs to report a failed assert and stop (stdio on stderr,
// abort): fd_write, fd_close, fd_seek, fd_fdstat_get and proc_exit of wasi_snapshot_preview1. No
// clock, no file, no randomness, no arguments or environment, no socket, and nothing from `env`
// (an undefined C symbol): the core is a pure function of its inputs, and a page can run it with
// five stub functions (clients/web/sim.js supplies them).
import fs from "node:fs";

const WASI = "wasi_snapshot_preview1";
export const ALLOWED = new Set(["fd_write", "fd_close", "fd_seek", "fd_fdstat_get", "proc_exit"]);

function why(imp) {
    if (imp.module !== WASI) return `an import from '${imp.module}', not WASI: an undefined C symbol`;
    const n = imp.name;
    if (/^clock_|^poll_oneoff$|^sched_yield$/.test(n)) return "a clock";
    if (/^path_|^fd_(read|pread|pwrite|readdir|prestat|filestat|allocate|advise|datasync|sync|renumber|tell)/.test(n)) return "the filesystem";
    if (n === "random_get") return "randomness from the host";
    if (/^args_|^environ_/.test(n)) return "arguments or environment";
    if (/^sock_/.test(n)) return "sockets";
    return "not on the allowed list";
}

/* The imports of the module at path, and those outside ALLOWED with the reason. */
export function checkImports(path) {
    const mod = new WebAssembly.Module(fs.readFileSync(path));
    const imports = WebAssembly.Module.imports(mod);
    const bad = imports.filter((i) => i.module !== WASI || !ALLOWED.has(i.name) || i.kind !== "function");
    return { imports, bad: bad.map((i) => ({ ...i, why: why(i) })) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
    const path = process.argv[2];
    if (!path) {
        console.error("usage: node tests/wasm/imports.mjs MODULE.wasm");
        process.exit(2);
    }
    let res;
    try {
        res = checkImports(path);
    } catch (e) {
        console.error(`imports: ${path}: ${e.message}`);
        process.exit(2);
    }
    for (const i of res.imports) console.log(`${i.module}.${i.name} ${i.kind}`);
    for (const b of res.bad) console.error(`  ${b.module}.${b.name} (${b.why})`);
    process.exit(res.bad.length ? 1 : 0);
}
