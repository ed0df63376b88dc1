"""blue_nb: design DynamoDB single-table schemas (ADR 0018) in notebooks before committing to one.

The front door: ``from blue_nb import load_spec, DesignSession, PatternExplorer`` and the other
names in ``__all__``. Each is imported from its room the first time it is used, so importing
``blue_nb`` (or a pure room such as ``blue_nb.spec``) loads no heavy library.

The rooms, in layers: a module imports only from layers below its own (``a | b``: independent
rooms of one layer). The contract is in pyproject.toml and ``lint-imports`` checks it::

    L4  cli                     the command line
    L3  widgets                 ipywidgets views: pattern explorer, heat sliders
    L3  app                     what notebooks and the CLI call: workflows, design session, what-if, reports
    L3  plots                   matplotlib figures: take data, return a Figure
    L2  pricing                 price tables, the monthly bill in dollars, what-if of two bills
    L2  heat                    partition heat: workload model, per-partition units, throttle prediction
    L2  imports | sizes         foreign formats in, spec inference | measured sizes of a loaded table
    L2  stores | samples | sources | dynamo | export  SQLite/DuckDB | sample data | file readers | boto3 | export formats
    L1  patterns | rules        bind, plan (SQL per store, boto3 request), pages | design checks
    L1  layout                  the stores' own schema: tables, catalog, staging and journal
    L1  sizing                  item sizes and capacity units: one item, a batch in columns
    L1  items                   DynamoDB values and codecs; rows -> items
    L0  spec | printing         the design model: spec files, key templates, JSON Schema | how values print
    L0  errors                  one exception tree, BlueNbError at its root

The benchmark is outside the package (``bench/``); docs/architecture.md tells where each rule lives.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> the room it lives in
_EXPORTS = {
    "BlueNbError": "errors", "SpecError": "errors",
    "KeyTemplate": "spec", "Spec": "spec", "dump_spec": "spec", "load_spec": "spec", "loads_spec": "spec",
    "with_key": "spec", "with_pattern": "spec",
    "item_size": "sizing", "item_sizes": "sizing", "read_units": "sizing", "write_units": "sizing",
    "Plan": "patterns", "ReadResult": "patterns", "WriteResult": "patterns", "plan": "patterns",
    "check_spec": "rules", "Findings": "rules",
    "open_store": "stores", "load_items": "stores",
    "generate_sample": "samples", "sample_spec": "samples", "profile_data": "app.profile",
    "partition_heat": "heat",
    "DesignSession": "app.session",
    "compare_stores": "app.workflows", "entity_summary": "app.workflows", "largest_items": "app.workflows",
    "largest_partitions": "app.workflows", "load_data": "app.workflows", "run_pattern": "app.workflows",
    "sample_items": "app.workflows", "source_files": "app.workflows", "validate": "app.workflows",
    "spec_frame": "app.frames", "size_stats_frame": "app.frames", "value_frame": "app.frames", "short_names": "app.whatif", "size_whatif": "app.whatif",
    "heat_report": "app.reports",
    "design_cost": "app.costs", "cost_whatif": "app.costs", "read_waste": "pricing",
    "plan_migration": "app.migrate", "execute_migration": "app.migrate_run",
    "apply_spec": "app.roundtrip", "open_endpoint": "app.roundtrip", "close_endpoint": "app.roundtrip",
    "run_on_endpoint": "app.roundtrip", "import_data": "app.imports", "export_spec": "app.exports", "DisplayTable": "app.display", "export_all": "app.exports",
    "export_python": "app.python_export", "call_package": "app.python_export",
    "PatternExplorer": "widgets", "HeatExplorer": "widgets",
    "key_heatmap": "plots", "top_keys_chart": "plots", "attribute_sizes": "plots", "capacity_waste": "plots",
    "index_entry_sizes": "plots", "item_size_distribution": "plots", "partition_sizes": "plots",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    room = _EXPORTS.get(name)
    if room is None:
        raise AttributeError(f"module 'blue_nb' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"blue_nb.{room}"), name)
    globals()[name] = value                      # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
