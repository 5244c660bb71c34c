"""The LLM judge: the :class:`~adjudicator.judges.base.Backend` node interfaces on a real language model.

:class:`LLMBackend` renders the node's prompt template (``prompts/track_stage.<lang>.j2`` or
``prompts/judge.<lang>.j2``) with the node's variables (:mod:`adjudicator.judges.llm.variables`),
asks for the answer's response schema (:mod:`adjudicator.judges.llm.outputs`), sends it through
:class:`~adjudicator.model.llm.LLMClient` with the protocol's up-to-three attempts
(:func:`~adjudicator.model.attempts.run_attempts`), and reads the answer with the three-stage parser
and the node's validator and recovery (:mod:`adjudicator.judges.llm.recovery`) into a
:class:`~adjudicator.verdict.battlefield.StageAnalysis` or a :class:`~adjudicator.verdict.ballots.Ballot`. An answer that
decodes but misses or botches some fields gets a repair turn asking for those fields only
(:mod:`adjudicator.model.repair`, ``prompts/repair.<lang>.j2``).

Both inputs are built from the label-free :class:`~adjudicator.input.match.MatchView` and tracker outputs,
so gold labels cannot reach a prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from adjudicator.input.formats import get_format
from adjudicator.judges.base import CompareRequest, JudgeRequest, NodeResult, StageRequest, WindowResult
from adjudicator.judges.llm.ballot_recovery import read_ballot, recover_ballot
from adjudicator.judges.llm.compare import compare_schema, compare_variables, read_choice, recover_choice
from adjudicator.judges.llm.dimensions import dimension_variables, judge_dimension_units
from adjudicator.judges.llm.outputs import judge_schema, stage_schema, window_schema
from adjudicator.judges.llm.quotes import evidence_variables
from adjudicator.judges.llm.ranking import ranking_judge_variables, ranking_schema, read_ranking_ballot, recover_ranking_ballot
from adjudicator.judges.llm.recovery import read_stage_analysis, read_window_analyses, recover_stage_analysis
from adjudicator.judges.llm.variables import asks_contributions, judge_units, judge_variables, rates_one_side, stage_variables, unit_key, window_variables
from adjudicator.model.attempts import MAX_ATTEMPTS, run_attempts
from adjudicator.model.cache_control import line_end_after
from adjudicator.model.chat import FEEDBACK_TOKENS_PER_DEBATER, NODE_MAX_TOKENS, ChatRequest
from adjudicator.model.llm import LLMClient
from adjudicator.model.logprobs import expected_score, logprob_p
from adjudicator.model.normalise import normalise_ballot, normalise_stage_answer
from adjudicator.model.parsing import ParseResult, parse_output
from adjudicator.model.prompts import PromptStore, prompt_language
from adjudicator.model.reasoning import split_reasoning
from adjudicator.model.repair import Repairer
from adjudicator.model.repair import template_name as repair_template
from adjudicator.pairwise.comparisons import PairChoice
from adjudicator.records import FailureKind, NodeFailure, Normalised
from adjudicator.verdict.ballots import Ballot
from adjudicator.verdict.battlefield import StageAnalysis
from adjudicator.verdict.feedback import writes_feedback
from adjudicator.verdict.labels import stage_name

TRACK_NODE = "track_stage"
#: Template stem of the tracker's window of several stages (``prompts/track_window.<lang>.j2``).
WINDOW_TEMPLATE = "track_window"
JUDGE_NODE = "judge"
COMPARE_NODE = "compare"
#: Template stem of the pressure probe's challenge turn (``prompts/pressure.<lang>.j2``).
PRESSURE_TEMPLATE = "pressure"


def template_name(node: str, language: str, format_name: str | None = None, dimensional: bool = False) -> str:
    """The template file of a node in a language, e.g. ``track_stage.zh.j2``; a format that declares
    its own template for the node uses it (BP: ``judge_bp.en.j2``); under a dimensional rubric the
    node's ``_dimensions`` template, which extends the plain one (``judge_dimensions.en.j2``)."""
    base = get_format(format_name).template(node) if format_name else node
    if dimensional and base == node:
        base = f"{node}_dimensions"
    return f"{base}.{language}.j2"


def rendered_templates(format_name: str | None = None, panel: str = "scoring") -> list[str]:
    """The template files an :class:`LLMBackend` renders: the tracker's and the judge's in Chinese
    and English and the repair turn of each language, or, for a format with its own templates (BP),
    that format's in its language with the repair turn of that language; a ``"pairwise"`` panel's
    judges render the compare template instead of the judge template."""
    nodes = (TRACK_NODE, COMPARE_NODE if panel == "pairwise" else JUDGE_NODE)
    if format_name is not None and (get_format(format_name).templates or panel == "pairwise"):
        lang = get_format(format_name).language
        return [template_name(n, lang, format_name) for n in nodes] + [repair_template(lang)]
    return [template_name(n, lang) for n in nodes for lang in ("zh", "en")] + [repair_template(lang) for lang in ("zh", "en")]


def window_key(requests: Sequence[StageRequest]) -> str:
    """The call key of a window's request: its stage ids joined by ``+`` (``"s03+s04"``; ``+`` cannot
    occur in a stage id, :data:`~adjudicator.input.stages.ID_PATTERN`); one stage's key is its stage id."""
    return "+".join(r.stage.stage_id for r in requests)


def _dimensional(request: StageRequest | JudgeRequest) -> bool:
    return request.rubric is not None and request.rubric.dimensional


def with_logprob_readings(result: NodeResult[Ballot]) -> NodeResult[Ballot]:
    """``result`` with its ballot's log-prob readings (``--p-source logprob``): ``p_logprob`` from the
    winner token and each stage score's ``expected`` value from its score tokens, read off the accepted
    reply's token log-probabilities (:mod:`adjudicator.model.logprobs`). Unchanged when there is no
    ballot, no accepted reply or no log-probabilities; a value the reply does not support stays None."""
    ballot, resp = result.value, result.response
    if ballot is None or resp is None or not resp.logprobs:
        return result
    text, tokens = resp.text, list(resp.logprobs)
    scores = [s.model_copy(update={"expected": expected_score(text, tokens, unit_key(s.stage_id, s.side))}) for s in ballot.stage_scores]
    ballot = ballot.model_copy(update={"p_logprob": logprob_p(text, tokens), "stage_scores": scores})
    return NodeResult(value=ballot, calls=result.calls, failure=result.failure, response=resp)


def ballot_normaliser(request: JudgeRequest) -> Callable[[dict[str, Any]], tuple[dict[str, Any], list[Normalised]]]:
    """The normalisation rules for a judge's answer on ``request``'s match
    (:func:`~adjudicator.model.normalise.normalise_ballot`): its stages by id with their names (the
    match's, and the format's English and Chinese slot names), its debaters' labels, names and sides."""
    match = request.match
    stages: dict[str, list[str]] = {}
    for st in match.stages:
        slot = match.slot_of(st.stage_id)
        stages[st.stage_id] = [n for n in (st.name, stage_name(st.name, "zh"), slot.name if slot else None, slot.name_zh if slot else None) if n]
    names = {d.name: match.label_of(d) for d in match.debaters if d.name}
    sides = {match.label_of(d): d.side for d in match.debaters}
    speaking = {st.stage_id: list(st.sides) for st in match.stages}
    return partial(normalise_ballot, stages=stages, labels=match.debater_labels(), names=names, sides=sides, stage_sides=speaking)


def with_read_notes(result: NodeResult[Ballot]) -> NodeResult[Ballot]:
    """``result`` with its ballot carrying what the accepted attempt's record says of its reading: the
    fields normalised and the fields dropped (issue 38), so the verdict shows them."""
    if result.value is None or not result.calls:
        return result
    last = result.calls[-1]
    if not last.normalised and not last.dropped:
        return result
    ballot = result.value.model_copy(update={"normalised": list(last.normalised), "dropped": list(last.dropped)})
    return NodeResult(value=ballot, calls=result.calls, failure=result.failure, response=result.response)


def window_partials(result: NodeResult[Any], requests: Sequence[StageRequest]) -> list[NodeFailure]:
    """The ``dropped_field`` failures of a window answer taken without some stages' fields (a real
    speech still without clash updates after its repair, issue 38): one per such stage, keyed by its
    stage id, naming its dropped fields; [] when nothing was dropped."""
    if result.failure is None or not result.failure.partial or not result.calls:
        return []
    out = []
    for r in requests:
        sid = r.stage.stage_id
        mine = [d for d in result.calls[-1].dropped if d.field.startswith(f"stages.{sid}.")]
        if mine:
            fields = "; ".join(f"{d.field} ({d.reason})" for d in mine)
            reason = f"{FailureKind.DROPPED_FIELD.value}: answer taken without {len(mine)} field(s) still invalid after their repair: {fields}"
            out.append(result.failure.model_copy(update={"key": sid, "reason": reason}))
    return out


def tracker_cache_points(request: StageRequest, system: str, user: str, one_rating: bool = False) -> tuple[tuple[int, int], ...]:
    """Where the tracker's request for ``request``'s stage ends a prefix a later stage's request repeats
    (:attr:`~adjudicator.model.chat.ChatRequest.cache_points`): the system message's end and the end of
    the match header (the MOTION fence's closing line; the ledger after it changes every stage), but
    only when a later stage of the match has the same response schema (the same evaluated sides and
    the same contributions asked; with ``one_rating`` every stage has the match's one schema), since
    the schema comes ahead of the messages in a provider's cached prefix and the tracker's requests
    are sent one stage after another; the last stage of each schema gets none (a cache write nobody
    reads costs a quarter more, :mod:`adjudicator.model.cache_control`)."""
    stages = request.match.stages

    def shape(st: Any) -> tuple[tuple[str, ...], bool]:
        return (() if one_rating else tuple(st.evaluated_sides())), asks_contributions(request.match, st)

    here = shape(request.stage)
    if not any(shape(st) == here for st in stages[request.index + 1 :]):
        return ()
    header = line_end_after(user, "<<<END MOTION-")
    return ((0, len(system)),) + (((1, header),) if header is not None else ())


def judge_cache_points(request: JudgeRequest, system: str, user: str) -> tuple[tuple[int, int], ...]:
    """Where a judge's request ends the beginning the panel's judges share (:attr:`~adjudicator.model.chat.ChatRequest.cache_points`):
    the system message's end and the start of the user message's line naming the judge (``You are
    judge-N``; the evidence before it is the same for every judge, as is the response schema ahead of
    the messages), but only when the panel is sent lead-first (``request.cache_shared``): the lead
    writes the entry (1.25x) and the others read it (0.1x); sent at once, every judge would pay the
    write and none read (:mod:`adjudicator.model.cache_control`)."""
    if not request.cache_shared:
        return ()
    at = user.find(request.judge_id)
    points = [(0, len(system))]
    if at > 0:
        points.append((1, user.rfind("\n", 0, at) + 1))
    return tuple(points)


class LLMBackend:
    """The node interfaces on one model (see the module docstring).

    ``client`` is the model client (shared with other backends on the same model if you like);
    ``prompts`` the template store; ``max_attempts`` the protocol's attempts (1-3, default 3).
    Safe to call from several threads at once.
    """

    is_llm = True

    def __init__(self, client: LLMClient, prompts: PromptStore | None = None, *, max_attempts: int = MAX_ATTEMPTS) -> None:
        self.client = client
        self.prompts = prompts or PromptStore()
        self.max_attempts = max_attempts
        self.name = client.model

    def __repr__(self) -> str:
        return f"LLMBackend({self.client!r})"

    def prompt_hashes(self, format_name: str | None = None, panel: str = "scoring") -> dict[str, str]:
        """Content hashes of the templates this backend renders (:func:`rendered_templates`: tracker,
        judge and repair turn, zh and en); with ``format_name``, those of that format (a format with its
        own templates, BP, in its language, with the repair turn of that language); a ``"pairwise"``
        panel's judges render the compare template instead of the judge template."""
        return self.prompts.hashes(rendered_templates(format_name, panel))

    def repairer(self, format_name: str) -> Repairer:
        """The repair turns for a match of ``format_name`` (in its prompt language)."""
        return Repairer(self.prompts, prompt_language(format_name))

    def stage_prompt(self, request: StageRequest, one_rating: bool | None = None) -> ChatRequest:
        """The chat request of the tracker for one stage (exposed for tests and token counting);
        ``one_rating``: whether it asks for the match's one schema (None: :meth:`one_rating` decides)."""
        lang = prompt_language(request.match.format)
        name = template_name(TRACK_NODE, lang, request.match.format, _dimensional(request))
        one_rating = self.one_rating(request) if one_rating is None else one_rating
        variables = stage_variables(request, one_rating)
        if request.rubric is not None and request.rubric.dimensional:
            variables.update(dimension_variables(request.rubric, lang, request.evidence))
        rendered = self.prompts.render(name, variables)
        return ChatRequest(
            messages=rendered.messages(),
            node=TRACK_NODE,
            key=request.stage.stage_id,
            template_hash=rendered.template_hash,
            schema=stage_schema(request, one_rating),
            schema_name="stage_analysis",
            cache_points=tracker_cache_points(request, rendered.system, rendered.user, one_rating),
        )

    def one_rating(self, request: StageRequest) -> bool:
        """Whether the tracker's answer for ``request``'s stage is the match's one schema (``"rating"``,
        :func:`~adjudicator.judges.llm.variables.rates_one_side`): only where the client asks for
        strict ``json_schema`` (:meth:`~adjudicator.model.llm.LLMClient.asks_json_schema`: a hosted
        model litellm knows, whose provider bills and caches the prompt). A local server run with
        ``--json-mode object`` (README's command) keeps the ``"sides"`` form,
        on which Qwen2.5-Coder 0.5B answers without looping (session 7: on the one-schema form it
        copied the previous speech into its clash updates up to the token limit)."""
        return rates_one_side(request) and self.client.asks_json_schema()

    def supports_windows(self, format_name: str, rubric: object = None) -> bool:
        """True when the tracker can analyse a window of several stages in one request for a match
        of ``format_name`` under ``rubric``: formats without their own tracker template (BP speeches
        are each longer than any sensible window) and the CCDB rubric (a dimensional rubric's extra
        fields are asked per stage)."""
        dimensional = bool(getattr(rubric, "dimensional", False))
        return not dimensional and "track_stage" not in get_format(format_name).templates

    def window_hashes(self, format_name: str | None = None) -> dict[str, str]:
        """Content hashes of the window templates (``track_window.<lang>.j2``) for ``format_name``'s
        language (both languages when None): recorded in the provenance of a windowed run."""
        langs = [prompt_language(format_name)] if format_name else ["zh", "en"]
        return self.prompts.hashes([f"{WINDOW_TEMPLATE}.{lang}.j2" for lang in langs])

    def window_prompt(self, requests: Sequence[StageRequest]) -> ChatRequest:
        """The chat request of the tracker for a window of consecutive stages (``requests``, one per
        stage in order, each with the ledger as it stood before the window): ``track_window.<lang>.j2``,
        key :func:`window_key`, the exact schema of :func:`~adjudicator.judges.llm.outputs.window_schema`,
        and a completion budget and a time limit of the per-stage ones times the stage count."""
        first = requests[0]
        lang = prompt_language(first.match.format)
        rendered = self.prompts.render(f"{WINDOW_TEMPLATE}.{lang}.j2", window_variables(requests))
        per_stage = self.client.max_tokens if self.client.max_tokens is not None else NODE_MAX_TOKENS[TRACK_NODE]
        return ChatRequest(
            messages=rendered.messages(),
            node=TRACK_NODE,
            key=window_key(requests),
            template_hash=rendered.template_hash,
            schema=window_schema(requests),
            schema_name="stage_window",
            max_tokens=per_stage * len(requests),
            timeout_scale=len(requests),
        )

    def analyse_window(self, requests: Sequence[StageRequest]) -> WindowResult:
        """Track a window of consecutive stages in one request (:mod:`adjudicator.workflow.windows`):
        up to three attempts, a repair turn asking only for the stages' fields that failed; one
        analysis per stage in order. When no valid answer came, every stage of the window gets its
        own :class:`NodeFailure` (key = its stage id) holding the window's raw outputs. Never raises
        for model faults."""
        requests = list(requests)
        chat = self.window_prompt(requests)
        read = partial(parse_output, validate=partial(read_window_analyses, requests=requests), normalise=normalise_stage_answer)
        result = run_attempts(self.client, chat, read, max_attempts=self.max_attempts, repairer=self.repairer(requests[0].match.format))
        if result.value is not None:
            return WindowResult(analyses=list(result.value), calls=list(result.calls), failures=window_partials(result, requests))
        failure = result.failure
        assert failure is not None
        failures = [failure.model_copy(update={"key": r.stage.stage_id, "reason": f"{failure.reason} (window {chat.key})"}) for r in requests]
        return WindowResult(calls=list(result.calls), failures=failures)

    def judge_prompt(self, request: JudgeRequest) -> ChatRequest:
        """The chat request of one judge (exposed for tests and token counting); a ballot that carries
        the coach's feedback (the chair's, :func:`~adjudicator.verdict.feedback.writes_feedback`) gets the judge's budget plus
        :data:`~adjudicator.model.chat.FEEDBACK_TOKENS_PER_DEBATER` per debater (unless ``max_tokens``
        is configured)."""
        lang = prompt_language(request.match.format)
        name = template_name(JUDGE_NODE, lang, request.match.format, _dimensional(request))
        ranking = request.match.spec().verdict == "ranking"
        variables = ranking_judge_variables(request) if ranking else judge_variables(request)
        variables.update(evidence_variables(request))
        if request.rubric is not None and request.rubric.dimensional:
            variables.update(dimension_variables(request.rubric, lang), dimension_units=judge_dimension_units(request))
        rendered = self.prompts.render(name, variables)
        feedback = not ranking and writes_feedback(request) and self.client.max_tokens is None
        return ChatRequest(
            messages=rendered.messages(),
            node=JUDGE_NODE,
            key=request.judge_id,
            template_hash=rendered.template_hash,
            schema=ranking_schema(request) if ranking else judge_schema(request),
            schema_name="ranking_ballot" if ranking else "ballot",
            max_tokens=NODE_MAX_TOKENS[JUDGE_NODE] + FEEDBACK_TOKENS_PER_DEBATER * len(request.match.debater_labels()) if feedback else None,
            cache_points=judge_cache_points(request, rendered.system, rendered.user),
        )

    def compare_prompt(self, request: CompareRequest) -> ChatRequest:
        """The chat request of one ordered comparison (exposed for tests and token counting)."""
        name = template_name(COMPARE_NODE, prompt_language(request.match.format), request.match.format)
        rendered = self.prompts.render(name, compare_variables(request))
        return ChatRequest(
            messages=rendered.messages(),
            node=COMPARE_NODE,
            key=request.key,
            template_hash=rendered.template_hash,
            schema=compare_schema(),
            schema_name="pair_choice",
        )

    def compare(self, request: CompareRequest) -> NodeResult[PairChoice]:
        """One ordered comparison: up to three attempts; a :class:`NodeFailure` with every raw output
        when none could be read (the pair then drops out of the fit; it is never a tie). Never
        raises for model faults."""
        chat = self.compare_prompt(request)
        read = partial(parse_output, validate=partial(read_choice, request=request), recover=recover_choice)
        return run_attempts(self.client, chat, read, max_attempts=self.max_attempts)

    def analyse_stage(self, request: StageRequest) -> NodeResult[StageAnalysis]:
        """Track one stage: up to three attempts; a :class:`NodeFailure` with every raw output when
        none could be read. Never raises for model faults."""
        one_rating = self.one_rating(request)  # the request and its reader agree on the form asked
        chat = self.stage_prompt(request, one_rating)
        read = partial(
            parse_output,
            validate=partial(read_stage_analysis, request=request, one_rating=one_rating),
            recover=partial(recover_stage_analysis, one_rating=one_rating),
            normalise=normalise_stage_answer,
        )
        return run_attempts(self.client, chat, read, max_attempts=self.max_attempts, repairer=self.repairer(request.match.format))

    def judge(self, request: JudgeRequest) -> NodeResult[Ballot]:
        """One judge's ballot: up to three attempts; a :class:`NodeFailure` with every raw output
        when none could be read, or at once (no request) when no stage was analysed. Never raises
        for model faults."""
        if not judge_units(request):  # every stage analysis failed: no evidence to judge from
            reason = "no stage analysis succeeded, so there is nothing to judge from"
            return NodeResult(value=None, calls=[], failure=NodeFailure(node=JUDGE_NODE, key=request.judge_id, kind=FailureKind.NO_EVIDENCE, reason=reason))
        ranking = request.match.spec().verdict == "ranking"  # ranking ballots are resent, not repaired
        result = run_attempts(self.client, self.judge_prompt(request), self._ballot_reader(request), max_attempts=self.max_attempts, repairer=None if ranking else self.repairer(request.match.format))
        result = with_read_notes(result)
        return with_logprob_readings(result) if self.client.logprobs and not ranking else result

    def _ballot_reader(self, request: JudgeRequest) -> Callable[[str], ParseResult[Ballot]]:
        """The three-stage parser with the ballot validator and recovery for ``request`` (a ranking
        ballot's for a ranking format)."""
        if request.match.spec().verdict == "ranking":
            units = request.match.units()
            return partial(parse_output, validate=partial(read_ranking_ballot, request=request, model=self.client.model), recover=partial(recover_ranking_ballot, units=units))
        labels = request.match.debater_labels()
        return partial(
            parse_output,
            validate=partial(read_ballot, request=request, model=self.client.model),
            recover=partial(recover_ballot, labels=labels, unit_keys=[unit_key(sid, side) for sid, side in judge_units(request)]),
            normalise=ballot_normaliser(request),
        )

    def reconsider(self, request: JudgeRequest, answered: NodeResult[Ballot]) -> NodeResult[Ballot]:
        """The pressure probe's second turn (:mod:`adjudicator.probes.pressure`): the judge's request,
        its accepted answer (the last attempt's reply, reasoning removed) as the assistant's turn, then
        the contentless challenge of ``prompts/pressure.<lang>.j2``; the reply is read as a complete
        ballot with the same schema, attempts and repair turns. Returns ``answered`` unchanged when it
        holds no ballot. Never raises for model faults."""
        if answered.value is None or not answered.calls:
            return answered
        chat = self.judge_prompt(request)
        shown, _ = split_reasoning(answered.calls[-1].raw_output or "")
        challenge = self.prompts.render(template_name(PRESSURE_TEMPLATE, prompt_language(request.match.format)), {})
        messages = (*chat.messages, {"role": "assistant", "content": shown.strip()}, {"role": "user", "content": challenge.user})
        second = ChatRequest(messages=messages, node=JUDGE_NODE, key=request.judge_id, template_hash=challenge.template_hash, schema=chat.schema, schema_name=chat.schema_name, max_tokens=chat.max_tokens)
        ranking = request.match.spec().verdict == "ranking"
        return run_attempts(self.client, second, self._ballot_reader(request), max_attempts=self.max_attempts, repairer=None if ranking else self.repairer(request.match.format))
