#!/bin/sh
# install.sh — make install and make uninstall, as a packager runs them (make test-install):
#   1. make install DESTDIR=<tmp> PREFIX=/usr/local puts exactly the expected files, each the
#      same as what the build made (the page's served files, not its notes or scripts);
#   2. the unit: systemd-analyze verify accepts it with no word (its ExecStart binary, the
#      installed vivd, and its man page found), and systemd-analyze security rates its
#      sandbox at most 2.0 of 10;
#   3. the man pages: man -l renders each without a warning, in the C and the UTF-8 locale,
#      and each option of each program (its --list-options) has its entry, in its command's
#      section for viv;
#   4. the installed vivd, started from a folder far from the source tree with no --web or
#      --wasm, serves the installed page at / and the installed module at /vivarium.wasm over
#      HTTP on a free loopback port; the installed viv exports a recording as HTML with them;
#   5. make uninstall leaves no file under DESTDIR and no share/vivarium folder, but keeps a file
#      it did not put.
# Each check first runs on a case built to break it, and must fail there.
#
# usage: sh tests/install.sh BIN_DIR   (from the source tree, after make all and make man)
set -u
bin=${1:?usage: install.sh BIN_DIR}
cd "$(dirname "$0")/.." || exit 1
status=0
fail() { echo "install: FAIL: $*" >&2; status=1; }
ok() { echo "install: ok: $*"; }
tmp=$(mktemp -d /tmp/vivarium-install.XXXXXX)
root=$tmp/root
pid=""
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
make_() { ${MAKE:-make} --no-print-directory "$@" DESTDIR="$root" PREFIX=/usr/local >"$tmp/make.log" 2>&1; }

# ---- 1. the files --------------------------------------------------------------------------
# expected: "<installed path> <source>", one a line.
expected() {
    echo "usr/local/bin/vivd $bin/vivd"
    echo "usr/local/bin/viv $bin/viv"
    echo "usr/local/share/vivarium/vivarium.wasm $bin/vivarium.wasm"
    for f in $(cd clients/web && find . -type f | sed 's|^\./||' | sort); do
        case "$f" in README.md|package.json|vendor/refresh.sh) continue ;; esac
        echo "usr/local/share/vivarium/web/$f clients/web/$f"
    done
    echo "usr/local/share/man/man1/vivd.1 -"
    echo "usr/local/share/man/man1/viv.1 -"
    echo "usr/local/lib/systemd/system/vivd.service -"
}
# files_check DIR: what differs between DIR and the expected install, one a line.
files_check() {
    (cd "$1" && find . -type f -o -type l) | sed 's|^\./||' | sort > "$tmp/have"
    expected | cut -d' ' -f1 | sort > "$tmp/want"
    comm -23 "$tmp/want" "$tmp/have" | sed 's/^/missing: /'
    comm -13 "$tmp/want" "$tmp/have" | sed 's/^/not expected: /'
    expected | while read -r dst src; do
        [ "$src" = - ] || [ ! -f "$1/$dst" ] || cmp -s "$src" "$1/$dst" || echo "differs from $src: $dst"
    done
}

if ! make_ install; then
    cat "$tmp/make.log" >&2
    fail "make install DESTDIR=$root PREFIX=/usr/local failed"
    exit 1
fi
cp -a "$root" "$tmp/probe"
rm "$tmp/probe/usr/local/share/vivarium/web/main.js"
echo x >> "$tmp/probe/usr/local/share/vivarium/web/index.html"
touch "$tmp/probe/usr/local/share/vivarium/web/README.md"
out=$(files_check "$tmp/probe")
for want in "missing: usr/local/share/vivarium/web/main.js" "not expected: usr/local/share/vivarium/web/README.md" \
            "differs from clients/web/index.html"; do
    echo "$out" | grep -qF "$want" || fail "negative control: the file check missed '$want' (got: $out)"
done
rm -rf "$tmp/probe"
out=$(files_check "$root")
if [ -z "$out" ]; then ok "make install: $(wc -l < "$tmp/want") files, each where expected and as built"
else fail "make install put the wrong files:"; echo "$out" >&2; fi
for p in vivd viv; do [ -x "$root/usr/local/bin/$p" ] || fail "the installed $p is not executable"; done

# ---- 2. the unit ---------------------------------------------------------------------------
unit=$root/usr/local/lib/systemd/system/vivd.service
for line in "ExecStart=/usr/local/bin/vivd --db %S/vivarium/vivarium.db" DynamicUser=yes StateDirectory=vivarium \
            ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes; do
    grep -qxF "$line" "$unit" || fail "vivd.service has no line $line"
done
# verify_unit FILE EXEC MANDIR: systemd-analyze verify's words on FILE (its exit status if not 0),
# with its ExecStart binary taken from EXEC: verify wants it to exist, and the unit names
# /usr/local/bin/vivd, which is under DESTDIR here. Its man page (Documentation=) from MANDIR.
verify_unit() {
    mkdir -p "$tmp/verify" && rm -f "$tmp/verify/"*
    sed "s|^ExecStart=/usr/local/bin/vivd |ExecStart=$2 |" "$1" > "$tmp/verify/vivd.service"
    (cd "$tmp/verify" && MANPATH=$3 systemd-analyze verify "$tmp/verify/vivd.service" 2>&1) || echo "exit status $?"
}
# security FILE: 0 when systemd-analyze rates FILE's sandbox at most 2.0 (of 10) exposed.
security() {
    mkdir -p "$tmp/sec" && cp "$1" "$tmp/sec/vivd.service"
    systemd-analyze security --offline=yes --threshold=20 "$tmp/sec/vivd.service" > "$tmp/sec.out" 2>&1
}
vivd_real=$root/usr/local/bin/vivd
man_dir=$root/usr/local/share/man
sed 's/^ProtectSystem=/ProtectSytem=/' "$unit" > "$tmp/typo.service"
[ -n "$(verify_unit "$tmp/typo.service" "$vivd_real" "$man_dir")" ] || fail "negative control: verify was silent on a misspelt key"
[ -n "$(verify_unit "$unit" "$tmp/no-such-vivd" "$man_dir")" ] || fail "negative control: verify was silent on a missing ExecStart binary"
mkdir -p "$tmp/noman"
[ -n "$(verify_unit "$unit" "$vivd_real" "$tmp/noman")" ] || fail "negative control: verify was silent on a missing man page"
grep -vE '^(Protect|Private|NoNew|Restrict|SystemCall|Capability|DynamicUser|MemoryDeny|LockPers)' "$unit" > "$tmp/bare.service"
security "$tmp/bare.service" && fail "negative control: the unit without its sandbox passed systemd-analyze security"
out=$(verify_unit "$unit" "$vivd_real" "$man_dir")
if [ -z "$out" ]; then ok "systemd-analyze verify accepts vivd.service (ExecStart and man:vivd(1) found)"
else fail "systemd-analyze verify on vivd.service:"; echo "$out" >&2; fi
if security "$unit"; then ok "systemd-analyze security: $(grep -o 'exposure level.*' "$tmp/sec.out")"
else fail "systemd-analyze security rates vivd.service above 2.0:"; tail -3 "$tmp/sec.out" >&2; fi

# ---- 3. the man pages ----------------------------------------------------------------------
# render PAGE LOCALE: the page as text, and troff's and man's warnings in $tmp/man.err.
render() { LC_ALL=$2 MANWIDTH=100 man --warnings -l "$1" 2>"$tmp/man.err"; }
# page_check PAGE vivd|viv: what is wrong with PAGE, one a line: a warning, a failed render, an
# option without its entry (a line of its own starting with the option): vivd's, or each viv
# command's in that command's section (VIV SIM, VIV REPLAY LIST).
page_check() {
    for loc in C C.UTF-8; do
        render "$1" "$loc" > "$tmp/page.txt" || echo "man -l $1 failed ($loc)"
        [ -s "$tmp/man.err" ] && echo "warnings ($loc): $(head -3 "$tmp/man.err")"
    done
    grep -q "^NAME" "$tmp/page.txt" || echo "no NAME section"
    if [ "$2" = vivd ]; then
        options_in "$tmp/page.txt" vivd
        return
    fi
    viv_commands | while read -r cmd; do
        section=$(echo "VIV $cmd" | tr '[:lower:]' '[:upper:]')
        awk -v s="$section" '$0 == s { on = 1; next } on && /^[A-Z]/ { exit } on' "$tmp/page.txt" > "$tmp/section.txt"
        [ -s "$tmp/section.txt" ] || { echo "no section $section"; continue; }
        # viv cycle's help (one section) is that of its two forms; info has no option.
        [ "$cmd" = cycle ] && cmd="cycle convert"
        # shellcheck disable=SC2086
        options_in "$tmp/section.txt" viv $cmd
    done
}
# options_in TEXT PROGRAM [COMMAND...]: each shown option of the command without an entry.
options_in() {
    text=$1; shift
    prog=$1; shift
    "$bin/$prog" "$@" --list-options > "$tmp/options" 2>&1 || { echo "$prog $* --list-options failed"; return; }
    awk '$3 == "shown" { print $1 }' "$tmp/options" | while read -r o; do
        grep -qE "^ +$o( |$)" "$text" || echo "no entry for $prog $* $o"
    done
}
# viv's commands, as its help lists them ("replay list" for those of viv replay), one a line.
viv_commands() {
    for c in $(commands_of); do
        if [ "$c" = replay ]; then
            for r in $(commands_of replay); do echo "replay $r"; done
        else
            echo "$c"
        fi
    done
}
commands_of() { "$bin/viv" "$@" --help | sed -n 's/^  \([a-z][a-z]*\)   *[^ -].*/\1/p'; }
man1=$root/usr/local/share/man/man1
{ cat "$man1/vivd.1"; printf '.XYZ an undefined macro\n'; } > "$tmp/bad.1"
out=$(page_check "$tmp/bad.1" vivd)
echo "$out" | grep -q "warnings (C)" || fail "negative control: a page with an undefined macro passed (got: $out)"
awk '/^\\fB\\-\\-relay\\fR$/ { skip = 1; next } skip { skip = 0; next } { print }' "$man1/vivd.1" > "$tmp/bad.1"
out=$(page_check "$tmp/bad.1" vivd)
echo "$out" | grep -q "no entry for vivd  --relay" || fail "negative control: a page without --relay passed (got: $out)"
sed 's/^\.SH "VIV BOT"$/.SH "VIV ROBOT"/' "$man1/viv.1" > "$tmp/bad.1"
out=$(page_check "$tmp/bad.1" viv)
echo "$out" | grep -q "no section VIV BOT" || fail "negative control: a viv page without its bot section passed (got: $out)"
out=$(page_check "$man1/vivd.1" vivd)
if [ -z "$out" ]; then ok "man -l vivd.1: no warning (C, C.UTF-8), an entry for each of vivd's $("$bin/vivd" --list-options | grep -c ' shown$') options"
else fail "vivd.1:"; echo "$out" >&2; fi
out=$(page_check "$man1/viv.1" viv)
if [ -z "$out" ]; then ok "man -l viv.1: no warning (C, C.UTF-8), each of $(viv_commands | wc -l) commands' options in its section"
else fail "viv.1:"; echo "$out" >&2; fi

# ---- 4. the installed programs find what they serve -----------------------------------------
# From a folder with no clients/web above it, and no --web or --wasm: only the install has them.
mkdir -p "$tmp/run"
# start_vivd: the installed vivd on free loopback ports, HTTP's in $hport. 0 once it listens.
start_vivd() {
    rm -f "$tmp/run/hport"
    (cd "$tmp/run" && exec "$root/usr/local/bin/vivd" --listen 127.0.0.1:0 --http 127.0.0.1:0 \
        --http-port-file "$tmp/run/hport" --no-record --world sand) >"$tmp/run/vivd.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
        [ -s "$tmp/run/hport" ] && { hport=$(cat "$tmp/run/hport"); return 0; }
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    fail "the installed vivd did not start: $(tail -3 "$tmp/run/vivd.log")"
    return 1
}
stop_vivd() { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=""; }
# served: what differs between the installed page and module and what vivd serves, one a line.
served() {
    for pair in "/ web/index.html" "/vendor/msgpack.js web/vendor/msgpack.js" "/vivarium.wasm vivarium.wasm"; do
        url=${pair% *}
        file=$root/usr/local/share/vivarium/${pair#* }
        [ -f "$file" ] || file=$tmp/hidden/${pair#* }
        code=$(curl -s -o "$tmp/run/got" -w '%{http_code} %{content_type}' "http://127.0.0.1:$hport$url")
        case "$url $code" in
            "/vivarium.wasm 200 application/wasm"|"/ 200 text/html"*|"/vendor/msgpack.js 200 "*) ;;
            *) echo "GET $url: $code"; continue ;;
        esac
        cmp -s "$file" "$tmp/run/got" || echo "GET $url: not the installed $file"
    done
}
# The negative control: the same vivd with the installed page and module moved away serves
# neither (so it did not find them in the source tree or anywhere else).
share=$root/usr/local/share/vivarium
mkdir -p "$tmp/hidden"
mv "$share/web" "$share/vivarium.wasm" "$tmp/hidden/"
if start_vivd; then
    out=$(served)
    for want in "GET /: 404" "GET /vivarium.wasm: 404"; do
        echo "$out" | grep -q "^$want" || fail "negative control: vivd without its installed files: no '$want' (got: $out)"
    done
    stop_vivd
fi
mv "$tmp/hidden/web" "$tmp/hidden/vivarium.wasm" "$share/"
if start_vivd; then
    out=$(served)
    if [ -z "$out" ]; then ok "the installed vivd, with no flag, serves the installed page and /vivarium.wasm on port $hport"
    else fail "the installed vivd:"; echo "$out" >&2; fi
    grep -q "files from $share/web)" "$tmp/run/vivd.log" ||
        fail "the installed vivd's log does not name its installed files: $(cat "$tmp/run/vivd.log")"
    stop_vivd
fi
# The installed viv exports a recording as one HTML file from the installed page and module.
"$bin/viv" sim --world sand --ticks 20 --record "$tmp/run/rec.db" >/dev/null 2>&1 || fail "viv sim --record failed"
export_html() { (cd "$tmp/run" && "$root/usr/local/bin/viv" replay export rec.db --html out.html --quiet) >/dev/null 2>&1; }
mv "$share/web" "$tmp/hidden/web"
export_html && fail "negative control: the installed viv exported HTML without the installed page"
mv "$tmp/hidden/web" "$share/web"
if export_html && grep -q "viv-wasm" "$tmp/run/out.html"; then ok "the installed viv replay export --html finds the page and the module"
else fail "the installed viv replay export --html failed"; fi

# ---- 5. make uninstall --------------------------------------------------------------------
# left DIR: what an uninstall left under DIR that it should not have, one a line.
left() {
    (cd "$1" && find . -type f -o -type l) | sed 's|^\./|file left: |'
    [ -d "$1/usr/local/share/vivarium" ] && echo "folder left: usr/local/share/vivarium"
}
[ -n "$(left "$root")" ] || fail "negative control: the installed tree passed as uninstalled"
echo "not vivarium's" > "$root/usr/local/bin/other"
if ! make_ uninstall; then cat "$tmp/make.log" >&2; fail "make uninstall failed"; fi
[ -f "$root/usr/local/bin/other" ] || fail "make uninstall removed a file it did not install"
rm -f "$root/usr/local/bin/other"
out=$(left "$root")
if [ -z "$out" ]; then ok "make uninstall removed every file install put, and kept one it did not"
else fail "make uninstall left:"; echo "$out" >&2; fi

[ $status -eq 0 ] && echo "install: all passed"
exit $status
