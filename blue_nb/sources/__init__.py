"""File readers: where rows and items are read from. Source files of rows (CSV, JSON Lines,
Parquet) and their columnar staging for the loader; a DynamoDB S3 export's data files; the rows of
Blue's SQLite tables (ADR 0018). The sample generators are in :mod:`blue_nb.samples`, the imports
of real data and the inference of a draft spec in :mod:`blue_nb.imports`.

Layer 2.
"""

from blue_nb.sources.blue_sqlite import ADR_COLUMNS, check_columns, data_mode, decode_row
from blue_nb.sources.files import SOURCE_SUFFIXES, count_rows, find_source, iter_rows, text_lines
from blue_nb.sources.s3_export import Change, Export, find_exports, iter_changes

__all__ = ["ADR_COLUMNS", "Change", "Export", "SOURCE_SUFFIXES", "check_columns", "count_rows", "data_mode",
           "decode_row", "find_exports", "find_source", "iter_changes", "iter_rows", "text_lines"]
