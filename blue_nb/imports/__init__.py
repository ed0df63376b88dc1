"""Foreign formats in: a DynamoDB S3 export, Blue's SQLite file, a live DynamoDB table or a NoSQL
Workbench model becomes a draft spec, row files that rebuild its items, and items to load.

The import (:mod:`.workflow`) streams each table (:mod:`.table_sources`) into a scratch store of
raw items by key (:mod:`.raw_store`), infers the draft spec in one pass (:class:`SpecInferrer`,
:mod:`.infer`; key shapes in :mod:`.infer_shapes`, what is known of the keys in
:mod:`.infer_keys`), and writes rows proven to rebuild each item (:mod:`.infer_rows`). A
Workbench model is read whole (:mod:`.workbench`, :mod:`.workbench_spec`, :mod:`.workbench_rows`).

Layer 2, above the stores, the file readers and dynamo, which it uses.
"""

from blue_nb.imports.infer import Draft, EntityPlan, SpecInferrer, domain_name, infer_spec
from blue_nb.imports.infer_keys import KeyInfo, guess_keys, keys_from_describe
from blue_nb.imports.infer_rows import RowMaker, RowWriter
from blue_nb.imports.workbench import WorkbenchModel, WorkbenchTable, read_workbench
from blue_nb.imports.workflow import IMPORT_FORMATS, WORKBENCH_EXTRA, ImportResult, load_and_check, staged_import

__all__ = ["Draft", "EntityPlan", "IMPORT_FORMATS", "ImportResult", "KeyInfo", "RowMaker", "RowWriter", "SpecInferrer",
           "WORKBENCH_EXTRA", "WorkbenchModel", "WorkbenchTable", "domain_name", "guess_keys", "infer_spec",
           "keys_from_describe", "load_and_check", "read_workbench", "staged_import"]
