#!/usr/bin/env bash
# metrics_promtool_lint (issue 22 item 6): the exporter's live page passes Prometheus's own lint,
# `promtool check metrics`, not only the project's naming rules (metrics::CheckNaming). Starts limbic-bus,
# limbic-metrics and limbic-metrics-synthetic (traffic for every family) on a private bus, scrapes the page
# over HTTP once every family has series, and lints it.
# usage: promtool_lint.sh BIN_DIR     exit 0: clean; 1: problems (listed); 77: skipped (no promtool)
set -euo pipefail
BIN="$1"
if ! command -v promtool >/dev/null; then
  echo "SKIP: promtool not found; install Debian's 'prometheus' package (.ci/run does) to lint the exporter's page"
  exit 77
fi
WORK="$(mktemp -d /tmp/limbic-promtool-lint.XXXXXX)"
pids=()
stop() {
  for ((i = ${#pids[@]} - 1; i >= 0; --i)); do kill -TERM "${pids[i]}" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap stop EXIT
port="$(/usr/bin/env python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
bus="ipc://$WORK/bus"
"$BIN/limbic-bus" --bus "$bus" >"$WORK/bus.log" 2>&1 & pids+=($!)
"$BIN/limbic-metrics" --bus "$bus" --set "listen=127.0.0.1:$port" >"$WORK/metrics.log" 2>&1 & pids+=($!)
sleep 0.5
"$BIN/limbic-metrics-synthetic" --bus "$bus" --robot r1 --duration 30 >"$WORK/synthetic.log" 2>&1 & pids+=($!)
# The synthetic traffic reaches every family within a few seconds (its first run-metrics row after 5 s).
page="$WORK/page.txt"
for _ in $(seq 150); do
  if curl -fsS "http://127.0.0.1:$port/metrics" -o "$page" 2>/dev/null &&
     grep -q '^limbic_run_last_completion_time_seconds' "$page" && grep -q '^limbic_faults_in_effect' "$page"; then
    break
  fi
  sleep 0.1
done
families="$(grep -c '^# TYPE limbic_' "$page" || true)"
echo "scraped http://127.0.0.1:$port/metrics: $families limbic families, $(grep -vc '^#' "$page") series"
if [[ "$families" -lt 30 ]]; then
  echo "FAIL: the page has only $families limbic families (expected the synthetic traffic's 30+)"
  tail -n 20 "$WORK"/*.log
  exit 1
fi
if ! promtool check metrics <"$page" >"$WORK/lint.txt" 2>&1; then
  echo "FAIL: promtool check metrics found problems:"
  cat "$WORK/lint.txt"
  exit 1
fi
cat "$WORK/lint.txt"
echo "PASS: promtool check metrics found nothing on the exporter's page"
