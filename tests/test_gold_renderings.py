"""Every rendering of every gold number a match carries leaves a rationale, and the check finds
what the filter misses (issue 42, item 1; protocol 001 s.03: chains of thought in training data
must not contain gold numerical labels)."""

from __future__ import annotations

import pytest
from bench_helpers import labelled_2v2

from adjudicator.errors import InputError
from adjudicator.finetune import rationales as R
from adjudicator.finetune.gold_check import check_rationale, gold_renderings_in, zh_integer
from adjudicator.finetune.rationales import REDACTED, filter_rationale, gold_numbers


def _match():
    # 2:1 for the affirmative (panel p 2/3); s01|affirmative 6, 7, 8 (mean 7), s02 aff 5/5/5, neg 8/8/9
    # (mean 25/3 = 8.333..., paired difference -3.333...); best-debater votes summed
    # Affirmative Speaker 1 4, Negative Speaker 1 2, Negative Speaker 2 3 of 9 (shares 4/9, 2/9, 3/9)
    return labelled_2v2("m1", ["affirmative", "affirmative", "negative"], {"s01|affirmative": [6, 7, 8], "s02|affirmative": [5, 5, 5], "s02|negative": [8, 8, 9]},
                        [{"Affirmative Speaker 1": 3}, {"Affirmative Speaker 1": 1, "Negative Speaker 1": 2}, {"Negative Speaker 2": 3}])


GOLD = gold_numbers(_match(), [0.67])

#: One rendering per line: each is a gold number of the match above.
RENDERINGS = [
    # the 4/9 vote share of Affirmative Speaker 1, at every precision, as per cent and as a fraction
    "0.44", "0.444", "0.4444", "0.444444", ".44", "0.4", "44.4 %", "44.44%", "44 percent", "4/9", "4 out of 9", "four out of nine",
    "four ninths", "four-ninths", "８／９",
    # the panel's p (2:1 -> 2/3; its target 0.67) and the split
    "p=0.667", "p = 0.67", "0.66", "66.7%", "67 %", "two thirds", "2/3", "6/9", "1/3", "a third", "2:1",
    # a unit mean (25/3), the paired difference (-10/3), a judge's score, a judge's total (6 + 5)
    "8.33", "8.3", "8.333", "-3.33", "3.3", "scored eight", "nine points", "11",
    # Chinese
    "百分之四十四点四", "百分之四十四", "九分之四", "零点四四", "三分之二", "二比一", "平均八点三三分", "８．３３分", "两票", "七分",
]  # fmt: skip


def test_the_gold_numbers_hold_every_share_at_full_precision():
    for v in (4 / 9, 400 / 9, 44.0, 2 / 9, 1 / 3, 2 / 3, 200 / 3, 67.0, 66.0, 0.67, 25 / 3, 10 / 3, 11.0, 12.0, 1.0, 0.0):
        assert any(abs(v - x) < 1e-9 for x in GOLD), v


@pytest.mark.parametrize("rendering", RENDERINGS)
def test_every_rendering_is_removed_by_the_filter_and_found_by_the_check(rendering):
    text = f"The judges saw it: {rendering} in the end."
    assert gold_renderings_in(text, GOLD), rendering  # the check finds it before the filter
    with pytest.raises(InputError, match="contains the gold number"):
        check_rationale(text, GOLD, "m1 task1 match")  # --rationales verbatim refuses it
    out, n = filter_rationale(text, GOLD)
    assert n >= 1 and REDACTED in out
    assert gold_renderings_in(out, GOLD) == [] and R.gold_in_text(out, GOLD) == []
    check_rationale(out, GOLD, "m1 task1 match")  # passes


def test_the_filter_keeps_names_and_numbers_that_are_not_gold():
    text = "Affirmative Speaker 1 and 正方三辩 in 第三环节 (s03) 一定 made 15 arguments, 0.9 of them new."
    assert filter_rationale(text, GOLD) == (text, 0)
    assert gold_renderings_in(text, GOLD) == []


def test_a_fraction_and_its_parts_are_removed_as_one():
    assert filter_rationale("Four of nine: 4/9 voted; 三分之二的评委", GOLD) == (f"Four of nine: {REDACTED} voted; {REDACTED}的评委", 2)
    assert filter_rationale("p=.667, or 0.4 of the votes", GOLD) == (f"p={REDACTED}, or {REDACTED} of the votes", 2)


@pytest.mark.parametrize("rendering", RENDERINGS)
def test_the_check_does_not_rely_on_the_filters_reading_of_numbers(rendering, monkeypatch):
    """A filter that reads no number at all: the check still refuses every rendering."""
    monkeypatch.setattr(R, "number_mentions", lambda text: [])
    text = f"The judges saw it: {rendering} in the end."
    assert filter_rationale(text, GOLD) == (text, 0)
    with pytest.raises(InputError, match="contains the gold number"):
        check_rationale(text, GOLD, "m1 task1 match")


def test_the_check_finds_a_form_the_filter_does_not_read():
    # a vulgar fraction character: the filter reads no number in it, the check's NFKC form is 2/3
    text = "⅔ of the panel preferred the affirmative"
    assert filter_rationale(text, GOLD) == (text, 0)
    assert gold_renderings_in(text, GOLD) == ["2", "2/3", "3"]  # the fraction and its parts
    with pytest.raises(InputError, match="contains the gold number '2' \\(3 gold"):
        check_rationale(text, GOLD, "m1 task1 match")


def test_chinese_numerals():
    assert [zh_integer(n) for n in (0, 2, 7, 10, 12, 30, 47)] == [["零", "〇"], ["二", "两"], ["七"], ["十", "一十"], ["十二", "一十二"], ["三十"], ["四十七"]]
    # an integer next to a decimal point is part of the decimal: 六点五 is 6.5, not the gold 6
    assert gold_renderings_in("六点五分", frozenset({6.0})) == [] and filter_rationale("六点五分", frozenset({6.0}))[1] == 0


def test_a_date_in_a_path_is_no_fraction_for_the_filter_or_the_check():
    # PanelBench debateart_4374 cites .../economy/2020/9/9/...: 9/9 is 1, a gold share there
    text = "see aljazeera.com/amp/economy/2020/9/9/the-business-of-going-out-of-business"
    gold = frozenset({1.0, 100.0})
    assert filter_rationale(text, gold) == (text, 0) and gold_renderings_in(text, gold) == []
    assert filter_rationale("9/9 of the votes", gold) == (f"{REDACTED} of the votes", 1)
