"""What the sample draws share: the fixed clock and the pool of mixed-Unicode sentences that text
values are cut from."""

from __future__ import annotations

import random
from datetime import datetime, timezone

__all__ = ["DAY", "END_TS", "TextPool", "iso_utc"]

END_TS = int(datetime(2026, 6, 1, tzinfo=timezone.utc).timestamp())  # fixed "now": never the clock
DAY = 86_400


def iso_utc(ts: int) -> str:
    """``2026-01-15T09:30:00Z`` for an epoch second."""
    return datetime.fromtimestamp(ts, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------------------------- text

_EN = """
the a we our this that risk cost plan launch pricing margin supply demand roadmap customer partner
team review decision budget quarter forecast latency throughput storage index partition query cache
schema migration rollout outage incident metric signal churn retention growth revenue contract vendor
model training inference cluster region capacity hiring strategy market competitor feature release
should could must will might not only also because however therefore although while before after
increase reduce delay ship hold pivot scale measure test validate defer escalate approve reject
clear unclear strong weak early late risky cheap expensive stable fragile simple complex critical
users data evidence assumption tradeoff constraint deadline milestone dependency owner scope debt
Q1 Q2 Q3 Q4 API SLA GPU DynamoDB SQLite on in for with to of by from at about against under
""".split()
_ACCENTED = "café naïve façade résumé déjà-vu über Zürich crème brûlée jalapeño São-Paulo Kraków Ångström señor Malmö smörgåsbord coöperate Montréal Málaga".split()
_CJK = "東京 戦略 価格 市場 分析 数据 决策 风险 협상 전략 出荷 在庫 性能 調整".split()
_EMOJI = "🚀 ✅ ⚠️ 🔥 📈 📉 🤔 💡 🎯 🧪 👍".split()
_VOCAB = _EN * 4 + _ACCENTED * 2 + _CJK + _EMOJI  # ~85% English, the rest accented, CJK, emoji

_FIXED_SENTENCES = (
    "価格戦略を再検討する必要があります。", "市场需求在第三季度明显放缓。", "이 결정은 다음 분기까지 보류합니다.",
    "Nous devons réévaluer la stratégie de prix avant la fin du trimestre.",
    "Die Lieferkette in München bleibt der größte Engpass.", "¿Quién es el dueño de esta decisión? 🤔",
    "Ship it 🚀 — but only behind a feature flag.", "Latency p99 went from 40 ms to 310 ms ⚠️.",
)
_NOUNS = """launch price margin roadmap budget forecast partition index cache schema migration rollout
vendor contract region cluster GPU-supply churn hiring-plan on-call-rotation API SLA backlog pipeline
onboarding-flow data-model pricing-page café-menu 東京-region 価格-model façade résumé-parser""".split()
_VERBS = "delay ship cut double freeze revisit split merge deprecate rewrite benchmark audit cache shard".split()
_QUANT = ("Q1", "Q2", "Q3", "Q4", "H1", "H2", "next sprint", "this quarter", "2026", "the offsite")
_TEMPLATES = (
    "We should {verb} the {noun} until {when}.", "The {noun} is {pct}% over plan since {when}.",
    "If we {verb} the {noun}, the {noun2} slips to {when}.", "I disagree: the {noun} risk is overstated.",
    "Data from {when} shows {noun} latency up {pct}% ⚠️.", "Proposal: {verb} the {noun} and revisit in {when}.",
    "Who owns the {noun}? Nobody has signed off since {when}.", "Customers keep asking about the {noun} 📈.",
    "The {noun} and the {noun2} are coupled; we cannot {verb} one alone.",
    "Counterpoint: to {verb} the {noun} costs ${num}k per month.", "Agree with the {noun} plan, with one caveat.",
    "Let's {verb} the {noun} — {pct}% of users never touch it.", "Blocking on the {noun} review ({when}).",
)
class TextPool:
    """Pre-generated sentences and labels (drawn from ``rng``) to build text fast."""

    def __init__(self, rng: random.Random, n_sentences: int = 2400, n_labels: int = 1200):
        self.rng = rng
        self.sentences = [self._sentence() for _ in range(n_sentences)] + list(_FIXED_SENTENCES) * 12
        self.labels = [self._label() for _ in range(n_labels)]

    def _sentence(self) -> str:
        rng = self.rng
        if rng.random() < 0.55:
            noun, noun2 = rng.sample(_NOUNS, 2)
            return rng.choice(_TEMPLATES).format(
                noun=noun, noun2=noun2, verb=rng.choice(_VERBS), when=rng.choice(_QUANT),
                pct=rng.randint(2, 95), num=rng.randint(3, 900))
        words = rng.choices(_VOCAB, k=rng.randint(5, 16))
        words[0] = words[0][:1].upper() + words[0][1:]
        if len(words) > 8 and rng.random() < 0.4:
            words[len(words) // 2] += ","
        end = rng.choices((".", "?", "!", " 🤔", "…"), (80, 10, 5, 2, 3))[0]
        return " ".join(words) + end

    def _label(self) -> str:
        rng = self.rng
        words = rng.choices(_VOCAB, k=rng.randint(2, 6))
        text = " ".join(words)
        text = text[:1].upper() + text[1:]
        if rng.random() < 0.06:
            text += " — " + rng.choice(_CJK)
        return text
