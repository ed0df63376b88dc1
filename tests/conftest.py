"""Shared fixtures: paths, the example specs, and small sample data generated once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "data" / "specs"


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
