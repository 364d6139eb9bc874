#!/usr/bin/env bash
# CURVE on the direct data path across hosts (issue 23): four network namespaces — a switch (a Linux bridge) and
# three hosts on it: the broker's (10.78.0.1: limbic-bus with CURVE), a publisher's (10.78.0.2) and a subscriber's
# (10.78.0.3). The publisher publishes on the direct path, so its data goes host to host over tcp with CURVE, never
# through the broker's host; the broker only admits keys and tells the subscriber where the publisher is and which
# key it authenticated. Passes when the subscriber has its messages through a direct link and bus/stats lists the
# topic as direct, and an unadmitted key gets nothing, neither through the broker nor straight at the publisher with
# its address and public key (neither is secret).
# usage: run.sh BIN_DIR        exit 0 pass, 1 fail, 77 skipped (no namespaces or bridges here)
set -uo pipefail
BIN=${1:?usage: run.sh BIN_DIR}

TAG="lc$$"
NS_S="limbic-switch-$TAG"
NS_B="limbic-bus-$TAG"
NS_P="limbic-pub-$TAG"
NS_U="limbic-sub-$TAG"
NETNS_TEST=curve-direct
source "$(dirname "$0")/../netns.sh"
netns_add "$NS_S" "$NS_B" "$NS_P" "$NS_U"
ip -n "$NS_S" link add "br$TAG" type bridge 2>"$TMP/bridge.err" || skip "cannot create a bridge: $(cat "$TMP/bridge.err")"
ip -n "$NS_S" link set "br$TAG" up
k=1
for ns in "$NS_B" "$NS_P" "$NS_U"; do
  ip link add "h$k$TAG" type veth peer name "s$k$TAG" || skip "cannot create a veth pair (veth module missing?)"
  ip link set "h$k$TAG" netns "$ns"
  ip link set "s$k$TAG" netns "$NS_S"
  ip -n "$NS_S" link set "s$k$TAG" master "br$TAG"
  ip -n "$NS_S" link set "s$k$TAG" up
  ip -n "$ns" addr add "10.78.0.$k/24" dev "h$k$TAG"
  ip -n "$ns" link set "h$k$TAG" up
  k=$((k + 1))
done
if command -v ping >/dev/null 2>&1; then
  ip netns exec "$NS_U" ping -c 1 -W 2 10.78.0.2 >/dev/null 2>&1 || { echo "FAIL: the hosts do not reach each other"; exit 1; }
fi

"$BIN/limbic" keys generate --out "$TMP/keys" bus publisher subscriber >/dev/null || { echo "FAIL: limbic keys"; exit 1; }
BUS=tcp://10.78.0.1:7400
ip netns exec "$NS_B" "$BIN/limbic-bus" --bus "$BUS" --curve-server "$TMP/keys/bus.server.yaml" >"$TMP/bus.log" 2>&1 &
PIDS+=($!)
ip netns exec "$NS_P" "$BIN/curve-direct-peer" pub --bus "$BUS" --curve-keys "$TMP/keys/publisher.client.yaml" \
  --timeout 60 >"$TMP/pub.log" 2>&1 &
PIDS+=($!)

status=0
ip netns exec "$NS_U" "$BIN/curve-direct-peer" sub --bus "$BUS" --curve-keys "$TMP/keys/subscriber.client.yaml" \
  --count 100 --timeout 30 || status=1
endpoint=$(grep -o 'tcp://10\.78\.0\.2:[0-9]*' "$TMP/pub.log" | head -n 1)
[ -n "$endpoint" ] || { echo "FAIL: the publisher did not bind its direct socket on its own host's address"; status=1; }

# An intruder on the subscriber's host with its own key pair (not admitted): it reaches neither the broker nor,
# straight at the publisher's endpoint with the publisher's public key (neither is secret), the data.
if [ "$status" -eq 0 ]; then
  "$BIN/limbic" keys generate --out "$TMP/intruder" bus intruder >/dev/null || { echo "FAIL: limbic keys"; exit 1; }
  server_public=$(sed -n 's/^server_public: *"\(.*\)"$/\1/p' "$TMP/keys/subscriber.client.yaml")
  {
    echo "server_public: \"$server_public\""
    grep '^client_' "$TMP/intruder/intruder.client.yaml"
  } >"$TMP/intruder.client.yaml"
  if ip netns exec "$NS_U" "$BIN/curve-direct-peer" sub --bus "$BUS" --curve-keys "$TMP/intruder.client.yaml" \
    --count 1 --timeout 4 >"$TMP/intruder-bus.log" 2>&1; then
    echo "FAIL: an unadmitted key received the topic through the directory"; cat "$TMP/intruder-bus.log"; status=1
  fi
  if ! ip netns exec "$NS_U" "$BIN/curve-direct-peer" intrude --endpoint "$endpoint" \
    --server-key "$(cat "$TMP/keys/publisher.pub")" --curve-keys "$TMP/intruder.client.yaml" --timeout 4; then
    echo "FAIL: an unadmitted key received data straight from the publisher"; status=1
  fi
  grep -q "rejected a CURVE client" "$TMP/bus.log" || { echo "FAIL: the broker did not reject the intruder"; status=1; }
fi

if [ "$status" -ne 0 ]; then
  echo "---- bus"; tail -n 30 "$TMP/bus.log"
  echo "---- publisher"; tail -n 30 "$TMP/pub.log"
  exit 1
fi
echo "PASS: two hosts exchanged data on the direct path over tcp with CURVE (publisher at $endpoint), the broker on a third; an unadmitted key got nothing"
exit 0
