"""bench/gemm_fit.py's port of the DGEMM model (gemm_predicted_us, src/plan/gemm_rule.cpp) against the
times the C++ model gives for the committed table (tests/data/gemm_model_golden.json, which
GemmRule.ModelMatchesItsGoldenTimes checks against the C++). Pure Python: runs without a GPU."""

import importlib.util
import json
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def load_bench_module(name):
    """bench/NAME.py as a module (bench/ on the path: gemm_vendor_fit imports gemm_fit)."""
    import sys
    if str(REPO / "bench") not in sys.path:
        sys.path.insert(0, str(REPO / "bench"))
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_fit():
    return load_bench_module("gemm_fit")


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


def test_summary_scores_picks_oracle_and_the_auto_timing():
    # Two shapes, two variants each: the model picks one, the faster is the oracle; Auto's time against
    # the same (tile, split) timed as a variant shows whether the harness times one kernel alike.
    fit = load_fit()
    table = {"128x128": fit.COMMITTED_TABLE["128x128"], "64x64": fit.COMMITTED_TABLE["64x64"]}
    shapes = []
    for m, n, k in [(4096, 4096, 4096), (1000, 1000, 1000)]:
        tile, split, _ = fit.rule(m, n, k, table)
        shapes.append({"shape": f"{m}x{n}x{k}", "m": m, "n": n, "k": k, "tile": tile, "split_k": split,
                       "spx_us": 110.0, "cublas_us": 100.0,
                       "variants": [{"tile": "128x128", "split_k": 1, "us": 100.0 if tile == "128x128" else 80.0},
                                    {"tile": "64x64", "split_k": 1, "us": 100.0 if tile == "64x64" else 80.0}]})
    assert [s["split_k"] for s in shapes] == [1, 1]  # 128 x 128 and 64 x 64, unsplit
    sm = fit.summary(table, fit.COMMITTED_L2_GBS, shapes)
    assert sm["shapes"] == 2
    assert sm["regret"] == pytest.approx(1.25)  # each pick ran 100 where the other variant ran 80
    assert sm["picks_vs_cublas"] == pytest.approx(1.0)
    assert sm["oracle_vs_cublas"] == pytest.approx(1.25)
    assert sm["auto_vs_cublas"] == pytest.approx(100.0 / 110.0)
    assert sm["auto_over_variant"] == pytest.approx(1.1)


def test_vendor_model_matches_the_cpp_times():
    # The same shapes and times as GemmRule.AutoHandsTheProductToCublasWhereTheVendorModelIsFaster
    # (tests/cpu/gemm_rule_test.cpp): the port and gemm_vendor_us agree on the committed vendor tiles.
    vendor = load_bench_module("gemm_vendor_fit")
    cases = [(1000, 128, 1000, 15.369344855381906), (32, 32, 100000, 26.125068940647406),
             (4096, 4096, 16, 54.48070807835656), (60000, 96, 2000, 657.17121593022),
             (256, 256, 256, 9.780976913490171), (16384, 16384, 16384, 165412.2740777581)]
    for m, n, k, us in cases:
        assert vendor.vendor_us(vendor.COMMITTED_VENDOR, m, n, k) == pytest.approx(us, rel=1e-12)


def test_vendor_unaligned_model_matches_the_cpp_times():
    # GemmRule.OddLeadingDimensionsSlowTheVendorModel's numbers.
    vendor = load_bench_module("gemm_vendor_fit")
    u = vendor.COMMITTED_UNALIGNED
    assert vendor.vendor_us(vendor.COMMITTED_VENDOR, 4095, 4095, 4095, unaligned=u) == pytest.approx(2984.319023325117)
    assert vendor.vendor_us(vendor.COMMITTED_VENDOR, 16383, 16383, 63, unaligned=u) == pytest.approx(1328.9904061434509)
    assert vendor.operands_aligned({"m": 4096, "n": 4096, "k": 4096})
    assert not vendor.operands_aligned({"m": 4096, "n": 4096, "k": 4095})  # ldb = k
    assert not vendor.operands_aligned({"m": 4096, "n": 4096, "k": 4095, "op_a": "T"})


def test_pick_applies_the_small_unaligned_margin():
    vendor = load_bench_module("gemm_vendor_fit")
    assert vendor.runs_spx(6.8, 9.8, aligned=True)
    assert not vendor.runs_spx(6.8, 9.8, aligned=False)  # 6.8 x 1.5 > 9.8
    assert vendor.runs_spx(2900.0, 2984.0, aligned=False)  # over unaligned_small_us: the plain margin
