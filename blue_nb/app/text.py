"""Terminal text that lines up: widths as a terminal shows them (East Asian wide characters take two
columns, combining marks none)."""

from __future__ import annotations

import unicodedata

__all__ = ["display_width", "pad", "table_lines"]


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal."""
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal columns (never cut)."""
    return text + " " * max(0, width - display_width(text))


def table_lines(rows: list[list[str]]) -> list[str]:
    """Rows of cells as lines whose columns line up; the last cell of a row is not padded."""
    if not rows:
        return []
    n = max(len(r) for r in rows)
    widths = [max((display_width(r[i]) for r in rows if i < len(r) - 1), default=0) for i in range(n)]
    return ["  ".join(pad(c, widths[i]) if i < len(r) - 1 else c for i, c in enumerate(r)).rstrip() for r in rows]
