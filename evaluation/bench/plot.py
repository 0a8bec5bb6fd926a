"""`--plot OUT.png`: success by category, self-reported next to reference-validated."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def plot(document: Mapping[str, Any], path: Path) -> None:
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError("--plot needs matplotlib: pip install -e '.[bench]'") from exc
    matplotlib.use("Agg")  # no display: CI runners and servers have none
    import matplotlib.pyplot as plt

    groups = [*document["categories"].items(), ("OVERALL", document["overall"])]
    names = [f"{name}\n(n={group['tasks']})" for name, group in groups]
    claimed = [100 * group["self_reported_rate"] for _, group in groups]
    validated = [100 * group["reference_validated_rate"] for _, group in groups]
    positions = range(len(groups))
    width = 0.38

    figure, axes = plt.subplots(figsize=(max(8.0, 0.85 * len(groups) + 2), 6.0), dpi=120)
    left = axes.bar([p - width / 2 for p in positions], claimed, width, label="self-reported (visible tests)",
                    color="#9db4d6")  # fmt: skip
    right = axes.bar([p + width / 2 for p in positions], validated, width,
                     label="reference-validated (hidden tests too)", color="#2a6f3e")  # fmt: skip
    axes.bar_label(left, labels=[f"{v:.0f}" for v in claimed], fontsize=7, padding=1)
    axes.bar_label(right, labels=[f"{v:.0f}" for v in validated], fontsize=7, padding=1)
    axes.axvline(len(groups) - 1.5, color="#888888", linewidth=0.8, linestyle=":")
    axes.set_xticks(list(positions), names, rotation=35, ha="right", fontsize=8)
    axes.set_ylim(0, 125)  # room for the legend above a 100% bar
    axes.set_ylabel("tasks healed (%)")
    settings = document["settings"]
    overall = document["overall"]
    axes.set_title(
        f"selfheal bench — {document['subset'] or 'chosen tasks'}, provider {settings['provider']}: "
        f"{overall['reference_validated']}/{overall['tasks']} reference-validated, "
        f"{overall['overfitting']} overfitting",
        fontsize=10,
    )
    axes.legend(loc="upper left", fontsize=8, ncols=2)
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
