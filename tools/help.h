// onnx-shapelint --help: the usage, written from the option tables (tools/options.h).
#ifndef SHAPELINT_TOOLS_HELP_H_
#define SHAPELINT_TOOLS_HELP_H_

#include <string>

namespace shapelint::cli {

// The whole --help page: linting, `shapes` and `probe`, and the exit codes.
std::string HelpText();

}  // namespace shapelint::cli

#endif  // SHAPELINT_TOOLS_HELP_H_
