"""Recurring Chinese phrases for the offline judge: a cheap, documented stand-in for word segmentation.

:func:`zh_phrases` finds the word-like phrases of 2-5 characters that recur in a debate's texts and
are not fragments of longer units; :class:`PhraseCounter` keeps the same answer as texts arrive one at
a time (the offline tracker reads a debate stage by stage); :func:`zh_candidates` lists the substrings
of one text a phrase could be. The function characters and stop bigrams are
:mod:`adjudicator.judges.offline.text`'s; like every list there, none was fitted to labels.
"""

from __future__ import annotations

from typing import Any

from adjudicator.judges.offline.text import CJK_RUN, URL, ZH_STOPBIGRAMS, ZH_STOPCHARS

#: Characters allowed inside a phrase but never making one on their own (function-like, yet part of
#: words such as 过程, 对照, 地区, 行为); a phrase made only of these is dropped.
_ZH_WEAKCHARS = frozenset("过对向于以之其所为得地很还又再并且即否从")
_ZH_STRONGSTOP = ZH_STOPCHARS - _ZH_WEAKCHARS
#: Weak characters that do not start a word (a phrase starting or ending with one is a cross-word piece).
_ZH_BAD_START = frozenset("于以之其并且即否得很还又再")
#: Generic words that recur in any debate and never name a clash.
_ZH_GENERIC = frozenset(
    """不会 不能 不要 不用 只要 只有 一样 同样 本身 第一 第二 第三 第四 之后 之前 得到 通过 其实 还有 真正 方面 情况
    东西 事情 地方 哪些 哪一 为止 以后 以前 之间 所有 一定 一直 所谓 直接 这样 那样 那么 这么 或者 以及 然后 至少 更多
    刚才 最后 回答 承认 反驳 一点 两点 三点 一下 您说 你说 他说 您方 你方 自己 方说 才能 说明 更好 任何 其他 一些 有些 很多 非常""".split()
)


def zh_phrases(texts: list[str], min_count: int = 2, max_len: int = 5) -> dict[str, int]:
    """Word-like Chinese phrases of 2..``max_len`` characters that recur in ``texts``, with counts.

    A cheap stand-in for word segmentation (chosen over adding a segmenter dependency). A candidate
    is a CJK substring without a function character (的, 了, 是, ...; 过, 对, 以 are allowed inside a
    phrase but a phrase of only such characters is dropped), without a stop bigram (我们, 对方, ...)
    and not a generic word (第一, 同样, 承认, ...), occurring at least ``min_count`` times. It is kept
    only if it is not a fragment of a longer unit:

    - no single one-character extension accounts for 80% or more of its occurrences (过程 inside
      过程稿, 数人 inside 多数人), and for 3+ characters its left extensions together do not
      (实声明 inside 诚实声明 / 如实声明);
    - it does not end with one of those function-like characters or 不, nor start with 于, 以, 之, ...;
    - in fewer than half of its occurrences does it start (end) with the second (first) character of a
      stop bigram (方说 from 对方说, 谢主 from 谢谢主席).

    Returns phrase -> count."""
    counter = PhraseCounter(min_count, max_len)
    for text in texts:
        counter.add(text)
    return counter.phrases()


def _ok_bigrams(run: str) -> list[bool]:
    """For each bigram of a CJK run: whether a phrase may hold it (no stop bigram, no strong stop character)."""
    return [not (run[i : i + 2] in ZH_STOPBIGRAMS or run[i] in _ZH_STRONGSTOP or run[i + 1] in _ZH_STRONGSTOP) for i in range(len(run) - 1)]


def zh_candidates(text: str, max_len: int = 5) -> set[str]:
    """The distinct CJK substrings of 2..``max_len`` characters of ``text`` that a phrase of
    :func:`zh_phrases` could be (every bigram inside allowed; ``text`` as given, URLs included). A
    phrase occurs in ``text`` exactly when it is one of them."""
    out: set[str] = set()
    for run in CJK_RUN.findall(text or ""):
        ok = _ok_bigrams(run)
        for i in range(len(run) - 1):
            for n in range(2, max_len + 1):
                if i + n > len(run) or not ok[i + n - 2]:
                    break
                out.add(run[i : i + n])
    return out


class PhraseCounter:
    """The running counts behind :func:`zh_phrases`: texts are added one at a time and
    :meth:`phrases` equals ``zh_phrases`` of every text added so far, in the same order (a phrase's
    first occurrence), at a cost per added text in proportion to that text alone.

    It keeps every candidate's occurrence count (and the count of occurrences broken by a stop
    bigram), its largest one-character extension and the sum of its left extensions, and re-decides
    only the candidates an added text touched (those it contains, and the sub-phrases one character
    shorter of those); counts only grow, so the largest extension is a running maximum. Not
    thread-safe (one reader per debate)."""

    def __init__(self, min_count: int = 2, max_len: int = 5) -> None:
        self.min_count = min_count
        self.max_len = max_len
        self._counts: dict[str, int] = {}  # insertion order: first occurrence
        self._order: dict[str, int] = {}
        self._broken: dict[str, int] = {}
        self._top_ext: dict[str, int] = {}
        self._left_sum: dict[str, int] = {}
        self._kept: set[str] = set()

    def add(self, text: str) -> None:
        """Count the candidates of one more ``text`` (URLs removed) and re-decide those it touched."""
        counts, broken = self._counts, self._broken
        touched: dict[str, int] = {}
        for run in CJK_RUN.findall(URL.sub(" ", text or "")):
            ok = _ok_bigrams(run)
            for i in range(len(run) - 1):
                for n in range(2, self.max_len + 2):  # one beyond max_len to test closure of max_len phrases
                    if i + n > len(run) or not ok[i + n - 2]:
                        break
                    g = run[i : i + n]
                    if g not in counts:
                        self._order[g] = len(self._order)
                    counts[g] = counts.get(g, 0) + 1
                    touched[g] = touched.get(g, 0) + 1
                    if (i > 0 and run[i - 1 : i + 1] in ZH_STOPBIGRAMS) or run[i + n - 1 : i + n + 1] in ZH_STOPBIGRAMS:
                        broken[g] = broken.get(g, 0) + 1
        affected = set(touched)
        for g, added in touched.items():
            if len(g) >= 3:
                c = counts[g]
                for part in (g[1:], g[:-1]):
                    self._top_ext[part] = max(self._top_ext.get(part, 0), c)
                    affected.add(part)
                self._left_sum[g[1:]] = self._left_sum.get(g[1:], 0) + added
        for g in affected:
            if self._keeps(g):
                self._kept.add(g)
            else:
                self._kept.discard(g)

    def _keeps(self, g: str) -> bool:
        """Whether ``g`` is a phrase now (the rules of :func:`zh_phrases`)."""
        c = self._counts.get(g, 0)
        if not (2 <= len(g) <= self.max_len and c >= self.min_count) or g in _ZH_GENERIC or all(ch in _ZH_WEAKCHARS for ch in g):
            return False
        if g[-1] in _ZH_WEAKCHARS or g[-1] == "不" or g[0] in _ZH_BAD_START:
            return False
        if self._top_ext.get(g, 0) >= 0.8 * c or self._broken.get(g, 0) * 2 >= c:
            return False
        return not (len(g) >= 3 and self._left_sum.get(g, 0) >= 0.8 * c)

    def __contains__(self, phrase: object) -> bool:
        return phrase in self._kept

    def __len__(self) -> int:
        return len(self._kept)

    def phrases(self) -> dict[str, int]:
        """Phrase -> count, in order of first occurrence (what :func:`zh_phrases` returns)."""
        return {g: self._counts[g] for g in self.ordered(self._kept)}

    def ordered(self, phrases: set[str]) -> list[str]:
        """``phrases`` (counted candidates) in order of first occurrence."""
        return sorted(phrases, key=self._order.__getitem__)

    def state(self) -> dict[str, Any]:
        """The counts as plain data (str / int / list / dict: any msgpack or JSON encoder takes it);
        :meth:`from_state` builds the counter again."""
        # no "order": a candidate's first occurrence is its place in ``counts`` (both are written together in add())
        return {"min_count": self.min_count, "max_len": self.max_len, "counts": self._counts, "broken": self._broken,
                "top_ext": self._top_ext, "left_sum": self._left_sum, "kept": list(self._kept)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> PhraseCounter:
        """The counter :meth:`state` saved (equal in every count). Raises KeyError / TypeError /
        ValueError for a malformed state."""
        p = cls(int(state["min_count"]), int(state["max_len"]))
        p._counts, p._broken = dict(state["counts"]), dict(state["broken"])
        p._order = {g: i for i, g in enumerate(p._counts)}
        p._top_ext, p._left_sum, p._kept = dict(state["top_ext"]), dict(state["left_sum"]), set(state["kept"])
        return p

    def found_in(self, text: str) -> list[str]:
        """The phrases that occur in ``text`` (as given, URLs included), in order of first occurrence:
        ``[p for p in self.phrases() if p in text]`` at a cost in proportion to ``text``."""
        return self.ordered({g for g in zh_candidates(text, self.max_len) if g in self._kept})
