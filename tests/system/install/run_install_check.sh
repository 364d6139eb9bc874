#!/usr/bin/env bash
# Issue 22 item 3: an installed limbic works with the source and build trees out of reach.
#   run_install_check.sh SOURCE_DIR BUILD_DIR
# Installs BUILD_DIR into a fresh prefix (stripped), checks the layout and that no installed program carries the
# source or build path, then — in a private mount namespace where both trees are hidden under empty folders —
# runs `limbic demo --duration 10`, an experiment and the Python client from the installed files alone.
# Without the rights for a mount namespace (not root), the programs run anyway from a folder outside both trees
# and the script says the trees could not be hidden.
set -euo pipefail
src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
work=$(mktemp -d /tmp/limbic-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "install check: FAILED: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" --strip >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
echo "install check: installed $(find "$prefix" -type f | wc -l) files, $(du -sh "$prefix" | cut -f1) into $prefix"

# The layout users and packagers rely on (docs/install.md).
for f in bin/limbic bin/limbic-bus bin/limbic-simulator bin/limbic-experiment bin/limbic-demo \
         share/limbic/configs/robots/marvin.yaml share/limbic/services/affect/config/affective.yaml \
         share/limbic/services/hwio/config/example_faults.yaml share/limbic/deploy/demo.yaml \
         share/limbic/experiments/test/smoke.yaml share/limbic/messages/core/heartbeat.fbs share/limbic/messages/common.fbs share/limbic/messages/limbic.bfbs \
         lib/python3/dist-packages/limbic/__init__.py lib/python3/dist-packages/limbic/_schema.py share/doc/limbic/README.md; do
  [ -e "$prefix/$f" ] || fail "missing $f"
done
for helper in limbic-toy limbic-metrics-synthetic two-host-watch; do
  [ ! -e "$prefix/bin/$helper" ] || fail "test helper $helper was installed"
done
# No compiled-in source or build paths (they would make the install depend on trees a user may delete).
for dir in "$src" "$build"; do
  hits=$(grep -rlF "$dir" "$prefix/bin" || true)
  [ -z "$hits" ] || fail "installed programs name $dir: $hits"
done
echo "install check: layout complete; no installed program names $src or $build"

cat >"$work/run.sh" <<'INNER'
set -euo pipefail
prefix=$1; work=$2
export PATH="$prefix/bin:/usr/bin:/bin" PYTHONPATH="$prefix/lib/python3/dist-packages"
unset LIMBIC_DATA_DIR LIMBIC_ROBOT_DIR LIMBIC_AFFECT_CONFIG_DIR LIMBIC_EXPERIMENTS_DIR LIMBIC_SOURCE_DIR
mkdir -p "$work/run" && cd "$work/run"
bus="ipc://$work/run/bus"
limbic demo --duration 10 --bus "$bus" --metrics "127.0.0.1:$((20000 + RANDOM % 20000))" >demo.log 2>&1 &
demo=$!
python3 - "$bus" <<'PY'
import sys, limbic
with limbic.Bus(sys.argv[1], timeout=10) as bus:
    scan = bus.receive("r1/scan", timeout=10)
    assert scan.type == "RangeScan", scan.type
    print(f"install check: python client decoded r1/scan from the installed demo ({len(scan.data.beams)} beams)")
PY
wait $demo || { cat demo.log; echo "demo failed" >&2; exit 1; }
echo "install check: limbic demo --duration 10 ran from the installed files"
limbic experiment list >list.txt && grep -q "smoke" list.txt || { echo "experiment list lacks the shipped smoke experiment" >&2; exit 1; }
limbic experiment run smoke --out exp --jobs 2 >exp.log 2>&1 || { cat exp.log; exit 1; }
python3 -c "import limbic, sys; rows = limbic.read_runs_csv('exp/runs.csv'); assert len(rows) == 2, rows; \
print('install check: experiment smoke ran; python read', len(rows), 'rows of runs.csv')"
INNER

if [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
  # Hide both trees: an empty tmpfs over each (the build tree may sit inside the source tree).
  unshare --mount --propagation private bash -c '
    set -e
    mount -t tmpfs none "$1"
    [ -d "$2" ] && mount -t tmpfs none "$2" || true
    [ ! -e "$1/CMakeLists.txt" ] || { echo "source tree still visible" >&2; exit 1; }
    bash "$3/run.sh" "$4" "$3"' _ "$src" "$build" "$work" "$prefix" || fail "running the installed programs"
  echo "install check: ok (source and build trees hidden in a private mount namespace)"
else
  echo "install check: not root or no mount namespace: the trees stay visible; running from $work instead"
  bash "$work/run.sh" "$prefix" "$work" || fail "running the installed programs"
  echo "install check: ok (trees not hidden)"
fi
