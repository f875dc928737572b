#!/usr/bin/env python3
"""Checks every link of the project's Markdown: a relative link names a file or folder that
exists, and a `#fragment` names a heading of its page (GitHub's anchors). Links to the web are
not fetched (CI has no network). Prints each broken link as FILE:LINE and exits 1 if any."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def anchors(path):
    """GitHub's anchors of a Markdown file: headings lowercased, punctuation dropped, spaces to
    hyphens, repeats numbered."""
    seen, found, fenced = {}, set(), False
    with open(path, encoding="utf-8") as file:
        for line in file:
            if line.startswith("```"):
                fenced = not fenced
            if fenced or not line.startswith("#"):
                continue
            text = line.lstrip("#").strip().lower()
            text = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
            count = seen.get(text, 0)
            seen[text] = count + 1
            found.add(text if count == 0 else f"{text}-{count}")
    return found


def markdown_files():
    skip = {".build", ".git", "node_modules"}
    for folder, folders, files in os.walk(ROOT):
        folders[:] = [f for f in folders if f not in skip and not f.startswith(".build")]
        for name in files:
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def main():
    broken = 0
    for path in sorted(markdown_files()):
        fenced = False
        with open(path, encoding="utf-8") as file:
            lines = file.read().split("\n")
        for number, line in enumerate(lines, 1):
            if line.startswith("```"):
                fenced = not fenced
            if fenced:
                continue
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z]+:", target) or target.startswith("<"):
                    continue
                file_part, _, fragment = target.partition("#")
                linked = (
                    os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                    if file_part else path)
                where = os.path.relpath(path, ROOT)
                if not os.path.exists(linked):
                    print(f"{where}:{number}: {target}: no such file")
                    broken += 1
                elif fragment and linked.endswith(".md") and fragment not in anchors(linked):
                    print(f"{where}:{number}: {target}: no heading #{fragment}")
                    broken += 1
    if broken:
        print(f"{broken} broken link{'s' if broken != 1 else ''}")
        return 1
    print("links: every relative link and anchor resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
