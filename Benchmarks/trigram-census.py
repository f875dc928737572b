#!/usr/bin/env python3
"""What a trigram index of the cities catalog would hold and save, before building one.

Counts, over the names and alternates of every item (folded roughly as Sift does: lower case,
marks removed), the distinct (trigram, item) pairs — the postings a per-item trigram index
keeps — and their size as plain 32-bit slots and as delta-coded varints. Then, for every
prefix of three letters or more of the benchmark's queries, how many items the rarest of its
trigrams names (what a search would verify instead of scanning all the text) next to how many
items hold the prefix.

Usage: python3 Benchmarks/trigram-census.py cities.jsonl Benchmarks/queries/cities.txt [copies]
"""
import json
import sys
import unicodedata
from collections import defaultdict


def fold(text):
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def trigrams(text):
    return {text[i : i + 3] for i in range(len(text) - 2)}


def varint_size(gap):
    size = 1
    while gap >= 128:
        gap >>= 7
        size += 1
    return size


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    copies = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    postings = defaultdict(list)
    texts = []
    with open(sys.argv[1], encoding="utf-8") as lines:
        for slot, line in enumerate(lines):
            item = json.loads(line)
            values = [fold(v) for v in [item.get("name", "")] + item.get("alternates", [])]
            texts.append(values)
            grams = set()
            for value in values:
                grams |= trigrams(value)
            for gram in grams:
                postings[gram].append(slot)
    items = len(texts)
    pairs = sum(len(slots) for slots in postings.values())
    varint_bytes = 0
    for slots in postings.values():
        previous = -1
        for slot in slots:
            varint_bytes += varint_size(slot - previous)
            previous = slot
    text_bytes = sum(len(v.encode()) + 1 for values in texts for v in values)
    print(f"items {items:,} · folded text {text_bytes / 1e6:.1f} MB · distinct trigrams {len(postings):,}")
    print(
        f"postings (trigram, item) {pairs:,}: {pairs * 4 / 1e6:.1f} MB as 32-bit slots, "
        f"{varint_bytes / 1e6:.1f} MB delta-coded; at {copies}x about "
        f"{pairs * 4 * copies / 1e6:.0f} / {varint_bytes * copies / 1e6:.0f} MB"
    )
    print()
    print("prefix | items holding it | items named by its rarest trigram | share of items")
    seen = set()
    with open(sys.argv[2], encoding="utf-8") as queries:
        for query in queries:
            term = fold(query.strip()).split(" ")[0]
            for end in range(3, len(term) + 1):
                prefix = term[:end]
                # Latin prefixes only: NFKD splits Hangul into jamo, which Sift's folding does not.
                if prefix in seen or not prefix.isascii():
                    continue
                seen.add(prefix)
                rarest = min((len(postings.get(g, [])) for g in trigrams(prefix)), default=0)
                holding = sum(1 for values in texts if any(prefix in v for v in values))
                print(f"{prefix} | {holding:,} | {rarest:,} | {rarest / items:.1%}")


if __name__ == "__main__":
    main()
