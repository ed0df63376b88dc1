"""How a spec shows itself: a compact text and a compact HTML table, never the dataclass dump.

Layer 0 (standard library only). :func:`html_table` is the small table renderer the notebook
displays of the higher rooms reuse (load results, size tables): every cell escaped, text cells
left-aligned and numbers right-aligned explicitly (JupyterLab right-aligns every cell by default).
"""

from __future__ import annotations

from html import escape
from typing import Any, Sequence

__all__ = ["html_table", "key_condition_text", "pattern_condition_text", "spec_html", "spec_text"]

_TABLE_STYLE = "border-collapse:collapse;font-size:12px;margin:2px 0 8px 0"
_CELL = "text-align:{};white-space:nowrap"
# a long text cell: wrapped between words (and within a word only where one word is wider than the column)
_WRAP = "text-align:left;white-space:normal;overflow-wrap:anywhere;min-width:5em"


def html_table(header: Sequence[str], rows: Sequence[Sequence[Any]], *, right: Sequence[int] = (),
               index: Sequence[Any] | None = None, caption: str = "", wrap: Sequence[int] = ()) -> str:
    """``rows`` as an HTML table; columns numbered in ``right`` are right-aligned, the rest left. Cells stay on
    one line, but those of the columns numbered in ``wrap`` (long text): they wrap between words, so a wide
    table fits the notebook and every column stays in view.

    With ``index`` (one label per row) the first column is a row header (``<th>``), as in a
    pandas table, so tools that read pandas tables read this one the same way.
    """
    def cell(tag: str, value: Any, col: int) -> str:
        align = "right" if col in right else "left"
        if tag == "td" and col in wrap:
            return f"<td style='{_WRAP}'>{escape(str(value))}</td>"
        return f"<{tag} style='{_CELL.format(align)}'>{escape(str(value))}</{tag}>"

    head = "".join(cell("th", h, i) for i, h in enumerate(header))
    lead_head = "<th></th>" if index is not None else ""
    body = []
    for n, row in enumerate(rows):
        lead = f"<th style='{_CELL.format('left')}'>{escape(str(index[n]))}</th>" if index is not None else ""
        body.append("<tr>" + lead + "".join(cell("td", v, i) for i, v in enumerate(row)) + "</tr>")
    cap = f"<caption style='text-align:left;caption-side:top'>{escape(caption)}</caption>" if caption else ""
    return (f"<table class='dataframe' style='{_TABLE_STYLE}'>{cap}<thead><tr>{lead_head}{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def key_condition_text(kc, pk: str = "pk", sk: str | None = "sk") -> str:
    """``pk = "{dialogue_id}" AND begins_with(sk, "PERSP#")``: a pattern's key condition as DynamoDB reads
    it, with the key attribute names of the table or index it runs on; a scan reads ``(whole table)``."""
    if kc is None:
        return "(whole table)"
    text = f'{pk} = "{kc.pk}"'
    if not kc.sk_op:
        return text
    values = [f'"{v}"' for v in (kc.sk_value if isinstance(kc.sk_value, list) else [kc.sk_value])]
    if kc.sk_op == "sk_begins_with":
        return f"{text} AND begins_with({sk}, {values[0]})"
    if kc.sk_op == "sk_between":
        return f"{text} AND {sk} BETWEEN {values[0]} AND {values[1]}"
    op = {"sk": "=", "sk_lt": "<", "sk_lte": "<=", "sk_gt": ">", "sk_gte": ">="}[kc.sk_op]
    return f"{text} AND {sk} {op} {values[0]}"


def pattern_condition_text(spec, p) -> str:
    """:func:`key_condition_text` of pattern ``p`` with the key names of the index it runs on
    (a scan of an index reads ``(whole index)``; a transaction or a batch: its actions, ``put_x + update_y``)."""
    if p.actions:
        return " + ".join(("check " if a.check else "") + a.pattern for a in p.actions)
    if p.key_condition is None:
        return "(whole table)" if p.index == "table" else "(whole index)"
    return key_condition_text(p.key_condition, *_pattern_keys(spec, p))


def _keys(spec) -> str:
    t = spec.table
    sk = f" + {t.sort_key} ({t.sort_key_type})" if t.sort_key else ""
    return f"{t.partition_key} ({t.partition_key_type}){sk}"


def _headline(spec) -> str:
    return (f"Spec {spec.domain}: table {spec.table_name}, key {_keys(spec)}, {spec.table.billing_mode}; "
            f"{_n(len(spec.table.indexes), 'index', 'indexes')}, {_n(len(spec.entities), 'entity', 'entities')}, "
            f"{_n(len(spec.access_patterns), 'access pattern')}")


def _n(n: int, noun: str, plural: str = "") -> str:
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def _index_rows(spec) -> list[list[str]]:
    rows = []
    for name, idx in spec.table.indexes.items():
        pk, sk = spec.key_attributes(name)
        proj = ", ".join(idx.projection) if isinstance(idx.projection, list) else idx.projection
        rows.append([name, idx.type, pk, sk or "", proj])
    return rows


def _entity_rows(spec) -> tuple[list[str], list[list[str]]]:
    key_names = [spec.table.partition_key, *([spec.table.sort_key] if spec.table.sort_key else [])]
    for pk, sk in spec.index_key_attributes().values():
        key_names += [k for k in (pk, sk) if k and k not in key_names]
    rows = [[e.name, *[e.key.get(k, "") for k in key_names], ", ".join(f"{a}:{t}" for a, t in e.attributes.items()),
             e.writer or ""] for e in spec.entities.values()]
    return ["entity", *key_names, "attributes", "writer"], rows


def _pattern_rows(spec) -> list[list[str]]:
    return [[p.name, p.operation, p.index, pattern_condition_text(spec, p),
             ", ".join(p.entities),
             f"{p.rate_per_second:g}/s" if p.rate_per_second else ""] for p in spec.access_patterns]


def _pattern_keys(spec, p) -> tuple[str, str | None]:
    """The key attribute names of the table or index a pattern runs on (its own names if unknown)."""
    try:
        return spec.key_attributes(p.index)
    except KeyError:
        return "pk", "sk"


def spec_text(spec) -> str:
    """The spec in a few aligned lines: table and keys, indexes, entities with key templates, patterns."""
    lines = [_headline(spec)]
    lines += [f"  index {n} ({t}): {pk}{' + ' + sk if sk else ''}, projection {proj}"
              for n, t, pk, sk, proj in _index_rows(spec)]
    header, rows = _entity_rows(spec)
    width = max((len(r[0]) for r in rows), default=0)
    for r in rows:
        keys = "  ".join(f"{k}={v}" for k, v in zip(header[1:-2], r[1:-2]) if v)
        lines.append(f"  entity  {r[0]:<{width}}  {keys}")
    width = max((len(p.name) for p in spec.access_patterns), default=0)
    for name, op, index, cond, _, rate in _pattern_rows(spec):
        on = "" if index == "table" else f" on {index}"
        lines.append(f"  pattern {name:<{width}}  {op}{on}: {cond}{'  ' + rate if rate else ''}")
    return "\n".join(lines)


def spec_html(spec) -> str:
    """The spec as compact tables (keys, indexes, entities, patterns) for a notebook."""
    parts = [f"<p><b>{escape(_headline(spec))}</b>"
             + (f"<br><small>{escape(spec.description)}</small>" if spec.description else "") + "</p>"]
    if spec.table.indexes:
        parts.append(html_table(["index", "type", "partition key", "sort key", "projection"], _index_rows(spec)))
    header, rows = _entity_rows(spec)
    parts.append(html_table(header, rows))
    if spec.access_patterns:
        parts.append(html_table(["pattern", "operation", "index", "key condition", "entities", "rate"],
                                _pattern_rows(spec), right=(5,)))
    return "<div>" + "".join(parts) + "</div>"
