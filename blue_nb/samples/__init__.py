"""Sample data: deterministic, realistic relational source rows for the ADR 0018 example domains
(dialogue, document), written as CSV and JSON Lines files, and the committed samples regenerated
where missing.

Layer 2.
"""

from blue_nb.samples.generate import SAMPLE_DOMAINS, SAMPLE_SOURCES, generate_sample
from blue_nb.samples.prepare import SAMPLE_PARAMS, prepare_samples

__all__ = ["SAMPLE_DOMAINS", "SAMPLE_PARAMS", "SAMPLE_SOURCES", "generate_sample", "prepare_samples"]
