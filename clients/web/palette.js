// palette.js — palette indexes to canvas pixels. A frame's palette (3·n bytes, R G B) becomes a
// 256-entry Uint32Array of RGBA words in the byte order of ImageData's buffer, so painting is
// one table look-up per pixel, and a frame that changes only the palette repaints without
// decoding any pixel data. No DOM: paint() writes into any Uint32Array view of ImageData.data.

/* ImageData's bytes are R, G, B, A in memory; a Uint32Array over them reads them in the host's
 * byte order (little-endian on every browser in practice, but asked, not assumed). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/* Opaque black: what an index past the palette shows (the frame hash would flag such a frame
 * anyway, since the server never sends one). */
export const MISSING = LITTLE_ENDIAN ? 0xff000000 : 0x000000ff;

export function rgba(r, g, b) {
    return (LITTLE_ENDIAN ? (0xff << 24) | (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8) | 0xff) >>> 0;
}

/* Fill lut (a Uint32Array of 256) from pal (3·count bytes). Returns lut. */
export function buildLut(pal, count, lut = new Uint32Array(256)) {
    const n = Math.min(count, 256, Math.floor(pal.length / 3));
    for (let i = 0; i < n; i++) lut[i] = rgba(pal[3 * i], pal[3 * i + 1], pal[3 * i + 2]);
    lut.fill(MISSING, n);
    return lut;
}

/* out32[i] = lut[px[i]] for the n = px.length pixels. */
export function paint(px, lut, out32) {
    const n = px.length;
    for (let i = 0; i < n; i++) out32[i] = lut[px[i]];
}
