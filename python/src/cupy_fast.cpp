// The CuPy fast path of SpMV (cupy_fast.hpp): plain CPython C API on the operands, nothing that can
// raise for a bad operand (None sends the call to the Python layer's general path instead).
#include "cupy_fast.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "gpu.hpp"

namespace nb = nanobind;

namespace spx::python {
namespace {

// Strong references, never released: the interpreter may be gone when static objects are destroyed.
struct Cupy {
  PyObject* ndarray = nullptr;              // cupy.ndarray
  PyObject* current_stream = nullptr;       // cupy.cuda.get_current_stream
  PyObject* dtype[2] = {nullptr, nullptr};  // numpy's float64 and float32 dtypes, by is_f32
  // Interned attribute names.
  PyObject* strides = nullptr;
  PyObject* size = nullptr;
  PyObject* dtype_attr = nullptr;
  PyObject* data = nullptr;
  PyObject* ptr = nullptr;
  PyObject* device_id = nullptr;
};
Cupy cupy;

// Per device, the stream object its context last ran on (a strong reference; never released at exit,
// like the contexts themselves).
std::vector<PyObject*> held;

// Stores `stream` (a reference this call owns) as the device's last stream.
void keep(int device, PyObject* stream) {
  if (device < 0) {
    Py_DECREF(stream);
    return;
  }
  const auto d = static_cast<std::size_t>(device);
  if (held.size() <= d) held.resize(d + 1, nullptr);
  PyObject* old = held[d];
  held[d] = stream;
  Py_XDECREF(old);  // may destroy the old stream: the call that left it has been enqueued already
}

// obj.name as an integer; nullopt (the error cleared) when it is missing or not an integer.
std::optional<long long> int_attr(PyObject* obj, PyObject* name) {
  PyObject* v = PyObject_GetAttr(obj, name);
  if (v == nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  const long long i = PyLong_AsLongLong(v);
  Py_DECREF(v);
  if (i == -1 && PyErr_Occurred() != nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  return i;
}

// a.data.ptr for a CuPy array whose memory is on `device`.
std::optional<uintptr_t> data_ptr(PyObject* a, int device) {
  PyObject* data = PyObject_GetAttr(a, cupy.data);
  if (data == nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  const std::optional<long long> dev = int_attr(data, cupy.device_id);
  const std::optional<long long> p = dev && *dev == device ? int_attr(data, cupy.ptr) : std::nullopt;
  Py_DECREF(data);
  if (!p) return std::nullopt;
  return static_cast<uintptr_t>(*p);
}

// The device pointer of `a` when it is a cupy.ndarray (exactly) of one dimension with n entries of
// `dtype`, contiguous (any stride when n <= 1), on `device`.
std::optional<uintptr_t> cupy_vector(PyObject* a, int64_t n, PyObject* dtype, long long itemsize,
                                     int device) {
  if (Py_TYPE(a) != reinterpret_cast<PyTypeObject*>(cupy.ndarray)) return std::nullopt;
  PyObject* strides = PyObject_GetAttr(a, cupy.strides);
  if (strides == nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  long long stride = 0;
  const bool one_dim = PyTuple_Check(strides) && PyTuple_GET_SIZE(strides) == 1;
  if (one_dim) stride = PyLong_AsLongLong(PyTuple_GET_ITEM(strides, 0));
  Py_DECREF(strides);
  if (!one_dim || (stride == -1 && PyErr_Occurred() != nullptr)) {
    PyErr_Clear();
    return std::nullopt;
  }
  const std::optional<long long> size = int_attr(a, cupy.size);
  if (!size || *size != n || (stride != itemsize && n > 1)) return std::nullopt;
  PyObject* dt = PyObject_GetAttr(a, cupy.dtype_attr);
  if (dt == nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  const int same = PyObject_RichCompareBool(dt, dtype, Py_EQ);  // identity first, then numpy's ==
  Py_DECREF(dt);
  if (same != 1) {
    if (same < 0) PyErr_Clear();
    return std::nullopt;
  }
  return data_ptr(a, device);
}

// alpha or beta as a double when it is a finite Python float (numpy.float64 too) or int (not bool);
// anything else (strings, complex, NaN, other numpy scalars) goes to the general path, which
// accepts the other real numbers and says what is wrong with the rest.
std::optional<double> scalar(PyObject* s) {
  if (!PyFloat_Check(s) && !PyLong_CheckExact(s)) return std::nullopt;
  const double v = PyFloat_AsDouble(s);
  if (v == -1.0 && PyErr_Occurred() != nullptr) {
    PyErr_Clear();
    return std::nullopt;
  }
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

PyObject* intern(const char* name) {
  PyObject* s = PyUnicode_InternFromString(name);
  if (s == nullptr) throw nb::python_error();
  return s;
}

}  // namespace

void set_cupy(nb::handle ndarray_type, nb::handle get_current_stream, nb::handle f64, nb::handle f32) {
  if (!PyType_Check(ndarray_type.ptr())) throw nb::type_error("set_cupy: ndarray_type must be a type");
  if (cupy.strides == nullptr) {
    cupy.strides = intern("strides");
    cupy.size = intern("size");
    cupy.dtype_attr = intern("dtype");
    cupy.data = intern("data");
    cupy.ptr = intern("ptr");
    cupy.device_id = intern("device_id");
  }
  // A second call (never made by the package) replaces the references and keeps the old ones.
  cupy.current_stream = get_current_stream.inc_ref().ptr();
  cupy.dtype[0] = f64.inc_ref().ptr();
  cupy.dtype[1] = f32.inc_ref().ptr();
  cupy.ndarray = ndarray_type.inc_ref().ptr();
}

nb::object spmv_cupy(const Matrix& A, nb::handle x, nb::handle out, nb::handle alpha, nb::handle beta) {
  if (cupy.ndarray == nullptr || !A.gpu) return nb::none();
  const int device = A.gpu->device();
  // CuPy allocates the result, and keeps its current stream, for the current device.
  if (current_device() != device) return nb::none();
  const std::optional<double> a = scalar(alpha.ptr());
  const std::optional<double> b = a ? scalar(beta.ptr()) : std::nullopt;
  if (!b) return nb::none();
  const bool f32 = A.is_f32();
  PyObject* dtype = cupy.dtype[f32 ? 1 : 0];
  const long long itemsize = f32 ? 4 : 8;
  const std::optional<uintptr_t> xp = cupy_vector(x.ptr(), A.cols(), dtype, itemsize, device);
  if (!xp) return nb::none();

  nb::object y;
  std::optional<uintptr_t> yp;
  if (out.is_none()) {
    if (*b != 0.0) return nb::none();  // beta scales the output: the general path asks for out=
    // cupy.empty(rows, dtype) is cupy.ndarray(rows, dtype); called directly.
    nb::object rows = nb::steal(PyLong_FromLongLong(A.rows()));
    if (!rows.is_valid()) throw nb::python_error();
    PyObject* args[2] = {rows.ptr(), dtype};
    y = nb::steal(PyObject_Vectorcall(cupy.ndarray, args, 2, nullptr));
    if (!y.is_valid()) throw nb::python_error();  // CuPy's own error (out of memory), as cupy.empty
    yp = data_ptr(y.ptr(), device);
  } else {
    y = nb::borrow(out);
    yp = cupy_vector(out.ptr(), A.rows(), dtype, itemsize, device);
  }
  if (!yp) return nb::none();

  nb::object stream = nb::steal(PyObject_CallNoArgs(cupy.current_stream));
  if (!stream.is_valid()) throw nb::python_error();
  const std::optional<long long> s = int_attr(stream.ptr(), cupy.ptr);
  if (!s) return nb::none();
  A.gpu->spmv(*xp, *yp, *a, *b, static_cast<uintptr_t>(*s));
  keep(device, stream.release().ptr());
  return y;
}

void hold_stream(int device, nb::handle stream) {
  if (stream.is_none()) return;
  if (device >= gpu_count()) throw nb::value_error("hold_stream: no such device");
  keep(device, stream.inc_ref().ptr());
}

}  // namespace spx::python
