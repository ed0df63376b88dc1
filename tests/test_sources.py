"""Source files read row by row: what is accepted (BOM, CRLF, multi-line cells), what is refused
with a located SourceError, and the empty-source rule with its ``allow_empty`` opt-in."""

from __future__ import annotations

import codecs
import io
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from blue_nb.app.workflows import load_data
from blue_nb.cli import cli
from blue_nb.errors import SourceError
from blue_nb.sources import files
from blue_nb.sources.files import count_rows, find_source, iter_rows
from blue_nb.spec import dumps_spec, load_spec, loads_spec
from blue_nb.stores import open_store

LIBRARY = Path(__file__).resolve().parent.parent / "data" / "examples" / "library"


@pytest.fixture
def library(tmp_path) -> Path:
    shutil.copytree(LIBRARY, tmp_path / "lib")
    return tmp_path / "lib"


def test_bom_crlf_and_multiline_cells_are_read(tmp_path):
    p = tmp_path / "t.csv"
    p.write_bytes(b'\xef\xbb\xbfid,note\r\n1,"two\r\nlines"\r\n2,plain\r\n')
    assert list(iter_rows(p)) == [(f"{p}:2", {"id": "1", "note": "two\r\nlines"}), (f"{p}:4", {"id": "2", "note": "plain"})]
    assert count_rows(p) == 2 and iter_rows(p).path == p


def test_jsonl_with_crlf_and_bom(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n\r\n{"a": 2.5}\r\n')
    rows = list(iter_rows(p))
    assert [w for w, _ in rows] == [f"{p}:1", f"{p}:3"] and rows[0][1] == {"a": 1}


def test_invalid_utf8_names_line_and_column(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_bytes(b'{"a": 1}\n{"a": "\xc3\xa9\xff"}\n')
    with pytest.raises(SourceError) as e:
        list(iter_rows(p))
    assert e.value.where == f"{p}:2" and "column 9" in e.value.msg and "byte 10 of the line" in e.value.msg


@pytest.mark.parametrize("content", [b"", b"PAR1", b"PAR1" + b"\0" * 20 + b"PAR1", b"x" * 100])
def test_broken_parquet_is_a_source_error_in_count_rows_too(tmp_path, content):
    p = tmp_path / "t.parquet"
    p.write_bytes(content)
    if not content:
        assert count_rows(p) == 0 and list(iter_rows(p)) == []       # 0 bytes: no rows (the empty-source rule decides)
        return
    for read in (count_rows, lambda q: list(iter_rows(q))):
        with pytest.raises(SourceError) as e:
            read(p)
        assert str(p) in e.value.where and e.value.hint


def test_unreadable_file_is_a_source_error(tmp_path, monkeypatch):
    p = tmp_path / "t.csv"
    p.write_text("a\n1\n")

    def deny(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(Path, "open", deny)
    with pytest.raises(SourceError, match="Permission denied") as e:
        list(iter_rows(p))
    assert e.value.where == str(p) and "readable" in e.value.hint


def test_find_source_names_a_directory_and_other_suffixes(tmp_path):
    (tmp_path / "a.csv").mkdir()
    with pytest.raises(SourceError, match="a.csv is a directory"):
        find_source(tmp_path, "a")
    (tmp_path / "b.CSV").write_text("x\n1\n")
    with pytest.raises(SourceError, match="found b.CSV, not a type"):
        find_source(tmp_path, "b")


def test_empty_source_refused_unless_allowed(library, tmp_path):
    (library / "branches.csv").write_text("branch_id,name\n")
    store = open_store("sqlite")
    try:
        with pytest.raises(SourceError) as e:
            load_data(library / "library.yaml", library, stores=[store], progress=False)
        assert "branches.csv holds no rows" in e.value.msg and "entities.Branch.allow_empty: true" in e.value.hint
        text = (library / "library.yaml").read_text().replace("    source: branches\n",
                                                             "    source: branches\n    allow_empty: true\n")
        (library / "library.yaml").write_text(text)
        spec = load_spec(library / "library.yaml")
        assert spec.entities["Branch"].allow_empty and not spec.entities["Book"].allow_empty
        assert loads_spec(dumps_spec(spec)).entities["Branch"].allow_empty        # written back and read again
        r, = load_data(spec, library, stores=[store], progress=False)
        assert r.per_entity.get("Branch") is None and r.items_written == 10
    finally:
        store.close()


def test_validate_reports_duplicate_keys(library):
    lines = (library / "books.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (library / "books.jsonl").write_text("".join(lines + lines[:1] + lines[:1]), encoding="utf-8")
    r = CliRunner().invoke(cli, ["validate", str(library / "library.yaml"), "--data", str(library)])
    assert r.exit_code == 1, r.output
    assert "DUPLICATE-ITEM-KEY" in r.stdout and "BRANCH#central / BOOK#9780060883287: 3 Book items" in r.stdout
    assert "entities.Book.key.sk" in r.stdout and "Traceback" not in r.output


def _lines_one_by_one(data: bytes, p: str) -> list:
    """What text_lines gives, the simple way: a line at a time (the reference for the block reader)."""
    out = []
    for n, raw in enumerate(io.BytesIO(data).readlines(), 1):
        if n == 1 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return out + [("error", n)]
        if "\x00" in text:
            return out + [("error", n)]
        out.append((n, text))
    return out


@pytest.mark.parametrize("block", [1, 2, 3, 5, 8, 64, 1 << 20])
@pytest.mark.parametrize("data", [
    b"", b"a", b"a\n", b"\n\n", b"a,b\r\nc,d\r\n", codecs.BOM_UTF8 + b"h\xc3\xa9\nx", b"caf\xc3\xa9 \xe6\x9d\xb1\xe4\xba\xac\n\xf0\x9f\x98\x80",
    b"ok\nok\nbad \xe9 byte\nnot read\n", b"ok\nnul \x00 here\n", b"ok\n" * 20 + b"\xff", b'"a\nb",c\nd\n',
])
def test_lines_read_a_block_at_a_time_are_the_lines_read_one_by_one(monkeypatch, block, data):
    monkeypatch.setattr(files, "_BLOCK_BYTES", block)
    got = []
    try:
        for n, text in files.text_lines(io.BytesIO(data), "f.csv"):
            got.append((n, text))
    except SourceError as e:
        got.append(("error", int(e.where.rsplit(":", 1)[1])))
    assert got == _lines_one_by_one(data, "f.csv")
