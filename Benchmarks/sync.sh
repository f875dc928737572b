#!/usr/bin/env bash
# An offline copy of the cities that follows a server: the first `sift sync` of the served
# catalog (time, peak memory, bytes on the wire), a sync after 50 changes, and beside them the
# catalog downloaded whole as files (the .sqlite and its index, over the same loopback) and the
# feed alone (every snapshot page read and thrown away: the server's and the wire's share).
# The copy's first search right after the first sync (which saved the copy's index), and two
# after the changes were synced (the index brought up to date from the copy's log on opening).
#
#   Benchmarks/sync.sh cities.jsonl [changes]
#
# Needs a release build of sift with the Server trait (built when missing), curl, jq and GNU
# time (/usr/bin/time; apt-get install time when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
source=${1:?usage: Benchmarks/sync.sh cities.jsonl [changes]}
changes=${2:-50}
sift=${SIFT:-.build/release/sift}
[ -x "$sift" ] || swift build -c release --product sift --traits Server >/dev/null
sift=$(cd "$(dirname "$sift")" && pwd)/$(basename "$sift")
for tool in curl jq; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null; }
done
[ -x /usr/bin/time ] || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

"$sift" import "$source" --catalog "$work/cities.sqlite" --title name --text alternates \
  --number population --category country --id id --rank-by population 2>/dev/null
echo secret >"$work/admin.key"
port=$(free_port)
"$sift" serve --catalog "$work/cities.sqlite" --port "$port" --token-file "$work/admin.key" \
  2>"$work/serve.log" &
pids+=($!)
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do sleep 0.2; done
url="http://127.0.0.1:$port/catalogs/cities"
items=$(curl -s "$url/search?q=&limit=0" | jq .total)
echo "serving $items cities on port $port ($(nproc) cores)"

# One sync, timed: its report as JSON with the peak memory added.
timed_sync() {
  /usr/bin/time -f '%M' -o "$work/peak" "$sift" sync "$url" --catalog "$1" --json >"$work/report"
  jq -c --argjson peak "$(cat "$work/peak")" \
    '{seconds, bytes, items, added, changed, deleted, version, peak_mb: ($peak / 1024 | floor)}' \
    "$work/report"
}

# One `sift search` of the copy, timed, with its peak memory.
timed_search() {
  /usr/bin/time -f "$1: %e s, peak %M KB" "$sift" search --catalog "$work/copy.sqlite" \
    --limit 1 san francisco 2>&1 >/dev/null | grep -v "^Items\|^sift: "
}

echo "== first sync (the whole catalog)"
timed_sync "$work/copy.sqlite"
echo "== the copy's first search"
timed_search "first search"

echo "== the feed alone: every snapshot page read and dropped"
start=$(date +%s.%N)
after=""
bytes=0
while :; do
  curl -s -D "$work/headers" -o "$work/page" "$url/snapshot?limit=2000${after:+&after=$after}"
  bytes=$((bytes + $(stat -c %s "$work/page")))
  after=$(tr -d '\r' <"$work/headers" | awk -F': ' 'tolower($1) == "sift-next" {print $2}')
  [ -n "$after" ] || break
done
echo "{\"seconds\": $(echo "$(date +%s.%N) - $start" | bc), \"bytes\": $bytes}"

echo "== the catalog downloaded whole as files (cities.sqlite and its index, loopback HTTP)"
fileport=$(free_port)
(cd "$work" && python3 -m http.server "$fileport" --bind 127.0.0.1 >/dev/null 2>&1) &
pids+=($!)
until curl -sf "http://127.0.0.1:$fileport/" >/dev/null; do sleep 0.2; done
start=$(date +%s.%N)
fbytes=0
for file in cities.sqlite cities.sqlite-index; do
  fbytes=$((fbytes + $(curl -s -o "$work/download" -w '%{size_download}' "http://127.0.0.1:$fileport/$file")))
done
echo "{\"seconds\": $(echo "$(date +%s.%N) - $start" | bc), \"bytes\": $fbytes}"

echo "== $changes changes, then a sync"
ids=$(curl -s "$url/search?q=&limit=1000" | jq -r '.results[].id' | shuf -n "$changes" --random-source=<(yes))
n=0
for id in $ids; do
  n=$((n + 1))
  case $((n % 5)) in
    0) curl -s -o /dev/null -X DELETE -H "Authorization: Bearer secret" "$url/items/$id" ;;
    1) curl -s -o /dev/null -X POST -H "Authorization: Bearer secret" "$url/items" \
         -d "{\"name\": \"Newtown $n\", \"country\": \"ZZ\", \"population\": $n}" ;;
    *) curl -s "$url/items/$id" | jq -c '{name: (.name + " Edited"), country, population}' |
         curl -s -o /dev/null -X PUT -H "Authorization: Bearer secret" "$url/items/$id" -d @- ;;
  esac
done
timed_sync "$work/copy.sqlite"
echo "== the same sync again (nothing changed)"
timed_sync "$work/copy.sqlite"

echo "== searches of the copy after the changes were synced"
for round in first second; do timed_search "$round"; done
