// vendor.test.mjs — the vendored files (clients/web/vendor/) are those refresh.sh made: their
// sha256 as VERSIONS records it, each with its licence, and no eval in them. The page loads
// nothing from elsewhere: no http(s) URL in its HTML, CSS or modules.
import test from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const web = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../clients/web");
const vendor = path.join(web, "vendor");

test("the vendored files are the ones VERSIONS records", () => {
    const lines = fs.readFileSync(path.join(vendor, "VERSIONS"), "utf8").split("\n").filter((l) => /^[0-9a-f]{64} /.test(l));
    assert.ok(lines.length >= 4);
    for (const l of lines) {
        const [sum, name] = l.split(/\s+/);
        const got = crypto.createHash("sha256").update(fs.readFileSync(path.join(vendor, name))).digest("hex");
        assert.equal(got, sum, `${name}: edited by hand? Run make web-vendor`);
    }
    for (const js of ["msgpack.js", "fzstd.js"]) {
        assert.ok(fs.existsSync(path.join(vendor, js.replace(".js", ".LICENSE"))), `${js} has its licence`);
        const src = fs.readFileSync(path.join(vendor, js), "utf8");
        assert.ok(!/\beval\s*\(|new\s+Function\s*\(/.test(src), `${js} has no eval`);
    }
});

test("the page loads nothing from another host", () => {
    for (const f of fs.readdirSync(web)) {
        if (!/\.(html|css|js)$/.test(f)) continue;
        const src = fs.readFileSync(path.join(web, f), "utf8");
        const urls = src.match(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"')]*/gi) ?? [];
        assert.deepEqual(urls.filter((u) => !u.startsWith("//")), [], `${f} refers to another host`);
        assert.ok(!/@import\s+url\(|fonts\.googleapis|cdn\./i.test(src), `${f}: no fonts or CDN`);
    }
});
