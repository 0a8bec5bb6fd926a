"""What a heal leaves: the result value, report.json, summary.md, lessons, the output folder and
the per-round checkpoints.

The last stage: may import every other stage and the shared modules.
"""
