"""Rewrite the benchmark tables in README.md and docs/ from benchmarks/results/*.json.

A table lives between ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` in any Markdown
file of the README or ``docs/`` (the benchmark pages in ``docs/benchmarks/``, the chaos run
in ``docs/operations/guarantees.md``, the headline figures in the README); everything
between the markers is replaced, everything else is left as it is. ``make bench`` and the
other benchmark targets run this after they write their results.
"""
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
            f"| recall p50 / p95 at {r['episodes']:,} episodes (embed, 4 channels, fusion, rerank, packing; "
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


def locomo_table(r: dict) -> str:
    budgets = [str(b) for b in r["budgets"]]
    modes = list(r["results"])
    lines = [
        f"Measured {r['machine']['measured_at']} on conversations {', '.join(r['conversations'])} "
        "(mean of the two conversations' evidence recall; `benchmarks/results/locomo.json` has per-category "
        "figures and all-evidence rates):",
        "",
        "| mode | " + " | ".join(budgets) + " |",
        "|---|" + "---|" * len(budgets),
    ]
    for mode in modes:
        row = [r["results"][mode][b]["mean_of_conversations"] for b in budgets]
        lines.append(f"| {mode} | " + " | ".join(f"{v:.3f}" for v in row) + " |")
    singles = [m for m in ("keyword", "semantic", "recent") if m in modes]
    if "full" in modes and singles:
        gains = []
        for b in budgets:
            best = max(r["results"][m][b]["mean_of_conversations"] for m in singles)
            gains.append(f"{100 * (r['results']['full'][b]['mean_of_conversations'] - best):+.1f}")
        lines.append("| full − best single channel (points) | " + " | ".join(gains) + " |")
    latency = r.get("latency", {})
    if latency:
        lines.append("")
        lines.append(
            "Latency per recall through the API in-process over all budgets up to 16K tokens, on a machine "
            "that was not kept quiet (the scale and foundation benchmarks measure latency alone): "
            + "; ".join(f"{mode} p50 {v['p50_ms']} ms / p95 {v['p95_ms']} ms" for mode, v in latency.items())
        )
    return "\n".join(lines)


def ablation_table(r: dict) -> str:
    budgets = [str(b) for b in r["budgets"]]
    lines = [
        "| mode | "
        + " | ".join(f"all @{b}" for b in budgets)
        + " | "
        + " | ".join(f"temporal @{b}" for b in budgets)
        + " |",
        "|---|" + "---|" * (2 * len(budgets)),
    ]
    for mode, by_budget in r["results"].items():
        overall = [f"{by_budget[b]['mean_of_conversations']:.3f}" for b in budgets]
        temporal = [f"{by_budget[b]['by_category']['temporal']['evidence_recall']:.3f}" for b in budgets]
        lines.append(f"| {mode} | " + " | ".join(overall + temporal) + " |")
    return "\n".join(lines)


def locomo_dev_table(r: dict) -> str:
    """Every mode per development conversation and category at each budget, the held-out estimate, span costs."""
    categories = ("multi-hop", "temporal", "open-domain", "single-hop")
    conversations = r["conversations"]
    lines = [
        f"Measured {r['machine']['measured_at']} on conversations {', '.join(conversations)} "
        "(`benchmarks/results/locomo-dev.json`); each cell is conversation "
        + " / ".join(conversations)
        + ", `full` is the engine with its defaults:",
    ]
    for budget in (str(b) for b in r["budgets"]):
        lines += [
            "",
            f"| mode @{budget} | overall | " + " | ".join(categories) + " | mean |",
            "|---|---|" + "---|" * len(categories) + "---|",
        ]
        for mode, by_budget in r["results"].items():
            cell = by_budget[budget]
            overall = " / ".join(f"{cell['evidence_recall_by_conversation'][c]:.3f}" for c in conversations)
            per = [
                " / ".join(
                    f"{v:.2f}" if (v := cell["by_conversation_and_category"][c].get(k)) is not None else "—"
                    for c in conversations
                )
                for k in categories
            ]
            lines.append(f"| {mode} | {overall} | " + " | ".join(per) + f" | {cell['mean_of_conversations']:.3f} |")
    held = r.get("held_out")
    if held:
        chosen = ", ".join(f"{c}: {v['chosen']}" for c, v in held["rotations"].items())
        means = ", ".join(f"{v:.3f} at {b}" for b, v in held["mean_held_out"].items())
        lines += [
            "",
            f"Leave one conversation out (the mode best on the other two at {held['selection_budget']} tokens, "
            f"scored on the one left out; chosen {chosen}): **{means}**.",
        ]
    spans = r.get("span_ms")
    if spans:
        keys = [
            k for k in ("feedback", "hop", "fetch", "graph", "rank_and_pack") if any(k in v for v in spans.values())
        ]
        lines += [
            "",
            "Mean span time per recall (ms, from `explain`, machine not kept quiet): "
            + "; ".join(f"{mode} " + ", ".join(f"{k} {v.get(k, 0):.2f}" for k in keys) for mode, v in spans.items()),
        ]
    return "\n".join(lines)


def consolidation_table(r: dict) -> str:
    t, c = r["throughput"], r["citations"]
    return "\n".join(
        [
            f"Measured {r['machine']['measured_at']} on {r['machine']['cpus']} cores "
            "(details in `benchmarks/results/consolidation.json`):",
            "",
            "| measure | result |",
            "|---|---|",
            f"| stream | {r['alerts']:,} alerts, {r['signatures']} signatures ({r['benign_signatures']} benign-recurring) on "
            f"{r['signature_host_pairs']} signature/host pairs, plus analyst feedback = {r['episodes']:,} episodes |",
            f"| after consolidation | {r['facts']:,} facts, **{r['beliefs']} beliefs**, {r['loose_facts']} facts not yet in a belief |",
            f"| compression: episodes per item to search | **{r['compression_items_after']}×** (episodes / (beliefs + loose facts)); "
            f"{r['compression_episodes_per_belief']}× per belief |",
            f'| tokens to answer "is signature X on host Y known?" with all its evidence | episodes '
            f"{r['tokens_per_answer']['episodes_mean']} vs beliefs {r['tokens_per_answer']['beliefs_mean']} (with proof counts "
            f"and a quote): **{r['tokens_per_answer']['ratio']}× fewer** |",
            f"| recall at 150 tokens | verdict belief returned {r['recall_150_tokens']['verdict_belief_returned']}; episodes-only "
            f"recall covers {r['recall_150_tokens']['episodes_only_evidence_coverage_mean']:.0%} of the pair's evidence |",
            f"| throughput (extract + consolidate, 2 cores) | **{t['episodes_per_s']} episodes/s** (extract {t['extract_s']} s, "
            f"consolidate {t['consolidate_s']} s; retain with embeddings {t['retain_s']} s) |",
            f"| idempotence | re-run changed {r['idempotence']['rerun_changed']} beliefs; re-folding every fact changed "
            f"{r['idempotence']['refold_changed']} ({t['refold_all_facts_s']} s) |",
            f"| citations, all beliefs checked | {c['evidence_rows']:,} evidence rows, {c['quotes_not_exact']} quotes not an exact "
            f"substring, {c['beliefs_without_evidence']} beliefs without evidence |",
        ]
    )


def _fresh_rows(fresh: dict | None) -> list[str]:
    """The second fresh draw: a later contact (its first is in defense-fresh2-baseline.json)."""
    if not fresh:
        return []
    s, i = fresh["secrets"], fresh["injection"]
    families = ", ".join(f"{f} {v['caught']}/{v['values']}" for f, v in s["per_family"].items())
    inj_families = ", ".join(f"{f} {v['flagged']}/{v['samples']}" for f, v in i["per_family"].items())
    benign = ", ".join(f"{k} {v['flagged']}/{v['samples']}" for k, v in i["benign_per_kind"].items())
    label = "fresh draw (later contact)"
    group = s.get("negatives_redacted_by_group", {}).get("lookalike")
    lookalikes = f"**{group['rate']:.1%}** ({group['flagged']} of {group['samples']})" if group else "n/a"
    return [
        f"| {label} | secrets and personal data, {s['values']} planted values in {s['samples']} samples | recall "
        f"**{s['recall']}**, precision **{s['precision']}**; hard look-alikes redacted {lookalikes} (the floor's "
        f"figure), all negatives {s['negatives_redacted']:.1%} |",
        f"| {label} | per family (caught/values) | {families} |",
        f"| {label} | prompt injection, {i['injections']} injections and {i['benign']} benign texts | recall "
        f"**{i['recall']}**, false-positive rate **{i['false_positive_rate']}** |",
        f"| {label} | per injection family (flagged/samples) | {inj_families} |",
        f"| {label} | benign texts flagged, by kind | {benign} |",
    ]


def defense_table(r: dict) -> str:
    o, inj = r["overall"], r["injection"]
    h, hi = r["holdout"]["secrets"], r["holdout"]["injection"]
    groups = ", ".join(f"{g} {v['exact']}/{v['samples']}" for g, v in r["per_group"].items())
    families = ", ".join(f"{f} {v['caught']}/{v['values']}" for f, v in h["per_family"].items())
    inj_families = ", ".join(f"{f} {v['flagged']}/{v['samples']}" for f, v in hi["per_family"].items())
    benign = ", ".join(f"{k} {v['flagged']}/{v['samples']}" for k, v in hi["benign_per_kind"].items())
    cost = "; ".join(
        f"{mix}: p50 {v['total']['p50_ms']} / p95 **{v['total']['p95_ms']} ms**"
        for mix, v in r["scan_cost_per_kb"].items()
    )
    return "\n".join(
        [
            f"Measured {r['machine']['measured_at']} (details, per kind and family, with every string missed, in "
            "`benchmarks/results/defense.json`):",
            "",
            "| corpus | measure | result |",
            "|---|---|---|",
            f"| held apart | secrets and personal data, {h['values']} planted values in {h['samples']} samples | recall "
            f"**{h['recall']}**, precision **{h['precision']}** ({h['caught']} caught, {h['false_alarms']} false alarms; "
            f"placeholder and environment-reference false alarms **{h['placeholder_and_env_false_alarms']}**) |",
            f"| held apart | per family (caught/values) | {families} |",
            f"| held apart | prompt injection, {hi['injections']} injections and {hi['benign']} benign texts | recall "
            f"**{hi['recall']}**, false-positive rate **{hi['false_positive_rate']}** |",
            f"| held apart | per injection family (flagged/samples) | {inj_families} |",
            f"| held apart | benign texts flagged, by kind | {benign} |",
            *_fresh_rows(r.get("fresh")),
            f"| development | Memory Defense, {r['samples']} labelled strings, {r['kinds']} kinds | precision "
            f"**{o['precision']}**, recall **{o['recall']}** ({o['tp']} found, {o['fp']} false alarms, {o['fn']} missed) |",
            f"| development | exactly right, by group | {groups} |",
            f"| development | prompt-injection markers, {inj['samples']} samples ({inj['injections']} injections) | "
            f"precision **{inj['precision']}**, recall **{inj['recall']}** |",
            f"| cost | secrets scan + injection markers per 1 KB item, CPU time on 2 cores | {cost} |",
        ]
    )


def workloads_table(r: dict) -> str:
    rows = [
        f"Measured {r['machine']['measured_at']}: anomaly over {r['days']} simulated days, churn over "
        f"{r['churn'][0]['days']} days and {r['churn'][0]['accounts']} accounts "
        "(details in `benchmarks/results/workloads.json`):",
        "",
        "| anomaly configuration | alerts (genuine) | suppressed | precision | benign suppressed "
        "| incidents wrongly suppressed | suppressions of contested beliefs | citation validity |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for a in r["anomaly"]:
        where = ", ".join(f"{k} {v}" for k, v in sorted(a["wrongly_suppressed_by_scenario"].items()))
        rows.append(
            f"| {a['label']} | {a['alerts']} ({a['genuine_alerts']}) | {a['suppressed']} | {a['suppression_precision']} "
            f"| {a['benign_suppressed_share']:.1%} | **{a['incidents_wrongly_suppressed']}**{f' ({where})' if where else ''} "
            f"| **{a['suppressions_of_contested_beliefs']}** "
            f"| **{a['citation_validity']:.1%}** ({a['citations_valid']:,} of {a['citations']:,}) |"
        )
    rows += [
        "",
        "| churn agent | offers (overlapping) | top-1 repeat of a known failure | over all proposed plays "
        "| repeat of any reported failure | retention (second half) | sample-size checks (mismatches) |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in r["churn"]:
        proposed = "–" if c["proposed_repeat_rate"] is None else f"{c['proposed_repeat_rate']:.1%}"
        checks = f"{c['sample_size_checks']:,} ({c['sample_size_mismatches']})" if c["sample_size_checks"] else "–"
        rows.append(
            f"| {c['agent']} | {c['decisions']} ({c['overlapping_offers']}) | **{c['top1_repeat_rate']:.1%}** "
            f"| {proposed} | {c['repeat_of_any_reported_failure_rate']:.1%} "
            f"| {c['retention_rate']:.1%} ({c['second_half_retention_rate']:.1%}) | {checks} |"
        )
    p = r.get("poisoning")
    if p:
        rows += [
            "",
            f"Poisoning{' (measured ' + p['measured_at'] + ')' if p.get('measured_at') else ''}: "
            f"{p['planted_texts']} instruction-shaped texts planted through "
            + ", ".join(f"{path} {n}" for path, n in p["planted"].items())
            + f" episodes; beliefs resting on them **{p['beliefs_resting_on_planted']}**, mental-model citations "
            f"**{p['mental_model_citations_of_planted']}**, suppressions citing them "
            f"**{p['suppressions_citing_planted']}**, suppressions on planted dismissals alone "
            f"**{p['suppressed_on_planted_dismissals_only']}**, review-comment proofs added "
            f"**{p['review_comment_proofs_added']}**, plays from lessons citing them "
            f"**{p['plays_from_planted_lessons']}** ({p['lessons_refused']} lessons refused, "
            f"{p['lessons_waiting_for_a_person']} waiting for a person); the control claim formed a belief: "
            f"{p['control_belief_formed']}, a control suppression: {p['control_suppression']}, a control lesson "
            f"accepted: {p['control_lesson_accepted']}.",
        ]
    memory = r["churn"][0]
    o = memory["outcomes"]
    vr, vn = r["retention_vs_random"], r["retention_vs_no_memory"]
    t = r["tokens"]["turns"]
    rows += [
        "",
        f"Retention with memory minus random: **{vr['points']:+.1f} points** (95% interval {vr['interval'][0]:+.1f} "
        f"to {vr['interval'][1]:+.1f}); minus no memory: **{vn['points']:+.1f} points** ({vn['interval'][0]:+.1f} to "
        f"{vn['interval'][1]:+.1f}). Excluded plays checked for their counts: {memory['excluded_checks']:,} "
        f"({memory['excluded_without_counts']} without).",
        "",
        f"Outcomes reported to memory: {o['reported']:,}, all {o['reported_after_horizon']:,} after the horizon closed "
        f"({o['named']:,} naming their intervention, {o['by_window_rule']:,} by the window rule, "
        f"{o['outside_every_window']} outside every window; {o['unknown_reported']} `unknown`, "
        f"{o['never_reported']} never reported); {o['duplicates']} duplicates and {o['conflicts_409']} conflicts (409) "
        f"refused a second count; {o['attributed_to_another_offer']} went by the rule to another offer than the one "
        f"they were for; {o['service_disagreements']} disagreements with the simulator's own implementation of the rule.",
        "",
        "| turns | stateless agent (re-reads history) | memory agent (stored read + recall ≤ "
        f"{r['tokens']['budget_tokens']}) | fewer tokens |",
        "|---|---|---|---|",
    ]
    for turns, v in t.items():
        rows.append(f"| {turns} | {v['stateless_tokens']:,} | {v['memory_tokens']:,} | **{v['reduction']:.0%}** |")
    return "\n".join(rows)


def _own_index(timings: dict) -> str:
    if not timings.get("bank_index_lists"):
        return "none"
    return f"{timings['bank_index_build_s']} s ({timings['bank_index_lists']:,} lists)"


def scale_table(results: list[dict]) -> str:
    lines = [
        "| episodes | vectors | recall p50 / p95 (budget 1024) | semantic top-10 p50 / p95 | exact scan p50 / p95 "
        "| top-10 agreement with exact | 50-row bank | build: shared HNSW / bank's own IVFFlat "
        "| storage (table / HNSW / GIN) | measured |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        f, s, e = r["recall_full_budget_1024"], r["semantic_hnsw_top10"], r["semantic_exact_top10"]
        lines.append(
            f"| {r['episodes']:,} | {r.get('vector_kind', 'near-copy')} | {f['p50_ms']} / {f['p95_ms']} ms "
            f"| {s['p50_ms']} / {s['p95_ms']} ms "
            f"| {e['p50_ms']} / {e['p95_ms']} ms | **{r['hnsw_recall_at_10_vs_exact']}** "
            f"| {r['small_bank_inside']['hnsw_recall_at_10_vs_exact']} | {r['timings']['hnsw_build_s']} s / "
            f"{_own_index(r['timings'])} "
            f"| {r['storage_mb']['table_total']} / {r['storage_mb']['hnsw_index']} / {r['storage_mb']['gin_index']} MB "
            f"| {r['machine']['measured_at'][:10]} |"
        )
    kinds = {r.get("vector_kind", "near-copy"): r["vectors"] for r in results}
    lines.append("")
    for kind, text in kinds.items():
        lines.append(f"- {kind} vectors: {text}. Queries use the real model end to end.")
    tuned = [r for r in results if r.get("tuning") and "variant" in r["tuning"][0]]
    if tuned:
        lines += ["", "Search variants (top-10 agreement with exact search; semantic p95):", ""]
        header = [row["variant"] for row in max((r["tuning"] for r in tuned), key=len)]
        lines.append("| bank | " + " | ".join(header) + " |")
        lines.append("|---|" + "---|" * len(header))
        for r in tuned:
            by_variant = {row["variant"]: row for row in r["tuning"]}
            cells = [
                f"{by_variant[h]['recall_at_10']} ({by_variant[h]['p95_ms']} ms)" if h in by_variant else "–"
                for h in header
            ]
            lines.append(f"| {r['episodes']:,} {r.get('vector_kind', 'near-copy')} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _route_rows(routes: dict) -> list[str]:
    """A locust run's routes as a Markdown table (the aggregate row in bold)."""
    rows = ["| route | requests | req/s | p50 | p95 | p99 | errors |", "|---|---|---|---|---|---|---|"]
    for name, row in routes.items():
        label = "**all**" if name == "Aggregated" else name
        rows.append(
            f"| {label} | {row['requests']:,} | {row['requests_per_s']} | {row['p50_ms']:g} ms | {row['p95_ms']:g} ms "
            f"| {row['p99_ms']:g} ms | {100 * row['error_rate']:.2f}% |"
        )
    return rows


def load_table(r: dict) -> str:
    setup, knee = r["setup"], r["knee"]
    lines = [
        f"Measured {r['machine']['measured_at']} on {r['machine']['cpus']} cores, loopback, "
        f"{setup['agents']} agents over {setup['banks']} banks of {setup['episodes_per_bank']:,} episodes for "
        f"{setup['minutes']} minutes ({setup['mix']}; think time {setup['think_time_s']} s; {setup['web']}):",
        "",
        *_route_rows(r["main"]),
    ]
    cores = r.get("main_cores")
    if cores:
        lines += [
            "",
            "Cores kept busy during the main run (of 2; the load generator not counted): "
            + ", ".join(f"{role} {value:g}" for role, value in cores.items() if value >= 0.01 or role == "total")
            + ".",
        ]
    lines += ["", f"Step sweep, {setup['step_seconds']} s per rate:"] if setup.get("step_seconds") else []
    lines += [
        "",
        "| offered req/s | achieved | p50 | p95 | p99 | recall p50 / p95 | errors | background work drained after |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for step in r["steps"]:
        drain = step.get("background_drain_s")
        recall = (
            f"{step['recall_p50_ms']:g} / {step['recall_p95_ms']:g} ms"
            if step.get("recall_p95_ms") is not None
            else "-"
        )
        lines.append(
            f"| {step['offered_rps']:g} | {step['achieved_rps']} | {step['p50_ms']:g} ms | {step['p95_ms']:g} ms "
            f"| {step['p99_ms']:g} ms | {recall} | {100 * (step['error_rate'] or 0):.2f}% "
            f"| {'-' if drain is None else f'{drain:g} s'} |"
        )
    lines.append("")
    if knee["offered_rps"]:
        lines.append(
            f"Knee: p95 doubles (from {knee['baseline_p95_ms']:g} ms) at **{knee['offered_rps']:g} req/s offered** "
            f"({knee['achieved_rps']} achieved, p95 {knee['p95_ms']:g} ms)."
        )
    else:
        lines.append(f"Knee: p95 did not double (baseline {knee['baseline_p95_ms']} ms) within the rates tried.")
    sustained = r.get("sustained")
    if sustained:
        lines += [
            "",
            f"Sustained run after the main run: the same agents paced at {sustained['offered_rps']:g} requests/s for "
            f"{setup['minutes']} minutes on the banks the main run grew:",
            "",
            *_route_rows(sustained["routes"]),
        ]
        lines += [
            "",
            "Cores kept busy: "
            + ", ".join(
                f"{role} {value:g}" for role, value in sustained["cores"].items() if value >= 0.01 or role == "total"
            )
            + ".",
        ]
        windows = sustained.get("recall_windows")
        if windows:
            lines += [
                "",
                f"Recall p95 per {windows['window_s']}-second window of that run: within 300 ms in "
                f"{windows['within_300_ms']:.0%} of {windows['windows']} windows, median window "
                f"{windows['median_window_p95_ms']:g} ms, worst {windows['worst_window_p95_ms']:g} ms.",
            ]
        checkpoints = sustained.get("checkpoints_started_at_s")
        if checkpoints is not None:
            when = ", ".join(f"{seconds:g} s" for seconds in checkpoints) if checkpoints else "none"
            lines += ["", f"PostgreSQL checkpoints started during that run at: {when}."]
    return "\n".join(lines)


def chaos_table(r: dict) -> str:
    g, resp, e = r["guarantees"], r["responses"], r["erasure_during_import"]
    mark = {True: "yes", False: "**NO**"}
    outage = "; ".join(
        f"{name}: " + ", ".join(f"{count}× {status}" for status, count in sorted(statuses.items()))
        for name, statuses in resp["during_outage"].items()
        if statuses
    )
    return "\n".join(
        [
            f"Measured {r['machine']['measured_at']} on {r['machine']['cpus']} cores "
            "(details and the fault timeline in `benchmarks/results/chaos.json`):",
            "",
            "| guarantee | result |",
            "|---|---|",
            f"| every accepted item stored exactly once | {mark[g['every_accepted_item_stored_exactly_once']]}: "
            f"{r['stored']['episodes']:,} episodes for {r['stored']['expected_items']:,} items, "
            f"{r['stored']['duplicated']} duplicated, {r['stored']['missing']} missing |",
            f"| every batch in a final state | {mark[g['every_batch_final']]}: "
            + ", ".join(f"{count} {status}" for status, count in r["batches"]["by_status"].items())
            + f" of {r['batches']['total']} |",
            f"| beliefs equal a clean run over the same items | {mark[g['beliefs_equal_clean_run']]}: "
            f"{r['beliefs']['under_faults']} vs {r['beliefs']['clean_run']} beliefs, "
            f"{len(r['beliefs']['differences'])} differ; facts {r['facts']['under_faults']} vs {r['facts']['clean_run']} |",
            f"| requests while a dependency was down | {mark[g['database_down_answers_503'] and g['no_500']]}: {outage}; "
            f"0 answers 500, errors all JSON: {mark[g['errors_are_json']]} |",
            f"| slowest request (limit 10 s) | {resp['max_latency_s']} s overall, {resp['max_latency_during_outage_s']} s "
            "during an outage |",
            f"| erasure in tenant B during a {e['import_items']:,}-item import into tenant A | "
            f"{mark[e['within_10_s']]}: done in **{e['erasure_seconds']} s** with "
            f"{e['import_batches_still_waiting_when_erasure_finished']} of {e['import_batches']} import batches "
            f"still queued (import finished after {e['import_seconds']} s) |",
        ]
    )


SECTIONS = {
    "foundation": foundation_table,
    "locomo": locomo_table,
    "locomo-ablations": ablation_table,
    "locomo-dev": locomo_dev_table,
    "consolidation": consolidation_table,
    "defense": defense_table,
    "workloads": workloads_table,
    "chaos": chaos_table,
    "load": load_table,
}


def web_table(r: dict) -> str:
    lines = [
        f"Measured {r['machine']['measured_at']} on {r['machine']['cpus']} cores, in-process through the full "
        f"Django stack, {r['requests_per_page']} requests per page; a bank with {r['beliefs']:,} beliefs, "
        f"{r['pending_review_items']:,} pending review items, {r['episodes']:,} episodes and {r['audit_events']:,} "
        "audit events (details in `benchmarks/results/web.json`):",
        "",
        "| page | p50 | p95 | SQL queries |",
        "|---|---|---|---|",
    ]
    for name, page in r["pages"].items():
        lines.append(f"| {name} | {page['p50_ms']} ms | **{page['p95_ms']} ms** | {page['queries']} |")
    for name, export in (r.get("exports") or {}).items():  # downloads, streamed whole
        lines.append(f"| {name} (download) | {export['p50_ms']} ms | {export['p95_ms']} ms | {export['queries']} |")
    return "\n".join(lines)


SECTIONS["web"] = web_table


def cpu_table(r: dict) -> str:
    lines = [
        "CPU per recall in process (budget 1024, 200 real questions, real sentences; `benchmarks/bench_cpu.py`, "
        "details in `benchmarks/results/cpu.json`). PostgreSQL counts the processes serving the benchmark's "
        "database; *before* is the previous release's code on the same bank:",
        "",
        "| episodes | code | Python CPU ms (of it: query embedding) | PostgreSQL CPU ms | total ms | wall p50 / p95 ms "
        "| sessions opened / transactions per recall | measured |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size, by_label in sorted(r["sizes"].items(), key=lambda item: int(item[0])):
        for label, m in sorted(by_label.items(), key=lambda item: item[0] != "before"):
            lines.append(
                f"| {int(size):,} | {label} | {m['python_cpu_ms']} ({m['of_which_query_embedding_ms']}) | "
                f"{m['postgres_cpu_ms']} | **{m['total_cpu_ms']}** | {m['wall']['p50_ms']} / {m['wall']['p95_ms']} | "
                f"{m['server_sessions_opened_per_recall']} / {m['server_transactions_per_recall']} | "
                f"{m['machine']['measured_at'][:16]} |"
            )
    return "\n".join(lines)


SECTIONS["cpu"] = cpu_table


def headline_table(results: dict[str, dict]) -> str:
    """A few figures for the README's front page, from whichever results exist."""
    rows = []
    f, scale = results.get("foundation"), results.get("scale-100000-real")
    if f:
        recall = f"{f['recall_service']['p50_ms']:.0f} / {f['recall_service']['p95_ms']:.0f} ms at {f['episodes']:,} episodes"
        if scale:
            s = scale["recall_full_budget_1024"]
            recall += f"; {s['p50_ms']:.0f} / {s['p95_ms']:.0f} ms at {scale['episodes']:,} (real sentences)"
        rows.append(f"| recall p50 / p95, budget {f['budget_tokens']} | {recall} |")
        rows.append(f"| retain, embedding included | {f['retain']['episodes_per_s']:.0f} episodes/s |")
    locomo = results.get("locomo")
    if locomo:
        full = locomo["results"]["full"]
        at = [b for b in ("512", "2048") if b in full]
        rows.append(
            "| LoCoMo evidence recall (development conversations) | "
            + ", ".join(f"{full[b]['mean_of_conversations']:.3f} at {int(b):,} tokens" for b in at)
            + " |"
        )
    defense = results.get("defense")
    if defense:
        h, hi = defense["holdout"]["secrets"], defense["holdout"]["injection"]
        rows.append(
            f"| Memory Defense, held-apart corpus | secrets and personal data: recall {h['recall']}, precision "
            f"{h['precision']}; injection: recall {hi['recall']} at {100 * hi['false_positive_rate']:.1f}% false positives |"
        )
        fresh = defense.get("fresh") or {}
        if fresh.get("secrets") and fresh.get("injection"):
            fs, fi = fresh["secrets"], fresh["injection"]
            rows.append(
                f"| Memory Defense, fresh draw (text written apart from the detectors; a later contact, its first is in "
                f"`defense-fresh2-baseline.json`) | secrets and personal data: "
                f"recall {fs['recall']}, precision {fs['precision']}; injection: recall {fi['recall']} at "
                f"{100 * fi['false_positive_rate']:.1f}% false positives |"
            )
    load = results.get("load")
    if load:
        a, setup = load["main"]["Aggregated"], load["setup"]
        rows.append(
            f"| load: {setup['agents']} agents for {setup['minutes']} minutes | {a['requests_per_s']} requests/s, "
            f"p50 / p95 {a['p50_ms']:,.0f} / {a['p95_ms']:,.0f} ms, {100 * a['error_rate']:.2f}% errors |"
        )
    machine = (f or {}).get("machine", {})
    lines = [f"Measured on {machine.get('cpus', 2)} cores, no GPU:", "", "| measure | result |", "|---|---|"]
    return "\n".join(lines + rows)


def _scale_results() -> list[dict]:
    sized = [p for p in RESULTS.glob("scale-*.json") if re.fullmatch(r"scale-\d+(-real)?", p.stem)]
    return [json.loads(p.read_text()) for p in sorted(sized, key=lambda p: (int(p.stem.split("-")[1]), p.stem))]


def _replace(text: str, name: str, body: str) -> str:
    pattern = re.compile(rf"(<!-- bench:{re.escape(name)} -->\n).*?(<!-- /bench:{re.escape(name)} -->)", re.S)
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


def documents() -> list[Path]:
    """Every Markdown file that may hold benchmark tables: the README and the docs tree."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def render_all() -> dict[str, str]:
    """Each table's new body, by marker name, for the results that exist."""
    results = {p.stem: json.loads(p.read_text()) for p in RESULTS.glob("*.json")}
    bodies = {name: render(results[name]) for name, render in SECTIONS.items() if name in results}
    scale = _scale_results()
    if scale:
        bodies["scale"] = scale_table(scale)
    bodies["headline"] = headline_table(results)
    return bodies


def main() -> None:
    bodies = render_all()
    for path in documents():
        text = path.read_text()
        updated = text
        for name, body in bodies.items():
            updated = _replace(updated, name, body)
        if updated != text:
            path.write_text(updated)


if __name__ == "__main__":
    main()
