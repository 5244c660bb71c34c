"""Transcript markup out of the text a report shows: :func:`strip_markup`.

Debate transcripts come from forums and word processors: Markdown emphasis (often unclosed, ``**we
were never able``, or escaped, ``\\*\\*Conclusion:\\*\\*``), links and images, headings, quotes and
list markers at a line's start, HTML tags and entities. A clash position or a clash title quoted from
such a transcript, or a model's reasoning that copies it, would show those characters in a report
(Markdown would even turn an unclosed ``**`` into bold for the rest of the page). Every text the
report takes from a transcript or a model goes through :func:`strip_markup`, and the offline judge
cleans what it quotes before it stores it.

Hand-written on purpose (regular expressions and the standard library's ``html.unescape``): a
Markdown parser (markdown-it-py, which rich brings) keeps an unclosed or escaped delimiter as literal
text, which is exactly the case to remove, and it would have to be told about every HTML tag anyway.
"""

from __future__ import annotations

import html
import re

_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>|<!--.*?-->", re.S)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_LINE_MARK = re.compile(r"^[ \t]*(?:>[ \t>]*|#{1,6}[ \t]+|[-*+•][ \t]+|\d{1,3}[.)][ \t]+)", re.M)
_RULE = re.compile(r"^[ \t]*(?:[-*_][ \t]*){3,}$", re.M)
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!~|>])")
_EMPHASIS = re.compile(r"\*{1,3}|(?<![A-Za-z0-9])_{1,3}|_{1,3}(?![A-Za-z0-9])|~~|`+")
_SPACE = re.compile(r"[ \t\u00a0]+")


def strip_markup(text: str | None) -> str:
    """``text`` without Markdown or HTML markup, whitespace collapsed within lines (str -> str; ""
    for None).

    Removed: HTML tags and comments (entities decoded), images (their alt text kept), links (their
    text kept), a line's leading quote, heading, list or number marker, horizontal rules, backslash
    escapes (the escaped character kept, then treated like any other), and every emphasis or code
    delimiter, closed or not: ``*``, ``**``, ``***``, ``~~``, backticks, and ``_`` runs at a word's
    edge (``snake_case`` keeps its underscore). Never raises.
    """
    if not text:
        return ""
    out = _TAG.sub("", text)
    out = html.unescape(out)
    out = _IMAGE.sub(r"\1", out)
    out = _LINK.sub(r"\1", out)
    out = _REF_LINK.sub(r"\1", out)
    out = _RULE.sub("", out)
    out = _LINE_MARK.sub("", out)
    out = _ESCAPE.sub(r"\1", out)
    out = _EMPHASIS.sub("", out)
    out = _TAG.sub("", out)  # a tag written with entities (&lt;b&gt;) is a tag once decoded
    lines = (_SPACE.sub(" ", line).strip() for line in out.splitlines())
    return "\n".join(line for line in lines if line)
