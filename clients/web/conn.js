// conn.js — the page's connection to its vivd: a WebSocket (one binary message = one msgpack map,
// docs/PROTOCOL.md), the hello/welcome greeting, and reconnecting with backoff when it drops —
// to the next address of a list, when it has one (a cluster's relays, docs/CLUSTER.md).
//
// No DOM: the socket comes from a factory (the browser's WebSocket by default; the Node tests pass
// one that bridges to vivd's TCP port), and the timers from the host. Callbacks:
//   onWelcome(welcome)   greeted (again, after a reconnect): subscribe from here
//   onMessage(msg)       every later message, decoded
//   onState(state, why)  "connecting" | "open" | "offline" (why: a sentence)
import { DISCONNECTING, ProtocolError, WS_PATH, WS_PROTOCOL, decodeMessage, encodeMessage, hello, readError, readWelcome } from "./protocol.js";

/* Reconnecting: the first wait, doubled after each failure, up to the last (as viv view). With
 * a list of addresses, each is tried in turn and the wait doubles once per round of the list. */
export const RETRY_MIN_MS = 250;
export const RETRY_MAX_MS = 4000;
export const MAX_URLS = 16;

/* The WebSocket URL of the vivd that served the page at location (a URL or Location). */
export function wsUrl(location) {
    const u = new URL(WS_PATH, location.href ?? String(location));
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    u.hash = "";
    u.search = "";
    return u.href;
}

/* The addresses the page may use: its own server's first, then those of hosts (the fragment's
 * hosts=H:P,H:P: a cluster's relays), each HOST:PORT (served at /ws, with the page's own ws: or
 * wss:) or a whole ws:// or wss:// URL. Duplicates go, and a bad item is skipped with a reason in
 * bad (so the page can say so). */
export function wsUrls(location, hosts = "", bad = []) {
    const own = wsUrl(location), out = [own];
    const secure = own.startsWith("wss:");
    for (const item of (hosts ?? "").split(",").map((s) => s.trim()).filter((s) => s)) {
        const hostPort = /^([^/:\s[\]]+|\[[0-9a-fA-F:.]+\]):\d{1,5}$/.test(item);
        let u = null;
        try {
            if (hostPort) u = new URL(`${secure ? "wss" : "ws"}://${item}${WS_PATH}`);
            else if (/^wss?:\/\//.test(item)) u = new URL(item);
        } catch {
            u = null;
        }
        if (!u || !u.hostname) {
            bad.push(`'${item}' is not HOST:PORT or a ws:// address`);
            continue;
        }
        if (!out.includes(u.href) && out.length < MAX_URLS) out.push(u.href);
    }
    return out;
}

export class Connection {
    /* url: the server's WebSocket address; or urls: a list of them (the first is tried first). */
    constructor({ url, urls, token = "", name = "viv-web", makeSocket, onWelcome = () => {}, onMessage = () => {},
                  onState = () => {}, setTimeout: st, clearTimeout: ct }) {
        this.urls = urls && urls.length ? [...urls] : [url];
        this.at = 0;                 /* the address in use (or tried next) */
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
        this.timer = null;
        this.attempts = 0;           /* since the last welcome */
        this.failures = 0;           /* attempts that failed since the last welcome */
        this.connects = 0;           /* welcomes received, in all */
        this.bytesIn = 0;
        this.bytesOut = 0;
        this.tokenRefused = false;
        this.lastError = null;
    }

    /* The address in use, or to be tried next. */
    get url() { return this.urls[this.at]; }

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
        /* the next address (after the one that went away or did not answer); the wait doubles
         * after each whole round of the list */
        this.at = (this.at + 1) % this.urls.length;
        const wait = Math.min(RETRY_MIN_MS * 2 ** Math.floor(this.failures / this.urls.length), RETRY_MAX_MS);
        this.failures++;
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
            this.failures = 0;
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
