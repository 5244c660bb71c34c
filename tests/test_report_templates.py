"""The report pages' compiled-template cache (adjudicator/bench/templates.py): the second process
reads the compiled code instead of compiling, renders the same text, and an edited template, a
corrupt file or an unwritable folder only mean compiling again."""

from __future__ import annotations

import jinja2

from adjudicator.bench import templates
from adjudicator.bench.templates import report_environment

SOURCE = "{% for x in xs %}<b>{{ x }}</b>{% endfor %}"


def test_the_code_is_compiled_once_then_read_back_and_renders_the_same(tmp_path, monkeypatch):
    folder = tmp_path / "t"
    first = report_environment({"a.html": SOURCE}, folder).get_template("a.html").render(xs=["<1>", "2"])
    assert first == "<b>&lt;1&gt;</b><b>2</b>"  # autoescaped
    (stored,) = folder.glob("*.code")
    compiled: list[str] = []
    real = jinja2.Environment._compile

    def counting(self, source, filename):
        compiled.append(filename)
        return real(self, source, filename)

    monkeypatch.setattr(jinja2.Environment, "_compile", counting)
    again = report_environment({"a.html": SOURCE}, folder).get_template("a.html").render(xs=["<1>", "2"])
    assert again == first and compiled == []  # read back, not compiled
    # an edited template compiles again, into a file of its own
    report_environment({"a.html": SOURCE + "!"}, folder).get_template("a.html").render(xs=[])
    assert len(compiled) == 1 and len(list(folder.glob("*.code"))) == 2
    # a corrupt file is compiled again and replaced
    stored.write_bytes(b"not marshal data")
    assert report_environment({"a.html": SOURCE}, folder).get_template("a.html").render(xs=["2"]) == "<b>2</b>"
    assert len(compiled) == 2


def test_an_unusable_folder_only_means_compiling(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    env = report_environment({"a.html": "{{ 1 + 1 }}"}, blocker / "sub")  # cannot be created
    assert env.get_template("a.html").render() == "2"


def test_the_oldest_files_beyond_the_bound_are_dropped(tmp_path, monkeypatch):
    monkeypatch.setattr(templates, "TEMPLATE_CACHE_ENTRIES", 2)
    for i in range(4):
        report_environment({"a.html": f"{i}"}, tmp_path).get_template("a.html")
    assert len(list(tmp_path.glob("*.code"))) == 2
