"""Convert upstream PanelBench BP-Competition rounds into match files (format ``bp``).

Input layout (Debatrix repository ``ljcleo/debatrix``, ``PanelBench/data/BP-Competition``, MIT
licence; see ``shared/data/panelbench/PROVENANCE.md``)::

    BP-Competition/motion/bp_NNN.yml      motion, pro_speakers (OG, CG), con_speakers (OO, CO), info_slide, speech_order
    BP-Competition/motion/motion_list.txt bp_NNN <tab> "<tournament> <round>: <motion>"
    BP-Competition/speech/bp_NNN.yml      [{speaker_name, content}]: 8 speeches, each named by its house only
    BP-Competition/gold/gold.csv          bp_id, label: the house(s) that advanced ("OG,OO"; the champion of a final)

Mapping (one match per round, ``bp_NNN.json``):

- The upstream speaker names ``Opening_Government_(OG)`` ... are houses, not people, so the match has
  no ``debaters``: every speech is given by its house as a team-level speaker (``"Opening
  Government"``), which the ``bp`` format allows. The k-th speech is the k-th speech of the BP order
  (PM, LO, DPM, DLO, MG, MO, GW, OW); a speech file whose houses do not follow that order is refused.
- A speech becomes one utterance per paragraph (blank-line separated, whitespace-trimmed, verbatim).
- ``info`` is the info slide unless it reads "No information".
- Labels: ``advanced`` from ``gold/gold.csv``, checked against the round named in ``motion_list.txt``
  (a final sends one house through, a quarter- or semi-final two), and a ``note`` naming the round.
  There are no house rankings or speaker scores in this source, so none are invented.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from adjudicator.errors import InputError
from adjudicator.input.formats import BP
from adjudicator.input.match import Match
from adjudicator.input.match_file import parse_match

ORIGIN = "PanelBench BP-Competition (Debatrix, ljcleo/debatrix): WUDC and NAUDC elimination rounds"
LICENCE = "MIT"
REPO_URL = "https://github.com/ljcleo/debatrix"
_ID_RE = re.compile(r"^bp_(\d+)$")
_HOUSE_RE = re.compile(r"\((OG|OO|CG|CO)\)\s*$")
_PARAGRAPH_SPLIT = re.compile(r"\n[ \t]*\n")
_NO_INFO = {"no information", "no information."}


def find_bp_dir(src: Path) -> Path | None:
    """The BP-Competition folder for ``src``: ``src`` itself if it holds ``motion/bp_*.yml``, else
    ``src/BP-Competition`` when that exists; None when neither does."""
    for candidate in (Path(src), Path(src) / "BP-Competition"):
        if (candidate / "motion").is_dir() and any((candidate / "motion").glob("bp_*.yml")):
            return candidate
    return None


def _read_yaml(path: Path) -> object:
    """A PanelBench YAML file, read by the strict reader every input file goes through
    (:func:`~adjudicator.input.tomltext.read_document_file`). Raises InputError naming the file."""
    from adjudicator.input.tomltext import read_document_file

    if not path.is_file():
        raise InputError(f"{path}: no such file", "every motion/bp_NNN.yml needs a matching speech/bp_NNN.yml")
    return read_document_file(path, ".yaml")


def read_bp_gold(bp_dir: Path) -> dict[int, list[str]]:
    """``gold/gold.csv`` as bp id -> the advancing houses in file order. Raises InputError naming the
    file for a missing file or column, a non-integer id, or a label naming no house of BP."""
    path = bp_dir / "gold" / "gold.csv"
    if not path.is_file():
        raise InputError(f"{path}: no such file", "the BP-Competition folder needs gold/gold.csv")
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{path}: unreadable CSV ({exc})") from None
    if rows and not {"bp_id", "label"} <= set(rows[0]):
        raise InputError(f"{path}: columns bp_id and label are required")
    houses = BP.unit_ids()
    gold: dict[int, list[str]] = {}
    for n, row in enumerate(rows, start=2):
        try:
            bid = int(row["bp_id"])
        except (TypeError, ValueError):
            raise InputError(f"{path}: line {n}: bp_id {row['bp_id']!r} is not an integer") from None
        label = [h.strip() for h in (row["label"] or "").split(",") if h.strip()]
        bad = [h for h in label if h not in houses]
        if not label or bad:
            raise InputError(f"{path}: line {n}: label {row['label']!r} must list houses among {', '.join(houses)}")
        gold[bid] = label
    return gold


def read_round_names(bp_dir: Path) -> dict[str, str]:
    """``motion/motion_list.txt`` as id -> round name (the text before the first colon, e.g.
    ``"WUDC 2022 Semifinal 1"``); an absent file gives an empty mapping."""
    path = bp_dir / "motion" / "motion_list.txt"
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        rid, _, title = line.partition("\t")
        if rid.strip() and title:
            out[rid.strip()] = title.split(":", 1)[0].strip()
    return out


def advancing_count(round_name: str) -> int | None:
    """How many houses leave an elimination round: 1 from a final, 2 from a quarter- or semi-final
    (WUDC break rules); None for a round name that says neither."""
    low = round_name.lower()
    if "semifinal" in low or "semi-final" in low or "quarterfinal" in low or "quarter-final" in low or "octofinal" in low:
        return 2
    if "final" in low:
        return 1
    return None


def _paragraphs(content: object) -> list[str]:
    text = "" if content is None else str(content).replace("\r\n", "\n").replace("\r", "\n")
    return [p.strip() for p in _PARAGRAPH_SPLIT.split(text) if p.strip()]


def bp_match(bp_dir: Path, round_id: str, gold: dict[int, list[str]] | None = None, round_names: dict[str, str] | None = None) -> Match:
    """The validated :class:`Match` of one BP round (``round_id`` like ``"bp_110"``).

    Raises :class:`InputError` naming the file for a missing or malformed file, a speech by a house
    that is not the one the BP order expects, a round without a gold row, or a gold row whose number
    of advancing houses does not fit the round.
    """
    m = _ID_RE.match(round_id)
    if not m:
        raise InputError(f"{round_id}: not a BP-Competition id", "ids look like bp_110")
    bid = int(m.group(1))
    gold = gold if gold is not None else read_bp_gold(bp_dir)
    names = round_names if round_names is not None else read_round_names(bp_dir)
    motion_path = bp_dir / "motion" / f"{round_id}.yml"
    motion = _read_yaml(motion_path)
    if not isinstance(motion, dict) or not isinstance(motion.get("motion"), str) or not motion["motion"].strip():
        raise InputError(f"{motion_path}: field motion is missing or empty")
    title = " ".join(motion["motion"].split())
    info = motion.get("info_slide")
    info = info.strip() if isinstance(info, str) else None
    speech_path = bp_dir / "speech" / f"{round_id}.yml"
    stages = _stages(speech_path)
    advanced = gold.get(bid)
    if advanced is None:
        raise InputError(f"{bp_dir / 'gold' / 'gold.csv'}: no row for bp_id {bid}", "every round needs the houses that advanced")
    round_name = names.get(round_id, "")
    expected = advancing_count(round_name)
    if expected is not None and len(advanced) != expected:
        raise InputError(f"{bp_dir / 'gold' / 'gold.csv'}: bp_id {bid} ({round_name}) lists {len(advanced)} advancing houses; that round sends {expected} through")
    data: dict = {
        "match_id": round_id,
        "format": "bp",
        "language": "en",
        "motion": title,
        "affirmative_position": f"Government (OG and CG), for the motion: {title}",
        "negative_position": f"Opposition (OO and CO), against the motion: {title}",
        "debaters": [],
        "stages": stages,
        "labels": {
            "advanced": advanced,
            "note": (
                f"{round_name or round_id}: the house(s) that advanced, from PanelBench gold/gold.csv "
                f"({', '.join(advanced)}). The source has no house ranking and no speaker scores."
            ),
        },
        "source": {
            "kind": "real",
            "origin": ORIGIN,
            "licence": LICENCE,
            "url": REPO_URL,
            "note": f"{round_name or round_id}; PanelBench/data/BP-Competition/{{motion,speech}}/{round_id}.yml",
        },
    }
    if info and info.lower() not in _NO_INFO:
        data["info"] = info
    return parse_match(data, str(speech_path))


def _stages(speech_path: Path) -> list[dict]:
    """The 8 speeches as BP stages in the declared order, each by its house (team-level speaker)."""
    speeches = _read_yaml(speech_path)
    if not isinstance(speeches, list) or len(speeches) != len(BP.order):
        n = len(speeches) if isinstance(speeches, list) else 0
        raise InputError(f"{speech_path}: expected {len(BP.order)} speeches of {{speaker_name, content}}, got {n}")
    stages = []
    for k, (sp, slot) in enumerate(zip(speeches, BP.order)):
        name = str(sp.get("speaker_name", "")) if isinstance(sp, dict) else ""
        found = _HOUSE_RE.search(name)
        if found is None:
            raise InputError(f"{speech_path}: speech {k + 1} is by {name!r}, which names no house", "speaker names end in (OG), (OO), (CG) or (CO)")
        if found.group(1) != slot.unit:
            raise InputError(f"{speech_path}: speech {k + 1} is by {found.group(1)}, but the {slot.abbr} speech belongs to {slot.unit}")
        team = BP.unit(slot.unit).name
        paras = _paragraphs(sp.get("content")) or ["[no speech in the source transcript]"]
        stages.append(
            {
                "stage_id": f"s{k + 1:02d}",
                "name": f"{slot.name} ({slot.unit})",
                "type": slot.type,
                "sides": list(slot.sides),
                "speakers": [team],
                "utterances": [{"speaker": team, "side": slot.sides[0], "text": p} for p in paras],
            }
        )
    return stages


def bp_round_ids(bp_dir: Path) -> list[str]:
    """The round ids of a BP-Competition folder, sorted (``["bp_110", "bp_202", ...]``)."""
    return sorted(p.stem for p in (bp_dir / "motion").glob("bp_*.yml") if _ID_RE.match(p.stem))


def bp_matches(bp_dir: Path) -> list[Match]:
    """Every round of a BP-Competition folder as a validated :class:`Match`, in id order. Raises
    InputError (see :func:`bp_match`)."""
    gold = read_bp_gold(bp_dir)
    names = read_round_names(bp_dir)
    return [bp_match(bp_dir, rid, gold, names) for rid in bp_round_ids(bp_dir)]
