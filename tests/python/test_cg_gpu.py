"""spx.cg on the GPU: CuPy (and other device-array) right-hand sides solved without copies on the
caller's stream, numpy ones with copies, against the CPU solver (the same recurrences) and SciPy.
Skipped (with the reason) without CuPy or a usable GPU."""

import numpy as np
import pytest
import scipy.sparse as sp

import spx
from conftest import gpu_ready, shared_dir
from test_cg import scipy_cg, true_relative_residual

ready, why = gpu_ready()
pytestmark = pytest.mark.skipif(not ready, reason=why)

if ready:
    import cupy as cp


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("jacobi", [False, True])
@pytest.mark.parametrize("spec", ["stencil2d:nx=61,ny=47", "fem2d:n=16,p=2"])
def test_cupy_in_cupy_out_as_the_cpu(spec, jacobi, dtype, rng):
    A = spx.generate(spec, dtype=dtype)
    G = A.to("cuda")
    b = rng.uniform(-1, 1, A.shape[0]).astype(dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-10
    M = "jacobi" if jacobi else None
    xd, info = spx.cg(G, cp.asarray(b), rtol=rtol, M=M, history=True)
    assert isinstance(xd, cp.ndarray) and xd.dtype == dtype and xd.shape == b.shape
    assert info.converged, info.message
    assert info.device == "cuda:0"
    x = cp.asnumpy(xd)
    xc, ic = spx.cg(A, b, rtol=rtol, M=M)
    # The same recurrences, the inner products summed in another order: nearly the same iterations.
    assert abs(info.iterations - ic.iterations) <= max(2, ic.iterations // 20), \
        (info.iterations, ic.iterations)
    assert len(info.history) == info.iterations + 1
    S = A.to_scipy()
    assert true_relative_residual(S, x, b) <= (1e-4 if dtype == np.float32 else 1e-9)
    scale = np.linalg.norm(xc)
    assert np.linalg.norm(x - xc) <= (1e-3 if dtype == np.float32 else 1e-6) * scale
    if dtype == np.float64:
        xs, _ = scipy_cg(S, b, rtol, jacobi)
        assert np.linalg.norm(x - xs) <= 1e-6 * np.linalg.norm(xs)


def test_numpy_b_with_a_gpu_matrix_is_copied(rng):
    A = spx.generate("fem2d:n=20,p=2")
    G = A.to("cuda")
    b = rng.uniform(-1, 1, A.shape[0])
    x0 = np.zeros(A.shape[0]) + 0.5
    keep = x0.copy()
    x, info = spx.cg(G, b, x0=x0, rtol=1e-9, M="jacobi")
    assert isinstance(x, np.ndarray) and info.converged and info.device == "cuda:0"
    np.testing.assert_array_equal(x0, keep)
    assert true_relative_residual(A.to_scipy(), x, b) <= 1e-8


def test_on_the_callers_stream_and_the_default_one(rng):
    A = spx.generate("stencil2d:n=100")
    G = A.to("cuda")
    b = rng.uniform(-1, 1, A.shape[0])
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        bd = cp.asarray(b) * 2.0  # CuPy work on s, not waited for: the solve is ordered after it
        xd, info = spx.cg(G, bd, rtol=1e-10)
        yd = G @ xd  # spx's product afterwards on the same stream
    s.synchronize()
    assert info.converged
    np.testing.assert_allclose(cp.asnumpy(yd), 2 * b, rtol=0, atol=1e-8 * np.linalg.norm(b))
    # Then on CuPy's default (legacy) stream, where the solver runs on a stream of its own.
    xd2, info2 = spx.cg(G, cp.asarray(b) * 2.0, rtol=1e-10)
    assert info2.converged and abs(info2.iterations - info.iterations) <= 1
    scale = float(cp.linalg.norm(xd))
    assert float(cp.linalg.norm(xd2 - xd)) <= 1e-8 * scale
    # An explicit stream= handle.
    o = cp.cuda.Stream(non_blocking=True)
    with o:
        bo = cp.asarray(b)
    o.synchronize()
    xo, io = spx.cg(G, bo, rtol=1e-10, stream=o.ptr)
    o.synchronize()
    assert io.converged
    assert float(cp.linalg.norm(2 * xo - xd)) <= 1e-6 * scale


def test_device_initial_guess_maxiter_and_zero_rhs(rng):
    A = spx.generate("fem2d:n=12,p=2")
    G = A.to("cuda")
    S = A.to_scipy()
    xe = rng.uniform(-1, 1, A.shape[0])
    b = cp.asarray(S @ xe)
    x0 = cp.asarray(xe)
    x, info = spx.cg(G, b, x0=x0, rtol=1e-8)
    assert info.converged and info.iterations == 0 and "initial guess" in info.message
    assert x is not x0 and cp.array_equal(x, x0)
    x, info = spx.cg(G, b, rtol=1e-14, maxiter=7, history=True)
    assert info.status == "max_iterations" and info.iterations == 7 and int(info) == 7
    assert len(info.history) == 8
    xc, _ = spx.cg(A, cp.asnumpy(b), rtol=1e-14, maxiter=7)
    np.testing.assert_allclose(cp.asnumpy(x), xc, rtol=1e-8, atol=1e-10)
    x, info = spx.cg(G, cp.zeros(A.shape[0]), x0=x0)
    assert info.converged and info.iterations == 0 and not cp.any(x)
    x, info = spx.cg(G, b, rtol=1e-10)  # the kept solver, after all that: still right
    assert info.converged and true_relative_residual(S, cp.asnumpy(x), cp.asnumpy(b)) <= 1e-9


def test_not_spd_is_a_breakdown_on_the_gpu(rng):
    G = spx.Matrix(-spx.generate("stencil2d:n=16").to_scipy()).to("cuda")
    x, info = spx.cg(G, cp.asarray(rng.uniform(-1, 1, 256)))
    assert info.status == "breakdown" and int(info) == -1 and "not SPD" in info.message
    assert bool(cp.all(cp.isfinite(x)))


class CudaArrayInterfaceOnly:
    def __init__(self, a):
        self._a = a
        self.__cuda_array_interface__ = a.__cuda_array_interface__


def test_cuda_array_interface_b(rng):
    A = spx.generate("stencil2d:n=20")
    G = A.to("cuda")
    b = rng.uniform(-1, 1, 400)
    x, info = spx.cg(G, CudaArrayInterfaceOnly(cp.asarray(b)), rtol=1e-10)
    assert isinstance(x, cp.ndarray) and info.converged
    assert true_relative_residual(A.to_scipy(), cp.asnumpy(x), b) <= 1e-9


def test_shared_bcsstk13_on_the_gpu():
    path = shared_dir() / "bcsstk13.mtx.gz"
    if not path.exists():
        pytest.skip(f"{path} is not here (SPX_SHARED_MATRICES)")
    A = spx.read(path)
    S = A.to_scipy()
    b = S @ np.random.default_rng(13).uniform(-1, 1, A.shape[0])
    x, info = spx.cg(A.to("cuda"), cp.asarray(b), rtol=1e-6, M="jacobi")
    _, cpu = spx.cg(A, b, rtol=1e-6, M="jacobi")
    assert info.converged, info.message
    assert abs(info.iterations - cpu.iterations) <= cpu.iterations // 10
    assert true_relative_residual(S, cp.asnumpy(x), b) <= 1e-5


def test_gpu_checks(rng):
    A = spx.generate("stencil2d:n=8")
    G = A.to("cuda")
    b = rng.uniform(-1, 1, 64)
    with pytest.raises(TypeError, match="dtype"):
        spx.cg(G, cp.asarray(b, dtype=cp.float32))
    with pytest.raises(ValueError, match="host"):
        spx.cg(A, cp.asarray(b))
    with pytest.raises(ValueError, match="one side"):
        spx.cg(G, cp.asarray(b), x0=np.zeros(64))
    with pytest.raises(ValueError, match="one side"):
        spx.cg(G, b, x0=cp.zeros(64))
    with pytest.raises(ValueError, match="64 rows"):
        spx.cg(G, cp.ones(65))
    with pytest.raises(ValueError, match="contiguous"):
        spx.cg(G, cp.ones(128)[::2])
    Z = spx.Matrix(sp.csr_matrix(np.array([[2.0, 1.0], [1.0, 0.0]]))).to("cuda")
    with pytest.raises(ValueError, match="positive diagonal: row 1"):
        spx.cg(Z, cp.ones(2), M="jacobi")
    x, info = spx.cg(Z, cp.ones(2))  # without Jacobi the same matrix still runs (indefinite: breakdown)
    assert info.status in ("breakdown", "converged")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_non_finite_rhs_or_x0_is_named_on_the_gpu(dtype, rng):
    """The GPU solver names b (or x0, or the matrix) as the CPU one does, without the entry."""
    A = spx.generate("stencil2d:n=8", dtype=dtype).to("cuda")
    b = rng.uniform(-1, 1, 64).astype(dtype)
    b[5] = np.nan
    for rhs in (cp.asarray(b), b):  # device b, and host b copied in
        x, info = spx.cg(A, rhs)
        assert info.status == "breakdown" and info.iterations == 0
        assert info.message == "breakdown at iteration 0: the right-hand side b holds NaN or Inf", info.message
    x0 = cp.zeros(64, dtype)
    x0[7] = np.inf
    x, info = spx.cg(A, cp.ones(64, dtype), x0=x0)
    assert info.status == "breakdown" and "the initial guess x0 or the matrix holds NaN or Inf" in info.message
