// brigade collective KIND: one collective's time, algorithm and bus bandwidth
// in the alpha-beta model (costmodel/collectives.hpp), like one nccl-tests row.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/units.hpp"
#include "costmodel/collectives.hpp"

namespace brigade::cli {
namespace {

struct CollectiveOptions {
  std::string kind, algorithm = "ring", devices, bytes, alpha, bandwidth;
  std::string ranks_per_node, inter_alpha, inter_bandwidth, overhead = "0";
  bool json = false;
};

std::vector<std::string> kind_names() {
  std::vector<std::string> v;
  for (int i = 0; i < kNumCollectiveKinds; ++i)
    v.emplace_back(collective_kind_name(static_cast<CollectiveKind>(i)));
  return v;
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> v;
  for (auto a : {CollectiveAlgorithm::kRing, CollectiveAlgorithm::kTree,
                 CollectiveAlgorithm::kHalvingDoubling, CollectiveAlgorithm::kHierarchical})
    v.emplace_back(collective_algorithm_name(a));
  return v;
}

// The model's rules (costmodel's modelled_algorithm and check_algorithm),
// each error naming the flag that must change. Asked for explicitly, an
// algorithm the model would replace is refused rather than replaced.
void check_algorithm_fits(CollectiveKind kind, CollectiveAlgorithm algorithm, int ranks,
                          int ranks_per_node) {
  const std::string kind_name(collective_kind_name(kind));
  const std::string alg(collective_algorithm_name(algorithm));
  std::string why;
  const CollectiveAlgorithm modelled = cost::modelled_algorithm(kind, algorithm, &why);
  if (modelled != algorithm)
    throw_flag_error("--algorithm", alg,
                     cost::defined_algorithm_list(kind) + " for " + kind_name + " (" + why + ")");
  cost::AlgorithmFault fault = cost::AlgorithmFault::kNone;
  (void)cost::check_algorithm(kind, algorithm, ranks, &fault,  // its fault names the flag
                              algorithm == CollectiveAlgorithm::kHierarchical ? ranks_per_node : -1);
  if (fault == cost::AlgorithmFault::kAlgorithm)
    throw_flag_error("--algorithm", alg,
                     cost::defined_algorithm_list(kind) + " for " + kind_name +
                         " (hierarchical is defined for allreduce, allgather and reducescatter)");
  if (fault == cost::AlgorithmFault::kRanks)
    throw_flag_error("--devices", std::to_string(ranks),
                     "a power of two (1, 2, 4, 8, ...) for --algorithm halving-doubling");
  if (fault == cost::AlgorithmFault::kRanksPerNode)
    throw_flag_error("--ranks-per-node", std::to_string(ranks_per_node),
                     "a divisor of --devices " + std::to_string(ranks) + " (whole nodes)");
}

// The alpha-beta model's two terms apart (the seed's 2(N-1)alpha +
// 2(N-1)/N beta M): every closed form is alpha terms that do not depend on
// M plus beta terms proportional to it, so the alpha term is the time of
// the same collective of 0 bytes, less the call's overhead, and the beta
// term the rest.
struct AlphaBetaSplit {
  double alpha_seconds = 0;
  double beta_seconds = 0;
  double messages = -1;  // alpha term / alpha: the latencies paid in series (-1: not one alpha)
};

AlphaBetaSplit split_alpha_beta(const cost::CollectiveQuery& q, double seconds) {
  cost::CollectiveQuery empty = q;
  empty.bytes = 0;
  AlphaBetaSplit s;
  auto c0 = cost::collective_cost(empty);
  s.alpha_seconds = c0.is_ok() ? c0->seconds - q.overhead_seconds : 0;
  s.beta_seconds = seconds - q.overhead_seconds - s.alpha_seconds;
  const bool one_alpha = q.algorithm != CollectiveAlgorithm::kHierarchical || q.ranks_per_node >= q.ranks;
  if (one_alpha && q.intra.alpha_seconds > 0)
    s.messages = std::round(s.alpha_seconds / q.intra.alpha_seconds);
  return s;
}

void run_collective(const CollectiveOptions& o) {
  const auto kind_text = parse_collective_kind(o.kind);
  if (!kind_text) parse_choice_flag("KIND", o.kind, kind_names());  // throws with the choices
  const CollectiveKind kind = *kind_text;
  const CollectiveAlgorithm algorithm =
      *parse_collective_algorithm(parse_choice_flag("--algorithm", o.algorithm, algorithm_names()));

  cost::CollectiveQuery q;
  q.kind = kind;
  q.algorithm = algorithm;
  q.ranks = parse_int_flag("--devices", o.devices, 1);
  q.bytes = parse_quantity_flag("--bytes", o.bytes, Dimension::kBytes, Sign::kNonNegative);
  q.intra.alpha_seconds = parse_quantity_flag("--alpha", o.alpha, Dimension::kSeconds, Sign::kNonNegative);
  q.intra.bandwidth_bytes_per_second =
      parse_quantity_flag("--bandwidth", o.bandwidth, Dimension::kBytesPerSecond, Sign::kPositive);
  q.overhead_seconds =
      parse_quantity_flag("--overhead", o.overhead, Dimension::kSeconds, Sign::kNonNegative);

  const bool hierarchical = algorithm == CollectiveAlgorithm::kHierarchical;
  if (!hierarchical) {
    for (const auto& [flag, value] : {std::pair{"--ranks-per-node", &o.ranks_per_node},
                                      std::pair{"--inter-alpha", &o.inter_alpha},
                                      std::pair{"--inter-bandwidth", &o.inter_bandwidth}})
      if (!value->empty()) throw_flag_error(flag, *value, "it only with --algorithm hierarchical");
  } else {
    if (o.ranks_per_node.empty())
      throw BadInput{
          "brigade: error: --algorithm hierarchical: found no --ranks-per-node; expected "
          "--ranks-per-node G (and --inter-alpha, --inter-bandwidth when there are several nodes)"};
    q.ranks_per_node = parse_int_flag("--ranks-per-node", o.ranks_per_node, 1);
    const bool several_nodes = q.ranks_per_node < q.ranks;
    if (several_nodes && (o.inter_alpha.empty() || o.inter_bandwidth.empty()))
      throw BadInput{fmt::format(
          "brigade: error: --algorithm hierarchical: found no {}; expected --inter-alpha and "
          "--inter-bandwidth for {} ranks on nodes of {}",
          o.inter_alpha.empty() ? "--inter-alpha" : "--inter-bandwidth", q.ranks,
          q.ranks_per_node)};
    if (!o.inter_alpha.empty())
      q.inter.alpha_seconds =
          parse_quantity_flag("--inter-alpha", o.inter_alpha, Dimension::kSeconds, Sign::kNonNegative);
    if (!o.inter_bandwidth.empty())
      q.inter.bandwidth_bytes_per_second = parse_quantity_flag(
          "--inter-bandwidth", o.inter_bandwidth, Dimension::kBytesPerSecond, Sign::kPositive);
  }

  check_algorithm_fits(kind, algorithm, q.ranks, q.ranks_per_node);
  auto c = cost::collective_cost(q);
  if (!c.is_ok()) throw BadInput{"brigade: error: " + c.message()};
  const AlphaBetaSplit split = split_alpha_beta(q, c->seconds);

  if (o.json) {
    nlohmann::json j;
    j["kind"] = std::string(collective_kind_name(kind));
    j["algorithm"] = std::string(collective_algorithm_name(algorithm));
    j["devices"] = q.ranks;
    j["bytes"] = q.bytes;
    j["alpha_seconds"] = q.intra.alpha_seconds;
    j["bandwidth_bytes_per_second"] = q.intra.bandwidth_bytes_per_second;
    if (hierarchical) {
      j["ranks_per_node"] = q.ranks_per_node;
      j["inter_alpha_seconds"] = q.inter.alpha_seconds;
      j["inter_bandwidth_bytes_per_second"] = q.inter.bandwidth_bytes_per_second;
    }
    j["overhead_seconds"] = q.overhead_seconds;
    j["seconds"] = c->seconds;
    // seconds = alpha_term_seconds + beta_term_seconds + overhead_seconds.
    j["alpha_term_seconds"] = split.alpha_seconds;
    j["beta_term_seconds"] = split.beta_seconds;
    if (split.messages >= 0) j["alpha_messages"] = split.messages;
    if (q.ranks == 1) {
      // One rank moves nothing: no bandwidth to speak of (issue 20, item 6).
      j["alg_bandwidth"] = nullptr;
      j["bus_bandwidth"] = nullptr;
      j["note"] = "one rank moves nothing";
    } else {
      j["alg_bandwidth"] = c->alg_bandwidth_bytes_per_second;
      j["bus_bandwidth"] = c->bus_bandwidth_bytes_per_second;
    }
    j["bus_bandwidth_factor"] = cost::bus_bandwidth_factor(kind, q.ranks);
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{} of {} over {} device{}, {} algorithm\n", collective_kind_name(kind),
                           format_bytes(q.bytes), q.ranks, q.ranks == 1 ? "" : "s",
                           collective_algorithm_name(algorithm));
  std::cout << fmt::format("  time   {:>12}\n", format_seconds(c->seconds));
  if (q.ranks > 1) {  // one rank moves nothing: no terms to tell apart
    std::cout << fmt::format(
        "    α term {:>10}   latency: paid even for 0 bytes{}\n",
        format_seconds(split.alpha_seconds),
        split.messages >= 0 ? fmt::format(" ({:.0f} latencies of {} in series)", split.messages,
                                          format_seconds(q.intra.alpha_seconds))
                            : std::string());
    std::cout << fmt::format(
        "    β term {:>10}   bandwidth: grows with the bytes (β = 1/bandwidth)\n",
        format_seconds(split.beta_seconds));
  }
  if (q.overhead_seconds > 0)
    std::cout << fmt::format("    overhead {:>8}   once per call\n",
                             format_seconds(q.overhead_seconds));
  if (q.ranks == 1) {
    std::cout << "  one rank moves nothing: no algorithm or bus bandwidth\n";
    return;
  }
  std::cout << fmt::format("  algBw  {:>12}   (bytes / time)\n",
                           format_bandwidth(c->alg_bandwidth_bytes_per_second));
  std::cout << fmt::format("  busBw  {:>12}   (algBw x {:.4g}, nccl-tests)\n",
                           format_bandwidth(c->bus_bandwidth_bytes_per_second),
                           cost::bus_bandwidth_factor(kind, q.ranks));
}

const RegisterVerb kRegister("collective", 40, [](CLI::App& app) {
  auto o = std::make_shared<CollectiveOptions>();
  CLI::App* sub = app.add_subcommand(
      "collective",
      "Time, algorithm bandwidth and bus bandwidth of one collective in the alpha-beta model");
  sub->add_option("KIND", o->kind,
                  "allreduce, allgather, reducescatter, broadcast, reduce or alltoall")
      ->required();
  sub->add_option("--devices", o->devices, "number of ranks N")->required();
  sub->add_option("--bytes", o->bytes,
                  "message size M as nccl-tests' size (1GiB, 4096, ...)")->required();
  sub->add_option("--alpha", o->alpha, "latency per message (5us, 2e-6, ...)")->required();
  sub->add_option("--bandwidth", o->bandwidth, "link bandwidth per direction (25GB/s, 200Gbps, ...)")
      ->required();
  sub->add_option("--algorithm", o->algorithm, "ring (default), tree, halving-doubling, hierarchical");
  sub->add_option("--ranks-per-node", o->ranks_per_node, "hierarchical: ranks per node G");
  sub->add_option("--inter-alpha", o->inter_alpha, "hierarchical: inter-node latency");
  sub->add_option("--inter-bandwidth", o->inter_bandwidth, "hierarchical: inter-node bandwidth per rail");
  sub->add_option("--overhead", o->overhead, "fixed cost per call (default 0)");
  sub->add_flag("--json", o->json, "print one JSON object (SI units)");
  sub->callback([o] { run_collective(*o); });
});

}  // namespace
}  // namespace brigade::cli
