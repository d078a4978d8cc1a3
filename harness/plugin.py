"""pytest plugin (entry point `chcert`): every vector and clause check is a test item.

Inert unless `--chcert-profile` is given, and light until then: this module
imports only pytest, so installing chcert costs other test suites nothing. When
the option is given, `harness.runner` (the certification run, its items and the
heavy imports: numba, scipy, the adapters) is loaded and registered.

    pytest --chcert-profile standard --chcert-adapter reference specs/clauses vectors -n 2

`chcert certify` runs exactly this and then renders the PDF from results.json.
"""

from __future__ import annotations

import secrets

import pytest

RNG_DECKS = 20_000  # harness.rng.DEFAULT_DECKS, repeated so that this module stays light
RTP_ROUNDS = 1_000  # harness.checks.DEFAULT_RTP_ROUNDS, likewise


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


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("chcert_profile"):
        return
    if config.getoption("chcert_seed") is None:
        # Chosen once on the controller; xdist copies options to the workers.
        config.option.chcert_seed = secrets.randbelow(2**31)
    from harness.errors import SpecError
    from harness.runner import CertificationRun

    try:
        run = CertificationRun(config)
    except SpecError as exc:
        raise pytest.UsageError(f"chcert: invalid spec: {exc}") from exc
    for clause in run.clauses:
        config.addinivalue_line("markers", f"{clause.id}: {clause.title}")
    config.pluginmanager.register(run, "chcert-run")
