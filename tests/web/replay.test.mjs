// replay.test.mjs — clients/web/replay.js against a real vivd: a recording streamed by the `replay`
// message (docs/PROTOCOL.md) and replayed in WebAssembly (bin/vivarium.wasm through sim.js) gets
// the verdict and the tick count `viv replay verify` gets on the same file: bit-exact sessions of
// every kind, one whose recorded state hash was changed (damaged: the one row, named, since every
// hash after it matches again), one with a tick row missing and one with a corrupted checkpoint
// (damaged), a divergence before damage (diverged), and the test hook that flips a recorded hash
// (damaged, at that tick). The browser tests do the same in the
// page itself; this one runs in Node, in seconds.
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadSim } from "../../clients/web/sim.js";
import { RecordingVerifier, readSessions } from "../../clients/web/replay.js";
import { connect } from "./tcp.mjs";
import { ROOT, VIV, haveBinaries, replayVerify, startVivd } from "./vivd.mjs";

const WASM = path.join(process.env.VIV_BIN ? path.resolve(process.env.VIV_BIN) : path.join(ROOT, "bin"), "vivarium.wasm");
const skip = haveBinaries() && fs.existsSync(WASM) ? false : "bin/vivd, bin/viv and bin/vivarium.wasm are not built (make -j2 all)";

let srv = null, conn = null, sim = null, kinds = [];
const sql = (db, q) => execFileSync("sqlite3", [db, q], { encoding: "utf8" }).trim();

/* Verify session of file through vivd, as the page does: every message goes to the verifier. */
async function verify(session, file, opts = {}) {
    const v = new RecordingVerifier(sim, { session, file, ...opts });
    conn.send(v.request());
    const pump = (async () => {
        while (!v.done()) v.feed((await conn.next(() => true, 60000)).msg);
    })();
    const r = await v.run();
    await pump;
    return r;
}

before(async () => {
    if (skip) return;
    sim = await loadSim(fs.readFileSync(WASM));
    kinds = execFileSync(VIV, ["sim", "--list-kinds"], { encoding: "utf8" }).trim().split("\n").map((l) => l.split(/\s+/)[0]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "viv-replay-"));
    /* One recording of every kind (sand with inputs), 700 ticks, in schema 3's rows (a tick row a
     * tick, a checkpoint every 10 s: at 0 and 600 at 60 Hz), which the damaged copies below edit;
     * and the same in schema 4 (blocks of truncated hashes, checkpoints every 60 s as deltas), as
     * vivd and viv sim record now. */
    const inputs = path.join(dir, "in.txt");
    fs.writeFileSync(inputs, "10 paint 100 20 5 sand\n11 paint 110 20 5 water\n300 explode 150 100 10\n");
    for (const k of kinds)
        for (const [file, format] of [["all.db", "3"], ["new.db", "4"]])
            execFileSync(VIV, ["sim", "--world", k, "--seed", "3", "--ticks", "700", "--record", path.join(dir, file),
                               "--record-format", format, ...(k === "sand" ? ["--inputs", inputs] : [])], { stdio: "ignore" });
    /* Copies of the sand session, each damaged one way (sqlite3, as a bad disk or a forger would). */
    const copy = (name, q) => {
        const db = path.join(dir, name);
        fs.copyFileSync(path.join(dir, "all.db"), db);
        sql(db, q);
        return db;
    };
    copy("hash.db", "UPDATE tick SET state_hash = (state_hash | 1) - (state_hash & 1) WHERE session = 1 AND tick = 321");
    copy("row.db", "DELETE FROM tick WHERE session = 1 AND tick = 450");
    copy("cp.db", "UPDATE checkpoint SET state_hash = state_hash + 1 WHERE session = 1 AND tick = 600");
    copy("both.db", "UPDATE tick SET state_hash = (state_hash | 1) - (state_hash & 1) WHERE session = 1 AND tick = 200; " +
                    "UPDATE checkpoint SET state_hash = state_hash + 1 WHERE session = 1 AND tick = 600");
    /* Damage at a session's very last tick, where a checkpoint is (as vivd's suspend leaves one):
     * the session cut at the checkpoint at 600, then the recorded state hash of tick 600 changed.
     * Nothing follows it to confirm the replay with but that checkpoint. */
    copy("last.db", "UPDATE session SET end_tick = 600 WHERE id = 1; " +
                    "DELETE FROM tick WHERE session = 1 AND tick > 600; DELETE FROM input WHERE session = 1 AND tick >= 600; " +
                    "UPDATE tick SET state_hash = (state_hash | 1) - (state_hash & 1) WHERE session = 1 AND tick = 600");
    /* A gap, as a disk that filled would leave it: ticks 501..599 not recorded, the replay
     * restarts from the checkpoint at 600. */
    copy("gap.db", "INSERT INTO gap VALUES (1, 500, 600, 'the disk was full'); " +
                   "DELETE FROM tick WHERE session = 1 AND tick > 500 AND tick < 600; " +
                   "DELETE FROM input WHERE session = 1 AND tick >= 500 AND tick < 600");
    /* sand as the first build with the strip passes recorded it (tests/compat/sand-17.db): its
     * states saved as sand state version 2, hashed by their bytes before issue 30's chunk digests */
    fs.copyFileSync(path.join(ROOT, "tests", "compat", "sand-17.db"), path.join(dir, "sand17.db"));
    const plays = kinds.map((_, i) => `all.db:${i + 1}`).concat(["hash.db:1", "row.db:1", "cp.db:1", "both.db:1", "gap.db:1", "last.db:1"],
                                                                kinds.map((_, i) => `new.db:${i + 1}`), ["sand17.db:1"]);
    srv = await startVivd(plays.flatMap((p) => ["--play", p]), { dir });
    conn = await connect("127.0.0.1", srv.port);
    conn.send({ t: "hello", v: 1, name: "replay-test" });
    await conn.next((m) => m.t === "welcome");
});

after(async () => {
    conn?.close();
    if (srv) await srv.stop();
});

test("sessions lists every file vivd plays, newest session first", { skip }, async () => {
    conn.send({ t: "sessions" });
    const files = readSessions((await conn.next((m) => m.t === "sessions")).msg);
    assert.deepEqual(files.map((f) => f.file), ["all.db", "hash.db", "row.db", "cp.db", "both.db", "gap.db", "last.db", "new.db", "sand17.db"]);
    const all = files[0];
    assert.equal(all.recording, false);
    assert.equal(all.total, kinds.length);
    assert.deepEqual(all.sessions.map((s) => s.kind), [...kinds].reverse());
    assert.ok(all.sessions.every((s) => s.status === "closed" && s.end === 700 && s.seed === "3"));
});

test("every kind: the page's replay in wasm gets viv replay verify's verdict and tick count", { skip }, async () => {
    for (let i = 0; i < kinds.length; i++) {
        const want = replayVerify(path.join(srv.dir, "all.db"), i + 1);
        const got = await verify(i + 1, "all.db");
        assert.equal(want.verdict, "bit-exact", want.out);
        assert.equal(got.verdict, want.verdict, `${kinds[i]}: ${got.message}`);
        assert.equal(got.ticks, want.ticks, kinds[i]);
        assert.equal(got.kind, kinds[i]);
    }
});

test("a sand recording of state version 2 (before the chunk digests) verifies in wasm as viv replay verify says", { skip }, async () => {
    const want = replayVerify(path.join(srv.dir, "sand17.db"), 1);
    const got = await verify(1, "sand17.db");
    assert.equal(want.verdict, "bit-exact", want.out);
    assert.equal(got.verdict, "bit-exact", got.message);
    assert.equal(got.ticks, want.ticks);
    assert.equal(got.ticks, 1500);
});

test("schema 4 (hashes in blocks, delta checkpoints): every kind verifies in wasm as viv replay verify says, and a divergence is named at its tick", { skip }, async () => {
    for (let i = 0; i < kinds.length; i++) {
        const want = replayVerify(path.join(srv.dir, "new.db"), i + 1);
        const got = await verify(i + 1, "new.db");
        assert.equal(want.verdict, "bit-exact", want.out);
        assert.equal(got.verdict, "bit-exact", `${kinds[i]}: ${got.message}`);
        assert.equal(got.ticks, want.ticks, kinds[i]);
        assert.equal(got.ticks, 700, kinds[i]);
    }
    /* the flip hook changes bit 0 of the recorded state hash of a tick in the middle of a block
     * (of which the file keeps the low 8 bits): reported at that tick, with the kept digits */
    const got = await verify(1, "new.db", { flip: 77 });
    assert.equal(got.verdict, "damaged", got.message);
    assert.match(got.message, /^one recorded hash is wrong: tick 77, its recorded state hash: recorded \.{14}[0-9a-f]{2}, replayed [0-9a-f]{16}/);
});

test("a recorded state hash changed in the file: both say damaged, naming that tick's state_hash", { skip }, async () => {
    const want = replayVerify(path.join(srv.dir, "hash.db"), 1), got = await verify(1, "hash.db");
    assert.equal(want.verdict, "damaged", want.out);
    assert.match(want.out, /tick 321, its recorded state hash/);
    assert.equal(got.verdict, "damaged", got.message);
    assert.match(got.message, /tick 321, its recorded state hash: recorded ([0-9a-f]{16}), replayed ([0-9a-f]{16})/);
    const [, rec, rep] = /recorded ([0-9a-f]{16}), replayed ([0-9a-f]{16})/.exec(got.message);
    assert.equal(BigInt(`0x${rec}`) ^ BigInt(`0x${rep}`), 1n, "the one bit that was changed");
    assert.doesNotMatch(got.message, /frame hash/, "the frame hash was not touched");
});

test("a missing tick row and a corrupted checkpoint: both say damaged; a divergence before the damage wins", { skip }, async () => {
    for (const [db, verdict] of [["row.db", "damaged"], ["cp.db", "damaged"], ["both.db", "diverged"]]) {
        const want = replayVerify(path.join(srv.dir, db), 1), got = await verify(1, db);
        assert.equal(want.verdict, verdict, `${db}: ${want.out}`);
        assert.equal(got.verdict, verdict, `${db}: ${got.message}`);
        if (verdict === "diverged") assert.equal(got.divergedAt, want.divergedAt);
    }
    const row = await verify(1, "row.db");
    assert.match(row.message, /recorded hashes of tick 450 are missing/);
    assert.equal(row.ticks, 449, "every tick before the missing row was checked");
});

test("a recorded hash changed at the session's last tick, where a checkpoint holds the replayed state: both say damaged", { skip }, async () => {
    const want = replayVerify(path.join(srv.dir, "last.db"), 1), got = await verify(1, "last.db");
    assert.equal(want.verdict, "damaged", want.out);
    assert.match(want.out, /the checkpoint recorded at tick 600 holds exactly the replayed state/);
    assert.equal(got.verdict, "damaged", got.message);
    assert.match(got.message, /tick 600, its recorded state hash: recorded ([0-9a-f]{16}), replayed ([0-9a-f]{16})/);
    assert.match(got.message, /the checkpoint recorded at tick 600 holds exactly the replayed state/);
    assert.equal(got.ticks, 599, "every tick before it was checked");
});

test("a gap: both replay around it, say which ticks were not verified, and count the same ticks", { skip }, async () => {
    const want = replayVerify(path.join(srv.dir, "gap.db"), 1), got = await verify(1, "gap.db");
    assert.equal(want.verdict, "bit-exact", want.out);
    assert.match(want.out, /NOT VERIFIED: ticks \[500, 600\) \(100 ticks\) were not recorded \(the disk was full\)/);
    assert.equal(got.verdict, "bit-exact", got.message);
    assert.equal(got.ticks, want.ticks);
    assert.equal(got.ticks, 600);
    assert.deepEqual(got.skipped, [{ from: 500, to: 600, reason: "the disk was full" }]);
});

test("the test hook flips one recorded hash: that tick is reported; a bad session or file is an error", { skip }, async () => {
    const got = await verify(1, "all.db", { flip: 77 });
    assert.equal(got.verdict, "damaged", got.message);
    assert.match(got.message, /^one recorded hash is wrong: tick 77, its recorded state hash/);
    const none = await verify(99, "all.db");
    assert.equal(none.verdict, "error");
    assert.match(none.message, /^unknown_session: session 99 not found in all\.db/);
    const nofile = await verify(1, "/etc/passwd");
    assert.equal(nofile.verdict, "error");
    assert.match(nofile.message, /^unknown_file: /);
});
