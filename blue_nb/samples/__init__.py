"""Sample data: deterministic, realistic relational source rows for any spec, from its key templates,
types and ``generate:`` section, written as CSV and JSON Lines files; the ADR 0018 example domains
(dialogue, document) by name, and their committed samples regenerated where missing.

Layer 2.
"""

from blue_nb.samples.draws import looks_like_time
from blue_nb.samples.generate import SAMPLE_DOMAINS, SAMPLE_SPECS, generate_sample
from blue_nb.samples.prepare import SAMPLE_PARAMS, prepare_samples
from blue_nb.samples.spec_sample import plan_sample, sample_spec

__all__ = ["SAMPLE_DOMAINS", "SAMPLE_PARAMS", "SAMPLE_SPECS", "generate_sample", "looks_like_time", "plan_sample", "prepare_samples",
           "sample_spec"]
