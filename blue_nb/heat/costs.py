"""What one call of a pattern costs on the partition it hits, for every candidate at once.

For each candidate (``cid``) of a pattern (``pid``) this module appends rows to three tables:

* ``calls(pid, cid, rcu, wcu, items, bytes, pages)``: the per-call cost;
* ``effects(pid, cid, idx, pk, rcu, wcu, floor)``: the units one call puts on each partition it
  touches (a write touches the table partition and, for each index the item is in, one index
  partition); ``floor`` is the least a read call costs on any partition it touches (1 strong, 0.5
  eventual), which no split of the collection can lower;
* ``hits(pid, cid, idx, pk, item, rcu, wcu)``: the same units per item (for "one item can never
  exceed the limit" and Contributor Insights' per-(pk, sk) view).

The candidates and the entries they match are found, ordered and joined in SQL; the DynamoDB
rules come from the layers below, stated once there. A query's matched entries (in key order) are
cut into pages by :func:`blue_nb.patterns.pages_of`, the page rule a store's run follows
(:func:`blue_nb.patterns.paginate`): a page ends after ``limit`` entries or with the entry that
takes its bytes read to or past 1 MB. Each page's bytes are rounded up once to 4 KB
(:func:`blue_nb.sizing.read_units`: 0.5 per 4 KB eventual, and always eventual on a GSI), at least
one unit per page. A pattern with a ``limit`` reads one page per call (its first ``limit`` entries,
cut by the same 1 MB rule). A pattern without one reads every page: when its last page ended by
reaching 1 MB, that page carried a LastEvaluatedKey, so the call pays one more, empty page at the
minimum (1 strong, 0.5 eventual). A get's, a write's and an index write's units are
:func:`blue_nb.sizing.capacity.unit_blocks` of the item's (or entry's) bytes, for every candidate
at once in numpy.

Approximations (said here, once):

* S keys compare by bytes exactly as DynamoDB does, N sort keys by value (:func:`number_order`, exact over
  DynamoDB's range), and a tie on an index key by the table key, as a store's read orders it; B sort keys
  compare as their base64 text.
* A scan costs ceil(bytes / 4 KB) per call (the per-page rounding is ignored) and is spread over
  every partition of the table or index in proportion to its bytes; a parallel scan's call reads one
  segment, modelled as 1/N of the entries (the calls spread over the segments alike). Its pages are counted as if
  every entry had the mean entry size m, so a page holds P = ceil(1 MB / m) entries (the last one
  reaching 1 MB): a scan with a ``limit`` reads min(limit, P) entries in one page; one without
  reads every entry in n // P + 1 pages, the last one empty (one more minimum) when P divides n.
* A transaction or a batch is priced as its actions, each a pattern of its own drawn from its own
  candidates at the enclosing pattern's rate (the actions of one call are drawn apart, not from one
  set of parameters); in a transaction each item's units are doubled (a get 2 per 4 KB, a write 2 per
  1 KB), its index writes are not, and a ConditionCheck writes no index.
* A write to a key with no item is priced at the median size of the pattern's entity, with no
  index writes (its index keys are unknown). A put or delete writes one entry in each index the
  item is in; an update writes two (delete + put, both counted on the item's current index
  partition) when the index's key templates use an attribute the update can change (a declared
  attribute that is not a parameter of the key condition), else one. An update with an UpdateExpression
  writes what the expression names, as the dry run finds item by item: two when it sets the index's key
  attribute, one when it changes an attribute the index projects, none otherwise (the entry is as it was).
* A conditional write's ConditionExpression is evaluated on the item at each candidate's key, as the dry
  run evaluates it: where it fails, the call writes nothing (no index either) and pays the write units of
  the item it met, at least 1 (:func:`blue_nb.patterns.write_cost`'s rule). A condition whose values take
  parameters (which the data does not give) is assumed to pass, and the pattern is named in
  ``assumed_pass``; so is every action of a transaction (priced as committing).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from blue_nb.errors import BlueNbError
from blue_nb.items.item_json import stored_item
from blue_nb.patterns import bind, matches, pages_of
from blue_nb.layout import TableLayout
from blue_nb.heat.workload import Candidates, build_candidates
from blue_nb.sizing import PAGE_BYTES, READ_UNIT_BYTES, WRITE_UNIT_BYTES, read_units
from blue_nb.sizing.capacity import unit_blocks
from blue_nb.spec import AccessPattern, Spec
from blue_nb.spec.expressions import parse_update
from blue_nb.stores import Store
from blue_nb.stores.analytics import Scratch, frame, ident
from blue_nb.stores.entries import entries_table

__all__ = ["CostTables", "PAGE_TYPES", "call_costs", "cut_pages", "number_order", "read_factor", "read_mode"]


def read_mode(spec: Spec, p: AccessPattern) -> str:
    """How a pattern reads: ``strong`` when consistent on the table or an LSI, else ``eventual`` (a GSI read
    always is)."""
    idx = spec.table.indexes.get(p.index)
    return "strong" if p.consistent_read and (idx is None or idx.type == "local") else "eventual"


def read_factor(spec: Spec, p: AccessPattern) -> float:
    """Read units per 4 KB: 1 strong, 0.5 eventual (:func:`blue_nb.sizing.read_units` of one block)."""
    return float(read_units(1, read_mode(spec, p)))


PAGE_TYPES = {"cid": "BIGINT", "page": "BIGINT", "lo": "BIGINT", "hi": "BIGINT", "pb": "BIGINT", "rcu": "DOUBLE"}


def cut_pages(rows: tuple[np.ndarray, np.ndarray], limit: int | None, mode: str) -> pd.DataFrame:
    """The pages every call of a query pattern reads, cut by :func:`blue_nb.patterns.pages_of` (DynamoDB's
    page rule, the one a store's run follows) and priced by :func:`blue_nb.sizing.read_units`.

    ``rows``: the arrays ``(cid, entry bytes)`` of every entry each candidate matches, by cid, in key order
    (with a ``limit``, its first ``limit`` entries: one page per call). Returns a row per page (:data:`PAGE_TYPES`):
    ``cid, page`` (0, 1, ...), the row numbers ``lo`` to ``hi`` of its entries (``hi = lo - 1`` on an empty
    page), its bytes ``pb`` and read units. Without a limit a call whose last page reached 1 MB reads one
    more, empty page at the minimum; a call that matches nothing is not here (it reads one empty page)."""
    cids, sizes = rows
    starts = np.flatnonzero(np.r_[True, cids[1:] != cids[:-1]]) if len(cids) else np.zeros(0, np.int64)
    sizes, pages = sizes.tolist(), []
    for cid, a, b in zip(cids[starts].tolist(), starts.tolist(), [*starts[1:].tolist(), len(sizes)]):
        rn = 0
        for page, (_, ns, _) in enumerate(pages_of(sizes[a:b], None, limit)):
            pb = sum(ns)
            pages.append((cid, page, rn + 1, rn + len(ns), pb, read_units(pb, mode)))
            rn += len(ns)
            if limit:
                break
    return pd.DataFrame(pages, columns=list(PAGE_TYPES)).astype({"rcu": float})



def number_order(x: str) -> str:
    """SQL: a value that orders the number text ``x`` (as the stores keep a number key: plain, no exponent) by
    the number's value, exactly for all of DynamoDB's range (a DOUBLE holds 17 of its 38 digits): a struct of
    the sign, the power of ten of the first digit, and the significant digits (inverted for a negative)."""
    a = f"ltrim({x}, '-')"
    whole, frac = f"split_part({a}, '.', 1)", f"split_part({a}, '.', 2)"
    digits = f"rtrim(ltrim({whole} || {frac}, '0'), '0')"
    power = (f"CASE WHEN ltrim({whole}, '0') <> '' THEN length(ltrim({whole}, '0')) - 1 "
             f"ELSE length(ltrim({frac}, '0')) - length({frac}) - 1 END")
    return (f"(CASE WHEN {digits} = '' THEN {{'s': 0, 'm': 0, 'd': ''}} "
            f"WHEN starts_with({x}, '-') THEN {{'s': -1, 'm': -({power}), "
            f"'d': translate({digits}, '0123456789', '9876543210') || '~'}} "
            f"ELSE {{'s': 1, 'm': {power}, 'd': {digits}}} END)")

class CostTables:
    """The ``calls``, ``effects`` and ``hits`` tables of one heat run, filled pattern by pattern."""

    def __init__(self, scratch: Scratch, spec: Spec):
        self.scratch, self.spec, self.store = scratch, spec, scratch.store
        self.cat = ident(TableLayout.of(spec).catalog)
        self.calls = scratch.create_as("calls", "SELECT 0::INT AS pid, 0::BIGINT AS cid, 0.0::DOUBLE AS rcu, "
                                                "0.0::DOUBLE AS wcu, 0::BIGINT AS items, 0::BIGINT AS bytes, "
                                                "0::BIGINT AS pages LIMIT 0")
        cols = "0::INT AS pid, 0::BIGINT AS cid, ''::TEXT AS idx, ''::TEXT AS pk"
        self.effects = scratch.create_as("effects", f"SELECT {cols}, 0.0::DOUBLE AS rcu, 0.0::DOUBLE AS wcu, "
                                                    "0.0::DOUBLE AS floor LIMIT 0")
        self.hits = scratch.create_as("hits", f"SELECT {cols}, ''::TEXT AS item, 0.0::DOUBLE AS rcu, "
                                              "0.0::DOUBLE AS wcu LIMIT 0")
        self.transactional: set[int] = set()   # pids of a transaction's actions: 2 units per item (its own)
        self.checks: set[int] = set()          # pids of a transaction's ConditionChecks: the item's units, no index
        self.assumed_pass: set[str] = set()    # conditional writes whose condition's values take parameters: priced as passing

    def add(self, pid: int, c: Candidates) -> None:
        if not isinstance(pid, int) or isinstance(pid, bool):     # written into the SQL text as a number
            raise ValueError(f"a pattern id is an int (it is written into SQL text), not {pid!r}")
        p = c.pattern
        if p.operation == "scan":
            self._scan(pid, p)
        elif c.table is None:
            return
        elif p.operation in ("put_item", "update_item", "delete_item"):
            self._write(pid, p, c.table)
        elif p.operation == "get_item" and p.index == "table":
            self._get(pid, p, c.table)
        else:
            self._query(pid, p, c.table)

    # -- reads -----------------------------------------------------------------------------
    def _get(self, pid: int, p: AccessPattern, cand: str) -> None:
        f = float(read_units(1, "transactional")) if pid in self.transactional else read_factor(self.spec, p)
        m = self._priced(f"get{pid}", f"SELECT q.cid, q.qpk, coalesce(q.qsk1, '') AS qsk, i.size FROM {cand} q "
                                      f"LEFT JOIN {self.cat} i ON i.pk = q.qpk AND i.sk = coalesce(q.qsk1, '')",
                         {"rcu": ("coalesce(size, 0)", READ_UNIT_BYTES, f)})
        ex = self.scratch.execute
        ex(f"INSERT INTO {self.calls} SELECT {pid}, cid, rcu, 0, (size IS NOT NULL)::BIGINT, coalesce(size, 0), 1 "
           f"FROM {m}")
        ex(f"INSERT INTO {self.effects} SELECT {pid}, cid, 'table', qpk, rcu, 0, ? FROM {m}", [f])
        ex(f"INSERT INTO {self.hits} SELECT {pid}, cid, 'table', qpk, qsk, rcu, 0 FROM {m}")

    def _sk_condition(self, p: AccessPattern) -> str:
        kc = p.key_condition
        op = {"sk": "eq", "sk_begins_with": "begins_with", "sk_between": "between", "sk_lt": "<",
              "sk_lte": "<=", "sk_gt": ">", "sk_gte": ">="}.get(kc.sk_op or "")
        if op is None:
            return "TRUE"
        numeric = self._sk_type(p) == "N"
        col, a, b = (number_order("e.esk"), number_order("q.qsk1"), number_order("q.qsk2")) if numeric \
            else ("e.esk", "q.qsk1", "q.qsk2")
        if op == "eq":
            return f"{col} = {a}"
        if op == "begins_with":
            return "starts_with(e.esk, q.qsk1)"
        if op == "between":
            return f"{col} BETWEEN {a} AND {b}"
        return f"{col} {op} {a}"

    def _sk_type(self, p: AccessPattern) -> str:
        idx = self.spec.table.indexes.get(p.index)
        return idx.sort_key_type if idx is not None else self.spec.table.sort_key_type

    def _order(self, p: AccessPattern) -> str:
        _, sk_attr = self.spec.key_attributes(p.index)
        if not sk_attr:
            return "e.pk, e.sk"
        d = "" if p.scan_forward else " DESC"
        col = number_order("e.esk") if self._sk_type(p) == "N" else "e.esk"
        t = self.spec.table
        pk, sk = (number_order(f"e.{c}") if typ == "N" else f"e.{c}"
                  for c, typ in (("pk", t.partition_key_type), ("sk", t.sort_key_type)))
        return f"{col}{d}, {pk}{d}, {sk}{d}"       # ties by the table key, as a store's read orders them

    def _query(self, pid: int, p: AccessPattern, cand: str) -> None:
        ent = entries_table(self.scratch, self.spec, p.index)
        m = self.scratch.create_as(
            f"m{pid}", f"SELECT q.cid, e.pk AS ipk, e.sk AS isk, e.epk, e.esk, e.esize AS b, "
                       f"row_number() OVER (PARTITION BY q.cid ORDER BY {self._order(p)}) AS rn "
                       f"FROM {cand} q JOIN {ent} e ON e.epk = q.qpk AND {self._sk_condition(p)}")
        if p.limit:                                    # one page per call: no entry past the first `limit` is read
            self.scratch.execute(f"DELETE FROM {m} WHERE rn > ?", [int(p.limit)])
        mode = read_mode(self.spec, p)
        rows = tuple(self.scratch.column(f"SELECT {c} FROM {m} ORDER BY cid, rn") for c in ("cid", "b"))
        pg = self.scratch.upload_frame(f"pg{pid}", cut_pages(rows, p.limit, mode), PAGE_TYPES)
        ex = self.scratch.execute
        ex(f"INSERT INTO {self.calls} SELECT {pid}, q.cid, coalesce(c.rcu, ?), 0, coalesce(c.items, 0), "
           f"coalesce(c.bytes, 0), coalesce(c.pages, 1) FROM {cand} q LEFT JOIN (SELECT cid, sum(rcu) AS rcu, "
           f"sum(hi - lo + 1) AS items, sum(pb) AS bytes, count(*) AS pages FROM {pg} GROUP BY cid) c "
           "ON c.cid = q.cid", [read_units(0, mode)])
        ex(f"INSERT INTO {self.effects} SELECT {pid}, c.cid, ?, q.qpk, c.rcu, 0, ? FROM {self.calls} c "
           f"JOIN {cand} q ON q.cid = c.cid WHERE c.pid = {pid}", [p.index, read_units(0, mode)])
        item = "m.isk" if p.index == "table" else "m.esk || ' | ' || m.ipk || ' / ' || m.isk"
        ex(f"INSERT INTO {self.hits} SELECT {pid}, m.cid, ?, m.epk, {item}, "
           f"g.rcu * m.b / greatest(g.pb, 1), 0 FROM {m} m JOIN {pg} g ON g.cid = m.cid AND m.rn BETWEEN g.lo AND g.hi",
           [p.index])

    def _scan(self, pid: int, p: AccessPattern) -> None:
        ent = entries_table(self.scratch, self.spec, p.index)
        f = read_factor(self.spec, p)
        total, n = self.scratch.execute(f"SELECT coalesce(sum(esize), 0), count(*) FROM {ent} e")[0]
        total, n = int(total), int(n)
        per_page = max(1, -(-PAGE_BYTES * n // max(total, 1)))  # mean-size entries up to the one reaching 1 MB
        if p.total_segments:                               # a parallel scan's call reads one segment: 1/N of it
            n, total = -(-n // p.total_segments), total * -(-n // p.total_segments) // max(n, 1)
        if p.limit:                                        # one page: `limit` entries, or fewer at 1 MB
            k, pages, empty = min(n, int(p.limit), per_page), 1, 0
        else:                                              # every page; when the last one is full (it
            k, pages = n, n // per_page + 1                # carried a LastEvaluatedKey) one more, empty
            empty = int(n > 0 and n % per_page == 0)       # page follows at the minimum
        read = total * k // max(n, 1)
        mode = read_mode(self.spec, p)
        rcu = float(read_units(read, mode) + empty * read_units(0, mode))
        ex = self.scratch.execute
        ex(f"INSERT INTO {self.calls} VALUES ({pid}, 0, ?, 0, ?, ?, ?)", [rcu, k, read, pages])
        whole = self.scratch.execute(f"SELECT coalesce(sum(esize), 0) FROM {ent} e")[0][0] if p.total_segments else total
        ex(f"INSERT INTO {self.effects} SELECT {pid}, 0, ?, epk, ? * sum(esize) / ?, 0, ? FROM {ent} e GROUP BY epk",
           [p.index, rcu, max(int(whole), 1), f])

    # -- writes ----------------------------------------------------------------------------
    def _write(self, pid: int, p: AccessPattern, cand: str) -> None:
        entity = p.entities[0] if p.entities else None
        median = self.scratch.execute(f"SELECT quantile_disc(size, 0.5) FROM {self.cat} WHERE entity = ?",
                                    (entity,))[0][0] if entity else None
        base = 0 if p.operation == "delete_item" else int(median or 0)
        joins, cols, lsi, gsi = [], [], [], []
        units = {"tw": (f"coalesce(size, {base})", WRITE_UNIT_BYTES, 2 if pid in self.transactional else 1)}
        for k, (name, idx) in enumerate(self.spec.table.indexes.items()):
            ent = entries_table(self.scratch, self.spec, name)
            a = f"e{k}"
            joins.append(f" LEFT JOIN {ent} {a} ON {a}.pk = i.pk AND {a}.sk = i.sk")
            cols.append(f"{a}.epk AS epk{k}, {a}.esk AS esk{k}, CASE WHEN {a}.epk IS NOT NULL THEN {a}.esize END "
                        f"AS esize{k}")
            writes = 0 if pid in self.checks else self._index_writes(p, name)
            units[f"w{k}"] = (f"esize{k}", WRITE_UNIT_BYTES, writes)    # no entry: none
            (lsi if idx.type == "local" else gsi).append((k, name))
        extra = (", " + ", ".join(cols)) if cols else ""
        failed = self._failed_conditions(pid, p, cand)
        if failed:                 # a failed condition writes nothing and pays the item it met (at least 1 unit)
            units["tf"] = ("coalesce(size, 0)", WRITE_UNIT_BYTES, 1)
            joins.append(f" LEFT JOIN {failed} f ON f.cid = q.cid")
            extra += ", f.cid IS NOT NULL AS failed"
        w = self._priced(f"w{pid}", f"SELECT q.cid, q.qpk, coalesce(q.qsk1, '') AS qsk, i.size{extra} FROM {cand} q "
                                    f"LEFT JOIN {self.cat} i ON i.pk = q.qpk AND i.sk = coalesce(q.qsk1, '')"
                                    f"{''.join(joins)}", units)
        if failed:
            for k, _ in lsi + gsi:
                self.scratch.execute(f"UPDATE {w} SET w{k} = 0 WHERE failed")
            self.scratch.execute(f"UPDATE {w} SET tw = tf WHERE failed")
        table_w = " + ".join(["tw", *(f"w{k}" for k, _ in lsi)])
        all_w = " + ".join(["tw", *(f"w{k}" for k, _ in lsi + gsi)])
        ex = self.scratch.execute
        ex(f"INSERT INTO {self.calls} SELECT {pid}, cid, 0, {all_w}, 1, coalesce(size, 0), 1 FROM {w}")
        ex(f"INSERT INTO {self.effects} SELECT {pid}, cid, 'table', qpk, 0, {table_w}, 0 FROM {w}")
        ex(f"INSERT INTO {self.hits} SELECT {pid}, cid, 'table', qpk, qsk, 0, {table_w} FROM {w}")
        for k, name in gsi:
            ex(f"INSERT INTO {self.effects} SELECT {pid}, cid, ?, epk{k}, 0, w{k}, 0 FROM {w} "
               f"WHERE epk{k} IS NOT NULL", [name])
            ex(f"INSERT INTO {self.hits} SELECT {pid}, cid, ?, epk{k}, coalesce(esk{k}, '') || ' | ' || "
               f"qpk || ' / ' || qsk, 0, w{k} FROM {w} WHERE epk{k} IS NOT NULL", [name])

    def _failed_conditions(self, pid: int, p: AccessPattern, cand: str) -> str | None:
        """The candidates (``cid``) of a conditional write whose ConditionExpression fails on the item at their key,
        evaluated as the dry run evaluates it (:func:`~blue_nb.patterns.matches`), in a scratch table; None when
        none fails, when the pattern has no condition, when its condition's values take parameters (blue_nb then
        assumes it passes: :attr:`assumed_pass`), and for a transaction's action (priced as committing)."""
        if p.condition is None or pid in self.transactional:
            return None
        if p.condition.placeholders:
            self.assumed_pass.add(p.name)
            return None
        names = p.key_condition.placeholders if p.key_condition else []
        first = self.scratch.execute(f"SELECT {', '.join(ident('p_' + n) for n in names) or '1'} FROM {cand} "
                                     "ORDER BY cid LIMIT 1")
        if not first:
            return None
        try:                                     # the condition's values hold no parameter: bound once
            req = bind(self.spec, p, dict(zip(names, map(str, first[0]))) if names else {})
        except BlueNbError:
            self.assumed_pass.add(p.name)
            return None
        main = ident(TableLayout.of(self.spec).table)
        failed = [(cid,) for cid, data in self.scratch.execute(
            f"SELECT q.cid, t.data FROM {cand} q LEFT JOIN {main} t ON t.pk = q.qpk AND t.sk = coalesce(q.qsk1, '') "
            "ORDER BY q.cid") if not matches(req.condition, stored_item(data) if data is not None else {},
                                             req.condition_values)]
        return self.scratch.upload(f"fail{pid}", {"cid": "BIGINT"}, failed) if failed else None

    def _priced(self, base: str, select: str, units: dict[str, tuple[str, int, float]]) -> str:
        """The table ``select`` with a units column per ``units`` entry (name -> size SQL over the selected
        columns, unit bytes, units per block): :func:`blue_nb.sizing.capacity.unit_blocks` of the size (at least
        one unit; none where the size is NULL) times the factor, for every row at once in numpy."""
        raw = self.scratch.create_as(base + "_sizes", select)
        cols = {}
        for name, (size_sql, block, factor) in units.items():
            sizes = self.scratch.column(f"SELECT coalesce({size_sql}, -1) FROM {raw} ORDER BY rowid").astype(np.int64)
            cols[name] = np.where(sizes < 0, 0.0, unit_blocks(np.maximum(sizes, 0), block) * float(factor))
        u = self.scratch.upload_frame(base + "_units", pd.DataFrame(cols), {n: "DOUBLE" for n in cols})
        return self.scratch.create_as(base, f"SELECT r.*, {', '.join(f'u.{n}' for n in cols)} FROM {raw} r "
                                            f"JOIN {u} u ON u.rid = r.rowid")

    def _index_writes(self, p: AccessPattern, index: str) -> int:
        """Index entries written per write: an update without an UpdateExpression 2 when it can change the index
        key, else 1; one with an UpdateExpression as the expression says (2 when it sets the index's key attribute,
        1 when it changes an attribute the index projects, else 0: the entry is as it was)."""
        if p.operation != "update_item":
            return 1
        ipk, isk = self.spec.key_attributes(index)
        if p.update:
            touched = {a.path.name for a in parse_update(p.update.expression)}
            if touched & {ipk, isk}:
                return 2
            projection = self.spec.table.indexes[index].projection
            if projection == "all":
                return 1 if touched else 0
            return 1 if touched & set(projection if isinstance(projection, list) else ()) else 0
        params = set(p.parameters)
        for name in p.entities:
            e = self.spec.entities.get(name)
            if e is None:
                continue
            for attr in (ipk, isk):
                t = e.templates.get(attr or "")
                if t is not None and any(ph in e.attributes and ph not in params for ph in t.placeholders):
                    return 2
        return 1


def call_costs(store: Store, spec: Spec, pattern: AccessPattern | str) -> pd.DataFrame:
    """Every candidate of one pattern with what one call of it costs: the candidates' columns (see
    :func:`blue_nb.heat.workload.candidates`) plus ``rcu, wcu, items, bytes, pages``."""
    scratch = store.analytics()
    p = spec.pattern(pattern) if isinstance(pattern, str) else pattern
    try:
        c = build_candidates(scratch, spec, p)
        costs = CostTables(scratch, spec)
        costs.add(0, c)
        cols = ["cid", "rcu", "wcu", "items", "bytes", "pages"]
        calls = frame(store, f"SELECT {', '.join(cols)} FROM {costs.calls} ORDER BY cid", cols)
        return c.frame(store).merge(calls, on="cid", how="left") if c.table is not None else calls
    finally:
        scratch.close()
