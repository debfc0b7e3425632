#!/usr/bin/env bash
# cmake --install into a scratch prefix: the installed dlsim runs the bundled default experiment
# from another directory, reading its configs and trace from <prefix>/share/dlsim (not the source
# tree), gives the same summary.json as the build tree's binary, and the man page, completion and
# docs are in place. Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
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
echo "install_test: ok"
