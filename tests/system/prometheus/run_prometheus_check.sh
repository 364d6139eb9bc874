#!/usr/bin/env bash
# Starts a real Prometheus on loopback with the repository's configuration (deploy/prometheus), runs a
# command that brings up limbic-bus, limbic-metrics and some traffic, then asserts through Prometheus's
# HTTP API that every expression of deploy/grafana/queries.txt (dashboard panels and alert rules) returns
# data. Exit 0: all returned data; 1: failures (listed); 77: skipped (no /usr/bin/prometheus).
#
# usage: run_prometheus_check.sh [--expect FILE]... STACK_COMMAND [ARGS...]
#   The stack command gets in its environment:
#     LIMBIC_BUS              a private bus address (ipc:// in a temporary directory)
#     LIMBIC_METRICS_LISTEN   HOST:PORT limbic-metrics must serve on (Prometheus scrapes it)
#   --expect FILE  more expressions (one per line) that must return data, e.g. `limbic_service_up{...} == 0`.
# Environment: PROMETHEUS (default /usr/bin/prometheus), LIMBIC_PROM_WARMUP_S (seconds of scraping before
#   the queries, default 12), LIMBIC_PROM_WAIT_S (after the warm-up, how long to keep scraping while some
#   expression has no data yet, e.g. a robot that has not finished its first traversal; default 0; the
#   wait also ends when the stack command ends), LIMBIC_PROM_ROBOT (value for $robot, default r1), LIMBIC_PROM_KEEP=1 keeps the
#   temporary directory (logs, TSDB).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
PROMETHEUS="${PROMETHEUS:-/usr/bin/prometheus}"
WARMUP_S="${LIMBIC_PROM_WARMUP_S:-12}"
WAIT_S="${LIMBIC_PROM_WAIT_S:-0}"
ROBOT="${LIMBIC_PROM_ROBOT:-r1}"

if [[ ! -x "$PROMETHEUS" ]]; then
  echo "SKIP: $PROMETHEUS not found; install Debian's 'prometheus' package (apt-get install prometheus) to run this check"
  exit 77
fi
expect_files=()
while [[ $# -gt 0 && "$1" == --expect ]]; do
  [[ $# -ge 2 ]] || { echo "run_prometheus_check.sh: --expect needs a file" >&2; exit 2; }
  expect_files+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")")
  shift 2
done
if [[ $# -lt 1 ]]; then
  sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
fi

WORK="$(mktemp -d /tmp/limbic-prom-check.XXXXXX)"
prom_pid=""
stack_pid=""
cleanup() {
  if [[ -n "$stack_pid" ]] && kill -0 "$stack_pid" 2>/dev/null; then
    kill -TERM -- "-$stack_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$stack_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$stack_pid" 2>/dev/null || true
  fi
  if [[ -n "$prom_pid" ]] && kill -0 "$prom_pid" 2>/dev/null; then
    kill -TERM "$prom_pid" 2>/dev/null || true
    wait "$prom_pid" 2>/dev/null || true
  fi
  if [[ "${LIMBIC_PROM_KEEP:-0}" == 1 ]]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PROM_PORT="$(free_port)"
EXPORTER_PORT="$(free_port)"
PROM_URL="http://127.0.0.1:$PROM_PORT"
export LIMBIC_BUS="ipc://$WORK/bus"
export LIMBIC_METRICS_LISTEN="127.0.0.1:$EXPORTER_PORT"

echo "== configuration (deploy/prometheus, scrape target -> $LIMBIC_METRICS_LISTEN)"
python3 - "$ROOT/deploy/prometheus/prometheus.yml" "$WORK/prometheus.yml" "$LIMBIC_METRICS_LISTEN" <<'PY'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
jobs = [j for j in cfg.get("scrape_configs", []) if j.get("job_name") == "limbic"]
if not jobs:
    sys.exit("deploy/prometheus/prometheus.yml: no scrape job named 'limbic'")
jobs[0]["static_configs"] = [{"targets": [sys.argv[3]]}]
yaml.safe_dump(cfg, open(sys.argv[2], "w"), sort_keys=False)
PY
cp "$ROOT/deploy/prometheus/alerts.yml" "$WORK/alerts.yml"
if command -v promtool >/dev/null; then
  promtool check config "$WORK/prometheus.yml"
  promtool check rules "$ROOT/deploy/prometheus/alerts.yml"
  if [[ -f "$HERE/alerts_test.yml" ]]; then
    (cd "$HERE" && promtool test rules alerts_test.yml)
  fi
else
  echo "note: promtool not found; configuration checks skipped"
fi
python3 "$HERE/check_queries.py" consistency "$ROOT"

echo "== starting Prometheus on $PROM_URL"
"$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$WORK/prometheus.log" 2>&1 &
prom_pid=$!
for _ in $(seq 100); do
  curl -fsS "$PROM_URL/-/ready" >/dev/null 2>&1 && break
  kill -0 "$prom_pid" 2>/dev/null || { echo "FAIL: Prometheus exited:"; cat "$WORK/prometheus.log"; exit 1; }
  sleep 0.2
done

echo "== starting the stack: $*"
setsid "$@" >"$WORK/stack.log" 2>&1 &
stack_pid=$!
stack_status=""
if ! python3 "$HERE/check_queries.py" wait-up "$PROM_URL" limbic 30; then
  echo "--- stack log"; tail -n 40 "$WORK/stack.log"; exit 1
fi
echo "== exporter scraped; letting Prometheus collect for $WARMUP_S s"
for ((i = 0; i < WARMUP_S * 10; ++i)); do
  if ! kill -0 "$stack_pid" 2>/dev/null; then
    wait "$stack_pid" && stack_status=0 || stack_status=$?
    echo "   the stack ended after $((i / 10)) s of collection (status $stack_status); evaluating just before its end"
    break
  fi
  sleep 0.1
done
# Every expression checked at once, quietly: 0 when all return data at Prometheus's time now.
all_have_data() {
  local now
  now="$(python3 -c 'import time; print(time.time())')"
  python3 "$HERE/check_queries.py" query "$PROM_URL" "$now" "$ROBOT" "$ROOT/deploy/grafana/queries.txt" \
    ${expect_files[@]+"${expect_files[@]}"} >/dev/null 2>&1
}
if [[ -z "$stack_status" && "$WAIT_S" -gt 0 ]] && ! all_have_data; then
  echo "== some expressions have no data yet; scraping up to $WAIT_S s more"
  for ((i = 0; i < WAIT_S; ++i)); do
    sleep 1
    if ! kill -0 "$stack_pid" 2>/dev/null; then
      wait "$stack_pid" && stack_status=0 || stack_status=$?
      echo "   the stack ended (status $stack_status); evaluating just before its end"
      break
    fi
    if all_have_data; then
      echo "   all had data after $((i + 1)) s more"
      break
    fi
  done
fi
# Evaluate while the exporter was up: now, or 1.5 s before the stack ended (after that, series go stale).
eval_time="$(python3 -c 'import time; print(time.time() - (1.5 if "'"$stack_status"'" else 0))')"

status=0
# Prometheus's own lint on the live page (issue 22 item 6); metrics_promtool_lint does the same on its own.
if command -v promtool >/dev/null && [[ -z "$stack_status" ]]; then
  echo "== promtool check metrics on http://$LIMBIC_METRICS_LISTEN/metrics"
  if curl -fsS "http://$LIMBIC_METRICS_LISTEN/metrics" -o "$WORK/page.txt" &&
     ! promtool check metrics <"$WORK/page.txt" >"$WORK/lint.txt" 2>&1; then
    echo "FAIL: promtool check metrics:"; cat "$WORK/lint.txt"; status=1
  fi
fi
echo "== querying $PROM_URL (\$robot = $ROBOT)"
python3 "$HERE/check_queries.py" query "$PROM_URL" "$eval_time" "$ROBOT" "$ROOT/deploy/grafana/queries.txt" || status=1
if [[ ${#expect_files[@]} -gt 0 ]]; then
  echo "== stack-specific expectations: ${expect_files[*]}"
  python3 "$HERE/check_queries.py" query "$PROM_URL" "$eval_time" "$ROBOT" "${expect_files[@]}" || status=1
fi
if [[ $status -ne 0 ]]; then
  echo "--- stack log (last 40 lines)"; tail -n 40 "$WORK/stack.log"
  echo "--- prometheus log (last 20 lines)"; tail -n 20 "$WORK/prometheus.log"
fi
if [[ -z "$stack_status" ]]; then
  wait "$stack_pid" && stack_status=0 || stack_status=$?
fi
stack_pid=""
if [[ "$stack_status" -ne 0 ]]; then
  echo "FAIL: the stack command exited with status $stack_status"; tail -n 40 "$WORK/stack.log"; status=1
fi
[[ $status -eq 0 ]] && echo "PASS: every dashboard and alert expression returned data"
exit $status
