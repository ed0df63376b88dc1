"""blue-nb profile: a generate: section fitted to data, and the synthetic twin it draws."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from blue_nb.app.profile import TWIN_TOLERANCES, profile_data, twin_figures
from blue_nb.app.workflows import load_data, spec_items
from blue_nb.cli import cli
from blue_nb.samples import plan_sample, sample_spec
from blue_nb.spec import load_spec
from blue_nb.stores import open_store
from tests.test_import import full_lines, write_export

ROOT = Path(__file__).resolve().parents[1]
DIALOGUE = ROOT / "data/specs/dialogue.yaml"
SAMPLE = ROOT / "data/sample/dialogue"


def strings(value) -> set[str]:
    """Every string in a nested mapping, keys included."""
    if isinstance(value, dict):
        return set(value) | set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()


def within(twin: dict, original: dict) -> dict[str, float]:
    """figure -> relative difference, for the figures the tolerances name."""
    return {k: abs(twin[k] - original[k]) / max(abs(original[k]), 1e-9) for k in TWIN_TOLERANCES}


@pytest.fixture(scope="module")
def fitted():
    return profile_data(DIALOGUE, data_dir=SAMPLE)


def test_the_dialogue_twin_gives_the_same_figures_within_the_tolerances(tmp_path, fitted):
    spec = load_spec(DIALOGUE).with_changes(generate=fitted)
    sample_spec(spec, scale=5000, seed=3, out_dir=tmp_path / "twin")
    original = twin_figures(DIALOGUE, SAMPLE, tmp_path / "h0")
    twin = twin_figures(DIALOGUE, tmp_path / "twin", tmp_path / "h1")
    diff = within(twin, original)
    assert all(diff[k] <= TWIN_TOLERANCES[k] for k in diff), (original, twin, diff)
    assert twin["largest_collection"] == original["largest_collection"] == 1900     # kept whole
    assert abs(twin["items"] - original["items"]) <= 0.1 * original["items"]


def test_the_profile_holds_no_value_but_enum_labels(fitted):
    rows = {name: {json.dumps(v, ensure_ascii=False) for _, item in spec_items(load_spec(DIALOGUE), SAMPLE)
                   if _ == name for v in item.values()} for name in ("Dialogue",)}
    text = strings(fitted)
    assert "nvidia-dec" not in text and "café-strategy" not in text          # ids
    assert not any(len(s) > 40 for s in text)                                  # no title, no content
    assert {"open", "closed", "archived"} <= text                               # the status labels stay
    assert rows["Dialogue"]                                                     # (the data was read)
    assert fitted["entities"]["Dialogue"]["count"] == 37
    persp = fitted["entities"]["Perspective"]
    assert sum(persp["per_parent"]["first"]) + 1 + len(persp["per_parent"]["first"]) + \
        sum(fitted["entities"]["Tension"]["per_parent"]["first"]) > 1000       # the biggest dialogue, kept


def test_no_labels_drops_the_labels_and_keeps_their_shape(tmp_path):
    bare = profile_data(DIALOGUE, data_dir=SAMPLE, labels=False)
    text = strings(bare)
    assert not {"open", "closed", "archived", "final", "draft", "facilitator"} & text
    status = bare["entities"]["Dialogue"]["fields"]["status"]
    assert status["cardinality"] == 3 and status["skew"] > 0
    counts = sample_spec(load_spec(DIALOGUE).with_changes(generate=bare), scale=5000, seed=1, out_dir=tmp_path)
    assert counts["dialogues"] == 37


def test_profile_from_a_loaded_store_matches_the_rows(tmp_path, fitted):
    db = tmp_path / "d.duckdb"
    store = open_store("duckdb", db)
    try:
        load_data(DIALOGUE, SAMPLE, stores=[store], progress=False)
    finally:
        store.close()
    from_store = profile_data(DIALOGUE, duckdb=db)
    for name, g in fitted["entities"].items():
        s = from_store["entities"][name]
        assert s.get("count") == g.get("count")
        assert set(s.get("fields", {})) == set(g.get("fields", {}))
        if "per_parent" in g:
            assert sorted(s["per_parent"].get("first", [])) == sorted(g["per_parent"].get("first", []))


def test_cli_profile_writes_a_spec_that_samples(tmp_path):
    out = tmp_path / "twin.yaml"
    r = CliRunner().invoke(cli, ["profile", str(DIALOGUE), "--data", str(SAMPLE), "--out", str(out)])
    assert r.exit_code == 0, r.output
    twin = load_spec(out)
    assert twin.generate["entities"]["Dialogue"]["count"] == 37
    r = CliRunner().invoke(cli, ["profile", str(DIALOGUE), "--data", str(SAMPLE), "--no-labels"])
    assert r.exit_code == 0 and "archived" not in r.output
    assert yaml.safe_load(r.output)["generate"]["entities"]["Expert"]["fields"]["role"]["cardinality"] == 7
    r = CliRunner().invoke(cli, ["profile", str(DIALOGUE)])
    assert r.exit_code == 2 and "--data DIR or --duckdb FILE" in r.output


def test_a_twin_of_an_imported_s3_export(tmp_path):
    spec = load_spec(DIALOGUE)
    items = [item for _, item in spec_items(spec, SAMPLE)]
    write_export(tmp_path / "exp", "01700000000000-abcdef12", [full_lines(items)], table="blue_dialogue")
    r = CliRunner().invoke(cli, ["import", str(tmp_path / "exp"), "--from", "s3-export", "--out", str(tmp_path / "imp")])
    assert r.exit_code == 0, r.output
    draft = next((tmp_path / "imp").glob("*.yaml"))
    rows = tmp_path / "imp" / draft.stem
    fitted = profile_data(draft, data_dir=rows)
    twin_spec = load_spec(draft).with_changes(generate=fitted)
    sample_spec(twin_spec, scale=len(items), seed=5, out_dir=tmp_path / "twin")
    original = twin_figures(draft, rows, tmp_path / "h0")
    twin = twin_figures(draft, tmp_path / "twin", tmp_path / "h1")
    assert original["items"] == len(items)
    assert twin["largest_collection"] == original["largest_collection"]
    for k in ("item_size_p50", "item_size_p95"):
        assert abs(twin[k] - original[k]) <= TWIN_TOLERANCES[k] * original[k], (k, original, twin)


def test_the_document_twin_keeps_the_big_bodies_and_the_figures(tmp_path):
    spec_path = ROOT / "data/specs/document.yaml"
    data = ROOT / "data/sample/document"
    fitted = profile_data(spec_path, data_dir=data)
    sample_spec(load_spec(spec_path).with_changes(generate=fitted), scale=600, seed=3, out_dir=tmp_path / "twin")
    original = twin_figures(spec_path, data, tmp_path / "h0")
    twin = twin_figures(spec_path, tmp_path / "twin", tmp_path / "h1")
    diff = within(twin, original)
    # every figure but the p95, which one twin of this sample cannot hold (spec-format.md says why): its
    # 309 bodies' 95th percentile sits where their tail thins out, and the twin draws its 9 realms' document
    # and link counts apart, so one twin's p95 swings with a few bodies and with the documents' share
    assert all(diff[k] <= TWIN_TOLERANCES[k] for k in diff if k != "item_size_p95"), (original, twin, diff)
    assert (original["item_size_p95"], twin["item_size_p95"]) == (21690.4, 41875.5)
    sizes = [len(json.loads(line)["content"].encode()) for line in
             (tmp_path / "twin" / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    assert max(sizes) > 400_000                      # the body over the limit is in the fitted tail
    # the fitted body lengths themselves keep the original's p50 and p95 (drawn many times, not one twin's 319)
    plan, compile_draws = plan_sample(load_spec(spec_path).with_changes(generate=fitted), 600)
    rng = random.Random(3)
    compile_draws(rng)
    drawn = sorted(len(plan.entities["Document"].draws["content"].draw(rng, i, {}).encode()) for i in range(5000))
    bodies = sorted(len(json.loads(line)["content"].encode()) for line in
                    (data / "documents.jsonl").read_text(encoding="utf-8").splitlines())
    for q, tolerance in ((0.5, TWIN_TOLERANCES["item_size_p50"]), (0.95, TWIN_TOLERANCES["item_size_p95"])):
        want, got = bodies[int(q * len(bodies))], drawn[int(q * len(drawn))]
        assert abs(got - want) <= tolerance * want, (q, want, got)
