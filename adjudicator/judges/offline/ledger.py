"""Reading the clash ledger (the battlefield's clash map) for the offline judge: the units a clash is
about, whether a text mentions one, and the ledger as it stood before a stage.
"""

from __future__ import annotations

from adjudicator.judges.offline.text import content_terms
from adjudicator.verdict.battlefield import Clash


def clash_units(clash: Clash, lang: str) -> list[str]:
    """The terms a clash is about: its ``terms`` when the offline tracker opened it, else read from its
    title (:func:`title_units`; a clash another tracker opened)."""
    return list(clash.terms) if clash.terms else title_units(clash.title, lang)


def title_units(title: str, lang: str) -> list[str]:
    """The terms of a clash title: the " / "-separated parts when they are short (Chinese phrases of
    <= 6 characters, English single words, stemmed; the offline tracker's units as it first wrote
    them), else the title's content terms (a free-text title)."""
    parts = [p.strip() for p in title.split("/") if p.strip()]
    if parts and all((len(p) <= 6 if lang == "zh" else " " not in p) for p in parts):
        if lang == "zh":
            return parts
        return [t for p in parts for t in content_terms(p, lang)] or parts
    return list(dict.fromkeys(content_terms(title, lang)))


def mentions_unit(text: str, terms: set[str] | frozenset[str], unit: str, lang: str) -> bool:
    """True if ``unit`` (a Chinese phrase or an English stem) occurs in a text whose content terms are
    ``terms``."""
    return unit in text if lang == "zh" else unit in terms


def ledger_before(clashes: dict[str, Clash], earlier: set[str]) -> dict[str, Clash]:
    """The clash map as it stood before a stage: clashes opened in one of the ``earlier`` stage ids,
    keeping only their events from those stages (titles and positions as recorded)."""
    out = {}
    for cid, c in clashes.items():
        if c.opened_in in earlier:
            out[cid] = c.model_copy(update={"events": [e for e in c.events if e.stage_id in earlier]})
    return out

