"""Shortest routes on a road network."""

from routes.network import NoRoute, distances_from, parse_network, shortest_route

__all__ = ["NoRoute", "distances_from", "parse_network", "shortest_route"]
