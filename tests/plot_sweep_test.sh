#!/usr/bin/env bash
# scripts/plot-sweep's aggregation (OUT = -): means and 95% confidence intervals by hand, rows
# not ok left out, and a non-numeric x refused with exit 1 (not plotted at x = 0 with exit 0).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

printf 'run,status,policy,rate,jct_mean_s\nr1,ok,fifo,10,100\nr2,ok,fifo,10,110\nr3,ok,fifo,10,120\nr4,ok,fifo,20,200\nr5,failed,fifo,20,999\nr6,ok,srtf,10,50\n' >"$tmp/res.csv"
out=$("$root/scripts/plot-sweep" "$tmp/res.csv" jct_mean_s rate -)
# fifo at 10: 100, 110, 120: mean 110, s = 10, n = 3, t(0.975, 2) = 4.303:
# ci = 4.303 * 10 / sqrt(3) = 24.84338. At 20: one ok row (the failed 999 is left out).
echo "$out" | grep -qx '10 110 24.84338208 10 3 85.15661792 134.8433821' || fail "fifo at 10: $out"
echo "$out" | grep -qx '20 200 0 0 1 200 200' || fail "fifo at 20: $out"
echo "$out" | grep -qx '10 50 0 0 1 50 50' || fail "srtf at 10: $out"

printf 'run,status,policy,rate,jct_mean_s\nr1,ok,fifo,low,100\n' >"$tmp/bad.csv"
if err=$("$root/scripts/plot-sweep" "$tmp/bad.csv" jct_mean_s rate - 2>&1); then
  fail "non-numeric x accepted: $err"
fi
echo "$err" | grep -q 'bad.csv:2: rate is "low", not a number' || fail "message: $err"
# The interval stays in the metric's domain. A time: 10, 100, 1000 s: mean 370, squared
# deviations 129600 + 72900 + 396900 = 599400, s = sqrt(599400 / 2) = 547.449, half-width
# 4.303 x 547.449 / sqrt(3) = 1360.05; 370 - 1360.05 < 0 is cut to 0. A utilization:
# 0.5, 0.9, 0.95: mean 0.78333, s = 0.24664, half-width 0.61274: at most 1, at least 0.17059.
printf 'run,status,policy,rate,jct_mean_s,gpu_util_alloc\nr1,ok,fifo,1,10,0.5\nr2,ok,fifo,1,100,0.9\nr3,ok,fifo,1,1000,0.95\n' >"$tmp/dom.csv"
out=$("$root/scripts/plot-sweep" "$tmp/dom.csv" jct_mean_s rate -)
echo "$out" | grep -qE '^1 370 1360\.04[0-9]+ 547\.44[0-9]+ 3 0 1730\.04[0-9]+$' || fail "time interval: $out"
out=$("$root/scripts/plot-sweep" "$tmp/dom.csv" gpu_util_alloc rate -)
echo "$out" | grep -qE '^1 0\.78333[0-9]* 0\.6127[0-9]* 0\.2466[0-9]* 3 0\.1705[0-9]* 1$' || fail "utilization interval: $out"

# Rendered (with gnuplot): the axes in words and units, the title whole.
if command -v gnuplot >/dev/null; then
  printf 'run,status,policy,trace.generate.arrival_rate,jct_mean_s\nr1,ok,fifo,10,7200\nr2,ok,fifo,20,14400\n' >"$tmp/w.csv"
  "$root/scripts/plot-sweep" "$tmp/w.csv" jct_mean_s trace.generate.arrival_rate "$tmp/w.svg" 2>/dev/null
  grep -q 'mean JCT (h)' "$tmp/w.svg" || fail "y label"
  grep -q 'arrival rate (jobs per hour)' "$tmp/w.svg" || fail "x label"
  grep -q 'mean JCT (h) against arrival rate (jobs per hour)' "$tmp/w.svg" || fail "title"
fi
echo ok
