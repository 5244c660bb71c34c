"""A throwaway PostgreSQL cluster for the tests and benchmarks: ``initdb`` and ``pg_ctl`` in a temporary
folder, run as a non-root user (PostgreSQL refuses to run as root), listening on 127.0.0.1 on a free port
and on a Unix socket inside the folder, stopped and deleted afterwards.

Used by the ``pg_cluster`` / ``pg_url`` fixtures (tests/conftest.py), by ``.ci/run`` (``python
tests/pg_cluster.py start DIR`` prints the URL; ``stop DIR``) and by ``benchmarks/live_scale.py``.
A cluster that ``.ci/run`` started is reused through ``ADJUDICATOR_TEST_POSTGRES`` (its URL).

The binaries are looked up on PATH, then in /usr/local/bin, then in Debian's
/usr/lib/postgresql/<version>/bin; :func:`find_bin_dir` returns None where there are none.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

URL_ENV = "ADJUDICATOR_TEST_POSTGRES"


def find_bin_dir() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``, or None."""
    on_path = shutil.which("initdb")
    candidates = [Path(on_path).parent] if on_path else []
    candidates.append(Path("/usr/local/bin"))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for d in candidates:
        if all((d / b).exists() for b in ("initdb", "pg_ctl", "postgres")):
            return d
    return None


def _run_as() -> str | None:
    """The user to run the cluster as: None when not root, else ``postgres`` if it exists, else ``nobody``."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root and neither a 'postgres' nor a 'nobody' user exists to run PostgreSQL")


#: Where a throwaway (non-durable) cluster goes when no folder is given: tmpfs, when the machine has one.
#: On the disk (ext4 mounted with ``discard`` here) deleting the cluster at the end of a test session took
#: 16-71 s (each test's database is a ~7.5 MB copy of template1, so a session leaves about 1 GB of files),
#: and each ``CREATE DATABASE`` took about twice as long; on tmpfs the files are memory, freed at once.
#: A durable cluster (benchmarks) stays on the disk, where fsync means something.
TMPFS = Path("/dev/shm")


def default_root(durable: bool) -> Path:
    """A fresh temporary folder for a cluster: under :data:`TMPFS` when it is a writable folder and
    the cluster is not durable, else under the system's temporary folder."""
    on_tmpfs = not durable and TMPFS.is_dir() and os.access(TMPFS, os.W_OK | os.X_OK)
    return Path(tempfile.mkdtemp(prefix="adj-pg-", dir=str(TMPFS) if on_tmpfs else None))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgCluster:
    """One cluster in ``root`` (a fresh temporary folder when None: :func:`default_root`, on tmpfs for a
    non-durable one). ``durable=False`` turns fsync off (tests: only the server processes are killed,
    never PostgreSQL)."""

    def __init__(self, root: Path | None = None, *, durable: bool = False, max_connections: int = 200) -> None:
        self.bin = find_bin_dir()
        if self.bin is None:
            raise FileNotFoundError("PostgreSQL binaries (initdb, pg_ctl, postgres) not found")
        self.root = Path(root) if root is not None else default_root(durable)
        self.data = self.root / "data"
        self.sock = self.root / "sock"
        self.port = _free_port()
        self.durable = durable
        self.max_connections = max_connections
        self.user = _run_as()

    @property
    def url(self) -> str:
        """The URL of the ``postgres`` database (superuser ``postgres``, trust auth on loopback)."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _cmd(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), check=check, capture_output=True, text=True, user=self.user, cwd=str(self.root))

    def start(self) -> PgCluster:
        """initdb and start; returns self once the server accepts connections. Raises RuntimeError."""
        self.sock.mkdir(parents=True, exist_ok=True)
        if self.user is not None:
            for p in (self.root, self.sock):
                shutil.chown(p, self.user)
        opts = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.sock} -c max_connections={self.max_connections}"
        if not self.durable:
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        try:
            self._cmd(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
            self._cmd(str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", opts, "-w", "-t", "60", "start")
        except subprocess.CalledProcessError as exc:
            raise RuntimeError(f"PostgreSQL did not start: {exc.stderr.strip() or exc.stdout.strip()}") from None
        self._wait_ready()
        return self

    def _wait_ready(self, timeout_s: float = 30.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("PostgreSQL did not accept connections in time") from None
                time.sleep(0.1)

    def stop(self, remove: bool = True) -> None:
        """Stop the server (fast shutdown) and delete the folder."""
        if self.data.exists():
            self._cmd(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)
        if remove:
            shutil.rmtree(self.root, ignore_errors=True)


def stop_dir(root: Path) -> None:
    """Stop a cluster started by ``start DIR`` (its data folder is ``DIR/data``) and delete ``DIR``."""
    bin_dir = find_bin_dir()
    if bin_dir is not None and (root / "data").exists():
        subprocess.run([str(bin_dir / "pg_ctl"), "-D", str(root / "data"), "-m", "fast", "-w", "stop"], capture_output=True, user=_run_as(), cwd=str(root))
    shutil.rmtree(root, ignore_errors=True)


def new_database(admin_url: str, name: str) -> str:
    """Create database ``name`` on the cluster of ``admin_url``; returns its URL."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


if __name__ == "__main__":  # .ci/run: start DIR -> prints the URL; stop DIR
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit("usage: pg_cluster.py start|stop DIR")
    where = Path(sys.argv[2])
    if sys.argv[1] == "start":
        where.mkdir(parents=True, exist_ok=True)
        print(PgCluster(where).start().url)
    else:
        stop_dir(where)
