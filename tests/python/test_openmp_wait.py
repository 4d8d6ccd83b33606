"""spx's OpenMP threads wait passively unless the user chose a policy (python/spx/_openmp_wait.py).
libgomp prints the settings it runs with at load when OMP_DISPLAY_ENV=verbose; each case imports
spx in a fresh interpreter, since libgomp reads them once per process."""

import os
import re
import subprocess
import sys

import pytest

from spx import _openmp_wait

# After the import: what libgomp runs with, and whether the variable leaked into os.environ.
_PROBE = "import os, spx; print('env:', os.environ.get('OMP_WAIT_POLICY'))"


def _run(**env):
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    r = subprocess.run([sys.executable, "-c", _PROBE], env={**base, "OMP_DISPLAY_ENV": "verbose", **env},
                       capture_output=True, text=True, check=True)
    spin = re.findall(r"GOMP_SPINCOUNT = '(\d+)'", r.stderr)
    policy = re.findall(r"OMP_WAIT_POLICY = '(\w+)'", r.stderr)
    if not spin or not policy:
        pytest.skip("not libgomp: no OMP_DISPLAY_ENV output to check")
    return spin[-1], policy[-1], r.stdout.strip()


def test_passive_by_default_and_environment_restored():
    spin, _, env = _run()
    assert spin == "0"  # passive: idle threads sleep at once (libgomp's default spins 300000 times)
    assert env == "env: None"  # set for the core's import only


def test_user_policy_kept():
    _, policy, env = _run(OMP_WAIT_POLICY="active")
    assert policy == "ACTIVE"
    assert env == "env: active"


def test_user_spin_count_kept():
    spin, _, _ = _run(GOMP_SPINCOUNT="1234")
    assert spin == "1234"


def test_passive_by_default_rule():
    assert _openmp_wait.passive_by_default({})
    assert not _openmp_wait.passive_by_default({"OMP_WAIT_POLICY": "active"})
    assert not _openmp_wait.passive_by_default({"GOMP_SPINCOUNT": "0"})
