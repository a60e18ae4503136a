// `onnx-shapelint confirm`: counterexamples run on ONNX Runtime. The runs need Python (ONNX
// Runtime, numpy), so the command hands over to the Python package's entry point: the
// onnx-shapelint-confirm script that pip installs beside this binary, else the package's
// confirm.main under the first python3 on PATH.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "tools/cli.h"
#include "tools/options.h"
#include "tools/subcommands.h"

namespace shapelint::cli {
namespace {

constexpr char kConfirmScript[] = "onnx-shapelint-confirm";

// The directory of the running binary, "" when /proc does not say.
std::string OwnDirectory() {
  std::string path(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size());
  if (n <= 0 || static_cast<size_t>(n) >= path.size()) return "";
  path.resize(static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// Replaces this process with `argv`; returns only when that fails.
void Exec(const std::vector<std::string>& argv, bool search_path) {
  std::vector<char*> pointers;
  pointers.reserve(argv.size() + 1);
  for (const std::string& a : argv) pointers.push_back(const_cast<char*>(a.c_str()));
  pointers.push_back(nullptr);
  if (search_path) {
    ::execvp(pointers[0], pointers.data());
  } else {
    ::execv(pointers[0], pointers.data());
  }
}

// Starts the package's confirm under python3; a missing package exits with 2 (an error, not
// findings), which `python3 -m onnx_shapelint.confirm` would report as 1.
constexpr char kBootstrap[] = R"(import sys
try:
    from onnx_shapelint import confirm
except ImportError as error:
    sys.stderr.write("onnx-shapelint: error: confirm runs in Python and could not import its "
                     "package (%s): install it with pip from a clone of the repository or a built wheel "
                     "(pip install PATH/TO/onnx-shapelint onnxruntime; docs/python.md)\n"
                     % error)
    sys.exit(2)
sys.exit(confirm.main(sys.argv[1:]))
)";

// The MODEL argument of confirm's command line (its options --dims, --select and --ignore
// take a value); "" when there is none, or help is asked for.
std::string ModelArgument(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") return "";
    if (a == "--dims" || a == "--select" || a == "--ignore") {
      ++i;
      continue;
    }
    if (!a.empty() && a[0] != '-') return a;
  }
  return "";
}

}  // namespace

int RunConfirm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // Before Python starts: a model that is not there is an error of this run (exit 2), which
  // the package would report only after its imports.
  if (const std::string model = ModelArgument(args);
      !model.empty() && model != "-" && ::access(model.c_str(), F_OK) != 0) {
    // As lint reports a model it cannot load: the path first.
    err << model << ": error: " << std::strerror(errno) << "\n";
    return kExitError;
  }
  out.flush();
  err.flush();
  const std::string script = OwnDirectory() + "/" + kConfirmScript;
  if (::access(script.c_str(), X_OK) == 0) {
    std::vector<std::string> argv = {script};
    argv.insert(argv.end(), args.begin(), args.end());
    Exec(argv, false);
  }
  std::vector<std::string> argv = {"python3", "-c", kBootstrap};
  argv.insert(argv.end(), args.begin(), args.end());
  Exec(argv, true);
  err << kProgram << ": error: confirm runs in Python and could not start it ("
      << std::strerror(errno)
      << "): install the package with pip from a clone of the repository or a built wheel "
         "(pip install PATH/TO/onnx-shapelint onnxruntime; docs/python.md)\n";
  return kExitError;
}

}  // namespace shapelint::cli
