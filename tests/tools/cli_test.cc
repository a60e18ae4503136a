#include "tools/cli.h"

#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "shapelint/lint/lint.h"
#include "tools/cli_test_util.h"

namespace shapelint::cli {
namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

const std::string kInputs = SHAPELINT_SOURCE_DIR "/tests/tools/inputs/";

// Points std::cin at `text` for the lifetime of the object.
class StdinFrom {
 public:
  explicit StdinFrom(const std::string& text) : buffer_(text), old_(std::cin.rdbuf(&buffer_)) {}
  ~StdinFrom() { std::cin.rdbuf(old_); }
  StdinFrom(const StdinFrom&) = delete;
  StdinFrom& operator=(const StdinFrom&) = delete;

 private:
  std::stringbuf buffer_;
  std::streambuf* old_;
};

constexpr char kSmallModel[] = R"(
<
  ir_version: 8,
  opset_import: ["" : 17]
>
small (float[N, 3] x) => (float[N, 3] y) {
  w = Constant <value = float[3] {1.0, 2.0, 3.0}> ()
  a = Mul(x, w)
  y = Relu(a)
}
)";

std::string SmallModelBytes() {
  ONNX_NAMESPACE::ModelProto proto;
  auto status = ONNX_NAMESPACE::OnnxParser::Parse(proto, kSmallModel);
  INFO(status.ErrorMessage());
  REQUIRE(status.IsOK());
  std::string bytes;
  REQUIRE(proto.SerializeToString(&bytes));
  return bytes;
}

// A load error: exit 2, nothing on stderr (it is part of the report), and a report line that
// starts with the file's path.
void CheckLoadError(const std::string& path, const Outcome& o) {
  INFO("stdout: " << o.out << "\nstderr: " << o.err);
  CHECK(o.code == kExitError);
  CHECK(o.err.empty());
  CHECK_THAT(o.out, StartsWith(path + ": error: "));
  CHECK_THAT(o.out, Contains("1 model could not be loaded"));
}

// ---- Input errors -------------------------------------------------------------------------------

TEST_CASE("cli: a missing file", "[cli]") {
  TempDir dir;
  std::string path = (dir.path() / "does-not-exist.onnx").string();
  Outcome o = RunCli({path});
  CheckLoadError(path, o);
  // The path is not repeated inside the message.
  CHECK_THAT(o.out, !Contains(path + ": error: " + path));
}

TEST_CASE("cli: an empty directory", "[cli]") {
  TempDir dir;
  std::string path = dir.path().string();
  CheckLoadError(path, RunCli({path}));
}

TEST_CASE("cli: an empty file", "[cli]") {
  TempDir dir;
  std::string path = dir.Write("empty.onnx", "");
  CheckLoadError(path, RunCli({path}));
}

TEST_CASE("cli: a file that is not a protobuf", "[cli]") {
  TempDir dir;
  // 'n' is 0x6e: field 13 with wire type 6, which does not exist, so no parser accepts it.
  const std::string text = "not a model, just some text that happens to end in .onnx\n";
  ONNX_NAMESPACE::ModelProto probe;
  REQUIRE_FALSE(probe.ParseFromString(text));
  std::string path = dir.Write("garbage.onnx", text);
  CheckLoadError(path, RunCli({path}));
}

TEST_CASE("cli: a truncated model", "[cli]") {
  TempDir dir;
  std::string bytes = SmallModelBytes();
  std::string half = bytes.substr(0, bytes.size() / 2);
  ONNX_NAMESPACE::ModelProto probe;
  REQUIRE_FALSE(probe.ParseFromString(half));  // the cut falls inside the graph
  std::string path = dir.Write("truncated.onnx", half);
  CheckLoadError(path, RunCli({path}));

  // The same bytes, whole, are a valid model: the failure above is the truncation.
  std::string whole = dir.Write("whole.onnx", bytes);
  Outcome o = RunCli({whole});
  INFO(o.out << o.err);
  CHECK(o.code != kExitError);
}

TEST_CASE("cli: a protobuf that is not a model", "[cli]") {
  TempDir dir;
  ONNX_NAMESPACE::ModelProto proto;
  proto.set_ir_version(8);
  proto.set_producer_name("not-a-model");
  proto.add_opset_import()->set_version(17);
  std::string bytes;
  REQUIRE(proto.SerializeToString(&bytes));
  std::string path = dir.Write("no_graph.onnx", bytes);
  CheckLoadError(path, RunCli({path}));
}

TEST_CASE("cli: a node input that nothing produces", "[cli]") {
  std::string path = kInputs + "dangling_input.onnxtxt";
  Outcome o = RunCli({path});
  CheckLoadError(path, o);
  CHECK_THAT(o.out, Contains("'missing'"));
}

TEST_CASE("cli: a cycle", "[cli]") {
  std::string path = kInputs + "cycle.onnxtxt";
  Outcome o = RunCli({path});
  CheckLoadError(path, o);
  CHECK_THAT(o.out, Contains("cycle"));
}

TEST_CASE("cli: the other models are still reported after a load error", "[cli]") {
  TempDir dir;
  std::string missing = (dir.path() / "missing.onnx").string();
  std::string clean = kInputs + "clean.onnxtxt";
  Outcome o = RunCli({"--format", "json", missing, clean});
  CHECK(o.code == kExitError);
  auto doc = nlohmann::json::parse(o.out);
  REQUIRE(doc["models"].size() == 2);
  CHECK(doc["models"][0]["path"] == missing);
  REQUIRE(doc["models"][0]["error"].is_string());
  // The path has its own field; the message does not start with it again.
  CHECK_THAT(doc["models"][0]["error"].get<std::string>(), !StartsWith(missing));
  CHECK(doc["models"][1]["path"] == clean);
  CHECK(doc["models"][1]["error"].is_null());
  CHECK(doc["summary"]["models"] == 2);
  CHECK(doc["summary"]["load_errors"] == 1);
}

// ---- Models that load ---------------------------------------------------------------------------

TEST_CASE("cli: a clean model exits 0", "[cli]") {
  Outcome o = RunCli({kInputs + "clean.onnxtxt"});
  INFO(o.out << o.err);
  CHECK(o.code == kExitClean);
  CHECK(o.out == "0 errors, 0 warnings in 1 model\n");
  CHECK(o.err.empty());
}

TEST_CASE("cli: findings at or above --fail-on exit 1", "[cli]") {
  const std::string model = kInputs + "baked_pool.onnxtxt";
  for (const char* fail_on : {"error", "warning", "note"}) {
    Outcome o = RunCli({"--fail-on", fail_on, model});
    INFO(fail_on << "\n" << o.out << o.err);
    CHECK(o.code == kExitFindings);
    CHECK_THAT(o.out,
               StartsWith(model + ": main/<AveragePool #0>: error[SL001] baked-pool-kernel: "));
    CHECK_THAT(o.out, Contains("\n  = counterexample: at "));
    CHECK_THAT(o.out, EndsWith("\n1 error, 0 warnings in 1 model\n"));
  }
}

TEST_CASE("cli: --select runs only the rules it names", "[cli]") {
  const std::string model = kInputs + "baked_pool.onnxtxt";
  CHECK(RunCli({"--select", "baked-pool-kernel", model}).code == kExitFindings);
  CHECK(RunCli({"--select", "sl001", model}).code == kExitFindings);
  Outcome o = RunCli({"--select", "SL002,SL004", model});
  CHECK(o.code == kExitClean);
  CHECK(o.out == "0 errors, 0 warnings in 1 model\n");
  // A rule that does not run leaves what it would claim to the next one: here SL003, which
  // reports the declared output the pool contradicts, axis by axis.
  Outcome handed_on = RunCli({"--select", "SL003", model});
  CHECK(handed_on.code == kExitFindings);
  CHECK_THAT(handed_on.out, Contains("error[SL003] declared-shape-mismatch: graph output 'y' "
                                     "declares axis 2 as 2"));
  CHECK_THAT(handed_on.out, EndsWith("\n2 errors, 0 warnings in 1 model\n"));
}

TEST_CASE("cli: --export-dims reports literals equal to sizes of the example", "[cli]") {
  const std::string model =
      SHAPELINT_SOURCE_DIR "/tests/rules/SL007/slice_half_width_no_export_dims.onnxtxt";
  CHECK(RunCli({"--fail-on", "warning", model}).code == kExitClean);
  Outcome o = RunCli({"--fail-on", "warning", "--export-dims", "x=2x4x8x10", model});
  INFO(o.out << o.err);
  CHECK(o.code == kExitFindings);
  CHECK_THAT(o.out, Contains("warning[SL007] example-size-literal: Slice ends 5 = W // 2"));
  // Named sizes add up over repeated options, like shapes in one.
  Outcome named =
      RunCli({"--fail-on=warning", "--export-dims=W=10", "--export-dims", "H=8", model});
  CHECK(named.code == kExitFindings);
  CHECK(named.out == o.out);
  // Sizes that do not fit the model are an error for that model, not a crash or a silence.
  Outcome unknown = RunCli({"--export-dims", "width=10", model});
  CHECK(unknown.code == kExitError);
  CHECK_THAT(unknown.out, Contains("export dims: the model has no input dim named 'width'"));
  Outcome rank = RunCli({"--export-dims", "x=2x4x8", model});
  CHECK(rank.code == kExitError);
  CHECK_THAT(rank.out, Contains("an input shape does not fit the model"));
}

TEST_CASE("cli: --export-dims takes a 1-D input's name for its length", "[cli]") {
  const std::string model = kInputs + "length_mask.onnxtxt";
  // lengths: [B] is a 1-D input and no dim is named lengths: lengths=2 is its shape [2].
  Outcome o = RunCli({"--export-dims", "lengths=2,x=2x5", model});
  INFO(o.out << o.err);
  CHECK(o.code == kExitClean);
  // It binds B: a shape of x with another batch contradicts it.
  Outcome clash = RunCli({"--export-dims", "x=2x5,lengths=3", model});
  CHECK(clash.code == kExitError);
  CHECK_THAT(clash.out, Contains("'lengths=3' gives B the size 3, another size than before"));
  // A dim name comes first: B=2 is the dim, and an unknown name is still an error.
  CHECK(RunCli({"--export-dims", "B=2,T=5", model}).code == kExitClean);
  Outcome unknown = RunCli({"--export-dims", "lens=2", model});
  CHECK(unknown.code == kExitError);
  CHECK_THAT(unknown.out, Contains("the model has no input dim named 'lens'"));
}

TEST_CASE("cli: a load error wins over findings, which are still reported", "[cli]") {
  TempDir dir;
  const std::string missing = (dir.path() / "missing.onnx").string();
  Outcome o = RunCli({"--format", "json", kInputs + "baked_pool.onnxtxt", missing});
  CHECK(o.code == kExitError);
  auto doc = nlohmann::json::parse(o.out);
  REQUIRE(doc["models"].size() == 2);
  REQUIRE(doc["models"][0]["findings"].size() == 1);
  const auto& finding = doc["models"][0]["findings"][0];
  CHECK(finding["rule"] == "SL001");
  CHECK(finding["severity"] == "error");
  CHECK(finding["counterexample"].is_object());
  CHECK(doc["models"][1]["error"].is_string());
  CHECK(doc["summary"]["errors"] == 1);
  CHECK(doc["summary"]["load_errors"] == 1);
}

TEST_CASE("cli: '-' reads the model from standard input", "[cli]") {
  {
    StdinFrom in(ReadFile(kInputs + "clean.onnxtxt"));
    Outcome o = RunCli({"--format=json", "-"});
    INFO(o.out << o.err);
    CHECK(o.code == kExitClean);
    auto doc = nlohmann::json::parse(o.out);
    CHECK(doc["models"][0]["path"] == "-");
    CHECK(doc["models"][0]["error"].is_null());
  }
  {
    StdinFrom in("");
    CheckLoadError("<stdin>", RunCli({"-"}));
  }
}

TEST_CASE("cli: '--' ends the options", "[cli]") {
  // Neither file exists in the working directory; both must be taken as models.
  Outcome o = RunCli({"--", "-odd.onnx", "--format"});
  CHECK(o.code == kExitError);
  CHECK(o.err.empty());  // not a usage error: two models that do not exist
  CHECK_THAT(o.out, Contains("-odd.onnx: error: "));
  CHECK_THAT(o.out, Contains("--format: error: "));
}

TEST_CASE("cli: --select accepts codes and names", "[cli]") {
  const auto& rules = lint::AllRules();
  REQUIRE(!rules.empty());
  std::string select = std::string(rules.front().code) + "," + std::string(rules.back().name);
  Outcome o = RunCli({"--select", select, "--select=" + std::string(rules.front().name),
                      kInputs + "clean.onnxtxt"});
  INFO(o.err);
  CHECK(o.code == kExitClean);
}

TEST_CASE("cli: --color", "[cli]") {
  TempDir dir;
  std::string missing = (dir.path() / "missing.onnx").string();
  auto colored = [&](std::vector<std::string> args, Environment env) {
    args.push_back(missing);
    return RunCli(args, env).out.find('\x1b') != std::string::npos;
  };
  Environment tty{.stdout_is_tty = true, .no_color = false};
  Environment pipe{.stdout_is_tty = false, .no_color = false};
  Environment tty_no_color{.stdout_is_tty = true, .no_color = true};
  CHECK(colored({}, tty));
  CHECK_FALSE(colored({}, pipe));
  CHECK_FALSE(colored({}, tty_no_color));
  CHECK(colored({"--color", "always"}, pipe));
  CHECK(colored({"--color=always"}, tty_no_color));  // an explicit request wins over NO_COLOR
  CHECK_FALSE(colored({"--color", "never"}, tty));
  CHECK_FALSE(colored({"--color=auto"}, pipe));
  // JSON is never coloured.
  CHECK_FALSE(colored({"--format", "json", "--color", "always"}, tty));
}

// ---- Informational options ----------------------------------------------------------------------

TEST_CASE("cli: --version", "[cli]") {
  Outcome o = RunCli({"--version"});
  CHECK(o.code == kExitClean);
  CHECK(o.out == "onnx-shapelint " + std::string(lint::Version()) + "\n");
  CHECK(std::regex_match(o.out, std::regex("onnx-shapelint [0-9]+\\.[0-9]+\\.[0-9]+\n")));
  CHECK(o.err.empty());
}

TEST_CASE("cli: --help explains every option and the exit codes", "[cli]") {
  for (const char* flag : {"--help", "-h"}) {
    Outcome o = RunCli({flag, "--no-such-option"});  // acts before later arguments are seen
    CHECK(o.code == kExitClean);
    CHECK_THAT(o.out, StartsWith("Usage: onnx-shapelint [OPTIONS] MODEL..."));
    for (const char* option : {"--format", "--fail-on", "--select", "--color", "--list-rules",
                               "--version", "--help", "--  "}) {
      CHECK_THAT(o.out, Contains(option));
    }
    CHECK_THAT(o.out, Contains("Exit status:"));
    CHECK_THAT(o.out, Contains("  0  "));
    CHECK_THAT(o.out, Contains("  1  "));
    CHECK_THAT(o.out, Contains("  2  "));
    CHECK(o.err.empty());
  }
}

TEST_CASE("cli: docs/cli.md documents every option of --help", "[cli]") {
  std::string help = RunCli({"--help"}).out;
  std::string doc = ReadFile(SHAPELINT_SOURCE_DIR "/docs/cli.md");
  const std::regex option_line("  (?:-h, )?(--[a-z-]*)( .*)?");
  std::istringstream lines(help);
  std::string line;
  int options = 0;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, option_line)) continue;
    INFO(m[1].str());
    CHECK_THAT(doc, Contains("`" + m[1].str()));
    ++options;
  }
  CHECK(options == 26);  // 22 for linting, 2 for shapes, 2 for fix (its -o is not counted)
}

TEST_CASE("cli: --list-rules", "[cli]") {
  Outcome o = RunCli({"--list-rules"});
  CHECK(o.code == kExitClean);
  std::istringstream lines(o.out);
  std::string line;
  size_t i = 0;
  const auto& rules = lint::AllRules();
  while (std::getline(lines, line)) {
    REQUIRE(i < rules.size());
    CHECK_THAT(line, StartsWith(std::string(rules[i].code) + "  "));
    CHECK_THAT(line, Contains(std::string(rules[i].name)));
    CHECK_THAT(line, Contains(std::string(rules[i].summary)));
    ++i;
  }
  CHECK(i == rules.size());
}

// ---- Usage errors -------------------------------------------------------------------------------

// A usage error: exit 2, nothing on stdout, a message naming the problem and a pointer to --help.
void CheckUsageError(const std::vector<std::string>& args, const std::string& problem) {
  Outcome o = RunCli(args);
  INFO("stdout: " << o.out << "\nstderr: " << o.err);
  CHECK(o.code == kExitError);
  CHECK(o.out.empty());
  CHECK_THAT(o.err, StartsWith("onnx-shapelint: error: "));
  CHECK_THAT(o.err, Contains(problem));
  CHECK_THAT(o.err, Contains("--help"));
}

TEST_CASE("cli: usage errors", "[cli]") {
  const std::string model = kInputs + "clean.onnxtxt";
  SECTION("unknown option") { CheckUsageError({"--bogus", model}, "unknown option '--bogus'"); }
  SECTION("unknown short option") { CheckUsageError({"-x", model}, "unknown option '-x'"); }
  SECTION("bad --format") { CheckUsageError({"--format", "xml", model}, "'xml' for --format"); }
  SECTION("bad --format=") { CheckUsageError({"--format=", model}, "'' for --format"); }
  SECTION("bad --fail-on") { CheckUsageError({"--fail-on=fatal", model}, "'fatal' for --fail-on"); }
  SECTION("bad --color") { CheckUsageError({"--color", "yes", model}, "'yes' for --color"); }
  SECTION("unknown rule") {
    CheckUsageError({"--select", "SL001,NOPE", model}, "unknown rule 'NOPE'");
  }
  SECTION("empty rule") { CheckUsageError({"--select", "SL001,", model}, "empty rule"); }
  SECTION("bad --export-dims") {
    CheckUsageError({"--export-dims", "x=2xA", model}, "in --export-dims 'x=2xA'");
  }
  SECTION("range in --export-dims") {
    CheckUsageError({"--export-dims", "n=1..4", model},
                    "invalid size 'n=1..4' (expected NAME=SIZE or INPUT=AxBxC: a size, not a "
                    "range) in --export-dims 'n=1..4'");
  }
  SECTION("bad --static") {
    CheckUsageError({"--static", "batch=1,seq=-1", model},
                    "invalid size 'seq=-1' (expected NAME=SIZE with SIZE >= 0) in --static "
                    "'batch=1,seq=-1'");
  }
  SECTION("shape in --static") {
    CheckUsageError({"--static", "x=1x3", model},
                    "invalid size 'x=1x3' (expected NAME=SIZE: a size, not a shape)");
  }
  SECTION("empty --static") {
    CheckUsageError({"--static=,", model}, "no size given in --static ','");
  }
  SECTION("missing value at the end") {
    CheckUsageError({model, "--format"}, "'--format' needs a value");
  }
  SECTION("missing value before an option") {
    CheckUsageError({"--select", "--format", "json", model}, "'--select' needs a value");
  }
  SECTION("value given to a flag") {
    CheckUsageError({"--version=2"}, "'--version' takes no value");
  }
  SECTION("no model") { CheckUsageError({}, "no model given"); }
  SECTION("no model, only options") { CheckUsageError({"--format", "json"}, "no model given"); }
  SECTION("stdin twice") { CheckUsageError({"-", "-"}, "'-' (standard input)"); }
}

}  // namespace
}  // namespace shapelint::cli

namespace shapelint::cli {
namespace {

// End to end: the whole JSON report of a real lint run, against a golden file that was checked
// by hand (witness s2 in [6, 8] and s3 in [6, 7]; at s2 = 9, s3 = 6 the pool gives 3 x 3).
// The version and the path are redacted so the file survives releases and checkouts.
TEST_CASE("cli: the JSON report of the adaptive pool model matches the golden file",
          "[cli][golden]") {
  const std::string model = SHAPELINT_SOURCE_DIR "/tests/rules/SL001/adaptive_pool_dynamo.onnxtxt";
  Outcome o = RunCli({"--format", "json", model});
  CHECK(o.code == kExitFindings);
  std::string actual = o.out;
  const std::string version = "\"version\": \"" + std::string(lint::Version()) + "\"";
  for (auto [from, to] : {std::pair{version, std::string("\"version\": \"<version>\"")},
                          std::pair{"\"" + model + "\"", std::string("\"<path>\"")}}) {
    for (size_t at = actual.find(from); at != std::string::npos; at = actual.find(from, at)) {
      actual.replace(at, from.size(), to);
    }
  }
  CHECK(actual == ReadFile(SHAPELINT_SOURCE_DIR "/tests/tools/golden/adaptive_pool.json"));
}

}  // namespace
}  // namespace shapelint::cli

namespace shapelint::cli {
namespace {

const std::string kPool = SHAPELINT_SOURCE_DIR "/tests/rules/SL001/adaptive_pool_dynamo.onnxtxt";

TEST_CASE("cli: shapes prints every value's symbolic shape", "[cli][shapes]") {
  Outcome o = RunCli({"shapes", kPool});
  CHECK(o.code == kExitClean);
  CHECK_THAT(o.out, Contains("input x: float[s0, s1, s2, s3]"));
  // floor((s2 - 3) / 3) + 1 == floor(s2 / 3); floor((s3 - 2) / 2) + 1 == floor(s3 / 2)
  CHECK_THAT(o.out, Contains("y  (AveragePool '<AveragePool #0>'): float[s0, s1, floor(s2 / 3), "
                             "floor(s3 / 2)]"));
}

TEST_CASE("cli: shapes --dims evaluates every dim at those sizes", "[cli][shapes]") {
  // The seed's table: x (2, 3, 8, 9) -> ONNX Runtime returns (2, 3, 2, 4).
  Outcome o = RunCli({"shapes", "--dims", "s0=2,s1=3", "--dims=s2=8,s3=9", kPool});
  CHECK(o.code == kExitClean);
  CHECK_THAT(o.out, Contains("float[s0, s1, floor(s2 / 3), floor(s3 / 2)]  at [2, 3, 2, 4]"));
  Outcome partial = RunCli({"shapes", "--dims", "s2=12", kPool});
  CHECK_THAT(partial.out, Contains("at [?, ?, 4, ?]"));
}

TEST_CASE("cli: shapes --format json", "[cli][shapes]") {
  Outcome o = RunCli({"shapes", "--format", "json", "--dims", "s0=1,s1=1,s2=12,s3=12", kPool});
  REQUIRE(o.code == kExitClean);
  auto doc = nlohmann::json::parse(o.out);
  const auto& values = doc["models"][0]["values"];
  REQUIRE(values.size() == 2);
  CHECK(values[1]["name"] == "y");
  CHECK(values[1]["op_type"] == "AveragePool");
  CHECK(values[1]["shape"] ==
        nlohmann::json::array({"s0", "s1", "floor(s2 / 3)", "floor(s3 / 2)"}));
  // ONNX Runtime at (1, 1, 12, 12): (1, 1, 4, 6).
  CHECK(values[1]["at"] == nlohmann::json::array({1, 1, 4, 6}));
}

TEST_CASE("cli: shapes usage errors", "[cli][shapes]") {
  CHECK(RunCli({"shapes"}).code == kExitError);
  CHECK(RunCli({"shapes", "--dims", "s2", kPool}).code == kExitError);
  CHECK(RunCli({"shapes", "--dims", "s2=-1", kPool}).code == kExitError);
  CHECK(RunCli({"shapes", "--format", "xml", kPool}).code == kExitError);
  // The same parser as --static: named sizes only.
  Outcome shape = RunCli({"shapes", "--dims", "s0=1,x=1x2", kPool});
  CHECK(shape.code == kExitError);
  CHECK_THAT(shape.err, Contains("invalid size 'x=1x2' (expected NAME=SIZE: a size, not a shape) "
                                 "in --dims 's0=1,x=1x2'"));
  Outcome missing = RunCli({"shapes", "nope.onnx"});
  CHECK(missing.code == kExitError);
  CHECK(missing.out == "nope.onnx: error: no such file\n");
}

}  // namespace
}  // namespace shapelint::cli

namespace shapelint::cli {
namespace {

const std::string kAdaptivePool =
    SHAPELINT_SOURCE_DIR "/tests/corpus/torch/adaptive_avg_pool2d.onnx";

TEST_CASE("cli probe: reproduces ORT's shape at a size, and the declared one", "[cli][probe]") {
  // docs/ground-truth.md: input (2,3,8,9) -> PyTorch (2,3,2,3), ONNX Runtime (2,3,2,4). The
  // export declares PyTorch's output dims, so probing shows both.
  Outcome o = RunCli({"probe", "--dims", "x=2x3x8x9", kAdaptivePool});
  CHECK(o.code == 1);
  CHECK_THAT(o.out, Contains("input x: [2, 3, 8, 9]"));
  CHECK_THAT(o.out, Contains("output y: [2, 3, 2, 4], declared [2, 3, 2, 3]"));
  CHECK_THAT(o.out, Contains("at main/AveragePool: 'y' axis 3 is 4 but is declared 3"));
  // At the export size it works.
  Outcome ok = RunCli({"probe", "--dims=x=1x2x6x6", kAdaptivePool});
  CHECK(ok.code == 0);
  CHECK_THAT(ok.out, Contains("works:"));
  CHECK_THAT(ok.out, Contains("output y: [1, 2, 2, 3], as declared"));
}

TEST_CASE("cli probe: a range reports the sizes that break", "[cli][probe]") {
  // kernel 3, stride 3 on the height: floor((H - 3) / 3) + 1 == 2 only for H in [6, 8].
  Outcome o = RunCli({"probe", "--dims", "x_dynamic_axes_3=1..40", kAdaptivePool});
  CHECK(o.code == 1);
  CHECK_THAT(o.out, Contains("breaks at x_dynamic_axes_3 in [1, 5], [9, 40]; the first:"));
  Outcome json =
      RunCli({"probe", "--format", "json", "--dims", "x_dynamic_axes_3=6..8", kAdaptivePool});
  CHECK(json.code == 0);
  auto doc = nlohmann::json::parse(json.out);
  const auto& probe = doc["models"][0]["probes"][0];
  CHECK(probe["breaks"] == false);
  CHECK(probe["failing_ranges"].empty());
  CHECK(probe["at"]["inputs"]["x"][2] == 6);
}

TEST_CASE("cli probe: bad specs and unknown names are usage errors", "[cli][probe]") {
  CHECK(RunCli({"probe", kAdaptivePool}).code == 2);                      // no --dims
  CHECK(RunCli({"probe", "--dims", "x=2x3", kAdaptivePool}).code == 2);   // wrong rank
  CHECK(RunCli({"probe", "--dims", "h=-1", kAdaptivePool}).code == 2);    // negative
  CHECK(RunCli({"probe", "--dims", "h=9..3", kAdaptivePool}).code == 2);  // empty range
  Outcome o = RunCli({"probe", "--dims", "height=8", kAdaptivePool});
  CHECK(o.code == 2);
  CHECK_THAT(o.out, Contains("the model has no input dim named 'height'"));
}

}  // namespace
}  // namespace shapelint::cli
