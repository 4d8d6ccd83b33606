// The per-call path of `A @ x` and `spx.spmv(A, x, out=y)` for the common case, a contiguous CuPy
// vector of the matrix's dtype on its GPU, done in C++: the operands' attributes read through the C
// API, the result allocated as cupy.empty does (cupy.ndarray(rows, dtype)), the caller's stream
// taken from cupy.cuda.get_current_stream(), then the product. Anything else returns None and the
// Python layer takes its general path, which checks again and says what is wrong; so this path
// never raises for a bad operand. An out that overlaps x (out=x) is computed through a copy of x
// (GpuMatrix::spmv, as on the general path). docs/python.md ("Overhead and speed") has what it saves.
//
// It also keeps the stream each device's context last ran on alive until the next call on that
// device has been enqueued (the context orders a new stream after its previous one by an event
// recorded on it): every path, general or fast, hands its stream object to hold_stream.
#pragma once

#include <nanobind/nanobind.h>

#include "matrix.hpp"

namespace spx::python {

// What the fast path needs from CuPy, handed over by the package the first time it sees CuPy:
// the ndarray type, cupy.cuda.get_current_stream, and numpy's float64 and float32 dtypes. Kept
// for the life of the process.
void set_cupy(nanobind::handle ndarray_type, nanobind::handle get_current_stream, nanobind::handle f64,
              nanobind::handle f32);

// y = alpha*A*x + beta*y (out = y, or a new CuPy array when out is None and beta is 0) on CuPy's
// current stream; None when the call is not the common case (see above).
nanobind::object spmv_cupy(const Matrix& A, nanobind::handle x, nanobind::handle out, nanobind::handle alpha,
                           nanobind::handle beta);

// Keeps `stream` (a Python stream object) referenced as the last stream used on `device`,
// dropping the one kept before.
void hold_stream(int device, nanobind::handle stream);

}  // namespace spx::python
