"""Search-based repair: the strategy seam, edits as byte spans, mutation families, fix templates
and the search that ranks and screens them.

May import `run`, `localize` and the shared modules.
"""
