"""The shipped domains' samples, drawn by the spec engine from their specs' ``generate:`` sections.

``generate_sample("dialogue", scale=5000, seed=7, out_dir="data/sample/dialogue")`` is
``sample_spec("data/specs/dialogue.yaml", ...)`` (see :data:`SAMPLE_SPECS`): it writes one file per
entity source and returns the rows written per source. ``scale`` is the approximate total number of
rows over all sources; the same ``(domain, scale, seed)`` always gives byte-identical files, and
memory stays flat at any scale.

The data is skewed like real use, as the ``generate:`` sections declare it: a few big dialogues
(the first, ``nvidia-dec``, the ADR's example) and Zipf-sized rest, more than nine rounds, tension
ids past ``T100``, non-ASCII ids and mixed Unicode text, the ``ann``/``anna`` prefix pair; realms of
Zipf-skewed sizes and document bodies near and over DynamoDB's 400 KB limit.
"""

from __future__ import annotations

from pathlib import Path

from blue_nb.errors import SourceError
from blue_nb.samples.spec_sample import sample_spec

__all__ = ["SAMPLE_DOMAINS", "SAMPLE_SPECS", "generate_sample"]

SAMPLE_DOMAINS = ("dialogue", "document")
#: domain -> its shipped spec (in the project folder), whose generate: section draws the sample
SAMPLE_SPECS = {d: Path(__file__).resolve().parents[2] / "data" / "specs" / f"{d}.yaml" for d in SAMPLE_DOMAINS}


def generate_sample(domain: str, *, scale: int, seed: int, out_dir: str | Path,
                    progress: bool = False) -> dict[str, int]:
    """Write the sample source files of ``domain`` into ``out_dir``; return rows per source."""
    if domain not in SAMPLE_DOMAINS:
        raise SourceError(f"unknown sample domain {domain!r}", where="domain",
                          hint=f"use one of: {', '.join(SAMPLE_DOMAINS)}, or give a spec file")
    spec = SAMPLE_SPECS[domain]
    if not spec.is_file():
        raise SourceError(f"the {domain} domain's spec {spec} is missing, so its sample cannot be drawn",
                          where="domain", hint="run from a checkout of blue_nb (pip install -e .), "
                          "or give a spec file: blue-nb sample SPEC")
    return sample_spec(spec, scale=scale, seed=seed, out_dir=out_dir, progress=progress, desc=f"sample {domain}")
