"""spx.Matrix: construction from scipy (every format), arrays, files and generator specs; its
properties and conversions; and the errors for what cannot be a matrix."""

import gzip

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import spx
from conftest import random_scipy, shared_matrices


def same_csr(A, S):
    C = sp.csr_matrix(S)
    C.sum_duplicates()
    C.sort_indices()
    data, indices, indptr = A.arrays()
    assert A.shape == C.shape
    assert A.nnz == C.nnz
    np.testing.assert_array_equal(indptr, C.indptr)
    np.testing.assert_array_equal(indices, C.indices)
    np.testing.assert_array_equal(data, C.data.astype(A.dtype))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr", "dia", "lil", "dok"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_from_every_scipy_format(fmt, dtype):
    S = random_scipy(37, 53, 0.15, 1, dtype, "csr")
    T = S.asformat(fmt)
    A = spx.Matrix(T)
    assert A.dtype == np.dtype(dtype)
    assert A.device == "cpu" and A.device_id == -1
    same_csr(A, S)


def test_from_scipy_sparse_array_and_matrix():
    S = random_scipy(20, 30, 0.2, 2)
    same_csr(spx.Matrix(sp.csr_array(S)), S)
    same_csr(spx.Matrix(sp.coo_matrix(S)), S)


def test_coo_duplicates_are_summed_and_columns_sorted():
    rows = np.array([0, 0, 2, 0, 1])
    cols = np.array([3, 1, 0, 3, 2])
    vals = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    S = sp.coo_matrix((vals, (rows, cols)), shape=(3, 4))
    A = spx.Matrix(S)
    data, indices, indptr = A.arrays()
    np.testing.assert_array_equal(indptr, [0, 2, 3, 4])
    np.testing.assert_array_equal(indices, [1, 3, 2, 0])
    np.testing.assert_array_equal(data, [2.0, 5.0, 5.0, 3.0])


def test_from_arrays_both_spellings_and_unsorted_input():
    data = np.array([1.0, 2.0, 3.0, 4.0])
    indices = np.array([2, 0, 1, 1])  # row 0 unsorted, row 1 repeats column 1
    indptr = np.array([0, 2, 4], dtype=np.int64)
    A = spx.Matrix((data, indices, indptr, (2, 3)))
    B = spx.Matrix((data, indices, indptr), shape=(2, 3))
    for M in (A, B):
        d, i, p = M.arrays()
        np.testing.assert_array_equal(p, [0, 2, 3])
        np.testing.assert_array_equal(i, [0, 2, 1])
        np.testing.assert_array_equal(d, [2.0, 1.0, 7.0])
        assert M.shape == (2, 3) and M.nnz == 3


def test_integer_and_bool_values_become_float64_float16_float32():
    S = sp.random(10, 10, density=0.3, format="csr", random_state=3)
    assert spx.Matrix((S > 0.5).astype(np.int32)).dtype == np.float64
    assert spx.Matrix(S > 0.5).dtype == np.float64
    assert spx.Matrix((np.ones(1, dtype=np.float16), [0], [0, 1], (1, 1))).dtype == np.float32
    assert spx.Matrix(S, dtype=np.float32).dtype == np.float32


def test_complex_and_extended_precision_are_type_errors():
    S = random_scipy(5, 5, 0.5, 4)
    with pytest.raises(TypeError, match="complex"):
        spx.Matrix(S.astype(np.complex128))
    with pytest.raises(TypeError, match="complex"):
        spx.Matrix((np.array([1j]), np.array([0]), np.array([0, 1]), (1, 1)))
    if np.dtype(np.longdouble) != np.dtype(np.float64):
        with pytest.raises(TypeError, match="float32 and float64"):
            spx.Matrix(S.astype(np.longdouble))
    with pytest.raises(TypeError, match="cannot make an spx.Matrix"):
        spx.Matrix(np.eye(3))
    with pytest.raises(TypeError, match="tuple"):
        spx.Matrix((np.ones(1), np.zeros(1)))


@pytest.mark.parametrize(
    "data, indices, indptr, shape, message",
    [
        ([1.0], [0], [0, 1], (2, 2), "indptr has 2 entries, a matrix of 2 rows needs 3"),
        ([1.0], [0], [1, 1], (1, 2), r"indptr\[0\] is 1, must be 0"),
        ([1.0, 2.0], [0, 1], [0, 2, 1], (2, 2), "indptr decreases at row 1"),
        ([1.0, 2.0], [0, 5], [0, 2], (1, 3), r"indices\[1\] = 5 is out of range 0..2"),
        ([1.0, 2.0], [0, -1], [0, 2], (1, 3), r"indices\[1\] = -1 is out of range"),
        ([1.0], [0, 1], [0, 2], (1, 3), "indices has 2 entries and data 1"),
        ([1.0], [0], [0, 2], (1, 3), "indptr ends at 2 but there are 1 entries"),
        ([1.0], [0], [0, 1], (-1, 3), "negative"),
        ([1.0], [0], [0, 1], (1, 2**31), "32-bit"),
        ([1.0], [0], [0, 1], (1,), "shape"),
    ],
)
def test_invalid_arrays_are_value_errors_naming_the_problem(data, indices, indptr, shape, message):
    with pytest.raises(ValueError, match=message):
        spx.Matrix((np.array(data), np.array(indices), np.array(indptr), shape))


def test_float_indices_are_a_type_error():
    with pytest.raises(TypeError, match="integers"):
        spx.Matrix((np.ones(1), np.array([0.0]), np.array([0, 1]), (1, 1)))


def test_properties_stats_and_repr():
    S = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 0, 0], [0, 3, 0], [4, 5, 6]]))
    A = spx.Matrix(S)
    assert A.shape == (4, 3) and A.nnz == 6 and A.dtype == np.float64
    s = A.stats
    assert (s["rows"], s["cols"], s["nnz"]) == (4, 3, 6)
    assert (s["min_row"], s["max_row"], s["empty_rows"]) == (0, 3, 1)
    assert s["avg_row"] == pytest.approx(1.5)
    assert s["lower_bandwidth"] == 3 and s["upper_bandwidth"] == 2 and s["bandwidth"] == 3
    assert isinstance(s["fingerprint"], int) and s["fingerprint"] > 0
    assert "4x3" in repr(A) and "cpu" in repr(A)
    # Same structure, other values: same fingerprint; other structure: another.
    assert spx.Matrix(S * 2).stats["fingerprint"] == s["fingerprint"]
    assert spx.Matrix(S[:3]).stats["fingerprint"] != s["fingerprint"]


def test_to_scipy_round_trip_and_astype():
    S = random_scipy(40, 33, 0.1, 5)
    A = spx.Matrix(S)
    T = A.to_scipy()
    assert sp.issparse(T) and T.format == "csr" and T.shape == S.shape
    assert abs(T - S).max() == 0
    A32 = A.astype(np.float32)
    assert A32.dtype == np.float32 and A32.nnz == A.nnz
    np.testing.assert_array_equal(A32.arrays()[0], S.data.astype(np.float32))
    assert A.astype(np.float64) is A
    assert spx.Matrix(A, dtype=np.float32).dtype == np.float32
    with pytest.raises(TypeError):
        A.astype(np.complex64)


def test_empty_and_zero_sized_matrices():
    for shape in [(0, 0), (3, 0), (0, 4), (5, 7)]:
        A = spx.Matrix(sp.csr_matrix(shape))
        assert A.shape == shape and A.nnz == 0
        assert A.to_scipy().shape == shape


def test_read_matrix_market_against_scipy(tmp_path):
    S = random_scipy(25, 18, 0.2, 6)
    path = tmp_path / "m.mtx"
    scipy.io.mmwrite(str(path), S)
    A = spx.read(path)
    assert A.dtype == np.float64
    np.testing.assert_allclose(A.to_scipy().toarray(), S.toarray(), rtol=1e-15)
    assert spx.read(str(path), dtype=np.float32).dtype == np.float32


def test_read_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        spx.read(tmp_path / "missing.mtx")
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
    with pytest.raises(ValueError, match=r"bad.mtx:3: .*row"):
        spx.read(bad)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # scipy 1.17: mmread's spmatrix default
@pytest.mark.parametrize("name, path", shared_matrices(max_gz_bytes=400_000))
def test_read_shared_matrices_like_scipy(name, path):
    with gzip.open(path, "rb") as f:
        S = scipy.io.mmread(f)
    A = spx.read(path)
    same_csr(A, sp.csr_matrix(S, dtype=np.float64))


def test_generate_and_its_errors():
    A = spx.generate("stencil27:n=6")
    assert A.shape == (216, 216)
    assert A.stats["max_row"] == 27
    assert spx.generate("stencil27:n=6", dtype=np.float32).dtype == np.float32
    kinds = [k for k, _, _ in spx.generators()]
    assert "stencil27" in kinds and "rmat" in kinds
    with pytest.raises(ValueError, match="nosuchkind"):
        spx.generate("nosuchkind:n=3")
    with pytest.raises(ValueError, match="stencil27"):
        spx.generate("stencil27:bogus=3")


def test_gpu_calls_without_a_gpu_say_why():
    if spx.cuda_available():
        pytest.skip("a GPU is present")
    A = spx.generate("stencil27:n=4")
    with pytest.raises(RuntimeError, match="GPU|CUDA"):
        A.to("cuda")
    with pytest.raises(ValueError, match="GPU"):
        A.plan()
    with pytest.raises(ValueError, match="device"):
        A.to("tpu")


def test_generate_goes_through_the_library_spec_parser():
    # The C++ parser's checks reach Python: an empty item and a too-large fem2d problem are
    # ValueErrors naming the spec, not a default or a MemoryError after a huge allocation.
    with pytest.raises(ValueError, match=r'"stencil27:n=4,,".*empty item'):
        spx.generate("stencil27:n=4,,")
    with pytest.raises(ValueError, match="more than int32 indices hold"):
        spx.generate("fem2d:n=2000,p=4")
