// main.js — the page: draws what viewer.js keeps (the worlds, the picture, the counters) and turns
// the mouse, touch and keys into what inputs.js builds. Everything that can run without a DOM
// lives in the other modules; this one only wires them to the document.
//
// The address's fragment sets the start: #token=T&world=ID|KIND&view=NAME&every=N&div=D&enc=E&debug=1
// (zoom=Z&at=X,Y: zoomed in at Z, the world point X,Y in the middle),
// or #local=KIND&seed=N&params=P: a world run in this tab with no server (local.js); session=N (and
// file=F when it is not vivd's first file) opens that recorded session (`open`); tick=T (with
// world=ID or session=N) opens this tab's timeline at tick T. In a cluster, hosts=H:P,H:P (other
// relays' HTTP addresses) are where the page goes when its server goes away.
import { Viewer } from "./viewer.js";
import { LocalViewer } from "./local.js";
import { loadSim } from "./sim.js";
import { CYCLE_SPEEDS, PLAY_SPEEDS, stepOf } from "./inputs.js";
import { wsUrl, wsUrls } from "./conn.js";
import { buildLut, paint } from "./palette.js";
import { Recent } from "./recent.js";
import { overlayText } from "./overlay.js";
import { Recordings } from "./recordings.js";
import { $, el, seg as segOf, slider, check, keys, download } from "./dom.js";
import { Timeline } from "./timeline.js";
import { Camera, MiniPicture, levelName, zoomLevels } from "./camera.js";

/* ---- start-up: the fragment ------------------------------------------------------------------- */
const frag = new URLSearchParams(location.hash.slice(1));
const canvas = $("screen"), stage = $("stage"), overlay = $("overlay");
const ctx = canvas.getContext("2d", { alpha: false });
let image = null, image32 = null;
const lut = new Uint32Array(256);
let dirty = false, lutDirty = true, shownTick = -1;
const cam = new Camera();     /* where this tab looks in the world (camera.js) */

/* The sim module (vivd serves it at /vivarium.wasm), loaded once, when first needed: to verify a
 * recording or to run a world here. */
let simLoading = null;
const sim = () => (simLoading ??= loadSim(fetch("vivarium.wasm")));

const callbacks = {
    onFrame: (r) => {
        if (r.palette) lutDirty = true;
        dirty = true;
    },
    onChange: () => { scheduleUi(); rec.checkLink(); openMoment(); },
    onNote: () => scheduleUi(),
    onExtra: (m) => tl?.feed(m) || rec.message(m),
};
const localKind = frag.get("local");
let localFailed = null;
const badHosts = [];
let tl = null;             /* this tab's timeline on the world shown (timeline.js) */
const viewer = localKind !== null ? await startLocal() : new Viewer({
    urls: wsUrls(location, frag.get("hosts"), badHosts),
    token: frag.get("token") ?? "",
    want: {
        world: frag.get("world"),
        view: frag.get("view") ?? "",
        every: Number(frag.get("every")) || 1,
        div: Number(frag.get("div")) || 1,
        enc: frag.get("enc") ?? "",
    },
    lens: (w) => lensOf(w),
    ...callbacks,
});

/* #local=KIND&seed=N&params=P: the world runs here, from the seed, with no server. */
async function startLocal() {
    try {
        return new LocalViewer(await sim(), {
            kind: localKind, seed: /^\d+$/.test(frag.get("seed") ?? "") ? BigInt(frag.get("seed")) : 1n,
            params: frag.get("params") ?? "", view: frag.get("view") ?? "", every: Number(frag.get("every")) || 1,
            div: Number(frag.get("div")) || 1, ...callbacks,
        });
    } catch (e) {
        localFailed = `cannot run a world here: ${e.message}`;
        console.error(localFailed);
        return new Viewer({ url: wsUrl(location), token: frag.get("token") ?? "", want: { world: localKind }, ...callbacks });
    }
}
const isLocal = viewer instanceof LocalViewer;
if (!isLocal) tl = new Timeline(viewer, { onChange: () => scheduleUi() });
/* The recordings vivd can hand out, watched or verified here (recordings.js). */
const rec = new Recordings({ viewer, isLocal, sim, timeline: () => tl, changed: () => scheduleUi() });

/* #world=ID&tick=T, #session=N(&file=F)(&tick=T): once connected, the world is shown (for a
 * session, the one vivd answers `open` with: hosted already, or read for this) and this tab's
 * timeline seeks to T. Once only; vivd's refusal is noted. */
const fragInt = (k) => (/^\d+$/.test(frag.get(k) ?? "") ? Number(frag.get(k)) : null);
let moment = isLocal || (fragInt("tick") === null && !fragInt("session")) ? null
    : { tick: fragInt("tick"), session: fragInt("session") || null, file: frag.get("file") ?? "" };
function openMoment() {
    if (!moment || viewer.state !== "open" || (moment.session === null && !viewer.worlds.length)) return;
    const m = moment;
    moment = null;
    if (m.session !== null) tl.openSession(m.session, m.file, m.tick);
    else tl.send("seek", { tick: m.tick });
}

/* Keep the fragment in step with what is watched, so a reload comes back to it. */
function saveFragment() {
    const h = fragmentNow();
    if (h !== location.hash.slice(1)) history.replaceState(null, "", h ? `#${h}` : location.pathname + location.search);
}
/* The same once the view has stopped moving for FRAGMENT_MS (the browser limits how often the
 * address may change, and a drag moves the view on every event). */
const FRAGMENT_MS = 400;
let fragTimer = null;
function saveFragmentSoon() {
    clearTimeout(fragTimer);
    fragTimer = setTimeout(saveFragment, FRAGMENT_MS);
}

/* The view, when zoomed in: zoom=Z&at=X,Y (the world point in the middle). */
function saveView(f) {
    if (cam.fit || !viewer.world) return;
    const c = cam.center();
    f.set("zoom", levelName(cam.level));
    f.set("at", `${Math.round(c.x)},${Math.round(c.y)}`);
}

function fragmentNow() {
    const f = new URLSearchParams();
    if (isLocal) {
        const w = viewer.world;
        f.set("local", w.kind);
        f.set("seed", String(viewer.seed));
        if (w.params) f.set("params", w.params);
        if (viewer.view) f.set("view", viewer.view);
        if (viewer.every !== 1) f.set("every", String(viewer.every));
        if (viewer.div !== 1) f.set("div", String(viewer.div));
        saveView(f);
        if (!overlay.hidden) f.set("debug", "1");
        return f.toString();
    }
    /* Never the token: the address is what gets copied and shared. Read once at load (and kept
     * by the connection), it leaves the address here, at the first save (issue 29). */
    if (frag.get("hosts")) f.set("hosts", frag.get("hosts"));
    const p = viewer.world?.play;
    /* a recording by its session (a world vivd opened for viewers goes when unwatched; the
     * session is opened again) */
    if (p && !moment) {
        f.set("session", String(p.session));
        if (rec.fileParam(p)) f.set("file", rec.fileParam(p));
    } else if (viewer.cur !== null) f.set("world", String(viewer.cur));
    if (moment) {             /* a link's moment not opened yet stays */
        if (moment.session !== null) f.set("session", String(moment.session));
        if (moment.file) f.set("file", moment.file);
        if (moment.tick !== null) f.set("tick", String(moment.tick));
    } else if (tl?.sync().open && tl.tick !== null) f.set("tick", String(tl.tick));
    if (viewer.view) f.set("view", viewer.view);
    if (viewer.every !== 1) f.set("every", String(viewer.every));
    if (viewer.div !== 1) f.set("div", String(viewer.div));
    if (viewer.enc) f.set("enc", viewer.enc);
    saveView(f);
    if (!overlay.hidden) f.set("debug", "1");
    return f.toString();
}

/* ---- drawing: the camera (camera.js) ------------------------------------------------------------ */
/* The canvas holds the frame as it came (the whole world, or the rect subscribed, at its div) and
 * is placed where that part of the world is on the screen: its pixels stay whole blocks of device
 * pixels, and panning moves the element, not the pixels. */
const shown = { rect: null, div: 1, w: 0, h: 0 };   /* what the canvas holds (nothing yet) */
let camWorld = null;      /* the world the camera is set for */

/* The levels of zoom this stream offers: its own frame pixels at the homage's (or the address's)
 * div; from div 1, zooming out by div too (a served world: vivd downsamples). */
const levelsNow = () => zoomLevels(viewer.div, !isLocal);
/* Rects for the part in view: a served world at div 1, while vivd has not refused them. */
const rectsOk = () => !isLocal && viewer.div === 1 && performance.now() >= viewer.rectsOff;
const worldSize = () => ({ W: viewer.world?.w || viewer.stream.w || 320, H: viewer.world?.h || viewer.stream.h || 180 });

/* The stage as the camera's viewport. On a narrow screen the stage is as tall as the world's
 * picture needs (at most 62 % of the screen), since the panel goes below it. */
function measure() {
    const { W, H } = worldSize(), dpr = window.devicePixelRatio || 1;
    const narrow = window.matchMedia("(max-width: 820px)").matches;
    stage.style.height = narrow ? `${Math.round(Math.min(window.innerHeight * 0.62, stage.clientWidth * H / W + 1)) + 16}px` : "";
    cam.setWorld(W, H);
    cam.setLevels(levelsNow());
    cam.setViewport(stage.clientWidth * dpr, stage.clientHeight * dpr, narrow ? 0 : 16 * dpr, 16 * dpr);
}

/* The camera for world w: at fit when the tab changes (or where the address says, once). */
let startView = frag.get("zoom") ? { zoom: frag.get("zoom"), at: (frag.get("at") ?? "").split(",").map(Number) } : null;
function follow(w) {
    if (w && w.id !== camWorld) {
        camWorld = w.id;
        cam.fit = true;
        mini.clear();
    }
    measure();
    const v = startView;
    if (!v || !w) return;
    startView = null;
    const i = cam.levels.findIndex((l) => levelName(l) === v.zoom);
    if (i >= 0) cam.setLevel(i);
    if (v.at.length === 2 && v.at.every(Number.isFinite)) cam.centerOn(v.at[0], v.at[1]);
}

/* What the viewer subscribes to (asked at each sub): the part of the world in view. */
function lensOf(w) {
    follow(w);
    return cam.lens(rectsOk());
}

/* The canvas where its part of the world is on the screen. */
function place() {
    const dpr = window.devicePixelRatio || 1, s = cam.scale, r = shown.rect ?? [0, 0, cam.W, cam.H];
    const p = cam.toScreen(r[0], r[1]), k = shown.div * s;
    canvas.style.left = `${Math.round(p.x) / dpr}px`;
    canvas.style.top = `${Math.round(p.y) / dpr}px`;
    canvas.style.width = `${Math.max(1, Math.round(shown.w * k)) / dpr}px`;
    canvas.style.height = `${Math.max(1, Math.round(shown.h * k)) / dpr}px`;
    place.scale = k;      /* device pixels a frame pixel */
    canvas.style.visibility = shown.w ? "visible" : "hidden";
    const zoomed = !cam.whole;
    stage.classList.toggle("zoomed", zoomed);
    minimap.hidden = !zoomed;
}

/* Everything that follows the camera: the picture, the minimap, the subscription, the zoom
 * control, the address. */
function layout() {
    follow(viewer.world);
    afterCamera();
}
function afterCamera() {
    place();
    mini.dirty = true;
    planLens();
    const z = $("zoom");
    if (z && document.activeElement !== z) z.value = cam.fit ? "fit" : levelName(cam.level);
    saveFragmentSoon();
}

/* A new sub when the view leaves what is subscribed (at most one every LENS_THROTTLE_MS while
 * it moves: not one per pixel of a drag), or, when what is subscribed is much more than the view
 * (zoomed in), once the view has been still for LENS_IDLE_MS. */
const LENS_THROTTLE_MS = 150, LENS_IDLE_MS = 250;
const lensTimer = { id: null, when: "", at: -Infinity };
function planLens() {
    if (isLocal || !viewer.world || viewer.state !== "open") return;
    const when = cam.plan(viewer.lens, rectsOk()), t = lensTimer;
    if (!when || (t.id !== null && t.when === "now")) {
        if (!when && t.id !== null) clearTimeout(t.id), t.id = null;
        return;
    }
    clearTimeout(t.id);
    t.when = when;
    t.id = setTimeout(applyLens, when === "now" ? Math.max(0, t.at + LENS_THROTTLE_MS - performance.now()) : LENS_IDLE_MS);
}
function applyLens() {
    lensTimer.id = null;
    if (!viewer.world || viewer.state !== "open" || !cam.plan(viewer.lens, rectsOk())) return;
    lensTimer.at = performance.now();
    resub(() => viewer.resubscribe());
}

function draw() {
    requestAnimationFrame(draw);
    const s = viewer.stream;
    /* (not the world's own frames while this tab's timeline is opened again where it was) */
    if (dirty && viewer.verified && s.haveKey && !tl?.hides(s.tick)) paintFrame(s);
    if (mini.dirty && performance.now() - mini.at >= MINI_MS) drawMini();
}

function paintFrame(s) {
    dirty = false;
    if (!image || image.width !== s.w || image.height !== s.h) {
        canvas.width = s.w;
        canvas.height = s.h;
        ctx.imageSmoothingEnabled = false;
        image = ctx.createImageData(s.w, s.h);
        image32 = new Uint32Array(image.data.buffer);
        lutDirty = true;
    }
    /* a palette-only frame repaints through a new table, with no pixel decoded */
    if (lutDirty) buildLut(s.pal, s.count, lut);
    lutDirty = false;
    paint(s.px, lut, image32);
    ctx.putImageData(image, 0, 0);
    shownTick = s.tick;
    const div = isLocal ? viewer.div : s.div;
    if (String(s.rect) !== String(shown.rect) || div !== shown.div || s.w !== shown.w || s.h !== shown.h) {
        Object.assign(shown, { rect: s.rect && [...s.rect], div, w: s.w, h: s.h });
        place();
    }
    mini.dirty = true;
    recent.keep(s, viewer.world?.hz || 60);
}

/* ---- the minimap: the whole world small, the view on it ------------------------------------- */
/* It shows the frames this tab received, one connection and one subscription (vivd serves one
 * per world and connection): the part subscribed is live, the rest as it was last seen here, dimmed.
 * A second, low-resolution subscription would need a second connection, and would show the world's
 * present while this tab is rewound. */
const minimap = $("minimap"), mctx = minimap.getContext("2d", { alpha: false });
const mini = new MiniPicture();
const MINI_MS = 100;      /* redrawn at most 10 times a second */
let miniImage = null;

function drawMini() {
    mini.dirty = false;
    mini.at = performance.now();
    if (minimap.hidden) return;
    const s = viewer.stream, dpr = window.devicePixelRatio || 1;
    const maxW = Math.min(220, stage.clientWidth / 3) * dpr, maxH = Math.min(140, stage.clientHeight / 3) * dpr;
    const key = `${camWorld} ${viewer.view} ${cam.W}x${cam.H} ${Math.round(maxW)}x${Math.round(maxH)}`;
    if (mini.key !== key) {
        mini.reset(cam.W, cam.H, maxW, maxH);
        mini.key = key;
        minimap.width = mini.mw;
        minimap.height = mini.mh;
        minimap.style.width = `${mini.mw / dpr}px`;
        minimap.style.height = `${mini.mh / dpr}px`;
        miniImage = mctx.createImageData(mini.mw, mini.mh);
    }
    if (viewer.verified && s.haveKey && shownTick === s.tick) mini.take(s.px, s.w, s.h, shown.rect ?? [0, 0, cam.W, cam.H], shown.div);
    if (lutDirty) return;
    mini.paint(lut, new Uint32Array(miniImage.data.buffer), 0xff0a0807);
    mctx.putImageData(miniImage, 0, 0);
    const m = mini.m, box = (r) => [r[0] / m, r[1] / m, r[2] / m, r[3] / m];
    /* what is not live is dimmed; the view is outlined */
    const live = box(shown.rect ?? [0, 0, cam.W, cam.H]);
    mctx.fillStyle = "rgba(7, 8, 10, 0.55)";
    mctx.beginPath();
    mctx.rect(0, 0, mini.mw, mini.mh);
    mctx.rect(live[0], live[1], live[2], live[3]);
    mctx.fill("evenodd");
    const v = box(cam.visible()), lw = Math.max(1, Math.round(dpr));
    mctx.lineWidth = lw;
    mctx.strokeStyle = "#7fd39a";
    mctx.strokeRect(Math.round(v[0]) + lw / 2, Math.round(v[1]) + lw / 2, Math.max(1, Math.round(v[2]) - lw), Math.max(1, Math.round(v[3]) - lw));
}

/* A press or a drag on the minimap moves the view there. */
const miniAt = (ev) => {
    const r = minimap.getBoundingClientRect();
    return { x: ((ev.clientX - r.left) / r.width) * cam.W, y: ((ev.clientY - r.top) / r.height) * cam.H };
};
let miniDrag = null;
minimap.addEventListener("pointerdown", (ev) => {
    ev.stopPropagation();
    ev.preventDefault();
    miniDrag = ev.pointerId;
    minimap.setPointerCapture(ev.pointerId);
    const p = miniAt(ev);
    if (cam.centerOn(p.x, p.y)) afterCamera();
});
minimap.addEventListener("pointermove", (ev) => {
    if (ev.pointerId !== miniDrag) return;
    ev.stopPropagation();
    const p = miniAt(ev);
    if (cam.centerOn(p.x, p.y)) afterCamera();
});
const miniEnd = (ev) => { if (ev.pointerId === miniDrag) miniDrag = null; ev.stopPropagation(); };
minimap.addEventListener("pointerup", miniEnd);
minimap.addEventListener("pointercancel", miniEnd);

/* ---- the picture as a file: PNG of the frame shown, GIF of the last GIF_SECONDS (snap.js) ---- */
const GIF_SECONDS = 5;
const recent = new Recent(GIF_SECONDS);
const snapName = (ext, tick) => `${viewer.world?.kind ?? "vivarium"}-${tick}.${ext}`;
async function savePng() {
    const f = await recent.png();
    if (f) download(f.bytes, "image/png", snapName("png", f.tick));
}
function saveGif() {
    const f = recent.gif(viewer.every, viewer.world?.hz || 60);
    if (f) download(f.bytes, "image/gif", snapName("gif", f.tick));
}

/* ---- the overlay (` toggles it) ------------------------------------------------------------- */
function toggleOverlay(on = overlay.hidden) {
    overlay.hidden = !on;
    saveFragment();
    scheduleUi();         /* the panel's checkbox follows the key */
}
setInterval(() => { if (!overlay.hidden) overlay.textContent = overlayText(viewer, cam, place.scale); }, 250);

/* ---- the pointer ---------------------------------------------------------------------------- */
/* The stage's point under a pointer event, in world pixels (fractional), which inputs speak,
 * whatever the zoom and the place (and the size of the frames: the homage's are a third). */
function stagePoint(ev) {
    const r = stage.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    return cam.toWorld((ev.clientX - r.left) * dpr, (ev.clientY - r.top) * dpr);
}
/* The same point on the screen, in device pixels from the stage's corner (zoom about it). */
function screenPoint(ev) {
    const r = stage.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
    return { x: (ev.clientX - r.left) * dpr, y: (ev.clientY - r.top) * dpr };
}
const inWorld = (p) => p.x >= 0 && p.y >= 0 && p.x < cam.W && p.y < cam.H;

/* Does a press on the picture do something in this world (the tool's own drag)? Otherwise the
 * primary button pans. */
const POINTER_SCHEMES = new Set(["paint", "grab", "carry", "tend"]);
const toolPress = () => {
    const c = viewer.ctl;
    return !!c && viewer.canInput && POINTER_SCHEMES.has(c.scheme) && !viewer.world?.play;
};

let down = null;          /* the pointer id of the tool's stroke in progress */
let drag = null;          /* a pan: {id, x, y (client), moved, click (a viewer's press: say what a token does)} */
const fingers = new Map();   /* touch pointer id → {x, y} (client): two of them pinch and pan */
let pinch = null;         /* {i0 (the level at the start), d0 (the fingers' distance), x, y (their middle)} */

function startPan(ev, click = false) {
    drag = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, moved: false, click };
    stage.setPointerCapture(ev.pointerId);
    stage.classList.add("panning");
}
/* The camera moves by whole device pixels; what is left of the pointer's motion waits for the
 * next event (a slow diagonal drag would lose it to rounding). */
function panTo(ev) {
    const dpr = window.devicePixelRatio || 1, dx = Math.round((ev.clientX - drag.x) * dpr), dy = Math.round((ev.clientY - drag.y) * dpr);
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 3 * dpr) return;
    drag.moved = true;
    drag.x += dx / dpr;
    drag.y += dy / dpr;
    if (cam.panBy(dx, dy)) afterCamera();
}

/* A stroke of the tool, or a finger's, ends (a second finger makes it a pinch). */
function endStroke(ev, cancel) {
    down = null;
    const c = viewer.ctl;
    if (!c) return;
    const p = stagePoint(ev);
    viewer.sendInputs(cancel ? c.leave() : c.pointer("up", p.x, p.y, ev.timeStamp));
}

function startPinch(ev) {
    if (down !== null) endStroke(ev, true);
    drag = null;
    const [a, b] = [...fingers.values()];
    pinch = { i0: cam.index, d0: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}
/* Two fingers: their middle pans, their spread zooms by whole levels (the nearest to it). */
function pinchTo() {
    const [a, b] = [...fingers.values()], dpr = window.devicePixelRatio || 1;
    const x = (a.x + b.x) / 2, y = (a.y + b.y) / 2, spread = Math.hypot(a.x - b.x, a.y - b.y) / pinch.d0;
    const dx = Math.round((x - pinch.x) * dpr), dy = Math.round((y - pinch.y) * dpr);
    let moved = cam.panBy(dx, dy);
    pinch.x += dx / dpr;
    pinch.y += dy / dpr;
    const i = cam.nearestIndex(cam.levels[pinch.i0].k / cam.levels[pinch.i0].d * spread);
    const r = stage.getBoundingClientRect();
    if (i !== cam.index) moved = cam.setLevel(i, (x - r.left) * dpr, (y - r.top) * dpr) || moved;
    if (moved) afterCamera();
}

stage.addEventListener("pointerdown", (ev) => {
    if (ev.pointerType === "touch") {
        fingers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
        if (fingers.size === 2) {
            ev.preventDefault();
            stage.setPointerCapture(ev.pointerId);
            startPinch(ev);
            return;
        }
        if (fingers.size > 2) return;
    }
    if (down !== null || drag || pinch) return;
    /* the middle and right buttons pan, in every world */
    if (ev.pointerType === "mouse" && ev.button !== 0) {
        if (ev.button === 1 || ev.button === 2) {
            ev.preventDefault();
            startPan(ev);
        }
        return;
    }
    const p = stagePoint(ev);
    if (!toolPress() || !inWorld(p)) {
        ev.preventDefault();
        startPan(ev, true);
        return;
    }
    const c = viewer.ctl;
    ev.preventDefault();
    down = ev.pointerId;
    stage.setPointerCapture(ev.pointerId);
    viewer.sendInputs(c.pointer("down", p.x, p.y, ev.timeStamp));
});
stage.addEventListener("pointermove", (ev) => {
    if (fingers.has(ev.pointerId)) fingers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY });
    if (pinch) {
        if (fingers.size >= 2) pinchTo();
        return;
    }
    if (drag) {
        if (ev.pointerId === drag.id) panTo(ev);
        return;
    }
    const c = viewer.ctl;
    if (!c || !viewer.canInput) return;
    if (down !== null && ev.pointerId !== down) return;
    /* coalesced events keep a fast stroke smooth where the browser has them */
    const evs = down !== null && ev.getCoalescedEvents ? ev.getCoalescedEvents() : [ev];
    for (const e of evs.length ? evs : [ev]) {
        const q = stagePoint(e);
        viewer.sendInputs(c.pointer("move", q.x, q.y, e.timeStamp));
    }
});
const pointerEnd = (ev) => {
    fingers.delete(ev.pointerId);
    if (pinch) {
        if (fingers.size < 2) pinch = null;
        return;
    }
    if (drag && ev.pointerId === drag.id) {
        const d = drag;
        drag = null;
        stage.classList.remove("panning");
        const c = viewer.ctl;
        /* a press of a viewer that did not pan: what a token would do */
        if (d.click && !d.moved && c && !viewer.canInput && c.scheme !== "watch" && !c.recording)
            viewer.note("playing needs a player token: press “token” above");
        return;
    }
    if (ev.pointerId !== down) return;
    endStroke(ev, ev.type === "pointercancel");
};
stage.addEventListener("pointerup", pointerEnd);
stage.addEventListener("pointercancel", pointerEnd);
stage.addEventListener("contextmenu", (ev) => ev.preventDefault());

/* The wheel zooms about the pointer, a level a notch (a trackpad's pinch comes as the wheel with
 * ctrl, in small steps: they add up). */
const WHEEL_NOTCH = 100;
let wheelSum = 0;
stage.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const unit = ev.deltaMode === 1 ? 33 : ev.deltaMode === 2 ? 400 : 1;
    const dy = ev.deltaY * unit * (ev.ctrlKey ? 4 : 1);
    if (Math.sign(dy) !== Math.sign(wheelSum)) wheelSum = 0;
    wheelSum += dy;
    const steps = Math.trunc(wheelSum / WHEEL_NOTCH);
    if (!steps) return;
    wheelSum -= steps * WHEEL_NOTCH;
    const p = ev.target === minimap ? { x: cam.vw / 2, y: cam.vh / 2 } : screenPoint(ev);
    if (cam.zoom(-steps, p.x, p.y)) afterCamera();
}, { passive: false });

/* Keys the world does not take: arrows pan (a sixth of the view), + and − zoom about the middle. */
function viewKey(k) {
    const step = Math.round(Math.min(cam.vw, cam.vh) / 6);
    const pan = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] }[k];
    let moved;
    if (pan) moved = cam.panBy(pan[0], pan[1]);
    else if (k === "+" || k === "=") moved = cam.zoom(1, cam.vw / 2, cam.vh / 2);
    else if (k === "-" || k === "_") moved = cam.zoom(-1, cam.vw / 2, cam.vh / 2);
    else return false;
    if (moved) afterCamera();
    return true;
}

/* ---- keys ----------------------------------------------------------------------------------- */
/* Keys go to the world unless a field has them (a focused button keeps space and Enter). */
const typing = (ev) => {
    const a = document.activeElement;
    if (!a || a === document.body) return false;
    if (a.tagName === "BUTTON") return ev.key === " " || ev.key === "Enter";
    return a.tagName === "INPUT" || a.tagName === "TEXTAREA" || a.tagName === "SELECT" || a.tagName === "DIALOG";
};

/* A control used with the pointer hands the keys back to the world at once. */
document.addEventListener("click", (ev) => {
    const b = ev.target.closest?.("button");
    if (b && ev.detail > 0 && !b.closest("dialog")) b.blur();
});
document.addEventListener("change", (ev) => {
    const t = ev.target;
    if (t.matches?.("#panel input, #panel select")) t.blur();
});

/* Playback keys in a recording, as viv view's: space, ← →, ↑ ↓ (a second), Home, End, [ ]; on
 * this tab's timeline, so any role. */
function playKey(k) {
    const r = tl.recording(), sec = viewer.world.hz || 60;
    switch (k) {
    case " ": tl.playToggle(); return true;
    case "ArrowRight": tl.stepOn(); return true;
    case "ArrowLeft": tl.stepBack(); return true;
    case "ArrowUp": tl.seekTo(r.tick + sec); return true;
    case "ArrowDown": tl.seekTo(r.tick - sec); return true;
    case "Home": tl.seekTo(r.start); return true;
    case "End": tl.seekTo(r.end); return true;
    case "[": case "]": tl.setSpeed(stepOf(PLAY_SPEEDS, r.speed, k === "]" ? 1 : -1)); return true;
    }
    return false;
}

function onKey(ev, isDown) {
    if (typing(ev) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "`" || ev.code === "Backquote") {
        if (isDown && !ev.repeat) toggleOverlay();
        ev.preventDefault();
        return;
    }
    const c = viewer.ctl, w = viewer.world;
    if (!c || !w) return;
    if (w.play) {
        if (isDown && (playKey(ev.key) || viewKey(ev.key))) ev.preventDefault();
        return;
    }
    /* a held key repeats: carry walks once per press, the rest may repeat (a brush size) */
    if (ev.repeat && (c.scheme === "carry" || ev.key === " ")) {
        ev.preventDefault();
        return;
    }
    const { inputs, used } = c.key(ev.key, isDown);
    if (!used && isDown && viewKey(ev.key)) {
        ev.preventDefault();
        return;
    }
    if (used) ev.preventDefault();
    if (used && !viewer.canInput && isDown) viewer.note("playing needs a player token: press “token” above");
    viewer.sendInputs(inputs);
    if (used) scheduleUi();
}
window.addEventListener("keydown", (ev) => onKey(ev, true));
window.addEventListener("keyup", (ev) => onKey(ev, false));
/* a key held when the window loses focus never comes up: stop what it started */
window.addEventListener("blur", () => viewer.ctl && viewer.sendInputs(viewer.ctl.leave()));

/* ---- the panel ------------------------------------------------------------------------------ */
let uiPending = false;
function scheduleUi() {
    if (uiPending) return;
    uiPending = true;
    requestAnimationFrame(() => {
        uiPending = false;
        renderUi();
    });
}

/* A segmented choice whose press redraws the panel. */
const seg = (label, items, current, pick) => segOf(label, items, current, (v) => { pick(v); scheduleUi(); });

function renderWorlds() {
    const nav = $("worlds");
    nav.replaceChildren(...viewer.worlds.map((w) => el("button", {
        type: "button", "aria-pressed": String(w.id === viewer.cur), title: `${w.kind} #${w.id} — ${w.params}`,
        onclick: () => { viewer.select(w.id); saveFragment(); layout(); },
    }, el("span", { class: "kind" }, w.kind), el("span", { class: "meta" }, w.play ? el("span", { class: "rec" }, `replay · session ${w.play.session}`) : w.local ? `local · ${w.hz} Hz` : `#${w.id} · ${w.w}×${w.h} · ${w.hz} Hz`))));
}

function renderInfo() {
    const w = viewer.world;
    const info = $("info");
    if (!w) {
        info.replaceChildren(el("h2", {}, viewer.state === "open" ? "No worlds" : "Connecting…"));
        return;
    }
    if (isLocal) {
        info.replaceChildren(
            el("h2", {}, w.kind),
            el("div", { class: "sub" }, `local world · seed ${viewer.seed} · ${w.params}`),
            el("div", { class: "role" }, "runs in this tab (WebAssembly); nothing is sent anywhere"),
            el("div", { class: "row local-row" },
                el("button", { type: "button", class: "btn", onclick: () => { viewer.paused = !viewer.paused; scheduleUi(); } }, viewer.paused ? "▶ Resume" : "❚❚ Pause"),
                el("button", { type: "button", class: "btn", onclick: () => { viewer.restart(); saveFragment(); layout(); } }, "↺ Restart"),
                el("button", { type: "button", class: "ghost", onclick: () => leaveLocal() }, "back to vivd")));
        return;
    }
    const role = viewer.canInput ? `${viewer.role}: you can play` : "viewer: watching";
    const here = /(^|,)scene=file:/.test(w.params) || w.play ? null
        : el("button", { type: "button", class: "ghost", title: "Run this kind, seed and params in this tab, with no server", onclick: () => goLocal(w) }, "run here");
    info.replaceChildren(
        el("h2", {}, w.kind),
        el("div", { class: "sub" }, `world ${w.id} · seed ${w.seed} · ${w.params || "default params"}`),
        el("div", { class: "role" }, role, viewer.canInput ? null : el("button", { type: "button", class: "ghost", onclick: openToken }, "add token"), here));
}

/* A recording's controls: this tab's timeline on it (timeline.js), so they need no token and move
 * no one else's picture. */
function renderPlayback() {
    const box = $("playback"), r = tl?.recording();
    if (!r) {
        box.hidden = true;
        box.replaceChildren();
        renderPlayback.seek = null;
        return;
    }
    const p = viewer.world.play;
    box.hidden = false;
    const seek = el("input", { type: "range", id: "rec-seek", min: String(r.start), max: String(r.end), step: "1", value: String(r.tick), class: "grow" });
    const out = el("output", { id: "rec-pos" }, `${r.tick} / ${r.end}`);
    seek.addEventListener("input", () => { out.textContent = `${seek.value} / ${r.end}`; });
    seek.addEventListener("change", () => tl.seekTo(+seek.value));
    const speed = el("select", { id: "rec-speed", title: "Speed" },
        ...PLAY_SPEEDS.map((s) => { const o = el("option", { value: String(s) }, `${s}%`); o.selected = s === r.speed; return o; }));
    speed.addEventListener("change", () => tl.setSpeed(+speed.value));
    box.replaceChildren(
        el("div", { class: "label" }, `Recording · session ${p.session}${tl.pending ? " …" : ""}`),
        el("div", { class: "row wrap" },
            el("button", { type: "button", class: "btn", id: "step-back", title: "one tick back (←)", disabled: r.tick <= r.start, onclick: () => tl.stepBack() }, "◂"),
            el("button", { type: "button", class: "btn", id: "rec-play", title: "space", onclick: () => tl.playToggle() }, r.paused ? "▶ Play" : "❚❚ Pause"),
            el("button", { type: "button", class: "btn", id: "step-on", title: "one tick on (→)", disabled: r.tick >= r.end, onclick: () => tl.stepOn() }, "▸"),
            speed),
        el("div", { class: "row" }, seek, out),
        el("div", { class: "small" }, "Your own position: nobody else's picture moves."));
    renderPlayback.seek = seek;
    renderPlayback.out = out;
    renderPlayback.shown = { tick: r.tick, paused: r.paused, pending: tl.pending };
}

/* The seek bar follows the frames without rebuilding the panel; the buttons are redrawn when
 * what they say changes. */
function followPlayback() {
    const s = renderPlayback.seek, r = tl?.recording();
    if (!r || !s || !s.isConnected || document.activeElement === s) return;
    const was = renderPlayback.shown;
    if (r.paused !== was.paused || tl.pending !== was.pending || (r.paused && r.tick !== was.tick)) return renderPlayback();
    if (+s.value !== r.tick) {
        s.value = String(r.tick);
        renderPlayback.out.textContent = `${r.tick} / ${r.end}`;
    }
}
setInterval(followPlayback, 100);

/* ---- this tab's timeline: rewind, links to a moment, play from here (timeline.js) ------------- */
/* The tick shown, and the live edge the bar ends at (the world's tick while live; on a timeline,
 * the last tick its recording had committed when read, or further if it played on). */
const shownAt = () => (viewer.stream.haveKey ? viewer.stream.tick : viewer.world?.tick ?? 0);
const liveEdge = () => Math.max(tl.play?.end ?? 0, shownAt());

/* A link to the moment shown: the world (or the recording's session) and the tick, and never
 * the token (nor anything else of the address). */
function momentLink() {
    const w = viewer.world, f = new URLSearchParams();
    if (!w) return "";
    if (frag.get("hosts")) f.set("hosts", frag.get("hosts"));
    if (w.play) {
        f.set("session", String(w.play.session));
        if (rec.fileParam(w.play)) f.set("file", rec.fileParam(w.play));
    } else f.set("world", String(w.id));
    f.set("tick", String(shownAt()));
    return `${location.origin}${location.pathname}#${f}`;
}
async function copyLink() {
    const link = momentLink(), out = $("moment-link");
    renderTimeline.link = link;           /* shown until the next copy, through redraws */
    if (out) {
        out.value = link;
        out.hidden = false;
    }
    try {
        await navigator.clipboard.writeText(link);
        viewer.note("link to this moment copied");
    } catch (e) {
        viewer.note(`the link is below (the clipboard refused it: ${e.message})`);
        out?.select();
    }
}

function renderTimeline() {
    const box = $("timeline"), w = viewer.world;
    if (!tl || !w || w.local) {
        box.hidden = true;
        box.replaceChildren();
        return;
    }
    tl.sync();
    box.hidden = false;
    const can = tl.usable, busy = tl.pending > 0;
    const forkBtn = el("button", { type: "button", class: "btn", id: "fork", disabled: !can || !!tl.forking,
        title: viewer.canInput ? "A new live world from the moment shown, to play in" : "needs a player token",
        onclick: () => tl.fork(shownAt()) }, tl.forking ? "Forking…" : "Play from here");
    const linkRow = el("div", { class: "row wrap" },
        el("button", { type: "button", class: "btn", id: "copy-link", disabled: !w, onclick: copyLink }, "Copy link"),
        forkBtn);
    const out = el("input", { type: "text", id: "moment-link", readonly: true, class: "grow mono", hidden: !renderTimeline.link, value: renderTimeline.link ?? "" });
    const parts = [];
    if (!w.play) {
        const edge = liveEdge(), t = shownAt();
        const seek = el("input", { type: "range", id: "tl-seek", min: String(tl.play?.start ?? 0), max: String(edge), step: "1", value: String(t), class: "grow", disabled: !can });
        const pos = el("output", { id: "tl-pos" }, tl.open ? `${t} / ${edge}` : `live · ${t}`);
        seek.addEventListener("input", () => { pos.textContent = `${seek.value} / ${edge}`; });
        seek.addEventListener("change", () => tl.send("seek", { tick: +seek.value }));
        const speed = el("select", { id: "tl-speed", disabled: !can || !tl.open, title: "Speed of this tab's timeline" },
            ...PLAY_SPEEDS.map((v) => { const o = el("option", { value: String(v) }, `${v}%`); o.selected = v === (tl.play?.speed ?? 100); return o; }));
        speed.addEventListener("change", () => tl.send("speed", { speed: +speed.value }));
        parts.push(
            el("div", { class: "label" }, tl.open ? `Timeline · rewound, for this tab only${busy ? " …" : ""}` : `Timeline · live${busy ? " …" : ""}`),
            el("div", { class: "row wrap" },
                el("button", { type: "button", class: "btn", id: "tl-back", disabled: !can, title: "one tick back", onclick: () => tl.send("back") }, "◂"),
                el("button", { type: "button", class: "btn", id: "tl-pause", disabled: !can, onclick: () => tl.send(tl.open && tl.paused ? "resume" : "pause") },
                    tl.open && tl.paused ? "▶ Play" : "❚❚ Pause"),
                el("button", { type: "button", class: "btn", id: "tl-step", disabled: !can || !tl.open, title: "one tick on", onclick: () => tl.send("step") }, "▸"),
                speed,
                el("button", { type: "button", class: "btn" + (tl.open ? "" : " on"), id: "tl-live", disabled: !can || !tl.open, title: "back to the world as it is now", onclick: () => tl.send("live") }, "● Live")),
            el("div", { class: "row" }, seek, pos));
        renderTimeline.seek = seek;
        renderTimeline.pos = pos;
        renderTimeline.open = tl.open;
        renderTimeline.paused = tl.paused;
    } else {
        parts.push(el("div", { class: "label" }, "This moment"));
        renderTimeline.seek = null;
    }
    parts.push(linkRow, out);
    if (!viewer.canInput) parts.push(el("div", { class: "small" }, "Play from here needs a player token."));
    box.replaceChildren(...parts);
}

/* The bar follows the frames without rebuilding the panel. */
function followTimeline() {
    const s = renderTimeline.seek;
    if (!tl || !s || !s.isConnected || document.activeElement === s) return;
    if (tl.sync().open !== renderTimeline.open || tl.paused !== renderTimeline.paused) return renderTimeline();
    const t = shownAt(), edge = liveEdge();
    if (+s.max !== edge) s.max = String(edge);
    if (+s.value !== t) s.value = String(t);
    renderTimeline.pos.textContent = tl.open ? `${t} / ${edge}` : `live · ${t}`;
}
setInterval(followTimeline, 100);

function renderControls() {
    const box = $("controls"), c = viewer.ctl, w = viewer.world;
    const hints = $("hints");
    box.replaceChildren();
    hints.replaceChildren();
    stage.classList.toggle("watch", !toolPress());
    if (!c || !w) return;
    if (w.play) {
        hints.append(keys(["space", "play/pause"], ["← →", "step"], ["↑ ↓", "±1 s"], ["[ ]", "speed"], ["`", "debug"]), viewHints());
        return;
    }
    const toolNames = { paint: "Paint", erase: "Erase", explode: "Explode", grab: "Grab", shove: "Shove", spawn: "Spawn" };
    switch (c.scheme) {
    case "paint": {
        const tools = c.tools();
        if (tools.length > 1) box.append(seg("Tool", tools.map((t) => [t, toolNames[t]]), c.tool, (t) => { c.tool = t; }));
        if (c.paintEnum)
            box.append(el("div", { class: "group" }, el("div", { class: "label" }, c.paintEnum.name),
                el("div", { class: "elements" }, ...c.paintEnum.values.map((v) => el("button", {
                    type: "button", class: "btn" + (c.tool === "paint" && c.element === v.id ? " on" : ""), title: `${v.name} (${v.id})`,
                    onclick: () => { c.element = v.id; c.tool = "paint"; scheduleUi(); },
                }, v.name)))));
        const r = c.byName.get("paint").args.find((a) => a.name === "r");
        if (r) box.append(slider("Brush", { min: Math.max(1, r.lo), max: Math.min(64, r.hi), value: c.brushRadius(), show: (v) => `${v} px`, input: (v) => c.setBrush(v) }));
        hints.append(keys(["drag", "paint"], ["1–9 0", c.paintEnum?.name ?? "value"], ["e x", "erase, explode"], ["[ ]", "brush"], ["`", "debug"]));
        break;
    }
    case "grab": {
        box.append(seg("Tool", c.tools().map((t) => [t, toolNames[t]]), c.tool, (t) => { c.tool = t; }));
        if (c.tool === "spawn" && c.spawnEnum)
            box.append(seg(c.spawnEnum.name, c.spawnEnum.values.map((v) => [v.id, v.name]), c.spawnKind, (id) => { c.spawnKind = id; }));
        const say = { grab: "Drag a creature to carry it; let go to drop it.", shove: "Swipe across the picture to shove what is where you start.", spawn: "Click to add one where you click." };
        box.append(el("div", { class: "small" }, say[c.tool]));
        hints.append(keys(["drag", "grab"], ["1 2", "spawn at pointer"], ["arrows", "shove"], ["`", "debug"]));
        break;
    }
    case "cycle": {
        const cy = c.cycle, sp = c.byName.get("speed").args[0];
        box.append(el("div", { class: "row" },
            el("button", { type: "button", class: "btn", onclick: () => { viewer.sendInputs(c.cyclePause(!cy.paused)); scheduleUi(); } }, cy.paused ? "▶ Resume" : "❚❚ Pause"),
            el("button", { type: "button", class: "btn", onclick: () => { viewer.sendInputs(c.cycleSpeed(100)); scheduleUi(); } }, "100%")));
        const steps = CYCLE_SPEEDS.filter((s) => s >= sp.lo && s <= sp.hi);
        box.append(slider("Cycle speed", { min: 0, max: steps.length - 1, value: Math.max(0, steps.indexOf(stepOf(steps, cy.speed, 0))),
            show: (i) => `${steps[i]}%`, change: (i) => { viewer.sendInputs(c.cycleSpeed(steps[i])); } }));
        const rg = c.cycleRanges();
        const pick = el("select", {}, ...Array.from({ length: rg.hi - rg.lo + 1 }, (_, i) => {
            const o = el("option", { value: String(rg.lo + i) }, `range ${rg.lo + i}`);
            o.selected = rg.lo + i === cy.range;
            return o;
        }));
        pick.addEventListener("change", () => { cy.range = +pick.value; scheduleUi(); });
        box.append(el("div", { class: "group" }, el("div", { class: "label" }, "Colour range"),
            el("div", { class: "row" }, pick,
                check("on", !cy.off.has(cy.range), () => { viewer.sendInputs(c.cycleToggle(cy.range)); }),
                check("blend", cy.blend.has(cy.range), (b) => { viewer.sendInputs(c.cycleBlend(cy.range, b)); }))));
        hints.append(keys(["space", "pause"], ["[ ]", "speed"], ["0–9", "range"], ["t", "on/off"], ["m", "blend"], ["`", "debug"]));
        break;
    }
    case "carry": {
        /* buttons that walk while held, for touch */
        const hold = (dir, text) => {
            const b = el("button", { type: "button", class: "btn" }, text);
            const start = (ev) => { ev.preventDefault(); b.setPointerCapture?.(ev.pointerId); c.carryDir = dir; viewer.sendInput(c.build("move", { dir })); };
            const stop = () => { if (c.carryDir === dir) { c.carryDir = 0; viewer.sendInput(c.build("move", { dir: 0 })); } };
            b.addEventListener("pointerdown", start);
            b.addEventListener("pointerup", stop);
            b.addEventListener("pointercancel", stop);
            return b;
        };
        box.append(el("div", { class: "label" }, "Carrier"), el("div", { class: "pad" },
            hold(-1, "◀"), el("button", { type: "button", class: "btn", onclick: () => viewer.sendInputs(c.key("ArrowDown", true).inputs) }, "■"), hold(1, "▶"),
            el("button", { type: "button", class: "btn drop", onclick: () => viewer.sendInputs(c.key(" ", true).inputs) }, "Drop")));
        hints.append(keys(["← →", "walk"], ["↓", "stop"], ["space", "drop"], ["click", "drop there"], ["`", "debug"]));
        break;
    }
    case "tend": {
        const wind = c.byName.get("wind")?.args[0];
        if (wind) box.append(slider("Wind", { min: wind.lo, max: wind.hi, value: c.wind, show: (v) => (v > 0 ? `+${v}` : String(v)), change: (v) => viewer.sendInputs(c.setWind(v)) }));
        if (c.spawnEnum && c.has("spawn"))
            box.append(el("div", { class: "group" }, el("div", { class: "label" }, "Spawn"), el("div", { class: "row" },
                ...c.spawnEnum.values.map((v) => el("button", { type: "button", class: "btn", onclick: () => {
                    const at = c.hover ?? { x: w.w >> 1, y: w.h >> 1 };
                    viewer.sendInputs(c.spawnAt(v.id, at.x, at.y));
                } }, v.name)))));
        box.append(el("div", { class: "small" }, "Click to poke; drag to lead the butterfly."));
        hints.append(keys(["click", "poke"], ["drag", "target"], ["← →", "wind"], ["↓", "calm"], ["1–4", "spawn"], ["t", "let go"], ["`", "debug"]));
        break;
    }
    default:
        box.append(el("div", { class: "small" }, "This world takes no inputs the page knows; watching."));
        hints.append(keys(["`", "debug"]));
    }
    hints.append(viewHints());
    if (!viewer.canInput) for (const b of box.querySelectorAll("button, input, select")) b.disabled = true;
}

/* How to look around (every world): the wheel, a drag that pans, the keys that zoom. */
const viewHints = () => keys(["wheel", "zoom"], [toolPress() ? "right drag" : "drag", "pan"], ["+ −", "zoom"]);

/* Another view or the homage subscribes again: a recording stays where this tab had it. */
const resub = (fn) => (tl ? tl.resubscribe(fn) : fn());

function renderView() {
    const box = $("view"), w = viewer.world;
    box.replaceChildren();
    if (!w) return;
    const cur = viewer.view && w.views.includes(viewer.view) ? viewer.view : w.views[0];
    const parts = [];
    if (w.views.length === 2 && w.views.includes("xray"))
        parts.push(check("X-ray", cur === "xray", (on) => { resub(() => viewer.setView(on ? "xray" : "")); saveFragment(); }));
    else if (w.views.length > 1)
        parts.push(seg(null, w.views.map((v) => [v, v]), cur, (v) => { resub(() => viewer.setView(v === w.views[0] ? "" : v)); saveFragment(); }));
    parts.push(check(`${Math.round((w.hz || 60) / 3)} fps homage (every 3rd tick, ⅓ size)`, viewer.homage, (on) => { resub(() => viewer.setHomage(on)); saveFragment(); }));
    parts.push(check("Debug overlay", !overlay.hidden, (on) => toggleOverlay(on)));
    /* the zoom: the wheel, a pinch and + − move it too */
    const zcur = cam.fit ? "fit" : levelName(cam.level), frac = { 2: "½", 4: "¼", 8: "⅛" };
    const zsel = el("select", { title: "Zoom: device pixels a frame pixel (below 1×, a smaller frame from vivd)", id: "zoom" },
        ...["fit", ...cam.levels.map(levelName)].map((z) => {
            const o = el("option", { value: z }, z === "fit" ? "fit" : z.startsWith("1/") ? `${frac[z.slice(2)]}×` : `${z}×`);
            o.selected = z === zcur;
            return o;
        }));
    zsel.addEventListener("change", () => {
        if (cam.setLevel(zsel.value === "fit" ? "fit" : cam.levels.findIndex((l) => levelName(l) === zsel.value))) afterCamera();
    });
    parts.push(el("div", { class: "row wrap" },
        el("button", { type: "button", class: "btn", id: "save-png", title: "the frame shown, as a PNG", onclick: savePng }, "PNG"),
        el("button", { type: "button", class: "btn", id: "save-gif", title: `the last ${GIF_SECONDS} s, as a GIF`, onclick: saveGif }, "GIF"),
        el("button", { type: "button", class: "btn", id: "fullscreen", onclick: () => (document.fullscreenElement ? document.exitFullscreen() : stage.requestFullscreen()) }, "Fullscreen"),
        zsel));
    box.append(el("div", { class: "label" }, "View"), ...parts);
}

function renderNotes() {
    $("notes").replaceChildren(...viewer.notes.slice(-4).reverse().map((n) =>
        el("li", { class: n.err || /error|refused|mismatch|bad|offline/.test(n.text) ? "err" : "" }, n.text)));
}

function renderStatus() {
    const s = viewer.state;
    if (isLocal) {
        $("dot").className = "dot open";
        $("status").textContent = "local · no server";
        $("banner").hidden = true;
        $("token-open").hidden = true;
        return;
    }
    $("dot").className = `dot ${s}`;
    $("status").textContent = s === "open" ? `${viewer.server} · ${viewer.role}` : s === "connecting" ? "connecting…" : "offline, reconnecting…";
    const b = $("banner");
    b.hidden = s === "open";
    b.textContent = s === "offline" ? "connection lost — reconnecting…" : "connecting…";
}

function renderUi() {
    layout();             /* a world, a view or the homage may have changed the camera's levels */
    document.title = viewer.world ? `${viewer.world.kind} · Vivarium` : "Vivarium";
    renderStatus();
    renderWorlds();
    renderInfo();
    /* not while the seek bar is held: the frames move it (followPlayback) */
    if (!renderPlayback.seek || document.activeElement !== renderPlayback.seek || !viewer.world?.play) renderPlayback();
    if (!renderTimeline.seek || document.activeElement !== renderTimeline.seek) renderTimeline();
    renderControls();
    renderView();
    rec.render($("verify"));
    renderNotes();
    saveFragment();
}

/* ---- running a world here ------------------------------------------------------------------- */
function goLocal(w) {
    const f = new URLSearchParams({ local: w.kind, seed: String(w.seed) });
    if (w.params) f.set("params", w.params);
    location.hash = f.toString();
    location.reload();
}

function leaveLocal() {
    location.hash = `world=${encodeURIComponent(viewer.world.kind)}`;
    location.reload();
}

/* ---- the token ------------------------------------------------------------------------------ */
function openToken() {
    const d = $("token-dialog");
    $("token-input").value = viewer.conn.token;
    d.showModal();
}
$("token-open").addEventListener("click", openToken);
$("token-cancel").addEventListener("click", () => $("token-dialog").close("cancel"));
$("token-dialog").addEventListener("close", () => {
    if ($("token-dialog").returnValue !== "save") return;
    viewer.conn.setToken($("token-input").value.trim());
    saveFragment();
});

/* ---- go ------------------------------------------------------------------------------------- */
new ResizeObserver(() => layout()).observe(stage);
window.addEventListener("resize", layout);
if (frag.get("debug") === "1") overlay.hidden = false;

/* The test hook (clients/web/README.md): viewer.js's, and what only the page has. */
window.viv = Object.defineProperties(viewer.hook(), Object.getOwnPropertyDescriptors({
    /* How many canvas pixels differ from the palette colour of the frame's index there (0: the
     * canvas shows the verified frame exactly). -1 before the first frame is drawn. */
    canvasMismatches() {
        const s = viewer.stream;
        if (!image || shownTick !== s.tick || !viewer.verified) return -1;
        const got = ctx.getImageData(0, 0, s.w, s.h).data, pal = s.pal;
        let bad = 0;
        for (let i = 0; i < s.px.length; i++) {
            const k = s.px[i] * 3;
            if (got[4 * i] !== pal[k] || got[4 * i + 1] !== pal[k + 1] || got[4 * i + 2] !== pal[k + 2] || got[4 * i + 3] !== 255) bad++;
        }
        return bad;
    },
    get shownTick() { return shownTick; },
    get scale() { return place.scale; },
    /* the camera: {zoom (as the address's zoom=), fit, scale (device pixels a world pixel), k and d
     * (k device pixels a frame pixel of div d), x0 and y0 (device pixels), visible ([x, y, w, h]
     * of the world on the screen), whole (all of it is)}; a world pixel's centre on the page (CSS
     * pixels, as a mouse event's clientX/clientY), and the world point under a page point */
    get camera() {
        const l = cam.level;
        return { zoom: levelName(l), fit: cam.fit, scale: cam.scale, k: l.k, d: l.d, x0: cam.x0, y0: cam.y0, visible: cam.visible(), whole: cam.whole };
    },
    toScreen(wx, wy) {
        const r = stage.getBoundingClientRect(), dpr = window.devicePixelRatio || 1, p = cam.toScreen(wx + 0.5, wy + 0.5);
        return { x: r.left + p.x / dpr, y: r.top + p.y / dpr };
    },
    toWorld(cx, cy) {
        const p = stagePoint({ clientX: cx, clientY: cy });
        return { x: Math.floor(p.x), y: Math.floor(p.y) };
    },
    overlay(on) { toggleOverlay(on); },
    setToken(t) { viewer.conn.setToken(t); saveFragment(); },
    viewer,
    /* verifying a recording here: vivd's sessions ({file, recording, total, sessions}), asking
     * again, verify({session, file}) → the result (the panel shows it too; flip: a tick whose
     * recorded state hash is taken with one bit flipped — for tests), and where it is */
    get sessions() { return JSON.parse(JSON.stringify(rec.files)); },
    refreshSessions() { return rec.refresh(); },
    verify(opts) { return rec.verify(opts); },
    get verifyState() { return rec.state(); },
    get isLocal() { return isLocal; },
    /* this tab's timeline: {open (rewound), tick (of the last answer), play, pending, forking},
     * the op sent as the bar's buttons do, the link "copy link" makes, the forks that came */
    get timeline() { return tl ? { open: tl.sync().open, tick: tl.tick, play: tl.play && { ...tl.play }, pending: tl.pending, forking: tl.forking, forks: [...tl.forks] } : null; },
    timelineOp(op, args) { return tl?.send(op, args) ?? false; },
    /* a recording shown, as its controls see it: {start, end, tick (shown), paused, speed} on
     * this tab's timeline (the world's own before the first op), or null */
    get recording() { return tl?.recording() ?? null; },
    momentLink() { return momentLink(); },
    get localError() { return localFailed; },
}));
if (localFailed) viewer.note(localFailed);
for (const why of badHosts) viewer.note(`#hosts: ${why}; left out`);

layout();
renderUi();
requestAnimationFrame(draw);
viewer.start();
