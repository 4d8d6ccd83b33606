# Type stubs of the public API of spx (python/spx/__init__.py has the code and the docstrings).
import os
from typing import Any, Literal, Optional, Tuple, TypeVar, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str
__all__: list[str]

# A dense operand: a numpy array (or anything np.asarray takes) or a device array (CuPy, objects with
# __cuda_array_interface__ or CUDA DLPack). Results are of the operand's kind.
_Dense = TypeVar("_Dense")
_DType = Union[npt.DTypeLike, type]
_Device = Union[str, int, Any]

def built_with_cuda() -> bool: ...
def cuda_available() -> bool: ...
def gpu_unavailable_reason() -> str: ...

class Plan:
    op: Literal["spmv", "spmm"]
    cols_dense: int
    mode: Literal["auto", "rule", "model", "measure", "tune"]
    decided_by: str
    kernel: str
    owner: str
    format: str
    params: str
    predicted_us: float
    measured_us: float
    planning_us: float
    setup_us: float
    candidates: int
    def explain(self) -> str: ...

class Matrix:
    def __init__(self, source: Any, shape: Optional[Tuple[int, int]] = None, dtype: Optional[_DType] = None) -> None: ...
    @property
    def shape(self) -> Tuple[int, int]: ...
    @property
    def nnz(self) -> int: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def device(self) -> Literal["cpu", "cuda"]: ...
    @property
    def device_id(self) -> int: ...
    @property
    def stats(self) -> dict[str, Union[int, float]]: ...
    def to(self, device: _Device) -> "Matrix": ...
    def cuda(self, device: int = 0) -> "Matrix": ...
    def cpu(self) -> "Matrix": ...
    def astype(self, dtype: _DType) -> "Matrix": ...
    def arrays(self) -> Tuple[npt.NDArray[Any], npt.NDArray[np.int32], npt.NDArray[np.int32]]: ...
    def to_scipy(self) -> Any: ...
    @overload
    def __matmul__(self, other: npt.NDArray[Any]) -> npt.NDArray[Any]: ...
    @overload
    def __matmul__(self, other: _Dense) -> _Dense: ...
    def plan(
        self,
        op: Literal["spmv", "spmm"] = "spmv",
        L: Optional[int] = None,
        *,
        layout: Literal["row", "col"] = "row",
        mode: Literal["auto", "rule", "model", "measure", "tune"] = "auto",
        expected_calls: int = 100,
        deterministic_only: bool = False,
        measure_top: int = 4,
        tuning_cache: Optional[str] = None,
        replan: bool = True,
    ) -> Plan: ...

@overload
def spmv(A: Matrix, x: npt.ArrayLike, out: Optional[npt.NDArray[Any]] = None, alpha: float = 1.0,
         beta: float = 0.0, stream: Optional[int] = None) -> npt.NDArray[Any]: ...
@overload
def spmv(A: Matrix, x: _Dense, out: Optional[_Dense] = None, alpha: float = 1.0, beta: float = 0.0,
         stream: Optional[int] = None) -> _Dense: ...
@overload
def spmm(A: Matrix, X: npt.ArrayLike, out: Optional[npt.NDArray[Any]] = None, alpha: float = 1.0,
         beta: float = 0.0, stream: Optional[int] = None) -> npt.NDArray[Any]: ...
@overload
def spmm(A: Matrix, X: _Dense, out: Optional[_Dense] = None, alpha: float = 1.0, beta: float = 0.0,
         stream: Optional[int] = None) -> _Dense: ...
class CgInfo:
    status: Literal["converged", "max_iterations", "breakdown", "stagnation"]
    iterations: int
    residual: float
    rhs_norm: float
    relative_residual: float
    seconds: float
    history: Optional[list[float]]
    message: str
    device: str
    @property
    def converged(self) -> bool: ...
    def __int__(self) -> int: ...

@overload
def cg(A: Union[Matrix, Any], b: npt.ArrayLike, x0: Optional[npt.ArrayLike] = None, *, rtol: float = 1e-5,
       atol: float = 0.0, maxiter: Optional[int] = None, M: Optional[Literal["jacobi", "none"]] = None,
       history: bool = False, stream: Optional[int] = None) -> Tuple[npt.NDArray[Any], CgInfo]: ...
@overload
def cg(A: Union[Matrix, Any], b: _Dense, x0: Optional[_Dense] = None, *, rtol: float = 1e-5, atol: float = 0.0,
       maxiter: Optional[int] = None, M: Optional[Literal["jacobi", "none"]] = None, history: bool = False,
       stream: Optional[int] = None) -> Tuple[_Dense, CgInfo]: ...
def read(path: Union[str, "os.PathLike[str]"], dtype: _DType = ...) -> Matrix: ...
def generate(spec: str, dtype: _DType = ...) -> Matrix: ...
def generators() -> list[Tuple[str, str, str]]: ...
