#!/bin/sh
# make run: start vivd with its demo worlds (one of every kind) on 127.0.0.1:7400, and the
# browser viewer on http://127.0.0.1:7401/ (VIVD_LISTEN and VIVD_HTTP change them), in the
# foreground. Ctrl-C stops it cleanly and suspends the worlds; the next `make run` resumes them
# where they stopped (VIVD_FRESH=1 make run starts new ones). Tokens stay the same across runs
# (kept in vivarium.db.tokens; the log prints them at the first run only).
set -eu
bin=${1:-bin}
listen=${VIVD_LISTEN:-127.0.0.1:7400}
http=${VIVD_HTTP:-127.0.0.1:7401}
fresh=
if [ -n "${VIVD_FRESH:-}" ]; then fresh=--fresh; fi
cat <<MSG
run: starting vivd on $listen with the demo worlds. Stop it with Ctrl-C; make run again resumes them.
run: watch in a browser:           http://$http/   (the page; its WebSocket is ws://$http/ws)
run: watch in another terminal:    $bin/viv view --host $listen
run: paint as a player:            VIVD_PLAYER_TOKEN=<the player token in vivarium.db.tokens> $bin/viv view --host $listen
run: load test:                    $bin/viv bot --host $listen --clients 100 --seconds 10
run: recording to ./vivarium.db;   afterwards: $bin/viv replay list vivarium.db
run: verify a recording in the page (its Verify panel); a world with no server: http://$http/#local=sand&seed=5
run: start over with new worlds:   VIVD_FRESH=1 make run
MSG
exec "$bin/vivd" --listen "$listen" --http "$http" --db vivarium.db $fresh
