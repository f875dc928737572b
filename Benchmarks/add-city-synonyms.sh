#!/usr/bin/env bash
# Gives a cities catalog the synonyms the benchmarks measure with (Benchmarks/README.md,
# "Either of two and synonyms"): common abbreviations, and old names of a few large cities.
# Several start keystrokes of the benchmark's queries ("saint", "new york", "los angeles").
#
#   Benchmarks/add-city-synonyms.sh CATALOG      # a .sqlite file or a postgresql:// address
set -euo pipefail
catalog=${1:?usage: $0 CATALOG}
sift=${SIFT:-.build/release/sift}
add() { "$sift" synonyms add --catalog "$catalog" "$@" >/dev/null; }
add ny "new york"
add la "los angeles"
add sf "san francisco"
add st saint
add ste sainte
add mt mount
add ft fort
add "saint petersburg" leningrad
add peking beijing
add saigon "ho chi minh"
add bombay --to mumbai
"$sift" synonyms list --catalog "$catalog"
