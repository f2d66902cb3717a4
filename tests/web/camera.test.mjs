// camera.test.mjs — where the page looks in a world (clients/web/camera.js), without a DOM: the
// zoom levels, zooming about a point, panning within the world, the rect to subscribe to and when
// to subscribe again, and the minimap's small picture.
import test from "node:test";
import assert from "node:assert/strict";
import { Camera, MiniPicture, levelName, scaleOf, zoomLevels } from "../../clients/web/camera.js";
import { alignRect } from "../../clients/web/protocol.js";

/* A 640×480 world in a 984×738 viewport (the page's stage at 1280×800, less the panel). */
function camera(W = 640, H = 480, vw = 984, vh = 738) {
    const c = new Camera();
    c.setViewport(vw, vh, 16, 16);
    c.setWorld(W, H);
    return c;
}
const inside = (a, b) => b[0] >= a[0] && b[1] >= a[1] && b[0] + b[2] <= a[0] + a[2] && b[1] + b[3] <= a[1] + a[3];

test("the levels: whole device pixels a frame pixel; at div 1, zoomed out by div too; the homage zooms in its own pixels", () => {
    assert.deepEqual(zoomLevels(1).map(levelName), ["1/8", "1/4", "1/2", "1", "2", "3", "4", "5", "6", "8", "10", "12", "16"]);
    assert.deepEqual(zoomLevels(1, false).map(levelName)[0], "1", "no div to zoom out by (a world run in the tab)");
    const homage = zoomLevels(3);
    assert.deepEqual(homage.slice(0, 3), [{ k: 1, d: 3 }, { k: 2, d: 3 }, { k: 3, d: 3 }]);
    for (const l of zoomLevels(1)) assert.ok(Number.isInteger(l.k) && l.k >= 1, "every level draws a frame pixel as whole device pixels");
});

test("fit: the largest level that shows the whole world, centred; a world too big for 1× is zoomed out by div", () => {
    const c = camera();
    assert.equal(levelName(c.level), "1");
    assert.ok(c.whole);
    assert.deepEqual(c.visible(), [0, 0, 640, 480]);
    assert.deepEqual([c.x0, c.y0], [-172, -129], "centred");
    assert.deepEqual(c.lens(), { rect: null, aligned: null, div: 1 }, "the whole world: no rect");
    const small = camera(320, 180);
    assert.equal(levelName(small.level), "3");
    const big = camera(4096, 2048);
    assert.equal(levelName(big.level), "1/8", "4096 wide: 512 at div 8 fits, 1024 at div 4 does not");
    assert.deepEqual(big.lens(), { rect: null, aligned: null, div: 8 });
    /* on a resize fit follows */
    small.setViewport(500, 400, 16, 16);
    assert.equal(levelName(small.level), "1");
});

test("the wheel's zoom is about the pointer: the world point under it stays under it", () => {
    const c = camera();
    const at = { x: 500, y: 338 }, before = c.toWorld(at.x, at.y);
    for (let i = 0; i < 3; i++) assert.ok(c.zoom(1, at.x, at.y));
    assert.equal(levelName(c.level), "4");
    assert.equal(c.fit, false);
    const after = c.toWorld(at.x, at.y);
    assert.ok(Math.abs(after.x - before.x) < 0.25 && Math.abs(after.y - before.y) < 0.25, `${JSON.stringify(before)} → ${JSON.stringify(after)}`);
    assert.ok(Number.isInteger(c.x0) && Number.isInteger(c.y0), "the picture on whole device pixels");
    assert.ok(!c.whole);
    /* and back out, to fit again on resizes when asked for */
    assert.ok(c.setLevel("fit"));
    assert.ok(c.whole && c.fit);
    assert.equal(c.zoom(-99, 0, 0), true);
    assert.equal(levelName(c.level), "1/8");
    assert.equal(c.zoom(-1, 0, 0), false, "no level below the last");
});

test("panning stops at the world's edges; a side smaller than the viewport stays centred", () => {
    const c = camera();
    c.setLevel(c.levels.findIndex((l) => levelName(l) === "4"));
    c.panBy(1e6, 1e6);
    assert.deepEqual([c.x0, c.y0], [0, 0]);
    assert.deepEqual(c.visible().slice(0, 2), [0, 0]);
    c.panBy(-1e6, -1e6);
    assert.deepEqual(c.visible(), [394, 295, 246, 185], "the bottom-right corner: the last 2,560 − 984 device pixels across");
    assert.equal(c.panBy(-10, 0), false, "at the edge: nothing moves");
    const wide = camera(640, 64);
    wide.setLevel(wide.levels.findIndex((l) => levelName(l) === "4"));
    assert.equal(wide.y0, -Math.round((738 - 256) / 2), "64 rows at 4× are 256 device pixels: centred in 738");
    wide.panBy(0, 500);
    assert.equal(wide.y0, -241);
    assert.ok(wide.centerOn(600, 10));
    assert.equal(wide.visible()[0] + wide.visible()[2], 640);
});

test("the rect subscribed: what is visible and half a region around it, on the grid; subscribed again when the view leaves it, or, zoomed in, once it is a quarter too big", () => {
    const c = camera();
    const whole = c.lens();
    assert.equal(c.plan(whole), "", "fit: the whole world serves");
    c.setLevel(c.levels.findIndex((l) => levelName(l) === "4"), 500, 338);
    const v = c.visible(), l = c.lens();
    assert.deepEqual(l.rect, [v[0] - 32, v[1] - 32, v[2] + 64, v[3] + 64]);
    assert.deepEqual(l.aligned, alignRect(l.rect, 640, 480));
    assert.ok(inside(l.aligned, v));
    assert.ok(l.aligned[2] * l.aligned[3] < 640 * 480 / 2, `the rect ${l.aligned} is less than half the world`);
    assert.equal(c.plan(whole), "idle", "the whole world still covers the view: a smaller rect once it stops");
    assert.equal(c.plan(l), "");
    assert.equal(c.plan(whole, false), "", "rects refused: the whole world it is");
    /* a small pan stays inside: no new sub; a long one leaves it */
    c.panBy(-40, 0);
    assert.equal(c.plan(l), "");
    c.panBy(-400, -300);
    assert.equal(c.plan(l), "now");
    const l2 = c.lens();
    assert.notDeepEqual(l2.aligned, l.aligned);
    assert.ok(inside(l2.aligned, c.visible()));
    /* zoomed out below 1×: another div, at once */
    c.setLevel(0);
    assert.equal(c.plan(l2), "now");
    assert.deepEqual(c.lens(), { rect: null, aligned: null, div: 8 });
    /* a big world zoomed out to div 2: the rect is in world pixels, its margin in frame pixels */
    const big = camera(4096, 2048);
    big.setLevel(big.levels.findIndex((x) => levelName(x) === "1/2"), 492, 369);
    const b = big.lens(), bv = big.visible();
    assert.equal(b.div, 2);
    assert.deepEqual(b.rect, [bv[0] - 64, bv[1] - 64, bv[2] + 128, bv[3] + 128]);
    assert.deepEqual(bv.slice(2), [1968, 1476], "984×738 device pixels at ½ a world pixel each");
});

test("the levels change (the homage on): the nearest in scale, about the middle", () => {
    const c = camera();
    c.setLevel(c.levels.findIndex((l) => levelName(l) === "4"));
    const mid = c.center();
    c.setLevels(zoomLevels(3));
    assert.deepEqual(c.level, { k: 12, d: 3 });
    assert.equal(scaleOf(c.level), 4);
    const now = c.center();
    assert.ok(Math.abs(now.x - mid.x) < 1 && Math.abs(now.y - mid.y) < 1);
});

test("the minimap's picture: a small pixel every m world pixels, taken from a rect at its place and div; the rest unseen", () => {
    const m = new MiniPicture();
    m.reset(640, 480, 160, 120);
    assert.deepEqual([m.m, m.mw, m.mh], [4, 160, 120]);
    /* a 128×64 rect at (64, 128), div 2: 64×32 frame pixels, each its own value */
    const fw = 64, fh = 32, px = new Uint8Array(fw * fh);
    for (let i = 0; i < px.length; i++) px[i] = i % 251;
    m.take(px, fw, fh, [64, 128, 128, 64], 2);
    const lut = Uint32Array.from({ length: 256 }, (_, i) => i), out = new Uint32Array(m.mw * m.mh);
    m.paint(lut, out, 999);
    /* small pixel (i, j) samples world (4i + 2, 4j + 2) */
    for (let j = 0; j < m.mh; j++) {
        for (let i = 0; i < m.mw; i++) {
            const wx = 4 * i + 2, wy = 4 * j + 2, inRect = wx >= 64 && wx < 192 && wy >= 128 && wy < 192;
            const want = inRect ? px[Math.floor((wy - 128) / 2) * fw + Math.floor((wx - 64) / 2)] : 999;
            assert.equal(out[j * m.mw + i], want, `(${i}, ${j})`);
        }
    }
    m.clear();
    m.paint(lut, out, 7);
    assert.ok(out.every((v) => v === 7), "another world: nothing seen");
});
