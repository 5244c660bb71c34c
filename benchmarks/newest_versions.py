"""Newest-versions check: does the suite still pass on the newest releases pyproject.toml's ranges allow?

    .venv/bin/python benchmarks/newest_versions.py [--lowest] [--keep DIR] [--extras test,docs,audio] [--quick] [PYTEST_ARGS ...]

The lock (``requirements/lock-py311.txt``) keeps every install on versions the suite passed with;
this check looks ahead, so that drift is found before a lock refresh (or a user who installs without
the lock) finds it. It clones the checkout's committed HEAD (so that editing the working tree while
it runs changes nothing; uncommitted changes are not tested) into a throwaway folder, makes a virtual
environment there, installs ``pip install -e ".[EXTRAS]"`` ignoring the lock (pip then picks the
newest release each range allows; EXTRAS by default the ones the lock covers, read from its header:
``test,docs,audio``), runs ``python -m pytest`` with PYTEST_ARGS (default: the whole
suite; give test files or ``-k``/``-m`` to run a subset), prints every installed version beside the
locked one (``*`` marks a difference) and pytest's summary, and exits with pytest's exit code (pip's
when the install fails).

``--lowest`` checks the other end: every direct dependency at the lowest version its range allows
(``uv pip compile --resolution lowest-direct``; uv is installed into the throwaway environment), so
that a lower bound in pyproject.toml is one the suite passed with.

The pip configuration of the machine (indexes, constraints) applies, as it would to a user's
install. The suite takes 10-35 minutes on the shared 2-core machine (timing-sensitive tests may fail
under heavy load: rerun those alone before blaming a version) and the install 3-10 more.
``--keep DIR`` builds in DIR and leaves it there (to rerun one test by hand).

``--quick`` (CI, so the script cannot rot; the package index is not reached): no clone, install or
pytest; the table compares the versions installed for this interpreter with the lock.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements" / "lock-py311.txt"


def canonical(name: str) -> str:
    """A distribution name as PEP 503 normalises it (``Jinja2`` and ``jinja2`` are one package)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_versions(path: Path = LOCK) -> dict[str, str]:
    """``{canonical name: version}`` of every ``name==version ; marker`` pin of a hashed requirements
    lock whose environment marker holds for this interpreter (a universal lock pins numpy once for
    Python 3.11 and once for 3.12 and later)."""
    from packaging.markers import Marker

    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$", line)
        if m and (m.group(3) is None or Marker(m.group(3)).evaluate()):
            pins[canonical(m.group(1))] = m.group(2)
    return pins


def lock_extras(path: Path = LOCK) -> str:
    """The extras the lock covers (``"test,docs,audio"``), read from the command its header records
    (``#    EXTRAS=test,docs,audio requirements/lock.sh``); ``"test,docs,audio"``, lock.sh's default, when
    the header names none."""
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    m = re.search(r"^#\s+EXTRAS=(\S+)\s+requirements/lock\.sh", text, re.M)
    return m.group(1) if m else "test,docs,audio"


def installed_versions(python: Path) -> dict[str, str]:
    """``{canonical name: version}`` of every distribution installed for ``python`` (pip's own list)."""
    out = subprocess.run([str(python), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True, check=True).stdout
    return {canonical(d["name"]): d["version"] for d in json.loads(out)}


def version_table(newest: dict[str, str], locked: dict[str, str], label: str = "newest") -> str:
    """One row per package installed or locked: name, locked version, installed version (headed
    ``label``), ``*`` when they differ."""
    names = sorted((set(newest) | set(locked)) - {"adjudicator"})
    width = max(len(n) for n in names)
    rows = [f"{'package':<{width}}  {'locked':<14} {label:<14}", "-" * (width + 32)]
    for n in names:
        lock, new = locked.get(n, "-"), newest.get(n, "-")
        rows.append(f"{n:<{width}}  {lock:<14} {new:<14} {'*' if lock != new else ''}".rstrip())
    changed = sum(1 for n in names if locked.get(n, "-") != newest.get(n, "-"))
    rows.append(f"{changed} of {len(names)} packages differ from the lock")
    return "\n".join(rows)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, **kw)


def install(src: Path, python: Path, extras: str, lowest: bool) -> int:
    """Install the clone at ``src`` with ``extras`` into ``python``'s environment, at the newest
    versions the ranges allow or (``lowest``) with every direct dependency at its lower bound."""
    pip = [str(python), "-m", "pip", "install", "-q"]
    steps = [[*pip, "--upgrade", "pip"]]
    if lowest:
        uv = python.parent / "uv"
        lowest_txt = src.parent / "lowest.txt"
        extra_args = [a for e in extras.split(",") if e for a in ("--extra", e)]
        steps += [[*pip, "uv==0.13.9"],
                  [str(uv), "pip", "compile", "-q", "--resolution", "lowest-direct", "--python-version", "3.11", *extra_args, "-o", str(lowest_txt), "pyproject.toml"],
                  [*pip, "-r", str(lowest_txt)], [*pip, "--no-deps", "-e", "."]]
    else:
        steps.append([*pip, "-e", f".[{extras}]"])
    for cmd in steps:
        if code := run(cmd, cwd=src).returncode:
            print("newest-versions check: the install failed (see the message above)", file=sys.stderr)
            return code
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lowest", action="store_true", help="direct dependencies at the lowest versions the ranges allow, instead of the newest")
    ap.add_argument("--keep", type=Path, help="build in this folder and keep it (default: a temporary folder, deleted)")
    ap.add_argument("--extras", default=lock_extras(), help="extras to install beside the library (comma-separated; default: the ones the lock covers, %(default)s)")
    ap.add_argument("--quick", action="store_true", help="only the table of this interpreter's versions against the lock (no index, no install)")
    args, pytest_args = ap.parse_known_args(argv)
    if args.quick:
        print(version_table(installed_versions(Path(sys.executable)), locked_versions(), "installed"))
        print("--quick: nothing cloned, installed or tested (the check itself needs the package index)")
        return 0
    home = args.keep or Path(tempfile.mkdtemp(prefix="adjudicator-versions-"))
    src, venv = home / "src", home / "venv"
    try:
        t0 = time.monotonic()
        shutil.rmtree(src, ignore_errors=True)
        if run(["git", "clone", "-q", str(REPO), str(src)]).returncode or run([sys.executable, "-m", "venv", "--clear", str(venv)]).returncode:
            return 2
        python = venv / "bin" / "python"
        if code := install(src, python, args.extras, args.lowest):
            return code
        install_s = time.monotonic() - t0
        print(version_table(installed_versions(python), locked_versions(), "lowest" if args.lowest else "newest"))
        t1 = time.monotonic()
        tests = run([str(python), "-m", "pytest", "-rfE", *pytest_args], cwd=src, capture_output=True, text=True)
        lines = tests.stdout.rstrip().splitlines()
        failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
        print(f"\ninstall {install_s:.0f} s, tests {time.monotonic() - t1:.0f} s; pytest exit code {tests.returncode}")
        print("\n".join(failed + lines[-1:]))
        if tests.returncode:
            log = Path(tempfile.gettempdir()) / f"adjudicator-versions-{'lowest' if args.lowest else 'newest'}-pytest.log"
            log.write_text(tests.stdout + tests.stderr, encoding="utf-8")
            print(f"full pytest output: {log}")
        return tests.returncode
    finally:
        if args.keep is None:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
