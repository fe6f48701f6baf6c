"""What the benchmark scripts share: the end of a Markdown record.

Not a benchmark of its own (`make bench` runs benchmarks/bench_*.py only); the scripts import
it from their own folder, which Python puts first on the path when one runs as
``python benchmarks/bench_<name>.py``.
"""

from __future__ import annotations

import os
from pathlib import Path


def finish_record(lines: list[str], out: Path | None) -> None:
    """Close the record ``lines`` with the load average after the runs, and write it, one
    line each, to ``out`` where one is given."""
    lines.append(f"\nload average after: {os.getloadavg()[0]:.1f}")
    if out:
        out.write_text("\n".join(lines) + "\n")
