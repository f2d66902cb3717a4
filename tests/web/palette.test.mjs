// palette.test.mjs — the palette look-up table (clients/web/palette.js).
import test from "node:test";
import assert from "node:assert/strict";
import { LITTLE_ENDIAN, MISSING, buildLut, paint, rgba } from "../../clients/web/palette.js";
import { FrameStream } from "../../clients/web/frame.js";
import { frames } from "./corpus.mjs";

test("an entry is R, G, B, 255 in ImageData's byte order", () => {
    const lut = buildLut(Uint8Array.from([10, 20, 30, 255, 0, 128]), 2);
    const bytes = new Uint8Array(lut.buffer);
    assert.deepEqual([...bytes.subarray(0, 8)], [10, 20, 30, 255, 255, 0, 128, 255]);
    assert.equal(lut[0], rgba(10, 20, 30));
    assert.equal(LITTLE_ENDIAN, true, "every platform this runs on");
});

test("entries past the palette are opaque black, and a shorter palette clears old entries", () => {
    const lut = buildLut(new Uint8Array(768).fill(200), 256);
    buildLut(Uint8Array.from([1, 2, 3]), 1, lut);
    assert.equal(lut[0], rgba(1, 2, 3));
    for (let i = 1; i < 256; i++) assert.equal(lut[i], MISSING);
    assert.deepEqual([...new Uint8Array(Uint32Array.of(MISSING).buffer)], [0, 0, 0, 255]);
});

test("paint maps every pixel through the table; a palette-only frame repaints from the same pixels", () => {
    const list = frames("cycle.msgs");
    const fs = new FrameStream();
    const out = new Uint32Array(list[0].w * list[0].h);
    fs.apply(list[0]);
    const px0 = fs.px.slice();
    let lut = buildLut(fs.pal, fs.count);
    paint(fs.px, lut, out);
    for (let i = 0; i < out.length; i += 997) assert.equal(out[i], lut[fs.px[i]]);
    const r = fs.apply(list[1]);
    assert.equal(r.pixels, false, "the cycle world's deltas change only the palette");
    assert.equal(r.palette, true);
    assert.deepEqual(fs.px, px0, "no pixel moved");
    const before = out.slice();
    lut = buildLut(fs.pal, fs.count);
    paint(fs.px, lut, out);
    assert.notDeepEqual(out, before, "the colours cycled");
    const bytes = new Uint8Array(out.buffer), pal = fs.pal;
    for (let i = 0; i < fs.px.length; i += 1013) {
        const k = fs.px[i];
        assert.deepEqual([...bytes.subarray(4 * i, 4 * i + 4)], [pal[3 * k], pal[3 * k + 1], pal[3 * k + 2], 255]);
    }
});
