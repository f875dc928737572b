#!/usr/bin/env bash
# The cities served from a .sqlite file and from PostgreSQL, side by side in one run: the same
# load (Benchmarks/serve-load.sh: 16 connections typing real and misspelt names, alone and
# beside an editor) on a `sift serve` of the file and on a node of the catalog in PostgreSQL;
# then what only nodes have: how soon a second node shows an edit made on the first, how fast a
# node restarts from its local copy, and a cold start that loads the catalog whole.
#
#   Benchmarks/nodes-load.sh cities.jsonl [seconds] [connections]
#
# PARTS=load or PARTS=nodes runs one half (both by default).
# PostgreSQL runs in the run's folder with fsync on (its default), started with the machine's
# initdb and pg_ctl (apt-get install postgresql when missing). Needs a release build of sift
# with the Server trait (built when missing), wrk, curl, jq.
set -euo pipefail
cd "$(dirname "$0")/.."
source=${1:?usage: Benchmarks/nodes-load.sh cities.jsonl [seconds] [connections]}
seconds=${2:-30}
connections=${3:-16}
sift=${SIFT:-.build/release/sift}
[ -x "$sift" ] || swift build -c release --product sift --traits Server >/dev/null
sift=$(cd "$(dirname "$sift")" && pwd)/$(basename "$sift")
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ]; then
  apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
for tool in wrk curl jq; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool" >/dev/null; }
done

work=$(mktemp -d)
chmod 755 "$work"
as_owner() { if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$1"; else sh -c "$1"; fi; }
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  as_owner "$bin/pg_ctl -D $work/pg -m fast -w stop" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir "$work/pg" && [ "$(id -u)" = 0 ] && chown postgres "$work/pg"
as_owner "$bin/initdb -D $work/pg -E UTF8 --locale=C -A trust -U postgres" >/dev/null
pgport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_owner "$bin/pg_ctl -D $work/pg -w -l $work/pg/log -o '-p $pgport -k $work/pg -c listen_addresses=127.0.0.1' start" >/dev/null
address="postgresql://postgres@127.0.0.1:$pgport/postgres?catalog=cities"
import=(--title name --text alternates --number population --category country --id id --rank-by population)
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on port $pgport, fsync $(as_owner "$bin/psql -h 127.0.0.1 -p $pgport -U postgres -tAc 'show fsync'")"
start=$(date +%s.%N)
"$sift" import "$source" --catalog "$work/cities.sqlite" "${import[@]}" 2>/dev/null
echo "imported into cities.sqlite in $(echo "$(date +%s.%N) - $start" | bc) s"
start=$(date +%s.%N)
"$sift" import "$source" --catalog "$address" "${import[@]}" 2>/dev/null
echo "imported into PostgreSQL in $(echo "$(date +%s.%N) - $start" | bc) s"

parts=${PARTS:-load,nodes}
if [[ $parts == *load* ]]; then
  echo "== .sqlite file"
  Benchmarks/serve-load.sh "$work/cities.sqlite" "$seconds" "$connections" 2>&1 | grep -v keystrokes
  echo "== PostgreSQL node"
  POSTGRES=$address Benchmarks/serve-load.sh "$work/cities.sqlite" "$seconds" "$connections" 2>&1 | grep -v keystrokes
fi
[[ $parts == *nodes* ]] || exit 0
echo "== two nodes"

# Two nodes: edits on the first, the second's version polled every millisecond.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
token=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
echo "$token" >"$work/token"
# Starts a node on port $1 with its copy in $2; sets `ready` to the seconds until it answered.
serve() {
  local began
  began=$(date +%s.%N)
  "$sift" serve --catalog "$address" --port "$1" --cache "$2" --token-file "$work/token" \
    >/dev/null 2>>"$work/nodes.log" &
  pids+=($!)
  for _ in $(seq 1 6000); do curl -sf "http://127.0.0.1:$1/catalogs" >/dev/null && break; sleep 0.01; done
  ready=$(echo "$(date +%s.%N) - $began" | bc)
}
first=$(free_port)
second=$(free_port)
serve "$first" "$work/cache1"
echo "cold start (the catalog loaded whole into a new local copy): ${ready} s"
serve "$second" "$work/cache2"
python3 - "$first" "$second" "$token" <<'PYTHON'
import http.client, json, sys, time
first, second, token = sys.argv[1:4]
a = http.client.HTTPConnection("127.0.0.1", int(first))
b = http.client.HTTPConnection("127.0.0.1", int(second))
headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
edits, shown = [], []
for n in range(200):
    began = time.perf_counter()
    a.request("POST", "/catalogs/cities/items", body=json.dumps({"name": f"Followtown {n}"}), headers=headers)
    answer = a.getresponse()
    body = json.loads(answer.read())
    saved = time.perf_counter()
    edits.append(saved - began)
    version = body["version"]
    while True:
        b.request("GET", "/catalogs")
        listed = json.loads(b.getresponse().read())
        if listed["catalogs"][0]["version"] >= version:
            break
        time.sleep(0.001)
    shown.append(time.perf_counter() - saved)
    a.request("DELETE", f"/catalogs/cities/items/{body['id']}", headers=headers)
    a.getresponse().read()
def p(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * q))] * 1000
print(f"second node shows an add made on the first: p50 {p(shown, .5):.1f} ms, p99 {p(shown, .99):.1f} ms, max {max(shown) * 1000:.1f} ms (200 adds; each add answered in p50 {p(edits, .5):.1f} ms, p99 {p(edits, .99):.1f} ms)")
PYTHON
kill "${pids[1]}" 2>/dev/null; wait "${pids[1]}" 2>/dev/null || true
# Changes the second node has not seen yet, then its restart from its copy.
for n in $(seq 1 100); do
  curl -sf -X POST -H "Authorization: Bearer $token" "http://127.0.0.1:$first/catalogs/cities/items" -d "{\"name\": \"Restarttown $n\"}" >/dev/null
done
serve "$second" "$work/cache2"
echo "restart from the local copy, 100 changes behind: ${ready} s ($(grep -o 'applied [0-9]* changes' "$work/nodes.log" | tail -1))"
