// Fuzz target: model bytes -> load (binary or ONNX text) -> lint with fix-its -> every report
// format, the baseline, and the subcommands' reports (shapes; a probe at the sizes where the
// model works). The seeds in regressions/model (tests/fuzz/make_seeds.py writes the seed_*
// ones) hold node, graph and value metadata (torch's stack trace and module classes,
// torch.export's records), model-local functions (called twice, recursive, fanning out) and
// Loops nested in Loops: parts the corpus models hold rarely, for mutations to start from.
// Whatever the bytes, loading fails with a status or the lint runs to the end: never a crash,
// a hang or a leak.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "shapelint/report/baseline.h"
#include "shapelint/report/probe.h"
#include "shapelint/report/report.h"
#include "shapelint/report/shapes.h"
#include "shapelint/sym/expr.h"

namespace {

namespace sl = shapelint;

// What `shapes` and `probe` write for the model.
void WriteSubcommandReports(const sl::ir::Model& model, const std::string& path,
                            std::ostream& out) {
  {
    sl::sym::InternScope scope;
    const sl::infer::Inference inference = sl::infer::Infer(model);
    sl::report::WriteShapesJson({{path, &model, &inference, nullptr}}, out);
  }
  // A probe that gives no size: every input dim at its witness.
  auto probes = sl::lint::Probe(model, {{"witness", sl::lint::ProbeSpec{}}});
  sl::report::ProbeReport probe{.path = path};
  if (probes.ok()) {
    probe.probes = *std::move(probes);
  } else {
    probe.error = std::string(probes.status().message());
  }
  sl::report::WriteProbeJson({probe}, out);
  sl::report::WriteProbeText({probe}, out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  sl::report::ModelResult result;
  result.path = "fuzz.onnx";
  std::ostringstream out;
  auto model = sl::ir::LoadModelFromBytes(bytes, result.path);
  if (!model.ok()) {
    result.error = std::string(model.status().message());
  } else {
    // With the fix-its, so that the rules' repairs (the fix builder) meet the same bytes.
    sl::lint::LintOptions options;
    options.fix_its = true;
    auto findings = sl::lint::Lint(**model, options);
    if (findings.ok()) result.findings = *std::move(findings);
    WriteSubcommandReports(**model, result.path, out);
  }
  const std::vector<sl::report::ModelResult> results = {result};
  sl::report::WriteJson(results, out);
  sl::report::WriteSarif(results, out);
  sl::report::WriteText(results, {}, out);
  sl::report::WriteGithub(results, out);
  sl::report::WriteStatisticsJson(results, out);
  out << sl::report::Baseline::Of(results, "baseline.json").ToJson();
  return 0;
}
