#!/usr/bin/env bash
# scripts/plot-sweep's aggregation (OUT = -): means and 95% confidence intervals by hand, rows
# not ok left out, and a non-numeric x refused with exit 1 (it used to plot at x = 0, exit 0).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

printf 'run,status,policy,rate,jct_mean_s\nr1,ok,fifo,10,100\nr2,ok,fifo,10,110\nr3,ok,fifo,10,120\nr4,ok,fifo,20,200\nr5,failed,fifo,20,999\nr6,ok,srtf,10,50\n' >"$tmp/res.csv"
out=$("$root/scripts/plot-sweep" "$tmp/res.csv" jct_mean_s rate -)
# fifo at 10: 100, 110, 120: mean 110, s = 10, n = 3, t(0.975, 2) = 4.303:
# ci = 4.303 * 10 / sqrt(3) = 24.84338. At 20: one ok row (the failed 999 is left out).
echo "$out" | grep -qx '10 110 24.84338208 10 3' || fail "fifo at 10: $out"
echo "$out" | grep -qx '20 200 0 0 1' || fail "fifo at 20: $out"
echo "$out" | grep -qx '10 50 0 0 1' || fail "srtf at 10: $out"

printf 'run,status,policy,rate,jct_mean_s\nr1,ok,fifo,low,100\n' >"$tmp/bad.csv"
if err=$("$root/scripts/plot-sweep" "$tmp/bad.csv" jct_mean_s rate - 2>&1); then
  fail "non-numeric x accepted: $err"
fi
echo "$err" | grep -q 'bad.csv:2: rate is "low", not a number' || fail "message: $err"
echo ok
