"""Sample data: deterministic, realistic relational source rows for the ADR 0018 example domains
(dialogue, document), written as CSV and JSON Lines files, and the committed samples regenerated
where missing; and rows for any spec, from its key templates, types and ``generate:`` section.

Layer 2.
"""

from blue_nb.samples.draws import looks_like_time
from blue_nb.samples.generate import SAMPLE_DOMAINS, SAMPLE_SOURCES, generate_sample
from blue_nb.samples.prepare import SAMPLE_PARAMS, prepare_samples
from blue_nb.samples.spec_sample import plan_sample, sample_spec

__all__ = ["SAMPLE_DOMAINS", "SAMPLE_PARAMS", "SAMPLE_SOURCES", "generate_sample", "looks_like_time", "plan_sample", "prepare_samples",
           "sample_spec"]
