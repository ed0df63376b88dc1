"""Pictures of partition heat and item sizes: each function takes DataFrames and returns a Figure.

:mod:`~blue_nb.plots.base` holds what they share, :mod:`~blue_nb.plots.fonts` chooses fonts by the
glyphs they have (keys in any script are drawn as written, never as escapes), :mod:`~blue_nb.plots.heat`
the heat pictures and :mod:`~blue_nb.plots.live` the heat map for sliders, :mod:`~blue_nb.plots.sizes` the pictures of bytes. Figures are 110 dpi.

No pyplot and no global state: figures are ``matplotlib.figure.Figure`` objects built directly,
so they render headless and show themselves in Jupyter (``_repr_png_``) without ``plt.show()``.
Bytes are binary (1 KB = 1024 bytes), labels and numbers print with :mod:`blue_nb.printing` as in every
table and report; the limits come from :mod:`blue_nb.sizing`
(docs/dynamodb-rules.md sections 2 and 4). Empty input gives a Figure that says "no data".

* :func:`key_heatmap` - time across, partition keys in key order down, colour = per-second peak units/s
* :func:`heat_cells` - the numbers of that heat map (cells, the key of each cell), for a picture drawn elsewhere
* :func:`top_keys_chart` - the hottest keys: mean 3×WCU + RCU, RCU/s and WCU/s against the per-partition limits
* :func:`partition_sizes` - bytes per partition key against the 10 GB partition
* :func:`item_size_distribution` - item sizes per entity against 1 KB, 4 KB and 400 KB
* :func:`capacity_waste` - bytes paid (read and write unit rounding) against bytes used
* :func:`attribute_sizes` - which attributes make the items of each entity big
* :func:`index_entry_sizes` - index entry sizes per GSI, the table's items for comparison
"""

from blue_nb.plots.base import PlotFigure
from blue_nb.plots.heat import heat_cells, key_heatmap, top_keys_chart
from blue_nb.plots.sizes import attribute_sizes, capacity_waste, index_entry_sizes, item_size_distribution, partition_sizes

__all__ = ["PlotFigure", "heat_cells", "attribute_sizes", "capacity_waste", "index_entry_sizes",
           "item_size_distribution", "key_heatmap", "partition_sizes", "top_keys_chart"]
