"""Bad DynamoDB JSON given to ``blue-nb size`` (stdin or a file)."""

from tests.bad_inputs.case import Case

CASES = [
    Case("size-not-json", ("size",), ("<stdin>:1",), stdin='{"a": \n'),
]
