"""What every place that shows the offline judge's work says about it, in English and Chinese: that it
is a deterministic baseline, not a judge, and what winner accuracy to expect from it on debates it has
never seen. The one source of that sentence and of its figures (:data:`HELD_OUT`): the verdict's
provenance (``provenance.offline_note``), the command line's summary on stderr, the top of the
Markdown and HTML reports, the live board and its report page (label keys ``offline.*`` and
``page.offline``, merged into :mod:`adjudicator.verdict.labels`); README and the manual quote the same
figures (``tests/test_offline_words.py`` holds them to it).

The figures (issue 25): the offline judge on 39 real DebateArt debates never shown to the team, run
through ``adjudicate bench`` (95% intervals); the bundled PanelBench set is where its constants were
chosen, so its accuracy there says nothing about new debates.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HeldOut:
    """The offline judge's winner accuracy on unseen debates, against always answering "negative"."""

    debates: int = 39
    accuracy: float = 0.629
    low: float = 0.457
    high: float = 0.771
    always_negative: float = 0.600
    mcnemar_p: float = 1.0
    bundled_accuracy: float = 0.763  # on the bundled PanelBench set, which its constants were chosen on


HELD_OUT = HeldOut()


def _dec(x: float) -> str:
    """A proportion as the field writes it: ``.629``."""
    return f"{x:.3f}".removeprefix("0")


FIGURES = {
    "debates": HELD_OUT.debates, "accuracy": _dec(HELD_OUT.accuracy), "low": _dec(HELD_OUT.low), "high": _dec(HELD_OUT.high),
    "negative": _dec(HELD_OUT.always_negative), "mcnemar": f"{HELD_OUT.mcnemar_p:.1f}", "bundled": _dec(HELD_OUT.bundled_accuracy),
}

_EN = {
    "offline.short": "the offline judge: a deterministic baseline, not a judge",
    "offline.note": (
        "This verdict comes from the offline judge, a deterministic baseline, not a judge: it counts words, questions, "
        "answers and clash moves and does not understand the debate. On {debates} real DebateArt debates the team had never seen, "
        "its winner accuracy was {accuracy} (95% interval {low}-{high}), against {negative} for always answering "
        "“negative” (McNemar p = {mcnemar}); its {bundled} on the bundled PanelBench set is from the debates it was built on."
    ),
    "page.offline": "the offline judge: a deterministic baseline, not a judge; winner accuracy {accuracy} on {debates} unseen debates, always-negative {negative}",
}
_ZH = {
    "offline.short": "离线评委：确定性的基线，不是评委",
    "offline.note": (
        "这份裁决出自离线评委。它是一个确定性的基线，不是评委：它只统计字词、提问、回答和争议点上的动作，并不理解辩论内容。"
        "在 {debates} 场团队从未见过的真实 DebateArt 辩论上，它判断胜方的准确率为 {accuracy}（95% 区间 {low}-{high}），"
        "而一律判反方胜的准确率为 {negative}（McNemar 检验 p = {mcnemar}）；它在随附的 PanelBench 数据上的 {bundled} "
        "来自构建它时所用的辩论。"
    ),
    "page.offline": "离线评委：确定性的基线，不是评委；在 {debates} 场未见过的辩论上胜方准确率 {accuracy}，一律判反方为 {negative}",
}

#: The label keys (``offline.short``, ``offline.note``, ``page.offline``) with the figures filled in.
NOTE_EN: dict[str, str] = {k: v.format(**FIGURES) for k, v in _EN.items()}
NOTE_ZH: dict[str, str] = {k: v.format(**FIGURES) for k, v in _ZH.items()}


def offline_note(language: str) -> str:
    """The full sentence about the offline judge in ``language`` ("zh", else English)."""
    return (NOTE_ZH if language == "zh" else NOTE_EN)["offline.note"]


def offline_short(language: str) -> str:
    """The short form: ``the offline judge: a deterministic baseline, not a judge``."""
    return (NOTE_ZH if language == "zh" else NOTE_EN)["offline.short"]
