#!/usr/bin/env bash
# Issue 22 item 4: deploy/slurm/ch10.sbatch on a real single-node Slurm (Debian slurm-wlm + munge).
#   run_slurm_check.sh SOURCE_DIR BIN_DIR
# Starts a private munged and a private slurmctld + slurmd (own config, ports, state and socket under a temporary
# folder; a Slurm already on the machine is not touched), then:
#   1. submits the sbatch script as a 2-task array with a small experiment (smoke) and waits for its merge job;
#      the merged runs.csv must equal a local `limbic experiment run` of the same definition, value for value
#      (exec_time_ratio, a wall-clock ratio, aside);
#   2. submits it again with one task made to fail: the merge job must not run (its dependency can never be
#      satisfied); then re-submits without the failure: the failed shard runs, the good one skips its finished runs
#      (resume), and the merge gives the same runs.csv.
# Exits 77 (skipped) when not root or when slurm-wlm / munge are not installed (tools/setup-debian.sh slurm-wlm munge).
set -euo pipefail
src=$(cd "$1" && pwd -P)
bin=$(cd "$2" && pwd -P)
skip() { echo "slurm check: skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to start slurmctld and slurmd"
for p in munged slurmctld slurmd sbatch squeue scancel; do
  command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || skip "$p not installed (apt-get install slurm-wlm munge)"
done
export PATH="$PATH:/usr/sbin"
work=$(mktemp -d /tmp/limbic-slurm.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "slurm check: FAILED: $*" >&2
  for f in "$work"/slurmctld.log "$work"/slurmd.log "$work"/jobs/*.log; do
    [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; } >&2
  done
  exit 1
}
started=$(date +%s)

# munge with its own key and socket.
mkdir -p "$work/munge" && chmod 700 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge/munge.key"
sock="$work/munge/munge.socket"
munged --force --socket="$sock" --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" || skip "munged would not start"
pids+=("$(cat "$work/munge/munged.pid")")

# Slurm: one node (this machine), ports picked from the pid so parallel checks do not collide.
port=$((20000 + ($$ % 10000) * 2))
host=$(hostname -s)
mkdir -p "$work/state" "$work/spool" "$work/jobs"
cat >"$work/slurm.conf" <<CONF
ClusterName=limbictest
SlurmctldHost=${host}(127.0.0.1)
SlurmctldPort=${port}
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=${sock}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=${work}/state
SlurmdSpoolDir=${work}/spool
SlurmctldPidFile=${work}/slurmctld.pid
SlurmdPidFile=${work}/slurmd.pid
SlurmctldLogFile=${work}/slurmctld.log
SlurmdLogFile=${work}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerParameters=defer
NodeName=${host} NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=2000 State=UNKNOWN
PartitionName=limbic Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 0.2
done
sinfo -h -o %T 2>/dev/null | grep -q idle || { cat "$work"/slurmctld.out "$work"/slurmd.out >&2; skip "slurmctld/slurmd did not come up (see above)"; }
echo "slurm check: single-node Slurm up in $(($(date +%s) - started)) s (slurm $(slurmctld -V | cut -d' ' -f2))"

# A LIMBIC wrapper: the real `limbic`, except that the shard named in $work/fail-shard fails before it runs.
cat >"$work/limbic" <<WRAP
#!/usr/bin/env bash
if [ -f "$work/fail-shard" ] && [[ " \$* " == *" --shard \$(cat "$work/fail-shard") "* ]]; then
  echo "injected failure of shard \$(cat "$work/fail-shard")" >&2; exit 3
fi
exec "$bin/limbic" "\$@"
WRAP
chmod +x "$work/limbic"

submit() {  # submit RESULTS → the array job's id
  (cd "$work/jobs" && EXPERIMENT=smoke RESULTS="$1" LIMBIC="$work/limbic" \
    sbatch --parsable --array=0-1 --cpus-per-task=1 --mem-per-cpu=100M --time=00:05:00 "$src/deploy/slurm/ch10.sbatch")
}
wait_idle() {  # wait until no job but pending ones blocked forever remain; $1 seconds at most
  local deadline=$(($(date +%s) + $1))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    local active
    active=$(squeue -h -o '%T %r' | grep -v 'DependencyNeverSatisfied' | wc -l)
    [ "$active" = 0 ] && return 0
    sleep 0.5
  done
  squeue >&2
  return 1
}
compare() {  # compare A B: runs.csv equal value for value, exec_time_ratio aside
  python3 - "$1" "$2" <<'PY'
import csv, sys
def rows(p):
    with open(p) as f:
        r = list(csv.DictReader(f))
    for row in r:
        row.pop("exec_time_ratio", None)
    return sorted(r, key=lambda d: (d["run_id"], int(d["iteration"])))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if a != b:
    print(f"runs differ: {len(a)} vs {len(b)} rows", file=sys.stderr)
    for x, y in zip(a, b):
        if x != y:
            print({k: (x[k], y.get(k)) for k in x if x[k] != y.get(k)}, file=sys.stderr)
    sys.exit(1)
print(f"slurm check: {len(a)} rows equal value for value (exec_time_ratio aside)")
PY
}

# The reference: the same definition run locally.
(cd "$work" && "$bin/limbic" experiment run smoke --out "$work/local" --jobs 2 >"$work/local.log" 2>&1) ||
  { cat "$work/local.log"; fail "local run"; }

# 1. A clean array and its merge.
t0=$(date +%s)
job=$(submit "$work/results-ok") || fail "sbatch"
wait_idle 240 || fail "jobs did not finish within 240 s"
[ -f "$work/results-ok/merged/runs.csv" ] || fail "the merge job left no merged/runs.csv"
compare "$work/local/runs.csv" "$work/results-ok/merged/runs.csv" || fail "merged runs.csv differs from the local run"
echo "slurm check: array job $job (2 tasks) and its merge finished in $(($(date +%s) - t0)) s"

# 2. One task fails: no merge; re-submitting resumes.
echo "2/2" >"$work/fail-shard"
t0=$(date +%s)
job=$(submit "$work/results-resume") || fail "sbatch"
wait_idle 240 || fail "jobs did not finish within 240 s"
blocked=$(squeue -h -o '%i %j %r' | grep 'limbic-ch10-merge' || true)
grep -q DependencyNeverSatisfied <<<"$blocked" || fail "the merge job is not held after a failed task: '$blocked'"
[ ! -e "$work/results-resume/merged" ] || fail "the merge ran although a task failed"
rows_before=$(($(wc -l <"$work/results-resume/shards/shard-1-of-2/runs.csv") - 1))
scancel "$(awk '{print $1}' <<<"$blocked")"
echo "slurm check: with shard 2/2 failing, the merge job was held (DependencyNeverSatisfied) and cancelled"
rm "$work/fail-shard"
job=$(submit "$work/results-resume") || fail "sbatch"
wait_idle 240 || fail "jobs did not finish within 240 s"
[ -f "$work/results-resume/merged/runs.csv" ] || fail "the re-submitted array left no merged/runs.csv"
rows_after=$(($(wc -l <"$work/results-resume/shards/shard-1-of-2/runs.csv") - 1))
[ "$rows_before" = "$rows_after" ] || fail "shard 1 ran its finished runs again ($rows_before rows before, $rows_after after)"
grep -q "$rows_before already done, 0 to run" "$work/jobs/limbic-ch10-${job}_0.log" ||
  fail "shard 1 of the re-submitted array did not skip its finished runs: $(cat "$work/jobs/limbic-ch10-${job}_0.log")"
compare "$work/local/runs.csv" "$work/results-resume/merged/runs.csv" || fail "resumed runs.csv differs from the local run"
echo "slurm check: re-submitted array $job resumed (shard 1 kept its $rows_before rows) and merged in $(($(date +%s) - t0)) s"
echo "slurm check: ok in $(($(date +%s) - started)) s"
