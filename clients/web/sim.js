// sim.js — the sim core in the page: the WebAssembly module bin/vivarium.wasm (`make wasm`, the
// functions of wasm/api.c) behind two small classes, for verifying a recording locally and for
// running a world with no server. The same file runs under Node (tests/wasm/api.test.mjs).
//
//   const sim = await loadSim(fetch("vivarium.wasm"));   // or bytes, or a WebAssembly.Module
//   const w = sim.create("sand", 42n, "");                // kind, seed (BigInt), params text
//   w.input(w.tick, client, seq, kindIndex, [args…]);     // 0, or a negative code (w.error says why)
//   w.step();
//   const f = w.render(0);                                // {w, h, pixels, palette, count, version}
//   w.hash(), w.frameHash();                              // BigInt: the `sh` and `fh` of a recording
//   const blob = w.save(); w.load(blob);                  // docs/REPLAY.md's state blobs
//   w.destroy();
//
// The module imports nothing today (tests/layers.sh holds it to, at most, the WASI calls libc
// needs to report a failed assert); those few are supplied here as stubs that report and stop.
// Seeds, ticks and hashes are BigInt (i64 in the module). Frame views point into the module's
// memory: they are valid until the next call that may allocate (create, load, save's copy is
// safe), so take them from render() each time.

const WASI = "wasi_snapshot_preview1";
const ERRNO_BADF = 8;
const ERRNO_SPIPE = 70;

export class SimError extends Error {
    /* code: the SIM_E… number (negative), or 0 for a failure of the module itself */
    constructor(code, message) {
        super(message);
        this.name = "SimError";
        this.code = code;
    }
}

const u64 = (v) => BigInt.asUintN(64, v);

/* The module, from bytes, a WebAssembly.Module, a Response or a promise of one. */
async function instantiate(source, imports) {
    source = await source;
    if (source instanceof WebAssembly.Module) return WebAssembly.instantiate(source, imports);
    if (typeof Response !== "undefined" && source instanceof Response) {
        if (!source.ok) throw new SimError(0, `cannot load the sim module: HTTP ${source.status}`);
        if (WebAssembly.instantiateStreaming && (source.headers.get("content-type") ?? "").startsWith("application/wasm"))
            return (await WebAssembly.instantiateStreaming(source, imports)).instance;
        source = await source.arrayBuffer();
    }
    return (await WebAssembly.instantiate(source, imports)).instance;
}

/* Load the module and run its initialiser. onOutput(text) receives what the C library would
 * write to stdout or stderr (a failed assert's message); console.error by default. */
export async function loadSim(source, { onOutput = (t) => console.error(t) } = {}) {
    let memory = null;
    const decoder = new TextDecoder();
    const wasi = {
        fd_write(fd, iovs, n, written) {
            const dv = new DataView(memory.buffer);
            let text = "", total = 0;
            for (let i = 0; i < n; i++) {
                const p = dv.getUint32(iovs + 8 * i, true), len = dv.getUint32(iovs + 8 * i + 4, true);
                text += decoder.decode(new Uint8Array(memory.buffer, p, len));
                total += len;
            }
            if (fd !== 1 && fd !== 2) return ERRNO_BADF;
            onOutput(text);
            dv.setUint32(written, total, true);
            return 0;
        },
        fd_close: () => 0,
        fd_seek: () => ERRNO_SPIPE,
        fd_fdstat_get: () => ERRNO_BADF,
        proc_exit(code) {
            throw new SimError(0, `the sim module stopped (exit status ${code})`);
        },
    };
    const instance = await instantiate(source, { [WASI]: wasi });
    memory = instance.exports.memory;
    instance.exports._initialize();
    return new Sim(instance.exports);
}

export class Sim {
    constructor(exports) {
        this.x = exports;
        this.encoder = new TextEncoder();
        this.decoder = new TextDecoder();
    }

    /* A C string at p in the module's memory. */
    str(p) {
        if (!p) return "";
        const m = new Uint8Array(this.x.memory.buffer);
        let e = p >>> 0;
        while (m[e]) e++;
        return this.decoder.decode(m.subarray(p >>> 0, e));
    }

    /* Call fn with s copied into the module's memory as a NUL-terminated string. */
    withStr(s, fn) {
        const b = this.encoder.encode(s ?? "");
        const p = this.x.vw_alloc(b.length + 1);
        if (!p) throw new SimError(-2, "out of memory in the sim module");
        const m = new Uint8Array(this.x.memory.buffer);
        m.set(b, p);
        m[p + b.length] = 0;
        try {
            return fn(p);
        } finally {
            this.x.vw_free(p);
        }
    }

    withBytes(bytes, fn) {
        const p = this.x.vw_alloc(bytes.length);
        if (!p) throw new SimError(-2, "out of memory in the sim module");
        new Uint8Array(this.x.memory.buffer).set(bytes, p);
        try {
            return fn(p);
        } finally {
            this.x.vw_free(p);
        }
    }

    /* The kinds list, in registry order: [{name, hz}]. */
    kinds() {
        const out = [];
        for (let i = 0; i < this.x.vw_kind_count(); i++)
            out.push({ name: this.str(this.x.vw_kind_name(i)), hz: this.x.vw_kind_hz(i) });
        return out;
    }

    /* What kind (a name) takes, in the shape protocol.js's readWorld gives a welcome's world
     * entry, so that the page's control schemes (inputs.js) work on a local world as on a served
     * one: {views: [str], inputs: [{name, args: [{name, lo, hi}]}] (in the kind's table order,
     * whose index is an input's kind number), names: {enum: {value name: id}}}. null for a kind
     * the module does not have. */
    describe(kind) {
        const x = this.x, i = this.kinds().findIndex((k) => k.name === kind);
        if (i < 0) return null;
        const views = Array.from({ length: x.vw_kind_views(i) }, (_, v) => this.str(x.vw_kind_view(i, v)));
        const inputs = Array.from({ length: x.vw_kind_inputs(i) }, (_, n) => ({
            name: this.str(x.vw_kind_input(i, n)),
            args: Array.from({ length: x.vw_kind_args(i, n) }, (_, a) => ({
                name: this.str(x.vw_kind_arg(i, n, a)), lo: x.vw_kind_arg_min(i, n, a), hi: x.vw_kind_arg_max(i, n, a),
            })),
        }));
        const names = {};
        for (let e = 0; e < x.vw_kind_enums(i); e++) {
            const values = {};
            for (let v = 0; v < x.vw_kind_enum_size(i, e); v++) values[this.str(x.vw_kind_enum_value(i, e, v))] = v;
            names[this.str(x.vw_kind_enum(i, e))] = values;
        }
        return { views, inputs, names };
    }

    /* The sentence for a SIM_E… code. */
    strerror(code) {
        return this.str(this.x.vw_strerror(code));
    }

    handle() {
        const h = this.x.vw_new();
        if (!h) throw new SimError(-2, "out of memory in the sim module");
        return h;
    }

    /* A world of kind (a name), seed (BigInt or number) and params ("key=value,…", "" for the
     * defaults). Throws SimError with the core's sentence. */
    create(kind, seed, params = "") {
        const h = this.handle();
        const rc = this.withStr(kind, (k) => this.withStr(params, (p) => this.x.vw_create(h, k, u64(BigInt(seed)), p)));
        if (rc) {
            const e = new SimError(rc, this.str(this.x.vw_error(h)));
            this.x.vw_destroy(h);
            throw e;
        }
        return new World(this, h);
    }

    /* The state hash of a saved blob (BigInt), as world.hash() gives it for the world it holds: a
     * checkpoint's recorded `sh` (docs/STATE.md). */
    stateHash(bytes) {
        return u64(this.withBytes(bytes, (p) => this.x.vw_state_hash(p, bytes.length)));
    }

    /* A world from a saved state blob (Uint8Array) of any kind: a recording's initial state or a
     * checkpoint. Throws SimError. */
    fromState(bytes) {
        const h = this.handle();
        const rc = this.withBytes(bytes, (p) => this.x.vw_load(h, p, bytes.length));
        if (rc) {
            const e = new SimError(rc, this.str(this.x.vw_error(h)));
            this.x.vw_destroy(h);
            throw e;
        }
        return new World(this, h);
    }
}

export class World {
    constructor(sim, h) {
        this.sim = sim;
        this.x = sim.x;
        this.h = h;
    }

    get tick() { return u64(this.x.vw_tick(this.h)); }
    get seed() { return u64(this.x.vw_seed(this.h)); }
    get kind() { return this.sim.str(this.x.vw_kind(this.h)); }
    get params() { return this.sim.str(this.x.vw_params(this.h)); }     /* canonical */
    get error() { return this.sim.str(this.x.vw_error(this.h)); }        /* the last failure */

    /* The index of a view by name (0 is the normal picture), or -1. */
    view(name) {
        return this.sim.withStr(name, (p) => this.x.vw_view_find(this.h, p));
    }

    /* Queue an input record for tick (must be this.tick): 0, or a negative SIM_E… code with the
     * reason in this.error; a refused input changes nothing. kind indexes the kind's inputs. */
    input(tick, client, seq, kind, args = []) {
        const a = [0, 0, 0, 0, 0, 0, 0, 0];
        for (let i = 0; i < args.length && i < 8; i++) a[i] = args[i] | 0;
        return this.x.vw_input(this.h, u64(BigInt(tick)), client >>> 0, seq >>> 0, kind, args.length, ...a);
    }

    /* Queue the input of an inputs-file line (`120 paint 160 20 5 sand`), as `viv sim --inputs`
     * reads it: 0 queued, 1 a blank or comment line, or a negative code (this.error). */
    inputLine(client, seq, line) {
        return this.sim.withStr(line, (p) => this.x.vw_input_line(this.h, client >>> 0, seq >>> 0, p));
    }

    /* Apply the queued inputs and advance n ticks (inputs apply to the first). */
    step(n = 1) {
        for (let i = 0; i < n; i++) this.x.vw_step(this.h);
    }

    /* Render the present state: w, h, pixels (w·h palette indexes, row-major) and palette (3·count
     * RGB bytes), both views into the module's memory, count and version of the palette. */
    render(view = 0) {
        const rc = this.x.vw_render(this.h, view);
        if (rc) throw new SimError(rc, this.error);
        const w = this.x.vw_frame_width(this.h), h = this.x.vw_frame_height(this.h);
        const count = this.x.vw_frame_palette_count(this.h);
        const buf = this.x.memory.buffer;
        return {
            w, h, count,
            version: this.x.vw_frame_palette_version(this.h) >>> 0,
            pixels: new Uint8Array(buf, this.x.vw_frame_pixels(this.h) >>> 0, w * h),
            palette: new Uint8Array(buf, this.x.vw_frame_palette(this.h) >>> 0, 3 * count),
        };
    }

    /* XXH3-64 of the last rendered frame (`fh`), and the state hash (`sh`; docs/STATE.md). */
    frameHash() { return u64(this.x.vw_frame_hash(this.h)); }
    hash() { return u64(this.x.vw_hash(this.h)); }

    /* Save and hash as the state version of blob `bytes` from now on (a new world compared with a
     * state an older build saved). Throws SimError for a version its kind does not read. */
    saveAs(bytes) {
        const rc = this.sim.withBytes(bytes, (p) => this.x.vw_save_as(this.h, p, bytes.length));
        if (rc) throw new SimError(rc, "the state's version is not one this build reads");
    }

    /* The whole state as a blob (a copy). Throws SimError if it cannot be saved. */
    save() {
        const n = this.x.vw_save(this.h) >>> 0;
        if (!n) throw new SimError(-12, this.error);
        return new Uint8Array(this.x.memory.buffer, this.x.vw_save_data(this.h) >>> 0, n).slice();
    }

    /* Replace this world with a saved blob (any kind); on error (SimError) it is left as it was. */
    load(bytes) {
        const rc = this.sim.withBytes(bytes, (p) => this.x.vw_load(this.h, p, bytes.length));
        if (rc) throw new SimError(rc, this.error);
    }

    destroy() {
        if (this.h) this.x.vw_destroy(this.h);
        this.h = 0;
    }
}
