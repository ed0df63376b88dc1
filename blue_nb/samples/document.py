"""Sample rows of the Document domain (ADR 0018), one realm at a time.

Sources: realms, documents (jsonl: ``tags`` is a string set), links (columns in
:data:`blue_nb.samples.generate.SAMPLE_SOURCES`). Use :func:`blue_nb.samples.generate.generate_sample`.

Document bodies are markdown (headings, lists, code blocks, tables) with log-normal sizes from a
few hundred bytes to a few hundred KB; about 0.1% sit just under DynamoDB's 400 KB item limit
and one per ~2000 goes over it, so the item-size checks have something real to find.
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timezone
from typing import Callable

from blue_nb.samples.text import DAY, END_TS, TextPool, zipf_alloc
from blue_nb.samples.writers import SourceFiles

__all__ = ["NEAR_LIMIT_BYTES", "OVER_LIMIT_BYTES", "generate_document"]

NEAR_LIMIT_BYTES = (382_000, 402_000)  # target content size of the near-limit documents (+ one block)
OVER_LIMIT_BYTES = (411_000, 416_000)  # ... and of the over-limit ones
_MAX_BLOCK = 2_500                      # bytes; bounds the overshoot past a target
_NORMAL_MAX = 300_000
_LINKS_PER_DOC = 0.75
_REALM_CAP = 20_000                     # documents per realm, so doc numbers stay 4 digits

_REALMS = """letemcook blue coherence aperture hearth fungal-image-analysis tidewater lumen quarry orchard
kiln harbor switchyard foundry atlas meridian beacon canopy ember juniper lattice mosaic""".split()
_FIXED_REALMS = {0: "letemcook", 2: "café-ops", 5: "東京-infra"}  # rank (0 = biggest) -> id
_ADJ = """quiet brave amber silver rapid gentle hidden lucky north crimson golden misty bold tiny
velvet frosty sunny wild cobalt hollow""".split()
_NOUN = """otter falcon maple harbor comet lantern meadow pixel river summit badger willow glacier
prairie nebula cedar pebble orbit thistle canyon""".split()

_TYPES, _TYPE_W = ("rfc", "adr", "spike", "runbook"), (40, 25, 20, 15)
_TYPE_TITLE = {"rfc": "RFC", "adr": "ADR", "spike": "Spike", "runbook": "Runbook"}
_STATUS = {
    "rfc": (("draft", "accepted", "implemented", "superseded"), (25, 30, 35, 10)),
    "adr": (("proposed", "accepted", "superseded", "deprecated"), (15, 70, 10, 5)),
    "spike": (("in-progress", "complete", "abandoned"), (30, 60, 10)),
    "runbook": (("active", "draft", "retired"), (80, 10, 10)),
}
_VERBS = "Adopt Replace Introduce Deprecate Migrate Harden Cache Shard Index Batch Stream Audit Unify Retire".split()
_OBJECTS = ("single-table design", "the SQLite store", "DynamoDB streams", "GSI overloading",
            "sort-key versioning", "the perspective log", "tension events", "realm metadata",
            "write sharding", "TTL-based cleanup", "the café menu sync", "東京 region failover",
            "données personnelles export", "Unicode key normalization", "🚀 release train",
            "the expert registry", "cold-path joins", "item-size budgets")
_AREAS = ("dialogues", "documents", "the CLI", "notebooks", "search", "billing", "the API gateway",
          "the München office", "mobile", "on-call")
_TAGS = ("dynamodb sqlite storage api security performance migration cost observability ux cli testing "
         "infra schema indexing caching data-model privacy billing search ml rust python typescript "
         "networking auth compliance docs release oncall données 性能 東京 naïve-bayes 🚀launch").split()
_HEADINGS = ("Summary", "Context", "Problem", "Goals", "Non-Goals", "Decision", "Design", "Data Model",
             "API", "Alternatives Considered", "Consequences", "Migration", "Rollout", "Testing",
             "Security", "Open Questions", "References", "Appendix")
_CODE = (
    ("python", 'def @FN@(@ARG@: str) -> dict:\n    """@TEXT@"""\n    resp = table.get_item(Key={"pk": @ARG@, "sk": "META"})\n    return resp.get("Item", {})'),
    ("sql", "SELECT pk, sk, data\n  FROM blue_@DOMAIN@\n WHERE pk = ?\n   AND sk BETWEEN 'PERSP#0' AND 'PERSP#9'\n ORDER BY sk;"),
    ("bash", "blue-nb validate data/specs/@DOMAIN@.yaml --data data/sample/@DOMAIN@\nblue-nb heat data/specs/@DOMAIN@.yaml --data data/sample/@DOMAIN@ --out /tmp/heat"),
    ("json", '{\n  "pk": "@ARG@",\n  "sk": "DOC#rfc#@N@",\n  "status": "accepted",\n  "note": "@TEXT@"\n}'),
    ("yaml", 'entities:\n  @ENTITY@:\n    key:\n      pk: "{@ARG@}"\n      sk: "@ENT@#{@ARG@}"\n    writer: @DOMAIN@-service'),
    ("rust", "pub fn @FN@(key: &str) -> Result<Item, Error> {\n    // @TEXT@\n    let item = store.get(key)?;\n    Ok(item)\n}"),
)
_IDENTS = ("dialogue_id", "realm_id", "expert", "doc_number", "tension_id", "pk", "sk")


def generate_document(rng: random.Random, scale: int, files: SourceFiles, tick: Callable[[int], None]) -> None:
    """Stream ~``scale`` rows of realms, their documents and links into ``files``."""
    text = TextPool(rng)
    blocks = _block_pool(rng, text)
    n_docs = max(0, int((scale - 1) / (1 + _LINKS_PER_DOC)))
    n_realms = max(1, round(math.sqrt(n_docs) / 3))
    sizes = zipf_alloc(rng, n_docs, n_realms, a=1.1, cap=_REALM_CAP)
    n_links = max(0, scale - len(sizes) - n_docs)
    n_near = min(n_docs, max(2 if scale >= 500 else 0, round(n_docs * 0.001)))
    n_over = min(n_docs - n_near, max(1 if scale >= 500 else 0, n_docs // 2000))
    picked = rng.sample(range(n_docs), n_near + n_over)
    special = {i: ("near" if k < n_near else "over") for k, i in enumerate(picked)}
    order = list(range(len(sizes)))
    rng.shuffle(order)
    used = set(_FIXED_REALMS.values())
    gen = _RealmWriter(rng, text, blocks, files, special)
    docs_left, links_left = n_docs, n_links
    for rank in order:
        realm = _FIXED_REALMS.get(rank) or _realm_id(rng, rank, used)
        n = sizes[rank]
        want = round(links_left * n / docs_left) if docs_left else 0
        written = gen.write(realm, n, want)
        docs_left -= n
        links_left = max(0, links_left - written)
        tick(1 + n + written)


def _realm_id(rng: random.Random, rank: int, used: set[str]) -> str:
    if rank < len(_REALMS) and _REALMS[rank] not in used:
        name = _REALMS[rank]
    else:
        name = f"{rng.choice(_ADJ)}-{rng.choice(_NOUN)}"
        base, k = name, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
    used.add(name)
    return name


def _block_pool(rng: random.Random, text: TextPool, n: int = 1500) -> list[tuple[str, int]]:
    """Markdown blocks (paragraphs, lists, code, tables, quotes) with their UTF-8 sizes."""
    pool: list[tuple[str, int]] = []
    kinds = rng.choices(("para", "bullets", "numbered", "code", "table", "quote"), (50, 15, 8, 12, 10, 5), k=n)
    for kind in kinds:
        if kind == "para":
            block = text.paragraph(2, 7)
        elif kind == "bullets":
            block = "\n".join(("- [ ] " if rng.random() < 0.2 else "- ") + text.label()
                              for _ in range(rng.randint(3, 7)))
        elif kind == "numbered":
            block = "\n".join(f"{i}. {text.sentence()}" for i in range(1, rng.randint(3, 6) + 1))
        elif kind == "code":
            lang, body = rng.choice(_CODE)
            for key, val in (("@FN@", f"get_{rng.choice(_IDENTS).split('_')[0]}"), ("@ARG@", rng.choice(_IDENTS)),
                             ("@TEXT@", text.label().replace('"', "'")), ("@DOMAIN@", rng.choice(("dialogue", "document"))),
                             ("@N@", f"{rng.randint(1, 120):04d}"), ("@ENTITY@", rng.choice(("Perspective", "Tension", "Document"))),
                             ("@ENT@", rng.choice(("PERSP", "TENSION", "DOC")))):
                body = body.replace(key, val)
            block = f"```{lang}\n{body}\n```"
        elif kind == "table":
            rows = ["| Attribute | Type | Notes |", "|---|---|---|"]
            rows += [f"| `{rng.choice(_IDENTS)}` | {rng.choice('S N B SS L M'.split())} | {text.label()} |"
                     for _ in range(rng.randint(2, 6))]
            block = "\n".join(rows)
        else:
            block = "> " + text.sentence()
        size = len(block.encode("utf-8"))
        if size <= _MAX_BLOCK:
            pool.append((block, size))
    return pool


class _RealmWriter:
    def __init__(self, rng: random.Random, text: TextPool, blocks: list[tuple[str, int]],
                 files: SourceFiles, special: dict[int, str]):
        self.rng, self.text, self.blocks, self.special = rng, text, blocks, special
        self.w_realm = files.writer("realms")
        self.w_doc = files.writer("documents")
        self.w_link = files.writer("links")
        self.doc_index = 0  # over all realms, to find the near/over-limit documents

    def write(self, realm: str, n_docs: int, n_links: int) -> int:
        """Write one realm with ``n_docs`` documents and up to ``n_links`` links; return links written."""
        rng = self.rng
        name = "Let 'em Cook" if realm == "letemcook" else realm.replace("-", " ").title()
        self.w_realm((realm, name, f"/Users/blue/realms/{realm}"))
        type_w = [w * rng.uniform(0.5, 1.5) for w in _TYPE_W]
        counters = dict.fromkeys(_TYPES, 0)
        start = END_TS - rng.randint(200 * DAY, 540 * DAY)
        docs: list[tuple[str, str]] = []  # (doc_type, doc_number) in creation order
        for i in range(n_docs):
            doc_type = rng.choices(_TYPES, type_w)[0]
            step = 2 if rng.random() < 0.04 else 1  # numbers with gaps, as real registries have
            if counters[doc_type] + step > 9999:
                doc_type = min(_TYPES, key=lambda t: counters[t])
                step = 1
            counters[doc_type] += step
            number = f"{counters[doc_type]:04d}"
            date = start + (END_TS - start) * i // max(1, n_docs) + rng.randint(0, DAY)
            self._document(realm, doc_type, number, date)
            docs.append((doc_type, number))
        return self._links(realm, docs, n_links)

    def _document(self, realm: str, doc_type: str, number: str, date: int) -> None:
        rng = self.rng
        kind = self.special.get(self.doc_index)
        self.doc_index += 1
        if kind == "near":
            target = rng.randint(*NEAR_LIMIT_BYTES)
        elif kind == "over":
            target = rng.randint(*OVER_LIMIT_BYTES)
        else:
            target = min(_NORMAL_MAX, max(250, int(rng.lognormvariate(math.log(3000), 1.2))))
        title = f"{rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
        if rng.random() < 0.6:
            title += f" for {rng.choice(_AREAS)}"
        statuses, weights = _STATUS[doc_type]
        status = rng.choices(statuses, weights)[0]
        tags = set(rng.sample(_TAGS, 1 + min(5, int(rng.expovariate(1 / 1.3)))))
        content = self._markdown(doc_type, number, title, status, date, target)
        self.w_doc((realm, doc_type, number, title, status, content, tags))

    def _markdown(self, doc_type: str, number: str, title: str, status: str, date: int, target: int) -> str:
        rng, blocks = self.rng, self.blocks
        day = datetime.fromtimestamp(date, tz=timezone.utc).strftime("%Y-%m-%d")
        parts = [f"# {_TYPE_TITLE[doc_type]} {number}: {title}",
                 f"| | |\n|---|---|\n| **Status** | {status.title()} |\n| **Date** | {day} |",
                 "## Summary", self.text.sentence()]
        size = sum(len(p.encode("utf-8")) + 2 for p in parts)
        section, left = 0, 0
        while size < target:
            if left == 0:
                section += 1
                heading = f"## {section}. {_HEADINGS[section % len(_HEADINGS)]}"
                parts.append(heading)
                size += len(heading) + 2
                left = rng.randint(1, 4)
            block, nbytes = rng.choice(blocks)
            parts.append(block)
            size += nbytes + 2
            left -= 1
        return "\n\n".join(parts) + "\n"

    def _links(self, realm: str, docs: list[tuple[str, str]], want: int) -> int:
        rng, n = self.rng, len(docs)
        want = min(want, n * (n - 1) // 4)
        seen: set[tuple[str, str]] = set()
        links: list[tuple[int, int, str]] = []
        tries = 0
        while len(links) < want and tries < 4 * want + 20:
            tries += 1
            i = rng.randint(1, n - 1)
            if rng.random() < 0.4:
                j = int(i * rng.random() ** 3)  # foundational early documents are cited the most
            else:
                j = max(0, i - 1 - int(rng.expovariate(1 / 5)))  # ... and recent neighbours
            (ft, fnum), (tt, tnum) = docs[i], docs[j]
            if fnum == tnum or (fnum, tnum) in seen:
                continue
            seen.add((fnum, tnum))
            if ft == tt and rng.random() < 0.3:
                kind = "supersedes"
            elif ft in ("spike", "runbook") and tt in ("rfc", "adr") and rng.random() < 0.6:
                kind = "implements"
            else:
                kind = "references" if rng.random() < 0.6 else "relates"
            links.append((i, j, kind))
        links.sort()
        for i, j, kind in links:
            self.w_link((realm, docs[i][1], docs[j][1], kind))
        return len(links)
