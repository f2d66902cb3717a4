// frame.test.mjs — a subscription's picture (clients/web/frame.js): keyframes, deltas, the
// palette carried by version, and what happens to frames that cannot be applied.
import test from "node:test";
import assert from "node:assert/strict";
import { FrameError, FrameStream } from "../../clients/web/frame.js";
import { frames } from "./corpus.mjs";
import { rawFrame } from "./fakes.mjs";

test("every recorded stream applies in order, each frame matching its hash", () => {
    for (const name of ["sand.msgs", "terrarium-xray-every3.msgs", "cycle.msgs", "merge.msgs", "small-tile.zst.msgs", "play.msgs"]) {
        const fs = new FrameStream();
        let last = -1;
        for (const m of frames(name)) {
            const r = fs.apply(m);
            assert.ok(r.hashOk, `${name} tick ${m.tick}`);
            assert.equal(r.tick, Number(m.tick));
            if (name.includes("every3") && last >= 0) assert.equal(r.tick - last, 3, "every 3 ticks");
            last = r.tick;
        }
    }
});

test("a delta before any keyframe is refused as nokey, and the keyframe then applies", () => {
    const list = frames("sand.msgs");
    const fs = new FrameStream();
    assert.throws(() => fs.apply(list[1]), (e) => e instanceof FrameError && e.code === "nokey");
    assert.ok(fs.apply(list[0]).hashOk);
    assert.ok(fs.apply(list[1]).hashOk);
});

test("a delta that skips a frame rebuilds a wrong picture, and the hash says so", () => {
    const list = frames("sand.msgs");
    const fs = new FrameStream();
    fs.apply(list[0]);
    const r = fs.apply(list[2]);
    assert.equal(r.hashOk, false);
});

test("data that does not decode drops the picture until the next keyframe", () => {
    const list = frames("small-tile.msgs");
    const fs = new FrameStream();
    fs.apply(list[0]);
    const broken = { ...list[1], data: list[1].data.subarray(0, list[1].data.length - 1) };
    assert.throws(() => fs.apply(broken), (e) => e.code === "data");
    assert.equal(fs.haveKey, false);
    assert.throws(() => fs.apply(list[2]), (e) => e.code === "nokey");
    assert.ok(fs.apply(list[0]).hashOk);
});

test("malformed frame messages are refused with a reason", () => {
    const k = frames("small-raw.msgs")[0];
    const fs = new FrameStream();
    const bad = [
        [{ ...k, pal: undefined }, /without its palette/],
        [{ ...k, pal: new Uint8Array(4) }, /multiple of 3/],
        [{ ...k, pal: new Uint8Array(771) }, /3..768/],
        [{ ...k, w: 0 }, /out of range/],
        [{ ...k, h: 5000 }, /out of range/],
        [{ ...k, data: "x" }, /mistyped/],
        [{ ...k, fh: -1 }, /mistyped/],
        [{ ...k, key: 1 }, /mistyped/],
    ];
    for (const [m, re] of bad) assert.throws(() => fs.apply(m), (e) => e instanceof FrameError && e.code === "proto" && re.test(e.message), String(re));
    assert.ok(fs.apply(k).hashOk);
});

test("a frame of another size needs a keyframe; the buffer follows the size", () => {
    const small = frames("small-raw.msgs")[0], big = frames("sand.msgs");
    const fs = new FrameStream();
    fs.apply(small);
    assert.equal(fs.px.length, 61 * 37);
    assert.throws(() => fs.apply(big[1]), (e) => e.code === "nokey");
    fs.apply(big[0]);
    assert.equal(fs.px.length, 320 * 180);
    assert.equal(fs.pal.length, 3 * fs.count);
});

test("a rect's frames: the rect is kept with the picture; a delta of another rect, or a rect smaller than its frame, is refused", () => {
    const fs = new FrameStream();
    assert.ok(fs.apply(rawFrame([64, 0, 128, 64], 128, 64)).hashOk);
    assert.deepEqual(fs.rect, [64, 0, 128, 64]);
    assert.ok(fs.apply(rawFrame([64, 0, 128, 64], 128, 64, { key: false, seed: 1, tick: 2 })).hashOk, "a delta of the same rect");
    assert.throws(() => fs.apply(rawFrame([0, 0, 128, 64], 128, 64, { key: false, tick: 3 })), (e) => e.code === "proto" && /rect/.test(e.message));
    assert.throws(() => fs.apply(rawFrame(undefined, 128, 64, { key: false, tick: 3 })), (e) => e.code === "proto", "a whole delta after a rect's keyframe");
    assert.throws(() => fs.apply(rawFrame([0, 0, 64, 64], 128, 64)), (e) => e.code === "proto" && /128x64 frame of the rect/.test(e.message));
    assert.throws(() => fs.apply(rawFrame([0, 0, 128, 64, 1], 128, 64)), (e) => e.code === "proto");
    assert.ok(fs.apply(rawFrame([0, 0, 256, 128], 128, 64)).hashOk, "a div 2 keyframe of a larger rect");
    assert.deepEqual(fs.rect, [0, 0, 256, 128]);
    assert.ok(fs.apply(rawFrame(undefined, 128, 64)).hashOk, "a keyframe of the whole world");
    assert.equal(fs.rect, null);
});
