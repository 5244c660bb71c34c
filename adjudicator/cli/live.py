"""The ``adjudicate live`` commands: serve, create, push, close, status, replay (the organiser's
tournament commands are in :mod:`adjudicator.cli.tournament`).

``serve`` prints the organiser URL (with the access token), the read-only board URL and the token on
stdout, writes them to ``STATE_DIR/access.json``, and serves until interrupted. The client commands
find the server from ``--url`` / ``--token-file``, else ``ADJUDICATOR_LIVE_URL`` / ``ADJUDICATOR_LIVE_TOKEN_FILE``
or ``ADJUDICATOR_LIVE_TOKEN``,
else the access file in ``--state-dir``. Results go to stdout as JSON; progress to stderr.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
import socket
import sys
from pathlib import Path

import click

from adjudicator.cli.options import FiniteFloat, echo_err, model_config_from_options, model_options, read_json_file
from adjudicator.cli.transcribe import speech_options
from adjudicator.errors import AdjudicationFailed, InputError

#: :data:`adjudicator.environment.LIVE_STATE_ENV` and :data:`~adjudicator.environment.LIVE_STORE_ENV`, spelled out
#: so that building the command tree does not import the settings (tests/test_startup.py checks they agree).
LIVE_STATE_ENV = "ADJUDICATOR_LIVE_STATE"
LIVE_STORE_ENV = "ADJUDICATOR_LIVE_STORE"

DEFAULT_STATE_DIR = ".adjudicator-live"


def client_options(f):
    """--url, --token-file, --state-dir for the commands that talk to a running server. The command
    receives ``token``: the token read from ``--token-file`` (None: ``$ADJUDICATOR_LIVE_TOKEN_FILE``,
    ``$ADJUDICATOR_LIVE_TOKEN`` or the access file, :func:`~adjudicator.live.client.connection.resolve_endpoint`).
    A token given on the command line (``--token``, hidden) is refused: it would show in ``ps``."""

    @functools.wraps(f)
    def with_token(*args, token_file: Path | None = None, token: str | None = None, **kw):
        if token is not None:
            refuse_token_argument()
        from adjudicator.environment import live_token

        return f(*args, token=live_token(token_file, env={})[0] if token_file else None, **kw)

    g = click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path), envvar=LIVE_STATE_ENV, default=DEFAULT_STATE_DIR, show_default=True, help="read URL and token from this server state folder's access.json")(with_token)
    g = click.option("--token", hidden=True, help="refused: a token on the command line shows in the process list")(g)
    g = click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                     help="file whose first line is your token: the organiser's (`live serve`), a chair's (`live room create`) or another person's "
                          "(`live token add`); else $ADJUDICATOR_LIVE_TOKEN_FILE, $ADJUDICATOR_LIVE_TOKEN, or --state-dir's access file")(g)
    g = click.option("--url", envvar="ADJUDICATOR_LIVE_URL", help="base URL of the live server, e.g. http://127.0.0.1:8421")(g)
    return g


def refuse_token_argument() -> None:
    """Raises InputError: a token given as an argument (``--token``) shows in the process list."""
    raise InputError("--token: a token on the command line shows in the process list (ps) to every user of this machine",
                     "put it in a file and give --token-file FILE, or set $ADJUDICATOR_LIVE_TOKEN (or $ADJUDICATOR_LIVE_TOKEN_FILE)")


def _client(url, token, state_dir):
    from adjudicator.live.client.connection import LiveClient, resolve_endpoint, trusted_certificate

    base, tok, origin = resolve_endpoint(url, token, state_dir)
    return LiveClient(base, tok, origin=origin, verify=trusted_certificate(base, state_dir))


@click.group("live")
def live_group() -> None:
    """Live adjudication: push stages as they finish; a board page follows the debate.

    \b
    adjudicate live serve                         start the server (prints organiser URL + token)
    adjudicate live create header.json            create a match (a match file; stages are not sent)
    adjudicate live push MATCH_ID stage.json      push one finished stage
    adjudicate live push MATCH_ID --audio s03.m4a transcribe a stage's recording here and push it
    adjudicate live status MATCH_ID               the match's board snapshot as JSON
    adjudicate live retry MATCH_ID [STAGE_ID]     analyse a failed stage again
    adjudicate live close MATCH_ID [--force]      run the panel; prints the verdict
    adjudicate live replay match.json --speed 10  replay a finished match at 10x real speed

    \b
    A tournament (see docs/tournaments.md, "Running a tournament"):
    adjudicate live tournament create T           a tournament (which verdicts the boards show)
    adjudicate live round create T R ...          a round: format, motion, positions
    adjudicate live room create T R ROOM ...      a room and its match; prints the chair token
    adjudicate live confirm T R ROOM [...]        confirm the automated draft, with an override
    adjudicate live release T R [ROOM]            release confirmed verdicts to the boards
    adjudicate live reopen T R ROOM --reason WHY  a result back to a draft, to correct it (logged)
    adjudicate live void T R ROOM --reason WHY    a result that counts for nothing (logged)
    adjudicate live repush T R ROOM stage.json    replace a stage of a closed room (logged)
    adjudicate live token add --role R --person P a person's own token (tab room, chair, panellist, board)
    adjudicate live export T R --out DIR          Tabbycat ballots, the round's results CSV and its lifecycle log
    adjudicate live tabbycat push T R [ROOM]      post the confirmed results into Tabbycat
    """


# ---------------------------------------------------------------------------------------------
# The server


@live_group.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on (loopback by default)")
@click.option("--port", type=click.IntRange(0, 65535), default=8421, show_default=True, help="TCP port (0 picks a free one; the default is no common model server's)")  # = live.server.DEFAULT_PORT
@click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path), envvar=LIVE_STATE_ENV, default=DEFAULT_STATE_DIR, show_default=True, help="folder for the SQLite checkpoints, access.json, verdicts and reports")
@click.option("--store", envvar=LIVE_STORE_ENV, default="sqlite", show_default=True,
              help="where matches, checkpoints, verdicts and tournaments live: 'sqlite' (files in --state-dir) or a postgresql:// URL that several server processes share")
@click.option("--pool-size", type=click.IntRange(1, 256), default=None, help="PostgreSQL only: data connections per process (default 8; held match locks get twice as many)")
@click.option("--token-file", "serve_token_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="file whose first line is the organiser's token (at least 16 characters; give every process of one database the same one); "
                   "else $ADJUDICATOR_LIVE_TOKEN_FILE, $ADJUDICATOR_LIVE_TOKEN, the one in --state-dir's access.json, or a new one")
@click.option("--token", "serve_token", hidden=True, help="refused: a token on the command line shows in the process list")
@click.option("--tls-cert", type=click.Path(dir_okay=False, path_type=Path), default=None, help="serve HTTPS with this certificate (PEM; with --tls-key)")
@click.option("--tls-key", type=click.Path(dir_okay=False, path_type=Path), default=None, help="the private key of --tls-cert (PEM)")
@click.option("--max-connections", type=click.IntRange(16, 1_000_000), default=None,
              help="open connections past which requests without a valid token get 503 (default: the open-files limit less 128)")
@click.option("--max-streams", type=click.IntRange(1, 1_000_000), default=None,
              help="open board event streams past which a new one without a valid token gets 503 (default: half of --max-connections)")
@click.option("--max-body-kb", type=click.IntRange(1, 65536), default=1024, show_default=True, help="largest request body accepted (413 above)")
@click.option("--max-matches", type=click.IntRange(1, 1_000_000), default=1000, show_default=True, help="matches this server keeps; a create beyond it is refused (409)")
@click.option("--log-level", type=click.Choice(["critical", "error", "warning", "info", "debug"]), default="info", show_default=True,
              help="how much the server logs to stderr (uvicorn's log level)")
@click.option("--tabbycat-token-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="file whose first line is the Tabbycat API token the server pushes with (else $ADJUDICATOR_TABBYCAT_TOKEN_FILE, $ADJUDICATOR_TABBYCAT_TOKEN)")
@click.option("--context-factory", hidden=True, help="module:callable returning an AdjudicationContext (custom backends, tests)")
@click.option("--keep-saver-lock", is_flag=True, hidden=True, help="PostgreSQL: keep LangGraph's per-saver lock (benchmarks/live_scale.py --saver-lock)")
@model_options
def serve_cmd(host: str, port: int, state_dir: Path, store: str, pool_size: int | None, serve_token_file: Path | None, serve_token: str | None,
              tls_cert: Path | None, tls_key: Path | None, max_connections: int | None, max_streams: int | None, max_body_kb: int, max_matches: int, log_level: str,
              tabbycat_token_file: Path | None, context_factory: str | None, keep_saver_lock: bool, **opts) -> None:
    """Start the live server and print the organiser URL and access token."""
    from adjudicator.environment import live_token, tabbycat_token
    from adjudicator.live.server.app import create_app
    from adjudicator.live.server.serving import base_url_of, check_tls, load_or_create_token, serve_forever, urls, warn_if_exposed, write_access
    from adjudicator.live.store.storage import redacted

    _default_stop_signals()
    if serve_token is not None:
        refuse_token_argument()
    _refuse_password_argument(store)
    given, _ = live_token(serve_token_file)
    if given is not None and len(given) < 16:
        raise InputError("--token-file: the access token must have at least 16 characters", "use a longer random token, e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`")
    tls = check_tls(tls_cert, tls_key)
    tc_token, tc_where = tabbycat_token(tabbycat_token_file)
    context = _serving_context(context_factory, opts)
    _make_state_dir(state_dir)
    token = given or load_or_create_token(state_dir)
    # the app takes the state folder's lock (SQLite) before the socket is bound or access.json written
    app = create_app(state_dir, context, token, max_body_bytes=max_body_kb * 1024, store=store, pool_size=pool_size, keep_saver_lock=keep_saver_lock, max_matches=max_matches,
                     tabbycat_token=tc_token, max_connections=max_connections, max_streams=max_streams)
    sock = _listen(host, port)
    base = base_url_of(sock, tls=tls is not None)
    path = write_access(state_dir, base, token, tls_cert=tls[0] if tls else None)
    _print_access(urls(base, token), path)
    where = f"state in {state_dir}" if store == "sqlite" else f"store {redacted(store)}; access file in {state_dir}"
    cap = app.state.capacity
    echo_err(f"adjudicate live: model {context.tracker.name}; {where}; Tabbycat token: {tc_where if tc_token else 'none (' + tc_where + ')'}; "
             f"at most {cap.max_connections} connections, {cap.max_streams} board streams; Ctrl+C to stop")
    warn_if_exposed(host, tls is not None)
    serve_forever(app, sock, log_level, tls=tls)


def _refuse_password_argument(store: str) -> None:
    """Raises InputError when ``--store`` was given on the command line as a URL with a password (it
    would show in ``ps``); the same URL in ``$ADJUDICATOR_LIVE_STORE`` is accepted."""
    ctx = click.get_current_context(silent=True)
    source = ctx.get_parameter_source("store") if ctx is not None else None
    if source == click.core.ParameterSource.COMMANDLINE and re.search(r"://[^/@]*:[^/@]*@", store or ""):
        from adjudicator.live.store.storage import redacted

        raise InputError(f"--store {redacted(store)}: a password in the URL on the command line shows in the process list (ps)",
                         "leave it out and give it in $PGPASSWORD or a ~/.pgpass file, or put the whole URL in $ADJUDICATOR_LIVE_STORE")


def _default_stop_signals() -> None:
    """Give SIGTERM and SIGHUP back their default action for the server process: everything the server
    holds is committed to its state folder, so a stop before uvicorn takes the signals over (it then
    shuts down gracefully) may end the process at once. Raising
    :class:`~adjudicator.errors.Terminated` there instead (what other commands do) can leave the
    process waiting on the app's threads."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)


def _serving_context(context_factory: str | None, opts: dict):
    """The AdjudicationContext to serve with: from ``--context-factory``, else from the model options."""
    if context_factory:
        return load_context_factory(context_factory)
    from adjudicator.api import build_context

    return build_context(model_config_from_options(opts), check_models=True)  # a key missing fails now, not at the first push


def load_context_factory(spec: str):
    """Call ``module:callable`` (no arguments) and return the AdjudicationContext it builds (a hook for
    custom backends and for tests). Raises InputError for a bad spec."""
    from adjudicator.workflow.context import AdjudicationContext

    mod_name, _, attr = spec.partition(":")
    if not mod_name or not attr:
        raise InputError(f"--context-factory: {spec!r} is not 'module:callable'")
    try:
        factory = getattr(importlib.import_module(mod_name), attr)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"--context-factory: cannot load {spec!r} ({exc})") from None
    ctx = factory()
    if not isinstance(ctx, AdjudicationContext):
        raise InputError(f"--context-factory: {spec!r} returned {type(ctx).__name__}, not an AdjudicationContext")
    return ctx


def _make_state_dir(state_dir: Path) -> None:
    from adjudicator.files import private_folder

    try:
        private_folder(state_dir)
    except OSError as exc:
        raise InputError(f"--state-dir: {state_dir} cannot be created ({exc.strerror})") from None


def _listen(host: str, port: int) -> socket.socket:
    from adjudicator.live.server.serving import bind_socket

    try:
        return bind_socket(host, port)
    except OSError as exc:
        raise InputError(f"--port: cannot listen on {host}:{port} ({exc.strerror})", "choose another --port, or 0 for a free one") from None


def _print_access(u: dict[str, str], access_file: Path) -> None:
    """The organiser URL, the board URL, the token and the access file's path on stdout, flushed (a
    supervising process reads them while the server runs)."""
    click.echo(f"organiser: {u['organiser_url']}")
    click.echo(f"board:     {u['board_url']}")
    click.echo(f"token:     {u['token']}")
    click.echo(f"access:    {access_file}")
    sys.stdout.flush()


# ---------------------------------------------------------------------------------------------
# The client commands


@live_group.command("create")
@click.argument("header_file", type=click.Path(path_type=Path))
@click.option("--match-id", help="override the file's match_id")
@client_options
def create_cmd(header_file: Path, match_id: str | None, url, token, state_dir) -> None:
    """Create a live match from HEADER_FILE (a match file; its stages, labels and source are not sent)."""
    body = _create_body(read_json_file(header_file), header_file, match_id)
    with _client(url, token, state_dir) as c:
        r = c.create(body)
        out = {"match_id": r["match_id"], "board_url": c.url + r["board_url"], "next_slot": r["snapshot"]["next_slot"]}
    _json_out(out)
    echo_err(f"created {out['match_id']}; board: {out['board_url']}")


def _create_body(data: object, header_file: Path, match_id: str | None) -> dict:
    """The create body of a match file's JSON: all but its stages, labels and source (a stderr line says
    how many stages are not sent), with ``--match-id`` overriding its id. Raises InputError unless
    ``data`` is an object."""
    if not isinstance(data, dict):
        raise InputError(f"{header_file}: the top level must be a JSON object describing one match", "see `adjudicate schema`")
    if data.get("stages"):
        echo_err(f"{header_file}: {len(data['stages'])} stage(s) in the file are not sent; push them with `adjudicate live push`")
    body = {k: v for k, v in data.items() if k not in ("stages", "labels", "source")}
    first = next((s.get("sides") for s in data.get("stages") or [] if isinstance(s, dict)), None)
    if isinstance(body.get("debaters"), list) and isinstance(first, list) and first:
        # the side that speaks first comes first, so the server's next-slot guess starts with it
        body["debaters"] = sorted(body["debaters"], key=lambda d: not (isinstance(d, dict) and d.get("side") == first[0]))
    if match_id:
        body["match_id"] = match_id
    return body


@live_group.command("push")
@click.argument("match_id")
@click.argument("stage_file", type=click.Path(path_type=Path), required=False)
@click.option("--stage-id", help="STAGE_FILE is a whole match file: push its stage with this id; with --audio, the new stage's id (default: the next one)")
@click.option("--no-wait", is_flag=True, help="return once the stage is stored (202); the analysis follows")
@click.option("--audio", type=click.Path(path_type=Path), help="push the stage transcribed from this recording (WAV, MP3, M4A, OGG) on this machine instead of STAGE_FILE (docs/speech.md)")
@speech_options
@client_options
def push_cmd(match_id: str, stage_file: Path | None, stage_id: str | None, no_wait: bool, audio: Path | None, url, token, state_dir, **speech) -> None:
    """Push one finished stage (STAGE_FILE: one stage as JSON, '-' for stdin; or --audio REC)."""
    if (stage_file is None) == (audio is None):
        raise InputError("give STAGE_FILE or --audio RECORDING (one of them)", "see `adjudicate live push --help`")
    with _client(url, token, state_dir) as c:
        if audio is not None:
            from adjudicator.cli.transcribe import live_stage_from_audio

            data: object = live_stage_from_audio(c, match_id, audio, stage_id, speech)
        else:
            data = _stage_to_push(read_json_file(stage_file), stage_file, stage_id) if stage_file is not None else None
        r = c.push(match_id, data, wait=not no_wait)
    _json_out(r)
    echo_err(_push_line(match_id, r))
    if r["status"] == "failed":
        raise AdjudicationFailed(
            f"match {match_id!r}: the analysis of stage {r['stage_id']} failed; it is stored and shown as failed",
            f"it is retried on the next push, or now with `adjudicate live retry {match_id} {r['stage_id']}`",
        )


@live_group.command("retry")
@click.argument("match_id")
@click.argument("stage_id", required=False)
@client_options
def retry_cmd(match_id: str, stage_id: str | None, url, token, state_dir) -> None:
    """Analyse STAGE_ID of MATCH_ID again after its analysis failed (every failed stage without
    STAGE_ID); print the board snapshot. Exit 1 when it fails again."""
    with _client(url, token, state_dir) as c:
        snap = c.retry(match_id, stage_id)
    _json_out(snap)
    failed = snap.get("failed") or []
    echo_err(f"{match_id}: {snap['analysed'] - len(failed)}/{snap['received']} analysed" + (f"; failed: {', '.join(failed)}" if failed else "; no failed stage"))


def _stage_to_push(data: object, stage_file: Path, stage_id: str | None) -> object:
    """The push body: ``data`` itself, or, when STAGE_FILE is a whole match file, its stage
    ``--stage-id``. Raises InputError when a match file comes without --stage-id or lacks that stage."""
    if isinstance(data, dict) and "stages" in data and "utterances" not in data:
        if not stage_id:
            raise InputError(f"{stage_file}: is a whole match file", "pick its stage with --stage-id")
        found = [s for s in data.get("stages") or [] if isinstance(s, dict) and s.get("stage_id") == stage_id]
        if not found:
            raise InputError(f"--stage-id: {stage_file} has no stage {stage_id!r}")
        return found[0]
    return data


def _push_line(match_id: str, r: dict) -> str:
    """The stderr line of a push: stage, status, progress, the stage's scores (once analysed) and the
    provisional tendency."""
    latest = r.get("latest") or {}
    scores = ", ".join(f"{s['side']} {s['suggested_score']}" for s in latest.get("scores", [])) if r["status"] == "analysed" else ""
    p = (r.get("tendency") or {}).get("p")
    return (
        f"{match_id}: {r['stage_id']} {'(already received) ' if r['duplicate'] else ''}{r['status']}; {r['analysed'] - len(r.get('failed') or [])}/{r['received']} analysed"
        + (f"; {scores}" if scores else "")
        + (f"; failed: {', '.join(r['failed'])}" if r.get("failed") else "")
        + (f"; provisional tendency {p:.2f}" if p is not None else "")
    )


@live_group.command("close")
@click.argument("match_id")
@click.option("--force", is_flag=True, help="close even though a speech seems missing (the sides have given different numbers of speeches)")
@client_options
def close_cmd(match_id: str, force: bool, url, token, state_dir) -> None:
    """Close MATCH_ID: run the panel, store the verdict and report, print the verdict JSON. A match
    whose speeches look incomplete is refused (exit 2) unless --force."""
    with _client(url, token, state_dir) as c:
        v = c.close_match(match_id, force=force)
    _json_out(v)
    echo_err(f"{match_id}: winner {v.get('winner')} (p={v.get('p')}); report at /api/matches/{match_id}/report")
    note = (v.get("provenance") or {}).get("offline_note")
    if note:  # no model judged: say what the offline judge is, as `adjudicate` does (verdict/offline_note.py)
        echo_err(note)


@live_group.command("status")
@click.argument("match_id")
@client_options
def status_cmd(match_id: str, url, token, state_dir) -> None:
    """Print MATCH_ID's board snapshot as JSON."""
    with _client(url, token, state_dir) as c:
        _json_out(c.snapshot(match_id))


@live_group.command("replay")
@click.argument("match_file", type=click.Path(path_type=Path))
@click.option("--speed", type=FiniteFloat(), default=1.0, show_default=True, help="N times real speed; 0 = no waiting")
@click.option("--match-id", help="live match id (default: the file's match_id)")
@click.option("--no-close", is_flag=True, help="leave the match open after the last stage")
@client_options
def replay_cmd(match_file: Path, speed: float, match_id: str | None, no_close: bool, url, token, state_dir) -> None:
    """Feed a finished match in at N times real speed (stage durations from text length), then close
    it and print the verdict JSON."""
    from adjudicator.input.match_file import load_match
    from adjudicator.live.client.replay import replay

    match = load_match(match_file)
    with _client(url, token, state_dir) as c:
        verdict = replay(c, match, speed, match_id=match_id, close=not no_close, progress=echo_err)
    if verdict is not None:
        _json_out(verdict)


# ---------------------------------------------------------------------------------------------
# Files in, JSON out


def _json_out(data) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))
