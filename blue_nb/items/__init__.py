"""Items: DynamoDB values and their codecs (:mod:`.values`; an item's JSON text in one pass, as the loader
writes it, :mod:`.item_json`), and source rows turned into items by a spec's key templates (:mod:`.build`).
Pure (layer 1; stdlib only)."""

from blue_nb.items.build import MISSING, ItemBuilder, coerce_attribute, plain_to_value
from blue_nb.items.values import *  # noqa: F403 - the value model's names, listed in its __all__
from blue_nb.items.values import __all__ as _values_all

__all__ = ["ItemBuilder", "MISSING", "coerce_attribute", "plain_to_value", *_values_all]
