// codec.js — the frame data decoders of docs/PROTOCOL.md ("Frame data"): raw, tile and tile.zst.
//
// decodeTile is a port of codec_decode in wire/codec.c: the same checks in the same order, so a
// message the C client refuses is refused here (CodecError "edata"/"esize"), and it never writes
// outside the frame. The C decoder's word-at-a-time PACKED path is written here pixel by pixel;
// it accepts and refuses exactly the same bytes. No DOM: the page and the Node tests share it.
import { decompress } from "./vendor/fzstd.js";

export const TILE = 16;
export const MAX_SIDE = 4096;

const HDR_NONE = 0, HDR_BITMAP = 1, HDR_ALL = 2;
const MODE_SOLID = 0, MODE_PACKED = 1, MODE_RLE = 2, MODE_RAW = 3;
const VARINT_MAX_BYTES = 5;

export class CodecError extends Error {
    /* code: "edata" (malformed data), "esize" (a frame size outside 1..4096) or "zstd". */
    constructor(code, message) {
        super(message);
        this.name = "CodecError";
        this.code = code;
    }
}

export function sizeOk(w, h) {
    return Number.isInteger(w) && Number.isInteger(h) && w >= 1 && w <= MAX_SIDE && h >= 1 && h <= MAX_SIDE;
}

export function ntilesOf(w, h) {
    return Math.ceil(w / TILE) * Math.ceil(h / TILE);
}

/* The largest tile data a w×h frame can have (codec_bound): 0 for a size out of range. */
export function tileBound(w, h) {
    if (!sizeOk(w, h)) return 0;
    const nt = ntilesOf(w, h);
    return 1 + ((nt + 7) >> 3) + nt + w * h;
}

function bitsFor(n) {
    return n === 2 ? 1 : n <= 4 ? 2 : 4;
}

/* Decode one tile payload at d[p..end) into px (tw×th at offset o, rows stride apart). Returns
 * the offset after the payload, or -1 when it is malformed. */
function getTile(d, p, end, px, o, stride, tw, th) {
    const npx = tw * th;
    if (p >= end) return -1;
    switch (d[p++]) {
    case MODE_SOLID: {
        if (p >= end) return -1;
        const c = d[p++];
        for (let y = 0; y < th; y++, o += stride) px.fill(c, o, o + tw);
        return p;
    }
    case MODE_PACKED: {
        if (p >= end) return -1;
        const n = d[p++];
        if (n < 2 || n > 16) return -1;
        const b = bitsFor(n);
        const rowbytes = (tw * b + 7) >> 3;
        if (end - p < n + th * rowbytes) return -1;
        const lp = p;                       /* the local palette: d[lp + k] */
        p += n;
        const mask = (1 << b) - 1, perByte = 8 / b;
        for (let y = 0; y < th; y++, o += stride, p += rowbytes) {
            let x = 0;
            for (let i = 0; x < tw; i++) {
                const byte = d[p + i];
                /* most significant bits first; the unused low bits of a row's last byte are
                 * padding and ignored */
                for (let s = 8 - b, j = 0; j < perByte && x < tw; j++, s -= b, x++) {
                    const k = (byte >> s) & mask;
                    if (k >= n) return -1;
                    px[o + x] = d[lp + k];
                }
            }
        }
        return p;
    }
    case MODE_RLE: {
        let pos = 0;
        while (pos < npx) {
            if (end - p < 2) return -1;
            const c = d[p++];
            let run = 0;
            for (let i = 0; ; i++) {
                if (i === VARINT_MAX_BYTES || p >= end) return -1;
                const byte = d[p++];
                run += (byte & 0x7f) * 2 ** (7 * i);   /* up to 35 bits: exact in a double */
                if (!(byte & 0x80)) break;
            }
            if (run === 0 || run > npx - pos) return -1;
            while (run > 0) {               /* row segments: a run may cross tile rows */
                const y = (pos / tw) | 0, x = pos - y * tw;
                const k = Math.min(tw - x, run);
                const at = o + y * stride + x;
                px.fill(c, at, at + k);
                pos += k;
                run -= k;
            }
        }
        return p;
    }
    case MODE_RAW: {
        if (end - p < npx) return -1;
        for (let y = 0; y < th; y++, o += stride, p += tw) px.set(d.subarray(p, p + tw), o);
        return p;
    }
    default:
        return -1;
    }
}

/* Apply tile data (docs/PROTOCOL.md "tile") to px, the w·h palette indexes of the previous frame
 * of the stream (any contents for a keyframe). Throws CodecError when the data is malformed; px
 * may then hold some new tiles, so the caller must drop the picture until the next keyframe. */
export function decodeTile(data, px, w, h, key) {
    if (!sizeOk(w, h)) throw new CodecError("esize", `frame size ${w}x${h} is outside 1..4096`);
    if (px.length < w * h) throw new CodecError("esize", `a ${w}x${h} frame needs ${w * h} bytes`);
    const len = data.length;
    if (len === 0) throw new CodecError("edata", "tile data is empty");
    let p = 0;
    const hdr = data[p++];
    if (key && hdr !== HDR_ALL) throw new CodecError("edata", `a keyframe has header ${hdr}, not 2 (all tiles)`);
    const nt = ntilesOf(w, h);
    let bitmap = -1;
    switch (hdr) {
    case HDR_NONE:
        if (len !== 1) throw new CodecError("edata", "header 0 (no change) with bytes after it");
        return;
    case HDR_BITMAP: {
        const nb = (nt + 7) >> 3;
        if (len - p < nb) throw new CodecError("edata", "the tile bitmap is cut short");
        bitmap = p;
        p += nb;
        if (nt % 8 && (data[bitmap + nb - 1] >> (nt % 8)))
            throw new CodecError("edata", "the tile bitmap has bits set past the last tile");
        break;
    }
    case HDR_ALL:
        break;
    default:
        throw new CodecError("edata", `tile data header ${hdr} is not 0, 1 or 2`);
    }
    const tilesx = Math.ceil(w / TILE);
    let i = 0;
    for (let y0 = 0; y0 < h; y0 += TILE) {
        const th = Math.min(TILE, h - y0);
        for (let tx = 0; tx < tilesx; tx++, i++) {
            if (bitmap >= 0 && !(data[bitmap + (i >> 3)] & (1 << (i & 7)))) continue;
            const x0 = tx * TILE;
            const tw = Math.min(TILE, w - x0);
            p = getTile(data, p, len, px, y0 * w + x0, w, tw, th);
            if (p < 0) throw new CodecError("edata", `tile ${i} is malformed`);
        }
    }
    if (p !== len) throw new CodecError("edata", `${len - p} bytes after the last tile`);
}

/* The content size a zstd frame header declares (RFC 8878 §3.1.1.1), or -1 when the bytes do not
 * start a zstd frame or the size is not in the header (tile.zst always writes it). */
export function zstdContentSize(d) {
    if (d.length < 5 || d[0] !== 0x28 || d[1] !== 0xb5 || d[2] !== 0x2f || d[3] !== 0xfd) return -1;
    const fhd = d[4];
    const fcsFlag = fhd >> 6, single = (fhd >> 5) & 1, dictFlag = fhd & 3;
    if (fhd & 0x08) return -1;                              /* the reserved bit */
    const fcsBytes = fcsFlag === 0 ? single : 1 << fcsFlag;
    if (fcsBytes === 0) return -1;
    let p = 5 + (single ? 0 : 1) + [0, 1, 2, 4][dictFlag];
    if (d.length < p + fcsBytes) return -1;
    let v = 0;
    for (let i = fcsBytes - 1; i >= 0; i--) v = v * 256 + d[p + i];
    return fcsFlag === 1 ? v + 256 : v;
}

/* The decoder of one frame's data, by encoding. */
export class FrameDecoder {
    /* Apply data of encoding enc to px (w·h indexes). Throws CodecError. */
    apply(enc, data, px, w, h, key) {
        if (!sizeOk(w, h)) throw new CodecError("esize", `frame size ${w}x${h} is outside 1..4096`);
        if (enc === "raw") {
            if (data.length !== w * h) throw new CodecError("edata", `raw data is ${data.length} bytes, not ${w * h}`);
            px.set(data);
            return;
        }
        if (enc === "tile") {
            decodeTile(data, px, w, h, key);
            return;
        }
        if (enc === "tile.zst") {
            /* One stateless zstd frame around tile data, never larger than the tile bound. */
            const bound = tileBound(w, h);
            const n = zstdContentSize(data);
            if (n < 0 || n > bound)
                throw new CodecError("zstd", `tile.zst data is not one zstd frame of at most ${bound} bytes`);
            /* fzstd allocates the n bytes itself: handed a reusable buffer instead, it spends time
             * in proportion to the buffer's size (3 ms a frame for a 58 KB one, 0.09 ms without;
             * tests/web/bench.mjs) */
            let tiles;
            try {
                tiles = decompress(data);
            } catch (e) {
                throw new CodecError("zstd", `tile.zst data does not decompress: ${e.message}`);
            }
            if (tiles.length !== n)
                throw new CodecError("zstd", `tile.zst data decompresses to ${tiles.length} bytes, not the ${n} its header says`);
            decodeTile(tiles, px, w, h, key);
            return;
        }
        throw new CodecError("edata", `unknown encoding '${enc}'`);
    }
}
