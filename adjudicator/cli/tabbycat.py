"""``adjudicate live tabbycat push T R [ROOM]``: post a round's confirmed results into Tabbycat.

The live server does the push (:mod:`adjudicator.live.tabbycat.service`): it reads the Tabbycat round,
maps every room, refuses what Tabbycat would store wrongly (naming the Tabbycat setting), posts the rest
and logs each outcome. The Tabbycat token is the server's (``live serve --tabbycat-token-file``), or
this command's: ``--tabbycat-token-file FILE``, ``$ADJUDICATOR_TABBYCAT_TOKEN_FILE`` or
``$ADJUDICATOR_TABBYCAT_TOKEN`` (never an argument: it would show in the process list), sent in the
request's ``X-Tabbycat-Token`` header.

A room whose debate Tabbycat already counts a result for that the room did not post is a ``conflict``:
nothing is posted, both results are printed; a tab-room person answers it for that room with ``--resolve
ours --reason TEXT`` (post ours over it) or ``--resolve theirs --reason TEXT`` (keep Tabbycat's), logged.

stdout: one line per room (``--json``: the whole answer). Exit code 0 when every room is posted,
unchanged, kept, retracted or skipped; 2 when a room is refused (a setting or an identity to fix) or in
conflict; 1 when Tabbycat failed a room (including a void room Tabbycat still counts).
"""

from __future__ import annotations

from pathlib import Path

import click

from adjudicator.cli.live import _client, _json_out, client_options, live_group
from adjudicator.cli.options import echo_err
from adjudicator.errors import AdjudicationFailed, InputError


@live_group.group("tabbycat")
def tabbycat_group() -> None:
    """Push a round's confirmed results into Tabbycat (docs/tabbycat.md)."""


def token_file_option(f):
    """``--tabbycat-token-file`` (also ``$ADJUDICATOR_TABBYCAT_TOKEN_FILE``)."""
    return click.option("--tabbycat-token-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help="file whose first line is the Tabbycat API token (else $ADJUDICATOR_TABBYCAT_TOKEN_FILE, $ADJUDICATOR_TABBYCAT_TOKEN, or the server's own)")(f)


def outcome_line(o: dict) -> str:
    """One room's outcome as a line: room, status, Tabbycat debate and ballot, reason."""
    where = f"debate {o['debate']}" if o.get("debate") is not None else ""
    ballot = f"ballot {o['ballot_id']} v{o['ballot_version']}" if o.get("ballot_id") is not None else ""
    head = "  ".join(x for x in (f"{o['room_id']:<12}", f"{o['status']:<9}", where, ballot) if x)
    moved = f"  (rounding kept the winner ahead: {', '.join(o['moved'])})" if o.get("moved") else ""
    return f"{head}  {o.get('reason', '')}".rstrip() + moved


@tabbycat_group.command("push")
@click.argument("tournament_id")
@click.argument("round_id")
@click.argument("room_id", required=False)
@click.option("--dry-run", is_flag=True, help="read Tabbycat and check every ballot, post nothing (prints the bodies with --json)")
@click.option("--resolve", type=click.Choice(["ours", "theirs"]), default=None,
              help="ROOM_ID's conflict with a result Tabbycat counts that it did not post: post ours over it, or keep Tabbycat's (needs --reason)")
@click.option("--reason", default="", help="why, for the log (with --resolve)")
@click.option("--json", "as_json", is_flag=True, help="print the whole answer as JSON")
@token_file_option
@client_options
def push_cmd(tournament_id, round_id, room_id, dry_run, resolve, reason, as_json, tabbycat_token_file, url, token, state_dir) -> None:
    """Post the confirmed results of round ROUND_ID (or of ROOM_ID only) into the tournament's Tabbycat."""
    from adjudicator.environment import tabbycat_token

    if resolve and not room_id:
        raise InputError("--resolve: name the room (ROOM_ID): a conflict is resolved one room at a time")
    if resolve and not reason.strip():
        raise InputError("--reason: give one with --resolve (it is logged)")
    tc_token, _where = tabbycat_token(tabbycat_token_file)
    body = {"dry_run": dry_run} | ({"resolve": resolve, "reason": reason} if resolve else {})
    with _client(url, token, state_dir) as c:
        answer = c.push_tabbycat(tournament_id, round_id, room_id, body, tc_token)
    rooms = answer["rooms"]
    if as_json:
        _json_out(answer)
    else:
        for o in rooms:
            click.echo(outcome_line(o))
    counts = {s: sum(1 for o in rooms if o["status"] == s) for s in ("posted", "unchanged", "kept", "retracted", "ready", "conflict", "refused", "failed", "skipped")}
    echo_err(f"{tournament_id}/{round_id} -> Tabbycat round {answer['tabbycat_round']} ({answer['tabbycat_url']}): "
             + ", ".join(f"{n} {s}" for s, n in counts.items() if n) + (" (dry run)" if dry_run else ""))
    if counts["failed"]:
        raise AdjudicationFailed(f"{counts['failed']} room(s) failed in Tabbycat", "see the lines above; run the push again once Tabbycat answers (nothing is posted twice)")
    if counts["conflict"]:
        raise InputError(f"{counts['conflict']} room(s) in conflict: Tabbycat counts a result they did not post there",
                         "a tab-room person decides, room by room: --resolve ours --reason TEXT, or --resolve theirs --reason TEXT")
    if counts["refused"]:
        raise InputError(f"{counts['refused']} room(s) refused: Tabbycat would store them wrongly", "change the Tabbycat setting each line names (or the room), then push again")
