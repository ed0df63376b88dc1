"""The shipped domains' samples, drawn by the spec engine from their specs' ``generate:`` sections.

``generate_sample("dialogue", scale=5000, seed=7, out_dir="data/sample/dialogue")`` is
``sample_spec(data/specs/dialogue.yaml, ...)``: it writes one file per source table (see
:data:`SAMPLE_SOURCES`) and returns the rows written per source. ``scale`` is the approximate total
number of rows over all sources; the same ``(domain, scale, seed)`` always gives byte-identical
files, and memory stays flat at any scale.

The data is skewed like real use, as the ``generate:`` sections declare it: a few big dialogues
(the first, ``nvidia-dec``, the ADR's example) and Zipf-sized rest, more than nine rounds, tension
ids past ``T100``, non-ASCII ids and mixed Unicode text, the ``ann``/``anna`` prefix pair; realms of
Zipf-skewed sizes and document bodies near and over DynamoDB's 400 KB limit.
"""

from __future__ import annotations

from pathlib import Path

from blue_nb.errors import SourceError
from blue_nb.samples.spec_sample import plan_sample, sample_spec
from blue_nb.spec import load_spec

__all__ = ["SAMPLE_DOMAINS", "SAMPLE_SOURCES", "SAMPLE_SPECS", "generate_sample"]

SAMPLE_DOMAINS = ("dialogue", "document")
#: domain -> its shipped spec, whose generate: section draws the sample
SAMPLE_SPECS = {d: Path(__file__).resolve().parents[2] / "data" / "specs" / f"{d}.yaml" for d in SAMPLE_DOMAINS}


def _sources(domain: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    plan, _ = plan_sample(load_spec(SAMPLE_SPECS[domain]), 1 << 40)
    return plan.sources


# source name -> (file format, columns); the column names are the contract of the specs' key templates
SAMPLE_SOURCES: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {d: _sources(d) for d in SAMPLE_DOMAINS}


def generate_sample(domain: str, *, scale: int, seed: int, out_dir: str | Path,
                    progress: bool = False) -> dict[str, int]:
    """Write the sample source files of ``domain`` into ``out_dir``; return rows per source."""
    if domain not in SAMPLE_DOMAINS:
        raise SourceError(f"unknown sample domain {domain!r}", where="domain",
                          hint=f"use one of: {', '.join(SAMPLE_DOMAINS)}, or give a spec file")
    return sample_spec(SAMPLE_SPECS[domain], scale=scale, seed=seed, out_dir=out_dir, progress=progress,
                       desc=f"sample {domain}")
