// timeline.test.mjs — clients/web/timeline.js against a stand-in for the viewer (no vivd): the ops
// that wait while vivd builds the timeline, a key pressed again before the answer, a recording's
// controls, and `open` with its answer and its refusals. The page with a real vivd:
// tests/browser/recordings.test.mjs and timeline.test.mjs.
import test from "node:test";
import assert from "node:assert/strict";
import { Timeline } from "../../clients/web/timeline.js";

const PLAY = { session: 2, start: 0, end: 300, paused: true, speed: 100, file: "rec.db" };
const entry = (id, play = PLAY) => ({ id, kind: "sand", tick: play ? play.start : 50, hz: 60, w: 320, h: 180, play: play && { ...play } });

/* The viewer's face that timeline.js uses: the world shown, the stream's tick, the socket (what
 * is sent is kept), and what the viewer does with a world, a note and a refusal. */
function viewer(worlds = [entry(1)]) {
    const v = {
        worlds, cur: worlds[0].id, subs: 1, state: "open", canInput: false,
        stream: { haveKey: true, tick: 0 },
        sent: [], notes: [], refusals: [],
        get world() { return this.worlds.find((w) => w.id === this.cur) ?? null; },
        conn: { send: (m) => { v.sent.push(m); return true; } },
        addWorld(w) { if (!this.worlds.some((x) => x.id === w.id)) this.worlds.push(w); },
        select(id) { if (id !== this.cur) { this.cur = id; this.subs++; } },
        note(text) { this.notes.push(text); },
        refused(e, what) { this.refusals.push(`${what}: ${e.msg} (${e.code})`); },
    };
    return v;
}
const ops = (v) => v.sent.filter((m) => m.t === "timeline").map((m) => (m.tick !== undefined ? `${m.op} ${m.tick}` : m.speed !== undefined ? `${m.op} ${m.speed}` : m.op));
const answer = (tl, world, tick, play = { ...PLAY }) => tl.feed({ t: "timeline", world, tick, live: false, play });

test("ops sent while the timeline is being built wait, and go once it is open", () => {
    const v = viewer(), tl = new Timeline(v);
    tl.seekTo(150);
    tl.setSpeed(400);
    tl.playToggle();
    assert.deepEqual(ops(v), ["seek 150"], "one op opens it; vivd would refuse the others meanwhile (world_busy)");
    answer(tl, 1, 150);
    assert.deepEqual(ops(v), ["seek 150", "speed 400", "resume"]);
    assert.equal(tl.pending, 2);
});

test("the op that would open the timeline refused: what waited for it goes too", () => {
    const v = viewer(), tl = new Timeline(v);
    tl.seekTo(150);
    tl.stepOn();
    assert.equal(tl.feed({ t: "error", code: "replay_failed", msg: "the file cannot be read" }), false, "the viewer notes it");
    assert.equal(tl.pending, 0);
    answer(tl, 1, 0);             /* a later answer releases nothing */
    assert.deepEqual(ops(v), ["seek 150"]);
});

test("a key pressed again before the answer goes on from what the first asked for", () => {
    const v = viewer(), tl = new Timeline(v);
    v.stream.tick = 100;
    answer(tl, 1, 100);
    tl.open = true;
    tl.setSpeed(200);
    tl.setSpeed(400);
    tl.seekTo(tl.recording().tick + 60);
    tl.seekTo(tl.recording().tick + 60);
    assert.deepEqual(ops(v), ["speed 200", "speed 400", "seek 160", "seek 220"]);
    assert.deepEqual(tl.recording(), { start: 0, end: 300, tick: 220, paused: true, speed: 400 });
    for (const t of [100, 100, 160, 220]) answer(tl, 1, t, { ...PLAY, speed: 400 });
    v.stream.tick = 220;
    assert.deepEqual(tl.recording(), { start: 0, end: 300, tick: 220, paused: true, speed: 400 }, "then vivd's word");
});

test("a recording's controls: playing, ◂ and ▸ pause first; nothing past either end; at the end, play starts over", () => {
    const v = viewer(), tl = new Timeline(v);
    answer(tl, 1, 100, { ...PLAY, paused: false });
    v.stream.tick = 120;
    tl.stepBack();
    assert.deepEqual(ops(v), ["pause", "back"]);
    for (let i = 0; i < 2; i++) answer(tl, 1, 119 + i);
    v.sent.length = 0;
    v.stream.tick = 0;
    answer(tl, 1, 0);
    assert.equal(tl.stepBack(), false, "no tick before the start");
    v.stream.tick = 300;
    assert.equal(tl.stepOn(), false, "none after the end");
    assert.equal(tl.recording().paused, true, "at the end it is paused, whatever the last answer said");
    tl.playToggle();
    assert.deepEqual(ops(v), ["seek 0", "resume"]);
});

test("open: the world vivd answers is listed and shown, and a link's tick is sought on this tab's timeline", () => {
    const v = viewer(), tl = new Timeline(v);
    assert.ok(tl.openSession(3, "", 200));
    assert.deepEqual(JSON.parse(JSON.stringify(v.sent)), [{ t: "open", session: 3 }], "no file: vivd's first");
    assert.ok(tl.opening(3));
    assert.equal(tl.feed({ t: "opened", world: entry(7, { ...PLAY, session: 3 }), session: 3, file: "rec.db" }), true);
    assert.equal(v.cur, 7);
    assert.deepEqual(v.worlds.map((w) => w.id), [1, 7]);
    assert.deepEqual(ops(v), ["seek 200"]);
    assert.equal(tl.opening(3), false);
    assert.match(v.notes.at(-1), /^session 3 of rec\.db: world 7, a recording$/);
    /* the world shown already: nothing more to say */
    tl.openSession(3, "rec.db");
    tl.feed({ t: "opened", world: entry(7, { ...PLAY, session: 3 }), session: 3, file: "rec.db" });
    assert.equal(v.notes.length, 1);
});

test("open refused: said in a sentence naming the session; an error the timeline shares stays the timeline's while one of its ops waits", () => {
    const v = viewer(), tl = new Timeline(v);
    tl.openSession(9, "rec.db");
    assert.equal(tl.feed({ t: "error", code: "unknown_session", msg: "rec.db holds no session 9" }), true);
    assert.deepEqual(v.refusals, ["session 9 of rec.db cannot be watched: rec.db holds no session 9 (unknown_session)"]);
    assert.equal(tl.opening(9), false);

    tl.seekTo(10);
    tl.openSession(4);
    assert.equal(tl.feed({ t: "error", code: "replay_failed", msg: "x" }), false, "the seek's: the viewer notes it");
    assert.equal(tl.pending, 0);
    assert.ok(tl.opening(4));
    assert.equal(tl.feed({ t: "error", code: "replay_failed", msg: "a damaged file" }), true, "now the open's");
    assert.equal(v.refusals.at(-1), "session 4 cannot be watched: a damaged file (replay_failed)");
});

test("another view of a recording (a new sub, which ends the timeline at vivd) lands where this tab was, as it was", () => {
    const v = viewer(), tl = new Timeline(v);
    answer(tl, 1, 140, { ...PLAY, paused: false });
    v.stream.tick = 150;
    tl.resubscribe(() => { v.subs++; });
    assert.equal(tl.open, false, "a new timeline");
    assert.deepEqual(ops(v), ["seek 150"]);
    answer(tl, 1, 150);
    assert.deepEqual(ops(v), ["seek 150", "resume"], "playing, it plays on");
    /* a live world, or a recording on the world's own position: nothing to carry */
    const w = viewer(), t2 = new Timeline(w);
    t2.resubscribe(() => { w.subs++; });
    assert.deepEqual(ops(w), []);
});

test("a live world rewound here and subscribed again (the view moved to another rect) lands where it was, paused or playing, at its speed", () => {
    const v = viewer([entry(1, null)]), tl = new Timeline(v);
    tl.send("pause");
    tl.feed({ t: "timeline", world: 1, tick: 900, live: false, play: { ...PLAY, end: 900, paused: true } });
    v.stream.tick = 880;
    tl.resubscribe(() => { v.subs++; });
    assert.deepEqual(ops(v), ["pause", "seek 880"], "paused where it was shown: a seek opens a new timeline paused");
    tl.feed({ t: "timeline", world: 1, tick: 880, live: false, play: { ...PLAY, end: 900, paused: true } });
    tl.send("speed", { speed: 400 });
    tl.send("resume");
    tl.feed({ t: "timeline", world: 1, tick: 880, live: false, play: { ...PLAY, end: 900, paused: true, speed: 400 } });
    tl.feed({ t: "timeline", world: 1, tick: 881, live: false, play: { ...PLAY, end: 900, paused: false, speed: 400 } });
    v.stream.tick = 890;
    v.sent.length = 0;
    tl.resubscribe(() => { v.subs++; });
    tl.feed({ t: "timeline", world: 1, tick: 890, live: false, play: { ...PLAY, end: 900, paused: true } });
    assert.deepEqual(ops(v), ["seek 890", "speed 400", "resume"], "playing at 400 %, it plays on at 400 %");
});

test("the view moves again before vivd answers: the new sub still lands where the tab was; the world's own frames meanwhile are not shown; going live carries nothing", () => {
    const v = viewer([entry(1, null)]), tl = new Timeline(v);
    tl.send("seek", { tick: 500 });
    tl.feed({ t: "timeline", world: 1, tick: 500, live: false, play: { ...PLAY, end: 900, paused: true } });
    v.stream.tick = 500;
    tl.resubscribe(() => { v.subs++; });
    assert.equal(tl.hides(500), false, "the tick the tab was at is shown");
    assert.equal(tl.hides(931), true, "the world's own frame, before the timeline's keyframe, is not");
    v.stream.tick = 931;                          /* the stream took it */
    tl.resubscribe(() => { v.subs++; });
    assert.deepEqual(ops(v), ["seek 500", "seek 500", "seek 500"], "still 500, not the live tick the stream holds");
    tl.feed({ t: "timeline", world: 1, tick: 500, live: false, play: { ...PLAY, end: 900, paused: true } });
    assert.equal(tl.hides(931), false, "open: whatever comes is the timeline's");
    tl.send("live");
    tl.resubscribe(() => { v.subs++; });
    assert.deepEqual(ops(v).slice(3), ["live"], "going live: the new sub is live");
    assert.equal(tl.hides(940), false);
});
