#!/usr/bin/env bash
# How large a served catalog's write-ahead log grows under a steady stream of edits: four
# clients add, change and delete items as fast as the server answers them (and one searches)
# for SECONDS; the -wal file's size is read every 100 ms. Then SIGTERM, and the -wal's size
# after it. Prints one line of figures.
#
#   Benchmarks/wal-under-edits.sh [seconds] [catalog.sqlite]
#
# Without a catalog it serves a copy of the built-in products. Needs a release build of sift
# (`swift build -c release --traits Server`) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
sift=$PWD/.build/release/sift
[ -x "$sift" ] || swift build -c release --traits Server --product sift >/dev/null
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
export SIFT_DATA_DIR="$work/data"
if [ -n "${2:-}" ]; then
  cp "$2" "$work/catalog.sqlite"
  [ -f "$2-index" ] && cp "$2-index" "$work/catalog.sqlite-index"
else
  "$sift" search --catalog products --limit 0 >/dev/null 2>&1
  cp "$work/data/products.sqlite" "$work/catalog.sqlite"
  cp "$work/data/products.sqlite-index" "$work/catalog.sqlite-index"
fi
echo edit-token >"$work/token"
"$sift" serve --catalog "$work/catalog.sqlite" --token-file "$work/token" --port 0 \
  2>"$work/serve.log" &
server=$!
for _ in $(seq 100); do
  port=$(grep -o '127\.0\.0\.1:[0-9]*' "$work/serve.log" | head -1 | cut -d: -f2 || true)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/serve.log" >&2; exit 1; }

python3 - "$port" "$seconds" "$work/catalog.sqlite-wal" "$server" <<'EOF'
import http.client, json, os, random, signal, sys, threading, time
port, seconds, wal, server = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
stop = time.time() + seconds
edits = [0] * 4
# Items of the catalog's own shape: a title, nothing else.
listing = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
listing.request("GET", "/catalogs")
title_field = json.loads(listing.getresponse().read())["catalogs"][0]["titleField"]
def editor(number):
    random.seed(number)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": "Bearer edit-token", "Content-Type": "application/json"}
    live, serial = [], 0
    while time.time() < stop:
        serial += 1
        body = json.dumps({title_field: f"Client{number} Edit{serial}"})
        if len(live) < 5 or random.random() < 0.34:
            connection.request("POST", "/catalogs/catalog/items", body, headers)
            answer = connection.getresponse(); data = answer.read()
            if answer.status == 201: live.append(json.loads(data)["id"])
        elif random.random() < 0.5:
            connection.request("PUT", f"/catalogs/catalog/items/{random.choice(live)}", body, headers)
            connection.getresponse().read()
        else:
            item = live.pop(random.randrange(len(live)))
            connection.request("DELETE", f"/catalogs/catalog/items/{item}", headers=headers)
            connection.getresponse().read()
        edits[number] += 1
def searcher():
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while time.time() < stop:
        connection.request("GET", "/catalogs/catalog/search?q=client&limit=20")
        connection.getresponse().read()
threads = [threading.Thread(target=editor, args=(n,)) for n in range(4)] + [threading.Thread(target=searcher)]
for thread in threads: thread.start()
largest, samples = 0, []
while time.time() < stop:
    size = os.path.getsize(wal) if os.path.exists(wal) else 0
    largest = max(largest, size); samples.append(size)
    time.sleep(0.1)
for thread in threads: thread.join()
final = os.path.getsize(wal) if os.path.exists(wal) else 0
os.kill(server, signal.SIGTERM)
for _ in range(100):
    try:
        os.kill(server, 0); time.sleep(0.1)
    except ProcessLookupError:
        break
after = os.path.getsize(wal) if os.path.exists(wal) else 0
total = sum(edits)
print(f"{seconds:.0f} s, 4 editors + 1 searcher: {total} edits ({total / seconds:.0f}/s); "
      f"-wal at most {largest / 1048576:.1f} MB, {final / 1048576:.1f} MB at the end, "
      f"median {sorted(samples)[len(samples) // 2] / 1048576:.1f} MB; after SIGTERM {after} bytes")
EOF
