// recordings.test.mjs — recordings for everyone (issue 29), in Debian's Chromium driven by
// playwright-core against a real bin/vivd on a free loopback port. The file: three sessions that
// `viv sim --record` made (sand seed 5, sand seed 6, terrarium seed 3, 300 ticks each, closed);
// vivd plays the first (--play rec.db:1, --no-record), so the others are in its list but hosted by
// nobody. Every page here has no token:
//   - the page lists the three sessions; Watch on one vivd does not host opens it (`open`), the
//     tab switches to it, and its controls work: the seek bar, ▸, ◂ (one tick back lands on the
//     tick before, with its recorded frame), space, ← →, ↑ ↓, Home, End, [ ] — every frame shown
//     is the recorded one (its hash against the file's, its pixels against `viv replay export`),
//     and they move this tab's timeline only (`timeline`, never `play`);
//   - a second page on the same recording is not moved by the first, nor the first by it, and a
//     third sees the world where it was (paused at its start);
//   - a link #session=N&tick=T to a session nobody hosts opens it there; one to a session the
//     file does not hold says so, in a sentence naming the session;
//   - the fullscreen button puts the stage in fullscreen, the picture refitted to it, and back.
//
// Run: `VIV_BIN=bin node --test tests/browser/recordings.test.mjs`.
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

let chromium;
try {
    ({ chromium } = await import("playwright-core"));
} catch (e) {
    throw new Error(`playwright-core is not installed in tests/browser/node_modules (${e.code ?? e.message}): run scripts/deps.sh, which runs npm ci there`);
}
const { VIV, haveBinaries, startVivd, vivSim } = await import("../web/vivd.mjs");
const L = await import("./lib.mjs");
const { CHROMIUM, CHROMIUM_ARGS, TESTED_MAJOR, until, openPage, recordedHashes } = L;

if (!haveBinaries()) throw new Error("bin/vivd and bin/viv are not built: make -j2 all");
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const skip = +browser.version().split(".")[0] === TESTED_MAJOR ? false : `Chromium ${browser.version()} is not the version these tests were checked with (${TESTED_MAJOR}); page.test.mjs says what to do`;
const RUNS = [["sand", 5], ["sand", 6], ["terrarium", 3]];      /* sessions 1, 2, 3 */
const TICKS = 300;
let vivd = null, db = "";

before(async () => {
    if (skip) return;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "viv-recordings-"));
    db = path.join(dir, "rec.db");
    for (const [kind, seed] of RUNS)
        execFileSync(VIV, ["sim", "--world", kind, "--seed", String(seed), "--ticks", String(TICKS), "--record", db], { stdio: "pipe" });
    vivd = await startVivd(["--play", "rec.db:1", "--no-record"], { http: true, dir });
});
after(async () => {
    await browser.close();
    if (vivd) assert.equal(await vivd.stop(), 0, "vivd stopped cleanly");
});

async function page(fragment = "", viewport = { width: 1280, height: 900 }) {
    const ctx = await browser.newContext({ viewport });
    const p = await openPage(ctx, `http://127.0.0.1:${vivd.httpPort}/${fragment ? `#${fragment}` : ""}`);
    return { ctx, ...p };
}

const shows = (pg, session, t) => L.showsRecorded(pg, db, session, t);
const rec = (pg) => pg.evaluate(() => viv.recording);

/* Pick session in the Recordings list and press Watch; resolves to the world it shows. */
async function watch(p, session) {
    await until("vivd's sessions in the list", () => p.page.evaluate(() => document.querySelectorAll("#rec-pick option").length === 3));
    await p.page.selectOption("#rec-pick", `rec.db\n${session}`);
    await p.page.click("#rec-watch");
    await until(`session ${session} shown`, () => p.page.evaluate((s) => viv.playState?.session === s && viv.verified, session), 60000);
    return p.page.evaluate(() => viv.world);
}

/* The seek bar let go at tick t, as a drag of it ends. */
const seekBar = (pg, t) => pg.evaluate((x) => {
    const s = document.getElementById("rec-seek");
    s.value = String(x);
    s.dispatchEvent(new Event("change", { bubbles: true }));
}, t);

/* Wait until this tab's timeline has answered everything and shows tick t. */
const settled = (pg, t) => until(`the tab's timeline at ${t}`, () => pg.evaluate((x) => {
    const tl = viv.timeline;
    return tl.open && tl.pending === 0 && viv.shownTick === x;
}, t), 30000);

test("the list of recordings, and Watch on one vivd does not host: with no token, the seek bar, ▸, ◂ and the keys land on the recorded frames", { skip, timeout: 300000 }, async () => {
    const a = await page();
    try {
        assert.equal(await a.page.evaluate(() => viv.role), "viewer");
        const first = (await a.page.evaluate(() => viv.worlds)).map((w) => w.play?.session);
        assert.deepEqual(first, [1], "vivd hosts session 1 only");
        await until("the list", () => a.page.evaluate(() => document.querySelectorAll("#rec-pick option").length === 3));
        const labels = await a.page.locator("#rec-pick option").allTextContents();
        assert.deepEqual(labels.map((t) => t.replace(/^this world: /, "")).sort(),
                         ["sand #1 · 300 ticks", "sand #2 · 300 ticks", "terrarium #3 · 300 ticks"]);

        const id = await watch(a, 2);
        assert.deepEqual(a.log.opens, [{ conn: 0, session: 2, file: "rec.db" }]);
        assert.equal((await a.page.evaluate(() => viv.worlds)).length, 2, "the tab lists the world vivd opened");
        assert.match(await a.page.locator("#worlds button[aria-pressed=true]").textContent(), /session 2/);
        assert.equal(await a.page.locator("#rec-watch").textContent(), "Watching");
        assert.doesNotMatch(await a.page.locator("#playback").textContent(), /token/);

        /* the seek bar */
        const T = 150;
        await seekBar(a.page, T);
        await settled(a.page, T);
        await shows(a.page, 2, T);
        assert.match(await a.page.evaluate(() => location.hash), new RegExp(`^#session=2&tick=${T}$`));
        /* ▸ one tick on; ◂ one tick back, twice: each the tick's recorded frame */
        await a.page.click("#step-on");
        await settled(a.page, T + 1);
        await shows(a.page, 2, T + 1);
        await a.page.click("#step-back");
        await settled(a.page, T);
        await shows(a.page, 2, T);
        await a.page.click("#step-back");
        await settled(a.page, T - 1);
        await shows(a.page, 2, T - 1);

        /* the keys */
        /* (the file has no row for tick 0, the session's start: its frame is viv sim's) */
        const fhAt = (t) => (t ? recordedHashes(db, 2, t).fh : vivSim(...RUNS[1], "", 0).fh);
        const key = async (k, t) => {
            await a.page.keyboard.press(k);
            await settled(a.page, t);
            assert.equal(await a.page.evaluate(() => viv.fh), fhAt(t), `${k}: the recorded frame at ${t}`);
        };
        await key("ArrowRight", T);
        await key("ArrowLeft", T - 1);
        await key("ArrowUp", T - 1 + 60);
        await key("ArrowDown", T - 1);
        await key("End", TICKS);
        await key("Home", 0);
        await a.page.keyboard.press("]");
        await until("the speed a step up", async () => (await rec(a.page)).speed === 200 && (await a.page.evaluate(() => viv.timeline.pending)) === 0);
        await a.page.keyboard.press("[");
        await a.page.keyboard.press("[");
        await until("two steps down", async () => (await rec(a.page)).speed === 50 && (await a.page.evaluate(() => viv.timeline.pending)) === 0);
        /* space plays (at 50 %) and pauses; ◂ while playing pauses first, then goes a tick back */
        await a.page.keyboard.press(" ");
        await until("playing", () => a.page.evaluate(() => viv.shownTick > 20 && !viv.recording.paused), 30000);
        await a.page.keyboard.press(" ");
        await until("paused", async () => (await rec(a.page)).paused && (await a.page.evaluate(() => viv.timeline.pending)) === 0);
        /* the picture is drawn at the next animation frame: wait until it shows where the pause
         * left the tab, or ◂ goes a tick back from a tick the test never saw */
        const at = await until("the paused tick drawn", () => a.page.evaluate(() => {
            const r = viv.recording;
            return r.paused && viv.timeline.pending === 0 && viv.shownTick === r.tick ? r.tick : 0;
        }));
        await a.page.click("#step-back");
        await settled(a.page, at - 1);
        await shows(a.page, 2, at - 1);

        /* all of it on this tab's timeline: no play message, no error, nothing thrown */
        assert.deepEqual(a.log.plays, []);
        assert.ok(a.log.timelines.length >= 14 && a.log.timelines.every((m) => m.world === id), JSON.stringify(a.log.timelines));
        assert.deepEqual(a.log.errors, []);
        assert.equal(await a.page.evaluate(() => viv.mismatches + viv.badFrames), 0);
        assert.deepEqual(a.problems, []);
    } finally {
        await a.ctx.close();
    }
});

test("two pages on one recording: neither moves the other, nor the world a third page opens", { skip, timeout: 300000 }, async () => {
    const a = await page(), b = await page();
    try {
        const id = await watch(a, 2);
        assert.equal(await watch(b, 2), id, "one world for everyone who opens the session");
        await seekBar(a.page, 100);
        await settled(a.page, 100);
        await seekBar(b.page, 200);
        await settled(b.page, 200);
        assert.equal(await a.page.evaluate(() => viv.shownTick), 100, "the first page stays where it was");

        /* the first plays; the second's picture does not move, frame for frame */
        const bFrames = b.log.frames.length;
        await a.page.click("#rec-play");
        await until("the first page playing on", () => a.page.evaluate(() => viv.shownTick > 160), 30000);
        assert.equal(b.log.frames.length, bFrames, "no frame came to the second page");
        assert.equal(await b.page.evaluate(() => viv.shownTick), 200);
        await shows(b.page, 2, 200);
        /* the second steps back; the first goes on playing */
        const aTick = await a.page.evaluate(() => viv.shownTick);
        await b.page.click("#step-back");
        await settled(b.page, 199);
        await shows(b.page, 2, 199);
        await until("the first page still playing", () => a.page.evaluate((t) => viv.shownTick > t + 10, aTick), 30000);
        await a.page.click("#rec-play");
        await until("the first page paused", async () => (await rec(a.page)).paused && (await a.page.evaluate(() => viv.timeline.pending)) === 0);

        /* a third page, opening the session with a link (no tick), sees the world's own position:
         * still paused at its start */
        const c = await page("session=2");
        try {
            await until("the third page on the recording", () => c.page.evaluate((w) => viv.world === w && viv.verified, id), 30000);
            assert.deepEqual(await rec(c.page), { start: 0, end: TICKS, tick: 0, paused: true, speed: 100 });
            assert.equal((await c.page.evaluate(() => viv.worlds)).length, 2, "the recording opened for the others is in its welcome");
        } finally {
            await c.ctx.close();
        }
        for (const p of [a, b]) {
            assert.deepEqual(p.log.plays, []);
            assert.deepEqual(p.log.errors, []);
            assert.equal(await p.page.evaluate(() => viv.mismatches + viv.badFrames), 0);
            assert.deepEqual(p.problems, []);
        }
    } finally {
        await a.ctx.close();
        await b.ctx.close();
    }
});

test("a link to a session nobody hosts (#session=N&tick=T) opens it at T; one the file does not hold is refused in a sentence", { skip, timeout: 240000 }, async () => {
    const T = 200;
    const c = await page(`session=3&tick=${T}`);
    try {
        await until("the linked tab rewound", () => c.page.evaluate(() => viv.timeline.open && viv.playState?.session === 3), 60000);
        await shows(c.page, 3, T);
        assert.equal(await c.page.evaluate(() => viv.kind), "terrarium");
        assert.deepEqual(c.log.opens, [{ conn: 0, session: 3, file: null }], "the link's session, of vivd's first file");
        assert.match(await c.page.evaluate(() => location.hash), new RegExp(`^#session=3&tick=${T}$`));
        const link = new URL(await c.page.evaluate(() => viv.momentLink()));
        assert.deepEqual(Object.fromEntries(new URLSearchParams(link.hash.slice(1))), { session: "3", tick: String(T) });
        assert.deepEqual(c.log.errors, []);
        assert.deepEqual(c.problems, []);
    } finally {
        await c.ctx.close();
    }

    const d = await page("session=9&tick=5");
    try {
        const note = await until("the refusal noted", () => d.page.evaluate(() => document.querySelector("#notes li.err")?.textContent));
        assert.match(note, /^session 9 cannot be watched: .+ \(unknown_session\)$/);
        assert.equal(d.log.errors.length, 1);
        assert.equal(await d.page.evaluate(() => viv.playState?.session), 1, "the tab stays on the world it showed");
        assert.deepEqual(d.problems, []);
    } finally {
        await d.ctx.close();
    }
});

test("the fullscreen button puts the stage in fullscreen, the picture refitted to it, and takes it out", { skip, timeout: 120000 }, async () => {
    /* a window where the stage, beside the panel, fits the world 3 times, and the whole window 4 */
    const p = await page("", { width: 1400, height: 800 });
    try {
        await until("the recording drawn", () => p.page.evaluate(() => viv.shownTick >= 0 && viv.canvasMismatches() === 0));
        const fit = () => p.page.evaluate(() => {
            const st = document.getElementById("stage").getBoundingClientRect(), cv = document.getElementById("screen").getBoundingClientRect();
            return { scale: viv.scale, stage: [st.width, st.height], canvas: [cv.width, cv.height], fs: document.fullscreenElement?.id ?? null };
        });
        const before = await fit();
        assert.equal(before.fs, null);
        assert.equal(before.scale, 3);
        await p.page.click("#fullscreen");
        await until("the stage in fullscreen", async () => (await fit()).fs === "stage");
        const full = await until("the picture refitted", async () => { const f = await fit(); return f.scale === 4 && f; });
        assert.deepEqual(full.stage, [1400, 800], "the stage is the whole window");
        assert.deepEqual(full.canvas, [320 * 4, 180 * 4], "4 screen pixels a world pixel");
        /* the button again (out of sight behind the stage: a click from the script) */
        await p.page.evaluate(() => document.getElementById("fullscreen").click());
        await until("out of fullscreen", async () => { const f = await fit(); return f.fs === null && f.scale === 3; });
        assert.deepEqual(p.problems, []);
    } finally {
        await p.ctx.close();
    }
});
