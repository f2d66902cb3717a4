// page_parts.test.mjs — the parts of the page that need no DOM, taken out of main.js: the frames
// kept for the PNG and GIF buttons (clients/web/recent.js) and the debug overlay's rect line
// (clients/web/overlay.js).
import test from "node:test";
import assert from "node:assert/strict";
import { Recent } from "../../clients/web/recent.js";
import { rectText } from "../../clients/web/overlay.js";
import { Camera } from "../../clients/web/camera.js";

const frame = (tick, w = 4, h = 2) => ({ w, h, tick, count: 2, pal: new Uint8Array([0, 0, 0, 255, 255, 255]), px: new Uint8Array(w * h).fill(tick & 1) });

test("recent: at most seconds × hz frames, copies of the stream's buffers, a new size starts over", async () => {
    const r = new Recent(2);
    const s = frame(0);
    for (let t = 0; t < 50; t++) {
        s.tick = t;
        s.px.fill(t & 1);
        r.keep(s, 10);
    }
    assert.equal(r.frames.length, 20, "2 s of a 10 Hz world");
    assert.deepEqual(r.frames.map((f) => f.tick), Array.from({ length: 20 }, (_, i) => 30 + i), "the newest, oldest first");
    assert.notEqual(r.frames.at(-1).px, s.px, "a copy, not the stream's buffer");
    assert.deepEqual([...r.frames[0].px], new Array(8).fill(0), "tick 30's pixels, though the buffer now holds tick 49's");
    r.keep(frame(50, 6, 3), 10);
    assert.deepEqual(r.frames.map((f) => f.tick), [50], "a frame of another size starts over");
    const png = await r.png();
    assert.equal(png.tick, 50);
    assert.deepEqual([...png.bytes.slice(1, 4)], [0x50, 0x4e, 0x47], "PNG");
    const gif = r.gif(3, 60);
    assert.equal(String.fromCharCode(...gif.bytes.slice(0, 6)), "GIF89a");
    assert.equal(await new Recent(5).png(), null);
    assert.equal(new Recent(5).gif(1, 60), null);
});

test("overlay: the rect line names the aligned rect, its share of the world, what was asked and a keyframe awaited", () => {
    const cam = new Camera();
    cam.setViewport(984, 738, 16, 16);
    cam.setWorld(2048, 1024);
    const viewer = { lens: { rect: [100, 50, 320, 180], aligned: [64, 0, 384, 256] }, stream: { rect: [64, 0, 384, 256] } };
    assert.equal(rectText(viewer, cam), "[64,0,384,256] 5% of the world  (asked [100,50,320,180])");
    viewer.stream.rect = [0, 0, 2048, 1024];
    assert.match(rectText(viewer, cam), /keyframe awaited$/);
    assert.equal(rectText({ lens: { rect: null }, stream: { rect: null } }, cam), "whole world");
    assert.equal(rectText({ lens: null, stream: {} }, cam), "whole world (here)");
});
