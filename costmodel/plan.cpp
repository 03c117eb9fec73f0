// The closed-form plan judge. One function per model kind; every duration
// comes from the formulas of collectives.hpp, compute.hpp (core's
// kernel_seconds), memory.hpp, model_size.hpp and scaling.hpp; this file
// only decides which kernels and collectives a plan has and how they overlap.
#include "costmodel/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/plan_check.hpp"
#include "core/units.hpp"
#include "costmodel/plan_memo.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/model_size.hpp"
#include "costmodel/plan_internal.hpp"
#include "costmodel/scaling.hpp"


namespace brigade::cost {
namespace detail {

Status bad_at(const Scenario& sc, const std::string& key, const std::string& message,
              ErrorKind kind) {
  return Status::at(sc.where(key), message, kind);
}

// A collective on a group of devices; a group of one is no collective at all.
Result<double> collective_seconds(const Topology& topo, const HardwareProfile& prof,
                                  CollectiveKind kind, CollectiveAlgorithm algorithm,
                                  const std::vector<int>& group, double bytes) {
  if (group.size() <= 1 || bytes <= 0) return 0.0;
  // A search's memo (costmodel/plan_memo.hpp), when one is installed.
  PlanMemo* memo = PlanMemo::current(topo, prof);
  if (memo != nullptr)
    if (auto t = memo->find_collective(kind, algorithm, group, bytes)) return *t;
  BRIGADE_ASSIGN_OR_RETURN(CollectiveQuery q,
                           collective_query_on(topo, prof, kind, algorithm, group, bytes));
  BRIGADE_ASSIGN_OR_RETURN(CollectiveCost c, collective_cost(q));
  if (memo != nullptr) memo->store_collective(kind, algorithm, group, bytes, c.seconds);
  return c.seconds;
}

// The same, with a failure reported at the strategy's `algorithm` key.
Result<double> plan_collective(const Scenario& sc, CollectiveKind kind,
                               const std::vector<int>& group, double bytes) {
  auto r = collective_seconds(sc.topology, sc.profile, kind, sc.strategy.algorithm, group, bytes);
  if (!r.is_ok()) return bad_at(sc, "strategy.algorithm", r.message());
  return r;
}

Result<Buckets> bucketed(const Scenario& sc, CollectiveKind kind, const std::vector<int>& group,
                         double bytes) {
  Buckets b;
  if (group.size() <= 1 || bytes <= 0) return b;
  const double bucket = sc.strategy.bucket_bytes > 0 ? sc.strategy.bucket_bytes : bytes;
  b.count = std::ceil(bytes / bucket);
  BRIGADE_ASSIGN_OR_RETURN(double one, plan_collective(sc, kind, group, bytes / b.count));
  b.seconds = b.count * one;
  b.last_seconds = one;
  return b;
}

// The overlap model of communication issued while compute of length `window`
// proceeds (gradient buckets during backward, ZeRO-3 prefetches): the stream
// of calls hides behind the window except that the last call cannot start
// before the window ends. exposed = max(last call, total - window).
double exposed_after_overlap(double total, double window, double last_call, bool overlap) {
  if (!overlap) return total;
  return std::min(total, std::max(last_call, total - window));
}

std::string kind_name(CollectiveKind k) { return std::string(collective_kind_name(k)); }

// Amdahl through the plan: with a compute share c of the step at N0 devices
// and the rest serial, Amdahl's T(N0) = T1((1-p) + p/N0) has serial share
// (1-p) / ((1-p) + p/N0) = 1 - c, so p = N0 c / (N0 c + 1 - c).
void fill_amdahl(PlanEstimate& e) {
  if (e.step_seconds <= 0 || e.devices < 1) return;
  const double c = std::clamp(e.compute_seconds / e.step_seconds, 0.0, 1.0);
  const double n0 = e.devices;
  e.amdahl_p = (n0 * c + (1 - c)) > 0 ? n0 * c / (n0 * c + (1 - c)) : 0.0;
  std::set<int> ns;
  for (int n = 1; n <= 2 * e.devices; n *= 2) ns.insert(n);
  ns.insert(e.devices);
  for (int n : ns) {
    const double s = amdahl_speedup(e.amdahl_p, n);
    e.amdahl.push_back({n, s, parallel_efficiency(s, n)});
  }
}

void finish_flops(PlanEstimate& e, const Device& d, const HardwareProfile& profile, DType dtype) {
  if (e.step_seconds <= 0 || e.devices < 1) return;
  e.achieved_flops_per_second_per_device = e.hardware_flops_per_iteration / e.step_seconds / e.devices;
  const double peak = peak_flops_per_second(d, profile.for_device(d), dtype);
  if (peak > 0) e.mfu = e.model_flops_per_iteration / e.step_seconds / e.devices / peak;
}

DeviceMemoryEstimate memory_entry(int device, int stage, const ModelStateBytes& states,
                                  double activations, double other, double capacity) {
  DeviceMemoryEstimate m;
  m.device = device;
  m.stage = stage;
  MemoryBreakdown b{states.params_bytes, states.grads_bytes, states.optimizer_bytes, activations,
                    other};
  m.params_bytes = b.params_bytes;
  m.grads_bytes = b.grads_bytes;
  m.optimizer_bytes = b.optimizer_bytes;
  m.activations_bytes = b.activations_bytes;
  m.other_bytes = b.other_bytes;
  m.peak_bytes = b.peak_bytes();
  m.capacity_bytes = capacity;
  m.fits = m.peak_bytes <= capacity;
  return m;
}

// Memory traffic of one optimizer step over n local parameters (memory.hpp's rule).
double optimizer_step_bytes(double local_params, const BytesPerParameter& per,
                            double sharded_fraction) {
  return local_params * sharded_fraction * optimizer_step_bytes_per_parameter(per);
}

// ---- one collective on its own ---------------------------------------------------------

Result<PlanEstimate> estimate_collective(const Scenario& sc) {
  const CollectiveBenchSpec& cs = sc.collective;
  std::vector<int> group = cs.group;
  if (group.empty())
    for (int i = 0; i < sc.topology.num_devices(); ++i) group.push_back(i);
  auto q = collective_query_on(sc.topology, sc.profile, cs.kind, cs.algorithm, group, cs.bytes);
  if (!q.is_ok()) return bad_at(sc, "model.collective", q.message());
  auto c = collective_cost(*q);
  if (!c.is_ok()) return bad_at(sc, "model.collective", c.message());
  PlanEstimate e;
  e.name = sc.name;
  e.model_kind = "collective";
  e.devices = static_cast<int>(group.size());
  e.step_seconds = c->seconds;
  e.exposed_communication_seconds = c->seconds;
  CommLedger ledger;
  ledger.add("collective", kind_name(cs.kind), e.devices, 1, cs.bytes, c->seconds, c->seconds);
  e.communication = ledger.take();
  for (int dev : group)
    e.memory.push_back(memory_entry(dev, 0, ModelStateBytes{}, 0.0, cs.bytes,
                                    sc.topology.device(dev).memory_bytes));
  e.notes.push_back(fmt::format(
      "{} {}: algBw {}, busBw {} (nccl-tests); memory is the M-byte buffer per rank",
      collective_algorithm_name(cs.algorithm), collective_kind_name(cs.kind),
      format_bandwidth(c->alg_bandwidth_bytes_per_second), format_bandwidth(c->bus_bandwidth_bytes_per_second)));
  return e;
}

}  // namespace detail

Result<PlanEstimate> estimate_plan(const Scenario& scenario) {
  return estimate_plan(scenario, EstimateOptions{});
}

Result<PlanEstimate> estimate_plan(const Scenario& scenario, const EstimateOptions& options) {
  using namespace detail;
  BRIGADE_RETURN_IF_ERROR(check_plan(scenario));
  switch (scenario.model_kind) {
    case ModelKind::kTransformer: return estimate_transformer(scenario, options);
    case ModelKind::kMlp: return estimate_mlp(scenario);
    case ModelKind::kGraph:
      if (scenario.mesh && !scenario.shardings.empty()) return estimate_sharded(scenario);
      return estimate_placement(scenario);
    case ModelKind::kCollective: return estimate_collective(scenario);
    case ModelKind::kNone: break;
  }
  return bad_at(scenario, "model",
                "found no model; expected one of mlp, transformer, graph or collective");
}

}  // namespace brigade::cost
