"""Findings: what a design check found, where in the spec, how to fix it, and the sample keys
that show it; and :class:`Findings`, the sorted report of one validation."""

from __future__ import annotations

import json
import re
from html import escape
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Iterable

__all__ = ["SEVERITIES", "SEVERITY_TITLES", "Finding", "Findings", "counted"]

SEVERITIES = ("error", "warning", "info")
#: severity -> the heading of its findings
SEVERITY_TITLES = {"error": "Errors", "warning": "Warnings", "info": "Notes"}


@dataclass(frozen=True)
class Finding:
    """One finding of one rule.

    ``where`` is a path into the spec (``entities.Perspective.key.sk``,
    ``access_patterns[3].key_condition.sk_begins_with``); ``evidence`` holds sample keys or values
    that show the problem when items were checked; ``spec`` names the spec file when several
    specs are checked together.
    """

    rule: str
    severity: str
    where: str
    message: str
    hint: str = ""
    evidence: tuple[str, ...] = ()
    spec: str = ""

    def __post_init__(self):
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, got {self.severity!r}")
        object.__setattr__(self, "evidence", tuple(self.evidence))

    def to_dict(self) -> dict[str, Any]:
        d = {"rule": self.rule, "severity": self.severity, "where": self.where, "message": self.message,
             "hint": self.hint, "evidence": list(self.evidence)}
        if self.spec:
            d["spec"] = self.spec
        return d

    def to_text(self) -> str:
        head = f"[{self.rule}] {self.spec + ' ' if self.spec else ''}{self.where}"
        lines = [head, *_indent(self.message, 4)]
        if self.evidence:
            lines.append("    evidence:")
            lines += [f"      - {e}" for e in self.evidence]
        if self.hint:
            lines += _indent("fix: " + self.hint, 4)
        return "\n".join(lines)

    def __str__(self) -> str:
        return f"{self.severity} {self.rule} {self.where}: {self.message}"


def counted(n: int, noun: str, plural: str = "") -> str:
    """``1 item``, ``2 items``, ``1,024 keys``."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def _indent(text: str, n: int) -> list[str]:
    return [" " * n + line for line in text.splitlines()]


def _natural(text: str) -> tuple:
    """Sort key that orders access_patterns[2] before access_patterns[10]."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


class Findings(Sequence):
    """The findings of one validation, errors first, then warnings, then notes (info).

    ``spec`` is the spec file (or domain) checked; ``items_checked`` how many items were
    streamed through the item checks (``None`` when no data was given).
    """

    def __init__(self, findings: Iterable[Finding] = (), spec: str = "", items_checked: int | None = None,
                 rule_order: Sequence[str] = ()):
        order = {r: i for i, r in enumerate(rule_order)}
        self._items = sorted(findings, key=lambda f: (SEVERITIES.index(f.severity), order.get(f.rule, len(order)),
                                                      f.rule, f.spec, _natural(f.where)))
        self.spec = spec
        self.items_checked = items_checked

    def __getitem__(self, i):
        return self._items[i]

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        """The review as a table, for notebooks."""
        colors = {"error": "#b00020", "warning": "#a15c00", "info": "#555"}
        rows = "".join(
            f"<tr><td style='color:{colors[f.severity]};vertical-align:top'>{f.severity}</td>"
            f"<td style='white-space:nowrap;text-align:left;vertical-align:top'>{escape(f.rule)}</td>"   # never ADR4-/SINGLE-
            f"<td style='text-align:left;vertical-align:top'><code>{escape(f.where)}</code></td>"
            f"<td style='text-align:left'>{escape(f.message)}"
            + "".join(f"<br><small><code>{escape(e)}</code></small>" for e in f.evidence)
            + (f"<br><i>fix: {escape(f.hint)}</i>" if f.hint else "") + "</td></tr>"
            for f in self._items)
        head = f"<p><b>{escape(self.spec or 'spec')}</b>: {escape(self.summary())}</p>"
        if not rows:
            return head
        return (head + "<table><tr><th>severity</th><th>rule</th><th>where</th><th>finding</th></tr>"
                + rows + "</table>")

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(1 for f in self._items if f.severity == s) for s in SEVERITIES}

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self._items)

    @property
    def rule_ids(self) -> set[str]:
        return {f.rule for f in self._items}

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self._items if f.severity == "error"]

    def by_rule(self, rule: str) -> list[Finding]:
        return [f for f in self._items if f.rule == rule]

    def by_severity(self, severity: str) -> list[Finding]:
        return [f for f in self._items if f.severity == severity]

    def to_dicts(self) -> list[dict[str, Any]]:
        """One dict per finding (a DataFrame's records in a notebook)."""
        return [f.to_dict() for f in self._items]

    def to_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "findings": self.to_dicts(), "counts": self.counts}

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def summary(self) -> str:
        c = self.counts
        return ", ".join([counted(c["error"], "error"), counted(c["warning"], "warning"), counted(c["info"], "note")])

    def to_text(self) -> str:
        """A review: a header, then the findings grouped by severity with where, message,
        evidence and fix."""
        data = ("spec only (give --data DIR to check the items too)" if self.items_checked is None
                else f"{self.items_checked:,} items checked")
        lines = [f"Review of {self.spec or 'the spec'}: {data}", self.summary()]
        if not self._items:
            lines.append("No findings: the design follows ADR 0018 and stays within DynamoDB's limits.")
        for sev in SEVERITIES:
            group = self.by_severity(sev)
            if group:
                lines += ["", f"{SEVERITY_TITLES[sev]} ({len(group)})", ""]
                lines += ["\n".join(_indent(f.to_text(), 2)) + "\n" for f in group]
        return "\n".join(lines).rstrip() + "\n"

    def __str__(self) -> str:
        return self.to_text()

    def _repr_pretty_(self, p, cycle) -> None:       # IPython / Jupyter: show the review
        p.text(self.to_text())
