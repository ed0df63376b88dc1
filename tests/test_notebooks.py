"""The notebooks: committed thin and clean, and each one executed with injected parameters.

Execution tests run a notebook with nbclient on the ``python3`` kernel (this interpreter's
ipykernel), in ``notebooks/`` as the kernel's working directory, after REPLACING the source of
the cell tagged ``parameters``. They then compare the values the notebook displayed with what
the same library functions compute here, in the test process.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Callable

import nbformat
import numpy as np
import pytest

from tests.browser import Lab, chromium_path, missing_glyphs

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DIALOGUE_SPEC = ROOT / "data" / "specs" / "dialogue.yaml"
LIBRARY = ROOT / "data" / "examples" / "library"
LIBRARY_SPEC = LIBRARY / "library.yaml"
CELL_TIMEOUT = 120


# ------------------------------------------------------------------------------------ helpers

def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def parameters_cell(nb) -> Any:
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, f"expected exactly one cell tagged 'parameters', found {len(cells)}"
    return cells[0]


def inject_parameters(source: str, overrides: dict[str, Any]) -> str:
    """The parameters cell's source with ``overrides`` replacing the named assignments.

    Assignments that are not overridden keep their original text, so a derived value
    (``SQLITE = f"{OUT_DIR}/library.sqlite"``) follows an overridden ``OUT_DIR``.
    """
    tree = ast.parse(source)
    names = [s.targets[0].id for s in tree.body]
    unknown = set(overrides) - set(names)
    assert not unknown, f"no such parameters: {sorted(unknown)} (the cell has {names})"
    lines = []
    for stmt, name in zip(tree.body, names):
        lines.append(f"{name} = {overrides[name]!r}" if name in overrides
                     else ast.get_source_segment(source, stmt))
    return "\n".join(lines) + "\n"


@pytest.fixture
def jupyter_env(tmp_path, monkeypatch):
    """Kernel connection files, IPython profile and user data dirs in tmp_path, not in $HOME.

    Pointing JUPYTER_DATA_DIR away from ~/.local/share/jupyter also keeps a user-level
    ``python3`` kernelspec from shadowing the one this virtualenv ships.
    """
    for var, sub in (("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTER_DATA_DIR", "data"),
                     ("IPYTHONDIR", "ipython"), ("MPLCONFIGDIR", "mpl")):
        (tmp_path / sub).mkdir()
        monkeypatch.setenv(var, str(tmp_path / sub))
    return tmp_path


class _Browser:
    """The JupyterLab + Chromium of tests/browser.py, started on first use and stopped at the end."""

    lab: Any = None
    root: Path | None = None
    shots: Path | None = None

    @classmethod
    def get(cls):
        if cls.lab is None and cls.root is not None and chromium_path():
            cls.lab = Lab(cls.root, ROOT, cls.shots)
        return cls.lab


@pytest.fixture(scope="session", autouse=True)
def _browser(tmp_path_factory):
    _Browser.root = tmp_path_factory.mktemp("lab")
    _Browser.shots = Path(os.environ.get("BLUE_NB_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    yield
    if _Browser.lab is not None:
        _Browser.lab.close()
        _Browser.lab = None


def run_notebook(name: str, overrides: dict[str, Any], interact: Callable[[Any], None] | None = None):
    """Execute notebooks/<name> with the parameters replaced; return the executed notebook.

    With Chromium installed the notebook runs in JupyterLab in the browser (Run All, as a user does;
    :func:`check_page` then checks what the page shows, and ``interact(page)`` uses its widgets);
    otherwise nbclient runs it."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    cell = parameters_cell(nb)
    cell.source = inject_parameters(cell.source, overrides)
    lab = _Browser.get()
    if lab is not None:
        executed, page = lab.run(nb, name, interact)
        check_page(name, executed, page)
    else:
        from nbclient import NotebookClient

        NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT,
                       resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
        executed = nb
    assert raw_reprs(executed) == [], f"{name}: outputs shown as a Python repr"
    return executed


#: the mime types JupyterLab prefers, best first: an output shows the first one it has
SHOWN_FIRST = ("application/vnd.jupyter.widget-view+json", "text/html", "text/markdown", "image/svg+xml", "image/png",
               "text/plain")
#: a Python repr in what a person reads: a path, a Decimal, bytes, a ClassName(...) dump
RAW_TEXT = re.compile(r"\b(?:Posix|Windows)?Path\(|\bDecimal\(|\bb(?:'|&#x27;|&#39;)\\x|^\s*[A-Z]\w*\(\w+=", re.M)


def shown_output(data: dict) -> tuple[str, str]:
    """The mime type and text of what JupyterLab shows of one output's bundle."""
    mime = next(m for m in SHOWN_FIRST if m in data) if any(m in data for m in SHOWN_FIRST) else next(iter(data))
    value = data[mime]
    return mime, "".join(value) if isinstance(value, list) else value if isinstance(value, str) else ""


def raw_reprs(nb) -> list[str]:
    """Outputs a person would read as a Python repr: a text-only result that is a bare dict, list, tuple or
    quoted string, or any shown text holding ``PosixPath(``, ``Decimal(``, ``b'\\x..`` or a ``Class(field=``
    dump. What a cell prints (a stream) is the author's text and is not checked."""
    found = []
    for n, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            if out.output_type not in ("execute_result", "display_data"):
                continue
            mime, text = shown_output(out.data)
            bare = mime == "text/plain" and text.lstrip()[:1] in ("{", "[", "(", "'", '"')
            if bare or (mime in ("text/plain", "text/html", "text/markdown") and RAW_TEXT.search(text)):
                found.append(f"cell {n} ({cell.source.splitlines()[-1][:60]!r}) shows {mime}: {text[:120]!r}")
    return found


def check_page(name: str, nb, page) -> None:
    """After Run All in the browser: every code cell ran, no error output, every widget view drawn
    (none "Error displaying widget"), every picture the notebook holds loaded in the page, no text cut off by its
    box, no output wider than the notebook without a scrollbar, and a font for every character shown."""
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    views = sum(1 for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {}))
    pngs = sum(1 for o in outputs if "image/png" in o.get("data", {}))
    assert page.code_cells and page.executed == page.code_cells, f"{name}: {page}"
    assert page.errors == [] and not [o for o in outputs if o.output_type == "error"], f"{name}: {page.errors}"
    assert page.widget_errors == 0, f"{name}: a widget was not displayed"
    assert page.widgets >= views, f"{name}: {views} widget views in the notebook, {page.widgets} drawn"
    assert page.broken_images == 0 and page.images >= pngs, f"{name}: {pngs} pictures, {page}"
    assert page.cut == [], f"{name}: text cut off by its box: {page.cut}"
    assert page.wide == [], f"{name}: outputs wider than the notebook, without a scrollbar: {page.wide}"
    assert missing_glyphs(page.chars) == [], f"{name}: characters no installed font draws (empty boxes)"
    assert page.screenshots, name


def result(nb, call: str) -> dict[str, str]:
    """The displayed result (mime type -> text) of the one code cell whose source contains ``call``."""
    cells = [c for c in nb.cells if c.cell_type == "code" and call in c.source]
    assert len(cells) == 1, f"expected one code cell calling {call!r}, found {len(cells)}"
    shown = [o for o in cells[0].outputs if o.output_type == "execute_result"]
    assert shown, f"the cell calling {call!r} displayed no result"
    return {k: "".join(v) if isinstance(v, list) else v for k, v in shown[-1].data.items()}


def stream(nb, call: str) -> str:
    """What the one code cell whose source contains ``call`` printed (stdout)."""
    cells = [c for c in nb.cells if c.cell_type == "code" and call in c.source]
    assert len(cells) == 1, f"expected one code cell calling {call!r}, found {len(cells)}"
    return "".join(o.text for o in cells[0].outputs if o.output_type == "stream" and o.name == "stdout")


def results(nb, call: str) -> list[dict[str, str]]:
    """Like :func:`result`, for every cell whose source contains ``call`` (in order)."""
    out = []
    for c in nb.cells:
        if c.cell_type == "code" and call in c.source:
            shown = [o for o in c.outputs if o.output_type == "execute_result"]
            assert shown, f"a cell calling {call!r} displayed no result"
            out.append({k: "".join(v) if isinstance(v, list) else v for k, v in shown[-1].data.items()})
    return out


class _Table(HTMLParser):
    """The header and body rows (cell texts) of a pandas ``DataFrame._repr_html_`` table."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.header: list[str] = []
        self.rows: list[list[str]] = []
        self._section = self._row = self._cell = None

    def handle_starttag(self, tag, attrs):
        if tag in ("thead", "tbody"):
            self._section = tag
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self._section == "thead" and not self.header:
                self.header = self._row
            elif self._section == "tbody":
                self.rows.append(self._row)
            self._row = None


def html_records(html: str) -> list[dict[str, str]]:
    """A displayed DataFrame as records of cell texts (the index column dropped)."""
    t = _Table()
    t.feed(html)
    columns = t.header[1:]
    return [dict(zip(columns, row[1:])) for row in t.rows]


def html_table_rows(html: str) -> list[dict[str, str]]:
    """A displayed table as records of cell texts, its index column kept under the name ''."""
    t = _Table()
    t.feed(html)
    return [dict(zip(["", *t.header[1:]], row)) for row in t.rows]


def frame_records(df, columns: list[str]) -> list[dict[str, str]]:
    return [{c: str(rec[c]) for c in columns} for rec in df.to_dict("records")]


def stores_dict(data: dict[str, str]) -> dict[str, Any]:
    """compare_stores' displayed dict, read back from its text/plain repr."""
    return ast.literal_eval(data["text/plain"])


# ------------------------------------------------------------------------------------ static checks

def test_notebooks_exist():
    names = [p.name for p in notebook_paths()]
    assert "00_quickstart.ipynb" in names and "01_load_data.ipynb" in names


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_notebook_is_committed_clean_and_thin(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    assert "widgets" not in nb.metadata, "saved widget state: clear it before committing"
    code = [c for c in nb.cells if c.cell_type == "code"]
    for c in code:
        where = f"{path.name} cell {c.get('id')}"
        assert c.outputs == [], f"{where}: outputs must be stripped before commit"
        assert c.execution_count is None, f"{where}: execution_count must be null"
        assert not re.search(r"^\s*(def|class) ", c.source, re.M), f"{where}: no def/class in a notebook"
        tree = ast.parse(c.source)
        banned = [type(n).__name__ for n in ast.walk(tree)
                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                                    ast.For, ast.While))]
        assert not banned, f"{where}: logic belongs in blue_nb, found {banned}"
    # an import cell, then the parameters cell holding only simple assignments
    params = parameters_cell(nb)
    assert params.cell_type == "code"
    assert len(code) >= 3 and code[1] is params, "the parameters cell must be the second code cell"
    assert all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in ast.parse(code[0].source).body), \
        "the first code cell holds the imports only"
    for stmt in ast.parse(params.source).body:
        assert isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name), \
            f"{path.name}: the parameters cell holds only NAME = value lines"
        assert stmt.targets[0].id.isupper(), f"{path.name}: parameter {stmt.targets[0].id} is not UPPER_CASE"
        assert not any(isinstance(n, ast.Call) for n in ast.walk(stmt.value)), \
            f"{path.name}: parameter {stmt.targets[0].id} calls a function"


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_parameter_paths_are_inside_the_project(path):
    """Relative paths in the parameters resolve from notebooks/ to somewhere inside the repo; specs exist."""
    nb = nbformat.read(path, as_version=4)
    for stmt in ast.parse(parameters_cell(nb).source).body:
        value = stmt.value.value if isinstance(stmt.value, ast.Constant) else None
        if isinstance(value, str) and value.startswith("../"):
            resolved = (NOTEBOOKS / value).resolve()
            assert resolved.is_relative_to(ROOT), f"{stmt.targets[0].id}={value!r} leaves the project"
            if stmt.targets[0].id == "SPEC":
                assert resolved.is_file(), f"SPEC={value!r}: no such file"


def test_every_notebook_is_executed_by_a_test():
    assert sorted(EXECUTED) == [p.name for p in notebook_paths()], \
        "add an execution test for each notebook to EXECUTED"
    for name, test in EXECUTED.items():
        assert test.__name__.startswith("test_"), name
        assert any(m.name == "slow" for m in getattr(test, "pytestmark", [])), f"{test.__name__} is not slow"


def test_library_example_spec_is_valid_and_complete():
    from blue_nb.sources import find_source
    from blue_nb.spec import load_spec

    spec = load_spec(LIBRARY_SPEC)
    assert spec.spec_version == 1 and spec.domain == "library" and spec.table_name == "blue_library"
    assert (spec.table.partition_key, spec.table.sort_key) == ("pk", "sk")
    assert {e.writer for e in spec.entities.values()} >= {"catalog-service", "circulation-service"}
    assert len(spec.access_patterns) >= 3
    suffixes = {find_source(LIBRARY, e.source).suffix for e in spec.entities.values()}
    assert suffixes == {".csv", ".jsonl", ".parquet"}
    types = {t for e in spec.entities.values() for t in e.attributes.values()}
    assert types >= {"S", "N", "B", "BOOL", "L", "M", "SS", "NS", "BS"}


# ------------------------------------------------------------------------------------ execution

@pytest.fixture(scope="module")
def dialogue_dir(tmp_path_factory) -> Path:
    """The committed dialogue sample; generated into a temporary folder if it is missing."""
    committed = ROOT / "data" / "sample" / "dialogue"
    if committed.is_dir() and any(committed.iterdir()):
        return committed
    from blue_nb.samples import SAMPLE_PARAMS, generate_sample

    out = tmp_path_factory.mktemp("dialogue")
    generate_sample("dialogue", out_dir=out, **SAMPLE_PARAMS["dialogue"])
    return out


@pytest.mark.slow
def test_python3_kernel_is_this_interpreter(jupyter_env):
    """kernel_name='python3' starts this virtualenv's Python (the kernelspec's 'python' -> sys.executable)."""
    from nbclient import NotebookClient
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[new_code_cell("import sys, os\n(sys.prefix, os.getcwd())")])
    NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    prefix, cwd = ast.literal_eval(nb.cells[0].outputs[0].data["text/plain"])
    assert Path(prefix).resolve() == Path(sys.prefix).resolve()
    assert Path(cwd).resolve() == NOTEBOOKS.resolve()


@pytest.mark.slow
def test_quickstart(jupyter_env, dialogue_dir):
    from blue_nb.spec import load_spec
    from blue_nb.stores import open_store
    from blue_nb.app.workflows import compare_stores, entity_summary, largest_items, largest_partitions, load_data

    top_n = 4
    data = dialogue_dir if dialogue_dir != ROOT / "data" / "sample" / "dialogue" else None
    nb = run_notebook("00_quickstart.ipynb", {"TOP_N": top_n, **({"DATA": str(data)} if data else {})})

    spec = load_spec(DIALOGUE_SPEC)
    stores = [open_store("sqlite"), open_store("duckdb")]
    load_data(spec, dialogue_dir, stores=stores, progress=False)

    summary = result(nb, "spec = load_spec(")
    assert summary["text/plain"] == repr(spec) and "table blue_dialogue" in summary["text/plain"]
    # a line for the table, the index, each entity and each pattern
    assert "Spec(" not in summary["text/plain"]
    assert len(summary["text/plain"].splitlines()) == 2 + len(spec.entities) + len(spec.access_patterns)
    assert all(f">{e}<" in summary["text/html"] for e in spec.entities)
    entities = [r["entity"] for r in html_records(result(nb, "spec_frame(")["text/html"])]
    assert entities == list(spec.entities)

    def plain(rows, cols):      # a displayed table's cells without thousands separators
        return [{c: r[c].replace(",", "") for c in cols} for r in rows]

    shown = html_records(result(nb, "entity_summary(")["text/html"])
    cols = ["entity", "items", "bytes", "p50_bytes", "max_bytes"]
    assert plain(shown, cols) == frame_records(entity_summary(stores[0], spec), cols)
    assert {r["entity"] for r in shown} == set(spec.entities)
    assert sum(int(r["items"].replace(",", "")) for r in shown) == stores[0].count(spec.table_name)

    sample_html = result(nb, "sample_items(")["text/html"]
    sample = html_records(sample_html)
    assert len(sample) == top_n and all(r["sk"].startswith("PERSP#") for r in sample)
    assert list(sample[0])[:5] == ["pk", "sk", "_size", "_rcu", "_wcu"]          # keys, then size and costs
    assert "text-align:left;white-space:nowrap'>PERSP#" in sample_html               # keys left-aligned

    cols = ["pk", "sk", "entity", "size", "rcu_strong", "wcu"]
    assert plain(html_records(result(nb, "largest_items(")["text/html"]), cols) == \
        frame_records(largest_items(stores[1], spec, top_n), cols)
    assert plain(html_records(result(nb, "largest_partitions(")["text/html"]), ["pk", "items", "bytes"]) == \
        frame_records(largest_partitions(stores[1], spec, top_n), ["pk", "items", "bytes"])

    proof = stores_dict(result(nb, "compare_stores("))
    assert proof["identical"] is True
    assert proof == compare_stores(stores, spec)
    assert "<b>identical</b>" in result(nb, "compare_stores(")["text/html"]

    # the DynamoDB limits the text cites are the ones the library computes with
    from blue_nb.sizing.capacity import (MAX_ITEM_BYTES, PARTITION_BYTES, PARTITION_RCU, PARTITION_WCU,
                                         READ_UNIT_BYTES, WRITE_UNIT_BYTES)

    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert f"**1 KB** ({WRITE_UNIT_BYTES:,} bytes)" in text and READ_UNIT_BYTES == 4 * WRITE_UNIT_BYTES
    assert "**400 KB**" in text and MAX_ITEM_BYTES == 400 * 1024 and "**10 GB**" in text
    assert PARTITION_BYTES == 10 * 1024 ** 3
    assert f"{PARTITION_RCU:,} read and {PARTITION_WCU:,} write units" in text
    v1_text = result(nb, "validate(SPEC, DATA)")["text/plain"]
    assert "'PERSP#12#muffin#1' sorts before 'PERSP#2#muffin#2'" in v1_text     # "PERSP#12 sorts before PERSP#2"
    assert "so `PERSP#12` sorts before `PERSP#2`" in text                           # ... as the text says
    assert "begins_with 'TEVENT#T10' matches" in v1_text and "'TEVENT#T100#" in v1_text

    from blue_nb.app.workflows import validate

    v1, v2 = result(nb, "validate(SPEC, DATA)"), result(nb, "validate(SPEC_V2, DATA)")
    assert v1["text/plain"] == repr(validate(DIALOGUE_SPEC, dialogue_dir)).replace(str(DIALOGUE_SPEC), "../data/specs/dialogue.yaml")
    for rule in ("KEY-SORT-ORDER", "KEY-PREFIX-COLLISION", "ADR4-SINGLE-WRITER"):
        assert rule in v1["text/html"]
    assert "0 errors, 0 warnings" in v2["text/html"] and "0 errors" not in v1["text/html"]


@pytest.mark.slow
def test_load_data(jupyter_env, tmp_path):
    from blue_nb.spec import load_spec
    from blue_nb.stores import open_store
    from blue_nb.app.workflows import compare_stores, entity_summary

    out_dir = tmp_path / "out"
    out_dir.mkdir()
    nb = run_notebook("01_load_data.ipynb", {"OUT_DIR": str(out_dir)})
    sqlite, duckdb = out_dir / "library.sqlite", out_dir / "library.duckdb"
    assert sqlite.is_file() and duckdb.is_file(), "the notebook wrote the stores into OUT_DIR"

    spec = load_spec(LIBRARY_SPEC)
    stores = [open_store("sqlite", sqlite), open_store("duckdb", duckdb)]
    try:
        files = result(nb, "source_files(")["text/plain"]
        assert all(name in files for name in ("branches.csv", "books.jsonl", "loans.parquet"))
        shown_files = result(nb, "source_files(")["text/html"]                          # entity -> its file, a table
        assert ">Book</th>" in shown_files and "books.jsonl</td>" in shown_files

        loads = results(nb, "load_data(")
        assert len(loads) == 2
        first, second = (ld["text/plain"] for ld in loads)
        assert first.count("13 items written (Branch 3, Book 5, Loan 5)") == 2
        assert first.count("replace: the table was empty") == 2                     # a fresh OUT_DIR
        assert second.count("the 13 items that were in the table were replaced") == 2
        assert second.count("; 13 in the table;") == 2 and "replaced=0" not in second   # replaced, not doubled
        rows = html_records(loads[1]["text/html"])
        assert [(r["items before"], r["written"], r["items after"], r["replaced"]) for r in rows] == \
            [("13", "13", "13", "13")] * 2
        text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert all(f"(`{col}`)" in text for col in ("items before", "replaced", "items after"))
        summary = result(nb, "spec = load_spec(")["text/plain"]
        assert summary == repr(spec) and "LOAN#{isbn}#{loan_id:05d}" in summary

        shown = html_records(result(nb, "entity_summary(")["text/html"])
        assert frame_records(entity_summary(stores[0], spec), ["entity", "items", "bytes"]) == \
            [{k: r[k].replace(",", "") for k in ("entity", "items", "bytes")} for r in shown]

        books = result(nb, 'sample_items(stores[1], spec, "Book")')["text/html"]
        for text in ("516.37500000000000000000000000000000001", "源氏物語 🌸", "Преступление и наказание",
                     "Gabriel García Márquez", "magic-realism", "&lt;jpeg 13 B&gt;", "&lt;png 13 B&gt;", "{pages: 417, language: &quot;es&quot;"):
            assert text in books, f"{text!r} missing from the Book items"
        assert "\\x" not in books and "b&#x27;" not in books                   # binary is never a bytes repr
        book_rows = html_records(books)
        assert len(book_rows) == 5 and {"authors", "details", "tags", "ratings", "cover", "thumbnails",
                                        "available", "_size"} <= set(book_rows[0])
        assert list(book_rows[0])[:5] == ["pk", "sk", "_size", "_rcu", "_wcu"]
        real = {r["attribute"]: r for r in html_records(result(nb, "value_frame(books.loc[0")["text/html"])}
        assert (real["details.pages"]["value"], real["details.pages"]["DynamoDB type"],
                real["details.pages"]["Python type"]) == ("417", "N", "Decimal")      # the real values, typed
        assert real["details.editions"]["value"] == "[1967, 2007]" and real["details.translated"]["value"] == "false"
        assert re.fullmatch(r"<jpeg [\d.]+ (B|KB)>", real["cover"]["value"]) and real["cover"]["Python type"] == "bytes"
        branches = result(nb, '"Branch"')["text/html"]
        assert "Zürich" in branches and "京都分館" in branches and "Zähringerplatz 6" in branches
        loans = result(nb, '"Loan"')["text/html"]
        assert "MEMBER#m-björn" in loans and "DUE#2026-04-22" in loans and "2026-04-01T16:40:00+00:00" in loans

        proof = stores_dict(result(nb, "compare_stores("))
        assert proof["identical"] is True and proof["sqlite"]["items"] == 13
        assert proof == compare_stores(stores, spec)
    finally:
        for s in stores:
            s.close()


@pytest.mark.slow
def test_access_patterns(jupyter_env, dialogue_dir):
    from blue_nb.app.session import DesignSession

    seen: dict[str, str] = {}

    def interact(page):
        """In the browser: choose another pattern in the first explorer; its request and items follow."""
        explorer = page.locator(".blue-nb-explorer").first
        seen["before"] = explorer.locator(".blue-nb-request").inner_text()
        explorer.locator(".blue-nb-pattern select").select_option("list_experts")
        page.wait_for_function("""() => {
            const e = document.querySelector('.blue-nb-explorer .blue-nb-request');
            const i = document.querySelector('.blue-nb-explorer .blue-nb-items');
            return e && i && e.innerText.includes('EXPERT#') && i.innerText.includes('EXPERT#'); }""",
                               timeout=60_000)                       # both panes answered, not just the first
        seen["after"] = explorer.locator(".blue-nb-request").inner_text()
        seen["items"] = explorer.locator(".blue-nb-items").inner_text()

    nb = run_notebook("02_access_patterns.ipynb", {"DATA": str(dialogue_dir), "ROUND": "2"}, interact)
    if seen:                                          # run in the browser: the explorer answered the click
        assert "PERSP#" in seen["before"] and "EXPERT#" not in seen["before"]
        assert '"S": "EXPERT#"' in seen["after"].replace("\n", "") or "EXPERT#" in seen["after"]
        assert "EXPERT#" in seen["items"] and "PERSP#" not in seen["items"]
    params = {"dialogue_id": "nvidia-dec", "round": "2"}
    session = DesignSession(DIALOGUE_SPEC, dialogue_dir)
    try:
        expected = session.run_pattern("list_round", params)
        assert ast.literal_eval(result(nb, "explorer.result.summary()")["text/plain"]) == expected.summary()
        # the byte-order demo: keys of one expert in that round, picked by computation, 10 before 2
        order = session.byte_order_example("list_round", params)
        shown = html_records(result(nb, "order = session.byte_order_example(")["text/html"])
        assert [(int(r["position"]), r["sk"], int(r["seq"])) for r in shown] == \
            list(zip(order["position"], order["sk"], order["seq"]))
        seqs = [int(r["seq"]) for r in shown]
        assert all(r["sk"].startswith("PERSP#2#") for r in shown) and len({r["expert"] for r in shown}) == 1
        assert seqs == [106, 131, 141, 149, 24]            # ann's posts: 149 before 24, as the text says
        assert "`seq` 149 sorts before `seq` 24" in "".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert stream(nb, "comes back before") == (f"{order.sk.iloc[1]} (position {order.position.iloc[1]}) comes back "
                                                   f"before {order.sk.iloc[-1]} (position {order.position.iloc[-1]})\n")
        # the first review names the file; the changes say which findings came and went, in a few lines
        first, last = [r["text/plain"] for r in results(nb, "session.findings()")]
        assert first.startswith("Review of ../data/specs/dialogue.yaml") and "KEY-SORT-ORDER] entities.Perspective" in first
        assert first.split("\n", 1)[1] == repr(session.findings()).split("\n", 1)[1]     # all but the path
        key = result(nb, "session.set_key(")["text/plain"]
        assert len(key.splitlines()) == 5 and "Spec(" not in key
        assert "+ new error PATTERN-KEY-MISMATCH at access_patterns[3] (list_round).key_condition.sk_begins_with: list_round" in key
        assert "+ new error PATTERN-KEY-MISMATCH at access_patterns[7] (add_perspective).key_condition.sk: add_perspective" in key
        assert "- gone error KEY-SORT-ORDER at entities.Perspective.key.sk" in key
        assert "- gone error PATTERN-KEY-MISMATCH at access_patterns[3] (list_round)" in result(nb, 'set_pattern("list_round"')["text/plain"]
        assert "- gone error PATTERN-KEY-MISMATCH at access_patterns[7] (add_perspective)" in result(nb, 'set_pattern("add_perspective"')["text/plain"]
        # the changed design: the same items in number order; its review names no file and has neither error
        same = html_records(result(nb, "like=order)")["text/html"])
        assert sorted(int(r["seq"]) for r in same) == sorted(seqs) and [int(r["seq"]) for r in same] == sorted(seqs)
        assert all(r["sk"].startswith("PERSP#002#") and len(r["sk"].split("#")[3]) == 3 for r in same)
        assert last.startswith("Review of dialogue as changed in this session (3 changes, not saved)") and ".yaml" not in last.split("\n")[0]
        assert "PATTERN-KEY-MISMATCH" not in last and "KEY-SORT-ORDER] entities.Perspective" not in last
        newest = ast.literal_eval(result(nb, 'session.run_pattern("newest_tensions"')["text/plain"])
        assert newest["count"] == 5 and newest["pages"] == 1
        # a filter: Count (returned) against ScannedCount (read and paid for), and a month of it in dollars
        from blue_nb.pricing import read_waste
        opened = session.run_pattern("open_tensions", {"dialogue_id": "nvidia-dec"})
        assert 0 < opened.count < opened.scanned_count
        assert result(nb, "read_waste(")["text/plain"] == repr(read_waste(opened))
        assert f"returns {opened.count} of {opened.scanned_count} items read" in repr(read_waste(opened))
        # a transaction: each action twice its standard units; a batch get: each key a GetItem of its own
        session.set_key("Perspective", "sk", "PERSP#{round:03d}#{expert}#{seq:03d}")       # as the notebook did
        session.set_pattern("add_perspective", key_condition={"pk": "{dialogue_id}",
                                                              "sk": "PERSP#{round:03d}#{expert}#{seq:03d}"})
        post = {"dialogue_id": "nvidia-dec", "round": "2", "expert": "muffin", "seq": "999"}
        tx = ast.literal_eval(result(nb, 'session.run_pattern("post_perspective"')["text/plain"])
        assert tx == session.run_pattern("post_perspective", post).summary()
        assert tx["units_per_action"] == [2, 2] and tx["wcu"] == 4 and not tx["cancelled"]
        alone = ast.literal_eval(result(nb, 'session.run_pattern("add_perspective"')["text/plain"])
        assert alone["wcu"] == 1 and session.run_pattern("count_perspective", {"dialogue_id": "nvidia-dec"}).wcu == 1
        batch = ast.literal_eval(result(nb, 'session.run_pattern("tension_experts"')["text/plain"])
        assert batch["units_per_action"] == [0.5, 0.5, 0.5] and batch["rcu"] == 1.5 and batch["items"] == 3
        experts = ast.literal_eval(result(nb, 'session.run_pattern("list_experts"')["text/plain"])
        assert experts["rcu"] == 0.5 and experts["count"] > 3           # every expert of the dialogue, one page
        # each explorer is built on a session of its own; no later cell drives the first one
        views = [c for c in nb.cells if c.cell_type == "code" and "PatternExplorer(session.fork()" in c.source]
        assert len(views) == 2 and all("application/vnd.jupyter.widget-view+json" in c.outputs[0]["data"] for c in views)
        later = "".join(c.source for c in nb.cells[nb.cells.index(views[0]) + 1:] if c.cell_type == "code")
        assert "explorer.set_params" not in later and "explorer.pattern.value =" not in later
    finally:
        session.close()


@pytest.mark.slow
def test_item_sizes(jupyter_env):
    from blue_nb.spec import load_spec
    from blue_nb.stores import open_store
    from blue_nb.app.whatif import short_names, size_whatif
    from blue_nb.app.workflows import load_data

    nb = run_notebook("04_item_sizes.ipynb", {})
    spec = load_spec(ROOT / "data" / "specs" / "document.yaml")
    store = open_store("duckdb")
    load_data(spec, ROOT / "data" / "sample" / "document", stores=[store], progress=False)
    for call in ("item_size_distribution(", "attribute_sizes(", "capacity_waste(", "index_entry_sizes("):
        assert "image/png" in result(nb, call), f"{call} showed no picture"
    def number(text: str) -> float:
        return float(text.replace(",", ""))

    sizes = {r["entity"]: r for r in html_records(result(nb, "size_stats_frame(")["text/html"])}
    assert number(sizes["Document"]["items"]) == store.count(spec.table_name, "Document")
    assert number(sizes["Document"]["max_bytes"]) == store.largest_items(spec.table_name, 1)[0][3]
    assert number(sizes["Document"]["p50_bytes"]) == store.entity_sizes(spec.table_name)["Document"][2]

    expected = size_whatif(store, spec, "Document", drop=["content"])
    dropped = html_records(result(nb, "drop=[MOVE_OUT]")["text/html"])         # one row per measure
    assert [number(r["now"]) for r in dropped] == [float(v) for v in expected["now"]]
    assert [number(r["without content"]) for r in dropped] == [float(v) for v in expected["without content"]]
    by = dict(zip(expected.index, dropped))
    over = by["items_over_400KB"]
    assert number(over["now"]) >= 1 and over["without content"] == "0" and over["change"] == f"-{over['now']}"
    assert "too big to store" in over["meaning"]
    # one median: the per-entity table, the what-if table and the proof cell agree
    assert by["p50_bytes"]["now"] == sizes["Document"]["p50_bytes"] and by["p95_bytes"]["now"] == sizes["Document"]["p95_bytes"]
    proof = html_records(result(nb, "heat_report=")["text/html"])
    assert [(number(r["now"]), number(r["heat_report"])) for r in proof] == \
        [(number(sizes["Document"]["p50_bytes"]),) * 2, (number(sizes["Document"]["p95_bytes"]),) * 2]
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert all(f"`{m}`" in text for m in ("p50_bytes", "p95_bytes", "items_over_400KB", "change"))
    names = ast.literal_eval(result(nb, "names = short_names(")["text/plain"])
    assert names == short_names(list(spec.entities["Document"].attributes))
    renamed = html_records(result(nb, "rename=names")["text/html"])
    assert [number(r["4 shorter names"]) for r in renamed] == \
        [float(v) for v in size_whatif(store, spec, "Document", rename=names)["4 shorter names"]]


@pytest.mark.slow
def test_partition_heat(jupyter_env, dialogue_dir):
    from blue_nb.app.workflows import run_pattern
    from blue_nb.heat import partition_heat
    from blue_nb.spec import load_spec
    from blue_nb.stores import open_store
    from blue_nb.app.workflows import load_data
    from blue_nb.plots import heat_cells

    seconds, hot_rate, over_rate = 30, 150.0, 1200.0
    seen: dict[str, Any] = {}
    spec = load_spec(DIALOGUE_SPEC)
    store = open_store("duckdb")
    load_data(spec, dialogue_dir, stores=[store], progress=False)
    report = partition_heat(spec, store, seconds=seconds, rate_model=True)

    def interact(page):
        """In the browser: drag list_perspectives' rate up by keyboard in the first explorer; the readout
        (a plain number) and the status line follow."""
        explorer = page.locator(".blue-nb-heat-explorer").first
        row = explorer.locator(".widget-hbox", has_text="list_perspectives").first
        seen["rate_before"] = row.locator(".blue-nb-rate-value").inner_text()
        seen["status_before"] = explorer.locator(".blue-nb-status").inner_text()
        row.locator(".blue-nb-rate .noUi-handle").first.focus()
        for _ in range(30):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("""(before) => {
            const e = document.querySelector('.blue-nb-heat-explorer .blue-nb-status');
            return e && e.innerText !== before; }""", arg=seen["status_before"], timeout=60_000)
        page.wait_for_timeout(1500)
        seen["rate_after"] = row.locator(".blue-nb-rate-value").inner_text()
        seen["status_after"] = explorer.locator(".blue-nb-status").inner_text()
        # the heat map in the page is the result's for the state it names: hover the hottest cell
        canvas = explorer.locator(".blue-nb-heatcanvas").first
        state = canvas.get_attribute("data-state").split(":", 1)[1].split("; ")
        settings = dict(s.split("=") for s in state[:-1])
        rates = {n: float(v.split("/")[0]) for n, v in settings.items()}
        skews = {n: float(v.split("/")[1]) for n, v in settings.items() if v.split("/")[1]}
        moved = report.rate_model.evaluate(rates, skews)
        left, top, pw, ph, width, height = json.loads(canvas.get_attribute("data-plot"))
        cells = heat_cells(moved.timeline, key_ranges=moved.key_ranges, max_cols=width - 300)
        r, c = np.unravel_index(cells.grid.argmax(), cells.grid.shape)
        canvas.locator("canvas").scroll_into_view_if_needed()
        box = canvas.locator("canvas").bounding_box()
        page.mouse.move(box["x"] + (left + (c + 0.5) * pw / cells.grid.shape[1]) * box["width"] / width,
                        box["y"] + (top + (r + 0.5) * ph / cells.grid.shape[0]) * box["height"] / height)
        page.wait_for_timeout(300)
        seen["tip"] = canvas.locator(".blue-nb-heat-tip").inner_text()
        seen["want"] = (cells.names[cells.owner[r, c]], float(cells.grid[r, c]), moved.partitions.iloc[0])

    nb = run_notebook("03_partition_heat.ipynb", {"DATA": str(dialogue_dir), "SECONDS": seconds, "HOT_RATE": hot_rate,
                                                  "OVER_RATE": over_rate}, interact)
    if seen:                                          # run in the browser: the slider moved the model
        before, after = (float(seen[k].replace(",", "")) for k in ("rate_before", "rate_after"))
        assert before == 60 and after > before and "e+" not in seen["rate_after"]
        assert seen["status_after"] != seen["status_before"]
        key, value, hottest = seen["want"]
        assert seen["tip"].startswith(f"{key} · second") and f" · {value:,.0f} read units/s · " in seen["tip"]
        tip = seen["tip"].replace(",", "")
        assert f"{100 * value / 3000:.3g}% of the 3000/s limit" in tip or f"{round(100 * value / 3000)}% of the 3000/s limit" in tip
        assert f"{hottest['rcu_per_s']:,.0f} RCU/s" in seen["status_after"]     # the status line: the same result
    with store:
        hot = report.rate_model.evaluate({"list_perspectives": hot_rate})
        top = hot.partitions.iloc[0]
        perspectives = run_pattern(spec, "list_perspectives", {"dialogue_id": top["pk"]}, store=store).count
    over = report.rate_model.evaluate({"list_perspectives": over_rate})
    path = lambda text: text.replace(str(DIALOGUE_SPEC), "../data/specs/dialogue.yaml")     # noqa: E731

    assert stream(nb, "loaded = load_data(").startswith("blue_dialogue: 5,261 items written")
    assert result(nb, "report = partition_heat(")["text/plain"] == repr(report)
    number = lambda text: float(text.replace(",", ""))      # noqa: E731  (shown with thousands separators)
    indexes = html_table_rows(result(nb, "report.indexes_frame()")["text/html"])
    assert [r[""] for r in indexes] == list(report.summary()["indexes"])
    for r in indexes:
        want = report.summary()["indexes"][r[""]]
        assert {k: number(r[k]) for k in want} == {k: round(v, 1) for k, v in want.items()}
    shown = html_records(result(nb, "report.partitions.head(")["text/html"])
    expected = report.partitions.head(10)
    assert [(r["index"], r["pk"], int(number(r["items"])), int(number(r["bytes"]))) for r in shown] == \
        list(zip(expected["index"], expected["pk"], expected["items"], expected["bytes"]))
    assert [number(r["rcu_per_s"]) for r in shown] == expected["rcu_per_s"].round(1).tolist()    # rounded for display
    for call in ("key_heatmap(report.timeline)", "top_keys_chart(report.top_keys(", "hot.heatmap_figure"):
        assert result(nb, call)["image/png"], f"{call} drew no picture"
    assert path(result(nb, "report.findings")["text/plain"]) == path(repr(report.findings))
    assert "0 errors, 0 warnings" in result(nb, "report.findings")["text/plain"]

    # the raised rate: said as computed, shown in an explorer of its own; the first explorer is not moved
    assert stream(nb, "instead of the spec") == "list_perspectives: 150 calls/s instead of the spec's 60 (2.5 times)\n"
    moved = result(nb, "hot.result")["text/plain"]
    assert "hottest table 'nvidia-dec'" in moved and hot.findings.summary() in moved
    assert stream(nb, "perspectives = run_pattern(") == (
        f"{top['pk']}: {top['items']:,} items, {perspectives:,} of them perspectives; {hot.findings.summary()}\n")
    assert top["pk"] == "nvidia-dec" and perspectives == 1390
    shown = next({k: "".join(v) if isinstance(v, list) else v for k, v in o.data.items()} for c in nb.cells
                 if c.cell_type == "code" and c.source == "hot.findings" for o in c.outputs if o.output_type == "execute_result")
    assert path(shown["text/plain"]) == path(repr(hot.findings))
    (warning,) = hot.findings.by_rule("HOT-PARTITION")
    assert warning.severity == "warning" and "x the partition's 3,000 RCU/s: over the limit" in warning.message
    assert "HOT-PARTITION" in shown["text/html"] and "nvidia-dec" in shown["text/html"]
    errors = [f for f in over.findings.by_rule("HOT-PARTITION") if f.severity == "error"]
    assert errors and "'nvidia-dec'" in errors[0].message                    # the text: past twice the limit, an error
    assert path(result(nb, "over.findings")["text/plain"]) == path(repr(over.findings))
    cells = [c for c in nb.cells if c.cell_type == "code"]
    first = next(i for i, c in enumerate(cells) if c.source.startswith("explorer = HeatExplorer(report)"))
    assert not [c for c in cells[first + 1:] if "explorer." in c.source.replace("HeatExplorer", "")]
    assert "rates={HOT_PATTERN: HOT_RATE}" in next(c.source for c in cells if c.source.startswith("hot = HeatExplorer("))


@pytest.mark.slow
def test_dynamodb_roundtrip(jupyter_env, dialogue_dir, monkeypatch):
    from blue_nb.app.compare import action_cases, parameter_cases
    from blue_nb.app.workflows import load_data
    from blue_nb.patterns import plan
    from blue_nb.spec import load_spec
    from blue_nb.stores import open_store

    monkeypatch.delenv("AWS_ENDPOINT_URL_DYNAMODB", raising=False)      # the notebook's default: embedded
    pattern = "list_round"
    nb = run_notebook("05_dynamodb_roundtrip.ipynb", {"DATA": str(dialogue_dir), "PATTERN": pattern})
    spec = load_spec(DIALOGUE_SPEC)
    with open_store("sqlite") as store:
        load_data(spec, dialogue_dir, stores=[store], progress=False)
        built = store.count(spec.table_name)
        cases = {p.name: action_cases(store, spec, p) if p.is_composite else parameter_cases(store, spec, p)
                 for p in spec.access_patterns if p.is_read or p.is_composite}   # transactions and batches too
        cases = {name: c for name, c in cases.items() if c}
        big = cases[pattern][0]
        pages = store.run_plan(plan(spec, pattern, big.params), follow=True).page_sizes

    label = result(nb, "endpoint = open_endpoint(")
    assert label["text/plain"].startswith("<Endpoint embedded moto_server at http://127.0.0.1:")
    assert "embedded moto_server at http://127.0.0.1:" in label["text/html"] and "credentials" not in label["text/html"]
    summary = ast.literal_eval(result(nb, "result.summary()")["text/plain"])
    runs = sum(len(c) for c in cases.values())
    assert summary["ok"] is True and summary["items built"] == summary["items stored"] == built
    assert summary["pattern runs"] == summary["pattern runs matching"] == runs
    rows = html_records(result(nb, "result.frame()")["text/html"])
    assert len(rows) == runs and {r["match"] for r in rows} == {"true"}        # as the text says: match is true
    assert [(r["pattern"], r["case"]) for r in rows] == [(n, c.label) for n, cs in cases.items() for c in cs]
    tx = next(r for r in rows if r["pattern"] == "post_perspective" and r["case"] == "from the data")
    assert (tx["items"], tx["unit"]) == ("2", "WCU") and float(tx["units"]) >= 4       # as the text: items written
    shown = html_records(result(nb, "result.pages_frame(PATTERN)")["text/html"])
    largest = [r for r in shown if r["case"] == "most items read"]
    assert [r["engine"] for r in largest] == ["sqlite", "duckdb", "dynamodb"]
    assert {r["items per call"] for r in largest} == {str(pages)} and int(largest[0]["items"]) == big.items
    assert {r["calls"] for r in shown} == {"1"}          # the text: no dialogue read reaches a limit or 1 MB
    write = result(nb, "result.write")
    assert write["text/plain"].startswith(f"BatchWriteReport({built:,} items in {-(-built // 25):,} calls")
    facts = dict(re.findall(r"<th[^>]*>([^<]+)</th><td[^>]*>([^<]+)</td>", write["text/html"]))   # shown as a table
    assert facts["items written"] == f"{built:,}" and facts["BatchWriteItem calls"] == f"{-(-built // 25):,}"


@pytest.mark.slow
def test_export_spec(jupyter_env, dialogue_dir, tmp_path):
    from blue_nb.app.costs import cost_whatif, design_cost
    from blue_nb.app.migrate import plan_migration
    from blue_nb.app.workflows import validate
    from blue_nb.export import FORMATS, verify_stamp
    from blue_nb.printing import cents, usd
    from blue_nb.spec import load_spec

    v2, v1 = ROOT / "data/specs/dialogue_v2.yaml", DIALOGUE_SPEC
    out = tmp_path / "handover"
    nb = run_notebook("06_export_spec.ipynb", {"SPEC": str(v2), "PREVIOUS": str(v1), "DATA": str(dialogue_dir),
                                               "OUT": str(out)})
    spec = load_spec(v2)
    findings = validate(spec, dialogue_dir)
    said = stream(nb, "ready to export")
    assert said == (f"{findings.items_checked:,} items checked: {findings.summary()}; ready to export\n")

    cost = design_cost(spec, dialogue_dir)
    printed = stream(nb, "print(cost)")
    t = cost.totals
    assert printed.startswith("dialogue: monthly cost at us-east-1 prices of 2024-11")
    assert f"total on demand:   requests ${cents(t['on_demand_usd']):,}" in printed
    assert f"total provisioned: capacity ${cents(t['provisioned_usd']):,}" in printed

    whatif = cost_whatif(v1, spec, dialogue_dir)
    shown = result(nb, "whatif = cost_whatif(")["text/html"]
    diff = whatif.diff.set_index(["kind", "name"])
    cells = {r[""]: r for r in html_table_rows(shown)}          # the one money format, and no units on storage
    assert cells["total on demand"]["usd_diff"] == usd(diff.loc[("total", "total on demand"), "usd_diff"], signed=True)
    storage = cells["storage"]
    assert storage["rcu_old"] == storage["wcu_new"] == "" and storage["usd_new"] == usd(diff.loc[("total", "storage"), "usd_new"])

    rows = html_records(result(nb, "results = export_all(")["text/html"])
    assert [r["format"] for r in rows] == list(FORMATS)
    assert {r["validated"] for r in rows} == {"True"} and {r["findings"] for r in rows} == {findings.summary()}
    files = {r["format"]: out / r["file"] for r in rows}
    for fmt, path in files.items():
        assert int(next(r["bytes"] for r in rows if r["format"] == fmt)) == path.stat().st_size
    assert verify_stamp(load_spec(files["spec-yaml"])) and verify_stamp(load_spec(files["spec-json"]))
    assert stream(nb, 'print(results["create-table"].text)') == files["create-table"].read_text(encoding="utf-8") + "\n"
    assert stream(nb, "back = import_data(") == (
        f"imported dialogue: {findings.items_checked} items; same spec as exported: True\n")

    report = result(nb, 'results["report-html"]')
    assert report["text/html"].startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;')
    assert "Access-pattern review: dialogue" in report["text/html"]
    assert report["text/plain"].startswith(f"ExportResult(wrote report-html to {files['report-html']} (")
    html = files["report-html"].read_text(encoding="utf-8")
    assert html.count('<img alt="') == 9 and "Capacity paid for but not used" in html and "Since the previous version" in html      # 9 pictures: capacity waste is a table per call
    assert ">Migration</h3>" in html and "2 backfill" in html

    migration = plan_migration(v1, spec, data_dir=dialogue_dir)
    assert stream(nb, "migration = plan_migration(") == "\n".join(migration.lines()) + "\n"
    ran = stream(nb, "run = execute_migration(")
    assert "units: consumed equal to planned" in ran, ran
    assert f"items: {len(migration.changes):,} stored in blue_dialogue on embedded moto_server" in ran
    assert "content digests equal and to what apply NEW builds from the rows" in ran
    assert sorted(p.name for p in (out / "dialogue.review_files").iterdir()) == sorted(
        re.findall(r"dialogue\.review_files/([\w-]+\.png)", files["report-md"].read_text(encoding="utf-8")))

    package = stream(nb, "package = export_python(")
    assert package.startswith(f"wrote python to {out / 'python'} (") and package.endswith("; 11 files\n")
    assert f"validated ({findings.items_checked:,} items checked)" in package
    assert (out / "python" / "dialogue_access" / "access.py").is_file()
    calls = html_records(result(nb, "calls = call_package(")["text/html"])
    assert [c["pattern"] for c in calls] == ["get_dialogue", "list_round"] and {c["same"] for c in calls} == {"True"}
    assert calls[0]["sqlite"] == calls[0]["dynamodb"] == "1" and int(calls[1]["sqlite"]) >= 1, calls


@pytest.mark.slow
def test_new_domain(jupyter_env, tmp_path):
    """07: a spec written in a cell, its rows generated and loaded; one line of generate: changed and
    the hot customer leads the heat."""
    from blue_nb.app.workflows import load_data
    from blue_nb.heat import partition_heat
    from blue_nb.samples import sample_spec
    from blue_nb.spec import loads_spec
    from blue_nb.stores import open_store

    out, scale, hot_orders = tmp_path / "07", 4000, 120
    nb = run_notebook("07_new_domain.ipynb", {"OUT": str(out), "SCALE": scale, "HOT_ORDERS": hot_orders})
    params = nbformat.read(NOTEBOOKS / "07_new_domain.ipynb", as_version=4)
    text = ast.literal_eval(next(s.value for s in ast.parse(parameters_cell(params).source).body
                                 if s.targets[0].id == "SPEC_TEXT"))
    spec = loads_spec(text, source="07_new_domain")
    rows = sample_spec(spec, scale=scale, seed=7, out_dir=tmp_path / "again")
    assert result(nb, "rows = sample_spec(spec,")["text/plain"] == repr(rows)
    assert (out / "base" / "orders.csv").read_bytes() == (tmp_path / "again" / "orders.csv").read_bytes()
    assert stream(nb, "loaded = load_data(spec,").startswith(f"blue_orders: {sum(rows.values()):,} items written")
    assert "items checked" in result(nb, "findings = validate(")["text/plain"]
    assert stream(nb, "bill = design_cost(").startswith("on demand: $")
    for call in ("key_heatmap(report.timeline)", "item_size_distribution(", "key_heatmap(hot_report.timeline)",
                 "top_keys_chart("):
        assert result(nb, call)["image/png"], f"{call} drew no picture"
    generated = {r["attribute"]: r["value"] for r in html_records(result(nb, "hot_spec = loads_spec(")["text/html"])}
    assert generated["per_parent.uniform"] == "[1, 6]" and generated["per_parent.first"] == str(hot_orders)
    hot = loads_spec(text.replace("per_parent: {uniform: [1, 6]}", f"per_parent: {{uniform: [1, 6], first: {hot_orders}}}"))
    sample_spec(hot, scale=scale, seed=7, out_dir=tmp_path / "hot")
    with open_store("duckdb") as store:
        load_data(hot, tmp_path / "hot", stores=[store], progress=False)
        report = partition_heat(hot, store, seconds=30)
    top = report.partitions.iloc[0]
    shown = html_records(result(nb, "hot_report.partitions.head(3)")["text/html"])
    assert shown[0]["pk"] == top["pk"] and int(shown[0]["items"].replace(",", "")) == top["items"]
    assert top["index"] == "table" and top["items"] > hot_orders                 # its orders, their lines and shipments
    first_customer = next(iter((tmp_path / "hot" / "customers.csv").read_text(encoding="utf-8").splitlines()[1:]))
    assert top["pk"] == "CUST#" + first_customer.split(",")[0]


EXECUTED = {"04_item_sizes.ipynb": test_item_sizes, "00_quickstart.ipynb": test_quickstart, "01_load_data.ipynb": test_load_data,
            "02_access_patterns.ipynb": test_access_patterns, "03_partition_heat.ipynb": test_partition_heat,
            "05_dynamodb_roundtrip.ipynb": test_dynamodb_roundtrip, "06_export_spec.ipynb": test_export_spec,
            "07_new_domain.ipynb": test_new_domain}
