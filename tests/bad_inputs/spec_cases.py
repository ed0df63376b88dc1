"""Bad spec files: syntax, structure, duplicates, templates, hostile sizes."""

from tests.bad_inputs.case import Case

VALIDATE = ("validate", "{dir}/library.yaml")

CASES = [
    Case("spec-missing-file", ("validate", "{dir}/nope.yaml"), ("cannot read spec file", "nope.yaml", "check the path")),
]
