"""``make bench``: speed numbers, each against a naive baseline measured in the same run (layer 4).
Run ``python -m blue_nb.bench``; see :mod:`.run`."""
