"""``adjudicate live token add|list|revoke``: one token per person and role (issue 27, item 7;
:mod:`adjudicator.live.tournament.people`); and ``adjudicate live repush``, the organiser's correction of a
closed room's stage (item 9, :mod:`adjudicator.live.tournament.repush`).

The organiser (or a tab-room person) issues a token for a tab-room person (``--role tabroom``, the
organiser's rights under the person's name), a room's chair or panellist (``--role chair|panellist``
with ``--tournament --round --room``), or a private board's readers (``--role board --tournament``).
The token is printed once, on stdout as JSON (``token`` and, for a room or a board, ``url``); the
server keeps only its digest. ``list`` prints every token's record without its secret; ``revoke``
stops one at once.
"""

from __future__ import annotations

from pathlib import Path

import click

from adjudicator.cli.live import _client, _json_out, client_options, live_group, read_json_file
from adjudicator.cli.options import echo_err


@live_group.group("token")
def token_group() -> None:
    """Issue, list and revoke per-person tokens (tab room, chair, panellist, private board)."""


@token_group.command("add")
@click.option("--role", type=click.Choice(["tabroom", "chair", "panellist", "board"]), required=True,
              help="tabroom: the organiser's rights under this person's name; chair / panellist: of one room (--tournament --round --room); board: reads a private tournament's boards (--tournament)")
@click.option("--person", required=True, help="the person's name (the log, CSV, board and Tabbycat export show it); for a board token, a label such as 'hall screen'")
@click.option("--tournament", "tournament_id", help="the tournament (board, chair, panellist)")
@click.option("--round", "round_id", help="the round (chair, panellist)")
@click.option("--room", "room_id", help="the room (chair, panellist)")
@click.option("--token-out", type=click.Path(dir_okay=False, path_type=Path),
              help="write the token to this file (mode 0600; the person's --token-file) instead of printing it")
@client_options
def token_add_cmd(role, person, tournament_id, round_id, room_id, token_out, url, token, state_dir) -> None:
    """Issue a token for one person; it is printed this once, or written to --token-out (hand it, or
    its URL, to that person)."""
    body = {k: v for k, v in {"role": role, "person": person, "tournament_id": tournament_id, "round_id": round_id, "room_id": room_id}.items() if v is not None}
    with _client(url, token, state_dir) as c:
        rec = c.issue_token(body)
        if rec.get("url"):
            rec["url"] = c.url + rec["url"]
    if token_out is not None:
        from adjudicator.files import atomic_write_text

        atomic_write_text(token_out, rec.pop("token") + "\n", private=True)
        rec = rec | {"token_file": str(token_out), "url": rec["url"].split("?token=")[0] + "?token=<the token in the file>" if rec.get("url") else None}
    _json_out(rec)
    echo_err(f"issued {role} token {rec['token_id']} for {rec['person']}; " + (f"written to {token_out} (0600)" if token_out else "it is shown only this once"))


@token_group.command("list")
@click.option("--tournament", "tournament_id", help="only this tournament's tokens")
@client_options
def token_list_cmd(tournament_id, url, token, state_dir) -> None:
    """Print every issued token's record (id, role, person, scope, issued and revoked): no secrets."""
    with _client(url, token, state_dir) as c:
        _json_out(c.tokens(tournament_id))


@token_group.command("revoke")
@click.argument("token_id")
@client_options
def token_revoke_cmd(token_id, url, token, state_dir) -> None:
    """Revoke token TOKEN_ID (``tk_...``, from `live token list`): it stops working at once."""
    with _client(url, token, state_dir) as c:
        rec = c.revoke_token(token_id)
    _json_out(rec)
    echo_err(f"{token_id} ({rec['person']}): revoked at {rec['revoked_at']}")


@live_group.command("repush")
@click.argument("tournament_id")
@click.argument("round_id")
@click.argument("room_id")
@click.argument("stage_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--reason", required=True, help="why (kept in the lifecycle log with the stage's hash and the result before and after)")
@click.option("--expected-version", type=click.IntRange(1), help="refuse (409) if the verdict changed since this version")
@client_options
def repush_cmd(tournament_id, round_id, room_id, stage_file, reason, expected_version, url, token, state_dir) -> None:
    """The organiser replaces a stage of a closed room (STAGE_FILE: one stage, its stage_id one the
    match has): the analysis is recomputed from that stage on, the panel judges again, and the result
    is a new unconfirmed draft. A released result is reopened first (`live reopen`)."""
    body = {"stage": read_json_file(stage_file), "reason": reason} | ({"expected_version": expected_version} if expected_version else {})
    with _client(url, token, state_dir) as c:
        view = c.repush(tournament_id, round_id, room_id, body)
    _json_out(view)
    auto = (view.get("decision") or {}).get("automated") or {}
    echo_err(f"{view['match_id']}: stage {body['stage'].get('stage_id') if isinstance(body['stage'], dict) else '?'} re-pushed; "
             f"new draft (version {view['decision']['version']}), automated winner {auto.get('winner')} (p={auto.get('p')})")
