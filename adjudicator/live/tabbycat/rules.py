"""The Tabbycat settings that decide what a ballot means, and the ballots Tabbycat would store wrongly.

Read from Tabbycat v2.9.3 (tag ``v2.9.3`` of TabbycatDebate/tabbycat):

- ``tabbycat/options/preferences.py``: the settings, their identifiers (``<section>__<name>``), names
  and defaults (:data:`SETTINGS`; :class:`TabbycatRules` carries v2.9.3's defaults).
- ``tabbycat/results/result.py`` ``get_result_class``: one ballot per voting adjudicator ("per-adj")
  or one consensus ballot ("per-debate"), chosen per stage (preliminary / elimination); speaker scores
  only as ``speakers_in_ballots`` says. ``DebateResultWithScoresMixin.scoresheet_class`` and
  ``results/scoresheet.py``: with "Winner Declaration" 'none' or 'high-points' the team with the higher
  total wins whatever the ballot declares (``HighPointWinsRequiredScoresheet``: a declared low-point
  winner is silently replaced, a tie is an invalid result); 'tied-points' lets the declared winner
  have an equal total; 'low-points' takes the declared winner whatever the totals.
- ``tabbycat/tournaments/models.py`` ``Tournament.positions``: speeches 1..``substantive_speakers``,
  then a reply speech when ``reply_scores_enabled``; ``api/serializers.py`` ``TeamResultSerializer.save``
  gives a ballot's k-th speech position k, so a team's extra speech becomes its reply.
- ``tabbycat/results/forms.py`` (the tab room's ballot form; the API checks none of this): scores within
  ``score_min``-``score_max`` on ``score_step``, no tie under 'none' / 'high-points', the declared winner
  with the highest total under 'high-points' / 'tied-points', a margin no larger than ``maximum_margin``
  (0 = no limit), every substantive speaker distinct.
- ``api/serializers.py`` ``SpeechSerializer.save`` never stores a speech's ``rank`` (it reads it from
  the wrong dictionary), so a tournament that ranks speeches cannot take a ballot through the API.

:func:`round_refusals` lists what makes a round impossible to post (the format's team size and replies,
ranks, criteria, teams per debate); :func:`outcome_refusals` what makes one ballot's result wrong
under the winner declaration and the scale. Each :class:`Refusal` names the setting.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from adjudicator.frozen import FrozenModel

#: Tabbycat setting -> (section, the name Tabbycat's settings page shows), from options/preferences.py.
SETTINGS: dict[str, tuple[str, str]] = {
    "teams_in_debate": ("debate_rules", "Number of teams per debate"),
    "ballots_per_debate_prelim": ("debate_rules", "Ballots per debate, preliminary rounds"),
    "ballots_per_debate_elim": ("debate_rules", "Ballots per debate, elimination rounds"),
    "winners_in_ballots": ("debate_rules", "Winner Declaration in ballot(s)"),
    "speakers_in_ballots": ("debate_rules", "Require speaker scores"),
    "substantive_speakers": ("debate_rules", "Substantive speakers"),
    "reply_scores_enabled": ("debate_rules", "Reply scores"),
    "speaker_ranks": ("debate_rules", "Use of speech ranks"),
    "score_min": ("scoring", "Minimum speaker score"),
    "score_max": ("scoring", "Maximum speaker score"),
    "score_step": ("scoring", "Speaker score step"),
    "maximum_margin": ("scoring", "Maximum margin"),
}

#: The choices' labels on Tabbycat's settings page (options/preferences.py).
CHOICES: dict[str, dict[str, str]] = {
    "ballots_per_debate_prelim": {"per-adj": "One ballot per voting adjudicator", "per-debate": "Consensus ballot (one ballot per debate)"},
    "ballots_per_debate_elim": {"per-adj": "One ballot per voting adjudicator", "per-debate": "Consensus ballot (one ballot per debate)"},
    "winners_in_ballots": {
        "none": "Do not require separate winner selection",
        "high-points": "Require separate winner selection as a check on correct scores",
        "tied-points": "Require winner selection to break tied-point debates",
        "low-points": "Require winner selection, overriding scores",
    },
    "speakers_in_ballots": {"always": "Always require speaker scores", "prelim": "Only require speaker scores in preliminary rounds", "never": "Never require speaker scores"},
    "speaker_ranks": {"none": "Do not rank speeches", "any": "Require ranking speeches, independently of speaker scores",
                      "high-points": "Require ranking speeches, ranks congruent with speaker scores"},
}

BallotsPerDebate = Literal["per-adj", "per-debate"]
WinnerDeclaration = Literal["none", "high-points", "tied-points", "low-points"]


class TabbycatRules(FrozenModel):
    """A Tabbycat tournament's settings that change what a ballot means; the defaults are v2.9.3's.
    ``has_criteria``: the tournament scores speeches by criteria (``GET <base>/score-criteria`` is not
    empty), so a speech's own score is ignored."""

    teams_in_debate: int = 2
    ballots_per_debate_prelim: BallotsPerDebate = "per-adj"
    ballots_per_debate_elim: BallotsPerDebate = "per-adj"
    winners_in_ballots: WinnerDeclaration = "none"
    speakers_in_ballots: Literal["always", "prelim", "never"] = "always"
    substantive_speakers: int = 3
    reply_scores_enabled: bool = True
    speaker_ranks: Literal["none", "any", "high-points"] = "none"
    score_min: float = 68.0
    score_max: float = 82.0
    score_step: float = 1.0
    maximum_margin: float = 0.0
    has_criteria: bool = False

    @classmethod
    def from_preferences(cls, prefs: list[dict[str, Any]], has_criteria: bool = False) -> TabbycatRules:
        """From ``GET <base>/preferences`` (a list of ``{"section", "name", "value", ...}``); settings
        it lacks keep v2.9.3's defaults. Raises ValueError for a value of the wrong kind."""
        values = {p["name"]: p.get("value") for p in prefs if isinstance(p, dict) and p.get("name") in SETTINGS and p.get("section") == SETTINGS[p["name"]][0]}
        return cls.model_validate(values | {"has_criteria": has_criteria})

    def ballots_per_debate(self, elimination: bool) -> BallotsPerDebate:
        """'per-adj' or 'per-debate' for a preliminary or an elimination round."""
        return self.ballots_per_debate_elim if elimination else self.ballots_per_debate_prelim

    def uses_scores(self, elimination: bool) -> bool:
        """Whether ballots of such a round carry speaker scores (``speakers_in_ballots``)."""
        return self.speakers_in_ballots == "always" or (self.speakers_in_ballots == "prelim" and not elimination)

    def declared_winner_counts(self, elimination: bool) -> bool:
        """Whether Tabbycat stores the ballot's declared winner (else the higher total wins)."""
        return not self.uses_scores(elimination) or self.winners_in_ballots in ("tied-points", "low-points")


def setting(key: str, value: Any) -> str:
    """``Tabbycat setting 'Substantive speakers' (debate_rules__substantive_speakers) is 3``."""
    section, name = SETTINGS[key]
    shown = CHOICES.get(key, {}).get(str(value), value)
    shown = f"'{shown}'" if isinstance(shown, str) else ("on" if shown is True else "off" if shown is False else f"{shown:g}" if isinstance(shown, float) else shown)
    return f"Tabbycat setting '{name}' ({section}__{key}) is {shown}"


class Refusal(FrozenModel):
    """Why a ballot is not posted: the Tabbycat ``setting`` concerned (its name, or "" when none is),
    a one-line ``reason`` that names it, and what to do (``hint``)."""

    setting: str = ""
    reason: str
    hint: str = ""

    def line(self) -> str:
        """The reason and the hint on one line."""
        return self.reason + (f"; {self.hint}" if self.hint else "")


def round_refusals(rules: TabbycatRules, format_name: str, debaters_per_side: int, elimination: bool) -> list[Refusal]:
    """What makes every ballot of a round of ``format_name`` (``debaters_per_side`` speakers a team, no
    reply speech) impossible to post as meant (module docstring), [] when none."""
    out: list[Refusal] = []
    if rules.teams_in_debate != 2:
        out.append(Refusal(setting="teams_in_debate", reason=f"{setting('teams_in_debate', rules.teams_in_debate)}; {format_name} debates have two teams",
                           hint="push two-team rounds only to a two-team Tabbycat tournament"))
    if not rules.uses_scores(elimination):
        return out
    if rules.substantive_speakers != debaters_per_side:
        out.append(Refusal(setting="substantive_speakers",
                           reason=f"{setting('substantive_speakers', rules.substantive_speakers)}; {format_name} has {debaters_per_side} speaker(s) a team, so Tabbycat would put speakers in the wrong positions",
                           hint=f"set it to {debaters_per_side} in Tabbycat (Setup > Configuration > Debate Rules)"))
    if rules.reply_scores_enabled:
        out.append(Refusal(setting="reply_scores_enabled",
                           reason=f"{setting('reply_scores_enabled', True)}; {format_name} has no reply speech, so Tabbycat would wait for a reply score (or take a speaker's score as one)",
                           hint="turn 'Reply scores' off in Tabbycat (Setup > Configuration > Debate Rules)"))
    if rules.speaker_ranks != "none":
        out.append(Refusal(setting="speaker_ranks",
                           reason=f"{setting('speaker_ranks', rules.speaker_ranks)}; Tabbycat's API does not store speech ranks (v2.9.3 api/serializers.py)",
                           hint="set 'Use of speech ranks' to 'Do not rank speeches', or enter these ballots in Tabbycat's own form"))
    if rules.has_criteria:
        out.append(Refusal(setting="score_criteria", reason="the Tabbycat tournament scores speeches by criteria (Setup > Score criteria); it would ignore a speech's own score",
                           hint="remove the score criteria, or enter these ballots in Tabbycat's own form"))
    return out


def stage_score_gap(winner: str, loser: str, raw_totals: dict[str, float], debaters: int) -> str:
    """How far the ``winner`` is behind on the stage scores (1-10), and what closes it: ``raw_totals`` is
    side -> the sum of its ``debaters`` debaters' raw scores (each the mean of the stage scores they spoke
    in). Raising every one of a side's stage scores by d raises each of its debaters' raw scores, and so
    its sum, by d per debater; once the winner's sum leads, its Tabbycat total leads too (the push keeps
    the counted winner ahead through rounding). E.g. ``"on the stage scores (1-10) the negative is 0.40
    behind (its debaters' mean stage scores add up to 26.40, the affirmative's to 26.80): +0.11 on every
    negative stage score (0.40 over 4 debaters, and a little more) puts it ahead"``."""
    gap = raw_totals[loser] - raw_totals[winner]
    each = math.floor(gap / debaters * 100 + 1e-9) / 100 + 0.01
    return (f"on the stage scores (1-10) the {winner} is {gap:.2f} behind (its debaters' mean stage scores add up to {raw_totals[winner]:.2f}, "
            f"the {loser}'s to {raw_totals[loser]:.2f}): +{each:.2f} on every {winner} stage score ({gap:.2f} over {debaters} debaters, and a little more) "
            "puts it ahead")


def outcome_refusals(rules: TabbycatRules, totals: dict[str, float], winner: str, elimination: bool,
                     raw_totals: dict[str, float] | None = None, debaters: int = 0) -> list[Refusal]:
    """What makes a ballot whose team totals are ``totals`` (side -> points) and whose counted winner is
    ``winner`` stored wrongly or refused by Tabbycat (a low-point or tied win it would replace, a margin
    above the maximum), [] when none. With ``raw_totals`` (side -> the sum of its ``debaters`` debaters'
    raw 1-10 scores) a low-point or tied win also says how far behind the winner is on the stage scores
    (:func:`stage_score_gap`)."""
    if not rules.uses_scores(elimination):
        return []
    out: list[Refusal] = []
    loser = next(s for s in totals if s != winner)
    w, lo = totals[winner], totals[loser]
    decl = rules.winners_in_ballots
    fix = (f"override the stage scores too when confirming, so that the {winner} has the higher total "
           "(`adjudicate live confirm ... --score STAGE:SIDE=SCORE`), or set it to 'Require winner selection, overriding scores'")
    gap = f"; {stage_score_gap(winner, loser, raw_totals, debaters)}" if raw_totals and debaters else ""
    if w < lo and decl != "low-points":
        out.append(Refusal(setting="winners_in_ballots", reason=f"the counted winner, the {winner}, has {w:g} points to the {loser}'s {lo:g} (a low-point win), and {setting('winners_in_ballots', decl)}: Tabbycat would record the {loser} as the winner{gap}", hint=fix))
    elif w == lo and decl in ("none", "high-points"):
        out.append(Refusal(setting="winners_in_ballots", reason=f"both teams have {w:g} points and {setting('winners_in_ballots', decl)}: Tabbycat refuses a tied result (and keeps an empty confirmed ballot){gap}", hint=fix))
    if rules.maximum_margin and abs(w - lo) > rules.maximum_margin:
        out.append(Refusal(setting="maximum_margin", reason=f"the margin is {abs(w - lo):g} points and {setting('maximum_margin', rules.maximum_margin)}",
                           hint="raise 'Maximum margin' in Tabbycat, or override the stage scores when confirming"))
    return out
