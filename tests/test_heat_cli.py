"""``blue-nb heat`` on the dialogue sample as a user reads it: the summary says which findings it counts and
gives validate's counts too (clearly labelled); the table of hot keys lines up on wide characters (東京, made busy by a recorded log);
the pictures are written at 110 dpi."""

from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from blue_nb.cli import cli
from blue_nb.printing import display_width

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def heat_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("heat")
    spec, data = ROOT / "data/specs/dialogue.yaml", ROOT / "data/sample/dialogue"
    result = CliRunner().invoke(cli, ["heat", str(spec), "--data", str(data), "--out", str(out), "--no-progress",
                                      "--seconds", "20"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines(), out, spec, data


def test_summary_counts_heat_findings_and_validates_separately(heat_run):
    lines, out, spec, data = heat_run
    assert "heat findings (above): 0 errors, 0 warnings, 0 notes" in lines
    assert (f"blue-nb validate (spec, items and heat): 3 errors, 0 warnings, 4 notes; "
            f"see them with: blue-nb validate {spec} --data {data}") in lines   # what `validate --data` reports
    assert lines[-1] == f"14 files written to {out}"


def test_hot_key_table_lines_up_on_wide_characters(heat_run, tmp_path):
    lines = heat_run[0]
    head = lines.index(next(l for l in lines if l.strip().startswith("index")))
    assert lines[head].split() == ["index", "partition", "key", "RCU/s", "WCU/s", "3×WCU+RCU", "items"]
    # a recorded log that makes the sample's CJK dialogue the busiest key, so the table holds wide characters
    spec, data = heat_run[2], heat_run[3]
    log = tmp_path / "log.csv"
    log.write_text("timestamp,pattern,pk\n" + "".join(f"{1_700_000_000 + k / 10},list_perspectives,{pk}\n"
                                                       for k in range(20) for pk in ("東京-launch", "nvidia-dec")),
                   encoding="utf-8")
    result = CliRunner().invoke(cli, ["heat", str(spec), "--data", str(data), "--log", str(log),
                                      "--out", str(tmp_path / "out"), "--no-progress"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    head = lines.index(next(l for l in lines if l.strip().startswith("index")))
    table = [l for l in lines[head:head + 11] if l.startswith("  ")]
    assert table[0].split() == ["index", "partition", "key", "RCU/s", "WCU/s", "3×WCU+RCU", "items"]
    assert any("東京-launch" in l for l in table)
    for col in ("RCU/s", "WCU/s", "3×WCU+RCU", "items"):        # numbers right-aligned under their heading
        edge = display_width(table[0][: table[0].index(col) + len(col)])
        assert all(at(l, edge - 1) not in (" ", None) and at(l, edge) in (" ", None) for l in table), col


def at(line: str, column: int):
    """The character at terminal ``column`` of ``line`` (a wide character takes two), None past its end."""
    used = 0
    for ch in line:
        if used <= column < used + display_width(ch):
            return ch
        used += display_width(ch)
    return None


def test_pictures_are_written_at_110_dpi(heat_run):
    out = heat_run[1]
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) == 10
    for png in pngs:
        with Image.open(png) as im:
            assert round(im.info["dpi"][0]) == 110, png.name
    with Image.open(out / "heat_table_rcu.png") as im:
        assert im.size[0] == 11 * 110


def test_every_item_is_built_once_per_spec_whatever_checks_it(monkeypatch, tmp_path):
    """validate --data, heat and the review report (with --against: each version) build each item of the rows
    once: it is loaded and checked from that one build, never made again from the source files."""
    from blue_nb.app import review, workflows
    from blue_nb.app.reports import heat_report
    from blue_nb.items import ItemBuilder

    built = []
    real = ItemBuilder.located

    def counted(self, entity, rows):
        for located in real(self, entity, rows):
            built.append(entity.name)
            yield located
    monkeypatch.setattr(ItemBuilder, "located", counted)
    spec, data = ROOT / "data/specs/dialogue.yaml", ROOT / "data/sample/dialogue"
    findings = workflows.validate(spec, data)
    items = findings.items_checked
    assert items > 1000 and len(built) == items and findings.by_rule("HEAT-MODEL") == []
    built.clear()
    summary = heat_report(spec, data, tmp_path, seconds=5, progress=False, figures=False)
    assert len(built) == items and summary["validate_counts"] == findings.counts
    built.clear()
    found, measured = review.review_data(ROOT / "data/specs/dialogue_v2.yaml", data, against=spec, figures=False)
    # v2, then v1 for the costs; the migration plan takes v1's items from that same pass
    assert len(built) == 2 * items and measured.items == items and measured.changes.costs
    assert measured.changes.migration["summary"].startswith("4,711 of 5,261 items move to new keys")
    from blue_nb.app.migrate import plan_migration
    assert measured.changes.migration == plan_migration(spec, ROOT / "data/specs/dialogue_v2.yaml",
                                                        data_dir=data).report_data()
