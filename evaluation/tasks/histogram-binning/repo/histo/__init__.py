"""Equal-width histograms for quick looks at data."""

from histo.bins import bin_edges, bin_index, histogram, render

__all__ = ["bin_edges", "bin_index", "histogram", "render"]
