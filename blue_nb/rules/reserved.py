"""DynamoDB's reserved words (page: ReservedWords), read from ``reserved_words.txt`` beside this
module: one upper-case word per line, 573 of them. A reserved word, or a name with characters
other than letters, digits and ``_``, can be used in an expression only through an
ExpressionAttributeNames alias (``#status``)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

__all__ = ["RESERVED_WORDS_FILE", "is_reserved", "needs_alias", "reserved_words"]

RESERVED_WORDS_FILE = Path(__file__).with_name("reserved_words.txt")
_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


@lru_cache(maxsize=1)
def reserved_words() -> frozenset[str]:
    """The 573 reserved words, upper case."""
    text = RESERVED_WORDS_FILE.read_text(encoding="utf-8")
    return frozenset(w.strip().upper() for w in text.splitlines() if w.strip() and not w.startswith("#"))


def is_reserved(name: str) -> bool:
    """True when ``name`` is a reserved word (DynamoDB compares case-insensitively)."""
    return name.upper() in reserved_words()


def needs_alias(name: str) -> str:
    """Why an expression must alias ``name`` ("reserved word", "special characters"), or ""."""
    if is_reserved(name):
        return "reserved word"
    if not _PLAIN_NAME.match(name):
        return "special characters"
    return ""
