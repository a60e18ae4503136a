// `onnx-shapelint shapes` and `onnx-shapelint probe`: the engine's view of a model, without
// linting it.
#ifndef SHAPELINT_TOOLS_SUBCOMMANDS_H_
#define SHAPELINT_TOOLS_SUBCOMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

namespace shapelint::cli {

// `shapes MODEL...`: the engine's facts for every value. `args` follow the subcommand's name.
int RunShapes(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// `probe --dims SIZES MODEL...`: each model evaluated statically at the given sizes.
int RunProbe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// `confirm MODEL [--dims SIZES]`: hands over to the Python package (onnx_shapelint.confirm),
// which lints MODEL and runs each error's counterexample on ONNX Runtime. Returns only when it
// cannot start it.
int RunConfirm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// `fix MODEL -o OUT [--diff] [--unsafe-fixes] [lint options]`: the model with the fix-its of
// its findings applied and proven (lint::Fix), and what could not be fixed.
int RunFix(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace shapelint::cli

#endif  // SHAPELINT_TOOLS_SUBCOMMANDS_H_
