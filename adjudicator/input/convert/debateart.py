"""Convert upstream PanelBench DebateArt debates into match files (format ``online-1v1``); the
folder's BP-Competition rounds are converted by :mod:`adjudicator.input.convert.bp` (format ``bp``).

Input layout (Debatrix repository ``ljcleo/debatrix``, ``PanelBench/data/DebateArt``, MIT licence;
see ``shared/data/panelbench/PROVENANCE.md``)::

    DebateArt/motion/debateart_NNNN.yml   motion, pro_side [{name}], con_side [{name}], info_slide, speech_order
    DebateArt/speech/debateart_NNNN.yml   [{debater_name, content}] in speaking order
    DebateArt/gold/final.csv              dart_id, is_many_round, is_long, vote_count, label (1.0/0.0/0.5)
    DebateArt/gold/dimension.csv          the same keys plus dimension (argument/source/language) and its label

Mapping (one match per debate, ``debateart_NNNN.json``):

- ``pro_side`` is the affirmative, ``con_side`` the negative; one debater a side, position 1, with
  the debate site's user name as ``name``.
- Each speech of the speech file becomes one monologue stage, in the speech file's order (either
  side may speak first; ``speech_order`` in the motion file is not consulted). A side's first
  speech is ``constructive``, its last ``closing`` and those between ``supplementary`` (a side with
  a single speech gets ``constructive``). Stage names read ``"Round 2, negative (Con) speech"``,
  where the round is the side's own speech count.
- A speech becomes one utterance per paragraph (blank-line separated, whitespace-trimmed, text
  otherwise verbatim, markdown included). A speech whose content is empty, whitespace-only or
  absent becomes the single utterance :data:`NO_SPEECH_TEXT`, so the stage (and the round
  structure) is kept and a reader sees that the debater posted nothing.
- ``info`` is the info slide unless it is ``"No information"``.
- Labels: ``outcome`` from ``gold/final.csv`` (0.5 -> tie; 1.0 and 0.0 per the label convention
  below), ``vote_count``, ``dimensions`` (the per-dimension audience outcomes of
  ``gold/dimension.csv``, dimension -> affirmative / negative / tie, read under the same convention),
  and a ``note`` naming the audience-vote origin and the convention.

Label convention. PROVENANCE.md states the upstream convention as 1.0 = pro won, 0.0 = con won.
The debates themselves contradict it: where the better side is beyond doubt, the label points to
the other side -- debateart_0752 ("5g internet is a death grid": the con side rebuts a conspiracy case
with sources; label 1.0, and 1.0 also on the *source* dimension), debateart_0956 ("Is the earth
flat?": label 1.0 although the con side argues from physics against a scriptural flat-earth case),
debateart_0130 ("1 and .999 repeating are the same quantity": pro has the correct mathematics;
label 0.0). So the default convention, ``content``, reads 1.0 as a con (negative) win and 0.0 as a
pro (affirmative) win; ``documented`` applies PROVENANCE.md's reading. Every converted file's note
names the convention used, and ``adjudicate convert panelbench --label-convention`` chooses it.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

from adjudicator.errors import InputError
from adjudicator.files import write_output
from adjudicator.input.formats import Side, position_label
from adjudicator.input.match import Match
from adjudicator.input.match_file import parse_match

#: Utterance text used for a speech with no content (a forfeited or empty round on debateart.com).
NO_SPEECH_TEXT = "[no speech: the debater posted nothing in this round (forfeit)]"

#: Provenance recorded in every converted file's ``source``.
ORIGIN = "PanelBench DebateArt (Debatrix, ljcleo/debatrix), debateart.com"
LICENCE = "MIT"
REPO_URL = "https://github.com/ljcleo/debatrix"

#: How upstream labels map to outcomes under each convention (see the module docstring).
LABEL_CONVENTIONS: dict[str, dict[float, str]] = {
    "content": {1.0: "negative", 0.0: "affirmative", 0.5: "tie"},
    "documented": {1.0: "affirmative", 0.0: "negative", 0.5: "tie"},
}
DEFAULT_LABEL_CONVENTION = "content"
_SIDE_WORD: dict[str, str] = {"affirmative": "Pro", "negative": "Con"}
_ID_RE = re.compile(r"^debateart_(\d+)$")
_PARAGRAPH_SPLIT = re.compile(r"\n[ \t]*\n")


def find_debateart_dir(src: Path) -> Path:
    """The DebateArt folder for ``src``: ``src`` itself if it holds ``motion/``, else ``src/DebateArt``.

    Raises :class:`InputError` if neither exists.
    """
    src = Path(src)
    if not src.exists():
        raise InputError(f"{src}: no such folder", "give the PanelBench folder or its DebateArt folder")
    if not src.is_dir():
        raise InputError(f"{src}: not a folder", "give the PanelBench folder or its DebateArt folder")
    for candidate in (src, src / "DebateArt"):
        if (candidate / "motion").is_dir():
            return candidate
    raise InputError(
        f"{src}: no DebateArt/motion folder found",
        "give the PanelBench folder (containing DebateArt/) or the DebateArt folder (containing motion/, speech/, gold/)",
    )


def _read_yaml(path: Path) -> Any:
    """A PanelBench YAML file, read by the strict reader every input file goes through
    (:func:`~adjudicator.input.tomltext.read_document_file`). Raises InputError naming the file."""
    from adjudicator.input.tomltext import read_document_file

    if not path.is_file():
        raise InputError(f"{path}: no such file", "every motion/debateart_NNNN.yml needs a matching speech/debateart_NNNN.yml")
    return read_document_file(path, ".yaml")


def _read_csv(path: Path, required: tuple[str, ...]) -> list[dict[str, str]]:
    if not path.is_file():
        raise InputError(f"{path}: no such file", "the DebateArt folder needs gold/final.csv and gold/dimension.csv")
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{path}: unreadable CSV ({exc})") from None
    header = set(rows[0]) if rows else set()
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"{path}: column {missing[0]} is missing", f"expected columns {', '.join(required)}")
    return rows


def _dart_id(value: str, path: Path, line: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(f"{path}: line {line}: dart_id {value!r} is not an integer") from None


def _outcome(value: str, path: Path, line: int, convention: str = DEFAULT_LABEL_CONVENTION) -> str:
    try:
        return LABEL_CONVENTIONS[convention][float(value)]
    except (TypeError, ValueError, KeyError):
        raise InputError(f"{path}: line {line}: label {value!r} is not 1.0, 0.0 or 0.5") from None


def read_gold(dart_dir: Path, label_convention: str = DEFAULT_LABEL_CONVENTION) -> tuple[dict[int, dict[str, str]], dict[int, dict[str, str]]]:
    """Read ``gold/final.csv`` and ``gold/dimension.csv``, mapping labels by ``label_convention``
    (a key of :data:`LABEL_CONVENTIONS`; InputError otherwise).

    Returns ``(final, dimensions)``: ``final[dart_id]`` has ``vote_count``, ``outcome`` (affirmative /
    negative / tie), ``is_many_round``, ``is_long``; ``dimensions[dart_id]`` maps a dimension name
    (argument, source, language) to its outcome. Raises :class:`InputError` naming the file.
    """
    if label_convention not in LABEL_CONVENTIONS:
        raise InputError(f"--label-convention: unknown convention {label_convention!r}", f"use one of {', '.join(LABEL_CONVENTIONS)}")
    final_path = dart_dir / "gold" / "final.csv"
    dim_path = dart_dir / "gold" / "dimension.csv"
    final: dict[int, dict[str, str]] = {}
    for n, row in enumerate(_read_csv(final_path, ("dart_id", "vote_count", "label")), start=2):
        did = _dart_id(row["dart_id"], final_path, n)
        final[did] = {
            "vote_count": row["vote_count"],
            "outcome": _outcome(row["label"], final_path, n, label_convention),
            "label": row["label"],
            "convention": label_convention,
            "is_many_round": row.get("is_many_round", ""),
            "is_long": row.get("is_long", ""),
        }
    dims: dict[int, dict[str, str]] = {}
    for n, row in enumerate(_read_csv(dim_path, ("dart_id", "dimension", "label")), start=2):
        did = _dart_id(row["dart_id"], dim_path, n)
        dims.setdefault(did, {})[row["dimension"]] = _outcome(row["label"], dim_path, n, label_convention)
    return final, dims


def _one_name(motion: dict, key: str, path: Path) -> str:
    team = motion.get(key)
    if not isinstance(team, list) or len(team) != 1 or not isinstance(team[0], dict) or not team[0].get("name"):
        raise InputError(f"{path}: {key} must list exactly one debater as [{{name: ...}}]", "online-1v1 has one debater a side")
    return str(team[0]["name"])


def _paragraphs(content: object) -> list[str]:
    if content is None:
        return []
    text = str(content).replace("\r\n", "\n").replace("\r", "\n")
    return [p.strip() for p in _PARAGRAPH_SPLIT.split(text) if p.strip()]


def _labels(did: int, final: dict[int, dict[str, str]], dims: dict[int, dict[str, str]], dart_dir: Path) -> dict:
    row = final.get(did)
    if row is None:
        raise InputError(f"{dart_dir / 'gold' / 'final.csv'}: no row for dart_id {did}", "every debate needs its audience-vote label")
    try:
        vote_count = int(float(row["vote_count"]))
    except ValueError:
        raise InputError(f"{dart_dir / 'gold' / 'final.csv'}: vote_count {row['vote_count']!r} of dart_id {did} is not a number") from None
    dim = dict(sorted(dims.get(did, {}).items()))
    note = (
        f"Audience vote on debateart.com ({vote_count} voter{'s' if vote_count != 1 else ''}), taken from PanelBench "
        f"gold/final.csv; upstream label {row['label']} read under the '{row['convention']}' convention (see adjudicator/input/convert/debateart.py) as outcome {row['outcome']}. "
        f"Per-dimension audience outcomes (labels.dimensions) from gold/dimension.csv under the same convention. "
        f"Upstream flags: is_many_round={row['is_many_round']}, is_long={row['is_long']}."
    )
    out: dict = {"outcome": row["outcome"], "vote_count": vote_count, "note": note}
    if dim:
        out["dimensions"] = dim
    return out


def debateart_match(dart_dir: Path, debate_id: str, gold: tuple[dict, dict] | None = None) -> Match:
    """Build the validated :class:`Match` of one DebateArt debate (``debate_id`` like ``"debateart_0017"``).

    ``gold`` is the result of :func:`read_gold` (read from ``dart_dir`` when omitted). Raises
    :class:`InputError` naming the file for a missing or malformed motion/speech file, a speaker who
    is on neither side, or a debate without a gold row.
    """
    m = _ID_RE.match(debate_id)
    if not m:
        raise InputError(f"{debate_id}: not a DebateArt id", "ids look like debateart_0017")
    did = int(m.group(1))
    final, dims = gold if gold is not None else read_gold(dart_dir)
    title, pro, con, info = _read_motion(dart_dir / "motion" / f"{debate_id}.yml")
    speech_path = dart_dir / "speech" / f"{debate_id}.yml"
    speeches, sides = _read_speeches(speech_path, pro, con)
    data = {
        "match_id": debate_id,
        "format": "online-1v1",
        "language": "en",
        "motion": title,
        "affirmative_position": f"For the motion: {title}",
        "negative_position": f"Against the motion: {title}",
        "info": info,
        "debaters": [
            {"side": "affirmative", "position": 1, "name": pro},
            {"side": "negative", "position": 1, "name": con},
        ],
        "stages": _stages(speeches, sides),
        "labels": _labels(did, final, dims, dart_dir),
        "source": {
            "kind": "real",
            "origin": ORIGIN,
            "licence": LICENCE,
            "url": REPO_URL,
            "note": f"debateart.com debate {did}; PanelBench/data/DebateArt/{{motion,speech}}/{debate_id}.yml",
        },
    }
    if info is None:
        del data["info"]
    return parse_match(data, str(speech_path))


def _read_motion(motion_path: Path) -> tuple[str, str, str, str | None]:
    """(motion title with whitespace collapsed, pro debater's name, con debater's name, info slide or
    None) of a motion file. Raises InputError naming the file."""
    motion = _read_yaml(motion_path)
    if not isinstance(motion, dict):
        raise InputError(f"{motion_path}: expected a mapping with motion, pro_side, con_side, info_slide")
    title = motion.get("motion")
    if not isinstance(title, str) or not title.strip():
        raise InputError(f"{motion_path}: field motion is missing or empty")
    pro = _one_name(motion, "pro_side", motion_path)
    con = _one_name(motion, "con_side", motion_path)
    if pro == con:
        raise InputError(f"{motion_path}: {pro!r} is on both sides")
    info = motion.get("info_slide")
    info = info.strip() if isinstance(info, str) else None
    if not info or info == "No information":
        info = None
    return " ".join(title.split()), pro, con, info


def _read_speeches(speech_path: Path, pro: str, con: str) -> tuple[list[dict], list[Side]]:
    """The speeches of a speech file in order, and the side of each (``pro`` speaks for the
    affirmative, ``con`` for the negative). Raises InputError for an empty file or a speaker on
    neither side."""
    names: dict[str, Side] = {pro: "affirmative", con: "negative"}
    speeches = _read_yaml(speech_path)
    if not isinstance(speeches, list) or not speeches:
        raise InputError(f"{speech_path}: expected a non-empty list of {{debater_name, content}}")
    sides: list[Side] = []
    for k, sp in enumerate(speeches):
        if not isinstance(sp, dict) or "debater_name" not in sp:
            raise InputError(f"{speech_path}: speech {k + 1} has no debater_name")
        name = str(sp["debater_name"])
        if name not in names:
            raise InputError(f"{speech_path}: speech {k + 1} is by {name!r}, who is on neither side", f"the sides are {pro!r} (pro) and {con!r} (con)")
        sides.append(names[name])
    return speeches, sides


def _stages(speeches: list[dict], sides: list[Side]) -> list[dict]:
    """One monologue stage per speech (module docstring): a side's first speech is constructive, its
    last closing, those between supplementary; one utterance per paragraph."""
    totals = {s: sides.count(s) for s in ("affirmative", "negative")}
    seen = {"affirmative": 0, "negative": 0}
    stages = []
    for k, (sp, side) in enumerate(zip(speeches, sides)):
        seen[side] += 1
        n = seen[side]
        stype = "constructive" if n == 1 else "closing" if n == totals[side] else "supplementary"
        label = position_label(side, 1)
        paras = _paragraphs(sp.get("content")) or [NO_SPEECH_TEXT]
        stages.append(
            {
                "stage_id": f"s{k + 1:02d}",
                "name": f"Round {n}, {side} ({_SIDE_WORD[side]}) speech",
                "type": stype,
                "sides": [side],
                "speakers": [label],
                "utterances": [{"speaker": label, "side": side, "text": p} for p in paras],
            }
        )
    return stages


def match_json(match: Match) -> str:
    """The canonical file text of a match: indented UTF-8 JSON (non-ASCII kept), defaults omitted,
    with a final newline."""
    return json.dumps(match.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False, indent=2) + "\n"


def convert_panelbench(
    src: Path, out: Path, ids: list[str] | None = None, label_convention: str = DEFAULT_LABEL_CONVENTION, parts: tuple[str, ...] = ("DebateArt", "BP-Competition")
) -> list[Path]:
    """Convert every DebateArt debate and BP-Competition round under ``src`` into
    ``out/debateart_NNNN.json`` and ``out/bp_NNN.json``.

    ``src`` is the PanelBench folder (both parts it holds are converted), its DebateArt folder or its
    BP-Competition folder; ``parts`` limits which of the two are converted. ``ids`` (e.g. ``["debateart_0017", "bp_110"]``) restricts the conversion;
    default everything found. ``label_convention`` (DebateArt only) is a key of
    :data:`LABEL_CONVENTIONS` (module docstring). ``out`` is created if needed; existing files of the
    same name are overwritten. Returns the written paths in id order (DebateArt, then BP). Each file
    is validated as a :class:`Match` before it is written, so every file loads with
    :func:`adjudicator.input.match_file.load_match`.

    Raises :class:`InputError` naming the file for a missing folder or file, malformed YAML or CSV,
    or content that does not fit the match format; everything is validated before any file is
    written, so a failure leaves no partial output.
    """
    from adjudicator.input.convert.bp import bp_match, bp_round_ids, find_bp_dir, read_bp_gold, read_round_names

    src = Path(src)
    bp_dir = find_bp_dir(src) if src.is_dir() and "BP-Competition" in parts else None
    has_dart = src.is_dir() and any((c / "motion").is_dir() and any((c / "motion").glob("debateart_*.yml")) for c in (src, src / "DebateArt"))
    dart_dir = find_debateart_dir(src) if "DebateArt" in parts and (has_dart or bp_dir is None) else None
    dart_ids = sorted(p.stem for p in (dart_dir / "motion").glob("debateart_*.yml")) if dart_dir else []
    bp_ids = bp_round_ids(bp_dir) if bp_dir else []
    if not dart_ids and not bp_ids:
        raise InputError(f"{(dart_dir or src) / 'motion'}: no debateart_NNNN.yml files")
    if ids is not None:
        unknown = [i for i in ids if i not in dart_ids and i not in bp_ids]
        if unknown:
            raise InputError(f"{(dart_dir or bp_dir or src) / 'motion' / (unknown[0] + '.yml')}: no such file", "check the debate id")
        dart_ids = sorted(set(ids) & set(dart_ids))
        bp_ids = sorted(set(ids) & set(bp_ids))
    matches = []
    if dart_dir is not None and dart_ids:
        gold = read_gold(dart_dir, label_convention)
        matches += [debateart_match(dart_dir, did, gold) for did in dart_ids]
    if bp_dir is not None and bp_ids:
        bp_gold, names = read_bp_gold(bp_dir), read_round_names(bp_dir)
        matches += [bp_match(bp_dir, rid, bp_gold, names) for rid in bp_ids]
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder", "give a folder for the converted match files")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for match in matches:
        path = out / f"{match.match_id}.json"
        write_output(path, match_json(match))
        written.append(path)
    return written
