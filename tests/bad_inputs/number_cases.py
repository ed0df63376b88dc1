"""Numbers out of range, refused with their place: prices, rates, capacities; the apply's deadline; and
true words where a number is legal but says nothing (a spec without patterns costs $0)."""

import json
import re
from pathlib import Path

from tests.bad_inputs.case import Case

ROOT = Path(__file__).resolve().parent.parent.parent
PRICES = json.loads((ROOT / "blue_nb" / "pricing" / "tables" / "us-east-1.json").read_text(encoding="utf-8"))
SPEC = (ROOT / "data" / "examples" / "library" / "library.yaml").read_text(encoding="utf-8")
COST = ("cost", "{dir}/library.yaml", "--data", "{dir}/data")


def prices(**changed) -> str:
    text = json.dumps({**PRICES, **{k: "@" + k for k in changed}})
    for k, v in changed.items():                       # written as JSON numbers, exactly as given
        text = text.replace(f'"@{k}"', v)
    return text


NO_PATTERNS = SPEC[:SPEC.index("access_patterns:")] + "access_patterns: []\n"

CASES = [
    Case("cost-price-1e400", (*COST, "--prices", "{dir}/p.json"),
         ("p.json: on_demand_read_per_million", "out of range", "above 1,000,000", "typo"),
         files={"p.json": prices(on_demand_read_per_million="1e400")}),
    Case("cost-hours-per-month-too-many", (*COST, "--prices", "{dir}/p.json"),
         ("hours_per_month", "out of range", "above 744"), files={"p.json": prices(hours_per_month="9999")}),
    Case("cost-rate-1e30", (*COST, "--rate", "get_branch=1e30"),
         ("rates.get_branch", "from 0 to 1,000,000,000", "1e+30")),
    Case("spec-rate-1e30", (*COST,), ("library.yaml:55", "access_patterns[0] (get_branch).rate_per_second", "above the maximum 1,000,000,000", "typo"),
         files={"library.yaml": re.sub(r"rate_per_second: 20\b", "rate_per_second: 1.0e+30", SPEC, count=1)}),
    Case("spec-capacity-1e30", ("validate", "{dir}/library.yaml"),
         ("table.read_capacity", "above the maximum 1,000,000,000"),
         files={"library.yaml": SPEC.replace("  billing_mode: PAY_PER_REQUEST\n", "  billing_mode: PROVISIONED\n"
                                             "  read_capacity: 1000000000000000000000000000000\n"
                                             "  write_capacity: 5\n", 1)}),
    Case("apply-deadline-zero", ("apply", "{dir}/library.yaml", "--data", "{dir}/data", "--deadline", "0"),
         ("'--deadline'", "1<=x<=86400")),
    Case("cost-spec-without-patterns-says-so", (*COST,),
         ("note: the spec has no access patterns: the requests cost $0 here",), exit_code=0,
         files={"library.yaml": NO_PATTERNS}),
]
