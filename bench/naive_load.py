"""The naive SQLite load, the baseline of the ``load_sqlite`` stage (the one bench module that may
import sqlite3): plain ``sqlite3``, blue_nb's table layout (ADR 0018's main table and the catalog
with its index columns and indexes), one INSERT per row, all in one transaction, each item sized
by the exact reference walk. :func:`same_sqlite_rows` checks that it holds the same rows as the
product's load (``created_at`` aside: the load's clock).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from blue_nb.app.workflows import spec_items
from blue_nb.layout import TableLayout, catalog_table_sql, main_table_sql, quote_ident
from blue_nb.sizing import item_size
from blue_nb.spec import Spec

__all__ = ["naive_sqlite_load", "same_sqlite_rows"]


def naive_sqlite_load(spec: Spec, data_dir: str | Path, path: str | Path) -> int:
    """Load the items of ``data_dir`` into a new SQLite file, row by row in one transaction; the items."""
    layout = TableLayout.of(spec)
    con = sqlite3.connect(str(path), isolation_level=None)
    try:
        con.execute(main_table_sql(layout.table))
        for stmt in catalog_table_sql(layout.table, list(layout.indexes)):
            con.execute(stmt)
        cols = layout.catalog_columns
        main_sql = f"INSERT INTO {quote_ident(layout.table)} (pk, sk, data, created_at) VALUES (?, ?, ?, ?)"
        cat_sql = (f"INSERT INTO {quote_ident(layout.catalog)} ({', '.join(quote_ident(c) for c in cols)}) "
                   f"VALUES ({', '.join('?' * len(cols))})")
        created = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        n = 0
        con.execute("BEGIN")
        for entity, item in spec_items(spec, data_dir):
            main, cat = layout.rows(entity, item, item_size(item), created)
            con.execute(main_sql, main)
            con.execute(cat_sql, cat)
            n += 1
        con.execute("COMMIT")
        return n
    finally:
        con.close()


def same_sqlite_rows(spec: Spec, product: str | Path, naive: str | Path) -> bool:
    """Both files hold the same main rows (pk, sk, data) and catalog rows, none missing, none extra."""
    layout = TableLayout.of(spec)
    t, c = quote_ident(layout.table), quote_ident(layout.catalog)
    cat_cols = ", ".join(quote_ident(x) for x in layout.catalog_columns)
    con = sqlite3.connect(f"file:{Path(product).absolute()}?mode=ro", uri=True)
    try:
        con.execute("ATTACH DATABASE ? AS naive", (f"file:{Path(naive).absolute()}?mode=ro",))
        checks = [f"SELECT count(*) FROM {t}", f"SELECT count(*) FROM naive.{t}",
                  f"SELECT count(*) FROM (SELECT pk, sk, data FROM {t} EXCEPT SELECT pk, sk, data FROM naive.{t})",
                  f"SELECT count(*) FROM (SELECT pk, sk, data FROM naive.{t} EXCEPT SELECT pk, sk, data FROM {t})",
                  f"SELECT count(*) FROM (SELECT {cat_cols} FROM {c} EXCEPT SELECT {cat_cols} FROM naive.{c})",
                  f"SELECT count(*) FROM (SELECT {cat_cols} FROM naive.{c} EXCEPT SELECT {cat_cols} FROM {c})"]
        n_product, n_naive, *diffs = [con.execute(q).fetchone()[0] for q in checks]
    finally:
        con.close()
    return n_product == n_naive and not any(diffs)
