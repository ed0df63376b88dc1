"""blue_nb: design DynamoDB single-table schemas (ADR 0018) in notebooks before committing to one.

Layers (see docs and tests/test_layers.py): errors and spec (L0); values, sizing, items, frames
(L1); stores and sources (L2); workflows (L3); cli (L4).
"""

from blue_nb.errors import BlueNbError, SpecError
from blue_nb.spec import KeyTemplate, Spec, dump_spec, load_spec, loads_spec

__version__ = "0.1.0"

__all__ = ["BlueNbError", "KeyTemplate", "Spec", "SpecError", "__version__", "dump_spec", "load_spec", "loads_spec"]
