"""What the relevance scripts share: folding as the peers are fed, installing a package from
PyPI when missing, and asking `sift search` for the first ids of a query."""
import json, re, subprocess, sys, unicodedata


def fold(text):
    """Lower case without marks: what FTS5's remove_diacritics and Tantivy's fields are given."""
    return "".join(c for c in unicodedata.normalize("NFKD", text)
                   if unicodedata.category(c) not in ("Mn", "Me", "Cf")).casefold().strip()


def words(text):
    return [w for w in re.split(r"[^\w]+", fold(text)) if w]


def ensure(*packages):
    """Installs each package from PyPI that cannot be imported."""
    for package in packages:
        try:
            __import__(package)
        except ImportError:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package],
                           check=True)


def sift_ids(sift, catalog, query, limit=3, options=()):
    """The ids of `sift search`'s first `limit` results, as JSON Lines gives them."""
    done = subprocess.run([sift, "search", "--catalog", catalog, "--json", "--limit", str(limit),
                           *options, "--", query], capture_output=True, text=True, check=True)
    return [json.loads(line)["id"] for line in done.stdout.splitlines() if line.strip()]
