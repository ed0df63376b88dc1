"""The design checks: ADR 0018's principles and DynamoDB's limits, over a spec and (when given)
its items. Layer 1: imports only errors, values, spec and sizing of blue_nb, and the stdlib.

>>> findings = check_spec(spec, items)       # items: (entity name, item) pairs, streamed once
>>> print(findings.to_text()); findings.has_errors

* :mod:`.findings` - :class:`Finding`, :class:`Findings` (the report: text, JSON, counts)
* :mod:`.registry` - :data:`RULES` (rule id -> severity and description), how checks register
* :mod:`.spec_rules` - ADR1..ADR5, PATTERN-KEY-MISMATCH, KEY-TYPE
* :mod:`.schema_rules` - INDEX-LIMITS, INDEX-PROJECTION, NAME-RULES, RESERVED-WORD, UNUSED-INDEX, UNSERVED-ENTITY
* :mod:`.key_rules` - KEY-PREFIX-COLLISION, KEY-SORT-ORDER, KEY-SEPARATOR-IN-VALUE, KEY-SIZE on the templates
* :mod:`.data_rules`, :mod:`.data_keys`, :mod:`.data_prefix` - ITEM-SIZE and the key rules on the items, with evidence
* :mod:`.key_rows` - :class:`KeyRows`: a loaded table's items as key columns, as the checks read a store
* :mod:`.heat_rules` - HOT-PARTITION, HOT-INDEX-PARTITION, PARTITION-SIZE, MONOTONIC-WRITES,
  ITEM-SIZE-NEAR-LIMIT, TABLE-CAPACITY, HEAT-MODEL: defined here, emitted by :mod:`blue_nb.heat`; FILTER-DISCARDS,
  emitted by :mod:`blue_nb.app.filter_waste` (it runs the pattern and prices it)
* :mod:`.reserved` - DynamoDB's 573 reserved words
"""

# isort: off  (the order registers the rules: check's rules, then the heat model's, last in RULES)
from blue_nb.rules.check import ItemChecks, check_spec, check_specs, findings_of
from blue_nb.rules import heat_rules  # noqa: F401
# isort: on
from blue_nb.rules.findings import SEVERITIES, SEVERITY_TITLES, Finding, Findings
from blue_nb.rules.registry import RULES, Context, DataCheck, Rule, data_check, define, spec_check
from blue_nb.rules.reserved import is_reserved, needs_alias, reserved_words
from blue_nb.rules.spec_rules import single_table_findings

__all__ = [
    "RULES", "SEVERITIES", "SEVERITY_TITLES", "Context", "DataCheck", "Finding", "Findings", "ItemChecks", "Rule",
    "check_spec", "check_specs", "data_check", "define", "findings_of", "is_reserved", "needs_alias",
    "reserved_words", "single_table_findings", "spec_check",
]
