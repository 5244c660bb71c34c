#!/usr/bin/env bash
# Refresh the pinned lock: every dependency, direct and transitive, of the library and the extras in
# EXTRAS, with the SHA-256 of every file PyPI holds for each pinned version, resolved from
# pyproject.toml's ranges by `uv pip compile` for Python 3.11 and any platform (markers choose the
# platform-only packages). The result is a plain requirements file that pip installs with
# --require-hashes; nobody but whoever refreshes needs uv (requirements/README.md says why).
#
#   requirements/lock.sh                          add what pyproject.toml gained, keep every other pin
#   requirements/lock.sh --upgrade                move every pin to the newest release the ranges allow
#   requirements/lock.sh --upgrade-package numpy  move one package (and what it needs)
#   EXTRAS=test,docs,audio,inspect requirements/lock.sh the extras the development lock covers (the default)
#   EXTRAS=audio OUT=requirements/lock-py311-audio.txt requirements/lock.sh   another purpose, another lock
#
# Arguments go to `uv pip compile`. Run benchmarks/newest_versions.py before an --upgrade to see what
# the newest versions break, then the whole suite on a fresh environment from the new lock before
# landing it. uv runs from a throwaway virtual environment; PyPI is the only index (uv reads no pip
# configuration, so this machine's local indexes stay out and the hashes are PyPI's).
set -euo pipefail
cd "$(dirname "$0")/.."
extras=${EXTRAS:-test,docs,audio,inspect}
out=${OUT:-requirements/lock-py311.txt}

tools=$(mktemp -d /tmp/adjudicator-lock.XXXXXX)
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools"
"$tools/bin/pip" install -q "uv==0.13.9"

extra_args=()
for e in ${extras//,/ }; do extra_args+=(--extra "$e"); done
# requirements/build.in pins setuptools and wheel too, so that the editable install
# (--no-build-isolation) builds with pinned, hashed tools. The header records this command.
UV_CUSTOM_COMPILE_COMMAND="EXTRAS=$extras requirements/lock.sh" \
  "$tools/bin/uv" pip compile --quiet --universal --python-version 3.11 --generate-hashes \
  "${extra_args[@]}" --output-file "$out" "$@" pyproject.toml requirements/build.in
echo "wrote $out ($(grep -cE '^[A-Za-z0-9].*==' "$out") pins)"
# The installer set-up puts into the fresh venv before the lock (requirements/pip.in says why).
UV_CUSTOM_COMPILE_COMMAND="requirements/lock.sh" \
  "$tools/bin/uv" pip compile --quiet --python-version 3.11 --generate-hashes --output-file requirements/pip.txt requirements/pip.in
echo "wrote requirements/pip.txt ($(grep -E '^pip==' requirements/pip.txt))"
