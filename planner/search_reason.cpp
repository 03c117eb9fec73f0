// Why a plan loses to the winner, in words derived from the two plans'
// figures: the part of the step where the loser spends the most extra time
// (compute, pipeline bubble, exposed communication, optimizer), or, under
// the memory objective, its extra bytes.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/units.hpp"
#include "planner/search_internal.hpp"

namespace brigade::planner::detail {
namespace {

std::string pct(double part, double whole) {
  return whole > 0 ? fmt::format("{:.0f}%", 100 * part / whole) : std::string("0%");
}

std::string purpose_name(const std::string& purpose) {
  if (purpose == "data") return "data-parallel";
  if (purpose == "tensor") return "tensor-parallel";
  if (purpose == "pipeline") return "pipeline";
  if (purpose == "zero-3 params") return "ZeRO-3 parameter";
  if (purpose == "transfer") return "cross-device";
  if (purpose == "sharding") return "resharding";
  if (purpose == "context") return "ring attention's KV exchange";
  return purpose;
}

std::string kind_label(const std::string& kind) {
  if (kind == "allreduce") return "AllReduce";
  if (kind == "allgather") return "AllGather";
  if (kind == "reducescatter") return "ReduceScatter";
  if (kind == "alltoall") return "AllToAll";
  if (kind == "p2p") return "sends";
  return kind;
}

// Exposed seconds by (purpose, kind).
std::map<std::pair<std::string, std::string>, const RankedPlan::Comm*> by_purpose(const RankedPlan& p) {
  std::map<std::pair<std::string, std::string>, const RankedPlan::Comm*> m;
  for (const auto& c : p.communication) m[{c.purpose, c.kind}] = &c;
  return m;
}

// The keys that change a device's kernels, where two transformer plans differ:
// " (here pipeline 35, recompute none; winner pipeline 7, recompute selective)".
std::string compute_cause(const RankedPlan& a, const RankedPlan& w) {
  if (!a.point || !w.point) return "";
  const StrategyPoint& p = *a.point;
  const StrategyPoint& q = *w.point;
  std::string here, there;
  auto add = [&](const std::string& key, const std::string& x, const std::string& y) {
    if (x == y) return;
    here += (here.empty() ? "" : ", ") + key + " " + x;
    there += (there.empty() ? "" : ", ") + key + " " + y;
  };
  add("tensor", std::to_string(p.tensor), std::to_string(q.tensor));
  add("pipeline", std::to_string(p.pipeline), std::to_string(q.pipeline));
  add("expert", std::to_string(p.expert), std::to_string(q.expert));
  add("context", std::to_string(p.context), std::to_string(q.context));
  add("micro-batch", std::to_string(p.micro_batch), std::to_string(q.micro_batch));
  add("recompute", std::string(recompute_name(p.recompute)), std::string(recompute_name(q.recompute)));
  add("sp", p.sequence_parallel ? "on" : "off", q.sequence_parallel ? "on" : "off");
  if (here.empty()) return "";
  return " (here " + here + "; winner " + there + ")";
}

}  // namespace

MemoryFigures memory_figures(const cost::PlanEstimate& e) {
  MemoryFigures f;
  double worst = -1e300;
  for (const cost::DeviceMemoryEstimate& m : e.memory) {
    if (m.peak_bytes > f.peak_bytes) {
      f.peak_bytes = m.peak_bytes;
      f.capacity_bytes = m.capacity_bytes;
    }
    const double over = m.peak_bytes - m.capacity_bytes;
    if (over > worst) {
      worst = over;
      f.overflow_stage = m.stage;
      f.overflow_device = m.device;
      f.overflow_capacity_bytes = m.capacity_bytes;
    }
    f.fits = f.fits && m.fits;
  }
  f.overflow_bytes = f.fits ? 0.0 : std::max(0.0, worst);
  return f;
}

void fill_figures(const cost::PlanEstimate& e, RankedPlan& p) {
  p.step_seconds = e.step_seconds;
  p.compute_seconds = e.compute_seconds;
  p.bubble_seconds = e.bubble_seconds;
  p.exposed_communication_seconds = e.exposed_communication_seconds;
  p.optimizer_seconds = e.optimizer_seconds;
  p.host_wait_seconds = e.host_wait_seconds;
  p.mfu = e.mfu;
  const MemoryFigures m = memory_figures(e);
  p.peak_memory_bytes = m.peak_bytes;
  p.capacity_bytes = m.capacity_bytes;
  p.overflow_bytes = m.overflow_bytes;
  p.overflow_stage = m.overflow_stage;
  p.overflow_device = m.overflow_device;
  p.overflow_capacity_bytes = m.overflow_capacity_bytes;
  p.fits = m.fits;
  p.communication.clear();
  for (const cost::CommunicationEstimate& c : e.communication)
    p.communication.push_back({c.purpose, c.kind, c.group_size, c.seconds, c.exposed_seconds, false});
}

bool ties_with(const StrategyPoint& a, double a_primary, double a_secondary, const StrategyPoint& b,
               double b_primary, double b_secondary) {
  StrategyPoint same = b;
  same.rank_order = a.rank_order;
  same.bucket_bytes = a.bucket_bytes;
  if (!(same == a)) return false;
  auto close = [](double x, double y) { return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y)); };
  return close(a_primary, b_primary) && close(a_secondary, b_secondary);
}

std::string ties_text(const RankedPlan& p) {
  if (!p.point || p.ties.empty()) return "";
  std::vector<double> buckets;
  std::vector<RankOrder> orders;
  for (const StrategyPoint& t : p.ties) {
    if (t.bucket_bytes != p.point->bucket_bytes &&
        std::find(buckets.begin(), buckets.end(), t.bucket_bytes) == buckets.end())
      buckets.push_back(t.bucket_bytes);
    if (rank_order_label(t.rank_order, t.context) !=
            rank_order_label(p.point->rank_order, p.point->context) &&
        std::find(orders.begin(), orders.end(), t.rank_order) == orders.end())
      orders.push_back(t.rank_order);
  }
  std::sort(buckets.begin(), buckets.end());
  std::sort(orders.begin(), orders.end());
  std::string s;
  if (!buckets.empty()) {
    s = "bucket";
    for (size_t i = 0; i < buckets.size(); ++i) s += (i ? ", " : " ") + bucket_label(buckets[i]);
  }
  if (!orders.empty()) {
    s += s.empty() ? "order" : "; order";
    for (size_t i = 0; i < orders.size(); ++i)
      s += (i ? ", " : " ") + rank_order_label(orders[i], p.point->context);
  }
  return s;
}

bool better(SearchObjective o, const RankedPlan& a, const RankedPlan& b) {
  const double a1 = o == SearchObjective::kStepTime ? a.step_seconds : a.peak_memory_bytes;
  const double b1 = o == SearchObjective::kStepTime ? b.step_seconds : b.peak_memory_bytes;
  if (a1 != b1) return a1 < b1;
  const double a2 = o == SearchObjective::kStepTime ? a.peak_memory_bytes : a.step_seconds;
  const double b2 = o == SearchObjective::kStepTime ? b.peak_memory_bytes : b.step_seconds;
  if (a2 != b2) return a2 < b2;
  // The same step on fewer devices: the higher utilisation wins the tie.
  if (a.mfu != b.mfu) return a.mfu > b.mfu;
  if (a.point && b.point) return *a.point < *b.point;
  return a.label < b.label;
}

std::string loses_because(SearchObjective o, const RankedPlan& a, const RankedPlan& w) {
  if (o == SearchObjective::kMemory) {
    if (a.peak_memory_bytes <= w.peak_memory_bytes * (1 + 1e-12)) {
      if (a.step_seconds <= w.step_seconds * (1 + 1e-12)) return "ties with the winner";
      return fmt::format("same peak memory, step {:.2f}x the winner's", a.step_seconds / w.step_seconds);
    }
    std::string why;
    if (a.point && w.point) {
      const StrategyPoint& p = *a.point;
      const StrategyPoint& q = *w.point;
      if (p.zero < q.zero)
        why = fmt::format(" (ZeRO {} shards less than the winner's {})", p.zero, q.zero);
      else if (p.recompute != q.recompute)
        why = fmt::format(" ({} recomputation keeps more; winner {})", recompute_name(p.recompute),
                          recompute_name(q.recompute));
      else if (p.micro_batch > q.micro_batch)
        why = fmt::format(" (micro-batch {}; winner {})", p.micro_batch, q.micro_batch);
      else if (p.context < q.context)
        why = fmt::format(
            " (context {} keeps {} of the sequence's activations per rank; winner context {})",
            p.context, p.context == 1 ? std::string("all") : fmt::format("1/{}", p.context),
            q.context);
    }
    return fmt::format("peak memory {} ({:.2f}x the winner's {}){}", format_bytes(a.peak_memory_bytes),
                       a.peak_memory_bytes / w.peak_memory_bytes, format_bytes(w.peak_memory_bytes), why);
  }
  const double ds = a.step_seconds - w.step_seconds;
  if (ds <= 1e-12 * std::max(1e-30, w.step_seconds)) return "ties with the winner";
  // The step's parts: compute, bubble, exposed communication, optimizer, the host.
  const double d_compute = a.compute_seconds - w.compute_seconds;
  const double d_bubble = a.bubble_seconds - w.bubble_seconds;
  const double d_exposed = (a.exposed_communication_seconds) - (w.exposed_communication_seconds);
  const double d_opt = a.optimizer_seconds - w.optimizer_seconds;
  const double d_host = a.host_wait_seconds - w.host_wait_seconds;
  const double biggest = std::max({d_compute, d_bubble, d_exposed, d_opt, d_host});
  if (biggest <= 0) return fmt::format("step {:.2f}x the winner's", a.step_seconds / w.step_seconds);
  if (biggest == d_host)
    return fmt::format("waits {} for its host ({} of the step; winner {}): more, shorter kernels than "
                       "the host issues in their time (simulation.host_op_time)",
                       format_seconds(a.host_wait_seconds), pct(a.host_wait_seconds, a.step_seconds),
                       format_seconds(w.host_wait_seconds));
  if (biggest == d_bubble)
    return fmt::format("pipeline bubble {} of the step (winner {})", pct(a.bubble_seconds, a.step_seconds),
                       pct(w.bubble_seconds, w.step_seconds));
  if (biggest == d_exposed) {
    // The purpose whose exposed time grew the most.
    const auto wa = by_purpose(w);
    const RankedPlan::Comm* top = nullptr;
    double top_gain = 0;
    for (const auto& c : a.communication) {
      auto it = wa.find({c.purpose, c.kind});
      const double gain = c.exposed_seconds - (it == wa.end() ? 0.0 : it->second->exposed_seconds);
      if (gain > top_gain) top_gain = gain, top = &c;
    }
    const double ratio = w.exposed_communication_seconds > 0
                             ? a.exposed_communication_seconds / w.exposed_communication_seconds
                             : 0.0;
    std::string head =
        ratio >= 1.1 ? fmt::format("{:.1f}x the winner's exposed communication", ratio)
        : ratio > 0  ? fmt::format("{} more exposed communication than the winner ({} against {})",
                                   format_seconds(a.exposed_communication_seconds - w.exposed_communication_seconds),
                                   format_seconds(a.exposed_communication_seconds),
                                   format_seconds(w.exposed_communication_seconds))
                     : fmt::format("{} of exposed communication (winner none)",
                                   format_seconds(a.exposed_communication_seconds));
    if (top == nullptr) return head;
    auto it = wa.find({top->purpose, top->kind});
    const double was = it == wa.end() ? 0.0 : it->second->exposed_seconds;
    std::string where;
    if (top->purpose == "context") {
      // Ring attention: the hops the attention blocks did not hide.
      const int cp = a.point ? a.point->context : 0;
      return fmt::format(
          "{}: ring attention's KV exchange exposed ({} exposed, winner {}; context {}, "
          "{} hops each way per layer, the ring {})",
          head, format_seconds(top->exposed_seconds), format_seconds(was), cp, cp > 1 ? cp - 1 : 0,
          top->crosses_nodes ? "crossing nodes" : "inside a node");
    }
    if (top->purpose == "data" || top->purpose == "tensor" || top->purpose == "zero-3 params")
      where = top->crosses_nodes ? " crosses nodes" : " inside a node";
    else if (top->purpose == "pipeline")
      where = top->crosses_nodes ? " cross nodes" : " stay inside a node";
    return fmt::format("{}: {} {}{} ({} exposed, winner {})", head, purpose_name(top->purpose),
                       kind_label(top->kind), where, format_seconds(top->exposed_seconds),
                       format_seconds(was));
  }
  if (biggest == d_opt)
    return fmt::format("optimizer step {} (winner {})", format_seconds(a.optimizer_seconds),
                       format_seconds(w.optimizer_seconds));
  return fmt::format("compute {:.2f}x the winner's{}",
                     w.compute_seconds > 0 ? a.compute_seconds / w.compute_seconds : 0.0,
                     compute_cause(a, w));
}

void explain_ranking(SearchObjective o, std::vector<RankedPlan>& plans) {
  for (size_t i = 0; i < plans.size(); ++i) {
    plans[i].cost_rank = static_cast<int>(i) + 1;
    plans[i].reason = i == 0 ? "best" : loses_because(o, plans[i], plans[0]);
  }
}

std::string overflow_text(const RankedPlan& p, bool transformer) {
  const std::string where = transformer ? fmt::format("stage {}", p.overflow_stage)
                                        : fmt::format("device {}", p.overflow_device);
  // Two decimals: 13 MiB over 80 GiB must not read "80.0 GiB of 80.0 GiB".
  auto gib = [](double b) { return fmt::format("{:.2f} GiB", b / 1073741824.0); };
  return fmt::format("{} over capacity on {} (needs {} of {})", format_bytes(p.overflow_bytes), where,
                     gib(p.overflow_bytes + p.overflow_capacity_bytes), gib(p.overflow_capacity_bytes));
}

}  // namespace brigade::planner::detail
