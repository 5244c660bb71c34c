"""A real headless Chromium on tournament boards: an English room and a Chinese room, each screenshot
mid-match and after its verdict is released (``test-artifacts/live_board_{en,zh}_{mid,released}.png``,
plus the Chinese round overview ``live_round_zh.png``), with a draft never shown in between.

The Chinese text is checked to have rendered, by measuring the glyphs in the page: every Han
character of the motion (and of the verdict line) must advance one em (CJK fonts are full-width) and
the characters' ink boxes must differ from one another. A missing glyph is drawn as one "tofu" box
whatever the character, so without a CJK font all boxes are the same and the advance is the fallback
font's box (0.375 em in DejaVu): the same measurement, in a Chromium that sees only DejaVu fonts,
shows exactly that (the negative control).

Needs Debian's ``chromium`` (skipped without it) and a CJK font (``fonts-noto-cjk`` or
``fonts-wqy-microhei``; ``.ci/run`` installs one; the test fails without, saying so).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from cdp_chromium import CHROMIUM, Chromium
from live_fakes import TOKEN, start_server

from adjudicator.input.match import Match
from adjudicator.input.match_file import load_match
from adjudicator.workflow.context import AdjudicationContext

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is not installed (apt-get install chromium)")

REPO = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO / "test-artifacts"
ORG = {"Authorization": f"Bearer {TOKEN}"}
EN_MATCH = REPO / "adjudicator/data/matches/panelbench/debateart_0750.json"
ZH_MATCH = REPO / "adjudicator/data/matches/synthetic/synthetic_4v4_01.json"

#: Per distinct Han character of the element's text: its advance in the page (a DOM range over the
#: character where it is rendered) and its ink box (canvas measureText in the element's font).
GLYPHS_JS = r"""((sel) => {
  const el = document.querySelector(sel);
  const cs = getComputedStyle(el);
  const advances = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    let off = 0;
    for (const ch of node.data) {
      if (/\p{Script=Han}/u.test(ch)) {
        const r = document.createRange(); r.setStart(node, off); r.setEnd(node, off + ch.length);
        advances.push(r.getBoundingClientRect().width);
      }
      off += ch.length;
    }
  }
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  const chars = [...new Set([...el.textContent].filter((ch) => /\p{Script=Han}/u.test(ch)))];
  const ink = chars.map((ch) => { const m = ctx.measureText(ch); return `${m.actualBoundingBoxLeft + m.actualBoundingBoxRight}x${m.actualBoundingBoxAscent + m.actualBoundingBoxDescent}`; });
  return {em: parseFloat(cs.fontSize), advances, chars: chars.length, distinct_ink: new Set(ink).size};
})"""


def glyphs(page, selector: str) -> dict:
    return page.eval(GLYPHS_JS + f"({json.dumps(selector)})")


def han_rendered(g: dict) -> bool:
    """Real CJK glyphs: every Han character one em wide, and not all of them the same box."""
    return g["chars"] >= 2 and all(abs(a - g["em"]) <= 0.5 for a in g["advances"]) and g["distinct_ink"] > 1


def _text(selector: str) -> str:
    return f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent"


def _cjk_font_installed() -> bool:
    fc = shutil.which("fc-list")
    return bool(fc and subprocess.run([fc, ":lang=zh"], capture_output=True, text=True, timeout=30).stdout.strip())


def _round(http: httpx.Client, round_id: str, match: Match) -> None:
    body = {"round_id": round_id, "name": f"Round {round_id}", "format": match.format, "language": match.language, "motion": match.motion,
            "affirmative_position": match.affirmative_position, "negative_position": match.negative_position}
    assert http.post("/api/tournaments/cup/rounds", json=body, headers=ORG).status_code == 201


def _room(http: httpx.Client, round_id: str, teams: tuple[str, str], chair: str) -> dict:
    r = http.post(f"/api/tournaments/cup/rounds/{round_id}/rooms", json={"room_id": "a", "teams": {"affirmative": teams[0], "negative": teams[1]}, "chair": chair}, headers=ORG)
    assert r.status_code == 201, r.text
    return {"Authorization": f"Bearer {r.json()['chair_token']}"}


def _play(http, page, mid: str, match: Match, chair: dict, first: int, last: int) -> None:
    for i in range(first, last):
        assert http.post(f"/api/matches/{mid}/stages", json=match.stages[i].model_dump(mode="json"), headers=chair).status_code == 200
    page.wait_for(f"document.body.dataset.analysed === '{last}'")


def _close_confirm_release(http, page, mid: str, round_id: str, chair: dict, body_for) -> str:
    """Close, check the draft stays off the board, confirm with ``body_for(automated winner)``, check
    it is still off, release the round, wait for the board. Returns the automated winner."""
    assert http.post(f"/api/matches/{mid}/close", headers=chair).status_code == 200
    page.wait_for("document.body.dataset.status === 'closed'")
    # the draft is not on the public board: only the notice that the result comes with its release
    page.wait_for("document.body.dataset.verdictState === 'awaiting'")
    assert page.eval("document.getElementById('verdict-panel').hidden") is True
    assert page.eval("document.getElementById('awaiting-panel').hidden") is False
    # nor anything that tells which way it went (issue 27, item 6): no tendency, suggested score or turning point
    assert page.eval("document.getElementById('tendency-p').dataset.p") == ""
    assert page.eval("document.querySelectorAll('#score-table .score').length + document.querySelectorAll('#timeline li').length") == 0
    withheld = http.get("/api/labels").json()
    assert page.eval(_text("#tendency-text")) in (withheld["en"]["tendency.withheld"], withheld["zh"]["tendency.withheld"])
    automated = http.get(f"/api/tournaments/cup/rounds/{round_id}/rooms/a", headers=chair).json()["decision"]["automated"]["winner"]
    assert http.post(f"/api/tournaments/cup/rounds/{round_id}/rooms/a/confirm", json=body_for(automated), headers=chair).status_code == 200
    assert page.eval("document.getElementById('verdict-panel').hidden") is True  # confirmed, not yet released
    assert http.post(f"/api/tournaments/cup/rounds/{round_id}/release", headers=ORG).status_code == 200
    page.wait_for("document.body.dataset.verdictState === 'released'")
    assert page.eval("document.getElementById('verdict-panel').hidden") is False
    return automated


def test_english_and_chinese_boards_mid_match_and_after_release(tmp_path):
    from adjudicator.judges.offline.backend import OfflineBackend

    if not _cjk_font_installed():
        pytest.fail("no CJK font is installed, so Chinese boards render as boxes: apt-get install fonts-noto-cjk (or fonts-wqy-microhei)")
    en, zh = load_match(EN_MATCH), load_match(ZH_MATCH)
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    shots = {}
    try:
        with httpx.Client(base_url=server.url, timeout=60, trust_env=False) as http:
            assert http.post("/api/tournaments", json={"tournament_id": "cup", "name": "Spring Cup"}, headers=ORG).status_code == 201
            _round(http, "en", en)
            _round(http, "zh", zh)
            chair_en = _room(http, "en", ("Owls", "Larks"), "Ms Lee")
            chair_zh = _room(http, "zh", ("复旦大学", "南京大学"), "李老师")

            # -- English, mid-match
            with Chromium(f"{server.url}/board/cup.en.a", root=tmp_path / "chromium") as page:
                page.wait_for("document.body.dataset.analysed === '0'")
                half = len(en.stages) // 2
                _play(http, page, "cup.en.a", en, chair_en, 0, half)
                assert page.eval("document.documentElement.lang") == "en"
                assert page.eval(_text("#tendency-title")) == "Provisional tendency"
                assert page.eval(_text("#m-aff-team")) == "(Owls)" and page.eval(_text("#crumbs a")) == "Round overview: Round en"
                # plain words for stage types; the two measures explained beside the tendency
                assert page.eval(_text("#score-table tbody tr:nth-child(1) td:nth-child(3)")) == "opening case"
                assert page.eval(_text("#explain-gap")).startswith("Like-for-like score gap: the trackers' suggested scores (1-10) are compared only between matching stages")
                assert page.eval(_text("#explain-momentum")).startswith("Clash momentum: every clash move so far counts for one side")
                snap = http.get("/api/matches/cup.en.a").json()
                assert page.eval("document.querySelectorAll('#timeline li').length") == len(snap["timeline"])
                shots["en_mid"] = page.screenshot(ARTIFACTS / "live_board_en_mid.png")

                # -- English, after release (a confirmation as it is)
                _play(http, page, "cup.en.a", en, chair_en, half, len(en.stages))
                _close_confirm_release(http, page, "cup.en.a", "en", chair_en, lambda automated: {"by": "Ms Lee"})
                v = http.get("/api/matches/cup.en.a").json()["verdict"]
                assert page.eval(_text("#verdict-winner")) == f"Winner: {v['winner']}"
                state_line = page.eval(_text("#verdict-state"))
                assert state_line.startswith("released Confirmed by Ms Lee at ") and not re.search(r"\d{4}-\d\d-\d\dT", state_line)  # a local, readable time
                assert page.eval(_text("#tendency-title")) == "Pre-verdict estimate (not the result)"
                report = http.get("/api/matches/cup.en.a/report.html")
                assert report.status_code == 200 and "<h2>Turning points</h2>" in report.text
                assert page.eval("document.getElementById('verdict-report').getAttribute('href')") == "/api/matches/cup.en.a/report.html"
                shots["en_released"] = page.screenshot(ARTIFACTS / "live_board_en_released.png")

                # -- Chinese, mid-match (same browser, another page)
                page.call("Page.navigate", url=f"{server.url}/board/cup.zh.a")
                page.wait_for("document.body.dataset.analysed === '0' && document.documentElement.lang === 'zh-CN'")
                _play(http, page, "cup.zh.a", zh, chair_zh, 0, 7)
                assert page.eval(_text("#tendency-title")) == "暂时倾向"
                assert page.eval(_text("#stage-progress")) == "已分析 7/14 个环节 · 已收到 7 个"
                assert page.eval(_text("#score-table tbody tr:nth-child(1) td:nth-child(2)")) == "正方一辩开篇立论"
                assert page.eval(_text("#score-table tbody tr:nth-child(1) td:nth-child(3)")) == "立论"
                assert page.eval(_text("#m-aff-team")) == "(复旦大学)"
                g = glyphs(page, "#m-motion")
                assert han_rendered(g), g
                assert han_rendered(glyphs(page, "#tendency-panel h2")) and han_rendered(glyphs(page, "#explain-momentum"))
                shots["zh_mid"] = page.screenshot(ARTIFACTS / "live_board_zh_mid.png")

                # -- Chinese, after release, with the chair's override of the winner
                _play(http, page, "cup.zh.a", zh, chair_zh, 7, len(zh.stages))
                other = {"affirmative": "negative", "negative": "affirmative"}
                draft = _close_confirm_release(http, page, "cup.zh.a", "zh", chair_zh, lambda automated: {"winner": other[automated], "note": "评审团忽略了反方的关键让步"})
                flipped = other[draft]
                side_zh = {"affirmative": "正方", "negative": "反方"}
                assert page.eval(_text("#verdict-winner")) == f"获胜方：{side_zh[flipped]}"
                assert page.eval(_text("#verdict-override")).startswith(f"确认时有改动：自动结果原为{side_zh[draft]}获胜。")
                assert "年" in page.eval(_text("#verdict-state")) and not re.search(r"\d{4}-\d\d-\d\dT", page.eval(_text("#verdict-state")))
                assert page.eval(_text("#tendency-title")) == "裁决前估计（并非结果）"
                assert han_rendered(glyphs(page, "#verdict-winner")) and han_rendered(glyphs(page, "#verdict-override"))
                shots["zh_released"] = page.screenshot(ARTIFACTS / "live_board_zh_released.png")
                html = http.get("/api/matches/cup.zh.a/report.html").text
                assert '<html lang="zh-CN">' in html and f"获胜方：{side_zh[flipped]}" in html and "评审团忽略了反方的关键让步" in html

                # -- the Chinese round overview: every room at a glance
                page.call("Page.navigate", url=f"{server.url}/board/round/cup/zh")
                page.wait_for("document.body.dataset.rooms === '1' && document.body.dataset.released === '1'")
                assert page.eval(_text("#round-view h1 span")) == "轮次总览"
                assert page.eval(_text("tr[data-room='a'] .verdict-cell")).startswith("已公布 获胜方：")
                assert page.eval(_text("tr[data-room='a'] .stages-cell")) == "14 / 14"
                assert han_rendered(glyphs(page, "tr[data-room='a'] td:nth-child(2)"))
                # a spectator's page has no organiser control: the release button is not shown (it was, in English)
                assert page.eval("getComputedStyle(document.getElementById('round-actions')).display") == "none"
                assert page.eval("document.getElementById('release-round-btn').offsetParent") is None
                shots["zh_round"] = page.screenshot(ARTIFACTS / "live_round_zh.png")

            # -- negative control: a Chromium that sees only DejaVu draws every Han character as the same box
            dejavu = Path("/usr/share/fonts/truetype/dejavu")
            if dejavu.is_dir():
                conf = tmp_path / "fonts.conf"
                conf.write_text(f'<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>{dejavu}</dir><cachedir>{tmp_path / "fc"}</cachedir></fontconfig>',
                                encoding="utf-8")
                with Chromium(f"{server.url}/board/cup.zh.a", root=tmp_path / "chromium-nocjk", env={"FONTCONFIG_FILE": str(conf)}) as page:
                    page.wait_for("document.body.dataset.status === 'closed'")
                    g = glyphs(page, "#m-motion")
                    assert not han_rendered(g) and g["distinct_ink"] == 1, g
    finally:
        server.stop()
    for name, path in shots.items():
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, name


def test_the_chair_page_confirms_with_an_override_and_the_organiser_page_releases(tmp_path):
    from adjudicator.judges.offline.backend import OfflineBackend

    en = load_match(EN_MATCH)
    server = start_server(tmp_path / "state", AdjudicationContext.single(OfflineBackend()))
    try:
        with httpx.Client(base_url=server.url, timeout=60, trust_env=False) as http:
            assert http.post("/api/tournaments", json={"tournament_id": "cup", "name": "Spring Cup"}, headers=ORG).status_code == 201
            _round(http, "en", en)
            r = http.post("/api/tournaments/cup/rounds/en/rooms", json={"room_id": "a", "teams": {"affirmative": "Owls", "negative": "Larks"}, "chair": "Ms Lee"}, headers=ORG)
            chair_token = r.json()["chair_token"]
            chair = {"Authorization": f"Bearer {chair_token}"}
            for s in en.stages:
                assert http.post("/api/matches/cup.en.a/stages", json=s.model_dump(mode="json"), headers=chair).status_code == 200
            assert http.post("/api/matches/cup.en.a/close", headers=chair).status_code == 200
            automated = http.get("/api/tournaments/cup/rounds/en/rooms/a", headers=chair).json()["decision"]["automated"]["winner"]
            other = "negative" if automated == "affirmative" else "affirmative"
            with Chromium(f"{server.url}/board/cup.en.a?token={chair_token}", root=tmp_path / "chromium") as page:
                page.wait_for("document.body.dataset.privateState === 'draft'")
                assert "token" not in page.eval("location.href")
                # the chair sees the draft (labelled as such) and the form, prefilled with the chair's name
                assert page.eval("document.getElementById('confirm-panel').hidden") is False
                assert page.eval(_text("#verdict-state")) == "Automated draft: not confirmed by a person yet, so not final."
                assert page.eval("document.getElementById('confirm-by').value") == "Ms Lee"
                assert page.eval("document.getElementById('release-btn').hidden") is True  # releasing is the organiser's
                page.eval(f"const s = document.getElementById('confirm-winner'); s.value = '{other}'; s.dispatchEvent(new Event('change'));"
                          "document.getElementById('confirm-note').value = 'missed the rebuttal'; document.getElementById('confirm-btn').click()")
                page.wait_for(f"{_text('#confirm-msg')} === 'confirmed (version 2)'")
            d = http.get("/api/tournaments/cup/rounds/en/rooms/a", headers=ORG).json()["decision"]
            assert (d["state"], d["automated"]["winner"], d["override"]["winner"], d["override"]["note"], d["confirmed_by"]["name"]) == (
                "confirmed", automated, other, "missed the rebuttal", "Ms Lee")
            assert http.get("/api/matches/cup.en.a").json()["verdict"] is None  # confirmed is not released
            with Chromium(f"{server.url}/board/round/cup/en?token={TOKEN}", root=tmp_path / "chromium-org") as page:
                page.wait_for("document.body.dataset.rooms === '1'")
                assert page.eval(_text("tr[data-room='a'] .verdict-cell")).startswith("confirmed, not yet released")
                page.eval("document.getElementById('release-round-btn').click()")
                page.wait_for("document.body.dataset.released === '1'")
            assert http.get("/api/matches/cup.en.a").json()["verdict"]["winner"] == other
    finally:
        server.stop()
