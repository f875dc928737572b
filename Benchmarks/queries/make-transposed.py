#!/usr/bin/env python3
"""Writes cities-transposed.txt: 150 names of towns of 50,000 people or more, 9 to 12 ASCII
letters, each with two neighbouring letters swapped somewhere after the second (seeded): long
misspellings, most of which reach the two-edit budget of eight letters while they are typed.

    python3 Benchmarks/queries/make-transposed.py OUT_DIR/cities.jsonl > Benchmarks/queries/cities-transposed.txt
"""
import json
import random
import sys

SEED = 7
random.seed(SEED)
names = []
with open(sys.argv[1], encoding="utf-8") as records:
    for line in records:
        record = json.loads(line)
        name = record["name"]
        if name.isascii() and name.isalpha() and 9 <= len(name) <= 12 and record.get("population", 0) > 50000:
            names.append(name.lower())
random.shuffle(names)
for name in names[:150]:
    at = random.randint(2, len(name) - 3)
    print(name[:at] + name[at + 1] + name[at] + name[at + 2:])
