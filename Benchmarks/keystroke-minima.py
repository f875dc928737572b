#!/usr/bin/env python3
"""Compare sift binaries keystroke by keystroke, robust to a noisy machine.

Runs `sift bench --each` for every binary, alternating, ROUNDS times, keeps each keystroke's
best time per binary and prints their sum: a change that speeds up a few keystrokes shows
even when a shared VM's noise swamps percentiles.

    python3 Benchmarks/keystroke-minima.py OLD_SIFT,NEW_SIFT CATALOG QUERIES [ROUNDS]
"""
import collections
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binaries = sys.argv[1].split(",")
    catalog, queries = sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    best = {b: collections.defaultdict(lambda: float("inf")) for b in binaries}
    for _ in range(rounds):
        for binary in binaries:
            run = subprocess.run(
                [binary, "bench", "--catalog", catalog, "--queries", queries, "--each"],
                capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"{binary} failed: {run.stderr.strip()}")
            seen = collections.Counter()
            for line in run.stderr.splitlines():
                fields = line.split("\t")
                if len(fields) != 3 or not fields[0].endswith(" ms"):
                    continue
                # The same text typed twice is two keystrokes.
                seen[fields[1]] += 1
                key = (fields[1], seen[fields[1]])
                best[binary][key] = min(best[binary][key], float(fields[0][:-3]))
    for binary in binaries:
        times = best[binary]
        print(f"{binary}: sum of per-keystroke best {sum(times.values()):.1f} ms over "
              f"{len(times)} keystrokes; slowest {max(times.values()):.1f} ms")


if __name__ == "__main__":
    main()
