"""The organiser's tournament commands under ``adjudicate live``: ``tournament create|settings``,
``round create|show``, ``room create|token``, ``confirm``, ``release``, ``reopen``, ``void``, ``export``.

They talk to a running ``adjudicate live serve`` (``--url`` / ``--token-file``, else ``ADJUDICATOR_LIVE_URL``
/ ``ADJUDICATOR_LIVE_TOKEN_FILE`` or ``ADJUDICATOR_LIVE_TOKEN``, else ``STATE_DIR/access.json``); the organiser's token may do everything,
a room's chair token (``--token-file``) may ``confirm`` and export its own room. Results go to stdout as
JSON (``export`` writes files and prints what it wrote); one summary line goes to stderr.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from adjudicator.cli.live import _client, _json_out, client_options, live_group, read_json_file
from adjudicator.cli.options import echo_err
from adjudicator.errors import InputError

SIDE_CHOICE = click.Choice(["affirmative", "negative"])
FORMAT_CHOICE = click.Choice(["ccdb-4v4", "ccdb-2v2", "online-1v1"])


# ---------------------------------------------------------------------------------------------
# Parsing option values (one-line InputError naming the option)


def parse_scale(text: str | None) -> dict | None:
    """``LOW:HIGH[:STEP]`` -> ``{"low", "high", "step"}`` (e.g. ``70:80:1``). Raises InputError."""
    if text is None:
        return None
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*:\s*(-?\d+(?:\.\d+)?)\s*(?::\s*(\d+(?:\.\d+)?))?\s*", text)
    if not m:
        raise InputError(f"--speaker-scale: {text!r} is not LOW:HIGH or LOW:HIGH:STEP", "e.g. 70:80:1 for Tabbycat scores 70-80 in whole points")
    out = {"low": float(m.group(1)), "high": float(m.group(2))}
    if not out["low"] < out["high"]:  # named here, as typed; the server's check names the body's field
        raise InputError(f"--speaker-scale: {text!r}: LOW ({m.group(1)}) must be below HIGH ({m.group(2)})", "e.g. 70:80:1 for Tabbycat scores 70-80 in whole points")
    if m.group(3):
        out["step"] = float(m.group(3))
    return out


def parse_debaters(values: tuple[str, ...]) -> list[dict] | None:
    """``--debater "affirmative 1=Ann"`` (repeatable) -> debater objects. Raises InputError."""
    if not values:
        return None
    out = []
    for v in values:
        m = re.fullmatch(r"\s*(affirmative|negative)\s*(?:speaker\s*)?([1-4])\s*=\s*(.+?)\s*", v, flags=re.IGNORECASE)
        if not m:
            raise InputError(f"--debater: {v!r} is not 'SIDE POSITION=NAME'", "e.g. --debater 'affirmative 1=Ann'")
        out.append({"side": m.group(1).lower(), "position": int(m.group(2)), "name": m.group(3)})
    return out


def parse_scores(values: tuple[str, ...]) -> dict[str, float]:
    """``--score s02:negative=8.5`` (repeatable; ``|`` also separates) -> unit key -> score. Raises
    InputError."""
    out: dict[str, float] = {}
    for v in values:
        m = re.fullmatch(r"\s*([\w.\-]+)\s*[:|]\s*(affirmative|negative)\s*=\s*(\d+(?:\.\d+)?)\s*", v)
        if not m:
            raise InputError(f"--score: {v!r} is not 'STAGE_ID:SIDE=SCORE'", "e.g. --score s02:negative=8.5")
        out[f"{m.group(1)}|{m.group(2)}"] = float(m.group(3))
    return out


def parse_votes(values: tuple[str, ...]) -> dict[str, int] | None:
    """``--vote "Affirmative Speaker 3=4"`` (repeatable: the whole new vote table) -> label -> votes.
    Raises InputError."""
    if not values:
        return None
    out: dict[str, int] = {}
    for v in values:
        m = re.fullmatch(r"\s*((?:Affirmative|Negative) Speaker [1-4])\s*=\s*(\d+)\s*", v)
        if not m:
            raise InputError(f"--vote: {v!r} is not 'POSITION LABEL=VOTES'", "e.g. --vote 'Affirmative Speaker 3=4' (repeat it; the votes replace the panel's)")
        out[m.group(1)] = int(m.group(2))
    return out


def _summary(view: dict) -> str:
    return f"{view['match_id']}: {view['verdict_state']}" + (f"; winner {view['winner']} ({view['winner_team']})" if view.get("winner") else "")


# ---------------------------------------------------------------------------------------------
# tournament


@live_group.group("tournament")
def tournament_group() -> None:
    """Create a tournament and change its settings."""


def _warn(view: dict) -> None:
    """The view's ``warnings`` (a Tabbycat round or tournament shared with another), one stderr line each."""
    for w in view.get("warnings") or []:
        echo_err(f"warning: {w}")


@tournament_group.command("create")
@click.argument("tournament_id")
@click.option("--name", help="display name (default: the id)")
@click.option("--board-shows", type=click.Choice(["released", "confirmed", "draft"]), default="released", show_default=True,
              help="which verdicts the public boards show: released only, also confirmed ones, or also automated drafts (labelled as drafts)")
@click.option("--tabbycat-url", help="the tournament's Tabbycat API base, https://HOST/api/v1/tournaments/SLUG (for ballot export)")
@click.option("--speaker-scale", help="Tabbycat speaker score scale LOW:HIGH[:STEP] that 1-10 maps onto (default 1:10:0.01; a push uses the Tabbycat tournament's own range)")
@click.option("--tabbycat-push", type=click.Choice(["manual", "on-release"]), default=None,
              help="push a room's result to Tabbycat when it is released ('on-release', needs `live serve --tabbycat-token-file`), or only with `live tabbycat push` (default)")
@click.option("--second-person-confirms/--one-person-confirms", default=None,
              help="Tabbycat's rule: whoever enters or overrides a ballot may not confirm it; another person does (default: one person may)")
@click.option("--board-private/--board-public", default=None,
              help="private: the boards, round overview and event streams need a token (a board token: `live token add --role board`); default public")
@client_options
def tournament_create_cmd(tournament_id, name, board_shows, tabbycat_url, speaker_scale, tabbycat_push, second_person_confirms, board_private, url, token, state_dir) -> None:
    """Create tournament TOURNAMENT_ID (1-24 letters, digits, '_' or '-')."""
    body: dict = {"tournament_id": tournament_id, "name": name, "board_shows": board_shows, "tabbycat_url": tabbycat_url,
                  "tabbycat_push": tabbycat_push.replace("-", "_") if tabbycat_push else None, "second_person_confirms": second_person_confirms,
                  "board_private": board_private}
    scale = parse_scale(speaker_scale)
    if scale:
        body["speaker_scale"] = scale
    with _client(url, token, state_dir) as c:
        view = c.create_tournament({k: v for k, v in body.items() if v is not None})
    _json_out(view)
    _warn(view)
    echo_err(f"created tournament {tournament_id}; boards show {board_shows} verdicts")


@tournament_group.command("settings")
@click.argument("tournament_id")
@click.option("--board-shows", type=click.Choice(["released", "confirmed", "draft"]), help="which verdicts the public boards show")
@click.option("--tabbycat-url", help="the tournament's Tabbycat API base")
@click.option("--speaker-scale", help="Tabbycat speaker score scale LOW:HIGH[:STEP]")
@click.option("--tabbycat-push", type=click.Choice(["manual", "on-release"]), default=None, help="when results go to Tabbycat: on release, or only with `live tabbycat push`")
@click.option("--second-person-confirms/--one-person-confirms", default=None,
              help="Tabbycat's rule: whoever enters or overrides a ballot may not confirm it; another person does (default: one person may)")
@click.option("--board-private/--board-public", default=None,
              help="private: the boards, round overview and event streams need a token (a board token: `live token add --role board`); default public")
@client_options
def tournament_settings_cmd(tournament_id, board_shows, tabbycat_url, speaker_scale, tabbycat_push, second_person_confirms, board_private, url, token, state_dir) -> None:
    """Change TOURNAMENT_ID's settings (logged; the boards follow at once)."""
    body = {k: v for k, v in {"board_shows": board_shows, "tabbycat_url": tabbycat_url, "speaker_scale": parse_scale(speaker_scale),
                              "tabbycat_push": tabbycat_push.replace("-", "_") if tabbycat_push else None,
                              "second_person_confirms": second_person_confirms, "board_private": board_private}.items() if v is not None}
    if not body:
        raise InputError("tournament settings: nothing to change", "give --board-shows, --tabbycat-url, --speaker-scale, --tabbycat-push, --second-person-confirms or --board-private")
    with _client(url, token, state_dir) as c:
        view = c.tournament_settings(tournament_id, body)
    _json_out(view)
    _warn(view)
    echo_err(f"{tournament_id}: settings changed")


# ---------------------------------------------------------------------------------------------
# round


@live_group.group("round")
def round_group() -> None:
    """Create a round and see every room of it at a glance."""


@round_group.command("create")
@click.argument("tournament_id")
@click.argument("round_id")
@click.option("--from-match", "from_match", type=click.Path(path_type=Path), help="take format, language, motion and both positions from this match file")
@click.option("--format", "format_", type=FORMAT_CHOICE, help="the rooms' format")
@click.option("--motion", help="the motion")
@click.option("--affirmative-position", help="what the affirmative argues")
@click.option("--negative-position", help="what the negative argues")
@click.option("--language", type=click.Choice(["zh", "en"]), help="default: the format's (zh for ccdb, en for online)")
@click.option("--name", help="display name, e.g. 'Round 1' (default: the id)")
@click.option("--info", help="context shown to the trackers (the match file's info)")
@click.option("--tabbycat-round", type=click.IntRange(1), help="Tabbycat's round sequence number (for ballot export)")
@client_options
def round_create_cmd(tournament_id, round_id, from_match, format_, motion, affirmative_position, negative_position, language, name, info, tabbycat_round, url, token, state_dir) -> None:
    """Create round ROUND_ID of TOURNAMENT_ID: what every room of it debates."""
    body: dict = {}
    if from_match:
        data = read_json_file(from_match)
        if not isinstance(data, dict):
            raise InputError(f"{from_match}: the top level must be a JSON object describing one match")
        body = {k: data[k] for k in ("format", "language", "motion", "affirmative_position", "negative_position", "info") if data.get(k) is not None}
    flags = {"format": format_, "language": language, "motion": motion, "affirmative_position": affirmative_position, "negative_position": negative_position, "info": info}
    body |= {k: v for k, v in flags.items() if v is not None}
    body |= {k: v for k, v in {"round_id": round_id, "name": name, "tabbycat_round": tabbycat_round}.items() if v is not None}
    for need in ("format", "motion", "affirmative_position", "negative_position"):
        if need not in body:
            raise InputError(f"round create: no {need.replace('_', ' ')}", f"give --{need.replace('_', '-')} or --from-match FILE")
    with _client(url, token, state_dir) as c:
        view = c.create_round(tournament_id, body)
    _json_out(view)
    _warn(view)
    echo_err(f"created round {tournament_id}/{round_id} ({body['format']}); overview: {c.url}{view['round_url']}")


@round_group.command("show")
@click.argument("tournament_id")
@click.argument("round_id")
@click.option("--json", "as_json", is_flag=True, help="print the whole round view as JSON (every room's state, decision and verdict)")
@client_options
def round_show_cmd(tournament_id, round_id, as_json, url, token, state_dir) -> None:
    """Print the round at a glance: one line per room (room, stages analysed, state, winner, the
    panel's split, who confirmed, when released (local times), the last Tabbycat push: status, ballot
    id, the setting refused on). ``--json`` prints the full state instead (``tabbycat_push`` per room)."""
    with _client(url, token, state_dir) as c:
        view = c.round(tournament_id, round_id)
    if as_json:
        _json_out(view)
        return
    click.echo(round_table(view))


def local_time(iso: str | None) -> str:
    """A stored UTC ISO 8601 time as local ``YYYY-MM-DD HH:MM``; "" for None."""
    if not iso:
        return ""
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def round_table(view: dict) -> str:
    """The round view as a short table: room, stage, state, winner, split (the panel's, of the
    automated result), confirmed by, released, and where the room stands in Tabbycat (its last push:
    ``posted ballot 40 v1``, ``refused (winners_in_ballots)``, ``conflict debate 12``; the organiser's
    and the room chair's rows)."""
    from adjudicator.live.tabbycat.status import status_line

    rows = [("room", "stage", "state", "winner", "split", "confirmed by", "released", "tabbycat")]
    for r in view["rooms"]:
        d = r.get("decision") or {}
        stage = f"{r['analysed']}/{r['expected_stages']}" if r.get("expected_stages") else str(r["analysed"])
        state = r["status"] if r["verdict_state"] == "none" else r["verdict_state"]  # the match's status until a verdict exists
        winner = f"{r['winner']} ({r['winner_team']})" + (" overridden" if r.get("overridden") else "") if r.get("winner") else ""
        confirmed = ((d.get("confirmed_by") or {}).get("name") or "") + (f" {local_time(d.get('confirmed_at'))}" if d.get("confirmed_at") else "")
        split = (d.get("automated") or {}).get("winner_split") or ""
        rows.append((r["room_id"], stage, state, winner, split, confirmed, local_time(d.get("released_at")), status_line(r.get("tabbycat_push"))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    head = f"{view['tournament']['name']} / {view['round']['name']}: {len(view['rooms'])} room(s)"
    return "\n".join([head] + ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows])


# ---------------------------------------------------------------------------------------------
# room


@live_group.group("room")
def room_group() -> None:
    """Create a room (one debate of a round) and issue its chair token."""


@room_group.command("create")
@click.argument("tournament_id")
@click.argument("round_id")
@click.argument("room_id")
@click.option("--affirmative-team", required=True, help="name of the affirmative team")
@click.option("--negative-team", required=True, help="name of the negative team")
@click.option("--name", help="display name of the room (default: the id)")
@click.option("--chair", help="the chair's name (shown on the board; the default name on a confirmation)")
@click.option("--debater", "debaters", multiple=True, help="'SIDE POSITION=NAME', e.g. 'affirmative 1=Ann' (repeatable; default: every position, unnamed)")
@click.option("--tabbycat", "tabbycat_file", type=click.Path(path_type=Path),
              help='JSON file of the room\'s Tabbycat ids: {"debate": 12, "teams": {"affirmative": 3, "negative": 7}, "speakers": {"Affirmative Speaker 1": 31, ...}, "motion": 5}')
@client_options
def room_create_cmd(tournament_id, round_id, room_id, affirmative_team, negative_team, name, chair, debaters, tabbycat_file, url, token, state_dir) -> None:
    """Create room ROOM_ID of a round and its live match; prints its chair token and URLs (the token
    is shown this once: hand the chair URL to the room's chair)."""
    body: dict = {"room_id": room_id, "teams": {"affirmative": affirmative_team, "negative": negative_team}, "name": name, "chair": chair,
                  "debaters": parse_debaters(debaters)}
    if tabbycat_file:
        body["tabbycat"] = read_json_file(tabbycat_file)
    with _client(url, token, state_dir) as c:
        view = c.create_room(tournament_id, round_id, {k: v for k, v in body.items() if v is not None})
        out = {"match_id": view["match_id"], "chair_token": view["chair_token"], "chair_url": c.url + view["chair_url"],
               "board_url": c.url + view["board_url"], "round_url": c.url + view["round_url"]}
    _json_out(out)
    echo_err(f"created room {view['match_id']}; chair URL: {out['chair_url']}")


@room_group.command("token")
@click.argument("tournament_id")
@click.argument("round_id")
@click.argument("room_id")
@client_options
def room_token_cmd(tournament_id, round_id, room_id, url, token, state_dir) -> None:
    """Issue a new chair token for a room (the old one stops working at once)."""
    with _client(url, token, state_dir) as c:
        r = c.new_chair_token(tournament_id, round_id, room_id)
        out = r | {"chair_url": c.url + r["chair_url"]}
    _json_out(out)
    echo_err(f"{r['match_id']}: new chair token issued")


# ---------------------------------------------------------------------------------------------
# confirm, release, export


@live_group.command("confirm")
@click.argument("tournament_id")
@click.argument("round_id")
@click.argument("room_id")
@click.option("--winner", type=SIDE_CHOICE, help="override the winner")
@click.option("--score", "scores", multiple=True, help="override one stage score, 'STAGE_ID:SIDE=SCORE' (1-10; repeatable)")
@click.option("--vote", "votes", multiple=True, help="'POSITION LABEL=VOTES' (repeatable): replaces the panel's best-debater votes, same total")
@click.option("--note", default="", help="why the result was changed")
@click.option("--by", help="your name: with a person's token it must be that person's (default: the token's person; the shared organiser token: 'organiser')")
@click.option("--expected-version", type=click.IntRange(1), help="refuse (409) if the verdict changed since this version")
@client_options
def confirm_cmd(tournament_id, round_id, room_id, winner, scores, votes, note, by, expected_version, url, token, state_dir) -> None:
    """Confirm a room's automated verdict (as its chair or the organiser), optionally overriding the
    winner, stage scores or best-debater votes; the automated original is kept beside the override."""
    body = {"winner": winner, "stage_scores": parse_scores(scores), "best_debater_votes": parse_votes(votes), "note": note, "by": by, "expected_version": expected_version}
    with _client(url, token, state_dir) as c:
        view = c.confirm(tournament_id, round_id, room_id, {k: v for k, v in body.items() if v not in (None, {}, "")})
    _json_out(view)
    d = view["decision"]
    echo_err(f"{view['match_id']}: confirmed (version {d['version']}) by {d['confirmed_by']['name']}; winner {view['winner']}" + (" (overridden)" if view["overridden"] else ""))


@live_group.command("release")
@click.argument("tournament_id")
@click.argument("round_id")
@click.argument("room_id", required=False)
@click.option("--by", help="your name (default: 'organiser')")
@client_options
def release_cmd(tournament_id, round_id, room_id, by, url, token, state_dir) -> None:
    """Release the confirmed verdict of one room, or of every room of the round at once (all must be
    confirmed); the boards then show them."""
    with _client(url, token, state_dir) as c:
        view = c.release(tournament_id, round_id, room_id, {"by": by} if by else {})
    _json_out(view)
    rooms = [r for r in view["rooms"] if room_id is None or r["room_id"] == room_id]
    echo_err(f"{tournament_id}/{round_id}: released " + ", ".join(r["room_id"] for r in rooms if r["verdict_state"] == "released"))
    if view.get("tabbycat_push"):
        from adjudicator.cli.tabbycat import outcome_line

        for o in view["tabbycat_push"]:
            echo_err("  Tabbycat: " + outcome_line(o))


def _correction_cmd(what: str, doc: str):
    @click.argument("tournament_id")
    @click.argument("round_id")
    @click.argument("room_id")
    @click.option("--reason", required=True, help="why (kept in the lifecycle log with the result before and after)")
    @click.option("--expected-version", type=click.IntRange(1), help="refuse (409) if the verdict changed since this version")
    @client_options
    def cmd(tournament_id, round_id, room_id, reason, expected_version, url, token, state_dir) -> None:
        body = {"reason": reason} | ({"expected_version": expected_version} if expected_version else {})
        with _client(url, token, state_dir) as c:
            view = c.correct(tournament_id, round_id, room_id, what, body)
        _json_out(view)
        echo_err(f"{view['match_id']}: {view['verdict_state']} (version {view['decision']['version']})")

    cmd.__doc__ = doc
    return live_group.command(what)(cmd)


reopen_cmd = _correction_cmd("reopen", """The organiser takes a room's confirmed, released or void result back to an unconfirmed draft
    (the override dropped), to be confirmed again; the lifecycle log keeps the result before and after.""")
void_cmd = _correction_cmd("void", """The organiser voids a room's result: it counts for nothing (no ballot, CSV result, Tabbycat push
    or release) until reopened; the lifecycle log keeps the result before.""")


@live_group.command("export")
@click.argument("tournament_id")
@click.argument("round_id")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True, help="folder for the files")
@client_options
def export_cmd(tournament_id, round_id, out_dir, url, token, state_dir) -> None:
    """Write a round's exports into --out: one Tabbycat API v1 ballot per room
    (``<t>.<r>.<room>.tabbycat.json``: POST its ``body`` to its ``url``) and the round's results CSV
    (``<t>.<r>.results.csv``) and its lifecycle log (``<t>.<r>.log.csv``). Rooms without a verdict or Tabbycat ids are listed on stderr (exit 2)."""
    from adjudicator.files import write_output

    with _client(url, token, state_dir) as c:
        ballots = c.round_ballots(tournament_id, round_id)
        csv_text = c.round_csv(tournament_id, round_id)
        log_text = c.round_csv(tournament_id, round_id, "log.csv")
    written = []
    for b in ballots["ballots"]:
        path = out_dir / f"{b['submission']['match_id']}.tabbycat.json"
        write_output(path, json.dumps(b, ensure_ascii=False, indent=2) + "\n")
        written.append(str(path))
    csv_path = out_dir / f"{tournament_id}.{round_id}.results.csv"
    write_output(csv_path, csv_text)
    log_path = out_dir / f"{tournament_id}.{round_id}.log.csv"  # the trail: who did what to each result, and when
    write_output(log_path, log_text)
    written += [str(csv_path), str(log_path)]
    _json_out({"written": written, "skipped": ballots["skipped"]})
    echo_err(f"{tournament_id}/{round_id}: {len(ballots['ballots'])} ballot(s) and the results CSV written to {out_dir}")
    if ballots["skipped"]:
        for s in ballots["skipped"]:
            echo_err(f"  not exported: {s['room_id']}: {s['reason']}")
        raise InputError(f"{len(ballots['skipped'])} room(s) of {tournament_id}/{round_id} have no Tabbycat ballot", "see the lines above")
