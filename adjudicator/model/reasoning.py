"""Reasoning blocks: a reasoning model's draft, set aside before an answer is read, never read for one.

:func:`split_reasoning` removes ``<think>…</think>`` and the other tags of :data:`REASONING_TAGS`,
``[THINK]…[/THINK]``, gpt-oss's analysis channel, a draft closed by an orphan ``</think>`` and one left
open by a cut-off reply: a draft may hold a decoy answer. :func:`adjudicator.model.parsing.parse_output`
reads what is left; the blocks travel on in the call record.
"""

from __future__ import annotations

import re

#: Tag names whose ``<tag>…</tag>`` blocks are a model's reasoning (case-insensitive; attributes allowed):
#: DeepSeek-R1 and Qwen3 (``think``), Claude-style and others (``thinking``, ``reasoning``, ``thought``,
#: ``reflection``, ``scratchpad``, ``analysis``).
REASONING_TAGS: tuple[str, ...] = ("think", "thinking", "thought", "thoughts", "reasoning", "reflection", "scratchpad", "analysis", "inner_monologue")
_TAGS = "|".join(REASONING_TAGS)
_NS = r"(?:[\w-]+:)?"  # a namespace prefix, as in Anthropic's <budget:thinking>
_BLOCK_RE = re.compile(rf"<\s*{_NS}({_TAGS})\b[^>]*>(.*?)<\s*/\s*{_NS}\1\s*>", re.I | re.S)
_BRACKET_RE = re.compile(r"\[THINK\](.*?)\[/THINK\]", re.I | re.S)
_OPEN_RE = re.compile(rf"<\s*{_NS}({_TAGS})\b[^>]*>|\[THINK\]", re.I)
_CLOSE_RE = re.compile(rf"<\s*/\s*{_NS}({_TAGS})\s*>|\[/THINK\]", re.I)
#: gpt-oss (harmony format) writes ``<|channel|>analysis<|message|>…<|end|>`` before the final channel.
_HARMONY_RE = re.compile(r"<\|channel\|>\s*(analysis|commentary)\s*(?:<\|constrain\|>\S*)?<\|message\|>(.*?)(?:<\|end\|>|(?=<\|start\|>)|(?=<\|channel\|>)|$)", re.S)
_HARMONY_FINAL_RE = re.compile(r"<\|channel\|>\s*final\s*(?:<\|constrain\|>\S*)?<\|message\|>(.*?)(?:<\|return\|>|<\|end\|>|$)", re.S)


def split_reasoning(text: str) -> tuple[str, tuple[str, ...]]:
    """``(answer, blocks)``: ``text`` with every reasoning block removed, and the blocks' contents in
    order (stripped). Recognised wherever they stand: ``<tag>…</tag>`` for the tags of
    :data:`REASONING_TAGS`, ``[THINK]…[/THINK]``, gpt-oss's analysis channel (the answer is then the
    final channel's message), a closing tag with no opening one (everything before it is the draft:
    chat templates that open the block in the prompt), and an opening tag never closed (everything
    after it is the draft: a reply cut off while thinking). Never raises; a text without reasoning
    comes back unchanged with no blocks."""
    if not text:
        return text or "", ()
    blocks: list[str] = []
    if "<|channel|>" in text:
        final = _HARMONY_FINAL_RE.search(text)
        blocks += [m.group(2).strip() for m in _HARMONY_RE.finditer(text)]
        if final is not None:
            return final.group(1).strip(), tuple(b for b in blocks if b)
        text = _HARMONY_RE.sub("", text)

    def keep(m: re.Match[str]) -> str:
        blocks.append(m.group(m.lastindex or 0).strip())
        return "\n"

    text = _BLOCK_RE.sub(keep, text)
    text = _BRACKET_RE.sub(keep, text)
    closes = list(_CLOSE_RE.finditer(text))
    if closes:  # an orphan closing tag: the draft began before the reply did
        close = closes[-1]
        blocks.insert(0, text[: close.start()].strip())
        text = text[close.end() :]
    opened = _OPEN_RE.search(text)
    if opened is not None:  # an opening tag never closed: the reply stopped while thinking
        blocks.append(text[opened.end() :].strip())
        text = text[: opened.start()]
    return text, tuple(b for b in blocks if b)
