// The SARIF 2.1.0 report (docs/sarif.md): one run whose driver lists every rule of the registry,
// one result per finding, the models as artifacts and their graphs, nodes and attributes as
// logical locations. Models that could not be loaded are tool execution notifications.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/finding_text.h"
#include "report/json_dump.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/report.h"

namespace shapelint::report {
namespace {

// The project's home page. The driver's informationUri and every rule's helpUri (the rule's page,
// docs/rules/<code>.md) are built from it.
constexpr std::string_view kRepositoryUrl = "https://github.com/onnx-shapelint/onnx-shapelint";

constexpr std::string_view kSchemaUri = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr std::string_view kSarifVersion = "2.1.0";

// logicalLocation.kind of what a finding points at: a graph holds nodes the way a module holds
// functions, and a node's attributes and inputs are its parameters.
constexpr std::string_view kGraphKind = "module";
constexpr std::string_view kNodeKind = "function";
constexpr std::string_view kAttributeKind = "parameter";

// Name of the partial fingerprint (result.partialFingerprints) that identifies a finding across
// runs: the rule and the node and attribute it points at, not the wording of its message.
constexpr std::string_view kFingerprintName = "shapelintLogicalLocation/v1";

// SARIF's level names happen to be ours; spelled out so that the two can never drift apart.
std::string Level(lint::Severity severity) {
  switch (severity) {
    case lint::Severity::kError:
      return "error";
    case lint::Severity::kWarning:
      return "warning";
    case lint::Severity::kNote:
      return "note";
  }
  return "warning";
}

std::string RuleHelpUri(std::string_view code) {
  return std::string(kRepositoryUrl) + "/blob/main/docs/rules/" + std::string(code) + ".md";
}

std::string FullStop(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out.back() != '.' && out.back() != '!' && out.back() != '?') out += '.';
  return out;
}

// A rule summary as a sentence: capitalised, ending with a full stop.
std::string Sentence(std::string_view s) {
  std::string out = FullStop(s);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 32);
  return out;
}

// SARIF message strings use "{0}" for placeholders, so literal braces are doubled (SARIF 2.1.0
// §3.11.5); a failure like "cannot reshape {3,3}" would otherwise read as a broken placeholder.
std::string MessageText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    out += c;
    if (c == '{' || c == '}') out += c;
  }
  return out;
}

Json Message(std::string_view text) {
  Json message = Json::object();
  message["text"] = MessageText(text);
  return message;
}

// A model path as a URI reference (SARIF requires artifactLocation.uri to be one): the path as
// given, with every byte that a URI path cannot hold as it is (space, '%', '#', '?', ':',
// non-ASCII, control characters, ...) percent-encoded. "models/pool.onnx" stays as it is, which
// is what GitHub code scanning resolves against the repository root.
std::string PathToUri(std::string_view path) {
  constexpr std::string_view kKeep = "-._~/!$&'()*+,;=@";
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    const auto u = static_cast<unsigned char>(c);
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum || kKeep.find(c) != std::string_view::npos) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    }
  }
  return out;
}

// FNV-1a, 64 bits, as 16 hex digits: stable across platforms and releases, unlike std::hash.
std::string Fnv1a64(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  constexpr char kHex[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[i] = kHex[h & 0xf];
  return out;
}

// run.logicalLocations: each graph, node and attribute that a result points at, once, with
// parentIndex linking an attribute to its node and a node to its graph. A location in a result
// holds the innermost of them by index (location.logicalLocations lists one construct, possibly
// named in several ways, not a chain of enclosing ones).
class LogicalLocations {
 public:
  // Index of the graph's location; graphs are top-level, subgraphs included ("main/If_0.then").
  int Graph(const std::string& graph) {
    Json l = Json::object();
    l["name"] = graph;
    l["fullyQualifiedName"] = graph;
    l["kind"] = kGraphKind;
    return Add(std::move(l));
  }

  // Index of the node's location, or nullopt when the reference names no node.
  std::optional<int> Node(const lint::NodeRef& node) {
    const std::string label = NodeLabel(node);
    if (label.empty()) return std::nullopt;
    std::optional<int> parent;
    if (!node.graph.empty()) parent = Graph(node.graph);
    Json l = Json::object();
    l["name"] = label;
    l["fullyQualifiedName"] = NodePath(node, kAsIs);
    l["kind"] = kNodeKind;
    if (parent) l["parentIndex"] = *parent;
    // Labels need not be unique; the op type and position tell two nodes apart.
    Json properties = Json::object();
    if (!node.op_type.empty()) properties["opType"] = node.op_type;
    if (node.index >= 0) properties["nodeIndex"] = node.index;
    if (!properties.empty()) l["properties"] = std::move(properties);
    return Add(std::move(l));
  }

  // Index of the location of an attribute or input ("kernel_shape", "input 1") of a node.
  int Attribute(int node, const std::string& attribute) {
    Json l = Json::object();
    l["name"] = attribute;
    l["fullyQualifiedName"] = locations_[node]["fullyQualifiedName"].get<std::string>() + "." +
                              attribute;  // as subgraph paths name a node's attribute
    l["kind"] = kAttributeKind;
    l["parentIndex"] = node;
    return Add(std::move(l));
  }

  // The location as a result refers to it: its index, with the names a reader needs without
  // resolving it (the same values as the cached object, as SARIF requires).
  Json Reference(int index) const {
    const Json& cached = locations_[index];
    Json l = Json::object();
    l["index"] = index;
    l["name"] = cached["name"];
    l["fullyQualifiedName"] = cached["fullyQualifiedName"];
    l["kind"] = cached["kind"];
    return l;
  }

  const Json& array() const { return locations_; }

 private:
  int Add(Json location) {
    std::string key = DumpJson(location, kJsonOneLine);
    auto [it, inserted] = index_.try_emplace(std::move(key), static_cast<int>(locations_.size()));
    if (inserted) locations_.push_back(std::move(location));
    return it->second;
  }

  Json locations_ = Json::array();
  std::map<std::string, int> index_;  // the object, serialised -> its index
};

// run.artifacts: one per model path, in the order given, each path once.
class Artifacts {
 public:
  int Add(const std::string& path) {
    auto [it, inserted] = index_.try_emplace(path, static_cast<int>(artifacts_.size()));
    if (inserted) {
      Json artifact = Json::object();
      artifact["location"] = Json::object();
      artifact["location"]["uri"] = PathToUri(path);
      if (path == "-") artifact["description"] = Message("standard input");
      artifact["roles"] = Json::array({"analysisTarget"});
      artifacts_.push_back(std::move(artifact));
    }
    return it->second;
  }

  // A location in the model file: artifactLocation with the uri and its index in run.artifacts.
  Json PhysicalLocation(int index) const {
    Json artifact_location = Json::object();
    artifact_location["uri"] = artifacts_[index]["location"]["uri"];
    artifact_location["index"] = index;
    Json physical = Json::object();
    physical["artifactLocation"] = std::move(artifact_location);
    return physical;
  }

  const Json& array() const { return artifacts_; }

 private:
  Json artifacts_ = Json::array();
  std::map<std::string, int> index_;
};

Json Rule(std::string_view code, std::string_view name, std::string_view summary,
          lint::Severity level) {
  std::string reported;
  switch (level) {
    case lint::Severity::kError:
      reported =
          "Reported as an error when a size is found at which the model breaks (a "
          "counterexample), as a warning otherwise.";
      break;
    case lint::Severity::kWarning:
      reported = "Reported as a warning.";
      break;
    case lint::Severity::kNote:
      reported = "Reported as a note.";
      break;
  }
  const std::string help_uri = RuleHelpUri(code);
  const std::string page = "docs/rules/" + std::string(code) + ".md";
  Json rule = Json::object();
  rule["id"] = code;
  rule["name"] = name;
  rule["shortDescription"] = {{"text", Sentence(summary)}};
  rule["fullDescription"] = {{"text", Sentence(summary) + " " + reported}};
  rule["helpUri"] = help_uri;
  rule["help"] = {
      {"text", "See " + help_uri +
                   " for what the rule finds, why it matters, an example and the "
                   "fix."},
      {"markdown", "See [" + page + "](" + help_uri +
                       ") for what the rule finds, why it matters, an example and the fix."}};
  rule["defaultConfiguration"] = {{"level", Level(level)}};
  return rule;
}

// Where and what, as the text report says it: the node, then the finding's message as the first
// sentence (what viewers show where space is short), then its counterexample:
//   "main/<AveragePool #0>: AveragePool kernel_shape=[3, 2] was computed from the export size
//    6x6 of 'x'. Counterexample: at s0=2, s1=3, s2=9, s3=8 (x: [2, 3, 9, 8]): output 'y' is
//    [2, 3, 3, 4], declared [2, 3, 2, 3]"
// The node is spelled out because viewers such as GitHub code scanning show the message and the
// file, but not the logical location.
std::string ResultText(const lint::Finding& f) {
  const std::string node = NodePath(f.node, kAsIs);
  std::string text = node.empty() ? f.message : node + ": " + f.message;
  if (!f.counterexample) return text;
  const std::string counterexample = CounterexampleText(*f.counterexample, kAsIs);
  if (counterexample.empty()) return text;
  return FullStop(text) + " Counterexample: " + counterexample;
}

Json Properties(const lint::Finding& f) {
  Json p = Json::object();
  if (!f.attribute.empty()) p["attribute"] = f.attribute;
  p["symbols"] = f.symbols;
  if (!f.symbol_axes.empty()) {
    Json axes = Json::object();
    for (const auto& [symbol, axis] : f.symbol_axes) axes[symbol] = axis;
    p["symbolAxes"] = std::move(axes);
  }
  if (f.witness) {
    const std::string witness = WitnessText(*f.witness, kAsIs);
    if (!witness.empty()) p["witness"] = witness;
  }
  if (f.counterexample) {
    const lint::Counterexample& cx = *f.counterexample;
    Json c = Json::object();
    Json binding = Json::object();
    for (const auto& [symbol, size] : cx.binding) binding[symbol] = size;
    c["binding"] = std::move(binding);
    Json inputs = Json::object();
    for (const auto& [input, dims] : cx.inputs) inputs[input] = dims;
    c["inputs"] = std::move(inputs);
    c["failingNode"] = NodePath(cx.failing_node, kAsIs);
    c["failure"] = cx.failure;
    c["nodeFails"] = cx.node_fails;
    p["counterexample"] = std::move(c);
  }
  if (!f.notes.empty()) {
    Json notes = Json::array();
    for (const lint::Note& n : f.notes) notes.push_back(NoteText(n, kAsIs));
    p["notes"] = std::move(notes);
  }
  if (!f.fix.empty()) p["fix"] = f.fix;
  return p;
}

// The rules section: the registry, in its order; then any code a finding has that the registry
// does not know, so that every ruleId resolves. `index` gets each code's position.
Json RuleDescriptors(const std::vector<ModelResult>& results, std::map<std::string, int>& index) {
  Json rules = Json::array();
  for (const lint::RuleInfo& info : lint::AllRules()) {
    index.try_emplace(std::string(info.code), static_cast<int>(rules.size()));
    rules.push_back(Rule(info.code, info.name, info.summary, info.level));
  }
  for (const ModelResult& r : results) {
    for (const lint::Finding& f : r.findings) {
      if (!index.try_emplace(f.rule, static_cast<int>(rules.size())).second) continue;
      Json rule = Json::object();
      rule["id"] = f.rule;
      if (!f.name.empty()) rule["name"] = f.name;
      rules.push_back(std::move(rule));
    }
  }
  return rules;
}

// A model that could not be loaded: a notification of the run, at the model's file.
Json LoadNotification(const ModelResult& r, int artifact, Artifacts& artifacts) {
  Json notification = Json::object();
  notification["level"] = "error";
  notification["message"] = Message(r.path + ": " + *r.error);
  Json location = Json::object();
  location["physicalLocation"] = artifacts.PhysicalLocation(artifact);
  notification["locations"] = Json::array({std::move(location)});
  return notification;
}

// The uriBaseId of files under the source root (SarifOptions), as GitHub code scanning and
// CodeQL name the root of the checkout.
constexpr std::string_view kSourceRootId = "%SRCROOT%";

// A directory as the absolute file URI SARIF's originalUriBaseIds wants: ending with a slash.
std::string DirectoryUri(const std::filesystem::path& directory) {
  std::string path = directory.lexically_normal().generic_string();
  if (path.empty() || path.back() != '/') path += '/';
  return "file://" + PathToUri(path);
}

// Where a source file that an exporter recorded is: relative to the source root when it is under
// it (code scanning then finds it in the repository), else an absolute file URI; a relative
// path, whose base the exporter did not record, as it is.
Json SourceArtifact(const std::string& file, const std::string& root, bool& used_root) {
  const std::filesystem::path path(file);
  if (!path.is_absolute()) return {{"uri", PathToUri(file)}};
  if (!root.empty()) {
    const std::filesystem::path relative =
        path.lexically_normal().lexically_relative(std::filesystem::path(root).lexically_normal());
    if (!relative.empty() && *relative.begin() != ".." && relative != ".") {
      used_root = true;
      return {{"uri", PathToUri(relative.generic_string())},
              {"uriBaseId", std::string(kSourceRootId)}};
    }
  }
  return {{"uri", "file://" + PathToUri(path.lexically_normal().generic_string())}};
}

// The notes that point at a node, as related locations.
Json RelatedLocations(const lint::Finding& f, int artifact, Artifacts& artifacts,
                      LogicalLocations& logical, const SarifOptions& options, bool& used_root) {
  Json related = Json::array();
  for (const lint::Note& n : f.notes) {
    if (!n.node) continue;
    const std::optional<int> node = logical.Node(*n.node);
    if (!node) continue;
    Json l = Json::object();
    l["physicalLocation"] = artifacts.PhysicalLocation(artifact);
    l["logicalLocations"] = Json::array({logical.Reference(*node)});
    l["message"] = Message(n.message);
    related.push_back(std::move(l));
  }
  // The PyTorch line the node came from: a location in the user's source, not in the model.
  if (f.source) {
    Json l = Json::object();
    l["physicalLocation"] = {
        {"artifactLocation", SourceArtifact(f.source->file, options.source_root, used_root)},
        {"region", {{"startLine", f.source->line}}}};
    l["message"] =
        Message(absl::StrCat("where the size entered, in the PyTorch code: ",
                             f.source->code.empty() ? f.source->function : f.source->code));
    related.push_back(std::move(l));
  }
  return related;
}

Json Result(const lint::Finding& f, int rule_index, int artifact, Artifacts& artifacts,
            LogicalLocations& logical, const SarifOptions& options, bool& used_root) {
  std::optional<int> innermost = logical.Node(f.node);
  if (innermost && !f.attribute.empty()) innermost = logical.Attribute(*innermost, f.attribute);
  Json location = Json::object();
  location["physicalLocation"] = artifacts.PhysicalLocation(artifact);
  if (innermost) location["logicalLocations"] = Json::array({logical.Reference(*innermost)});
  Json related = RelatedLocations(f, artifact, artifacts, logical, options, used_root);
  std::string fingerprint = f.rule + "\n";
  if (innermost) {
    fingerprint += logical.array()[*innermost]["fullyQualifiedName"].get<std::string>();
  }
  Json result = Json::object();
  result["ruleId"] = f.rule;
  result["ruleIndex"] = rule_index;
  result["level"] = Level(f.severity);
  result["message"] = Message(ResultText(f));
  result["locations"] = Json::array({std::move(location)});
  if (!related.empty()) result["relatedLocations"] = std::move(related);
  result["partialFingerprints"] = {{std::string(kFingerprintName), Fnv1a64(fingerprint)}};
  result["properties"] = Properties(f);
  return result;
}

Json Run(Json rules, Json notifications, Json results, const Artifacts& artifacts,
         const LogicalLocations& logical, const std::string& source_root) {
  Json driver = Json::object();
  driver["name"] = "onnx-shapelint";
  driver["version"] = std::string(lint::Version());
  driver["informationUri"] = kRepositoryUrl;
  driver["rules"] = std::move(rules);
  Json invocation = Json::object();
  invocation["executionSuccessful"] = notifications.empty();
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = std::move(notifications);
  Json run = Json::object();
  run["tool"] = {{"driver", std::move(driver)}};
  run["invocations"] = Json::array({std::move(invocation)});
  if (!source_root.empty()) {
    run["originalUriBaseIds"] = {
        {std::string(kSourceRootId), {{"uri", DirectoryUri(source_root)}}}};
  }
  run["artifacts"] = artifacts.array();
  run["logicalLocations"] = logical.array();
  run["results"] = std::move(results);
  return run;
}

}  // namespace

void WriteSarif(const std::vector<ModelResult>& results, std::ostream& out) {
  WriteSarif(results, SarifOptions{}, out);
}

void WriteSarif(const std::vector<ModelResult>& results, const SarifOptions& options,
                std::ostream& out) {
  std::map<std::string, int> rule_index;
  Json rules = RuleDescriptors(results, rule_index);
  Artifacts artifacts;
  LogicalLocations logical;
  Json notifications = Json::array();
  Json sarif_results = Json::array();
  bool used_root = false;  // a location is relative to options.source_root
  for (const ModelResult& r : results) {
    const int artifact = artifacts.Add(r.path);
    if (r.error) {
      notifications.push_back(LoadNotification(r, artifact, artifacts));
      continue;
    }
    for (const lint::Finding& f : r.findings) {
      sarif_results.push_back(
          Result(f, rule_index.at(f.rule), artifact, artifacts, logical, options, used_root));
    }
  }
  Json log = Json::object();
  log["$schema"] = kSchemaUri;
  log["version"] = kSarifVersion;
  log["runs"] =
      Json::array({Run(std::move(rules), std::move(notifications), std::move(sarif_results),
                       artifacts, logical, used_root ? options.source_root : std::string())});
  out << DumpJson(log) << '\n';
}

}  // namespace shapelint::report
