#!/usr/bin/env bash
# scripts/dlsim-completion.bash: commands, options read from `dlsim CMD --help`, policy names from
# `dlsim list policies`, option values. Usage: completion_test.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
dlsim=$1
source "$2/scripts/dlsim-completion.bash"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _dlsim; echo "${COMPREPLY[*]}"; }
check() { local want=$1; shift; local got; got=$(complete_words "$dlsim" "$@")
  [ "$got" = "$want" ] || { echo "completion of '$*': got '$got', want '$want'"; exit 1; }; }
check "run" ru
check "table" ta
check "calibrate" cal
check "net-solve" net
check "--policy" run --poli
check "--gantt" plot --gan
check "srtf" run --policy srt
check "on off" run --events o
check "markdown" table --format mark
check "latex" table --format lat
check "pdf" plot --format pd
check "one-column" plot --size one
check "policies placements" list p
echo "completion_test: ok"
