// The shape engine against ONNX's own backend test data. Each model there comes with inputs and
// the outputs of a reference run, so the shapes of those outputs are ground truth the engine can
// be held to, over a thousand models and every op ONNX tests. Two sets: ONNX 1.12's, from Debian's
// libonnx-testdata (opsets up to 17), and ONNX 1.23.2's node cases (opsets up to 28), written by
// tools/models/onnx_node_cases.py into tests/infer/onnx_node_1_23 (large tensors there keep their
// dims and no payload: only the dims of data tensors are read).
//
// Every model is inferred from its graph inputs only, in each of four modes (see Mode):
//  - concrete: the graph inputs get the dims of the test inputs; every output dim must fold to the
//    reference dim;
//  - symbolic: every graph-input dim becomes a fresh symbol; every output dim must be an
//    expression that, evaluated at the test input dims, gives the reference dim. This is what
//    proves the symbolic arithmetic rather than constant folding;
//  - concrete+values, symbolic+values: the same, with the inputs that act as parameters (shapes,
//    axes, scales) turned into constants holding the test's values.
// The declared output shapes and value_info are removed first: the engine adopts declarations
// where it knows nothing, which would make an unmodelled op look exact.
//
// A wrong dim fails the test. An unknown dim does not (an op the engine does not model yet stays
// unknown by design), but the exact fraction may not fall below a floor. Requirements the engine
// records that are false at the test's dims (where the reference ran fine) are listed.
//
// SHAPELINT_TESTDATA_REPORT=<file> writes a per-op Markdown table of each set, with the opset bands
// (docs/engine-coverage.md); SHAPELINT_TESTDATA_FILTER=<substring> checks only the models whose
// label ("node/test_abs", "1.23/node/test_abs") contains it.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "infer/op_context.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"

namespace shapelint::infer {
namespace {

namespace fs = std::filesystem;
using ONNX_NAMESPACE::GraphProto;
using ONNX_NAMESPACE::ModelProto;
using ONNX_NAMESPACE::TensorProto;
using ONNX_NAMESPACE::ValueInfoProto;

// Where CMake found the data (find_path in tests/CMakeLists.txt); empty when it did not.
constexpr const char* kTestdataDir = SHAPELINT_ONNX_TESTDATA_DIR;
// The suites with model.onnx and test_data_set_0; data/real only points at downloads.
constexpr const char* kSuites[] = {"node", "pytorch-converted", "pytorch-operator", "simple"};

// Two questions, crossed. Dims: does the engine fold constants (concrete), and does its symbolic
// arithmetic give the same numbers (symbolic: one fresh symbol per graph-input dim)? Values: node
// tests feed shape arguments (Reshape's shape, Slice's starts, Resize's scales, ...) as graph
// inputs, whose values a static analysis cannot know, so without values those ops' functions are
// never exercised; the +values modes turn such inputs (see IsParameter) into initializers holding
// the test's values, as an exporter writes them.
enum Mode { kConcrete, kSymbolic, kConcreteValues, kSymbolicValues };
constexpr int kNumModes = 4;
constexpr Mode kModes[kNumModes] = {kConcrete, kSymbolic, kConcreteValues, kSymbolicValues};
constexpr const char* kModeNames[kNumModes] = {"concrete", "symbolic", "concrete+values",
                                               "symbolic+values"};
bool IsSymbolic(Mode mode) { return mode == kSymbolic || mode == kSymbolicValues; }
bool WithValues(Mode mode) { return mode == kConcreteValues || mode == kSymbolicValues; }

// Floors on the fraction of outputs whose shape the engine gets exactly, per mode and data set:
// the value measured when last set, rounded down to the percent, so that coverage cannot silently
// regress. Raise them as ops are added; the target is 0.97. Round the fraction down, not a
// percentage printed rounded (0.8498 prints as 85.0% but floors to 0.84).
constexpr double kMinExactFraction[kNumModes] = {0.87, 0.87, 0.97, 0.97};
constexpr double kMinExactFraction123[kNumModes] = {0.85, 0.85, 0.97, 0.97};

// Opset bands of the default domain the report splits a set by: what ONNX 1.12 knew, the opsets up
// to 23 (ONNX 1.18), and the newer ones.
constexpr int kNumBands = 3;
constexpr const char* kBandNames[kNumBands] = {"opset <= 17", "opset 18-23", "opset 24-28"};
int BandOf(int64_t opset) { return opset <= 17 ? 0 : opset <= 23 ? 1 : 2; }

enum class Verdict { kExact, kUnknown, kWrong };

struct Tally {
  int exact = 0;
  int unknown = 0;
  int wrong = 0;

  void Add(Verdict v) {
    if (v == Verdict::kExact) ++exact;
    if (v == Verdict::kUnknown) ++unknown;
    if (v == Verdict::kWrong) ++wrong;
  }
  int total() const { return exact + unknown + wrong; }
  double ExactFraction() const { return total() == 0 ? 1.0 : double(exact) / total(); }
};

std::string Percent(int part, int whole) {
  return absl::StrFormat("%.2f%%", whole == 0 ? 100.0 : 100.0 * part / whole);
}

std::optional<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return bytes;
}

// input_0.pb, input_1.pb, ... (or output_*) of the first data set, in order.
std::vector<fs::path> DataFiles(const fs::path& set_dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int i = 0;; ++i) {
    fs::path p = set_dir / absl::StrCat(prefix, "_", i, ".pb");
    if (!fs::exists(p)) break;
    files.push_back(p);
  }
  return files;
}

bool IsTensor(const ValueInfoProto& vi) { return vi.type().has_tensor_type(); }

std::vector<int64_t> DimsOf(const TensorProto& t) { return {t.dims().begin(), t.dims().end()}; }

std::string DimsString(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

// The value of an inferred dim: folded to a constant (concrete mode) or evaluated at the test
// input dims (symbolic mode).
std::optional<int64_t> DimValue(const sym::MaybeExpr& dim, Mode mode, const sym::Binding& binding) {
  if (!dim) return std::nullopt;
  return IsSymbolic(mode) ? dim->Evaluate(binding) : dim->AsConstant();
}

// "[in0_0 = 2, floor(in0_1 / 2) = 3, ?]": the expressions, and what they evaluate to.
std::string FactString(const TensorFact* fact, Mode mode, const sym::Binding& binding) {
  if (fact == nullptr || !fact->shape) return "unknown rank";
  std::vector<std::string> dims;
  for (const sym::MaybeExpr& d : *fact->shape) {
    if (!d) {
      dims.push_back("?");
      continue;
    }
    std::string text = d->ToString();
    std::optional<int64_t> v = DimValue(d, mode, binding);
    if (!v) {
      absl::StrAppend(&text, " = ?");
    } else if (text != std::to_string(*v)) {
      absl::StrAppend(&text, " = ", *v);
    }
    dims.push_back(std::move(text));
  }
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

Verdict Classify(const TensorFact* fact, const std::vector<int64_t>& expected, Mode mode,
                 const sym::Binding& binding) {
  if (fact == nullptr || !fact->shape) return Verdict::kUnknown;
  if (fact->shape->size() != expected.size()) return Verdict::kWrong;
  bool unknown = false;
  for (size_t axis = 0; axis < expected.size(); ++axis) {
    std::optional<int64_t> v = DimValue((*fact->shape)[axis], mode, binding);
    if (!v) {
      unknown = true;
    } else if (*v != expected[axis]) {
      return Verdict::kWrong;  // a known wrong dim outweighs unknown ones elsewhere
    }
  }
  return unknown ? Verdict::kUnknown : Verdict::kExact;
}

// Whether the engine knows every dim of `value` well enough to check it in `mode`.
bool Complete(const Inference& inference, std::string_view value, Mode mode,
              const sym::Binding& binding) {
  const TensorFact* f = inference.Find(value);
  if (f == nullptr || !f->shape) return false;
  for (const sym::MaybeExpr& d : *f->shape) {
    if (!DimValue(d, mode, binding)) return false;
  }
  return true;
}

// The nodes where the engine loses what it needs for `value`: each produces an incomplete value
// from complete inputs. These, not every node downstream, are what modelling would fix.
std::set<int> LostAt(const ir::Graph& graph, const Inference& inference, const std::string& value,
                     Mode mode, const sym::Binding& binding) {
  std::set<int> roots;
  absl::flat_hash_set<int> seen;
  std::vector<std::string_view> pending = {value};
  while (!pending.empty()) {
    std::string_view v = pending.back();
    pending.pop_back();
    if (Complete(inference, v, mode, binding)) continue;
    int p = graph.Producer(v);
    if (p < 0 || !seen.insert(p).second) continue;
    bool inputs_complete = true;
    for (std::string_view in : graph.node(p).input()) {
      if (in.empty() || Complete(inference, in, mode, binding)) continue;
      inputs_complete = false;
      pending.push_back(in);
    }
    if (inputs_complete) roots.insert(p);
  }
  return roots;
}

// For a NodeProto and an ir::Node alike.
template <typename NodeLike>
std::string OpName(const NodeLike& node) {
  const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  return default_domain ? node.op_type() : absl::StrCat(node.domain(), ".", node.op_type());
}

// Concrete mode writes the test input's dims, the others one fresh symbol per dim. A dim of 0
// stays a number: the engine's symbols stand for sizes of at least 1.
void SetInputShape(ValueInfoProto& input, size_t index, const std::vector<int64_t>& dims, Mode mode,
                   sym::Binding& binding) {
  auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  for (size_t axis = 0; axis < dims.size(); ++axis) {
    auto* d = shape->add_dim();
    if (IsSymbolic(mode) && dims[axis] != 0) {
      std::string name = absl::StrCat("in", index, "_", axis);
      d->set_dim_param(name);
      binding.Set(name, dims[axis]);
    } else {
      d->set_dim_value(dims[axis]);
    }
  }
}

// Inputs the +values modes turn into constants: what ops read values from. Small integer (and
// bool) tensors of any rank (shapes, axes, indices, conditions) and small floating-point scalars
// and vectors (Resize scales, OneHot depth, Range bounds); larger or higher-rank floating-point
// tensors are data and keep symbolic dims.
bool IsParameter(const TensorProto& t) {
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || d > kMaxTrackedElements) return false;
    count *= d;  // no overflow: the running count stays <= kMaxTrackedElements, or 0
    if (count > kMaxTrackedElements) return false;
  }
  if (IsIntegerType(t.data_type())) return true;  // the engine's own notion of integer
  switch (t.data_type()) {
    case TensorProto::FLOAT:
    case TensorProto::DOUBLE:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      return t.dims_size() <= 1;
    default:
      return false;
  }
}

void ClearShape(ValueInfoProto& vi) {
  if (vi.type().has_tensor_type()) vi.mutable_type()->mutable_tensor_type()->clear_shape();
}

// What the engine is given: no declared shapes past the main graph's inputs (element types stay),
// in subgraphs too, where the engine also adopts declarations (a body's inputs get their shapes
// from the node that runs it).
void StripDeclarations(GraphProto& graph, bool is_main) {
  graph.clear_value_info();
  for (ValueInfoProto& out : *graph.mutable_output()) ClearShape(out);
  if (!is_main) {
    for (ValueInfoProto& in : *graph.mutable_input()) ClearShape(in);
  }
  for (auto& node : *graph.mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) StripDeclarations(*attr.mutable_g(), false);
      for (GraphProto& body : *attr.mutable_graphs()) StripDeclarations(body, false);
    }
  }
}

struct OutputResult {
  std::string name;
  std::vector<int64_t> expected;
  Verdict verdict[kNumModes];
  std::string inferred[kNumModes];
  std::set<std::string> lost_at[kNumModes];  // op types where the engine lost this output
};

struct ModelResult {
  enum class Status { kChecked, kLoadError, kNonTensor, kBadData } status = Status::kChecked;
  std::string detail;  // why it was not checked
  std::string op;      // the single node's op type, or "model"
  int64_t opset = 0;   // of the default domain
  std::vector<OutputResult> outputs;
  std::set<std::string> unmodelled;  // op types the engine noted it does not model
  // Requirements that fail at the test's input dims, per mode: the reference ran the model at
  // those dims, so each is a false claim that the model is broken.
  std::vector<std::string> false_requirements[kNumModes];
};

ModelResult CheckModel(const fs::path& dir, const std::string& label) {
  ModelResult result;
  using Status = ModelResult::Status;
  ModelProto original;
  std::optional<std::string> bytes = ReadFile(dir / "model.onnx");
  if (!bytes || !original.ParseFromString(*bytes)) {
    result.status = Status::kLoadError;
    result.detail = "cannot read or parse model.onnx";
    return result;
  }
  const GraphProto& graph = original.graph();
  result.op = graph.node_size() == 1 ? OpName(graph.node(0)) : "model";
  for (const auto& import : original.opset_import()) {
    if (import.domain().empty() || import.domain() == "ai.onnx") result.opset = import.version();
  }

  // Sequence and optional values are stored as SequenceProto / OptionalProto, which parse as
  // TensorProto without complaint: only the declared types tell them apart.
  absl::flat_hash_set<std::string_view> initializers;
  for (const TensorProto& t : graph.initializer()) initializers.insert(t.name());
  std::vector<int> inputs;  // indices into graph.input() of the inputs the test feeds
  absl::flat_hash_map<std::string_view, size_t> input_by_name;
  for (int i = 0; i < graph.input_size(); ++i) {
    if (initializers.contains(graph.input(i).name())) continue;
    input_by_name[graph.input(i).name()] = inputs.size();
    inputs.push_back(i);
  }
  for (int i : inputs) {
    if (!IsTensor(graph.input(i))) {
      result.status = Status::kNonTensor;
      result.detail = absl::StrCat("input '", graph.input(i).name(), "' is not a tensor");
      return result;
    }
  }
  for (const ValueInfoProto& out : graph.output()) {
    if (!IsTensor(out)) {
      result.status = Status::kNonTensor;
      result.detail = absl::StrCat("output '", out.name(), "' is not a tensor");
      return result;
    }
  }

  auto read_tensors = [&](const std::string& prefix) -> std::optional<std::vector<TensorProto>> {
    std::vector<TensorProto> tensors;
    for (const fs::path& p : DataFiles(dir / "test_data_set_0", prefix)) {
      std::optional<std::string> data = ReadFile(p);
      if (!data || !tensors.emplace_back().ParseFromString(*data)) {
        result.status = Status::kBadData;
        result.detail = absl::StrCat("cannot parse ", p.filename().string());
        return std::nullopt;
      }
    }
    return tensors;
  };
  auto input_data = read_tensors("input");
  if (!input_data) return result;
  auto output_data = read_tensors("output");
  if (!output_data) return result;

  // Which graph input each input_N.pb feeds: the one it names, else the N-th fed input.
  std::vector<const TensorProto*> input_tensor(inputs.size(), nullptr);
  for (size_t n = 0; n < input_data->size(); ++n) {
    const TensorProto& t = (*input_data)[n];
    auto it = input_by_name.find(t.name());
    size_t index = !t.name().empty() && it != input_by_name.end() ? it->second : n;
    if (index >= inputs.size()) {
      result.status = Status::kBadData;
      result.detail = absl::StrCat("input_", n, ".pb matches no graph input");
      return result;
    }
    input_tensor[index] = &t;
  }

  // Which graph output each output_K.pb holds, by the same rule.
  absl::flat_hash_map<std::string_view, int> output_by_name;
  for (int k = 0; k < graph.output_size(); ++k) output_by_name[graph.output(k).name()] = k;
  for (size_t k = 0; k < output_data->size(); ++k) {
    const TensorProto& t = (*output_data)[k];
    auto it = output_by_name.find(t.name());
    int index = !t.name().empty() && it != output_by_name.end() ? it->second : static_cast<int>(k);
    if (index >= graph.output_size()) {
      result.status = Status::kBadData;
      result.detail = absl::StrCat("output_", k, ".pb matches no graph output");
      return result;
    }
    OutputResult& out = result.outputs.emplace_back();
    out.name = graph.output(index).name();
    out.expected = DimsOf(t);
  }

  for (Mode mode : kModes) {
    ModelProto proto = original;
    GraphProto& g = *proto.mutable_graph();
    sym::Binding binding;
    std::vector<int> to_constant;  // indices into g.input(), ascending
    for (size_t i = 0; i < inputs.size(); ++i) {
      const TensorProto* t = input_tensor[i];
      if (t == nullptr) continue;  // not fed by the test: keeps its declared shape
      if (WithValues(mode) && IsParameter(*t)) {
        TensorProto& init = *g.add_initializer();
        init = *t;
        init.set_name(graph.input(inputs[i]).name());
        to_constant.push_back(inputs[i]);
        continue;
      }
      SetInputShape(*g.mutable_input(inputs[i]), i, DimsOf(*t), mode, binding);
    }
    // An initializer that is still a graph input is only a default; the value is fixed once the
    // input is gone.
    for (auto it = to_constant.rbegin(); it != to_constant.rend(); ++it) {
      g.mutable_input()->DeleteSubrange(*it, 1);
    }
    StripDeclarations(g, /*is_main=*/true);
    auto model = ir::Model::FromProto(std::move(proto), label);
    if (!model.ok()) {
      result.status = Status::kLoadError;
      result.detail = std::string(model.status().message());
      result.outputs.clear();
      return result;
    }
    const Inference inference = Infer(**model);
    for (const EngineNote& note : inference.notes) {
      if (note.graph != nullptr && note.node >= 0) {
        result.unmodelled.insert(OpName(note.graph->node(note.node)));
      }
    }
    const ir::Graph& ir_graph = (*model)->graph();
    for (const Requirement& req : inference.requirements) {
      std::optional<int64_t> lhs = DimValue(req.lhs, mode, binding);
      std::optional<int64_t> rhs = DimValue(req.rhs, mode, binding);
      if (!lhs || !rhs || Holds(req.relation, *lhs, *rhs)) continue;
      std::string where = req.graph != nullptr && req.node >= 0
                              ? absl::StrCat(req.graph->NodeLabel(req.node), " (",
                                             OpName(req.graph->node(req.node)), ")")
                              : "graph";
      result.false_requirements[mode].push_back(
          absl::StrCat(label, " ", where, ": ", req.what, ": ", req.lhs.ToString(), " = ", *lhs,
                       " vs ", req.rhs.ToString(), " = ", *rhs));
    }
    for (OutputResult& out : result.outputs) {
      const TensorFact* fact = inference.Find(out.name);
      out.verdict[mode] = Classify(fact, out.expected, mode, binding);
      out.inferred[mode] = FactString(fact, mode, binding);
      if (out.verdict[mode] != Verdict::kUnknown) continue;
      for (int node : LostAt(ir_graph, inference, out.name, mode, binding)) {
        out.lost_at[mode].insert(OpName(ir_graph.node(node)));
      }
    }
  }
  return result;
}

// Per op type (of single-node models), or "model" for the multi-node ones.
struct OpRow {
  int models = 0;
  int outputs = 0;
  Tally tally[kNumModes];
};

// Where the engine lost outputs, by the op type of the node it lost them at.
struct LossRow {
  int outputs[kNumModes] = {};
  std::set<std::string> models;
  bool unmodelled = false;
};

std::string MarkdownReport(const std::string& title, const std::string& summary,
                           const std::map<std::string, OpRow>& ops,
                           const std::map<std::string, LossRow>& losses,
                           const std::vector<std::string>& not_checked,
                           const std::vector<std::string>& wrong,
                           const std::vector<std::string>& false_requirements,
                           const std::vector<std::string>& unknown) {
  std::ostringstream md;
  md << "## " << title << "\n\n"
     << summary << "\n\n### Per op\n\n"
     << "Single-node models are listed under their op type; multi-node models (function "
        "expansions, PyTorch exports) under `model`. The exact columns count outputs whose every "
        "dim is right, out of the outputs checked; `unknown` counts outputs with an unknown dim, "
        "per mode in the same order.\n\n"
     << "| op | models |";
  for (Mode mode : kModes) md << " exact " << kModeNames[mode] << " |";
  md << " unknown |\n|---|---:|";
  for (int i = 0; i <= kNumModes; ++i) md << "---:|";
  md << "\n";
  auto write_row = [&](const std::string& op, const OpRow& r) {
    md << "| " << op << " | " << r.models;
    for (Mode mode : kModes) md << " | " << r.tally[mode].exact << "/" << r.outputs;
    std::vector<int> unknown;
    for (Mode mode : kModes) unknown.push_back(r.tally[mode].unknown);
    md << " | " << absl::StrJoin(unknown, " / ") << " |\n";
  };
  for (const auto& [op, row] : ops) {
    if (op != "model") write_row(op, row);
  }
  if (auto it = ops.find("model"); it != ops.end()) write_row("model", it->second);

  std::vector<std::pair<std::string, LossRow>> sorted(losses.begin(), losses.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    const int* x = a.second.outputs;
    const int* y = b.second.outputs;
    return std::tuple(x[kSymbolicValues], x[kConcreteValues], x[kSymbolic], x[kConcrete]) >
           std::tuple(y[kSymbolicValues], y[kConcreteValues], y[kSymbolic], y[kConcrete]);
  });
  md << "\n### Where outputs are lost\n\n"
     << "For each unknown output, the nodes where the engine lost it: nodes that produce a value "
        "it cannot fully state from inputs it can. `modelled: no` means the engine has no "
        "function for the op; a modelled op shows up when it needs something it was not given "
        "(input values, a symbolic case it does not handle). Sorted by symbolic+values, the mode "
        "closest to an exported model with dynamic dims.\n\n"
     << "| op | modelled |";
  for (Mode mode : kModes) md << " lost " << kModeNames[mode] << " |";
  md << " models |\n|---|---|";
  for (int i = 0; i <= kNumModes; ++i) md << "---:|";
  md << "\n";
  for (const auto& [op, row] : sorted) {
    md << "| " << op << " | " << (row.unmodelled ? "no" : "yes");
    for (Mode mode : kModes) md << " | " << row.outputs[mode];
    md << " | " << row.models.size() << " |\n";
  }
  md << "\n### Unknown outputs\n\n"
     << "Per output: the modes it is unknown in, what the engine inferred in the last of them, "
        "and where it was lost.\n\n";
  if (unknown.empty()) md << "None.\n";
  for (const std::string& s : unknown) md << "- " << s << "\n";
  md << "\n### Not checked\n\n";
  if (not_checked.empty()) md << "None.\n";
  for (const std::string& s : not_checked) md << "- " << s << "\n";
  md << "\n### Wrong dims\n\n";
  if (wrong.empty()) md << "None.\n";
  for (const std::string& s : wrong) md << "- " << s << "\n";
  md << "\n### Requirements that fail where the reference ran\n\n";
  if (false_requirements.empty()) md << "None.\n";
  for (const std::string& s : false_requirements) md << "- " << s << "\n";
  return md.str();
}

// One set of test data: where it is, how its models are found, what it must reach.
struct DataSet {
  std::string title;
  fs::path root;
  std::string where;                // root as the report names it (no machine path in the docs)
  std::vector<std::string> suites;  // directories under root holding one directory per model
  std::string label_prefix;         // labels are <prefix><suite>/<model>
  size_t min_models;                // a smaller set means the data is damaged or incomplete
  const double* floors;
};

// Checks every model of `set` (those whose label contains `only`) and returns its report.
std::string RunSet(const DataSet& set, const std::string& only) {
  const fs::path& root = set.root;
  std::vector<std::string> labels;  // "node/test_abs", sorted
  absl::flat_hash_map<std::string, fs::path> dirs;
  for (const std::string& suite : set.suites) {
    if (!fs::is_directory(root / suite)) continue;
    for (const fs::directory_entry& e : fs::directory_iterator(root / suite)) {
      if (!fs::exists(e.path() / "model.onnx")) continue;
      std::string label = absl::StrCat(set.label_prefix, suite, "/", e.path().filename().string());
      if (label.find(only) == std::string::npos) continue;
      dirs[label] = e.path();
      labels.push_back(std::move(label));
    }
  }
  std::sort(labels.begin(), labels.end());
  if (only.empty()) {
    INFO(set.title << " has at least " << set.min_models << " models");
    REQUIRE(labels.size() >= set.min_models);
  }

  const auto start = std::chrono::steady_clock::now();
  Tally tally[kNumModes];
  Tally band_tally[kNumBands][kNumModes];
  int band_models[kNumBands] = {};
  int checked = 0;
  std::map<std::string, OpRow> ops;
  std::map<std::string, LossRow> losses;
  std::vector<std::string> load_errors, non_tensor, bad_data, wrong;
  std::vector<std::string> false_requirements[kNumModes];
  std::vector<std::string> unknown;  // one line per output unknown in some mode
  for (const std::string& label : labels) {
    INFO("model " << label);  // names the model if the engine crashes on it
    ModelResult r = CheckModel(dirs[label], label);
    switch (r.status) {
      case ModelResult::Status::kLoadError:
        load_errors.push_back(absl::StrCat(label, ": ", r.detail));
        continue;
      case ModelResult::Status::kNonTensor:
        non_tensor.push_back(absl::StrCat(label, ": ", r.detail));
        continue;
      case ModelResult::Status::kBadData:
        bad_data.push_back(absl::StrCat(label, ": ", r.detail));
        continue;
      case ModelResult::Status::kChecked:
        break;
    }
    ++checked;
    const int band = BandOf(r.opset);
    ++band_models[band];
    OpRow& row = ops[r.op];
    ++row.models;
    for (Mode mode : kModes) {
      for (const std::string& f : r.false_requirements[mode]) {
        false_requirements[mode].push_back(absl::StrCat(kModeNames[mode], ": ", f));
      }
    }
    for (const OutputResult& out : r.outputs) {
      ++row.outputs;
      std::vector<std::string> modes;
      std::set<std::string> lost_at;
      Mode last = kConcrete;
      for (Mode mode : kModes) {
        if (out.verdict[mode] != Verdict::kUnknown) continue;
        modes.push_back(kModeNames[mode]);
        lost_at.insert(out.lost_at[mode].begin(), out.lost_at[mode].end());
        last = mode;
      }
      if (!modes.empty()) {
        unknown.push_back(absl::StrCat(label, " output '", out.name, "' (",
                                       absl::StrJoin(modes, ", "), "): expected ",
                                       DimsString(out.expected), ", inferred ", out.inferred[last],
                                       "; lost at ", absl::StrJoin(lost_at, ", ")));
      }
      for (Mode mode : kModes) {
        tally[mode].Add(out.verdict[mode]);
        band_tally[band][mode].Add(out.verdict[mode]);
        row.tally[mode].Add(out.verdict[mode]);
        for (const std::string& op : out.lost_at[mode]) {
          LossRow& loss = losses[op];
          ++loss.outputs[mode];
          loss.models.insert(label);
          loss.unmodelled = loss.unmodelled || r.unmodelled.contains(op);
        }
        if (out.verdict[mode] != Verdict::kWrong) continue;
        std::string message = absl::StrCat(
            label, " (", r.op, ") output '", out.name, "', ", kModeNames[mode], ": expected ",
            DimsString(out.expected), ", inferred ", out.inferred[mode]);
        wrong.push_back(message);
        FAIL_CHECK("wrong shape: " << message);
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<std::string> not_checked;
  const std::vector<std::pair<const char*, const std::vector<std::string>*>> skipped = {
      {"load error", &load_errors},
      {"sequence or optional value", &non_tensor},
      {"unreadable test data", &bad_data}};
  for (const auto& [what, list] : skipped) {
    for (const std::string& s : *list) not_checked.push_back(absl::StrCat(what, ": ", s));
  }
  std::string summary = absl::StrCat(
      labels.size(), " models in ", set.where, ": ", checked, " checked, ", non_tensor.size(),
      " skipped for sequence/optional values, ", load_errors.size(), " load errors, ",
      bad_data.size(), " with unreadable data; ", tally[kConcrete].total(), " outputs.");
  for (Mode mode : kModes) {
    const Tally& t = tally[mode];
    absl::StrAppend(&summary, "\n", kModeNames[mode], ": ", t.exact, " exact (",
                    Percent(t.exact, t.total()), "), ", t.unknown, " unknown (",
                    Percent(t.unknown, t.total()), "), ", t.wrong, " wrong (",
                    Percent(t.wrong, t.total()), "); ", false_requirements[mode].size(),
                    " requirements false at the reference dims");
  }
  for (int band = 0; band < kNumBands; ++band) {
    if (band_models[band] == 0) continue;
    absl::StrAppend(&summary, "\n", kBandNames[band], ": ", band_models[band], " models, ",
                    band_tally[band][kConcrete].total(), " outputs; exact");
    for (Mode mode : kModes) {
      const Tally& t = band_tally[band][mode];
      absl::StrAppend(&summary, mode == kConcrete ? " " : ", ", kModeNames[mode], " ", t.exact,
                      " (", Percent(t.exact, t.total()), ")");
      if (t.wrong > 0) absl::StrAppend(&summary, " [", t.wrong, " wrong]");
    }
  }
  absl::StrAppend(&summary, "\ntime: ", absl::StrFormat("%.2f", seconds), " s");
  if (!not_checked.empty()) {
    WARN(set.title << ": models not checked:\n  " << absl::StrJoin(not_checked, "\n  "));
  }
  for (Mode mode : kModes) {
    if (false_requirements[mode].empty()) continue;
    WARN(set.title << ": requirements the engine records that fail at the dims the reference "
                      "ran at:\n  "
                   << absl::StrJoin(false_requirements[mode], "\n  "));
  }
  WARN(set.title << ": " << summary);

  std::vector<std::string> all_false;
  for (Mode mode : kModes) {
    all_false.insert(all_false.end(), false_requirements[mode].begin(),
                     false_requirements[mode].end());
  }
  if (only.empty()) {
    for (Mode mode : kModes) {
      INFO(set.title << ", " << kModeNames[mode]
                     << " mode: the exact fraction fell below its floor; if an op was dropped on "
                        "purpose, lower the floor and say why");
      CHECK(tally[mode].ExactFraction() >= set.floors[mode]);
    }
  }
  return MarkdownReport(set.title, summary, ops, losses, not_checked, wrong, all_false, unknown);
}

TEST_CASE("shape engine agrees with ONNX backend testdata (1.12 and 1.23.2)", "[testdata]") {
  const fs::path root = kTestdataDir;
  if (root.empty() || !fs::is_directory(root / "node")) {
    FAIL("ONNX backend test data not found"
         << (root.empty() ? std::string() : " at " + root.string())
         << ". Install the Debian package libonnx-testdata (sudo apt-get install "
            "libonnx-testdata; tools/dev installs it), then re-run cmake, or point "
            "-DSHAPELINT_ONNX_TESTDATA_DIR at the directory that holds node/.");
  }
  const char* filter = std::getenv("SHAPELINT_TESTDATA_FILTER");
  const std::string only = filter != nullptr ? filter : "";
  // Debian 12's libonnx-testdata has 1,072 models in these suites; onnx 1.23.2 has 1,884 node
  // cases.
  const DataSet sets[] = {
      {"ONNX 1.12 (Debian libonnx-testdata)",
       root,
       root.string(),
       {std::begin(kSuites), std::end(kSuites)},
       "",
       1000,
       kMinExactFraction},
      {"ONNX 1.23.2 node cases (tests/infer/onnx_node_1_23)",
       fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "infer" / "onnx_node_1_23",
       "tests/infer/onnx_node_1_23",
       {""},
       "1.23/node",
       1884,
       kMinExactFraction123},
  };
  std::string report =
      "<!-- Written by the [testdata] test (tests/infer/onnx_testdata_test.cc) with "
      "SHAPELINT_TESTDATA_REPORT set. -->\n\n";
  for (const DataSet& set : sets) absl::StrAppend(&report, RunSet(set, only), "\n");
  if (const char* path = std::getenv("SHAPELINT_TESTDATA_REPORT")) {
    std::ofstream out(path);
    out << report;
    INFO("writing the report to " << path);
    CHECK(out.good());
  }
}

}  // namespace
}  // namespace shapelint::infer
