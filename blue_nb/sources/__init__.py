"""Where rows and items come from: sample-domain generators and file readers (importers join later).

Layer 2.
"""

from blue_nb.sources.files import SOURCE_SUFFIXES, count_rows, find_source, iter_rows, text_lines
from blue_nb.sources.prepare import SAMPLE_PARAMS, prepare_samples
from blue_nb.sources.samples import SAMPLE_DOMAINS, generate_sample

__all__ = ["SAMPLE_DOMAINS", "SAMPLE_PARAMS", "SOURCE_SUFFIXES", "count_rows", "find_source", "generate_sample",
           "iter_rows", "prepare_samples", "text_lines"]
