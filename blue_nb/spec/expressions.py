"""DynamoDB's condition language, as a spec writes it: parsed once into a tree.

A pattern's ``filter`` (a Query's or Scan's FilterExpression) is written in DynamoDB's own syntax, with
attribute names and document paths written as they are (``status``, ``address.city``, ``tags[0]``: blue_nb
sends every name through ExpressionAttributeNames, so reserved words need no ``#``) and values as
``:name``, declared in the filter's ``values``. :func:`parse_condition` reads the text into a tree of
the dataclasses below, or raises a :class:`ConditionSyntaxError` that says where the text goes wrong.
:func:`condition_text` writes a tree back as DynamoDB reads it, each name replaced as the caller says.

The grammar and its precedence (tightest first) are DynamoDB's: comparisons (``= <> < <= > >=``),
``IN``, ``BETWEEN``, functions (``attribute_exists``, ``attribute_not_exists``, ``attribute_type``,
``begins_with``, ``contains``, and ``size`` as an operand), parentheses, ``NOT``, ``AND``, ``OR``.
Keywords are case-insensitive, function names are not. Pure: evaluation lives in
:mod:`blue_nb.patterns.filters`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Union

__all__ = ["And", "Between", "Compare", "Condition", "ConditionSyntaxError", "Function", "In", "Not", "Operand",
           "Or", "Path", "Size", "Value", "FUNCTIONS", "MAX_EXPRESSION_BYTES", "MAX_IN_OPERANDS", "condition_nodes", "condition_paths",
           "condition_text", "condition_values", "parse_condition", "parse_path", "path_text", "Arith", "UpdateAction",
           "UpdateFunction", "parse_update", "update_text", "update_values"]

MAX_EXPRESSION_BYTES = 4096         # DynamoDB's limit on an expression string
MAX_IN_OPERANDS = 100               # DynamoDB's limit on the list of IN
#: function -> the number of its arguments
FUNCTIONS = {"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2, "begins_with": 2,
             "contains": 2}


class ConditionSyntaxError(ValueError):
    """A condition that does not parse: ``msg`` says what, ``at`` the character offset where."""

    def __init__(self, msg: str, at: int):
        super().__init__(msg)
        self.msg, self.at = msg, at


@dataclass(frozen=True)
class Path:
    """An attribute or a document path: its top-level name, then map keys (str) and list indexes (int)."""

    parts: tuple[str | int, ...]

    @property
    def name(self) -> str:
        return str(self.parts[0])


@dataclass(frozen=True)
class Value:
    """``:name``: a value the filter's ``values`` declares."""

    name: str


@dataclass(frozen=True)
class Size:
    """``size(path)`` as an operand."""

    path: Path


Operand = Union[Path, Value, Size]


@dataclass(frozen=True)
class Compare:
    """``left op right``, ``op`` one of ``= <> < <= > >=``."""

    op: str
    left: Operand
    right: Operand


@dataclass(frozen=True)
class Between:
    """``operand BETWEEN low AND high``."""

    operand: Operand
    low: Operand
    high: Operand


@dataclass(frozen=True)
class In:
    """``operand IN (a, b, ...)``."""

    operand: Operand
    options: tuple[Operand, ...]


@dataclass(frozen=True)
class Function:
    """A function that is a condition: ``attribute_exists(path)``, ``begins_with(path, :v)``, ..."""

    name: str
    args: tuple[Operand, ...]


@dataclass(frozen=True)
class Not:
    """``NOT condition``."""

    operand: "Condition"


@dataclass(frozen=True)
class And:
    """``left AND right``."""

    left: "Condition"
    right: "Condition"


@dataclass(frozen=True)
class Or:
    """``left OR right``."""

    left: "Condition"
    right: "Condition"


Condition = Union[Compare, Between, In, Function, Not, And, Or]

_TOKEN = re.compile(r"\s*(?:(?P<op><>|<=|>=|=|<|>)|(?P<punct>[(),.\[\]+\-])|(?P<value>:[A-Za-z0-9_]+)"
                    r"|(?P<number>[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*))")
_KEYWORDS = {"AND", "OR", "NOT", "BETWEEN", "IN"}


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, at = [], 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return out + [("end", "", at)]
        m = _TOKEN.match(text, at)
        if not m or m.end() == at:
            raise ConditionSyntaxError(f"unexpected {text[at]!r}", at)
        kind = m.lastgroup or ""
        word = m.group(kind)
        start = m.start(kind)
        if kind == "name" and word.upper() in _KEYWORDS:
            kind, word = "keyword", word.upper()
        out.append((kind, word, start))
        at = m.end()


class _Parser:
    def __init__(self, text: str):
        self.text, self.tokens, self.i = text, _tokens(text), 0

    def peek(self, offset: int = 0) -> tuple[str, str, int]:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def take(self, kind: str, word: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if tok[0] != kind or (word is not None and tok[1] != word):
            want = word or {"name": "an attribute name", "value": "a :value", "number": "a list index"}.get(kind, kind)
            got = "the end" if tok[0] == "end" else repr(tok[1])
            raise ConditionSyntaxError(f"expected {want}, found {got}", tok[2])
        self.i += 1
        return tok

    def at(self, kind: str, word: str | None = None) -> bool:
        tok = self.peek()
        return tok[0] == kind and (word is None or tok[1] == word)

    def condition(self) -> Condition:
        left = self.conjunction()
        while self.at("keyword", "OR"):
            self.i += 1
            left = Or(left, self.conjunction())
        return left

    def conjunction(self) -> Condition:
        left = self.negation()
        while self.at("keyword", "AND"):
            self.i += 1
            left = And(left, self.negation())
        return left

    def negation(self) -> Condition:
        if self.at("keyword", "NOT"):
            self.i += 1
            return Not(self.negation())
        return self.primary()

    def primary(self) -> Condition:
        kind, word, at = self.peek()
        if kind == "punct" and word == "(":
            self.i += 1
            inner = self.condition()
            self.take("punct", ")")
            return inner
        if kind == "name" and word in FUNCTIONS and self.peek(1)[1] == "(":
            self.i += 2
            args = [self.operand()]
            while self.at("punct", ","):
                self.i += 1
                args.append(self.operand())
            self.take("punct", ")")
            if len(args) != FUNCTIONS[word]:
                raise ConditionSyntaxError(f"{word} takes {FUNCTIONS[word]} argument(s), got {len(args)}", at)
            if not isinstance(args[0], Path):
                raise ConditionSyntaxError(f"the first argument of {word} is an attribute path", at)
            if len(args) > 1 and word in ("attribute_type", "begins_with") and not isinstance(args[1], Value):
                raise ConditionSyntaxError(f"the second argument of {word} is a :value", at)
            return Function(word, tuple(args))
        left = self.operand()
        kind, word, at = self.peek()
        if kind == "op":
            self.i += 1
            return Compare(word, left, self.operand())
        if kind == "keyword" and word == "BETWEEN":
            self.i += 1
            low = self.operand()
            self.take("keyword", "AND")
            return Between(left, low, self.operand())
        if kind == "keyword" and word == "IN":
            self.i += 1
            self.take("punct", "(")
            options = [self.operand()]
            while self.at("punct", ","):
                self.i += 1
                options.append(self.operand())
            self.take("punct", ")")
            if len(options) > MAX_IN_OPERANDS:
                raise ConditionSyntaxError(f"IN takes at most {MAX_IN_OPERANDS} values, got {len(options)}", at)
            return In(left, tuple(options))
        got = "the end" if kind == "end" else repr(word)
        raise ConditionSyntaxError(f"expected a comparison, BETWEEN or IN after the operand, found {got}", at)

    def operand(self) -> Operand:
        kind, word, at = self.peek()
        if kind == "value":
            self.i += 1
            return Value(word[1:])
        if kind == "name" and word == "size" and self.peek(1)[1] == "(":
            self.i += 2
            path = self.path()
            self.take("punct", ")")
            return Size(path)
        return self.path()

    def path(self) -> Path:
        parts: list[str | int] = [self.take("name")[1]]
        while True:
            if self.at("punct", "."):
                self.i += 1
                parts.append(self.take("name")[1])
            elif self.at("punct", "["):
                self.i += 1
                parts.append(int(self.take("number")[1]))
                self.take("punct", "]")
            else:
                return Path(tuple(parts))


def parse_condition(text: str) -> Condition:
    """The tree of a condition written in DynamoDB's syntax (names bare, values ``:name``)."""
    if len(text.encode("utf-8")) > MAX_EXPRESSION_BYTES:
        raise ConditionSyntaxError(f"the expression is over DynamoDB's limit of {MAX_EXPRESSION_BYTES:,} bytes", 0)
    parser = _Parser(text)
    if parser.at("end"):
        raise ConditionSyntaxError("the expression is empty", 0)
    tree = parser.condition()
    parser.take("end")
    return tree


def parse_path(text: str) -> Path:
    """One document path (``a``, ``a.b``, ``a[0].b``), as a ProjectionExpression names it."""
    parser = _Parser(text)
    path = parser.path()
    parser.take("end")
    return path


def path_text(path: Path, name: Callable[[str], str] = str) -> str:
    """A path written back (``a.b[0]``); ``name`` writes each attribute name (e.g. as ``#p0``)."""
    return _operand_text(path, name, str)


def _walk(node) -> list:
    out = [node]
    for child in (getattr(node, f) for f in ("left", "right", "operand", "low", "high", "path")
                  if hasattr(node, f)):
        out += _walk(child)
    for child in getattr(node, "options", ()) + getattr(node, "args", ()):
        out += _walk(child)
    return out


def condition_nodes(tree: Condition) -> list:
    """Every node of the condition (conditions and operands), parents before their children."""
    return _walk(tree)


def condition_paths(tree: Condition) -> list[Path]:
    """Every attribute path the condition names, in order of appearance."""
    return [n for n in _walk(tree) if isinstance(n, Path)]


def condition_values(tree: Condition) -> list[str]:
    """The names of the ``:values`` the condition uses, each once, in order of appearance."""
    return list(dict.fromkeys(n.name for n in _walk(tree) if isinstance(n, Value)))


def _operand_text(node: Operand, name: Callable[[str], str], value: Callable[[str], str]) -> str:
    if isinstance(node, Value):
        return value(node.name)
    if isinstance(node, Size):
        return f"size({_operand_text(node.path, name, value)})"
    out = name(node.name)
    for part in node.parts[1:]:
        out += f"[{part}]" if isinstance(part, int) else "." + name(part)
    return out


def condition_text(tree: Condition, name: Callable[[str], str] = str, value: Callable[[str], str] = lambda v: ":" + v,
                   outer: int = 0) -> str:
    """The condition as DynamoDB reads it; ``name`` writes each attribute name (e.g. as ``#n0``), ``value``
    each value name. Parentheses only where precedence needs them."""
    def op(n: Operand) -> str:
        return _operand_text(n, name, value)

    def sub(c: Condition, level: int) -> str:
        return condition_text(c, name, value, level)

    if isinstance(tree, Or):
        text, level = f"{sub(tree.left, 1)} OR {sub(tree.right, 1)}", 1
    elif isinstance(tree, And):
        text, level = f"{sub(tree.left, 2)} AND {sub(tree.right, 2)}", 2
    elif isinstance(tree, Not):
        text, level = f"NOT {sub(tree.operand, 3)}", 3
    elif isinstance(tree, Compare):
        return f"{op(tree.left)} {tree.op} {op(tree.right)}"
    elif isinstance(tree, Between):
        return f"{op(tree.operand)} BETWEEN {op(tree.low)} AND {op(tree.high)}"
    elif isinstance(tree, In):
        return f"{op(tree.operand)} IN ({', '.join(op(o) for o in tree.options)})"
    else:
        return f"{tree.name}({', '.join(op(a) for a in tree.args)})"
    return f"({text})" if level < outer or (level == outer and level != 3 and outer) else text


# -- UpdateExpression -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Arith:
    """``left + right`` or ``left - right`` in a SET value."""

    op: str
    left: "UpdateValue"
    right: "UpdateValue"


@dataclass(frozen=True)
class UpdateFunction:
    """``if_not_exists(path, value)`` or ``list_append(a, b)`` in a SET value."""

    name: str
    args: tuple["UpdateValue", ...]


UpdateValue = Union[Path, Value, Arith, UpdateFunction]


@dataclass(frozen=True)
class UpdateAction:
    """One action of an UpdateExpression: ``SET path = value``, ``REMOVE path``, ``ADD path :v``, ``DELETE path :v``."""

    clause: str
    path: Path
    value: "UpdateValue | None" = None


_CLAUSES = ("SET", "REMOVE", "ADD", "DELETE")


class _UpdateParser(_Parser):
    def clauses(self) -> list[UpdateAction]:
        out: list[UpdateAction] = []
        seen: set[str] = set()
        while not self.at("end"):
            kind, word, at = self.peek()
            clause = word.upper() if kind == "name" else ""
            if clause not in _CLAUSES:
                raise ConditionSyntaxError(f"expected SET, REMOVE, ADD or DELETE, found {word or 'the end'!r}", at)
            if clause in seen:
                raise ConditionSyntaxError(f"The {clause} section can only be used once in an update expression", at)
            seen.add(clause)
            self.i += 1
            while True:
                out.append(self.action(clause))
                if not self.at("punct", ","):
                    break
                self.i += 1
        if not out:
            raise ConditionSyntaxError("the update expression is empty", 0)
        return out

    def action(self, clause: str) -> UpdateAction:
        path = self.path()
        if clause == "REMOVE":
            return UpdateAction(clause, path)
        if clause == "SET":
            self.take("op", "=")
            return UpdateAction(clause, path, self.set_value())
        kind, word, at = self.peek()
        if kind != "value":
            raise ConditionSyntaxError(f"{clause} takes a :value after the path", at)
        self.i += 1
        return UpdateAction(clause, path, Value(word[1:]))

    def set_value(self) -> UpdateValue:
        left = self.set_operand()
        kind, word, _ = self.peek()
        if kind == "punct" and word in ("+", "-"):
            self.i += 1
            return Arith(word, left, self.set_operand())
        return left

    def set_operand(self) -> UpdateValue:
        kind, word, at = self.peek()
        if kind == "name" and word in ("if_not_exists", "list_append") and self.peek(1)[1] == "(":
            self.i += 2
            args = [self.set_operand()]
            self.take("punct", ",")
            args.append(self.set_operand())
            self.take("punct", ")")
            if word == "if_not_exists" and not isinstance(args[0], Path):
                raise ConditionSyntaxError("the first argument of if_not_exists is an attribute path", at)
            return UpdateFunction(word, tuple(args))
        if kind == "value":
            self.i += 1
            return Value(word[1:])
        return self.path()


def parse_update(text: str) -> list[UpdateAction]:
    """The actions of an UpdateExpression written in DynamoDB's syntax (names bare, values ``:name``)."""
    if len(text.encode("utf-8")) > MAX_EXPRESSION_BYTES:
        raise ConditionSyntaxError(f"the expression is over DynamoDB's limit of {MAX_EXPRESSION_BYTES:,} bytes", 0)
    return _UpdateParser(text).clauses()


def update_values(actions: list[UpdateAction]) -> list[str]:
    """The names of the ``:values`` an update uses, each once."""
    return list(dict.fromkeys(n.name for a in actions for n in _update_walk(a.value) if isinstance(n, Value)))


def _update_walk(node) -> list:
    if node is None:
        return []
    if isinstance(node, Arith):
        return [node, *_update_walk(node.left), *_update_walk(node.right)]
    if isinstance(node, UpdateFunction):
        return [node, *(x for a in node.args for x in _update_walk(a))]
    return [node]


def update_text(actions: list[UpdateAction], name: Callable[[str], str] = str,
                value: Callable[[str], str] = lambda v: ":" + v) -> str:
    """The update as DynamoDB reads it; ``name`` and ``value`` write each attribute and value name."""
    def val(v) -> str:
        if isinstance(v, Arith):
            return f"{val(v.left)} {v.op} {val(v.right)}"
        if isinstance(v, UpdateFunction):
            return f"{v.name}({', '.join(val(a) for a in v.args)})"
        return _operand_text(v, name, value)

    parts = []
    for clause in _CLAUSES:
        acts = [a for a in actions if a.clause == clause]
        if not acts:
            continue
        body = ", ".join(_operand_text(a.path, name, value) + (
            "" if a.value is None else (f" = {val(a.value)}" if clause == "SET" else f" {val(a.value)}")) for a in acts)
        parts.append(f"{clause} {body}")
    return " ".join(parts)
