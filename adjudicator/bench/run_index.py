"""Several runs in one place: ``runs/index.html``, a page over every run folder of a runs folder, and
the run picker at the top of each run's viewer (report.html).

Both are static (opened from disk, no server): the index links each run's report.html by a relative
path, and the picker lists the sibling runs that existed when the report was written (a run written
later appears in reports rebuilt after it). The index is written on request (``adjudicate index
RUNS_DIR``), not by every bench: a runs folder holds run folders only unless its owner asks, since
scripts (and ``--runs-dir`` users) read it as a list of runs.
Per run the index shows its name and start time (the folder name), its arms with their labels
(report.json's), how
many samples each finished, winner accuracy over the samples the gold scores (from samples.jsonl,
once a report is written) and how many verdicts
a person annotated (human.json).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from adjudicator.bench.layout import HUMAN_JSON, MANIFEST, REPORT_HTML, REPORT_JSON, RESULTS, SAMPLES_JSONL, split_run_folder
from adjudicator.files import atomic_write_text

INDEX_HTML = "index.html"

_INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Benchmark runs · {{ folder }}</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:80rem} table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top} th{background:#f2f2f2} .note{color:#555}</style></head>
<body><h1>Benchmark runs in <code>{{ folder }}</code> ({{ runs|length }})</h1>
<p class="note">Newest first. Each run's page holds its statistics and every sample's verdict, calls and messages; the offline judge,
where it appears, is a deterministic baseline, not a judge. Written by <code>adjudicate index</code>; run it again after new runs.</p>
<table id="runs"><thead><tr><th>Run</th><th>Started (UTC)</th><th>Arms</th><th>Finished</th><th>Winner accuracy</th><th>Human</th></tr></thead><tbody>
{% for r in runs %}<tr data-run="{{ r.folder }}"><td>{% if r.href %}<a href="{{ r.href }}">{{ r.name }}</a>{% else %}{{ r.name }} <span class="note">(no report yet)</span>{% endif %}</td>
<td>{{ r.started }}</td><td>{% for a in r.arms %}{{ a.label }}<br>{% endfor %}</td><td>{% for a in r.arms %}{{ a.finished }}<br>{% endfor %}</td>
<td>{% for a in r.arms %}{{ a.accuracy }}<br>{% endfor %}</td><td>{{ r.human }}</td></tr>
{% endfor %}</tbody></table></body></html>
"""


@functools.lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    from adjudicator.bench.templates import report_environment

    return report_environment({"index.html": _INDEX}).get_template("index.html")


def run_folders(runs_dir: Path) -> list[Path]:
    """The run folders under ``runs_dir`` (named ``<timestamp>_<name>``, holding a manifest), newest first."""
    if not runs_dir.is_dir():
        return []
    found = [(parts[0], p) for p in runs_dir.iterdir() if p.is_dir() and (parts := split_run_folder(p)) and (p / MANIFEST).is_file()]
    return [p for _, p in sorted(found, reverse=True)]


def _read(path: Path) -> dict[str, Any]:
    """A JSON object file, {} when absent or unreadable (the index shows what it can of every run)."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _scored(run_dir: Path) -> dict[str, list[bool]]:
    """Per arm, the ``correct`` of every sample row winner accuracy scores (samples.jsonl; empty before
    the first report)."""
    import json

    out: dict[str, list[bool]] = {}
    try:
        lines = (run_dir / SAMPLES_JSONL).read_text(encoding="utf-8").splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("correct"), bool):
            out.setdefault(str(row.get("arm")), []).append(row["correct"])
    return out


def _run_entry(run_dir: Path) -> dict[str, Any]:
    stamp, name = split_run_folder(run_dir) or ("", run_dir.name)
    manifest = _read(run_dir / MANIFEST)
    labels = (_read(run_dir / REPORT_JSON).get("run") or {}).get("labels") or {}
    scored = _scored(run_dir)
    arms = []
    for arm in manifest.get("arms") or []:
        finished = len(list((run_dir / RESULTS / arm).glob("*.json")))
        marks = scored.get(arm) or []
        accuracy = f"{sum(marks) / len(marks):.3f} (n={len(marks)})" if marks else "—"
        arms.append({"label": labels.get(arm) or arm, "finished": finished, "accuracy": accuracy})
    human = _read(run_dir / HUMAN_JSON).get("annotations") or []
    started = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[9:11]}:{stamp[11:13]}" if len(stamp) == 16 else stamp
    href = f"{run_dir.name}/{REPORT_HTML}" if (run_dir / REPORT_HTML).is_file() else ""
    return {"folder": run_dir.name, "name": name, "started": started, "arms": arms, "href": href, "human": f"{len(human)} annotated" if human else "—"}


def write_index(runs_dir: Path) -> Path:
    """Write ``runs_dir/index.html`` over every run folder there (module docstring); returns its path.
    Raises OSError when the folder cannot be written."""
    runs = [_run_entry(p) for p in run_folders(runs_dir)]
    path = runs_dir / INDEX_HTML
    atomic_write_text(path, _template().render(folder=str(runs_dir), runs=runs))
    return path


def run_picker(run_dir: Path) -> Markup:
    """The picker of a run's page: a ``<select>`` over the runs beside it (this one selected) that opens
    the chosen run's report.html, and a link to the folder's index. Empty when the run is alone."""
    siblings = [p for p in run_folders(run_dir.parent) if p == run_dir or (p / REPORT_HTML).is_file()]
    if len(siblings) < 2:
        return Markup("")
    options = Markup("").join(
        Markup('<option value="{}"{}>{}</option>').format(f"../{p.name}/{REPORT_HTML}#samples", " selected" if p == run_dir else "", p.name) for p in siblings
    )
    return Markup(
        '<p class="run-picker note">Run: <select id="run-picker" aria-label="open another run" onchange="if (this.value) location.href = this.value">{}</select>'
        ' · <a href="../{}">all runs in this folder</a> (<code>adjudicate index</code> writes that page)</p>'
    ).format(options, INDEX_HTML)
