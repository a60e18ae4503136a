// Runs that settled a finding, recorded in the model: onnx_shapelint.torch.export() runs each
// warning's sizes on ONNX Runtime and on the eager module, and where the two disagree the
// warning is an error (docs/python.md). It writes those runs into the model's metadata entry
// `onnx_shapelint.runs` (JSON), so that every later lint of the file (the command line, fix,
// CI) gives the same severity from the same policy (docs/severity.md, evidence `run`) instead of
// the hypothesis the graph alone supports.
#ifndef SHAPELINT_LIB_LINT_RUN_RECORDS_H_
#define SHAPELINT_LIB_LINT_RUN_RECORDS_H_

#include <string>
#include <string_view>
#include <vector>

#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"

namespace shapelint::lint {

inline constexpr std::string_view kRunsKey = "onnx_shapelint.runs";

// One run: the finding it settled (rule, node name, attribute as the finding names them), the
// sizes and input shapes it ran at, and what the two sides did.
struct RunRecord {
  std::string rule, node, attribute;
  std::vector<std::pair<std::string, int64_t>> binding;
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputs;
  std::string detail;       // "ONNX Runtime returns (2, 3, 64, 64), PyTorch (2, 3, 66, 66)"
  bool node_fails = false;  // ONNX Runtime failed, rather than returned other values
  // The runs refuted the finding's hypothesis rather than confirmed it: both sides agree where
  // a baked literal would differ, or PyTorch refuses the sizes the limit refuses ("verdict":
  // "agree"; "disagree" or none for a run that made the finding an error).
  bool agree = false;
  std::string versions;  // "torch 2.15.0, onnxruntime 1.31.1"
};

// The records of `model`'s metadata; entries that do not read as records are left out (a
// record is evidence only as written), and a value that is not JSON gives none.
std::vector<RunRecord> ReadRunRecords(const ir::Model& model);

// Each finding a record names becomes evidence `run`, with the record's run as its
// counterexample and a note that says where it comes from; a fix that was unsafe only because
// the finding was a hypothesis becomes safe. A record whose runs agree makes a hypothesis
// evidence `design` (a note: the module's own), and leaves any other evidence as it is. Returns
// how many findings a record settled.
int ApplyRunRecords(const std::vector<RunRecord>& records, std::vector<Finding>& findings);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_RUN_RECORDS_H_
