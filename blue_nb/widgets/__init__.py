"""ipywidgets views (layer 3, wiring only): they call the library and show its answers."""

from blue_nb.widgets.explorer import PatternExplorer
from blue_nb.widgets.heat import HeatExplorer

__all__ = ["HeatExplorer", "PatternExplorer"]
