"""Newest-versions check: does the suite still pass on the newest releases pyproject.toml's ranges allow?

    .venv/bin/python benchmarks/newest_versions.py [--keep DIR] [--extras test,docs] [PYTEST_ARGS ...]

The lock (``requirements/lock-py311.txt``) keeps every install on versions the suite passed with;
this check looks ahead, so that drift is found before a lock refresh (or a user who installs without
the lock) finds it. It makes a throwaway virtual environment, installs the checkout with
``pip install -e ".[test,docs]"`` ignoring the lock (pip then picks the newest release each range
allows), runs ``python -m pytest`` with PYTEST_ARGS (default: the whole suite; give test files or
``-k``/``-m`` to run a subset), prints every installed version beside the locked one (``*`` marks a
difference) and the pytest summary, and exits with pytest's exit code (pip's when the install fails).

The pip configuration of the machine (indexes, constraints) applies, as it would to a user's
install. The suite takes 7-15 minutes on the shared 2-core machine and the install 3-5 more.
``--keep DIR`` builds the environment in DIR and leaves it there (to rerun one test by hand).
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


def installed_versions(python: Path) -> dict[str, str]:
    """``{canonical name: version}`` of every distribution installed for ``python`` (pip's own list)."""
    out = subprocess.run([str(python), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True, check=True).stdout
    return {canonical(d["name"]): d["version"] for d in json.loads(out)}


def version_table(newest: dict[str, str], locked: dict[str, str]) -> str:
    """One row per package installed or locked: name, locked version, newest installed, ``*`` when they differ."""
    names = sorted((set(newest) | set(locked)) - {"adjudicator"})
    width = max(len(n) for n in names)
    rows = [f"{'package':<{width}}  {'locked':<14} {'newest':<14}", "-" * (width + 32)]
    for n in names:
        lock, new = locked.get(n, "-"), newest.get(n, "-")
        rows.append(f"{n:<{width}}  {lock:<14} {new:<14} {'*' if lock != new else ''}".rstrip())
    changed = sum(1 for n in names if locked.get(n, "-") != newest.get(n, "-"))
    rows.append(f"{changed} of {len(names)} packages differ from the lock")
    return "\n".join(rows)


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, **kw)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", type=Path, help="build the environment in this folder and keep it (default: a temporary folder, deleted)")
    ap.add_argument("--extras", default="test,docs", help="extras to install beside the library (comma-separated; default: test,docs, as the lock)")
    args, pytest_args = ap.parse_known_args(argv)
    home = args.keep or Path(tempfile.mkdtemp(prefix="adjudicator-newest-"))
    venv = home / "venv" if args.keep is None else home
    try:
        t0 = time.monotonic()
        if run([sys.executable, "-m", "venv", "--clear", str(venv)]).returncode:
            return 2
        python = venv / "bin" / "python"
        pip = [str(python), "-m", "pip", "install", "-q"]
        for cmd in ([*pip, "--upgrade", "pip"], [*pip, "-e", f".[{args.extras}]"]):
            if code := run(cmd, cwd=REPO).returncode:
                print("newest-versions check: the install failed (see pip's message above)", file=sys.stderr)
                return code
        install_s = time.monotonic() - t0
        print(version_table(installed_versions(python), locked_versions()))
        t1 = time.monotonic()
        tests = run([str(python), "-m", "pytest", "-q", *pytest_args], cwd=REPO, capture_output=True, text=True)
        lines = tests.stdout.rstrip().splitlines()
        failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
        print(f"\ninstall {install_s:.0f} s, tests {time.monotonic() - t1:.0f} s; pytest exit code {tests.returncode}")
        print("\n".join(failed + lines[-1:]))
        if tests.returncode:
            (home / "pytest.log").write_text(tests.stdout + tests.stderr, encoding="utf-8")
            print(f"full pytest output: {home / 'pytest.log'}" + ("" if args.keep else " (kept: the environment is deleted, the log is not)"))
        return tests.returncode
    finally:
        if args.keep is None:
            shutil.rmtree(venv, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
