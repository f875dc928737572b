#!/usr/bin/env bash
# `sift serve` under load, on loopback: wrk with CONNECTIONS connections for SECONDS seconds
# searching the cities catalog (every keystroke of the benchmark's queries, as the search page
# sends them), once alone and once while a second client edits (add, change, delete, one after
# another, with the token). Prints requests/s, latency percentiles, errors and the editor's
# figures; the server must answer every request with 200 and every edit with 201/200/204.
#
#   Benchmarks/serve-load.sh [cities.sqlite | cities.jsonl] [seconds] [connections]
#
# The server keeps each catalog's last searches to refine the next keystroke from (and to
# answer a repeated one); the last run turns that off (--recent-searches 0), so every search
# scans from scratch.
#
# A .jsonl is imported first (into a temporary catalog); a .sqlite is copied (with its index
# file), so the edits never touch it. Needs a release build of sift with the Server trait (built
# when missing), wrk, curl and jq (installed with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
source=${1:-cities.sqlite}
seconds=${2:-30}
connections=${3:-16}
[ -f "$source" ] || { echo "no $source: build the corpus with Scripts/make-cities" >&2; exit 2; }
for tool in wrk curl jq; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null; }
done
# SIFT=PATH runs another build (an earlier one, to compare in the same session); LIMIT the page
# size; EXTRA more parameters for every search (EXTRA='&sort=population:desc'); QUERIES the
# query files typed (by default Benchmarks/queries/cities.txt and cities-misspelt.txt).
# AUTH: what every search carries — none, key (a search key of its own), tenant (a tenant token
# of that key with the filter TENANT_FILTER, by default one every city passes) or admin (the
# token file's token): what keys cost per request. ONLY=searches runs the first run alone,
# ONLY=editing the second (searches while a client edits);
# SERVE_OPTIONS more options for sift serve (SERVE_OPTIONS='--request-timeout 0').
# POSTGRES=postgresql://…?catalog=cities serves that catalog instead of the file: a node with its
# local copy in the run's folder (Benchmarks/nodes-load.sh sets it up beside a .sqlite run).
sift=${SIFT:-.build/release/sift}
auth=${AUTH:-none}
tenant_filter=${TENANT_FILTER:--country:ZZ}
[ -x "$sift" ] || swift build -c release --product sift --traits Server >/dev/null
export LIMIT=${LIMIT:-20}

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

catalog="$work/cities.sqlite"
if [ -n "${POSTGRES:-}" ]; then
  catalog=$POSTGRES
  SERVE_OPTIONS="${SERVE_OPTIONS:-} --cache $work/cache"
else case "$source" in
  *.jsonl)
    "$sift" import "$source" --catalog "$catalog" --title name --text alternates \
      --number population --category country --id id >/dev/null 2>&1 ;;
  *)
    cp "$source" "$catalog"
    # Its index file too, when it has one (else the server builds the index on start).
    [ -f "$source-index" ] && cp "$source-index" "$catalog-index" ;;
esac; fi
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
echo "$token" >"$work/token"

# Each keystroke of every benchmark query, URL-encoded, as the page would send it.
# QUERIES: other query files (QUERIES=Benchmarks/queries/cities-either.txt).
# shellcheck disable=SC2086
python3 - "$work/paths.lua" ${QUERIES:-Benchmarks/queries/cities.txt Benchmarks/queries/cities-misspelt.txt} <<'PYTHON'
import os, sys, urllib.parse
paths = []
limit = os.environ["LIMIT"]
extra = os.environ.get("EXTRA", "")
for name in sys.argv[2:]:
    for query in open(name, encoding="utf-8").read().split("\n"):
        for end in range(1, len(query) + 1):
            typed = query[:end]
            if typed.endswith(" "):
                continue
            paths.append(f"/catalogs/cities/search?limit={limit}&facets=1{extra}&q=" + urllib.parse.quote(typed))
with open(sys.argv[1], "w") as out:
    out.write("paths = {\n" + "".join(f'  "{p}",\n' for p in paths) + "}\n")
print(f"{len(paths)} keystrokes", file=sys.stderr)
PYTHON

cat >"$work/load.lua" <<'LUA'
dofile(os.getenv("PATHS"))
local counter = 0
-- Each connection starts at another place in the list.
function setup(thread) thread:set("offset", math.random(#paths)) end
local bearer = os.getenv("BEARER") or ""
if bearer ~= "" then wrk.headers["Authorization"] = "Bearer " .. bearer end
function request()
  counter = counter + 1
  return wrk.format("GET", paths[(counter + offset) % #paths + 1])
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d seconds=%.1f rps=%.0f p50=%.2f p90=%.2f p99=%.2f max=%.2f errors=%d non2xx=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, e.connect + e.read + e.write + e.timeout, e.status))
end
LUA

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
# Starts the server with extra options, waits until it answers, and warms it: the near-spelling
# dictionaries and trigrams are built after the start, then 5 s of the same load.
keys=()
[ "$auth" = none ] || keys=(--keys "$work/keys.json")
start_server() {
  # shellcheck disable=SC2086
  "$sift" serve --catalog "$catalog" --port "$port" --token-file "$work/token" "${keys[@]}" ${SERVE_OPTIONS:-} "$@" 2>"$work/serve.log" &
  server_pid=$!
  for _ in $(seq 1 1200); do curl -sf "$base/catalogs" >/dev/null && break; sleep 0.1; done
  curl -sf "$base/catalogs" >/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 5
  PATHS="$work/paths.lua" BEARER="$bearer" wrk -t 2 -c "$connections" -d 5s -s "$work/load.lua" "$base" >/dev/null
}
stop_server() {
  kill "$server_pid" && wait "$server_pid" && echo "SIGTERM: exit 0"
  server_pid=
}
bearer=
case "$auth" in
  none) ;;
  admin) bearer=$token ;;
  key | tenant)
    key=$("$sift" keys create --keys "$work/keys.json" --catalog cities --action search 2>/dev/null)
    bearer=$key
    if [ "$auth" = tenant ]; then
      bearer=$("$sift" keys token --keys "$work/keys.json" --key "$key" --catalog cities \
        --filter="$tenant_filter" --expires-in 86400)
    fi ;;
  *) echo "AUTH must be none, key, tenant or admin, not $auth" >&2; exit 2 ;;
esac
export BEARER=$bearer
start_server
items=$(curl -s "$base/catalogs" | jq '.catalogs[0].items')
keystrokes=$(grep -c '"/catalogs' "$work/paths.lua")
echo "sift serve on $items cities, $keystrokes keystrokes in rotation, $connections connections, ${seconds}s; $(nproc) cores; AUTH=$auth"

# The editor: add an item, change it, delete it, again and again, until told to stop; one line
# per edit: status and seconds taken. One process on one kept-alive connection, as an app's
# backend would edit (a curl and a jq per edit cost the 2 cores more than the edits did).
editor() {
  python3 - "$base" "$token" "$work/stop" >>"$work/edits" <<'PYTHON'
import http.client, json, os, sys, time, urllib.parse
base, token, stop = sys.argv[1:4]
url = urllib.parse.urlparse(base)
connection = http.client.HTTPConnection(url.hostname, url.port)
headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
def edit(method, path, body=None):
    started = time.perf_counter()
    connection.request(method, path, body=json.dumps(body) if body is not None else None,
                       headers=headers)
    response = connection.getresponse()
    answer = response.read()
    print(response.status, f"{time.perf_counter() - started:.6f}", flush=True)
    return response.status, answer
n = 0
while not os.path.exists(stop):
    n += 1
    status, answer = edit("POST", "/catalogs/cities/items", {
        "name": f"Loadtown {n}", "alternates": [f"Edit {n}"], "population": n, "country": "ZZ"})
    if status != 201:
        continue
    item = json.loads(answer)["id"]
    edit("PUT", f"/catalogs/cities/items/{item}",
         {"name": f"Loadtown {n} changed", "population": n + 1, "country": "ZZ"})
    edit("DELETE", f"/catalogs/cities/items/{item}")
PYTHON
}

run() {
  PATHS="$work/paths.lua" wrk -t 2 -c "$connections" -d "${seconds}s" --timeout 10s -s "$work/load.lua" "$base" \
    | grep '^RESULT' | sed "s/^RESULT/$1/"
}

[ "${ONLY:-}" = editing ] || run "searches only:        "
[ "${ONLY:-}" = searches ] && { stop_server; exit 0; }
: >"$work/edits"
editor &
editor_pid=$!
run "searches while editing:"
touch "$work/stop"
wait "$editor_pid"
sort -n -k2 "$work/edits" | awk '
  { n++; if ($1 !~ /^(200|201|204)$/) bad++; t[n] = $2 * 1000 }
  END {
    printf "editor: %d edits (%.1f/s), %d not 2xx, p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
      n, n / '"$seconds"', bad, t[int(n * 0.5) + 1], t[int(n * 0.99) + 1], t[n]
  }'
# Nothing of the edits is left, and the server still answers.
left=$(curl -s "$base/catalogs/cities/search?q=%22loadtown%22&limit=0&typos=off" | jq .matched)
echo "items named Loadtown left after the editor: $left"
stop_server
[ "${ONLY:-}" = editing ] && exit 0

# Every search from scratch: nothing remembered to refine from or to repeat.
rm -f "$work/stop"
start_server --recent-searches 0
run "searches only, nothing remembered:"
stop_server
