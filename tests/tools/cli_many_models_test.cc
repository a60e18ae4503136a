// The command line over many models and for other consumers: directories, parallel runs,
// --output, --statistics, --format github, rule selection and --explain.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "shapelint/lint/lint.h"
#include "tools/cli_test_util.h"

namespace shapelint::cli {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

const std::string kTorch = SHAPELINT_SOURCE_DIR "/tests/corpus/torch/";
const std::string kBakedPool = SHAPELINT_SOURCE_DIR "/tests/tools/inputs/baked_pool.onnxtxt";

// A directory with two baked models (one nested), a healthy one, and files that are no model.
struct ModelTree {
  TempDir dir;
  std::string pool, vgg, flatten;
  ModelTree() {
    fs::create_directories(dir.path() / "b" / "deep");
    pool = dir.Write("b/deep/pool.onnx", ReadFile(kTorch + "adaptive_avg_pool2d.onnx"));
    vgg = dir.Write("a_vgg.onnx", ReadFile(kTorch + "vgg11_features.onnx"));
    flatten = dir.Write("b/flatten.onnx", ReadFile(kTorch + "flatten.onnx"));
    dir.Write("b/notes.txt", "not a model");
    dir.Write("b/model.onnx.bak", "not a model either");
  }
};

std::vector<std::string> ReportedPaths(const std::string& json_report) {
  std::vector<std::string> paths;
  const nlohmann::json doc = nlohmann::json::parse(json_report);
  for (const auto& m : doc["models"]) {
    paths.push_back(m["path"].get<std::string>());
  }
  return paths;
}

TEST_CASE("cli: a directory stands for the *.onnx files under it, sorted", "[cli][many]") {
  ModelTree tree;
  Outcome o = RunCli({"--format", "json", tree.dir.path().string(), kBakedPool});
  INFO(o.out << o.err);
  CHECK(o.code == kExitFindings);
  // Sorted by path within the directory ("b/deep/..." before "b/flatten..."), then the next
  // MODEL as given.
  CHECK(ReportedPaths(o.out) ==
        std::vector<std::string>{tree.vgg, tree.pool, tree.flatten, kBakedPool});
}

TEST_CASE("cli: parallel runs give the same report as one at a time", "[cli][many]") {
  ModelTree tree;
  const std::vector<std::string> models = {tree.pool,  tree.vgg,  tree.flatten,
                                           kBakedPool, tree.pool, tree.flatten};
  std::vector<std::string> args = {"--jobs", "1"};
  args.insert(args.end(), models.begin(), models.end());
  Outcome one = RunCli(args);
  args[1] = "4";
  Outcome four = RunCli(args);
  CHECK(one.code == kExitFindings);
  CHECK(four.code == one.code);
  CHECK(four.out == one.out);
  CHECK_THAT(one.out, EndsWith("4 errors, 0 warnings in 6 models\n"));
}

TEST_CASE("cli: a run over many models starts the largest file first", "[cli][many]") {
  TempDir dir;
  const std::string small = dir.Write("small.onnx", std::string(10, 'x'));
  const std::string big = dir.Write("big.onnx", std::string(300, 'x'));
  const std::string mid = dir.Write("mid.onnx", std::string(20, 'x'));
  const std::string big_too = dir.Write("big_too.onnx", std::string(300, 'x'));
  const std::string missing = (dir.path() / "missing.onnx").string();
  // Equal sizes keep the given order; what has no size ("-", a missing file) comes last.
  CHECK(LargestFirst({small, "-", big, mid, missing, big_too}) ==
        std::vector<size_t>{2, 5, 3, 0, 1, 4});
  CHECK(LargestFirst({}).empty());
}

TEST_CASE("cli: --output writes the report to a file, whole", "[cli][many]") {
  TempDir dir;
  const std::string report = (dir.path() / "report.json").string();
  Outcome o = RunCli({"--format", "json", "--output", report, kBakedPool});
  CHECK(o.code == kExitFindings);
  CHECK(o.out.empty());
  CHECK(o.err.empty());
  CHECK(ReportedPaths(ReadFile(report)) == std::vector<std::string>{kBakedPool});
  // Overwritten, not appended to; no temporary file left behind.
  REQUIRE(RunCli({"--format=json", "--output=" + report, kBakedPool}).code == kExitFindings);
  CHECK(ReportedPaths(ReadFile(report)).size() == 1);
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) files += entry.exists() ? 1 : 0;
  CHECK(files == 1);
  // An unwritable place is an error, on stderr.
  Outcome bad = RunCli({"--output", (dir.path() / "no" / "such" / "dir.txt").string(), kBakedPool});
  CHECK(bad.code == kExitError);
  CHECK_THAT(bad.err, Contains("cannot write '"));
}

TEST_CASE("cli: --output keeps devices, links and permissions", "[cli][many]") {
  TempDir dir;
  // A pipe stays a pipe (so does /dev/null): the report is written into it, not renamed over it.
  const std::string fifo = (dir.path() / "report.fifo").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  // Held open for reading and writing, the pipe neither blocks the linter's open nor this
  // test when the report does not arrive; a short report fits in the pipe's buffer.
  const int fd = open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  REQUIRE(fd >= 0);
  Outcome o = RunCli({"--quiet", "--output", fifo, kBakedPool});
  std::string received(1 << 16, '\0');
  const ssize_t n = read(fd, received.data(), received.size());
  received.resize(n > 0 ? static_cast<size_t>(n) : 0);
  close(fd);
  CHECK(o.code == kExitFindings);
  CHECK_THAT(received, Contains("error[SL001]"));
  CHECK(fs::is_fifo(fifo));
  // A link still points at its target, which gets the report and keeps its mode.
  const fs::path target = dir.path() / "target.txt";
  const fs::path link = dir.path() / "link.txt";
  { std::ofstream(target) << "old"; }
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                              fs::perms::others_read);
  fs::create_symlink(target, link);
  REQUIRE(RunCli({"--quiet", "--output", link.string(), kBakedPool}).code == kExitFindings);
  CHECK(fs::is_symlink(link));
  CHECK_THAT(ReadFile(target.string()), Contains("error[SL001]"));
  CHECK((fs::status(target).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
         fs::perms::others_read));
}

TEST_CASE("cli: --statistics counts findings per rule", "[cli][many]") {
  ModelTree tree;
  Outcome text = RunCli({"--statistics", tree.dir.path().string(), kBakedPool});
  INFO(text.out);
  CHECK(text.code == kExitFindings);
  // adaptive_avg_pool2d, vgg11_features and baked_pool: one SL001 error each; flatten: none.
  CHECK(text.out == "     3  SL001  baked-pool-kernel\n3 findings in 4 models\n");
  Outcome json = RunCli({"--statistics", "--format", "json", tree.pool});
  auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["statistics"][0]["rule"] == "SL001");
  CHECK(doc["statistics"][0]["count"] == 1);
  CHECK(doc["models"] == 1);
  Outcome sarif = RunCli({"--statistics", "--format", "sarif", tree.pool});
  CHECK(sarif.code == kExitError);
  CHECK_THAT(sarif.err, Contains("--statistics writes 'text' or 'json' only"));
}

TEST_CASE("cli: --quiet leaves out the summary line", "[cli][many]") {
  Outcome o = RunCli({"--quiet", kBakedPool});
  CHECK(o.code == kExitFindings);
  CHECK_THAT(o.out, Contains("error[SL001]"));
  CHECK_THAT(o.out, !Contains("in 1 model"));
  CHECK(RunCli({"--quiet", SHAPELINT_SOURCE_DIR "/tests/tools/inputs/clean.onnxtxt"}).out == "");
}

TEST_CASE("cli: --verbose shows the requirement and the node's shapes", "[cli][many]") {
  for (const char* flag : {"--verbose", "-v"}) {
    Outcome o = RunCli({flag, kBakedPool});
    CHECK(o.code == kExitFindings);
    // The pool's output dim floor(H / 3) must stay 2, as y declares.
    CHECK_THAT(o.out, Contains("  = requires: floor(H / 3) == 2"));
    CHECK_THAT(o.out, Contains("  = output 'y': float[N, C, floor(H / 3), floor(W / 2)]"));
  }
  CHECK_THAT(RunCli({kBakedPool}).out, !Contains("= requires:"));
}

TEST_CASE("cli: --format github writes workflow commands", "[cli][many]") {
  TempDir dir;
  // A path with the characters GitHub's syntax reserves: ',' and ':' must be escaped.
  const std::string odd = dir.Write("a,b:c.onnx", ReadFile(kTorch + "adaptive_avg_pool2d.onnx"));
  const std::string broken = dir.Write("broken.onnx", "not a model");
  Outcome o = RunCli({"--format", "github", odd, broken});
  INFO(o.out);
  CHECK(o.code == kExitError);
  std::vector<std::string> lines = absl::StrSplit(o.out, '\n', absl::SkipEmpty());
  REQUIRE(lines.size() == 2);
  std::string escaped = odd;
  escaped.replace(escaped.find("a,b:c"), 5, "a%2Cb%3Ac");
  CHECK_THAT(lines[0], StartsWith("::error file=" + escaped + ",title=SL001 baked-pool-kernel::"));
  // The message stays on one line: its newlines are %0A.
  CHECK_THAT(lines[0], Contains("%0Acounterexample: "));
  CHECK_THAT(lines[1], StartsWith("::error file=" + broken + ",title=cannot load the model::"));
}

TEST_CASE("cli: --select, --extend-select and --ignore by code, prefix, name or ALL",
          "[cli][many]") {
  auto rules_run = [](std::vector<std::string> args) {
    args.push_back(kBakedPool);
    return RunCli(args).code;
  };
  CHECK(rules_run({"--select", "SL00"}) == kExitFindings);
  // Without SL001, the output contradiction the pool causes is SL003's.
  CHECK(rules_run({"--select", "ALL", "--ignore", "SL001"}) == kExitFindings);
  CHECK(rules_run({"--ignore", "baked-pool-kernel,declared-shape-mismatch"}) == kExitClean);
  CHECK(rules_run({"--select", "SL002", "--extend-select", "sl001"}) == kExitFindings);
  CHECK(rules_run({"--select", "SL002"}) == kExitClean);
  CHECK(rules_run({"--select", "SL001", "--ignore", "SL00"}) == kExitClean);
  Outcome unknown = RunCli({"--ignore", "XY9", kBakedPool});
  CHECK(unknown.code == kExitError);
  CHECK_THAT(unknown.err, Contains("unknown rule 'XY9' in --ignore"));
}

TEST_CASE("cli: --explain prints the rule's page", "[cli][many]") {
  for (const lint::RuleInfo& rule : lint::AllRules()) {
    const std::string page =
        ReadFile(SHAPELINT_SOURCE_DIR "/docs/rules/" + std::string(rule.code) + ".md");
    CHECK(RunCli({"--explain", std::string(rule.code)}).out == page);
    CHECK(RunCli({"--explain", std::string(rule.name)}).out == page);
  }
  Outcome o = RunCli({"--explain", "SL999"});
  CHECK(o.code == kExitError);
  CHECK_THAT(o.err, Contains("unknown rule 'SL999' for --explain"));
  CHECK_THAT(o.err, Contains("'severity' explains the severity policy"));
}

TEST_CASE("cli: --explain severity prints the severity policy", "[cli][many]") {
  const Outcome o = RunCli({"--explain", "severity"});
  CHECK(o.code == kExitClean);
  CHECK(o.out == ReadFile(SHAPELINT_SOURCE_DIR "/docs/severity.md"));
}

}  // namespace
}  // namespace shapelint::cli

namespace shapelint::cli {
namespace {

TEST_CASE("cli: --dynamic and --static change what the declaration promises", "[cli][many]") {
  TempDir dir;
  // adaptive_avg_pool2d(x, (2, 3)) exported at 6x6 with every axis static: the kernel is
  // [3, 2]; nothing is promised, so nothing is wrong...
  const std::string model = dir.Write("static.onnxtxt", R"(
<ir_version: 8, opset_import: ["" : 13]>
pool (float[1,2,6,6] x) => (float[1,2,2,3] y) {
  y = AveragePool <kernel_shape = [3, 2], strides = [3, 2]> (x)
}
)");
  CHECK(RunCli({model}).code == kExitClean);
  // ...until H and W are asked to be dynamic: the pool's output then follows them, against the
  // declared 2 x 3.
  Outcome o = RunCli({"--dynamic", "x:2=height,x:-1", model});
  INFO(o.out << o.err);
  CHECK(o.code == kExitFindings);
  CHECK_THAT(o.out, Contains("error[SL001]"));
  CHECK_THAT(o.out, Contains("height"));
  // Fixing the dynamic size back is clean again.
  CHECK(RunCli({"--dynamic", "x:2=height", "--static", "height=6", model}).code == kExitClean);
  // Names the model does not have are an error for that model.
  Outcome no_input = RunCli({"--dynamic", "image:2", model});
  CHECK(no_input.code == kExitError);
  CHECK_THAT(no_input.out,
             Contains("dynamic axis: the model has no input 'image' (its inputs: x)"));
  Outcome no_axis = RunCli({"--dynamic", "x:4", model});
  CHECK(no_axis.code == kExitError);
  CHECK_THAT(no_axis.out, Contains("input 'x' has no axis 4 (rank 4)"));
  Outcome no_name = RunCli({"--static", "batch=1", model});
  CHECK(no_name.code == kExitError);
  CHECK_THAT(no_name.out, Contains("no input dim of the model is named 'batch'"));
  Outcome usage = RunCli({"--dynamic", "x2", model});
  CHECK(usage.code == kExitError);
  CHECK_THAT(usage.err,
             Contains("invalid axis 'x2' (expected INPUT:AXIS or INPUT:AXIS=NAME) in --dynamic"));
}

}  // namespace
}  // namespace shapelint::cli
