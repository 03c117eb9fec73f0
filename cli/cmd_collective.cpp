// brigade collective KIND: one collective's time, algorithm and bus bandwidth,
// like one nccl-tests row: in the alpha-beta model (costmodel/collectives.hpp)
// from --alpha and --bandwidth, or on a preset's devices (--preset) in either
// model, NCCL's (costmodel/nccl_model.hpp: its protocol and algorithm choice,
// every candidate listed) or alpha-beta on the preset's routes.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/profile.hpp"
#include "core/topology.hpp"
#include "core/units.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/nccl_model.hpp"

namespace brigade::cli {
namespace {

struct CollectiveOptions {
  std::string kind, algorithm, devices, bytes, alpha, bandwidth;
  std::string ranks_per_node, inter_alpha, inter_bandwidth, overhead;
  std::string model = "alpha-beta", preset, nodes, profile, nccl_version;
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

// On a preset: NCCL's algorithms (auto: NCCL's choice) or the alpha-beta
// model's (auto: the ring).
std::vector<std::string> preset_algorithm_names(CollectiveModel model) {
  std::vector<std::string> v;
  if (model == CollectiveModel::kNccl) {
    for (auto a : {CollectiveAlgorithm::kAuto, CollectiveAlgorithm::kRing, CollectiveAlgorithm::kTree,
                   CollectiveAlgorithm::kNvls})
      v.emplace_back(collective_algorithm_name(a));
    return v;
  }
  v = algorithm_names();
  v.insert(v.begin(), "auto");
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

// The time, algBw and busBw lines shared by both forms of the verb.
// `terms`: lines printed between the time and the bandwidths (the alpha-beta
// model's terms apart).
void print_times(const cost::CollectiveCost& c, CollectiveKind kind, int ranks,
                 const std::string& terms = {}) {
  std::cout << fmt::format("  time   {:>12}\n", format_seconds(c.seconds));
  std::cout << terms;
  if (ranks == 1) {
    std::cout << "  one rank moves nothing: no algorithm or bus bandwidth\n";
    return;
  }
  std::cout << fmt::format("  algBw  {:>12}   (bytes / time)\n",
                           format_bandwidth(c.alg_bandwidth_bytes_per_second));
  std::cout << fmt::format("  busBw  {:>12}   (algBw x {:.4g}, nccl-tests)\n",
                           format_bandwidth(c.bus_bandwidth_bytes_per_second),
                           cost::bus_bandwidth_factor(kind, ranks));
}

void run_on_preset(const CollectiveOptions& o, CollectiveKind kind, CollectiveModel model);

void require_flag(std::string_view flag, const std::string& value, std::string_view when) {
  if (value.empty())
    throw BadInput{fmt::format(
        "brigade: error: {}: found nothing; expected a value ({} is required {}; see 'brigade "
        "collective --help')",
        flag, flag, when)};
}

void run_collective(const CollectiveOptions& o) {
  const auto kind_text = parse_collective_kind(o.kind);
  if (!kind_text) parse_choice_flag("KIND", o.kind, kind_names());  // throws with the choices
  const CollectiveKind kind = *kind_text;
  const CollectiveModel model =
      parse_choice_flag("--model", o.model, {"alpha-beta", "nccl"}) == "nccl"
          ? CollectiveModel::kNccl
          : CollectiveModel::kAlphaBeta;
  if (!o.preset.empty() || model == CollectiveModel::kNccl) {
    run_on_preset(o, kind, model);
    return;
  }
  if (!o.nodes.empty()) throw_flag_error("--nodes", o.nodes, "it only with --preset");
  if (!o.profile.empty()) throw_flag_error("--profile", o.profile, "it only with --preset");
  if (!o.nccl_version.empty())
    throw_flag_error("--nccl-version", o.nccl_version, "it only with --preset");
  require_flag("--alpha", o.alpha, "without --preset");
  require_flag("--bandwidth", o.bandwidth, "without --preset");
  const CollectiveAlgorithm algorithm = *parse_collective_algorithm(
      parse_choice_flag("--algorithm", o.algorithm.empty() ? "ring" : o.algorithm, algorithm_names()));

  cost::CollectiveQuery q;
  q.kind = kind;
  q.algorithm = algorithm;
  q.ranks = parse_int_flag("--devices", o.devices, 1);
  q.bytes = parse_quantity_flag("--bytes", o.bytes, Dimension::kBytes, Sign::kNonNegative);
  q.intra.alpha_seconds = parse_quantity_flag("--alpha", o.alpha, Dimension::kSeconds, Sign::kNonNegative);
  q.intra.bandwidth_bytes_per_second =
      parse_quantity_flag("--bandwidth", o.bandwidth, Dimension::kBytesPerSecond, Sign::kPositive);
  q.overhead_seconds = parse_quantity_flag("--overhead", o.overhead.empty() ? "0" : o.overhead,
                                           Dimension::kSeconds, Sign::kNonNegative);

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
  const cost::AlphaBetaSplit split = cost::split_alpha_beta(q, c->seconds);

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
  std::string terms;  // the time's terms apart, between the time and the bandwidths
  if (q.ranks > 1) {    // one rank moves nothing: no terms to tell apart
    terms += fmt::format(
        "    α term {:>10}   latency: paid even for 0 bytes{}\n",
        format_seconds(split.alpha_seconds),
        split.messages >= 0 ? fmt::format(" ({:.0f} latencies of {} in series)", split.messages,
                                          format_seconds(q.intra.alpha_seconds))
                            : std::string());
    terms += fmt::format("    β term {:>10}   bandwidth: grows with the bytes (β = 1/bandwidth)\n",
                         format_seconds(split.beta_seconds));
  }
  if (q.overhead_seconds > 0)
    terms += fmt::format("    overhead {:>8}   once per call\n", format_seconds(q.overhead_seconds));
  print_times(*c, kind, q.ranks, terms);
}

// The collective on the first --devices devices of a preset (--nodes nodes),
// timed with the preset's profile (or --profile's) in `model`.
void run_on_preset(const CollectiveOptions& o, CollectiveKind kind, CollectiveModel model) {
  const char* model_name = model == CollectiveModel::kNccl ? "nccl" : "alpha-beta";
  if (o.preset.empty())
    throw BadInput{
        "brigade: error: --model nccl: found no --preset; expected --preset NAME (" +
        fmt::format("{}", fmt::join(preset_names(), ", ")) +
        "): NCCL's model times a collective on real devices and their NCCL tables"};
  for (const auto& [flag, value] :
       {std::pair{"--alpha", &o.alpha}, std::pair{"--bandwidth", &o.bandwidth},
        std::pair{"--overhead", &o.overhead}, std::pair{"--ranks-per-node", &o.ranks_per_node},
        std::pair{"--inter-alpha", &o.inter_alpha}, std::pair{"--inter-bandwidth", &o.inter_bandwidth}})
    if (!value->empty())
      throw_flag_error(flag, *value,
                       "it only without --preset (the preset's routes and profile give latency, "
                       "bandwidth and nodes)");
  const int nodes = o.nodes.empty() ? 1 : parse_int_flag("--nodes", o.nodes, 1);
  auto topology = make_preset(o.preset, nodes);
  if (!topology.is_ok()) {
    if (topology.message().rfind("found preset", 0) == 0)
      throw BadInput{"brigade: error: --preset: " + topology.message()};
    throw BadInput{"brigade: error: --nodes: " + topology.message()};
  }
  if (Status st = topology->validate(); !st.is_ok()) throw_status(st);
  const int ranks = parse_int_flag("--devices", o.devices, 1);
  if (ranks > topology->num_devices())
    throw_flag_error("--devices", o.devices,
                     fmt::format("at most {} (the devices of {} on {} node{}; more with --nodes)",
                                 topology->num_devices(), o.preset, nodes, nodes == 1 ? "" : "s"));
  const double bytes = parse_quantity_flag("--bytes", o.bytes, Dimension::kBytes, Sign::kNonNegative);
  const std::string alg_text = o.algorithm.empty() ? "auto" : o.algorithm;
  const CollectiveAlgorithm algorithm = *parse_collective_algorithm(
      parse_choice_flag("--algorithm", alg_text, preset_algorithm_names(model)));
  // The NCCL release whose tuning model the preset's tables follow.
  const bool version_given = !o.nccl_version.empty();
  const NcclVersion version = version_given
                                  ? parse_nccl_version_flag("--nccl-version", o.nccl_version)
                                  : kDefaultNcclVersion;
  HardwareProfile profile = HardwareProfile::defaults(version);
  if (!o.profile.empty()) {
    auto p = load_profile(o.profile);
    if (!p.is_ok()) throw_status(p.status());
    profile = std::move(p).value();
    bool mixed = false;
    const std::optional<NcclVersion> v = profile.nccl_version(&mixed);
    if (version_given && (mixed || (v && *v != version)))
      throw_flag_error("--nccl-version", o.nccl_version,
                       fmt::format("the version of --profile {}'s NCCL tables ({}), or no "
                                   "--nccl-version",
                                   o.profile, mixed ? "several" : nccl_version_name(*v)));
  }
  profile.collective_model = model;
  std::vector<int> group;
  for (int d = 0; d < ranks; ++d) group.push_back(d);

  auto q = cost::collective_query_on(*topology, profile, kind, algorithm, group, bytes);
  if (!q.is_ok()) throw BadInput{"brigade: error: --algorithm: " + q.message()};
  auto c = cost::collective_cost(*q);
  if (!c.is_ok()) throw BadInput{"brigade: error: " + c.message()};
  std::optional<cost::NcclChoice> choice;
  if (q->nccl) {
    auto x = cost::nccl_collective(*topology, profile, kind, algorithm, group, bytes);
    if (!x.is_ok()) throw BadInput{"brigade: error: --algorithm: " + x.message()};
    choice = **x;
  }
  // An AllToAll over nodes is NCCL's grouped sends (cost::alltoall_split_seconds).
  const bool split = q->local_peers > 0 && q->remote_peers > 0;
  const std::string chosen =
      choice ? fmt::format("{}/{}", nccl_algorithm_name(choice->chosen.algorithm),
                           nccl_protocol_name(choice->chosen.protocol))
      : split
          ? fmt::format("grouped sends, a rank's {} peers on its node beside its {} on others",
                        q->local_peers, q->remote_peers)
          : std::string(collective_algorithm_name(cost::modelled_algorithm(kind, q->algorithm, nullptr)));

  if (o.json) {
    nlohmann::json j;
    j["kind"] = std::string(collective_kind_name(kind));
    j["model"] = model_name;
    j["preset"] = o.preset;
    j["nodes"] = nodes;
    j["devices"] = ranks;
    j["bytes"] = bytes;
    j["algorithm"] = std::string(collective_algorithm_name(algorithm));
    j["seconds"] = c->seconds;
    if (ranks == 1) {
      j["alg_bandwidth"] = nullptr;
      j["bus_bandwidth"] = nullptr;
      j["note"] = "one rank moves nothing";
    } else {
      j["alg_bandwidth"] = c->alg_bandwidth_bytes_per_second;
      j["bus_bandwidth"] = c->bus_bandwidth_bytes_per_second;
    }
    if (choice) {
      bool mixed = false;
      if (const std::optional<NcclVersion> v = profile.nccl_version(&mixed))
        j["nccl_version"] = std::string(nccl_version_name(*v));
      j["nccl_algorithm"] = std::string(nccl_algorithm_name(choice->chosen.algorithm));
      j["nccl_protocol"] = std::string(nccl_protocol_name(choice->chosen.protocol));
      j["candidates"] = nlohmann::json::array();
      for (const cost::NcclEstimate& e : choice->candidates) {
        nlohmann::json k;
        k["algorithm"] = std::string(nccl_algorithm_name(e.algorithm));
        k["protocol"] = std::string(nccl_protocol_name(e.protocol));
        k["available"] = e.available;
        if (e.available) {
          k["seconds"] = e.seconds;
          k["latency_seconds"] = e.latency_seconds;
          k["bus_bandwidth"] = e.bus_bandwidth_bytes_per_second;
          k["alg_bandwidth"] = e.alg_bandwidth_bytes_per_second;
          k["model_seconds"] = e.model_seconds;
          if (e.channels > 0) k["channels"] = e.channels;
          if (e.chunk_bytes > 0) k["chunk_bytes"] = e.chunk_bytes;  // NVLS and NVLS-tree
        } else {
          k["why_not"] = e.why_not;
        }
        j["candidates"].push_back(k);
      }
    } else {
      j["modelled_algorithm"] = chosen;
      if (split) {
        j["local_peers"] = q->local_peers;
        j["remote_peers"] = q->remote_peers;
      }
    }
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{} of {} over {} device{} of {}{}, {} model: {}\n",
                           collective_kind_name(kind), format_bytes(bytes), ranks,
                           ranks == 1 ? "" : "s", o.preset,
                           nodes > 1 ? fmt::format(" x {} nodes", nodes) : std::string(),
                           model_name, ranks == 1 ? "nothing to do" : chosen);
  print_times(*c, kind, ranks);
  if (!choice || ranks == 1) return;
  bool mixed = false;
  const std::optional<NcclVersion> shown = profile.nccl_version(&mixed);
  std::cout << fmt::format("  NCCL {}'s estimates (src/graph/tuning.cc), * its choice:\n",
                           shown ? nccl_version_name(*shown) : "?");
  for (const cost::NcclEstimate& e : choice->candidates) {
    const std::string label = fmt::format("{}/{}", nccl_algorithm_name(e.algorithm),
                                          nccl_protocol_name(e.protocol));
    if (!e.available) {
      std::cout << fmt::format("    {:<12} not available: {}\n", label, e.why_not);
      continue;
    }
    const bool star = e.algorithm == choice->chosen.algorithm && e.protocol == choice->chosen.protocol;
    std::cout << fmt::format("  {} {:<12} {:>12}  latency {:>10}  busBw {:>12}\n", star ? "*" : " ",
                             label, format_seconds(e.seconds), format_seconds(e.latency_seconds),
                             format_bandwidth(e.bus_bandwidth_bytes_per_second));
  }
}

const RegisterVerb kRegister("collective", 40, [](CLI::App& app) {
  auto o = std::make_shared<CollectiveOptions>();
  CLI::App* sub = app.add_subcommand(
      "collective",
      "Time, algorithm bandwidth and bus bandwidth of one collective: the alpha-beta model, or "
      "NCCL's protocol and algorithm choice on a preset's devices");
  sub->add_option("KIND", o->kind,
                  "allreduce, allgather, reducescatter, broadcast, reduce or alltoall")
      ->required();
  sub->add_option("--devices", o->devices, "number of ranks N")->required();
  sub->add_option("--bytes", o->bytes,
                  "message size M as nccl-tests' size (1GiB, 4096, ...)")->required();
  sub->add_option("--alpha", o->alpha, "latency per message (5us, 2e-6, ...); without --preset");
  sub->add_option("--bandwidth", o->bandwidth,
                  "link bandwidth per direction (25GB/s, 200Gbps, ...); without --preset");
  sub->add_option("--model", o->model,
                  "alpha-beta (default; teaching) or nccl (NCCL's tuning model; needs --preset)");
  sub->add_option("--preset", o->preset,
                  "time it on this preset's first --devices devices (dgx-a100, dgx-h100, ...)");
  sub->add_option("--nodes", o->nodes, "with --preset: nodes of the preset (default 1)");
  sub->add_option("--profile", o->profile, "with --preset: a profile file instead of the defaults");
  sub->add_option("--nccl-version", o->nccl_version,
                  "with --preset: the NCCL release whose tuning model the preset's NCCL tables "
                  "follow, 2.24 or 2.29 (default 2.29)");
  sub->add_option("--algorithm", o->algorithm,
                  "ring (default), tree, halving-doubling, hierarchical; with --preset also auto "
                  "(the default: NCCL's choice) and nvls");
  sub->add_option("--ranks-per-node", o->ranks_per_node, "hierarchical: ranks per node G");
  sub->add_option("--inter-alpha", o->inter_alpha, "hierarchical: inter-node latency");
  sub->add_option("--inter-bandwidth", o->inter_bandwidth, "hierarchical: inter-node bandwidth per rail");
  sub->add_option("--overhead", o->overhead, "fixed cost per call (default 0)");
  sub->add_flag("--json", o->json, "print one JSON object (SI units)");
  sub->callback([o] { run_collective(*o); });
});

}  // namespace
}  // namespace brigade::cli
