"""Fonts for text in any script, chosen by the glyphs the installed fonts have.

Keys, entity and attribute names may be in any script (``東京-launch``, ``서울#1``). matplotlib
draws each glyph with the first family of ``font.family`` that has it (3.6+), so every text gets
the chain ``[DejaVu Sans, <fonts that cover what DejaVu Sans lacks>]``. Which fonts cover what is
read from each installed font's character map (cmap) - every regular face of the files matplotlib
knows and of the system's font folders, so a font installed after matplotlib built its font cache
(``fonts-noto-cjk``, ``fonts-wqy-microhei``) is found too. The scan runs once per process.

Where no installed font has a character, one warning per process names the package to install;
the text is still drawn as it is (never written as an escape such as ``\\u6771``).
"""

from __future__ import annotations

import functools
import unicodedata
import warnings
from dataclasses import dataclass

import numpy as np
from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

__all__ = ["LATIN", "Face", "MissingGlyphWarning", "clear_cache", "font_chain", "installed_faces"]

LATIN = "DejaVu Sans"           # matplotlib's own font: always there, first in every chain
NOT_TEXT = ("Last Resort", "STIX", "cm", "DejaVu Math", "DejaVu Sans Display", "DejaVu Serif Display")  # boxes, math
REGULAR = ("regular", "book", "normal", "roman", "medium", "")
LOCALES = (("JP", (0x3040, 0x30FF)), ("KR", (0xAC00, 0xD7AF)), ("KR", (0x1100, 0x11FF)), ("KR", (0x3130, 0x318F)))
PACKAGES = (  # (first, last code point, Debian/Ubuntu package with a font that has them)
    (0x1100, 0x11FF, "fonts-noto-cjk"), (0x2E80, 0x9FFF, "fonts-noto-cjk"), (0xA960, 0xA97F, "fonts-noto-cjk"),
    (0xAC00, 0xD7FF, "fonts-noto-cjk"), (0xF900, 0xFAFF, "fonts-noto-cjk"), (0xFE30, 0xFE4F, "fonts-noto-cjk"),
    (0xFF00, 0xFFEF, "fonts-noto-cjk"), (0x20000, 0x3FFFF, "fonts-noto-cjk"),
    (0x2600, 0x27BF, "fonts-symbola"), (0x1F000, 0x1FAFF, "fonts-symbola"))
OTHER_PACKAGE = "fonts-noto-core"


class MissingGlyphWarning(UserWarning):
    """No installed font has some characters of a figure's text: they are drawn as boxes."""


@dataclass(frozen=True, eq=False)
class Face:
    """One installed font face: its family name, file, face index in the file and the code points it has."""

    family: str
    path: str
    index: int
    codepoints: np.ndarray          # sorted int64

    def covers(self, codepoints) -> set[int]:
        """The ``codepoints`` this face has a glyph for."""
        cps = np.fromiter(codepoints, np.int64)
        at = np.searchsorted(self.codepoints, cps).clip(0, max(len(self.codepoints) - 1, 0))
        return set(cps[self.codepoints[at] == cps].tolist()) if len(self.codepoints) else set()


def _font_files() -> list[str]:
    """Every font file matplotlib knows, then those in the system's font folders it does not (yet)."""
    known = [f.fname for f in font_manager.fontManager.ttflist]
    return list(dict.fromkeys([*known, *sorted(font_manager.findSystemFonts())]))


def _faces_of(path: str):
    """(family, face index, code points) of each regular, scalable face in ``path``; nothing for a file FreeType
    cannot read."""
    try:
        first = FT2Font(path)
        for i in range(first.num_faces):
            face = FT2Font(path, face_index=i) if i else first
            if (face.style_name.lower() in REGULAR and not face.family_name.startswith(NOT_TEXT)
                    and face.scalable):        # a bitmap font (Noto Color Emoji) matplotlib cannot draw: the browser's only
                yield face.family_name, i, np.array(sorted(face.get_charmap()), np.int64)
    except (OSError, RuntimeError, ValueError):
        return


@functools.cache
def installed_faces() -> tuple[Face, ...]:
    """One regular face per installed family, with its character map (scanned once per process)."""
    faces: dict[str, Face] = {}
    for path in _font_files():
        for family, index, cps in _faces_of(path):
            faces.setdefault(family, Face(family, path, index, cps))
    return tuple(faces.values())


def _rank(face: Face, covered: int, locale: str | None) -> tuple:
    """Most characters first; then sans before serif, proportional before mono, the script's locale (JP, KR)."""
    name = face.family
    return (covered, "Serif" not in name, "Mono" not in name, bool(locale) and locale in name.split(),
            -len(name))


def _locale(needed: set[int]) -> str | None:
    for tag, (lo, hi) in LOCALES:
        if any(lo <= c <= hi for c in needed):
            return tag
    return None


def _drawable(ch: str) -> bool:
    """A character that needs a glyph (not a space, control or format character)."""
    return not ch.isspace() and unicodedata.category(ch)[0] not in "CZ"


def _package(cp: int) -> str:
    return next((p for lo, hi, p in PACKAGES if lo <= cp <= hi), OTHER_PACKAGE)


_warned: set[str] = set()


def _warn_missing(missing: set[int]) -> None:
    """One warning per process and package: which characters no installed font has, and what to install."""
    by_package: dict[str, list[int]] = {}
    for cp in sorted(missing):
        by_package.setdefault(_package(cp), []).append(cp)
    for package, cps in by_package.items():
        if package in _warned:
            continue
        _warned.add(package)
        shown = ", ".join(f"{chr(c)} (U+{c:04X})" for c in cps[:5]) + (" ..." if len(cps) > 5 else "")
        warnings.warn(f"no installed font has glyphs for {shown}: they are drawn as boxes. Install a font that has "
                      f"them (Debian/Ubuntu: sudo apt-get install {package}) and restart Python",
                      MissingGlyphWarning, stacklevel=3)


def _register(face: Face) -> None:
    """Make ``face`` known to matplotlib's font manager (a font installed after its cache was built is not)."""
    manager = font_manager.fontManager
    if not any(f.name == face.family for f in manager.ttflist):
        manager.addfont(face.path)


@functools.lru_cache(maxsize=256)
def _chain(needed: frozenset[int]) -> tuple[str, ...]:
    """Greedy cover of ``needed`` (code points LATIN lacks): the face with the most of them, then the next."""
    chain, rest, locale = [LATIN], set(needed), _locale(set(needed))
    faces = [f for f in installed_faces() if f.family != LATIN]
    while rest and faces:
        covered = {f: f.covers(rest) for f in faces}
        best = max(faces, key=lambda f: _rank(f, len(covered[f]), locale))
        if not covered[best]:
            break
        _register(best)
        chain.append(best.family)
        rest -= covered[best]
        faces.remove(best)
    if rest:
        _warn_missing(rest)
    return tuple(chain)


@functools.cache
def _latin() -> Face:
    faces = [f for f in installed_faces() if f.family == LATIN]
    if faces:
        return faces[0]
    path = font_manager.findfont(font_manager.FontProperties(family=LATIN))   # matplotlib ships it
    return Face(LATIN, path, 0, np.array(sorted(FT2Font(path).get_charmap()), np.int64))


def font_chain(text: str) -> list[str]:
    """The font families to draw ``text`` with: ``DejaVu Sans``, then installed fonts covering the rest.

    ``font_chain("東京-launch") == ["DejaVu Sans", "Noto Sans CJK JP"]`` where Noto Sans CJK is
    installed. Characters no installed font has raise one :class:`MissingGlyphWarning` naming the
    package to install. Only text with characters DejaVu Sans lacks makes the fonts be scanned."""
    return list(_text_chain(text))


@functools.lru_cache(maxsize=4096)
def _text_chain(text: str) -> tuple[str, ...]:      # a live picture asks for the same labels on every redraw
    cps = {ord(ch) for ch in set(text) if _drawable(ch)}
    if not cps:
        return (LATIN,)
    needed = frozenset(cps - _latin().covers(cps))
    return _chain(needed) if needed else (LATIN,)


def clear_cache() -> None:
    """Forget the scan and the chains (after installing a font, or in tests)."""
    installed_faces.cache_clear()
    _latin.cache_clear()
    _chain.cache_clear()
    _text_chain.cache_clear()
    _warned.clear()
