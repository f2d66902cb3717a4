// hash.js — XXH3-64 with seed 0 and the default secret (xxHash 0.8, the XXH3_64bits of the C
// library that vivd links), and the frame hash `fh` of docs/PROTOCOL.md.
//
// Inputs of more than 240 bytes (every frame) spend their time in the stripe loop, written with
// 32-bit limbs: each 64-bit lane is a (lo, hi) pair of uint32 in a Uint32Array, and the 32×32→64
// product takes its low half from Math.imul and its high half from the double product, rounded
// (exact: see mul32hi). The short-input paths and the final mixing run a few dozen operations per
// hash and are written with BigInt, close to the C reference. tests/web/hash.test.mjs holds it to
// the C library for every length 0..2100 and more, and to the `fh` of recorded frames.

const M64 = (1n << 64n) - 1n;
const P32_1 = 0x9E3779B1, P32_2 = 0x85EBCA77, P32_3 = 0xC2B2AE3D;
const P64_1 = 0x9E3779B185EBCA87n, P64_2 = 0xC2B2AE3D27D4EB4Fn, P64_3 = 0x165667B19E3779F9n;
const P64_4 = 0x85EBCA77C2B2AE63n, P64_5 = 0x27D4EB2F165667C5n;
const PRIME_MX1 = 0x165667919E3779F9n, PRIME_MX2 = 0x9FB21C651E98DF25n;

/* XXH3_kSecret: 192 bytes. */
const SECRET = new Uint8Array([
    0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
    0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
    0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
    0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
    0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
    0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
    0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
    0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
    0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
    0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
    0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
    0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
]);
const SECRET_SIZE = 192, STRIPE = 64, STRIPES_PER_BLOCK = (SECRET_SIZE - STRIPE) / 8, BLOCK = STRIPE * STRIPES_PER_BLOCK;
const SECRET_LASTACC_START = 7, SECRET_MERGEACCS_START = 11, MIDSIZE_STARTOFFSET = 3, MIDSIZE_LASTOFFSET = 17;

function r32(d, o) {
    return (d[o] | d[o + 1] << 8 | d[o + 2] << 16 | d[o + 3] << 24) >>> 0;
}

function r64(d, o) {
    return BigInt(r32(d, o)) | BigInt(r32(d, o + 4)) << 32n;
}

/* The secret as uint32 words at every byte offset (the last stripe reads it unaligned). */
const SECRET32 = new Uint32Array(SECRET_SIZE - 3);
for (let o = 0; o < SECRET32.length; o++) SECRET32[o] = r32(SECRET, o);

/* ---- BigInt helpers for the short paths ---------------------------------------------------- */
function mul128fold64(a, b) {
    const p = a * b;
    return (p & M64) ^ (p >> 64n);
}

function swap64(x) {
    let r = 0n;
    for (let i = 0; i < 8; i++) r = (r << 8n) | ((x >> BigInt(8 * i)) & 0xffn);
    return r;
}

function rotl64(x, r) {
    return ((x << BigInt(r)) | (x >> BigInt(64 - r))) & M64;
}

function xxh64Avalanche(h) {
    h ^= h >> 33n;
    h = (h * P64_2) & M64;
    h ^= h >> 29n;
    h = (h * P64_3) & M64;
    return h ^ (h >> 32n);
}

function avalanche(h) {
    h ^= h >> 37n;
    h = (h * PRIME_MX1) & M64;
    return h ^ (h >> 32n);
}

function rrmxmx(h, len) {
    h ^= rotl64(h, 49) ^ rotl64(h, 24);
    h = (h * PRIME_MX2) & M64;
    h ^= (h >> 35n) + BigInt(len);
    h = (h * PRIME_MX2) & M64;
    return h ^ (h >> 28n);
}

function mix16B(d, o, so) {
    return mul128fold64(r64(d, o) ^ r64(SECRET, so), r64(d, o + 8) ^ r64(SECRET, so + 8));
}

function len0to16(d, o, len) {
    if (len > 8) {
        const bitflip1 = r64(SECRET, 24) ^ r64(SECRET, 32);
        const bitflip2 = r64(SECRET, 40) ^ r64(SECRET, 48);
        const lo = r64(d, o) ^ bitflip1, hi = r64(d, o + len - 8) ^ bitflip2;
        const acc = (BigInt(len) + swap64(lo) + hi + mul128fold64(lo, hi)) & M64;
        return avalanche(acc);
    }
    if (len >= 4) {
        const in1 = BigInt(r32(d, o)), in2 = BigInt(r32(d, o + len - 4));
        const bitflip = r64(SECRET, 8) ^ r64(SECRET, 16);
        return rrmxmx((in2 + (in1 << 32n)) ^ bitflip, len);
    }
    if (len > 0) {
        const c1 = d[o], c2 = d[o + (len >> 1)], c3 = d[o + len - 1];
        const combined = ((c1 << 16) | (c2 << 24) | c3 | (len << 8)) >>> 0;
        const bitflip = BigInt((r32(SECRET, 0) ^ r32(SECRET, 4)) >>> 0);
        return xxh64Avalanche(BigInt(combined) ^ bitflip);
    }
    return xxh64Avalanche(r64(SECRET, 56) ^ r64(SECRET, 64));
}

function len17to128(d, o, len) {
    let acc = BigInt(len) * P64_1;
    if (len > 32) {
        if (len > 64) {
            if (len > 96) acc += mix16B(d, o + 48, 96) + mix16B(d, o + len - 64, 112);
            acc += mix16B(d, o + 32, 64) + mix16B(d, o + len - 48, 80);
        }
        acc += mix16B(d, o + 16, 32) + mix16B(d, o + len - 32, 48);
    }
    acc += mix16B(d, o, 0) + mix16B(d, o + len - 16, 16);
    return avalanche(acc & M64);
}

function len129to240(d, o, len) {
    let acc = BigInt(len) * P64_1;
    const rounds = len >> 4;
    for (let i = 0; i < 8; i++) acc += mix16B(d, o + 16 * i, 16 * i);
    acc = avalanche(acc & M64);
    for (let i = 8; i < rounds; i++) acc += mix16B(d, o + 16 * i, 16 * (i - 8) + MIDSIZE_STARTOFFSET);
    acc += mix16B(d, o + len - 16, 136 - MIDSIZE_LASTOFFSET);
    return avalanche(acc & M64);
}

/* ---- the long path, in 32-bit limbs ------------------------------------------------------- */
/* The high 32 bits of a·b for uint32 a, b. The double product is within 2^11 of the exact one
 * (53 of 64 bits), and so is the difference below; the exact difference is a multiple of 2^32,
 * so rounding the quotient recovers it. */
function mul32hi(a, b, lo) {
    return Math.round((a * b - lo) / 4294967296) >>> 0;
}

/* acc: 16 uint32, lane i as acc[2i] (lo), acc[2i + 1] (hi). One 64-byte stripe at d[o], with the
 * secret from byte so. */
function accumulate512(acc, d, o, so) {
    for (let i = 0; i < 8; i++) {
        const q = o + 8 * i;
        const dlo = (d[q] | d[q + 1] << 8 | d[q + 2] << 16 | d[q + 3] << 24) >>> 0;
        const dhi = (d[q + 4] | d[q + 5] << 8 | d[q + 6] << 16 | d[q + 7] << 24) >>> 0;
        const klo = (dlo ^ SECRET32[so + 8 * i]) >>> 0, khi = (dhi ^ SECRET32[so + 8 * i + 4]) >>> 0;
        /* acc[i ^ 1] += data */
        const j = 2 * (i ^ 1);
        const slo = acc[j] + dlo;
        acc[j] = slo;
        acc[j + 1] = acc[j + 1] + dhi + (slo > 0xffffffff ? 1 : 0);
        /* acc[i] += (u32)key · (key >> 32) */
        const plo = Math.imul(klo, khi) >>> 0, phi = mul32hi(klo, khi, plo);
        const t = acc[2 * i] + plo;
        acc[2 * i] = t;
        acc[2 * i + 1] = acc[2 * i + 1] + phi + (t > 0xffffffff ? 1 : 0);
    }
}

/* acc ^= acc >> 47; acc ^= secret; acc *= PRIME32_1, every lane. */
function scramble(acc, so) {
    for (let i = 0; i < 8; i++) {
        const lo = (acc[2 * i] ^ (acc[2 * i + 1] >>> 15) ^ SECRET32[so + 8 * i]) >>> 0;
        const hi = (acc[2 * i + 1] ^ SECRET32[so + 8 * i + 4]) >>> 0;
        const plo = Math.imul(lo, P32_1) >>> 0, phi = mul32hi(lo, P32_1, plo);
        acc[2 * i] = plo;
        acc[2 * i + 1] = phi + Math.imul(hi, P32_1);
    }
}

const INIT_ACC = [P32_3, 0, 0x85EBCA87, 0x9E3779B1, 0x27D4EB4F, 0xC2B2AE3D, 0x9E3779F9, 0x165667B1,
                  0xC2B2AE63, 0x85EBCA77, P32_2, 0, 0x165667C5, 0x27D4EB2F, P32_1, 0];

function hashLong(d, o, len, acc) {
    acc.set(INIT_ACC);
    const blocks = Math.floor((len - 1) / BLOCK);
    for (let n = 0; n < blocks; n++) {
        const b = o + n * BLOCK;
        for (let s = 0; s < STRIPES_PER_BLOCK; s++) accumulate512(acc, d, b + s * STRIPE, s * 8);
        scramble(acc, SECRET_SIZE - STRIPE);
    }
    const stripes = Math.floor((len - 1 - BLOCK * blocks) / STRIPE);
    const b = o + blocks * BLOCK;
    for (let s = 0; s < stripes; s++) accumulate512(acc, d, b + s * STRIPE, s * 8);
    accumulate512(acc, d, o + len - STRIPE, SECRET_SIZE - STRIPE - SECRET_LASTACC_START);
    /* mergeAccs */
    const lane = (i) => BigInt(acc[2 * i]) | BigInt(acc[2 * i + 1]) << 32n;
    let r = BigInt(len) * P64_1;
    for (let i = 0; i < 4; i++) {
        const so = SECRET_MERGEACCS_START + 16 * i;
        r += mul128fold64(lane(2 * i) ^ r64(SECRET, so), lane(2 * i + 1) ^ r64(SECRET, so + 8));
    }
    return avalanche(r & M64);
}

const sharedAcc = new Uint32Array(16);

/* XXH3_64bits(d) as a BigInt: seed 0, the default secret. d: a Uint8Array. */
export function xxh3(d) {
    const len = d.length;
    if (len <= 16) return len0to16(d, 0, len);
    if (len <= 128) return len17to128(d, 0, len);
    if (len <= 240) return len129to240(d, 0, len);
    return hashLong(d, 0, len, sharedAcc);
}

/* The frame hash `fh` (docs/PROTOCOL.md, frame) of a w×h frame: XXH3-64 over w, h and the palette
 * entry count as u16 little-endian, the 3·count palette bytes, then the w·h pixel bytes. This
 * one copies them into one buffer; FrameStream (frame.js) keeps them laid out that way and hashes
 * in place. */
export function frameHash(w, h, pal, count, px) {
    const b = new Uint8Array(6 + 3 * count + w * h);
    b[0] = w & 255; b[1] = w >> 8; b[2] = h & 255; b[3] = h >> 8; b[4] = count & 255; b[5] = count >> 8;
    b.set(pal.subarray(0, 3 * count), 6);
    b.set(px.subarray(0, w * h), 6 + 3 * count);
    return xxh3(b);
}

/* A 64-bit hash as 16 hex digits, for the overlay and the test hook. */
export function hex64(v) {
    return BigInt.asUintN(64, BigInt(v)).toString(16).padStart(16, "0");
}
