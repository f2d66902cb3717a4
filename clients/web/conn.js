// conn.js — the page's connection to its vivd: a WebSocket (one binary message = one msgpack map,
// docs/PROTOCOL.md), the hello/welcome greeting, and reconnecting with backoff when it drops.
//
// No DOM: the socket comes from a factory (the browser's WebSocket by default; the Node tests pass
// one that bridges to vivd's TCP port), and the timers from the host. Callbacks:
//   onWelcome(welcome)   greeted (again, after a reconnect): subscribe from here
//   onMessage(msg)       every later message, decoded
//   onState(state, why)  "connecting" | "open" | "offline" (why: a sentence)
import { DISCONNECTING, ProtocolError, WS_PATH, WS_PROTOCOL, decodeMessage, encodeMessage, hello, readError, readWelcome } from "./protocol.js";

/* Reconnecting: the first wait, doubled after each failure, up to the last (as viv view). */
export const RETRY_MIN_MS = 250;
export const RETRY_MAX_MS = 4000;

/* The WebSocket URL of the vivd that served the page at location (a URL or Location). */
export function wsUrl(location) {
    const u = new URL(WS_PATH, location.href ?? String(location));
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    u.hash = "";
    u.search = "";
    return u.href;
}

export class Connection {
    constructor({ url, token = "", name = "viv-web", makeSocket, onWelcome = () => {}, onMessage = () => {},
                  onState = () => {}, setTimeout: st, clearTimeout: ct }) {
        this.url = url;
        this.token = token;
        this.name = name;
        this.makeSocket = makeSocket ?? ((u) => new WebSocket(u, WS_PROTOCOL));
        this.onWelcome = onWelcome;
        this.onMessage = onMessage;
        this.onState = onState;
        /* a browser's timers must be called unbound (as methods of this object they throw) */
        this.setTimeout = st ?? ((fn, ms) => globalThis.setTimeout(fn, ms));
        this.clearTimeout = ct ?? ((t) => globalThis.clearTimeout(t));
        this.ws = null;
        this.state = "offline";
        this.greeted = false;
        this.stopped = true;
        this.backoff = RETRY_MIN_MS;
        this.timer = null;
        this.attempts = 0;           /* since the last welcome */
        this.connects = 0;           /* welcomes received, in all */
        this.bytesIn = 0;
        this.bytesOut = 0;
        this.tokenRefused = false;
        this.lastError = null;
    }

    start() {
        this.stopped = false;
        this.#open();
    }

    /* Stop for good (no reconnect). */
    close() {
        this.stopped = true;
        if (this.timer !== null) this.clearTimeout(this.timer);
        this.timer = null;
        if (this.ws) {
            const ws = this.ws;
            this.ws = null;
            ws.onclose = ws.onmessage = ws.onerror = ws.onopen = null;
            try { ws.close(); } catch { /* already closed */ }
        }
        this.#setState("offline", "closed");
    }

    /* Drop the socket as a network failure would (the reconnect logic runs as usual). */
    drop() {
        if (this.ws) this.ws.close();
    }

    /* Greet again with another token (a new connection, so the role is the token's). */
    setToken(token) {
        this.token = token;
        this.tokenRefused = false;
        if (this.ws) this.drop();
    }

    /* Send one message (an object). false when not greeted: nothing is queued while offline. */
    send(obj) {
        if (!this.ws || !this.greeted || this.ws.readyState !== 1) return false;
        const b = encodeMessage(obj);
        this.ws.send(b);
        this.bytesOut += b.length;
        return true;
    }

    #setState(s, why = "") {
        this.state = s;
        this.onState(s, why);
    }

    #open() {
        this.timer = null;
        this.greeted = false;
        this.attempts++;
        this.#setState("connecting", this.attempts > 1 ? `attempt ${this.attempts}` : "");
        let ws;
        try {
            ws = this.makeSocket(this.url);
        } catch (e) {
            this.#lost(`cannot open ${this.url}: ${e.message}`);
            return;
        }
        this.ws = ws;
        this.lastError = null;
        ws.binaryType = "arraybuffer";
        ws.onopen = () => this.#hello();
        ws.onmessage = (ev) => this.#receive(ev.data);
        ws.onerror = () => {};                    /* onclose follows, with what is known */
        ws.onclose = (ev) => {
            if (this.ws !== ws) return;
            this.ws = null;
            const why = this.lastError ? `${this.lastError.code}: ${this.lastError.msg}`
                      : ev && ev.code && ev.code !== 1000 && ev.code !== 1005 ? `closed (${ev.code}${ev.reason ? ", " + ev.reason : ""})`
                      : "the connection closed";
            this.#lost(why);
        };
    }

    #hello() {
        /* a refused token still leaves the page a viewer */
        const token = this.tokenRefused ? "" : this.token;
        const b = encodeMessage(hello(this.name, token));
        this.ws.send(b);
        this.bytesOut += b.length;
    }

    #lost(why) {
        this.greeted = false;
        if (this.stopped) return;
        this.#setState("offline", why);
        const wait = this.backoff;
        this.backoff = Math.min(this.backoff * 2, RETRY_MAX_MS);
        this.timer = this.setTimeout(() => this.#open(), wait);
    }

    #receive(data) {
        if (typeof data === "string") return;     /* the protocol has no text messages */
        const body = data instanceof Uint8Array ? data : new Uint8Array(data);
        this.bytesIn += body.length;
        let m;
        try {
            m = decodeMessage(body);
        } catch (e) {
            if (!(e instanceof ProtocolError)) throw e;
            this.onMessage({ t: "local_error", code: "bad_message", msg: e.message });
            return;
        }
        if (!this.greeted) {
            if (m.t === "error") {
                const e = readError(m);
                if (e.code === "bad_token" && !this.tokenRefused) {
                    this.tokenRefused = true;          /* say so, and watch as a viewer */
                    this.onMessage({ t: "local_error", code: "bad_token", msg: e.msg });
                    this.#hello();
                    return;
                }
                if (DISCONNECTING.has(e.code)) this.lastError = e;
                this.onMessage(m);
                return;
            }
            let w;
            try {
                w = readWelcome(m);
            } catch (e) {
                this.onMessage({ t: "local_error", code: "bad_welcome", msg: e.message });
                this.drop();
                return;
            }
            this.greeted = true;
            this.lastError = null;
            this.attempts = 0;
            this.backoff = RETRY_MIN_MS;
            this.connects++;
            this.#setState("open", w.role);
            this.onWelcome(w);
            return;
        }
        if (m.t === "error") {
            const e = readError(m);
            if (DISCONNECTING.has(e.code)) this.lastError = e;     /* the reason the close will give */
        }
        this.onMessage(m);
    }
}
