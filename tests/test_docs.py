"""The project carries its own documentation: every link in README.md and docs/*.md resolves
inside the repository (the file, and the heading an anchor names), the only links that leave it
are https:// links to AWS's pages, and no file of the project points at documents outside it.
In the code: every public class of the package says what it is in a docstring."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ["docs/spec-format.md", "docs/dynamodb-rules.md", "docs/adr-0018.md", "docs/faults.md", "docs/migrate.md",
        "docs/guide.md", "docs/glossary.md", "docs/python-export.md"]
AWS_HOSTS = ("docs.aws.amazon.com", "aws.amazon.com")
# spelled in parts, so that this file does not match itself
OUTSIDE = ("../" + "shared", "/work/" + "shared")

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
OUTPUT_OPTION = re.compile(r"(?:--out|-o|--sqlite|--duckdb)[ =](\S+)")


def markdown_files() -> list[Path]:
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans: what a renderer turns into links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    body = prose(text)
    return INLINE_LINK.findall(body) + REFERENCE_LINK.findall(body)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, code marks and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)       # a link in a heading keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        n = seen.get(base, 0)
        out.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return out


def project_files() -> list[str]:
    """Tracked files and new files git does not ignore (docs/ before its first commit, say)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if line]


# ------------------------------------------------------------------------------------ the helpers

def test_links_are_found_in_prose_only_and_anchors_follow_github():
    text = ("See [a](docs/a.md#x) and [b][r] ![img](pic.png).\n\n[r]: https://docs.aws.amazon.com/x.html\n"
            "```\n[not](a-link.md)\n```\n`[nor](this.md)`\n")
    assert links(text) == ["docs/a.md#x", "pic.png", "https://docs.aws.amazon.com/x.html"]
    assert slug("What blue_nb does with them") == "what-blue_nb-does-with-them"
    assert slug("1. One table per domain") == "1-one-table-per-domain"
    assert slug("`blue-nb lab`: the server") == "blue-nb-lab-the-server"


def test_anchors_of_repeated_headings_are_numbered(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# Notes\n\n## Notes\n\n```\n# not a heading\n```\n", encoding="utf-8")
    assert anchors(page) == {"notes", "notes-1"}


# ------------------------------------------------------------------------------------ the documents

def test_the_documentation_is_in_the_repository():
    for rel in DOCS:
        path = ROOT / rel
        assert path.is_file(), f"{rel} is missing"
        assert len(path.read_text(encoding="utf-8")) > 2000, f"{rel} is too short to document anything"
    readme = links((ROOT / "README.md").read_text(encoding="utf-8"))
    for rel in DOCS:
        assert any(urlsplit(t).path == rel for t in readme), f"README.md does not link {rel}"


@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_resolves_inside_the_repository(page: Path):
    found = links(page.read_text(encoding="utf-8"))
    assert found or page.name != "README.md", "README.md has no links"
    for target in found:
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            assert parts.scheme == "https" and parts.hostname in AWS_HOSTS, \
                f"{page.name}: {target} leaves the repository (only https:// links to AWS's pages may)"
            continue
        dest = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        assert dest.is_relative_to(ROOT), f"{page.name}: {target} points outside the repository"
        assert dest.exists(), f"{page.name}: {target} names a file that is not in the repository"
        if parts.fragment:
            assert dest.suffix == ".md", f"{page.name}: {target}: an anchor into a file that is not Markdown"
            assert unquote(parts.fragment) in anchors(dest), \
                f"{page.name}: {target}: no heading of {dest.name} has the anchor #{parts.fragment}"


def ignored(rel: str) -> bool:
    return subprocess.run(["git", "check-ignore", "-q", "--no-index", rel], cwd=ROOT).returncode == 0


def test_the_examples_write_only_into_folders_git_ignores():
    """`blue-nb sample ... --out scratch/...` must not leave megabytes of untracked files behind."""
    assert ignored("scratch/big/dialogue/perspectives.csv")
    assert not ignored("docs/spec-format.md")                       # the check itself can say no
    outputs = []
    for page in markdown_files():
        for block in SH_BLOCK.findall(page.read_text(encoding="utf-8")):
            outputs += [(page.name, path) for path in OUTPUT_OPTION.findall(block) if path != "-"]
    assert ("README.md", "scratch/big/dialogue") in outputs
    assert [(name, path) for name, path in outputs if not ignored(path.rstrip("/") + "/probe")
            and not ignored(path)] == []


def test_no_project_file_points_at_documents_outside_it():
    offenders = []
    for rel in project_files():
        path = ROOT / rel
        if not path.is_file():
            continue
        data = path.read_bytes()
        offenders += [f"{rel}: {needle}" for needle in OUTSIDE if needle.encode() in data]
    assert offenders == []


def undocumented_classes(root: Path) -> list[str]:
    """``file:line Name`` of each class not named with a leading underscore that has no docstring."""
    return [f"{path.relative_to(root)}:{node.lineno} {node.name}"
            for path in sorted(root.rglob("*.py"))
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_") and not ast.get_docstring(node)]


def test_undocumented_classes_are_found(tmp_path):
    (tmp_path / "m.py").write_text('class A:\n    """Said."""\n\n\nclass B:\n    x = 1\n\n\n'
                                   'class _C:\n    pass\n\n\ndef f():\n    class D:\n        pass\n')
    assert undocumented_classes(tmp_path) == ["m.py:5 B", "m.py:14 D"]


def test_every_public_class_has_a_docstring():
    missing = undocumented_classes(ROOT / "blue_nb")
    assert not missing, "public classes without a docstring:\n" + "\n".join(missing)
