"""Terminal text that lines up: cells padded to the columns a terminal shows them in
(:func:`blue_nb.printing.display_width`: East Asian wide characters take two columns, combining marks none)."""

from __future__ import annotations

from blue_nb.printing import display_width

__all__ = ["pad", "table_lines"]


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
