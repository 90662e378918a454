"""The HTTP benchmark's ratios against their targets as a picture (docs/performance-ratios.png), drawn by bench.run;
bench/all.py draws every target of `make bench` in docs/performance.png.

Each scenario with a target gets one bar per database: the median ratio to the baseline, a whisker from the lowest to
the highest round, and the target as a tick. Green bars meet their target, red ones do not.

    python -m bench.chart [bench/results/<run>.json]   (default: the newest run)
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "docs" / "performance-ratios.png"


def draw(results: list[dict], targets: dict[str, float], title: str, path: Path = CHART) -> Path:
    import matplotlib

    matplotlib.use("Agg")  # no display on servers and CI
    import matplotlib.pyplot as plt

    rows = [r for r in results if targets.get(r["scenario"]) is not None and r["ratios"]]
    labels = [f"{r['scenario']} ({r['database']})" for r in rows]
    medians = [statistics.median(r["ratios"]) for r in rows]
    lows = [m - min(r["ratios"]) for m, r in zip(medians, rows, strict=True)]
    highs = [max(r["ratios"]) - m for m, r in zip(medians, rows, strict=True)]
    wanted = [targets[r["scenario"]] for r in rows]
    colors = ["#2e7d32" if m >= t else "#c62828" for m, t in zip(medians, wanted, strict=True)]

    figure, axes = plt.subplots(figsize=(9, 0.38 * len(rows) + 1.4))
    positions = list(range(len(rows)))[::-1]
    axes.barh(positions, medians, xerr=[lows, highs], color=colors, alpha=0.85, capsize=3)
    axes.scatter(wanted, positions, marker="|", s=260, color="black", zorder=3, label="target")
    axes.set_yticks(positions, labels, fontsize=8)
    axes.set_xlabel("requests/s as a ratio to the bare baseline measured just before (median, min–max)")
    axes.set_title(title, fontsize=9)
    axes.legend(loc="lower right", fontsize=8)
    axes.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def main() -> None:
    from bench.run import RESULTS, SCENARIOS

    runs = sorted(p for p in RESULTS.glob("2*.json"))
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else runs[-1]
    results = json.loads(source.read_text())
    targets = {scenario.name: scenario.target for scenario in SCENARIOS}
    print(draw(results, targets, f"make bench, run {source.stem}").relative_to(ROOT))


if __name__ == "__main__":
    main()
