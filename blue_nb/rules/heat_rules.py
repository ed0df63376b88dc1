"""The rules of the partition heat model: defined here, in the one registry, emitted by
:mod:`blue_nb.heat` (they need the items in a DuckDB store and the workload model, so
:func:`blue_nb.rules.check_spec` has no check for them: ``source="heat"``).

Defined after every rule of :func:`check_spec` (the registry's order is the report's order), in
the order the heat report lists them.
"""

from __future__ import annotations

from blue_nb.rules.registry import define

__all__ = ["HOT_PARTITION", "HOT_INDEX_PARTITION", "PARTITION_SIZE", "MONOTONIC_WRITES", "ITEM_SIZE_NEAR_LIMIT",
           "TABLE_CAPACITY", "FILTER_DISCARDS", "TRANSACTION_HOT_ITEM", "UPDATE_NEAR_ITEM_LIMIT", "HEAT_MODEL", "EVIDENCE",
           "WARN_FRACTION", "FILTER_KEEP_SHARE", "FILTER_MIN_READ", "TRANSACTION_ITEM_RATE"]

#: the share of a limit from which a heat finding warns: a key at >= 80% of a partition's RCU or WCU on average
#: has no headroom left (HOT-PARTITION, HOT-INDEX-PARTITION), nor an item collection at >= 80% of 10 GB
#: (PARTITION-SIZE)
WARN_FRACTION = 0.8
#: FILTER-DISCARDS: a hot pattern's filter that returns less than this share of the items a call reads ...
FILTER_KEEP_SHARE = 0.5
#: ... on a call that reads at least this many items (a filter over a handful of items wastes little)
FILTER_MIN_READ = 10
#: TRANSACTION-HOT-ITEM: transactions per second on one item from which they collide (a transaction holds its
#: items for its two phases, tens of milliseconds: at 10 a second on one item, overlaps are the rule)
TRANSACTION_ITEM_RATE = 10
#: the evidence lines a heat finding lists: its largest cases
EVIDENCE = 5

HOT_PARTITION = define("HOT-PARTITION", "error", "a table partition key over 3,000 RCU/s or 1,000 WCU/s on average: an "
                       "error past twice a limit, or over it where no split of the key's items can help; a warning "
                       "over it where a split could, at >= 80% of a limit, or when some seconds throttle",
                       source="heat")
HOT_INDEX_PARTITION = define("HOT-INDEX-PARTITION", "error", "a GSI partition key over its per-partition limits; a "
                             "GSI with few key values is flagged from 50%", source="heat")
PARTITION_SIZE = define("PARTITION-SIZE", "error", "an item collection over 10 GB with an LSI (error) or at >= 80% "
                        "of it (warning); without an LSI, a key over 10 GB spans partitions (warning)", source="heat")
MONOTONIC_WRITES = define("MONOTONIC-WRITES", "warning", "heavy writes whose sort key only grows: adaptive capacity "
                          "cannot split them", source="heat")
ITEM_SIZE_NEAR_LIMIT = define("ITEM-SIZE-NEAR-LIMIT", "warning", "items at >= 90% of 409,600 bytes: each read or "
                              "write of one costs near the most an item can", source="heat")
TABLE_CAPACITY = define("TABLE-CAPACITY", "error", "a provisioned table's total over its provisioned capacity for "
                        "longer than burst capacity covers", source="heat")
FILTER_DISCARDS = define("FILTER-DISCARDS", "warning", "a hot pattern whose filter drops most of what it reads, "
                         "measured by running it on the data: the share it returns, the dollars a month it pays for "
                         "items it drops, and the key that would read only what it returns", source="heat")
TRANSACTION_HOT_ITEM = define("TRANSACTION-HOT-ITEM", "warning", "transactions that touch one item 10 or more "
                              "times a second on average: two transactions on one item at once conflict, and DynamoDB "
                              "cancels one (TransactionCanceledException, reason TransactionConflict) or refuses a "
                              "write to it meanwhile", source="heat")
UPDATE_NEAR_ITEM_LIMIT = define("UPDATE-NEAR-ITEM-LIMIT", "warning", "an update that can grow items (SET, list_append, "
                                "ADD) of an entity that has items at >= 90% of 409,600 bytes in the data: the update "
                                "that takes one past the limit is refused", source="heat")
HEAT_MODEL = define("HEAT-MODEL", "info", "the partition heat model could not run on the data (validate goes on "
                    "without the heat findings)", source="heat")
