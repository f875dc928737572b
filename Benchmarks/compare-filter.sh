#!/usr/bin/env bash
# Side by side: `sift filter --exact`, `fzf --filter --exact`, `grep -iF` and the seed
# tutorials' approach, on the same file and queries, alternating (hyperfine runs each query's
# commands in turn). Prints one table of medians and ratios, each tool's peak memory (resident
# set, from GNU time), and what each found.
#
#   Benchmarks/compare-filter.sh [city-names.txt] [runs]
#
# Needs a release build of sift (`swift build -c release`), the seed-approach tool
# (`swift build -c release --package-path Benchmarks --product seed-approach`), and fzf,
# hyperfine and jq (installed with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
names=${1:-city-names.txt}
runs=${2:-10}
[ -f "$names" ] || { echo "no $names: build it with Scripts/make-cities" >&2; exit 2; }
for tool in fzf hyperfine jq; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null; }
done
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
# Peak resident memory of one run of a shell command, in MB (sift and fzf exit 1 when nothing matches).
peak_mb() { { /usr/bin/time -f %M bash -c "$1" 2>&1 >/dev/null || true; } | tail -1 | awk '{printf "%.0f", $1 / 1024}'; }
sift=.build/release/sift
seed=Benchmarks/.build/release/seed-approach
[ -x "$sift" ] || swift build -c release --product sift >/dev/null
[ -x "$seed" ] || swift build -c release --package-path Benchmarks --product seed-approach >/dev/null

results=$(mktemp -d)
out="$results/out"  # a file, not /dev/null: GNU grep stops at the first match when writing to /dev/null
queries=("zzzq" "da nang" "san" "a")
printf '%-10s %9s %9s %9s %14s %12s %9s %8s %8s %14s\n' query sift_ms fzf_ms grep_ms seed_lower_ms seed_fdn_ms fzf/sift sift_MB fzf_MB "Đà Nẵng found"
for query in "${queries[@]}"; do
  slug=$(echo "$query" | tr ' ' _)
  hyperfine -i --runs "$runs" --warmup 1 --style none --export-json "$results/$slug.json" \
    -n sift "$sift filter --exact '$query' < $names > $out" \
    -n fzf "fzf --filter '$query' --exact < $names > $out" \
    -n grep "grep -iF -- '$query' $names > $out" \
    -n seed-lowercased "$seed lowercased '$query' < $names > $out 2>/dev/null" \
    -n seed-foundation "$seed foundation '$query' < $names > $out 2>/dev/null" >/dev/null 2>&1
  median() { jq -r ".results[] | select(.command == \"$1\") | .median * 1000" "$results/$slug.json"; }
  s=$(median sift); f=$(median fzf); g=$(median grep); l=$(median seed-lowercased); d=$(median seed-foundation)
  found=""
  if [ "$query" = "da nang" ]; then
    for tool in sift fzf grep; do
      case $tool in
        sift) found_lines=$($sift filter --exact "$query" < "$names") ;;
        fzf) found_lines=$(fzf --filter "$query" --exact < "$names") ;;
        grep) found_lines=$(grep -iF -- "$query" "$names" || true) ;;
      esac
      echo "$found_lines" | grep -qx 'Đà Nẵng' && found+="$tool " || true
    done
  fi
  sift_mb=$(peak_mb "$sift filter --exact '$query' < $names > $out")
  fzf_mb=$(peak_mb "fzf --filter '$query' --exact < $names > $out")
  printf '%-10s %9.1f %9.1f %9.1f %14.1f %12.1f %8.2fx %8s %8s %14s\n' "$query" "$s" "$f" "$g" "$l" "$d" \
    "$(echo "$f / $s" | bc -l)" "$sift_mb" "$fzf_mb" "${found:--}"
done
echo "(medians of $runs runs, whole commands end to end, $(nproc) cores; seed times include reading the file;"
echo " MB: peak resident set of one run)"
echo
printf '%-10s %12s %12s %10s %12s %12s\n' fuzzy sift_ms fzf_ms fzf/sift sift_found fzf_found
for query in dnang sfco a; do
  hyperfine -i --runs "$runs" --warmup 1 --style none --export-json "$results/fuzzy.json" \
    -n sift "$sift filter --fuzzy '$query' < $names > $out" \
    -n fzf "fzf --filter '$query' < $names > $out" >/dev/null 2>&1
  s=$(jq -r '.results[] | select(.command == "sift") | .median * 1000' "$results/fuzzy.json")
  f=$(jq -r '.results[] | select(.command == "fzf") | .median * 1000' "$results/fuzzy.json")
  printf '%-10s %12.1f %12.1f %9.2fx %12s %12s\n' "$query" "$s" "$f" "$(echo "$f / $s" | bc -l)" \
    "$($sift filter --fuzzy "$query" < "$names" | wc -l)" "$(fzf --filter "$query" < "$names" | wc -l)"
done
rm -rf "$results"
