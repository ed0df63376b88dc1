"""Project files: environment.yml mirrors pyproject.toml, the README and CI run the two commands,
and every public package's __all__ is complete."""

import importlib
import inspect
import json
import re
import subprocess
import sys
import tomllib

import pytest
import yaml

CONDA_NAMES = {"duckdb": "python-duckdb", "moto[server]": "moto"}
PACKAGES = ["blue_nb", "blue_nb.errors", "blue_nb.spec", "blue_nb.sizing", "blue_nb.items", "blue_nb.items.values",
            "blue_nb.items.build", "blue_nb.patterns", "blue_nb.stores", "blue_nb.samples", "blue_nb.sources",
            "blue_nb.imports", "blue_nb.rules", "blue_nb.heat", "blue_nb.plots", "blue_nb.widgets", "blue_nb.app.frames",
            "blue_nb.app.workflows", "blue_nb.app.session", "blue_nb.layout", "blue_nb.pricing", "blue_nb.printing",
            "blue_nb.sizes", "blue_nb.dynamo"]


def _split(req: str) -> tuple[str, str]:
    m = re.match(r"^([A-Za-z0-9_.\-\[\]]+)\s*(.*)$", req.strip())
    return m.group(1).lower(), m.group(2).replace(" ", "")


def test_environment_yml_mirrors_pyproject(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    wanted = dict(_split(r) for r in project["dependencies"] + project["optional-dependencies"]["test"])
    env = yaml.safe_load((root / "environment.yml").read_text())
    conda = dict(_split(d) for d in env["dependencies"] if isinstance(d, str))
    assert conda.pop("python") == ">=" + project["requires-python"].removeprefix(">=")
    conda.pop("pip")
    assert conda == {CONDA_NAMES.get(n, n): v for n, v in wanted.items()}
    pip = [d for d in env["dependencies"] if isinstance(d, dict)][0]["pip"]
    assert pip == ["-e ."]


def test_every_dependency_has_a_lower_bound(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    for req in project["dependencies"] + project["optional-dependencies"]["test"]:
        assert ">=" in req, req


def test_readme_opens_with_the_two_commands(root):
    head = (root / "README.md").read_text().split("\n## ")[0]
    assert "make lab" in head and "make test" in head


def test_ci_runs_make_test(root):
    lines = [l for l in (root / ".ci/run").read_text().splitlines() if l.strip() and not l.startswith("#")]
    assert lines[-1].strip() == "make test"


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_complete(name):
    mod = importlib.import_module(name)
    assert len(mod.__all__) == len(set(mod.__all__))
    for n in mod.__all__:
        assert hasattr(mod, n), f"{name}.__all__ names {n}, which does not exist"
    defined = {n for n, v in vars(mod).items() if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
               and getattr(v, "__module__", "").startswith(name)}
    assert defined <= set(mod.__all__), f"public but not in {name}.__all__: {defined - set(mod.__all__)}"


def test_no_credentials_in_the_repo(root):
    """No access key id (AKIA + 16 capitals or digits, case-sensitive as AWS writes them) or secret in any
    file git would commit: tracked files and new files that are not ignored (scratch output is)."""
    pattern = re.compile(r"(AKIA[0-9A-Z]{16}|(?i:aws_secret_access_key)\s*[=:]\s*\S{20,})")
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=root,
                           capture_output=True, text=True, check=True).stdout.split()
    assert "pyproject.toml" in files
    for rel in files:
        path = root / rel
        if path.is_file() and path.stat().st_size < 2_000_000:
            assert not pattern.search(path.read_text(errors="ignore")), path


def test_the_front_door_loads_lazily_and_exports_what_it_lists():
    code = ("import sys, blue_nb; print(sorted(m for m in ('pandas', 'duckdb', 'matplotlib', 'numpy') if m in sys.modules)); "
            "[getattr(blue_nb, n) for n in blue_nb.__all__]; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["[]", "ok"]


def test_notebooks_import_from_the_front_door(root):
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            for line in "".join(cell["source"]).splitlines():
                if "blue_nb" in line and "import" in line:
                    assert line.startswith("from blue_nb import "), f"{nb.name}: {line!r}: import from blue_nb itself"


def test_the_project_stands_alone(root):
    """A user's clone has only this repository: no file points outside it, and every README link resolves."""
    outside = "../" + "shared"                           # spelled in two parts so this file does not match itself
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
    for rel in tracked:
        path = root / rel
        if path.is_file() and path.suffix in (".md", ".py", ".ipynb", ".toml", ".yml", ".yaml", ".cfg", ""):
            assert outside not in path.read_text(errors="ignore"), f"{rel} points outside the repository"
    for target in re.findall(r"\]\(([^)#\s]+)", (root / "README.md").read_text(encoding="utf-8")):
        if not target.startswith(("http://", "https://")):
            assert (root / target).exists(), f"README links to {target}, which is not in the repository"


def test_the_longest_first_list_names_test_files_that_exist():
    """tests/conftest.py hands these files out first; a renamed one would silently drop out of the order."""
    from tests.conftest import LONGEST_FIRST, ROOT

    assert [n for n in LONGEST_FIRST if not (ROOT / "tests" / n).is_file()] == []
