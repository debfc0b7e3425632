#!/usr/bin/env bash
# scripts/dlsim_results.py and scripts/paper-table on a real sweep: results.csv loads with
# pandas.read_csv into unique, typed columns, and the table's means and normalized values agree
# with the runs' own summary.json files. Skipped (77) without python3-pandas.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dlsim=$1
python=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import pandas' 2>/dev/null; then python=$p; break; fi
done
[ -n "$python" ] || { echo "python3-pandas is not installed (scripts/setup installs it): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$tmp/spec.yaml" <<YAML
experiment: $root/configs/experiments/default.yaml
grid:
  policy.name: [fifo, srtf]
  seed: [1, 2]
  cluster.nodes.0.count: [3]
YAML
(cd "$root" && "$dlsim" sweep "$tmp/spec.yaml" --out "$tmp/sweep" --jobs 2 >/dev/null)

PYTHONPATH="$root/scripts" "$python" - "$tmp/sweep" <<'PY' || fail "loader"
import glob, json, os, sys
import pandas as pd
import dlsim_results as dr
sweep_dir = sys.argv[1]
raw = pd.read_csv(os.path.join(sweep_dir, "results.csv"))  # as it is, no options
assert not raw.columns.duplicated().any(), list(raw.columns)
assert len(raw) == 4, len(raw)
for col in ("seed", "jobs", "finished"):
    assert pd.api.types.is_integer_dtype(raw[col]), (col, raw[col].dtype)
for col in ("jct_mean_s", "gpu_util_alloc", "util_by_kind.gpu.alloc", "fairness.jain_user_slowdown"):
    assert pd.api.types.is_float_dtype(raw[col]), (col, raw[col].dtype)
assert not any(raw[c].astype(str).str.startswith("{").any() for c in raw.columns)
s = dr.read_sweep(sweep_dir)
assert (s.status == "ok").all() and (s.error == "").all()
# Every row agrees with its run's summary.json, nested values included.
for _, row in s.iterrows():
    summary = dr.read_summary(os.path.join(sweep_dir, "runs", row.run))
    assert summary["jct_mean_s"] == row["jct_mean_s"]
    assert summary["util_by_kind.gpu.alloc"] == row["util_by_kind.gpu.alloc"]
    assert summary["seed"] == row["seed"]
jobs = dr.read_jobs(os.path.join(sweep_dir, "runs", s.run[0]))
assert len(jobs) == 500 and jobs.id.dtype == object
# 95% CI by hand: 10, 12, 14: mean 12, s = 2, t(0.975, 2) = 4.303: 4.303 * 2 / sqrt(3) = 4.9687.
m, ci = dr.mean_ci95([10, 12, 14])
assert m == 12 and abs(ci - 4.96867) < 1e-4, (m, ci)
PY

table=$(PYTHONPATH="$root/scripts" "$python" "$root/scripts/paper-table" "$tmp/sweep" --format csv \
  --metrics jct_mean_s)
echo "$table" | head -1 | grep -qx 'policy,runs,jct_mean_s,jct_mean_s_ci95,jct_mean_s_norm' ||
  fail "header: $table"
# The expected values straight from the runs' summary.json files (mean over the two seeds).
expect=$("$python" - "$tmp/sweep" <<'PY'
import glob, json, sys
by = {}
for f in sorted(glob.glob(sys.argv[1] + "/runs/*/summary.json")):
    s = json.load(open(f))
    by.setdefault(s["policy"], []).append(s["jct_mean_s"])
mean = {p: sum(v) / len(v) for p, v in by.items()}
print(f"{mean['fifo']:.6f} {mean['srtf']:.6f} {mean['srtf'] / mean['fifo']:.6f}")
PY
)
printf '%s\n' "$table" >"$tmp/table.csv"
got=$("$python" - "$tmp/table.csv" <<'PY'
import csv, sys
rows = {r["policy"]: r for r in csv.DictReader(open(sys.argv[1]))}
f, s = rows["fifo"], rows["srtf"]
assert f["runs"] == "2" and s["runs"] == "2", rows
assert abs(float(f["jct_mean_s_norm"]) - 1) < 1e-12
fj, sj, sn = float(f["jct_mean_s"]), float(s["jct_mean_s"]), float(s["jct_mean_s_norm"])
print(f"{fj:.6f} {sj:.6f} {sn:.6f}")
PY
)
[ "$got" = "$expect" ] || fail "paper-table $got, summaries $expect"
for format in markdown latex; do
  PYTHONPATH="$root/scripts" "$python" "$root/scripts/paper-table" "$tmp/sweep" --format $format \
    >"$tmp/out.$format" || fail "--format $format"
done
grep -q '^| srtf | 2 | ' "$tmp/out.markdown" || fail "markdown: $(cat "$tmp/out.markdown")"
grep -q 'jct\\_mean\\_s / fifo' "$tmp/out.latex" || fail "latex: $(cat "$tmp/out.latex")"
echo ok
