"""The bootstrap's resamples as index sequences, and the CCDB metrics computed over all of them at once.

A match-level bootstrap draws, for each of R resamples, as many matches as there are, with
replacement (:mod:`adjudicator.evaluation.uncertainty`). Calling a metric once per resample costs R
calls of a validating Python function (R = 2,000 per interval). Here the draw is one (R, M) array of
drawn matches (:class:`Resamples`), expanded into :class:`IndexSets`: for every resample the
sequence of the item indices it holds, in draw order, exactly the sequence a per-resample call
would see. A metric's *batched form* (:data:`BATCHED`) reads its inputs once (validation,
exclusions, per-item values), then evaluates the statistic on every resample with whole-array numpy
operations.

Identical numbers. Each batched form performs the same floating-point operations, in the same
order, as its metric on one resample: the sequences are grouped by length, each group is a (G, L)
matrix whose rows are the resamples, and every reduction runs along a row (numpy reduces a
contiguous row as it reduces a 1-D array: the same pairwise summation, and ``matmul`` of a row
vector by a column vector is the same BLAS dot as ``np.dot``). Rank correlations rank once: every
value gets its dense rank among the distinct values of the whole input (one sort), and a resample's
average ranks follow from how often it holds each distinct value (a tie group of ``c`` items after
``a`` smaller ones has rank ``a + (c + 1) / 2``, the ``method="average"`` rule of
``scipy.stats.rankdata``). Average ranks are multiples of 1/2, so they are exact. A test
(``tests/test_stats.py``) checks every batched form against one call per resample, bit for bit.

A metric without a batched form falls back to one call per resample (:func:`evaluate_each`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from adjudicator.evaluation import metrics as M
from adjudicator.evaluation.inputs import check_p, gold_winners, same_length, vector

#: Upper bound on the index entries one chunk of resamples expands to (32 MB of int64), which keeps
#: memory flat for datasets with many matches or many items per match.
CHUNK_ENTRIES = 4_000_000


@dataclass(frozen=True)
class IndexSets:
    """R sequences of indices, laid end to end (compressed rows).

    ``flat`` (sum of lengths,) int64: every sequence's indices in order; ``offsets`` (R + 1,):
    sequence r is ``flat[offsets[r] : offsets[r + 1]]``.
    """

    flat: np.ndarray
    offsets: np.ndarray

    @property
    def count(self) -> int:
        """R, the number of sequences."""
        return int(self.offsets.size - 1)

    @property
    def lengths(self) -> np.ndarray:
        """(R,) the length of every sequence."""
        return np.diff(self.offsets)

    def row(self, r: int) -> np.ndarray:
        """The indices of sequence ``r``."""
        return self.flat[self.offsets[r] : self.offsets[r + 1]]

    def expand(self, order: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> IndexSets:
        """Every index ``i`` replaced by its children ``order[starts[i] : starts[i] + sizes[i]]``
        (``sizes[i]`` 0 drops it). ``order`` (C,): child indices grouped by parent; ``starts``,
        ``sizes`` (P,) one entry per parent."""
        n = sizes[self.flat]
        ends = np.cumsum(n)
        # each child's position in `order`: its parent's start plus its rank among its siblings
        pos = np.repeat(starts[self.flat] - (ends - n), n) + np.arange(int(ends[-1]) if ends.size else 0)
        return IndexSets(order[pos], np.concatenate(([0], ends))[self.offsets])

    def by_length(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """``(rows, matrix)`` per distinct length L: ``rows`` (G,) the sequences of that length and
        ``matrix`` (G, L) their indices, one sequence per row."""
        lengths = self.lengths
        if lengths.size and np.all(lengths == lengths[0]):
            yield np.arange(lengths.size), self.flat.reshape(lengths.size, int(lengths[0]))
            return
        for length in np.unique(lengths):
            rows = np.flatnonzero(lengths == length)
            yield rows, self.flat[self.offsets[rows][:, None] + np.arange(int(length))]


def _members(clusters: list[np.ndarray] | None, n: int) -> IndexSets:
    """The items of every match as index sequences (each item its own match when ``clusters`` is None)."""
    if clusters is None:
        return IndexSets(np.arange(n, dtype=np.int64), np.arange(n + 1, dtype=np.int64))
    flat = np.concatenate(clusters).astype(np.int64) if clusters else np.empty(0, np.int64)
    return IndexSets(flat, np.concatenate(([0], np.cumsum([c.size for c in clusters]))).astype(np.int64))


@dataclass(frozen=True)
class Resamples:
    """The matches drawn by R bootstrap resamples.

    ``chosen`` (R, M) int: row r holds the M matches resample r draws, with replacement, in draw
    order; ``clusters``: the item indices of each match (None: item i is match i); ``n``: the items.
    A resample holds the items of its drawn matches in draw order, repeated as often as drawn.
    """

    chosen: np.ndarray
    clusters: list[np.ndarray] | None
    n: int

    @property
    def count(self) -> int:
        """R, the number of resamples."""
        return int(self.chosen.shape[0])

    def _per_match(self, keep: np.ndarray | None, starts: np.ndarray | None, sizes: np.ndarray | None) -> IndexSets:
        """Every match's elements as index sequences: those of its kept items in item order, item i
        standing for the elements ``starts[i] : starts[i] + sizes[i]`` (default: itself)."""
        members = _members(self.clusters, self.n)
        if keep is None and starts is None:
            return members
        item = np.arange(self.n, dtype=np.int64)
        st = item if starts is None else np.asarray(starts, dtype=np.int64)
        sz = np.ones(self.n, dtype=np.int64) if sizes is None else np.asarray(sizes, dtype=np.int64)
        if keep is not None:
            sz = np.where(keep, sz, 0)
        return members.expand(np.arange(int((st + sz).max(initial=0)), dtype=np.int64), st, sz)

    def _chunks(self, per_match: IndexSets) -> Iterator[IndexSets]:
        """The element sequences of every resample, in chunks of at most :data:`CHUNK_ENTRIES` indices."""
        r, m = self.chosen.shape
        starts, sizes = per_match.offsets[:-1], per_match.lengths
        step = max(1, CHUNK_ENTRIES // max(1, int(per_match.flat.size)))
        for lo in range(0, r, step):
            part = self.chosen[lo : lo + step]
            drawn = IndexSets(part.reshape(-1).astype(np.int64, copy=False), np.arange(part.shape[0] + 1, dtype=np.int64) * m)
            yield drawn.expand(per_match.flat, starts, sizes)

    def each(self, kernel: Callable[[IndexSets], np.ndarray], keep: np.ndarray | None = None, starts: np.ndarray | None = None,
             sizes: np.ndarray | None = None) -> np.ndarray:
        """(R,) ``kernel`` applied to the element sequences of all resamples. ``keep`` (n,) bool
        drops the items where it is False; ``starts``, ``sizes`` (n,) map item i to the elements
        ``starts[i] : starts[i] + sizes[i]`` (e.g. a vote vector's debaters), by default to itself."""
        out = [kernel(sets) for sets in self._chunks(self._per_match(keep, starts, sizes))]
        return np.concatenate(out) if out else np.empty(0)

    def item_sequences(self) -> Iterator[np.ndarray]:
        """The item indices of every resample in turn (what one call per resample is given)."""
        for sets in self._chunks(_members(self.clusters, self.n)):
            for r in range(sets.count):
                yield sets.row(r)


# ---------------------------------------------------------------------------------------------
# kernels: one value per sequence, NaN where undefined


def _nan(sets: IndexSets) -> np.ndarray:
    return np.full(sets.count, np.nan)


def mean_over(values: np.ndarray, sets: IndexSets) -> np.ndarray:
    """(R,) ``values[seq].mean()`` for each sequence (NaN for an empty one)."""
    out = _nan(sets)
    for rows, idx in sets.by_length():
        if idx.shape[1]:
            out[rows] = values[idx].mean(axis=1)
    return out


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise Pearson r of two (G, L) matrices with the operations of
    :func:`adjudicator.evaluation.metrics._pearson`, in its order; NaN when L < 2 or a row is constant."""
    g, length = x.shape
    if length < 2:
        return np.full(g, np.nan)
    xc = x - x.mean(axis=1)[:, None]
    yc = y - y.mean(axis=1)[:, None]
    sxx = np.matmul(xc[:, None, :], xc[:, :, None]).reshape(g)
    syy = np.matmul(yc[:, None, :], yc[:, :, None]).reshape(g)
    sxy = np.matmul(xc[:, None, :], yc[:, :, None]).reshape(g)
    bad = (x.max(axis=1) == x.min(axis=1)) | (y.max(axis=1) == y.min(axis=1)) | (sxx == 0) | (syy == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)
    r[bad] = np.nan
    return r


def pearson_over(x: np.ndarray, y: np.ndarray, sets: IndexSets) -> np.ndarray:
    """(R,) Pearson r of ``(x[seq], y[seq])`` for each sequence (NaN when undefined)."""
    out = _nan(sets)
    for rows, idx in sets.by_length():
        out[rows] = _pearson_rows(x[idx], y[idx])
    return out


def _average_ranks(codes: np.ndarray, n_distinct: int) -> np.ndarray:
    """Row-wise average ranks (1-based; ties share the mean of their ranks) of a (G, L) matrix of
    dense ranks in 0..n_distinct-1, from each row's count of every distinct value."""
    g = codes.shape[0]
    counts = np.bincount((np.arange(g)[:, None] * n_distinct + codes).reshape(-1), minlength=g * n_distinct).reshape(g, n_distinct)
    rank_of = np.cumsum(counts, axis=1) - (counts - 1) / 2.0
    return np.take_along_axis(rank_of, codes, axis=1)


class Ranker:
    """Spearman rho over index sequences, ranking once: ``x`` and ``y`` (N,) finite are each sorted
    once into dense ranks; a sequence's average ranks come from its counts of each distinct value."""

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        _, self.cx = np.unique(x, return_inverse=True)
        _, self.cy = np.unique(y, return_inverse=True)
        self.ux = int(self.cx.max(initial=-1)) + 1
        self.uy = int(self.cy.max(initial=-1)) + 1

    def spearman_over(self, sets: IndexSets) -> np.ndarray:
        """(R,) Spearman rho of ``(x[seq], y[seq])`` for each sequence: Pearson r of the average
        ranks (NaN when undefined)."""
        out = _nan(sets)
        for rows, idx in sets.by_length():
            if idx.shape[1] < 2:
                continue
            step = max(1, CHUNK_ENTRIES // max(self.ux, self.uy, idx.shape[1]))
            for lo in range(0, rows.size, step):
                part = idx[lo : lo + step]
                out[rows[lo : lo + step]] = _pearson_rows(_average_ranks(self.cx[part], self.ux), _average_ranks(self.cy[part], self.uy))
        return out


# ---------------------------------------------------------------------------------------------
# batched forms: a metric's inputs -> its value on every resample

#: A metric's inputs read once, as a function from the resamples to their (R,) values.
Statistic = Callable[[Resamples], np.ndarray]


def _finite(*xs: np.ndarray) -> np.ndarray:
    ok = np.ones(xs[0].shape, dtype=bool)
    for x in xs:
        ok &= np.isfinite(x)
    return ok


def _mean_of(values: np.ndarray, keep: np.ndarray) -> Statistic:
    """The mean of ``values`` over each resample's items where ``keep`` is True."""
    return lambda res: res.each(lambda sets: mean_over(values, sets), keep=keep)


def _winner_accuracy(pred_p: Any, gold_winner: Sequence[Any]) -> Statistic:
    c = M.winner_correct(pred_p, gold_winner)
    return _mean_of(c, np.isfinite(c))


def _brier(pred_p: Any, gold_winner: Sequence[Any]) -> Statistic:
    p = vector(pred_p, "pred_p")
    gold = gold_winners(gold_winner)
    same_length(("pred_p", p), ("gold_winner", gold))
    check_p(p)
    y = np.array([1.0 if g == "affirmative" else 0.0 if g == "negative" else np.nan for g in gold])
    return _mean_of((p - y) ** 2, _finite(p, y))


def _stage_pairs(pred: Any, gold_mean: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, y = vector(pred, "pred"), vector(gold_mean, "gold_mean")
    same_length(("pred", x), ("gold_mean", y))
    return x, y, _finite(x, y)


def _stage_mse(pred: Any, gold_mean: Any) -> Statistic:
    x, y, ok = _stage_pairs(pred, gold_mean)
    return _mean_of((x - y) ** 2, ok)


def _stage_pearson(pred: Any, gold_mean: Any) -> Statistic:
    x, y, ok = _stage_pairs(pred, gold_mean)
    return lambda res: res.each(lambda sets: pearson_over(x, y, sets), keep=ok)


def _stage_spearman(pred: Any, gold_mean: Any) -> Statistic:
    x, y, ok = _stage_pairs(pred, gold_mean)
    ranker = Ranker(np.where(ok, x, 0.0), np.where(ok, y, 0.0))  # excluded items are never counted
    return lambda res: res.each(ranker.spearman_over, keep=ok)


def _tendency(non_tie: bool) -> Callable[..., Statistic]:
    def prepare(pred_aff: Any, pred_neg: Any, human_aff: Any, human_neg: Any) -> Statistic:
        m = M.tendency_sign(pred_aff, pred_neg)
        h = M.tendency_sign(human_aff, human_neg)
        same_length(("pred_aff", m), ("human_aff_mean", h))
        ok = _finite(m, h)
        if non_tie:
            ok &= h != 0
        return _mean_of((m == h).astype(float), ok)

    return prepare


def _per_match(votes: M.VotePairs, values: np.ndarray, n_items: int) -> Statistic:
    """The mean of a per-match value over the included matches (a match's value depends on its own
    vote vectors only, so it is the same in every resample)."""
    full = np.zeros(n_items)
    full[votes.kept] = values
    ok = np.zeros(n_items, dtype=bool)
    ok[votes.kept] = True
    return _mean_of(full, ok)


def _best_debater_top1(pred_votes: Sequence[Any], human_votes: Sequence[Any]) -> Statistic:
    v = M.vote_pairs(pred_votes, human_votes)
    return _per_match(v, M.top1_credits(v), len(pred_votes))


def _vote_share_mae(pred_votes: Sequence[Any], human_votes: Sequence[Any]) -> Statistic:
    v = M.vote_pairs(pred_votes, human_votes)
    return _per_match(v, M.vote_share_errors(v), len(pred_votes))


def _pooled(spearman: bool) -> Callable[..., Statistic]:
    """Pooled vote-share correlation: each match stands for its debaters' shares."""

    def prepare(pred_votes: Sequence[Any], human_votes: Sequence[Any], *, centre_within_match: bool = False) -> Statistic:
        v = M.vote_pairs(pred_votes, human_votes)
        qp, qh = M.pooled_shares(v, centre_within_match)
        starts = np.zeros(len(pred_votes), dtype=np.int64)
        sizes = np.zeros(len(pred_votes), dtype=np.int64)
        starts[v.kept] = v.starts
        sizes[v.kept] = v.k
        kernel: Callable[[IndexSets], np.ndarray] = Ranker(qp, qh).spearman_over if spearman else (lambda sets: pearson_over(qp, qh, sets))
        return lambda res: res.each(kernel, starts=starts, sizes=sizes)

    return prepare


#: Metric -> its batched form (called with the metric's inputs; returns its :data:`Statistic`).
#: :mod:`adjudicator.evaluation.uncertainty` adds the Brier score (:data:`BRIER_FORM`).
BATCHED: dict[Callable[..., Any], Callable[..., Statistic]] = {
    M.winner_accuracy: _winner_accuracy,
    M.stage_mse: _stage_mse,
    M.stage_pearson: _stage_pearson,
    M.stage_spearman: _stage_spearman,
    M.tendency_all_pairs: _tendency(non_tie=False),
    M.tendency_non_tie: _tendency(non_tie=True),
    M.best_debater_top1: _best_debater_top1,
    M.vote_share_mae: _vote_share_mae,
    M.vote_share_pearson: _pooled(spearman=False),
    M.vote_share_spearman: _pooled(spearman=True),
}

#: The batched form of :func:`adjudicator.evaluation.uncertainty.brier_score`.
BRIER_FORM = _brier


def _value(x: Any) -> float:
    return x.value if isinstance(x, M.MetricResult) else float(x)


def evaluate_each(metric: Callable[..., Any], arrays: Sequence[Any], res: Resamples, value: Callable[[Any], float] = _value) -> np.ndarray:
    """(R,) ``value(metric(*arrays on the resample))`` for every resample, one call each (the
    fallback for a metric with no batched form); ``value`` reads the metric's return (default: a
    MetricResult's ``.value``)."""
    vals = np.empty(res.count)
    for r, idx in enumerate(res.item_sequences()):
        vals[r] = value(metric(*(a[idx] if isinstance(a, np.ndarray) else [a[i] for i in idx] for a in arrays)))
    return vals


def evaluate(metric: Callable[..., Any], arrays: Sequence[Any], res: Resamples,
             forms: dict[Callable[..., Any], Callable[..., Statistic]] | None = None, value: Callable[[Any], float] = _value) -> np.ndarray:
    """(R,) the value of ``metric(*arrays)`` on every resample of ``res`` (``arrays``: the metric's
    aligned inputs, each of length ``res.n``), through its batched form when ``forms`` (default
    :data:`BATCHED`) has one, else :func:`evaluate_each`. NaN where the metric is undefined."""
    form = (BATCHED if forms is None else forms).get(metric)
    if form is None:
        return evaluate_each(metric, arrays, res, value)
    return form(*arrays)(res)


__all__ = [
    "BATCHED",
    "BRIER_FORM",
    "IndexSets",
    "Ranker",
    "Resamples",
    "Statistic",
    "evaluate",
    "evaluate_each",
    "mean_over",
    "pearson_over",
]
