// Reading the Python arguments of onnx_shapelint._core (lib/python/options.h).
#include "python/options.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "shapelint/lint/config.h"
#include "shapelint/lint/probe.h"

namespace shapelint::python {

py::str Utf8(std::string_view s) {
  PyObject* str = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (str == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(str);
}

[[noreturn]] void Raise(PyObject* type, std::string_view message) {
  PyErr_SetObject(type, Utf8(message).ptr());
  throw py::error_already_set();
}

[[noreturn]] void RaiseStatus(const absl::Status& status) {
  const std::string message(status.message());
  Raise(status.code() == absl::StatusCode::kInvalidArgument ? PyExc_ValueError : PyExc_RuntimeError,
        message);
}

std::vector<py::object> Elements(const py::handle& value, std::string_view option,
                                 std::string_view expected) {
  std::vector<py::object> elements;
  if (py::isinstance<py::str>(value)) {
    elements.push_back(py::reinterpret_borrow<py::object>(value));
  } else if (py::isinstance<py::iterable>(value)) {
    for (py::handle element : value) {
      elements.push_back(py::reinterpret_borrow<py::object>(element));
    }
  } else {
    throw py::type_error(absl::StrCat(std::string(option), " must be ", std::string(expected)));
  }
  return elements;
}

namespace {

// A str of comma-separated items, as on the command line, or an iterable of them.
std::vector<std::string> Items(const py::handle& value, std::string_view option) {
  constexpr std::string_view kExpected = "a str or a list of str";
  std::vector<std::string> items;
  for (const py::object& element : Elements(value, option, kExpected)) {
    if (!py::isinstance<py::str>(element)) {
      throw py::type_error(absl::StrCat(std::string(option), " must be ", std::string(kExpected)));
    }
    for (absl::string_view item : absl::StrSplit(element.cast<std::string>(), ',')) {
      item = absl::StripAsciiWhitespace(item);
      if (!item.empty()) items.emplace_back(item);
    }
  }
  return items;
}

// Rule codes, names or code prefixes, as --select and --ignore take them.
std::vector<std::string> RuleCodes(const py::handle& value, std::string_view option) {
  std::vector<std::string> codes;
  for (const std::string& item : Items(value, option)) {
    std::vector<std::string> found = lint::RulesMatching(item);
    if (found.empty()) {
      Raise(PyExc_ValueError, absl::StrCat("unknown rule '", item, "' in ", std::string(option),
                                           " (see onnx_shapelint.rules())"));
    }
    for (std::string& code : found) {
      if (std::find(codes.begin(), codes.end(), code) == codes.end()) {
        codes.push_back(std::move(code));
      }
    }
  }
  return codes;
}

// A Python int as int64_t; ValueError past its range rather than pybind11's RuntimeError.
int64_t ToInt64(const py::handle& value, std::string_view what) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow != 0) Raise(PyExc_ValueError, absl::StrCat(std::string(what), " out of range"));
  return static_cast<int64_t>(v);
}

lint::DynamicAxis DynamicAxisFromTuple(const py::handle& item) {
  const py::tuple t = py::reinterpret_borrow<py::tuple>(item);
  const bool named = t.size() == 3;
  if ((t.size() != 2 && !named) || !py::isinstance<py::str>(t[0]) ||
      !py::isinstance<py::int_>(t[1]) || (named && !py::isinstance<py::str>(t[2]))) {
    throw py::type_error("dynamic: a tuple must be (input, axis) or (input, axis, name)");
  }
  lint::DynamicAxis axis;
  axis.input = t[0].cast<std::string>();
  axis.axis = ToInt64(t[1], "dynamic: axis");
  if (named) axis.name = t[2].cast<std::string>();
  return axis;
}
}  // namespace

lint::LintOptions ToLintOptions(const py::object& select, const py::object& ignore,
                                const py::object& export_dims, const py::object& dynamic,
                                const py::object& static_dims) {
  lint::Settings settings;
  if (!select.is_none()) settings.select = RuleCodes(select, "select");
  if (!ignore.is_none()) settings.ignore = RuleCodes(ignore, "ignore");
  if (!export_dims.is_none()) {
    const std::string text = absl::StrJoin(Items(export_dims, "export_dims"), ",");
    absl::StatusOr<lint::ProbeSpec> spec = lint::ParseSizes(text, lint::kExportSizes);
    if (!spec.ok()) {
      Raise(PyExc_ValueError,
            absl::StrCat(spec.status().message(), " in export_dims '", text, "'"));
    }
    settings.export_dims = *std::move(spec);
  }
  if (!dynamic.is_none()) {
    // Tuples are taken as they are; strings are split on commas like --dynamic.
    for (const py::object& element :
         Elements(dynamic, "dynamic", "a list of 'input:axis[=name]' or (input, axis[, name])")) {
      if (py::isinstance<py::tuple>(element)) {
        settings.dynamic.push_back(DynamicAxisFromTuple(element));
        continue;
      }
      for (const std::string& text : Items(element, "dynamic")) {
        absl::StatusOr<lint::DynamicAxis> axis = lint::ParseDynamicAxis(text);
        if (!axis.ok()) {
          Raise(PyExc_ValueError, absl::StrCat(axis.status().message(), " in dynamic"));
        }
        settings.dynamic.push_back(*std::move(axis));
      }
    }
  }
  if (!static_dims.is_none()) {
    if (!py::hasattr(static_dims, "items")) {
      throw py::type_error("static must be a dict of dim name -> size");
    }
    for (py::handle entry : static_dims.attr("items")()) {
      if (!py::isinstance<py::tuple>(entry) || py::len(entry) != 2) {
        throw py::type_error("static must be a dict of dim name -> size");
      }
      const py::tuple kv = py::reinterpret_borrow<py::tuple>(entry);
      if (!py::isinstance<py::str>(kv[0]) || !py::isinstance<py::int_>(kv[1])) {
        throw py::type_error("static must be a dict of dim name (str) -> size (int)");
      }
      const std::string name = kv[0].cast<std::string>();
      const int64_t size = ToInt64(kv[1], "static: size");
      if (absl::Status valid = lint::CheckNamedSize(name, size); !valid.ok()) {
        Raise(PyExc_ValueError, absl::StrCat(valid.message(), " in static"));
      }
      settings.static_dims.emplace_back(name, size);
    }
  }
  return settings.ToLintOptions();
}

}  // namespace shapelint::python
