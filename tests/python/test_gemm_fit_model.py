"""bench/gemm_fit.py's port of the DGEMM model (gemm_predicted_us, src/plan/gemm_rule.cpp) against the
times the C++ model gives for the committed table (tests/data/gemm_model_golden.json, which
GemmRule.ModelMatchesItsGoldenTimes checks against the C++). Pure Python: runs without a GPU."""

import importlib.util
import json
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def load_fit():
    spec = importlib.util.spec_from_file_location("gemm_fit", REPO / "bench" / "gemm_fit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_python_model_matches_the_cpp_golden_times():
    fit = load_fit()
    golden = json.loads((REPO / "tests" / "data" / "gemm_model_golden.json").read_text())
    assert len(golden["cases"]) > 100
    for c in golden["cases"]:
        entry = golden["tiles"][c["tile"]]
        us = fit.predicted_us(c["tile"], entry, c["split_k"], c["m"], c["n"], c["k"], golden["l2_gbs"],
                              c["reads_c"])
        assert us == pytest.approx(c["us"], rel=1e-9), c


def test_python_rule_picks_what_the_cpp_rule_picks():
    # The fit and validation shapes' picks: the Python rule can stand in for gemm_rule off the GPU.
    fit = load_fit()
    golden = json.loads((REPO / "tests" / "data" / "gemm_model_golden.json").read_text())
    assert len(golden["picks"]) >= 70
    for p in golden["picks"]:
        tile, split, _ = fit.rule(p["m"], p["n"], p["k"])
        assert (tile, split) == (p["tile"], p["split_k"]), p


def test_fit_starts_from_the_committed_table():
    fit = load_fit()
    golden = json.loads((REPO / "tests" / "data" / "gemm_model_golden.json").read_text())
    assert set(fit.COMMITTED_TABLE) == set(golden["tiles"])
    for name, entry in golden["tiles"].items():
        assert fit.COMMITTED_TABLE[name] == pytest.approx(entry), name
    assert fit.COMMITTED_L2_GBS == golden["l2_gbs"]
    assert set(golden["tiles"]) <= set(fit.SLAB_K)
