#!/usr/bin/env bash
# System check of the Foxglove bridge with Foxglove's own client: starts the realtime stack and
# limbic-foxglove on a private bus (stack.yaml), then runs check.mjs under node (@foxglove/ws-protocol):
# a native and derived channels decoded, client publishing, and a client that stops reading dropped while
# the others are served. Exit 0: pass; 1: fail; 77: skipped (no node, or `npm ci` not run here).
#   usage: run_check.sh            (LIMBIC_BIN_DIR: the programs, default build/bin; LIMBIC_FOXGLOVE_KEEP=1 keeps logs)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
BIN="${LIMBIC_BIN_DIR:-$ROOT/build/bin}"

if ! command -v node >/dev/null; then
  echo "SKIP: node not found (apt-get install nodejs npm; then npm ci in tests/system/foxglove)"
  exit 77
fi
if [[ ! -d "$HERE/node_modules/@foxglove/ws-protocol" ]]; then
  echo "SKIP: run 'npm ci' in $HERE first (.ci/run does)"
  exit 77
fi
[[ -x "$BIN/limbic-foxglove" ]] || { echo "FAIL: $BIN/limbic-foxglove not built"; exit 1; }

WORK="$(mktemp -d /tmp/limbic-foxglove-check.XXXXXX)"
launcher=""
cleanup() {
  if [[ -n "$launcher" ]] && kill -0 "$launcher" 2>/dev/null; then
    kill -INT "$launcher" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$launcher" 2>/dev/null || true
  fi
  if [[ "${LIMBIC_FOXGLOVE_KEEP:-0}" == 1 ]]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

# A small queue bound and a short stall timeout so the slow client is dropped within seconds.
"$BIN/limbic" launch "$HERE/stack.yaml" --var "bus=ipc://$WORK/bus" --var "listen=127.0.0.1:$PORT" \
  --var max_client_buffer_mb=0.25 --var stall_timeout_s=1 >"$WORK/stack.log" 2>&1 &
launcher=$!

for _ in $(seq 150); do
  if (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  kill -0 "$launcher" 2>/dev/null || { echo "FAIL: the stack exited"; tail -30 "$WORK/stack.log"; exit 1; }
  sleep 0.2
done
echo "bridge on ws://127.0.0.1:$PORT"
if ! node "$HERE/check.mjs" "ws://127.0.0.1:$PORT" --timeout "${LIMBIC_FOXGLOVE_CHECK_TIMEOUT_S:-90}"; then
  echo "--- stack log (last 40 lines) ---"
  tail -40 "$WORK/stack.log"
  exit 1
fi
