#!/usr/bin/env bash
# scripts/colocation-tried and scripts/scaling-tried score the models they try beside dlsim's
# defaults; their first rows reimplement the defaults, so those rows must equal what `dlsim
# calibrate` prints for the shipped fits (the co-location error per device type, and the scaling
# model's held-out median per application), or the tried models' figures are not comparable.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dlsim=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$root"

# "| K80 | 589 | 10.2% | 25.9% |" -> "10.2%/25.9%", in the order K80, P100, V100, all
want=$("$dlsim" calibrate | sed -n '/^| type/,/^| all/p' |
  awk -F'|' 'NR > 2 { gsub(/ /, ""); printf "%s/%s ", $4, $5 }')
got=$(scripts/colocation-tried --default-only | grep '^| linear base ' |
  awk -F'|' '{ for (i = 3; i <= 6; i++) { gsub(/ /, "", $i); printf "%s ", $i } }')
[ -n "$want" ] || fail "no error table in the output of dlsim calibrate"
[ "$want" = "$got" ] || fail "colocation-tried's default row '$got' differs from dlsim calibrate's '$want'"

# the shipped (first) table of dlsim calibrate --scaling: the held-out median is column 10
want=$("$dlsim" calibrate --scaling |
  awk -F'|' '/^\| application/ { n++ } n == 1 && /^\| [a-z]/ && !/application/ {
    gsub(/ /, "", $10); printf "%s ", $10 }')
got=$(scripts/scaling-tried --default-only | grep '^| bandwidth ' |
  awk -F'|' '{ for (i = 4; i < NF; i++) { gsub(/ /, "", $i); printf "%s ", $i } }')
[ -n "$want" ] || fail "no scaling table in the output of dlsim calibrate --scaling"
[ "$want" = "$got" ] || fail "scaling-tried's default row '$got' differs from dlsim calibrate's '$want'"
echo "tried scripts: default rows equal dlsim calibrate's ($got)"
