"""The workload of an access pattern: which parameter values its calls take, and how often.

The candidates of a pattern are the distinct parameter tuples found in the items of its
entities, counted in DuckDB: a parameter that is a placeholder of one of the entity's key
templates is cut out of the catalog column holding that key (table ``pk`` / ``sk``, or an index's
key columns as :class:`~blue_nb.layout.TableLayout` names them) with a regular expression built
from the template; any other parameter is read from the item's attribute in ``data``. ``count(*)`` of a tuple is the data's
own frequency of it.

Each candidate's request key (``qpk``, ``qsk1``, ``qsk2``: the key condition rendered) is
rendered in SQL too; placeholders with a format spec (``{round:03d}``) are formatted in Python
once per distinct value, exactly as :meth:`KeyTemplate.render` does.

Weights. A distribution draws the *partition* a call goes to (the rendered ``qpk``, "the key"
of the key distribution), then the rest of the tuple within that partition:

* ``uniform``: every partition 1/G, every tuple in it 1/k (k tuples in the partition);
* ``sample``: tuple count / total count (the data's own frequencies);
* ``zipf:s``: partitions ranked by size (most items, or index entries, under the key first; then
  the most candidates; ties in key order), weight proportional to 1/rank^s; within a partition,
  tuples by their count.

Drawing the partition first keeps a Zipf law on the keys that heat up (a hot dialogue gets most
of the new perspectives) instead of on single items that happen to sort first; ranking by the
size of the item collection makes the same big dialogue the hot one for every pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from blue_nb.errors import QueryError, TemplateError
from blue_nb.layout import TableLayout
from blue_nb.spec import SEPARATOR, AccessPattern, KeyTemplate, Placeholder, Spec
from blue_nb.stores import Store
from blue_nb.stores.analytics import Scratch, Sql, frame, ident, param

__all__ = ["Candidates", "build_candidates", "candidates", "parse_distribution", "template_regex", "render_sql"]


def parse_distribution(text: str) -> tuple[str, float]:
    """``"zipf:1.2"`` -> ("zipf", 1.2); ``"uniform"`` -> ("uniform", 0.0)."""
    kind, _, arg = (text or "uniform").partition(":")
    if kind == "zipf":
        try:
            return "zipf", float(arg)
        except ValueError:
            raise QueryError(f"bad key distribution {text!r}", hint="write zipf:<s>, e.g. zipf:1.2") from None
    if kind not in ("uniform", "sample"):
        raise QueryError(f"unknown key distribution {text!r}", hint="use uniform, sample or zipf:<s>")
    return kind, 0.0


def template_regex(t: KeyTemplate) -> tuple[str, dict[str, int]]:
    """An RE2 pattern that matches a whole key of ``t`` and the group number of each placeholder
    (its first occurrence): literal parts escaped, a placeholder ``([^#]*)`` before a separator
    or at the end, else a lazy ``(.*?)``."""
    out, groups, n = [], {}, 0
    for i, part in enumerate(t.parts):
        if isinstance(part, str):
            out.append(re.escape(part))
            continue
        nxt = t.parts[i + 1] if i + 1 < len(t.parts) else None
        bounded = nxt is None or (isinstance(nxt, str) and nxt.startswith(SEPARATOR))
        out.append("([^#]*)" if bounded else "(.*?)")
        n += 1
        groups.setdefault(part.name, n)
    return "(?s)^" + "".join(out) + "$", groups


def render_sql(t: KeyTemplate, columns: dict[str, str], formatted: dict[tuple[str, str], str]) -> Sql:
    """The SQL expression rendering ``t`` from parameter columns (``formatted`` for ``{name:fmt}``);
    the template's literal parts are parameters."""
    parts: list[Sql | str] = []
    for p in t.parts:
        if isinstance(p, str):
            parts.append(param(p))
        else:
            parts.append(formatted[(p.name, p.fmt)] if p.fmt else columns[p.name])
    if len(parts) == 1:
        return Sql.join("", parts)
    return Sql.format("({parts})", parts=Sql.join(" || ", parts))


@dataclass
class _Source:
    """Where a parameter's value lives in an entity's items."""

    expr: Sql
    condition: Sql | None = None
    needs_data: bool = False


def _key_column(spec: Spec, attr: str) -> str | None:
    t, layout = spec.table, TableLayout.of(spec)
    if attr == t.partition_key:
        return "c.pk"
    if attr == t.sort_key:
        return "c.sk"
    for name, (ipk, isk) in layout.indexes.items():
        if attr == ipk:
            return "c." + ident(layout.index_pk(name))
        if attr == isk:
            return "c." + ident(layout.index_sk(name))
    return None


def _path(name: str) -> str:
    return '$."' + name.replace('"', '\\"') + '"'


def _attribute_expr(name: str) -> Sql:
    path = _path(name)
    return Sql("coalesce(json_extract_string(t.data, ?), json_extract_string(t.data, ?))", (path + ".S", path + ".N"))


def _sources(spec: Spec, entity: str, names: list[str]) -> dict[str, _Source] | None:
    """Parameter -> where it lives in ``entity``'s items; None when one of them lives nowhere."""
    e = spec.entities[entity]
    order = [spec.table.partition_key, spec.table.sort_key, *e.templates]
    found: dict[str, _Source] = {}
    for name in names:
        for attr in dict.fromkeys(a for a in order if a in e.templates):
            t = e.templates[attr]
            if name not in t.placeholders:
                continue
            key = _key_column(spec, attr)
            col = Sql(key) if key else Sql("json_extract_string(t.data, ?)", (_path(attr) + ".S",))
            regex, groups = template_regex(t)
            # The pattern is bound: DuckDB plans a prepared statement with its parameter values, so a
            # bound pattern counts as constant and is compiled once (EXPLAIN shows it folded in), not per
            # row. The group must be a constant too; it is a number we generate, so it stays inline.
            group, rx = groups[name], param(regex)
            if not isinstance(group, int) or isinstance(group, bool):
                raise ValueError(f"regexp_extract group of {name!r} must be an int (it is written into SQL "
                                 f"text), not {group!r}")
            found[name] = _Source(Sql.format("regexp_extract({col}, {rx}, {group})", col=col, rx=rx, group=str(group)),
                                  Sql.format("regexp_full_match({col}, {rx})", col=col, rx=rx), key is None)
            break
        else:
            if name in e.attributes:
                found[name] = _Source(_attribute_expr(name), None, True)
            else:
                return None
    return found


def _entity_select(spec: Spec, entity: str, names: list[str], cat: str, main: str) -> Sql | None:
    src = _sources(spec, entity, names)
    if src is None:
        return None
    cols = [Sql.format("{e} AS {name}", e=s.expr, name=ident("p_" + n)) for n, s in src.items()]
    conds = [Sql("c.entity = ?", (entity,)), *dict.fromkeys(s.condition for s in src.values() if s.condition)]
    conds += [Sql.format("coalesce({e}, '') <> ''", e=s.expr) for s in src.values()]
    join = f" JOIN {main} t ON t.pk = c.pk AND t.sk = c.sk" if any(s.needs_data for s in src.values()) else ""
    return Sql.format("SELECT {cols}, count(*) AS n FROM {cat} c{join} WHERE {conds} GROUP BY ALL",
                      cols=Sql.join(", ", cols), cat=cat, join=join, conds=Sql.join(" AND ", conds))


@dataclass
class Candidates:
    """A pattern's candidate table in the store: ``cid, p_<param>..., qpk, qsk1, qsk2, n, grank, gn, gk, w``
    (``grank``, ``gn``, ``gk``: the rank, data count and tuple count of the candidate's request key)."""

    pattern: AccessPattern
    table: str | None                      # quoted temp table name; None when there is no data for it
    params: list[str] = field(default_factory=list)
    count: int = 0
    skipped_entities: list[str] = field(default_factory=list)

    def frame(self, store: Store) -> pd.DataFrame:
        cols = [*(f"p_{n}" for n in self.params), "qpk", "qsk1", "qsk2", "n", "w"]
        if self.table is None:
            return pd.DataFrame(columns=["cid", *self.params, "qpk", "qsk1", "qsk2", "n", "w"])
        return frame(store, f"SELECT cid, {', '.join(ident(c) for c in cols)} FROM {self.table} ORDER BY cid",
                     ["cid", *self.params, "qpk", "qsk1", "qsk2", "n", "w"])


def _format_maps(scratch: Scratch, spec: Spec, p: AccessPattern, raw: str) -> tuple[dict, list[str]]:
    """For each ``{name:fmt}`` of the key condition: a table raw value -> formatted value."""
    formatted, joins = {}, []
    kc = p.key_condition
    placeholders = {(x.name, x.fmt): x for t in [kc.pk_template, *kc.sk_templates] for x in t.parts
                    if isinstance(x, Placeholder) and x.fmt}
    for k, (key, ph) in enumerate(placeholders.items()):
        col = ident("p_" + ph.name)
        values = [r[0] for r in scratch.execute(f"SELECT DISTINCT {col} FROM {raw}")]
        table = scratch.upload(f"fmt{p.name}_{k}", {"raw": "TEXT", "val": "TEXT"},
                               ((v, _format(ph, v)) for v in values))
        alias = f"f{k}"
        formatted[key] = f"{alias}.val"
        joins.append(f" LEFT JOIN {table} {alias} ON {alias}.raw = a.{col}")
    return formatted, joins


def _format(ph: Placeholder, value: str) -> str | None:
    try:
        return ph.format(value)
    except TemplateError:
        return None


def _weight_sql(kind: str, s: float) -> Sql:
    if kind == "uniform":
        return Sql("1.0 / g.ng / g.gk")
    if kind == "sample":
        return Sql("CAST(r.n AS DOUBLE) / g.tot")
    return Sql("pow(g.grank, -?) / g.zsum * r.n / g.gn", (s,))


def partition_counts(scratch: Scratch, spec: Spec, index: str) -> str:
    """A temp table ``(pk, items)``: items (or index entries) per partition key of the table or an index."""
    base = f"pc_{index}"
    if scratch.name(base) in scratch.cache:
        return scratch.cache[scratch.name(base)]
    layout = TableLayout.of(spec)
    col = "pk" if index == "table" else ident(layout.index_pk(index))
    cat = ident(layout.catalog)
    table = scratch.create_as(base, f"SELECT {col} AS pk, count(*) AS items FROM {cat} WHERE {col} IS NOT NULL "
                                    "GROUP BY 1")
    scratch.cache[scratch.name(base)] = table
    return table


def build_candidates(scratch: Scratch, spec: Spec, p: AccessPattern, tag: str = "") -> Candidates:
    """Create the candidate table of pattern ``p`` (see the module docstring) in the scratch space."""
    if p.key_condition is None:
        return Candidates(p, None)
    names = p.key_condition.placeholders   # a filter's values decide what a call returns, not what it reads or costs
    layout = TableLayout.of(spec)
    cat, main = ident(layout.catalog), ident(layout.table)
    selects: list[Sql] = []
    skipped: list[str] = []
    for entity in p.entities:
        if entity not in spec.entities:
            continue
        sql = _entity_select(spec, entity, names, cat, main) if names else None
        if names and sql is None:
            skipped.append(entity)
        elif sql:
            selects.append(sql)
    if not names:
        ents = Sql.join(", ", map(param, p.entities)) if p.entities else Sql("NULL")
        selects = [Sql.format("SELECT greatest(1, count(*)) AS n FROM {cat} c WHERE c.entity IN ({ents})",
                              cat=cat, ents=ents)]
    if not selects:
        return Candidates(p, None, list(names), 0, skipped)
    pcols = [ident("p_" + n) for n in names]
    group = (", ".join(pcols) + ", ") if pcols else ""
    rsql = (Sql.format("SELECT {group}CAST(sum(n) AS BIGINT) AS n FROM ({selects}) GROUP BY ALL", group=group,
                       selects=Sql.join(" UNION ALL ", selects)) if pcols else
            Sql.format("SELECT CAST(sum(n) AS BIGINT) AS n FROM ({select})", select=selects[0]))
    raw = scratch.create_as(f"raw{tag}", rsql.text, rsql.params)
    formatted, joins = _format_maps(scratch, spec, p, raw)
    columns = {n: "a." + ident("p_" + n) for n in names}
    kc = p.key_condition
    qpk = render_sql(kc.pk_template, columns, formatted)
    sks = [render_sql(t, columns, formatted) for t in kc.sk_templates] + [Sql("NULL"), Sql("NULL")]
    kind, s = parse_distribution(p.key_distribution)
    need = " AND ".join(["qpk IS NOT NULL"] + [f"qsk{i + 1} IS NOT NULL" for i in range(len(kc.sk_templates))])
    order = ", ".join(["r.qpk", "r.qsk1", "r.qsk2", *(f"r.{c}" for c in pcols)])
    pc = partition_counts(scratch, spec, p.index)
    sql = Sql.format("""
        WITH r0 AS (SELECT a.*, {qpk} AS qpk, CAST({sk1} AS TEXT) AS qsk1, CAST({sk2} AS TEXT) AS qsk2
                    FROM {raw} a{joins}),
             r AS (SELECT * FROM r0 WHERE {need}),
             g0 AS (SELECT qpk, sum(n) AS gn, count(*) AS gk FROM r GROUP BY qpk),
             g1 AS (SELECT g0.*, row_number() OVER (ORDER BY coalesce(pc.items, 0) DESC, gn DESC, qpk) AS grank
                    FROM g0 LEFT JOIN {pc} pc ON pc.pk = g0.qpk),
             g AS (SELECT *, count(*) OVER () AS ng, sum(gn) OVER () AS tot,
                          sum(pow(grank, -{s})) OVER () AS zsum FROM g1)
        SELECT CAST(row_number() OVER (ORDER BY {order}) - 1 AS BIGINT) AS cid, r.*, g.grank, g.gn, g.gk,
               CAST({w} AS DOUBLE) AS w
        FROM r JOIN g USING (qpk)""", qpk=qpk, sk1=sks[0], sk2=sks[1], raw=raw, joins="".join(joins), need=need,
                     pc=pc, s=param(s), order=order, w=_weight_sql(kind, s))
    table = scratch.create_as(f"cand{tag}", sql.text, sql.params)
    count = scratch.execute(f"SELECT count(*) FROM {table}")[0][0]
    return Candidates(p, table if count else None, list(names), count, skipped)


def candidates(store: Store, spec: Spec, pattern: AccessPattern | str) -> pd.DataFrame:
    """The candidates of one pattern as a DataFrame: ``cid``, one column per parameter, the rendered
    request key ``qpk`` / ``qsk1`` / ``qsk2``, the data's count ``n`` and the weight ``w``."""
    scratch = store.analytics()
    p = spec.pattern(pattern) if isinstance(pattern, str) else pattern
    try:
        return build_candidates(scratch, spec, p).frame(store)
    finally:
        scratch.close()
