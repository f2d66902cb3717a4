// frame.js — one subscription's picture: frame messages applied in order, exactly as
// docs/PROTOCOL.md says (keyframes, deltas against the previous frame, the palette carried by
// version), each checked against its frame hash. A port of cli_frame_apply (clients/net.c).
//
// The picture lives in one buffer laid out for the hash: [6-byte head][palette][pixels], with the
// palette ending where the pixels start, so `fh` is computed over a subarray, without a copy.
import { FrameDecoder, CodecError, sizeOk } from "./codec.js";
import { xxh3 } from "./hash.js";
import { num, readRect, u64 } from "./protocol.js";

const PAL_MAX = 768;          /* 256 entries · RGB */
const PX_AT = 6 + PAL_MAX;    /* where the pixels start in the buffer */

export class FrameError extends Error {
    /* code: "nokey" (a delta before any keyframe: ignore it, a keyframe is coming), "proto"
     * (the message is malformed) or "data" (its pixels do not decode). After "proto" or "data"
     * the picture is gone: subscribe again for a keyframe. */
    constructor(code, message) {
        super(message);
        this.name = "FrameError";
        this.code = code;
    }
}

export class FrameStream {
    constructor() {
        this.w = 0;
        this.h = 0;
        this.buf = new Uint8Array(PX_AT);
        this.px = this.buf.subarray(PX_AT);       /* w·h palette indexes, row-major */
        this.count = 0;                           /* palette entries */
        this.pv = -1;                             /* palette version */
        this.haveKey = false;
        this.tick = -1;
        this.world = -1;
        this.fh = 0n;                             /* as sent */
        this.hash = 0n;                           /* as computed here */
        this.sh = 0n;
        this.rect = null;                         /* [x, y, w, h] of the world it shows; null: all of it */
        this.div = 1;                             /* world pixels a frame pixel (the viewer sets it) */
        this.decoder = new FrameDecoder();
    }

    /* The palette: 3·count bytes, R G B. */
    get pal() {
        return this.buf.subarray(PX_AT - 3 * this.count, PX_AT);
    }

    /* Forget the picture: the next frame must be a keyframe. */
    reset() {
        this.haveKey = false;
    }

    #resize(w, h) {
        this.w = w;
        this.h = h;
        this.buf = new Uint8Array(PX_AT + w * h);
        this.px = this.buf.subarray(PX_AT);
        this.count = 0;
        this.haveKey = false;
    }

    #setPalette(bytes) {
        const n = bytes.length / 3;
        this.buf.set(bytes, PX_AT - bytes.length);
        const o = PX_AT - bytes.length - 6;
        this.buf[o] = this.w & 255; this.buf[o + 1] = this.w >> 8;
        this.buf[o + 2] = this.h & 255; this.buf[o + 3] = this.h >> 8;
        this.buf[o + 4] = n & 255; this.buf[o + 5] = n >> 8;
        this.count = n;
    }

    /* XXH3-64 of the frame as docs/PROTOCOL.md defines `fh`. */
    computeHash() {
        return xxh3(this.buf.subarray(PX_AT - 3 * this.count - 6));
    }

    /* Apply one frame message m (decoded). Returns {tick, key, palette, pixels, hashOk}:
     * palette — the palette was sent (repaint through a new lookup table), pixels — the data
     * changed pixels (not the single-byte "no change"), hashOk — the rebuilt frame matches
     * `fh` (when false the picture is wrong: subscribe again). Throws FrameError. */
    apply(m) {
        let w, h, key, tick, pv, fh, sh, rect;
        try {
            w = num(m.w, "frame.w");
            h = num(m.h, "frame.h");
            tick = num(m.tick, "frame.tick");
            pv = num(m.pv, "frame.pv");
            fh = u64(m.fh, "frame.fh");
            sh = u64(m.sh, "frame.sh");
            this.world = num(m.world, "frame.world");
            rect = readRect(m.rect);
        } catch (e) {
            throw new FrameError("proto", `frame message lacks a field or has a mistyped one (${e.message})`);
        }
        key = m.key === true;
        if (typeof m.key !== "boolean" || typeof m.enc !== "string" || !(m.data instanceof Uint8Array))
            throw new FrameError("proto", "frame message lacks a field or has a mistyped one");
        if (!sizeOk(w, h)) throw new FrameError("proto", `frame size ${w}x${h} is out of range`);
        if (this.w !== w || this.h !== h) {
            if (!key) throw new FrameError("nokey", "a delta for a frame size never keyed");
            this.#resize(w, h);
        }
        if (!key && !this.haveKey) throw new FrameError("nokey", "a delta arrived before any keyframe");
        /* a delta is of its keyframe's rect: another one was never keyed */
        if (!key && String(rect) !== String(this.rect)) throw new FrameError("proto", `a delta of the rect [${rect}] after a keyframe of [${this.rect}]`);
        if (rect && (w > rect[2] || h > rect[3])) throw new FrameError("proto", `a ${w}x${h} frame of the rect [${rect}]`);
        const pal = m.pal;
        if (pal !== undefined) {
            if (!(pal instanceof Uint8Array) || pal.length % 3 || pal.length === 0 || pal.length > PAL_MAX)
                throw new FrameError("proto", "pal must be 3..768 bytes, a multiple of 3");
        } else if (key) {
            throw new FrameError("proto", "a keyframe without its palette");
        }
        /* tile data of the one byte 0 is "no pixel changed" (a palette-only frame) */
        const pixels = !(m.enc === "tile" && m.data.length === 1 && m.data[0] === 0);
        try {
            this.decoder.apply(m.enc, m.data, this.px, w, h, key);
        } catch (e) {
            this.haveKey = false;
            if (e instanceof CodecError) throw new FrameError("data", `${m.enc} data does not decode: ${e.message}`);
            throw e;
        }
        /* the palette only once the pixels decoded: a refused frame leaves the old one */
        if (pal !== undefined) this.#setPalette(pal);
        this.pv = pv;
        this.rect = rect;
        this.haveKey = true;
        this.tick = tick;
        this.fh = fh;
        this.sh = sh;
        this.hash = this.computeHash();
        return { tick, key, palette: pal !== undefined, pixels, hashOk: this.hash === fh };
    }
}
