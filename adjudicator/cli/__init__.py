"""The ``adjudicate`` command line.

``adjudicate MATCH.json`` (the default command, ``run``) prints the verdict JSON on stdout. Other
commands: ``schema``, ``convert`` (:mod:`adjudicator.cli.run`), ``bench``, ``splits``, ``compare``
(:mod:`adjudicator.cli.bench`), the ``finetune`` group (:mod:`adjudicator.cli.finetune`), ``probe`` (:mod:`adjudicator.cli.probe`) and the ``live`` group (:mod:`adjudicator.cli.live`, with the organiser's
tournament commands in :mod:`adjudicator.cli.tournament`).

Exit codes: 0 ok, 1 adjudication failed, 2 bad usage or bad input, 130 interrupted. stdout carries
the result only; progress, summaries and errors go to stderr, errors as one line with no traceback.

Start-up: building the command tree imports click and nothing heavy (no pydantic, settings or
graph); each command imports what it uses when it runs, so ``adjudicate --help`` and a usage error
answer at once (tests/test_startup.py).

Exit: the process does not tear its modules down (:func:`exit_process`): once a command has returned,
its atexit handlers run and its streams are flushed, then it ends with ``os._exit``. Python's own
teardown would free every module object one by one, about 1 s of CPU after a run that imported litellm
(benchmarks/startup.py); nothing of ours depends on it (files are closed and written by then).

Garbage collector: the process's first generation is collected every :data:`GC_THRESHOLDS` ``[0]``
allocations instead of Python's 700 (:func:`tune_collector`), because importing litellm and LangGraph
creates about 600,000 long-lived objects and, at the default, CPython 3.11 re-walks the growing set
of survivors again and again while they load: about a quarter of litellm's import. Only for a process
the command line owns (``main()`` as its entry point); ``main(argv)`` called from Python changes nothing.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import click

from adjudicator import __version__
from adjudicator.cli import bench, finetune, live, probe, run, tabbycat, tokens, tournament, transcribe, viewer  # noqa: F401 (tournament, tabbycat and tokens add their commands to the live group)
from adjudicator.cli.options import echo_err
from adjudicator.errors import AdjudicatorError, Terminated

PROG = "adjudicate"
#: gc.set_threshold for a command-line process (Python's default: 700, 10, 10). Measured (CPU s,
#: best of 4, 2 shared cores): litellm's import 3.27 -> 2.65; the offline main job within noise.
GC_THRESHOLDS = (50_000, 10, 10)


class DefaultGroup(click.Group):
    """A group that runs ``run`` when the first argument is not a command name, so that
    ``adjudicate match.json`` works alongside ``adjudicate schema``."""

    default_command = "run"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=PROG)
def main_group() -> None:
    """Adjudicate competitive debates like a three-judge panel.

    \b
    adjudicate MATCH.json            verdict JSON on stdout (default model: the offline judge)
    adjudicate schema                JSON Schema of the match and verdict formats
    adjudicate convert panelbench DIR --out OUTDIR
    adjudicate probe DATASET         bias card: name masking, side swap, speaker order, length, pressure, repeats
    adjudicate transcribe AUDIO --stage-id ID [--match M.json]   a stage's recording -> the stage (speech to text)
    """


for _command in (run.run_cmd, run.schema_cmd, run.convert_group, bench.bench_cmd, bench.splits_cmd, bench.compare_cmd, viewer.annotate_cmd, viewer.index_cmd, viewer.export_group, finetune.finetune_group, probe.probe_cmd, transcribe.transcribe_cmd, live.live_group):
    main_group.add_command(_command)


@contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise :class:`~adjudicator.errors.Terminated` (a
    KeyboardInterrupt) in the main thread, so a stopped process unwinds like Ctrl-C and records what is
    true (a benchmark's status.json says ``interrupted``) instead of dying silently. The previous
    handlers are restored afterwards. Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum: int, _frame: object) -> None:
        raise Terminated(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, raise_terminated) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv: list[str] | None = None) -> int:
    """Entry point. Returns (and exits with) the exit code; errors are one line on stderr."""
    args = list(sys.argv[1:] if argv is None else argv)
    if argv is None:
        tune_collector()
    if not args:
        echo_err(f"{PROG}: error: give a match file or a command, e.g. `{PROG} match.json` (see `{PROG} --help`)")
        if argv is None:
            sys.exit(2)
        return 2
    try:
        with stop_signals_interrupt():
            main_group.main(args=args, prog_name=PROG, standalone_mode=False)
        code = 0
    except AdjudicatorError as exc:
        echo_err(f"{PROG}: error: {exc.one_line()}")
        code = exc.exit_code
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.Abort as exc:  # click turns KeyboardInterrupt (and so Terminated) into Abort
        cause = exc.__cause__
        echo_err(f"{PROG}: stopped by {cause.signal_name}" if isinstance(cause, Terminated) else f"{PROG}: interrupted")
        code = 130
    except Terminated as exc:
        echo_err(f"{PROG}: stopped by {exc.signal_name}")
        code = 130
    except KeyboardInterrupt:
        echo_err(f"{PROG}: interrupted")
        code = 130
    except click.ClickException as exc:
        echo_err(f"{PROG}: error: {' '.join(exc.format_message().split())} (see `{PROG} --help`)")
        code = 2
    except Exception as exc:  # an internal error: still one line, traceback on request
        from adjudicator.environment import debug_tracebacks

        if debug_tracebacks():
            raise
        echo_err(f"{PROG}: internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]} (set ADJUDICATOR_DEBUG=1 for the traceback)")
        code = 1
    if argv is None:
        exit_process(code)
    return code


def tune_collector() -> None:
    """Collect the first generation every ``GC_THRESHOLDS[0]`` allocations (see the module's docstring).
    What it gives up: cyclic garbage lives up to that many allocations longer (a few MB at most)."""
    import gc

    gc.set_threshold(*GC_THRESHOLDS)


def exit_process(code: int) -> None:
    """End this process with ``code`` as CPython's own exit does, minus the teardown of its modules:
    wait for the other non-daemon threads (``threading._shutdown``, which also runs the hooks of
    ``threading._register_atexit``: concurrent.futures joins its idle workers, litellm's logging pool
    among them), run the atexit handlers (logging's flush, multiprocessing's and tempfile's clean-up),
    flush stdout and stderr, then ``os._exit``. A failed flush of stdout ends with 120, as Python's exit
    does. Where the interpreter lacks either private function it exits the ordinary way. What this
    gives up: a file object its owner left open with an unwritten buffer (the teardown would flush it
    while freeing it); every file of ours is written by :mod:`adjudicator.files` and closed at once."""
    import atexit

    wait_for_threads = getattr(threading, "_shutdown", None)  # CPython's: what Py_FinalizeEx calls first
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)  # and then
    if wait_for_threads is None or run_exitfuncs is None or threading.current_thread() is not threading.main_thread():
        sys.exit(code)
    wait_for_threads()
    run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout and code == 0:
                code = 120
    os._exit(code)


if __name__ == "__main__":
    main()
