"""spx.cg on the CPU against scipy.sparse.linalg.cg: generated SPD matrices, the shared bcsstk13,
Jacobi, initial guesses, every stop (converged, max_iterations, breakdown), and the checks. The GPU
half is in test_cg_gpu.py."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import spx
from conftest import shared_dir


def scipy_cg(S, b, rtol, jacobi=False, maxiter=None):
    """scipy's solution and its iteration count."""
    its = [0]

    def count(_):
        its[0] += 1

    M = sp.diags(1.0 / S.diagonal()) if jacobi else None
    x, info = spla.cg(S, b, rtol=rtol, atol=0.0, maxiter=maxiter, M=M, callback=count)
    assert info == 0
    return x, its[0]


def true_relative_residual(S, x, b):
    S64 = sp.csr_matrix(S, dtype=np.float64)
    r = np.asarray(b, np.float64) - S64 @ np.asarray(x, np.float64)
    return np.linalg.norm(r) / np.linalg.norm(b)


@pytest.mark.parametrize("spec,jacobi", [("stencil2d:n=32", False), ("stencil2d:nx=45,ny=23", True),
                                         ("fem2d:n=16,p=2", False), ("fem2d:n=16,p=2", True)])
def test_f64_matches_scipy(spec, jacobi, rng):
    A = spx.generate(spec)
    S = A.to_scipy()
    b = rng.uniform(-1, 1, A.shape[0])
    rtol = 1e-10
    x, info = spx.cg(A, b, rtol=rtol, M="jacobi" if jacobi else None)
    xs, its = scipy_cg(S, b, rtol, jacobi)
    assert isinstance(x, np.ndarray) and x.dtype == np.float64 and x.shape == b.shape
    assert info.status == "converged" and info.converged and int(info) == 0, info.message
    assert info.device == "cpu"
    assert info.relative_residual <= rtol
    assert true_relative_residual(S, x, b) <= 10 * rtol
    # The same Krylov method: the same iterates up to rounding, so nearly the same count and x.
    assert abs(info.iterations - its) <= max(2, its // 50), (info.iterations, its)
    cond_bound = 1e-6  # cond(A) · rtol with cond below 10^4 here
    assert np.linalg.norm(x - xs) <= cond_bound * np.linalg.norm(xs)
    assert info.rhs_norm == pytest.approx(np.linalg.norm(b))
    assert info.seconds >= 0 and info.history is None
    assert "converged in" in info.message


def test_f32(rng):
    A = spx.generate("stencil2d:n=40", dtype=np.float32)
    S = A.to_scipy()
    b = rng.uniform(-1, 1, A.shape[0]).astype(np.float32)
    x, info = spx.cg(A, b, rtol=1e-5)
    assert x.dtype == np.float32
    assert info.status == "converged", info.message
    xs, _ = scipy_cg(S.astype(np.float64), b.astype(np.float64), 1e-8)
    assert true_relative_residual(S, x, b) <= 1e-4
    assert np.linalg.norm(x - xs) <= 1e-3 * np.linalg.norm(xs)


def test_scipy_defaults_and_a_scipy_matrix(rng):
    """rtol=1e-5, atol=0, maxiter=10·n as scipy; a scipy matrix is taken (converted) too."""
    S = spx.generate("fem2d:n=12,p=1").to_scipy().tocoo()
    b = rng.uniform(-1, 1, S.shape[0])
    x, info = spx.cg(S, b)
    xs, _ = spla.cg(S, b)
    assert info.converged and info.relative_residual <= 1e-5
    assert true_relative_residual(S, x, b) <= 2e-5
    assert np.linalg.norm(x - xs) <= 1e-3 * np.linalg.norm(xs)


def test_atol_stops_first(rng):
    A = spx.generate("stencil2d:n=32")
    b = rng.uniform(-1, 1, A.shape[0])
    x, info = spx.cg(A, b, rtol=0.0, atol=1e-3 * np.linalg.norm(b))
    assert info.converged and info.residual <= 1e-3 * np.linalg.norm(b)
    _, tight = spx.cg(A, b, rtol=1e-12)
    assert info.iterations < tight.iterations


def bcsstk13():
    path = shared_dir() / "bcsstk13.mtx.gz"
    if not path.exists():
        pytest.skip(f"{path} is not here (SPX_SHARED_MATRICES)")
    return spx.read(path)


def test_shared_bcsstk13_jacobi():
    """An ill-conditioned SPD matrix (structural FEM, cond ~ 10^10): Jacobi-CG to 10^-6 as SciPy."""
    A = bcsstk13()
    S = A.to_scipy()
    xe = np.random.default_rng(13).uniform(-1, 1, A.shape[0])
    b = S @ xe
    x, info = spx.cg(A, b, rtol=1e-6, M="jacobi", history=True)
    xs, its = scipy_cg(S, b, 1e-6, jacobi=True, maxiter=20000)
    assert info.converged, info.message
    assert abs(info.iterations - its) <= its // 10, (info.iterations, its)
    # The recurred residual met rtol; the true one drifts a little from it at this conditioning,
    # as SciPy's does.
    assert true_relative_residual(S, x, b) <= 10 * max(1e-6, true_relative_residual(S, xs, b))
    assert len(info.history) == info.iterations + 1
    assert info.history[-1] == pytest.approx(info.residual)
    assert info.history[0] == pytest.approx(np.linalg.norm(b))


def test_zero_rhs_gives_zero():
    A = spx.generate("stencil2d:n=8")
    x0 = np.ones(64)
    x, info = spx.cg(A, np.zeros(64), x0=x0, history=True)
    assert np.array_equal(x, np.zeros(64))
    assert info.converged and info.iterations == 0 and info.residual == 0
    assert info.relative_residual == 0 and info.history == [0.0]
    assert "zero right-hand side" in info.message
    assert np.array_equal(x0, np.ones(64))  # never modified


def test_maxiter_reached(rng):
    A = spx.generate("stencil2d:n=32")
    b = rng.uniform(-1, 1, A.shape[0])
    x, info = spx.cg(A, b, rtol=1e-12, maxiter=5, history=True)
    assert info.status == "max_iterations" and not info.converged
    assert info.iterations == 5 and int(info) == 5
    assert len(info.history) == 6
    assert "iteration cap" in info.message
    assert np.all(np.isfinite(x))
    # x after 5 iterations is scipy's after 5 (same Krylov space, same minimiser).
    xs, _ = spla.cg(A.to_scipy(), b, rtol=1e-12, maxiter=5)
    assert np.linalg.norm(x - xs) <= 1e-8 * np.linalg.norm(xs)
    _, none = spx.cg(A, b, maxiter=0)
    assert none.status == "max_iterations" and none.iterations == 0


def test_initial_guess(rng):
    A = spx.generate("fem2d:n=10,p=2")
    S = A.to_scipy()
    xe = rng.uniform(-1, 1, A.shape[0])
    b = S @ xe
    x, info = spx.cg(A, b, x0=xe, rtol=1e-8)
    assert info.converged and info.iterations == 0 and "initial guess" in info.message
    np.testing.assert_array_equal(x, xe)
    assert x is not xe
    near = xe + 1e-3 * rng.uniform(-1, 1, A.shape[0])
    keep = near.copy()
    x, info = spx.cg(A, b, x0=near, rtol=1e-10)
    _, cold = spx.cg(A, b, rtol=1e-10)
    assert info.converged and info.iterations < cold.iterations
    np.testing.assert_array_equal(near, keep)
    assert np.linalg.norm(x - xe) <= 1e-6 * np.linalg.norm(xe)
    # A list and integers are taken (converted to the matrix's dtype).
    x, info = spx.cg(A, [1] * A.shape[0], x0=[0] * A.shape[0])
    assert x.dtype == np.float64 and info.converged


def test_not_spd_is_a_breakdown(rng):
    A = spx.Matrix(-spx.generate("stencil2d:n=16").to_scipy())
    x, info = spx.cg(A, rng.uniform(-1, 1, 256))
    assert info.status == "breakdown" and int(info) == -1
    assert "not SPD" in info.message
    assert np.all(np.isfinite(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_non_finite_rhs_or_x0_is_named(dtype, bad, rng):
    """A NaN in b used to read "initial residual is not finite (|r|/|b| = 0.000e+00)"."""
    A = spx.generate("stencil2d:n=8", dtype=dtype)
    b = rng.uniform(-1, 1, 64).astype(dtype)
    b[5] = bad
    x, info = spx.cg(A, b)
    assert info.status == "breakdown" and info.iterations == 0
    assert "the right-hand side b holds NaN or Inf (b[5] = " in info.message, info.message
    assert "0.000e+00" not in info.message and np.isnan(info.relative_residual)
    x0 = np.zeros(64, dtype)
    x0[7] = bad
    x, info = spx.cg(A, np.ones(64, dtype), x0=x0)
    assert info.status == "breakdown" and info.iterations == 0
    assert "the initial guess x0 holds NaN or Inf (x0[7] = " in info.message, info.message


def test_a_non_finite_matrix_is_named(rng):
    S = spx.generate("stencil2d:n=4").to_scipy()
    S.data[3] = np.nan
    x, info = spx.cg(spx.Matrix(S), np.ones(16))
    assert info.status == "breakdown" and "the matrix holds NaN or Inf" in info.message, info.message


def test_empty_system():
    A = spx.Matrix(sp.csr_matrix((0, 0)))
    x, info = spx.cg(A, np.zeros(0))
    assert x.shape == (0,) and info.converged


def test_checks_before_anything_runs(rng):
    A = spx.generate("stencil2d:n=8")
    b = rng.uniform(-1, 1, 64)
    with pytest.raises(ValueError, match="not square|square"):
        spx.cg(spx.Matrix(sp.random(10, 12, density=0.3, format="csr")), np.ones(10))
    with pytest.raises(ValueError, match="64 rows"):
        spx.cg(A, np.ones(63))
    with pytest.raises(ValueError, match="one-dimensional"):
        spx.cg(A, np.ones((64, 1)))
    with pytest.raises(ValueError, match="x0 has 3 entries"):
        spx.cg(A, b, x0=np.ones(3))
    with pytest.raises(TypeError, match="complex"):
        spx.cg(A, b.astype(np.complex128))
    with pytest.raises(TypeError, match="float64"):  # narrowing is refused, as in the products
        spx.cg(A.astype(np.float32), b)
    with pytest.raises(TypeError, match="dtype"):
        spx.cg(A, np.array(["a"] * 64))
    with pytest.raises(TypeError, match="spx.Matrix"):
        spx.cg(np.eye(4), np.ones(4))
    with pytest.raises(TypeError, match="jacobi"):
        spx.cg(A, b, M=sp.identity(64))
    with pytest.raises(ValueError, match="jacobi"):
        spx.cg(A, b, M="ilu")
    with pytest.raises(ValueError, match="maxiter"):
        spx.cg(A, b, maxiter=-1)
    with pytest.raises(ValueError, match="rtol"):
        spx.cg(A, b, rtol=float("nan"))
    with pytest.raises(ValueError, match="rtol"):
        spx.cg(A, b, atol=-1.0)
    # Jacobi needs a positive diagonal: the library's message, as a ValueError.
    Z = spx.Matrix(sp.csr_matrix(np.array([[2.0, 1.0], [1.0, 0.0]])))
    with pytest.raises(ValueError, match="positive diagonal: row 1"):
        spx.cg(Z, np.ones(2), M="jacobi")
    x, info = spx.cg(A, b, M="none")  # 'none' is no preconditioner
    assert info.converged


def test_info_repr_and_fields(rng):
    A = spx.generate("stencil2d:n=16")
    _, info = spx.cg(A, rng.uniform(-1, 1, 256))
    r = repr(info)
    assert r.startswith("<spx.CgInfo converged:") and "cpu" in r
    assert set(spx.CgInfo.__slots__) >= {"status", "iterations", "residual", "relative_residual", "seconds",
                                         "history", "message"}
