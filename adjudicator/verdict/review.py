"""The quality gate and escalation to a person: whether a verdict should be looked at by a human
adjudicator, and why.

:func:`review_of` applies the gate to a finished verdict's parts; the verdict carries the result as
:class:`Review` (``verdict.review``): ``escalate``, the ``reasons`` (each at most once, in the order
below) and one sentence per reason (``detail``). The command line prints it as one ``review:`` line on
stderr, and every report (Markdown, HTML, the live board, the bench's per-sample viewer) shows it at its
top. A verdict is escalated when any of these holds:

Whether the panel's decision is close or contested:

- ``close_call``: the winner tendency is within :data:`REVIEW_BAND` of 0.5 (0.40 <= p <= 0.60);
- ``split_panel``: the judges did not agree on the winner (ranking formats: on the first place);
- ``failed_judge``: a judge's node failed (the verdict rests on fewer judges);
- ``probe_flip``: a bias or stability probe moved the panel's winner (only when probes ran,
  :func:`with_probe_flips`).

Whether judging happened (the quality gate; issue 25):

- ``failed_stage``: a tracker stage failed, so the judges saw no analysis of it;
- ``empty_battlefield``: the clash map is empty;
- ``thin_battlefield``: the map records fewer clash moves than the match has stages of real speech
  (a stage of at least :data:`MIN_SPEECH_WORDS` words, or :data:`MIN_SPEECH_CHARS_ZH` characters in
  Chinese): some stage that argued moved no clash. (Moves, not clashes: a real debate of 17 stages
  turns on three to six clashes, so counting clashes would escalate every real debate);
- ``empty_reasoning`` / ``short_reasoning``: a ballot's reasoning is empty, or shorter than
  :data:`MIN_REASONING_CHARS` (80 characters in English, 30 in Chinese) once whitespace is collapsed;
- ``unanchored_reasoning``: a ballot's reasoning names no clash (its id, its title, or two of its
  title's longer words), no stage (its id, its name, or ``stage/round/speech N``; in Chinese its name
  or ``第N``) and no debater (a position label, a name; in a one-debater-per-side format the side);
- ``identical_ballots``: two or three ballots give the same winner, p and best-debater votes (ranking
  formats: the same ranking and speaker scores): independent judges almost never do;
- ``equal_stage_scores``: a ballot gives every one of its (at least :data:`MIN_EQUAL_UNITS`) units
  the same score;
- ``p_against_scores``: a ballot's p favours the side whose mean stage score on that ballot is lower
  by more than :data:`SCORE_MARGIN` points (on the 1-10 scale);
- ``tracker_scores`` / ``echoed_summary``: an LLM judge's ballot gives every unit the tracker's
  suggested score / a tracker stage summary is mostly its prompt's text (:mod:`adjudicator.verdict.echoes`);
- ``repaired_fields``: the tracker or a judge needed repair turns on more than half of its answer's
  fields (:attr:`~adjudicator.records.CallRecord.repair_share`);
- ``example_choice``: an accepted answer's closed choice (a rubric level, the winner, p, a score, the
  votes) equals the value the prompt's example showed for it
  (:attr:`~adjudicator.records.CallRecord.example_choices`); the bundled prompts show none, so this
  fires only for a prompt folder that still does;
- ``normalised_fields`` / ``dropped_feedback`` / ``non_deciding_ballot`` / ``p_left_out`` (issue 38,
  :func:`~adjudicator.verdict.read_notes.read_findings`): a ballot's fields were read by a
  normalisation rule, a ballot was taken without feedback points still invalid after their repair, a
  judge still answered p = 0.5 after a repair turn (kept, not deciding; or, with a stated winner,
  its winner vote counted and its p left out).

Whether the text is what was said, for stages a machine transcribed from a recording (issue 33; the
rules and thresholds: :mod:`adjudicator.verdict.transcripts`):

- ``low_transcript_confidence``: at least a tenth of a stage's words lie in utterances the speech
  recogniser was unsure of (confidence under 0.37);
- ``long_silence``: a recording has 10 s or more without recognised speech;
- ``unattributed_speech``: an interactive stage has utterances whose speaker nobody marked.

Which checks fail the node instead (a repair turn asks again, :mod:`adjudicator.model.repair`): an empty required text (a reasoning, a rationale,
a clash's title or note, a stage summary, a feedback point), a clash update without a clash id or with an unknown side or move, p against the
ballot's own winner, free text copied from the example. Those are wrong on their face and one answer can put them right.
The checks above only escalate: they concern the panel or the map as a whole (no single node can
repair them), or they are judgements a legitimate answer can trip (a short reasoning that is right, two
judges who agree, a judge who weighs one clash over the stage scores), so a person decides. The band and the thresholds are stated in each detail sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal, cast, get_args

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import position_label_zh
from adjudicator.records import CallRecord, NodeFailure
from adjudicator.verdict.battlefield import Clash
from adjudicator.verdict.echoes import echo_findings
from adjudicator.verdict.labels import stage_name
from adjudicator.verdict.read_notes import read_findings
from adjudicator.verdict.transcripts import transcript_findings

#: A winner tendency this close to 0.5 (inclusive) is a close call.
REVIEW_BAND = 0.1
#: A reasoning shorter than this (characters, whitespace collapsed) is too short to say why.
MIN_REASONING_CHARS: dict[str, int] = {"en": 80, "zh": 30}
#: A stage is real speech from this many words (English) or characters (Chinese).
MIN_SPEECH_WORDS = 30
MIN_SPEECH_CHARS_ZH = 60
#: A ballot's p may favour the side with the lower mean stage score by at most this many points.
SCORE_MARGIN = 1.0
#: ``equal_stage_scores`` needs at least this many scored units on the ballot.
MIN_EQUAL_UNITS = 3
#: ``repaired_fields`` fires above this share of an answer's fields asked for again.
REPAIR_SHARE = 0.5

ReviewReason = Literal[
    "close_call",
    "split_panel",
    "failed_judge",
    "failed_stage",
    "empty_battlefield",
    "thin_battlefield",
    "empty_reasoning",
    "short_reasoning",
    "unanchored_reasoning",
    "identical_ballots",
    "equal_stage_scores",
    "p_against_scores",
    "tracker_scores",
    "echoed_summary",
    "repaired_fields",
    "example_choice",
    "normalised_fields",
    "dropped_feedback",
    "non_deciding_ballot",
    "p_left_out",
    "low_transcript_confidence",
    "long_silence",
    "unattributed_speech",
    "probe_flip",
]

#: The parts of a ballot compared by the ``identical_ballots`` rule: its decision (issue 25: winner, p
#: and votes; ranking formats: ranking and speaker scores), not its words, stage scores or judge.
_DECISION_FIELDS = {"winner", "p", "best_debater_votes", "ranking", "speaker_scores"}


class Review(FrozenModel):
    """Whether a person should look at the verdict (``escalate``), the ``reasons`` (each at most once,
    in the order of :data:`ReviewReason`), one English sentence per reason (``detail``), the ids and
    numbers behind each sentence (``facts``, one mapping per reason: what a report in another
    language says them from, :func:`review_sentences`), and the ``band`` of the close-call rule (a
    distance from 0.5)."""

    escalate: bool
    reasons: list[ReviewReason] = Field(default_factory=list)
    detail: list[str] = Field(default_factory=list)
    facts: list[dict[str, Any]] = Field(default_factory=list)
    band: float = REVIEW_BAND

    def line(self) -> str:
        """The one line the command line prints on stderr: ``review: escalate (close_call: p = 0.55 is
        within 0.1 of 0.5; ...)`` or ``review: no reason to escalate``."""
        if not self.reasons:
            return "review: no reason to escalate"
        return "review: escalate (" + "; ".join(f"{r}: {d}" for r, d in zip(self.reasons, self.detail)) + ")"


def _decision(ballot: Any) -> dict[str, Any]:
    return ballot.model_dump(include=_DECISION_FIELDS)


def identical_groups(ballots: Sequence[Any]) -> list[list[str]]:
    """The judge ids of every group of two or more ballots (:class:`~adjudicator.verdict.ballots.Ballot`)
    that give the same decision (:data:`_DECISION_FIELDS` equal), in ballot order."""
    groups: list[tuple[dict[str, Any], list[str]]] = []
    for b in ballots:
        d = _decision(b)
        for decision, ids in groups:
            if decision == d:
                ids.append(b.judge_id)
                break
        else:
            groups.append((d, [b.judge_id]))
    return [ids for _, ids in groups if len(ids) > 1]


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _collapsed(text: str) -> str:
    return " ".join((text or "").split())


def real_speech_stages(match: Any) -> list[str]:
    """The stage ids of ``match`` (a :class:`~adjudicator.input.match.MatchView`) whose transcript is real
    speech (:func:`is_real_speech`), in stage order."""
    return [s.stage_id for s in match.stages if is_real_speech(s, match.language)]


def is_real_speech(stage: Any, language: str) -> bool:
    """True when ``stage``'s transcript is real speech: at least :data:`MIN_SPEECH_WORDS` words, or
    :data:`MIN_SPEECH_CHARS_ZH` non-space characters when ``language`` is ``"zh"`` (a forfeit or an
    empty turn is not)."""
    text = " ".join(u.text for u in stage.utterances)
    size = len("".join(text.split())) if language == "zh" else len(text.split())
    return size >= (MIN_SPEECH_CHARS_ZH if language == "zh" else MIN_SPEECH_WORDS)


_WORD = re.compile(r"\w+", re.U)


def _is_word_char(ch: str) -> bool:
    """``ch`` is what ``\\w`` matches in a str pattern: a letter, a digit or numeral, or ``_``."""
    return ch.isalnum() or ch == "_"


def _contains(haystack: str, needle: str) -> bool:
    """``needle`` (lower-cased) in ``haystack`` as whole words, as ``(?<!\\w)needle(?!\\w)`` would find
    it (Chinese: as a substring). Searched with str.find, not a pattern per needle: a match has three
    terms per stage, so a long one's terms overflowed re's cache of 512 patterns and every ballot's
    review compiled them all again: a stage's cost grew with the stages (issue 26)."""
    needle = needle.strip().lower()
    if not needle:
        return False
    if not needle.isascii():
        return needle in haystack
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        if (start == 0 or not _is_word_char(haystack[start - 1])) and (end == len(haystack) or not _is_word_char(haystack[end])):
            return True
        start = haystack.find(needle, start + 1)
    return False


def anchors(match: Any, clashes: Sequence[Clash]) -> tuple[list[str], list[str], list[str]]:
    """What a reasoning may name, lower-cased: (clash ids and titles, stage ids and names, debater
    labels and names; in a one-debater-per-side format also the side names)."""
    clash_terms = [c.clash_id for c in clashes] + [c.title for c in clashes if len(c.title.strip()) >= 3]
    stage_terms = [s.stage_id for s in match.stages] + [s.name for s in match.stages] + [stage_name(s.name, "zh") for s in match.stages]
    labels = match.debater_labels()
    debater_terms = labels + [z for z in (position_label_zh(lab) for lab in labels) if z] + [d.name for d in match.debaters if d.name]
    if len(labels) == len(match.units()):  # one debater per side: the side is the debater
        debater_terms += ["affirmative", "negative", "pro", "con", "正方", "反方"]
    return [t.lower() for t in clash_terms], [t.lower() for t in stage_terms], [t.lower() for t in debater_terms]


#: Words that name a stage without its id or full name: ``round 2``, ``stage 3``, ``speech 1``, a stage
#: type (``the closing``, ``cross-examination``), Chinese ``第三环节`` or a stage type's name.
_STAGE_WORDS = re.compile(
    r"(?<!\w)(?:(?:stage|round|speech)\s*\d+|rebuttals?|closings?|constructives?|openings?|cross[- ]examinations?|free debate|summary)(?!\w)"
    r"|第\s*[0-9一二三四五六七八九十]+|环节|立论|驳论|质询|盘问|对辩|自由辩论|总结|陈词",
    re.I,
)


def _anchored(text: str, terms: tuple[list[str], list[str], list[str]], clashes: Sequence[Clash]) -> bool:
    """True when ``text`` names a clash, a stage or a debater (:func:`anchors`; a clash also by two of
    its title's words of at least four letters; a stage also by a stage word such as ``round 2``)."""
    low = text.lower()
    clash_terms, stage_terms, debater_terms = terms
    if any(_contains(low, t) for t in (*clash_terms, *stage_terms, *debater_terms)):
        return True
    if _STAGE_WORDS.search(text):
        return True
    words = set(_WORD.findall(low))
    for c in clashes:
        long_words = {w for w in _WORD.findall(c.title.lower()) if len(w) >= 4}
        if len(long_words & words) >= 2:
            return True
    return False


Finding = tuple[ReviewReason, dict[str, Any]]


def _decision_findings(p: float | None, winner_split: str | None, failures: Sequence[NodeFailure], band: float, split_label: str) -> list[Finding]:
    """close_call, split_panel, failed_judge, failed_stage."""
    out: list[Finding] = []
    if p is not None and abs(p - 0.5) <= band + 1e-12:
        out.append(("close_call", {"p": round(p, 2), "band": band}))
    if winner_split:
        _, _, b = winner_split.partition(":")
        if b.isdigit() and int(b) > 0:
            out.append(("split_panel", {"split": winner_split, "what": "first_place" if split_label == "first place" else "winner"}))
    judges = sorted({f.key for f in failures if f.node == "judge" and not f.partial})  # a dropped field is not a failed judge
    tasks = sorted({f.key or f.node for f in failures if f.node.startswith("task")})
    if judges:
        out.append(("failed_judge", {"judges": judges}))
    elif tasks:
        out.append(("failed_judge", {"tasks": tasks}))
    stages = sorted({f.key for f in failures if f.node == "track_stage" and not f.partial})  # a stage kept without its clash updates was analysed
    if stages:
        out.append(("failed_stage", {"stages": stages}))
    return out


def _battlefield_findings(match: Any, battlefields: Sequence[Clash]) -> list[Finding]:
    """empty_battlefield, thin_battlefield."""
    if not battlefields:
        return [("empty_battlefield", {"n": len(match.stages)})]
    moves, speaking = sum(len(c.events) for c in battlefields), len(real_speech_stages(match))
    return [("thin_battlefield", {"moves": moves, "n": speaking})] if moves < speaking else []


def _reasoning_findings(ballots: Sequence[Any], match: Any, battlefields: Sequence[Clash]) -> list[Finding]:
    """empty_reasoning, short_reasoning, unanchored_reasoning (each naming the judges it concerns)."""
    language = getattr(match, "language", "en") if match is not None else "en"
    minimum = MIN_REASONING_CHARS.get(language, MIN_REASONING_CHARS["en"])
    terms = anchors(match, battlefields) if match is not None else None
    empty, short, lengths, loose = [], [], [], []
    for b in ballots:
        text = _collapsed(b.reasoning)
        if not text:
            empty.append(b.judge_id)
            continue
        if len(text) < minimum:
            short.append(b.judge_id)
            lengths.append(len(text))
        if terms is not None and not _anchored(text, terms, battlefields):
            loose.append(b.judge_id)
    out: list[Finding] = []
    if empty:
        out.append(("empty_reasoning", {"judges": empty}))
    if short:
        out.append(("short_reasoning", {"judges": short, "lengths": lengths, "minimum": minimum}))
    if loose:
        out.append(("unanchored_reasoning", {"judges": loose}))
    return out


def _side_means(ballot: Any) -> dict[str, float]:
    means = {}
    for side in ("affirmative", "negative"):
        scores = [s.score for s in ballot.stage_scores if s.side == side]
        if scores:
            means[side] = sum(scores) / len(scores)
    return means


def _ballot_findings(ballots: Sequence[Any]) -> list[Finding]:
    """identical_ballots, equal_stage_scores, p_against_scores."""
    out: list[Finding] = []
    groups = identical_groups(ballots)
    if groups:
        out.append(("identical_ballots", {"groups": groups, "n": len(ballots), "ranking": any(bool(b.ranking) for b in ballots)}))
    equal = [(b.judge_id, b.stage_scores[0].score) for b in ballots if len(b.stage_scores) >= MIN_EQUAL_UNITS and len({s.score for s in b.stage_scores}) == 1]
    if equal:
        out.append(("equal_stage_scores", {"judges": [j for j, _ in equal], "scores": [x for _, x in equal]}))
    against: dict[str, list[Any]] = {"judges": [], "p": [], "sides": [], "mine": [], "theirs": []}
    for b in ballots:
        means = _side_means(b)
        if b.p is None or len(means) < 2:
            continue
        favoured = "affirmative" if b.p > 0.5 else "negative"
        other = "negative" if favoured == "affirmative" else "affirmative"
        if means[other] - means[favoured] > SCORE_MARGIN:
            for key, value in (("judges", b.judge_id), ("p", round(b.p, 2)), ("sides", favoured), ("mine", round(means[favoured], 2)), ("theirs", round(means[other], 2))):
                against[key].append(value)
    if against["judges"]:
        out.append(("p_against_scores", {**against, "margin": SCORE_MARGIN}))
    return out


def _call_findings(calls: Sequence[CallRecord]) -> list[Finding]:
    """repaired_fields, example_choice, from the verdict's call records."""
    share: dict[tuple[str, str], float] = {}
    for c in calls:
        if c.repair_share is not None:
            share[(c.node, c.key)] = max(share.get((c.node, c.key), 0.0), c.repair_share)
    repaired = [(node, key, s) for (node, key), s in share.items() if s > REPAIR_SHARE]
    copies = [(c.node, c.key, list(c.example_choices)) for c in calls if c.example_choices and c.parse != "failed"]
    out: list[Finding] = []
    if repaired:
        out.append(("repaired_fields", {"nodes": [n for n, _, _ in repaired], "keys": [k for _, k, _ in repaired], "shares": [round(x, 3) for _, _, x in repaired], "limit": REPAIR_SHARE}))
    if copies:
        out.append(("example_choice", {"nodes": [n for n, _, _ in copies], "keys": [k for _, k, _ in copies], "fields": [f for _, _, f in copies]}))
    return out


def _joined(items: Sequence[str], language: str) -> str:
    if language == "zh":
        return "、".join(items)
    return _join(list(items)) if items else ""


def sentence(reason: str, facts: dict[str, Any], language: str = "en") -> str:
    """The sentence of one finding in ``language`` (``en``, ``zh``), from its ``facts`` and the words
    of :mod:`adjudicator.verdict.gate_words` (in the label tables)."""
    from adjudicator.verdict.labels import labels

    L = labels(language)
    sep = "；" if language == "zh" else "; "

    def items(key: str, rows: list[dict[str, Any]]) -> str:
        return sep.join(L[f"review.{key}.item"].format(**row) for row in rows)

    f = dict(facts)
    if reason == "split_panel":
        f["what"] = L[f"review.what.{f.get('what', 'winner')}"]
    elif reason == "failed_judge" and "tasks" in f:
        return L["review.failed_task"].format(tasks=_joined(f["tasks"], language))
    elif reason == "identical_ballots":
        f["what"] = L["review.identical.ranking" if f.get("ranking") else "review.identical.decision"]
        f["groups"] = sep.join(L["review.identical.all"].format(n=len(g)) if len(g) == f.get("n") else _joined(g, language) for g in f.get("groups", []))
    elif reason == "short_reasoning":
        f["items"] = _joined([L["review.short_reasoning.item"].format(judge=j, n=n) for j, n in zip(f["judges"], f["lengths"])], language)
    elif reason == "echoed_summary":
        f["items"] = _joined([L["review.echoed_summary.item"].format(stage=st, share=x) for st, x in zip(f["stages"], f["shares"])], language)
    elif reason in ("equal_stage_scores", "tracker_scores"):
        f["items"] = _joined([L[f"review.{reason}.item"].format(judge=j, score=x, n=x) for j, x in zip(f["judges"], f.get("scores", f.get("units", [])))], language)
    elif reason == "p_against_scores":
        rows = [{"judge": j, "p": f"{p:.2f}", "side": L[f"side.{side}"], "mine": f"{m:.2f}", "theirs": f"{t:.2f}"} for j, p, side, m, t in zip(f["judges"], f["p"], f["sides"], f["mine"], f["theirs"])]
        f["items"], f["margin"] = items("p_against_scores", rows), f"{f['margin']:g}"
    elif reason == "repaired_fields":
        f["items"] = items("repaired_fields", [{"node": n, "key": k, "share": f"{x:.0%}"} for n, k, x in zip(f["nodes"], f["keys"], f["shares"])])
    elif reason == "example_choice":
        f["items"] = items("example_choice", [{"node": n, "key": k, "fields": ", ".join(fs)} for n, k, fs in zip(f["nodes"], f["keys"], f["fields"])])
    elif reason == "close_call":
        f["p"] = f"{f['p']:.2f}"
    for key in ("judges", "stages", "probes"):
        if isinstance(f.get(key), list):
            f[key] = _joined(f[key], language)
    return L[f"review.{reason}"].format(**f)


def review_sentences(review: Review, language: str = "en") -> list[str]:
    """One sentence per reason of ``review`` in ``language``: from its facts (:func:`sentence`), or,
    for a record without them (written before they were kept), its English ``detail``."""
    if len(review.facts) != len(review.reasons):
        return list(review.detail)
    return [sentence(r, f, language) for r, f in zip(review.reasons, review.facts)]


def review_of(
    p: float | None,
    winner_split: str | None,
    failures: Sequence[NodeFailure],
    *,
    band: float = REVIEW_BAND,
    split_label: str = "winner",
    ballots: Sequence[Any] = (),
    match: Any = None,
    battlefields: Sequence[Clash] | None = None,
    calls: Sequence[CallRecord] = (),
    analyses: Sequence[Any] = (),
) -> Review:
    """The review record (module docstring) of a verdict with winner tendency ``p`` (None for ranking
    formats or a failed winner), the panel's ``winner_split`` (``"3:0"``, ``"2:1"``; None without a
    panel), its node ``failures``, its panel's ``ballots`` (empty for the single-call arm), the
    ``match`` (a :class:`~adjudicator.input.match.MatchView`; None skips the checks that need it), the clash
    map ``battlefields`` (None: the arm keeps none, so the map is not checked) and the verdict's call
    records ``calls``; ``analyses`` the tracker's stage analyses (LLM judges only: :mod:`~adjudicator.verdict.echoes`).
    ``split_label`` names what was split (``winner``; ``first place`` for rankings)."""
    found = _decision_findings(p, winner_split, failures, band, split_label) + cast(list[Finding], echo_findings(ballots, analyses, match, calls))
    if match is not None and battlefields is not None:
        found += _battlefield_findings(match, battlefields)
    found += _reasoning_findings(ballots, match, list(battlefields or []))
    found += _ballot_findings(ballots)
    found += _call_findings(calls) + cast(list[Finding], read_findings(ballots))
    if match is not None:
        found += [(cast(ReviewReason, r), f) for r, f in transcript_findings(match.stages)]  # reasons of ReviewReason
    order = {r: i for i, r in enumerate(get_args(ReviewReason))}
    found.sort(key=lambda f: order[f[0]])
    return Review(escalate=bool(found), reasons=[r for r, _ in found], detail=[sentence(r, f) for r, f in found], facts=[f for _, f in found], band=band)


def with_probe_flips(review: Review, probes: Sequence[str]) -> Review:
    """``review`` with ``probe_flip`` added when ``probes`` (the probes that moved this match's panel
    winner) is not empty."""
    if not probes:
        return review
    facts = {"probes": list(probes)}
    return Review(escalate=True, reasons=[*review.reasons, "probe_flip"], detail=[*review.detail, sentence("probe_flip", facts)], facts=[*review.facts, facts], band=review.band)
