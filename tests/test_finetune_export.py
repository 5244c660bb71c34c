"""``adjudicate finetune export`` (issue 31; protocol 001 s.03): the files per fold and task, read back
with the chat format's own types (the OpenAI SDK's message types; TRL's reader where installed), their
targets in the exact output schema and their inputs the single-call arm's own requests; the checks
that fail loudly; the gold-number filter and the refusal of a rationale that keeps one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from adjudicator.cli import main
from adjudicator.input.match_file import load_match
from adjudicator.model.parsing import parse_output
from adjudicator.model.prompts import PromptStore
from adjudicator.single_call.recovery import read_task1, read_task2, read_task3
from adjudicator.single_call.tasks import task_instances

ROOT = Path(__file__).resolve().parents[1]
SYNTHETIC = ROOT / "adjudicator" / "data" / "matches" / "synthetic"
SETS = ("task1", "task2", "task2_difference", "task3", "joint")


def export(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(["finetune", "export", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def synthetic_export(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ft") / "out"
    assert main(["finetune", "export", str(SYNTHETIC), "--out", str(out)]) == 0
    return out


def test_synthetic_export_writes_every_fold_task_and_part_and_every_check_passes(synthetic_export):
    m = json.loads((synthetic_export / "manifest.json").read_text())
    assert [c["check"] for c in m["checks"]] == ["folds_partition", "inputs_label_free", "task2_stages_in_fold", "rationales_free_of_gold_numbers", "motions_grouped", "team_overlap"]
    assert all(c["passed"] for c in m["checks"])
    # 4 matches with 4 motions: folds of 1, 2 and 1 matches (adjudicate splits' own folds)
    splits = json.loads((synthetic_export / "splits.json").read_text())
    assert [f["test"] for f in m["folds"]] == [f["match_ids"] for f in splits["folds"]]
    assert sorted(mid for f in m["folds"] for mid in f["test"]) == sorted(p.stem for p in SYNTHETIC.glob("*.json"))
    for f in m["folds"]:
        assert not set(f["test"]) & set(f["train"] + f["validation"])
        assert splits["validation"]["folds"][str(f["fold"])] == f["validation"]
    # every unit of the four matches is scored by all three judges: 2 x 14-stage 4v4, 2 x 12(+2)-stage 2v2
    n_units = sum(len(load_match(p).scored_units()) for p in SYNTHETIC.glob("*.json"))
    assert m["examples"] == {"task1": 4, "task2": n_units, "task2_difference": m["examples"]["task2_difference"], "task3": 4}
    assert m["not_applicable"] == {}
    for f in m["folds"]:
        for s in SETS:
            for part in ("train", "validation", "test"):
                if f["n"][part]:
                    assert (synthetic_export / f"fold{f['fold']}" / s / f"{part}.jsonl").is_file()
    # the files listed in the manifest are exactly those on disk, with their sha256
    listed = {x["path"] for x in m["files"]}
    assert listed == {p.relative_to(synthetic_export).as_posix() for p in synthetic_export.rglob("*.jsonl") if not p.name.endswith(".meta.jsonl")}
    assert set(m["prompt_hashes"]) == {"task1_winner.zh.j2", "task2_stage_score.zh.j2", "task3_best_debater.zh.j2", "task2_stage_difference.zh.j2"}


def test_task1_targets_are_the_panel_vote_shares(synthetic_export):
    # worked from the README of the synthetic set: 4v4_01 3:0 aff, 4v4_02 2:1 neg, 2v2_01 3:0 neg, 2v2_02 2:1 aff
    want = {"synthetic_4v4_01": 1.0, "synthetic_4v4_02": 0.33, "synthetic_2v2_01": 0.0, "synthetic_2v2_02": 0.67}
    got = {}
    for fold in (0, 1, 2):
        d = synthetic_export / f"fold{fold}" / "task1"
        for chat, meta in zip(lines(d / "test.jsonl"), lines(d / "test.meta.jsonl")):
            got[meta["match_id"]] = json.loads(chat["messages"][-1]["content"])["p"]
    assert got == want


def _message_types():
    openai_types = pytest.importorskip("openai.types.chat", reason="the OpenAI SDK (a litellm dependency) is not installed")
    from pydantic import TypeAdapter

    return TypeAdapter(list[openai_types.ChatCompletionMessageParam])


def test_files_read_back_as_chat_messages_with_exact_targets_and_the_single_call_prompts(synthetic_export):
    """Every line: OpenAI chat messages (the SDK's own types), system + user + assistant; the input
    is byte for byte the single-call arm's request for that instance; the answer validates against
    the instance's response schema and the arm's own reader reads it as strict JSON."""
    import jsonschema

    adapter = _message_types()
    store = PromptStore()
    requests = {}
    for p in SYNTHETIC.glob("*.json"):
        view = load_match(p).view()
        for inst in task_instances(view, store):
            requests[(view.match_id, inst.task, inst.key)] = inst
    readers = {"task1": read_task1, "task2": read_task2}
    seen = 0
    for d in (synthetic_export / "fold1").iterdir():
        for part in d.glob("*.meta.jsonl"):
            chats = lines(part.with_name(part.name.replace(".meta", "")))
            for chat, meta in zip(chats, lines(part), strict=True):
                msgs = adapter.validate_python(chat["messages"])
                assert [x["role"] for x in msgs] == ["system", "user", "assistant"] and set(chat) == {"messages"}
                answer = json.loads(chat["messages"][2]["content"])
                assert list(answer)[0] == "basis" and answer["basis"] == ""
                if meta["task"] == "task2_difference":
                    assert -9 <= answer["difference"] <= 9 and set(answer) == {"basis", "difference"}
                    continue
                inst = requests[(meta["match_id"], meta["task"], meta["key"])]
                assert chat["messages"][:2] == [dict(x) for x in inst.request.messages]
                assert meta["template_hash"] == inst.request.template_hash
                jsonschema.validate(answer, dict(inst.request.schema))
                labels = load_match(SYNTHETIC / f"{meta['match_id']}.json").debater_labels()
                read = readers.get(meta["task"]) or (lambda obj, labels=labels: read_task3(obj, labels))
                parsed = parse_output(chat["messages"][2]["content"], validate=read)
                assert parsed.stage == "strict" and parsed.value == answer.get("p", answer.get("score", parsed.value))
                seen += 1
    assert seen > 50


def test_trl_reads_a_file_as_a_conversational_dataset(synthetic_export):
    datasets = pytest.importorskip("datasets", reason="Hugging Face datasets/TRL are not installed (TRL pulls torch; an optional extra, never in CI)")
    data_utils = pytest.importorskip("trl.data_utils", reason="TRL is not installed (it pulls torch; an optional extra, never in CI)")
    path = synthetic_export / "fold0" / "joint" / "train.jsonl"
    ds = datasets.load_dataset("json", data_files=str(path), split="train")
    assert len(ds) == len(lines(path)) and data_utils.is_conversational(ds[0])


def _with_rationales(tmp_path: Path, rationales: dict[str, str]) -> Path:
    data = tmp_path / "data"
    shutil.copytree(SYNTHETIC, data)
    path = data / "synthetic_2v2_01.json"
    match = json.loads(path.read_text(encoding="utf-8"))
    match["labels"]["rationales"] = rationales
    path.write_text(json.dumps(match, ensure_ascii=False), encoding="utf-8")
    return data


def test_a_rationale_with_a_gold_number_is_refused_verbatim_and_filtered_by_default(tmp_path, capsys):
    # s02|negative: the judges gave 9, 8, 8 (mean 8.33); the panel voted 3:0 for the negative
    planted = {"s02|negative": "反方一辩本环节推进有力，三位评委给了 9 分、8 分和 8 分，平均 8.33 分。", "winner": "The negative won 3:0 on the main clash."}
    data = _with_rationales(tmp_path, planted)
    out = tmp_path / "verbatim"
    code, stdout, err = export([str(data), "--out", str(out), "--rationales", "verbatim"], capsys)
    assert code == 2 and "Traceback" not in err
    assert "rationale of synthetic_2v2_01" in err and "contains the gold number" in err
    assert not out.exists()  # nothing written
    out = tmp_path / "filtered"
    assert export([str(data), "--out", str(out)], capsys)[0] == 0
    m = json.loads((out / "manifest.json").read_text())
    # three bases: Task 1 (3, 0 removed), the s02|negative unit (9, 8, 8, 8.33) and the s02 paired variant (the same text)
    assert m["rationales"] == {"mode": "filter", "n_written": 3, "n_numbers_removed": 2 + 4 + 4}
    bases = {}
    for meta_path in out.glob("fold*/task*/*.meta.jsonl"):
        for chat, meta in zip(lines(meta_path.with_name(meta_path.name.replace(".meta", ""))), lines(meta_path)):
            if meta["match_id"] == "synthetic_2v2_01":
                bases[(meta["task"], meta["key"])] = json.loads(chat["messages"][2]["content"])["basis"]
    assert bases[("task2", "s02|negative")] == "反方一辩本环节推进有力，三位评委给了 […] 分、[…] 分和 […] 分，平均 […] 分。"
    assert bases[("task1", "match")] == "The negative won […]:[…] on the main clash."
    assert bases[("task2", "s02|affirmative")] == ""
    # the paired variant's basis joins the stage's two rationales
    assert bases[("task2_difference", "s02")] == bases[("task2", "s02|negative")]
    # rationales are gold: they never reach an input (the planted-marker check covers them)
    for p in out.rglob("*.jsonl"):
        if not p.name.endswith(".meta.jsonl"):
            assert all("推进有力" not in x["content"] for c in lines(p) for x in c["messages"][:2])


def test_a_splits_file_with_a_match_in_two_folds_fails_loudly_and_writes_nothing(tmp_path, capsys):
    splits = tmp_path / "splits.json"
    assert main(["splits", str(SYNTHETIC), "--out", str(splits)]) == 0
    data = json.loads(splits.read_text())
    data["folds"][1]["match_ids"].append(data["folds"][0]["match_ids"][0])
    splits.write_text(json.dumps(data))
    out = tmp_path / "out"
    code, _, err = export([str(SYNTHETIC), "--out", str(out), "--splits", str(splits)], capsys)
    assert code == 2 and "check folds_partition failed" in err and "is in fold 0 and in fold 1" in err
    assert not out.exists()


def test_an_input_that_depends_on_a_label_fails_the_label_free_check(tmp_path, capsys, monkeypatch):
    """Simulate the bug the check exists for: a request built from the match with its labels."""
    from adjudicator.finetune import examples
    from adjudicator.input.match import Match

    real = examples.task1_request

    def leaky(view, store):
        req = real(view, store)
        labels = getattr(view, "labels", None)
        if labels is None:
            return req
        return type(req)(**{**req.__dict__, "messages": (req.messages[0], {"role": "user", "content": req.messages[1]["content"] + str(labels.gold_winner())})})

    monkeypatch.setattr(examples, "task1_request", leaky)
    monkeypatch.setattr(Match, "view", lambda self: self)
    out = tmp_path / "out"
    code, _, err = export([str(SYNTHETIC), "--out", str(out)], capsys)
    assert code == 2 and "check inputs_label_free failed" in err and "task1 match" in err
    assert not out.exists()


def test_an_example_outside_its_fold_part_fails_the_fold_check():
    from adjudicator.errors import InputError
    from adjudicator.finetune.checks import check_files

    part_of = {0: {"a": "test", "b": "train"}}
    assert check_files([("fold0/task2/test.jsonl", 0, "test", [{"match_id": "a", "task": "task2", "key": "s01|affirmative"}])], part_of)["passed"]
    with pytest.raises(InputError, match=r"task2_stages_in_fold failed: fold0/task2/test.jsonl: task2 s03\|negative of match 'b' belongs to the train part of fold 0"):
        check_files([("fold0/task2/test.jsonl", 0, "test", [{"match_id": "b", "task": "task2", "key": "s03|negative"}])], part_of)


def test_an_existing_folder_is_never_written_over(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    code, _, err = export([str(SYNTHETIC), "--out", str(out)], capsys)
    assert code == 2 and "--out:" in err and "is not an empty folder" in err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_panelbench_debateart_exports_task1_and_reports_the_rest_not_applicable(panelbench_dir, tmp_path, capsys):
    converted = tmp_path / "pb"
    assert main(["convert", "panelbench", str(panelbench_dir), "--out", str(converted)]) == 0
    out = tmp_path / "out"
    code, stdout, err = export([str(converted), "--out", str(out)], capsys)
    assert code == 0, err
    m = json.loads((out / "manifest.json").read_text())
    assert all(c["passed"] for c in m["checks"])
    assert set(m["not_applicable"]) == {"task2", "task2_difference", "task3"}
    assert m["dataset"]["excluded_ranking_matches"] and all(x.startswith("bp_") for x in m["dataset"]["excluded_ranking_matches"])
    n_debateart = len(list((panelbench_dir / "DebateArt" / "motion").glob("*.yml")))
    ties = m["excluded"]["task1"]["by_reason"].get("a tie (judges may not tie)", 0)
    assert m["examples"] == {"task1": n_debateart - ties}
    assert sum(len(lines(out / f"fold{k}" / "task1" / "test.jsonl")) for k in range(3)) == n_debateart - ties
    assert {json.loads(c["messages"][2]["content"])["p"] for k in range(3) for c in lines(out / f"fold{k}" / "task1" / "test.jsonl")} == {0.0, 1.0}


def test_a_rationale_key_that_is_no_instance_is_refused_in_one_line(tmp_path, capsys):
    data = _with_rationales(tmp_path, {"s99|negative": "没有这个环节"})
    code, _, err = export([str(data), "--out", str(tmp_path / "out")], capsys)
    assert code == 2 and "labels.rationales: 's99|negative' is not 'winner', 'best_debater' or a scored (stage, side)" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_issues_rationales_leave_no_gold_number_in_any_basis(tmp_path, capsys):
    """Issue 42, item 1: synthetic_2v2_02 has a 2:1 affirmative panel and Affirmative Speaker 1 holds
    4 of the 9 best-debater votes; at 52c38fb these strings stayed in the bases and the check said ok."""
    data = tmp_path / "data"
    shutil.copytree(SYNTHETIC, data)
    path = data / "synthetic_2v2_02.json"
    match = json.loads(path.read_text(encoding="utf-8"))
    match["labels"]["rationales"] = {
        "best_debater": "Affirmative Speaker 1 took a vote share of 0.44, or 0.444, or 0.4444, that is 44.4 %, roughly 0.4; 百分之四十四点四，九分之四。",
        "winner": "The panel split p=0.667 for the affirmative, two thirds of it.",
    }
    path.write_text(json.dumps(match, ensure_ascii=False), encoding="utf-8")
    code, _, err = export([str(data), "--out", str(tmp_path / "verbatim"), "--rationales", "verbatim"], capsys)
    assert code == 2 and "rationale of synthetic_2v2_02" in err and "contains the gold number" in err and "Traceback" not in err
    out = tmp_path / "filtered"
    assert export([str(data), "--out", str(out)], capsys)[0] == 0
    bases = {}
    for meta_path in out.glob("fold*/task[13]/*.meta.jsonl"):
        for chat, meta in zip(lines(meta_path.with_name(meta_path.name.replace(".meta", ""))), lines(meta_path)):
            if meta["match_id"] == "synthetic_2v2_02":
                bases[meta["task"]] = json.loads(chat["messages"][2]["content"])["basis"]
    assert bases == {
        "task3": "Affirmative Speaker 1 took a vote share of […], or […], or […], that is […] %, roughly […]; 百分之[…]，[…]。",
        "task1": "The panel split p=[…] for the affirmative, […] of it.",
    }
    m = json.loads((out / "manifest.json").read_text())
    assert m["rationales"]["n_numbers_removed"] == 7 + 2  # in the best-debater rationale, in the winner one
