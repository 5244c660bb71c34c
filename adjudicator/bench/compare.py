"""``adjudicate compare RUN_A RUN_B``: the paired comparison of two runs on their common subset.

The runs are aligned on the matches *finished in both*: the same match id with identical content
(file hash) and a result file for the compared arm in each run (a run stopped after 20 samples is
compared on those 20, whatever its dataset holds). Within those, every test uses only the instances
both arms parsed (the protocol's common subset) and the same exclusions as report.md: winner
accuracy and the Brier score count matches with a decisive gold winner only (ties excluded).
Winner accuracy: exact McNemar test. Brier score, stage MSE / Pearson / Spearman, tendency agreement,
best-debater top-1, vote-share MAE and Pearson: paired match-level bootstrap of the difference A - B
(see :func:`adjudicator.bench.scoring.run.paired_comparison`). Metrics the dataset cannot support are
reported as not applicable. Comparing a run (or an arm) with itself is allowed but warned about.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adjudicator.bench.compare_samples import differing_samples, format_differences, manifest_differences, run_label
from adjudicator.bench.gold import gold_from_matches
from adjudicator.bench.human import read_human
from adjudicator.bench.layout import latest_run_dir
from adjudicator.bench.manifest import read_manifest
from adjudicator.bench.predictions import predictions_for_arm
from adjudicator.bench.report import arm_label, load_results, run_samples
from adjudicator.bench.samples import sample_rows
from adjudicator.bench.scoring.leaves import ScoreSettings
from adjudicator.bench.scoring.run import paired_comparison
from adjudicator.errors import InputError


def resolve_run(ref: str, runs_dir: Path) -> Path:
    """A run folder from ``ref``: a path to a run folder, or a run name (its latest run under
    ``runs_dir``). Raises InputError when neither exists."""
    p = Path(ref)
    if p.is_dir() and (p / "manifest.json").exists():
        return p
    latest = latest_run_dir(runs_dir, ref)
    if latest is not None:
        return latest
    raise InputError(f"{ref}: not a run folder and no run of that name under {runs_dir}", "give a runs/<timestamp>_<name> folder or a run name")


def _pick_arm(run_dir: Path, arm: str | None, which: str) -> str:
    arms = read_manifest(run_dir).arms
    if arm is None:
        return arms[0]
    if arm not in arms:
        raise InputError(f"--arm-{which}: run {run_dir.name} has no arm {arm!r}", f"its arms: {', '.join(arms)}")
    return arm


def same_run_warnings(run_a: Path, run_b: Path, arm_a: str, arm_b: str) -> list[str]:
    """Warnings for comparing a run with itself: the same folder (or two copies of one run, the same
    manifest run id) with the same arm gives identical predictions, so every difference is 0 and
    every p-value 1; the same run with two arms repeats the paired tests of its own report."""
    id_a, id_b = read_manifest(run_a).run_id, read_manifest(run_b).run_id
    same_folder = run_a.resolve() == run_b.resolve()
    if not same_folder and id_a != id_b:
        return []
    where = f"the same run folder {run_a}" if same_folder else f"two copies of run {id_a} ({run_a} and {run_b})"
    if arm_a == arm_b:
        return [f"RUN_A and RUN_B are {where} with the same arm {arm_a!r}: the predictions are identical, so every difference is 0 and every test says nothing"]
    return [f"RUN_A and RUN_B are {where} (arms {arm_a!r} and {arm_b!r}): these paired tests are already in that run's report"]


def _aligned(run_a: Path, run_b: Path, a_arm: str, b_arm: str) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """``(shared samples, results of A's arm, results of B's arm)``: the samples with identical content
    in both runs and a result in each (module docstring), and every finished result of each run by
    sample id. Raises InputError when the runs share no match, or no finished match."""
    sa = {s.sample_id: s for s in run_samples(run_a)}
    sb = {s.sample_id: s for s in run_samples(run_b)}
    ra_all = load_results(run_a, [a_arm], list(sa.values()))[a_arm]
    rb_all = load_results(run_b, [b_arm], list(sb.values()))[b_arm]
    same = [i for i in sa if i in sb and sa[i].sha256 == sb[i].sha256]
    shared = [sa[i] for i in same if i in ra_all and i in rb_all]
    if not same:
        raise InputError(f"runs {run_a.name} and {run_b.name} share no match with identical content", "compare runs made on the same dataset")
    if not shared:
        raise InputError(
            f"runs {run_a.name} ({len(ra_all)} finished) and {run_b.name} ({len(rb_all)} finished) have no match finished in both",
            "resume the runs (adjudicate bench ... --resume) so they overlap",
        )
    return shared, ra_all, rb_all


def compare_runs(run_a: Path, run_b: Path, *, arm_a: str | None = None, arm_b: str | None = None, settings: ScoreSettings = ScoreSettings(),
                 p_moved: float = 0.1) -> dict[str, Any]:  # fmt: skip
    """Paired comparison of ``arm_a`` in ``run_a`` with ``arm_b`` in ``run_b`` (default: each run's
    first arm) on the matches finished in both (module docstring).

    Returns a JSON-ready dict: ``matches_shared`` (finished in both, identical content; failed
    samples included, their instances then count as unparsed), ``matches_only_a`` /
    ``matches_only_b`` (finished in that run but not aligned), ``finished`` (each run's finished
    count, and how many of the shared are failed or partial), ``n_decisive_shared``, ``warnings``
    (see :func:`same_run_warnings`), the labels and the tests. A result file of any status counts as
    finished. ``settings_differ`` and ``samples_differ`` (with ``p_moved``, the least move of p that
    counts) are :mod:`adjudicator.bench.compare_samples`'; each label names what is its run's own.
    Keys starting with ``_`` (the shared matches, results and sample rows, for the HTML diff) are
    not JSON. Raises InputError when the runs share no match, or no finished match."""
    a_arm = _pick_arm(run_a, arm_a, "a")
    b_arm = _pick_arm(run_b, arm_b, "b")
    shared, ra_all, rb_all = _aligned(run_a, run_b, a_arm, b_arm)
    ids = [s.sample_id for s in shared]
    ra = {i: ra_all[i] for i in ids}
    rb = {i: rb_all[i] for i in ids}
    matches = [s.match for s in shared]
    gold = gold_from_matches(matches)
    app = gold.applicability()
    man_a, man_b = read_manifest(run_a), read_manifest(run_b)
    differ = manifest_differences(man_a, man_b, a_arm, b_arm)
    la = f"{run_a.name}: {run_label(arm_label(a_arm, man_a.models.get(a_arm, {}), man_a.config.get('panel', 'scoring')), differ, 'a')}"
    lb = f"{run_b.name}: {run_label(arm_label(b_arm, man_b.models.get(b_arm, {}), man_b.config.get('panel', 'scoring')), differ, 'b')}"
    pa = predictions_for_arm(a_arm, la, gold, matches, ra)
    pb = predictions_for_arm(b_arm, lb, gold, matches, rb)
    result = paired_comparison(pa, pb, gold, app, settings)
    rows_a = sample_rows(matches, gold, {a_arm: pa}, {a_arm: ra}, {})
    rows_b = sample_rows(matches, gold, {b_arm: pb}, {b_arm: rb}, {})
    return {
        "run_a": str(run_a),
        "run_b": str(run_b),
        "arm_a": a_arm,
        "arm_b": b_arm,
        "warnings": same_run_warnings(run_a, run_b, a_arm, b_arm),
        "matches_shared": len(shared),
        "matches_only_a": sum(1 for i in ra_all if i not in ids),
        "matches_only_b": sum(1 for i in rb_all if i not in ids),
        "finished": {
            "a": len(ra_all),
            "b": len(rb_all),
            "a_failed_or_partial_shared": sum(r.status != "ok" for r in ra.values()),
            "b_failed_or_partial_shared": sum(r.status != "ok" for r in rb.values()),
        },
        "n_decisive_shared": int(gold.decisive.sum()),
        "not_applicable": {t: r for t, r in app.items() if r is not None},
        **result,
        "settings_differ": differ,
        "p_moved": p_moved,
        "samples_differ": differing_samples(rows_a, rows_b, p_moved, read_human(run_a), read_human(run_b)),
        "_matches": {m.match_id: m for m in matches}, "_results_a": ra, "_results_b": rb, "_rows_a": rows_a, "_rows_b": rows_b,
    }


def _f(x: Any) -> str:
    return "—" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)


def format_comparison(c: dict[str, Any]) -> str:
    """Plain-text table of :func:`compare_runs`' result."""
    fin = c["finished"]
    lines = [f"WARNING: {w}" for w in c.get("warnings") or []]
    lines += [
        f"A: {c['label_a']}",
        f"B: {c['label_b']}",
        f"{c['matches_shared']} matches finished in both runs (finished A {fin['a']}, B {fin['b']}; only A {c['matches_only_a']}, only B {c['matches_only_b']}); "
        f"of those, failed or partial: A {fin.get('a_failed_or_partial_shared', 0)}, B {fin.get('b_failed_or_partial_shared', 0)}; "
        f"{c.get('n_decisive_shared', '?')} with a decisive gold winner (accuracy and Brier use these only)",
        "",
        f"{'metric':<22} {'test':<18} {'A':>7} {'B':>7} {'A-B':>8} {'95% CI':>19} {'p':>7} {'n':>6}",
    ]
    for name, t in c["tests"].items():
        if t["test"] == "exact McNemar":
            a, b = t.get("accuracy_a"), t.get("accuracy_b")
            d = None if a is None or b is None else a - b
            lines.append(f"{name:<22} {'exact McNemar':<18} {_f(a):>7} {_f(b):>7} {_f(d):>8} {'(A only ' + str(t['a_only']) + ', B only ' + str(t['b_only']) + ')':>19} {_f(t['p_value']):>7} {t['n']:>6}")
        elif "difference" in t:
            ci = f"[{_f(t['low'])}, {_f(t['high'])}]"
            lines.append(f"{name:<22} {'paired bootstrap':<18} {_f(t['value_a']):>7} {_f(t['value_b']):>7} {_f(t['difference']):>8} {ci:>19} {_f(t['p_value']):>7} {t['n']:>6}")
        else:
            lines.append(f"{name:<22} {t['test']:<18} {t.get('reason', '')}")
    for task, reason in c.get("not_applicable", {}).items():
        lines.append(f"{task}: not applicable ({reason})")
    return "\n".join(lines) + "\n" + (format_differences(c) if "samples_differ" in c else "")
