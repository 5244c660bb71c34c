"""Readable Markdown report of a verdict: summary, battlefield map, stage table, ballots, failures."""

from __future__ import annotations

from adjudicator.verdict import Verdict


def _esc(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _bench_names(format_name: str) -> tuple[str, str]:
    """The two sides' names in a format (``("Affirmative", "Negative")``, BP Government/Opposition)."""
    from adjudicator.formats import FORMATS

    spec = FORMATS.get(format_name)
    return (spec.bench_name("affirmative"), spec.bench_name("negative")) if spec else ("Affirmative", "Negative")


def _ranking_sections(verdict: Verdict) -> list[str]:
    """The house ranking and speaker score tables of a ranking verdict (BP)."""
    lines = ["## Ranking", "", "| Rank | House | Judges' ranks | Mean rank | Team points (judges) | Mean points |", "|---|---|---|---|---|---|"]
    for r in verdict.ranking:
        pts = "" if r.points is None else f"{r.points:.2f}"
        lines.append(f"| {r.rank} | {r.name} ({r.unit}) | {' / '.join(map(str, r.judge_ranks))} | {r.mean_rank:.2f} | {' / '.join(map(str, r.judge_points))} | {pts} |")
    if verdict.dissent and verdict.dissent.low_point_wins:
        lines += ["", "Low-point wins in the panel's ranking: " + "; ".join(verdict.dissent.low_point_wins)]
    lines += ["", "## Speaker scores", "", "| Speech | House | Judges' scores | Mean | Judges' ranks | Rank |", "|---|---|---|---|---|---|"]
    for sp in verdict.speaker_scores:
        mean = "" if sp.mean is None else f"{sp.mean:.2f}"
        lines.append(f"| {sp.speech} ({sp.stage_id}) | {sp.unit} | {' / '.join(map(str, sp.judge_scores))} | {mean} | {' / '.join(map(str, sp.judge_ranks))} | {sp.rank or ''} |")
    return lines + [""]


def verdict_markdown(verdict: Verdict) -> str:
    """Render ``verdict`` as Markdown (UTF-8 text, one document)."""
    pv = verdict.provenance
    lines: list[str] = []
    lines.append(f"# Verdict: {verdict.match_id}")
    lines.append("")
    lines.append(f"**Motion:** {_esc(verdict.motion)}  ")
    models = dict(pv.models or {})
    model_text = pv.model if len(set(models.values())) <= 1 else ", ".join(f"{m} ({role})" for role, m in models.items())
    lines.append(f"**Format:** {verdict.format} · **Arm:** {verdict.arm} · **Model:** {model_text}" + ("" if pv.is_llm else " (offline baseline, not an LLM)"))
    lines.append("")
    if verdict.ranking:
        split = f" (first place {verdict.dissent.winner_split})" if verdict.dissent else ""
        lines.append(f"**Ranking:** {' > '.join(r.unit for r in verdict.ranking)}{split}")
    elif verdict.winner is not None:
        split = f" ({verdict.dissent.winner_split})" if verdict.dissent else ""
        lines.append(f"**Winner:** {verdict.winner}{split} · **winner tendency p = {verdict.p:.2f}** (above 0.5 favours the affirmative)")
    else:
        lines.append("**Winner:** not determined")
    if verdict.best_debater_votes:
        votes = ", ".join(f"{k} {v}" for k, v in verdict.best_debater_votes.items())
        lines.append(f"**Best debater votes ({sum(verdict.best_debater_votes.values())}):** {votes}")
    lines.append("")
    lines.append("## Battlefield map")
    lines.append("")
    if verdict.battlefields:
        aff, neg = _bench_names(verdict.format)
        lines.append(f"| Clash | {aff} position | {neg} position | Momentum | Events |")
        lines.append("|---|---|---|---|---|")
        for c in verdict.battlefields:
            events = "; ".join(f"{e.stage_id} {e.side} {e.kind}" for e in c.events)
            lines.append(f"| {_esc(c.title)} | {_esc(c.affirmative_position)} | {_esc(c.negative_position)} | {c.momentum():+.2f} | {_esc(events)} |")
    else:
        lines.append("No clashes were recorded.")
    lines.append("")
    if verdict.ranking:
        lines += _ranking_sections(verdict)
    lines.append("## Stage scores")
    lines.append("")
    if verdict.ranking:
        lines.append("Speeches are scored on the speaker scale above, not 1-10 per stage.")
    elif verdict.stage_scores:
        lines.append("| Stage | Type | Side | Role | Judges | Mean |")
        lines.append("|---|---|---|---|---|---|")
        for s in verdict.stage_scores:
            lines.append(f"| {_esc(s.stage_name)} ({s.stage_id}) | {s.stage_type} | {s.side} | {s.role or ''} | {' / '.join(map(str, s.judge_scores))} | {s.mean:.2f} |")
    else:
        lines.append("No stage scores.")
    lines.append("")
    lines.append("## Ballots")
    lines.append("")
    for b in verdict.ballots:
        votes = ", ".join(f"{k} {v}" for k, v in b.best_debater_votes.items())
        lines.append(f"### {b.judge_id}" + (f" ({b.perspective})" if b.perspective else ""))
        lines.append("")
        if b.ranking:
            scores = ", ".join(f"{x.speech or x.stage_id} {x.score}" for x in b.speaker_scores)
            lines.append(f"- Ranking: {' > '.join(sorted(b.ranking, key=lambda u: b.ranking[u]))}; model {b.model}")
            lines.append(f"- Speaker scores: {scores}")
        else:
            lines.append(f"- Winner: {b.winner}, p = {b.p:.2f}; model {b.model}")
            lines.append(f"- Best-debater votes: {votes}")
        if b.reasoning:
            lines.append(f"- Reasoning: {_esc(b.reasoning)}")
        lines.append("")
    if verdict.failures:
        lines.append("## Failures")
        lines.append("")
        for f in verdict.failures:
            lines.append(f"- {f.node} {f.key}: {_esc(f.reason)} ({len(f.raw_outputs)} raw outputs kept)")
        lines.append("")
    lines.append("## Provenance")
    lines.append("")
    cost = "unknown" if pv.cost_usd is None else f"${pv.cost_usd:.4f}"
    lines.append(f"- Calls: {pv.calls} ({pv.attempts} attempts); tokens: {pv.prompt_tokens} prompt + {pv.completion_tokens} completion; cost: {cost}")
    lines.append(f"- Parsing: {pv.strict_json} strict JSON, {pv.recovered} recovered, {pv.parse_failures} failed")
    if pv.models:
        lines.append("- Models: " + ", ".join(f"{k}={v}" for k, v in pv.models.items()))
    return "\n".join(lines) + "\n"
