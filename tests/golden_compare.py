"""Compare decoded JSON with a recorded golden value: numbers within a stated tolerance, the rest exactly.

Why a tolerance at all: the same code on another numpy, scipy or BLAS build may add the same numbers in
another order (pairwise or SIMD summation, fused multiply-add), which moves the last one or two units in
the last place of a float, about 1e-16 relative; a bootstrap bound recorded as ``0.0494473314166751``
came back as ``0.04944733141667508`` after a numpy upgrade. Any change in behaviour (another rule,
weight, rounding, sample or seed) moves a number by far more than 1e-9 relative, so :data:`REL_TOL`
keeps seven orders of magnitude between the two. :data:`ABS_TOL` is for numbers that should be zero and
come out as a few 1e-17 after cancellation (a relative tolerance means nothing at zero); every number in
the goldens is a probability, a 1-10 score, a count or a cost well above 1e-12.

Everything else compares exactly: strings, booleans, ``null``, the keys of every object, the length
and order of every list, and the kind of every value (an int is not a string, ``true`` is not ``1``).
Two ints compare exactly too (counts, ranks, seeds); an int against a float compares as numbers, since
JSON does not promise which of the two a writer prints for a whole number. NaN matches NaN only.
"""

from __future__ import annotations

import json
import math
from typing import Any

#: Relative tolerance for floats (see the module docstring for why 1e-9).
REL_TOL = 1e-9
#: Absolute tolerance for floats near zero.
ABS_TOL = 1e-12
#: At most this many differences are listed in a failure message.
SHOWN = 20


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    return "number" if _is_number(value) else type(value).__name__


def json_differences(actual: Any, expected: Any, path: str = "$") -> list[str]:
    """Every difference between two decoded JSON values, as ``"<path>: <what differs>"`` lines.

    ``path`` is a JSONPath-like location (``$.metrics.mae.ci[0]``). An empty list means the two
    match: floats within :data:`REL_TOL` relative or :data:`ABS_TOL` absolute, all else exactly.
    """
    if _is_number(actual) and _is_number(expected):
        if isinstance(actual, int) and isinstance(expected, int):
            return [] if actual == expected else [f"{path}: {actual!r} != recorded {expected!r}"]
        a, e = float(actual), float(expected)
        if math.isnan(a) or math.isnan(e):
            return [] if math.isnan(a) and math.isnan(e) else [f"{path}: {actual!r} != recorded {expected!r}"]
        if a == e or math.isclose(a, e, rel_tol=REL_TOL, abs_tol=ABS_TOL):
            return []
        return [f"{path}: {actual!r} != recorded {expected!r} (relative difference {abs(a - e) / max(abs(a), abs(e)):.3g} > {REL_TOL:g})"]
    if _kind(actual) != _kind(expected):
        return [f"{path}: a {_kind(actual)} ({actual!r:.80}) where the recording has a {_kind(expected)} ({expected!r:.80})"]
    if isinstance(expected, dict):
        out = [f"{path}: key {k!r} is new (not in the recording)" for k in actual if k not in expected]
        out += [f"{path}: key {k!r} is missing" for k in expected if k not in actual]
        for k in expected:
            if k in actual:
                out += json_differences(actual[k], expected[k], f"{path}.{k}")
        return out
    if isinstance(expected, list):
        out = [] if len(actual) == len(expected) else [f"{path}: {len(actual)} items where the recording has {len(expected)}"]
        for i, (a, e) in enumerate(zip(actual, expected)):
            out += json_differences(a, e, f"{path}[{i}]")
        return out
    return [] if actual == expected else [f"{path}: {actual!r:.200} != recorded {expected!r:.200}"]


def assert_json_matches(actual_text: str, expected_text: str, name: str) -> None:
    """Parse both texts as JSON and fail, listing the differences, unless they match (see the module docstring)."""
    diffs = json_differences(json.loads(actual_text), json.loads(expected_text))
    if diffs:
        more = f"\n  ... and {len(diffs) - SHOWN} more" if len(diffs) > SHOWN else ""
        raise AssertionError(f"{name} differs from the recorded golden output:\n  " + "\n  ".join(diffs[:SHOWN]) + more)
