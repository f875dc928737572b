#!/usr/bin/env python3
"""How candidate ranking rules for a word still being typed would score on the relevance
benchmark's queries, without building Sift: the search that found the rule in the README's
"How results are ordered" (issue 29).

Usage: rules.py CITIES_JSONL QUERIES_DIR

QUERIES_DIR is a folder `relevance.py --out` wrote (queries-prefix.txt, queries-exact.txt).
For each query, every city with a name (title or alternate, folded as relevance.py folds) that
equals the query or starts with it is a candidate, with four facts: title equal, alternate
equal, title starts, population. Each rule orders the candidates; a prefix query counts when
its city is in the first 3, an exact query when it is first (relevance.py's scoring). Words
that only start inside a name, and typos, are left out: the expected cities of these two kinds
always have a name starting with the query. Python's folding is close to Sift's, not equal
(it drops Devanagari vowel signs and Japanese voicing marks), so the figures are a model: the
rule chosen is then measured with Sift itself by relevance.py.
"""
import bisect, json, math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relevance import fold  # noqa: E402


def candidates(query, keys, values, cities, places):
    """(city, title equal, alternate equal, title starts, population, place) per candidate."""
    q = fold(query).strip()
    found = {}
    low = bisect.bisect_left(keys, q)
    high = bisect.bisect_left(keys, q + "\U0010ffff")
    for value, city, is_title in values[low:high]:
        facts = found.setdefault(city, [False, False, False])
        if is_title:
            facts[0] |= value == q
            facts[2] = True
        else:
            facts[1] |= value == q
    return [(c, f[0], f[1], f[2], cities[c]["population"], places[c]) for c, f in found.items()]


def magnitude(population):
    return sum(1 for k in range(10) if population >= 10 ** k)


def points(title_equal, alternate_equal, title_starts, equal=5, start=2, other_equal=2):
    return equal if title_equal else start if title_starts else other_equal if alternate_equal else 0


RULES = {
    "as finished words (exactness, attribute, popularity)":
        lambda c: (0 if c[1] or c[2] else 1, (0 if c[1] else 1) if c[1] or c[2] else (0 if c[3] else 1), c[5]),
    "popularity alone": lambda c: (c[5],),
    "a title equal first, then popularity": lambda c: (0 if c[1] else 1, c[5]),
    "a title equal first, then title starts, then popularity":
        lambda c: (0 if c[1] else 1, 0 if c[1] or c[3] else 1, c[5]),
    "log10 population + 2 for a title equal":
        lambda c: (-(math.log10(c[4] + 1) + (2 if c[1] else 0)), c[5]),
    "log10 population + 3 for a title equal":
        lambda c: (-(math.log10(c[4] + 1) + (3 if c[1] else 0)), c[5]),
}
for e, s, o in [(5, 2, 0), (5, 2, 1), (5, 2, 2), (5, 2, 3), (6, 2, 3), (5, 3, 2), (4, 1, 1), (3, 1, 0)]:
    RULES[f"magnitude + {e} title equal, {s} title starts, {o} other value equal"] = (
        lambda c, e=e, s=s, o=o: (-(magnitude(c[4]) + points(c[1], c[2], c[3], e, s, o)), c[5]))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cities = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    order = sorted(range(len(cities)), key=lambda i: (-cities[i]["population"], i))
    places = [0] * len(cities)
    for place, i in enumerate(order):
        places[i] = place
    by_id = {c["id"]: i for i, c in enumerate(cities)}
    values = []
    for i, c in enumerate(cities):
        title = fold(c["name"]).strip()
        values.append((title, i, True))
        values += [(a, i, False) for a in {fold(a).strip() for a in c["alternates"]}]
    values.sort()
    keys = [v[0] for v in values]
    kinds = {}
    for kind, k in (("prefix", 3), ("exact", 1)):
        rows = []
        for line in open(os.path.join(sys.argv[2], f"queries-{kind}.txt"), encoding="utf-8"):
            query, expected = line.rstrip("\n").split("\t")
            rows.append((by_id[int(expected)], candidates(query, keys, values, cities, places)))
        kinds[kind] = (k, rows)
    print("| rule | prefix @3 | exact @1 |\n|---|---|---|")
    for name, key in RULES.items():
        scores = []
        for kind in ("prefix", "exact"):
            k, rows = kinds[kind]
            hits = sum(1 for expected, found in rows
                       if expected in [c[0] for c in sorted(found, key=key)[:k]])
            scores.append(f"{100 * hits / len(rows):.1f}%")
        print(f"| {name} | {scores[0]} | {scores[1]} |")


if __name__ == "__main__":
    main()
