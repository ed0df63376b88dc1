"""Fonts chosen by glyph coverage (blue_nb.plots.fonts): a figure with a CJK key is drawn with an installed
font that has its characters, never with escapes; with a fake list of installed fonts, the chain falls back
along the fonts that cover the text and warns once, naming the package, for what none covers."""

import warnings
from pathlib import Path

import matplotlib
import pandas as pd
import pytest
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.ft2font import FT2Font
from matplotlib.text import Text

from blue_nb import plots
from blue_nb.plots import fonts
from blue_nb.printing import short

DEJAVU = str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
KEY = "東京-launch"


@pytest.fixture(autouse=True)
def fresh():
    fonts.clear_cache()
    yield
    fonts.clear_cache()


def cjk_face():
    """The face a chain takes for 東京: of those covering it, sans before serif, proportional before mono, a
    Japanese face first (the order of the installed fonts alone changes when a font is added, as an emoji font)."""
    faces = [f for f in fonts.installed_faces() if {ord("東"), ord("京")} <= f.covers([ord("東"), ord("京")])]
    assert faces, "no installed font covers 東: install fonts-noto-cjk (Debian/Ubuntu)"
    return min(faces, key=lambda f: ("Serif" in f.family, "Mono" in f.family, "JP" not in f.family.split()))


def drawn_with(text: Text) -> dict[str, str]:
    """Character -> the file of the first family in the text's chain that has its glyph (matplotlib's fallback)."""
    files = [font_manager.findfont(font_manager.FontProperties(family=f), fallback_to_default=False)
             for f in text.get_fontfamily()]
    return {ch: next((f for f in files if FT2Font(f).get_char_index(ord(ch))), "") for ch in text.get_text()}


def texts_of(fig):
    return [t for t in fig.findobj(Text) if t.get_text()]


def test_a_cjk_key_is_drawn_with_a_font_that_covers_it():
    frame = pd.DataFrame({"second": [0, 1], "index": "table", "pk": [KEY, "nvidia-dec"], "rcu": [5.0, 9.0], "wcu": 0.0})
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # no MissingGlyphWarning, no "Glyph ... missing"
        fig = plots.key_heatmap(frame)
        FigureCanvasAgg(fig).draw()
    label = next(t for t in fig.axes[0].get_yticklabels() if t.get_text() == KEY)
    chain = label.get_fontfamily()
    assert chain[0] == "DejaVu Sans" and len(chain) == 2
    face = next(f for f in fonts.installed_faces() if f.family == chain[1])
    assert face.covers(map(ord, "東京")) == {ord("東"), ord("京")}       # the chosen family has both glyphs
    used = drawn_with(label)
    assert Path(used["東"]).resolve() == Path(face.path).resolve() and "DejaVuSans" in used["l"]
    assert not [t.get_text() for t in texts_of(fig) if "\\u" in t.get_text() or "\\U" in t.get_text()]


def test_every_chart_with_the_key_shows_it_as_written():
    top = pd.DataFrame({"index": ["table"], "pk": [KEY], "rcu_per_s": [21.0], "wcu_per_s": [1.4]})
    fig = plots.top_keys_chart(top)
    assert fig.axes[0].get_yticklabels()[0].get_text() == f"table · {KEY}"
    chains = {t.get_text(): t.get_fontfamily() for t in texts_of(fig)}
    assert chains[f"table · {KEY}"] == ["DejaVu Sans", cjk_face().family]       # the chain a text needs, per text
    assert {tuple(c) for text, c in chains.items() if text.isascii()} == {("DejaVu Sans",)}


def test_fake_font_list_falls_back_and_warns_once_naming_the_package(monkeypatch):
    cjk = cjk_face()
    fonts.clear_cache()
    monkeypatch.setattr(fonts, "_font_files", lambda: [DEJAVU, __file__])          # this file is no font: skipped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert fonts.font_chain(KEY) == ["DejaVu Sans"]
        fig = plots.top_keys_chart(pd.DataFrame({"index": ["table"], "pk": [KEY], "rcu_per_s": [1.0], "wcu_per_s": [0.0]}))
        FigureCanvasAgg(fig).draw()
        assert fonts.font_chain("서울") == ["DejaVu Sans"]                           # same package: no second warning
    (warning,) = caught
    assert warning.category is fonts.MissingGlyphWarning
    assert "fonts-noto-cjk" in str(warning.message) and "東 (U+6771)" in str(warning.message)
    assert fig.axes[0].get_yticklabels()[0].get_text() == f"table · {KEY}"        # drawn as boxes, not escaped

    fonts.clear_cache()
    monkeypatch.setattr(fonts, "_font_files", lambda: [DEJAVU, cjk.path])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chain = fonts.font_chain(KEY + " 👍")
    assert chain == ["DejaVu Sans", cjk.family]                                   # Latin first, then the CJK font
    assert [("fonts-symbola" in str(w.message)) for w in caught] == [True]          # the emoji: neither font has it


def test_the_chain_prefers_the_scripts_locale_and_sans():
    cjk_face()
    assert fonts.font_chain("abc") == ["DejaVu Sans"]
    jp, kr = fonts.font_chain("東京かな")[1], fonts.font_chain("서울")[1]
    assert "Serif" not in jp and "Mono" not in jp and "Serif" not in kr
    if any(f.family == "Noto Sans CJK JP" for f in fonts.installed_faces()):
        assert (jp, kr) == ("Noto Sans CJK JP", "Noto Sans CJK KR")


@pytest.mark.parametrize("text, width, cut", [("東" * 20, 10, "東東東東…"), ("abcdef", 6, "abcdef"),
                                                ("abcdefg", 6, "abcde…"), (KEY, 28, KEY)])
def test_short_counts_terminal_columns_and_never_escapes(text, width, cut):
    assert short(text, width) == cut


def test_a_bitmap_font_is_never_in_the_chain():
    """Noto Color Emoji (installed by make browser for Chromium) is a bitmap font matplotlib cannot draw: the
    chain holds only scalable faces, so a key with an emoji draws (the emoji then missing, said once)."""
    from blue_nb.plots import fonts

    fonts.clear_cache()
    faces = fonts.installed_faces()
    assert faces and all(FT2Font(f.path, face_index=f.index).scalable for f in faces)
    assert "Noto Color Emoji" not in {f.family for f in faces}
