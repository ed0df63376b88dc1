"""``make bench``: the whole design loop measured stage by stage against naive baselines (layer 4).

Run ``python -m bench``; see :mod:`.loop` (the run), :mod:`.stages` (what each stage does),
:mod:`.measure` (a stage in a child process: seconds and peak RSS), :mod:`.baselines` and :mod:`.naive_load`
(the naive ways), :mod:`.latency` (read patterns), :mod:`.sliders` (the explorer and the heat
sliders at ~100k partitions) and :mod:`.report` (tables, targets, ``bench/results.json``)."""
