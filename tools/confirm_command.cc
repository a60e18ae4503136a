// `onnx-shapelint confirm`: counterexamples run on ONNX Runtime. The runs need Python (ONNX
// Runtime, numpy), so the command hands over to the Python package's entry point: the
// onnx-shapelint-confirm script that pip installs beside this binary, else the module
// onnx_shapelint.confirm of the first python3 on PATH.
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

}  // namespace

int RunConfirm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  out.flush();
  err.flush();
  const std::string script = OwnDirectory() + "/" + kConfirmScript;
  if (::access(script.c_str(), X_OK) == 0) {
    std::vector<std::string> argv = {script};
    argv.insert(argv.end(), args.begin(), args.end());
    Exec(argv, false);
  }
  std::vector<std::string> argv = {"python3", "-m", "onnx_shapelint.confirm"};
  argv.insert(argv.end(), args.begin(), args.end());
  Exec(argv, true);
  err << kProgram << ": error: confirm runs in Python and could not start it ("
      << std::strerror(errno)
      << "): install the package with pip (pip install onnx-shapelint onnxruntime)\n";
  return kExitError;
}

}  // namespace shapelint::cli
