#!/usr/bin/env bash
# Two-host test (issue 8): two network namespaces joined by a veth pair stand for the robot (10.77.0.1:
# broker with CURVE, hwio, simulator, controller) and the workstation (10.77.0.2: mapper, planner,
# affect, mission, metrics). Everything crosses the link over tcp with CURVE keys from
# `limbic keys generate`. Passes when a subscriber in the workstation namespace sees a successful
# RunMetrics (1 traversal, set B environment 0, realtime at speedup 4).
# usage: run.sh BIN_DIR SOURCE_DIR        exit 0 pass, 1 fail, 77 skipped (no namespaces here)
set -uo pipefail
BIN=${1:?usage: run.sh BIN_DIR SOURCE_DIR}
SRC=${2:?usage: run.sh BIN_DIR SOURCE_DIR}
SPEEDUP=${SPEEDUP:-4}
TIMEOUT_S=${TIMEOUT_S:-150}

TAG="lh$$"
NS_R="limbic-robot-$TAG"
NS_W="limbic-ws-$TAG"
NETNS_TEST=two-host
source "$(dirname "$0")/../netns.sh"
netns_add "$NS_R" "$NS_W"
ip link add "r$TAG" type veth peer name "w$TAG" || skip "cannot create a veth pair (veth module missing?)"
ip link set "r$TAG" netns "$NS_R"
ip link set "w$TAG" netns "$NS_W"
ip -n "$NS_R" addr add 10.77.0.1/24 dev "r$TAG"
ip -n "$NS_W" addr add 10.77.0.2/24 dev "w$TAG"
ip -n "$NS_R" link set "r$TAG" up
ip -n "$NS_W" link set "w$TAG" up
if command -v ping >/dev/null 2>&1; then
  ip netns exec "$NS_W" ping -c 1 -W 2 10.77.0.1 >/dev/null 2>&1 || { echo "FAIL: the veth link does not carry traffic"; exit 1; }
fi

"$BIN/limbic" keys generate --out "$TMP/keys" bus robot workstation watcher >/dev/null || { echo "FAIL: limbic keys"; exit 1; }

ip netns exec "$NS_R" "$BIN/limbic" launch "$SRC/deploy/two-host/robot.yaml" --events "$TMP/robot-events.jsonl" \
  --var robot_host=10.77.0.1 --var server_keys="$TMP/keys/bus.server.yaml" --var keys="$TMP/keys/robot.client.yaml" \
  --var speedup="$SPEEDUP" --var set=B --var index=0 >"$TMP/robot.log" 2>&1 &
PIDS+=($!)
sleep 1
ip netns exec "$NS_W" "$BIN/limbic" launch "$SRC/deploy/two-host/workstation.yaml" --events "$TMP/ws-events.jsonl" \
  --var robot_host=10.77.0.1 --var keys="$TMP/keys/workstation.client.yaml" --var speedup="$SPEEDUP" \
  --var iterations=1 --var metrics_listen=127.0.0.1:9464 >"$TMP/workstation.log" 2>&1 &
PIDS+=($!)

ip netns exec "$NS_W" "$BIN/two-host-watch" --bus tcp://10.77.0.1:7400 --curve-keys "$TMP/keys/watcher.client.yaml" \
  --timeout "$TIMEOUT_S"
status=$?
# A fault injected from the workstation over CURVE reaches the robot's hwio.
if [ "$status" -eq 0 ]; then
  ip netns exec "$NS_W" "$BIN/limbic" inject sensor_noise --robot r1 --magnitude 0.01 --duration 1 \
    --bus tcp://10.77.0.1:7400 --curve-keys "$TMP/keys/watcher.client.yaml" || status=1
  sleep 0.5
  grep -q "fault 'sensor_noise'" "$TMP/robot.log" || { echo "FAIL: hwio did not log the injected fault"; status=1; }
fi
crashes=$(cat "$TMP/robot-events.jsonl" "$TMP/ws-events.jsonl" 2>/dev/null | grep -c '"exited"')
if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
  echo "FAIL: watcher status $status, $crashes process exit(s)"
  echo "---- robot"; tail -n 60 "$TMP/robot.log"
  echo "---- workstation"; tail -n 60 "$TMP/workstation.log"
  cat "$TMP/robot-events.jsonl" "$TMP/ws-events.jsonl" 2>/dev/null
  exit 1
fi
echo "PASS: the mission completed across the two namespaces over tcp with CURVE"
exit 0
