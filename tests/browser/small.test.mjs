// small.test.mjs — the page's small things (issue 29), in Debian's Chromium driven by
// playwright-core against a real bin/vivd (demo set, recorded) on a free loopback port:
//   - Verify follows the tab: after switching tabs, the Verify list picks the shown world's
//     session and Verify checks that world (it kept the first tab's);
//   - the "offline: …; reconnecting" note of the reconnect a token causes goes once reconnected
//     (it stayed);
//   - the debug checkbox follows the ` key (it did not change until the panel was redrawn);
//   - the downloads: the PNG of the current frame, decoded here with Node's zlib, is the canvas
//     pixel for pixel; the GIF of the last seconds parses into its frames, each of the frame's size;
//   - integer zoom sets the canvas to a whole number of pixels a world pixel.
//
// Run: `VIV_BIN=bin node --test tests/browser/small.test.mjs` (part of make test-web).
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";

let chromium;
try {
    ({ chromium } = await import("playwright-core"));
} catch (e) {
    throw new Error(`playwright-core is not installed in tests/browser/node_modules (${e.code ?? e.message}): run scripts/deps.sh, which runs npm ci there`);
}
const { PLAYER, haveBinaries, startVivd } = await import("../web/vivd.mjs");
const L = await import("./lib.mjs");
const { CHROMIUM, CHROMIUM_ARGS, TESTED_MAJOR, until, openPage, readCanvas } = L;
const { readIndexedPng } = await import("./pngread.mjs");

if (!haveBinaries()) throw new Error("bin/vivd and bin/viv are not built: make -j2 all");
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const skip = +browser.version().split(".")[0] === TESTED_MAJOR ? false : `Chromium ${browser.version()} is not the version these tests were checked with (${TESTED_MAJOR}); page.test.mjs says what to do`;
let live = null;

before(async () => {
    if (!skip) live = await startVivd(["--db", "small.db"], { http: true });
});
after(async () => {
    await browser.close();
    if (live) await live.stop();
});

async function page(fragment) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const p = await openPage(ctx, `http://127.0.0.1:${live.httpPort}/#${fragment}`);
    return { ctx, ...p };
}

test("Verify follows the tab: after a switch it picks and checks the world shown", { skip, timeout: 180000 }, async () => {
    const { ctx, page: pg } = await page("world=sand");
    try {
        await until("the sand world and vivd's sessions", () => pg.evaluate(() => viv.kind === "sand" && viv.shownTick > 10 && viv.sessions.length === 1));
        await until("the panel's pick", async () => /^this world: sand #/.test(await pg.locator("#verify select option:checked").textContent()));
        await pg.click('#worlds button:has-text("terrarium")');
        await until("the terrarium shown", () => pg.evaluate(() => viv.kind === "terrarium" && viv.shownTick > 0));
        await until("the pick to follow the tab", async () => /^this world: terrarium #/.test(await pg.locator("#verify select option:checked").textContent()), 10000);
        await pg.click("#verify-go");
        await until("the verdict", () => pg.evaluate(() => viv.verifyState.result !== null), 60000);
        const r = await pg.evaluate(() => viv.verifyState.result);
        assert.equal(r.kind, "terrarium");
        assert.equal(r.verdict, "bit-exact", r.message);
    } finally {
        await ctx.close();
    }
});

test("the offline note of the reconnect a token causes goes once reconnected", { skip, timeout: 120000 }, async () => {
    const { ctx, page: pg } = await page("world=sand");
    try {
        await until("a viewer's frames", () => pg.evaluate(() => viv.role === "viewer" && viv.shownTick > 0));
        await pg.click("#token-open");
        await pg.fill("#token-input", PLAYER);
        await pg.click("#token-save");
        await until("the player's connection", () => pg.evaluate(() => viv.role === "player" && viv.state === "open" && viv.connects === 2));
        await until("the reconnected note", async () => /reconnected/.test(await pg.locator("#notes").textContent()));
        assert.doesNotMatch(await pg.locator("#notes").textContent(), /offline/);
        assert.doesNotMatch(await pg.locator("#status").textContent(), /offline/);
    } finally {
        await ctx.close();
    }
});

test("the debug checkbox follows the ` key", { skip, timeout: 120000 }, async () => {
    const { ctx, page: pg } = await page("world=garden");
    try {
        await until("frames", () => pg.evaluate(() => viv.shownTick > 0));
        const box = pg.locator('#view label:has-text("Debug overlay") input');
        assert.equal(await box.isChecked(), false);
        await pg.keyboard.press("Backquote");
        await until("the overlay", () => pg.evaluate(() => !document.getElementById("overlay").hidden));
        await until("the checkbox ticked", () => box.isChecked(), 5000);
        await pg.keyboard.press("Backquote");
        await until("the checkbox clear", async () => !(await box.isChecked()), 5000);
    } finally {
        await ctx.close();
    }
});

/* The GIF's frames: [{w, h}] of each image descriptor, walking the blocks (GIF89a). */
function gifFrames(b) {
    assert.equal(b.subarray(0, 6).toString("latin1"), "GIF89a");
    let o = 13 + (b[10] & 0x80 ? 3 << ((b[10] & 7) + 1) : 0);
    const frames = [];
    const skipBlocks = () => { while (b[o]) o += b[o] + 1; o++; };
    for (;;) {
        const t = b[o++];
        if (t === 0x3b) return frames;
        if (t === 0x21) { o++; skipBlocks(); continue; }
        assert.equal(t, 0x2c, `a block at byte ${o - 1}`);
        frames.push({ w: b.readUInt16LE(o + 4), h: b.readUInt16LE(o + 6) });
        const flags = b[o + 8];
        o += 9 + (flags & 0x80 ? 3 << ((flags & 7) + 1) : 0) + 1;
        skipBlocks();
    }
}

test("the downloads: the PNG is the canvas pixel for pixel, the GIF holds the last seconds' frames; zoom is a whole number", { skip, timeout: 120000 }, async () => {
    const { ctx, page: pg } = await page("world=sand");
    try {
        /* the world has run since the suite began: 2 s of frames is 120 ticks past the first this
         * tab drew (CI at 4f39cae took the GIF at its first frame, 1 frame) */
        await until("a frame", () => pg.evaluate(() => viv.verified && viv.shownTick >= 0));
        const first = await pg.evaluate(() => viv.shownTick);
        await until("2 s of frames", () => pg.evaluate((t) => viv.verified && viv.shownTick > t + 120, first));
        /* the GIF of the last seconds, taken while the picture runs */
        const [gdl] = await Promise.all([pg.waitForEvent("download"), pg.click("#save-gif")]);
        const frames = gifFrames(fs.readFileSync(await gdl.path()));
        /* this tab's own timeline paused (the world runs on for everyone else), so that the
         * picture stays while the PNG is made and the canvas read back; still compared only when
         * both are of one tick */
        await pg.click("#tl-pause");
        await until("this tab's view paused", () => pg.evaluate(() => viv.timeline?.play?.paused === true && viv.timeline?.pending === 0));
        let f = null, canvas = null;
        for (let i = 0; i < 20 && !f; i++) {
            const [dl] = await Promise.all([pg.waitForEvent("download"), pg.click("#save-png")]);
            canvas = await readCanvas(pg);
            const png = await dl.path();
            if (dl.suggestedFilename() === `sand-${canvas.tick}.png`) f = readIndexedPng(png);
        }
        assert.ok(f, "a PNG and a canvas of the same tick in 20 tries");
        assert.equal(`${f.w}x${f.h}`, `${canvas.w}x${canvas.h}`);
        let differ = 0;
        for (let i = 0; i < f.w * f.h; i++) {
            const k = 3 * f.px[i];
            if (f.pal[k] !== canvas.rgba[4 * i] || f.pal[k + 1] !== canvas.rgba[4 * i + 1] || f.pal[k + 2] !== canvas.rgba[4 * i + 2]) differ++;
        }
        assert.equal(differ, 0, `${differ} pixels of the PNG are not the canvas's`);
        /* the frames the page drew in the last 5 s (at most 300 at 60 Hz): a loaded headless page
         * draws fewer than the world ticks (seen: 9 with the whole browser suite beside it) */
        assert.ok(frames.length >= 2 && frames.length <= 300, `${frames.length} frames`);
        assert.ok(frames.every((x) => x.w === canvas.w && x.h === canvas.h));
        await pg.selectOption("#zoom", "2");
        const box = await pg.locator("#screen").boundingBox();
        assert.equal(Math.round(box.width), 2 * canvas.w);
    } finally {
        await ctx.close();
    }
});
