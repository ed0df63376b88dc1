"""A table of its own on the session's embedded endpoint, for the tests that need one."""

from __future__ import annotations


def own_client(dynamo_endpoint, spec=None, items=()):
    """A DynamoClient on the session's server with a table prefix of its own (tables never collide); with
    ``spec``, its table created and ``items`` (located items: (entity, item, where)) written."""
    import uuid

    from blue_nb.dynamo import Endpoint

    client = Endpoint.embedded(dynamo_endpoint).client(table_prefix=f"t{uuid.uuid4().hex[:10]}_")
    if spec is not None:
        client.create_table(spec)
        client.write_items(spec.table_name, [i for _, i, _ in items], progress=False)
    return client
