// The plan judge for MLPs under data parallelism (the seed's pmap examples).
#include "costmodel/plan_internal.hpp"

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
#include "costmodel/collectives.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/model_size.hpp"
#include "costmodel/scaling.hpp"

namespace brigade::cost::detail {

using std::int64_t;

// ---- MLP (data parallel; the seed's pmap examples) ------------------------------------

Result<PlanEstimate> estimate_mlp(const Scenario& sc) {
  const MlpSpec& ms = sc.mlp;
  const StrategySpec& st = sc.strategy;
  const TrainingSpec& tr = sc.training;
  const Topology& topo = sc.topology;
  const bool training = !tr.inference;
  // check_plan (estimate_plan calls it first) has kept an MLP to data parallelism over
  // every device, with a batch that divides by it (batch sharding) or a leading axis equal
  // to it (pmap), and ZeRO to stages 1 and 2 under batch sharding.
  const int d = std::max(1, st.data);
  const int64_t B = global_batch(sc);
  const int64_t rows = per_replica_batch(sc);
  const int active = d;
  PlanEstimate e;
  e.name = sc.name;
  e.model_kind = "mlp";
  e.devices = active;
  const Device& dev = topo.device(0);
  const DeviceProfile& dp = sc.profile.for_device(dev);
  const DType dt = ms.dtype;
  const double w = dtype_bytes(dt);
  const double rd = static_cast<double>(rows);
  auto mem = [&](double bytes) { return memory_bound_seconds(dev, dp, bytes, dt); };
  double fwd = 0, bwd = 0;
  const size_t layers = ms.widths.size() - 1;
  for (size_t l = 0; l < layers; ++l) {
    const int64_t in = ms.widths[l], out = ms.widths[l + 1];
    const double out_bytes = rd * static_cast<double>(out) * w;
    fwd += gemm_seconds(dev, dp, rows, out, in, dt);
    // Bias add and activation are one fused elementwise kernel (XLA fuses them, and the
    // planner's graph has one op for both): it reads the GEMM output, writes the result.
    const bool activated = l + 1 < layers && ms.activation != "none";
    if (ms.bias || activated) fwd += mem(2 * out_bytes);
    if (training) {
      if (l > 0) bwd += gemm_seconds(dev, dp, rows, in, out, dt);  // input gradient (none for x)
      bwd += gemm_seconds(dev, dp, in, out, rows, dt);              // weight gradient
      if (ms.bias) bwd += mem(out_bytes);                          // bias gradient: sum over rows
      if (activated) bwd += mem(1.5 * 2 * out_bytes);
    }
  }
  if (training) fwd += mem(2 * rd * static_cast<double>(ms.widths.back()) * w);  // the loss
  e.compute_seconds = fwd + bwd;
  e.parameters = mlp_parameters(ms.widths, ms.bias);
  const BytesPerParameter per = bytes_per_parameter(optimizer_kind(tr.optimizer), dt,
                                                    tr.mixed_precision, training);
  CommLedger ledger;
  double exposed = 0;
  if (training && active > 1) {
    // The gradient pmean: an AllReduce of every gradient over the data devices, in buckets
    // overlapped with the backward pass. ZeRO-1/2 (Rajbhandari et al. 2020 §5): a
    // ReduceScatter instead (each replica updates its 1/d shard), then an AllGather of the
    // updated weights after the optimizer step (not overlapped); 2 Psi per step either way.
    std::vector<int> g;
    for (int i = 0; i < active; ++i) g.push_back(i);
    const double grad_bytes = e.parameters * per.grads;
    const CollectiveKind k = st.zero == 0 ? CollectiveKind::kAllReduce : CollectiveKind::kReduceScatter;
    BRIGADE_ASSIGN_OR_RETURN(Buckets gb, bucketed(sc, k, g, grad_bytes));
    exposed = exposed_after_overlap(gb.seconds, bwd, gb.last_seconds, st.overlap);
    ledger.add("data", kind_name(k), active, gb.count, grad_bytes, gb.seconds, exposed);
    if (st.zero > 0) {
      const double param_bytes = e.parameters * per.params;
      BRIGADE_ASSIGN_OR_RETURN(Buckets pg, bucketed(sc, CollectiveKind::kAllGather, g, param_bytes));
      exposed += pg.seconds;
      ledger.add("data", "allgather", active, pg.count, param_bytes, pg.seconds, pg.seconds);
    }
    e.notes.push_back(st.zero == 0
                          ? "the gradient pmean is one AllReduce per bucket of strategy.bucket_bytes"
                          : "ZeRO: gradients reduce-scattered per bucket, updated weights "
                            "all-gathered after the optimizer step");
  }
  if (training && tr.optimizer != Optimizer::kNone) {
    const double shard = st.zero >= 1 ? 1.0 / active : 1.0;
    e.optimizer_seconds =
        memory_bound_seconds(dev, dp, optimizer_step_bytes(e.parameters, per, shard), DType::kF32);
  }
  e.exposed_communication_seconds = exposed;
  e.step_seconds = e.compute_seconds + exposed + e.optimizer_seconds;
  e.communication = ledger.take();
  BRIGADE_ASSIGN_OR_RETURN(ModelStateBytes states, model_state_bytes(e.parameters, per, st.zero, active));
  const double act = mlp_activation_bytes(rd, ms.widths, dt, training);
  for (int i = 0; i < active; ++i)
    e.memory.push_back(memory_entry(i, 0, states, act, 0.0, topo.device(i).memory_bytes));
  const double Bd = static_cast<double>(B);
  e.model_flops_per_iteration = mlp_forward_flops(Bd, ms.widths, ms.bias) +
                                (training ? mlp_backward_flops(Bd, ms.widths, ms.bias) : 0.0);
  e.hardware_flops_per_iteration = e.model_flops_per_iteration;
  e.notes.push_back(st.data_mode == DataMode::kPmap
                        ? "pmap: device i computes x[i] (one row)"
                        : fmt::format("batch sharding: {} rows per device", rows));
  finish_flops(e, dev, sc.profile, dt);
  fill_amdahl(e);
  return e;
}

}  // namespace brigade::cost::detail
