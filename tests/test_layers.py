"""The layers of architecture.md, checked: a module imports only from layers below it, heavy
libraries stay out of the pure layers, and each driver is imported only in its own module."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "blue_nb"

# rank of each top-level module or package; a module may import blue_nb modules of lower rank
# (and anything inside its own package). Pure layers first.
RANKS = {
    "errors": 0,                                   # L0
    "values": 1,                                   # L0: the DynamoDB value model (stdlib)
    "spec": 1,                                     # L0: design model (stdlib + yaml)
    "sizing": 2, "rules": 3, "items": 3, "frames": 3, "access": 3, "columnar": 3,   # L1
    "stores": 4, "dynamo": 4, "sources": 4, "export": 4.5, "heat": 4.5,   # L2 (heat and export read stores)
    "workflows": 5, "session": 6, "whatif": 6, "plots": 5, "widgets": 7,   # L3: widgets wire sessions
    "reports": 6,                                  # L3: heat report files (workflows, heat, plots)
    "cli": 8, "bench": 8, "__init__": 8,           # L4 (the package root re-exports)
}
HEAVY = {"pandas", "numpy", "duckdb", "boto3", "botocore", "ipywidgets", "matplotlib", "PIL", "pyarrow", "moto"}
PURE = {"errors", "values", "spec", "sizing", "rules", "access", "items"}
ONLY_IN = {                                         # third-party driver -> the only modules allowed to import it
    "sqlite3": {"stores/sqlite.py", "bench.py"},          # bench: the naive baseline loader
    "duckdb": {"stores/duckdb.py"},
    "boto3": {"dynamo"}, "botocore": {"dynamo"}, "moto": {"dynamo"},
    "matplotlib": {"plots", "widgets"}, "PIL": {"plots"},
    "ipywidgets": {"widgets"},
    "click": {"cli.py"},
}


def modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        yield rel, rel.parts[0].removesuffix(".py")


def imports(path: Path, rel: Path):
    """(module name, is blue_nb) for every import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ["blue_nb", *rel.parts[:-1]]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                yield ".".join(base + ([node.module] if node.module else []))
            else:
                yield node.module


ALL = list(modules())


def test_every_top_level_module_has_a_rank():
    assert {top for _, top in ALL} <= set(RANKS)


@pytest.mark.parametrize("rel, top", ALL, ids=[str(r) for r, _ in ALL])
def test_imports_go_down_the_layers(rel, top):
    for name in imports(PKG / rel, rel):
        parts = name.split(".")
        if parts[0] == "blue_nb" and len(parts) > 1 and parts[1] != top:
            assert RANKS[parts[1]] < RANKS[top], f"{rel} imports {name}: a layer {RANKS[parts[1]]} module"
        if top in PURE:
            assert parts[0] not in HEAVY, f"{rel} (a pure layer) imports {name}"
        allowed = ONLY_IN.get(parts[0])
        if allowed:
            assert any(str(rel) == a or rel.parts[0] == a for a in allowed), f"{rel} imports {name}"


def test_pure_layers_load_no_heavy_library():
    code = ("import sys, blue_nb.spec, blue_nb.sizing, blue_nb.items.values, blue_nb.items.build; "
            f"print(sorted(m for m in {sorted(HEAVY)!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_modules_stay_small():
    big = {str(rel): n for rel, _ in ALL if (n := len((PKG / rel).read_text().splitlines())) > 450}
    assert not big, f"split these modules: {big}"
