"""Memory Defense findings compared between two versions of the scanner: a speed-up must change none of them.

For every text of the development corpus, the held-apart corpus and generated inputs (the 1 KB items
``eval_defense`` times, and seeded variants of the corpus texts: look-alike letters, full-width forms,
invisible characters, base64 and URL encoding, tokens split by spaces, quoted concatenations, pieces
joined and cut at random points), this records everything the scanner reports:

- ``scan`` in each IP-address mode: kind, span and the variant that found it;
- the redacted text (``redact`` with the default mode's findings);
- the injection markers: family and span of each (ordered by span, then family).

``dump`` writes that record for the scanner in this checkout; ``compare`` (the default) dumps it for a git
revision too (exported to a temporary directory, run in a subprocess) and prints how many items differ per
corpus, and the first differences of the corpora that may be read. The fresh draw (``--fresh``) is compared
as an equality check only: its record holds a digest per item, and nothing but the count of differing items
is printed.

    .venv/bin/python benchmarks/defense_findings_diff.py --base 2987674
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
IP_MODES = ("off", "public", "all")
LOOKALIKE = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і", "A": "А", "E": "Е"}
INVISIBLE = ("\u200b", "\u200c", "\u200d", "\ufeff", "\u2060", "\u00ad", "\u200f", "\u202e")


def _fullwidth(ch: str) -> str:
    return chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch


def _variants(texts: list[str], rng: random.Random) -> list[str]:
    """Seeded evasions and cuts of the corpus texts (what the variant passes and the windows see)."""
    out = []
    for text in texts:
        if not text:
            continue
        chars = list(text)
        # look-alike letters, full-width characters and invisible characters at random places
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(chars))
            chars[i] = LOOKALIKE.get(chars[i], _fullwidth(chars[i]) if rng.random() < 0.5 else chars[i])
        for _ in range(rng.randint(1, 4)):
            chars.insert(rng.randrange(len(chars) + 1), rng.choice(INVISIBLE))
        out.append("".join(chars))
        # a full-width stretch
        a = rng.randrange(len(text))
        b = min(len(text), a + rng.randint(4, 40))
        out.append(text[:a] + "".join(map(_fullwidth, text[a:b])) + text[b:])
        # base64 and URL encoding of a piece, in place
        a = rng.randrange(len(text))
        b = min(len(text), a + rng.randint(8, 80))
        piece = text[a:b]
        out.append(text[:a] + base64.b64encode(piece.encode()).decode() + text[b:])
        out.append(text[:a] + quote(piece, safe="") + text[b:])
        # split by a space or a line break, and a quoted concatenation
        words = text.split()
        if words:
            k = rng.randrange(len(words))
            word = words[k]
            if len(word) > 6:
                cut = rng.randrange(3, len(word) - 2)
                joiner = rng.choice([" ", "\n", "  "])
                words[k] = word[:cut] + joiner + word[cut:]
                out.append(" ".join(words))
                out.append(f'key = "{word[:cut]}" + "{word[cut:]}"')
        # cuts and case
        a, b = sorted(rng.randrange(len(text) + 1) for _ in range(2))
        out.append(text[a:b] or text)
        out.append(text.upper() if rng.random() < 0.5 else text.lower())
    # corpus texts joined, as retained episodes hold several
    for i in range(0, len(texts), 5):
        out.append(rng.choice(["\n", " ", "\n\n", ", "]).join(texts[i : i + 5]))
    return out


def inputs() -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from eval_defense import _items
    from eval_holdout import INJECTIONS, SECRETS, load

    development = []
    for name in ("defense_corpus.json", "injection_corpus.json"):
        development += [s["text"] for s in json.loads((ROOT / "tests" / "governance" / name).read_text())]
    holdout = [s["text"] for s in load(SECRETS)] + [s["text"] for s in load(INJECTIONS)]
    rng = random.Random(15)  # the cost items, exactly as ``eval_defense.scan_cost`` builds them
    secrets = [s["text"] for s in load(SECRETS)]
    benign = [s["text"] for s in load(INJECTIONS) if not s["injection"]]
    generated = _items([*benign * 4, *secrets], rng, 400) + _items(secrets, rng, 400)
    generated += _variants(development + holdout, random.Random(26))
    return {"development": development, "holdout": holdout, "generated": generated}


def fresh_inputs() -> list[str]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from eval_holdout import FRESH_INJECTIONS, FRESH_SECRETS, load

    return [s["text"] for s in load(FRESH_SECRETS)] + [s["text"] for s in load(FRESH_INJECTIONS)]


def record(text: str) -> dict:
    from beliefs.defense.injection import injection_findings
    from beliefs.defense.scanner import redact, scan

    scans = {mode: [[f.kind, f.start, f.end, f.via] for f in scan(text, ip_addresses=mode)] for mode in IP_MODES}
    default = scan(text)
    return {
        "scan": scans,
        "redacted": redact(text, default),
        # (in the order of ``(start, end, family)``: ``injection_findings`` orders by start and family only, and
        # findings equal in both come out of a set, in an order that changes with Python's hash seed)
        "injection": sorted([f.start, f.end, f.family] for f in injection_findings(text)),
    }


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def dump(path: Path, fresh: bool) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryhub.settings")
    import django

    django.setup()
    out = {name: [record(text) for text in texts] for name, texts in inputs().items()}
    if fresh:
        out["fresh"] = [_digest(record(text)) for text in fresh_inputs()]
    path.write_text(json.dumps(out))


def _dump_revision(revision: str, path: Path, fresh: bool) -> None:
    """The record of the scanner at ``revision``: its tree exported, this script run inside it."""
    with tempfile.TemporaryDirectory(prefix="defense-base-") as tree:
        archive = subprocess.run(["git", "archive", revision], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        # this script and the corpora as they are here, so both sides scan the same texts
        for relative in ("benchmarks/defense_findings_diff.py", "benchmarks/corpora", "tests/governance"):
            subprocess.run(["cp", "-r", str(ROOT / relative), str(Path(tree) / Path(relative).parent)], check=True)
        # The data directory (and so the embedded database server) of this checkout: one started in the temporary
        # tree would outlive the tree.
        data_dir = os.environ.get("MEMORYHUB_DATA_DIR", str(ROOT / ".data"))
        env = {**os.environ, "PYTHONPATH": tree, "MEMORYHUB_DATA_DIR": data_dir}
        command = [sys.executable, str(Path(tree) / "benchmarks" / "defense_findings_diff.py"), "dump", str(path)]
        subprocess.run(command + (["--fresh"] if fresh else []), cwd=tree, env=env, check=True)


def compare(base: dict, head: dict, show: int) -> int:
    total = 0
    corpora = inputs()
    for name in base:
        if name not in head:
            continue
        if name == "fresh":
            differing = sum(a != b for a, b in zip(base[name], head[name], strict=True))
            print(f"fresh: {differing} of {len(base[name])} items differ")
            total += differing
            continue
        texts = corpora[name]
        differing = [i for i, (a, b) in enumerate(zip(base[name], head[name], strict=True)) if a != b]
        print(f"{name}: {len(differing)} of {len(base[name])} items differ")
        for i in differing[:show]:
            print(f"  {texts[i][:160]!r}\n    base {base[name][i]}\n    head {head[name][i]}")
        total += len(differing)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", choices=("compare", "dump"), default="compare")
    parser.add_argument("path", nargs="?", help="dump: where to write the record")
    parser.add_argument("--base", default="main", help="compare: the revision to compare with (default main)")
    parser.add_argument("--base-record", help="compare: a record dumped before, instead of --base")
    parser.add_argument("--fresh", action="store_true", help="also the fresh draw, as a count of differing items")
    parser.add_argument("--show", type=int, default=5, help="compare: differences shown per corpus")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.command == "dump":
        dump(Path(args.path), args.fresh)
        return
    with tempfile.TemporaryDirectory(prefix="defense-diff-") as scratch:
        base_path = Path(args.base_record) if args.base_record else Path(scratch) / "base.json"
        if not args.base_record:
            _dump_revision(args.base, base_path, args.fresh)
        head_path = Path(scratch) / "head.json"
        dump(head_path, args.fresh)
        base, head = json.loads(base_path.read_text()), json.loads(head_path.read_text())
    if args.fresh and "fresh" not in base:
        sys.exit("the base record has no fresh draw: dump it with --fresh")
    differing = compare(base, head, args.show)
    print(f"{differing} items differ in all")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
