"""The example domains' committed sample data, regenerated where missing."""

from __future__ import annotations

from pathlib import Path

from blue_nb.samples.generate import generate_sample

__all__ = ["SAMPLE_PARAMS", "prepare_samples"]

# The parameters of the samples committed under data/sample/ (small enough to start instantly).
SAMPLE_PARAMS = {"dialogue": {"scale": 5000, "seed": 18}, "document": {"scale": 600, "seed": 18}}


def prepare_samples(sample_root: str | Path, progress: bool = False) -> dict[str, tuple[Path, bool]]:
    """domain -> (folder, generated now?). Generates a domain's sample only when its folder is empty."""
    out = {}
    for domain, params in SAMPLE_PARAMS.items():
        folder = Path(sample_root) / domain
        made = not (folder.is_dir() and any(folder.iterdir()))
        if made:
            generate_sample(domain, out_dir=folder, progress=progress, **params)
        out[domain] = (folder, made)
    return out
