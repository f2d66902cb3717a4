// tcp.mjs — a tiny vivd client over TCP for the recorder and the benchmarks (not for the page,
// which speaks WebSocket): each message is a 4-byte big-endian length, then one msgpack map
// (docs/PROTOCOL.md, "Transport and framing").
import net from "node:net";
import { decodeMessage, encodeMessage } from "../../clients/web/protocol.js";

/* Connect to host:port; resolves to { send(obj), next(pred, ms) → {msg, body}, close() }.
 * Every message received is kept in order with its raw body, for recording. */
export function connect(host, port) {
    return new Promise((resolve, reject) => {
        const sock = net.connect({ host, port });
        let buf = Buffer.alloc(0);
        const queue = [];
        let waiter = null;
        sock.on("data", (chunk) => {
            buf = Buffer.concat([buf, chunk]);
            while (buf.length >= 4) {
                const n = buf.readUInt32BE(0);
                if (buf.length < 4 + n) break;
                const body = new Uint8Array(buf.subarray(4, 4 + n));
                buf = buf.subarray(4 + n);
                queue.push({ body, msg: decodeMessage(body) });
            }
            if (waiter) waiter();
        });
        sock.on("error", reject);
        sock.on("connect", () => resolve({
            send(obj) {
                const body = encodeMessage(obj);
                const head = Buffer.alloc(4);
                head.writeUInt32BE(body.length);
                sock.write(Buffer.concat([head, Buffer.from(body)]));
            },
            /* The next message that pred accepts (others are dropped), within ms. */
            async next(pred = () => true, ms = 5000) {
                const until = Date.now() + ms;
                for (;;) {
                    while (queue.length) {
                        const m = queue.shift();
                        if (pred(m.msg)) return m;
                    }
                    const left = until - Date.now();
                    if (left <= 0) throw new Error("no matching message within " + ms + " ms");
                    await new Promise((r) => {
                        const t = setTimeout(r, left);
                        waiter = () => { clearTimeout(t); waiter = null; r(); };
                    });
                }
            },
            close() { sock.destroy(); },
        }));
    });
}

/* The TCP framing of a list of bodies: how the corpus files are stored. */
export function frameBodies(bodies) {
    const parts = [];
    for (const b of bodies) {
        const head = Buffer.alloc(4);
        head.writeUInt32BE(b.length);
        parts.push(head, Buffer.from(b));
    }
    return Buffer.concat(parts);
}

/* The bodies of a corpus file. */
export function readBodies(bytes) {
    const out = [];
    for (let o = 0; o + 4 <= bytes.length;) {
        const n = (bytes[o] << 24 | bytes[o + 1] << 16 | bytes[o + 2] << 8 | bytes[o + 3]) >>> 0;
        out.push(new Uint8Array(bytes.buffer, bytes.byteOffset + o + 4, n));
        o += 4 + n;
    }
    return out;
}

/* A WebSocket look-alike over vivd's TCP port, for driving the page's modules (conn.js,
 * viewer.js) from Node: each message out gets its 4-byte length, each one in loses it. Only what
 * conn.js uses: readyState, binaryType, send, close and the four on* handlers. */
export class TcpWebSocket {
    constructor(host, port) {
        this.readyState = 0;
        this.binaryType = "arraybuffer";
        this.onopen = this.onmessage = this.onclose = this.onerror = null;
        this.sock = net.connect({ host, port });
        this.sock.setNoDelay(true);
        let buf = Buffer.alloc(0);
        this.sock.on("connect", () => {
            this.readyState = 1;
            this.onopen?.({});
        });
        this.sock.on("data", (chunk) => {
            buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
            while (buf.length >= 4) {
                const n = buf.readUInt32BE(0);
                if (buf.length < 4 + n) break;
                const body = new Uint8Array(n);
                body.set(buf.subarray(4, 4 + n));
                buf = buf.subarray(4 + n);
                if (this.readyState === 1) this.onmessage?.({ data: body.buffer });
            }
        });
        this.sock.on("error", () => this.onerror?.({}));
        this.sock.on("close", () => {
            if (this.readyState >= 2) return;            /* close() reports it */
            this.readyState = 3;
            this.onclose?.({ code: 1006, reason: "" });
        });
    }

    send(bytes) {
        const head = Buffer.alloc(4);
        head.writeUInt32BE(bytes.length);
        this.sock.write(Buffer.concat([head, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)]));
    }

    /* Like a browser's close(): the close event comes later, asynchronously. */
    close() {
        if (this.readyState >= 2) return;
        this.readyState = 2;
        this.sock.destroy();
        setImmediate(() => {
            this.readyState = 3;
            this.onclose?.({ code: 1005, reason: "" });
        });
    }
}
