#!/usr/bin/env python3
"""What Sift, fzf, SQLite FTS5 and Foundation each find when a person types one spelling and
the data holds another: measured here, not quoted from documentation.

For every (typed, stored) pair below, each tool is asked whether the stored text matches:
  sift        `sift filter TYPED` with the stored text on standard input;
  fzf         `fzf --filter TYPED --exact` the same way (fzf folds Latin letters itself);
  FTS5        an in-memory sqlite3 table `fts5(x, tokenize="unicode61 remove_diacritics 2")`
              holding the stored text, queried with the typed text as a prefix phrase
              (`"TYPED"*`), the closest FTS5 comes to a substring;
  Foundation  `stored.localizedStandardContains(typed)` in a Swift script (swift-foundation on
              Linux, the same call an iOS app would make).

Usage: python3 Benchmarks/folding-peers.py --sift .build/release/sift
Prints a Markdown table (✓ found, — not found). Needs fzf and sqlite3 (installed with apt-get
when missing) and the swift toolchain.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

PAIRS = [
    ("Vietnamese", "da nang", "Đà Nẵng"),
    ("German", "strasse", "Straße"),
    ("Full width", "abc", "ＡＢＣ"),
    ("Korean, half-typed", "서우", "서울"),
    ("Korean, initials", "ㅅㅇ", "서울"),
    ("Chinese, pinyin", "beijing", "北京"),
    ("Chinese, pinyin initials", "bj", "北京"),
    ("Japanese, romaji", "toyota", "トヨタ"),
    ("Japanese, romaji with a long vowel", "tokyo", "とうきょう"),
    ("Japanese, hiragana for katakana", "よこはま", "ヨコハマ"),
    ("Japanese, katakana for hiragana", "タカオシ", "たかおし"),
    ("Japanese, half-width katakana", "がっこう", "ｶﾞｯｺｳ"),
    ("Persian name, Arabic keyboard (ي ك)", "كهريز", "کهریز"),
    ("Arabic, teh marbuta typed as heh", "مدرسه", "مدرسة"),
    ("Arabic, alef wasla", "القاهره", "ٱلقاهرة"),
    ("Arabic, tatweel", "مصر", "مـصـر"),
    ("Arabic-Indic digits", "٢٠١٠", "2010"),
    ("Persian digits", "۲۰۱۰", "2010"),
    ("French, apostrophe left out", "cote divoire", "Côte d'Ivoire"),
    ("Typographic apostrophe", "jardines", "Jardine’s"),
    ("Hawaiian ʻokina", "oahu", "Oʻahu"),
]


def ensure(tool):
    if shutil.which(tool) is None:
        subprocess.run(["apt-get", "update", "-qq"], check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", tool], check=True)


def filtered(argv, stored):
    run = subprocess.run(argv, input=(stored + "\n").encode(), capture_output=True)
    return run.returncode == 0 and run.stdout.decode().strip() == stored


def fts5(typed, stored):
    script = (
        "CREATE VIRTUAL TABLE t USING fts5(x, tokenize=\"unicode61 remove_diacritics 2\");\n"
        f"INSERT INTO t VALUES ('{stored}');\n"
        f"SELECT count(*) FROM t WHERE t MATCH '\"{typed}\"*';\n"
    )
    run = subprocess.run(["sqlite3", ":memory:"], input=script.encode(), capture_output=True)
    return run.stdout.decode().strip() == "1"


def foundation(pairs):
    """One Swift process for every pair: each answer as a JSON list of booleans."""
    source = (
        "import Foundation\n"
        f"let pairs: [(String, String)] = {json.dumps([[t, s] for _, t, s in pairs], ensure_ascii=False)}"
        ".map { ($0[0], $0[1]) }\n"
        "print(\"[\" + pairs.map { $0.1.localizedStandardContains($0.0) ? \"true\" : \"false\" }"
        ".joined(separator: \",\") + \"]\")\n"
    )
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "contains.swift")
        with open(path, "w", encoding="utf-8") as file:
            file.write(source)
        run = subprocess.run(["swift", path], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"the Foundation script failed: {run.stderr[:2000]}")
        return json.loads(run.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sift", required=True)
    args = parser.parse_args()
    for tool in ("fzf", "sqlite3"):
        ensure(tool)
    contains = foundation(PAIRS)
    mark = {True: "✓", False: "—"}
    print("| script | typed | stored | Sift | fzf --exact | FTS5 (unicode61 remove_diacritics 2) | Foundation localizedStandardContains |")
    print("|---|---|---|---|---|---|---|")
    for (script, typed, stored), found in zip(PAIRS, contains):
        sift = filtered([args.sift, "filter", typed], stored)
        fzf = filtered(["fzf", "--filter", typed, "--exact"], stored)
        print(
            f"| {script} | {typed} | {stored} | {mark[sift]} | {mark[fzf]} | "
            f"{mark[fts5(typed, stored)]} | {mark[found]} |"
        )


if __name__ == "__main__":
    main()
