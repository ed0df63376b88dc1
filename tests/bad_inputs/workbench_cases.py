"""NoSQL Workbench models refused as strictly as an S3 export: a name given twice in an item, a key of
the wrong type (the table's or an index's), an index on attributes defined nowhere, an item over 400 KB,
JSON nested deeper than any model is. Each leaves the stores and the earlier import in out/ as they were."""

import json

from tests.bad_inputs.case import Case
from tests.bad_inputs.import_cases import EARLIER, STORES

IMPORT = ("import", "{dir}/model.json", "--from", "workbench", "--out", "{dir}/out", "--no-progress", *STORES)


def model(items: list[dict] | None = None, *, gsi: dict | None = None, sk_type: str = "S") -> dict:
    table = {"TableName": "blue_shop",
             "KeyAttributes": {"PartitionKey": {"AttributeName": "pk", "AttributeType": "S"},
                               "SortKey": {"AttributeName": "sk", "AttributeType": sk_type}},
             "NonKeyAttributes": [{"AttributeName": "name", "AttributeType": "S"}],
             "TableData": items if items is not None else [
                 {"pk": {"S": f"USER#{i}"}, "sk": {"S": "PROFILE"}, "name": {"S": f"n{i}"}} for i in range(3)]}
    if gsi:
        table["GlobalSecondaryIndexes"] = [gsi]
    return {"ModelName": "shop", "ModelMetadata": {"Version": "3.0"}, "DataModel": [table]}


def files(m: dict | str) -> dict:
    return {**EARLIER, "model.json": m if isinstance(m, str) else json.dumps(m)}


GOOD = model()
TWICE = json.dumps(GOOD).replace('"name": {"S": "n1"}', '"name": {"S": "n1"}, "name": {"S": "other"}')
N_SORT_KEY = model([{"pk": {"S": "USER#1"}, "sk": {"S": "PROFILE"}}, {"pk": {"S": "USER#2"}, "sk": {"N": "7"}}])
GSI_NOWHERE = model(gsi={"IndexName": "gsi1", "KeyAttributes": {"PartitionKey": {"AttributeName": "gsi1pk",
                                                                               "AttributeType": "S"}},
                         "Projection": {"ProjectionType": "ALL"}})
GSI_TYPE = model([{"pk": {"S": "USER#1"}, "sk": {"S": "P"}, "status": {"N": "3"}}],
                 gsi={"IndexName": "by_status", "KeyAttributes": {"PartitionKey": {"AttributeName": "status",
                                                                                 "AttributeType": "S"}},
                      "Projection": {"ProjectionType": "ALL"}})
BIG = model([{"pk": {"S": "USER#big"}, "sk": {"S": "P"}, "blob": {"S": "x" * 410_000}}])
DEEP = '{"ModelName": "shop", "DataModel": ' + "[" * 50_000 + "]" * 50_000 + "}"

CASES = [
    Case("workbench-attribute-given-twice-in-an-item", IMPORT,
         ("'name' is given twice in one object", '{"S": "n1"}', '{"S": "other"}', "DataModel[0].TableData[1]",
          "keep one 'name'"), files=files(TWICE)),
    Case("workbench-number-sort-key-in-a-string-table", IMPORT,
         ("sk is N here", "the table's sort key, declared S", "DynamoDB refuses the item", "TableData[1].sk"),
         files=files(N_SORT_KEY)),
    Case("workbench-index-key-of-the-wrong-type", IMPORT,
         ("status is N here", "index by_status's partition key, declared S", "TableData[0].status"),
         files=files(GSI_TYPE)),
    Case("workbench-index-on-attributes-defined-nowhere", IMPORT,
         ("index gsi1's partition key 'gsi1pk' is defined nowhere", "blue_shop", "NonKeyAttributes"),
         files=files(GSI_NOWHERE)),
    Case("workbench-item-over-400-kb", IMPORT,
         ("pk='USER#big'", "over DynamoDB's item limit of 409,600 bytes", "TableData[0]", "split the item"),
         files=files(BIG)),
    Case("workbench-nested-50000-deep", IMPORT,
         ("nested deeper than 64 levels", "model.json:1", "flatten"), files=files(DEEP)),
]
