#!/bin/sh
# refresh.sh — rebuild the page's vendored files (this folder) from the npm registry, at the
# pinned versions below, so that the page needs no network: `make web-vendor` runs it.
#
# Each package's tarball is fetched with `npm pack` and checked against the integrity pinned
# here (the registry's sha512 at the time it was pinned), so a registry that serves other bytes
# for the same version stops the refresh instead of changing the page. VERSIONS records what was
# taken and the sha256 of each file written; tests/web/vendor.test.mjs checks the files against
# it, so a hand edit shows.
#
# To move to a new version: change the version and the integrity (`npm view PKG@VER
# dist.integrity`), run this, run `node --test tests/web/`, commit the folder.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

MSGPACK=@msgpack/msgpack@3.1.3
MSGPACK_SRI=sha512-47XIizs9XZXvuJgoaJUIE2lFoID8ugvc0jzSHP+Ptfk8nTbnR8g788wv48N03Kx0UkAv559HWRQ3yzOgzlRNUA==
FZSTD=fzstd@0.1.1
FZSTD_SRI=sha512-dkuVSOKKwh3eas5VkJy1AW1vFpet8TA/fGmVA5krThl8YcOVE/8ZIoEA1+U1vEn5ckxxhLirSdY837azmbaNHA==

for t in npm node; do
    command -v $t >/dev/null || { echo "refresh.sh: $t is not installed (apt-get install nodejs npm)" >&2; exit 1; }
done

# fetch PKG@VER SRI DIR: the package's files unpacked in DIR/package.
fetch() {
    mkdir -p "$3"
    file=$(cd "$3" && npm pack --silent "$1" | tail -n 1)
    got=$(node -e 'const c = require("crypto"), b = require("fs").readFileSync(process.argv[1]);
        process.stdout.write("sha512-" + c.createHash("sha512").update(b).digest("base64"))' "$3/$file")
    if [ "$got" != "$2" ]; then
        echo "refresh.sh: $1 from the registry has integrity $got, not the pinned $2;" \
             "check the release, then pin the new value in $0" >&2
        exit 1
    fi
    tar xzf "$3/$file" -C "$3"
}

fetch "$MSGPACK" "$MSGPACK_SRI" "$tmp/msgpack"
fetch "$FZSTD" "$FZSTD_SRI" "$tmp/fzstd"

# @msgpack/msgpack ships its ES build as 20 files; its UMD build is one file. Inside an ES module
# the UMD wrapper takes its CommonJS branch when `module` and `exports` exist, so a local pair of
# them turns it into one ES module with the same exports, without a bundler.
{
    printf '// @msgpack/msgpack %s (ISC licence: msgpack.LICENSE), dist.umd/msgpack.js of the npm\n' "${MSGPACK##*@}"
    printf '// package wrapped as one ES module by refresh.sh. Do not edit: run make web-vendor.\n'
    printf 'const module = { exports: {} };\nconst exports = module.exports;\n'
    cat "$tmp/msgpack/package/dist.umd/msgpack.js"
    printf '\nconst M = module.exports;\n'
    printf 'export const { encode, decode, decodeMulti, Encoder, Decoder, DecodeError, ExtensionCodec, ExtData } = M;\n'
    printf 'export default M;\n'
} | sed 's,^//# sourceMappingURL=.*$,,' > "$here/msgpack.js"
cp "$tmp/msgpack/package/LICENSE" "$here/msgpack.LICENSE"

{
    printf '// fzstd %s (MIT licence: fzstd.LICENSE), esm/index.mjs of the npm package, copied by\n' "${FZSTD##*@}"
    printf '// refresh.sh. Do not edit: run make web-vendor.\n'
    cat "$tmp/fzstd/package/esm/index.mjs"
} > "$here/fzstd.js"
cp "$tmp/fzstd/package/LICENSE" "$here/fzstd.LICENSE"

{
    echo "# Written by refresh.sh: package, integrity of its tarball, then the sha256 of each file made."
    echo "$MSGPACK $MSGPACK_SRI"
    echo "$FZSTD $FZSTD_SRI"
    (cd "$here" && sha256sum msgpack.js msgpack.LICENSE fzstd.js fzstd.LICENSE)
} > "$here/VERSIONS"
echo "refresh.sh: vendored $MSGPACK and $FZSTD into $here"
