// wsraw.mjs — a WebSocket client written on a bare TCP socket (RFC 6455), so that a test can send
// what no browser would: text frames, bytes that are not msgpack, a length over the cap, broken
// fragmentation, reserved opcodes. It reads what vivd answers: binary messages (decoded as
// docs/PROTOCOL.md maps), the close frame's status and reason, and the end of the connection.
// tests/wsc.c is the C one, for the Check suite `ws`.
import crypto from "node:crypto";
import net from "node:net";
import { decodeMessage, encodeMessage } from "../../clients/web/protocol.js";

export const OP = { cont: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 };
const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/* One client frame: opcode, payload (Buffer or string); fin, rsv (the three reserved bits as
 * 0..7), mask (clients must), declare (the payload length to put in the header, when it is to
 * lie: a length over the cap with no bytes behind it). */
export function frame(opcode, payload = Buffer.alloc(0), { fin = true, rsv = 0, mask = true, declare } = {}) {
    const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    const len = declare ?? body.length;
    const head = [(fin ? 0x80 : 0) | (rsv << 4) | opcode];
    const m = mask ? 0x80 : 0;
    if (len < 126) head.push(m | len);
    else if (len < 65536) head.push(m | 126, len >> 8, len & 255);
    else {
        head.push(m | 127);
        const l = Buffer.alloc(8);
        l.writeBigUInt64BE(BigInt(len));
        head.push(...l);
    }
    if (!mask) return Buffer.concat([Buffer.from(head), body]);
    const key = crypto.randomBytes(4), out = Buffer.from(body);
    for (let i = 0; i < out.length; i++) out[i] ^= key[i & 3];
    return Buffer.concat([Buffer.from(head), key, out]);
}

/* Connect and upgrade at ws://127.0.0.1:port/ws with the subprotocol `vivarium`. Resolves to a
 * client: {send(buf), sendMsg(obj), next(what, pred, ms), messages, closeFrame, gone, close()}.
 * messages: every decoded message received, in order; closeFrame: {code, reason} once vivd sent
 * one (answered with a close frame, as RFC 6455 asks); gone: the connection has ended. */
export function wsConnect(port, { timeoutMs = 10000 } = {}) {
    return new Promise((resolve, reject) => {
        const sock = net.connect({ host: "127.0.0.1", port });
        const key = crypto.randomBytes(16).toString("base64");
        const accept = crypto.createHash("sha1").update(key + GUID).digest("base64");
        let buf = Buffer.alloc(0), upgraded = false, waiter = null;
        const timer = setTimeout(() => { sock.destroy(); reject(new Error("the WebSocket upgrade timed out")); }, timeoutMs);
        const c = {
            messages: [],
            closeFrame: null,
            gone: false,
            send(b) { if (!sock.destroyed) sock.write(b); },
            sendMsg(obj) { this.send(frame(OP.binary, Buffer.from(encodeMessage(obj)))); },
            /* the first message since `from` (an index into messages) that pred accepts */
            async next(what, pred, ms = 10000, from = 0) {
                const t0 = Date.now();
                for (;;) {
                    const m = c.messages.slice(from).find(pred);
                    if (m) return m;
                    if (c.gone) throw new Error(`the connection ended while waiting for ${what}`);
                    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
                    await new Promise((r) => { waiter = r; setTimeout(r, 50); });
                }
            },
            close() { sock.destroy(); },
        };
        const wake = () => { if (waiter) { const w = waiter; waiter = null; w(); } };
        const parse = () => {
            for (;;) {
                if (buf.length < 2) return;
                const op = buf[0] & 15;
                let len = buf[1] & 127, o = 2;
                if (len === 126) {
                    if (buf.length < 4) return;
                    len = buf.readUInt16BE(2);
                    o = 4;
                } else if (len === 127) {
                    if (buf.length < 10) return;
                    len = Number(buf.readBigUInt64BE(2));
                    o = 10;
                }
                if (buf[1] & 0x80) throw new Error("the server sent a masked frame");
                if (buf.length < o + len) return;
                const p = buf.subarray(o, o + len);
                buf = buf.subarray(o + len);
                if (op === OP.binary) c.messages.push(decodeMessage(new Uint8Array(p)));
                else if (op === OP.close && !c.closeFrame) {
                    c.closeFrame = { code: p.length >= 2 ? p.readUInt16BE(0) : 0, reason: p.subarray(2).toString("utf8") };
                    c.send(frame(OP.close, p.subarray(0, 2)));      /* the closing handshake's answer */
                }
                else if (op === OP.text) c.messages.push({ t: "(text)", text: p.toString("utf8") });
            }
        };
        sock.on("connect", () => {
            sock.write(`GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
                       `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: vivarium\r\n\r\n`);
        });
        sock.on("data", (d) => {
            buf = Buffer.concat([buf, d]);
            if (!upgraded) {
                const end = buf.indexOf("\r\n\r\n");
                if (end < 0) return;
                const head = buf.subarray(0, end).toString("latin1");
                buf = buf.subarray(end + 4);
                clearTimeout(timer);
                if (!/^HTTP\/1\.1 101 /.test(head) || !head.toLowerCase().includes(`sec-websocket-accept: ${accept.toLowerCase()}`)) {
                    sock.destroy();
                    reject(new Error(`the upgrade was refused: ${head.split("\r\n")[0]}`));
                    return;
                }
                upgraded = true;
                resolve(c);
            }
            parse();
            wake();
        });
        const gone = () => {
            c.gone = true;
            clearTimeout(timer);
            wake();
        };
        sock.on("error", (e) => { if (!upgraded) reject(e); });
        sock.on("close", gone);
    });
}
