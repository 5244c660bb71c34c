"""The `adjudicate` command as a user meets it: verdict on stdout, one-line errors, exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.cli import main

REAL = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "panelbench" / "debateart_0020.json"
SYNTH_4V4 = REAL.parents[1] / "synthetic" / "synthetic_4v4_01.json"


def run(args, capsys):
    code = main(list(map(str, args)))
    out, err = capsys.readouterr()
    return code, out, err


def test_verdict_on_stdout_for_a_real_match(capsys):
    code, out, err = run([REAL], capsys)
    assert code == 0
    v = json.loads(out)
    assert v["match_id"] == "debateart_0020" and v["arm"] == "agentic"
    assert v["provenance"]["model"] == "offline" and v["provenance"]["is_llm"] is False
    assert 0 <= v["p"] <= 1 and v["p"] != 0.5 and round(v["p"], 2) == v["p"]
    assert (v["p"] > 0.5) == (v["winner"] == "affirmative")
    assert sum(v["best_debater_votes"].values()) == 9
    assert len(v["ballots"]) == 3 and {b["judge_id"] for b in v["ballots"]} == {"judge-1", "judge-2", "judge-3"}
    # online-1v1: every speech is a monologue scored for its speaker, each with three integer scores 1-10
    assert len(v["stage_scores"]) == 4
    assert all(len(s["judge_scores"]) == 3 and all(1 <= x <= 10 for x in s["judge_scores"]) for s in v["stage_scores"])
    assert "offline: winner" in err and "0 model requests" in err


def test_ccdb_verdict_scores_both_sides_of_interactive_stages(capsys):
    code, out, _ = run([SYNTH_4V4], capsys)
    v = json.loads(out)
    assert code == 0
    # 14 stages: 8 monologues scored once + 6 interactive stages (2 questioning, head-to-head,
    # 2 cross-examinations, free debate) scored for both sides = 20 units (paper: 20 per 4v4 match)
    assert len(v["stage_scores"]) == 20
    roles = {(s["stage_type"], s["side"]): s["role"] for s in v["stage_scores"] if s["stage_type"] == "questioning"}
    assert set(roles.values()) == {"questioner", "respondent"}
    assert sum(v["best_debater_votes"].values()) == 9
    assert all(label.startswith(("Affirmative Speaker", "Negative Speaker")) for label in v["best_debater_votes"])


def test_out_and_markdown_report(tmp_path, capsys):
    out_file = tmp_path / "v.json"
    code, out, err = run([REAL, "--out", out_file, "--report", "md"], capsys)
    assert code == 0 and out == ""
    report = out_file.with_suffix(".md").read_text(encoding="utf-8")
    assert report.startswith("# Verdict: debateart_0020")
    for heading in ("## Reason for decision", "## Dissent", "## Battlefield map", "## Scores by stage", "## Ballots", "## How this verdict was made"):
        assert heading in report
    assert json.loads(out_file.read_text(encoding="utf-8"))["match_id"] == "debateart_0020"


def test_offline_verdict_is_deterministic(capsys):
    _, first, _ = run([SYNTH_4V4], capsys)
    _, second, _ = run([SYNTH_4V4], capsys)
    assert first == second


def test_schema_prints_one_json_schema_of_both_formats(capsys):
    import jsonschema

    code, out, _ = run(["schema"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(doc)  # itself a valid JSON Schema
    assert doc["anyOf"] == [{"$ref": "#/$defs/Match"}, {"$ref": "#/$defs/Verdict"}]
    assert "labels" in doc["$defs"]["Match"]["properties"] and "p" in doc["$defs"]["Verdict"]["properties"]
    both = jsonschema.Draft202012Validator(doc)
    match_only = jsonschema.Draft202012Validator(json.loads(run(["schema", "--which", "match"], capsys)[1]))
    verdict_only = jsonschema.Draft202012Validator(json.loads(run(["schema", "--which", "verdict"], capsys)[1]))
    match = json.loads(Path(SYNTH_4V4).read_text(encoding="utf-8"))
    _, verdict_text, _ = run([SYNTH_4V4], capsys)
    verdict = json.loads(verdict_text)
    assert both.is_valid(match) and both.is_valid(verdict)
    assert match_only.is_valid(match) and not match_only.is_valid(verdict)
    assert verdict_only.is_valid(verdict) and not verdict_only.is_valid(match)
    assert not both.is_valid({"match_id": "x"})


def _commands(cmd, path):
    """Every command under ``cmd`` (groups included) with its full name."""
    import click

    yield path, cmd
    if isinstance(cmd, click.Group):
        for name, sub in cmd.commands.items():
            yield from _commands(sub, f"{path} {name}")


def test_every_command_and_option_has_help_text():
    import click

    from adjudicator.cli import main_group

    missing = []
    for path, cmd in _commands(main_group, "adjudicate"):
        if not (cmd.help or "").strip():
            missing.append(path)
        missing += [f"{path} {max(p.opts, key=len)}" for p in cmd.params if isinstance(p, click.Option) and not (p.help or "").strip()]
    assert missing == []


def test_the_live_help_lists_every_live_command(capsys):
    from adjudicator.cli import main_group

    code, out, _ = run(["live", "--help"], capsys)
    assert code == 0
    listed = set(re.findall(r"^\s+adjudicate live (\w+)", out, re.M))
    assert listed == set(main_group.commands["live"].commands)


@pytest.mark.parametrize(
    "make, expect",
    [
        (lambda p: p.write_text("{nope", encoding="utf-8"), "invalid JSON at line 1"),
        (lambda p: p.write_bytes(b"\xff\xfe{}"), "not UTF-8"),
        (lambda p: p.write_text("[]", encoding="utf-8"), "top level must be a JSON object"),
        (lambda p: p.write_text(json.dumps({**json.loads(REAL.read_text(encoding="utf-8")), "colour": 1}), encoding="utf-8"), "field colour is not part of the format"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: None, "no such file"),
    ],
    ids=["bad-json", "not-utf8", "array", "unknown-field", "directory", "missing"],
)
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, make, expect):
    path = tmp_path / "m.json"
    make(path)
    code, out, err = run([path], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("adjudicate: error: ") and expect in err
    assert "Traceback" not in err


def test_bad_usage_is_one_line_exit_2(capsys):
    code, out, err = run([REAL, "--arm", "foo"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "--arm" in err
    code, _, err = run([REAL, "--arm", "single-call"], capsys)
    assert code == 2 and "needs an LLM" in err and err.count("\n") == 1


def test_console_script_exit_code_and_streams(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"match_id": "x"}', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "adjudicator.cli", str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().count("\n") == 0 and "is missing" in proc.stderr and "Traceback" not in proc.stderr


def test_a_failed_panel_still_writes_the_partial_verdict(tmp_path, capsys):
    """Judges answering garbage three times each: exit 1, but the verdict JSON with every failure and
    its raw outputs is written, and the clash map the trackers built is kept."""
    from fake_openai import FakeOpenAI
    from llm_helpers import schema_responder

    server = FakeOpenAI()
    try:
        def tracker(body):  # a tracker's answer schema: "sides", or the one-schema "rating" that --json-mode schema asks for
            return any(f'"{key}"' in json.dumps(body.get("response_format") or {}) for key in ("sides", "rating"))

        server.respond_with(lambda body: schema_responder(body) if tracker(body) else "I cannot judge this.")
        code, out, err = run(
            [REAL, "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "schema", "--cache-dir", tmp_path / "c"],
            capsys,
        )
    finally:
        server.close()
    assert code == 1
    v = json.loads(out)
    assert v["winner"] is None and v["p"] is None and v["ballots"] == []
    judge_failures = [f for f in v["failures"] if f["node"] == "judge"]
    assert len(judge_failures) == 3 and all(f["raw_outputs"] == ["I cannot judge this."] * 3 for f in judge_failures)
    assert v["provenance"]["attempts"] == 4 + 9  # four tracker calls, three attempts per judge
    assert "at least 2 deciding ballots, got 0" in err.splitlines()[-1]


def test_live_serve_refuses_a_bad_store_or_token_in_one_line(tmp_path, capsys, monkeypatch):
    state = str(tmp_path / "state")
    code, _, err = run(["live", "serve", "--port", "0", "--state-dir", state, "--store", "mysql://x/y"], capsys)
    assert code == 2 and err.strip() == "adjudicate: error: --store: 'mysql://x/y' is neither 'sqlite' nor a postgresql:// URL; use --store sqlite (the default) or --store postgresql://user@host/db"
    # a port nothing listens on: refused at once, one line, no traceback
    code, _, err = run(["live", "serve", "--port", "0", "--state-dir", state, "--store", "postgresql://nobody@127.0.0.1:1/db"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("adjudicate: error: --store: cannot connect to PostgreSQL (") and "Traceback" not in err
    code, _, err = run(["live", "serve", "--port", "0", "--state-dir", state, "--token", "a-token-of-enough-length"], capsys)
    assert code == 2 and err.startswith("adjudicate: error: --token: a token on the command line shows in the process list (ps)")
    short = tmp_path / "short.token"
    short.write_text("short\n", encoding="utf-8")
    code, _, err = run(["live", "serve", "--port", "0", "--state-dir", state, "--token-file", str(short)], capsys)
    assert code == 2 and err.startswith("adjudicate: error: --token-file: the access token must have at least 16 characters")
    # a store URL's password: refused on the command line, never printed
    code, _, err = run(["live", "serve", "--port", "0", "--state-dir", state, "--store", "postgresql://u:s3cret-pw@127.0.0.1:1/db"], capsys)
    assert code == 2 and "s3cret-pw" not in err and "postgresql://u:***@127.0.0.1:1/db: a password in the URL on the command line shows in the process list" in err
    monkeypatch.setenv("ADJUDICATOR_LIVE_STORE", "mysql://u:s3cret-pw@x/y")  # from the environment: taken, and its error names no password
    code, _, err = run(["live", "serve", "--port", "0", "--state-dir", state], capsys)
    assert code == 2 and "s3cret-pw" not in err and "'mysql://u:***@x/y' is neither 'sqlite' nor a postgresql:// URL" in err


def _match_file(tmp_path: Path) -> Path:
    from llm_helpers import online_match

    path = tmp_path / "match.json"
    path.write_text(online_match().model_dump_json(), encoding="utf-8")
    return path


def test_an_unwritable_out_path_is_refused_before_any_request(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    from llm_helpers import schema_responder

    fake_openai.respond_with(schema_responder)
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")  # a file where --out needs a folder
    args = [str(_match_file(tmp_path)), "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "schema", "--no-cache"]
    code = main([*args, "--out", str(blocker / "verdict.json")])
    _, err = capsys.readouterr()
    assert code == 2 and fake_openai.requests == []
    assert err.strip().splitlines() == [f"adjudicate: error: --out {blocker / 'verdict.json'}: cannot write there (File exists); choose a writable path"]
    code = main([*args, "--report", "md", "--report-out", str(blocker / "r.md")])
    _, err = capsys.readouterr()
    assert code == 2 and fake_openai.requests == [] and err.startswith(f"adjudicate: error: --report-out {blocker / 'r.md'}: cannot write there")


def test_no_number_option_shows_a_range_of_none_in_its_help():
    # issue 38: --timeout-s showed '[x<=None]' (click's description of a range with no bounds)
    import click

    from adjudicator.cli import main_group

    shown = []
    for path, cmd in _commands(main_group, "adjudicate"):
        with click.Context(cmd, info_name=path) as ctx:
            shown += [f"{path} {rec[0]}: {rec[1]}" for p in cmd.params if isinstance(p, click.Option) and (rec := p.get_help_record(ctx))]
    assert not [line for line in shown if "None" in line.split(": ", 1)[1]]
    assert any("--timeout-s" in line and "0<x<=86400" in line for line in shown)
