"""Every command a commands table names exists, as written: ``--help`` answers and its options are real.

A commands table is any Markdown table, in README.md or under docs/, whose first column has a cell
starting with `` `adjudicate ``. Every backquoted span of such a first column is one command line written
in full (``adjudicate live round create T R --name N``; a bare ``push`` beside another command would
not say which group it belongs to, and is refused). The test walks the click command tree along the
span's words, calls ``--help`` on that path through click's CliRunner (no subprocess), checks that the
usage line names the path, and that every ``--option`` the span shows is one the command accepts.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from adjudicator.cli import main_group

ROOT = Path(__file__).resolve().parents[1]
DOCS = [p for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))] if p.is_file()]
SPAN = re.compile(r"`([^`]+)`")


def first_cells(text: str) -> list[str]:
    """The first cell of every row of every Markdown table in ``text`` (separator rows left out).

    ``\\|`` inside a cell is a literal bar (a choice list such as ``md\\|html``), not a column break."""
    cells = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        first = re.split(r"(?<!\\)\|", line[1:], maxsplit=1)[0].strip()
        if first and not re.fullmatch(r":?-+:?", first):
            cells.append(first.replace("\\|", "|"))
    return cells


def table_commands(text: str) -> list[str]:
    """Every backquoted span in the first column of the commands tables in ``text``."""
    spans = []
    for cell in first_cells(text):
        found = SPAN.findall(cell)
        if any(s.startswith("adjudicate ") for s in found):
            spans += found
    return spans


def documented() -> list[tuple[str, str]]:
    return [(p.relative_to(ROOT).as_posix(), span) for p in DOCS for span in table_commands(p.read_text(encoding="utf-8"))]


def command_path(words: list[str]) -> tuple[list[str], click.Command]:
    """Walk the command tree along ``words`` (the span's words after ``adjudicate``, up to its first
    option or bracket): the command names on the way and the command reached. A word that is not a
    command of the group reached is a placeholder only if it is one (capitals, a file name) and the
    group has a default command; otherwise the table names a command that does not exist."""
    cmd: click.Command = main_group
    names: list[str] = []
    for word in words:
        if not isinstance(cmd, click.Group):
            break
        if word in cmd.commands:
            names.append(word)
            cmd = cmd.commands[word]
            continue
        default = getattr(cmd, "default_command", None)
        assert default and not re.fullmatch(r"[a-z][a-z0-9-]*", word), f"no command {word!r} after 'adjudicate {' '.join(names)}'"
        names.append(default)
        cmd = cmd.commands[default]
        break
    return names, cmd


def test_the_readme_has_a_commands_table_and_the_parser_reads_it():
    spans = [s for where, s in documented() if where == "README.md"] or [s for _, s in documented()]
    assert len(spans) >= 10 and "adjudicate live round create" in {" ".join(s.split()[:4]) for s in spans}
    with pytest.raises(AssertionError, match="no command 'round' after 'adjudicate live tournament'"):
        command_path(["live", "tournament", "round", "create"])  # what the table said before issue 23
    assert command_path(["MATCH.json"])[0] == ["run"] and command_path(["live", "round", "create"])[0] == ["live", "round", "create"]
    assert table_commands("| command | what |\n|---|---|\n| `adjudicate a [--x m\\|n]` / `b` | c |\n| `other` | d |\n") == ["adjudicate a [--x m|n]", "b"]


@pytest.mark.parametrize("where, span", documented(), ids=[f"{w}:{' '.join(s.split()[:4])}" for w, s in documented()])
def test_every_command_in_a_commands_table_exists(where, span):
    assert span.startswith("adjudicate "), f"{where}: write the command in full ('adjudicate ...'), not {span!r}"
    words = span.split()[1:]
    head = []
    for word in words:
        if word.startswith(("-", "[", "<", "|")):
            break
        head.append(word)
    names, cmd = command_path(head)
    assert not isinstance(cmd, click.Group) or head == names, f"{where}: {span!r} stops at the group 'adjudicate {' '.join(names)}'"
    result = CliRunner().invoke(main_group, [*head, "--help"], prog_name="adjudicate")
    assert result.exit_code == 0, f"{where}: 'adjudicate {' '.join(head)} --help' exited {result.exit_code}: {result.output[-300:]}"
    assert result.output.startswith(f"Usage: adjudicate {' '.join(names)}"), result.output[:200]
    accepted = {opt for p in cmd.params for opt in [*p.opts, *p.secondary_opts]}
    for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", span):
        assert option in accepted, f"{where}: {span!r}: 'adjudicate {' '.join(names)}' has no option {option}"
