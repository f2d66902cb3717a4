// vivd.mjs — start the repo's bin/vivd for the live tests and the recorder: a free TCP port
// (--port-file), fixed tokens, and no HTTP port when this vivd has one (so that several can run
// at once; the page's own HTTP serving is tested in the browser tests).
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
export const VIVD = path.join(ROOT, "bin/vivd");
export const VIV = path.join(ROOT, "bin/viv");
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

/* Start vivd with args; resolves to {port, dir, stop()} once it listens. dir: a fresh folder
 * it runs in (and that stop() removes unless keep). */
export async function startVivd(args, { keep = false, dir } = {}) {
    dir = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "viv-web-"));
    const portFile = path.join(dir, `port-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const child = spawn(VIVD, ["--listen", "127.0.0.1:0", "--port-file", portFile, "--quiet", ...noHttp(),
                               "--player-token", PLAYER, "--admin-token", ADMIN, ...args],
                        { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
    let exited = false;
    child.on("exit", () => { exited = true; });
    for (let i = 0; i < 200 && !fs.existsSync(portFile) && !exited; i++) await new Promise((r) => setTimeout(r, 25));
    if (!fs.existsSync(portFile)) throw new Error(`vivd ${args.join(" ")} did not start`);
    let port = 0;
    for (let i = 0; i < 40 && !port; i++) {
        port = +fs.readFileSync(portFile, "utf8").trim();
        if (!port) await new Promise((r) => setTimeout(r, 25));
    }
    return {
        port,
        dir,
        stop: () => new Promise((resolve) => {
            const done = () => {
                if (!keep) fs.rmSync(dir, { recursive: true, force: true });
                resolve();
            };
            if (exited) return done();
            child.on("exit", done);
            child.kill("SIGINT");
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
