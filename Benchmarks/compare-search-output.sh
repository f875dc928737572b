#!/usr/bin/env bash
# Runs the same `sift search` invocations with two builds and reports every one whose output,
# standard error or exit status differs: the check that a refactoring changed no byte.
#
#   Benchmarks/compare-search-output.sh OLD_SIFT NEW_SIFT CITIES_CATALOG
#
# CITIES_CATALOG: a cities catalog (.sqlite) both builds can open (Benchmarks/README.md says how
# to make one). The built-in catalogs are copied into a scratch data directory.
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 OLD_SIFT NEW_SIFT CITIES_CATALOG" >&2
  exit 2
fi
old=$1 new=$2 cities=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export SIFT_DATA_DIR=$scratch/data
runs=0 differ=0

compare() {
  runs=$((runs + 1))
  "$old" search "$@" >"$scratch/old.out" 2>"$scratch/old.err"
  local old_status=$?
  "$new" search "$@" >"$scratch/new.out" 2>"$scratch/new.err"
  local new_status=$?
  if ! cmp -s "$scratch/old.out" "$scratch/new.out" || ! cmp -s "$scratch/old.err" "$scratch/new.err" \
    || [ "$old_status" != "$new_status" ]; then
    differ=$((differ + 1))
    echo "differs: sift search $* (exit $old_status, then $new_status)"
    diff "$scratch/old.err" "$scratch/new.err" | head -5
    diff "$scratch/old.out" "$scratch/new.out" | head -5
  fi
}

for query in rose "rose 2010" "-rose price:<30" "" zzzz "#fun" "red #" chocolat "grean tea"; do
  for options in "" --json --explain --facets "--json --explain --facets" "--limit 2" \
    "--limit 0" "--typos off"; do
    # shellcheck disable=SC2086
    compare --catalog products $options -- $query
  done
done
for query in "da nang" sain saint a rio "new york" hzhou coroa "san f" ber zzqx tokyo; do
  for options in "--limit 5" "--limit 1500 --json" "--limit 3 --explain" \
    "--limit 2000 --explain" "--facets --limit 4" "--typos off --limit 5"; do
    # shellcheck disable=SC2086
    compare --catalog "$cities" $options $query
  done
done
compare --catalog candies --scope Chocolate
compare --catalog candies --scope Nope
compare --catalog media --token category:Movies --token 'year:>=2010' --json
compare --catalog media --token bogus:1 x
compare --catalog nope x
compare --catalog /nonexistent.sqlite x
printf 'da nang\nsaint\nrio\n\nzzqx\n' >"$scratch/queries.txt"
compare --catalog "$cities" --queries "$scratch/queries.txt" --limit 3
compare --catalog "$cities" --queries "$scratch/queries.txt" --limit 3 --json
compare --catalog products --queries "$scratch/queries.txt"
compare --catalog candies --scope Nope --queries "$scratch/queries.txt"
compare --catalog "$cities" --limit 1000 a
compare --catalog "$cities" --limit 2500 b
echo "$runs invocations, $differ differ"
[ "$differ" -eq 0 ]
