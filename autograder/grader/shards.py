"""Which shard of a class this machine grades: `--shard I/N`, or `--shard auto` from the
scheduler that started it.

- Slurm job array (`sbatch --array=0-7 slurm/grade.sbatch`): the shard is the task's place
  in the array, `(SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP`, of
  `SLURM_ARRAY_TASK_COUNT`. An array need not start at 0 (`--array=1-8`), so the ID alone is
  not the shard; one that is not evenly spaced (`--array=1,4,9`) cannot be mapped and is
  refused.
- Kubernetes Indexed Job (`k8s/grade-job.yaml`): the shard is `JOB_COMPLETION_INDEX`, which
  Kubernetes sets in each pod, of `ATTNBOOK_SHARD_COUNT`, which the manifest passes (it is
  the Job's `completions`; Kubernetes does not tell a pod how many there are).

Each machine grades the students whose id hashes to its shard (`grader.course.grade_class`),
so N machines that agree on N grade every student exactly once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

SLURM_ID = "SLURM_ARRAY_TASK_ID"
SLURM_MIN = "SLURM_ARRAY_TASK_MIN"
SLURM_MAX = "SLURM_ARRAY_TASK_MAX"
SLURM_STEP = "SLURM_ARRAY_TASK_STEP"
SLURM_COUNT = "SLURM_ARRAY_TASK_COUNT"
K8S_INDEX = "JOB_COMPLETION_INDEX"
K8S_COUNT = "ATTNBOOK_SHARD_COUNT"


class ShardError(ValueError):
    """A shard that cannot be read: the message names the variable or option, the expected
    and the actual value."""


def _number(env: Mapping[str, str], name: str, minimum: int, default: int | None = None) -> int:
    raw = env.get(name)
    if raw is None:
        if default is not None:
            return default
        raise ShardError(f"{name}: expected a whole number >= {minimum}, found it unset")
    try:
        value = int(raw.strip())
    except ValueError:
        raise ShardError(f"{name}: expected a whole number >= {minimum}, found {raw!r}") from None
    if value < minimum:
        raise ShardError(f"{name}: expected a whole number >= {minimum}, found {value}")
    return value


def from_slurm(env: Mapping[str, str]) -> tuple[int, int]:
    """(index, count) of a Slurm array task, counted from the array's first task."""
    task = _number(env, SLURM_ID, 0)
    first = _number(env, SLURM_MIN, 0)
    step = _number(env, SLURM_STEP, 1, default=1)
    count = _number(env, SLURM_COUNT, 1)
    if SLURM_MAX in env:
        last = _number(env, SLURM_MAX, first)
        if (last - first) % step or (last - first) // step + 1 != count:
            raise ShardError(
                f"{SLURM_COUNT}: expected {(last - first) // step + 1} tasks for an evenly "
                f"spaced array {first}-{last}:{step} (submit with --array=0-{count - 1}), "
                f"found {count}"
            )
    offset = task - first
    if offset < 0 or offset % step or offset // step >= count:
        raise ShardError(
            f"{SLURM_ID}: expected one of {first}, {first + step}, ... "
            f"{first + step * (count - 1)} ({SLURM_MIN}={first}, "
            f"{SLURM_STEP}={step}, {SLURM_COUNT}={count}), found {task}"
        )
    return offset // step, count


def from_kubernetes(env: Mapping[str, str]) -> tuple[int, int]:
    """(index, count) of a pod of an Indexed Job."""
    index = _number(env, K8S_INDEX, 0)
    if K8S_COUNT not in env:
        raise ShardError(
            f"{K8S_COUNT}: expected the Job's completions (a whole number >= 1, "
            f"set in the manifest next to {K8S_INDEX}), found it unset"
        )
    count = _number(env, K8S_COUNT, 1)
    if index >= count:
        raise ShardError(
            f"{K8S_INDEX}: expected 0 to {count - 1} ({K8S_COUNT}={count}), found {index}"
        )
    return index, count


def from_scheduler(env: Mapping[str, str] | None = None) -> tuple[int, int, str]:
    """(index, count, where from) for `--shard auto`."""
    env = os.environ if env is None else env
    if SLURM_ID in env:
        index, count = from_slurm(env)
        return index, count, f"Slurm array task {env[SLURM_ID]}"
    if K8S_INDEX in env:
        index, count = from_kubernetes(env)
        return index, count, f"Kubernetes completion index {env[K8S_INDEX]}"
    raise ShardError(
        f"--shard auto: expected a Slurm job array ({SLURM_ID}, {SLURM_MIN}, "
        f"{SLURM_COUNT}) or a Kubernetes Indexed Job ({K8S_INDEX}, {K8S_COUNT}) "
        "in the environment, found neither"
    )


def parse_shard(value: str, env: Mapping[str, str] | None = None) -> tuple[int, int, str]:
    """(index, count, where from) of `--shard`: `I/N` (0 <= I < N) or `auto`."""
    if value.strip() == "auto":
        return from_scheduler(env)
    parts = value.split("/")
    try:
        index, count = (int(p) for p in parts)
    except ValueError:
        raise ShardError(
            f"--shard: expected I/N with whole numbers 0 <= I < N, or auto, found {value!r}"
        ) from None
    if count < 1 or not 0 <= index < count:
        raise ShardError(f"--shard: expected I/N with 0 <= I < N, found {value!r}")
    return index, count, "--shard"
