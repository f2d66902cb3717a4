// lib.mjs — what the browser tests share: Debian's Chromium driven by playwright-core, the page's
// WebSocket traffic as Chromium saw it, the canvas read back and hashed, the frame `viv sim`
// renders for the same world, seed, tick and inputs, and a TCP relay that can cut connections.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { decodeMessage, num } from "../../clients/web/protocol.js";
import { frameHash, hex64 } from "../../clients/web/hash.js";
import { readIndexedPng } from "./pngread.mjs";
import { ROOT, VIV } from "../web/vivd.mjs";

/* The browser: Debian's package, never one downloaded. TESTED_MAJOR is the version these tests
 * were written and checked with, driven by playwright-core 1.61.1 (the newest that runs on
 * Debian 12's Node 18). */
export const CHROMIUM = "/usr/bin/chromium";
export const TESTED_MAJOR = 156;
/* Headless, and nothing that reaches for the network on its own: on a machine with no network
 * but loopback, Chromium's background connections are refused and slow it down. Playwright gives
 * each launch a fresh --user-data-dir of its own. */
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                              "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* Wait until pred() (sync or async) is true; throws "timed out waiting for <what>" after ms. Every
 * wait in these tests is one of these: a condition with a bound, never a sleep taken as proof. */
export async function until(what, pred, ms = 20000, every = 25) {
    const t0 = Date.now();
    for (;;) {
        const v = await pred();
        if (v) return v;
        if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
        await sleep(every);
    }
}

/* ---- the page's WebSocket traffic, as Chromium reports it --------------------------------- */
/* Every message the page's WebSockets carry, decoded: frames {conn, world, tick, key, fh, sh,
 * rect (or null), w, h, bytes (the message's)}, inputs sent {conn, world, seq, kind, args}, subs
 * sent {conn, world, rect (or null), div, at (Date.now())}, play controls, timeline ops and opens
 * sent ({conn, op, tick}, {conn, session, file}), acks {conn, seq, tick}, errors.
 * conn counts the page's WebSockets (1 after the first reconnect). */
export function wireLog(page) {
    const log = { conns: [], frames: [], inputs: [], subs: [], plays: [], timelines: [], opens: [], acks: [], errors: [] };
    page.on("websocket", (ws) => {
        const conn = log.conns.length;
        log.conns.push({ url: ws.url(), closed: false });
        ws.on("close", () => { log.conns[conn].closed = true; });
        ws.on("framereceived", ({ payload }) => {
            if (typeof payload === "string") return;
            const m = decodeMessage(new Uint8Array(payload));
            if (m.t === "welcome") log.conns[conn].client = num(m.client);
            else if (m.t === "frame")
                log.frames.push({ conn, world: num(m.world), tick: num(m.tick), key: m.key === true, fh: hex64(m.fh), sh: hex64(m.sh),
                                  rect: m.rect ? m.rect.map((v) => num(v)) : null, w: num(m.w), h: num(m.h), bytes: payload.length });
            else if (m.t === "ack") log.acks.push({ conn, seq: num(m.seq), tick: num(m.tick) });
            else if (m.t === "error") log.errors.push({ conn, code: m.code, msg: m.msg, seq: m.seq === undefined ? null : num(m.seq) });
        });
        ws.on("framesent", ({ payload }) => {
            if (typeof payload === "string") return;
            const m = decodeMessage(new Uint8Array(payload));
            if (m.t === "input") log.inputs.push({ conn, world: num(m.world), seq: num(m.seq), kind: m.kind, args: m.args.map((a) => num(a)) });
            else if (m.t === "play") log.plays.push({ conn, op: m.op, tick: m.tick === undefined ? null : num(m.tick) });
            else if (m.t === "timeline") log.timelines.push({ conn, world: num(m.world), op: m.op, tick: m.tick === undefined ? null : num(m.tick) });
            else if (m.t === "open") log.opens.push({ conn, session: num(m.session), file: m.file ?? null });
            else if (m.t === "sub") log.subs.push({ conn, world: num(m.world), rect: m.rect ? m.rect.map((v) => num(v)) : null, div: m.div === undefined ? 1 : num(m.div), at: Date.now() });
        });
    });
    return log;
}

/* The inputs that the pages of logs sent to world, each with the tick its ack names (the tick
 * it was applied at: docs/PROTOCOL.md, input), in the order the world applied them: by tick,
 * then (client, seq). Waits (bounded) for every ack first. */
export async function ackedInputs(logs, world) {
    const ackOf = (log, i) => log.acks.find((k) => k.conn === i.conn && k.seq === i.seq);
    const sent = logs.flatMap((log) => log.inputs.filter((i) => i.world === world).map((i) => ({ log, i })));
    await until(`the acks of ${sent.length} inputs to world ${world}`, () => {
        const err = logs.flatMap((l) => l.errors).find((e) => e.seq !== null);
        if (err) throw new Error(`an input was refused: ${err.code}: ${err.msg}`);
        return sent.every(({ log, i }) => ackOf(log, i));
    });
    return sent.map(({ log, i }) => ({ ...i, client: log.conns[i.conn].client, tick: ackOf(log, i).tick }))
        .sort((a, b) => a.tick - b.tick || a.client - b.client || a.seq - b.seq);
}

/* ---- the page ------------------------------------------------------------------------------ */
/* Open the page at url (its fragment picks token and world), with a wire log; resolves once
 * window.viv exists and the page is connected. */
export async function openPage(context, url) {
    const page = await context.newPage();
    const log = wireLog(page);
    const problems = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
    await page.goto(url);
    await until("the page to connect", () => page.evaluate(() => window.viv?.state === "open"));
    return { page, log, problems };
}

/* The world the page watches, as the test hook describes it. */
export const viewed = (page) => page.evaluate(() => ({
    world: viv.world, kind: viv.kind, tick: viv.tick, shownTick: viv.shownTick, frames: viv.frames,
    mismatches: viv.mismatches, badFrames: viv.badFrames, connects: viv.connects, acks: viv.acks, errors: viv.errors,
}));

/* The canvas, read back with getImageData in one task (so the picture cannot change under it),
 * with the tick the page drew there: {tick, w, h, rgba (Buffer, 4·w·h)}. */
export async function readCanvas(page) {
    const c = await page.evaluate(() => {
        const cv = document.getElementById("screen");
        const d = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
        let s = "";
        for (let i = 0; i < d.length; i += 0x8000) s += String.fromCharCode.apply(null, d.subarray(i, i + 0x8000));
        return { tick: viv.shownTick, w: cv.width, h: cv.height, b64: btoa(s) };
    });
    return { tick: c.tick, w: c.w, h: c.h, rgba: Buffer.from(c.b64, "base64") };
}

/* Wait until the page has drawn the frame it holds, of tick `from` or later, then read the
 * canvas. (The hook's own canvas check is only the signal that the picture is up to date, after a
 * world switch too; what is compared is read here.) */
export async function settledCanvas(page, from = 0) {
    await until(`the page to draw a frame at tick ${from} or later`,
        () => page.evaluate((f) => viv.verified && viv.shownTick >= f && viv.canvasMismatches() === 0, from));
    return readCanvas(page);
}

/* The canvas as a frame of ref's palette: each pixel's colour is looked up in ref.pal (a colour
 * several entries share reads as ref's own index there when that is one of them, since the
 * picture cannot tell them apart). Returns {hash (16 hex: the frame hash of the canvas),
 * differ (pixels whose colour is not ref's there), foreign (colours in no palette entry)}. */
export function canvasFrame(canvas, ref) {
    if (canvas.w !== ref.w || canvas.h !== ref.h) throw new Error(`the canvas is ${canvas.w}×${canvas.h}, the frame ${ref.w}×${ref.h}`);
    const byColour = new Map();
    for (let i = ref.count - 1; i >= 0; i--) byColour.set((ref.pal[3 * i] << 16) | (ref.pal[3 * i + 1] << 8) | ref.pal[3 * i + 2], i);
    const px = new Uint8Array(ref.w * ref.h);
    let differ = 0, foreign = 0;
    for (let i = 0; i < px.length; i++) {
        const r = canvas.rgba[4 * i], g = canvas.rgba[4 * i + 1], b = canvas.rgba[4 * i + 2], k = 3 * ref.px[i];
        if (canvas.rgba[4 * i + 3] === 255 && r === ref.pal[k] && g === ref.pal[k + 1] && b === ref.pal[k + 2]) {
            px[i] = ref.px[i];
            continue;
        }
        differ++;
        const j = canvas.rgba[4 * i + 3] === 255 ? byColour.get((r << 16) | (g << 8) | b) : undefined;
        if (j === undefined) foreign++;
        px[i] = j ?? 0;
    }
    return { hash: hex64(frameHash(ref.w, ref.h, ref.pal, ref.count, px)), differ, foreign };
}

/* ---- the reference: viv sim and the replay tools -------------------------------------------- */
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "viv-browser-"));
process.on("exit", () => fs.rmSync(tmp, { recursive: true, force: true }));
let nth = 0;

/* A PNG written by the repo's tools, read, and checked to be the frame whose hash is fh (so the
 * palette and pixels a test compares with are exactly the frame the tool hashed). */
function refFrame(png, fh, what) {
    const f = readIndexedPng(png);
    const got = hex64(frameHash(f.w, f.h, f.pal, f.count, f.px));
    if (got !== fh) throw new Error(`${what}: the PNG hashes to ${got}, the tool printed ${fh}`);
    return { ...f, fh };
}

/* The frame `viv sim` renders for world {kind, seed, params} after `ticks` ticks, with inputs
 * [{tick, kind, args}] applied at their ticks: {tick, sh, fh, w, h, pal, count, px}. */
export function simFrame({ kind, seed, params }, ticks, inputs = []) {
    const n = ++nth, png = path.join(tmp, `sim-${n}.png`), args = ["sim", "--world", kind, "--seed", String(seed), "--ticks", String(ticks), "--png", png];
    if (params) args.push("--params", params);
    if (inputs.length) {
        const file = path.join(tmp, `inputs-${n}.txt`);
        fs.writeFileSync(file, inputs.map((i) => `${i.tick} ${i.kind} ${i.args.join(" ")}\n`).join(""));
        args.push("--inputs", file);
    }
    const last = execFileSync(VIV, args, { encoding: "utf8" }).trim().split("\n").at(-1).split(/\s+/);
    if (+last[0] !== ticks) throw new Error(`viv ${args.join(" ")} printed tick ${last[0]}`);
    return { tick: ticks, sh: last[1], ...refFrame(png, last[2], `viv sim --world ${kind} --ticks ${ticks}`) };
}

/* The frame and state hash recorded for session's tick in a replay file, whole: `viv replay hashes
 * --replayed` replays to the tick and prints both hashes once they agree with what the file keeps
 * (docs/REPLAY.md, "Recorded hashes": the low 8 bits of most ticks, both whole at a block's end). */
export function recordedHashes(db, session, tick) {
    const out = execFileSync(VIV, ["replay", "hashes", db, "--session", String(+session), "--from", String(+tick),
                                   "--to", String(+tick), "--replayed"], { encoding: "utf8" }).trim().split("\n");
    const [t, sh, fh, bits] = out.at(-1).split(" ");
    if (+t !== +tick || bits !== "64") throw new Error(`viv replay hashes gave '${out.at(-1)}' for tick ${tick} of ${db}`);
    return { fh, sh };
}

/* The page shows tick t of session (of the replay file db), drawn, and it is the frame recorded
 * there: the frame hash vivd sent is the recorded one, and the canvas is `viv replay export`'s
 * frame pixel for pixel. */
export async function showsRecorded(pg, db, session, t) {
    await until(`the page to show tick ${t}`, () => pg.evaluate((x) => viv.shownTick === x && viv.verified && viv.canvasMismatches() === 0, t));
    const rec = recordedHashes(db, session, t);
    assert.equal(await pg.evaluate(() => viv.fh), rec.fh, `the frame hash at tick ${t} is the recorded one`);
    const c = await settledCanvas(pg, t);
    assert.equal(c.tick, t);
    const f = canvasFrame(c, exportedFrame(db, session, t, rec.fh));
    assert.equal(f.differ, 0, "the canvas is viv replay export's frame pixel for pixel");
    assert.equal(f.hash, rec.fh);
}

/* The sessions of a replay file: [{id, kind}], by the sqlite3 shell. */
export function sessions(db) {
    return execFileSync("sqlite3", ["-readonly", db, "SELECT id, kind FROM session ORDER BY id;"], { encoding: "utf8" })
        .trim().split("\n").filter(Boolean).map((l) => { const [id, kind] = l.split("|"); return { id: +id, kind }; });
}

/* The frame of session's tick as `viv replay export` replays it, checked against fh. */
export function exportedFrame(db, session, tick, fh) {
    const dir = path.join(tmp, `export-${++nth}`);
    execFileSync(VIV, ["replay", "export", db, "--session", String(session), "--png-dir", dir, "--from", String(tick), "--to", String(tick), "--quiet"]);
    const files = fs.readdirSync(dir);
    if (files.length !== 1) throw new Error(`viv replay export wrote ${files.length} files for one tick`);
    return refFrame(path.join(dir, files[0]), fh, `viv replay export --session ${session} --from ${tick}`);
}

/* The kinds this build has, in registry order (`viv sim --list-kinds`): the demo set hosts one
 * world of each. */
export function kinds() {
    return execFileSync(VIV, ["sim", "--list-kinds"], { encoding: "utf8" }).trim().split("\n").map((l) => l.split(/\s+/)[0]);
}

/* ---- a relay that can cut the page's connections ---------------------------------------------- */
/* A TCP relay on a free loopback port to 127.0.0.1:target. cut() resets every connection it
 * carries (an RST, as a network failure would); the page's next connections go through as before. */
export function relay(target) {
    return new Promise((resolve) => {
        const pairs = new Set();
        const server = net.createServer((a) => {
            const b = net.connect({ host: "127.0.0.1", port: target });
            const pair = { a, b };
            pairs.add(pair);
            a.pipe(b);
            b.pipe(a);
            const end = () => { pairs.delete(pair); a.destroy(); b.destroy(); };
            a.on("error", end); b.on("error", end); a.on("close", end); b.on("close", end);
        });
        server.listen(0, "127.0.0.1", () => resolve({
            port: server.address().port,
            get open() { return pairs.size; },
            cut() {
                const n = pairs.size;
                for (const { a, b } of pairs) { a.resetAndDestroy(); b.resetAndDestroy(); }
                pairs.clear();
                return n;
            },
            close: () => new Promise((r) => { for (const { a, b } of pairs) { a.destroy(); b.destroy(); } server.close(r); }),
        }));
    });
}

export { ROOT };
