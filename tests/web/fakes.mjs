// fakes.mjs — what the tests without a vivd play the server with: a scripted socket, a fake
// clock, and frames made up here (raw, with their hash), of any size and rect.
import { decodeMessage, encodeMessage } from "../../clients/web/protocol.js";
import { frameHash } from "../../clients/web/hash.js";

/* A socket the test plays the server of. */
export class FakeSocket {
    constructor(url, log) {
        this.url = url;
        this.readyState = 0;
        this.sent = [];
        log.push(this);
    }
    open() { this.readyState = 1; this.onopen?.({}); }
    send(b) { this.sent.push(decodeMessage(b)); }
    recv(obj) { this.onmessage?.({ data: (obj instanceof Uint8Array ? obj : encodeMessage(obj)).slice().buffer }); }
    close() { this.readyState = 3; this.onclose?.({ code: 1006 }); }
}

export function fakeClock() {
    const timers = [];
    return {
        timers,
        setTimeout: (fn, ms) => { timers.push({ fn, ms }); return timers.length; },
        clearTimeout: () => {},
        fire() { const t = timers.shift(); t.fn(); return t.ms; },
    };
}

/* A raw frame of world 1 (rect: its rect, or undefined for the whole world): w×h pixels, each
 * (x + y + seed) mod 4, of a 4-colour palette, with its frame hash. */
export function rawFrame(rect, w, h, { key = true, seed = 0, tick = 1, world = 1 } = {}) {
    const pal = new Uint8Array([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]), px = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) px[y * w + x] = (x + y + seed) % 4;
    return { t: "frame", world, tick, key, w, h, pv: 1, rect, pal, enc: "raw", data: px, fh: frameHash(w, h, pal, 4, px), sh: 0n };
}
