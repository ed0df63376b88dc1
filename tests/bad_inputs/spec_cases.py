"""Bad spec files: syntax, structure, duplicates, templates, hostile sizes."""

import json
from pathlib import Path

import yaml

from tests.bad_inputs.case import Case

VALIDATE = ("validate", "{dir}/library.yaml")
LIB = (Path(__file__).resolve().parents[2] / "data/examples/library/library.yaml").read_text(encoding="utf-8")
LINES = LIB.splitlines()


def line_of(text: str) -> int:
    """1-based line of the first line of library.yaml that starts with ``text`` (after its indent)."""
    return next(n for n, line in enumerate(LINES, 1) if line.strip().startswith(text))


def changed(old: str, new: str) -> dict[str, str]:
    assert LIB.count(old) >= 1, old
    return {"library.yaml": LIB.replace(old, new, 1)}


BOOK = line_of("Book:")
GET_BRANCH_KC = line_of('key_condition: {pk: "BRANCH#{branch_id}", sk: "META"}')
LOAN_SK = line_of('sk: "LOAN#{isbn}#{loan_id:05d}"')
SECOND_BOOK = LIB.replace("access_patterns:", "  Book:\n    key: {pk: X, sk: Y}\n\naccess_patterns:", 1)
SECOND_BOOK_LINE = SECOND_BOOK.splitlines().index("  Book:", BOOK) + 1
AS_JSON = json.dumps(yaml.safe_load(LIB), indent=1)
BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
DEEP = "spec_version: 1\ndomain: " + "[" * 100_000 + "]" * 100_000 + "\n"
DEEP_BLOCK = "spec_version: 1\n" + "".join(" " * i + f"k{i}:\n" for i in range(60)) + " " * 60 + "x: 1\n"
PADDED = LIB + ("# " + "x" * 98 + "\n") * 11_000                     # 1.1 MB of comments

CASES = [
    Case("spec-missing-file", ("validate", "{dir}/nope.yaml"), ("cannot read spec file", "nope.yaml", "check the path")),
    Case("spec-is-a-directory", ("validate", "{dir}/data"), ("'SPEC'", "/data", "is a directory")),
    # silently changed: duplicates and keys YAML reads as other types
    Case("spec-duplicate-entity", VALIDATE, (f"library.yaml:{SECOND_BOOK_LINE}",
                                             "entities.Book", "duplicate key 'Book'", f"first at line {BOOK}",
                                             "rename one"), files={"library.yaml": SECOND_BOOK}),
    Case("spec-duplicate-flow-key", VALIDATE, (f"library.yaml:{GET_BRANCH_KC}",
                                               "duplicate key 'pk'", "merge the two"),
         files=changed('{pk: "BRANCH#{branch_id}", sk: "META"}', '{pk: "BRANCH#{branch_id}", pk: "X", sk: "META"}')),
    Case("spec-duplicate-key-json", ("validate", "{dir}/library.json"),
         ("library.json:3", "duplicate key 'domain'", "first at line 3", "rename one"),
         files={"library.json": AS_JSON.replace('"domain": "library",', '"domain": "library", "domain": "x",', 1)}),
    Case("spec-boolean-key", VALIDATE, (f"library.yaml:{line_of('attributes: {name: S, city')}", "key 'on' is not a string",
                                        'quote it ("on")'),
         files=changed("attributes: {name: S, city: S,", "attributes: {name: S, on: S, city: S,")),
    Case("spec-null-key", VALIDATE, (f"library.yaml:{line_of('attributes: {name: S, city')}", "is not a string", "quote it"),
         files=changed("attributes: {name: S, city: S,", "attributes: {name: S, ~: S, city: S,")),
    Case("spec-merge-key", VALIDATE, ("library.yaml:", "key '<<' is not a string"),
         files=changed("    gsi1:\n      type: global\n", "    gsi1:\n      <<: {projection: all}\n      type: global\n")),
    # resources
    Case("spec-alias-bomb", VALIDATE, ("library.yaml:2:", "alias *a is not allowed", "write the value out in full"),
         files={"library.yaml": BOMB}),
    Case("spec-alias-small", VALIDATE, ("library.yaml:", "alias *pk is not allowed", "anchors and aliases"),
         files=changed('pk: "BRANCH#{branch_id}"\n      sk: "META"', 'pk: &pk "BRANCH#{branch_id}"\n      sk: *pk')),
    Case("spec-too-large", VALIDATE, ("library.yaml", "larger than 1,000,000 bytes", "right file"), files={"library.yaml": PADDED}),
    Case("spec-deep-flow-nesting", VALIDATE, ("library.yaml:2:", "nested more than 32 levels", "brackets"),
         files={"library.yaml": DEEP}),
    Case("spec-deep-block-nesting", VALIDATE, ("library.yaml:", "nested more than 32 levels", "indentation"),
         files={"library.yaml": DEEP_BLOCK}),
    # bytes that are not a spec's text
    Case("spec-binary", VALIDATE, ("library.yaml:1:1", "not utf-8", "byte 0x89", "saved as utf-8"),
         files={"library.yaml": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe"}),
    Case("spec-latin1-byte", VALIDATE, (f"library.yaml:{line_of('description: Lending')}:", "not utf-8", "byte 0xe8", "saved as utf-8"),
         files={"library.yaml": LIB.encode().replace(b"Lending library", b"Lending biblioth\xe8que \xe9", 1)}),
    Case("spec-nul-byte", VALIDATE, (f"library.yaml:{line_of('domain:')}:", "U+0000", "no NUL"),
         files=changed("domain: library", "domain: lib\x00rary")),
    Case("spec-tab-indent", VALIDATE, (f"library.yaml:{line_of('sort_key: sk')}", "spaces, not tabs"),
         files=changed("\n  sort_key: sk", "\n\tsort_key: sk")),
    Case("spec-unclosed-bracket", VALIDATE, ("library.yaml:", "not valid yaml/json", "fix the syntax"),
         files=changed("attributes: {name: S, city: S,", "attributes: [name: S, city: S,")),
    Case("spec-two-documents", VALIDATE, ("library.yaml:", "expected a single document", "fix the syntax"),
         files={"library.yaml": LIB + "---\nspec_version: 1\n"}),
    Case("spec-python-tag", VALIDATE, (f"library.yaml:{line_of('domain:')}", "constructor", "fix the syntax"),
         files=changed("domain: library", "domain: !!python/object/apply:os.system [echo]")),
    # values YAML cannot build, or builds into something else
    Case("spec-bad-date", VALIDATE, (f"library.yaml:{line_of('description: Lending')}", "month must be in 1..12"),
         files=changed("description: Lending library - branches, the books on their shelves and the loans of those books",
                       "description: 2024-13-45")),
    Case("spec-huge-integer", VALIDATE, (f"library.yaml:{line_of('rate_per_second: 20')}", "cannot read the value", "4300"),
         files=changed("rate_per_second: 20", "rate_per_second: " + "9" * 5000)),
    Case("spec-nan-rate", VALIDATE, (f"library.yaml:{line_of('rate_per_second: 20')}", "access_patterns[0] (get_branch).rate_per_second",
                                     "expected a number, got nan"), files=changed("rate_per_second: 20", "rate_per_second: .nan")),
    Case("spec-infinite-rate", VALIDATE, ("access_patterns[0] (get_branch).rate_per_second", "got inf"),
         files=changed("rate_per_second: 20", "rate_per_second: .inf")),
    Case("spec-domain-trailing-newline", VALIDATE, (f"library.yaml:{line_of('domain:')} domain", "does not match"),
         files=changed("domain: library", 'domain: "library\\n"')),
    # not a spec at all
    Case("spec-empty-file", VALIDATE, ("library.yaml", "the spec is empty", "expected a mapping", "start from an example"),
         files={"library.yaml": ""}),
    Case("spec-only-comments", VALIDATE, ("library.yaml", "the spec is empty"), files={"library.yaml": "# nothing yet\n\n"}),
    Case("spec-is-a-list", VALIDATE, ("library.yaml:1", "expected a mapping", "spec_version, domain, table"),
         files={"library.yaml": "- spec_version: 1\n- domain: library\n"}),
    Case("spec-is-a-scalar", VALIDATE, ("library.yaml:1", "expected a mapping, got 'hello'"), files={"library.yaml": "hello\n"}),
    # templates, read when the spec is read
    Case("spec-bad-format-spec", VALIDATE, (f"library.yaml:{LOAN_SK}",
                                            "entities.Loan.key.sk", "invalid format spec '03q'", "03d (zero-padded"),
         files=changed("{loan_id:05d}", "{loan_id:03q}")),
    Case("spec-bad-format-spec-in-pattern", VALIDATE, ("access_patterns[4] (lend_book).key_condition.sk", "invalid format spec '+5'",
                                                       "python format spec"),
         files={"library.yaml": LIB.replace('sk: "LOAN#{isbn}#{loan_id:05d}"}', 'sk: "LOAN#{isbn}#{loan_id:+5}"}')}),
    Case("spec-unknown-field", VALIDATE, (f"library.yaml:{line_of('billing_mode')} table.biling_mode",
                                          "did you mean 'billing_mode'"), files=changed("billing_mode:", "biling_mode:")),
    Case("spec-huge-value-quoted-short", VALIDATE, ("library.yaml:", "expected a string", "..."),
         files=changed("domain: library", "domain: [" + ", ".join(["1"] * 50_000) + "]")),
]
