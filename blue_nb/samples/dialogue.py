"""Sample rows of the Dialogue domain (ADR 0018, RFC 0051), one dialogue at a time.

Sources: dialogues, experts, perspectives, tensions, tension_events (columns in
:data:`blue_nb.samples.generate.SAMPLE_SOURCES`). Use :func:`blue_nb.samples.generate.generate_sample`.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Callable

from blue_nb.samples.text import DAY, END_TS, TextPool, iso_utc, plan_sizes
from blue_nb.samples.writers import SourceFiles

__all__ = ["generate_dialogue"]

_ORGS = """nvidia apple amd intel tesla stripe shopify netflix spotify airbnb uber lyft openai google meta
amazon microsoft oracle ibm samsung sony nintendo valve figma notion slack zoom atlassian github gitlab
vercel cloudflare datadog snowflake databricks twilio square paypal visa adobe salesforce hubspot zendesk
dropbox asana linear discord reddit pinterest etsy ebay walmart costco ikea lego nike adidas boeing""".split()
_TOPICS = """dec pricing launch hiring roadmap budget reorg expansion ai-strategy layoffs merger partnership
security-review postmortem api-deprecation data-residency gpu-allocation chip-supply pricing-reset
rebrand offsite okrs headcount vendor-choice cloud-migration on-call-policy open-source pricing-tiers
go-to-market churn-review platform-bet""".split()
_SUFFIXES = "q1 q2 q3 q4 h1 h2 jan feb mar apr may jun jul aug sep oct nov dec 2025 2026 v2 followup".split()
_QUARTERS = ("q1", "q2", "q3", "q4")
_NONASCII_ORGS = ("café", "東京", "münchen", "são-paulo", "zürich", "kraków", "malmö")
# rank (0 = biggest) -> id; the biggest dialogue is the ADR's example, a few non-ASCII ids
_FIXED_IDS = {0: "nvidia-dec", 1: "café-strategy", 4: "東京-launch", 8: "münchen-expansion",
              13: "são-paulo-pricing", 21: "zürich-ops-review"}

_EXPERTS = """muffin pancake waffle ann anna crème brioche scone bagel croissant biscuit toffee fudge mochi
churro strudel éclair tart pie crumpet donut macaron praline nougat truffle cookie cupcake baklava bao
dumpling ramen udon soba tempura kimchi paella tapas gnocchi risotto polenta bob bobby jo joe crêpe
pretzel cannoli""".split()
_FORCED_EXPERTS = ("muffin", "pancake", "ann", "anna", "crème")  # in the biggest dialogue, always
_ROLES = ("domain-expert", "skeptic", "synthesizer", "devils-advocate", "analyst", "observer")
_ROLE_W = (40, 15, 12, 8, 15, 10)
_TIERS = ("core", "guest")
_P_STATUS, _P_STATUS_W = ("final", "draft", "retracted"), (70, 22, 8)
_T_STATUS, _T_STATUS_W = ("open", "resolved", "deferred"), (45, 35, 20)
_MID_EVENTS = ("commented", "escalated", "reassigned", "linked", "reopened")
_MID_EVENTS_W = (55, 15, 10, 12, 8)
_MAX_ROUNDS = 16  # rounds 0..15
_CAP = 15_000     # rows in the biggest dialogue at large scales


def generate_dialogue(rng: random.Random, scale: int, files: SourceFiles, tick: Callable[[int], None]) -> None:
    """Stream ~``scale`` rows of dialogues and their children into ``files``."""
    text = TextPool(rng)
    sizes = plan_sizes(rng, scale, head=0.3, cap=_CAP, a=1.4, tail_median=50.0, tail_sigma=0.55)
    order = list(range(len(sizes)))
    rng.shuffle(order)
    used = set(_FIXED_IDS.values())
    gen = _DialogueWriter(rng, text, files)
    for rank in order:
        did = _FIXED_IDS.get(rank) or _new_id(rng, used)
        tick(gen.write(did, sizes[rank], biggest=(rank == 0)))


def _new_id(rng: random.Random, used: set[str]) -> str:
    for _ in range(30):
        org = rng.choice(_NONASCII_ORGS) if rng.random() < 0.002 else rng.choice(_ORGS)
        topic = rng.choice(_TOPICS)
        r = rng.random()
        if r < 0.35:
            did = f"{org}-{topic}"
        elif r < 0.7:
            did = f"{org}-{rng.choice(_QUARTERS)}-{topic}"
        else:
            did = f"{org}-{topic}-{rng.choice(_SUFFIXES)}"
        if did not in used:
            used.add(did)
            return did
    n = 2
    while f"{did}-{n}" in used:
        n += 1
    used.add(f"{did}-{n}")
    return f"{did}-{n}"


def _split(rng: random.Random, total: int) -> tuple[int, int, int, int]:
    """Rows of one dialogue -> (experts, tensions, tension events, perspectives)."""
    rest = total - 1
    if rest <= 0:
        return 0, 0, 0, 0
    experts = min(rest, len(_EXPERTS) - 10, 2 + round(math.sqrt(total) / 3))
    rest -= experts
    tensions = round(rest * 0.11 * rng.uniform(0.85, 1.15))
    events = max(tensions, round(rest * 0.26 * rng.uniform(0.85, 1.15))) if tensions else 0
    if tensions + events > rest:
        tensions, events = 0, 0
    return experts, tensions, events, rest - tensions - events


def _score(rng: random.Random) -> str:
    value = min(100.0, max(0.0, rng.gauss(74.0, 11.0)))
    decimals = rng.choices((0, 1, 2, 3), (15, 25, 20, 40))[0]
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


class _DialogueWriter:
    def __init__(self, rng: random.Random, text: TextPool, files: SourceFiles):
        self.rng, self.text = rng, text
        self.w_dialogue = files.writer("dialogues")
        self.w_expert = files.writer("experts")
        self.w_persp = files.writer("perspectives")
        self.w_tension = files.writer("tensions")
        self.w_event = files.writer("tension_events")

    def write(self, did: str, total: int, *, biggest: bool) -> int:
        """Write one dialogue of about ``total`` rows; return the rows written."""
        rng = self.rng
        created = END_TS - rng.randint(20 * DAY, 182 * DAY)
        age = END_TS - created
        weights = (80, 17, 3) if age < 60 * DAY else (55, 35, 10) if age < 120 * DAY else (35, 40, 25)
        status = rng.choices(("open", "closed", "archived"), weights)[0]
        title = did.replace("-", " ").title() + ": " + self.text.label()
        self.w_dialogue((did, title, status, iso_utc(created)))
        n_exp, n_ten, n_ev, n_persp = _split(rng, total)
        names = self._experts(did, n_exp, biggest)
        self._perspectives(did, names, n_persp)
        self._tensions(did, names, created, n_ten, n_ev)
        return 1 + n_exp + n_persp + n_ten + n_ev

    def _experts(self, did: str, n: int, biggest: bool) -> list[str]:
        rng = self.rng
        if n == 0:
            return []
        if biggest and n >= len(_FORCED_EXPERTS):
            rest = [e for e in _EXPERTS if e not in _FORCED_EXPERTS]
            names = list(_FORCED_EXPERTS) + rng.sample(rest, n - len(_FORCED_EXPERTS))
        else:
            names = rng.sample(_EXPERTS, n)
            if "ann" in names and "anna" not in names and n >= 2 and rng.random() < 0.5:
                names[-1 if names[-1] != "ann" else 0] = "anna"  # prefix pair: EXPERT#ann vs EXPERT#anna
        for i, name in enumerate(names):
            role = "facilitator" if i == 0 else rng.choices(_ROLES, _ROLE_W)[0]
            tier = "lead" if i == 0 else _TIERS[rng.random() < 0.4]
            self.w_expert((did, name, role, tier, _score(rng)))
        return names

    def _perspectives(self, did: str, names: list[str], n: int) -> None:
        rng, text, write = self.rng, self.text, self.w_persp
        if n == 0 or not names:
            return
        rounds = max(1, min(_MAX_ROUNDS, round(math.sqrt(n) / 2)))
        round_w = [0.93 ** r * rng.uniform(0.6, 1.4) for r in range(rounds)]
        expert_w = [1.0 / (k + 1) ** 0.7 for k in range(len(names))]
        rs = rng.choices(range(rounds), round_w, k=n)
        rs[:rounds] = range(min(rounds, n))  # every round appears, so the last round is there
        es = rng.choices(range(len(names)), expert_w, k=n)
        random_, choice, labels, content = rng.random, rng.choice, text.labels, text.content
        for (r, e), count in sorted(Counter(zip(rs, es)).items()):
            name = names[e]
            for seq in range(1, count + 1):
                x = random_()
                status = "final" if x < 0.70 else "draft" if x < 0.92 else "retracted"
                write((did, r, name, seq, choice(labels), content(), status))

    def _tensions(self, did: str, names: list[str], created: int, n: int, n_events: int) -> None:
        rng, text = self.rng, self.text
        if n == 0 or not names:
            return
        statuses = rng.choices(_T_STATUS, _T_STATUS_W, k=n)
        for k in range(n):
            desc = text.sentence() if rng.random() < 0.7 else text.paragraph(2, 3)
            self.w_tension((did, f"T{k + 1:02d}", desc, statuses[k]))
        counts = [1] * n  # every tension was raised once; hot tensions get many more events
        heat = [rng.paretovariate(1.3) for _ in range(n)]
        for k in rng.choices(range(n), heat, k=n_events - n):
            counts[k] += 1
        span = END_TS - created
        for k in range(n):
            tid, m = f"T{k + 1:02d}", counts[k]
            start = created + rng.randint(0, int(span * 0.75))
            times = sorted(rng.sample(range(start, END_TS), m))  # distinct, increasing per tension
            kinds = ["raised"] + rng.choices(_MID_EVENTS, _MID_EVENTS_W, k=m - 1)
            if m > 1 and statuses[k] != "open":
                kinds[-1] = statuses[k]  # resolved / deferred closes the trail
            for ts, kind in zip(times, kinds):
                self.w_event((did, tid, ts, kind, rng.choice(names), text.sentence()))
