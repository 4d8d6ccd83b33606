"""The compiled core (spx._spx) checks its own arguments: called directly, without the package's
checks, a wrong shape, stride, dtype or an aliased output is an exception, never a crash. Before,
spmm_cpu with mismatched shapes corrupted the heap (SIGABRT)."""

import numpy as np
import pytest

import spx
from conftest import random_scipy


@pytest.fixture
def m():
    return spx.Matrix(random_scipy(6, 4, 0.5, 21))._m  # 6 x 4, float64


def test_spmv_cpu_sizes_dtype_and_aliasing(m):
    with pytest.raises(ValueError, match="x has 3 entries, needs 4"):
        m.spmv_cpu(np.ones(3), np.empty(6), 1.0, 0.0)
    with pytest.raises(ValueError, match="y has 5 entries, needs 6"):
        m.spmv_cpu(np.ones(4), np.empty(5), 1.0, 0.0)
    with pytest.raises(ValueError, match="holds float64, the operands float32"):
        m.spmv_cpu(np.ones(4, np.float32), np.empty(6, np.float32), 1.0, 0.0)
    with pytest.raises(TypeError):  # an output is never converted: the result would be lost
        m.spmv_cpu(np.ones(4), np.empty(12)[::2], 1.0, 0.0)
    buf = np.ones(8)
    with pytest.raises(ValueError, match="y overlaps x"):
        m.spmv_cpu(buf[:4], buf[2:8], 1.0, 0.0)


@pytest.mark.parametrize("B_shape, C_shape, message", [
    ((4, 3), (6, 2), "C has shape \\(6, 2\\), needs \\(6, 3\\)"),
    ((5, 3), (6, 3), "B has shape \\(5, 3\\), needs \\(4, 3\\)"),
    ((4, 3), (2, 3), "C has shape \\(2, 3\\), needs \\(6, 3\\)"),
    ((4, 300), (6, 3), "C has shape"),
    ((40, 3), (60, 3), "B has shape"),
])
def test_spmm_cpu_mismatched_shapes(m, B_shape, C_shape, message):
    with pytest.raises(ValueError, match=message):
        m.spmm_cpu(np.ones(B_shape), np.zeros(C_shape), 1.0, 0.0)


def test_spmm_cpu_strides_and_aliasing(m):
    big = np.ones((8, 6))
    with pytest.raises(ValueError, match="unit stride"):
        m.spmm_cpu(big[::2, ::2], np.zeros((6, 3)), 1.0, 0.0)  # no unit stride in either dimension
    with pytest.raises(ValueError, match="unit stride"):
        m.spmm_cpu(np.ones((4, 3)), np.zeros((6, 6))[:, ::2], 1.0, 0.0)
    buf = np.zeros((10, 3))
    with pytest.raises(ValueError, match="C overlaps B"):
        m.spmm_cpu(buf[:4], buf[2:8], 1.0, 0.0)
    # A valid call still works, in either layout.
    C = np.zeros((6, 3), order="F")
    m.spmm_cpu(np.ones((4, 3)), C, 1.0, 0.0)
    assert np.allclose(C, spx.Matrix._wrap(m).to_scipy() @ np.ones((4, 3)))


def test_cg_cpu_sizes_and_aliasing():
    m = spx.generate("stencil2d:n=4")._m  # 16 x 16
    with pytest.raises(ValueError, match="b has 15 entries, needs 16"):
        m.cg_cpu(np.ones(15), np.zeros(16), False, 1e-8, 0.0, 100, False, False)
    b = np.ones(16)
    with pytest.raises(ValueError, match="x overlaps b"):
        m.cg_cpu(b, b, False, 1e-8, 0.0, 100, False, False)


def test_gpu_bindings_on_a_host_matrix_are_value_errors(m):
    """Every GPU entry point of a host matrix says so (before touching a pointer)."""
    for call in (lambda: m.spmv_device(0, 0, 1.0, 0.0, 0),
                 lambda: m.spmm_device(0, 1, 0, 1, True, 1, 1.0, 0.0, 0),
                 lambda: m.spmv_host_on_gpu(np.ones(4), np.empty(6), 1.0, 0.0),
                 lambda: m.spmm_host_on_gpu(np.ones((4, 2)), np.empty((6, 2)), True, 1.0, 0.0),
                 lambda: m.cg_host_on_gpu(np.ones(6), np.empty(6), False, 1e-8, 0.0, 10, False, False)):
        with pytest.raises(ValueError, match="the matrix is on the host|needs"):
            call()


def test_host_on_gpu_bindings_check_sizes_before_the_device(m):
    """Sizes and dtypes come first, so these are ValueErrors even without a GPU."""
    with pytest.raises(ValueError, match="x has 3 entries, needs 4"):
        m.spmv_host_on_gpu(np.ones(3), np.empty(6), 1.0, 0.0)
    with pytest.raises(ValueError, match="C has shape"):
        m.spmm_host_on_gpu(np.ones((4, 2)), np.empty((6, 3)), True, 1.0, 0.0)
    with pytest.raises(ValueError, match="tight"):
        m.spmm_host_on_gpu(np.ones((4, 2)), np.empty((6, 2), order="F"), True, 1.0, 0.0)
    with pytest.raises(ValueError, match="holds float64"):
        m.spmv_host_on_gpu(np.ones(4, np.float32), np.empty(6, np.float32), 1.0, 0.0)


def test_hold_stream_refuses_a_device_that_does_not_exist():
    with pytest.raises(ValueError, match="no such device"):
        spx._spx.hold_stream(2**31 - 1, object())
