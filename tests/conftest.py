"""Shared fixtures: paths, the example specs, and small sample data generated once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "data" / "specs"

#: the test files that take longest on one worker, longest first (seconds with -n0 on a 2-core machine, December
#: 2026: 210, 165, 90, 85, 60, 50, 45, then 25-35 each; every other file takes under 25 s). `make test` runs with
#: ``--dist loadfile --no-loadscope-reorder``: each file on one worker, files handed out in collection order, so
#: these go out first and the many short files fill in behind them, and the two workers end together. A long
#: file handed out last runs alone on one worker while the other sits idle: xdist's own order (most tests
#: first) put test_differential.py (3 tests, 45 s) and test_import_carry.py last.
LONGEST_FIRST = ("test_migrate.py", "test_notebooks.py", "test_apply.py", "test_import_kill.py", "test_corpus.py",
                 "test_load_kill.py", "test_differential.py", "test_bad_inputs.py", "test_python_export.py",
                 "test_report.py", "test_dynamo.py", "test_plots.py")


def pytest_collection_modifyitems(config, items):
    """The files of :data:`LONGEST_FIRST` first, in its order; the others after them in their own order."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def dialogue_spec():
    from blue_nb.spec import load_spec

    return load_spec(SPECS / "dialogue.yaml")


@pytest.fixture(scope="session")
def document_spec():
    from blue_nb.spec import load_spec

    return load_spec(SPECS / "document.yaml")


@pytest.fixture(scope="session")
def dialogue_data(tmp_path_factory) -> Path:
    """A small dialogue sample, generated once for the session: big enough (4000) for the spec's first draws,
    the deliberate outliers (nvidia-dec with ~1,400 perspectives and 120 tensions), which a smaller sample leaves out."""
    from blue_nb.samples import generate_sample

    out = tmp_path_factory.mktemp("dialogue")
    generate_sample("dialogue", scale=4000, seed=3, out_dir=out)
    return out


@pytest.fixture(scope="session")
def small_dialogue(tmp_path_factory) -> Path:
    """A few hundred dialogue rows: enough for every pattern and for several batches, quick to write."""
    from blue_nb.samples import generate_sample

    out = tmp_path_factory.mktemp("small_dialogue")
    generate_sample("dialogue", scale=300, seed=4, out_dir=out)
    return out


@pytest.fixture(scope="session")
def dynamo_endpoint():
    """One embedded moto_server (a started LocalDynamo) for the whole session."""
    from blue_nb.dynamo import LocalDynamo

    local = LocalDynamo().start()
    yield local
    local.stop()


@pytest.fixture
def dynamo_client(dynamo_endpoint):
    """A DynamoClient on the session's server with a table prefix of its own (tables never collide)."""
    from .endpoints import own_client

    return own_client(dynamo_endpoint)
