#!/usr/bin/env bash
# Runs the batch scripts of slurm/ on a real Slurm that it starts on this machine, and checks them.
#
#   bash scripts/slurm-localhost.sh build/examples/tessera-heat    # as root; CTest: `slurm_localhost`
#
# What it does, with the CPU build of tessera-heat (--n 64 --steps 40 --every 20):
#   1. runs it with `mpirun -n 2` for the reference output (its "checksum" line);
#   2. starts munged (as user munge), slurmctld and slurmd in the foreground with a generated
#      one-node slurm.conf. Every file they use (key, socket, state, spool, logs, PMIx and job
#      directories) is in a fresh directory under /tmp and the ports are free ones, so runs from
#      parallel CTest jobs or other build trees do not meet. The node offers at least 8 CPUs
#      (SlurmdParameters=config_overrides; ranks then oversubscribe cores as under mpirun) and two
#      placeholder GPUs (GRES gpu backed by /dev/null and /dev/zero), so the GPU scripts are scheduled
#      as on a GPU node while the CPU build runs;
#   3. submits, each with `sbatch --wait`, at the same time: slurm/cpu.sbatch with 2 tasks;
#      slurm/single-node-gpus.sbatch and slurm/multi-node-gpus.sbatch (--nodes=1) with 2 GPUs and 2
#      tasks; and slurm/cpu.sbatch with an invalid option (--n 1), whose job must fail with the
#      application's exit code, 2. Also an over-large request, which must be refused at once
#      (EnforcePartLimits=ALL) instead of pending;
#   4. checks the exit codes and that every successful job printed the reference checksum line, then
#      prints each job's output;
#   5. always stops the daemons it started (EXIT trap; they also run under `timeout`, so they end even
#      if this script is killed).
# Exit status: 0 passed, 1 failed, 77 skipped (CTest's SKIP_RETURN_CODE) when the Slurm or munge
# packages (scripts/install-deps.sh --slurm) or root are missing, unless TESSERA_REQUIRE_SLURM=1
# (.ci/run sets it), which makes that a failure. Every wait has a timeout. The temporary directory is
# removed after a pass and kept, with its daemon logs, after a failure.
set -euo pipefail

die() {
  echo "slurm-localhost: FAILED: $*" >&2
  exit 1
}
skip() {
  if [[ ${TESSERA_REQUIRE_SLURM:-0} == 1 ]]; then die "$* (TESSERA_REQUIRE_SLURM=1)"; fi
  echo "slurm-localhost: SKIPPED: $*"
  exit 77
}

if [[ $# -ne 1 || ! -x $1 ]]; then
  echo "usage: $0 <path to tessera-heat, e.g. build/examples/tessera-heat>" >&2
  exit 2
fi
app=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mpiexec=${MPIEXEC:-mpirun}
app_args=(--n 64 --steps 40 --every 20)
started=$SECONDS

for tool in munged munge slurmctld slurmd sbatch squeue sinfo scontrol scancel setpriv timeout "$mpiexec"; do
  command -v "$tool" > /dev/null || skip "$tool not found (bash scripts/install-deps.sh --slurm installs Slurm and munge)"
done
[[ $(id -u) -eq 0 ]] || skip "the Slurm and munge daemons need root"
id munge > /dev/null 2>&1 || skip "no user munge (the munge package creates it)"

# Inside someone's Slurm job, their SLURM_* variables would steer our commands to their cluster.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^SLURM_' || true)

# 1. The reference: the same run under mpirun.
reference=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  timeout 120 "$mpiexec" -n 2 --oversubscribe "$app" "${app_args[@]}") || die "mpirun -n 2 $app failed"
checksum=$(grep '^checksum ' <<< "$reference") || die "no checksum line in the mpirun output:"$'\n'"$reference"
echo "slurm-localhost: reference (mpirun -n 2): $checksum"

# 2. The cluster.
dir=$(mktemp -d /tmp/tessera-slurm.XXXXXX)
chmod 755 "$dir"
mkdir -p "$dir"/{munge,ctld,slurmd,log,pmix,jobs,jobtmp}
pids=()    # the daemons, in start order
waiters=() # the subshells that run sbatch --wait
passed=0

stop_all() {
  local status=$?
  set +e
  local pid
  if ((${#waiters[@]} > 0)); then # interrupted while sbatch --wait runs: end those first
    local file
    for file in "$dir"/jobs/*.timeout-pid; do
      [[ -f $file ]] && kill -TERM "$(cat "$file")" 2> /dev/null # `timeout` passes it on to sbatch
    done
    for pid in "${waiters[@]}"; do wait "$pid" 2> /dev/null; done
  fi
  if [[ -S $dir/munge/munge.socket ]] && [[ -f $dir/slurm.conf ]]; then
    timeout 10 scancel --quiet --user="$(id -un)" 2> /dev/null
    for _ in $(seq 20); do
      [[ -z $(timeout 5 squeue --noheader 2> /dev/null) ]] && break
      sleep 0.5
    done
  fi
  for ((k = ${#pids[@]} - 1; k >= 0; k--)); do # slurmd, slurmctld, then munged
    pid=${pids[k]}
    kill -TERM "$pid" 2> /dev/null || continue
    for _ in $(seq 40); do
      kill -0 "$pid" 2> /dev/null || break
      sleep 0.25
    done
    kill -KILL "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
  done
  if [[ $passed == 1 ]]; then
    rm -rf "$dir"
  else
    echo "slurm-localhost: daemon logs and job files kept in $dir" >&2
    for log in "$dir"/log/*; do
      echo "--- last lines of $log ---" >&2
      tail -n 15 "$log" >&2
    done
  fi
  exit "$status"
}
trap stop_all EXIT
trap 'exit 1' INT TERM HUP

# A TCP port nobody listens on (connecting to it is refused), away from the ephemeral range.
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 12000))
    if [[ $port != "${1:-}" ]] && ! (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# Waits until `$@` succeeds, at most $1 seconds (polling every 0.2 s).
wait_for() {
  local seconds=$1
  shift
  local deadline=$((SECONDS + seconds))
  until "$@" > /dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# munge: its own key and socket, run as user munge (munged refuses group- or world-writable paths).
chown munge:munge "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=128 count=1 status=none
chown munge:munge "$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
timeout 900 setpriv --reuid=munge --regid=munge --init-groups munged --foreground \
  --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
  --seed-file="$dir/munge/munged.seed" --log-file="$dir/munge/munged.log" > "$dir/log/munged.out" 2>&1 &
pids+=($!)
munge_works() { munge --socket="$dir/munge/munge.socket" --no-input | unmunge --socket="$dir/munge/munge.socket"; }
wait_for 15 munge_works || die "munged did not start"

host=$(hostname -s)
node_line=$(timeout 30 slurmd -C | grep -m 1 '^NodeName=' || true)
node=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<< "$node_line")
memory=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<< "$node_line")
[[ -n $node && -n $memory ]] || die "cannot read the node from slurmd -C: $node_line"
cpus=$(nproc)
((cpus >= 8)) || cpus=8
ctld_port=$(free_port) || die "no free TCP port found"
slurmd_port=$(free_port "$ctld_port") || die "no free TCP port found"
cat > "$dir/slurm.conf" << EOF
# Generated by scripts/slurm-localhost.sh: a one-node cluster on localhost.
ClusterName=tesseralocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/slurmd
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
EnforcePartLimits=ALL
GresTypes=gpu
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
FirstJobId=$((1000 + RANDOM % 30000))
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory Gres=gpu:2 State=UNKNOWN
PartitionName=localhost Nodes=$node Default=YES MaxTime=10 State=UP
EOF
printf 'NodeName=%s Name=gpu File=/dev/null\nNodeName=%s Name=gpu File=/dev/zero\n' "$node" "$node" > "$dir/gres.conf"
export SLURM_CONF=$dir/slurm.conf

timeout 900 slurmctld -D > "$dir/log/slurmctld.out" 2>&1 &
pids+=($!)
wait_for 30 scontrol ping || die "slurmctld did not answer within 30 s"
timeout 900 slurmd -D > "$dir/log/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [[ $(timeout 5 sinfo --noheader --nodes="$node" --format=%T) == idle ]]; }
wait_for 30 node_idle || die "node $node not idle within 30 s: $(sinfo --noheader --format='%T %E' 2>&1)"
echo "slurm-localhost: Slurm $(sinfo --version | cut -d' ' -f2) up in $((SECONDS - started)) s" \
  "(node $node, $cpus CPUs, 2 placeholder GPUs, ports $ctld_port/$slurmd_port, $dir)"

# 3. The jobs. The job environment (sbatch's default --export=ALL) gets private PMIx and temporary
# directories: Slurm's PMIx plugin and Open MPI otherwise use /tmp with names from job ids.
export SLURM_PMIX_TMPDIR=$dir/pmix TMPDIR=$dir/jobtmp
jobs=(cpu single multi bad)
declare -A script=([cpu]=cpu [single]=single-node-gpus [multi]=multi-node-gpus [bad]=cpu)
declare -A options=(
  [cpu]="--ntasks=2"
  [single]="--gpus-per-node=2 --ntasks-per-node=2 --cpus-per-task=1"
  [multi]="--nodes=1 --gpus-per-node=2 --ntasks-per-node=2 --cpus-per-task=1"
  [bad]="--ntasks=2")
declare -A arguments=([cpu]="${app_args[*]}" [single]="${app_args[*]}" [multi]="${app_args[*]}" [bad]="--n 1")
declare -A want_rc=([cpu]=0 [single]=0 [multi]=0 [bad]=2)
submitted=$SECONDS
for job in "${jobs[@]}"; do
  # shellcheck disable=SC2086  # options and arguments are lists of words
  (
    set +e
    timeout 180 sbatch --wait --quiet ${options[$job]} --time=5 --job-name="tessera-$job" --chdir="$dir/jobs" \
      --output="$dir/jobs/$job.out" "$repo/slurm/${script[$job]}.sbatch" "$app" ${arguments[$job]} \
      > "$dir/jobs/$job.sbatch" 2>&1 &
    echo $! > "$dir/jobs/$job.timeout-pid"
    wait $!
    echo $? > "$dir/jobs/$job.rc"
  ) &
  waiters+=($!)
done

# Refused at submission, not left pending: more CPUs than the partition has.
if refusal=$(timeout 20 sbatch --ntasks=$((cpus * 4)) "$repo/slurm/cpu.sbatch" "$app" 2>&1); then
  die "an over-large request was accepted instead of refused: $refusal"
fi
echo "slurm-localhost: sbatch --ntasks=$((cpus * 4)) refused at once: $refusal"

for pid in "${waiters[@]}"; do wait "$pid"; done
waiters=()
echo "slurm-localhost: 4 jobs done in $((SECONDS - submitted)) s"

# 4. Checks, then the output of every job.
failures=()
for job in "${jobs[@]}"; do
  rc=$(cat "$dir/jobs/$job.rc")
  output=$(cat "$dir/jobs/$job.out" 2> /dev/null || true)
  echo
  echo "=== sbatch --wait ${options[$job]} slurm/${script[$job]}.sbatch tessera-heat ${arguments[$job]}:" \
    "exit code $rc (expected ${want_rc[$job]}) ==="
  cat "$dir/jobs/$job.sbatch"
  echo "$output"
  [[ $rc == "${want_rc[$job]}" ]] || failures+=("$job: sbatch --wait exit code $rc, expected ${want_rc[$job]}")
  if [[ ${want_rc[$job]} == 0 ]]; then
    grep -qxF "$checksum" <<< "$output" || failures+=("$job: no line '$checksum' in the job's output")
    grep -qE 'ranks=2( |$)' <<< "$output" || failures+=("$job: the application did not run on 2 ranks")
  fi
done
echo
((${#failures[@]} == 0)) || die "$(printf '\n  %s' "${failures[@]}")"
passed=1
echo "slurm-localhost: PASSED in $((SECONDS - started)) s (4 jobs, 1 refusal)"
