#include "lint/blame.h"

#include <algorithm>
#include <deque>
#include <string>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace shapelint::lint {
namespace {

// Upstream nodes visited when looking for the cause of a failure.
constexpr int kMaxBlameVisits = 100000;
// Nodes followed up the data inputs of a side that kept its size.
constexpr int kMaxKeptDepth = 64;
// Nodes visited on the sides that kept their sizes, every input followed.
constexpr int kMaxKeptSide = 256;

// The node a claimed literal is blamed on, and the chain from there to the failing node: the
// Expand or Tile it sizes, else its first consumer on the way to the failure, else the failing
// node itself.
void PlaceLiteral(const LiteralSource& literal, int failing_node, Cause& cause) {
  std::vector<int> path = literal.through;
  if (literal.entry >= 0) {
    cause.node = literal.entry;
  } else if (!path.empty()) {
    cause.node = path.front();
    path.erase(path.begin());
  } else {
    cause.node = failing_node;
  }
  cause.chain = {cause.node};
  cause.chain.insert(cause.chain.end(), path.begin(), path.end());
  if (cause.node != failing_node) cause.chain.push_back(failing_node);
}

// Walks upstream from the failing node and offers each node, nearest first, to `matchers`.
void Walk(const BlameSite& site, absl::Span<const Matcher* const> matchers, Cause& cause) {
  const ir::Graph& g = site.graph();
  const int start = site.start();
  absl::flat_hash_map<int, int> came_from;  // node -> the downstream node that led to it
  std::deque<int> queue{start};
  came_from[start] = -1;
  // Offers `node` to the matchers; true when one claimed it, with the chain to the failure.
  auto claimed = [&](int node) {
    for (const Matcher* m : matchers) {
      if (!m->ClaimsNode(site, node)) continue;
      cause.owner = m;
      cause.node = node;
      for (int n = node; n >= 0; n = came_from[n]) cause.chain.push_back(n);
      return true;
    }
    return false;
  };
  int visits = 0;
  std::vector<int> kept;  // visited nodes whose outputs kept their dims at the moved sizes
  while (!queue.empty() && visits++ < kMaxBlameVisits) {
    const int node = queue.front();
    queue.pop_front();
    if (claimed(node)) return;
    if (node != start && !site.Changed(node)) {
      kept.push_back(node);
      continue;
    }
    for (const auto& in : g.node(node).input()) {
      const int p = in.empty() ? -1 : g.Producer(in);
      if (p >= 0 && !came_from.contains(p)) {
        came_from[p] = node;
        queue.push_back(p);
      }
    }
  }
  if (site.literal().kind != LiteralSource::Kind::kNone) {
    for (const Matcher* m : matchers) {
      if (!m->ClaimsLiteral(site)) continue;
      cause.owner = m;
      cause.literal = site.literal();
      PlaceLiteral(cause.literal, site.start(), cause);
      return;
    }
  }
  // The side that kept its size while the input moved: up its data inputs, the node whose
  // input moved and whose output did not (a crop to a literal length) is where it stopped
  // following the input, and may be where the example's size entered.
  absl::flat_hash_set<int> followed;
  for (int boundary : kept) {
    int node = boundary;
    for (int depth = 0; depth < kMaxKeptDepth && followed.insert(node).second; ++depth) {
      const ir::Node n = g.node(node);
      if (n.input_size() == 0 || n.input(0).empty()) break;
      if (site.ValueChanged(n.input(0))) {
        if (claimed(node)) return;
        break;
      }
      const int p = g.Producer(n.input(0));
      if (p < 0 || came_from.contains(p)) break;
      came_from[p] = node;
      node = p;
    }
  }
  // No node there stopped following the input: the kept side may never have read it, and a
  // literal may stand where the size belongs. Every input of it, nearest first, whose dims
  // stayed too.
  std::deque<int> side(kept.begin(), kept.end());
  absl::flat_hash_set<int> seen(kept.begin(), kept.end());
  for (int visits = 0; !side.empty() && visits < kMaxKeptSide; ++visits) {
    const int node = side.front();
    side.pop_front();
    for (const Matcher* m : matchers) {
      if (!m->ClaimsKeptNode(site, node)) continue;
      cause.owner = m;
      cause.node = node;
      for (int n = node; n >= 0; n = came_from[n]) cause.chain.push_back(n);
      return;
    }
    for (const auto& in : g.node(node).input()) {
      const int p = in.empty() ? -1 : g.Producer(in);
      if (p < 0 || site.Changed(p) || !seen.insert(p).second) continue;
      came_from.try_emplace(p, node);
      side.push_back(p);
    }
  }
}

class Blamer {
 public:
  Blamer(const BlameInputs& in, absl::Span<const Matcher* const> matchers)
      : in_(in), matchers_(matchers) {}

  Cause Blame(const Pin& pin, std::vector<std::string>& weight_symbols) const {
    Cause cause;
    cause.graph = pin.requirement->graph;
    cause.pins = {&pin};
    cause.symbols = pin.symbols;
    // An input contract has no culprit: no size entered the graph anywhere. Neither has a
    // requirement that fails whatever the sizes.
    if (pin.contract || pin.always_false) return cause;
    const ir::Graph& main = in_.model.graph();
    auto moved = in_.evaluator.MoveSymbols(pin.symbols, pin.requirement);
    // Without a witness the model already fails where the search ended: blame from there.
    if (!moved && std::any_of(pin.symbols.begin(), pin.symbols.end(),
                              [&](const std::string& s) { return in_.solution.Unsolved(s); })) {
      moved = in_.solution.witness();
    }
    if (!moved || pin.requirement->graph != &main) return cause;
    const auto failure = in_.evaluator.FirstFailure(*moved);
    const infer::Requirement& failing = failure ? *failure->requirement : *pin.requirement;
    // The walk reads the main graph's nodes: a failure inside a subgraph has no culprit there.
    if (failing.node < 0 || failing.graph != &main) return cause;
    const LiteralSource literal =
        LiteralSideOf(in_.inference, failing, in_.specialized, in_.signature);
    if (literal.kind == LiteralSource::Kind::kWeight) {
      weight_symbols.insert(weight_symbols.end(), pin.symbols.begin(), pin.symbols.end());
    }
    const BlameSite site(in_.inference, in_.evaluator, in_.solution.witness(), *moved, pin, failing,
                         literal);
    Walk(site, matchers_, cause);
    return cause;
  }

 private:
  const BlameInputs& in_;
  absl::Span<const Matcher* const> matchers_;
};

// Adds `pin` to `cause`, which another pin was blamed on already.
void Merge(const Pin& pin, Cause& cause) {
  cause.pins.push_back(&pin);
  for (const auto& s : pin.symbols) {
    if (std::find(cause.symbols.begin(), cause.symbols.end(), s) == cause.symbols.end()) {
      cause.symbols.push_back(s);
    }
  }
  std::sort(cause.symbols.begin(), cause.symbols.end());
}

}  // namespace

bool BlameSite::Changed(int node) const {
  for (const auto& out : graph().node(node).output()) {
    if (out.empty()) continue;
    if (DimsAtWitness(out) != DimsAtMoved(out)) return true;
  }
  return false;
}

Blamed AssignCauses(const BlameInputs& in, const std::vector<Pin>& pins,
                    absl::Span<const Matcher* const> matchers) {
  const Blamer blamer(in, matchers);
  Blamed blamed;
  // Pins blamed on one node merge into one cause, unless different literals or rules claim
  // them there (an LSTM's weight fixes its input size, its folded initial state the batch).
  absl::flat_hash_map<std::tuple<int, const Matcher*, std::string>, size_t> by_site;
  for (const Pin& pin : pins) {
    Cause c = blamer.Blame(pin, blamed.weight_symbols);
    if (c.node >= 0) {
      auto [it, inserted] =
          by_site.emplace(std::make_tuple(c.node, c.owner, c.literal.name), blamed.causes.size());
      if (!inserted) {
        Merge(pin, blamed.causes[it->second]);
        continue;
      }
    }
    blamed.causes.push_back(std::move(c));
  }
  std::sort(blamed.weight_symbols.begin(), blamed.weight_symbols.end());
  blamed.weight_symbols.erase(
      std::unique(blamed.weight_symbols.begin(), blamed.weight_symbols.end()),
      blamed.weight_symbols.end());
  return blamed;
}

}  // namespace shapelint::lint
