// codec.test.mjs — the tile decoder (clients/web/codec.js) against docs/PROTOCOL.md: its worked
// examples, every malformed form the C decoder refuses, tiles of every mode and edge size made
// by a reference encoder here, and the recorded raw, tile and tile.zst streams of a real vivd.
import test from "node:test";
import assert from "node:assert/strict";
import { CodecError, FrameDecoder, decodeTile, tileBound, zstdContentSize } from "../../clients/web/codec.js";
import { FrameStream } from "../../clients/web/frame.js";
import { frames } from "./corpus.mjs";

const hex = (s) => Uint8Array.from(s.trim().split(/\s+/), (x) => parseInt(x, 16));

test("the worked examples of docs/PROTOCOL.md decode to their frames", () => {
    let px = new Uint8Array(256);
    decodeTile(hex("02 00 07"), px, 16, 16, true);
    assert.ok(px.every((p) => p === 7), "16x16 keyframe of index 7");

    px = new Uint8Array(6);
    decodeTile(hex("02 01 02 05 06 20 80"), px, 3, 2, true);
    assert.deepEqual([...px], [5, 5, 6, 6, 5, 5], "3x2 PACKED, rows padded");

    px = new Uint8Array(256);
    decodeTile(hex("02 02 01 80 01 02 80 01"), px, 16, 16, true);
    assert.ok(px.subarray(0, 128).every((p) => p === 1) && px.subarray(128).every((p) => p === 2), "RLE, two runs of 128");

    px = new Uint8Array(512).fill(4);
    decodeTile(hex("01 02 00 09"), px, 32, 16, false);
    for (let y = 0; y < 16; y++)
        for (let x = 0; x < 32; x++) assert.equal(px[y * 32 + x], x < 16 ? 4 : 9, `pixel ${x},${y}`);
});

test("malformed tile data is refused, as wire/codec.c refuses it", () => {
    const bad = [
        ["", 16, 16, true, "empty"],
        ["01 00", 16, 16, true, "a keyframe needs header 2"],
        ["00", 16, 16, true, "NONE in a keyframe"],
        ["00 00", 16, 16, false, "NONE with bytes after it"],
        ["03", 16, 16, false, "header 3"],
        ["01", 32, 16, false, "bitmap cut short"],
        ["01 04 00 01", 32, 16, false, "bitmap bit past the last tile (2 tiles)"],
        ["02 00", 16, 16, true, "SOLID without its index"],
        ["02 00 07 00", 16, 16, true, "a byte after the last tile"],
        ["02 04 00", 16, 16, true, "tile mode 4"],
        ["02 01 01 05", 16, 16, true, "PACKED n = 1"],
        ["02 01 11 " + "00 ".repeat(17 + 128), 16, 16, true, "PACKED n = 17"],
        ["02 01 02 05 06 20", 3, 2, true, "PACKED rows cut short"],
        ["02 01 03 01 02 03 c0", 1, 1, true, "PACKED local index 3 with n = 3"],
        ["02 01 05 01 02 03 04 05 50", 1, 1, true, "PACKED local index 5 with n = 5"],
        ["02 02 01 00", 1, 1, true, "RLE run of 0"],
        ["02 02 01 02", 1, 1, true, "RLE run past the tile"],
        ["02 02 01", 1, 1, true, "RLE pair cut short"],
        ["02 02 01 80 80 80 80 80 01", 1, 1, true, "a 6-byte varint"],
        ["02 02 01 80", 1, 1, true, "a varint cut short"],
        ["02 03 01 02 03", 2, 2, true, "RAW cut short"],
    ];
    for (const [h, w, ht, key, what] of bad) {
        const px = new Uint8Array(w * ht);
        assert.throws(() => decodeTile(h ? hex(h) : new Uint8Array(0), px, w, ht, key),
                      (e) => e instanceof CodecError && e.code === "edata", what);
    }
    assert.throws(() => decodeTile(hex("02 00 07"), new Uint8Array(1), 0, 1, true), (e) => e.code === "esize");
    assert.throws(() => decodeTile(hex("02 00 07"), new Uint8Array(4097), 4097, 1, true), (e) => e.code === "esize");
    /* two runs that cover a tile exactly; a padded varint (0x81 0x00 is 1) */
    const p1 = new Uint8Array(2);
    decodeTile(hex("02 02 01 01 02 01"), p1, 2, 1, true);
    assert.deepEqual([...p1], [1, 2]);
    const px = new Uint8Array(1);
    decodeTile(hex("02 02 09 81 00"), px, 1, 1, true);
    assert.equal(px[0], 9);
    /* the unused low bits of a PACKED row are ignored */
    const p2 = new Uint8Array(3);
    decodeTile(hex("02 01 02 05 06 3f"), p2, 3, 1, true);
    assert.deepEqual([...p2], [5, 5, 6]);
});

/* ---- a reference encoder: every tile in the mode asked for ----------------------------------- */
function tilePixels(px, w, x0, y0, tw, th) {
    const out = [];
    for (let y = 0; y < th; y++) for (let x = 0; x < tw; x++) out.push(px[(y0 + y) * w + x0 + x]);
    return out;
}

function encodeTileAs(mode, p, tw, th) {
    if (mode === 0) return [0, p[0]];
    if (mode === 1) {
        const pal = [...new Set(p)];
        const n = pal.length, b = n === 2 ? 1 : n <= 4 ? 2 : 4;
        const out = [1, n, ...pal];
        for (let y = 0; y < th; y++) {
            const row = new Array(Math.ceil(tw * b / 8)).fill(0);
            for (let x = 0; x < tw; x++) {
                const k = pal.indexOf(p[y * tw + x]), bit = x * b;
                row[bit >> 3] |= k << (8 - b - (bit & 7));
            }
            out.push(...row);
        }
        return out;
    }
    if (mode === 2) {
        const out = [2];
        for (let i = 0; i < p.length;) {
            let j = i;
            while (j < p.length && p[j] === p[i]) j++;
            out.push(p[i]);
            for (let v = j - i; ; v >>= 7) {
                if (v > 127) out.push((v & 127) | 128);
                else { out.push(v); break; }
            }
            i = j;
        }
        return out;
    }
    return [3, ...p];
}

function encode(px, w, h, prev, modeOf) {
    const tilesx = Math.ceil(w / 16), tilesy = Math.ceil(h / 16), nt = tilesx * tilesy;
    const payload = [], present = new Array(nt).fill(!prev);
    for (let ty = 0, i = 0; ty < tilesy; ty++)
        for (let tx = 0; tx < tilesx; tx++, i++) {
            const tw = Math.min(16, w - 16 * tx), th = Math.min(16, h - 16 * ty);
            const p = tilePixels(px, w, 16 * tx, 16 * ty, tw, th);
            if (prev && p.join() === tilePixels(prev, w, 16 * tx, 16 * ty, tw, th).join()) continue;
            present[i] = true;
            const distinct = new Set(p).size;
            let mode = modeOf(i);
            if (mode === 0 && distinct > 1) mode = 3;
            if (mode === 1 && (distinct < 2 || distinct > 16)) mode = 3;
            payload.push(...encodeTileAs(mode, p, tw, th));
        }
    if (!prev) return Uint8Array.from([2, ...payload]);
    if (!present.includes(true)) return Uint8Array.from([0]);
    const bm = new Array(Math.ceil(nt / 8)).fill(0);
    present.forEach((on, i) => { if (on) bm[i >> 3] |= 1 << (i & 7); });
    return Uint8Array.from([1, ...bm, ...payload]);
}

/* A deterministic generator of pictures with few colours per area (so every mode applies). */
function picture(w, h, seed, colours) {
    let s = seed >>> 0;
    const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 16;
    const px = new Uint8Array(w * h);
    for (let i = 0; i < px.length; i++) px[i] = rnd() % 7 === 0 ? rnd() % colours : i > 0 ? px[i - 1] : 0;
    return px;
}

test("tiles of every mode and every edge size decode to the frame they encode", () => {
    for (const [w, h] of [[1, 1], [3, 2], [15, 17], [16, 16], [17, 33], [61, 37], [320, 180], [7, 100]]) {
        for (const colours of [2, 3, 4, 5, 16, 40, 256]) {
            for (let mode = 0; mode < 4; mode++) {
                const cur = picture(w, h, w * 31 + h + colours + mode, colours);
                const px = new Uint8Array(w * h).fill(255);
                decodeTile(encode(cur, w, h, null, () => mode), px, w, h, true);
                assert.deepEqual(px, cur, `keyframe ${w}x${h}, ${colours} colours, mode ${mode}`);
                /* a delta: a few pixels change, the tiles that hold them are sent */
                const next = cur.slice();
                for (let k = 0; k < 5; k++) next[(k * 7919 + mode * 13) % next.length] ^= 1;
                decodeTile(encode(next, w, h, cur, (i) => (i + mode) % 4), px, w, h, false);
                assert.deepEqual(px, next, `delta ${w}x${h}, ${colours} colours, mode ${mode}`);
            }
        }
    }
});

test("tileBound is codec_bound: 1 + ceil(ntiles/8) + ntiles + w*h", () => {
    assert.equal(tileBound(320, 180), 1 + 30 + 240 + 57600);
    assert.equal(tileBound(1, 1), 1 + 1 + 1 + 1);
    assert.equal(tileBound(0, 5), 0);
});

test("zstdContentSize reads the frame header's content size, and refuses what is not a frame", () => {
    assert.equal(zstdContentSize(hex("28 b5 2f fd 20 05 29 00 00")), 5);         /* single segment, 1 byte */
    assert.equal(zstdContentSize(hex("28 b5 2f fd 60 cc 14 25")), 0x14cc + 256);  /* 2 bytes, +256 */
    assert.equal(zstdContentSize(hex("28 b5 2f fd 00 58")), -1);                 /* no content size */
    assert.equal(zstdContentSize(hex("02 00 07")), -1);
});

test("the recorded raw, tile and tile.zst streams rebuild every frame with its hash", () => {
    const names = ["small-raw.msgs", "small-tile.msgs", "small-tile.zst.msgs", "sand.msgs", "merge.msgs",
                   "cycle.msgs", "terrarium-xray-every3.msgs", "play.msgs"];
    const encs = new Set();
    for (const name of names) {
        const fs = new FrameStream();
        const list = frames(name);
        assert.ok(list.length >= 5, `${name} has frames`);
        for (const m of list) {
            const r = fs.apply(m);
            encs.add(m.enc);
            assert.ok(r.hashOk, `${name}: tick ${m.tick} rebuilt with hash ${fs.hash.toString(16)}, sent ${fs.fh.toString(16)}`);
        }
    }
    assert.deepEqual([...encs].sort(), ["raw", "tile", "tile.zst"]);
});

test("tile.zst data that is not one sized zstd frame of tile data is refused", () => {
    const m = frames("small-tile.zst.msgs")[0];
    const d = new FrameDecoder(), px = new Uint8Array(m.w * m.h);
    d.apply("tile.zst", m.data, px, m.w, m.h, true);
    assert.throws(() => d.apply("tile.zst", m.data.subarray(0, m.data.length - 3), px, m.w, m.h, true), CodecError);
    assert.throws(() => d.apply("tile.zst", hex("02 00 07"), px, m.w, m.h, true), (e) => e.code === "zstd");
    /* a frame that says it is larger than any tile data of the size */
    assert.throws(() => d.apply("tile.zst", m.data, new Uint8Array(1), 1, 1, true), (e) => e.code === "zstd");
    assert.throws(() => d.apply("rle", m.data, px, m.w, m.h, true), CodecError);
    assert.throws(() => d.apply("raw", new Uint8Array(3), px, m.w, m.h, true), CodecError);
});
