"""Bad DynamoDB JSON given to ``blue-nb size`` (stdin or a file)."""

import json

from tests.bad_inputs.case import Case

OK = '{"pk": {"S": "a"}}\n'
BIG = json.dumps({"pk": {"S": "a"}, "blob": {"S": "x" * 5_000_000}}) + "\n"          # 5 MB, 12x the limit
SIZE = ("size",)
FILE = ("size", "{dir}/items.jsonl")

CASES = [
    Case("size-not-json", SIZE, ("<stdin>:1", "invalid json", "one json object"), stdin='{"a": \n'),
    Case("size-empty-string-set", SIZE, ("<stdin>:2 tags", "SS must be a non-empty list", "omit the attribute"),
         stdin=OK + '{"pk": {"S": "a"}, "tags": {"SS": []}}\n'),
    Case("size-duplicate-string-set", SIZE, ("<stdin>:1 tags", "duplicate member 'x'", "remove the repeat"),
         stdin='{"pk": {"S": "a"}, "tags": {"SS": ["x", "y", "x"]}}\n'),
    Case("size-duplicate-number-set", SIZE, ("<stdin>:1 r", "duplicate member '1.0'", "numerically equal", "remove the repeat"),
         stdin='{"pk": {"S": "a"}, "r": {"NS": ["1", "2", "1.0"]}}\n'),
    Case("size-duplicate-binary-set", SIZE, ("<stdin>:1 t", "BS has a duplicate member", "remove the repeat"),
         stdin='{"pk": {"S": "a"}, "t": {"BS": ["AAE=", "AAE="]}}\n'),
    Case("size-bool-not-boolean", SIZE, ("<stdin>:1 ok", "BOOL value 'yes' is invalid", '{"BOOL": true}'),
         stdin='{"pk": {"S": "a"}, "ok": {"BOOL": "yes"}}\n'),
    Case("size-null-false", SIZE, ("<stdin>:1 gone", "NULL value False is invalid", '{"NULL": true}'),
         stdin='{"pk": {"S": "a"}, "gone": {"NULL": false}}\n'),
    Case("size-number-not-string", SIZE, ("<stdin>:1 n", "must be a string", "write numbers as strings"),
         stdin='{"pk": {"S": "a"}, "n": {"N": 12}}\n'),
    Case("size-number-nan", SIZE, ("<stdin>:1 n", "'NaN' is not a valid DynamoDB number", "plain decimal"),
         stdin='{"pk": {"S": "a"}, "n": {"N": "NaN"}}\n'),
    Case("size-number-out-of-range", SIZE, ("<stdin>:1 m.x", "out of range", "store it as a string"),
         stdin='{"pk": {"S": "a"}, "m": {"M": {"x": {"N": "1E+200"}}}}\n'),
    Case("size-number-39-digits", SIZE, ("<stdin>:1 n", "significant digits", "38 significant digits"),
         stdin='{"pk": {"S": "a"}, "n": {"N": "' + "1" * 39 + '"}}\n'),
    Case("size-string-not-string", SIZE, ("<stdin>:1 s", "S value 5 is not a string"),
         stdin='{"pk": {"S": "a"}, "s": {"S": 5}}\n'),
    Case("size-bad-base64", SIZE, ("<stdin>:1 b", "not valid base64", "padding"), stdin='{"pk": {"S": "a"}, "b": {"B": "%%%"}}\n'),
    Case("size-unknown-tag", SIZE, ("<stdin>:1 pk", "unknown type key 'STR'", "use one of"), stdin='{"pk": {"STR": "a"}}\n'),
    Case("size-two-tags", SIZE, ("<stdin>:1 pk", "exactly one type key", '{"S": "text"}'), stdin='{"pk": {"S": "a", "N": "1"}}\n'),
    Case("size-list-not-list", SIZE, ("<stdin>:1 l", "L value", "is not a list"), stdin='{"pk": {"S": "a"}, "l": {"L": {"S": "x"}}}\n'),
    Case("size-too-deep", SIZE, ("<stdin>:1 d", "nesting deeper than 32", "flatten the value"),
         stdin='{"pk": {"S": "a"}, "d": ' + '{"L": [' * 33 + '{"S": "x"}' + "]}" * 33 + "}\n"),
    Case("size-json-nested-too-deeply", SIZE, ("<stdin>:1", "nested too deeply", "flatten"),
         stdin='{"pk": ' + "[" * 200_000 + "]" * 200_000 + "}\n"),
    Case("size-duplicate-attribute", SIZE, ("<stdin>:1", "duplicate key 'pk'", "silently replace"),
         stdin='{"pk": {"S": "a"}, "pk": {"S": "b"}}\n'),
    Case("size-empty-attribute-name", SIZE, ("<stdin>:1", "attribute name '' must be 1 byte to 64 KB", "rename"),
         stdin='{"": {"S": "a"}}\n'),
    Case("size-empty-item", SIZE, ("<stdin>:3", "no attributes", "at least its key"), stdin=OK + "\n{}\n"),
    Case("size-not-an-object", SIZE, ("<stdin>:1", "expected a JSON object", "one json object"), stdin="[1, 2]\n"),
    Case("size-not-an-item", SIZE, ("<stdin>:1", "not a dynamodb json item", '{"Item":'), stdin='{"pk": "a"}\n'),
    Case("size-lone-surrogate", SIZE, ("<stdin>:1 s", "lone surrogate", "encoding"),
         stdin='{"pk": {"S": "a"}, "s": {"S": "\\ud800"}}\n'),
    Case("size-over-item-limit", FILE, ("items.jsonl:2", "5,000,007 bytes", "item limit of 409,600 bytes", "S3"),
         exit_code=1, files={"items.jsonl": OK + BIG}),
    Case("size-invalid-utf8-in-file", FILE, ("items.jsonl:2", "not utf-8", "byte 0xff", "save the file as UTF-8"),
         files={"items.jsonl": OK.encode() + b'{"pk": {"S": "\xff"}}\n'}),
    Case("size-binary-file", FILE, ("items.jsonl:1", "not utf-8", "save the file as UTF-8"), files={"items.jsonl": b"\x89PNG\r\n\x1a\n"}),
    Case("size-line-too-long", FILE, ("items.jsonl:2", "longer than 16,777,216 bytes", "per line"),
         files={"items.jsonl": OK + '{"pk": {"S": "' + "x" * (17 << 20) + '"}}\n'}),
    Case("size-missing-file", ("size", "{dir}/nope.jsonl"), ("nope.jsonl", "cannot read", "check the path")),
]
