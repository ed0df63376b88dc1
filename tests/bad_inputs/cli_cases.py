"""Bad command lines: options, parameters, store paths."""

from tests.bad_inputs.case import Case

Q = ("query", "{dir}/library.yaml")
STORE = ("--sqlite", "{dir}/store.sqlite")

CASES = [
    Case("query-no-store", ("query", "{dir}/library.yaml", "branch"), ("--sqlite", "--duckdb")),
    Case("query-backend-without-its-file", (*Q, "get_branch", "--backend", "duckdb", *STORE),
         ("--backend duckdb needs --duckdb FILE",)),
    Case("query-unknown-pattern", (*Q, "nosuch", *STORE),
         ("access_patterns", "no access pattern named 'nosuch'", "known patterns: get_branch, list_books")),
    Case("query-unknown-param", (*Q, "get_branch", *STORE, "--param", "branch_id=B1", "--param", "nosuch=1"),
         ("access_patterns.get_branch", "has no parameter 'nosuch'", "its parameters: branch_id")),
    Case("query-misspelt-param", (*Q, "list_books", *STORE, "--param", "branch=B1"),
         ("access_patterns.list_books", "no parameter 'branch'", "did you mean 'branch_id'")),
    Case("query-param-twice", (*Q, "get_branch", *STORE, "--param", "branch_id=B1", "--param", "branch_id=B2"),
         ("--param 'branch_id' is given twice", "'B1' and 'B2'", "give each parameter once")),
    Case("query-param-without-name", (*Q, "get_branch", *STORE, "--param", "=x"),
         ("--param '=x' is not NAME=VALUE", "--param branch_id=B1")),
    Case("query-param-without-equals", (*Q, "get_branch", *STORE, "--param", "branch_id"),
         ("--param 'branch_id' is not NAME=VALUE", "write --param name=value")),
    Case("query-missing-param", (*Q, "book_loans", *STORE, "--param", "branch_id=B1"),
         ("access_patterns.book_loans", "needs isbn", "--param isbn=VALUE")),
    Case("query-empty-param", (*Q, "get_branch", *STORE, "--param", "branch_id="),
         ("needs branch_id", "--param branch_id=VALUE")),
    Case("query-max-pages-zero", (*Q, "list_books", *STORE, "--param", "branch_id=B1", "--max-pages", "0"),
         ("'--max-pages'", "0 is not in the range x>=1")),
    Case("query-max-pages-not-int", (*Q, "list_books", *STORE, "--param", "branch_id=B1", "--max-pages", "two"),
         ("'--max-pages'", "not a valid integer")),
    Case("query-unknown-backend", (*Q, "get_branch", *STORE, "--backend", "postgres"),
         ("'--backend'", "'sqlite', 'duckdb'")),
    Case("cli-sample-unknown-domain", ("sample", "chess", "--out", "{dir}/o"),
         ("domain", "unknown sample domain 'chess'", "dialogue, document")),
    Case("cli-sample-scale-zero", ("sample", "dialogue", "--scale", "0", "--out", "{dir}/o"),
         ("'--scale'", "0 is not in the range x>=1")),
    Case("cli-sample-seed-not-int", ("sample", "dialogue", "--seed", "x", "--out", "{dir}/o"),
         ("'--seed'", "'x' is not a valid integer")),
    Case("cli-sample-out-is-a-file", ("sample", "dialogue", "--out", "{dir}/library.yaml"),
         ("'--out'", "is a file")),
    Case("cli-heat-seconds-zero", ("heat", "{dir}/library.yaml", "--data", "{dir}/data", "--out", "{dir}/h",
                                   "--seconds", "0"), ("'--seconds'", "1<=x<=3600")),
    Case("cli-lab-port-zero", ("lab", "--port", "0", "--no-browser"), ("'--port'", "1<=x<=65535")),
    Case("cli-prepare-root-missing", ("prepare", "--root", "{dir}/nope"), ("'--root'", "does not exist")),
    Case("cli-size-unknown-format", ("size", "--format", "xml"), ("'--format'", "'text', 'json'"), stdin=""),
    Case("cli-unknown-command", ("nosuch",), ("no such command 'nosuch'",)),
    Case("cli-unknown-option", ("validate", "{dir}/library.yaml", "--nosuch"), ("no such option", "--nosuch")),
]
