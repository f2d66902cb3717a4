// timeline.test.mjs — the page's timeline (issue 29), in Debian's Chromium driven by
// playwright-core against a real bin/vivd (demo set, recorded to a file) on a free loopback port:
//   - rewinding a live world in the page: pause at the live edge, seek back with the bar, one tick
//     back and on, play the past at 400 % and pause again, back to live; the frame shown at the
//     tick rewound to is the recorded one (its hash against the file's, its pixels against
//     `viv replay export`), while a second page on the same world keeps getting the world's
//     frames, in order, untouched;
//   - a link to a moment (#world=ID&tick=T) opens there: the tick shown is T and its frame is the
//     recorded one; "copy link" gives such a link, and never the token; #session=N&tick=T opens a
//     recording another vivd plays (--play) at T, for a viewer with no token;
//   - "play from here" forks the world shown at the tick shown: the tab switches to the new world,
//     whose first frame is the parent's recorded frame at its tick (no inputs were sent), its
//     recording names the parent and T and verifies bit-exact (its start checked against the
//     parent's recorded hash at T), and a viewer without a token is told it needs one.
//
// Run: `VIV_BIN=bin node --test tests/browser/timeline.test.mjs`.
import test, { after, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";

let chromium;
try {
    ({ chromium } = await import("playwright-core"));
} catch (e) {
    throw new Error(`playwright-core is not installed in tests/browser/node_modules (${e.code ?? e.message}): run scripts/deps.sh, which runs npm ci there`);
}
const { PLAYER, VIV, haveBinaries, replayVerify, startVivd } = await import("../web/vivd.mjs");
const L = await import("./lib.mjs");
const { CHROMIUM, CHROMIUM_ARGS, TESTED_MAJOR, until, openPage, recordedHashes } = L;

if (!haveBinaries()) throw new Error("bin/vivd and bin/viv are not built: make -j2 all");
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
const skip = +browser.version().split(".")[0] === TESTED_MAJOR ? false : `Chromium ${browser.version()} is not the version these tests were checked with (${TESTED_MAJOR}); page.test.mjs says what to do`;
let live = null, db = "";

before(async () => {
    if (skip) return;
    live = await startVivd(["--db", "timeline.db"], { http: true });
    db = path.join(live.dir, "timeline.db");
});
after(async () => {
    await browser.close();
    if (live) await live.stop();
});

async function page(fragment, { clipboard = false } = {}) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    if (clipboard) await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: `http://127.0.0.1:${live.httpPort}` });
    const p = await openPage(ctx, `http://127.0.0.1:${live.httpPort}/#${fragment}`);
    return { ctx, ...p };
}

/* The running session of world id in the file vivd records to, as the page lists it. */
async function sessionOf(pg, id) {
    await pg.evaluate(() => viv.refreshSessions());
    return until(`world ${id}'s session in the page's list`, () => pg.evaluate((w) => {
        for (const f of viv.sessions) for (const s of f.sessions) if (f.recording && s.world === w) return s.session;
        viv.refreshSessions();
        return null;
    }, id), 20000, 250);
}

/* The page shows tick t, drawn, and it is the frame recorded there (hash and pixels). */
const showsRecorded = (pg, session, t) => L.showsRecorded(pg, db, session, t);

const click = (pg, sel) => pg.click(sel);
const tlState = (pg) => pg.evaluate(() => viv.timeline);

test("rewind a live world in the page (seek back, step both ways, live) while a second page keeps its frames", { skip, timeout: 240000 }, async () => {
    const a = await page("world=sand"), b = await page("world=sand");
    try {
        await until("both pages' frames", async () => (await a.page.evaluate(() => viv.shownTick)) > 240 && (await b.page.evaluate(() => viv.shownTick)) > 240, 60000);
        const id = await a.page.evaluate(() => viv.world);
        assert.equal(await b.page.evaluate(() => viv.world), id);
        const session = await sessionOf(a.page, id);

        /* pause: the timeline opens at the live edge, paused */
        await click(a.page, "#tl-pause");
        await until("the timeline open", async () => (await tlState(a.page)).open);
        const edge = (await tlState(a.page)).tick;
        assert.ok(edge > 200, `the live edge ${edge}`);
        const bBefore = await b.page.evaluate(() => ({ frames: viv.frames, tick: viv.shownTick }));

        /* seek back with the bar */
        const T = 120;
        await a.page.evaluate((t) => {
            const s = document.getElementById("tl-seek");
            s.value = String(t);
            s.dispatchEvent(new Event("change", { bubbles: true }));
        }, T);
        await until(`the timeline at ${T}`, async () => (await tlState(a.page)).tick === T);
        await showsRecorded(a.page, session, T);
        assert.match(await a.page.evaluate(() => location.hash), new RegExp(`(^#|&)tick=${T}(&|$)`));

        /* one tick back, one on */
        await click(a.page, "#tl-back");
        await until("a tick back", async () => (await tlState(a.page)).tick === T - 1 && (await tlState(a.page)).pending === 0);
        await showsRecorded(a.page, session, T - 1);
        await click(a.page, "#tl-step");
        await until("a tick on", async () => (await a.page.evaluate(() => viv.shownTick)) === T && (await tlState(a.page)).pending === 0);
        await showsRecorded(a.page, session, T);

        /* meanwhile the second page watched the world go on, untouched */
        await until("the second page's frames to go on", () => b.page.evaluate((x) => viv.frames > x.frames + 60 && viv.shownTick > x.tick + 60, bBefore), 30000);
        const bTicks = b.log.frames.filter((f) => f.world === id).map((f) => f.tick);
        for (let i = 1; i < bTicks.length; i++) assert.ok(bTicks[i] > bTicks[i - 1], `the second page's ticks go forward (${bTicks[i - 1]} then ${bTicks[i]})`);
        assert.ok(bTicks.at(-1) > edge, "the second page is past the first page's live edge");
        assert.equal(await b.page.evaluate(() => viv.mismatches + viv.badFrames), 0);
        assert.equal(await a.page.evaluate(() => viv.shownTick), T, "the first page is still rewound");

        /* play the past at 400 % from there, then pause: still rewound, behind the world */
        await a.page.selectOption("#tl-speed", "400");
        await until("the speed set", async () => (await tlState(a.page)).play?.speed === 400 && (await tlState(a.page)).pending === 0);
        await click(a.page, "#tl-pause");
        await until("the past playing on", () => a.page.evaluate((t) => viv.shownTick > t + 30, T), 30000);
        await until("the timeline playing", async () => (await tlState(a.page)).play?.paused === false);
        await click(a.page, "#tl-pause");
        await until("paused again", async () => (await tlState(a.page)).play?.paused === true && (await tlState(a.page)).pending === 0);
        /* the frames sent before the pause's answer may not be drawn yet (the page draws at its
         * next animation frame): the picture settles on the tick the answer gave */
        const pausedAt = (await tlState(a.page)).tick;
        await until(`the picture at the paused tick ${pausedAt}`, () => a.page.evaluate((t) => viv.shownTick === t, pausedAt));
        const still = await a.page.evaluate(() => viv.shownTick);
        await until("the second page 30 frames on", () => b.page.evaluate((x) => viv.frames > x + 30, bBefore.frames + 60), 30000);
        assert.equal(await a.page.evaluate(() => viv.shownTick), still, "paused: the first page's picture stays");
        assert.ok((await tlState(a.page)).open);

        /* back to live */
        await click(a.page, "#tl-live");
        await until("live again", async () => !(await tlState(a.page)).open && (await a.page.evaluate((e) => viv.shownTick > e, edge)));
        assert.doesNotMatch(await a.page.evaluate(() => location.hash), /tick=/);
        assert.equal(await a.page.evaluate(() => viv.mismatches + viv.badFrames), 0);
        assert.deepEqual(a.problems, []);
        assert.deepEqual(b.problems, []);
    } finally {
        await a.ctx.close();
        await b.ctx.close();
    }
});

test("a link to a moment opens there; copy link gives one, without the token", { skip, timeout: 240000 }, async () => {
    const p = await page(`token=${PLAYER}&world=garden`, { clipboard: true });
    try {
        await until("the garden past tick 200", () => p.page.evaluate(() => viv.kind === "garden" && viv.shownTick > 200), 60000);
        assert.doesNotMatch(await p.page.evaluate(() => location.href), new RegExp(PLAYER));
        const id = await p.page.evaluate(() => viv.world);
        const session = await sessionOf(p.page, id);
        await click(p.page, "#tl-pause");
        await until("the timeline open", async () => (await tlState(p.page)).open);
        const T = 150;
        await p.page.evaluate((t) => viv.timelineOp("seek", { tick: t }), T);
        await until(`the timeline at ${T}`, async () => (await tlState(p.page)).tick === T && (await p.page.evaluate(() => viv.shownTick)) === T);
        await click(p.page, "#copy-link");
        const shown = await until("the link shown", () => p.page.evaluate(() => document.getElementById("moment-link").value));
        const copied = await until("the link copied", () => p.page.evaluate(() => navigator.clipboard.readText()));
        assert.equal(copied, shown);
        assert.doesNotMatch(copied, new RegExp(PLAYER));
        assert.doesNotMatch(copied, /token/);
        const u = new URL(copied);
        assert.equal(u.origin, `http://127.0.0.1:${live.httpPort}`);
        assert.deepEqual(Object.fromEntries(new URLSearchParams(u.hash.slice(1))), { world: String(id), tick: String(T) });

        /* opened in another tab (a viewer's, no token), it shows that tick's recorded frame */
        const q = await page(u.hash.slice(1));
        try {
            await until("the linked tab rewound", async () => (await tlState(q.page)).open);
            await showsRecorded(q.page, session, T);
            assert.equal(await q.page.evaluate(() => viv.world), id);
            assert.match(await q.page.evaluate(() => location.hash), new RegExp(`tick=${T}`));
            assert.deepEqual(q.problems, []);
        } finally {
            await q.ctx.close();
        }
    } finally {
        await p.ctx.close();
    }
});

test("a link to a recording's moment (#session=N&tick=T) opens the recording vivd plays there, with no token", { skip, timeout: 240000 }, async () => {
    /* a copy of the file vivd records to (sqlite3's online backup), played by a second vivd */
    const p = await page("world=sand");
    let play = null;
    try {
        await until("the sand past tick 200", () => p.page.evaluate(() => viv.kind === "sand" && viv.shownTick > 200), 60000);
        const session = await sessionOf(p.page, await p.page.evaluate(() => viv.world));
        const copy = path.join(live.dir, "copy.db");
        execFileSync("sqlite3", [db, `.backup ${copy}`]);
        play = await startVivd(["--play", `${copy}:${session}`, "--no-record"], { http: true });
        const T = 90;
        const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        try {
            const q = await openPage(ctx, `http://127.0.0.1:${play.httpPort}/#session=${session}&tick=${T}`);
            await until("the linked tab rewound", async () => (await tlState(q.page)).open);
            await until(`the page to show tick ${T}`, () => q.page.evaluate((x) => viv.shownTick === x && viv.verified && viv.canvasMismatches() === 0, T));
            assert.equal(await q.page.evaluate(() => viv.fh), recordedHashes(copy, session, T).fh);
            assert.equal(await q.page.evaluate(() => viv.role), "viewer");
            assert.equal((await q.page.evaluate(() => viv.playState)).session, session);
            const link = new URL(await q.page.evaluate(() => viv.momentLink()));
            assert.deepEqual(Object.fromEntries(new URLSearchParams(link.hash.slice(1))), { session: String(session), tick: String(T) });
            assert.deepEqual(q.problems, []);
        } finally {
            await ctx.close();
        }
    } finally {
        await p.ctx.close();
        if (play) await play.stop();
    }
});

test("play from here forks the moment shown into a new live world, whose first frame is that moment's", { skip, timeout: 240000 }, async () => {
    /* a viewer is told a token is needed, and nothing is sent */
    const v = await page("world=terrarium");
    try {
        await until("frames", () => v.page.evaluate(() => viv.shownTick > 10), 60000);
        await click(v.page, "#fork");
        await until("the note", async () => /needs a player token/.test(await v.page.locator("#notes").textContent()));
        assert.equal((await tlState(v.page)).forking, null);
    } finally {
        await v.ctx.close();
    }

    const p = await page(`token=${PLAYER}&world=terrarium`);
    try {
        await until("the terrarium past tick 240", () => p.page.evaluate(() => viv.kind === "terrarium" && viv.shownTick > 240), 60000);
        const from = await p.page.evaluate(() => viv.world);
        const parent = await sessionOf(p.page, from);
        const T = 180;
        await p.page.evaluate((t) => viv.timelineOp("seek", { tick: t }), T);
        await until(`the timeline at ${T}`, async () => (await tlState(p.page)).tick === T && (await p.page.evaluate(() => viv.shownTick)) === T);
        await click(p.page, "#fork");
        const fk = await until("forked", async () => (await tlState(p.page)).forks[0], 60000);
        assert.equal(fk.from, from);
        assert.equal(fk.tick, T);
        await until("the tab on the new world", () => p.page.evaluate((w) => viv.world === w && viv.verified && viv.shownTick >= 0, fk.world));
        assert.equal(await p.page.evaluate(() => viv.kind), "terrarium");
        assert.ok((await p.page.evaluate(() => viv.worlds)).some((w) => w.id === fk.world));

        /* the new world's first frame the tab got is the parent's recorded frame at its tick */
        const first = p.log.frames.find((f) => f.world === fk.world);
        assert.ok(first.key, "the first frame of the new world is a keyframe");
        assert.ok(first.tick >= T, `the new world starts at ${T} (its first frame: ${first.tick})`);
        assert.equal(first.fh, recordedHashes(db, parent, first.tick).fh, `the fork's frame at ${first.tick} is the parent's recorded one`);

        /* and its recording starts with the parent's moment: its frame at T, replayed from the
         * fork's own session, is the parent's recorded frame at T */
        const child = await sessionOf(p.page, fk.world);
        assert.notEqual(child, parent);
        const info = execFileSync(VIV, ["replay", "info", db, "--session", String(child)], { encoding: "utf8" });
        assert.match(info, new RegExp(`forked from session ${parent} at tick ${T}`));
        const ver = replayVerify(db, child);
        assert.equal(ver.verdict, "bit-exact", ver.out);
        assert.deepEqual(p.problems, []);
    } finally {
        await p.ctx.close();
    }
});
