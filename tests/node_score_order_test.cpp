// NodeScoreOrder (the nodes that fit, best score first, refreshed from a change log) against a
// scan of every node in node order keeping the first strictly better score, on random changes of
// random nodes' fits; and a log that no longer reaches back makes it score every node again.
#include "policies/node_score_order.h"

#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <vector>

using namespace dlsim;

namespace {

using Fit = NodeScoreOrder::Fit;

// The scan the order stands for: the first node of the highest score.
std::optional<std::pair<NodeId, Fit>> scan(const std::vector<std::optional<Fit>>& fits) {
  std::optional<std::pair<NodeId, Fit>> best;
  for (NodeId n = 0; n < fits.size(); ++n) {
    if (fits[n] && (!best || fits[n]->score > best->second.score)) best.emplace(n, *fits[n]);
  }
  return best;
}

} // namespace

TEST_CASE("NodeScoreOrder picks the node a scan in node order picks", "[node_score_order]") {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const auto nodes = static_cast<NodeId>(1 + rng() % 30);
    // Few distinct scores, so that ties (to the lower node id) are common.
    const auto scores = static_cast<int>(1 + rng() % 5);
    auto draw = [&]() -> std::optional<Fit> {
      if (rng() % 3 == 0) return std::nullopt;
      return Fit{static_cast<double>(static_cast<int>(rng() % scores)),
                 static_cast<DeviceTypeId>(rng() % 3)};
    };
    std::vector<std::optional<Fit>> truth(nodes);
    for (auto& f : truth)
      f = draw();
    ChangeLog log;
    log.init(nodes);
    NodeScoreOrder order;
    int calls = 0;
    auto fit_of = [&](NodeId n) {
      ++calls;
      return truth[n];
    };
    for (int step = 0; step < 60; ++step) {
      // Change a few nodes and mark them, as the runtime marks the nodes whose free resources
      // changed; an unmarked node keeps its fit.
      const auto changed = rng() % 4;
      for (unsigned k = 0; k < changed; ++k) {
        const auto n = static_cast<NodeId>(rng() % nodes);
        truth[n] = draw();
        log.mark(n);
      }
      calls = 0;
      order.refresh(log, nodes, fit_of);
      // Only the marked nodes are scored again once the order is built (repeats count once).
      if (step > 0) CHECK(calls <= static_cast<int>(changed));
      const auto want = scan(truth);
      const auto got = order.best();
      REQUIRE(got.has_value() == want.has_value());
      if (!want) continue;
      CHECK(got->first == want->first);
      CHECK(got->second.score == want->second.score);
      CHECK(got->second.type == want->second.type);
    }
  }
}

TEST_CASE("NodeScoreOrder scores every node again when the log started over",
          "[node_score_order]") {
  // One node, so the log keeps 1 + 1,024 marks: 2,000 marks start it over.
  ChangeLog log;
  log.init(1);
  std::optional<Fit> truth = Fit{1.0, 0};
  NodeScoreOrder order;
  int calls = 0;
  auto fit_of = [&](NodeId) {
    ++calls;
    return truth;
  };
  order.refresh(log, 1, fit_of);
  CHECK(calls == 1);
  CHECK(order.best()->second.score == 1.0);
  for (int i = 0; i < 2000; ++i)
    log.mark(0);
  truth = std::nullopt;
  calls = 0;
  order.refresh(log, 1, fit_of);
  CHECK(calls == 1);
  CHECK_FALSE(order.best().has_value());
}
