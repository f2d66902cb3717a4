// inputs.test.mjs — the control schemes (clients/web/inputs.js), built from a real welcome:
// arguments by name, clamped to the welcome's ranges; the scheme by kind, with the fallback.
import test from "node:test";
import assert from "node:assert/strict";
import { Controls, CYCLE_SPEEDS, INPUTS_PER_TICK, WIND_STEP, stepOf } from "../../clients/web/inputs.js";
import { readWelcome, readWorld } from "../../clients/web/protocol.js";
import { load, welcome } from "./corpus.mjs";

const worlds = () => Object.fromEntries(readWelcome(welcome()).worlds.map((w) => [w.kind, w]));

test("each demo kind gets its scheme", () => {
    const w = worlds();
    assert.equal(new Controls(w.sand).scheme, "paint");
    assert.equal(new Controls(w.terrarium).scheme, "grab");
    assert.equal(new Controls(w.cycle).scheme, "cycle");
    assert.equal(new Controls(w.merge).scheme, "carry");
    assert.equal(new Controls(w.garden).scheme, "tend");
});

test("sand: paint starts with sand from the element enum, and every argument is clamped", () => {
    const c = new Controls(worlds().sand);
    assert.equal(c.element, 3, "names.element.sand");
    assert.deepEqual(c.paintEnum.values.slice(0, 4).map((e) => e.name), ["empty", "wall", "stone", "sand"]);
    assert.deepEqual(c.tools(), ["paint", "erase", "explode"]);
    assert.deepEqual(c.build("paint", { x: 10, y: 20, r: 5 }), { kind: "paint", args: [10, 20, 5, 3] });
    assert.deepEqual(c.build("paint", { x: 1e9, y: -1e9, r: 999, element: 99 }).args, [100000, -100000, 64, 13]);
    assert.deepEqual(c.build("explode", { x: 0, y: 0, r: 0 }).args, [0, 0, 1], "explode's r is 1..64");
    assert.equal(c.build("nosuch", {}), null);
    c.setBrush(500);
    assert.equal(c.brushRadius(), 64);
    c.setBrush(0.2);
    assert.equal(c.brushRadius(), 1);
});

test("sand: a stroke paints along its path within the budget; e and x switch the tool", () => {
    const c = new Controls(worlds().sand);
    c.setBrush(4);
    assert.deepEqual(c.pointer("down", 10.7, 10.2, 0), [{ kind: "paint", args: [10, 10, 4, 3] }]);
    const along = c.pointer("move", 30, 10, 1);
    assert.equal(along.length, 5, "a disc every 4 pixels over 20");
    assert.deepEqual(along.at(-1).args, [30, 10, 4, 3]);
    const far = c.pointer("move", 300, 170, 2);
    assert.equal(far.length, INPUTS_PER_TICK - 5, "what is left of this tick's budget");
    assert.equal(c.pointer("move", 30, 10, 3).length, 0, "none left in this tick");
    assert.equal(c.pointer("move", 300, 170, 30).length, 8, "at most 8 per event");
    assert.deepEqual(c.pointer("up", 30, 10, 40), []);
    assert.deepEqual(c.pointer("move", 50, 10, 41), [], "no stroke after the release");
    assert.ok(c.key("e", true).used);
    assert.equal(c.tool, "erase");
    assert.deepEqual(c.pointer("down", 5, 5, 100), [{ kind: "erase", args: [5, 5, 4] }]);
    c.key("x", true);
    assert.equal(c.tool, "explode");
    c.key("x", true);
    assert.equal(c.tool, "paint");
    c.key("4", true);
    assert.equal(c.element, 4, "water");
    c.key("]", true);
    assert.equal(c.brushRadius(), 5);
    assert.equal(c.key("q", true).used, false);
});

test("the stroke budget refills every world tick", () => {
    const c = new Controls(worlds().sand);
    c.setBrush(1);
    c.pointer("down", 0, 0, 0);
    let sent = 0;
    for (let i = 1; i <= 10; i++) sent += c.pointer("move", i * 8, 0, 0.5).length;
    assert.equal(sent, INPUTS_PER_TICK, "one tick's budget");
    assert.equal(c.pointer("move", 90, 0, 18).length, 8, "the next tick (60 Hz: 16.7 ms)");
});

test("terrarium: press grabs, motion drags, release lets go; hover points; the tools shove and spawn", () => {
    const c = new Controls(worlds().terrarium);
    assert.deepEqual(c.tools(), ["grab", "shove", "spawn"]);
    assert.deepEqual(c.pointer("move", 5, 6, 0), [{ kind: "pointer", args: [5, 6] }], "hover points");
    assert.deepEqual(c.pointer("move", 7, 6, 50), [], "at most every 200 ms");
    assert.deepEqual(c.pointer("down", 100, 50, 300), [{ kind: "grab", args: [100, 50] }]);
    assert.deepEqual(c.pointer("move", 110, 55, 301), [{ kind: "drag", args: [110, 55] }]);
    assert.deepEqual(c.pointer("move", 110, 55, 302), [], "no drag without motion");
    assert.deepEqual(c.pointer("up", 110, 55, 303), [{ kind: "release", args: [] }]);
    assert.deepEqual(c.leave(), []);
    c.pointer("down", 1, 1, 400);
    assert.deepEqual(c.leave(), [{ kind: "release", args: [] }], "leaving lets go");
    /* the number keys spawn the body enum's values where the pointer is */
    c.pointer("move", 40, 30, 1000);
    assert.deepEqual(c.key("2", true).inputs, [{ kind: "spawn", args: [2, 40, 30] }], "a scrambler");
    assert.deepEqual(c.key("7", true).inputs, [], "no body 7");
    assert.deepEqual(c.key("ArrowLeft", true).inputs, [{ kind: "shove", args: [40, 30, -16, 0] }]);
    c.tool = "shove";
    c.pointer("down", 100, 100, 2000);
    const sh = c.pointer("up", 400, 100, 2000 + 1000 / 40);
    assert.deepEqual(sh, [{ kind: "shove", args: [100, 100, 1000, 0] }], "a quick swipe, clamped to ±1000");
    c.tool = "spawn";
    c.spawnKind = 1;
    assert.deepEqual(c.pointer("down", 50, 60, 3000), [{ kind: "spawn", args: [1, 50, 60] }]);
});

test("merge: arrow keydown walks, its keyup stops, space drops at the hand, a click at the pointer", () => {
    const c = new Controls(worlds().merge);
    assert.deepEqual(c.key("ArrowRight", true), { inputs: [{ kind: "move", args: [1] }], used: true });
    assert.deepEqual(c.key("ArrowRight", true).inputs, [], "a held key repeats nothing");
    assert.deepEqual(c.key("ArrowLeft", true).inputs, [{ kind: "move", args: [-1] }]);
    assert.deepEqual(c.key("ArrowRight", false).inputs, [], "releasing the other key keeps walking");
    assert.deepEqual(c.key("ArrowLeft", false).inputs, [{ kind: "move", args: [0] }]);
    assert.deepEqual(c.key(" ", true).inputs, [{ kind: "drop", args: [-1] }]);
    assert.deepEqual(c.key(" ", false).inputs, []);
    assert.deepEqual(c.pointer("down", 500, 20, 0), [{ kind: "drop", args: [319] }], "x clamped to the range");
    assert.deepEqual(c.pointer("down", -5, 20, 0), [{ kind: "drop", args: [-1] }]);
    c.key("ArrowLeft", true);
    assert.deepEqual(c.leave(), [{ kind: "move", args: [0] }], "leaving stops the walk");
});

test("cycle: pause, speed steps clamped to the world's range, ranges toggled and blended", () => {
    const c = new Controls(worlds().cycle);
    assert.deepEqual(c.key(" ", true).inputs, [{ kind: "pause", args: [] }]);
    assert.deepEqual(c.key(" ", true).inputs, [{ kind: "resume", args: [] }]);
    assert.deepEqual(c.key("]", true).inputs, [{ kind: "speed", args: [150] }]);
    assert.deepEqual(c.cycleSpeed(5000), [{ kind: "speed", args: [400] }]);
    assert.deepEqual(c.cycleSpeed(1), [{ kind: "speed", args: [10] }]);
    c.key("3", true);
    assert.deepEqual(c.key("t", true).inputs, [{ kind: "toggle", args: [3] }]);
    assert.ok(c.cycle.off.has(3));
    assert.deepEqual(c.key("m", true).inputs, [{ kind: "mode", args: [3, 1] }]);
    assert.deepEqual(c.key("m", true).inputs, [{ kind: "mode", args: [3, 0] }]);
    assert.deepEqual(c.cycleRanges(), { lo: 0, hi: 15 });
    assert.equal(stepOf(CYCLE_SPEEDS, 100, 1), 150);
    assert.equal(stepOf(CYCLE_SPEEDS, 100, -1), 75);
    assert.equal(stepOf(CYCLE_SPEEDS, 80, -1), 75);
    assert.equal(stepOf(CYCLE_SPEEDS, 400, 1), 400);
    assert.equal(stepOf(CYCLE_SPEEDS, 10, -1), 10);
});

test("garden: a click pokes, a drag leads the target, keys set the wind, spawn and let go", () => {
    const c = new Controls(worlds().garden);
    assert.equal(c.spawnEnum.name, "creature");
    assert.deepEqual(c.spawnEnum.values.map((e) => e.name), ["serpent", "vine", "biped", "walker"]);
    /* a click: press and release in place */
    assert.deepEqual(c.pointer("down", 230.6, 160.2, 0), [], "a press alone sends nothing yet");
    assert.deepEqual(c.pointer("up", 230, 160, 10), [{ kind: "poke", args: [230, 160] }]);
    /* a drag: targets along the way, and no poke at the release */
    c.pointer("down", 100, 90, 100);
    assert.deepEqual(c.pointer("move", 100, 90, 101), [], "no motion, no target");
    assert.deepEqual(c.pointer("move", 120, 95, 102), [{ kind: "target", args: [120, 95] }]);
    assert.deepEqual(c.pointer("move", 999, -5, 103), [{ kind: "target", args: [319, -1] }], "clamped to the ranges");
    assert.deepEqual(c.pointer("up", 130, 96, 104), []);
    assert.deepEqual(c.key("t", true), { inputs: [{ kind: "target", args: [-1, -1] }], used: true });
    /* the wind: steps of WIND_STEP, clamped; down is calm; keyups do nothing */
    assert.deepEqual(c.key("ArrowRight", true).inputs, [{ kind: "wind", args: [WIND_STEP] }]);
    for (let i = 0; i < 8; i++) c.key("ArrowRight", true);
    assert.equal(c.wind, 100);
    assert.deepEqual(c.key("ArrowLeft", true).inputs, [{ kind: "wind", args: [100 - WIND_STEP] }]);
    assert.deepEqual(c.key("ArrowDown", true).inputs, [{ kind: "wind", args: [0] }]);
    assert.deepEqual(c.key("ArrowRight", false), { inputs: [], used: false });
    assert.deepEqual(c.setWind(-500), [{ kind: "wind", args: [-100] }]);
    /* 1..4 spawn serpent..walker at the pointer (the last place it was over the picture) */
    c.pointer("move", 40, 50, 200);
    assert.deepEqual(c.key("1", true).inputs, [{ kind: "spawn", args: [0, 40, 50] }]);
    assert.deepEqual(c.key("4", true).inputs, [{ kind: "spawn", args: [3, 40, 50] }]);
    assert.deepEqual(c.key("5", true), { inputs: [], used: false }, "no fifth creature");
    assert.deepEqual(c.spawnAt(2, 10, 20), [{ kind: "spawn", args: [2, 10, 20] }]);
});

test("a kind without a row gets the first scheme its inputs fit, else watch", () => {
    const base = { id: 9, seed: 1, params: "", tick: 0, hz: 30, w: 64, h: 64, views: ["normal"] };
    const grabby = readWorld({ ...base, kind: "aquarium", inputs: { grab: ["x", "y"], drag: ["x", "y"], release: [], paint: ["x", "y", "r", "colour"] },
                               ranges: { grab: [[0, 63], [0, 63]], drag: [[0, 63], [0, 63]], release: [], paint: [[0, 63], [0, 63], [1, 9], [0, 2]] },
                               names: { colour: { red: 0, green: 1, blue: 2 } } });
    const c = new Controls(grabby);
    assert.equal(c.scheme, "grab", "grab comes first in the fallback order");
    assert.deepEqual(c.pointer("down", 100, -4, 0), [{ kind: "grab", args: [63, 0] }], "clamped to the ranges");
    const painter = readWorld({ ...base, kind: "easel", inputs: { paint: ["x", "y", "r", "colour"] },
                                ranges: { paint: [[0, 63], [0, 63], [1, 9], [0, 2]] }, names: { colour: { red: 0, green: 1, blue: 2 } } });
    const p = new Controls(painter);
    assert.equal(p.scheme, "paint");
    assert.equal(p.paintEnum.name, "colour", "the enum named like one of paint's arguments");
    assert.equal(p.element, 1, "value 1 (0 is usually empty)");
    assert.deepEqual(p.build("paint", { x: 3, y: 4 }).args, [3, 4, 2, 1]);
    const still = new Controls(readWorld({ ...base, kind: "still", inputs: {}, ranges: {}, names: {} }));
    assert.equal(still.scheme, "watch");
    assert.deepEqual(still.pointer("down", 1, 1, 0), []);
    /* a sand world whose welcome lacks paint is not painted */
    const w = worlds().sand;
    const nopaint = new Controls({ ...w, inputs: w.inputs.filter((i) => i.name !== "paint") });
    assert.equal(nopaint.scheme, "watch");
});

test("a recording takes no inputs", () => {
    const rec = readWelcome(load("play.msgs")[0].msg).worlds[0];
    const c = new Controls(rec);
    assert.equal(c.recording, true);
    assert.deepEqual(c.pointer("down", 5, 5, 0), []);
    assert.deepEqual(c.key("e", true), { inputs: [], used: false });
});
