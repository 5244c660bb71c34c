"""One exception hierarchy for the whole package, with the CLI exit code each maps to.

Exit codes (the design card, Conventions): 0 ok, 1 adjudication failed, 2 bad usage or bad input,
130 interrupted.
"""

from __future__ import annotations


class AdjudicatorError(Exception):
    """Base class. ``exit_code`` is what the CLI exits with; ``hint`` says what to do."""

    exit_code = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The single line the CLI prints: ``<message>[; <hint>]`` with no newline inside."""
        text = self.message if not self.hint else f"{self.message}; {self.hint}"
        return " ".join(text.split())


class InputError(AdjudicatorError):
    """Bad input file or bad usage (exit code 2). Raised before any model call is spent."""

    exit_code = 2


class ConfigError(InputError):
    """Bad configuration: unknown model option, missing config file, bad environment value."""


class AdjudicationFailed(AdjudicatorError):
    """The adjudication could not produce a verdict, e.g. fewer than two deciding ballots (exit code 1).

    ``verdict`` optionally carries the partial result (no winner, no p) with every failure and its raw
    outputs, the ballots and clash map that did succeed, and the provenance, so that finished work
    and the evidence of what failed are not lost.
    """

    exit_code = 1

    def __init__(self, message: str, hint: str | None = None, verdict: object | None = None) -> None:
        super().__init__(message, hint)
        self.verdict = verdict


class Terminated(KeyboardInterrupt):
    """The process was asked to stop (SIGTERM or SIGHUP): handled like Ctrl-C -- a benchmark records
    its session as ``interrupted`` (reason ``terminated``) and the CLI exits with code 130.
    ``signal_name`` names the signal."""

    def __init__(self, signal_name: str) -> None:
        super().__init__(signal_name)
        self.signal_name = signal_name


class ModelCallError(AdjudicatorError):
    """A model call failed after the model boundary's bounded transport retries."""

    exit_code = 1


class BudgetExceeded(AdjudicatorError):
    """A benchmark run reached ``--budget-usd``; finished work is kept and the run can resume."""

    exit_code = 1
