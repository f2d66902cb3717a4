// overlay.js — the debug overlay's text (` toggles it): what the stream, the hashes, the camera
// and the connection are doing, a line each. Without the DOM: it reads the viewer (viewer.js or
// local.js) and the camera (camera.js) it is given.
import { hex64 } from "./hash.js";
import { levelName } from "./camera.js";

/* scale: device pixels a frame pixel, as the page places the canvas (0 before the first). */
export function overlayText(viewer, cam, scale) {
    const s = viewer.stream, w = viewer.world, r = viewer.rates(), c = viewer.counts;
    const ok = s.hash === s.fh && viewer.verified;
    const kb = r.bps / 1000;
    return [
        `tick      ${s.tick < 0 ? "-" : s.tick}${w?.play ? `  (recording ${w.play.start}..${w.play.end})` : ""}`,
        `frames/s  ${r.fps.toFixed(1).padStart(5)}    bytes/s ${kb >= 1000 ? (kb / 1000).toFixed(2) + " MB" : kb.toFixed(1) + " KB"}`,
        `mismatch  ${c.mismatches}          bad frames ${c.badFrames}`,
        `fh        ${hex64(s.fh)} ${ok ? "✓" : "✗"}`,
        `computed  ${hex64(s.hash)}`,
        `stream    ${w ? `${w.kind} #${w.id}` : "-"}  ${w && w.views.includes(viewer.view) ? viewer.view : w?.views[0] ?? ""}  every ${viewer.every}  div ${viewer.lens?.div ?? viewer.div}  ${viewer.enc || "tile.zst"}`,
        `frame     ${s.w}×${s.h} ×${scale ? +scale.toFixed(2) : "?"}   apply ${viewer.applyMs.toFixed(2)} ms`,
        `rect      ${rectText(viewer, cam)}`,
        `view      ${cam.fit ? "fit " : ""}×${levelName(cam.level)}  [${cam.visible().join(",")}] of ${cam.W}×${cam.H}`,
        `inputs    ${c.inputs} sent  ${c.acks} acked  ${c.errors} errors${viewer.lastError ? ` (${viewer.lastError.code})` : ""}`,
        `link      ${viewer.state} ${viewer.role}  connects ${viewer.conn.connects}  resyncs ${c.resyncs}`,
        `events    ${c.events ?? 0}  ${viewer.lastEvent ? viewer.lastEvent.replace(/^event /, "") : "-"}`,
    ].join("\n");
}

/* The part of the world subscribed: the aligned rect the frames show (and what was asked), or
 * the whole world. */
export function rectText(viewer, cam) {
    const l = viewer.lens, r = viewer.stream.rect;
    if (!l) return "whole world (here)";
    if (!l.rect) return `whole world${r ? `  (shown [${r.join(",")}] until its keyframe)` : ""}`;
    const a = l.aligned, pct = Math.round(100 * a[2] * a[3] / (cam.W * cam.H));
    return `[${a.join(",")}] ${pct}% of the world  (asked [${l.rect.join(",")}])${String(r) === String(a) ? "" : "  keyframe awaited"}`;
}
