"""DynamoDB prices as data, and the pure dollar arithmetic that uses them.

Prices change and differ by region, so they live in JSON files with a region and a date
(``tables/us-east-1.json`` ships with the package, as published after the November 2024 change); a user
passes their own file to :func:`load_prices` (``blue-nb cost --prices FILE``). Every field is
checked: a missing, unknown, negative or non-numeric one is a :class:`~blue_nb.errors.SourceError`
naming the file and the field.

The arithmetic is exact (:class:`~decimal.Decimal`): a month is ``hours_per_month`` hours (730),
on-demand request units cost ``units/s x 3600 x hours x price per million / 10^6``, provisioned
capacity ``ceil(peak units/s / utilisation)`` units (at least 1, as CreateTable requires) x hours
x price per unit-hour, storage ``bytes / storage_gb_bytes`` (AWS bills GB = 2^30 bytes) x price
per GB-month.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from decimal import Decimal, localcontext
from importlib import resources
from pathlib import Path
from typing import Any

from blue_nb.errors import SourceError

__all__ = ["Prices", "as_prices", "load_prices", "regions", "to_decimal", "request_usd", "provisioned_units",
           "provisioned_usd", "storage_gb", "storage_usd", "SECONDS_PER_HOUR", "PRECISION", "TABLES"]

SECONDS_PER_HOUR = 3600
PRECISION = 50                     # Decimal digits: every product here fits without rounding
TABLES = "tables"                  # the packaged price tables: blue_nb/pricing/tables/<region>.json
_TEXT = ("region", "date", "currency")
_NUMBERS = ("hours_per_month", "on_demand_read_per_million", "on_demand_write_per_million", "provisioned_rcu_hour",
            "provisioned_wcu_hour", "storage_standard_gb_month", "storage_standard_ia_gb_month", "storage_gb_bytes",
            "free_storage_gb")
_POSITIVE = ("hours_per_month", "storage_gb_bytes")          # a zero here would divide by zero or price nothing
_OPTIONAL = ("note",)
#: the largest value a field may hold: past these a number is a typo (and 1e400 dollars would not print)
_MAXIMUM = {"hours_per_month": Decimal(744), "storage_gb_bytes": Decimal(2 ** 40), "free_storage_gb": Decimal(10 ** 9)}
_MAX_PRICE = Decimal(1_000_000)                               # dollars per unit of any price field


@dataclass(frozen=True)
class Prices:
    """One region's price table (``source``: the file it came from)."""

    region: str
    date: str
    currency: str
    hours_per_month: Decimal
    on_demand_read_per_million: Decimal       # $ per million read request units (RRU)
    on_demand_write_per_million: Decimal      # $ per million write request units (WRU)
    provisioned_rcu_hour: Decimal             # $ per RCU-hour
    provisioned_wcu_hour: Decimal             # $ per WCU-hour
    storage_standard_gb_month: Decimal        # $ per GB-month, Standard table class
    storage_standard_ia_gb_month: Decimal     # $ per GB-month, Standard-IA table class
    storage_gb_bytes: Decimal                 # bytes in a billed GB (2^30)
    free_storage_gb: Decimal                  # free GB per account: applied only when asked
    note: str = ""
    source: str = ""

    def storage_price(self, table_class: str = "standard") -> Decimal:
        """$ per GB-month for a table class: ``standard`` or ``standard_ia``."""
        if table_class not in ("standard", "standard_ia"):
            raise SourceError(f"unknown table class {table_class!r}", where="table_class",
                              hint="use 'standard' or 'standard_ia'")
        return self.storage_standard_gb_month if table_class == "standard" else self.storage_standard_ia_gb_month

    def to_dict(self) -> dict[str, Any]:
        """The table as JSON-ready values (prices as numbers)."""
        return {k: (int(v) if isinstance(v, Decimal) and v == v.to_integral_value() else
                    float(v) if isinstance(v, Decimal) else v) for k, v in asdict(self).items()}

    def __str__(self) -> str:
        return (f"{self.region} prices of {self.date} ({self.currency}): RRU ${self.on_demand_read_per_million}/M, "
                f"WRU ${self.on_demand_write_per_million}/M, RCU ${self.provisioned_rcu_hour}/h, "
                f"WCU ${self.provisioned_wcu_hour}/h, storage ${self.storage_standard_gb_month}/GB-month")


def _tables():
    """The folder of the packaged price tables, one ``<region>.json`` each."""
    return resources.files(__package__).joinpath(TABLES)


def regions() -> list[str]:
    """The regions with a price table in the package."""
    folder = _tables()
    return sorted(p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json"))


def _read(path: Path | None, region: str) -> tuple[str, str]:
    if path is None:
        f = _tables().joinpath(f"{region}.json")
        if not f.is_file():
            raise SourceError(f"no price table for region {region!r}", where="prices",
                              hint=f"packaged regions: {', '.join(regions())}; or pass your own file (--prices FILE)")
        return f.read_text(encoding="utf-8"), f"{region}.json (packaged)"
    try:
        return Path(path).read_text(encoding="utf-8"), str(path)
    except OSError as e:
        raise SourceError(f"cannot read the price file: {e.strerror or e}", where=str(path),
                          hint="give a JSON file with the fields of the packaged us-east-1.json") from e


def _field(name: str, value: Any, where: str) -> Any:
    """One checked field: text for the names, a Decimal >= 0 (> 0 for hours and GB bytes) for the prices."""
    if name in _TEXT or name in _OPTIONAL:
        if not isinstance(value, str) or (name in _TEXT and not value.strip()):
            raise SourceError(f"price field {name} must be a non-empty string, got {value!r}", where=f"{where}: {name}",
                              hint='for example "region": "us-east-1", "date": "2024-11", "currency": "USD"')
        return value
    if not isinstance(value, Decimal) or not value.is_finite():
        raise SourceError(f"price field {name} must be a number, got {value!r}", where=f"{where}: {name}",
                          hint="write prices as plain JSON numbers, e.g. 0.125")
    if value < 0 or (name in _POSITIVE and value == 0):
        bound = "> 0" if name in _POSITIVE else ">= 0"
        raise SourceError(f"price field {name} must be {bound}, got {value}", where=f"{where}: {name}",
                          hint="prices are list prices in the table's currency, never negative")
    top = _MAXIMUM.get(name, _MAX_PRICE)
    if value > top:
        raise SourceError(f"price field {name} is out of range: {value} is above {top:,}", where=f"{where}: {name}",
                          hint="a number that large is a typo: see the packaged us-east-1.json for the scale")
    return value


def load_prices(path: str | Path | None = None, region: str = "us-east-1") -> Prices:
    """The price table of ``path`` (a JSON file), or the packaged table of ``region`` when no path is
    given (the region argument is then the file's name; a given file carries its own region)."""
    text, where = _read(Path(path) if path is not None else None, region)
    try:
        raw = json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except json.JSONDecodeError as e:
        raise SourceError(f"not valid JSON: {e.msg}", where=f"{where}:{e.lineno}",
                          hint="a price file is one JSON object of field -> value") from e
    if not isinstance(raw, dict):
        raise SourceError("a price file is one JSON object", where=where, hint="see the packaged us-east-1.json")
    known = set(_TEXT) | set(_NUMBERS) | set(_OPTIONAL)
    unknown = sorted(set(raw) - known)
    if unknown:
        raise SourceError(f"unknown price field {unknown[0]!r}", where=f"{where}: {unknown[0]}",
                          hint=f"the fields are {', '.join(sorted(known))}")
    missing = [k for k in (*_TEXT, *_NUMBERS) if k not in raw]
    if missing:
        raise SourceError(f"missing price field {missing[0]!r}" + (f" (and {len(missing) - 1} more)" if missing[1:] else ""),
                          where=f"{where}: {missing[0]}", hint="every field of the packaged us-east-1.json is required")
    values = {k: _field(k, v, where) for k, v in raw.items()}
    if values["storage_gb_bytes"] != values["storage_gb_bytes"].to_integral_value():
        raise SourceError(f"price field storage_gb_bytes must be a whole number, got {values['storage_gb_bytes']}",
                          where=f"{where}: storage_gb_bytes", hint="AWS bills GB = 2^30 = 1073741824 bytes")
    return Prices(**values, source=where)


def as_prices(prices: Prices | str | Path | None) -> Prices:
    """A :class:`Prices` as given, or loaded from a file (None: the packaged us-east-1 table)."""
    return prices if isinstance(prices, Prices) else load_prices(prices)


# -- the arithmetic (pure, exact) ----------------------------------------------------------------
def to_decimal(x: float | int | Decimal) -> Decimal:
    """A model value as a Decimal, float noise dropped (rounded to 9 decimals: 1e-9 units/s is nothing)."""
    if isinstance(x, Decimal):
        return x
    if isinstance(x, int):
        return Decimal(x)
    if not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    return Decimal(repr(round(float(x), 9)))


def request_usd(units_per_s: Decimal, per_million: Decimal, hours: Decimal) -> Decimal:
    """On-demand $/month of a steady ``units_per_s``: units/s x 3600 x hours x price per million / 10^6."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return units_per_s * SECONDS_PER_HOUR * hours * per_million / Decimal(1_000_000)


def provisioned_units(peak_per_s: Decimal, utilisation: Decimal) -> int:
    """Capacity units to provision for ``peak_per_s`` at a target ``utilisation``: ceil(peak / u), at least 1."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return max(1, int((peak_per_s / utilisation).to_integral_value(rounding="ROUND_CEILING")))


def provisioned_usd(units: int, per_hour: Decimal, hours: Decimal) -> Decimal:
    """$/month of ``units`` provisioned capacity units: units x hours x price per unit-hour."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return Decimal(units) * hours * per_hour


def storage_gb(nbytes: int, gb_bytes: Decimal) -> Decimal:
    """Billed GB of ``nbytes`` (GB = ``gb_bytes``, 2^30 in AWS's bills): exact."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return Decimal(int(nbytes)) / gb_bytes


def storage_usd(gb: Decimal, per_gb_month: Decimal) -> Decimal:
    """$/month of ``gb`` billed GB."""
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return gb * per_gb_month
