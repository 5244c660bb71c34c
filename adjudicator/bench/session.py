"""Open a benchmark session: a new run, or the resumption of the latest run of a name.

New run: create ``runs/<UTC>_<name>/``, load and validate the dataset (converting upstream
PanelBench into ``dataset/``), and write ``manifest.json`` before any model call. Resumed run
(``--resume`` or ``--retry-errors``): take the latest run of that name, check that the dataset hash,
the arms and the model configuration are unchanged, and keep the manifest's limit, seed and
bootstrap count unless given again (:func:`resumed_settings`: a different seed or a smaller limit is
refused, a larger limit is recorded in the manifest and sessions.jsonl). The model configuration is
the manifest's for every setting not given as a command-line option
(:func:`~adjudicator.bench.manifest.adopt_manifest_config`), so ``--resume`` alone continues on the
run's model and server; a model option given with a different value is refused.

A ``--fold K`` run selects fold K of the recommended splits (recorded in the manifest's ``fold`` and
kept on resume) and also runs its calibration part (``--calibrate-on``: training matches whose
answers fit the calibration of p, never scored; :func:`Session.run_samples`); a ``--rejudge RUN`` run takes RUN's dataset, fold and limit and a configuration
with RUN's tracker (:mod:`adjudicator.bench.rejudge`), and its resumption keeps that parent.

One process per run: the session holds an exclusive OS lock on the run folder (``lock``, see
:func:`lock_run`) from the moment it is opened until the run's reports are written; a second
process on the same run is refused at once (exit 2), so two ``--resume`` never run the same samples.
The kernel releases the lock when its holder dies, so a killed run never blocks its resumption.

Every refusal is an :class:`~adjudicator.errors.InputError` (exit 2) raised before any model call.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.bench.arms import ArmDescriptions, describe_arms
from adjudicator.bench.dataset import Dataset, Sample, is_upstream_panelbench, load_dataset
from adjudicator.bench.layout import DATASET, LOCK, check_run_name, iso, latest_run_dir, new_run_dir, utc_now
from adjudicator.bench.manifest import (
    Manifest,
    adopt_manifest_config,
    config_dict,
    first_difference,
    git_info,
    identity,
    package_versions,
    prompt_file_hashes,
    read_manifest,
    runtime_description,
    write_manifest,
)
from adjudicator.bench.rejudge import Parent, check_arms, open_parent, parent_dataset, parent_of, rejudge_config
from adjudicator.bench.splits import CALIBRATION_PARTS, calibration_samples, selected_samples
from adjudicator.bench.status import echo, record_dead_session, session_number
from adjudicator.errors import InputError
from adjudicator.files import FolderLock, lock_folder, remove_stale_temp_files

DEFAULT_ARMS = ("agentic",)
DEFAULT_SEED = 0
DEFAULT_BOOTSTRAP = 2000


@dataclass
class BenchOptions:
    """Everything ``adjudicate bench`` was asked to do.

    ``config`` is the resolved model configuration (:class:`adjudicator.config.ModelConfig`);
    ``arms`` None means the default (the agentic arm, or the resumed run's arms); ``limit`` the first
    N samples in file-name order; ``budget_usd`` the cap on the run's known spend in US dollars;
    ``max_errors`` stop after this many failed or partial samples in this invocation; ``seed`` seeds the random
    baselines and the bootstrap; ``n_bootstrap`` resamples per confidence interval;
    ``label_convention`` how upstream PanelBench labels are read (see :mod:`adjudicator.input.convert.debateart`);
    ``probes`` the bias probes to run after the samples (:mod:`adjudicator.probes`; empty: none), with
    ``probe_repeats`` runs at ``probe_temperature`` for the repeats probe. ``result_cache`` False
    runs every sample even when its stored result could be reused (``--no-result-cache``;
    :mod:`adjudicator.bench.result_cache`).

    ``limit``, ``seed`` and ``n_bootstrap`` None mean "not given": a new run then uses all samples,
    seed 0 and 2000 resamples, and a resumed run keeps its manifest's values (see :func:`resumed_settings`).

    ``fold`` (0-based) runs only that fold of ``splits_file`` (a folds JSON of ``adjudicate splits
    --out``; None: computed as ``adjudicate splits`` does), see :func:`~adjudicator.bench.splits.choose_fold`;
    ``calibrate_on`` which training matches a fold run also runs to fit a calibration of p
    (``train``, ``validation``, ``none``; None: ``validation`` with a ``finetune export``'s
    splits file, else ``train``; :data:`~adjudicator.bench.splits.CALIBRATION_PARTS`);
    ``rejudge`` a run folder or name whose tracker outputs a new run reuses
    (:mod:`adjudicator.bench.rejudge`; ``dataset`` is then the parent's).

    ``explicit_model_fields``: the configuration fields given as command-line options (e.g.
    ``{"model", "api_base"}``); a resumed run takes every other answer-shaping field from its
    manifest (:func:`~adjudicator.bench.manifest.adopt_manifest_config`). None means every field of
    ``config`` is explicit (nothing is adopted; a differing configuration is refused).
    """

    dataset: Path | None
    name: str
    config: Any
    runs_dir: Path = Path("runs")
    arms: list[str] | None = None
    concurrency: int = 1
    limit: int | None = None
    budget_usd: float | None = None
    max_errors: int | None = None
    resume: bool = False
    retry_errors: bool = False
    seed: int | None = None
    n_bootstrap: int | None = None
    progress: bool = True
    reports: bool = True
    label_convention: str | None = None
    command: list[str] = field(default_factory=list)
    explicit_model_fields: frozenset[str] | None = None
    fold: int | None = None
    calibrate_on: str | None = None
    splits_file: Path | None = None
    rejudge: str | Path | None = None
    probes: tuple[str, ...] = ()
    probe_repeats: int = 5
    probe_temperature: float = 0.7
    result_cache: bool = True


@dataclass(frozen=True)
class RunSettings:
    """The settings a session actually uses: ``limit`` (None = all samples), ``seed`` (baselines and
    bootstrap), ``n_bootstrap`` (resamples per interval) and ``changed``, field -> ``{"from", "to"}``
    for every value a resumed session changed (recorded in sessions.jsonl)."""

    limit: int | None
    seed: int
    n_bootstrap: int
    changed: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Session:
    """An opened session: the run folder, its manifest, the dataset, the arms, the session ``number``
    (1 = a new run), the :class:`RunSettings` and ``config``, the model configuration the session runs
    with (a resumed run's adopts its manifest's settings, see :class:`BenchOptions`), ``lock``, the
    run folder's lock this process holds (release it when the session is over), and ``parent``, the
    run a re-judge run reuses the tracker outputs of (None for an ordinary run)."""

    run_dir: Path
    manifest: Manifest
    dataset: Dataset
    arms: list[str]
    number: int
    settings: RunSettings
    config: Any
    lock: FolderLock
    parent: Parent | None = None

    def samples(self) -> list[Sample]:
        """The session's selection: the run's fold (all samples without one), then its limit."""
        return selected_samples(self.dataset.samples, self.manifest.fold, self.settings.limit)

    def run_samples(self) -> list[Sample]:
        """What the session runs: its selection, then a ``--fold`` run's calibration part (the
        limit applies to each), which is run but never scored."""
        return self.samples() + calibration_samples(self.dataset.samples, self.manifest.fold, self.settings.limit)


def lock_run(run_dir: Path) -> FolderLock:
    """Take the run folder's exclusive lock (``run_dir/lock``). Raises InputError (exit 2) naming the
    holder's pid when another process holds it."""
    got = lock_folder(run_dir / LOCK)
    if isinstance(got, FolderLock):
        return got
    who = f" (pid {got})" if got else ""
    raise InputError(
        f"run {run_dir.name} is in use by another adjudicate process{who}",
        "wait for it to finish or stop it, then resume; two processes on one run would run every pending sample twice",
    )


# ---------------------------------------------------------------------------------------------
# seeds and limits


def manifest_seed(manifest: Manifest) -> int:
    """The run's seed (baselines and bootstrap share it), 0 when the manifest has none."""
    return int(manifest.seeds.get("baselines", DEFAULT_SEED))


def check_seed(manifest: Manifest, seed: int | None, run_dir: Path) -> int:
    """The seed a resumed run (or a report rebuild) uses: the manifest's, when ``seed`` is None or
    equal to it. Raises InputError for a different seed: the reports would no longer match the
    manifest, and the run's baseline draws would change between sessions."""
    kept = manifest_seed(manifest)
    if seed is not None and seed != kept:
        raise InputError(
            f"--seed: run {run_dir.name} was started with seed {kept}; a resumed run keeps its seed (got --seed {seed})",
            f"drop --seed (or give --seed {kept}), or start a new run with another --name",
        )
    return kept


def resumed_settings(manifest: Manifest, opts: BenchOptions, n_samples: int, run_dir: Path) -> RunSettings:
    """The rule for a resumed run (``--resume`` / ``--retry-errors``): it keeps its manifest's limit,
    seed and bootstrap count unless the user passes them explicitly.

    - ``--seed``: a different value is refused (InputError, exit 2; see :func:`check_seed`).
    - ``--limit``: one that selects fewer samples than the run already has is refused; one that
      selects more grows the run (recorded in the manifest's ``amendments`` and ``changed``); one
      that selects the same samples changes nothing.
    - ``--bootstrap``: a different count is used for this session's reports and recorded in
      ``changed`` (it only changes the intervals' resolution, not a prediction or a draw).
    ``n_samples`` is the dataset's size."""
    seed = check_seed(manifest, opts.seed, run_dir)
    changed: dict[str, dict[str, Any]] = {}
    limit = manifest.limit
    if opts.limit is not None:
        before = n_samples if manifest.limit is None else min(manifest.limit, n_samples)
        after = min(opts.limit, n_samples)
        if after < before:
            was = f"--limit {manifest.limit}" if manifest.limit is not None else "no --limit (all samples)"
            raise InputError(
                f"--limit: run {run_dir.name} was started with {was}; a resumed run cannot shrink to --limit {opts.limit}",
                f"drop --limit to keep {before} samples, give a larger one to grow the run, or start a new run with another --name",
            )
        if after > before:
            limit = opts.limit
            changed["limit"] = {"from": manifest.limit, "to": opts.limit}
    kept_b = int(manifest.options.get("n_bootstrap", DEFAULT_BOOTSTRAP))
    n_bootstrap = kept_b if opts.n_bootstrap is None else opts.n_bootstrap
    if n_bootstrap != kept_b:
        changed["n_bootstrap"] = {"from": kept_b, "to": n_bootstrap}
    return RunSettings(limit, seed, n_bootstrap, changed)


# ---------------------------------------------------------------------------------------------
# opening


def check_options(opts: BenchOptions) -> None:
    """InputError for a bad run name, concurrency, limit, budget or error limit."""
    check_run_name(opts.name)
    if opts.concurrency < 1:
        raise InputError(f"--concurrency: must be at least 1, got {opts.concurrency}")
    if opts.limit is not None and opts.limit < 1:
        raise InputError(f"--limit: must be at least 1, got {opts.limit}")
    if opts.budget_usd is not None and opts.budget_usd < 0:
        raise InputError(f"--budget-usd: must be 0 or more, got {opts.budget_usd}")
    if opts.max_errors is not None and opts.max_errors < 1:
        raise InputError(f"--max-errors: must be at least 1, got {opts.max_errors}")
    if opts.fold is not None and opts.fold < 0:
        raise InputError(f"--fold: must be 0 or more, got {opts.fold}", "folds are numbered from 0, as adjudicate splits prints them")
    if opts.rejudge is not None and (opts.fold is not None or opts.splits_file is not None):
        raise InputError("--fold: a re-judge run keeps the parent's selection (its fold and samples)", "drop --fold and --splits")
    if opts.splits_file is not None and opts.fold is None:
        raise InputError("--splits: says which folds --fold picks from, but no --fold was given", "add --fold K")
    if opts.calibrate_on is not None and (opts.calibrate_on not in CALIBRATION_PARTS or (opts.fold is None and not (opts.resume or opts.retry_errors))):
        raise InputError(f"--calibrate-on: {opts.calibrate_on} needs --fold K and one of {', '.join(CALIBRATION_PARTS)}", "add --fold K, or drop --calibrate-on")


def open_session(opts: BenchOptions) -> Session:
    """Check ``opts``, then resume the latest run of ``opts.name`` (``--resume`` / ``--retry-errors``)
    or create a new run. Raises InputError (module docstring)."""
    check_options(opts)
    if opts.resume or opts.retry_errors:
        return resume_session(opts)
    return new_session(opts)


def resume_session(opts: BenchOptions) -> Session:
    """Reopen the latest run of ``opts.name``: same arms, model configuration (adopted from the
    manifest where not given) and dataset, the settings of :func:`resumed_settings`; a grown limit is
    written to the manifest before any new call."""
    run_dir = latest_run_dir(opts.runs_dir, opts.name)
    if run_dir is None:
        raise InputError(f"--resume: no run named {opts.name!r} under {opts.runs_dir}", "start it first without --resume (or check --runs-dir)")
    lock = lock_run(run_dir)
    try:
        return _resume_locked(opts, run_dir, lock)
    except BaseException:
        lock.release()
        raise


def _resume_locked(opts: BenchOptions, run_dir: Path, lock: FolderLock) -> Session:
    """:func:`resume_session` once this process holds the run's lock."""
    record_dead_session(run_dir)
    manifest = read_manifest(run_dir)
    parent = parent_of(manifest)
    if opts.rejudge is not None:
        named = open_parent(opts.rejudge, opts.runs_dir)
        if parent is None or named.run_dir.resolve() != parent.run_dir.resolve():
            what = f"re-judges run {parent.manifest.run_id}" if parent is not None else "is not a re-judge run"
            raise InputError(f"--rejudge: run {run_dir.name} {what}", "resume it without --rejudge, or with its own parent")
    if opts.fold is not None and (manifest.fold or {}).get("fold") != opts.fold:
        was = f"fold {manifest.fold['fold']}" if manifest.fold else "the whole dataset"
        raise InputError(f"--fold: run {run_dir.name} runs {was}; a resumed run keeps its selection (got --fold {opts.fold})", "drop --fold, or start a new run with another --name")
    if opts.calibrate_on is not None and (manifest.fold or {}).get("calibration_part") != opts.calibrate_on:
        raise InputError(f"--calibrate-on: run {run_dir.name} keeps its calibration part ({(manifest.fold or {}).get('calibration_part', 'none')})", "drop --calibrate-on, or start a new run with another --name")
    arms = list(opts.arms) if opts.arms else list(manifest.arms)
    if arms != list(manifest.arms):
        raise InputError(f"--arm: run {run_dir.name} was started with arms {', '.join(manifest.arms)}", "resume with the same --arm options, or start a new run with another --name")
    config, adopted = adopt_manifest_config(opts.config, manifest.config, opts.explicit_model_fields)
    cfg = config_dict(config)
    diff = first_difference(identity(cfg), identity(manifest.config))
    if diff is not None:
        raise InputError(
            f"--resume: the model configuration differs from run {run_dir.name} in {diff!r} ({manifest.config.get(diff)!r} then, {cfg.get(diff)!r} now)",
            "resume with the same model options (or none: the run's own are used), or start a new run with another --name",
        )
    if parent is not None:
        dataset = parent_dataset(parent)
    elif opts.dataset is None:
        raise InputError("DATASET: missing", f"give the dataset run {run_dir.name} was started on")
    else:
        dataset = load_dataset(opts.dataset, convert_into=run_dir / DATASET, reuse=True, label_convention=opts.label_convention)
    if dataset.sha256 != manifest.dataset.get("sha256"):
        raise InputError(f"{opts.dataset}: the dataset changed since run {run_dir.name} started (hash differs)", "resume with the same dataset, or start a new run")
    describe_arms(arms, config)  # same validation as a new run
    if adopted:
        taken = ", ".join(f"{k} {v['to']!r}" for k, v in adopted.items())
        echo(f"note: using the run's model settings from manifest.json: {taken} (give the option explicitly to check it instead)")
    number = session_number(run_dir)
    settings = resumed_settings(manifest, opts, len(selected_samples(dataset.samples, manifest.fold, None)), run_dir)
    remove_stale_temp_files(run_dir)
    if "limit" in settings.changed:  # the run grows: the manifest says so before any new call
        entry = {"session": number, "at": iso(utc_now()), "field": "limit", **settings.changed["limit"]}
        manifest = manifest.model_copy(update={"limit": settings.limit, "amendments": [*manifest.amendments, entry]})
        write_manifest(run_dir, manifest)
    return Session(run_dir, manifest, dataset, arms, number, settings, config, lock, parent)


def _new_manifest(
    opts: BenchOptions, run_dir: Path, arms: list[str], cfg: dict[str, Any], described: ArmDescriptions, dataset: Dataset, settings: RunSettings,
    fold: dict[str, Any] | None = None, parent: Parent | None = None,
) -> Manifest:
    """The manifest of a new run (see :mod:`adjudicator.bench.manifest`); ``described`` is
    :func:`~adjudicator.bench.arms.describe_arms` of ``arms``; ``fold`` and ``parent`` the run's
    fold entry and re-judged run, if any."""
    models, hashes, is_llm = described
    python, plat = runtime_description()
    return Manifest(
        run_id=run_dir.name,
        name=opts.name,
        created_at=iso(utc_now()),
        command=list(opts.command),
        arms=arms,
        config=cfg,
        models=models,
        is_llm=is_llm,
        prompt_hashes=hashes,
        prompt_files=prompt_file_hashes(),
        dataset=dataset.describe(),
        limit=settings.limit,
        options={
            "concurrency": opts.concurrency,
            "budget_usd": opts.budget_usd,
            "max_errors": opts.max_errors,
            "n_bootstrap": settings.n_bootstrap,
            "runs_dir": str(opts.runs_dir),
        },
        seeds={"baselines": settings.seed, "bootstrap": settings.seed},
        packages=package_versions(),
        python=python,
        platform=plat,
        git=git_info(),
        fold=fold,
        parent=None if parent is None else parent.record(),
    )


def new_session(opts: BenchOptions) -> Session:
    """Create a new run: validate the arms, the dataset and the fold first (upstream PanelBench is
    converted into the new run's ``dataset/``), then the run folder and its manifest; a failure
    while creating them removes the half-made folder. A re-judge run (``opts.rejudge``) takes its
    dataset, fold and (unless given) limit from the parent, and its configuration from
    :func:`~adjudicator.bench.rejudge.rejudge_config`."""
    parent = open_parent(opts.rejudge, opts.runs_dir) if opts.rejudge is not None else None
    config = opts.config if parent is None else rejudge_config(opts.config, parent, opts.explicit_model_fields)
    cfg = config_dict(config)
    limit = parent.manifest.limit if parent is not None and opts.limit is None else opts.limit
    settings = RunSettings(
        limit,
        DEFAULT_SEED if opts.seed is None else opts.seed,
        DEFAULT_BOOTSTRAP if opts.n_bootstrap is None else opts.n_bootstrap,
    )
    arms = check_arms(opts.arms) if parent is not None else (list(opts.arms) if opts.arms else list(DEFAULT_ARMS))
    if len(set(arms)) != len(arms):
        raise InputError("--arm: an arm is listed twice", "give each arm once")
    described = describe_arms(arms, config)
    # validate the dataset before creating anything (upstream PanelBench is converted in the run folder)
    src = Path(opts.dataset) if opts.dataset is not None else Path()
    upstream = parent is None and src.is_dir() and is_upstream_panelbench(src)
    fold = parent.manifest.fold if parent is not None else None
    if parent is not None:
        dataset = parent_dataset(parent)
    elif not upstream:
        dataset = load_dataset(src, label_convention=opts.label_convention)
        fold = _fold_of(opts, dataset)
    run_dir = new_run_dir(opts.runs_dir, opts.name)
    lock = lock_run(run_dir)
    try:
        if upstream:
            dataset = load_dataset(src, convert_into=run_dir / DATASET, label_convention=opts.label_convention)
            fold = _fold_of(opts, dataset)
        manifest = _new_manifest(opts, run_dir, arms, cfg, described, dataset, settings, fold, parent)
        write_manifest(run_dir, manifest)
    except BaseException:
        # nothing was run: do not leave a half-made run folder behind
        lock.release()
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    if parent is not None:
        echo(f"re-judging run {parent.run_dir.name}: its tracker outputs ({parent.tracker_model}) are reused, no tracker request is sent; {config.describe()}")
    return Session(run_dir, manifest, dataset, arms, 1, settings, config, lock, parent)


def _fold_of(opts: BenchOptions, dataset: Dataset) -> dict[str, Any] | None:
    """The manifest's fold entry for ``--fold`` (None without it)."""
    if opts.fold is None:
        return None
    from adjudicator.bench.splits import choose_fold

    return choose_fold(dataset.samples, opts.fold, dataset.sha256, opts.splits_file, opts.calibrate_on)
