"""The layers, checked. The map is written once, as import-linter contracts in pyproject.toml;
here ``lint-imports`` runs them, and docs/guide.md, docs/architecture.md and the package docstring must draw the same map.
Also: no import cycles (imports made only for type checking included), no hidden imports inside
functions, each driver imported only in its own module, importing a room loads no driver (the drivers are
lazy), and no private name imported from another module."""

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "blue_nb"
CONTRACTS = {c["id"]: c for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]}
LAYERS = [[m.strip().removeprefix("blue_nb.") for m in layer.split("|")] for layer in CONTRACTS["layers"]["layers"]]
FACE = {"__init__", "errors", "cli"}           # the top of blue_nb/: the package's face, the exception tree, the CLI
ONLY_IN = {                                    # third-party driver -> the only modules allowed to import it
    "sqlite3": {"stores/sqlite.py"},
    "duckdb": {"stores/duckdb.py"},
    "boto3": {"dynamo"}, "botocore": {"dynamo"}, "moto": {"dynamo"},
    "matplotlib": {"plots", "widgets"},
    "ipywidgets": {"widgets"},
    "click": {"cli"},
}
DRIVERS = ("duckdb", "boto3", "botocore", "moto")
#: modules that load a driver by design, besides the driver's own modules (ONLY_IN) -> why
LOADS_A_DRIVER = {
    "stores/duckdb.py": "the DuckDB store: opened only through open_store('duckdb')",
    "app/roundtrip.py": "the round trip runs the patterns on DynamoDB (blue_nb.dynamo)",
}


def layer_map() -> str:
    """The layer map as docs/guide.md and blue_nb/__init__.py draw it: top layer first."""
    return "\n".join(" | ".join(layer) for layer in LAYERS)


def modules():
    for path in sorted(PKG.rglob("*.py")):
        yield path.relative_to(PKG)


ALL = list(modules())


def module_name(rel: Path) -> str:
    parts = ["blue_nb", *rel.with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(rel: Path, *, type_checking: bool = False):
    """(imported module, ast node, nested in a function) for every import of a module; with ``type_checking``
    also those under ``if TYPE_CHECKING:``."""
    tree = ast.parse((PKG / rel).read_text(encoding="utf-8"))
    package = module_name(rel).split(".") if rel.name == "__init__.py" else module_name(rel).split(".")[:-1]
    nested = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              for n in ast.walk(f) if n is not f}
    checking = {id(n) for i in ast.walk(tree) if isinstance(i, ast.If) and "TYPE_CHECKING" in ast.unparse(i.test)
                for n in ast.walk(i)} if not type_checking else set()
    for node in ast.walk(tree):
        if id(node) in checking:
            continue
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node, id(node) in nested
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            mod = ".".join(x for x in (base, node.module) if x)
            for a in node.names:                     # `from pkg import module` imports the module
                sub = f"{mod}.{a.name}"
                yield (sub if module_file(sub) else mod), node, id(node) in nested


def module_file(name: str) -> Path | None:
    if not name.startswith("blue_nb"):
        return None
    base = ROOT.joinpath(*name.split("."))
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def test_the_layer_contracts_hold():
    """import-linter's contracts from pyproject.toml: the layers, and no heavy library in the pure layers."""
    exe = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert "2 kept, 0 broken" in out.stdout


def test_every_module_lives_in_a_layer():
    rooms = {m for layer in LAYERS for m in layer}
    for rel in ALL:
        top = rel.parts[0].removesuffix(".py")
        assert top in rooms or top in FACE, f"blue_nb/{rel} is in no layer of pyproject.toml's contract"
    loose = sorted(str(rel) for rel in ALL if len(rel.parts) == 1 and rel.stem not in FACE)
    assert not loose, f"only the face, the exception tree and the CLI sit at the top of blue_nb/: move {loose}"


@pytest.mark.parametrize("doc", ["docs/guide.md", "blue_nb/__init__.py", "docs/architecture.md"])
def test_every_description_draws_the_same_layer_map(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    drawn = [m.group(1) for line in text.splitlines() if (m := re.match(r"^L\d\s+(.+?)(?:\s{2,}|$)", line.strip()))]
    assert drawn == layer_map().splitlines(), (
        f"{doc}'s layer lines (L<n>  room | room ...) must list pyproject.toml's layers, top first:\n{layer_map()}")


@pytest.mark.parametrize("rel", ALL, ids=[str(r) for r in ALL])
def test_drivers_are_imported_only_in_their_module(rel):
    for name, _, _ in imports(rel):
        allowed = ONLY_IN.get(name.split(".")[0])
        if allowed:
            assert any(str(rel) == a or rel.parts[0] == a for a in allowed), f"{rel} imports {name}"


def room_modules(room: str) -> list[str]:
    """The modules of a room that must load no driver: all but its ``__main__`` and :data:`LOADS_A_DRIVER`."""
    return [module_name(rel) for rel in ALL if rel.parts[0].removesuffix(".py") == room and rel.stem != "__main__"
            and not any(str(rel) == m or rel.parts[0] == m for m in LOADS_A_DRIVER)]


@pytest.mark.parametrize("room", [m for layer in LAYERS for m in layer])
def test_importing_a_room_loads_no_driver(room):
    """Every module of a room imported in a fresh interpreter: no driver is loaded but the room's own (ONLY_IN),
    so that, say, ``import blue_nb.app.workflows`` or ``blue_nb.heat`` does not load DuckDB or boto3."""
    own = {d for d in DRIVERS if room in ONLY_IN[d]}
    names = room_modules(room)
    code = (f"import importlib, sys\nfor m in {names!r}:\n    importlib.import_module(m)\n"
            f"print(' '.join(d for d in {DRIVERS!r} if d in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    loaded = set(out.stdout.split()) - own
    assert not loaded, f"importing blue_nb.{room}'s modules loads {sorted(loaded)}"


def test_no_import_cycles():
    graph = {module_name(rel): {n for n, _, _ in imports(rel, type_checking=True) if module_file(n) and n != module_name(rel)}
             for rel in ALL}
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):                                    # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                cycles.append(sorted(scc))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


@pytest.mark.parametrize("rel", ALL, ids=[str(r) for r in ALL])
def test_imports_inside_functions_only_defer_heavy_imports(rel):
    lines = (PKG / rel).read_text(encoding="utf-8").splitlines()
    for name, node, nested in imports(rel):
        if nested:
            assert "# deferred:" in lines[node.lineno - 1], (
                f"blue_nb/{rel}:{node.lineno} imports {name} inside a function: move it to the top of the module, "
                "or, if it defers a heavy optional import, say so with a trailing '# deferred: <why>'")


@pytest.mark.parametrize("rel", ALL, ids=[str(r) for r in ALL])
def test_no_private_name_is_imported_from_another_module(rel):
    """A name with a leading underscore belongs to its module: what another module needs is public there."""
    tree = ast.parse((PKG / rel).read_text(encoding="utf-8"))
    private = [f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
               and n.module.startswith("blue_nb") for a in n.names if a.name.startswith("_") and not a.name.startswith("__")]
    assert not private, f"blue_nb/{rel} imports private names {private}: make them public where they live"
