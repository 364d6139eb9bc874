#!/usr/bin/env bash
# Runs every libFuzzer target of a LIMBIC_FUZZ build for a bounded time and reports executions and
# exec/s per target. Exits non-zero if any target crashes, leaks, times out or runs out of memory.
#   tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS_PER_TARGET [JOBS]
# JOBS targets run at once (default: the number of CPUs), each for SECONDS_PER_TARGET; the table is printed in
# target order once all have finished.
# Seeds come from BUILD_DIR/fuzz/corpus/<target>/ (generated at build time, read only here); inputs the
# fuzzer finds go to BUILD_DIR/fuzz/work/<target>/ (kept between runs); crash inputs to
# BUILD_DIR/fuzz/artifacts/ (reproduce with: BUILD_DIR/fuzz/fuzz_<target> ARTIFACT).
set -u
if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS_PER_TARGET [JOBS]" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 2
seconds=$2
jobs=${3:-$(nproc)}
if ! [[ $jobs =~ ^[1-9][0-9]*$ ]]; then
  echo "JOBS must be a positive integer, not '$jobs'" >&2
  exit 2
fi
out="$build/fuzz"
targets=(message_verify bus_frames json_codec hostile_values mcap_reader)
mkdir -p "$out/artifacts" "$out/logs"
status=0
# run_target T: fuzzes one target, leaves its exit code in logs/T.rc.
run_target() {
  local t=$1
  # -timeout: one input taking longer than this is a hang (a bug); -rss_limit_mb: memory growth is one too.
  "$out/fuzz_$t" "$out/work/$t" "$out/corpus/$t" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/artifacts/$t-" >"$out/logs/$t.log" 2>&1
  echo $? >"$out/logs/$t.rc"
}
runnable=()
for t in "${targets[@]}"; do
  if [[ ! -x "$out/fuzz_$t" ]]; then
    echo "missing $out/fuzz_$t (configure with CC=clang CXX=clang++ -DLIMBIC_FUZZ=ON and build fuzz_$t)" >&2
    status=1
    continue
  fi
  if [[ ! -d "$out/corpus/$t" ]]; then
    echo "missing seeds $out/corpus/$t (build the fuzz_corpus target)" >&2
    status=1
    continue
  fi
  mkdir -p "$out/work/$t"
  rm -f "$out/logs/$t.rc"
  runnable+=("$t")
done
running=0
for t in "${runnable[@]}"; do
  if ((running >= jobs)); then
    wait -n
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait
printf '%-16s %12s %10s %8s %s\n' target executions exec/s cov result
for t in "${runnable[@]}"; do
  log="$out/logs/$t.log"
  rc=$(cat "$out/logs/$t.rc" 2>/dev/null || echo "?")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  if [[ $rc == 0 ]]; then
    result=ok
  else
    result="FAILED (exit $rc; log $log)"
    status=1
  fi
  printf '%-16s %12s %10s %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$result"
  if [[ $rc != 0 ]]; then
    grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz_|artifact_prefix|Test unit written)' "$log" | head -20 >&2
  fi
done
exit $status
