// What the extension onnx_shapelint._core (lib/python/module.cc) shares of its reading of Python
// arguments: strings and errors as Python sees them, and lint()'s keyword options, read the way
// the command line reads its options.
#ifndef SHAPELINT_LIB_PYTHON_OPTIONS_H_
#define SHAPELINT_LIB_PYTHON_OPTIONS_H_

#include <pybind11/pybind11.h>

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "shapelint/lint/lint.h"

namespace shapelint::python {

namespace py = pybind11;

// Python strings must be valid UTF-8; paths, node names and messages come from the model file and
// may not be. Bad bytes become U+FFFD, as in the JSON report.
py::str Utf8(std::string_view s);

// Raises Python's `type` with `message`.
[[noreturn]] void Raise(PyObject* type, std::string_view message);

// Bad options and models that cannot be loaded are the caller's to fix: ValueError. Any other
// status would be a failure of the linter itself.
[[noreturn]] void RaiseStatus(const absl::Status& status);

// A str stands for itself; any other iterable for its elements (owned: a generator's elements
// live only as long as someone holds them). TypeError names `option` and what it `expected`.
std::vector<py::object> Elements(const py::handle& value, std::string_view option,
                                 std::string_view expected);

// The keyword options of lint() and check(), read the way the command line reads its options,
// into the library's settings; None leaves an option at its default.
lint::LintOptions ToLintOptions(const py::object& select, const py::object& ignore,
                                const py::object& export_dims, const py::object& dynamic,
                                const py::object& static_dims);

}  // namespace shapelint::python

#endif  // SHAPELINT_LIB_PYTHON_OPTIONS_H_
