"""pytest plugin (entry point `chcert`): every vector and clause check is a test item.

Inert unless `--chcert-profile` is given, and light until then: this module
imports only pytest, so installing chcert costs other test suites nothing. When
the option is given, `harness.runner` (the certification run, its items and the
heavy imports: numba, scipy, the adapters) is loaded and registered.

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

from harness.defaults import DEFAULT_DECKS as RNG_DECKS
from harness.defaults import DEFAULT_DIFFERENTIAL as DIFFERENTIAL
from harness.defaults import DEFAULT_RTP_ROUNDS as RTP_ROUNDS


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("chcert", "Casino Hold'em certification (chcert)")
    group.addoption(
        "--chcert-profile", default=None, help="profile name or path; enables the plugin"
    )
    group.addoption(
        "--chcert-adapter", default="reference", help="adapter spec (default: reference)"
    )
    group.addoption(
        "--chcert-out", default="reports", help="folder for results.json (default: reports)"
    )
    group.addoption(
        "--chcert-stage",
        default=None,
        help="folder the outputs are written to, named as if in --chcert-out (chcert certify "
        "moves them there at the end; default: --chcert-out itself)",
    )
    group.addoption(
        "--chcert-seed", type=int, default=None, help="seed of every randomized check (random)"
    )
    group.addoption(
        "--chcert-repeat",
        type=int,
        default=1,
        help="replay every vector this many times (soak test, benchmarks)",
    )
    group.addoption(
        "--chcert-rng-decks",
        type=int,
        default=RNG_DECKS,
        help=f"decks sampled for the RNG battery (default {RNG_DECKS:,})",
    )
    group.addoption(
        "--chcert-rtp-rounds",
        type=int,
        default=RTP_ROUNDS,
        help=f"rounds played for the RTP simulation (default {RTP_ROUNDS:,}; 0: not tested)",
    )
    group.addoption(
        "--chcert-differential",
        type=int,
        default=DIFFERENTIAL,
        help="seat-hands dealt as stacked rounds and compared with the rules oracle by the "
        f"differential check (default {DIFFERENTIAL:,}; 0: not tested)",
    )
    group.addoption(
        "--chcert-minimums",
        default=None,
        metavar="JSON",
        help='the laboratory\'s minimum sample sizes, as JSON: {"source": WHO, "rng_decks": N, '
        '"rtp_rounds": N, "differential": N} (each optional; default: the profile\'s '
        "evidence_minimums, else the defaults; docs/verdict.md)",
    )
    group.addoption(
        "--chcert-vectors",
        action="append",
        default=[],
        help="a further vector file to replay (e.g. a reproduction under OUT/repro/); repeatable",
    )
    group.addoption(
        "--chcert-item",
        action="append",
        default=[],
        help="run exactly this item, CLAUSE/TARGET (repeatable); a selection, like -k",
    )
    group.addoption(
        "--chcert-attest",
        default=None,
        help="a laboratory's attestations (specs/schemas/attestations.schema.json)",
    )
    group.addoption(
        "--chcert-timeout",
        type=float,
        default=10.0,
        help="seconds to wait for each reply (default 10)",
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
    from harness.specs import CLAUSE_DIR
    from harness.vectors import VECTOR_DIR

    extra = getattr(given, "chcert_vectors", None) or []
    paths = [str(CLAUSE_DIR), str(VECTOR_DIR), *map(str, extra)]
    args += paths
    given.file_or_dir = paths  # where pytest looks for the initial conftest files, as if given


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist, on the controller: hand its seed to each worker it starts."""
    node.workerinput["chcert_seed"] = node.config.getoption("chcert_seed", None)


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("chcert_profile"):
        return
    if config.getoption("chcert_seed") is None:
        # Chosen once, on the controller: an xdist worker parses the command line again,
        # so it takes the controller's seed from its workerinput (pytest_configure_node).
        given = getattr(config, "workerinput", {}).get("chcert_seed")
        config.option.chcert_seed = secrets.randbelow(2**31) if given is None else given
    from harness.errors import SpecError
    from harness.runner import CertificationRun

    try:
        run = CertificationRun(config)
    except SpecError as exc:
        raise pytest.UsageError(f"chcert: invalid spec: {exc}") from exc
    for clause in run.clauses:
        config.addinivalue_line("markers", f"{clause.id}: {clause.title}")
    config.pluginmanager.register(run, "chcert-run")
