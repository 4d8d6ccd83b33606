"""The GPU path: matrices on a GPU, CuPy operands in and out without copies on the caller's stream,
numpy operands with copies, other device-array protocols, plans and the tuning cache, and the
checks. Skipped (with the reason) without CuPy or a usable GPU."""

import gc
import json
import weakref

import numpy as np
import pytest

import spx
from conftest import expect_product, gpu_ready, random_scipy, shared_matrices

ready, why = gpu_ready()
pytestmark = pytest.mark.skipif(not ready, reason=why)

if ready:
    import cupy as cp


def on_gpu(S, dtype=np.float64):
    A = spx.Matrix(S, dtype=dtype).to("cuda")
    assert A.device == "cuda" and A.device_id == 0
    return A


@pytest.mark.parametrize("shape", [(1, 1), (17, 33), (1000, 997), (20000, 3000)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spmv_cupy_in_cupy_out(shape, dtype, rng):
    S = random_scipy(*shape, min(0.3, 20.0 / shape[1]), shape[0], dtype)
    A = on_gpu(S, dtype)
    x = rng.uniform(-1, 1, shape[1]).astype(dtype)
    y = A @ cp.asarray(x)
    assert isinstance(y, cp.ndarray) and y.dtype == dtype and y.shape == (shape[0],)
    expect_product(S, x, cp.asnumpy(y), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spmv_out_alpha_beta_writes_in_place(dtype, rng):
    S = random_scipy(4001, 3001, 0.004, 3, dtype)
    A = on_gpu(S, dtype)
    x = rng.uniform(-1, 1, 3001).astype(dtype)
    y0 = rng.uniform(-1, 1, 4001).astype(dtype)
    out = cp.asarray(y0)
    ptr = out.data.ptr
    r = spx.spmv(A, cp.asarray(x), out=out, alpha=0.5, beta=-2.0)
    assert r is out and out.data.ptr == ptr
    expect_product(S, x, cp.asnumpy(out), dtype, alpha=0.5, beta=-2.0, Y0=y0)
    out.fill(cp.nan)  # beta = 0 never reads out
    spx.spmv(A, cp.asarray(x), out=out)
    expect_product(S, x, cp.asnumpy(out), dtype)


@pytest.mark.parametrize("L", [1, 8, 32])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spmm_cupy(L, order, dtype, rng):
    S = random_scipy(3001, 1203, 0.01, L, dtype)
    A = on_gpu(S, dtype)
    X = np.asarray(rng.uniform(-1, 1, (1203, L)), dtype=dtype, order=order)
    Y = A @ cp.asarray(X, order=order)
    assert isinstance(Y, cp.ndarray) and Y.shape == (3001, L)
    assert Y.flags.c_contiguous if order == "C" else Y.flags.f_contiguous
    expect_product(S, X, cp.asnumpy(Y), dtype)
    Y0 = np.asarray(rng.uniform(-1, 1, (3001, L)), dtype=dtype, order=order)
    out = cp.asarray(Y0, order=order)
    spx.spmm(A, cp.asarray(X, order=order), out=out, alpha=-1.0, beta=0.5)
    expect_product(S, X, cp.asnumpy(out), dtype, alpha=-1.0, beta=0.5, Y0=Y0)


def test_numpy_operands_with_a_gpu_matrix_are_copied(rng):
    S = random_scipy(2000, 1500, 0.01, 4)
    A = on_gpu(S)
    x = rng.uniform(-1, 1, 1500)
    y = A @ x
    assert isinstance(y, np.ndarray)
    expect_product(S, x, y, np.float64)
    X = np.asfortranarray(rng.uniform(-1, 1, (1500, 5)))
    Y = A @ X
    assert isinstance(Y, np.ndarray) and Y.flags.f_contiguous
    expect_product(S, X, Y, np.float64)
    y0 = rng.uniform(-1, 1, 2000)
    out = y0.copy()
    spx.spmv(A, x, out=out, alpha=3.0, beta=1.0)
    expect_product(S, x, out, np.float64, alpha=3.0, beta=1.0, Y0=y0)


def test_runs_on_the_callers_current_stream(rng):
    S = random_scipy(50000, 50000, 0.0004, 5)
    A = on_gpu(S)
    x = rng.uniform(-1, 1, 50000)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        dx = cp.asarray(x)
        y = A @ dx
        z = A @ (y * 0 + dx)  # CuPy work and spx's interleaved on the one stream, no sync between
    stream.synchronize()
    expect_product(S, x, cp.asnumpy(y), np.float64)
    expect_product(S, x, cp.asnumpy(z), np.float64)
    # An explicit stream= too, then back on the default stream.
    other = cp.cuda.Stream(non_blocking=True)
    with other:
        dx2 = cp.asarray(x)
    other.synchronize()
    w = spx.spmv(A, dx2, stream=other.ptr)
    other.synchronize()
    expect_product(S, x, cp.asnumpy(w), np.float64)
    expect_product(S, x, cp.asnumpy(A @ cp.asarray(x)), np.float64)


def test_a_cupy_graph_capture_of_a_planned_product(rng):
    S = random_scipy(3000, 3000, 0.003, 6)
    A = on_gpu(S)
    x = cp.asarray(rng.uniform(-1, 1, 3000))
    y = cp.empty(3000)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        spx.spmv(A, x, out=y)  # plans (Mode::Model) outside the capture, on the capturing stream
        stream.synchronize()
        stream.begin_capture()
        spx.spmv(A, x, out=y, alpha=2.0)
        graph = stream.end_capture()
        y.fill(cp.nan)
        graph.launch()
    stream.synchronize()
    expect_product(S, cp.asnumpy(x), cp.asnumpy(y), np.float64, alpha=2.0)


class CudaArrayInterfaceOnly:
    """A device array known only by __cuda_array_interface__ (as Numba's or PyTorch's are)."""

    def __init__(self, a):
        self._a = a
        self.__cuda_array_interface__ = a.__cuda_array_interface__


class DlpackOnly:
    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None, **kw):
        return self._a.__dlpack__(stream=stream, **kw) if stream is not None else self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_cuda_array_interface_and_dlpack_operands(rng):
    S = random_scipy(999, 777, 0.02, 7)
    A = on_gpu(S)
    x = rng.uniform(-1, 1, 777)
    dx = cp.asarray(x)
    for wrapped in (CudaArrayInterfaceOnly(dx), DlpackOnly(dx)):
        y = spx.spmv(A, wrapped)
        assert isinstance(y, cp.ndarray)
        expect_product(S, x, cp.asnumpy(y), np.float64)
        out = CudaArrayInterfaceOnly(cp.zeros(999))
        spx.spmv(A, wrapped, out=out)
        expect_product(S, x, cp.asnumpy(out._a), np.float64)


def test_checks_before_anything_runs(rng):
    A = on_gpu(random_scipy(100, 80, 0.1, 8))
    with pytest.raises(TypeError, match="x has dtype float32 but the matrix holds float64"):
        A @ cp.ones(80, dtype=np.float32)
    with pytest.raises(ValueError, match="x has 81 entries"):
        A @ cp.ones(81)
    with pytest.raises(ValueError, match="contiguous"):
        A @ cp.ones(160)[::2]
    with pytest.raises(ValueError, match="out has shape"):
        spx.spmv(A, cp.ones(80), out=cp.empty(99))
    with pytest.raises(ValueError, match="layout"):
        spx.spmm(A, cp.ones((80, 4)), out=cp.empty((100, 4), order="F"))
    with pytest.raises(ValueError, match="pass it as out="):
        spx.spmv(A, cp.ones(80), beta=1.0)
    with pytest.raises(ValueError, match="host"):
        spx.Matrix(random_scipy(100, 80, 0.1, 8)) @ cp.ones(80)
    host_out = np.empty(100)
    with pytest.raises((TypeError, ValueError)):
        spx.spmv(A, cp.ones(80), out=host_out)


def test_cupy_fast_path_scalars_and_what_it_declines(rng):
    """The per-call path in C++ (python/src/cupy_fast.cpp) takes contiguous CuPy vectors of the
    matrix's dtype and any real scalar; everything else returns None, and the general path checks."""
    S = random_scipy(301, 203, 0.05, 13)
    A = on_gpu(S)
    x = rng.uniform(-1, 1, 203)
    dx = cp.asarray(x)
    y0 = rng.uniform(-1, 1, 301)
    for alpha, beta in ((2, 1), (np.float32(0.5), np.float64(-1.5)), (True, 0)):
        out = cp.asarray(y0)
        assert spx.spmv(A, dx, out=out, alpha=alpha, beta=beta) is out
        expect_product(S, x, cp.asnumpy(out), np.float64, alpha=float(alpha), beta=float(beta), Y0=y0)
    fast = A._m.spmv_cupy
    y = fast(dx, None, 1.0, 0.0)
    assert isinstance(y, cp.ndarray) and y.shape == (301,) and y.dtype == np.float64
    expect_product(S, x, cp.asnumpy(y), np.float64)
    declined = [
        (cp.asarray(x, dtype=np.float32), None, 1.0, 0.0),  # another dtype
        (cp.ones(204), None, 1.0, 0.0),  # another length
        (cp.ones(406)[::2], None, 1.0, 0.0),  # strided
        (cp.ones((203, 1)), None, 1.0, 0.0),  # two dimensions
        (dx, None, 1.0, 1.0),  # beta without out
        (dx, cp.ones(602)[::2], 1.0, 0.0),  # strided out
        (dx, cp.ones(301, dtype=np.float32), 1.0, 0.0),  # out of another dtype
        (dx, np.ones(301), 1.0, 0.0),  # out in host memory
        (dx, None, "2", 0.0),  # not a number
        (dx, None, float("nan"), 0.0),  # not finite
        (dx, None, 1 + 2j, 0.0),  # complex
        (CudaArrayInterfaceOnly(dx), None, 1.0, 0.0),  # not a cupy.ndarray
    ]
    for args in declined:
        assert fast(*args) is None
    with pytest.raises(TypeError, match="alpha"):
        spx.spmv(A, dx, alpha="two")
    with pytest.raises(ValueError, match="not finite"):  # NaN is declined by the fast path too
        spx.spmv(A, dx, alpha=float("nan"))
    # A vector of one entry may have any stride.
    S1 = random_scipy(3, 1, 1.0, 14)
    x1 = cp.arange(6, dtype=np.float64)[::4][1:]  # [4.0], a stride of 32 bytes
    expect_product(S1, np.array([4.0]), cp.asnumpy(on_gpu(S1) @ x1), np.float64)


def test_the_stream_of_the_last_call_is_kept_alive(rng):
    """The context orders its next stream after the last one by an event recorded on it: spx keeps
    the last stream object alive until the next call, on the fast path and the general one."""
    S = random_scipy(500, 400, 0.02, 12)
    A = on_gpu(S)
    x = rng.uniform(-1, 1, 400)
    dx = cp.asarray(x)
    for how in ("fast", "general"):
        s = cp.cuda.Stream(non_blocking=True)
        with s:
            if how == "fast":
                y = A @ dx
            else:  # an out= CuPy does not know: the general path, still on CuPy's current stream
                y = CudaArrayInterfaceOnly(cp.empty(500))
                spx.spmv(A, dx, out=y)
                y = y._a
        s.synchronize()
        w = weakref.ref(s)
        del s
        gc.collect()
        assert w() is not None, how
        expect_product(S, x, cp.asnumpy(y), np.float64)
    z = A @ dx  # on the default stream, ordered after the last one, which spx then lets go
    expect_product(S, x, cp.asnumpy(z), np.float64)


def test_a_raw_stream_handle_may_be_destroyed_right_after_the_call(rng):
    """stream= is a bare handle spx cannot keep alive: after the call the context moves onto a stream
    of spx's own (ordered after it), so the caller may destroy it at once. Before, the context
    stayed on the dead handle and every later call on the GPU failed or crashed."""
    S = random_scipy(700, 600, 0.02, 15)
    A = on_gpu(S)
    x = rng.uniform(-1, 1, 600)
    X = np.stack([x, -x], axis=1)
    for op in ("spmv", "spmm"):
        o = cp.cuda.Stream(non_blocking=True)
        with o:
            dx = cp.asarray(x if op == "spmv" else X)
        o.synchronize()
        y = spx.spmv(A, dx, stream=o.ptr) if op == "spmv" else spx.spmm(A, dx, stream=o.ptr)
        o.synchronize()
        del o
        gc.collect()
        expect_product(S, x if op == "spmv" else X, cp.asnumpy(y), np.float64)
    B = on_gpu(S)  # uploads on the context's current stream
    expect_product(S, x, cp.asnumpy(B @ cp.asarray(x)), np.float64)
    expect_product(S, x, B @ x, np.float64)  # numpy operands: on the context's current stream too


def test_to_cpu_astype_and_stats_on_the_gpu(rng):
    S = random_scipy(300, 200, 0.05, 9)
    A = on_gpu(S)
    assert A.cpu().device == "cpu" and A.to("cuda") is A
    A32 = A.astype(np.float32)
    assert A32.device == "cuda" and A32.dtype == np.float32
    x = rng.uniform(-1, 1, 200).astype(np.float32)
    expect_product(S, x, cp.asnumpy(A32 @ cp.asarray(x)), np.float32)
    assert A.stats["nnz"] == S.nnz
    assert abs(A.to_scipy() - S).max() == 0


@pytest.mark.parametrize("mode", ["rule", "model", "measure", "tune"])
def test_plans_and_explain(mode, rng):
    S = random_scipy(20000, 20000, 0.0005, 10)
    A = on_gpu(S)
    p = A.plan("spmv", mode=mode, expected_calls=50)
    assert p.op == "spmv" and p.kernel and p.owner in ("spx", "cuSPARSE")
    text = p.explain()
    assert "plan" in text and p.kernel in text
    x = rng.uniform(-1, 1, 20000)
    for _ in range(60 if mode == "tune" else 1):  # the tuner tries configurations on real calls
        y = A @ cp.asarray(x)
    expect_product(S, x, cp.asnumpy(y), np.float64)
    q = A.plan("spmm", L=8, mode=mode)
    assert q.op == "spmm" and q.cols_dense == 8
    X = rng.uniform(-1, 1, (20000, 8))
    expect_product(S, X, cp.asnumpy(A @ cp.asarray(X)), np.float64)
    assert A.plan("spmm", L=8, replan=False).kernel == A.plan("spmm", L=8, replan=False).kernel
    with pytest.raises(ValueError, match="mode"):
        A.plan(mode="fastest")
    with pytest.raises(ValueError, match="L"):
        A.plan("spmm")


def test_tuning_cache_file(tmp_path, rng):
    S = random_scipy(30000, 30000, 0.0003, 11)
    cache = tmp_path / "tuning.json"
    A = on_gpu(S)
    p = A.plan("spmv", mode="measure", tuning_cache=str(cache))
    assert cache.exists() and json.loads(cache.read_text())
    B = on_gpu(S)  # the same structure: the plan comes from the cache
    q = B.plan("spmv", mode="measure", tuning_cache=str(cache))
    assert q.decided_by == "cache" and q.kernel == p.kernel
    x = rng.uniform(-1, 1, 30000)
    expect_product(S, x, cp.asnumpy(B @ cp.asarray(x)), np.float64)


@pytest.mark.parametrize("name, path", shared_matrices(max_gz_bytes=2_000_000))
def test_shared_matrices_on_the_gpu(name, path, rng):
    A = spx.read(path)
    S = A.to_scipy()
    G = A.to("cuda")
    x = rng.uniform(-1, 1, A.shape[1])
    expect_product(S, x, cp.asnumpy(G @ cp.asarray(x)), np.float64)
    X = rng.uniform(-1, 1, (A.shape[1], 8))
    expect_product(S, X, cp.asnumpy(G @ cp.asarray(X)), np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("beta", [0.0, 0.5])
def test_out_overlapping_x_is_computed_through_a_copy(dtype, beta, rng):
    """out=x and overlapping views on the GPU: the C++ side compares the byte ranges and copies x on
    the caller's stream (docs/python.md, "Aliasing") — the fast path, the general path (a raw
    stream=, __cuda_array_interface__) and SpMM alike."""
    n = 40
    S = random_scipy(n, n, 0.3, 41, dtype)
    A = on_gpu(S, dtype)
    x0 = rng.uniform(-1, 1, n).astype(dtype)
    for call in (lambda x, out: spx.spmv(A, x, out=out, alpha=1.5, beta=beta),  # the fast path
                 lambda x, out: spx.spmv(A, x, out=out, alpha=1.5, beta=beta, stream=0),  # general
                 lambda x, out: spx.spmv(A, CudaArrayInterfaceOnly(x), out=CudaArrayInterfaceOnly(out),
                                         alpha=1.5, beta=beta)):
        x = cp.asarray(x0)
        call(x, x)
        expect_product(S, x0, cp.asnumpy(x), dtype, alpha=1.5, beta=beta, Y0=x0)
        buf = cp.asarray(rng.uniform(-1, 1, n + 3).astype(dtype))
        x, out = buf[:n], buf[3:]
        xh, yh = cp.asnumpy(x), cp.asnumpy(out)
        call(x, out)
        expect_product(S, xh, cp.asnumpy(out), dtype, alpha=1.5, beta=beta, Y0=yh)
    cp.cuda.get_current_stream().synchronize()


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spmm_out_overlapping_X_on_the_gpu(order, dtype, rng):
    n, L = 33, 4
    S = random_scipy(n, n, 0.2, 42, dtype)
    A = on_gpu(S, dtype)
    X0 = np.asarray(rng.uniform(-1, 1, (n, L)), dtype=dtype, order=order)
    X = cp.asarray(X0, order=order)
    spx.spmm(A, X, out=X, beta=-1.0)
    expect_product(S, X0, cp.asnumpy(X), dtype, beta=-1.0, Y0=X0)
    buf = cp.asarray(np.asarray(rng.uniform(-1, 1, (n + 2, L)), dtype=dtype), order=order)
    X, out = buf[:n], buf[2:]  # rows two apart (Fortran order: columns with ld n + 2)
    Xh, Yh = cp.asnumpy(X), cp.asnumpy(out)
    spx.spmm(A, X, out=out, beta=0.5)
    expect_product(S, Xh, cp.asnumpy(out), dtype, beta=0.5, Y0=Yh)


def test_raw_device_bindings_check_what_they_can(rng):
    """spx._spx's device entry points, called without the package: null pointers and leading
    dimensions are refused before anything is launched."""
    A = on_gpu(random_scipy(6, 4, 0.5, 43))
    m = A._m
    with pytest.raises(ValueError, match="null pointer"):
        m.spmv_device(0, 0, 1.0, 0.0, 0)
    x, y = cp.ones(4), cp.zeros(6)
    with pytest.raises(ValueError, match="leading dimension"):
        m.spmm_device(x.data.ptr, 1, y.data.ptr, 3, True, 2, 1.0, 0.0, 0)
    with pytest.raises(ValueError, match="x has 3 entries"):
        m.spmv_host_on_gpu(np.ones(3), np.zeros(6), 1.0, 0.0)
    with pytest.raises(ValueError, match="C has shape"):
        m.spmm_host_on_gpu(np.ones((4, 2)), np.zeros((5, 2)), True, 1.0, 0.0)
    with pytest.raises(ValueError, match="x is b"):
        m2 = on_gpu(spx.generate("stencil2d:n=3").to_scipy())._m
        b = cp.ones(9)
        m2.cg_device(b.data.ptr, b.data.ptr, 0, 1e-8, 0.0, 10, False, False, 0)
    m.spmv_device(x.data.ptr, y.data.ptr, 1.0, 0.0, 0)
    cp.cuda.Device().synchronize()
