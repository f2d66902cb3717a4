// hash.test.mjs — XXH3-64 (clients/web/hash.js) against the C library vivd links: the values of
// fixtures/xxh3.json (made by xxh3_ref.c), made again here when cc and libxxhash are installed,
// and the frame hashes `fh` of recorded frames.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { frameHash, hex64, xxh3 } from "../../clients/web/hash.js";
import { FrameStream } from "../../clients/web/frame.js";
import { FIXTURES, frames } from "./corpus.mjs";

const here = path.dirname(new URL(import.meta.url).pathname);

/* xxh3_ref.c's pattern */
function pattern(n) {
    const b = new Uint8Array(n);
    let s = 1;
    for (let i = 0; i < n; i++) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        b[i] = (s >>> 23) & 255;
    }
    return b;
}

function check(ref) {
    const buf = pattern(131072);
    let n = 0;
    for (const [len, want] of ref.hashes) {
        assert.equal(hex64(xxh3(buf.subarray(0, len))), want, `XXH3-64 of ${len} bytes`);
        n++;
    }
    return n;
}

test("XXH3-64 equals the C library's for every length 0..1100 and on to 131072", () => {
    const ref = JSON.parse(fs.readFileSync(path.join(FIXTURES, "xxh3.json"), "utf8"));
    assert.ok(check(ref) > 1100);
    /* the same bytes at an odd offset into a larger buffer */
    const big = new Uint8Array(70001);
    big.set(pattern(70000), 1);
    assert.equal(hex64(xxh3(big.subarray(1, 57607))), ref.hashes.find(([l]) => l === 57606)[1]);
});

test("XXH3-64 equals the C library built here, when cc and libxxhash are installed", (t) => {
    const exe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "xxh3-")), "xxh3_ref");
    try {
        const flags = execFileSync("pkg-config", ["--cflags", "--libs", "libxxhash"], { encoding: "utf8" }).trim().split(/\s+/);
        execFileSync("cc", ["-O2", path.join(here, "xxh3_ref.c"), "-o", exe, ...flags.filter(Boolean)], { stdio: "pipe" });
    } catch {
        t.skip("no cc with libxxhash here");
        return;
    }
    const ref = JSON.parse(execFileSync(exe, { encoding: "utf8" }));
    fs.rmSync(path.dirname(exe), { recursive: true, force: true });
    check(ref);
    assert.deepEqual(ref, JSON.parse(fs.readFileSync(path.join(FIXTURES, "xxh3.json"), "utf8")), "fixtures/xxh3.json is current");
});

test("frameHash of a rebuilt frame is the fh vivd sent", () => {
    for (const name of ["sand.msgs", "small-raw.msgs", "cycle.msgs"]) {
        const fs1 = new FrameStream();
        for (const m of frames(name)) {
            fs1.apply(m);
            assert.equal(frameHash(fs1.w, fs1.h, fs1.pal, fs1.count, fs1.px), BigInt(m.fh), `${name} tick ${m.tick}`);
            assert.equal(fs1.computeHash(), BigInt(m.fh));
        }
    }
});

test("hex64 writes 16 digits", () => {
    assert.equal(hex64(0n), "0000000000000000");
    assert.equal(hex64(0xdeadbeefn), "00000000deadbeef");
    assert.equal(hex64(-1n), "ffffffffffffffff");
});
