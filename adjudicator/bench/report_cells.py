"""How the bench reports write a value: the shared cells, texts and column sets of ``report.md``
(:mod:`adjudicator.bench.report_md`), ``report.html`` (:mod:`adjudicator.bench.report_html`) and the
fine-tuning tables (:mod:`adjudicator.finetune.render`).

A metric leaf (:mod:`adjudicator.bench.scoring.leaves`) is written as its value with its 95% bootstrap
interval and effective n, or n/a with the reason (:func:`cell`); a baseline's seeded draw beside its
expected value; a p-value, a model set, status counts, the label convention, the ranking rule and a
failure's cause each have one wording here, so the two reports never say them differently.
"""

from __future__ import annotations

import math
from typing import Any

COLUMNS = {
    "task1": [("winner_accuracy", "Accuracy")],
    "task2": [("stage_mse", "MSE"), ("stage_pearson", "Pearson r"), ("stage_spearman", "Spearman ρ"), ("tendency_all_pairs", "Agreement"), ("tendency_non_tie", "Non-tie agr.")],
    "task3": [("best_debater_top1", "Top-1 acc."), ("best_debater_top1_strict", "Top-1 strict"), ("vote_share_mae", "MAE_vote"), ("vote_share_pearson", "Vote-share r"), ("vote_share_spearman", "Vote-share ρ"), ("pred_winner_third_speaker_top1", "Pred.-winner 3rd speaker")],
}


def fmt(x: Any, digits: int = 3) -> str:
    """A number to ``digits`` decimals; None as an em dash."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    return f"{x:.{digits}f}"


def p_text(p: float | None) -> str:
    """A p-value for reading: ``"< 0.001"`` below 0.001, else 3 decimals; ``"n/a"`` when undefined."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def bootstrap_p_text(t: dict[str, Any]) -> str:
    """A paired bootstrap's p for reading: ``"< 1/B"`` when no resample crossed zero (its ``p_text``,
    :func:`adjudicator.bench.scoring.leaves.paired_bootstrap_test`), else :func:`p_text`."""
    return str(t["p_text"]) if t.get("p_text") else p_text(t.get("p_value"))


def cell(leaf: dict[str, Any] | None, expected: float | None = None) -> str:
    """``value [low, high] (n)``; a baseline's expected value is appended as ``E=...``. An undefined
    value is ``n/a`` (not applicable), its reason when a side is constant (``"r undefined (constant
    predictions)"``), else ``—``."""
    if not leaf:
        return "—"
    if leaf.get("value") is None:
        reason = leaf.get("reason") or ""
        if "undefined (constant" in reason:
            return f"{reason} (n={leaf.get('n', 0)})"
        return "n/a" if reason.startswith("not applicable") else "—"
    s = fmt(leaf["value"])
    ci = leaf.get("ci")
    if ci and ci.get("low") is not None:
        s += f" [{fmt(ci['low'])}, {fmt(ci['high'])}]"
    s += f" (n={leaf.get('n', 0)})"
    if expected is not None:
        s += f"; E={fmt(expected)}"
    return s


def models_text(models: dict[str, str] | None) -> str:
    """An arm's role -> model mapping as one readable line, e.g. ``"tracker offline; judges offline
    x3"``, ``"tracker openai/t; judges openai/a, openai/b, openai/c"`` or ``"single-call openai/x"``.
    Judge roles are ``judge-<k>``; other roles are listed by name. ``"?"`` when nothing is known."""
    if not models:
        return "?"
    judges = [m for role, m in models.items() if role.startswith("judge")]
    parts = []
    for role, m in models.items():
        if role.startswith("judge"):
            continue
        parts.append(f"{role} {m}")
    if judges:
        if len(set(judges)) == 1:
            parts.append(f"judges {judges[0]} x{len(judges)}" if len(judges) > 1 else f"judge {judges[0]}")
        else:
            parts.append("judges " + ", ".join(judges))
    return "; ".join(parts)


def counts_text(counts: dict[str, int] | None) -> str:
    """``{"online-1v1": 5, "ccdb-2v2": 2}`` as ``"online-1v1 x5, ccdb-2v2 x2"`` (``"none"`` when empty)."""
    if not counts:
        return "none"
    return ", ".join(f"{k} x{v}" for k, v in counts.items())


def label_convention_text(ds: dict[str, Any]) -> str:
    """For a dataset from PanelBench (``ds["provenance"]["panelbench"]``), the label convention its
    labels were read under, from ``labels.note`` (see :data:`adjudicator.input.convert.debateart.LABEL_CONVENTIONS`),
    e.g. ``"PanelBench labels read under the 'content' convention (upstream 1.0 = negative win, 0.5 =
    tie, 0.0 = affirmative win); see adjudicator/input/convert/debateart.py"``; several conventions are listed with
    their match counts, and matches whose note names none as "not stated". Empty for other datasets
    (and for a dataset dict without ``provenance``, e.g. an old report, unless ``label_convention``)."""
    from adjudicator.input.convert.debateart import LABEL_CONVENTIONS

    prov = ds.get("provenance") or {}
    if not prov.get("panelbench"):
        return ""
    conv: dict[str, int] = dict(prov.get("label_conventions") or {})
    if not conv and ds.get("label_convention"):
        conv = {ds["label_convention"]: prov.get("n_matches", 0)}
    if not conv:  # PanelBench BP only: the gold is the teams that advanced, no winner label to read
        return "PanelBench BP rounds: the gold is the teams that advanced (no winner label, so no label convention applies)"
    parts = []
    for name, n in conv.items():
        mapping = LABEL_CONVENTIONS.get(name)
        if mapping is None:
            desc = "not stated in labels.note" if name == "unstated" else "unknown to this version"
            parts.append(f"{n} match(es) with the convention {desc}")
            continue
        rule = ", ".join(f"{value:.1f} = {outcome}{'' if outcome == 'tie' else ' win'}" for value, outcome in sorted(mapping.items(), reverse=True))
        label = f"'{name}' convention (upstream {rule})"
        parts.append(label if len(conv) == 1 else f"{label} for {n} match(es)")
    return "PanelBench labels read under the " + "; ".join(parts) + "; see adjudicator/input/convert/debateart.py"


def ranked_by_text(t: dict[str, Any], task: str) -> str:
    """The ranking sentence of a task's tables, e.g. ``"Rows ranked by Pearson r (higher is better); a
    row whose Pearson r is undefined is not ranked."``, from ``t["ranked_by"]`` (or the current rule
    for an old report without it)."""
    rb = t.get("ranked_by")
    if not rb:
        from adjudicator.bench.scoring.tables import ranked_by

        rb = ranked_by(task)
    text = rb["text"]
    return "Rows " + text + "."


def ranked_label(task: str) -> str:
    """The name of the metric that ranks ``task``'s tables (e.g. ``"Pearson r"``)."""
    from adjudicator.bench.scoring.tables import RANK_BY, RANK_LABELS

    return RANK_LABELS[RANK_BY[task]]


def cause_text(f: dict[str, Any]) -> str:
    """The first underlying node failure of a listed failure (``f["cause"]``), or ``""`` when none is
    recorded or it repeats the error summary."""
    cause = f.get("cause")
    if not cause or cause in (f.get("error") or ""):
        return ""
    return " ".join(str(cause).split())[:300]


def ordered(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` in rank order (1, 2, 3, ...), unranked rows after them in their original order."""
    return sorted(rows, key=lambda r: (0, r["rank"]) if r.get("rank") is not None else (1, 0))


BP_TASKS = (
    ("house_order", "House order (DebateBench)", [("error", "Error")]),
    ("speaker_scores", "Speaker scores (DebateBench)", [("mae", "MAE"), ("within_2", "within 2"), ("within_5", "within 5"), ("within_9", "within 9")]),
    ("speaker_ranks", "Speaker ranks (DebateBench)", [("error", "Error")]),
    ("advancing", "Advancing teams (PanelBench BP)", [("set_accuracy", "Top-k set"), ("team_accuracy", "Per team")]),
)


def reference_heading(synthetic: bool) -> str:
    """The heading of the individual-judge reference table."""
    if synthetic:
        return "Synthetic-judge references (SYNTHETIC labels written by developers, not human judges; non-comparable, excluded from rankings; Appendix B.1):"
    return "Human references (non-comparable, excluded from rankings; Appendix B.1):"
