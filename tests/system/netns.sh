# Sourced by the tests that stand hosts up as network namespaces (two_host, team_hosts, curve_direct): whether they
# can run here (else skip: exit 77, with the reason), a scratch directory $TMP, and a clean-up on any exit that stops
# what the test started in the background (append each pid to PIDS) and removes the namespaces made with netns_add.
# usage: NETNS_TEST=two-host; source "$(dirname "$0")/../netns.sh"; netns_add "$NS_A" "$NS_B"
# KEEP_TMP=1 keeps $TMP (the logs) and says where it is.

skip() { echo "SKIP $NETNS_TEST test: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "network namespaces need root (or CAP_NET_ADMIN); run as root, e.g. in .ci/run"
command -v ip >/dev/null 2>&1 || skip "the 'ip' command (iproute2) is not installed"

TMP=$(mktemp -d "/tmp/limbic-$NETNS_TEST.XXXXXX")
PIDS=()
NAMESPACES=()

netns_cleanup() {
  # SIGTERM: every limbic program stops cleanly on it, while a background job of a non-interactive shell ignores
  # SIGINT unless it handles it itself. Then 10 s before SIGKILL.
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null
  done
  for ns in "${NAMESPACES[@]}"; do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
    ip netns del "$ns" 2>/dev/null
  done
  if [ -n "${KEEP_TMP:-}" ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi
}
trap netns_cleanup EXIT

# Makes each namespace, its loopback up; a machine that cannot is skipped with ip's reason.
netns_add() {
  local ns
  for ns in "$@"; do
    ip netns add "$ns" 2>"$TMP/netns.err" || skip "cannot create network namespace $ns: $(cat "$TMP/netns.err")"
    NAMESPACES+=("$ns")
    ip -n "$ns" link set lo up
  done
}
