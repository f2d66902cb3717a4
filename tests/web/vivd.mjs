// vivd.mjs — start the repo's bin/vivd for the live tests and the recorder: a free TCP port
// (--port-file), fixed tokens, and no HTTP port when this vivd has one (so that several can run
// at once; the page's own HTTP serving is tested in the browser tests).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
/* The binaries: bin/ of the source tree, or $VIV_BIN (the Makefile's $(BIN), e.g. a sanitizer build's). */
const BIN = process.env.VIV_BIN ? path.resolve(process.env.VIV_BIN) : path.join(ROOT, "bin");
export const VIVD = path.join(BIN, "vivd");
export const VIV = path.join(BIN, "viv");
export const PLAYER = "web-test-player";
export const ADMIN = "web-test-admin";

export const haveBinaries = () => fs.existsSync(VIVD) && fs.existsSync(VIV);

let httpFlag = null;
function noHttp() {
    if (httpFlag === null) {
        const help = execFileSync(VIVD, ["--help"], { encoding: "utf8" });
        httpFlag = help.includes("--no-http") ? ["--no-http"] : [];
    }
    return httpFlag;
}

/* The port vivd wrote to file (it writes the file once it listens), or throws when it has not
 * within about 10 s (a loaded machine) or has exited. */
async function readPort(file, exited, what) {
    for (let i = 0; i < 400 && !fs.existsSync(file) && !exited(); i++) await new Promise((r) => setTimeout(r, 25));
    if (!fs.existsSync(file)) throw new Error(`vivd ${what} did not start`);
    let port = 0;
    for (let i = 0; i < 40 && !port; i++) {
        port = +fs.readFileSync(file, "utf8").trim();
        if (!port) await new Promise((r) => setTimeout(r, 25));
    }
    return port;
}

/* Start vivd with args; resolves to {port, httpPort, dir, stop()} once it listens. dir: a fresh
 * folder it runs in (and that stop() removes unless keep). http: also serve the page and the
 * WebSocket on a free loopback port (httpPort; 0 without it). */
export async function startVivd(args, { keep = false, dir, http = false } = {}) {
    dir = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "viv-web-"));
    const tag = `${process.pid}-${Math.random().toString(36).slice(2)}`;
    const portFile = path.join(dir, `port-${tag}`), httpFile = path.join(dir, `http-port-${tag}`);
    const httpArgs = http ? ["--http", "127.0.0.1:0", "--http-port-file", httpFile] : noHttp();
    const child = spawn(VIVD, ["--listen", "127.0.0.1:0", "--port-file", portFile, "--quiet", ...httpArgs,
                               "--player-token", PLAYER, "--admin-token", ADMIN, ...args],
                        { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    let exited = false;
    child.on("exit", () => { exited = true; });
    const what = args.join(" ");
    let port, httpPort;
    try {
        port = await readPort(portFile, () => exited, what);
        httpPort = http ? await readPort(httpFile, () => exited, `${what} (its HTTP port)`) : 0;
    } catch (e) {
        if (!exited) child.kill("SIGKILL");
        throw e;
    }
    return {
        port,
        httpPort,
        dir,
        pid: child.pid,
        /* SIGINT, as a person stops it; resolves to its exit code (a signal's name if it was
         * killed: after 20 s it is sent SIGKILL, so a hung vivd fails a test, never hangs it) */
        stop: () => new Promise((resolve) => {
            const done = () => {
                clearTimeout(hung);
                if (!keep) fs.rmSync(dir, { recursive: true, force: true });
                resolve(child.exitCode ?? child.signalCode);
            };
            let hung = null;
            if (exited) return done();
            child.on("exit", done);
            child.kill("SIGINT");
            hung = setTimeout(() => child.kill("SIGKILL"), 20000);
        }),
    };
}

/* `viv sim` for a world: [tick, state hash, frame hash] after ticks ticks (no inputs). */
export function vivSim(kind, seed, params, ticks, view) {
    const args = ["sim", "--world", kind, "--seed", String(seed), "--ticks", String(ticks)];
    if (params) args.push("--params", params);
    if (view) args.push("--view", view);
    const out = execFileSync(VIV, args, { encoding: "utf8" }).trim().split("\n").at(-1).split(/\s+/);
    return { tick: +out[0], sh: out[1], fh: out[2] };
}

/* `viv replay verify FILE --session N`, read as the page reports a verification: {verdict
 * ("bit-exact", "diverged", "damaged" or "unverifiable"), ticks (of a bit-exact replay), divergedAt,
 * status (the exit status), out (its stdout and stderr)}. */
export function replayVerify(db, session) {
    const r = spawnSync(VIV, ["replay", "verify", db, "--session", String(session), "--quiet"], { encoding: "utf8" });
    const out = r.stdout + r.stderr;
    const exact = /: bit-exact: (\d+) ticks? replayed/.exec(r.stdout);
    const desync = /first divergent tick: (\d+)/.exec(r.stdout) ?? (/\n  tick 0: the recorded initial state/.test(r.stdout) ? [null, "0"] : null);
    const verdict = r.status === 0 && exact ? "bit-exact" : r.status === 1 && desync ? "diverged"
        : r.status === 2 && /is damaged|corrupted/.test(r.stderr) ? "damaged" : r.status === 2 ? "unverifiable" : `exit ${r.status}`;
    return { verdict, ticks: exact ? +exact[1] : null, divergedAt: desync ? +desync[1] : null, status: r.status, out };
}
