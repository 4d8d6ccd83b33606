"""Array adapters: what a dense operand is (host or device), its pointer, shape, strides and dtype.

Host arrays are numpy arrays (anything np.asarray takes). Device arrays are CuPy arrays (the fast
path: a few attribute reads), any object with ``__cuda_array_interface__`` (Numba, PyTorch, ...)
or with ``__dlpack__`` on a CUDA device. Nothing here copies a device array.
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple, Optional, Tuple

import numpy as np

from . import _spx

_KDLCUDA = 2  # DLPack device types: kDLCUDA, kDLCUDAManaged
_KDLCUDAMANAGED = 13


class DeviceArray(NamedTuple):
    """A device operand as spx sees it (strides in elements)."""

    obj: Any
    ptr: int
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    dtype: np.dtype
    device: int  # CUDA device ordinal, -1 when unknown (checked from the pointer)
    stream: Optional[int]  # the caller's current stream for this array's library, if it has one


def _cupy():
    return sys.modules.get("cupy")


def is_cupy(obj: Any) -> bool:
    cp = _cupy()
    return cp is not None and isinstance(obj, cp.ndarray)


def is_device_array(obj: Any) -> bool:
    """True for CuPy arrays and objects exposing a CUDA array interface or CUDA DLPack."""
    if is_cupy(obj) or hasattr(obj, "__cuda_array_interface__"):
        return True
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is not None:
        try:
            return dev()[0] in (_KDLCUDA, _KDLCUDAMANAGED)
        except Exception:  # pragma: no cover - a broken producer
            return False
    return False


def _elements(strides_bytes, itemsize: int, what: str) -> Tuple[int, ...]:
    out = []
    for s in strides_bytes:
        if s % itemsize:
            raise ValueError(f"{what}: a stride of {s} bytes is not a multiple of the element size {itemsize}")
        out.append(s // itemsize)
    return tuple(out)


def _contiguous_strides(shape) -> Tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


def current_stream(obj: Any) -> Tuple[int, Any]:
    """(cudaStream_t as int, the stream object) of the caller's current stream for obj's library:
    CuPy's or PyTorch's; else (0, None): the legacy default stream."""
    cp = _cupy()
    if cp is not None and isinstance(obj, cp.ndarray):
        st = cp.cuda.get_current_stream()
        return st.ptr, st
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        st = torch.cuda.current_stream(obj.device)
        return st.cuda_stream, st
    return 0, None


def after_call(m: Any, device: int, raw_stream: Optional[int], stream_obj: Any) -> None:
    """After a device call on the caller's stream: hold its stream object (CuPy's, PyTorch's), or,
    for a raw stream= handle spx cannot keep alive, move the device's context off it at once
    (onto a stream of spx's own, ordered after it), so the caller may destroy it as soon as the
    call returns. The legacy and per-thread default streams (0, 1, 2) never go away."""
    if raw_stream is not None:
        if raw_stream not in (0, 1, 2):
            m.release_stream()
    else:
        hold_stream(device, stream_obj)


def hold_stream(device: int, stream_obj: Any) -> None:
    """Keeps the stream the device's context just ran on alive until the next call on that device
    has been enqueued: the context orders a new stream after its previous one (an event recorded on
    it), so the previous one must still exist then. Called after the call, never before. One holder
    per device, in the compiled core, shared with the CuPy fast path (which holds its own stream)."""
    if stream_obj is not None:
        _spx.hold_stream(device, stream_obj)


def device_array(obj: Any, what: str) -> DeviceArray:
    """Describes a device array without copying it (ValueError/TypeError when it cannot be used)."""
    if is_cupy(obj):
        dtype = obj.dtype
        return DeviceArray(obj, obj.data.ptr, obj.shape, _elements(obj.strides, dtype.itemsize, what), dtype,
                           obj.device.id, None)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        dtype = np.dtype(cai["typestr"])
        shape = tuple(int(n) for n in cai["shape"])
        strides = cai.get("strides")
        strides = _contiguous_strides(shape) if strides is None else _elements(strides, dtype.itemsize, what)
        ptr, readonly = cai["data"]
        return DeviceArray(obj, int(ptr), shape, strides, dtype, -1, None)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, what)
    raise TypeError(f"{what}: {type(obj).__name__} is not a device array")


def _from_dlpack(obj: Any, what: str) -> DeviceArray:
    # CuPy (when installed) reads a CUDA DLPack tensor as a view, without a copy.
    cp = _cupy()
    if cp is None:
        try:
            import cupy as cp  # type: ignore[no-redef]
        except ImportError:
            raise TypeError(f"{what}: a DLPack-only device array needs CuPy to be read; pass a CuPy array or "
                            "one with __cuda_array_interface__") from None
    arr = cp.from_dlpack(obj)  # a view, no copy
    d = device_array(arr, what)
    return d._replace(obj=obj)


def host_array(obj: Any, dtype: np.dtype, what: str) -> np.ndarray:
    """obj as a numpy array of `dtype`: converted only when the cast is safe (int -> float, ...)."""
    a = np.asarray(obj)
    if a.dtype == dtype:
        return a
    if a.dtype.kind == "c":
        raise TypeError(f"{what} is complex ({a.dtype}); spx computes with real float32 and float64 only")
    if not np.can_cast(a.dtype, dtype, casting="safe"):
        raise TypeError(f"{what} has dtype {a.dtype} but the matrix holds {dtype}: spx computes in the "
                        f"matrix's dtype and does not narrow {what} silently; pass {what}.astype(np.{dtype}) "
                        f"or use A.astype(np.{a.dtype})")
    return a.astype(dtype)
