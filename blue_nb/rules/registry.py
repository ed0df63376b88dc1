"""The rule registry: every rule id with its default severity and one-line description, and the
checks that implement it.

A rule is declared once with :func:`define`; a check over the spec alone is a function
``check(ctx) -> Iterable[Finding]`` registered with :func:`spec_check`; a check over items is a
class registered with :func:`data_check` (see :class:`DataCheck`). Adding a rule is: define it,
write one small function or class, decorate it.

Every rule id any part of blue_nb reports is defined here, whoever emits it. ``Rule.source`` says
who: ``"check"`` (the default) for the rules :func:`blue_nb.rules.check_spec` evaluates through
the checks registered above; ``"heat"`` for the rules the partition heat model emits
(:mod:`.heat_rules`), which need a store and have no check here. The order of definition is the
report's order of rules within a severity.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Callable, Iterable

from blue_nb.rules.findings import SEVERITIES, Finding
from blue_nb.rules.key_rows import KeyRows
from blue_nb.rules.keyspace import Layout
from blue_nb.spec import Spec

__all__ = ["ADR_RULES", "Context", "DataCheck", "Rule", "RULES", "SOURCES", "SPEC_CHECKS", "DATA_CHECKS", "TEMPLATE_ADVICE",
           "define", "spec_check", "data_check", "under_profile"]

SOURCES = ("check", "heat")     # who emits a rule's findings: check_spec's checks, or the heat model

# The rule profiles (a spec's ``rules``, blue_nb.spec.RULE_PROFILES). "adr-0018" answers to every rule.
# "dynamodb", a design made elsewhere, answers to DynamoDB's limits and the key checks: Blue's ADR rules do
# not apply, and the key-template conventions that make Blue's keys safe to parse are advice (warnings),
# since DynamoDB stores such keys as they are.
ADR_RULES = frozenset({"ADR1-SINGLE-TABLE", "ADR2-PARTITION-SCOPED", "ADR3-NO-CROSS-PARTITION-JOIN",
                       "ADR4-SINGLE-WRITER", "ADR5-SORT-KEY-FORMAT"})
TEMPLATE_ADVICE = frozenset({"KEY-PREFIX-COLLISION", "KEY-SORT-ORDER", "KEY-SEPARATOR-IN-VALUE"})


def under_profile(profile: str, findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` as the rule profile ``profile`` counts them (see :data:`ADR_RULES`)."""
    if profile != "dynamodb":
        return list(findings)
    return [replace(f, severity="warning") if f.rule in TEMPLATE_ADVICE and f.severity == "error" else f
            for f in findings if f.rule not in ADR_RULES]


@dataclass(frozen=True)
class Rule:
    """A rule id, its default severity, what it finds and who emits it (``source``, one of :data:`SOURCES`)."""

    id: str
    severity: str
    description: str
    source: str = "check"

    def finding(self, where: str, message: str, hint: str = "", evidence: Iterable[str] = (),
                severity: str | None = None) -> Finding:
        """A finding of this rule (default severity unless ``severity`` says otherwise)."""
        return Finding(self.id, severity or self.severity, where, message, hint, tuple(evidence))

    def to_dict(self) -> dict[str, str]:
        return {"severity": self.severity, "description": self.description, "source": self.source}


RULES: dict[str, Rule] = {}
SPEC_CHECKS: list[tuple[str, Callable[["Context"], Iterable[Finding]]]] = []
DATA_CHECKS: list[tuple[str, type["DataCheck"]]] = []


def define(rule_id: str, severity: str, description: str, *, source: str = "check") -> Rule:
    """Declare a rule (once); returns it. ``source="heat"``: emitted by the heat model, not checked here."""
    if severity not in SEVERITIES:
        raise ValueError(f"severity of {rule_id} must be one of {SEVERITIES}, got {severity!r}")
    if source not in SOURCES:
        raise ValueError(f"source of {rule_id} must be one of {SOURCES}, got {source!r}")
    if rule_id in RULES:
        raise ValueError(f"rule {rule_id} is defined twice")
    RULES[rule_id] = Rule(rule_id, severity, description, source)
    return RULES[rule_id]


def _checked(rule_id: str) -> Rule:
    rule = RULES[rule_id]
    if rule.source != "check":
        raise ValueError(f"rule {rule_id} is emitted by {rule.source}, not by a check of check_spec")
    return rule


def spec_check(rule_id: str):
    """Register ``fn(ctx) -> Iterable[Finding]`` as a spec check of a defined rule."""
    def register(fn):
        SPEC_CHECKS.append((_checked(rule_id).id, fn))
        return fn
    return register


def data_check(rule_id: str):
    """Register a :class:`DataCheck` subclass as the item check of a defined rule."""
    def register(cls):
        cls.rule = _checked(rule_id)
        DATA_CHECKS.append((rule_id, cls))
        return cls
    return register


@dataclass
class Context:
    """What a check sees: the spec, whether items will be checked too, and shared derived facts."""

    spec: Spec
    with_data: bool = False

    @cached_property
    def layout(self) -> Layout:
        return Layout(self.spec)


class DataCheck:
    """An item check: fed every (entity name, item) once, in one streaming pass; keeps only
    bounded state (counters, distinct placeholder values, a few sample keys), never the items."""

    rule: Rule

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.spec = ctx.spec

    def add(self, entity: str, item: dict[str, Any]) -> None:
        raise NotImplementedError

    def add_chunk(self, entries: list[tuple[str, dict[str, Any], int | None]]) -> None:
        """:meth:`add` for each ``(entity, item, size)`` of a chunk, in its order; a check with a faster way
        over many items (a screen that clears most of them at once) overrides it, same findings."""
        for entity, item, _ in entries:
            self.add(entity, item)

    def add_rows(self, rows: KeyRows) -> None:
        """:meth:`add_chunk` for a chunk of a loaded table read a column at a time (rows whose entity is None are
        left out); a check that reads the key columns directly overrides it, same findings."""
        self.add_chunk([(e, rows.item(i), s) for i, (e, s) in enumerate(zip(rows.entities, rows.sizes))
                        if e is not None])

    def findings(self) -> Iterable[Finding]:
        raise NotImplementedError
