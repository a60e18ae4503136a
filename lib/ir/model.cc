#include "shapelint/ir/model.h"

#include <deque>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/inline_functions.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::GraphProto;

template <typename Map>
auto FindOrNull(const Map& map, std::string_view key) -> typename Map::mapped_type {
  auto it = map.find(key);
  return it == map.end() ? nullptr : it->second;
}

// Subgraph nesting deeper than this is rejected instead of risking the stack.
constexpr int kMaxSubgraphDepth = 64;

}  // namespace

int Graph::Producer(std::string_view value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

const ONNX_NAMESPACE::TensorProto* Graph::Initializer(std::string_view value) const {
  return FindOrNull(initializer_, value);
}
const ONNX_NAMESPACE::ValueInfoProto* Graph::Input(std::string_view value) const {
  return FindOrNull(input_, value);
}
const ONNX_NAMESPACE::ValueInfoProto* Graph::Output(std::string_view value) const {
  return FindOrNull(output_, value);
}
const ONNX_NAMESPACE::ValueInfoProto* Graph::ValueInfo(std::string_view value) const {
  return FindOrNull(value_info_, value);
}

const std::vector<int>& Graph::Consumers(std::string_view value) const {
  static const std::vector<int> kNone;
  auto it = consumers_.find(value);
  return it == consumers_.end() ? kNone : it->second;
}

std::vector<const Graph*> Graph::Subgraphs(int index) const {
  std::vector<const Graph*> result;
  auto it = subgraphs_.find(index);
  if (it == subgraphs_.end()) return result;
  for (const auto& s : it->second) result.push_back(s.graph.get());
  return result;
}

const Graph* Graph::Subgraph(int index, std::string_view attribute) const {
  auto it = subgraphs_.find(index);
  if (it == subgraphs_.end()) return nullptr;
  for (const auto& s : it->second) {
    if (s.attribute == attribute) return s.graph.get();
  }
  return nullptr;
}

std::string Graph::NodeLabel(int index) const {
  const auto& n = node(index);
  if (!n.name().empty()) return n.name();
  return absl::StrCat("<", n.op_type(), " #", index, ">");
}

// Builds one Graph (and, recursively, its subgraphs) and checks its references.
class GraphBuilder {
 public:
  GraphBuilder(const std::string& source, int depth) : source_(source), depth_(depth) {}

  absl::StatusOr<std::unique_ptr<Graph>> Build(const GraphProto& proto, const Graph* parent,
                                               std::string path) {
    auto g = std::make_unique<Graph>();
    g->proto_ = &proto;
    g->parent_ = parent;
    g->path_ = std::move(path);
    if (depth_ > kMaxSubgraphDepth) {
      return Error(absl::StrCat("subgraphs nested deeper than ", kMaxSubgraphDepth, " levels at ",
                                g->path_));
    }
    // Sized up front: rehashing tables of a few hundred thousand names is a visible cost.
    g->initializer_.reserve(proto.initializer_size() + proto.sparse_initializer_size());
    g->value_info_.reserve(proto.value_info_size());
    g->producer_.reserve(proto.node_size());
    g->consumers_.reserve(proto.node_size());
    for (const auto& t : proto.initializer()) g->initializer_.emplace(t.name(), &t);
    for (const auto& s : proto.sparse_initializer()) {
      // Sparse initializers are values too; their dense form is not needed for shapes.
      g->initializer_.emplace(s.values().name(), nullptr);
    }
    for (const auto& vi : proto.input()) g->input_.emplace(vi.name(), &vi);
    for (const auto& vi : proto.output()) g->output_.emplace(vi.name(), &vi);
    for (const auto& vi : proto.value_info()) g->value_info_.emplace(vi.name(), &vi);

    for (int i = 0; i < proto.node_size(); ++i) {
      for (const auto& out : proto.node(i).output()) {
        if (out.empty()) continue;
        auto [it, inserted] = g->producer_.emplace(out, i);
        if (!inserted) {
          return Error(absl::StrCat("value '", out, "' is produced by both ",
                                    Describe(*g, it->second), " and ", Describe(*g, i)));
        }
        if (g->input_.contains(out) || g->initializer_.contains(out)) {
          return Error(absl::StrCat(Describe(*g, i), " writes '", out,
                                    "', which is already a graph input or initializer"));
        }
      }
    }

    // Dependencies of each node: its own inputs and the outer values its subgraphs read.
    std::vector<std::vector<std::string_view>> reads(proto.node_size());
    for (int i = 0; i < proto.node_size(); ++i) {
      const auto& n = proto.node(i);
      for (const auto& in : n.input()) {
        if (!in.empty()) reads[i].push_back(in);
      }
      for (const AttributeProto& attr : n.attribute()) {
        std::vector<const GraphProto*> bodies;
        if (attr.has_g()) bodies.push_back(&attr.g());
        for (const auto& sub : attr.graphs()) bodies.push_back(&sub);
        for (const GraphProto* body : bodies) {
          GraphBuilder sub_builder(source_, depth_ + 1);
          auto sub = sub_builder.Build(
              *body, g.get(), absl::StrCat(g->path_, "/", g->NodeLabel(i), ".", attr.name()));
          if (!sub.ok()) return sub.status();
          for (std::string_view outer : sub_builder.outer_reads_) reads[i].push_back(outer);
          g->subgraphs_[i].push_back({attr.name(), *std::move(sub)});
        }
      }
    }

    // Every read must resolve here or in an enclosing graph.
    for (int i = 0; i < proto.node_size(); ++i) {
      for (std::string_view value : reads[i]) {
        if (g->producer_.contains(value) || g->input_.contains(value) ||
            g->initializer_.contains(value)) {
          continue;
        }
        if (parent != nullptr && Resolves(*parent, value)) {
          outer_reads_.insert(value);
          continue;
        }
        return Error(absl::StrCat(Describe(*g, i), " reads '", std::string(value),
                                  "', which no node, graph input or initializer provides"));
      }
    }
    for (const auto& vi : proto.output()) {
      std::string_view value = vi.name();
      if (g->producer_.contains(value) || g->input_.contains(value) ||
          g->initializer_.contains(value)) {
        continue;
      }
      if (parent != nullptr && Resolves(*parent, value)) {
        outer_reads_.insert(value);
        continue;
      }
      return Error(absl::StrCat("graph output '", std::string(value), "' of ", g->path_,
                                " is not produced by any node"));
    }

    auto order = TopologicalOrder(*g, reads);
    if (!order.ok()) return order.status();
    g->order_ = *std::move(order);
    for (int i : g->order_) {
      for (std::string_view value : reads[i]) {
        auto& users = g->consumers_[value];
        if (users.empty() || users.back() != i) users.push_back(i);
      }
    }
    return g;
  }

 private:
  static bool Resolves(const Graph& graph, std::string_view value) {
    for (const Graph* g = &graph; g != nullptr; g = g->parent()) {
      if (g->producer_.contains(value) || g->input_.contains(value) ||
          g->initializer_.contains(value)) {
        return true;
      }
    }
    return false;
  }

  static std::string Describe(const Graph& g, int index) {
    return absl::StrCat("node '", g.NodeLabel(index), "' (", g.node(index).op_type(), ")");
  }

  absl::Status Error(const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": ", message));
  }

  // Kahn's algorithm, taking ready nodes in file order so sorted graphs keep their order.
  absl::StatusOr<std::vector<int>> TopologicalOrder(
      const Graph& g, const std::vector<std::vector<std::string_view>>& reads) const {
    const int n = static_cast<int>(reads.size());
    std::vector<int> pending(n, 0);
    std::vector<std::vector<int>> users(n);
    for (int i = 0; i < n; ++i) {
      for (std::string_view value : reads[i]) {
        int p = g.Producer(value);
        if (p < 0) continue;
        if (p == i) {
          return Error(absl::StrCat("cycle: ", Describe(g, i), " reads its own output '",
                                    std::string(value), "'"));
        }
        ++pending[i];
        users[p].push_back(i);
      }
    }
    std::vector<int> order;
    order.reserve(n);
    // A min-heap would keep strict file order; a FIFO seeded in file order is close and O(n).
    std::deque<int> ready;
    for (int i = 0; i < n; ++i) {
      if (pending[i] == 0) ready.push_back(i);
    }
    while (!ready.empty()) {
      int i = ready.front();
      ready.pop_front();
      order.push_back(i);
      for (int u : users[i]) {
        if (--pending[u] == 0) ready.push_back(u);
      }
    }
    if (static_cast<int>(order.size()) != n) {
      for (int i = 0; i < n; ++i) {
        if (pending[i] == 0) continue;
        for (std::string_view value : reads[i]) {
          int p = g.Producer(value);
          if (p >= 0 && pending[p] > 0) {
            return Error(absl::StrCat("cycle: ", Describe(g, i), " reads '", std::string(value),
                                      "', which depends on the node's own output"));
          }
        }
      }
      return Error("cycle in the graph");
    }
    return order;
  }

  const std::string& source_;
  int depth_;
  absl::flat_hash_set<std::string_view> outer_reads_;
};

absl::StatusOr<std::unique_ptr<Model>> Model::FromProto(ONNX_NAMESPACE::ModelProto proto,
                                                        std::string source) {
  std::unique_ptr<Model> model(new Model());
  model->owned_proto_ = std::move(proto);
  model->proto_ = &model->owned_proto_;
  model->source_ = std::move(source);
  return Index(std::move(model));
}

absl::StatusOr<std::unique_ptr<Model>> Model::FromArena(
    std::unique_ptr<google::protobuf::Arena> arena, ONNX_NAMESPACE::ModelProto* proto,
    std::string source) {
  std::unique_ptr<Model> model(new Model());
  model->arena_ = std::move(arena);
  model->proto_ = proto;
  model->source_ = std::move(source);
  return Index(std::move(model));
}

absl::StatusOr<std::unique_ptr<Model>> Model::Index(std::unique_ptr<Model> model) {
  if (!model->proto_->has_graph()) {
    return absl::InvalidArgumentError(
        absl::StrCat(model->source_, ": not an ONNX model (it has no graph)"));
  }
  InlineFunctions(*model->proto_);
  for (const auto& op : model->proto_->opset_import()) {
    std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    model->opsets_[domain] = op.version();
  }
  GraphBuilder builder(model->source_, 0);
  auto graph = builder.Build(model->proto_->graph(), nullptr, "main");
  if (!graph.ok()) return graph.status();
  model->graph_ = *std::move(graph);
  return model;
}

int64_t Model::OpsetVersion(std::string_view domain) const {
  if (domain == "ai.onnx") domain = "";
  auto it = opsets_.find(std::string(domain));
  return it == opsets_.end() ? -1 : it->second;
}

}  // namespace shapelint::ir
