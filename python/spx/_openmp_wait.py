"""Loads the compiled core so that spx's OpenMP threads wait passively (sleep) between parallel
regions, unless the user chose a policy.

Spinning idle threads (the OpenMP default) take cores from the threads that still have work when
another process is busy on the machine: CPU products then ran at 0.02-0.5x of their single-thread
speed (docs/cpu-backend.md, "Waiting threads"). libgomp reads OMP_WAIT_POLICY once, when it is
loaded, which is when the core is imported (unless another package loaded libgomp before: then its
setting stays and nothing here can change it). So the variable is set for the import only and
removed again: subprocesses and libraries loaded later see the user's environment unchanged. A
user's OMP_WAIT_POLICY, or GOMP_SPINCOUNT (libgomp's spin count, which overrides the policy), is
left alone. Private module: __init__ imports it first.
"""

from __future__ import annotations

import os
from typing import Mapping


def passive_by_default(env: Mapping[str, str]) -> bool:
    """True when the user set neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT."""
    return "OMP_WAIT_POLICY" not in env and "GOMP_SPINCOUNT" not in env


_set_here = passive_by_default(os.environ)
if _set_here:
    os.environ["OMP_WAIT_POLICY"] = "passive"
try:
    from . import _spx  # noqa: F401  (loads libgomp, which reads the policy now)
finally:
    if _set_here:
        del os.environ["OMP_WAIT_POLICY"]
