"""Reasoning blocks: a reasoning model's draft, set aside before an answer is read, never read for one.

:func:`split_reasoning` removes ``<think>…</think>`` and the other tags of :data:`REASONING_TAGS`,
``[THINK]…[/THINK]``, gpt-oss's analysis channel, a draft closed by an orphan ``</think>`` and one left
open by a cut-off reply: a draft may hold a decoy answer. :func:`adjudicator.model.parsing.parse_output`
reads what is left; the blocks travel on in the call record.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import deque

#: Tag names whose ``<tag>…</tag>`` blocks are a model's reasoning (case-insensitive; attributes allowed):
#: DeepSeek-R1 and Qwen3 (``think``), Claude-style and others (``thinking``, ``reasoning``, ``thought``,
#: ``reflection``, ``scratchpad``, ``analysis``).
REASONING_TAGS: tuple[str, ...] = ("think", "thinking", "thought", "thoughts", "reasoning", "reflection", "scratchpad", "analysis", "inner_monologue")
_TAGS = "|".join(REASONING_TAGS)
_NS = r"(?:[\w-]+:)?"  # a namespace prefix, as in Anthropic's <budget:thinking>
# Every pattern below stops at the next "<" where it could run on (an opening tag's attributes, a
# harmony constraint), so each scan of a reply is linear in its length: a lazy ``<tag>(.*?)</tag>``
# retried at each of many unclosed tags, or ``[^>]*`` run to the end from each of them, is quadratic
# (140 KB of unclosed ``<think>`` took 13 s of CPU).
_ANGLE_OPEN_RE = re.compile(rf"<\s*{_NS}({_TAGS})\b[^<>]*>", re.I)
_ANGLE_CLOSE_RE = re.compile(rf"<\s*/\s*{_NS}({_TAGS})\s*>", re.I)
_BRACKET_OPEN_RE = re.compile(r"\[(THINK)\]", re.I)
_BRACKET_CLOSE_RE = re.compile(r"\[/(THINK)\]", re.I)
_OPEN_RE = re.compile(rf"<\s*{_NS}({_TAGS})\b[^<>]*>|\[THINK\]", re.I)
_CLOSE_RE = re.compile(rf"<\s*/\s*{_NS}({_TAGS})\s*>|\[/THINK\]", re.I)
#: gpt-oss (harmony format) writes ``<|channel|>analysis<|message|>…<|end|>`` before the final channel.
_HARMONY_RE = re.compile(r"<\|channel\|>\s*(analysis|commentary)\s*(?:<\|constrain\|>[^\s<]*)?<\|message\|>(.*?)(?:<\|end\|>|(?=<\|start\|>)|(?=<\|channel\|>)|$)", re.S)
_HARMONY_FINAL_RE = re.compile(r"<\|channel\|>\s*final\s*(?:<\|constrain\|>[^\s<]*)?<\|message\|>(.*?)(?:<\|return\|>|<\|end\|>|$)", re.S)


def _cut_blocks(text: str, open_re: re.Pattern[str], close_re: re.Pattern[str], blocks: list[str]) -> str:
    """``text`` with each block -- an opening tag of ``open_re``, the first closing tag of ``close_re``
    with the same name (case-insensitive) after it, and what stands between -- replaced by a newline,
    left to right, as ``re.sub`` of ``<(tag)>(.*?)</\\1>`` would; the blocks' contents (stripped) are
    appended to ``blocks``. Each tag is found once and an opening tag's closing tag by bisection, so
    the cost is O(n log n) in ``len(text)`` however many tags are left unclosed."""
    closes: dict[str, list[re.Match[str]]] = {}
    for m in close_re.finditer(text):
        closes.setdefault(m.group(1).lower(), []).append(m)
    if not closes:
        return text
    starts = {name: [m.start() for m in found] for name, found in closes.items()}
    out: list[str] = []
    pos = 0
    for m in open_re.finditer(text):
        name = m.group(1).lower()
        if m.start() < pos or name not in starts:
            continue
        j = bisect_left(starts[name], m.end())
        if j == len(starts[name]):
            continue  # never closed: a later step reads it as a reply cut off while thinking
        close = closes[name][j]
        out += [text[pos : m.start()], "\n"]
        blocks.append(text[m.end() : close.start()].strip())
        pos = close.end()
    out.append(text[pos:])
    return "".join(out)


def split_reasoning(text: str) -> tuple[str, tuple[str, ...]]:
    """``(answer, blocks)``: ``text`` with every reasoning block removed, and the blocks' contents in
    order (stripped). Recognised wherever they stand: ``<tag>…</tag>`` for the tags of
    :data:`REASONING_TAGS`, ``[THINK]…[/THINK]``, gpt-oss's analysis channel (the answer is then the
    final channel's message), a closing tag with no opening one (everything before it is the draft:
    chat templates that open the block in the prompt), and an opening tag never closed (everything
    after it is the draft: a reply cut off while thinking). Never raises; a text without reasoning
    comes back unchanged with no blocks. Linear in ``len(text)`` up to a log factor (:func:`_cut_blocks`)."""
    if not text:
        return text or "", ()
    blocks: list[str] = []
    if "<|channel|>" in text:
        final = _HARMONY_FINAL_RE.search(text)
        blocks += [m.group(2).strip() for m in _HARMONY_RE.finditer(text)]
        if final is not None:
            return final.group(1).strip(), tuple(b for b in blocks if b)
        text = _HARMONY_RE.sub("", text)
    text = _cut_blocks(text, _ANGLE_OPEN_RE, _ANGLE_CLOSE_RE, blocks)
    text = _cut_blocks(text, _BRACKET_OPEN_RE, _BRACKET_CLOSE_RE, blocks)
    close = deque(_CLOSE_RE.finditer(text), maxlen=1)  # the last closing tag left
    if close:  # an orphan closing tag: the draft began before the reply did
        blocks.insert(0, text[: close[0].start()].strip())
        text = text[close[0].end() :]
    opened = _OPEN_RE.search(text)
    if opened is not None:  # an opening tag never closed: the reply stopped while thinking
        blocks.append(text[opened.end() :].strip())
        text = text[: opened.start()]
    return text, tuple(b for b in blocks if b)
