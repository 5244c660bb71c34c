"""Failure records carry a typed kind; result files written before kinds existed still read back."""

from __future__ import annotations

import json

from adjudicator.records import FailureKind, NodeFailure


def test_a_failure_serialises_its_kind_and_reads_back_the_same():
    f = NodeFailure(node="judge", key="judge-2", kind=FailureKind.REFUSED, reason="refused: 401 bad key", raw_outputs=[])
    data = json.loads(f.model_dump_json())
    assert data["kind"] == "refused"
    assert NodeFailure.model_validate(data) == f


def test_legacy_records_without_a_kind_take_it_from_the_reason_prefix():
    def kind(reason: str) -> FailureKind:
        return NodeFailure.model_validate({"node": "track_stage", "key": "s01", "reason": reason}).kind

    assert kind("transport: cannot connect to http://127.0.0.1:9/v1") is FailureKind.TRANSPORT
    assert kind("refused: 404 no such model") is FailureKind.REFUSED
    assert kind("unparseable: no valid output in 3 attempts") is FailureKind.UNPARSEABLE
    assert kind("offline judge error: ValueError: x") is FailureKind.ERROR


def test_only_transport_and_refused_mean_the_model_never_answered():
    assert {k for k in FailureKind if k.unreachable} == {FailureKind.TRANSPORT, FailureKind.REFUSED}
