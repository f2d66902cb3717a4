// snap.js — the picture as a file: an indexed PNG of one frame (its own palette, no quantising,
// zlib by the browser's CompressionStream) and an animated GIF89a of frames kept in memory, with
// a small LZW encoder. No DOM: tests/browser/small.test.mjs decodes what the page downloads.

const CRC = new Uint32Array(256).map((_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
});
function crc32(bytes) {
    let c = 0xffffffff;
    for (const b of bytes) c = CRC[(c ^ b) & 255] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
}

async function deflate(bytes) {
    const s = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate"));
    return new Uint8Array(await new Response(s).arrayBuffer());
}

/* One frame {w, h, pal (3·count bytes), count, px (w·h indexes)} → the bytes of an indexed PNG. */
export async function encodePng({ w, h, pal, count, px }) {
    const raw = new Uint8Array((w + 1) * h);
    for (let y = 0; y < h; y++) raw.set(px.subarray(y * w, y * w + w), y * (w + 1) + 1);   /* filter 0 */
    const chunks = [];
    const chunk = (type, data) => {
        const out = new Uint8Array(12 + data.length), dv = new DataView(out.buffer);
        dv.setUint32(0, data.length);
        for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
        out.set(data, 8);
        dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
        chunks.push(out);
    };
    const ihdr = new Uint8Array(13), dv = new DataView(ihdr.buffer);
    dv.setUint32(0, w);
    dv.setUint32(4, h);
    ihdr.set([8, 3, 0, 0, 0], 8);                 /* 8 bits, indexed */
    chunk("IHDR", ihdr);
    chunk("PLTE", pal.subarray(0, 3 * Math.max(1, count)));
    chunk("IDAT", await deflate(raw));
    chunk("IEND", new Uint8Array(0));
    return new Uint8Array(await new Blob([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), ...chunks]).arrayBuffer());
}

/* GIF's variable-width LZW of indexes (8-bit code size). */
function lzw(px) {
    const out = [];
    let bits = 0, acc = 0, size = 9, next = 258;
    const CLEAR = 256, END = 257;
    const put = (code) => {
        acc |= code << bits;
        bits += size;
        while (bits >= 8) { out.push(acc & 255); acc >>>= 8; bits -= 8; }
    };
    let dict = new Map();
    put(CLEAR);
    let cur = px[0];
    for (let i = 1; i < px.length; i++) {
        const k = px[i], key = cur * 256 + k, hit = dict.get(key);
        if (hit !== undefined) { cur = hit; continue; }
        put(cur);
        if (next < 4096) {
            dict.set(key, next++);
            if (next > (1 << size) && size < 12) size++;
        } else {
            put(CLEAR);
            dict = new Map();
            size = 9;
            next = 258;
        }
        cur = k;
    }
    put(cur);
    put(END);
    if (bits > 0) out.push(acc & 255);
    return out;
}

/* Frames [{w, h, pal, count, px}] (one size), each shown delayCs hundredths → an animated GIF
 * that loops, each frame with its own palette (a cycling world's palette moves). */
export function encodeGif(frames, delayCs = 2) {
    const w = frames[0].w, h = frames[0].h, out = [];
    const u16 = (v) => out.push(v & 255, v >> 8);
    out.push(...[..."GIF89a"].map((c) => c.charCodeAt(0)));
    u16(w); u16(h); out.push(0, 0, 0);                         /* no global table */
    out.push(0x21, 0xff, 11, ...[..."NETSCAPE2.0"].map((c) => c.charCodeAt(0)), 3, 1, 0, 0, 0);
    for (const f of frames) {
        out.push(0x21, 0xf9, 4, 0, delayCs & 255, delayCs >> 8, 0, 0);
        out.push(0x2c); u16(0); u16(0); u16(w); u16(h);
        out.push(0x87);                                        /* a local table of 256 */
        const table = new Uint8Array(768);
        table.set(f.pal.subarray(0, Math.min(768, 3 * f.count)));
        for (const b of table) out.push(b);
        out.push(8);
        const data = lzw(f.px);
        for (let i = 0; i < data.length; i += 255) {
            const n = Math.min(255, data.length - i);
            out.push(n);
            for (let j = 0; j < n; j++) out.push(data[i + j]);
        }
        out.push(0);
    }
    out.push(0x3b);
    return new Uint8Array(out);
}
