// record.mjs — record the corpus of tests/web/fixtures/ from real vivd servers over TCP:
//
//   make -j2 all && node tests/web/record.mjs [OUTDIR]      (default tests/web/fixtures)
//
// It starts bin/vivd itself (the demo set, --no-record, a free port), watches each world in the
// ways the page does while it sends the inputs a player would, and writes each stream as a
// .msgs file: every message the server sent on it, in order, each as its 4-byte big-endian
// length and body (the TCP framing). Then it records a vivd --play session: a short recording of
// a small sand world is made first, then played, paused, stepped and sought.
// The streams are live, so a new recording differs from the last; tests check them against
// their own frame hashes, not against fixed bytes.
import fs from "node:fs";
import path from "node:path";
import { connect, frameBodies } from "./tcp.mjs";
import { ADMIN, PLAYER, ROOT, VIVD, startVivd } from "./vivd.mjs";

const out = path.resolve(process.argv[2] || path.join(ROOT, "tests/web/fixtures"));

if (!fs.existsSync(VIVD)) {
    console.error(`record.mjs: ${VIVD} is missing: build it first (make -j2 all)`);
    process.exit(1);
}
const vivd = (args, opts) => startVivd(args, opts);

async function session(port, token) {
    const c = await connect("127.0.0.1", port);
    c.send({ t: "hello", v: 1, name: "record", token });
    const w = await c.next((m) => m.t === "welcome");
    return { c, welcome: w };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let written = 0;
function save(name, bodies) {
    const b = frameBodies(bodies);
    fs.writeFileSync(path.join(out, name), b);
    written += b.length;
    console.log(`${name}: ${bodies.length} messages, ${b.length} bytes`);
}

/* Subscribe, then keep n frames of the world (and every message between them), calling
 * during(i) after frame i to send inputs. */
async function stream(c, sub, n, during = async () => {}) {
    c.send({ t: "sub", ...sub });
    const bodies = [];
    let frames = 0;
    while (frames < n) {
        const m = await c.next((x) => x.t !== "frame" || x.world === sub.world, 10000);
        bodies.push(m.body);
        if (m.msg.t === "frame") await during(frames++);
    }
    c.send({ t: "unsub", world: sub.world });
    await c.next((x) => x.t === "error" && x.code === "not_subscribed", 300).catch(() => {});
    await sleep(100);
    return bodies;
}

fs.mkdirSync(out, { recursive: true });
{
    const srv = await vivd(["--no-record"]);
    const { c, welcome } = await session(srv.port, PLAYER);
    save("welcome.msgs", [welcome.body]);
    const ids = Object.fromEntries(welcome.msg.worlds.map((w) => [w.kind, Number(w.id)]));
    let seq = 0;
    /* sand: sand painted along a stroke, then a little water: deltas with new grains */
    save("sand.msgs", await stream(c, { world: ids.sand }, 6, async (i) => {
        c.send({ t: "input", world: ids.sand, seq: ++seq, kind: "paint", args: [100 + 12 * i, 40, 6, 3] });
        if (i === 3) c.send({ t: "input", world: ids.sand, seq: ++seq, kind: "paint", args: [200, 30, 8, 4] });
    }));
    /* terrarium: the x-ray view at 13 fps (every 3) while a creature is grabbed and dragged */
    save("terrarium-xray-every3.msgs", await stream(c, { world: ids.terrarium, view: "xray", every: 3 }, 8, async (i) => {
        const kind = i === 0 ? "grab" : i === 7 ? "release" : "drag";
        const args = kind === "release" ? [] : [160 + 6 * i, 90 - 4 * i];
        c.send({ t: "input", world: ids.terrarium, seq: ++seq, kind, args });
    }));
    /* cycle: palette-only frames (tile data "no change") */
    save("cycle.msgs", await stream(c, { world: ids.cycle }, 6));
    /* merge: the autopilot's fruit, and a drop of ours */
    save("merge.msgs", await stream(c, { world: ids.merge }, 8, async (i) => {
        if (i === 1) c.send({ t: "input", world: ids.merge, seq: ++seq, kind: "drop", args: [-1] });
    }));
    /* garden: a poke on the pond, the butterfly led by a drag, a gust */
    save("garden.msgs", await stream(c, { world: ids.garden }, 8, async (i) => {
        if (i === 1) c.send({ t: "input", world: ids.garden, seq: ++seq, kind: "poke", args: [230, 160] });
        if (i >= 2 && i <= 4) c.send({ t: "input", world: ids.garden, seq: ++seq, kind: "target", args: [150 + 10 * i, 100] });
        if (i === 5) c.send({ t: "input", world: ids.garden, seq: ++seq, kind: "wind", args: [60] });
    }));
    c.close();

    /* A small world whose size is not a multiple of 16: edge tiles of every width, and raw. */
    const admin = await session(srv.port, ADMIN);
    admin.c.send({ t: "create", kind: "sand", seed: 3, params: "w=61,h=37,scene=demo" });
    const created = await admin.c.next((m) => m.t === "created");
    const small = Number(created.msg.world.id);
    save("small-created.msgs", [created.body]);
    for (const enc of ["raw", "tile", "tile.zst"])
        save(`small-${enc}.msgs`, await stream(admin.c, { world: small, enc }, enc === "raw" ? 5 : 10, async (i) => {
            if (i % 3 === 0) admin.c.send({ t: "input", world: small, seq: ++seq, kind: "paint", args: [10 + 5 * i, 5, 3, 3 + (i % 4)] });
        }));
    admin.c.close();
    await srv.stop();
}

/* A recording: 3 s of a small sand world, then played back. */
{
    const rec = await vivd(["--db", "rec.db", "--world", "sand:seed=5:w=48,h=32,scene=demo"], { keep: true });
    await sleep(3000);
    await rec.stop();
    const srv = await vivd(["--play", path.join(rec.dir, "rec.db") + ":1"], { dir: rec.dir });
    const { c, welcome } = await session(srv.port, PLAYER);
    const w = welcome.msg.worlds[0], id = Number(w.id), start = Number(w.play.start);
    const bodies = [welcome.body];
    /* every message up to and including the first that pred accepts */
    const keep = async (pred, ms = 5000) => {
        for (;;) {
            const m = await c.next(() => true, ms);
            bodies.push(m.body);
            if (pred(m.msg)) return m;
        }
    };
    c.send({ t: "sub", world: id });
    await keep((m) => m.t === "frame");                                   /* paused at the start */
    c.send({ t: "play", world: id, op: "step" });
    await keep((m) => m.t === "frame");
    c.send({ t: "play", world: id, op: "speed", speed: 200 });
    await keep((m) => m.t === "playing");
    c.send({ t: "play", world: id, op: "resume" });
    await keep((m) => m.t === "playing");
    for (let i = 0; i < 5; i++) await keep((m) => m.t === "frame");
    c.send({ t: "play", world: id, op: "pause" });
    await keep((m) => m.t === "playing");
    c.send({ t: "play", world: id, op: "seek", tick: start + 100 });
    await keep((m) => m.t === "frame" && m.key === true);                 /* the keyframe of the new position */
    await keep((m) => m.t === "playing");
    c.send({ t: "play", world: id, op: "step" });
    await keep((m) => m.t === "frame");
    save("play.msgs", bodies);
    c.close();
    await srv.stop();
}
console.log(`record.mjs: ${written} bytes in ${out}`);
