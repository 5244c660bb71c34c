"""README is the front page and stays so: at most 250 lines, its links and the repository paths it and
the manual (docs/) name exist, and the match a new user pastes from it is a valid match the offline
judge adjudicates. (Its commands table is checked by tests/test_doc_commands.py; the manual's own
links by ``mkdocs build --strict`` in .ci/run.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

from adjudicator.api import adjudicate
from adjudicator.input.match_file import parse_match

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# a repository path written out: a whole backquoted span, or a script or template anywhere in a command
PATH_SPAN = re.compile(r"`((?:adjudicator|graphs|benchmarks|prompts|tests|requirements)/[^`\s]*)`")
SCRIPT = re.compile(r"(?<![\w/.])((?:benchmarks|tests|prompts)/[\w/.-]+\.(?:py|j2|yaml))")


def test_readme_is_short():
    assert len(README.splitlines()) <= 250


def test_readmes_links_point_at_files_of_the_repository():
    links = [link.split("#")[0] for link in re.findall(r"\]\(([^)\s]+)\)", README) if not link.startswith(("http://", "https://"))]
    assert len(links) > 20
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_every_repository_path_the_pages_name_exists():
    named = {}
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for path in [*PATH_SPAN.findall(text), *SCRIPT.findall(text)]:
            if not re.search(r"[<*{]|NNN", path):
                named.setdefault(path.rstrip("/."), page.relative_to(ROOT).as_posix())
    assert len(named) > 30
    assert {p: page for p, page in named.items() if not (ROOT / p).exists()} == {}


def test_the_match_readme_shows_is_valid_and_adjudicates_offline():
    body = re.search(r"cat > demo-match\.json <<'JSON'\n(.*?)\nJSON\n", README, re.S)
    assert body is not None
    match = parse_match(json.loads(body.group(1)), "README's demo-match.json")
    verdict = adjudicate(match)
    assert verdict.winner in ("affirmative", "negative") and 0.0 <= verdict.p <= 1.0
    assert sum(verdict.best_debater_votes.values()) == 9 and verdict.provenance.is_llm is False
    assert ".venv/bin/adjudicate demo-match.json" in README


# What README's and the manual's examples write inside the checkout (README: demo-match.json, verdict.json, the
# coach's report, runs/; docs/tournaments.md: the room's Tabbycat ids, the chair's token file, exports/; docs/live.md:
# the state folder): git must ignore every one, so `git status` stays clean after them and a token is never committed.
WRITTEN_BY_EXAMPLES = ["demo-match.json", "verdict.json", "synthetic_4v4_01.report.html", "runs/20261202T145851Z_smoke/report.md",
                       ".adjudicator-live/access.json", "room-a.tabbycat.json", "chair-a.token", "exports/spring.r1.results.csv",
                       "panelbench/DebateArt/x", "card.json"]


def test_git_ignores_what_the_examples_write_in_the_checkout():
    import shutil
    import subprocess

    import pytest

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    assert "chair-a.token" in (ROOT / "docs" / "tournaments.md").read_text(encoding="utf-8")  # the example this list follows
    r = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "--no-index", "--stdin"], input="\n".join(WRITTEN_BY_EXAMPLES),
                       capture_output=True, text=True, check=False)
    assert sorted(r.stdout.split()) == sorted(WRITTEN_BY_EXAMPLES)  # before: chair-a.token was not ignored
