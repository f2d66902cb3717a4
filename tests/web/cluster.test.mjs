// cluster.test.mjs — the page's session (clients/web/viewer.js) given a list of addresses, as the
// fragment's hosts= gives it (docs/CLUSTER.md): a world node and two relays joined through a
// redis-server of the test's own (a free loopback port, a temporary directory, no persistence);
// the page watches through the first relay, which is killed with SIGKILL, and goes on through
// the second from a keyframe, every frame's hash checked, the last one equal to viv sim's.
// Skipped when bin/vivd and bin/viv are not built or redis-server is not installed.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Viewer } from "../../clients/web/viewer.js";
import { connect, TcpWebSocket } from "./tcp.mjs";
import { haveBinaries, startVivd, vivSim } from "./vivd.mjs";

const haveRedis = spawnSync("redis-server", ["--version"]).status === 0;
const skip = !haveBinaries() ? "bin/vivd and bin/viv are not built (make -j2 all)"
           : !haveRedis ? "redis-server is not installed (scripts/deps.sh installs it)" : false;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, pred, ms = 15000) {
    const t0 = Date.now();
    while (!(await pred())) {
        if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
        await sleep(20);
    }
}

/* A free loopback port: bound, read, let go (redis-server takes no port 0). */
function freePort() {
    return new Promise((resolve, reject) => {
        const s = net.createServer();
        s.on("error", reject);
        s.listen(0, "127.0.0.1", () => {
            const { port } = s.address();
            s.close(() => resolve(port));
        });
    });
}

/* A redis-server of the test's own; resolves to {url, stop()} once it answers PING. */
async function startRedis() {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "viv-web-redis-"));
    const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "",
                                         "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
    let exited = false;
    child.on("exit", () => { exited = true; });
    const stop = () => new Promise((resolve) => {
        const done = () => { fs.rmSync(dir, { recursive: true, force: true }); resolve(); };
        if (exited) return done();
        child.on("exit", done);
        child.kill("SIGTERM");
    });
    const pong = () => new Promise((resolve) => {
        const s = net.connect({ host: "127.0.0.1", port });
        s.on("error", () => resolve(false));
        s.on("data", (d) => { s.destroy(); resolve(d.toString().startsWith("+PONG")); });
        s.on("connect", () => s.write("PING\r\n"));
    });
    try {
        await until("redis-server", async () => !exited && await pong(), 10000);
    } catch (e) {
        await stop();
        throw e;
    }
    return { url: `redis://127.0.0.1:${port}`, stop };
}

/* How many worlds a member's welcome lists. */
async function worldsOn(port) {
    const c = await connect("127.0.0.1", port);
    try {
        c.send({ t: "hello", v: 1, name: "count" });
        const { msg } = await c.next((m) => m.t === "welcome");
        return msg.worlds.length;
    } finally {
        c.close();
    }
}

test("a list of relays: the one in use is killed, and the page goes on through the next, 0 mismatches", { skip }, async () => {
    const redis = await startRedis();
    const cl = (name, ...more) => ["--cluster", redis.url, "--node", name, "--cluster-expiry", "1", ...more];
    const members = [];
    let viewer = null;
    try {
        members.push(await startVivd(cl("n", "--no-record", "--world", "sand:seed=5:w=96,h=64")));
        const r1 = await startVivd(cl("r1", "--relay")), r2 = await startVivd(cl("r2", "--relay"));
        members.push(r1, r2);
        await until("both relays listing the node's world", async () => await worldsOn(r1.port) === 1 && await worldsOn(r2.port) === 1);
        const ports = { "ws://relay-1/ws": r1.port, "ws://relay-2/ws": r2.port };
        const frames = [];
        viewer = new Viewer({ urls: Object.keys(ports), makeSocket: (u) => new TcpWebSocket("127.0.0.1", ports[u]),
                              onFrame: (r) => frames.push({ ...r, hash: viewer.stream.hash, via: viewer.conn.url }) });
        viewer.start();
        const h = viewer.hook();
        await until("60 frames through relay 1", () => frames.length >= 60);
        assert.equal(viewer.conn.url, "ws://relay-1/ws");
        process.kill(r1.pid, "SIGKILL");
        await until("the move to relay 2", () => h.connects === 2);
        assert.equal(viewer.conn.url, "ws://relay-2/ws");
        /* By the connection that brought them: frames relay 1 sent before it died may still be
         * read after the kill (a loaded machine), and they are relay 1's, not the first of 2's. */
        const through2 = () => frames.filter((f) => f.via === "ws://relay-2/ws");
        await until("60 frames through relay 2", () => through2().length >= 60);
        const after = through2();
        assert.ok(after[0].key, "the first frame through relay 2 is a keyframe");
        assert.equal(h.mismatches, 0);
        assert.equal(h.badFrames, 0);
        const f = frames.at(-1);
        assert.equal(f.hash.toString(16).padStart(16, "0"), vivSim("sand", 5, "w=96,h=64", f.tick).fh);
        assert.ok(viewer.notes.some((n) => n.text.includes("to ws://relay-2/ws")), "the note names the new address");
    } finally {
        viewer?.stop();
        for (const m of members.reverse()) await m.stop();
        await redis.stop();
    }
});
