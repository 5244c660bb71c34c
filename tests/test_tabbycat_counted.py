"""Issue 41: Tabbycat holds exactly what the tab room confirmed. Contract tests against the fake
Tabbycat v2.9.3 (``tests/fake_tabbycat.py``): a ballot the tab room entered is never replaced without a
person's word, a void or reopened room's ballot is taken back or the push fails loudly, a post that fails
half-way says what Tabbycat now counts, and a refusal says what Tabbycat still counts.

Room A's ballot (``test_tabbycat_contract.source()``): raw 7.0 x4 and 6.5 x4 on 68-82 step 1, calibrated
(gain 0.0538 * 14 / 0.33 = 2.2824): 75 + 0.34 * 2.2824 = 75.776, x4 = 303.10 -> 76 76 76 75 (303); 75 - 0.16 *
2.2824 = 74.635, x4 = 298.54 -> 299 -> 75 75 75 74.
"""

from __future__ import annotations

import httpx
from fake_tabbycat import BASE, TOKEN, FakeTabbycat
from test_tabbycat_contract import FORMAT_SET, fake, push, source

from adjudicator.live.tabbycat.client import TabbycatClient
from adjudicator.live.tabbycat.counted import read_counted
from adjudicator.live.tabbycat.push import Resolution, push_room
from adjudicator.live.tabbycat.reading import read_round


def posts(tb: FakeTabbycat) -> list[httpx.Request]:
    return [r for r in tb.requests if r.method == "POST"]


def counted(tb: FakeTabbycat, debate: int = 10):
    with TabbycatClient(BASE, TOKEN, transport=tb.transport) as c:
        return read_counted(c, read_round(c, 1))[debate]


def test_what_tabbycat_counts_is_read_from_its_standings():
    tb = fake(FORMAT_SET)
    assert counted(tb) is None
    tb.enter(10, aff_wins=False, aff=[74, 74, 74, 74], neg=[76, 76, 75, 75])
    c = counted(tb)
    assert (c.winner, c.totals) == ("negative", {"affirmative": 296.0, "negative": 302.0})
    assert [x[1] for x in c.speeches["negative"]] == [76, 76, 75, 75] and c.speeches["negative"][0][0] == f"{BASE}/speakers/204"
    assert c.describe() == "negative win, 296-302 (speeches 74 74 74 74 | 76 76 75 75)"


# ---------------------------------------------------------------------------------------------
# Item 1: a confirmed ballot we did not post


def test_a_tab_room_ballot_is_a_conflict_shown_side_by_side_and_nothing_is_posted():
    tb = fake(FORMAT_SET)
    tb.enter(10, aff_wins=False, aff=[74, 74, 74, 74], neg=[76, 76, 75, 75])
    for dry in (True, False):
        o = push(tb, source(), dry_run=dry)
        assert o.status == "conflict", o
        assert "Tabbycat: negative win, 296-302 (speeches 74 74 74 74 | 76 76 75 75)" in o.reason
        assert "ours (version 2): affirmative win, 303-299 (speeches 76 76 76 75 | 75 75 75 74)" in o.reason
        assert "--resolve ours --reason TEXT" in o.reason and o.tabbycat["winner"] == "negative"
    assert posts(tb) == [] and tb.result(10)["neg"]["win"]  # the tab room's ballot still counts


def test_a_conflict_is_resolved_by_a_person_keeping_theirs_or_posting_ours():
    tb = fake(FORMAT_SET)
    tb.enter(10, aff_wins=False, aff=[74, 74, 74, 74], neg=[76, 76, 75, 75])
    kept = push(tb, source(), resolution=Resolution(resolve="theirs", reason="the tab room re-checked the ballot", by="Tab Director"))
    assert kept.status == "kept" and posts(tb) == [] and "Tab Director: the tab room re-checked the ballot" in kept.reason
    # the next push of the same result keeps it without asking again
    again = push(tb, source(), previous=kept.model_dump(mode="json", exclude_none=True))
    assert again.status == "kept" and posts(tb) == []
    ours = push(tb, source(), resolution=Resolution(resolve="ours", reason="the chair's sheet is the right one", by="Tab Director"))
    assert ours.status == "posted" and ours.tabbycat["winner"] == "negative" and ours.resolution.by == "Tab Director"
    assert tb.result(10)["aff"]["win"] and [b.confirmed for b in tb.ballots] == [False, True]


def test_a_ballot_of_another_of_our_rounds_is_a_conflict_too_and_the_same_result_is_unchanged():
    tb = fake(FORMAT_SET)
    first = push(tb, source(room="A"))
    assert first.status == "posted"
    # another round (or tournament) of ours names the same Tabbycat round: its room A2 maps to debate 10
    other = push(tb, source(room="A2", winner="negative", aff=(6.0,) * 4, neg=(7.0,) * 4))
    assert other.status == "conflict" and "Tabbycat: affirmative win, 303-299" in other.reason and len(posts(tb)) == 1
    same = push(tb, source(room="A3"))
    assert same.status == "unchanged" and "this very result" in same.reason and len(posts(tb)) == 1


# ---------------------------------------------------------------------------------------------
# Item 2: void and reopen retract, or fail loudly


def test_a_void_after_a_post_fails_loudly_while_tabbycat_v2_9_3_still_counts_it():
    tb = fake(FORMAT_SET)
    first = push(tb, source()).model_dump(mode="json", exclude_none=True)
    void = push(tb, source(state="void", version=3), previous=first)
    assert void.status == "failed" and void.ballot_id == 1
    assert "TABBYCAT STILL COUNTS ballot 1 (version 1) for debate 10: affirmative win, 303-299" in void.reason
    assert "HTTP 500" in void.reason and "untick 'Confirmed'" in void.reason
    assert tb.result(10)["aff"]["win"]  # v2.9.3 would not let go of it
    # the tab room unticks it in Tabbycat: the next push finds nothing counting
    tb.ballots[0].confirmed = False
    after = push(tb, source(state="void", version=3), previous=[first, void.model_dump(mode="json", exclude_none=True)])
    assert after.status == "skipped" and after.reason.endswith("Tabbycat counts nothing for debate 10")


def test_a_void_is_retracted_where_tabbycats_api_lets_a_ballot_be_unconfirmed():
    tb = fake(FORMAT_SET, ballot_api=True)
    first = push(tb, source()).model_dump(mode="json", exclude_none=True)
    void = push(tb, source(state="void", version=3), previous=first)
    assert void.status == "retracted" and tb.result(10) is None
    patch = [r for r in tb.requests if r.method == "PATCH" and "/ballots/" in str(r.url)]
    assert [str(r.url) for r in patch] == [f"{BASE}/rounds/1/pairings/10/ballots/1"] and patch[0].content == b'{"confirmed":false,"discarded":true}'


def test_a_reopened_room_whose_old_result_still_counts_says_so():
    tb = fake(FORMAT_SET)
    first = push(tb, source()).model_dump(mode="json", exclude_none=True)
    o = push(tb, source(state="draft", version=3), previous=first)
    assert o.status == "failed" and o.reason.startswith("reopened for correction") and "TABBYCAT STILL COUNTS ballot 1" in o.reason
    assert push(tb, source(state="draft", version=1)).status == "skipped"  # never posted: nothing to take back


# ---------------------------------------------------------------------------------------------
# Item 9: a post that fails half-way


def test_a_post_failing_half_way_says_loudly_what_tabbycat_now_counts_and_the_retry_replaces_it():
    tb = fake(FORMAT_SET)
    tb.fail_mid_post = 1
    o = push(tb, source())
    assert o.status == "failed" and "HTTP 500" in o.reason
    assert "TABBYCAT NOW COUNTS A HALF-STORED BALLOT for debate 10: affirmative win, 303-299 (no speaker scores)" in o.reason
    assert tb.result(10)["aff"]["score"] == 303 and tb.result(10)["aff"]["speeches"] == {}
    # the half-stored ballot is ours: the retry is not a conflict, it replaces it
    retry = push(tb, source(), previous=o.model_dump(mode="json", exclude_none=True))
    assert retry.status == "posted" and len(tb.result(10)["aff"]["speeches"]) == 4


def test_a_post_whose_answer_is_lost_is_posted_once_and_one_refused_before_storing_counts_nothing():
    tb = fake(FORMAT_SET)

    def lose_answer(request: httpx.Request) -> httpx.Response:
        answer = tb.handle(request)
        return httpx.Response(502, text="Bad Gateway") if request.method == "POST" else answer

    with TabbycatClient(BASE, TOKEN, transport=httpx.MockTransport(lose_answer)) as c:
        o = push_room(c, read_round(c, 1), source(), {})
    assert o.status == "posted" and "counts exactly this ballot although its answer failed" in o.reason and len(tb.ballots) == 1
    dead = fake(FORMAT_SET)

    def down_on_post(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            raise httpx.ConnectError("refused")
        return dead.handle(request)

    with TabbycatClient(BASE, TOKEN, transport=httpx.MockTransport(down_on_post)) as c:
        o = push_room(c, read_round(c, 1), source(), {})
    assert o.status == "failed" and o.reason.endswith("Tabbycat counts nothing for debate 10 now: push again")


# ---------------------------------------------------------------------------------------------
# Item 3: a refusal says what Tabbycat still counts


def test_a_refused_correction_says_tabbycat_still_counts_the_older_ballot():
    tb = fake(FORMAT_SET)
    first = push(tb, source()).model_dump(mode="json", exclude_none=True)
    low = push(tb, source(winner="negative", version=4), previous=first)  # a low-point win under 'none': refused
    assert low.status == "refused" and len(posts(tb)) == 1
    assert "Tabbycat still counts the older ballot this room posted (version 2) for debate 10: affirmative win, 303-299" in low.reason
