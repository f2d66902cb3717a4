// corpus.mjs — the recorded streams of tests/web/fixtures/ (made by record.mjs), decoded.
import fs from "node:fs";
import path from "node:path";
import { readBodies } from "./tcp.mjs";
import { decodeMessage } from "../../clients/web/protocol.js";

export const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), "fixtures");

/* The messages of fixtures/NAME, decoded, each with its raw body. */
export function load(name) {
    const bytes = new Uint8Array(fs.readFileSync(path.join(FIXTURES, name)));
    return readBodies(bytes).map((body) => ({ body, msg: decodeMessage(body) }));
}

export function streams() {
    return fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".msgs")).sort();
}

export function frames(name) {
    return load(name).map((m) => m.msg).filter((m) => m.t === "frame");
}

export function welcome() {
    return load("welcome.msgs")[0].msg;
}
