"""The design model: dataclasses, key templates, spec file read/write, JSON Schema.

Layer 0: imports nothing heavier than the standard library and PyYAML.
"""

from pathlib import Path

from blue_nb.spec.edit import with_attribute, with_entity, with_key, with_pattern, without_pattern
from blue_nb.spec.io import check_spec_dict, dump_spec, dumps_spec, load_spec, loads_spec, spec_from_dict
from blue_nb.spec.model import (ACTION_LIMITS, ACTION_OPERATIONS, MAX_TOTAL_SEGMENTS, SEGMENT_PARAMETER, ATTRIBUTE_TYPES, KEY_TYPES, MAX_CAPACITY_UNITS, MAX_RATE, OPERATIONS, READ_OPERATIONS,
                                RULE_PROFILES, SELECTS, SK_OPERATORS, WRITE_OPERATIONS, AccessPattern, Entity, Filter,
                                Action, Index, Join, KeyCondition, Spec, Table, named_pattern_path, pattern_path)
from blue_nb.spec.schema import json_schema
from blue_nb.spec.templates import SEPARATOR, KeyTemplate, Placeholder

__all__ = [
    "ACTION_LIMITS", "ACTION_OPERATIONS", "Action", "MAX_TOTAL_SEGMENTS", "SEGMENT_PARAMETER", "ATTRIBUTE_TYPES", "KEY_TYPES", "MAX_CAPACITY_UNITS", "MAX_RATE", "OPERATIONS", "READ_OPERATIONS", "RULE_PROFILES",
    "SELECTS", "SK_OPERATORS", "WRITE_OPERATIONS",
    "AccessPattern", "Entity", "Filter", "Index", "Join", "KeyCondition", "KeyTemplate", "Placeholder", "SEPARATOR",
    "Spec", "Table", "check_spec_dict", "dump_spec", "dumps_spec", "json_schema", "load_spec", "loads_spec",
    "named_pattern_path", "pattern_path", "spec_from_dict", "schema_path", "with_attribute", "with_entity", "with_key", "with_pattern",
    "without_pattern",
]


def schema_path():
    """Path of the JSON Schema file shipped in the package."""
    return Path(__file__).with_name("spec.schema.json")
