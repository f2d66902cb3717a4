// pngread.mjs — read the indexed PNGs that `viv sim --png` and `viv replay export --png-dir` write
// (replay/image.c: 8-bit colour type 3, not interlaced): the palette and the palette indexes, so a
// test can hash the frame they hold exactly as docs/PROTOCOL.md defines the frame hash; and the
// RGB(A) PNGs of Chromium's screenshots.
import fs from "node:fs";
import zlib from "node:zlib";

const SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

/* PNG bytes → {w, h, type (colour type), pal (PLTE or null), ch (bytes a pixel), data (w·h·ch,
 * rows unfiltered)}: 8-bit, non-interlaced, colour type 2 (RGB), 3 (indexed) or 6 (RGBA), the
 * kinds these tools and Chromium's screenshots write. */
export function decodePng(b, what = "a PNG") {
    if (b.length < 8 || !b.subarray(0, 8).equals(SIGNATURE)) throw new Error(`${what}: not a PNG`);
    let w = 0, h = 0, type = -1, pal = null;
    const idat = [];
    for (let o = 8; o + 12 <= b.length;) {
        const len = b.readUInt32BE(o), name = b.toString("latin1", o + 4, o + 8), data = b.subarray(o + 8, o + 8 + len);
        if (name === "IHDR") {
            w = data.readUInt32BE(0);
            h = data.readUInt32BE(4);
            type = data[9];
            if (data[8] !== 8 || ![2, 3, 6].includes(type) || data[12] !== 0)
                throw new Error(`${what}: depth ${data[8]}, colour type ${type}, interlace ${data[12]} (8; 2, 3 or 6; 0 expected)`);
        } else if (name === "PLTE") pal = new Uint8Array(data);
        else if (name === "IDAT") idat.push(data);
        else if (name === "IEND") break;
        o += 12 + len;
    }
    if (!w || !idat.length || (type === 3 && !pal)) throw new Error(`${what}: no IHDR, PLTE or IDAT`);
    const ch = type === 2 ? 3 : type === 6 ? 4 : 1, stride = w * ch;
    const raw = zlib.inflateSync(Buffer.concat(idat));
    if (raw.length !== h * (stride + 1)) throw new Error(`${what}: ${raw.length} bytes of rows, ${h * (stride + 1)} expected`);
    /* undo the row filters (PNG spec §9; the left neighbour is one pixel, ch bytes, back) */
    const data = new Uint8Array(h * stride);
    for (let y = 0; y < h; y++) {
        const f = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
        const row = data.subarray(y * stride, (y + 1) * stride), up = y ? data.subarray((y - 1) * stride, y * stride) : new Uint8Array(stride);
        for (let x = 0; x < stride; x++) {
            const a = x >= ch ? row[x - ch] : 0, c = x >= ch ? up[x - ch] : 0, u = up[x];
            let p;
            switch (f) {
            case 0: p = 0; break;
            case 1: p = a; break;
            case 2: p = u; break;
            case 3: p = (a + u) >> 1; break;
            case 4: {
                const e = a + u - c, pa = Math.abs(e - a), pb = Math.abs(e - u), pc = Math.abs(e - c);
                p = pa <= pb && pa <= pc ? a : pb <= pc ? u : c;
                break;
            }
            default: throw new Error(`${what}: row ${y} has filter ${f}`);
            }
            row[x] = (src[x] + p) & 255;
        }
    }
    return { w, h, type, pal, ch, data };
}

/* An indexed PNG file → {w, h, pal (3·n bytes), count n, px (w·h palette indexes)}. */
export function readIndexedPng(file) {
    const p = decodePng(fs.readFileSync(file), file);
    if (p.type !== 3) throw new Error(`${file}: colour type ${p.type}, not indexed`);
    return { w: p.w, h: p.h, pal: p.pal, count: p.pal.length / 3, px: p.data };
}
