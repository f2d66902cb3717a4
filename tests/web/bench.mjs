// bench.mjs — what the page spends per frame, measured in Node on frames recorded live from a
// running vivd over TCP:
//
//   node tests/web/bench.mjs HOST:PORT [FRAMES] [HASH_WASM_DIST]
//
// For each world of the server it records FRAMES frames (default 600) as tile.zst and as tile,
// then times, after a warm-up: the zstd decompression (fzstd, vendored), the tile decoding, the
// frame hash (hash.js; also hash-wasm's xxhash3 when the path of its dist/xxhash3.umd.min.js is
// given, for comparison), and the palette look-up into an RGBA buffer. The decoding is replayed
// in order from each stream's keyframe, as the page does it.
import { createRequire } from "node:module";
import { connect } from "./tcp.mjs";
import { FrameDecoder } from "../../clients/web/codec.js";
import { decompress } from "../../clients/web/vendor/fzstd.js";
import { FrameStream } from "../../clients/web/frame.js";
import { xxh3 } from "../../clients/web/hash.js";
import { buildLut, paint } from "../../clients/web/palette.js";

const [hostport, framesArg, hashWasm] = process.argv.slice(2);
if (!hostport) {
    console.error("usage: node tests/web/bench.mjs HOST:PORT [FRAMES] [HASH_WASM_DIST]");
    process.exit(2);
}
const [host, port] = hostport.split(":");
const N = +(framesArg || 600);

async function record(c, world, enc) {
    c.send({ t: "sub", world, enc });
    const out = [];
    while (out.length < N) {
        const f = await c.next((m) => m.t === "frame" && m.world === world, 30000);
        out.push(f);
    }
    c.send({ t: "unsub", world });
    return out;
}

/* Best of 5 runs of fn over the stream, in ms per frame. */
function time(frames, fn) {
    let best = Infinity;
    for (let r = 0; r < 6; r++) {
        const t0 = performance.now();
        for (const f of frames) fn(f);
        const t = (performance.now() - t0) / frames.length;
        if (r > 0) best = Math.min(best, t);          /* run 0 warms the JIT */
    }
    return best;
}

const c = await connect(host, +port);
c.send({ t: "hello", v: 1, name: "bench" });
const { msg: welcome } = await c.next((m) => m.t === "welcome");
let wasm = null;
if (hashWasm) {
    const hw = createRequire(import.meta.url)(hashWasm);
    wasm = await hw.createXXHash3();
}
const rows = [];
for (const w of welcome.worlds) {
    const id = Number(w.id), kind = w.kind;
    const zst = await record(c, id, "tile.zst"), tile = await record(c, id, "tile");
    const px = new Uint8Array(w.w * w.h);
    const avg = (fr) => fr.reduce((s, f) => s + f.body.length, 0) / fr.length;
    const zonly = time(zst, (f) => { if (f.msg.enc === "tile.zst") decompress(f.msg.data); });
    const dec = new FrameDecoder();
    const zall = time(zst, (f) => dec.apply(f.msg.enc, f.msg.data, px, w.w, w.h, f.msg.key));
    const tall = time(tile, (f) => dec.apply(f.msg.enc, f.msg.data, px, w.w, w.h, f.msg.key));
    const fs = new FrameStream();
    for (const f of tile) fs.apply(f.msg);
    const buf = fs.buf.subarray(768 - 3 * fs.count);
    const hjs = time(tile, () => xxh3(buf));
    let hw = null;
    if (wasm) hw = time(tile, () => { wasm.init(); wasm.update(buf); wasm.digest("binary"); });
    const lut = buildLut(fs.pal, fs.count), out = new Uint32Array(w.w * w.h);
    const lutMs = time(tile, () => paint(fs.px, lut, out));
    const whole = time(zst, (() => { const s = new FrameStream(); return (f) => s.apply(f.msg); })());
    const nz = zst.filter((f) => f.msg.enc === "tile.zst").length;
    rows.push({ kind, zstKB: avg(zst) / 1e3, tileKB: avg(tile) / 1e3, compressed: `${nz}/${zst.length}`,
                zstd: zonly, zstAll: zall, tileAll: tall, hashJs: hjs, hashWasm: hw, lut: lutMs, applyZst: whole,
                mbps: buf.length / hjs / 1e3 });
}
c.close();
console.log(`${N} frames per stream, ms per frame (best of 5 after a warm-up), node ${process.version}`);
console.log("kind       msg KB zst/tile  compressed  zstd    zst+tile  tile    hash(js) hash(wasm) lut     apply(zst)  hash MB/s");
for (const r of rows)
    console.log(`${r.kind.padEnd(10)} ${r.zstKB.toFixed(2).padStart(6)} / ${r.tileKB.toFixed(2).padEnd(7)} ${r.compressed.padEnd(11)} ` +
        `${r.zstd.toFixed(3)}   ${r.zstAll.toFixed(3)}     ${r.tileAll.toFixed(3)}   ${r.hashJs.toFixed(3)}    ` +
        `${r.hashWasm === null ? "  -  " : r.hashWasm.toFixed(3)}      ${r.lut.toFixed(3)}   ${r.applyZst.toFixed(3)}       ${r.mbps.toFixed(0)}`);
