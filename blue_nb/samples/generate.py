"""Deterministic, realistic relational sample rows for the ADR 0018 example domains.

``generate_sample("dialogue", scale=5000, seed=7, out_dir="data/sample/dialogue")`` writes one
file per source table (see :data:`SAMPLE_SOURCES`) and returns the rows written per source.
``scale`` is the approximate total number of rows over all sources; the same
``(domain, scale, seed)`` always gives byte-identical files. Rows are generated and written one
collection (a dialogue, a realm) at a time, so memory stays bounded at any scale.

The data is skewed like real use: Zipf-sized collections (a few dialogues with thousands of
perspectives, most with dozens; a few realms with most documents), timestamps spread over the
six months before 2026-06-01 UTC, mixed Unicode text, prefix-colliding names (``ann``/``anna``,
``T10``/``T100``), more than nine rounds, and documents near and over DynamoDB's 400 KB limit.

What both domain generators share (the text pools and size planning) is in :mod:`.text`.
"""

from __future__ import annotations

import random
from pathlib import Path

from blue_nb.errors import SourceError
from blue_nb.samples.dialogue import generate_dialogue
from blue_nb.samples.document import generate_document
from blue_nb.samples.spec_sample import check_scale_and_seed
from blue_nb.samples.writers import SourceFiles, row_ticks

GENERATORS = {"dialogue": generate_dialogue, "document": generate_document}

__all__ = ["GENERATORS", "SAMPLE_DOMAINS", "SAMPLE_SOURCES", "generate_sample"]

SAMPLE_DOMAINS = ("dialogue", "document")

# source name -> (file format, columns); the column names are the contract of the specs' key templates
SAMPLE_SOURCES: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "dialogue": {
        "dialogues": ("csv", ("dialogue_id", "title", "status", "created_at")),
        "experts": ("csv", ("dialogue_id", "expert", "role", "tier", "score")),
        "perspectives": ("csv", ("dialogue_id", "round", "expert", "seq", "label", "content", "status")),
        "tensions": ("csv", ("dialogue_id", "tension_id", "description", "status")),
        "tension_events": ("csv", ("dialogue_id", "tension_id", "ts", "event_type", "actor", "reason")),
    },
    "document": {
        "realms": ("csv", ("realm_id", "name", "path")),
        "documents": ("jsonl", ("realm_id", "doc_type", "doc_number", "title", "status", "content", "tags")),
        "links": ("csv", ("realm_id", "from_doc", "to_doc", "link_type")),
    },
}


def generate_sample(domain: str, *, scale: int, seed: int, out_dir: str | Path,
                    progress: bool = False) -> dict[str, int]:
    """Write the sample source files of ``domain`` into ``out_dir``; return rows per source."""
    if domain not in SAMPLE_DOMAINS:
        raise SourceError(f"unknown sample domain {domain!r}", where="domain",
                          hint=f"use one of: {', '.join(SAMPLE_DOMAINS)}")
    check_scale_and_seed(scale, seed)
    gen = GENERATORS[domain]
    rng = random.Random(seed)
    with row_ticks(scale, f"sample {domain}", progress) as tick, SourceFiles(out_dir, SAMPLE_SOURCES[domain]) as files:
        gen(rng, scale, files, tick)
    return files.counts
