"""Report plots rendered with matplotlib (bare figures drawn by Agg; no pyplot, no display) into base64 PNG strings.

- :func:`reliability_plot`: reliability curve of p per arm (mean p against the observed
  affirmative-win share per bin, marker area by bin count, the diagonal for reference).
- :func:`stage_scatter`: predicted against human (3-judge mean) stage scores per arm, slightly
  jittered, with the identity line.
- :func:`cost_plots`: per-arm cost in US dollars (only when some price is known) and tokens per
  sample (only when some tokens were counted); :func:`cost_note` says what was left out and why.
Each returns None when there is nothing to draw (:func:`cost_plots`: an empty list).

Each function first works out what it draws (the points, bars and labels: cheap, no matplotlib),
then draws it. Given a :class:`PlotCache` (the bench's is ``~/.cache/adjudicator/plots``,
:func:`adjudicator.environment.default_plot_cache_dir`; deleting it only means drawing again), a picture whose
drawn data, plotting code (this file's bytes) and matplotlib version are those of one drawn before
is read back instead, byte for byte the same PNG: a rerun answered from the response cache, or
``bench --report-only``, then neither imports matplotlib nor draws (about 1.5 s of CPU).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from adjudicator.files import atomic_write_text, prune_oldest_files

#: Pictures a :class:`PlotCache` folder keeps (the most recently written); each is 15-60 kB.
PLOT_CACHE_ENTRIES = 256


class PlotCache:
    """Drawn pictures (base64 PNG text) in ``folder``, one ``<key>.b64`` file each, the key a
    SHA-256 of what was drawn and how (:func:`plot_key`). A folder that cannot be read or written
    only means drawing again: no error is raised. At most :data:`PLOT_CACHE_ENTRIES` are kept."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get(self, key: str) -> str | None:
        """The picture stored under ``key``, or None."""
        try:
            return (self.folder / f"{key}.b64").read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            return None

    def put(self, key: str, png: str) -> None:
        """Store ``png`` under ``key`` (atomically), then drop the oldest beyond the bound."""
        try:
            atomic_write_text(self.folder / f"{key}.b64", png)
            prune_oldest_files(self.folder, "*.b64", PLOT_CACHE_ENTRIES)
        except OSError:
            pass


@functools.lru_cache(maxsize=1)
def _drawing_version() -> str:
    """What else decides the pixels: this module's bytes and matplotlib's version (read from its
    installed metadata, without importing it)."""
    from importlib.metadata import version

    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest() + "|matplotlib " + version("matplotlib")


def _plain(o: Any) -> Any:
    if isinstance(o, np.ndarray | np.generic):
        return o.tolist()
    raise TypeError(f"cannot key a plot on {type(o).__name__}")


def plot_key(kind: str, spec: Any) -> str:
    """SHA-256 (hex) of a picture's kind, its drawn data ``spec`` (JSON: floats exactly, by repr)
    and :func:`_drawing_version`."""
    text = json.dumps([kind, _drawing_version(), spec], sort_keys=True, allow_nan=True, default=_plain)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _rendered(kind: str, spec: Any, draw: Callable[[Any], str], cache: PlotCache | None) -> str:
    """``draw(spec)``, or the same picture from ``cache`` when it holds it (then stored there)."""
    if cache is None:
        return draw(spec)
    key = plot_key(kind, spec)
    png = cache.get(key)
    if png is None:
        png = draw(spec)
        cache.put(key, png)
    return png


def _subplots(nrows: int = 1, ncols: int = 1, **kw: Any) -> tuple[Any, Any]:
    """``(figure, axes)`` like ``pyplot.subplots``, on a bare :class:`matplotlib.figure.Figure`:
    no pyplot, no backend registry and no figure manager (matplotlib's own advice for servers and
    files), which keeps the import that a report pays for small. ``kw`` goes to ``Figure.subplots``
    except ``figsize`` (inches)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=kw.pop("figsize", None))
    return fig, fig.subplots(nrows, ncols, **kw)


def _png(fig: Any) -> str:
    """The figure as base64 PNG text (110 dpi, tight bounding box), drawn by the Agg renderer."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def reliability_plot(calibration: dict[str, Any], cache: PlotCache | None = None) -> str | None:
    """Base64 PNG of the reliability curves in report["calibration"], or None."""
    series = []
    for c in (calibration or {}).values():
        pts = [(b["mean_p"], b["observed"], b["count"]) for b in c["curve"] if b["count"]]
        if not pts:
            continue
        x, y, n = (list(v) for v in zip(*pts))
        brier = c["brier"].get("value")
        series.append({"label": f"{c['label']} (Brier {brier:.3f})" if brier is not None else c["label"], "x": x, "y": y, "n": n})
    return _rendered("reliability", series, _draw_reliability, cache) if series else None


def _draw_reliability(series: list[dict[str, Any]]) -> str:
    fig, ax = _subplots(figsize=(5.2, 4.6))
    ax.plot([0, 1], [0, 1], color="#999", linestyle="--", linewidth=1, label="perfect calibration")
    for c in series:
        ax.plot(c["x"], c["y"], marker="o", linewidth=1.5, label=c["label"])
        ax.scatter(c["x"], c["y"], s=[20 + 8 * k for k in c["n"]], alpha=0.35)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted p (affirmative wins), bin mean")
    ax.set_ylabel("observed affirmative-win share")
    ax.set_title("Reliability of the winner tendency p")
    ax.legend(fontsize=8, loc="upper left")
    return _png(fig)


def stage_scatter(predictions: dict[str, Any], gold: Any, seed: int = 0, cache: PlotCache | None = None) -> str | None:
    """Base64 PNG of predicted vs human stage scores for every arm with parsed units, or None."""
    arms = [(a, p) for a, p in predictions.items() if np.isfinite(p.unit_pred).any() and np.isfinite(gold.unit_mean).any()]
    if not arms:
        return None
    rng = np.random.default_rng(seed)
    panels = []
    for _arm, p in arms:
        ok = np.isfinite(p.unit_pred) & np.isfinite(gold.unit_mean)
        x = gold.unit_mean[ok]
        y = p.unit_pred[ok] + rng.uniform(-0.12, 0.12, size=int(ok.sum()))
        panels.append({"title": f"{p.label} (n={int(ok.sum())})", "x": x.tolist(), "y": y.tolist()})
    return _rendered("stage_scatter", panels, _draw_scatter, cache)


def _draw_scatter(panels: list[dict[str, Any]]) -> str:
    fig, axes = _subplots(1, len(panels), figsize=(4.6 * len(panels), 4.4), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        ax.scatter(np.array(panel["x"]), np.array(panel["y"]), s=10, alpha=0.4)
        ax.plot([1, 10], [1, 10], color="#999", linestyle="--", linewidth=1)
        ax.set_xlim(0.5, 10.5)
        ax.set_ylim(0.5, 10.5)
        ax.set_xlabel("human score (3-judge mean)")
        ax.set_ylabel("predicted score (jittered)")
        ax.set_title(panel["title"], fontsize=9)
    return _png(fig)


def _has_price(sums: dict[str, Any]) -> bool:
    priced = sums.get("priced_requests")
    return bool(priced) if priced is not None else float(sums.get("cost_usd") or 0) > 0


def cost_note(ledger: dict[str, Any]) -> str | None:
    """The sentence shown with (or instead of) the cost chart of :func:`cost_plots`, or None when it
    draws both panels."""
    arms = ledger.get("arms") or {}
    if not arms:
        return None
    priced = any(_has_price(a) for a in arms.values())
    tokens = any((a.get("tokens_per_sample") or 0) > 0 for a in arms.values())
    if not priced and not tokens:
        if not any(a.get("requests") for a in arms.values()):
            return "No cost or token chart: no model request was sent (offline judge or cached answers only)."
        return "No cost or token chart: no price is known for these models and no request returned token counts."
    if not priced and not any(a.get("requests") for a in arms.values()):
        return "Cost not plotted: no model request was sent (every answer came from the cache), so nothing was billed; tokens per sample are shown instead."
    if not priced:
        return "Cost not plotted: no price is known for these models; tokens per sample are shown instead."
    if not tokens:
        return "Tokens not plotted: no request returned token counts."
    return None


def cost_plots(ledger: dict[str, Any], cache: PlotCache | None = None) -> list[str]:
    """Base64 PNGs of the cost chart, one picture per panel: per-arm cost in US dollars (known prices
    only; drawn only when some arm has a priced request), then tokens per sample (drawn only when
    some were counted); an empty list when neither has anything to show (see :func:`cost_note`).

    One picture per panel, each under its own plot-cache key, so a panel whose numbers did not change
    is read back without drawing: a rerun answered from the response cache bills nothing (no cost
    panel) but counts the same tokens per sample, so its tokens picture is the cold run's and it
    needs no matplotlib."""
    arms = ledger.get("arms") or {}
    if not arms:
        return []
    names = list(arms)
    panels = []
    if any(_has_price(arms[a]) for a in names):
        panels.append(("cost, US dollars (known prices only)", [arms[a]["cost_usd"] for a in names], "#4C72B0"))
    tokens = [arms[a].get("tokens_per_sample") or 0 for a in names]
    if any(t > 0 for t in tokens):
        panels.append(("tokens per sample (prompt + completion)", tokens, "#55A868"))
    return [_rendered("cost-panel", {"names": names, "panel": panel}, _draw_cost_panel, cache) for panel in panels]


def _draw_cost_panel(spec: dict[str, Any]) -> str:
    names, (title, values, color) = spec["names"], spec["panel"]
    fig, ax = _subplots(1, 1, figsize=(4.25, 3.4))
    ax.bar(names, values, color=color)
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.tick_params(axis="x", labelrotation=15)
    return _png(fig)
