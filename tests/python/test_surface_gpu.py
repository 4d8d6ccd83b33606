"""The matrix algebra, the LinearOperator interop and the symmetry check on GPU matrices: results
stay on the matrix's GPU, CuPy's solvers take A.aslinearoperator(). Skipped (with the reason)
without CuPy or a usable GPU."""

import numpy as np
import pytest

import spx
from conftest import gpu_ready, random_scipy

ready, why = gpu_ready()
pytestmark = pytest.mark.skipif(not ready, reason=why)

if ready:
    import cupy as cp


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_algebra_on_a_gpu_matrix_stays_on_the_gpu(dtype, rng):
    S1, S2 = random_scipy(70, 50, 0.1, 1, dtype), random_scipy(70, 50, 0.1, 2, dtype)
    G, H = spx.Matrix(S1).to("cuda"), spx.Matrix(S2).to("cuda")
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    x = cp.asarray(rng.uniform(-1, 1, 70).astype(dtype))
    for got, ref in ((G.T, S1.T), (G * 2.5, S1 * 2.5), (3 * G, S1 * 3), (G / 4, S1 / 4), (-G, -S1),
                     (G + H, S1 + S2), (G - H, S1 - S2)):
        assert got.device == "cuda" and got.device_id == G.device_id and got.dtype == dtype
        np.testing.assert_allclose(got.to_scipy().toarray(), ref.toarray(), **tol)
    y = G.T @ x  # the transpose is a planned GPU matrix
    np.testing.assert_allclose(cp.asnumpy(y), S1.T @ cp.asnumpy(x), **tol)


def test_row_vector_times_a_gpu_matrix_names_the_transpose():
    G = spx.generate("stencil2d:n=4").to("cuda")
    with pytest.raises(ValueError, match=r"AT = A\.T"):
        np.ones(16) @ G
    with pytest.raises(ValueError, match=r"AT = A\.T"):
        G.__rmatmul__(cp.ones(16))
    with pytest.raises((ValueError, TypeError)):  # CuPy's @ may refuse the matrix before asking it
        cp.ones(16) @ G
    with pytest.raises(ValueError, match=r"AT = A\.T"):
        G.rmatvec(np.ones(16))
    with pytest.raises(ValueError, match="cuda"):
        G + spx.generate("stencil2d:n=4")  # one on the host


@pytest.mark.parametrize("solver", ["cg", "gmres"])
def test_cupy_solvers_take_the_linear_operator(solver, rng):
    import cupyx.scipy.sparse.linalg as cla
    import scipy.sparse.linalg as spla

    A = spx.generate("stencil2d:nx=23,ny=19")
    G = A.to("cuda")
    op = G.aslinearoperator()
    assert isinstance(op, cla.LinearOperator) and op.shape == A.shape and op.dtype == np.float64
    b = rng.uniform(-1, 1, A.shape[0])
    try:
        x, info = getattr(cla, solver)(op, cp.asarray(b), tol=1e-10, maxiter=2000)
    except TypeError:  # a CuPy that calls it rtol, as SciPy >= 1.12
        x, info = getattr(cla, solver)(op, cp.asarray(b), rtol=1e-10, maxiter=2000)
    assert info == 0 and isinstance(x, cp.ndarray)
    x_ref = getattr(spla, solver)(A.to_scipy(), b, rtol=1e-10, atol=0.0, maxiter=2000)[0]
    np.testing.assert_allclose(cp.asnumpy(x), x_ref, rtol=1e-7, atol=1e-9)


def test_cg_refuses_a_non_symmetric_gpu_matrix_up_front():
    S = spx.generate("stencil2d:n=6").to_scipy().tolil()
    S[2, 9] = -0.5
    G = spx.Matrix(S.tocsr()).to("cuda")
    with pytest.raises(ValueError, match=r"not symmetric: A\(2,9\)"):
        spx.cg(G, cp.ones(36))
    x, info = spx.cg(G, cp.ones(36), check_symmetric=False)
    assert isinstance(x, cp.ndarray)


def test_a_device_b_of_another_dtype_names_the_fix():
    G = spx.generate("stencil2d:n=4", dtype=np.float32).to("cuda")
    with pytest.raises(TypeError, match=r"b has dtype float64 but the matrix holds float32: .*b\.astype\('float32'\)"):
        spx.cg(G, cp.ones(16))
