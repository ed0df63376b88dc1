"""The stores' own schema (layer 1): how a spec's items sit in the local SQL stores.

* :mod:`.tables` - :class:`TableLayout`: ADR 0018's table, its catalog, the load's staging and journal tables,
  their DDL and row shapes, and :func:`quote_ident`, the one way an identifier enters SQL
* :mod:`.staged` - :class:`StagedRows`: the rows a load stages for a run of items

Pure: the DDL and the rows are data. The stores (layer 2) execute them; the patterns, heat, sizes and imports
read the same names from here.
"""

from blue_nb.layout.staged import StagedRows, load_time
from blue_nb.layout.tables import (KEY_FORMAT, KEY_SQL, LOADS_TABLE, MAIN_COLUMNS, TableLayout, catalog_name, catalog_table_sql,
                                   checks_record_name, has_number_keys, index_column, item_shape_digest, main_table_sql, quote_ident,
                                   source_rows_name, spec_record_name, staging_name, stored_key)

__all__ = ["KEY_FORMAT", "KEY_SQL", "LOADS_TABLE", "MAIN_COLUMNS", "StagedRows", "TableLayout", "catalog_name", "catalog_table_sql",
           "checks_record_name", "has_number_keys", "index_column", "item_shape_digest", "load_time", "main_table_sql", "quote_ident",
           "source_rows_name", "spec_record_name", "staging_name", "stored_key"]
