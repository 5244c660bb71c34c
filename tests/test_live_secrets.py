"""Secrets in transit and at rest (issue 27, item 4): ``live serve --tls-cert/--tls-key`` serves HTTPS and
the client commands trust its certificate; the access log never shows a token; no token or store
password is taken from, or shows in, a command line; the store URL's password is never printed.

The certificate is a throwaway self-signed one for 127.0.0.1, made with ``cryptography`` (in the lock).
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import ssl
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, token_file, wait_until
from processes import stop

from adjudicator.cli import main
from adjudicator.live.server.app import create_app
from adjudicator.live.server.serving import LiveServer, redact_query
from adjudicator.workflow.context import AdjudicationContext

HERE = Path(__file__).parent


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost and its key, PEM files in ``folder``."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    key_path.chmod(0o600)
    return cert_path, key_path


def test_the_server_speaks_https_with_a_certificate_and_plain_http_gets_nothing(tmp_path):
    cert, key = self_signed(tmp_path)
    app = create_app(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), TOKEN, store="sqlite")
    server = LiveServer(app, tls=(str(cert), str(key))).start()
    try:
        assert server.url.startswith("https://127.0.0.1:")
        with httpx.Client(base_url=server.url, timeout=10, trust_env=False, verify=ssl.create_default_context(cafile=str(cert))) as https:
            assert https.get("/api/health").json()["ok"] is True
            assert https.post("/api/tournaments", json={"tournament_id": "cup"}, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 201
        with httpx.Client(base_url=server.url.replace("https://", "http://"), timeout=10, trust_env=False) as plain, pytest.raises(httpx.TransportError):
            plain.get("/api/health")  # a relay on the way reads nothing: plain HTTP gets no answer
    finally:
        server.stop()


def test_tls_options_are_checked_in_one_line(tmp_path, capsys):
    cert, key = self_signed(tmp_path)
    state = str(tmp_path / "state")
    assert main(["live", "serve", "--port", "0", "--state-dir", state, "--tls-cert", str(cert)]) == 2
    assert capsys.readouterr().err.strip() == "adjudicate: error: --tls-key: HTTPS needs both --tls-cert and --tls-key; give the certificate and its private key (PEM files)"
    assert main(["live", "serve", "--port", "0", "--state-dir", state, "--tls-cert", str(key), "--tls-key", str(cert)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"adjudicate: error: --tls-cert {key} / --tls-key {cert}: cannot be loaded") and err.count("\n") == 1


def _serve(state: Path, log: Path, *args: str) -> subprocess.Popen:
    """``live serve`` in a process of its own, its stderr (the access log) into ``log``."""
    with log.open("w", encoding="utf-8") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(state), "--context-factory", "live_fakes:logging_context", *args],
            env={**os.environ, "PYTHONPATH": str(HERE)}, stdout=subprocess.PIPE, stderr=err, text=True,
        )


def test_serve_over_https_from_a_token_file_keeps_the_token_out_of_argv_and_the_access_log(tmp_path, capsys, monkeypatch):
    cert, key = self_signed(tmp_path)
    state = tmp_path / "state"
    secret = "organiser-token-kept-out-of-ps-0123456789"
    proc = _serve(state, tmp_path / "serve.log", "--token-file", token_file(secret), "--tls-cert", str(cert), "--tls-key", str(key), "--log-level", "info")
    try:
        lines = [proc.stdout.readline() for _ in range(4)]
        access = json.loads((state / "access.json").read_text())
        assert access["token"] == secret and access["url"].startswith("https://127.0.0.1:") and access["tls_cert"] == str(cert.resolve())
        assert lines[0].strip() == f"organiser: {access['url']}/organiser?token={secret}"  # the organiser's link, on stdout once
        cmdline = Path(f"/proc/{proc.pid}/cmdline").read_bytes().decode()
        assert secret not in cmdline  # what `ps` shows
        with httpx.Client(base_url=access["url"], timeout=10, trust_env=False, verify=ssl.create_default_context(cafile=str(cert))) as https:
            wait_until(lambda: https.get("/api/health").status_code == 200)
            assert https.get(f"/organiser?token={secret}").status_code == 200
            assert https.get(f"/board/cup.r1.a?token={secret}&lang=zh").status_code == 200
        # a client command finds the server and trusts its certificate through the access file
        monkeypatch.delenv("ADJUDICATOR_LIVE_URL", raising=False)
        monkeypatch.delenv("ADJUDICATOR_LIVE_TOKEN", raising=False)
        assert main(["live", "tournament", "create", "cup", "--state-dir", str(state)]) == 0
        assert json.loads(capsys.readouterr().out)["tournament"]["tournament_id"] == "cup"
    finally:
        stop(proc)
    log = (tmp_path / "serve.log").read_text(encoding="utf-8")
    assert "GET /organiser?token=*** HTTP/1.1" in log and "GET /board/cup.r1.a?token=***&lang=*** HTTP/1.1" in log  # before: the token itself
    assert secret not in log


def test_a_token_on_the_command_line_is_refused_by_every_client_command(capsys):
    for args in (["status", "m1"], ["push", "m1", "stage.json"], ["confirm", "t", "r", "a"], ["tabbycat", "push", "t", "r"]):
        assert main(["live", *args, "--url", "http://127.0.0.1:9", "--token", "abc"]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("adjudicate: error: --token: a token on the command line shows in the process list (ps)") and err.count("\n") == 1, err
        assert "--token-file FILE" in err and "$ADJUDICATOR_LIVE_TOKEN" in err


def test_redact_query_keeps_the_path_and_the_names():
    assert redact_query("/board/x?token=abc&wait=false") == "/board/x?token=***&wait=***"
    assert redact_query("/api/matches?offset=0") == "/api/matches?offset=***"
    assert redact_query("/x?") == "/x?"
