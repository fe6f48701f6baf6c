"""A progress bar whose time left is honest when a time budget will stop the run early.

tqdm's own estimate counts the steps still to go; under a budget the run ends at the deadline
instead, whichever comes first. `BudgetBar` shows the smaller of the two.
"""

from __future__ import annotations

import math
import os
import sys
import time

from tqdm.auto import tqdm

BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{eta}, {rate_fmt}{postfix}]"


def honest_eta(
    n: int, total: int | None, rate: float | None, seconds_to_deadline: float | None
) -> float | None:
    """Seconds left: the steps still to go at ``rate`` steps/s, capped by the deadline.

    None when neither is known (no rate yet and no deadline).
    """
    by_steps = (total - n) / rate if total is not None and rate else None
    if seconds_to_deadline is None:
        return by_steps
    left = max(0.0, seconds_to_deadline)
    return left if by_steps is None else min(by_steps, left)


class BudgetBar(tqdm):
    """`tqdm.auto.tqdm` with ``deadline`` (a `time.perf_counter` value, or None).

    Its ``{eta}`` field is `honest_eta`: min(steps left / rate, time to the deadline).
    """

    def __init__(self, *args, deadline: float | None = None, **kwargs):
        self.deadline = deadline
        kwargs.setdefault("bar_format", BAR_FORMAT)
        super().__init__(*args, **kwargs)

    @property
    def format_dict(self) -> dict:
        d = super().format_dict
        rate = d.get("rate")
        if rate is None and d["elapsed"] > 0 and d["n"] > d.get("initial", 0):
            rate = (d["n"] - d.get("initial", 0)) / d["elapsed"]
        to_deadline = None if self.deadline is None else self.deadline - time.perf_counter()
        eta = honest_eta(d["n"], d["total"], rate, to_deadline)
        d["eta_s"] = math.nan if eta is None else eta
        d["eta"] = "?" if eta is None else tqdm.format_interval(eta)
        return d


def process_start() -> float:
    """`time.perf_counter` at this process's start (Linux), else now.

    A command's time budget starts here, so the interpreter's start and every import count.
    """
    now = time.perf_counter()
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        started_s = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # after boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - started_s
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0.0 <= age < 3600.0 else now


def exit_now(code: int = 0):
    """Flush the output and end the process without Python's teardown.

    Unloading torch's modules at exit takes seconds on a busy machine (2 to 4 s measured on
    two cores at load 9, 0.1 s when quiet), time a budgeted command cannot plan for. Call it
    only when every file is closed; a command line's last act.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
