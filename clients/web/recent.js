// recent.js — the frames drawn lately, kept for the PNG and GIF buttons (snap.js encodes them):
// copies, so that the stream can go on reusing its buffers. Without the DOM.
import { encodeGif, encodePng } from "./snap.js";

export class Recent {
    constructor(seconds) {
        this.seconds = seconds;
        this.frames = [];     /* {w, h, pal, count, px, tick}, oldest first */
    }

    /* Keep frame s (a stream's: w, h, pal, count, px, tick); at most `seconds` of a world at hz,
     * all of one size (a new size starts over). */
    keep(s, hz) {
        const f = this.frames;
        f.push({ w: s.w, h: s.h, pal: s.pal.slice(), count: s.count, px: s.px.slice(), tick: s.tick });
        const most = this.seconds * hz;
        while (f.length > most || (f.length && (f[0].w !== s.w || f[0].h !== s.h))) f.shift();
    }

    /* The newest frame as a PNG: {bytes, tick}, or null before the first. */
    async png() {
        const f = this.frames.at(-1);
        return f ? { bytes: await encodePng(f), tick: f.tick } : null;
    }

    /* What is kept as a GIF, its delays in whole hundredths of a second as the frames came (one
     * every `every` ticks of a world at hz): {bytes, tick (the newest)}, or null. */
    gif(every, hz) {
        if (!this.frames.length) return null;
        const cs = Math.max(2, Math.round(100 * every / hz));
        return { bytes: encodeGif(this.frames, cs), tick: this.frames.at(-1).tick };
    }
}
