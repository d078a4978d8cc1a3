"""pytest plugin (entry point `chcert`): every vector and clause check is a test item.

Inert unless `--chcert-profile` is given, and light until then: this module
imports only pytest, so installing chcert costs other test suites nothing. When
the option is given, the run is built (harness/run/runspec.py) and its two sides are
registered: the controller (harness/run/controller.py: hello, records, results.json) where
pytest-xdist schedules or in-process, the worker (harness/run/worker.py: the items) where
items run. They bring the heavy imports (numba, scipy, the adapters).

    pytest --chcert-profile standard --chcert-adapter reference -n 2

Given no path, it collects the bundled catalogs and vectors (and the
`--chcert-vectors` files) of the package installed on each host, worker
included. `chcert certify` runs exactly this and then renders the PDF from
results.json.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from harness.collector import collect_cycles_less_often
from harness.run.settings import SETTINGS

# The run's settings as the controller built them, for each pytest-xdist worker it starts.
SETTINGS_KEY = "chcert_settings"
_SETTINGS = pytest.StashKey[str]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The run's settings as harness/run/settings.py declares them (those the test workers
    need), and the plugin's own: the stage the outputs go to, the laboratory's minimums."""
    group = parser.getgroup("chcert", "Casino Hold'em certification (chcert)")
    for setting in (s for s in SETTINGS if s.plugin):
        kwargs = setting.argparse_kwargs()
        kwargs.update(dest="chcert_" + setting.dest, metavar=None)
        if setting.dest == "profile":  # given, it enables the plugin
            kwargs.update(default=None, help=f"{setting.help}; enables the plugin")
        group.addoption(setting.plugin_flag, **kwargs)
    group.addoption(
        "--chcert-stage",
        default=None,
        help="folder the outputs are written to, named as if in --chcert-out (chcert certify "
        "moves them there at the end; default: --chcert-out itself)",
    )
    group.addoption(
        "--chcert-minimums",
        default=None,
        metavar="JSON",
        help='the laboratory\'s minimum sample sizes, as JSON: {"source": WHO, "rng_decks": N, '
        '"rtp_rounds": N, "differential": N} (each optional; default: the profile\'s '
        "evidence_minimums, else the defaults; docs/verdict.md)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """With --chcert-profile and no path given: this host's bundled catalogs and vectors.

    Each pytest-xdist worker parses the controller's command line again, on its own host,
    so it collects the files of its own installed package. This is how a run spreads over
    hosts (`--tx socket=HOST:PORT`, `--tx ssh=HOST`): xdist refuses to forward a command
    line that names a local path outside its rsync roots (a feature it deprecates).
    """
    given = early_config.known_args_namespace
    if not getattr(given, "chcert_profile", None) or getattr(given, "file_or_dir", None):
        return
    from harness.rules.catalogs import CLAUSE_DIR
    from harness.vectors.settlement import VECTOR_DIR

    extra = getattr(given, "chcert_vectors", None) or []
    paths = [str(CLAUSE_DIR), str(VECTOR_DIR), *map(str, extra)]
    args += paths
    given.file_or_dir = paths  # where pytest looks for the initial conftest files, as if given


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist, on the controller: hand each worker it starts the run's settings,
    typed and whole (its seed drawn): a worker never parses them from options again."""
    settings = node.config.stash.get(_SETTINGS, None)
    if settings is not None:
        node.workerinput[SETTINGS_KEY] = settings


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("chcert_profile"):
        return
    collect_cycles_less_often()  # the run's rounds are many objects, few cycles
    import msgspec

    from harness.errors import SpecError, UserError
    from harness.run.controller import Controller
    from harness.run.handover import HANDOVER
    from harness.run.runspec import build, rebased
    from harness.run.settings import RunSettings, from_plugin
    from harness.run.worker import SPEC, Worker

    given = getattr(config, "workerinput", {}).get(SETTINGS_KEY)
    if given is not None:  # an xdist worker: the controller's settings
        settings = msgspec.json.decode(given, type=RunSettings)
    else:
        if config.getoption("chcert_seed") is None:  # chosen once, here, for every worker
            config.option.chcert_seed = secrets.randbelow(2**31)
        settings = from_plugin(config.option)
        problems = settings.problems()  # as `chcert certify` checks them
        if problems:
            raise pytest.UsageError(f"chcert: {problems[0]}")
        config.stash[_SETTINGS] = msgspec.json.encode(settings).decode()
    stage = config.getoption("chcert_stage")
    is_worker = hasattr(config, "workerinput")
    handover = config.stash.get(HANDOVER, None)
    try:
        spec = (
            rebased(handover.spec, settings, stage)
            if handover is not None and not is_worker
            else build(settings, stage, config.getoption("chcert_minimums"))
        )
    except SpecError as exc:
        raise pytest.UsageError(f"chcert: invalid spec: {exc}") from exc
    except UserError as exc:
        raise pytest.UsageError(f"chcert: {exc}") from exc
    config.stash[SPEC] = spec
    for clause in spec.clauses:
        config.addinivalue_line("markers", f"{clause.id}: {clause.title}")
    distributed = not is_worker and config.getoption("dist", "no") != "no"
    worker = None if distributed else Worker(config, spec)
    if worker is not None:
        config.pluginmanager.register(worker, "chcert-worker")
    if not is_worker:
        config.pluginmanager.register(Controller(config, spec, worker), "chcert-controller")
