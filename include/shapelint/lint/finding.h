// A finding: what a rule reports, with the evidence that makes it checkable.
#ifndef SHAPELINT_LINT_FINDING_H_
#define SHAPELINT_LINT_FINDING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shapelint/lint/fix_it.h"

namespace shapelint::lint {

enum class Severity { kNote = 0, kWarning = 1, kError = 2 };
std::string_view SeverityName(Severity s);  // "note", "warning", "error"
std::optional<Severity> ParseSeverity(std::string_view name);

// What a finding rests on. Rules state the evidence they found; the severity policy
// (docs/severity.md, lint/severity.h) alone turns it into a severity, the same way for every
// rule, the command line, export() and fix.
enum class Evidence {
  // error: a requirement or declared output that holds at the export size (or where the graph
  // runs) and fails at a nearby size the inputs declare valid; the counterexample shows it.
  kContradiction = 0,
  // error: torch.export specialized a symbol the input declares dynamic and that size reaches
  // the graph through a literal that is not a trained parameter; the counterexample shows it.
  kExporterRecord = 1,
  // warning: a literal equal to a size derived from the export sizes with no exporter record
  // and no failure shown, or an error's evidence without a counterexample.
  kHypothesis = 2,
  // warning: a declared graph output holds a number where the graph computes the dim from the
  // inputs with no literal on the way: the declaration is what was baked.
  kBakedDeclaration = 3,
  // warning: only an intermediate value_info contradicts the graph; value_info is the writing
  // tool's inference, a hint, not the model's interface.
  kHint = 4,
  // warning: a declared graph output that is false at the export size itself (or everywhere):
  // a wrong declaration, not an example size baked into the graph.
  kWrongDeclaration = 5,
  // note: an intermediate value_info false at the export size itself: a wrong annotation.
  kWrongAnnotation = 6,
  // note: the model's design: a dim fixed by a trained parameter, an input contract, a table
  // or buffer sliced by a size.
  kDesign = 7,
  // note: only an intermediate value_info contradicts the graph, and no export size is known
  // to tell whether it held there (a hint nothing corroborates).
  kUnverifiedHint = 8,
  // error: a run settled it: ONNX Runtime and eager PyTorch disagreed at other sizes, as
  // onnx_shapelint.torch.export() recorded in the model's metadata (lint/run_records.h); the
  // counterexample is that run.
  kRun = 9,
  // error: not a bake: the exporter recorded the node's source op (Python's //), and the graph
  // computes another value than that op at sizes the inputs declare valid (a truncating Div),
  // the export size among them unless it happens to agree there; the counterexample shows it.
  kSourceMismatch = 10,
  // error: not a bake: a node fails at every size, the export size included (operands that
  // can never agree, an operand of a rank the op does not take): ONNX Runtime cannot run the
  // model, or refuses to load it; the counterexample shows it at the witness.
  kBroken = 11,
};
std::string_view EvidenceName(Evidence e);  // "contradiction", "exporter-record", ...

// A node of the model, as findings point at it.
struct NodeRef {
  std::string name;  // may be empty: ONNX node names are optional
  std::string op_type;
  int index = -1;     // position in its graph's node list
  std::string graph;  // "main", or the path of a subgraph
  std::string label;  // name, or "<OpType #index>" when unnamed
};

// Sizes at which a symbol keeps the model working, with the other symbols at their witness.
struct SymbolRange {
  std::string symbol;
  int64_t value = 0;           // the witness value
  std::optional<int64_t> min;  // nullopt: unbounded
  std::optional<int64_t> max;
  // The sizes [min, max] work again every this many sizes ([min + every, max + every], ...):
  // a congruence, as where a view rounds a size up to a multiple. nullopt: no repetition.
  std::optional<int64_t> every;
  // Where the windows repeat below [min, max] too: the smallest size that works, from which on the
  // sizes that work are exactly those congruent to [min, max] modulo `every` (a multiple of 4, an
  // odd length), with the others at the witness. Sizes below it fail (a range the exporter
  // recorded). nullopt when `every` is unset or sizes below the window differ otherwise.
  std::optional<int64_t> congruent_from;
  // Sizes outside [min, max] that work as well with the others at the witness, the first few
  // the search found (a broadcast at 1, a second size a table fits): "works only for" a window
  // must not leave them out. Empty when none was found or `every` says how the window repeats.
  std::vector<int64_t> also;
  // True when the search stopped at its limit of `also` with more sizes left to find.
  bool more = false;

  // The sizes [min, max] (nullopt: unbounded) with `value` the witness's, repeating nowhere.
  static SymbolRange Between(std::string symbol, int64_t value, std::optional<int64_t> min,
                             std::optional<int64_t> max) {
    SymbolRange r;
    r.symbol = std::move(symbol);
    r.value = value;
    r.min = min;
    r.max = max;
    return r;
  }
};

// How `range` repeats, to follow its text: " (and again every 64: [121, 128], ...)"; "" when it
// does not (SymbolRange::every).
std::string RepeatText(const SymbolRange& range);

// The sizes outside the window that work too, to follow its text: " or 8", " or 1, 8, 12 or
// more"; "" when none (SymbolRange::also).
std::string AlsoText(const SymbolRange& range);

// The sizes at which the model works: a binding under which every pin holds.
struct Witness {
  std::vector<SymbolRange> ranges;     // only the symbols the finding involves
  std::vector<std::string> relations;  // pins over several symbols, e.g. "s0*s1 == 6"
  std::string summary;                 // e.g. "works only for s2 in [6, 8] and s3 in [6, 7]"
};

struct ShapeAt {
  std::string value;
  std::vector<int64_t> actual;
  std::optional<std::vector<int64_t>> expected;  // the declared shape, when fully declared
};

// A binding near the witness at which the model breaks, and how.
struct Counterexample {
  std::vector<std::pair<std::string, int64_t>> binding;  // symbol -> size, sorted by symbol
  // Concrete shapes of the graph inputs that have a dynamic dim.
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputs;
  NodeRef failing_node;  // where it breaks (the node that fails, or the output's producer)
  std::string failure;   // "Gemm inner dimension: 32768 vs 25088" or an output mismatch
  // True when a node cannot run there; false when the graph runs but a declared shape differs.
  bool node_fails = false;
  // True when the failure is only an intermediate value_info's declaration: the inference of
  // whatever tool wrote it, not the model's interface. Every node runs there; ONNX Runtime may
  // still fail on it, having planned its buffers by the declared shape.
  bool hint_only = false;
  // True when what fails is a relation among the inputs' sizes alone, with no constant and no
  // factor (keys as long as the values, the same batch, past + new == total): the inputs'
  // contract, which no literal of the graph states. A module may run inputs that break it
  // without meaning anything (PyTorch's attention on CPU takes keys longer than the values).
  bool input_contract = false;
  std::vector<ShapeAt> outputs;  // graph outputs at this binding (actual vs declared)
};

struct Note {
  std::string message;
  std::optional<NodeRef> node;
};

// A symbolic fact behind a finding: "requires" with "floor((height - 3) / 3) + 1 == 2", or
// "input 'x'" with "float[batch, 3, height, width]".
struct Expression {
  std::string label;
  std::string text;
};

// The PyTorch code a node came from, where the exporter recorded it (torch.onnx's dynamo
// exporter writes a stack trace on every node): the innermost frame outside torch itself.
struct SourceLocation {
  std::string file;  // as recorded, e.g. "model.py" or "site-packages/timm/layers/pool.py"
  int64_t line = 0;
  std::string function;  // "forward"
  std::string code;      // the line's text, e.g. "return F.adaptive_avg_pool2d(x, (2, 3))"
  std::string module;    // the module path, e.g. "encoder.layer.0.attention"; may be empty
};

struct Finding {
  std::string rule;                        // stable code, e.g. "SL001"
  std::string name;                        // kebab-case rule name
  Severity severity = Severity::kWarning;  // from `evidence`, by the severity policy
  Evidence evidence = Evidence::kHypothesis;
  std::string message;
  NodeRef node;
  std::string attribute;  // attribute or input at fault, e.g. "kernel_shape" or "input 1"
  std::vector<std::string> symbols;
  // Where each size the finding names comes from, for names an exporter made up ("s53" ->
  // "x axis 2"): the first graph input axis declared as exactly that symbol.
  std::vector<std::pair<std::string, std::string>> symbol_axes;
  std::optional<Witness> witness;
  std::optional<Counterexample> counterexample;
  std::vector<Note> notes;  // blame chain and context, in order
  std::string fix;          // how to fix it, one sentence
  // The graph edit that repairs it (onnx-shapelint fix), when the rule has one for this case;
  // else, for a rule that repairs its findings, why this one cannot be (`unfixable`).
  std::optional<FixIt> fix_it;
  std::string unfixable;
  // Where the size entered in the PyTorch code: the source of the node the finding blames, when
  // the model records it.
  std::optional<SourceLocation> source;
  // The requirements and the node's shapes as symbolic expressions, for readers who want to
  // check the reasoning (text reports show them with --verbose).
  std::vector<Expression> expressions;
};

}  // namespace shapelint::lint

#endif  // SHAPELINT_LINT_FINDING_H_
