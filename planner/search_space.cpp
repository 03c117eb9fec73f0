#include "planner/search_space.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/plan_check.hpp"
#include "core/units.hpp"
#include "planner/set_values.hpp"

namespace brigade::planner {
namespace {

constexpr const char* kAxisNames[3] = {"tensor", "data", "pipeline"};
constexpr char kAxisLetters[3] = {'T', 'D', 'P'};

// The six orders, the default (tensor innermost, then data) first.
const std::vector<RankOrder>& all_orders() {
  static const std::vector<RankOrder> k = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                           {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  return k;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      out.push_back(i);
      if (i != n / i) out.push_back(n / i);
    }
  std::sort(out.begin(), out.end());
  return out;
}

template <class T>
bool allowed(const std::vector<T>& restricted, T v) {
  return restricted.empty() || std::find(restricted.begin(), restricted.end(), v) != restricted.end();
}

template <class T, class F>
std::string join(const std::vector<T>& v, F&& f) {
  std::string s;
  for (const T& x : v) s += (s.empty() ? "" : ", ") + f(x);
  return s;
}

std::string ints(const std::vector<int>& v) {
  return join(v, [](int x) { return std::to_string(x); });
}

}  // namespace

std::string bucket_label(double bytes) {
  if (bytes >= 1e6 && std::fmod(bytes, 1e6) == 0) return fmt::format("{}MB", bytes / 1e6);
  return format_bytes(bytes);
}

std::vector<std::string> rank_order_names(const RankOrder& order) {
  return {kAxisNames[order[0]], kAxisNames[order[1]], kAxisNames[order[2]]};
}

std::string rank_order_label(const RankOrder& order) {
  return {kAxisLetters[order[0]], '-', kAxisLetters[order[1]], '-', kAxisLetters[order[2]]};
}

namespace {
auto key_tuple(const StrategyPoint& p) {
  return std::make_tuple(p.tensor, p.pipeline, p.data, p.expert, p.sequence_parallel, p.zero, p.micro_batch,
                         static_cast<int>(p.schedule), p.virtual_stages,
                         static_cast<int>(p.recompute), p.rank_order, p.bucket_bytes);
}
}  // namespace

bool equivalent(const StrategyPoint& a, const StrategyPoint& b) {
  if (a.tensor != b.tensor || a.pipeline != b.pipeline || a.data != b.data || a.expert != b.expert ||
      a.sequence_parallel != b.sequence_parallel || a.zero != b.zero ||
      a.micro_batch != b.micro_batch || a.schedule != b.schedule ||
      a.virtual_stages != b.virtual_stages || a.recompute != b.recompute)
    return false;
  if (a.data > 1 && a.bucket_bytes != b.bucket_bytes) return false;
  const int degree[3] = {a.tensor, a.data, a.pipeline};
  auto canon = [&](const RankOrder& o) {
    std::vector<int> k;
    for (std::uint8_t x : o)
      if (degree[x] > 1) k.push_back(x);
    return k;
  };
  return canon(a.rank_order) == canon(b.rank_order);
}

bool StrategyPoint::operator==(const StrategyPoint& o) const { return key_tuple(*this) == key_tuple(o); }
bool StrategyPoint::operator<(const StrategyPoint& o) const { return key_tuple(*this) < key_tuple(o); }

std::string point_label(const StrategyPoint& p) {
  std::string s = fmt::format("tensor {}, pipeline {}, data {}", p.tensor, p.pipeline, p.data);
  if (p.expert > 1) s += fmt::format(", expert {}", p.expert);
  if (p.sequence_parallel) s += ", sp";
  s += fmt::format(", zero {}, micro {}", p.zero, p.micro_batch);
  if (p.pipeline > 1) {
    s += fmt::format(", {}", schedule_name(p.schedule));
    if (p.schedule == PipelineSchedule::kInterleaved) s += fmt::format(" x{}", p.virtual_stages);
  }
  s += fmt::format(", {}, {}", recompute_name(p.recompute), rank_order_label(p.rank_order));
  if (p.data > 1) s += ", bucket " + bucket_label(p.bucket_bytes);
  return s;
}

StrategyPoint point_of(const Scenario& sc) {
  const StrategySpec& st = sc.strategy;
  StrategyPoint p;
  p.tensor = st.tensor;
  p.pipeline = st.pipeline;
  p.data = st.data;
  p.expert = st.expert;
  p.sequence_parallel = st.sequence_parallel;
  p.zero = st.zero;
  p.micro_batch = sc.training.micro_batch > 0 ? sc.training.micro_batch : per_replica_batch(sc);
  p.schedule = st.schedule;
  p.virtual_stages = st.virtual_stages;
  p.recompute = sc.training.recompute;
  for (size_t i = 0; i < 3 && i < st.rank_order.size(); ++i)
    for (std::uint8_t a = 0; a < 3; ++a)
      if (st.rank_order[i] == kAxisNames[a]) p.rank_order[i] = a;
  p.bucket_bytes = st.bucket_bytes;
  return p;
}

void apply_point(const StrategyPoint& p, Scenario& sc) {
  StrategySpec& st = sc.strategy;
  sc.has_strategy = true;
  st.tensor = p.tensor;
  st.pipeline = p.pipeline;
  st.data = p.data;
  st.expert = p.expert;
  st.sequence_parallel = p.sequence_parallel;
  st.zero = p.zero;
  st.schedule = p.schedule;
  st.virtual_stages = p.virtual_stages;
  st.data_mode = DataMode::kBatch;
  st.bucket_bytes = p.bucket_bytes;
  bool same = st.rank_order.size() == 3;
  for (size_t i = 0; same && i < 3; ++i) same = st.rank_order[i] == kAxisNames[p.rank_order[i]];
  if (!same) st.rank_order = rank_order_names(p.rank_order);
  sc.training.micro_batch = p.micro_batch;
  sc.training.recompute = p.recompute;
}

std::vector<std::string> space_keys() {
  return {"tensor",    "pipeline",       "sequence_parallel", "zero",       "micro_batch",
          "schedule",  "virtual_stages", "recompute",         "rank_order", "bucket",
          "expert"};
}

Status restrict_grid(SpaceGrid& out, const std::string& raw_key, const std::string& text) {
  const std::string key = canonical_key(raw_key);
  const std::string flag = "--set " + raw_key;
  const std::vector<std::string> values = split_values(text);
  auto keys = space_keys();
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) return unknown_key(raw_key, keys);
  SpaceGrid grid = out;  // written back only when every value parses
  if (key == "tensor" || key == "pipeline" || key == "virtual_stages" || key == "expert") {
    std::vector<int>& v = key == "tensor"     ? grid.tensor
                          : key == "pipeline" ? grid.pipeline
                          : key == "expert"   ? grid.expert
                                              : grid.virtual_stages;
    v.clear();
    for (const auto& x : values) {
      BRIGADE_ASSIGN_OR_RETURN(const std::int64_t n, parse_whole(flag, x));
      v.push_back(static_cast<int>(n));
    }
  } else if (key == "micro_batch") {
    grid.micro_batch.clear();
    for (const auto& x : values) {
      BRIGADE_ASSIGN_OR_RETURN(const std::int64_t n, parse_whole(flag, x));
      grid.micro_batch.push_back(n);
    }
  } else if (key == "zero") {
    grid.zero.clear();
    for (const auto& x : values) {
      BRIGADE_ASSIGN_OR_RETURN(const int n, parse_zero_value(flag, x));
      grid.zero.push_back(n);
    }
  } else if (key == "sequence_parallel") {
    grid.sequence_parallel.clear();
    for (const auto& x : values) {
      BRIGADE_ASSIGN_OR_RETURN(const bool b, parse_bool_value(flag, x));
      grid.sequence_parallel.push_back(b);
    }
  } else if (key == "schedule") {
    grid.schedule.clear();
    for (const auto& x : values) {
      BRIGADE_ASSIGN_OR_RETURN(const PipelineSchedule sch, parse_schedule_value(flag, x));
      grid.schedule.push_back(sch);
    }
  } else if (key == "recompute") {
    grid.recompute.clear();
    for (const auto& x : values) {
      BRIGADE_ASSIGN_OR_RETURN(const Recompute r, parse_recompute_value(flag, x));
      grid.recompute.push_back(r);
    }
  } else if (key == "bucket") {
    grid.bucket_bytes.clear();
    for (const auto& x : values) {
      BRIGADE_ASSIGN_OR_RETURN(const double b, parse_bucket_value(flag, x));
      grid.bucket_bytes.push_back(b);
    }
  } else {  // rank_order: T-D-P, D-T-P, ...
    grid.rank_order.clear();
    for (const auto& x : values) {
      std::string up;
      for (char ch : x)
        if (ch != '-') up += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      bool found = false;
      for (const RankOrder& o : all_orders()) {
        std::string l = rank_order_label(o);
        l.erase(std::remove(l.begin(), l.end(), '-'), l.end());
        if (l == up) grid.rank_order.push_back(o), found = true;
      }
      if (!found)
        return Status::error(flag + ": found '" + x +
                             "'; expected an order of T, D and P, innermost first, such as T-D-P");
    }
  }
  out = std::move(grid);
  return Status::ok();
}

StrategyPoint point_in(const TimeClass& c, int zero, const RankOrder& order, double bucket_bytes) {
  StrategyPoint p;
  p.tensor = c.tensor;
  p.pipeline = c.pipeline;
  p.data = c.data;
  p.expert = c.expert;
  p.sequence_parallel = c.sequence_parallel;
  p.micro_batch = c.micro_batch;
  p.schedule = c.schedule;
  p.virtual_stages = c.virtual_stages;
  p.recompute = c.recompute;
  p.zero = zero;
  p.rank_order = order;
  p.bucket_bytes = bucket_bytes;
  return p;
}

std::vector<int> StrategySpace::zero_values(const TimeClass& c) const {
  if (!training_ || c.data == 1) return {0};
  // Expert parallelism with ZeRO is refused by check_plan (the optimizer's
  // sharding over the expert-data group is not modelled): ZeRO 0 alone.
  // (make() keeps such classes only when the grid has ZeRO 0.)
  if (c.expert > 1) return {0};
  return grid_.zero;
}

std::vector<RankOrder> StrategySpace::rank_orders(const TimeClass& c) const {
  // Axes of degree 1 take no devices: orders that differ only in where they
  // stand map every rank to the same device. Keep the first of each.
  const int degree[3] = {c.tensor, c.data, c.pipeline};
  std::vector<RankOrder> out;
  std::set<std::vector<int>> seen;
  const std::vector<RankOrder>& from = grid_.rank_order.empty() ? all_orders() : grid_.rank_order;
  for (const RankOrder& o : from) {
    std::vector<int> key;
    for (std::uint8_t a : o)
      if (degree[a] > 1) key.push_back(a);
    if (seen.insert(key).second) out.push_back(o);
  }
  return out;
}

bool StrategySpace::contains(const StrategyPoint& p) const {
  for (const TimeClass& c : classes_) {
    if (c.tensor != p.tensor || c.pipeline != p.pipeline || c.data != p.data || c.expert != p.expert ||
        c.sequence_parallel != p.sequence_parallel || c.micro_batch != p.micro_batch ||
        c.schedule != p.schedule || c.virtual_stages != p.virtual_stages || c.recompute != p.recompute)
      continue;
    for (int z : zero_values(c))
      for (const RankOrder& o : rank_orders(c))
        for (double b : bucket_values(c))
          if (equivalent(point_in(c, z, o, b), p)) return true;
  }
  return false;
}

std::vector<double> StrategySpace::bucket_values(const TimeClass& c) const {
  if (!training_ || c.data == 1) return {grid_.bucket_bytes.front()};
  return grid_.bucket_bytes;
}

std::uint64_t StrategySpace::class_size(const TimeClass& c) const {
  return static_cast<std::uint64_t>(zero_values(c).size()) * rank_orders(c).size() *
         bucket_values(c).size();
}

Result<StrategySpace> StrategySpace::make(const Scenario& sc, const SpaceGrid& grid) {
  if (sc.model_kind != ModelKind::kTransformer)
    return Status::error("search: the strategy space is for transformer models");
  for (const auto& [name, empty] :
       {std::pair<const char*, bool>{"sequence_parallel", grid.sequence_parallel.empty()},
        {"zero", grid.zero.empty()},
        {"schedule", grid.schedule.empty()},
        {"recompute", grid.recompute.empty()},
        {"bucket", grid.bucket_bytes.empty()}})
    if (empty) return Status::error(fmt::format("search: the grid has no values for {}", name));
  StrategySpace s;
  s.grid_ = grid;
  const TransformerSpec& ts = sc.transformer;
  const std::int64_t D = sc.topology.num_devices();
  const std::int64_t B = global_batch(sc);
  const std::int64_t ffn = ffn_width(ts);
  s.devices_ = static_cast<int>(D);
  s.training_ = !sc.training.inference;
  if (B <= 0) return Status::error("search: found no training.global_batch; expected one");

  const MoeSpec& moe = ts.moe;
  s.experts_ = moe.enabled();
  // Expert degrees: divisors of the experts (check_plan: each rank holds
  // whole experts); a dense model has expert 1 alone.
  std::vector<int> expert_degrees;
  if (moe.enabled()) {
    for (std::int64_t e : divisors(moe.experts))
      if (allowed(grid.expert, static_cast<int>(e))) expert_degrees.push_back(static_cast<int>(e));
  } else if (allowed(grid.expert, 1)) {
    expert_degrees.push_back(1);
  }
  if (expert_degrees.empty())
    return Status::error(
        moe.enabled()
            ? fmt::format("search: no expert degree left: --set expert has no divisor of the {} experts",
                          moe.experts)
            : std::string("search: no expert degree left: a dense model has expert 1 alone (expert "
                          "parallelism splits the experts of a mixture of experts)"));
  const bool zero_0 = std::find(grid.zero.begin(), grid.zero.end(), 0) != grid.zero.end();
  std::map<std::string, std::uint64_t> refused;  // check_plan's refusals, in points
  std::set<int> expert_set;

  std::vector<int> tensors;
  std::set<int> pipe_set, virt_set;
  std::set<std::int64_t> micro_set;
  std::set<int> data_set;
  bool any_sp = false;
  for (std::int64_t t : divisors(D)) {
    if (ts.heads % t != 0 || ts.key_value_heads() % t != 0 || ffn % t != 0 || ts.vocab % t != 0)
      continue;
    if (moe.enabled() && moe.ffn_hidden % t != 0) continue;  // each rank: ffn_hidden/t of every expert
    if (!allowed(grid.tensor, static_cast<int>(t))) continue;
    bool used_t = false;
    for (std::int64_t p : divisors(D / t)) {
      if (ts.layers % p != 0 || !allowed(grid.pipeline, static_cast<int>(p))) continue;
      const std::int64_t d = D / t / p;
      if (B % d != 0) continue;
      const std::int64_t per_replica = B / d;
      std::vector<bool> sps;
      for (bool sp : grid.sequence_parallel)
        if (!sp || (t > 1 && ts.seq % t == 0)) sps.push_back(sp);
      std::vector<Recompute> recs = s.training_ ? grid.recompute : std::vector<Recompute>{Recompute::kNone};
      for (std::int64_t b : divisors(per_replica)) {
        if (!allowed(grid.micro_batch, b)) continue;
        const std::int64_t m = per_replica / b;
        // (schedule, virtual stages) pairs of this class.
        std::vector<std::pair<PipelineSchedule, int>> scheds;
        if (p == 1) {
          scheds.push_back({PipelineSchedule::k1F1B, 1});
        } else {
          for (PipelineSchedule sch : grid.schedule) {
            if (sch != PipelineSchedule::kInterleaved) {
              scheds.push_back({sch, 1});
              continue;
            }
            if (m % p != 0) continue;  // Megatron-LM's interleaved schedule needs it
            for (std::int64_t v : divisors(ts.layers / p))
              if (v >= 2 && allowed(grid.virtual_stages, static_cast<int>(v)))
                scheds.push_back({sch, static_cast<int>(v)}), virt_set.insert(static_cast<int>(v));
          }
        }
        for (int ep : expert_degrees)
          for (bool sp : sps)
            for (const auto& [sch, v] : scheds)
              for (Recompute r : recs) {
                TimeClass c;
                c.tensor = static_cast<int>(t);
                c.pipeline = static_cast<int>(p);
                c.data = static_cast<int>(d);
                c.sequence_parallel = sp;
                c.micro_batch = b;
                c.schedule = sch;
                c.virtual_stages = v;
                c.recompute = r;
                // Expert parallelism as check_plan takes it (its messages):
                // the expert group inside the data group, tensor 1, ZeRO 0.
                if (ep > 1) {
                  const std::uint64_t points = s.class_size(c);  // with expert 1's ZeRO stages
                  const char* why = d % ep != 0    ? "expert not dividing data"
                                    : t > 1          ? "expert > 1 and tensor > 1"
                                    : !s.training_   ? nullptr
                                    : !zero_0        ? "expert > 1 and ZeRO >= 1"
                                                     : nullptr;
                  if (why != nullptr) {
                    refused[why] += points;
                    continue;
                  }
                  c.expert = ep;
                  if (points > s.class_size(c)) refused["expert > 1 and ZeRO >= 1"] += points - s.class_size(c);
                }
                s.classes_.push_back(c);
                s.size_ += s.class_size(c);
                used_t = true;
                pipe_set.insert(static_cast<int>(p));
                micro_set.insert(b);
                data_set.insert(static_cast<int>(d));
                expert_set.insert(ep);
                any_sp |= sp;
              }
      }
    }
    if (used_t) tensors.push_back(static_cast<int>(t));
  }
  if (s.classes_.empty())
    return Status::error(fmt::format(
        "search: no strategy fits: no tensor x pipeline x data = {} devices with tensor dividing "
        "heads {}, FFN width {} and vocab {}, pipeline dividing {} layers and data dividing "
        "global batch {}{}",
        D, ts.heads, ffn, ts.vocab, ts.layers, B, grid.tensor.empty() && grid.pipeline.empty() &&
        grid.micro_batch.empty() ? "" : " among the values of --set"));

  for (const auto& [why, n] : refused) s.refused_.emplace_back(why, n);

  auto& L = s.lines_;
  L.push_back(fmt::format("tensor: {} (divisors of {} devices that divide heads {}, FFN width {} "
                          "and vocab {})",
                          ints(tensors), D, ts.heads, ffn, ts.vocab));
  L.push_back(fmt::format("pipeline: {} (divisors of the devices left that divide {} layers)",
                          ints({pipe_set.begin(), pipe_set.end()}), ts.layers));
  L.push_back(fmt::format("data: {} (filled in: devices / (tensor x pipeline), dividing global "
                          "batch {})",
                          ints({data_set.begin(), data_set.end()}), B));
  if (s.experts_) {
    std::string left;
    for (const auto& [why, n] : s.refused_)
      left += fmt::format("{}{} plans with {}", left.empty() ? "" : ", ", n, why);
    L.push_back(fmt::format("expert: {} (divisors of {} experts; above 1: dividing data, with tensor 1 "
                            "and ZeRO 0, as check_plan demands{})",
                            ints({expert_set.begin(), expert_set.end()}), moe.experts,
                            left.empty() ? "" : "; left out: " + left));
  }
  L.push_back(fmt::format("sequence parallelism: {} (on needs tensor >= 2 dividing seq {})",
                          any_sp ? join(grid.sequence_parallel, [](bool b) { return std::string(b ? "on" : "off"); })
                                 : std::string("off"),
                          ts.seq));
  L.push_back(s.training_ ? fmt::format("zero: {} (with data >= 2)", ints(grid.zero))
                          : std::string("zero: 0 (inference keeps no optimizer state)"));
  L.push_back(fmt::format("micro-batch: {} (divisors of the per-replica batch, global batch / data)",
                          join(std::vector<std::int64_t>(micro_set.begin(), micro_set.end()),
                               [](std::int64_t x) { return std::to_string(x); })));
  L.push_back(fmt::format(
      "schedule: {} with pipeline >= 2 (interleaved x v: v in {}, dividing layers / pipeline, "
      "micro-batches a multiple of pipeline)",
      join(grid.schedule, [](PipelineSchedule x) { return std::string(schedule_name(x)); }),
      virt_set.empty() ? std::string("none fits") : ints({virt_set.begin(), virt_set.end()})));
  L.push_back(s.training_
                  ? fmt::format("recompute: {}", join(grid.recompute, [](Recompute r) {
                                  return std::string(recompute_name(r));
                                }))
                  : std::string("recompute: none (inference)"));
  L.push_back(fmt::format("rank order: {} (innermost first; orders that differ only in degree-1 "
                          "axes are one)",
                          join(grid.rank_order.empty() ? all_orders() : grid.rank_order,
                               [](const RankOrder& o) { return rank_order_label(o); })));
  L.push_back(s.training_ ? fmt::format("bucket: {} (with data >= 2)",
                                        join(grid.bucket_bytes, [](double b) { return bucket_label(b); }))
                          : std::string("bucket: none (inference has no gradients)"));
  return s;
}

}  // namespace brigade::planner
