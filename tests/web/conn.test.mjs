// conn.test.mjs — the connection (clients/web/conn.js) with a scripted socket and a fake clock:
// the greeting, reconnecting with backoff (round a list of addresses), a refused token, text
// messages.
import test from "node:test";
import assert from "node:assert/strict";
import { Connection, MAX_URLS, RETRY_MAX_MS, RETRY_MIN_MS, wsUrl, wsUrls } from "../../clients/web/conn.js";
import { WS_PATH } from "../../clients/web/protocol.js";
import { load } from "./corpus.mjs";
import { FakeSocket, fakeClock } from "./fakes.mjs";

const welcomeBody = () => load("welcome.msgs")[0].body;

test("the page's WebSocket URL is /ws on its own host and port", () => {
    assert.equal(WS_PATH, "/ws");
    assert.equal(wsUrl(new URL("http://127.0.0.1:7401/index.html#token=abc")), "ws://127.0.0.1:7401/ws");
    assert.equal(wsUrl(new URL("https://viv.example:8443/sub/page.html?x=1")), "wss://viv.example:8443/ws");
});

test("the fragment's hosts: the page's own server first, then each relay's /ws; bad ones said", () => {
    const page = new URL("http://10.0.0.1:7401/#hosts=x");
    assert.deepEqual(wsUrls(page), ["ws://10.0.0.1:7401/ws"]);
    assert.deepEqual(wsUrls(page, ""), ["ws://10.0.0.1:7401/ws"]);
    const bad = [];
    assert.deepEqual(wsUrls(page, "10.0.0.2:7401, 10.0.0.1:7401,ws://10.0.0.3:9000/ws,,http://x:1/,10.0.0.2:7401", bad),
                     ["ws://10.0.0.1:7401/ws", "ws://10.0.0.2:7401/ws", "ws://10.0.0.3:9000/ws"]);
    assert.deepEqual(bad, ["'http://x:1/' is not HOST:PORT or a ws:// address"]);
    assert.deepEqual(wsUrls(new URL("https://a.example/"), "b.example:8443"), ["wss://a.example/ws", "wss://b.example:8443/ws"]);
    const many = Array.from({ length: 40 }, (_, i) => `10.1.0.${i}:7401`).join(",");
    assert.equal(wsUrls(page, many).length, MAX_URLS);
});

test("a list: a lost server's successor is the next address; the wait doubles once per round", () => {
    const socks = [], clock = fakeClock(), notes = [];
    const c = new Connection({ urls: ["ws://a/ws", "ws://b/ws"], makeSocket: (u) => new FakeSocket(u, socks),
                               onState: (s, why) => notes.push(s), ...clock });
    c.start();
    assert.equal(socks[0].url, "ws://a/ws");
    socks[0].open();
    socks[0].recv(welcomeBody());
    assert.equal(c.url, "ws://a/ws");
    socks[0].close();                              /* a goes away: b next, after the first wait */
    const tried = [], waits = [];
    for (let i = 0; i < 5; i++) {
        waits.push(clock.fire());
        tried.push(socks.at(-1).url);
        socks.at(-1).close();                      /* refused */
    }
    assert.deepEqual(tried, ["ws://b/ws", "ws://a/ws", "ws://b/ws", "ws://a/ws", "ws://b/ws"]);
    assert.deepEqual(waits, [RETRY_MIN_MS, RETRY_MIN_MS, 500, 500, 1000]);
    clock.fire();
    const s = socks.at(-1);                        /* a answers again */
    assert.equal(s.url, "ws://a/ws");
    s.open();
    s.recv(welcomeBody());
    assert.equal(c.connects, 2);
    assert.equal(c.url, "ws://a/ws");
    s.close();                                     /* the wait starts over, at b */
    assert.equal(clock.timers[0].ms, RETRY_MIN_MS);
    clock.fire();
    assert.equal(socks.at(-1).url, "ws://b/ws");
    c.close();
});

test("hello first, then the welcome, then messages; a drop reconnects with a doubling wait", () => {
    const socks = [], clock = fakeClock(), got = [], states = [];
    let welcomes = 0;
    const c = new Connection({ url: "ws://h/ws", token: "tok", makeSocket: (u) => new FakeSocket(u, socks),
                               onWelcome: () => welcomes++, onMessage: (m) => got.push(m.t), onState: (s) => states.push(s), ...clock });
    c.start();
    socks[0].open();
    assert.deepEqual(socks[0].sent, [{ t: "hello", v: 1, name: "viv-web", token: "tok" }]);
    assert.equal(c.send({ t: "ping" }), false, "nothing goes before the welcome");
    socks[0].recv(welcomeBody());
    assert.equal(welcomes, 1);
    assert.equal(c.state, "open");
    assert.equal(c.send({ t: "ping", n: 1 }), true);
    socks[0].recv({ t: "pong", n: 1 });
    socks[0].onmessage({ data: "text is not the protocol" });
    assert.deepEqual(got, ["pong"]);
    /* the server goes away: 250, 500, 1000, 2000, 4000, 4000 ms between attempts */
    socks[0].close();
    assert.equal(c.state, "offline");
    const waits = [];
    for (let i = 0; i < 6; i++) {
        waits.push(clock.fire());
        socks.at(-1).close();                 /* refused again */
    }
    assert.deepEqual(waits, [RETRY_MIN_MS, 500, 1000, 2000, RETRY_MAX_MS, RETRY_MAX_MS]);
    /* it comes back: the wait starts over */
    clock.fire();
    const s = socks.at(-1);
    s.open();
    s.recv(welcomeBody());
    assert.equal(welcomes, 2);
    assert.equal(c.connects, 2);
    s.close();
    assert.equal(clock.timers[0].ms, RETRY_MIN_MS);
    c.close();
    assert.ok(states.includes("connecting") && states.includes("open") && states.at(-1) === "offline");
});

test("a refused token is said once, and the page greets again as a viewer", () => {
    const socks = [], got = [];
    const c = new Connection({ url: "ws://h/ws", token: "wrong", makeSocket: (u) => new FakeSocket(u, socks),
                               onMessage: (m) => got.push(m), ...fakeClock() });
    c.start();
    socks[0].open();
    socks[0].recv({ t: "error", code: "bad_token", msg: "the token matches no role" });
    assert.equal(got[0].t, "local_error");
    assert.equal(got[0].code, "bad_token");
    assert.deepEqual(socks[0].sent[1], { t: "hello", v: 1, name: "viv-web" }, "no token the second time");
    socks[0].recv(welcomeBody());
    assert.equal(c.state, "open");
});

test("the reason a server gives before it disconnects is the reason shown", () => {
    const socks = [], states = [];
    const c = new Connection({ url: "ws://h/ws", makeSocket: (u) => new FakeSocket(u, socks),
                               onState: (s, why) => states.push([s, why]), ...fakeClock() });
    c.start();
    socks[0].open();
    socks[0].recv(welcomeBody());
    socks[0].recv({ t: "error", code: "bad_input", msg: "not a reason to close" });
    socks[0].recv({ t: "error", code: "too_many_errors", msg: "16 errors" });
    socks[0].close();
    assert.deepEqual(states.at(-1), ["offline", "too_many_errors: 16 errors"]);
});

test("a message that is not one msgpack map is reported, not fatal", () => {
    const socks = [], got = [];
    const c = new Connection({ url: "ws://h/ws", makeSocket: (u) => new FakeSocket(u, socks), onMessage: (m) => got.push(m), ...fakeClock() });
    c.start();
    socks[0].open();
    socks[0].recv(welcomeBody());
    socks[0].recv(Uint8Array.of(0x92, 1, 2));
    assert.equal(got[0].t, "local_error");
    assert.equal(c.state, "open");
});

test("the default timers are called unbound, as a browser requires", () => {
    const real = globalThis.setTimeout;
    const socks = [];
    let calls = 0;
    /* a browser's setTimeout throws "Illegal invocation" when called as another object's method */
    globalThis.setTimeout = function (fn, ms) {
        if (this !== undefined && this !== globalThis) throw new TypeError("Illegal invocation");
        calls++;
        return real(() => {}, 0);
    };
    try {
        const c = new Connection({ url: "ws://h/ws", makeSocket: (u) => new FakeSocket(u, socks) });
        c.start();
        socks[0].close();
        assert.equal(calls, 1, "the reconnect was scheduled");
        c.close();
    } finally {
        globalThis.setTimeout = real;
    }
});
