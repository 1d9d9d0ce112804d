"""Rewrite the benchmark tables in README.md from benchmarks/results/*.json."""
# ruff: noqa: E501 - table rows read best unbroken

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def foundation_table(r: dict) -> str:
    return "\n".join(
        [
            f"Measured {r['machine']['measured_at']} on {r['machine']['cpus']} cores, no GPU "
            "(details in `benchmarks/results/foundation.json`):",
            "",
            "| measure | result |",
            "|---|---|",
            f"| retain throughput, batches of {r['retain']['batch_size']}, embedding included | "
            f"**{r['retain']['episodes_per_s']} episodes/s** ({r['episodes']:,} episodes in {r['retain']['seconds']} s) |",
            f"| recall p50 / p95 at {r['episodes']:,} episodes (embed + 2 channels + fusion + packing, "
            f"budget {r['budget_tokens']}) | **{r['recall_service']['p50_ms']} / {r['recall_service']['p95_ms']} ms** |",
            f"| same through the HTTP stack in-process | {r['recall_http_in_process']['p50_ms']} / "
            f"{r['recall_http_in_process']['p95_ms']} ms |",
            f"| semantic top-10, HNSW index | {r['semantic_hnsw_top10']['p50_ms']} / {r['semantic_hnsw_top10']['p95_ms']} ms |",
            f"| semantic top-10, exact sequential scan (same vectors, same run) | "
            f"{r['semantic_exact_top10']['p50_ms']} / {r['semantic_exact_top10']['p95_ms']} ms |",
            f"| HNSW recall@10 agreement with exact search | {r['hnsw_recall_at_10_vs_exact']} |",
            f"| storage: table total / HNSW / GIN | {r['storage_mb']['table_total']} / {r['storage_mb']['hnsw_index']} / "
            f"{r['storage_mb']['gin_index']} MB; benchmark process RSS {r['process_rss_mb']} MB |",
        ]
    )


SECTIONS = {"foundation": foundation_table}


def main() -> None:
    readme = ROOT / "README.md"
    text = readme.read_text()
    for name, render in SECTIONS.items():
        path = RESULTS / f"{name}.json"
        if not path.exists():
            continue
        body = render(json.loads(path.read_text()))
        pattern = re.compile(rf"(<!-- bench:{name} -->\n).*?(<!-- /bench:{name} -->)", re.S)
        text = pattern.sub(lambda m, body=body: m.group(1) + body + "\n" + m.group(2), text)
    readme.write_text(text)


if __name__ == "__main__":
    main()
