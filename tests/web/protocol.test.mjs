// protocol.test.mjs — the messages (clients/web/protocol.js): a real welcome read into worlds,
// the maps the page sends, and messages the page must refuse.
import test from "node:test";
import assert from "node:assert/strict";
import { encode } from "../../clients/web/vendor/msgpack.js";
import { ProtocolError, alignRect, decodeMessage, encodeMessage, eventLines, hello, input, open, play, readError,
         readOpened, readRect, readWelcome, readWorld, sub, u64, num } from "../../clients/web/protocol.js";
import { load, welcome } from "./corpus.mjs";

test("a real welcome gives every demo world with its inputs, ranges and names", () => {
    const wl = readWelcome(welcome());
    assert.equal(wl.role, "player");
    assert.deepEqual(wl.worlds.map((w) => w.kind), ["sand", "terrarium", "cycle", "merge", "garden"]);
    const sand = wl.worlds[0];
    assert.equal(sand.w, 320);
    assert.equal(sand.h, 180);
    assert.equal(sand.hz, 60);
    assert.equal(typeof sand.seed, "bigint");
    const paint = sand.inputs.find((i) => i.name === "paint");
    assert.deepEqual(paint.args.map((a) => a.name), ["x", "y", "r", "element"]);
    assert.deepEqual(paint.args[2], { name: "r", lo: 0, hi: 64 });
    assert.equal(sand.names.element.sand, 3);
    const terra = wl.worlds[1];
    assert.deepEqual(terra.views, ["normal", "xray"]);
    assert.deepEqual(terra.inputs.find((i) => i.name === "release").args, []);
    assert.equal(wl.worlds[3].inputs.find((i) => i.name === "drop").args[0].lo, -1);
    assert.equal(sand.play, null);
});

test("a recording's welcome carries its play map", () => {
    const m = load("play.msgs")[0].msg;
    const w = readWelcome(m).worlds[0];
    assert.ok(w.play);
    assert.equal(w.play.paused, true);
    assert.ok(w.play.end > w.play.start);
    assert.equal(w.play.session, 1);
});

test("u64 hashes keep every bit; small ones come as numbers and are widened", () => {
    const big = decodeMessage(encode({ t: "frame", fh: 0xfedcba9876543210n }, { useBigInt64: true }));
    assert.equal(u64(big.fh), 0xfedcba9876543210n);
    const small = decodeMessage(encode({ t: "frame", fh: 5 }));
    assert.equal(u64(small.fh), 5n);
    assert.equal(num(10n), 10);
    assert.throws(() => num(2n ** 60n), ProtocolError);
    assert.throws(() => u64(-1), ProtocolError);
});

test("the page's messages are the maps of docs/PROTOCOL.md, with absent options left out", () => {
    const rt = (o) => decodeMessage(encodeMessage(o));
    assert.deepEqual(rt(hello("viv-web", "")), { t: "hello", v: 1, name: "viv-web" });
    assert.deepEqual(rt(hello("viv-web", "tok")), { t: "hello", v: 1, name: "viv-web", token: "tok" });
    assert.deepEqual(rt(sub(3)), { t: "sub", world: 3 });
    assert.deepEqual(rt(sub(3, { every: 3, enc: "tile", view: "xray" })), { t: "sub", world: 3, every: 3, enc: "tile", view: "xray" });
    assert.deepEqual(rt(sub(3, { every: 1 })), { t: "sub", world: 3 });
    assert.deepEqual(rt(sub(3, { every: 3, div: 3 })), { t: "sub", world: 3, every: 3, div: 3 });   /* the homage */
    assert.deepEqual(rt(sub(3, { div: 1 })), { t: "sub", world: 3 });
    assert.deepEqual(rt(sub(3, { events: true })), { t: "sub", world: 3, events: true });
    assert.deepEqual(rt(sub(3, { events: false })), { t: "sub", world: 3 });
    assert.deepEqual(rt(sub(3, { rect: [10, -4.4, 200, 100.6], div: 2 })), { t: "sub", world: 3, div: 2, rect: [10, -4, 200, 101] });
    assert.deepEqual(rt(sub(3, { rect: null })), { t: "sub", world: 3 });
    assert.deepEqual(rt(input(1, 7, "drop", [-1])), { t: "input", world: 1, seq: 7, kind: "drop", args: [-1] });
    assert.deepEqual(rt(play(1, "seek", { tick: 120 })), { t: "play", world: 1, op: "seek", tick: 120 });
    assert.deepEqual(rt(play(1, "speed", { speed: 200, tick: 5 })), { t: "play", world: 1, op: "speed", speed: 200 });
    assert.deepEqual(rt(play(1, "pause", { speed: 200 })), { t: "play", world: 1, op: "pause" });
    assert.deepEqual(rt(open(2, "rec.db")), { t: "open", session: 2, file: "rec.db" });
    assert.deepEqual(rt(open(2, "")), { t: "open", session: 2 });      /* vivd's first file */
    assert.deepEqual(rt(open(2)), { t: "open", session: 2 });
    /* the smallest integer forms: "seq" then 7 as one byte (a positive fixint) */
    const b = Buffer.from(encodeMessage(input(1, 7, "x", [0]))).toString("hex");
    assert.ok(b.includes("a373657107"), b);
});

test("opened reads into the world that shows the session, the session and the file", () => {
    const entry = load("play.msgs")[0].msg.worlds[0];
    const o = readOpened(decodeMessage(encode({ t: "opened", world: entry, session: 1, file: "rec.db" })));
    assert.equal(o.world.id, entry.id);
    assert.equal(o.world.play.session, 1);
    assert.equal(o.session, 1);
    assert.equal(o.file, "rec.db");
    assert.throws(() => readOpened({ t: "opened", session: 1, file: "rec.db" }), /no map 'world'/);
    assert.throws(() => readOpened({ t: "opened", world: entry, file: "rec.db" }), /no int 'session'/);
});

test("what is not one msgpack map with a string t is refused", () => {
    assert.throws(() => decodeMessage(new Uint8Array(0)), ProtocolError);
    assert.throws(() => decodeMessage(encode([1, 2])), /not a msgpack map/);
    assert.throws(() => decodeMessage(encode({ x: 1 })), /string 't'/);
    assert.throws(() => decodeMessage(Uint8Array.from([...encode({ t: "ack" }), 0])), /not one msgpack value/);
    assert.throws(() => decodeMessage(Uint8Array.from([0x81, 0xa1])), ProtocolError);
    assert.throws(() => readWelcome({ t: "welcome", v: 2, worlds: [] }), /protocol 2/);
    assert.throws(() => readWorld({ id: 1, kind: "sand" }), /no int 'tick'/);
});

test("errors read into code, sentence and seq", () => {
    assert.deepEqual(readError({ t: "error", code: "bad_input", msg: "paint: r=999 is out of range 0..64", seq: 4 }),
                     { code: "bad_input", msg: "paint: r=999 is out of range 0..64", seq: 4 });
    assert.deepEqual(readError({ t: "error", code: "forbidden", msg: "m" }), { code: "forbidden", msg: "m", seq: null });
});

test("an events message reads as the lines viv sim --events prints; malformed entries are left out", () => {
    const m = decodeMessage(encodeMessage({ t: "events", world: 2, tick: 4117, events: [
        { name: "brain", fields: { creature: 0, species: "lizard", from: "stalk", to: "lunge" } },
        { name: "merge", fields: { tier: 3, x: -12 } },
        { fields: { no: "name" } },
        { name: "bare" },
    ] }));
    assert.deepEqual(eventLines(m), [
        "event 4117 brain creature=0 species=lizard from=stalk to=lunge",
        "event 4117 merge tier=3 x=-12",
        "event 4117 bare",
    ]);
    assert.deepEqual(eventLines({ t: "events", world: 2, tick: 1 }), []);
});

test("a rect is widened to the 64-pixel region grid and clipped to the world, as docs/PROTOCOL.md says", () => {
    assert.deepEqual(alignRect([64, 128, 64, 64], 640, 480), [64, 128, 64, 64], "on the grid: as asked");
    assert.deepEqual(alignRect([70, 130, 100, 10], 640, 480), [64, 128, 128, 64], "widened both ways");
    assert.deepEqual(alignRect([600, 450, 100, 100], 640, 480), [576, 448, 64, 32], "clipped at the corner");
    assert.deepEqual(alignRect([-30, -500, 40, 520], 640, 480), [0, 0, 64, 64], "negative x and y count as 0");
    assert.deepEqual(alignRect([5000, 9000, 10, 10], 640, 480), [576, 448, 64, 32], "wholly outside: the region at the nearest edge");
    assert.deepEqual(alignRect([-300, 100, 10, 10], 640, 480), [0, 64, 64, 64], "wholly left of it");
    assert.deepEqual(alignRect([0, 0, 640, 480], 640, 480), [0, 0, 640, 480]);
    assert.deepEqual(alignRect([0, 0, 100, 50], 100, 50), [0, 0, 100, 50], "a world smaller than a region");
});

test("a frame's rect reads as [x, y, w, h]; anything else is refused", () => {
    assert.equal(readRect(undefined), null);
    assert.deepEqual(readRect([64, 0, 128n, 64]), [64, 0, 128, 64]);
    for (const bad of [[1, 2, 3], [0, 0, 0, 64], [-64, 0, 64, 64], "0,0,64,64", [0, 0, 64, 1.5]])
        assert.throws(() => readRect(bad), ProtocolError, JSON.stringify(bad));
});
