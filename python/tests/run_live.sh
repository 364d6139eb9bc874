#!/usr/bin/env bash
# python_client_live_test: starts the robot (python/tests/live_stack.yaml, no mission) on a private bus with
# `limbic launch`, runs python/tests/test_live.py against it with Debian's python3, and stops it.
# usage: run_live.sh BIN_DIR PYTHON [TEST ...]   (exit 77 = skipped: the Python packages are missing)
#        TEST: unittest names (e.g. LiveStack.test_latched_world_arrives_at_once) to run only those; default all.
set -euo pipefail
BIN=$1
PY=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
if ! missing=$("$PY" -c 'import zmq, flatbuffers' 2>&1); then
  echo "SKIP: $PY cannot import zmq and flatbuffers ($missing); install python3-zmq python3-flatbuffers" \
       "(tools/setup-debian.sh does)"
  exit 77
fi
WORK=$(mktemp -d /tmp/limbic-python-live.XXXXXX)
BUS="ipc://$WORK/bus"
"$BIN/limbic" launch "$HERE/live_stack.yaml" --var "bus=$BUS" >"$WORK/launch.log" 2>&1 &
launcher=$!
stop() {
  kill -INT "$launcher" 2>/dev/null || true
  wait "$launcher" 2>/dev/null || true
  rm -rf "$WORK"
}
trap stop EXIT
status=0
LIMBIC_BUS="$BUS" LIMBIC_BIN_DIR="$BIN" LIMBIC_TEST_WORK="$WORK" "$PY" "$HERE/test_live.py" -v "$@" || status=$?
if [ "$status" -ne 0 ]; then
  echo "--- the stack's output (limbic launch):"
  tail -n 60 "$WORK/launch.log"
fi
exit "$status"
