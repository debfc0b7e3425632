#!/usr/bin/env bash
# The external-scheduler protocol end to end (docs/protocol.md): the Python examples give
# jobs.csv byte-identical to the C++ policy of the same name on the default experiment, through
# --policy external:CMD and through `policy: {external: CMD}`; a scheduler that exits, hangs,
# answers with a line that is not JSON or starts a job on a taken device ends the run with
# exit 1, a message naming the instant and the decision, and no result directory.
# Usage: tests/external_policy_test.sh DLSIM
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dlsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

# Parity: the C++ policy, then its Python twin with the same parameters (the C++ policy's
# policy.params are the scheduler's policy.params.options).
parity() { # $1: C++ policy, $2: Python example, $3: parameters (YAML mapping), $4...: more options
  local cpp=$1 py=$2 params=${3:-"{}"}
  shift 2
  [ $# -gt 0 ] && shift
  rm -rf "${tmp:?}/$cpp" "${tmp:?}/$py"
  # Trace warnings to a file, shown only when a run fails.
  "$dlsim" run -q --policy "$cpp" --set "policy.params=$params" "$@" -o "$tmp/$cpp" \
    >/dev/null 2>"$tmp/parity.err" || fail "$cpp: $(cat "$tmp/parity.err")"
  "$dlsim" run -q --policy "external:python3 $root/python/examples/$py" \
    --set "policy.params.options=$params" "$@" -o "$tmp/$py" >/dev/null 2>"$tmp/parity.err" ||
    fail "$py: $(cat "$tmp/parity.err")"
  cmp "$tmp/$cpp/jobs.csv" "$tmp/$py/jobs.csv" || fail "$py $params: jobs.csv differs from $cpp's"
  echo "parity: $py = $cpp $params $*"
}
# Tiresias' 2D-LAS with its defaults (2 queues split at 3,600 GPU-seconds, no guard), then with
# three queues and the starvation guard, and with the running-first order: each preempts (the
# defaults suspend 312 times on this experiment), so the parity covers suspend, resume and
# demotion.
parity tiresias las2d.py
grep -q ',suspend,' "$tmp/tiresias/events.csv" || fail "tiresias suspended nothing"
parity tiresias las2d.py '{thresholds: [1000, 10000], promote_knob: 2}'
parity tiresias las2d.py '{thresholds: [500], promote_knob: 0.5, queue_order: running-first}'
# Three GPU types, Xeon Phi, FPGA and CPU nodes (configs/clusters/hetero.yaml): the capacity of
# each type apart, jobs that may use several types (164 suspends), and spread placement.
parity tiresias las2d.py "{}" --cluster "$root/configs/clusters/hetero.yaml"
parity tiresias las2d.py "{}" --cluster "$root/configs/clusters/hetero.yaml" \
  --set policy.placement=spread
# GPU sharing: gpu-share packs jobs asking for part of a GPU by best fit on the guaranteed
# shares the node states carry. The OpenB excerpt (278 pods on its 1,213-node cluster) has
# 93 packs, 50 of them onto a device another job holds (up to 4 holders on one GPU).
parity gpu-share gpu_share.py "{}" --trace "$root/traces/openb_pod_list_default-excerpt.csv" \
  --format openb --cluster "openb:$root/traces/openb_node_list_gpu_node-excerpt.csv"
grep -q ',pack,' "$tmp/gpu-share/events.csv" || fail "gpu-share packed nothing"
# The bundled fgd-openb experiment (10,836 pods, 4,120 packs, 1,547 onto a held device), when the
# shared OpenB trace is there (its path is relative to the tree); CI requires it.
if [ -f "$root/../shared/traces/alibaba-openb-gpu-v2023/openb_pod_list_default.csv" ]; then
  (cd "$root" && parity gpu-share gpu_share.py "{}" -e configs/experiments/fgd-openb.yaml)
elif [ "${DLSIM_REQUIRE_SHARED_TRACES:-0}" = 1 ]; then
  fail "the shared OpenB trace is missing (DLSIM_REQUIRE_SHARED_TRACES=1)"
else
  echo "skipped: gpu_share.py on fgd-openb (no shared OpenB trace)"
fi
parity fifo fifo.py

# The experiment's own syntax, policy: {external: CMD}.
sed -e "s|^cluster: |cluster: $root/|" -e "s|file: traces/|file: $root/traces/|" \
  -e "s|^policy: .*|policy: {external: \"python3 $root/python/examples/fifo.py\"}|" \
  "$root/configs/experiments/default.yaml" >"$tmp/ext.yaml"
"$dlsim" run -q -e "$tmp/ext.yaml" -o "$tmp/yaml" >/dev/null
cmp "$tmp/fifo/jobs.csv" "$tmp/yaml/jobs.csv" || fail "policy: {external: ...}: jobs.csv differs"
grep -q "command: python3 $root/python/examples/fifo.py" "$tmp/yaml/run.yaml" ||
  fail "run.yaml does not record the command"

# Determinism: the same run again gives the same bytes (summary.json too).
"$dlsim" run -q --policy "external:python3 $root/python/examples/fifo.py" -o "$tmp/again" >/dev/null
cmp "$tmp/fifo.py/summary.json" "$tmp/again/summary.json" || fail "a second run differs"

# A sweep over a scheduler's option (policy.params.options.*): both runs ok, and the option
# reaches the scheduler (at most 4 jobs running at once waits longer than at most 8).
cat >"$tmp/sweep.yaml" <<SPEC
experiment: $root/configs/experiments/default.yaml
set:
  policy.name: "external:python3 $root/python/examples/smallest_first.py"
grid:
  policy.params.options.max_running: [4, 8]
SPEC
"$dlsim" sweep "$tmp/sweep.yaml" --out "$tmp/sweep" -j 2 >/dev/null 2>&1 || fail "sweep failed"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "jct_mean_s") c = i; next }
  $3 != "ok" { bad = 1 } { jct[$2] = $c }
  END { exit (bad || !(jct[4] > jct[8])) }' "$tmp/sweep/results.csv" ||
  fail "sweep: $(cat "$tmp/sweep/results.csv")"
echo "sweep: ok"

# Each broken scheduler: exit 1, the message, and no run directory (so no summary.json).
broken() { # $1: scheduler file, $2: expected part of the message, $3...: more options
  local sched=$1 want=$2
  shift 2
  local status=0
  "$dlsim" run -q --policy "external:python3 $root/python/tests/schedulers/$sched" "$@" \
    -o "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
  [ "$status" = 1 ] || fail "$sched: exit $status, not 1: $(cat "$tmp/stderr")"
  grep -qF -- "$want" "$tmp/stderr" || fail "$sched: message: $(cat "$tmp/stderr")"
  [ ! -e "$tmp/out/summary.json" ] || fail "$sched: summary.json left behind"
  [ ! -e "$tmp/out" ] || fail "$sched: a run directory left behind"
  echo "broken: $sched: $(grep 'dlsim: error' "$tmp/stderr" | cut -c1-160)"
}
# FIFO's decisions on traces/sample.csv: 1 at t=0 (job0 submitted), 2 at 27.961 s (job1), 3 at
# 56.505 s (job2), 4 at 248.505 s (job2, 1 GPU for 192 s, finishes), 5 at 279.807 s (job3):
# the scheduler exits while answering decision 5.
broken exits_mid_run.py "at t=279.807 s (decision 5): the scheduler exited with status 3 without answering the decision 5"
# It sleeps 60 s on decision 3 (t=56.505 s, job2's submission); the timeout is 5 s (under
# 60 s, and long enough for a Python start on a loaded machine).
start=$(date +%s)
broken sleeps.py "at t=56.505 s (decision 3): no answer to the decision 3 within 5 s" \
  --set policy.params.timeout_s=5
[ $(($(date +%s) - start)) -lt 30 ] || fail "sleeps.py: the run waited for the sleeper"
# Job 0 starts on device 0 at t=0; job 1 arrives at 27.961 s and is sent to device 0 too.
broken taken_device.py "at t=27.961 s (decision 2): action '{\"devices\":[0],\"job\":1,\"op\":\"start\"}' refused: policy 'external': job 'job1'"
broken not_json.py "at t=0 s (decision 1): reply is not JSON: 'start job 0 please'"
# Replies that break the protocol: an id out of range, a job not yet submitted (job3 arrives at
# 279.807 s), an unknown action, another protocol version.
broken "reply_once.py '[{\"op\": \"start\", \"job\": 0, \"devices\": [32]}]'" \
  "(decision 1): bad reply" && grep -qF "actions[0].devices[0]: 32 is out of range (at most 31)" "$tmp/stderr" ||
  fail "device 32 of 32: $(cat "$tmp/stderr")"
broken "reply_once.py '[{\"op\": \"start\", \"job\": 3, \"devices\": [1]}]'" \
  "before its submission at 279.807 s (now 0 s)"
broken "reply_once.py '[{\"op\": \"launch\", \"job\": 0}]'" "actions[0].op: unknown action 'launch'"
broken "reply_once.py [] 1" "(hello): speaks protocol 1, dlsim speaks 2"
echo ok
