#!/bin/sh
# End-to-end tests of `viv view` against a real vivd on 127.0.0.1: the non-interactive --frames
# mode (truecolor half-blocks, a status line, only changed cells after the first frame, and a
# picture equal to the world's own frame at that tick), the error messages, and — when tmux is
# installed — interactive runs in a detached tmux session of a fixed size: keys, a mouse stroke,
# switching worlds, and then q, SIGTERM and a lost server must each leave the terminal restored.
#
#   sh tests/view.sh bin        (the directory that holds viv and vivd)
set -u
bin=${1:?usage: view.sh BIN_DIR (the directory holding viv and vivd)}
viv=$bin/viv
vivd=$bin/vivd
ADMIN=admin-token-for-view
PLAYER=player-token-for-view
tmp=$(mktemp -d /tmp/viewtest.XXXXXX)
record_opt=--no-record        # start_vivd records nothing, unless a test sets --db FILE here
vivd_pid=""
http_pid=""
fails=0

tm() { tmux -S "$tmp/tmux.sock" "$@"; }
cleanup() {
    for pid in $vivd_pid $http_pid; do
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    if command -v tmux >/dev/null 2>&1 && [ -S "$tmp/tmux.sock" ]; then
        tm kill-server 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

ok() { echo "view: ok: $1"; }
fail() { echo "view: FAIL: $1" >&2; fails=$((fails + 1)); }

for f in "$viv" "$vivd"; do
    [ -x "$f" ] || { echo "view: $f is missing (build it first: make $f)" >&2; exit 1; }
done

# Poll (every 0.1 s, at most $1 times) until the rest of the arguments succeed as a command.
wait_until() {
    tries=$1
    shift
    while [ "$tries" -gt 0 ]; do
        "$@" && return 0
        tries=$((tries - 1))
        sleep 0.1
    done
    return 1
}

# Start vivd on a free port with the worlds given as --world specs, by default two: sand seed 7
# (320x180, shrunk to fit) and a small sand seed 3 (64x32, enlarged). Sets $host.
start_vivd() {
    rm -f "$tmp/port"
    [ $# -gt 0 ] || set -- --world sand:seed=7 --world sand:seed=3:w=64,h=32
    # shellcheck disable=SC2086    # $record_opt: --no-record, or --db FILE (two words)
    "$vivd" --listen "${LISTEN:-127.0.0.1:0}" --no-http --port-file "$tmp/port" $record_opt --admin-token "$ADMIN" \
        --player-token "$PLAYER" --quiet "$@" \
        > "$tmp/vivd.log" 2>&1 &
    vivd_pid=$!
    if ! wait_until 100 grep -Eq '^[0-9]+' "$tmp/port" 2>/dev/null; then
        echo "view: vivd did not start: $(cat "$tmp/vivd.log")" >&2
        exit 1
    fi
    host=127.0.0.1:$(cat "$tmp/port")
}
stop_vivd() {
    kill "$vivd_pid"
    wait "$vivd_pid" 2>/dev/null
    vivd_pid=""
}

# expect <name> <want-status: 0, or "fail" for any non-zero> <stderr substring or -> -- cmd...
expect() {
    name=$1; want=$2; msg=$3; shift 4
    "$@" > "$tmp/out" 2> "$tmp/err"
    got=$?
    if [ "$want" = fail ] && [ "$got" = 0 ]; then
        fail "$name: exit 0, wanted a failure"; return
    elif [ "$want" != fail ] && [ "$got" != "$want" ]; then
        fail "$name: exit $got, wanted $want ($(head -c 300 "$tmp/err"))"; return
    fi
    if [ "$msg" != "-" ] && ! grep -qF -- "$msg" "$tmp/err"; then
        fail "$name: stderr lacks '$msg': $(head -c 300 "$tmp/err")"; return
    fi
    ok "$name"
}

esc=$(printf '\033')
upper=$(printf '\342\226\200')        # U+2580 UPPER HALF BLOCK

# ---- a dead port: start a server, note its port, stop it ------------------------------------------
start_vivd
dead=$host
stop_vivd
expect "dead port" fail "viv view: cannot connect to $dead: Connection refused (is vivd running?)" -- \
    "$viv" view --host "$dead" --frames 1

start_vivd

# ---- --frames: the non-interactive mode ---------------------------------------------------------
expect "--help" 0 - -- "$viv" view --help
for word in "--frames N" "--size COLSxROWS" "Tab" "Ctrl-C" "drag" "VIVD_PLAYER_TOKEN" "+ or =, -" \
    "w a s d" "the whole world again"; do
    grep -qF -- "$word" "$tmp/out" || fail "--help does not mention $word"
done

expect "30 frames at 80x24" 0 - -- "$viv" view --host "$host" --frames 30 --size 80x24
cp "$tmp/out" "$tmp/frames30"
grep -qF "${esc}[38;2;" "$tmp/frames30" && ok "truecolor foreground (ESC[38;2;r;g;bm)" ||
    fail "no ESC[38;2;…m in the output"
grep -qF "${esc}[48;2;" "$tmp/frames30" && ok "truecolor background (ESC[48;2;r;g;bm)" ||
    fail "no ESC[48;2;…m in the output"
grep -qF "$upper" "$tmp/frames30" && ok "upper half-blocks" || fail "no ▀ in the output"
grep -aq " 1 sand normal t[0-9]* [0-9]*fps viewer | q Tab (--token to play)" "$tmp/frames30" &&
    ok "80 columns: the short status line, with the view and key hints" ||
    fail "no short status line ' 1 sand normal tN Nfps viewer | q Tab (--token to play)' at 80x24"
"$viv" view --host "$host" --frames 3 --size 200x20 > "$tmp/wide" 2> "$tmp/err"
grep -aq "world 1 sand  view normal  tick [0-9]" "$tmp/wide" && ok "status line: world, kind, view, tick" ||
    fail "no status line with 'world 1 sand  view normal  tick N' at 200 columns"
grep -aq " fps " "$tmp/wide" && grep -aq "B/s  viewer" "$tmp/wide" &&
    grep -aq "| q quit  Tab/n/p world  (watching: --token T to play)" "$tmp/wide" &&
    ok "status line: frames/s, bytes/s, role, key hints" ||
    fail "status line lacks fps, B/s, the role or the hints: $(grep -ao 'world 1.*' "$tmp/wide" | tail -1)"
grep -aF "${esc}[?1049h" "$tmp/frames30" > /dev/null && fail "--frames used the alternate screen"

# Only changed cells are drawn after the first frame: 30 frames cost far less than 30 first ones.
"$viv" view --host "$host" --frames 1 --size 80x24 > "$tmp/frames1" 2> "$tmp/err"
one=$(wc -c < "$tmp/frames1")
thirty=$(wc -c < "$tmp/frames30")
if [ "$one" -gt 1000 ] && [ "$thirty" -lt $((one * 10)) ]; then
    ok "30 frames take $thirty bytes, one whole frame $one"
else
    fail "30 frames took $thirty bytes against $one for the first: are unchanged cells redrawn?"
fi

# The picture left on the screen after 30 frames (each drawn as the changes to the one before)
# is the world's own frame of that tick, fitted: checked cell by cell against `viv sim --png`.
# Three sizes: shrunk by a fraction (80x24), shrunk to fit the height (200x20), and the small
# world enlarged by a whole factor (150x50).
if command -v python3 > /dev/null 2>&1; then
    cat > "$tmp/picture.py" <<'EOF'
import re, sys, zlib, struct
# picture.py OUT COLS ROWS PNG [DIV [ZOOM VX VY]]: replay OUT (`viv view --frames` bytes) on a
# COLSxROWS screen and compare the picture left there with PNG, fitted as viv view fits it:
# nearest sampling at (2i+1)·num/(2·den), one ratio for both axes, a whole factor up when the
# frame fits; centred. With DIV, PNG is first cut to a DIV-th of its size as a sub's div does
# (docs/PROTOCOL.md). With ZOOM, the picture is the world zoomed instead: ZOOM screen pixels a
# world pixel, world pixel (VX, VY) at the top left; an axis on which the world fits is centred.
out, cols, rows, png = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
div = int(sys.argv[5]) if len(sys.argv) > 5 else 1
zoom, zvx, zvy = (int(a) for a in sys.argv[6:9]) if len(sys.argv) > 8 else (0, 0, 0)
text = open(out, 'rb').read().decode('utf-8')
grid = [[(None, None)] * cols for _ in range(rows)]
fg = bg = None
r = c = pos = 0
seq = re.compile(r'\x1b\[([0-9;?]*)([A-Za-z])')
while pos < len(text):
    ch = text[pos]
    if ch == '\x1b':
        m = seq.match(text, pos)
        if not m: sys.exit('unknown escape at byte %d: %r' % (pos, text[pos:pos + 12]))
        p, f = m.group(1), m.group(2)
        pos = m.end()
        n = [int(x) for x in p.split(';') if x] if p else []
        if f == 'H': r, c = (n[0] - 1, n[1] - 1) if n else (0, 0)
        elif f == 'C': c += n[0] if n else 1
        elif f == 'J': grid = [[(None, None)] * cols for _ in range(rows)]
        elif f == 'm':
            k, n = 0, n or [0]
            while k < len(n):
                if n[k] == 0: fg = bg = None
                elif n[k] == 39: fg = None
                elif n[k] == 38: fg = tuple(n[k + 2:k + 5]); k += 4
                elif n[k] == 48: bg = tuple(n[k + 2:k + 5]); k += 4
                elif n[k] == 49: bg = None
                k += 1
        elif f != 'K': sys.exit('unexpected sequence ESC[%s%s' % (p, f))
        continue
    pos += 1
    if ch == '\n': r += 1; c = 0; continue
    if r < rows - 1 and c < cols:
        grid[r][c] = {'\u2580': (fg, bg), '\u2584': (bg, fg), '\u2588': (fg, fg),
                      ' ': (bg, bg)}.get(ch, ('?', '?'))
    c += 1
b = open(png, 'rb').read()            # 8-bit indexed, not interlaced (replay/image.c)
i, idat, pal = 8, b'', []
while i < len(b):
    ln, t = struct.unpack('>I4s', b[i:i + 8]); d = b[i + 8:i + 8 + ln]; i += 12 + ln
    if t == b'IHDR': fw, fh = struct.unpack('>II', d[:8])
    elif t == b'PLTE': pal = [tuple(d[j:j + 3]) for j in range(0, len(d), 3)]
    elif t == b'IDAT': idat += d
raw, px, prev = zlib.decompress(idat), [], bytearray(fw)
for y in range(fh):
    ft, line = raw[y * (fw + 1)], bytearray(raw[y * (fw + 1) + 1:(y + 1) * (fw + 1)])
    for x in range(fw):
        a = line[x - 1] if x else 0; u = prev[x]; ul = prev[x - 1] if x else 0
        if ft == 1: line[x] = (line[x] + a) & 255
        elif ft == 2: line[x] = (line[x] + u) & 255
        elif ft == 3: line[x] = (line[x] + (a + u) // 2) & 255
        elif ft == 4:
            pa, pb, pc = abs(u - ul), abs(a - ul), abs(a + u - 2 * ul)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else u if pb <= pc else ul)) & 255
    px.append(line); prev = line
if div > 1:
    sw, sh = (fw + div - 1) // div, (fh + div - 1) // div
    px = [bytearray(px[min(y * div + div // 2, fh - 1)][min(x * div + div // 2, fw - 1)]
                    for x in range(sw)) for y in range(sh)]
    fw, fh = sw, sh
W, H = cols, 2 * (rows - 1)
if zoom:
    def axis(n, size, v0):       # the picture's offset and extent, and the first world pixel
        return ((n - size * zoom) // 2, size * zoom, 0) if size * zoom <= n else (0, n, v0)
    (ox, ow, zvx), (oy, oh, zvy) = axis(W, fw, zvx), axis(H, fh, zvy)
    def colour(sx, sy):
        if not (0 <= sx < ow and 0 <= sy < oh): return None
        return pal[px[zvy + sy // zoom][zvx + sx // zoom]]
else:
    if fw <= W and fh <= H: num, den = 1, min(W // fw, H // fh); ow, oh = fw * den, fh * den
    elif fw * H >= fh * W: num, den, ow, oh = fw, W, W, fh * W // fw
    else: num, den, ow, oh = fh, H, fw * H // fh, H
    ox, oy = (W - ow) // 2, (H - oh) // 2
    def colour(sx, sy):
        if not (0 <= sx < ow and 0 <= sy < oh): return None
        return pal[px[min(fh - 1, (2 * sy + 1) * num // (2 * den))]
                     [min(fw - 1, (2 * sx + 1) * num // (2 * den))]]
want = lambda rr, cc: (colour(cc - ox, 2 * rr - oy), colour(cc - ox, 2 * rr + 1 - oy))
bad = [(rr, cc) for rr in range(rows - 1) for cc in range(cols) if grid[rr][cc] != want(rr, cc)]
if bad:
    rr, cc = bad[0]
    sys.exit('%d of %d cells differ from the frame; first at row %d col %d: drawn %s, want %s'
             % (len(bad), (rows - 1) * cols, rr + 1, cc + 1, grid[rr][cc], want(rr, cc)))
EOF
    # picture <name> <cols> <rows> <viv sim args for that world> -- <viv view args>
    picture() {
        pname=$1; pc=$2; pr=$3; shift 3
        simargs=""
        while [ "$1" != "--" ]; do simargs="$simargs $1"; shift; done
        shift
        "$viv" view --host "${phost:-$host}" --frames 30 --size "${pc}x$pr" "$@" > "$tmp/pic.out" 2> "$tmp/err" ||
            { fail "$pname: viv view failed: $(cat "$tmp/err")"; return; }
        tick=$(grep -aoE ' (tick |t)[0-9]+ ' "$tmp/pic.out" | tail -1 | tr -dc 0-9)
        [ -n "$tick" ] || { fail "$pname: no tick in the status line"; return; }
        # shellcheck disable=SC2086
        "$viv" sim $simargs --ticks "$tick" --png "$tmp/pic.png" > /dev/null 2> "$tmp/err" ||
            { fail "$pname: viv sim failed: $(cat "$tmp/err")"; return; }
        if python3 "$tmp/picture.py" "$tmp/pic.out" "$pc" "$pr" "$tmp/pic.png" "${pdiv:-1}" 2> "$tmp/err"; then
            ok "$pname: the screen shows the frame of tick $tick"
        else
            fail "$pname: $(cat "$tmp/err")"
        fi
    }
    picture "picture 80x24" 80 24 --world sand --seed 7 --
    picture "picture 200x20" 200 20 --world sand --seed 7 --
    picture "picture 150x50, enlarged" 150 50 --world sand --seed 3 --params w=64,h=32 -- --world 2
else
    echo "view: skipped: the picture check needs python3"
fi

# ---- options and errors ------------------------------------------------------------------------
expect "--world by id" 0 - -- "$viv" view --host "$host" --world 2 --frames 3 --size 40x12
grep -aq " 2 sand normal t" "$tmp/out" || fail "--world 2 does not show world 2 in the status line"
expect "--world by kind" 0 - -- "$viv" view --host "$host" --world sand --frames 2 --view normal
expect "--every 5" 0 - -- "$viv" view --host "$host" --every 5 --frames 3
ticks=$(grep -aoE ' (tick |t)[0-9]+ ' "$tmp/out" | tr -dc '0-9\n' | sort -un)
for t in $ticks; do [ $((t % 5)) = 0 ] || fail "--every 5 drew tick $t"; done
expect "player token" 0 - -- "$viv" view --host "$host" --token "$PLAYER" --frames 2 --size 120x30
grep -aq "player  element sand  brush [0-9]" "$tmp/out" ||
    fail "a player's status line lacks 'player  element sand  brush N'"
expect "token from VIVD_PLAYER_TOKEN" 0 - -- env VIVD_PLAYER_TOKEN="$PLAYER" \
    "$viv" view --host "$host" --frames 1 --size 120x30
grep -aq "player" "$tmp/out" || fail "VIVD_PLAYER_TOKEN did not make a player"
expect "unknown world" 2 "viv view: no world 'marble' (worlds: 1 sand, 2 sand)" -- \
    "$viv" view --host "$host" --world marble --frames 1
expect "unknown world id" 2 "viv view: no world '9' (worlds: 1 sand, 2 sand)" -- \
    "$viv" view --host "$host" --world 9 --frames 1
expect "a view the world lacks" 0 - -- "$viv" view --host "$host" --view xray --frames 1 --size 200x20
grep -aq "world 1 sand  view normal (no xray)  tick" "$tmp/out" &&
    ok "a view the world lacks: the normal picture, and the status line says so" ||
    fail "--view xray on sand: no 'view normal (no xray)' in the status line"
expect "bad --every" 2 "--every needs an integer in 1..3600, got '0'" -- \
    "$viv" view --host "$host" --every 0 --frames 1
expect "bad --div" 2 "--div needs an integer in 1..8, got '9'" -- \
    "$viv" view --host "$host" --div 9 --frames 1
expect "bad --size" 2 "--size needs COLSxROWS" -- "$viv" view --host "$host" --frames 1 --size 80
expect "--size without --frames" 2 "--size goes with --frames" -- \
    "$viv" view --host "$host" --size 80x24
expect "flag without a value" 2 "--frames needs a value" -- "$viv" view --frames
expect "unknown option" 2 "unknown option '--colour'" -- "$viv" view --colour
expect "wrong token" 1 "bad_token" -- "$viv" view --host "$host" --token nope --frames 1
expect "stdout not a terminal" 2 "stdout is not a terminal; use --frames N" -- \
    "$viv" view --host "$host"
expect "bad host" 2 "is not HOST:PORT" -- "$viv" view --host nowhere --frames 1
# A list of addresses (a cluster's relays): checked whole first; the first that answers is used.
expect "host list: a bad address" 2 "address 2 of '$host,nowhere' is not HOST:PORT" -- \
    "$viv" view --host "$host,nowhere" --frames 1
expect "host list: an empty address" 2 "address 2 of '$host,' is not HOST:PORT" -- \
    "$viv" view --host "$host," --frames 1
expect "host list: the first is dead, the second answers" 0 - -- \
    "$viv" view --host "$dead,$host" --frames 2 --size 40x12
grep -aq " 1 sand normal t" "$tmp/out" || fail "host list: the second address's world 1 is not drawn"
expect "host list: none answers" 1 "no address of $dead,$dead answers (cannot connect to $dead" -- \
    "$viv" view --host "$dead,$dead" --frames 1

# ---- vivd's HTTP port: named for what it is, and watched through its WebSocket (ws://) -----------
# A vivd with HTTP, on free ports, with the same worlds as the one above.
rm -f "$tmp/hport" "$tmp/tport"
"$vivd" --listen 127.0.0.1:0 --http 127.0.0.1:0 --http-port-file "$tmp/hport" --port-file "$tmp/tport" \
    --no-record --admin-token "$ADMIN" --player-token "$PLAYER" --quiet \
    --world sand:seed=7 --world sand:seed=3:w=64,h=32 > "$tmp/vivd-http.log" 2>&1 &
http_pid=$!
if wait_until 100 grep -Eq '^[0-9]+' "$tmp/hport" 2>/dev/null && wait_until 100 grep -Eq '^[0-9]+' "$tmp/tport" 2>/dev/null; then
    hp=127.0.0.1:$(cat "$tmp/hport")
    tp=127.0.0.1:$(cat "$tmp/tport")
    # The TCP protocol at the HTTP port: the answer is HTTP ("HTTP" read as a length is 1213486160).
    expect "the HTTP port is named" 1 "viv view: $hp: this is vivd's HTTP port (the page and WebSocket; it answered \"HTTP/1.1 " -- \
        "$viv" view --host "$hp" --frames 1
    grep -qF "not its TCP port: use the TCP port (vivd --listen, 7400 by default), or this port's WebSocket: --host ws://$hp/ws" "$tmp/err" &&
        ok "the HTTP port: the TCP port and the ws:// address to use" ||
        fail "the HTTP port: no advice on the port to use: $(cat "$tmp/err")"
    grep -q 1213486160 "$tmp/err" && fail "the HTTP port: still reported as a message length"
    # ws:// as viv bot and the page take it: the path given, or /ws by default.
    expect "ws:// with /ws" 0 - -- "$viv" view --host "ws://$hp/ws" --frames 3 --size 80x24
    grep -aq " 1 sand normal t[0-9]* [0-9]*fps viewer" "$tmp/out" && grep -qF "$upper" "$tmp/out" &&
        ok "ws://: frames drawn, with the status line" || fail "ws://: no picture or status line"
    expect "ws:// without a path, a player" 0 - -- "$viv" view --host "ws://$hp" --token "$PLAYER" --world 2 --frames 2 --size 120x30
    grep -aq "player  element sand  brush [0-9]" "$tmp/out" && grep -aq " 2 sand" "$tmp/out" &&
        ok "ws:// without a path: world 2, as a player" || fail "ws:// without a path: not world 2 as a player"
    if command -v python3 > /dev/null 2>&1; then
        phost="ws://$hp/ws"
        picture "ws:// picture 80x24" 80 24 --world sand --seed 7 --
        phost=""
    fi
    expect "ws:// at the TCP port" 1 "is $tp vivd's TCP port? WebSocket is on its --http port" -- \
        "$viv" view --host "ws://$tp/ws" --frames 1
    expect "ws:// at another path" 1 "ws://$hp/nope: HTTP/1.1 404" -- "$viv" view --host "ws://$hp/nope" --frames 1
    expect "ws:// in a list" 2 "a ws:// address is one address, not a list" -- \
        "$viv" view --host "ws://$hp/ws,$host" --frames 1
    expect "wss://" 2 "wss:// (WebSocket over TLS) is not supported; vivd serves ws://HOST:PORT/ws" -- \
        "$viv" view --host "wss://$hp/ws" --frames 1
else
    fail "vivd with --http did not start: $(cat "$tmp/vivd-http.log")"
fi
kill "$http_pid"
wait "$http_pid" 2>/dev/null
http_pid=""

# ---- interactive, in tmux -----------------------------------------------------------------------
# run_in_tmux NAME ARGS...: `viv view --host $host ARGS` in a detached 100x30 tmux session
# ($TCOLS columns when set). Its pid
# goes to NAME.pid, its exit status to NAME.rc and the terminal settings after it to NAME.stty.
run_in_tmux() {
    name=$1
    shift
    {
        echo "sh -c 'echo \$\$ > $tmp/$name.pid; exec \"\$@\"' sh $viv view --host $host $*"
        echo "echo \$? > $tmp/$name.rc"
        # Written whole (renamed into place), and waited for: the rc file comes first.
        echo "stty -a > $tmp/$name.stty.part 2>&1; mv $tmp/$name.stty.part $tmp/$name.stty"
        echo "sleep 600"
    } > "$tmp/$name.sh"
    tm new-session -d -s "$name" -x "${TCOLS:-100}" -y 30 "sh $tmp/$name.sh"
}
pane_has() { tm capture-pane -p -t "$1" | grep -qF -- "$2"; }
# status_is NAME ERE: the pane's last row (the status line) matches ERE.
status_is() { tm capture-pane -p -t "$1" | tail -1 | grep -qE -- "$2"; }
status_of() { tm capture-pane -p -t "$1" | tail -1; }
status_lacks() { ! status_is "$@"; }
# The acks the status line counts (0 before any).
acks_of() { status_of "$1" | grep -oE 'acks? ?[0-9]+' | tr -dc 0-9; }
pane_flag() { tm display -p -t "$1" "#{$2}"; }
is_file() { [ -s "$1" ]; }

# After viv view has exited: its status, and every piece of terminal state put back.
check_restored() {
    name=$1; want=$2
    if ! wait_until 300 is_file "$tmp/$name.rc"; then
        fail "$name: viv view did not exit"
        return
    fi
    [ "$(cat "$tmp/$name.rc")" = "$want" ] && ok "$name: exit status $want" ||
        fail "$name: exit status $(cat "$tmp/$name.rc"), wanted $want"
    pid=$(cat "$tmp/$name.pid")
    kill -0 "$pid" 2>/dev/null && fail "$name: process $pid is still there"
    wait_until 300 is_file "$tmp/$name.stty" || fail "$name: the shell never wrote the terminal settings"
    [ "$(pane_flag "$name" alternate_on)" = 0 ] || fail "$name: still on the alternate screen"
    [ "$(pane_flag "$name" cursor_flag)" = 1 ] || fail "$name: the cursor is still hidden"
    [ "$(pane_flag "$name" mouse_any_flag)" = 0 ] || fail "$name: mouse reporting is still on"
    [ "$(pane_flag "$name" mouse_sgr_flag)" = 0 ] || fail "$name: SGR mouse mode is still on"
    grep -Eq '(^|[ ;])icanon( |;|$)' "$tmp/$name.stty" &&
        grep -Eq '(^|[ ;])echo( |;|$)' "$tmp/$name.stty" ||
        fail "$name: the terminal is still raw: $(cat "$tmp/$name.stty")"
    pane_has "$name" "$upper" && fail "$name: the picture is left on the normal screen"
    ok "$name: terminal restored"
}

if command -v tmux > /dev/null 2>&1; then
    unset TMUX
    run_in_tmux keys --token "$PLAYER"
    if wait_until 300 status_is keys "^ 1 sand normal t[0-9]"; then
        ok "tmux: drawing, with a status line"
        [ "$(pane_flag keys alternate_on)" = 1 ] || fail "tmux: not on the alternate screen"
        [ "$(pane_flag keys mouse_sgr_flag)" = 1 ] || fail "tmux: a player gets no SGR mouse"
        [ "$(pane_flag keys cursor_flag)" = 0 ] || fail "tmux: the cursor is not hidden"
        tm capture-pane -p -t keys | grep -qF "$upper" || fail "tmux: no half-blocks on screen"
        tm send-keys -t keys 4
        wait_until 30 status_is keys " water r[0-9]+ " && ok "tmux: key 4 chooses water" ||
            fail "tmux: key 4 did not choose water: $(tm capture-pane -p -t keys | tail -1)"
        # A left-button stroke across the middle, as SGR mouse reports: press, motion, release.
        tm send-keys -t keys -l "${esc}[<0;40;12M"
        for x in 42 44 46 48 50 52 54 56 58 60; do tm send-keys -t keys -l "${esc}[<32;$x;12M"; done
        tm send-keys -t keys -l "${esc}[<0;60;12m"
        wait_until 30 status_is keys " ack[0-9]+ " && ok "tmux: a mouse stroke paints (acks counted)" ||
            fail "tmux: no acks after a stroke: $(tm capture-pane -p -t keys | tail -1)"
        pane_has keys "err " && fail "tmux: the stroke got errors: $(tm capture-pane -p -t keys | tail -1)"
        tm send-keys -t keys Tab
        wait_until 30 status_is keys "^ 2 sand normal t" && ok "tmux: Tab switches to world 2" ||
            fail "tmux: Tab did not switch: $(tm capture-pane -p -t keys | tail -1)"
        tm send-keys -t keys p
        wait_until 30 status_is keys "^ 1 sand normal t" && ok "tmux: p switches back" ||
            fail "tmux: p did not switch back"
        # The sand tools: erase and explode strokes reach the world (acknowledged, no error),
        # and [ ] change the brush.
        wait_until 30 status_is keys "ack[0-9]" || true
        a0=$(acks_of keys)
        tm send-keys -t keys e ']' ']'
        wait_until 30 status_is keys " erase r[0-9]+ " && ok "tmux: e chooses the erase tool" ||
            fail "tmux: e: $(status_of keys)"
        tm send-keys -t keys -l "${esc}[<0;30;10M"
        tm send-keys -t keys -l "${esc}[<32;34;10M"
        tm send-keys -t keys -l "${esc}[<0;34;10m"
        tm send-keys -t keys x
        wait_until 30 status_is keys " explode r[0-9]+ " && ok "tmux: x chooses the explode tool" ||
            fail "tmux: x: $(status_of keys)"
        tm send-keys -t keys -l "${esc}[<0;50;8M"
        tm send-keys -t keys -l "${esc}[<0;50;8m"
        check_acks() { a=$(acks_of keys); [ "${a:-0}" -ge $((a0 + 3)) ]; }
        wait_until 30 check_acks && ok "tmux: erase and explode are acknowledged ($a0 -> $(acks_of keys))" ||
            fail "tmux: erase/explode not acknowledged: $a0 -> $(status_of keys)"
        status_is keys "err " && fail "tmux: erase/explode got errors: $(status_of keys)"
        r1=$(status_of keys | grep -oE 'explode r[0-9]+' | tr -dc 0-9)
        tm send-keys -t keys '['
        wait_until 30 status_is keys " explode r$((r1 - 1)) " && ok "tmux: [ makes the brush smaller" ||
            fail "tmux: [ did not shrink the brush from $r1: $(status_of keys)"
        tm send-keys -t keys 3
        wait_until 30 status_is keys " [a-z]+ r[0-9]+ " && ! status_is keys "explode" &&
            ok "tmux: a number key goes back to painting: $(status_of keys | grep -oE ' [a-z]+ r[0-9]+ ')" ||
            fail "tmux: key 3 did not choose an element: $(status_of keys)"
        tm resize-window -t keys -x 60 -y 20 2> /dev/null
        wait_until 30 sh -c "tmux -S '$tmp/tmux.sock' capture-pane -p -t keys | sed -n 20p | grep -q ' 1 sand'" &&
            ok "tmux: re-fits after a resize" || fail "tmux: no status line on row 20 after a resize"
        tm send-keys -t keys q
        check_restored keys 0
    else
        fail "tmux: no status line within 30 s: $(tm capture-pane -p -t keys)"
    fi

    run_in_tmux sigterm
    if wait_until 300 pane_has sigterm "world 1 sand"; then
        # A viewer's keys that need a token say so.
        tm send-keys -t sigterm 4
        wait_until 30 pane_has sigterm "'4' needs a player token: --token T" &&
            ok "viewer: a key that needs a token says so" ||
            fail "viewer: no token note after 4: $(status_of sigterm)"
        # r on a world vivd does not record (--no-record): the note says why.
        tm send-keys -t sigterm r
        wait_until 300 pane_has sigterm "(rewind: not_a_recording" &&
            ok "viewer: r on an unrecorded world says not_a_recording" ||
            fail "viewer: r without a recording: $(status_of sigterm)"
        kill -TERM "$(cat "$tmp/sigterm.pid")"
        check_restored sigterm 143
    else
        fail "sigterm: viv view did not start"
    fi

    # 80 columns, a player: the short status line keeps the tool and the key hints.
    tm new-session -d -s narrow -x 80 -y 24 "$viv view --host $host --token $PLAYER; sleep 600"
    if wait_until 300 status_is narrow "^ 1 sand normal t[0-9]+ [0-9]+fps player [a-z]+ r[0-9]+ \| q Tab 1-0 e x \[\] drag"; then
        ok "80 columns: '$(status_of narrow)'"
    else
        fail "80 columns: the status line lacks the short hints: '$(status_of narrow)'"
    fi
    tm kill-session -t narrow

    # The server goes away: "reconnecting…", no exit; the server comes back on the same port:
    # the picture resumes from a keyframe of the same world, with the same --view.
    run_in_tmux lost --token "$PLAYER" --world 2
    if wait_until 300 status_is lost "^ 2 sand normal t"; then
        port=${host##*:}
        stop_vivd
        wait_until 30 pane_has lost "reconnecting…" && ok "lost: says reconnecting…" ||
            fail "lost: no 'reconnecting…': $(status_of lost)"
        sleep 1
        [ -s "$tmp/lost.rc" ] && fail "lost: viv view exited ($(cat "$tmp/lost.rc")) when the server went away"
        LISTEN=127.0.0.1:$port start_vivd
        if wait_until 80 status_is lost "^ 2 sand normal t[0-9]+ [0-9]+fps player"; then
            t1=$(status_of lost | grep -oE ' t[0-9]+ ' | tr -dc 0-9)
            sleep 0.5
            t2=$(status_of lost | grep -oE ' t[0-9]+ ' | tr -dc 0-9)
            [ "${t2:-0}" -gt "${t1:-0}" ] && tm capture-pane -p -t lost | grep -qF "$upper" &&
                ok "lost: reconnected to world 2, the picture goes on (tick $t1 -> $t2)" ||
                fail "lost: the picture does not go on after reconnecting: $(status_of lost)"
        else
            fail "lost: did not reconnect within 8 s: $(status_of lost)"
        fi
        tm send-keys -t lost q
        check_restored lost 0
    else
        fail "lost: viv view did not start"
    fi

    # A list: the server in use goes away for good, and viv view moves to the next address
    # at once, to the same world (both servers host the same ones), from a keyframe.
    first=$host
    first_pid=$vivd_pid
    start_vivd
    second=$host
    second_pid=$vivd_pid
    host=$first
    vivd_pid=$first_pid
    run_in_tmux failover --token "$PLAYER" --world 2 --host "$first,$second"
    if wait_until 300 status_is failover "^ 2 sand normal t"; then
        stop_vivd
        if wait_until 300 pane_has failover "reconnected after"; then
            t1=$(status_of failover | grep -oE ' t[0-9]+ ' | tr -dc 0-9)
            sleep 0.5
            t2=$(status_of failover | grep -oE ' t[0-9]+ ' | tr -dc 0-9)
            status_is failover "^ 2 sand normal t[0-9]+ [0-9]+fps player" && [ "${t2:-0}" -gt "${t1:-0}" ] &&
                ok "failover: on to the list's second server, world 2, the picture goes on (tick $t1 -> $t2)" ||
                fail "failover: the picture does not go on on the second server: $(status_of failover)"
        else
            fail "failover: did not move to the second server within 30 s: $(status_of failover)"
        fi
        tm send-keys -t failover q
        check_restored failover 0
    else
        fail "failover: viv view did not start"
    fi
    host=$second
    vivd_pid=$second_pid

    # Every world's keys reach the world: terrarium spawn and shove, cycle speed/pause/toggle/mode,
    # merge walk, stop and drop, garden wind, spawn, let go, a click's poke and a drag's target.
    stop_vivd
    start_vivd --world terrarium:seed=4 --world cycle:seed=5:scene=fire --world merge:seed=6:autopilot=0 \
        --world garden:seed=8
    run_in_tmux kinds --token "$PLAYER"
    if wait_until 300 status_is kinds "terrarium"; then
        tm send-keys -t kinds -l "${esc}[<35;50;12M"         # the pointer, no button
        tm send-keys -t kinds 1 2 Left Up
        wait_until 30 status_is kinds " ack[s ]*4 " && ok "terrarium: 1 2 spawn, arrows shove (4 acks)" ||
            fail "terrarium: spawn/shove not acknowledged: $(status_of kinds)"
        status_is kinds "err " && fail "terrarium: spawn/shove got errors: $(status_of kinds)"
        # h: the 13 fps homage (every third tick at a third of the size), and back.
        tm send-keys -t kinds h
        if wait_until 30 status_is kinds "(homage|13fps).* t(ick )?[0-9]+ "; then
            sleep 0.3
            ht=$(status_of kinds | grep -oE ' (tick |t)[0-9]+ ' | tr -dc 0-9)
            [ -n "$ht" ] && [ $((ht % 3)) = 0 ] && ok "terrarium: h shows the homage (tick $ht)" ||
                fail "terrarium: the homage shows tick '$ht', not a multiple of 3"
        else
            fail "terrarium: h did not turn the homage on: $(status_of kinds)"
        fi
        tm send-keys -t kinds h
        wait_until 30 status_lacks kinds "homage|13fps" && ok "terrarium: h again: every frame" ||
            fail "terrarium: h did not turn the homage off: $(status_of kinds)"
        tm send-keys -t kinds Tab
        wait_until 30 status_is kinds "cycle" || fail "kinds: Tab did not reach the cycle world"
        tm send-keys -t kinds ']' ' ' 1 t m
        wait_until 30 status_is kinds "150% paused r1 off blend ack[s ]*8 " &&
            ok "cycle: ] space 1 t m: $(status_of kinds | grep -oE '150%.*ack[s ]*8')" ||
            fail "cycle: speed/pause/toggle/mode: $(status_of kinds)"
        status_is kinds "err " && fail "cycle: the keys got errors: $(status_of kinds)"
        tm send-keys -t kinds ' '
        wait_until 30 status_is kinds "150% r1 off blend ack[s ]*9 " && ok "cycle: space resumes" ||
            fail "cycle: space did not resume: $(status_of kinds)"
        tm send-keys -t kinds Tab
        wait_until 30 status_is kinds "merge" || fail "kinds: Tab did not reach the merge world"
        tm send-keys -t kinds Right
        wait_until 30 status_is kinds "right ack[s ]*10 " && ok "merge: Right walks" ||
            fail "merge: Right: $(status_of kinds)"
        tm send-keys -t kinds Down Space
        wait_until 30 status_is kinds "stopped ack[s ]*12 " && ok "merge: Down stops, space drops" ||
            fail "merge: Down, space: $(status_of kinds)"
        status_is kinds "err " && fail "merge: the keys got errors: $(status_of kinds)"
        tm send-keys -t kinds Tab
        wait_until 30 status_is kinds "garden" || fail "kinds: Tab did not reach the garden world"
        tm send-keys -t kinds Right Right
        wait_until 30 status_is kinds "wind \+40 ack[s ]*14 " && ok "garden: Right Right: wind +40" ||
            fail "garden: Right Right: $(status_of kinds)"
        tm send-keys -t kinds -l "${esc}[<35;50;12M"         # the pointer, no button
        tm send-keys -t kinds Down 1 t
        wait_until 30 status_is kinds "wind \+0 ack[s ]*17 " && ok "garden: Down calms, 1 spawns, t lets go" ||
            fail "garden: Down 1 t: $(status_of kinds)"
        tm send-keys -t kinds -l "${esc}[<0;40;10M"          # a click: press and release in place
        tm send-keys -t kinds -l "${esc}[<0;40;10m"
        wait_until 30 status_is kinds " ack[s ]*18 " && ok "garden: a click pokes" ||
            fail "garden: a click: $(status_of kinds)"
        tm send-keys -t kinds -l "${esc}[<0;30;8M"           # a drag: press, two moves, release
        tm send-keys -t kinds -l "${esc}[<32;34;9M"
        sleep 0.1
        tm send-keys -t kinds -l "${esc}[<32;38;10M"
        tm send-keys -t kinds -l "${esc}[<0;38;10m"
        wait_until 30 status_is kinds " ack[s ]*20 " && ok "garden: a drag leads the target (2 acks, no poke)" ||
            fail "garden: a drag: $(status_of kinds)"
        status_is kinds "err " && fail "garden: the keys got errors: $(status_of kinds)"
        tm send-keys -t kinds q
        check_restored kinds 0
    else
        fail "kinds: viv view did not start: $(status_of kinds)"
    fi
    stop_vivd

    # A recording: vivd --play FILE:1. The playback keys move it, and after each stop the
    # picture on the screen is the recorded frame of the tick the status line shows.
    "$viv" sim --world sand --seed 3 --params w=64,h=32 --ticks 240 --record "$tmp/rec.db" \
        > /dev/null 2> "$tmp/err" || fail "play: viv sim --record: $(cat "$tmp/err")"
    start_vivd --play "$tmp/rec.db:1"
    play_tick() { status_of play | grep -oE '(tick )?[0-9]+ ?/ ?240' | head -1 | cut -d/ -f1 | tr -dc 0-9; }
    play_at() { [ "$(play_tick)" = "$1" ]; }
    shown_is() {     # shown_is NAME TICK: the tmux screen shows the recorded frame of TICK
        tm capture-pane -p -e -N -t play > "$tmp/play.scr"
        "$viv" sim --world sand --seed 3 --params w=64,h=32 --ticks "$2" --png "$tmp/play.png" \
            > /dev/null 2>&1 || { fail "$1: viv sim --png failed"; return; }
        if python3 "$tmp/picture.py" "$tmp/play.scr" 100 30 "$tmp/play.png" 2> "$tmp/err"; then
            ok "$1: the screen shows the recorded frame of tick $2"
        else
            fail "$1: $(cat "$tmp/err")"
        fi
    }
    run_in_tmux play --token "$PLAYER"
    if wait_until 300 play_at 0; then
        status_is play "\|\| 0/240|paused  tick 0 / 240" && ok "play: starts paused at 0 / 240" ||
            fail "play: $(status_of play)"
        status_is play "drag|element|paint" && fail "play: the status line offers painting: $(status_of play)"
        tm send-keys -t play Right Right Right
        wait_until 150 play_at 3 && ok "play: Right steps (tick 3)" || fail "play: Right x3: $(status_of play)"
        tm send-keys -t play Up
        wait_until 150 play_at 63 && ok "play: Up jumps a second (tick 63)" || fail "play: Up: $(status_of play)"
        tm send-keys -t play Left
        wait_until 150 play_at 62 && ok "play: Left steps back (tick 62)" || fail "play: Left: $(status_of play)"
        sleep 0.3
        command -v python3 > /dev/null 2>&1 && shown_is "play: after Left" 62
        tm send-keys -t play S-Left
        wait_until 150 play_at 2 && ok "play: Shift-Left jumps back a second (tick 2)" ||
            fail "play: S-Left: $(status_of play)"
        tm send-keys -t play End
        wait_until 150 play_at 240 && ok "play: End (tick 240)" || fail "play: End: $(status_of play)"
        tm send-keys -t play Home ']'
        # Both answers, each after a seek on a loaded machine (two seeks land in turn under ASan):
        # up to 15 s, polled.
        home_fast() { play_at 0 && status_is play " 200%"; }
        wait_until 150 home_fast && ok "play: Home, and ] doubles the speed" ||
            fail "play: Home ]: $(status_of play)"
        tm send-keys -t play Space
        sleep 0.6
        tm send-keys -t play Space
        sleep 0.4
        t=$(play_tick)
        [ "${t:-0}" -gt 20 ] && status_is play "\|\| |paused" && ok "play: space plays and pauses (tick $t)" ||
            fail "play: space: tick $t: $(status_of play)"
        sleep 0.3
        command -v python3 > /dev/null 2>&1 && shown_is "play: after play and pause" "$(play_tick)"
        tm send-keys -t play 4
        wait_until 30 pane_has play "(a recording takes" && ok "play: inputs are refused with a note" ||
            fail "play: key 4: $(status_of play)"
        # f forks the recording at the tick shown: a new live world, and the view switches to it.
        t=$(play_tick)
        tm send-keys -t play f
        wait_until 300 status_is play "^ 2 sand normal t[0-9]+" &&
            ok "play: f forks the recording at tick $t: world 2 ($(status_of play))" ||
            fail "play: f: $(status_of play)"
        tm send-keys -t play q
        check_restored play 0
    else
        fail "play: no '0/240' on the status line: $(status_of play)"
    fi
    run_in_tmux playv
    if wait_until 300 pane_has playv "/240"; then
        tm send-keys -t playv Space
        wait_until 30 pane_has playv "playback keys need a player token" &&
            ok "play: a viewer's space says it needs a token" || fail "play: viewer space: $(status_of playv)"
        tm send-keys -t playv q
    else
        fail "playv: viv view did not start: $(status_of playv)"
    fi
    stop_vivd

    # A live world vivd records: r rewinds this view alone (a timeline), the recording's keys
    # move it, l goes live again; f forks the world at the tick shown and the view switches to
    # the new world; a live view's f forks at the live edge.
    record_opt="--db $tmp/live.db"
    start_vivd --world sand:seed=3:w=64,h=32
    record_opt=--no-record
    live_tick() { status_of "$1" | grep -oE '^ [0-9]+ sand normal t[0-9]+|^ world [0-9]+ sand  view normal  tick [0-9]+' | grep -oE '[0-9]+$'; }
    live_over() { t=$(live_tick "$1"); [ "${t:-0}" -gt "$2" ]; }
    rw_tick() { status_of live | grep -oE 'rewound +t(ick )?[0-9]+' | tr -dc 0-9; }
    rw_at() { [ "$(rw_tick)" = "$1" ]; }
    rw_over() { t=$(rw_tick); [ "${t:-0}" -gt "$1" ]; }
    # within a tick of $1 (a second further back is counted from the tick the viewer had shown,
    # which an answer still on its way can move by one under a sanitizer's slowness)
    rw_near() { t=$(rw_tick); [ "${t:-0}" -ge $(($1 - 1)) ] && [ "${t:-0}" -le $(($1 + 1)) ]; }
    run_in_tmux live --token "$PLAYER"
    if wait_until 300 live_over live 200; then
        status_is live " r f" && ok "live: the hints offer r and f" || fail "live: hints: $(status_of live)"
        tm send-keys -t live r
        if wait_until 300 status_is live "rewound +t(ick )?[0-9]+ +-[0-9]+( ticks)? +(\|\||paused) "; then
            ok "live: r rewinds: $(status_of live)"
            t0=$(rw_tick)
            tm send-keys -t live Left
            wait_until 300 rw_at $((t0 - 1)) && ok "live: Left steps back (tick $((t0 - 1)))" ||
                fail "live: Left from $t0: $(status_of live)"
            tm send-keys -t live Right
            wait_until 300 rw_at "$t0" && ok "live: Right steps forward (tick $t0)" ||
                fail "live: Right to $t0: $(status_of live)"
            tm send-keys -t live Down
            wait_until 300 rw_at $((t0 - 60)) && ok "live: Down jumps a second back (tick $((t0 - 60)))" ||
                fail "live: Down to $((t0 - 60)): $(status_of live)"
            tm send-keys -t live r
            wait_until 300 rw_near $((t0 - 120)) && ok "live: r again: a second further back (tick $(rw_tick))" ||
                fail "live: r to $((t0 - 120)): $(status_of live)"
            tm send-keys -t live 4
            wait_until 300 pane_has live "(rewound: l to play" && ok "live: rewound, inputs wait for l" ||
                fail "live: key 4 rewound: $(status_of live)"
            tm send-keys -t live ']'
            wait_until 300 status_is live " 200%" || fail "live: ] did not set 200%: $(status_of live)"
            tm send-keys -t live Space
            wait_until 300 rw_over $((t0 - 100)) && status_is live " 200%" &&
                ok "live: ] and space play the timeline at 200%" || fail "live: space: $(status_of live)"
            tm send-keys -t live Space l
            if wait_until 300 status_is live "^ 1 sand normal t[0-9]+ live |world 1 sand  view normal  tick [0-9]+  live "; then
                wait_until 300 live_over live "$t0" && ok "live: l goes live again ($(status_of live))" ||
                    fail "live: l: the tick is not past $t0: $(status_of live)"
            else
                fail "live: l: $(status_of live)"
            fi
            # Fork at a rewound tick: world 2 starts there.
            tm send-keys -t live r
            wait_until 300 status_is live "rewound +t(ick )?[0-9]+ " || fail "live: r before f: $(status_of live)"
            t1=$(rw_tick)
            tm send-keys -t live Down
            t1=$((t1 - 60))
            wait_until 300 rw_at "$t1" || fail "live: Down before f, to $t1: $(status_of live)"
            tm send-keys -t live f
            if wait_until 300 status_is live "^ 2 sand normal t[0-9]+"; then
                t2=$(live_tick live)
                [ "${t2:-0}" -ge "${t1:-1}" ] && ok "live: f forks at tick $t1: the view shows world 2 (tick $t2)" ||
                    fail "live: f: world 2 at tick $t2, forked at $t1"
            else
                fail "live: f at tick $t1 made no world 2: $(status_of live)"
            fi
            # A live view's f: world 3, from world 2's live edge.
            if wait_until 300 live_over live $((t1 + 150)); then
                tm send-keys -t live f
                wait_until 300 status_is live "^ 3 sand normal t[0-9]+" &&
                    ok "live: f on a live view forks at the live edge: world 3" ||
                    fail "live: f live: $(status_of live)"
            else
                fail "live: world 2 does not tick: $(status_of live)"
            fi
            status_is live "err " && fail "live: the keys got errors: $(status_of live)"
        else
            fail "live: r: $(status_of live)"
        fi
        tm send-keys -t live q
        check_restored live 0
    else
        fail "live: viv view did not start: $(status_of live)"
    fi
    run_in_tmux livev --world 1
    if wait_until 300 live_over livev 0; then
        tm send-keys -t livev f
        wait_until 300 pane_has livev "'f' needs a player token" && ok "live: a viewer's f says it needs a token" ||
            fail "live: viewer f: $(status_of livev)"
        tm send-keys -t livev r
        wait_until 300 status_is livev "rewound +t(ick )?[0-9]" && ok "live: a viewer rewinds too" ||
            fail "live: viewer r: $(status_of livev)"
        tm send-keys -t livev q
    else
        fail "livev: viv view did not start: $(status_of livev)"
    fi
    stop_vivd

    # Zoom and pan (issue 30), on a 640x480 sand recording paused at tick 0, in a 200-column
    # terminal (200x58 screen pixels). + shows one screen pixel a world pixel around the middle:
    # the view is [220, 211, 200, 58], the frames are those of its rect widened to the server's
    # 64-pixel grid, and the screen shows the world's own pixels there; d pans a quarter of the
    # view (50) out of that rect: a new one; s pans 14 down inside it: the same one; z fits the
    # whole world again, from whole frames.
    if command -v python3 > /dev/null 2>&1; then
        "$viv" sim --world sand --seed 7 --params w=640,h=480 --ticks 30 --record "$tmp/big.db" \
            > /dev/null 2> "$tmp/err" || fail "zoom: viv sim --record: $(cat "$tmp/err")"
        "$viv" sim --world sand --seed 7 --params w=640,h=480 --ticks 0 --png "$tmp/big.png" \
            > /dev/null 2> "$tmp/err" || fail "zoom: viv sim --png: $(cat "$tmp/err")"
        start_vivd --play "$tmp/big.db:1"
        zoom_shows() {    # zoom_shows NAME ZOOM VX VY: the screen shows tick 0 so (zoom 0: fitted)
            tm capture-pane -p -e -N -t zoom > "$tmp/zoom.scr"
            if python3 "$tmp/picture.py" "$tmp/zoom.scr" 200 30 "$tmp/big.png" 1 "$2" "$3" "$4" 2> "$tmp/err"; then
                ok "$1: the screen shows the world's pixels there"
            else
                fail "$1: $(cat "$tmp/err")"
            fi
        }
        zoom_step() {     # zoom_step NAME KEY STATUS ZOOM VX VY
            tm send-keys -t zoom "$2"
            if wait_until 100 status_is zoom "$3"; then
                sleep 0.2
                zoom_shows "$1" "$4" "$5" "$6"
            else
                fail "$1: the status line lacks '$3': $(status_of zoom)"
            fi
        }
        TCOLS=200 run_in_tmux zoom
        if wait_until 300 status_is zoom "tick 0 / 30 "; then
            zoom_step "zoom: + (1x at 220,211, rect 192,192 256x128)" + \
                "  zoom 1x at 220,211 200x58  rect 192,192 256x128  " 1 220 211
            zoom_step "zoom: d pans out of the rect (a new one, 256,192 256x128)" d \
                "  zoom 1x at 270,211 200x58  rect 256,192 256x128  " 1 270 211
            zoom_step "zoom: s pans inside it (the same rect)" s \
                "  zoom 1x at 270,225 200x58  rect 256,192 256x128  " 1 270 225
            zoom_step "zoom: z fits the whole world" z "tick 0 / 30 .* viewer " 0 0 0
            status_is zoom "zoom|rect" && fail "zoom: z: the status line still says zoom: $(status_of zoom)"
            tm send-keys -t zoom q
        else
            fail "zoom: viv view did not start: $(status_of zoom)"
        fi
        stop_vivd
        # A world bigger than 640x480 shown whole asks for a div of its size (the largest, up to 8,
        # that still gives each screen pixel a world pixel: 2048x1024 at 120x30 is div 8), which
        # the server downsamples: a whole 2048x1024 frame would not fit in a message.
        "$viv" sim --world sand --seed 7 --params w=2048,h=1024 --ticks 2 --record "$tmp/huge.db" \
            > /dev/null 2> "$tmp/err" || fail "huge: viv sim --record: $(cat "$tmp/err")"
        "$viv" sim --world sand --seed 7 --params w=2048,h=1024 --ticks 0 --png "$tmp/huge.png" \
            > /dev/null 2> "$tmp/err" || fail "huge: viv sim --png: $(cat "$tmp/err")"
        start_vivd --play "$tmp/huge.db:1"
        "$viv" view --host "$host" --frames 1 --size 120x30 > "$tmp/huge.out" 2> "$tmp/err" ||
            fail "huge: viv view: $(cat "$tmp/err")"
        if python3 "$tmp/picture.py" "$tmp/huge.out" 120 30 "$tmp/huge.png" 8 2> "$tmp/err"; then
            ok "a 2048x1024 world shown whole at 120x30 is its picture at 1/8 size, fitted"
        else
            fail "huge: the picture differs: $(cat "$tmp/err")"
        fi
        stop_vivd
        start_vivd --world sand:seed=7:w=2048,h=1024
        "$viv" view --host "$host" --frames 3 --size 120x30 > "$tmp/huge.out" 2> "$tmp/err" ||
            fail "huge: viv view of a live world: $(cat "$tmp/err")"
        grep -aq "view normal  1/8 size  tick [0-9]\| sand normal 1/8 t[0-9]" "$tmp/huge.out" &&
            ok "huge: the status line says 1/8 size" ||
            fail "huge: no '1/8 size  tick N' in the status line: $(grep -ao 'world 1.*' "$tmp/huge.out" | tail -1)"
        stop_vivd

        # Zoomed and panned, a click paints at the world pixel under it; the wheel zooms out
        # keeping that pixel under the pointer, and a click there paints it again; rewound, a pan
        # out of the rect keeps the tick shown. A 100x30 terminal (100x58 screen pixels): + + is
        # 2x around (320, 240), a pans 12: the view starts at 283,226, and cell (40, 10) (0-based)
        # is world pixel (283 + 40/2, 226 + 21/2) = (303, 236); 1x with that pixel at screen pixel
        # (40, 21) starts at 263,215. vivd records the inputs: their x, y are checked.
        record_opt="--db $tmp/zoom.db"
        start_vivd --world sand:seed=7:w=640,h=480
        record_opt=--no-record
        run_in_tmux zlive --token "$PLAYER"
        if wait_until 300 status_is zlive "^ 1 sand normal t[0-9]+ "; then
            tm send-keys -t zlive + + a
            wait_until 100 status_is zlive " 2x@283,226 player " && ok "zoom: + + a: 2x at 283,226" ||
                fail "zoom: + + a: $(status_of zlive)"
            tm send-keys -t zlive -l "${esc}[<0;41;11M"
            tm send-keys -t zlive -l "${esc}[<0;41;11m"
            wait_until 100 status_is zlive " ack1 " || fail "zoom: a click at 2x is not acknowledged: $(status_of zlive)"
            tm send-keys -t zlive -l "${esc}[<65;41;11M"
            wait_until 100 status_is zlive " 1x@263,215 player " && ok "zoom: the wheel zooms out at the pointer: 1x at 263,215" ||
                fail "zoom: the wheel: $(status_of zlive)"
            tm send-keys -t zlive -l "${esc}[<0;41;11M"
            tm send-keys -t zlive -l "${esc}[<0;41;11m"
            wait_until 100 status_is zlive " ack2 " || fail "zoom: a click at 1x is not acknowledged: $(status_of zlive)"
            tm send-keys -t zlive r
            if wait_until 300 status_is zlive "rewound t[0-9]+ "; then
                t0=$(status_of zlive | grep -oE 'rewound t[0-9]+' | tr -dc 0-9)
                tm send-keys -t zlive d
                wait_until 300 status_is zlive "rewound t$t0 .* 1x@288,215 " &&
                    ok "zoom: rewound, d pans out of the rect and stays at tick $t0" ||
                    fail "zoom: rewound, d: $(status_of zlive)"
                status_is zlive "err " && fail "zoom: errors: $(status_of zlive)"
            else
                fail "zoom: r: $(status_of zlive)"
            fi
            tm send-keys -t zlive q
        else
            fail "zlive: viv view did not start: $(status_of zlive)"
        fi
        stop_vivd
        got=$(python3 -c '
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
for (a,) in db.execute("SELECT args FROM input WHERE session = 1 ORDER BY tick, client, seq"):
    print("%d,%d" % struct.unpack("<2i", a[:8]), end=" ")' "$tmp/zoom.db" 2>&1)
        [ "$got" = "303,236 303,236 " ] && ok "zoom: the clicks painted at world pixel 303,236 (2x, then 1x)" ||
            fail "zoom: the recorded inputs are at '$got', not '303,236 303,236 '"
    fi
else
    echo "view: skipped: the interactive tests need tmux"
fi

# ---- the other kinds: the same picture check on each ----------------------------------------------
# A palette-cycling world (only its palette changes after tick 0) and a terrarium, in x-ray too.
if command -v python3 > /dev/null 2>&1; then
    [ -n "$vivd_pid" ] && stop_vivd
    start_vivd --world cycle:seed=5:scene=fire --world cycle:seed=2:scene=dusk
    picture "cycle fire 80x24" 80 24 --world cycle --seed 5 --params scene=fire -- --world 1
    picture "cycle dusk 120x40" 120 40 --world cycle --seed 2 --params scene=dusk -- --world 2
    stop_vivd
    start_vivd --world terrarium:seed=4 --world terrarium:seed=9:w=160
    picture "terrarium 80x24" 80 24 --world terrarium --seed 4 -- --world 1
    picture "terrarium x-ray 100x30" 100 30 --world terrarium --seed 4 --view xray -- --world 1 --view xray
    picture "terrarium w=160 enlarged 120x40" 120 40 --world terrarium --seed 9 --params w=160 -- --world 2
    # The 13 fps homage: every third tick, a third of the size (107x60), whole-scaled.
    pdiv=3
    picture "terrarium homage 120x40" 120 40 --world terrarium --seed 4 -- --world 1 --every 3 --div 3
    pdiv=1
    # The long status line says "1/3 size", the short one (a note of the world's events makes
    # the line too long for 120 columns) " 1/3 ": either says it, in every frame's status.
    grep -aq "view normal  1/3 size  tick\| normal 1/3 t[0-9]" "$tmp/pic.out" &&
        ok "--div 3: the status line says 1/3 size" ||
        fail "--div 3: the status line does not say 1/3 size: $(grep -ao 'terrarium .\{0,60\}' "$tmp/pic.out" | tail -1)"
    stop_vivd
fi

if [ "$fails" -ne 0 ]; then
    echo "view: $fails failed" >&2
    exit 1
fi
echo "view: all passed"
