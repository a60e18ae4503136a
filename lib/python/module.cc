// The extension onnx_shapelint._core (docs/python.md): lint(), check(), rules(), and what the
// package's Python code (onnx_shapelint.torch, confirm) needs of the library: the declared inputs,
// static probes and the text report. Findings reach Python through the JSON writer, so a
// finding is a dict with exactly the fields of a finding in the JSON report
// (docs/json-format.md): one schema for both.
#include <fcntl.h>
#include <pybind11/pybind11.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "python/options.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/config.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/finding_path.h"
#include "shapelint/lint/fix.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "shapelint/report/probe.h"
#include "shapelint/report/report.h"

namespace shapelint::python {
namespace {

namespace py = pybind11;

// The model as lint() was given it, reduced while the GIL is held to what the library reads:
// a path, or bytes.
struct Input {
  std::string source;               // names the model in messages and in the text report
  std::optional<std::string> path;  // a file to read; otherwise `bytes`
  py::bytes bytes;                  // kept referenced while the GIL is released
  std::string_view data;            // the contents of `bytes`
  ir::ModelFormat format = ir::ModelFormat::kAuto;
};

// The library reports every load failure as a bad model; Python code expects an OSError
// (FileNotFoundError, PermissionError, IsADirectoryError) for a path it cannot open, with the
// path in `filename`. So the path is opened once here first.
void CheckReadable(const std::string& path, const py::handle& given) {
  int error = 0;
  // O_NONBLOCK: a FIFO opens without waiting for a writer here, with the GIL held; the library
  // waits for it when it reads, with the GIL released.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = errno;
  } else {
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) error = EISDIR;
    ::close(fd);
  }
  if (error == 0) return;
  errno = error;
  PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, given.ptr());
  throw py::error_already_set();
}

// The contents of a bytes object, valid while it is referenced.
std::string_view ViewOf(const py::bytes& bytes) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_AsStringAndSize(bytes.ptr(), &data, &size) != 0) throw py::error_already_set();
  return std::string_view(data, static_cast<size_t>(size));
}

Input ToInput(const py::handle& model) {
  Input input;
  if (py::isinstance<py::str>(model) || py::hasattr(model, "__fspath__")) {
    // os.fsencode gives the bytes the OS uses for the name, also for names that are not UTF-8.
    py::bytes encoded = py::module_::import("os").attr("fsencode")(model);
    std::string path = encoded;
    if (path.find('\0') != std::string::npos) {
      Raise(PyExc_ValueError, "model: embedded null byte in the path");
    }
    // The library reads standard input for "-"; here it can only be a file of that name.
    if (path == "-") path = "./-";
    CheckReadable(path, model);
    input.source = path;
    input.path = std::move(path);
    return input;
  }
  if (py::hasattr(model, "SerializeToString")) {
    // An onnx.ModelProto, or anything that serializes to one; onnx itself is not needed here.
    py::object serialized = model.attr("SerializeToString")();
    if (!py::isinstance<py::bytes>(serialized)) {
      throw py::type_error("model.SerializeToString() did not return bytes");
    }
    input.source = absl::StrCat(
        "<", py::str(py::type::handle_of(model).attr("__name__")).cast<std::string>(), ">");
    input.bytes = py::reinterpret_borrow<py::bytes>(serialized);
    input.data = ViewOf(input.bytes);
    input.format = ir::ModelFormat::kBinary;
    return input;
  }
  if (PyObject_CheckBuffer(model.ptr())) {
    // bytes as they are; a bytearray or memoryview is copied, as it could change while the GIL
    // is released.
    PyObject* bytes = PyBytes_FromObject(model.ptr());
    if (bytes == nullptr) throw py::error_already_set();
    input.source = "<bytes>";
    input.bytes = py::reinterpret_steal<py::bytes>(bytes);
    input.data = ViewOf(input.bytes);
    return input;
  }
  throw py::type_error(
      absl::StrCat("model must be a path (str or os.PathLike), bytes, or an onnx.ModelProto, not ",
                   py::str(py::type::handle_of(model).attr("__name__")).cast<std::string>()));
}

// Loads the model; called with the GIL released, so it touches no Python object.
absl::StatusOr<std::unique_ptr<ir::Model>> Load(const Input& input) {
  return input.path ? ir::LoadModel(*input.path, input.format)
                    : ir::LoadModelFromBytes(input.data, input.source, input.format);
}

// A status of the library about `input`'s model, with the source in front ("model.onnx: export
// dims: the model has no input dim named 'width'").
absl::Status AboutModel(const Input& input, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(input.source, ": ", status.message()));
}

// Loads `input`'s model with the GIL released and runs `work` on it there: `work` touches no
// Python object, so other threads run meanwhile. Raises the load's failure, or the one `work`
// returns, said of the model.
template <typename Work>
void WithModel(const Input& input, Work&& work) {
  absl::Status status;
  {
    py::gil_scoped_release release;
    absl::StatusOr<std::unique_ptr<ir::Model>> loaded = Load(input);
    status = loaded.ok() ? work(**loaded) : loaded.status();
    if (!status.ok() && loaded.ok()) status = AboutModel(input, status);
  }
  if (!status.ok()) RaiseStatus(status);
}

// A JSON document of the library as Python objects.
py::object FromJson(const std::string& json) {
  return py::module_::import("json").attr("loads")(Utf8(json));
}

struct Linted {
  report::ModelResult result;  // the source and its findings, as the writers take them
  py::list findings;           // the same as dicts of the JSON report
};

// `paths`: also each finding's path through the graph, for the HTML page (computed only then).
Linted LintModel(const py::handle& model, const lint::LintOptions& options, bool paths = false) {
  Input input = ToInput(model);
  Linted linted;
  linted.result.path = input.source;
  std::string json;
  WithModel(input, [&](const ir::Model& loaded) {
    absl::StatusOr<std::vector<lint::Finding>> findings = lint::Lint(loaded, options);
    // Options that do not fit the model ("export dims: the model has no input dim named
    // 'width'") say which model.
    if (!findings.ok()) return findings.status();
    linted.result.findings = *std::move(findings);
    if (paths) {
      absl::StatusOr<std::vector<lint::FindingPath>> found =
          lint::PathsOf(loaded, options, linted.result.findings);
      // Without them the page shows everything but the drawings.
      if (found.ok()) linted.result.paths = *std::move(found);
    }
    std::ostringstream out;
    report::WriteJson({linted.result}, out);
    json = std::move(out).str();
    return absl::OkStatus();
  });
  linted.findings = FromJson(json)["models"][py::int_(0)]["findings"];
  return linted;
}

// The text report of the command line, without colour: one block per finding and the summary
// line, without the final newline.
std::string TextReport(const report::ModelResult& result) {
  std::ostringstream text;
  report::WriteText({result}, report::TextOptions{}, text);
  std::string message = std::move(text).str();
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return message;
}

py::list Lint(const py::object& model, const py::object& select, const py::object& ignore,
              const py::object& export_dims, const py::object& dynamic,
              const py::object& static_dims) {
  return LintModel(model, ToLintOptions(select, ignore, export_dims, dynamic, static_dims))
      .findings;
}

py::list Check(const py::object& model, const std::string& fail_on, const py::object& select,
               const py::object& ignore, const py::object& export_dims, const py::object& dynamic,
               const py::object& static_dims) {
  std::optional<lint::Severity> threshold = lint::ParseSeverity(fail_on);
  if (!threshold) {
    Raise(PyExc_ValueError,
          absl::StrCat("invalid fail_on '", fail_on, "' (expected error, warning or note)"));
  }
  Linted linted =
      LintModel(model, ToLintOptions(select, ignore, export_dims, dynamic, static_dims));
  const bool fails = std::any_of(
      linted.result.findings.begin(), linted.result.findings.end(), [&](const lint::Finding& f) {
        return static_cast<int>(f.severity) >= static_cast<int>(*threshold);
      });
  if (!fails) return linted.findings;

  py::object error =
      py::module_::import("onnx_shapelint").attr("LintError")(Utf8(TextReport(linted.result)));
  error.attr("findings") = linted.findings;
  // py::type::of, not handle::get_type(), which pybind11 3.1 deprecates (2.6 has both).
  PyErr_SetObject(py::type::of(error).ptr(), error.ptr());
  throw py::error_already_set();
}

// lint() with each finding's block of the text report, as the command line prints it without
// colour: (findings, blocks), for the package's report objects, which add lines to the blocks.
py::tuple LintWithText(const py::object& model, const py::object& select, const py::object& ignore,
                       const py::object& export_dims, const py::object& dynamic,
                       const py::object& static_dims) {
  Linted linted =
      LintModel(model, ToLintOptions(select, ignore, export_dims, dynamic, static_dims));
  py::list blocks;
  report::TextOptions options;
  options.summary = false;
  for (const lint::Finding& finding : linted.result.findings) {
    std::ostringstream text;
    report::WriteText({report::ModelResult{linted.result.path, std::nullopt, {finding}, {}}},
                      options, text);
    blocks.append(Utf8(std::move(text).str()));
  }
  return py::make_tuple(linted.findings, blocks);
}

// The HTML page of the model's findings (docs/html.md), as --format html writes it, or the same
// report as an element to put in another page (fragment).
py::str LintHtml(const py::object& model, const py::object& select, const py::object& ignore,
                 const py::object& export_dims, const py::object& dynamic,
                 const py::object& static_dims, bool fragment) {
  Linted linted =
      LintModel(model, ToLintOptions(select, ignore, export_dims, dynamic, static_dims), true);
  std::ostringstream page;
  if (fragment) {
    report::WriteHtmlFragment({linted.result}, page);
  } else {
    report::WriteHtml({linted.result}, page);
  }
  return Utf8(std::move(page).str());
}

py::object OptionalInt(const std::optional<int64_t>& value) {
  return value ? py::object(py::int_(*value)) : py::object(py::none());
}

// The graph inputs to feed, as dicts: name, elem_type (ONNX's DataType number), dims (an int
// for a static dim, the symbol's str for a named one, None otherwise; None for all of them when
// the rank is unknown), and ranges: symbol -> [min, max] as torch.export recorded them (None
// where unbounded).
// A finding as fix reports it: rule, node and the fix's description or why it was left.
py::dict FixEntry(const lint::Finding& f, const std::string& text) {
  py::dict d;
  d["rule"] = f.rule;
  d["severity"] = std::string(lint::SeverityName(f.severity));
  d["node"] = Utf8(f.node.label);
  d["op_type"] = f.node.op_type;
  d["text"] = Utf8(text);
  return d;
}

// lint::Fix of the model: its bytes are read here (a path) or taken as given.
py::dict FixModel(const py::object& model, const py::object& select, const py::object& ignore,
                  const py::object& export_dims, const py::object& dynamic,
                  const py::object& static_dims, bool unsafe_fixes) {
  Input input = ToInput(model);
  lint::FixOptions options{ToLintOptions(select, ignore, export_dims, dynamic, static_dims),
                           unsafe_fixes};
  absl::StatusOr<lint::FixResult> result = absl::UnknownError("not run");
  {
    py::gil_scoped_release release;
    result = input.path ? lint::FixFile(*input.path, options)
                        : lint::Fix(input.data, input.source, options);
  }
  if (!result.ok()) RaiseStatus(result.status());
  py::dict d;
  d["model"] = py::bytes(result->model);
  d["changed"] = result->changed;
  py::list fixed, unfixed, diff, notes;
  for (const lint::Finding& f : result->fixed) fixed.append(FixEntry(f, f.fix_it->description));
  for (const lint::UnfixedFinding& u : result->unfixed)
    unfixed.append(FixEntry(u.finding, u.reason));
  for (const std::string& line : result->diff) diff.append(Utf8(line));
  for (const std::string& note : result->notes) notes.append(Utf8(note));
  d["fixed"] = fixed;
  d["unfixed"] = unfixed;
  d["diff"] = diff;
  d["notes"] = notes;
  return d;
}

// The serialized model `model` with its metadata entry `key` set to `value` (one of that key
// replaced); nothing else changes, byte for byte.
py::bytes WithModelMetadata(const py::bytes& model, const std::string& key,
                            const std::string& value) {
  const std::string bytes = model;
  absl::StatusOr<std::string> out = ir::SetModelMetadata(bytes, key, value);
  if (!out.ok()) RaiseStatus(out.status());
  return py::bytes(*out);
}

py::bytes MoveExternalDataOf(const py::bytes& model, const std::string& from,
                             const std::string& to) {
  const std::string bytes = model;
  absl::StatusOr<std::string> moved = lint::MoveExternalData(bytes, from, to);
  if (!moved.ok()) RaiseStatus(moved.status());
  return py::bytes(*moved);
}

py::list Inputs(const py::object& model) {
  Input input = ToInput(model);
  std::vector<lint::InputInfo> described;
  WithModel(input, [&](const ir::Model& loaded) {
    described = lint::DescribeInputs(loaded);
    return absl::OkStatus();
  });
  py::list inputs;
  for (const lint::InputInfo& info : described) {
    py::dict entry, ranges;
    entry["name"] = Utf8(info.name);
    entry["elem_type"] = info.elem_type;
    py::object dims = py::none();
    if (info.has_shape) {
      py::list list;
      for (const lint::InputDim& dim : info.dims) {
        if (dim.size) {
          list.append(py::int_(*dim.size));
        } else if (!dim.symbol.empty()) {
          list.append(Utf8(dim.symbol));
          if (dim.has_range) {
            ranges[Utf8(dim.symbol)] =
                py::make_tuple(OptionalInt(dim.range_min), OptionalInt(dim.range_max));
          }
        } else {
          list.append(py::none());
        }
      }
      dims = std::move(list);
    }
    entry["dims"] = dims;
    entry["ranges"] = ranges;
    inputs.append(std::move(entry));
  }
  return inputs;
}

// Static probes, as `probe --format json` writes them: one dict per probe (spec, breaks,
// defaulted, inputs, outputs, failing node...).
py::list ProbeModel(const py::object& model, const py::object& probes) {
  Input input = ToInput(model);
  std::vector<std::pair<std::string, lint::ProbeSpec>> specs;
  for (const py::object& element : Elements(probes, "probes", "a list of str")) {
    if (!py::isinstance<py::str>(element)) throw py::type_error("probes must be a list of str");
    std::string text = element.cast<std::string>();
    absl::StatusOr<lint::ProbeSpec> spec = lint::ParseProbeSpec(text);
    if (!spec.ok()) {
      Raise(PyExc_ValueError, absl::StrCat(spec.status().message(), " in probe '", text, "'"));
    }
    specs.emplace_back(std::move(text), *std::move(spec));
  }
  std::string json;
  WithModel(input, [&](const ir::Model& loaded) {
    absl::StatusOr<std::vector<lint::ProbeResult>> results = lint::Probe(loaded, specs);
    if (!results.ok()) return results.status();
    std::ostringstream out;
    report::WriteProbeJson({report::ProbeReport{input.source, *std::move(results), {}}}, out);
    json = std::move(out).str();
    return absl::OkStatus();
  });
  return FromJson(json)["models"][py::int_(0)]["probes"];
}

py::list SizeStepsOf(const py::object& model, const std::string& at, int64_t max_step,
                     int max_count) {
  Input input = ToInput(model);
  absl::StatusOr<lint::ProbeSpec> spec = lint::ParseProbeSpec(at);
  if (!spec.ok() || spec->range_symbol) {
    Raise(PyExc_ValueError,
          absl::StrCat(spec.ok() ? "a range is no binding" : spec.status().message(), " in '", at,
                       "'"));
  }
  if (max_step < 1 || max_step > lint::kMaxProbeRange || max_count < 1) {
    Raise(PyExc_ValueError, "max_step must be in [1, 65536] and max_count at least 1");
  }
  std::vector<lint::SizeSteps> steps;
  WithModel(input, [&](const ir::Model& loaded) {
    absl::StatusOr<std::vector<lint::SizeSteps>> found =
        lint::SizeStepsAt(loaded, *spec, max_step, max_count);
    if (!found.ok()) return found.status();
    steps = *std::move(found);
    return absl::OkStatus();
  });
  py::list out;
  for (const lint::SizeSteps& s : steps) {
    py::dict entry;
    entry["symbol"] = Utf8(s.symbol);
    entry["at"] = s.at;
    py::list up, down;
    for (int64_t k : s.up) up.append(k);
    for (int64_t k : s.down) down.append(k);
    entry["up"] = std::move(up);
    entry["down"] = std::move(down);
    out.append(std::move(entry));
  }
  return out;
}

py::list RuleList() {
  py::list rules;
  for (const lint::RuleInfo& rule : lint::AllRules()) {
    py::dict entry;
    entry["code"] = Utf8(rule.code);
    entry["name"] = Utf8(rule.name);
    entry["summary"] = Utf8(rule.summary);
    entry["level"] = Utf8(lint::SeverityName(rule.level));
    rules.append(std::move(entry));
  }
  return rules;
}

constexpr char kModuleDoc[] = R"(Static linter for sizes baked into ONNX models.

lint(model, **options) returns the findings; check(model, fail_on="error", **options) raises
LintError when one is at or above fail_on. See docs/python.md.)";

constexpr char kOptionsDoc[] = R"(
Options (keyword only, None: the default):
  select       rules to run: codes, names or code prefixes ("SL001", "baked-pool-kernel",
               "SL00"), a list or one comma-separated str; [] runs none
  ignore       rules not to run, the same way
  export_dims  the sizes the model was exported at, as --export-dims takes them:
               "x=2x3x224x224" or "batch=2,height=224"
  dynamic      axes to lint as dynamic: "input:axis" or "input:axis=name" strings, or
               (input, axis) and (input, axis, name) tuples
  static       dim names to fix to a size: {"batch": 1}

model is a path (str or os.PathLike), bytes (binary or ONNX text format), or an
onnx.ModelProto (any object with SerializeToString()).
Raises OSError for a path that cannot be opened, ValueError for a model that cannot be loaded
or options that do not fit it, TypeError for arguments of the wrong type.)";

}  // namespace

void DefineModule(py::module_& m) {
  m.doc() = kModuleDoc;
  m.attr("__version__") = std::string(lint::Version());

  PyObject* lint_error = PyErr_NewExceptionWithDoc(
      "onnx_shapelint.LintError",
      "Raised by check(): the message is the text report, .findings the findings as lint() "
      "returns them.",
      PyExc_Exception, nullptr);
  if (lint_error == nullptr) throw py::error_already_set();
  m.attr("LintError") = py::reinterpret_steal<py::object>(lint_error);

  // pybind11 copies docstrings; these only need to live through the m.def calls.
  const std::string lint_doc = absl::StrCat(
      "The findings for model: a list of dicts, each a finding of the JSON report "
      "(docs/json-format.md); [] when it is clean.\n",
      kOptionsDoc);
  const std::string check_doc = absl::StrCat(
      "Like lint(), but raises LintError when a finding is at or above fail_on (\"error\", "
      "\"warning\" or \"note\"); returns the findings otherwise.\n",
      kOptionsDoc);
  m.def("lint", &Lint, py::arg("model"), py::kw_only(), py::arg("select") = py::none(),
        py::arg("ignore") = py::none(), py::arg("export_dims") = py::none(),
        py::arg("dynamic") = py::none(), py::arg("static") = py::none(), lint_doc.c_str());
  m.def("check", &Check, py::arg("model"), py::arg("fail_on") = "error", py::kw_only(),
        py::arg("select") = py::none(), py::arg("ignore") = py::none(),
        py::arg("export_dims") = py::none(), py::arg("dynamic") = py::none(),
        py::arg("static") = py::none(), check_doc.c_str());
  m.def("lint_with_text", &LintWithText, py::arg("model"), py::kw_only(),
        py::arg("select") = py::none(), py::arg("ignore") = py::none(),
        py::arg("export_dims") = py::none(), py::arg("dynamic") = py::none(),
        py::arg("static") = py::none(),
        "lint() and each finding's block of the command line's text report: (findings, "
        "blocks).");
  m.def("lint_html", &LintHtml, py::arg("model"), py::kw_only(), py::arg("select") = py::none(),
        py::arg("ignore") = py::none(), py::arg("export_dims") = py::none(),
        py::arg("dynamic") = py::none(), py::arg("static") = py::none(),
        py::arg("fragment") = false,
        "The HTML page of the findings (docs/html.md), as --format html writes it: one "
        "self-contained document; with fragment=True one <div class=\"onnx-shapelint\"> whose "
        "style applies only inside it, to show within another page (a notebook).");
  m.def("with_model_metadata", &WithModelMetadata, py::arg("model"), py::arg("key"),
        py::arg("value"),
        "The serialized model `model` with its metadata entry `key` set to `value`.");
  m.def("move_external_data", &MoveExternalDataOf, py::arg("model"), py::arg("source"),
        py::arg("target"),
        "The serialized model `model`, read from the file `source`, with the locations of its "
        "external data rewritten for the file `target` (docs/fix.md); ValueError where `target` "
        "is not in `source`'s directory or above it.");
  m.def("fix", &FixModel, py::arg("model"), py::kw_only(), py::arg("select") = py::none(),
        py::arg("ignore") = py::none(), py::arg("export_dims") = py::none(),
        py::arg("dynamic") = py::none(), py::arg("static") = py::none(),
        py::arg("unsafe_fixes") = false,
        "The model with its fixable findings repaired and proven (docs/fix.md): a dict with "
        "'model' (bytes), 'changed', 'fixed' and 'unfixed' (rule, severity, node, op_type, "
        "text), 'diff' and 'notes'.");
  m.def("inputs", &Inputs, py::arg("model"),
        "The graph inputs to feed: dicts with name, elem_type, dims (int, symbol str or None) "
        "and ranges (symbol -> (min, max) recorded by torch.export).");
  m.def("probe", &ProbeModel, py::arg("model"), py::arg("probes"),
        "Evaluates the model statically at each probe (as `onnx-shapelint probe --dims`): a "
        "list of dicts as probe --format json writes them.");
  m.def("size_steps", &SizeStepsOf, py::arg("model"), py::arg("at"), py::arg("max_step") = 64,
        py::arg("max_count") = 3,
        "Where the graph's own sizes change as each input symbol moves from the sizes `at` "
        "(as one probe: 'x=2x3x224x224'): a list of dicts with symbol, at, and the steps up "
        "and down at which a size that smaller steps left alone changes (a floor of a stride).");
  m.def("rules", &RuleList,
        "The rules, in code order: dicts with code, name, summary and level (the most severe "
        "level the rule reports at).");
}

}  // namespace shapelint::python

PYBIND11_MODULE(_core, m) { shapelint::python::DefineModule(m); }
