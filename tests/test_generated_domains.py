"""The shipped domains' character drawn by the spec engine from a generate: section
(tests/fixtures/generated/<domain>.yaml: the shipped spec plus that section): determinism, exact columns,
the skew and the edge cases the hand-written generators promise (tests/test_samples.py), from a declaration."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from blue_nb.errors import SpecError
from blue_nb.samples import spec_sample
from blue_nb.samples.spec_sample import sample_spec
from blue_nb.samples.text import END_TS
# the promises both producers keep, checked on this module's fixtures (pytest collects imported tests here)
from tests.test_samples import DIALOGUE_COLUMNS as HANDWRITTEN_DIALOGUE_COLUMNS
from tests.test_samples import DOCUMENT_COLUMNS, file_bytes, read_csv, read_jsonl
from tests.test_samples import (test_dialogue_ids_are_slugs_some_non_ascii, test_dialogue_keys_unique,  # noqa: F401
                                test_dialogue_value_vocabularies, test_expert_prefix_pair_in_one_dialogue,
                                test_largest_dialogue_has_over_100_tensions, test_links_reference_documents_of_the_same_realm,
                                test_perspectives_are_zipf_skewed, test_realms_are_skewed,
                                test_text_is_mixed_unicode_with_varied_lengths)

# the engine writes a source's key columns first: only the dialogues' column order differs
DIALOGUE_COLUMNS = {**HANDWRITTEN_DIALOGUE_COLUMNS, "dialogues": ["dialogue_id", "status", "created_at", "title"]}
DAY = 86_400
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "generated"


def generate_sample(domain: str, **kw) -> dict[str, int]:
    return sample_spec(FIXTURES / f"{domain}.yaml", **kw)


@pytest.fixture(scope="module")
def dialogue(tmp_path_factory):
    out = tmp_path_factory.mktemp("dialogue")
    counts = generate_sample("dialogue", scale=5000, seed=7, out_dir=out)
    rows = {name: read_csv(out / f"{name}.csv") for name in DIALOGUE_COLUMNS}
    return out, counts, rows


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    out = tmp_path_factory.mktemp("document")
    counts = generate_sample("document", scale=600, seed=7, out_dir=str(out))
    rows = {"realms": read_csv(out / "realms.csv"), "documents": read_jsonl(out / "documents.jsonl"),
            "links": read_csv(out / "links.csv")}
    return out, counts, rows


# ------------------------------------------------------------------ contract: files, columns, counts

def test_dialogue_files_headers_and_counts(dialogue):
    out, counts, rows = dialogue
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{n}.csv" for n in DIALOGUE_COLUMNS)
    for name, columns in DIALOGUE_COLUMNS.items():
        raw = (out / f"{name}.csv").read_bytes()
        assert raw.startswith((",".join(columns) + "\n").encode()), name
        assert b"\r\n" not in raw
        assert counts[name] == len(rows[name]) > 0
    assert list(counts) == list(DIALOGUE_COLUMNS)
    assert 4000 <= sum(counts.values()) <= 6000


def test_document_files_headers_and_counts(document):
    out, counts, rows = document
    assert sorted(p.name for p in out.iterdir()) == ["documents.jsonl", "links.csv", "realms.csv"]
    for name in ("realms", "links"):
        assert (out / f"{name}.csv").read_bytes().startswith((",".join(DOCUMENT_COLUMNS[name]) + "\n").encode())
    for doc in rows["documents"]:
        assert list(doc) == DOCUMENT_COLUMNS["documents"]
    assert {n: len(r) for n, r in rows.items()} == counts
    assert 400 <= sum(counts.values()) <= 800


def test_a_scale_below_the_declared_minimum_is_refused_with_its_spec_path(tmp_path):
    with pytest.raises(SpecError) as e:             # every dialogue has at least 3 experts
        generate_sample("dialogue", scale=2, seed=1, out_dir=tmp_path / "x")
    assert "generate.entities.Expert.per_parent" in str(e.value) and "generated/dialogue.yaml" in str(e.value)
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("domain,scale", [("document", 1), ("dialogue", 37), ("document", 37)])
def test_tiny_scales_still_write_every_file(tmp_path, domain, scale):
    counts = generate_sample(domain, scale=scale, seed=1, out_dir=tmp_path / "x")
    assert 1 <= sum(counts.values()) <= 600      # without the deliberate outliers, which need a bigger sample
    assert len(list((tmp_path / "x").iterdir())) == len(DIALOGUE_COLUMNS if domain == "dialogue" else DOCUMENT_COLUMNS)


# ------------------------------------------------------------------ determinism

@pytest.mark.parametrize("domain,scale", [("dialogue", 1500), ("document", 300)])
def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path, domain, scale):
    a = generate_sample(domain, scale=scale, seed=11, out_dir=tmp_path / "a")
    b = generate_sample(domain, scale=scale, seed=11, out_dir=tmp_path / "b")
    generate_sample(domain, scale=scale, seed=12, out_dir=tmp_path / "c")     # its counts may equal a's: the bytes differ
    assert a == b
    assert file_bytes(tmp_path / "a") == file_bytes(tmp_path / "b")
    assert file_bytes(tmp_path / "a") != file_bytes(tmp_path / "c")


def test_rerun_into_same_directory_overwrites_cleanly(tmp_path):
    generate_sample("dialogue", scale=300, seed=1, out_dir=tmp_path)
    first = file_bytes(tmp_path)
    generate_sample("dialogue", scale=300, seed=2, out_dir=tmp_path)
    generate_sample("dialogue", scale=300, seed=1, out_dir=tmp_path)
    assert file_bytes(tmp_path) == first


# ------------------------------------------------------------------ dialogue values and skew


def test_rounds_go_past_nine_and_seq_counts_from_one(dialogue):
    _, _, rows = dialogue
    rounds = [int(r["round"]) for r in rows["perspectives"]]
    assert min(rounds) == 0 and 9 < max(rounds) <= 15
    seqs = defaultdict(list)
    for r in rows["perspectives"]:
        seqs[(r["dialogue_id"], r["expert"])].append(int(r["seq"]))   # each expert's posts, numbered from 1
    assert all(s == list(range(1, len(s) + 1)) for s in seqs.values())


def test_event_timestamps_increase_per_tension_and_span_months(dialogue):
    _, _, rows = dialogue
    last: dict[tuple[str, str], int] = {}
    for r in rows["tension_events"]:
        key, ts = (r["dialogue_id"], r["tension_id"]), int(r["ts"])
        assert ts > last.get(key, 0), key
        last[key] = ts
    stamps = [int(r["ts"]) for r in rows["tension_events"]]
    assert max(stamps) - min(stamps) > 90 * DAY
    assert END_TS - 200 * DAY < min(stamps) and max(stamps) < END_TS
    assert Counter(r["event_type"] for r in rows["tension_events"]).most_common(1)[0][0] == "commented"
    assert {(r["dialogue_id"], r["tension_id"]) for r in rows["tensions"]} == set(last)   # every tension has events


# ------------------------------------------------------------------ document values and skew

def test_document_keys_and_values(document):
    _, _, rows = document
    realms = [r["realm_id"] for r in rows["realms"]]
    assert len(realms) == len(set(realms)) and "letemcook" in realms
    assert 1 <= sum(not r.isascii() for r in realms) < len(realms)
    keys = [(d["realm_id"], d["doc_type"], d["doc_number"]) for d in rows["documents"]]
    assert len(keys) == len(set(keys))
    for d in rows["documents"]:
        assert d["realm_id"] in realms
        assert d["doc_type"] in ("rfc", "adr", "spike", "runbook")
        assert re.fullmatch(r"\d{4}", d["doc_number"])
        assert d["tags"] and d["tags"] == sorted(set(d["tags"])) and all(isinstance(t, str) for t in d["tags"])


def test_document_content_sizes(document):
    out, _, rows = document
    sizes = sorted(len(d["content"].encode("utf-8")) for d in rows["documents"])
    assert sizes[0] < 1000
    assert sum(380_000 <= s <= 409_000 for s in sizes) >= 2
    assert sum(410_000 <= s <= 420_000 for s in sizes) >= 1
    assert sizes[-1] <= 420_000
    total = sum(p.stat().st_size for p in out.iterdir())
    assert total <= 8_000_000
    assert any("\n\n" in d["content"] for d in rows["documents"])             # paragraphs


# ------------------------------------------------------------------ errors, crash safety, writers

def test_interrupted_run_leaves_old_files_and_no_temp_files(tmp_path, monkeypatch):
    generate_sample("dialogue", scale=400, seed=1, out_dir=tmp_path)
    before = file_bytes(tmp_path)
    calls = []

    def interrupt(self, p, n, parent_row):
        calls.append(p.name)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(self, p, n, parent_row)

    original = spec_sample._Writer.rows
    monkeypatch.setattr(spec_sample._Writer, "rows", interrupt)
    with pytest.raises(KeyboardInterrupt):
        generate_sample("dialogue", scale=5000, seed=1, out_dir=tmp_path)
    assert file_bytes(tmp_path) == before  # nothing half-written, nothing left behind


def test_the_progress_bar_changes_nothing_written(tmp_path):
    generate_sample("document", scale=50, seed=1, out_dir=tmp_path / "bar", progress=True)
    generate_sample("document", scale=50, seed=1, out_dir=tmp_path / "quiet", progress=False)
    assert sorted(p.name for p in (tmp_path / "bar").iterdir()) == ["documents.jsonl", "links.csv", "realms.csv"]
    assert file_bytes(tmp_path / "bar") == file_bytes(tmp_path / "quiet")
