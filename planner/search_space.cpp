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

constexpr const char* kAxisNames[4] = {"tensor", "data", "pipeline", "context"};
constexpr char kAxisLetters[4] = {'T', 'D', 'P', 'C'};

// The 24 orders: the six orders of tensor, data and pipeline (the default,
// tensor innermost, then data, first), each with context right after tensor
// first (Megatron-Core's tp-cp-dp-pp), then in the other three places. With
// context 1 the first six distinct orders are the six of tensor, data and
// pipeline, in that order.
const std::vector<RankOrder>& all_orders() {
  static const std::vector<RankOrder> k = [] {
    const std::uint8_t three[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                      {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    std::vector<RankOrder> out;
    for (const auto& o : three) {
      const int after_tensor = static_cast<int>(std::find(o, o + 3, 0) - o) + 1;
      std::vector<int> slots = {after_tensor};
      for (int at = 0; at < 4; ++at)
        if (at != after_tensor) slots.push_back(at);
      for (int at : slots) {
        RankOrder r{};
        for (int i = 0, j = 0; i < 4; ++i)
          r[static_cast<size_t>(i)] = i == at ? kContextAxis : o[j++];
        out.push_back(r);
      }
    }
    return out;
  }();
  return k;
}

// The axes of an order that take devices (degree > 1), innermost first.
std::array<std::uint8_t, 4> live_axes(const RankOrder& o, const int degree[4], int* n) {
  std::array<std::uint8_t, 4> k{};
  *n = 0;
  for (std::uint8_t x : o)
    if (degree[x] > 1) k[static_cast<size_t>((*n)++)] = x;
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

std::vector<std::string> rank_order_names(const RankOrder& order, int context) {
  std::vector<std::string> out;
  for (std::uint8_t a : order)
    if (a != kContextAxis || context > 1) out.emplace_back(kAxisNames[a]);
  return out;
}

std::string rank_order_label(const RankOrder& order, int context) {
  std::string s;
  for (std::uint8_t a : order)
    if (a != kContextAxis || context > 1) {
      if (!s.empty()) s += '-';
      s += kAxisLetters[a];
    }
  return s;
}

RankOrder rank_order_of(const std::vector<std::string>& names) {
  StrategySpec st;
  st.rank_order = names;
  RankOrder o = kDefaultRankOrder;
  const std::vector<std::string> full = full_rank_order(st);
  if (full.size() != 4) return o;
  for (size_t i = 0; i < 4; ++i)
    for (std::uint8_t a = 0; a < 4; ++a)
      if (full[i] == kAxisNames[a]) o[i] = a;
  return o;
}

namespace {
// An order's place in all_orders() (the default, T-C-D-P, first; with
// context 1 the six orders of T, D and P in their old order), so that ties
// between plans that differ only in the rank order keep the default.
int order_index(const RankOrder& o) {
  static const std::array<std::uint8_t, 256> k = [] {
    std::array<std::uint8_t, 256> t{};
    t.fill(255);
    const auto& all = all_orders();
    for (size_t i = 0; i < all.size(); ++i)
      t[static_cast<size_t>(all[i][0] | all[i][1] << 2 | all[i][2] << 4 | all[i][3] << 6)] =
          static_cast<std::uint8_t>(i);
    return t;
  }();
  return k[static_cast<size_t>((o[0] & 3) | (o[1] & 3) << 2 | (o[2] & 3) << 4 | (o[3] & 3) << 6)];
}

auto key_tuple(const StrategyPoint& p) {
  return std::make_tuple(p.tensor, p.pipeline, p.data, p.expert, p.context, p.sequence_parallel,
                         p.zero, p.micro_batch, static_cast<int>(p.schedule), p.virtual_stages,
                         static_cast<int>(p.recompute), order_index(p.rank_order), p.rank_order,
                         p.bucket_bytes);
}
}  // namespace

bool equivalent(const StrategyPoint& a, const StrategyPoint& b) {
  if (a.tensor != b.tensor || a.pipeline != b.pipeline || a.data != b.data ||
      a.expert != b.expert || a.context != b.context ||
      a.sequence_parallel != b.sequence_parallel || a.zero != b.zero ||
      a.micro_batch != b.micro_batch || a.schedule != b.schedule ||
      a.virtual_stages != b.virtual_stages || a.recompute != b.recompute)
    return false;
  if (a.data * a.context > 1 && a.bucket_bytes != b.bucket_bytes) return false;
  const int degree[4] = {a.tensor, a.data, a.pipeline, a.context};
  int na = 0, nb = 0;
  const auto ka = live_axes(a.rank_order, degree, &na), kb = live_axes(b.rank_order, degree, &nb);
  return na == nb && ka == kb;
}

bool StrategyPoint::operator==(const StrategyPoint& o) const { return key_tuple(*this) == key_tuple(o); }
bool StrategyPoint::operator<(const StrategyPoint& o) const { return key_tuple(*this) < key_tuple(o); }

std::string point_label(const StrategyPoint& p) {
  std::string s = fmt::format("tensor {}, pipeline {}, data {}", p.tensor, p.pipeline, p.data);
  if (p.expert > 1) s += fmt::format(", expert {}", p.expert);
  if (p.context > 1) s += fmt::format(", context {}", p.context);
  if (p.sequence_parallel) s += ", sp";
  s += fmt::format(", zero {}, micro {}", p.zero, p.micro_batch);
  if (p.pipeline > 1) {
    s += fmt::format(", {}", schedule_name(p.schedule));
    if (p.schedule == PipelineSchedule::kInterleaved) s += fmt::format(" x{}", p.virtual_stages);
  }
  s += fmt::format(", {}, {}", recompute_name(p.recompute),
                   rank_order_label(p.rank_order, p.context));
  if (p.data * p.context > 1) s += ", bucket " + bucket_label(p.bucket_bytes);
  return s;
}

StrategyPoint point_of(const Scenario& sc) {
  const StrategySpec& st = sc.strategy;
  StrategyPoint p;
  p.tensor = st.tensor;
  p.pipeline = st.pipeline;
  p.data = st.data;
  p.expert = st.expert;
  p.context = st.context;
  p.sequence_parallel = st.sequence_parallel;
  p.zero = st.zero;
  p.micro_batch = micro_batch_size(sc);
  p.schedule = st.schedule;
  p.virtual_stages = st.virtual_stages;
  p.recompute = sc.training.recompute;
  p.rank_order = rank_order_of(st.rank_order);
  p.bucket_bytes = st.bucket_bytes;
  return p;
}

void apply_point(const StrategyPoint& p, Scenario& sc, const Scenario& base) {
  StrategySpec& st = sc.strategy;
  // The base's tensor-parallel overlap where the point can take it:
  // Megatron-LM runs it only with sequence parallelism over tensor > 1.
  sc.training.tp_comm_overlap =
      base.training.tp_comm_overlap && p.tensor > 1 && p.sequence_parallel;
  sc.has_strategy = true;
  st.tensor = p.tensor;
  st.pipeline = p.pipeline;
  st.data = p.data;
  st.expert = p.expert;
  st.context = p.context;
  st.sequence_parallel = p.sequence_parallel;
  st.zero = p.zero;
  st.schedule = p.schedule;
  st.virtual_stages = p.virtual_stages;
  st.data_mode = DataMode::kBatch;
  st.bucket_bytes = p.bucket_bytes;
  // The names: three axes with context 1 (context then goes right after
  // tensor and takes no devices), four with context > 1.
  const size_t n = p.context > 1 ? 4 : 3;
  bool same = st.rank_order.size() == n;
  for (size_t i = 0, j = 0; same && i < 4; ++i) {
    if (p.rank_order[i] == kContextAxis && p.context == 1) continue;
    same = st.rank_order[j++] == kAxisNames[p.rank_order[i]];
  }
  if (!same) st.rank_order = rank_order_names(p.rank_order, p.context);
  sc.training.micro_batch = p.micro_batch;
  set_recompute(sc.training, p.recompute);
}

std::vector<std::string> space_keys() {
  return {"tensor",         "pipeline",  "sequence_parallel", "zero",   "micro_batch", "schedule",
          "virtual_stages", "recompute", "rank_order",        "bucket", "expert",      "context"};
}

Status restrict_grid(SpaceGrid& out, const std::string& raw_key, const std::string& text) {
  const std::string key = canonical_key(raw_key);
  const std::string flag = "--set " + raw_key;
  const std::vector<std::string> values = split_values(text);
  auto keys = space_keys();
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) return unknown_key(raw_key, keys);
  SpaceGrid grid = out;  // written back only when every value parses
  if (key == "tensor" || key == "pipeline" || key == "virtual_stages" || key == "expert" ||
      key == "context") {
    std::vector<int>& v = key == "tensor"     ? grid.tensor
                          : key == "pipeline" ? grid.pipeline
                          : key == "expert"   ? grid.expert
                          : key == "context"  ? grid.context
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
  } else {  // rank_order: T-D-P, D-T-P, ..., T-C-D-P (three letters: C right after T)
    grid.rank_order.clear();
    for (const auto& x : values) {
      std::string up;
      for (char ch : x)
        if (ch != '-') up += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (up.size() == 3 && up.find('C') == std::string::npos) up.insert(up.find('T') + 1, "C");
      bool found = false;
      for (const RankOrder& o : all_orders()) {
        std::string l = rank_order_label(o, 2);
        l.erase(std::remove(l.begin(), l.end(), '-'), l.end());
        if (l == up) grid.rank_order.push_back(o), found = true;
      }
      if (!found)
        return Status::error(
            flag + ": found '" + x +
            "'; expected an order of T, D and P, innermost first, such as T-D-P "
            "(or of T, C, D and P, such as T-C-D-P; C left out goes right after T)");
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
  p.context = c.context;
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
  // ZeRO shards over the data x context ranks (the gradient group).
  if (!training_ || c.data * c.context == 1) return {0};
  // Expert parallelism with ZeRO-2 or -3 is refused by check_plan (ZeRO-1,
  // the distributed optimizer, shards the experts' optimizer state over the
  // expert-data group; more is not modelled): the grid's 0 and 1. (make()
  // keeps such classes only when the grid has one of them.)
  if (c.expert > 1) {
    std::vector<int> low;
    for (int z : grid_.zero)
      if (z <= 1) low.push_back(z);
    return low;
  }
  return grid_.zero;
}

std::vector<RankOrder> StrategySpace::rank_orders(const TimeClass& c) const {
  // Axes of degree 1 take no devices: orders that differ only in where they
  // stand map every rank to the same device. Keep the first of each.
  const int degree[4] = {c.tensor, c.data, c.pipeline, c.context};
  std::vector<RankOrder> out;
  std::vector<std::array<std::uint8_t, 4>> seen;
  const std::vector<RankOrder>& from = grid_.rank_order.empty() ? all_orders() : grid_.rank_order;
  for (const RankOrder& o : from) {
    int n = 0;
    auto key = live_axes(o, degree, &n);
    for (int i = n; i < 4; ++i) key[static_cast<size_t>(i)] = 255;
    if (std::find(seen.begin(), seen.end(), key) == seen.end())
      seen.push_back(key), out.push_back(o);
  }
  return out;
}

bool StrategySpace::contains(const StrategyPoint& p) const {
  for (const TimeClass& c : classes_) {
    if (c.tensor != p.tensor || c.pipeline != p.pipeline || c.data != p.data ||
        c.expert != p.expert || c.context != p.context ||
        c.sequence_parallel != p.sequence_parallel || c.micro_batch != p.micro_batch ||
        c.schedule != p.schedule || c.virtual_stages != p.virtual_stages ||
        c.recompute != p.recompute)
      continue;
    for (int z : zero_values(c))
      for (const RankOrder& o : rank_orders(c))
        for (double b : bucket_values(c))
          if (equivalent(point_in(c, z, o, b), p)) return true;
  }
  return false;
}

std::vector<double> StrategySpace::bucket_values(const TimeClass& c) const {
  if (!training_ || c.data * c.context == 1) return {grid_.bucket_bytes.front()};
  return grid_.bucket_bytes;
}

std::uint64_t StrategySpace::class_size(const TimeClass& c) const {
  std::uint64_t orders = 0;
  if (grid_.rank_order.empty()) {  // every order: k! orders of the k axes of degree > 1
    orders = 1;
    int k = 0;
    for (int d : {c.tensor, c.data, c.pipeline, c.context})
      orders *= static_cast<std::uint64_t>(d > 1 ? ++k : 1);
  } else {
    orders = rank_orders(c).size();
  }
  return static_cast<std::uint64_t>(zero_values(c).size()) * orders * bucket_values(c).size();
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
  // Expert parallelism takes ZeRO 0 and 1 (check_plan): a class with
  // expert > 1 is kept when the grid has either.
  const bool zero_0_or_1 =
      std::any_of(grid.zero.begin(), grid.zero.end(), [](int z) { return z <= 1; });
  // check_plan's refusals, in points: expert parallelism's and context
  // parallelism's, each said on its key's line.
  std::map<std::string, std::uint64_t> refused, refused_context;
  std::set<int> expert_set, context_set;
  // Context parallelism as check_plan takes it (its messages), the
  // conditions that hold for every class: the sequence in 2 x context
  // chunks, Transformer Engine's fused attention, no latent attention.
  auto context_refusal = [&](std::int64_t cp) -> const char* {
    if (cp == 1) return nullptr;
    if (ts.seq % cp != 0) return "context not dividing seq";
    if (ts.seq % (2 * cp) != 0) return "seq not divisible by 2 x context";
    if (ts.attention != AttentionKernel::kFlash) return "context > 1 with unfused attention";
    if (ts.mla.enabled()) return "context > 1 with multi-head latent attention";
    return nullptr;
  };

  // The layers the pipeline splits: the embedding and the loss counted as
  // layers where the base scenario says so (core/plan_check.hpp,
  // PipelineSplit).
  const int split_extra = (sc.strategy.embedding_in_pipeline_split ? 1 : 0) +
                          (sc.strategy.loss_in_pipeline_split ? 1 : 0);
  const std::int64_t split_layers = ts.layers + split_extra;
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
    for (std::int64_t cp : divisors(D / t))
      for (std::int64_t p : divisors(D / t / cp)) {
        if (!allowed(grid.context, static_cast<int>(cp))) continue;
        if (split_layers % p != 0 || !allowed(grid.pipeline, static_cast<int>(p))) continue;
        // (A chunk of the embedding or the loss alone is refused: check_plan.)
        if (split_extra > 0 && p > 1 && split_layers / p < 2) continue;
        const std::int64_t d = D / t / cp / p;
        if (B % d != 0) continue;
        const std::int64_t per_replica = B / d;
        const char* context_why = context_refusal(cp);
        std::vector<bool> sps;
        for (bool sp : grid.sequence_parallel)
          if (!sp || (t > 1 && ts.seq % t == 0)) sps.push_back(sp);
        std::vector<Recompute> recs =
            s.training_ ? grid.recompute : std::vector<Recompute>{Recompute::kNone};
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
              for (std::int64_t v : divisors(split_layers / p))
                if (v >= 2 && allowed(grid.virtual_stages, static_cast<int>(v)) &&
                    (split_extra == 0 || split_layers / (p * v) >= 2))
                  scheds.push_back({sch, static_cast<int>(v)}),
                      virt_set.insert(static_cast<int>(v));
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
                  c.context = static_cast<int>(cp);
                  if (cp > 1) {
                    const char* why =
                        context_why ? context_why
                        : ep > 1    ? "context > 1 and expert > 1"
                        : sp && (ts.seq / cp) % t != 0
                            ? "sequence parallelism with seq / context not a multiple of tensor"
                            : nullptr;
                    if (why != nullptr) {
                      refused_context[why] += s.class_size(c);
                      continue;
                    }
                  }
                  // Expert parallelism as check_plan takes it (its messages):
                  // the expert group inside the data group, tensor 1, ZeRO 0
                  // or 1.
                  if (ep > 1) {
                    const std::uint64_t points = s.class_size(c);  // with expert 1's ZeRO stages
                    const char* why = d % ep != 0    ? "expert not dividing data"
                                      : t > 1        ? "expert > 1 and tensor > 1"
                                      : !s.training_ ? nullptr
                                      : !zero_0_or_1 ? "expert > 1 and ZeRO >= 2"
                                                     : nullptr;
                    if (why != nullptr) {
                      refused[why] += points;
                      continue;
                    }
                    c.expert = ep;
                    if (points > s.class_size(c))
                      refused["expert > 1 and ZeRO >= 2"] += points - s.class_size(c);
                  }
                  s.classes_.push_back(c);
                  s.size_ += s.class_size(c);
                  used_t = true;
                  pipe_set.insert(static_cast<int>(p));
                  micro_set.insert(b);
                  data_set.insert(static_cast<int>(d));
                  expert_set.insert(ep);
                  context_set.insert(static_cast<int>(cp));
                  any_sp |= sp;
                }
        }
      }
    if (used_t) tensors.push_back(static_cast<int>(t));
  }
  auto left_out = [](const std::map<std::string, std::uint64_t>& m) {
    std::string left;
    for (const auto& [why, n] : m)
      left += fmt::format("{}{} plans with {}", left.empty() ? "" : ", ", n, why);
    return left;
  };
  if (s.classes_.empty()) {
    std::string refusals = left_out(refused);
    if (!refused_context.empty())
      refusals += (refusals.empty() ? "" : ", ") + left_out(refused_context);
    if (!refusals.empty())
      return Status::error("search: no strategy fits: check_plan refuses every plan left: " +
                           refusals);
    return Status::error(fmt::format(
        "search: no strategy fits: no tensor x context x pipeline x data = {} devices with tensor "
        "dividing heads {}, FFN width {} and vocab {}, pipeline dividing {} layers and data "
        "dividing global batch {}{}",
        D, ts.heads, ffn, ts.vocab, ts.layers, B,
        grid.tensor.empty() && grid.pipeline.empty() && grid.micro_batch.empty() &&
                grid.context.empty()
            ? ""
            : " among the values of --set"));
  }

  for (const auto& [why, n] : refused) s.refused_.emplace_back(why, n);
  for (const auto& [why, n] : refused_context) s.refused_.emplace_back(why, n);
  s.contexts_ = context_set.size() > 1 || (!context_set.empty() && *context_set.begin() > 1);

  auto& L = s.lines_;
  L.push_back(fmt::format("tensor: {} (divisors of {} devices that divide heads {}, FFN width {} "
                          "and vocab {})",
                          ints(tensors), D, ts.heads, ffn, ts.vocab));
  L.push_back(fmt::format("pipeline: {} (divisors of the devices left that divide {} layers)",
                          ints({pipe_set.begin(), pipe_set.end()}), ts.layers));
  L.push_back(
      fmt::format("data: {} (filled in: devices / (tensor x context x pipeline), dividing "
                  "global batch {})",
                  ints({data_set.begin(), data_set.end()}), B));
  if (s.experts_) {
    const std::string left = left_out(refused);
    L.push_back(fmt::format("expert: {} (divisors of {} experts; above 1: dividing data, with tensor 1 "
                            "and ZeRO 0 or 1, as check_plan demands{})",
                            ints({expert_set.begin(), expert_set.end()}), moe.experts,
                            left.empty() ? "" : "; left out: " + left));
  }
  {
    const std::string left = left_out(refused_context);
    L.push_back(fmt::format(
        "context: {} (divisors of the devices left; above 1: seq {} divisible by 2 x context, "
        "attention flash, expert 1, with sequence parallelism seq / context divisible by tensor, "
        "as "
        "check_plan demands{})",
        ints({context_set.begin(), context_set.end()}), ts.seq,
        left.empty() ? "" : "; left out: " + left));
  }
  L.push_back(fmt::format("sequence parallelism: {} (on needs tensor >= 2 dividing seq {})",
                          any_sp ? join(grid.sequence_parallel, [](bool b) { return std::string(b ? "on" : "off"); })
                                 : std::string("off"),
                          ts.seq));
  L.push_back(s.training_ ? fmt::format("zero: {} (with data x context >= 2)", ints(grid.zero))
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
  {
    // Without context parallelism the six orders of T, D and P; with it, C
    // placed in each.
    std::vector<RankOrder> shown;
    const int ctx = s.contexts_ ? 2 : 1;
    for (const RankOrder& o : grid.rank_order.empty() ? all_orders() : grid.rank_order)
      if (std::none_of(shown.begin(), shown.end(), [&](const RankOrder& x) {
            return rank_order_label(x, ctx) == rank_order_label(o, ctx);
          }))
        shown.push_back(o);
    L.push_back(
        fmt::format("rank order: {} (innermost first; orders that differ only in degree-1 "
                    "axes are one)",
                    join(shown, [&](const RankOrder& o) { return rank_order_label(o, ctx); })));
  }
  L.push_back(s.training_
                  ? fmt::format("bucket: {} (with data x context >= 2)",
                                join(grid.bucket_bytes, [](double b) { return bucket_label(b); }))
                  : std::string("bucket: none (inference has no gradients)"));
  return s;
}

}  // namespace brigade::planner
