// protocol.js — the messages of docs/PROTOCOL.md as the page sends and reads them: msgpack maps
// in and out, the welcome read into plain world descriptions. No DOM, no socket.
//
// Integers: msgpack's 64-bit forms decode as BigInt (useBigInt64), smaller forms as numbers, so
// u64 hashes (fh, sh) keep every bit; ticks, ids and sizes are read as numbers (refused past
// 2^53, which no world reaches), hashes and seeds as BigInt.
import { Decoder, Encoder } from "./vendor/msgpack.js";

export const PROTOCOL_VERSION = 1;
/* The WebSocket endpoint on the page's own host and port, and the subprotocol the page offers
 * (vivd also takes none). */
export const WS_PATH = "/ws";
export const WS_PROTOCOL = "vivarium";
/* The largest message the server accepts from a client (64 KiB) and sends (1 MiB + 64 KiB). */
export const CLIENT_MAX = 65536;
export const SERVER_MAX = 1114112;

export class ProtocolError extends Error {
    constructor(message) {
        super(message);
        this.name = "ProtocolError";
    }
}

const decoder = new Decoder({ useBigInt64: true, maxStrLength: SERVER_MAX, maxBinLength: SERVER_MAX });
const encoder = new Encoder({ useBigInt64: true, ignoreUndefined: true });

/* One message body (a Uint8Array holding exactly one msgpack map) → the map as an object with a
 * string `t`. Throws ProtocolError. */
export function decodeMessage(body) {
    if (body.length === 0 || body.length > SERVER_MAX)
        throw new ProtocolError(`a message of ${body.length} bytes (1..${SERVER_MAX} expected)`);
    let m;
    try {
        m = decoder.decode(body);      /* refuses bytes after the value ("Extra N of M byte(s)") */
    } catch (e) {
        throw new ProtocolError(`not one msgpack value: ${e.message}`);
    }
    if (m === null || typeof m !== "object" || Array.isArray(m) || m instanceof Uint8Array)
        throw new ProtocolError("a message that is not a msgpack map");
    if (typeof m.t !== "string") throw new ProtocolError("a message without a string 't'");
    return m;
}

/* An object → one msgpack map (undefined fields left out). */
export function encodeMessage(obj) {
    return encoder.encode(obj);
}

/* ---- integers ------------------------------------------------------------------------------ */
export function num(v, what = "a field") {
    if (typeof v === "number" && Number.isInteger(v)) return v;
    if (typeof v === "bigint" && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER))
        return Number(v);
    throw new ProtocolError(`${what} is not an integer the page can hold: ${String(v)}`);
}

export function u64(v, what = "a field") {
    if ((typeof v === "number" && Number.isInteger(v) && v >= 0) || (typeof v === "bigint" && v >= 0n))
        return BigInt.asUintN(64, BigInt(v));
    throw new ProtocolError(`${what} is not an unsigned integer: ${String(v)}`);
}

/* ---- client → server ----------------------------------------------------------------------- */
export const hello = (name, token) =>
    ({ t: "hello", v: PROTOCOL_VERSION, name, token: token || undefined });

/* sub: every, div, enc, view, events and rect are left out when not given (the server's
 * defaults apply); events: true asks for the world's events too (docs/PROTOCOL.md, events);
 * rect: [x, y, w, h] in world pixels, only that part of the world (the server widens it:
 * alignRect). */
export const sub = (world, { every, div, enc, view, events, rect } = {}) =>
    ({ t: "sub", world, every: every && every !== 1 ? every : undefined, div: div && div !== 1 ? div : undefined,
       enc: enc || undefined, view: view || undefined, events: events ? true : undefined,
       rect: rect ? rect.map((v) => Math.round(v)) : undefined });

/* The server's region grid (docs/PROTOCOL.md, sub's rect): rects are widened to it. */
export const REGION = 64;

/* The rect the frames of a sub asking for rect [x, y, w, h] show, in a W×H world: widened to the
 * region grid, clipped to the world, a rect wholly outside it moved to the region at its nearest
 * edge (docs/PROTOCOL.md, sub; server/fanout.c's srv_rect_align). */
export function alignRect([x, y, w, h], W, H) {
    let x0 = x < 0 ? 0 : Math.floor(x / REGION) * REGION, y0 = y < 0 ? 0 : Math.floor(y / REGION) * REGION;
    let x1 = Math.min(Math.ceil((x + w) / REGION) * REGION, W), y1 = Math.min(Math.ceil((y + h) / REGION) * REGION, H);
    if (x0 >= W) x0 = Math.floor((W - 1) / REGION) * REGION;
    if (y0 >= H) y0 = Math.floor((H - 1) / REGION) * REGION;
    if (x1 <= x0) x1 = Math.min(x0 + REGION, W);
    if (y1 <= y0) y1 = Math.min(y0 + REGION, H);
    return [x0, y0, x1 - x0, y1 - y0];
}

export const unsub = (world) => ({ t: "unsub", world });

export const input = (world, seq, kind, args) => ({ t: "input", world, seq, kind, args });

/* play: op is pause, resume, step, seek (with tick) or speed (with speed, a percentage). */
export function play(world, op, { tick, speed } = {}) {
    const m = { t: "play", world, op };
    if (op === "seek") m.tick = tick;
    if (op === "speed") m.speed = speed;
    return m;
}

/* timeline: a viewer's own timeline on the world it watches (docs/PROTOCOL.md "timeline"): op is
 * seek (with tick), pause, resume, step, back, speed (with speed, a percentage) or live. */
export function timeline(world, op, { tick, speed } = {}) {
    const m = { t: "timeline", world, op };
    if (op === "seek") m.tick = tick;
    if (op === "speed") m.speed = speed;
    return m;
}

/* fork: a new live world from world's recorded moment at tick (docs/PROTOCOL.md "fork"). */
export const fork = (world, tick) => ({ t: "fork", world, tick });

/* open: watch session (1..2^63−1) of file, one `sessions` lists (absent: the first, the file vivd
 * records to), with no token (docs/PROTOCOL.md "open"): vivd answers `opened` with the world
 * that shows it. */
export const open = (session, file) => ({ t: "open", session, file: file || undefined });

export const ping = (n) => ({ t: "ping", n });

/* ---- server → client ----------------------------------------------------------------------- */
function field(obj, key, type, where) {
    const v = obj[key];
    const ok = type === "int" ? typeof v === "number" || typeof v === "bigint"
             : type === "array" ? Array.isArray(v)
             : type === "map" ? v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array)
             : typeof v === type;
    if (!ok) throw new ProtocolError(`${where} has no ${type} '${key}'`);
    return v;
}

/* A frame's `rect` → [x, y, w, h] (null when absent: the whole world). Throws ProtocolError. */
export function readRect(r, where = "frame.rect") {
    if (r === undefined) return null;
    if (!Array.isArray(r) || r.length !== 4) throw new ProtocolError(`${where} is not [x, y, w, h]`);
    const v = r.map((x) => num(x, where));
    if (v[0] < 0 || v[1] < 0 || v[2] < 1 || v[3] < 1) throw new ProtocolError(`${where} [${v}] is not a rect of a world`);
    return v;
}

/* A play map (welcome's world entry, or a playing message) → {session, start, end, paused,
 * speed, file}. */
export function readPlay(p, where = "play") {
    field(p, "start", "int", where);
    return {
        session: num(p.session ?? 0, `${where}.session`),
        start: num(p.start, `${where}.start`),
        end: num(field(p, "end", "int", where), `${where}.end`),
        paused: p.paused === true,
        speed: num(p.speed ?? 100, `${where}.speed`),
        file: typeof p.file === "string" ? p.file : "",
    };
}

/* A world entry of welcome (or created) → a plain description:
 *   {id, kind, seed (BigInt), params, tick, hz, w, h, views: [str],
 *    inputs: [{name, args: [{name, lo, hi}]}]  (in the order the welcome gave),
 *    names: {enum: {name: id}},  play: null | readPlay(…)}
 * Throws ProtocolError naming what is missing. */
export function readWorld(e) {
    const where = `world entry ${typeof e?.id === "number" ? e.id : "?"}`;
    if (e === null || typeof e !== "object") throw new ProtocolError("a world entry that is not a map");
    const w = {
        id: num(field(e, "id", "int", where), `${where}.id`),
        kind: field(e, "kind", "string", where),
        seed: u64(e.seed ?? 0, `${where}.seed`),
        params: typeof e.params === "string" ? e.params : "",
        tick: num(field(e, "tick", "int", where), `${where}.tick`),
        hz: num(field(e, "hz", "int", where), `${where}.hz`),
        w: num(field(e, "w", "int", where), `${where}.w`),
        h: num(field(e, "h", "int", where), `${where}.h`),
        views: Array.isArray(e.views) ? e.views.filter((v) => typeof v === "string") : [],
        inputs: [],
        names: {},
        play: null,
    };
    if (w.views.length === 0) w.views = ["normal"];
    const inputs = e.inputs && typeof e.inputs === "object" ? e.inputs : {};
    const ranges = e.ranges && typeof e.ranges === "object" ? e.ranges : {};
    for (const [name, args] of Object.entries(inputs)) {
        if (!Array.isArray(args)) throw new ProtocolError(`${where}: input '${name}' has no argument list`);
        const rg = Array.isArray(ranges[name]) ? ranges[name] : [];
        w.inputs.push({
            name,
            args: args.map((a, i) => {
                const r = Array.isArray(rg[i]) && rg[i].length === 2 ? rg[i] : null;
                return {
                    name: String(a),
                    /* a missing range leaves the argument to the server's check */
                    lo: r ? num(r[0], `${where}: ${name} range`) : Number.MIN_SAFE_INTEGER,
                    hi: r ? num(r[1], `${where}: ${name} range`) : Number.MAX_SAFE_INTEGER,
                };
            }),
        });
    }
    const names = e.names && typeof e.names === "object" ? e.names : {};
    for (const [en, map] of Object.entries(names)) {
        if (!map || typeof map !== "object") continue;
        const out = {};
        for (const [k, v] of Object.entries(map)) out[k] = num(v, `${where}: names.${en}.${k}`);
        w.names[en] = out;
    }
    if (e.play && typeof e.play === "object") w.play = readPlay(e.play, `${where}.play`);
    return w;
}

/* opened → {world: readWorld(…), session, file}: the world that shows the session asked for (a
 * recording, or the live world recording it). */
export function readOpened(m) {
    return {
        world: readWorld(field(m, "world", "map", "opened")),
        session: num(field(m, "session", "int", "opened"), "opened.session"),
        file: field(m, "file", "string", "opened"),
    };
}

/* welcome → {v, server, role, client, worlds: [readWorld…]}. */
export function readWelcome(m) {
    if (m.t !== "welcome") throw new ProtocolError(`expected welcome, got '${m.t}'`);
    if (num(m.v ?? 0, "welcome.v") !== PROTOCOL_VERSION)
        throw new ProtocolError(`the server speaks protocol ${m.v}, the page ${PROTOCOL_VERSION}`);
    return {
        v: PROTOCOL_VERSION,
        server: typeof m.server === "string" ? m.server : "vivd",
        role: typeof m.role === "string" ? m.role : "viewer",
        client: num(m.client ?? 0, "welcome.client"),
        worlds: field(m, "worlds", "array", "welcome").map(readWorld),
    };
}

/* error → {code, msg, seq (or null)}. */
/* The events of an events message as `viv sim --events` prints them, one string each:
 * "event <tick> <name> key=value ...". Malformed entries are left out. */
export function eventLines(m) {
    if (!Array.isArray(m.events)) return [];
    const tick = m.tick === undefined ? "?" : String(m.tick);
    const out = [];
    for (const e of m.events) {
        if (!e || typeof e.name !== "string") continue;
        const f = e.fields && typeof e.fields === "object" ? e.fields : {};
        const kv = Object.entries(f).map(([k, v]) => `${k}=${typeof v === "string" ? v : String(v)}`);
        out.push([`event ${tick} ${e.name}`, ...kv].join(" "));
    }
    return out;
}

export function readError(m) {
    return {
        code: typeof m.code === "string" ? m.code : "?",
        msg: typeof m.msg === "string" ? m.msg : "",
        seq: typeof m.seq === "number" || typeof m.seq === "bigint" ? num(m.seq) : null,
    };
}

/* The error codes after which the server disconnects (docs/PROTOCOL.md's table). */
export const DISCONNECTING = new Set(["bad_length", "too_large", "too_many_errors", "timeout", "server_full"]);
