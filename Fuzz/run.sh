#!/usr/bin/env bash
# Builds a libFuzzer target (swiftc -sanitize=fuzzer,address) and runs it for a given time.
#
#   Fuzz/run.sh query-matching 900     # the query parser and matcher, 15 minutes
#   Fuzz/run.sh folding 900            # folding, validation, highlighting
#   Fuzz/run.sh all 1800               # both, the time split between them
#   Fuzz/run.sh folding 0 FILE...      # replay inputs (a finding) without fuzzing
#
# Seeds come from Fuzz/Corpus/TARGET; inputs that reach new code are kept in
# .build/fuzz/corpus/TARGET, findings in .build/fuzz/findings. Extra arguments go to libFuzzer.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:?usage: Fuzz/run.sh query-matching|folding|all SECONDS [libFuzzer args or files]}
seconds=${2:-60}
shift $(($# >= 2 ? 2 : $#))

if [[ $target == all ]]; then
  half=$((seconds / 2))
  "$0" query-matching "$half" "$@"
  "$0" folding "$((seconds - half))" "$@"
  exit
fi

case $target in
  query-matching) entry=QueryMatching ;;
  folding) entry=Folding ;;
  *) echo "run.sh: unknown target '$target' (query-matching, folding, all)" >&2; exit 2 ;;
esac

build=.build/fuzz
# Swift's own crash backtracer and ASan fight over the crash; libFuzzer reports it.
export SWIFT_BACKTRACE=enable=no
mkdir -p "$build/corpus/$target" "$build/findings"
# The tests' naive reference joins the engine's module, so its @testable import goes.
sed '/^@testable import Sift$/d' Tests/SiftTests/Support/ReferenceMatcher.swift \
  >"$build/ReferenceMatcher.swift"

echo "building $target…" >&2
mapfile -t sources < <(find Sources/Sift -name '*.swift' | sort)
# gold warns about every ASan helper symbol it cannot export; they are noise.
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name Sift -package-name sift \
  "${sources[@]}" "$build/ReferenceMatcher.swift" Fuzz/Support/*.swift "Fuzz/Targets/$entry.swift" \
  -o "$build/$target" 2> >(grep -v "Cannot export local symbol" >&2)

dictionary=()
[[ -f Fuzz/$target.dict ]] && dictionary=(-dict="Fuzz/$target.dict")

if [[ $seconds == 0 ]]; then
  exec "$build/$target" "$@"
fi
exec "$build/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$build/findings/$target-" -print_final_stats=1 \
  "${dictionary[@]}" "$@" "$build/corpus/$target" "Fuzz/Corpus/$target"
