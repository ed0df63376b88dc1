"""Where rows and items come from: sample-domain generators, file readers, and importers of real
data (DynamoDB S3 exports, Blue's SQLite rows) with the inference of a draft spec from items.

Layer 2.
"""

from blue_nb.sources.blue_sqlite import ADR_COLUMNS, check_columns, data_mode, decode_row
from blue_nb.sources.files import SOURCE_SUFFIXES, count_rows, find_source, iter_rows, text_lines
from blue_nb.sources.infer import SpecInferrer, domain_name, infer_spec
from blue_nb.sources.infer_keys import KeyInfo, guess_keys, keys_from_describe
from blue_nb.sources.infer_plan import Draft, EntityPlan
from blue_nb.sources.infer_rows import RowMaker, RowWriter
from blue_nb.sources.prepare import SAMPLE_PARAMS, prepare_samples
from blue_nb.sources.s3_export import Change, Export, find_exports, iter_changes
from blue_nb.sources.samples import SAMPLE_DOMAINS, generate_sample

__all__ = ["ADR_COLUMNS", "Change", "Draft", "EntityPlan", "Export", "KeyInfo", "RowMaker", "RowWriter", "SAMPLE_DOMAINS",
           "SAMPLE_PARAMS", "SOURCE_SUFFIXES", "SpecInferrer", "check_columns", "count_rows", "data_mode",
           "decode_row", "domain_name", "find_exports", "find_source", "generate_sample", "guess_keys", "infer_spec",
           "iter_changes", "iter_rows", "keys_from_describe", "prepare_samples", "text_lines"]
