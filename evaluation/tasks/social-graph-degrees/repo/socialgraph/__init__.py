"""Questions about a network of friendships."""

from socialgraph.build import build_graph, parse_pairs
from socialgraph.network import Network
from socialgraph.search import separation, suggestions

__all__ = ["Network", "build_graph", "parse_pairs", "separation", "suggestions"]
