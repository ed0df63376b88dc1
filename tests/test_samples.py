"""The shipped domains' samples, drawn by the spec engine from their specs' generate: sections
(data/specs/<domain>.yaml): determinism, exact columns, the skew and edge cases the sections promise."""

from __future__ import annotations

import csv
import json
import re
import statistics
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from blue_nb.errors import SourceError, SpecError
from blue_nb.samples import plan_sample, spec_sample
from blue_nb.samples.generate import SAMPLE_DOMAINS, SAMPLE_SPECS, generate_sample
from blue_nb.samples.text import END_TS
from blue_nb.samples.writers import SourceFiles
from blue_nb.spec import load_spec

DIALOGUE_COLUMNS = {
    "dialogues": ["dialogue_id", "status", "created_at", "title"],   # the engine writes key columns first
    "experts": ["dialogue_id", "expert", "role", "tier", "score"],
    "perspectives": ["dialogue_id", "round", "expert", "seq", "label", "content", "status"],
    "tensions": ["dialogue_id", "tension_id", "description", "status"],
    "tension_events": ["dialogue_id", "tension_id", "ts", "event_type", "actor", "reason"],
}
DOCUMENT_COLUMNS = {
    "realms": ["realm_id", "name", "path"],
    "documents": ["realm_id", "doc_type", "doc_number", "title", "status", "content", "tags"],
    "links": ["realm_id", "from_doc", "to_doc", "link_type"],
}
DAY = 86_400


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def file_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


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

def sources(domain: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    plan, _ = plan_sample(load_spec(SAMPLE_SPECS[domain]), 5000)
    return plan.sources


def test_public_constants():
    assert SAMPLE_DOMAINS == ("dialogue", "document")
    assert [p.relative_to(p.parents[2]).as_posix() for p in SAMPLE_SPECS.values()] == [
        "data/specs/dialogue.yaml", "data/specs/document.yaml"]
    assert {k: list(v[1]) for k, v in sources("dialogue").items()} == DIALOGUE_COLUMNS
    assert {k: list(v[1]) for k, v in sources("document").items()} == DOCUMENT_COLUMNS
    assert {k: v[0] for k, v in sources("document").items()} == {"realms": "csv", "documents": "jsonl", "links": "csv"}
    assert END_TS == 1780272000  # 2026-06-01T00:00:00Z, never the clock


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
    lines = SAMPLE_SPECS["dialogue"].read_text(encoding="utf-8").splitlines()
    expert = lines.index("    Expert:", next(i for i, t in enumerate(lines) if t.startswith("generate:")))
    assert e.value.where == f"{SAMPLE_SPECS['dialogue']}:{expert + 2} generate.entities.Expert.per_parent"
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("domain,scale", [("document", 1), ("dialogue", 37), ("document", 37)])
def test_tiny_scales_still_write_every_file(tmp_path, domain, scale):
    counts = generate_sample(domain, scale=scale, seed=1, out_dir=tmp_path / "x")
    assert 1 <= sum(counts.values()) <= 600      # without the deliberate outliers, which need a bigger sample
    assert len(list((tmp_path / "x").iterdir())) == len(sources(domain))


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

def test_dialogue_keys_unique(dialogue):
    _, _, rows = dialogue
    ids = [r["dialogue_id"] for r in rows["dialogues"]]
    assert len(ids) == len(set(ids))
    for name, key in [("experts", ("dialogue_id", "expert")),
                      ("perspectives", ("dialogue_id", "round", "expert", "seq")),
                      ("tensions", ("dialogue_id", "tension_id")),
                      ("tension_events", ("dialogue_id", "tension_id", "ts"))]:
        keys = [tuple(r[k] for k in key) for r in rows[name]]
        assert len(keys) == len(set(keys)), name
        assert {r["dialogue_id"] for r in rows[name]} <= set(ids), name
    for r in rows["experts"] + rows["perspectives"] + rows["tension_events"]:
        assert "#" not in r["dialogue_id"] and "#" not in r.get("expert", r.get("actor"))


def test_dialogue_ids_are_slugs_some_non_ascii(dialogue):
    _, _, rows = dialogue
    ids = [r["dialogue_id"] for r in rows["dialogues"]]
    assert "nvidia-dec" in ids
    assert all(re.fullmatch(r"[^\s#A-Z]+(-[^\s#A-Z]+)+", i) for i in ids), ids
    non_ascii = [i for i in ids if not i.isascii()]
    assert 1 <= len(non_ascii) <= max(3, len(ids) // 5)
    experts = {r["expert"] for r in rows["experts"]}
    assert any(not e.isascii() for e in experts)


def test_expert_prefix_pair_in_one_dialogue(dialogue):
    _, _, rows = dialogue
    per = defaultdict(set)
    for r in rows["experts"]:
        per[r["dialogue_id"]].add(r["expert"])
    assert any({"ann", "anna"} <= names for names in per.values())
    # perspectives and events only name experts of their own dialogue
    assert all(r["expert"] in per[r["dialogue_id"]] for r in rows["perspectives"])
    assert all(r["actor"] in per[r["dialogue_id"]] for r in rows["tension_events"])


def test_rounds_go_past_nine_and_seq_counts_from_one(dialogue):
    _, _, rows = dialogue
    rounds = [int(r["round"]) for r in rows["perspectives"]]
    assert min(rounds) == 0 and 9 < max(rounds) <= 15
    seqs = defaultdict(list)
    for r in rows["perspectives"]:
        seqs[(r["dialogue_id"], r["expert"])].append(int(r["seq"]))   # each expert's posts, numbered from 1
    assert all(s == list(range(1, len(s) + 1)) for s in seqs.values())


def test_largest_dialogue_has_over_100_tensions(dialogue):
    _, _, rows = dialogue
    per = Counter(r["dialogue_id"] for r in rows["tensions"])
    top, n = per.most_common(1)[0]
    assert n > 100
    tids = [r["tension_id"] for r in rows["tensions"] if r["dialogue_id"] == top]
    assert tids[:3] == ["T01", "T02", "T03"] and "T10" in tids and "T100" in tids
    assert all(re.fullmatch(r"T\d{2,}", t) for t in tids)


def test_perspectives_are_zipf_skewed(dialogue):
    _, _, rows = dialogue
    per = Counter(r["dialogue_id"] for r in rows["perspectives"])
    sizes = [per.get(r["dialogue_id"], 0) for r in rows["dialogues"]]
    assert max(sizes) >= 10 * statistics.median(sizes)
    assert 10 <= statistics.median(sizes) <= 100  # most dialogues hold dozens


def test_dialogue_value_vocabularies(dialogue):
    _, _, rows = dialogue
    assert {r["status"] for r in rows["dialogues"]} <= {"open", "closed", "archived"}
    assert Counter(r["status"] for r in rows["dialogues"]).most_common(1)[0][0] == "open"
    assert {r["status"] for r in rows["perspectives"]} == {"draft", "final", "retracted"}
    assert {r["status"] for r in rows["tensions"]} == {"open", "resolved", "deferred"}
    for r in rows["dialogues"]:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", r["created_at"])
        assert "2025-12-01" <= r["created_at"] < "2026-06-01"
    for r in rows["experts"]:
        assert re.fullmatch(r"\d{1,3}(\.\d{1,3})?", r["score"]) and 0 <= float(r["score"]) <= 100
    assert any(len(r["score"].partition(".")[2]) == 3 for r in rows["experts"])


def test_text_is_mixed_unicode_with_varied_lengths(dialogue):
    _, _, rows = dialogue
    contents = [r["content"] for r in rows["perspectives"]]
    sizes = [len(c.encode()) for c in contents]
    assert min(sizes) < 50 and max(sizes) > 2000
    joined = "".join(contents)
    assert re.search(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]", joined)  # CJK
    assert re.search(r"[\U0001F300-\U0001FAFF]", joined)                      # emoji
    assert re.search(r"[éèêëüöäåñçï]", joined)                                # accents
    assert any("\n" in c for c in contents)


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


def test_realms_are_skewed(document):
    _, _, rows = document
    per = Counter(d["realm_id"] for d in rows["documents"])
    top3 = sum(n for _, n in per.most_common(3))
    assert top3 > 0.5 * len(rows["documents"])


def test_links_reference_documents_of_the_same_realm(document):
    _, _, rows = document
    numbers = defaultdict(set)
    for d in rows["documents"]:
        numbers[d["realm_id"]].add(d["doc_number"])
    assert rows["links"]
    pairs = [(r["realm_id"], r["from_doc"], r["to_doc"]) for r in rows["links"]]
    assert len(pairs) == len(set(pairs))
    for r in rows["links"]:
        assert r["from_doc"] in numbers[r["realm_id"]] and r["to_doc"] in numbers[r["realm_id"]]
        assert r["from_doc"] != r["to_doc"]
        assert r["link_type"] in ("references", "supersedes", "implements", "relates")


# ------------------------------------------------------------------ errors, crash safety, writers

@pytest.mark.parametrize("domain", ["dialog", "", "DOCUMENT"])
def test_bad_domain_is_a_source_error(tmp_path, domain):
    with pytest.raises(SourceError) as e:
        generate_sample(domain, scale=10, seed=1, out_dir=tmp_path)
    assert repr(domain) in str(e.value) and "dialogue" in e.value.hint and "document" in e.value.hint
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("scale", [0, -5, "10", 2.5, True])
def test_bad_scale_is_a_source_error(tmp_path, scale):
    with pytest.raises(SourceError, match="scale"):
        generate_sample("dialogue", scale=scale, seed=1, out_dir=tmp_path)


def test_out_dir_that_is_a_file_is_a_source_error(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(SourceError, match="not a directory"):
        generate_sample("document", scale=10, seed=1, out_dir=tmp_path / "f")


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


def test_jsonl_writer_sorts_sets_and_encodes_bytes(tmp_path):
    specs = {"things": ("jsonl", ("id", "tags", "blob", "blobs", "nested"))}
    with SourceFiles(tmp_path, specs) as files:
        files.write("things", ("café", {"b", "a", "東京"}, b"\x00\xff", {b"\x02", b"\x01"}, {"l": [1, 2.5]}))
        files.write("things", {"id": "x", "tags": frozenset({"z"})})
    lines = (tmp_path / "things.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines[0] == ('{"id": "café", "tags": ["a", "b", "東京"], "blob": "AP8=", "blobs": ["AQ==", "Ag=="], '
                        '"nested": {"l": [1, 2.5]}}')
    assert json.loads(lines[1]) == {"id": "x", "tags": ["z"], "blob": None, "blobs": None, "nested": None}
    assert files.counts == {"things": 2}


def test_csv_writer_rejects_nested_values_and_cleans_up(tmp_path):
    with pytest.raises(SourceError, match="jsonl"):
        with SourceFiles(tmp_path, {"flat": ("csv", ("a", "b"))}) as files:
            files.write("flat", ("ok", None))
            files.write("flat", ("bad", ["list"]))
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SourceError, match="expected 2"):
        with SourceFiles(tmp_path, {"flat": ("csv", ("a", "b"))}) as files:
            files.write("flat", ("only one",))
    assert list(tmp_path.iterdir()) == []
