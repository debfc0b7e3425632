#!/usr/bin/env bash
# cmake --install into a scratch prefix: the installed dlsim runs the bundled default experiment
# from another directory, reading its configs and trace from <prefix>/share/dlsim (not the source
# tree), gives the same summary.json as the build tree's binary, and the man page, completion and
# docs are in place. Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
readme=$(cd "$(dirname "$0")/.." && pwd)/README.md
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cd "$work"
"$prefix/bin/dlsim" run -q -o installed
"$build/dlsim" run -q -o built
cmp installed/summary.json built/summary.json
grep -q "\"path\": \"$prefix/share/dlsim/configs/experiments/default.yaml\"" installed/provenance.json \
  || { echo "install_test: the installed dlsim did not read its own configs:"; grep '"path"' installed/provenance.json; exit 1; }
grep -q "\"path\": \"$prefix/share/dlsim/traces/sample.csv\"" installed/provenance.json
"$prefix/bin/dlsim" version | grep -q "^dlsim [0-9.]* (commit "
test -f "$prefix/share/bash-completion/completions/dlsim"
test -f "$prefix/share/doc/dlsim/README.md" && test -f "$prefix/share/doc/dlsim/outputs.md"
if command -v help2man >/dev/null; then
  grep -q "discrete-event simulator" "$prefix/share/man/man1/dlsim.1"
  grep -q "compare" "$prefix/share/man/man1/dlsim.1"
fi
# The README's tour, line by line as printed there, with the installed binary from this directory.
tour=$(awk '/^## A quick tour/{t=1} t&&/^```sh/{on=1;next} on&&/^```/{exit} on' "$readme")
[ -n "$tour" ] || { echo "install_test: no tour found in README.md"; exit 1; }
tour=${tour//build\/dlsim/\"$prefix\/bin\/dlsim\"}
tour=${tour//\/tmp\/trace.csv/trace.csv}
if ! (set -e; eval "$tour") >tour.log 2>&1; then
  echo "install_test: the README tour failed from $work with the installed binary:"; tail -5 tour.log; exit 1
fi
test -f results/srtf/summary.json && test -f trace.csv && test -s tour.log || { echo "install_test: the tour left no results"; exit 1; }
echo "install_test: ok"
