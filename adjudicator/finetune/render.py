"""Words and tables of the fine-tuning protocol's results: the ``fold_fit`` section of a ``--fold``
run's report.md and report.html, and the Markdown of ``adjudicate finetune report``. Cells are
written as the bench report writes them (:func:`adjudicator.bench.report_cells.cell`: value, 95%
interval, n)."""

from __future__ import annotations

from html import escape
from typing import Any

from adjudicator.bench.report_cells import COLUMNS, cell, fmt
from adjudicator.bench.report_md import table

PART_TEXT = {
    "train": "every match of the other folds (the whole training portion)",
    "validation": "the validation part of the training portion (the fine-tuning never trained on it)",
    "none": "none (--calibrate-on none): no calibration fitted",
}


def _ece(leaf: dict[str, Any] | None) -> str:
    return "—" if not leaf or leaf.get("value") is None else f"{fmt(leaf['value'])} (n={leaf.get('n', 0)})"


def calibration_table(rows: dict[str, Any]) -> list[str]:
    """Markdown rows: per arm, raw and calibrated winner accuracy, Brier score and ECE, and the fit."""
    out = ["| Predictor | Accuracy, raw | Accuracy, calibrated | Brier, raw | Brier, calibrated | ECE, raw | ECE, calibrated | Fit |", "|---|---|---|---|---|---|---|---|"]
    for r in rows.values():
        raw, cal = r["raw"], r.get("calibrated") or {}
        fit = r.get("fit")
        fit_text = r.get("reason") or (f"a={fmt(fit['a'])}, b={fmt(fit['b'])} on n={fit['n']}" if isinstance(fit, dict) else str(fit or "—"))
        out.append(
            f"| {r['label']} | {cell(raw['winner_accuracy'])} | {cell(cal.get('winner_accuracy'))} | {cell(raw['brier'])} | {cell(cal.get('brier'))} "
            f"| {_ece(raw['ece'])} | {_ece(cal.get('ece'))} | {fit_text} |"
        )
    return out


def baseline_lines(tables: dict[str, Any]) -> list[str]:
    """Markdown of the train-fitted baselines' tables, one per task."""
    out: list[str] = []
    for task in ("task1", "task2", "task3"):
        t = tables.get(task) or {}
        out += [f"**{task.replace('task', 'Task ')}**", ""]
        if t.get("reason"):
            out += [t["reason"], ""]
            continue
        cols = [c for c in COLUMNS[task] if any(c[0] in r["metrics"] for r in t["rows"])]
        out += ["| Predictor | " + " | ".join(c[1] for c in cols) + " |", "|---|" + "---|" * len(cols)]
        out += [f"| {r['predictor']} | " + " | ".join(cell(r["metrics"].get(k)) for k, _ in cols) + " |" for r in t["rows"]]
        out.append("")
    return out


def fold_fit_markdown(section: dict[str, Any] | None) -> list[str]:
    """The report.md section of a ``--fold`` run (nothing for another run)."""
    if not section:
        return []
    L = [f"## Fitted on the training folds only (fold {section['fold']})", "", section["note"], ""]
    L += [f"- **Calibration part:** {PART_TEXT.get(section['calibration_part'], section['calibration_part'])}: {section['n_calibration']} matches; "
          f"training portion {section['n_train']} matches; test {section['n_test']} matches; fitted parameters in `{section['fit_file']}`", ""]
    L += ["### Calibration of p (Platt scaling): raw and calibrated", ""] + calibration_table(section["calibration"]) + [""]
    L += ["### Data-dependent baselines fitted on the training folds", ""] + baseline_lines(section["baselines"])
    return L


def fold_fit_html(section: dict[str, Any] | None) -> str:
    """The report.html section of a ``--fold`` run ("" for another run): the Markdown tables as
    HTML tables."""
    if not section:
        return ""
    parts = [f"<h2>Fitted on the training folds only (fold {section['fold']})</h2>", f"<p>{escape(section['note'])}</p>"]
    parts.append(f"<p>Calibration part: {escape(PART_TEXT.get(section['calibration_part'], section['calibration_part']))}: {section['n_calibration']} matches; "
                 f"fitted parameters in <code>{escape(section['fit_file'])}</code>.</p>")
    block: list[str] = []
    for line in calibration_table(section["calibration"]) + [""] + baseline_lines(section["baselines"]) + [""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            parts.append(_html_table(block))
            block = []
        if line.startswith("**"):
            parts.append(f"<h3>{escape(line.strip('*'))}</h3>")
        elif line:
            parts.append(f"<p>{escape(line)}</p>")
    return "\n".join(parts)


def _html_table(lines: list[str]) -> str:
    rows = [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in lines if not set(line) <= set("|-")]
    head = "".join(f"<th>{escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
    return f"<table><tr>{head}</tr>{body}</table>"


def pooled_markdown(pooled: dict[str, Any]) -> str:
    """The Markdown of ``adjudicate finetune report``."""
    L = ["# Fine-tuning protocol: folds pooled", "", pooled["note"], ""]
    L += ["| Fold | Run | Test matches | Calibration part | Models |", "|---|---|---|---|---|"]
    for r in pooled["runs"]:
        models = "; ".join(f"{a}: {', '.join(dict.fromkeys(m.values()))}" for a, m in r["models"].items())
        L.append(f"| {r['fold']} | {r['run_id']} | {next(x['n_test'] for x in pooled['per_fold'] if x['fold'] == r['fold'])} | {r['calibration_part']} | {models} |")
    L += ["", "## Parsing (pooled)", "", "| Arm | Task | Instances | Parsed (effective n) | Parse rate | Strict JSON | Recovered | Native | Failed | Not run |", "|---|---|---|---|---|---|---|---|---|---|"]
    for arm, per in pooled["parsing"].items():
        for task in ("task1", "task2", "task3"):
            p = per[task]
            L.append(f"| {arm} | {task} | {p['instances']} | {p['parsed']} | {fmt(p['parse_rate'])} | {p['strict']} | {p['recovered']} | {p['native']} | {p['failed']} | {p['not_run']} |")
    for task in ("task1", "task2", "task3"):
        t = pooled["tasks"][task]
        L += ["", f"## {t['title']} (pooled)", ""]
        L += [t.get("reason") or "not applicable"] if not t.get("applicable") else table(t["rows"], task)
    L += ["", "## Calibration of p (pooled; each fold's own fit)", ""] + calibration_table(pooled["calibration"])
    L += ["", "## Data-dependent baselines (pooled; each fold's own fit)", ""] + baseline_lines(pooled["baselines"])
    L += ["## Per fold", "", "| Fold | Predictor | Accuracy, raw | Accuracy, calibrated | Brier, raw | Brier, calibrated |", "|---|---|---|---|---|---|"]
    for f in pooled["per_fold"]:
        for a in f["arms"].values():
            cal = a.get("calibrated") or {}
            L.append(f"| {f['fold']} | {a['label']} | {cell(a['raw']['winner_accuracy'])} | {cell(cal.get('winner_accuracy'))} | {cell(a['raw']['brier'])} | {cell(cal.get('brier'))} |")
    return "\n".join(L) + "\n"
