// The discrete-event engine. Layout for speed: per-task arrays indexed by
// TaskId (durations precomputed, dependency counters, successors as CSR),
// flows and running collectives in recycled slots, one event queue whose
// events are 8 bytes and dispatched by a switch. Nothing is allocated per
// event once the pools have grown.
#include "sim/simulator.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "costmodel/collectives.hpp"
#include "costmodel/nccl_model.hpp"
#include "sim/engine_records.hpp"
#include "sim/event_queue.hpp"
#include "sim/kernel_memo.hpp"
#include "sim/network.hpp"
#include "sim/schedule.hpp"
#include "sim/shortcut.hpp"
#include "sim/simulator_detail.hpp"
#include "sim/trace_recorder.hpp"

namespace brigade::sim {

std::string_view network_model_name(NetworkModel m) {
  return m == NetworkModel::kIdeal ? "ideal" : "flow";
}

namespace {

constexpr std::uint32_t kKindBits = 4;
constexpr std::uint32_t kKindMask = (1u << kKindBits) - 1;
enum EventKind : std::uint32_t {
  kTaskEnd = 0,       // id: compute task
  kAlphaEnd = 1,      // id: flow slot; its alpha is over, its bytes start
  kFlowEnd = 2,       // id: flow slot, tag carries its version
  kCollectiveGo = 3,  // id: collective; its overhead is over, its steps start
  kShortcutEnd = 4,   // id: collective run by the shortcut; it is over
};
constexpr std::uint32_t kVersionMask = 0xFFFFFFFFu >> kKindBits;
Event make_event(std::uint32_t id, EventKind kind, std::uint32_t version = 0) {
  return Event{id, kind | ((version & kVersionMask) << kKindBits)};
}

// on_progress about 256 times a run (a progress bar's resolution), at most
// every 2^20 tasks; cancellation is polled after each call and every
// kCancelPollEvery loop iterations.
constexpr std::int64_t kProgressMaxEvery = 1 << 20;
constexpr std::int64_t kProgressCalls = 256;
constexpr std::uint32_t kCancelPollEvery = 4096;

std::atomic<bool> g_split_rings{true};  // detail::split_checked_rings

// One message of a ring: its bytes, route and alpha multiple (a super-step's).
struct RingStep {
  double bytes = 0;
  std::int32_t route = -1, alpha_times = 1;
};
RingStep ring_step(const Instance& in, std::int32_t r, std::int32_t s);

class Engine {
 public:
  // What runs of one Program share: the shortcut table and plan (planned
  // once), and the collectives the checked shortcut refused.
  struct Shortcuts {
    ShortcutTable table;
    ShortcutPlan plan;
    std::vector<std::int32_t> of;  // per collective: its entry, -1: expanded
    bool planned = false;
    std::vector<std::uint8_t> refused;
  };

  Engine(const Program& p, const Topology& t, const HardwareProfile& h, const SimOptions& o,
         bool implicit_rings, bool name_links, TraceRecorder::Mode trace, Shortcuts& shortcuts)
      : p_(p), topo_(t), prof_(h), opt_(o), implicit_rings_(implicit_rings), name_links_(name_links),
        trace_mode_(trace), coll_shortcut_(shortcuts.of), shortcuts_table_(shortcuts.table),
        shortcut_plan_(shortcuts.plan), shortcuts_planned_(shortcuts.planned), refused_(&shortcuts.refused) {}

  // Collectives the checked shortcut refused in this run (the run must be
  // made again: its figures are not the Program's).
  std::int64_t refusals() const { return refusals_; }

  Status setup();
  Status run();
  SimResult result();

  // The run resumed by later runs (see run_engine): `*into` receives a copy
  // of this engine as it stands just before the first event that starts a
  // checked-shortcut candidate (ShortcutPlan::is_candidate), the last moment
  // at which every run of the Program is the same whatever was refused. If
  // such an event is found only while its bucket is being handled (a go
  // pushed into the bucket being handled), no copy is made.
  void snapshot_into(std::unique_ptr<Engine>* into) { snapshot_ = into; }
  // Whether a checked-shortcut candidate may be refused in this run (not
  // every one is a ring split_held can split): only then is a copy worth
  // keeping for a later run.
  bool may_refuse() const { return may_refuse_; }

 private:
  // ---- setup helpers
  std::string task_label(TaskId t) const;
  std::string collective_label(CollectiveId c) const;
  Result<std::int32_t> route_index(std::int32_t src, std::int32_t dst);
  Result<std::int32_t> collective_route_index(std::int32_t src, std::int32_t dst, bool reduce,
                                              CollectiveId c, bool warm);
  // The collective as it runs: the Program's, or, where NCCL's model times
  // it, a copy with the algorithm NCCL's choice expands to.
  const Collective& running_collective(CollectiveId c);
  std::string check_route(std::int32_t src, std::int32_t dst, std::int32_t& index);

  // ---- event handling
  // Tasks by internal index (see HotTask).
  void start_task(std::int32_t i);
  void finish_task(std::int32_t i);
  void begin_kernel(std::int32_t i, size_t d);
  void start_collective(CollectiveId c);
  void collective_go(CollectiveId c);
  void finish_collective(CollectiveId c);
  void start_instance(std::int32_t inst);
  void start_op(std::int32_t inst, std::int32_t op);
  void launch_flow(std::int32_t inst, std::int32_t op, std::int32_t step, double bytes, std::int32_t route,
                   std::int32_t alpha_times = 1);
  void ring_try(std::int32_t inst, std::int32_t rank);
  void start_ring(std::int32_t inst, const Collective& col);
  bool prepare_ring(std::int32_t inst, const Collective& col);
  bool split_held(CollectiveId c);
  bool candidates_split();
  void op_error(const Instance& in, const Status& st);
  void alpha_end(std::int32_t slot);
  void complete_flow(std::int32_t slot);
  void finish_instance(std::int32_t inst);
  void on_rate(std::int32_t slot, double rate);
  void touch_device(std::int32_t d);
  void alloc_buffer(BufferId b, TaskId t);
  void free_buffer(BufferId b);
  void report_oom(std::int32_t device, TaskId t);
  void memory_sample(std::int32_t d, MemoryCategory c);
  std::int32_t new_instance();
  std::int32_t new_flow();
  void channel_up(ChannelId c);
  void channel_down(ChannelId c, double bytes);
  void progress();
  void handle(Event e);
  bool candidate_go(Event e) const;
  bool candidate_go_next() const;

  const Program& p_;
  const Topology& topo_;
  const HardwareProfile& prof_;
  const SimOptions& opt_;
  const bool implicit_rings_;
  const bool name_links_;  // LinkStats::name
  const TraceRecorder::Mode trace_mode_;
  Status error_;

  double now_ = 0;
  std::int64_t events_ = 0;
  std::int64_t tasks_done_ = 0;
  std::int64_t progress_mask_ = kProgressMaxEvery - 1;  // on_progress when (tasks done & mask) == 0
  std::int64_t flows_ = 0;
  std::int64_t shortcuts_ = 0;
  double step_end_ = 0;
  std::int32_t last_task_ = -1;  // internal index
  bool times_ = false;  // keep per-task start (and end) times

  // Per task.
  BigVector<HotTask> hot_;          // by internal index
  BigVector<TaskId> ext_;           // internal index -> TaskId
  BigVector<double> start_, end_;   // by TaskId
  BigVector<std::int32_t> succ_;    // internal indices
  std::vector<std::int32_t> stream_device_, stream_end_;  // per stream: device; internal index past its last task
  std::vector<std::int32_t> coll_off_;  // per collective: its rank tasks' internal indices in coll_int_
  BigVector<std::int32_t> coll_int_;
  // Per collective.
  std::vector<std::int32_t> arrived_;
  std::vector<std::int32_t> last_arrival_;  // internal index
  std::vector<double> coll_overhead_;
  std::vector<std::int32_t>& coll_shortcut_;
  // NCCL's model (cost::nccl_collective): per collective, the algorithm it
  // expands to and an index into nccl_steps_ (-1: the alpha-beta model).
  std::vector<CollectiveAlgorithm> coll_algorithm_;
  std::vector<std::int32_t> coll_nccl_;
  std::vector<cost::AlphaBeta> nccl_steps_;
  // Routes of NCCL-timed steps, by (src, dst, index into nccl_steps_).
  std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t>, std::int32_t> nccl_route_map_;
  Collective running_scratch_;
  // Per device.
  std::vector<double> speed_, memory_speed_, slowdown_, capacity_;
  // Per device: DeviceProfile::comm_compute_share, and the compute time its
  // communication has taken while both ran, not yet charged to a kernel.
  std::vector<double> share_, debt_;
  bool any_share_ = false;  // some device has a share > 0
  // Per device with a share of 1: kernels that became ready while its
  // communication ran, started when the last of it ends (the kernel could
  // not make progress before; its span starts when it does).
  std::vector<std::vector<std::int32_t>> held_;
  std::vector<std::int32_t> compute_running_, comm_running_;
  std::vector<double> last_change_, busy_, comm_, exposed_, idle_;
  std::vector<std::int32_t> node_of_;
  // Memory.
  std::vector<double> live_;        // device * kNumMemoryCategories + category
  std::vector<double> total_, peak_total_, peak_cat_;
  std::vector<std::uint8_t> buffer_live_;
  std::vector<std::uint8_t> oom_seen_;
  std::vector<OomEvent> oom_;
  std::vector<std::vector<BufferId>> buffers_of_device_;  // filled by the first report_oom
  // Channels.
  struct ChannelUse {  // one cache line's worth per channel touch
    double busy = 0, bytes = 0, since = 0;
    std::int32_t active = 0;
  };
  std::vector<double> chan_capacity_;
  std::vector<ChannelUse> chan_;
  // Routes between device pairs, resolved on first use.
  std::vector<std::int32_t> route_dense_;  // src * D + dst, when D is small
  std::unordered_map<std::uint64_t, std::int32_t> route_map_;
  std::vector<RouteInfo> routes_;
  std::vector<ChannelId> route_channels_;
  // The route a collective's step takes, by (src, dst, reduces): the plain
  // route with the step's alpha (cost::collective_step_alpha_beta), plus one
  // more channel past the topology's (the pair's own copy or reduction, of
  // the step's bandwidth) when the step is slower than the links.
  std::unordered_map<std::uint64_t, std::int32_t> collective_route_map_;
  // Where the profile gives collective kinds their own steps
  // (LinkProfile::KindSteps), a step's figures depend on the collective's
  // kind and size too: those routes by (src, dst, reduces, kind, size).
  bool kind_steps_ = false;
  std::map<std::tuple<std::int32_t, std::int32_t, bool, CollectiveKind, double, bool>, std::int32_t>
      sized_route_map_;
  // Warm collectives (LinkProfile::KindSteps::warm_bandwidth_scale), where
  // the profile has warm scales: a collective runs warm when, on every rank,
  // no kernel or transfer started since the rank's previous collective
  // (`dirty_`, by device; at the step's start a device is dirty when it has
  // any kernel or transfer, the step being one of many alike). coll_warm_:
  // the decision, by collective, taken when it starts.
  bool warm_steps_ = false;
  std::array<bool, kNumCollectiveKinds> warm_kinds_{};  // kinds with warm figures
  std::vector<std::uint8_t> dirty_, coll_warm_;
  // Running work.
  EventQueue queue_;
  std::vector<std::int32_t> ready_;  // internal indices
  std::vector<FlowSlot> flows_slots_;
  std::vector<std::int32_t> free_flows_;
  std::vector<Instance> instances_;
  std::vector<std::int32_t> free_instances_;
  FlowNetwork net_;
  ExpandScratch scratch_;
  ShortcutTable& shortcuts_table_;
  ShortcutPlan& shortcut_plan_;
  bool& shortcuts_planned_;
  // The checked shortcut: per channel, until when a collective run by it
  // holds the channel, and which; per collective, refused in a run before
  // (a flow joined a channel it held: it runs expanded).
  std::vector<double> held_until_;
  std::vector<CollectiveId> held_by_;
  std::vector<std::uint8_t>* refused_ = nullptr;
  std::int64_t refusals_ = 0;  // new refusals in this run
  // Split held rings (split_held): per collective, the entry it holds its
  // channels by (-1: none) and since when; whether it was split (its
  // kShortcutEnd is then stale). Scratch for the split's replay.
  bool split_rings_ = false;
  bool may_refuse_ = true;
  std::vector<std::int32_t> held_entry_;
  std::vector<double> held_since_;
  std::vector<std::uint8_t> split_;
  std::int64_t splits_ = 0;
  std::vector<std::uint64_t> split_owner_;  // per channel: (split stamp << 32) | hop
  std::uint64_t split_stamp_ = 0;
  struct SplitRank {
    double end = 0;        // of its latest replayed step
    std::int32_t launched = 0, done = 0;
    double start = 0, alpha_end = 0, flight_end = 0;  // of the step in flight (launched > done)
    double bytes = 0;
    std::int32_t route = -1, alpha_times = 1;
  };
  std::vector<SplitRank> split_ranks_;
  std::vector<double> split_prev_end_;
  std::unique_ptr<Engine>* snapshot_ = nullptr;  // wanted and not taken yet (snapshot_into)
  TraceRecorder rec_;
};

std::string Engine::task_label(TaskId t) const {
  std::string s = "task " + std::to_string(t);
  const auto name = p_.task_name(t);
  if (!name.empty()) s += " '" + std::string(name) + "'";
  return s;
}

std::string Engine::collective_label(CollectiveId c) const {
  const Collective& col = p_.collectives()[static_cast<size_t>(c)];
  return "collective " + std::to_string(c) +
         (col.tasks.empty() ? "" : " (" + task_label(col.tasks[0]) + ")");
}

// Resolves (and checks) the route between two devices; "" or an error text.
std::string Engine::check_route(std::int32_t src, std::int32_t dst, std::int32_t& index) {
  const Route& r = topo_.route(src, dst);
  const std::string from = topo_.device(src).name, to = topo_.device(dst).name;
  if (r.channels.empty() && src != dst)
    return "no route from " + from + " to " + to + "; expected a connected topology";
  RouteInfo info;
  info.first = static_cast<std::int32_t>(route_channels_.size());
  info.count = static_cast<std::int32_t>(r.channels.size());
  for (ChannelId c : r.channels) {
    const double cap = chan_capacity_[static_cast<size_t>(c)];
    if (!(cap > 0) || !std::isfinite(cap)) {
      const Link& l = topo_.links()[static_cast<size_t>(link_of(c))];
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", cap);
      return "the route from " + from + " to " + to + " crosses link '" +
             (l.name.empty() ? std::to_string(link_of(c)) : l.name) + "' of bandwidth " + buf +
             " B/s; expected a positive bandwidth";
    }
    route_channels_.push_back(c);
  }
  info.alpha_seconds = route_alpha_seconds(r, prof_);
  info.bandwidth_bytes_per_second = route_bandwidth_bytes_per_second(r, topo_, prof_);
  index = static_cast<std::int32_t>(routes_.size());
  routes_.push_back(info);
  return "";
}

Result<std::int32_t> Engine::route_index(std::int32_t src, std::int32_t dst) {
  const auto d = static_cast<std::int64_t>(p_.num_devices);
  std::int32_t* slot = nullptr;
  if (!route_dense_.empty()) {
    slot = &route_dense_[static_cast<size_t>(src * d + dst)];
  } else {
    auto [it, inserted] = route_map_.try_emplace(
        (static_cast<std::uint64_t>(src) << 32) | static_cast<std::uint32_t>(dst), -1);
    slot = &it->second;
  }
  if (*slot >= 0) return *slot;
  std::int32_t index = -1;
  std::string err = check_route(src, dst, index);
  if (!err.empty()) return Status::error(err);
  *slot = index;
  return index;
}

Result<std::int32_t> Engine::collective_route_index(std::int32_t src, std::int32_t dst, bool reduce,
                                                    CollectiveId c, bool warm) {
  const Collective& col = p_.collectives()[static_cast<size_t>(c)];
  if (const std::int32_t k = coll_nccl_[static_cast<size_t>(c)]; k >= 0) {
    // NCCL's choice: its steps' latency and bandwidth. A step slower than
    // the route runs on the route plus a channel of the pair's own; one
    // faster than the links (NVLS, a multi-channel ring across nodes) on a
    // channel of its own alone (docs/simulator.md, "Collectives under NCCL's
    // model").
    std::int32_t& slot = nccl_route_map_.try_emplace(std::make_tuple(src, dst, k), -1).first->second;
    if (slot >= 0) return slot;
    BRIGADE_ASSIGN_OR_RETURN(std::int32_t index, route_index(src, dst));
    const cost::AlphaBeta& step = nccl_steps_[static_cast<size_t>(k)];
    const double bandwidth = step.bandwidth_bytes_per_second;
    const RouteInfo plain = routes_[static_cast<size_t>(index)];
    RouteInfo info = plain;
    info.alpha_seconds = step.alpha_seconds;
    const auto channel = static_cast<ChannelId>(chan_capacity_.size());
    chan_capacity_.push_back(bandwidth);
    chan_.push_back(ChannelUse{});
    if (opt_.network == NetworkModel::kFlow) net_.add_channel(bandwidth);
    info.first = static_cast<std::int32_t>(route_channels_.size());
    info.bandwidth_bytes_per_second = bandwidth;
    if (bandwidth < plain.bandwidth_bytes_per_second) {
      info.count = plain.count + 1;
      for (std::int32_t i = 0; i < plain.count; ++i)
        route_channels_.push_back(route_channels_[static_cast<size_t>(plain.first + i)]);
    } else {
      info.count = 1;
      if (plain.count > 0) info.trace_channel = route_channels_[static_cast<size_t>(plain.first)];
    }
    route_channels_.push_back(channel);
    slot = static_cast<std::int32_t>(routes_.size());
    routes_.push_back(info);
    return slot;
  }
  std::int32_t* slot = nullptr;
  if (kind_steps_) {
    slot = &sized_route_map_
                .try_emplace(std::make_tuple(src, dst, reduce, col.kind, col.bytes, warm), -1)
                .first->second;
  } else {
    const std::uint64_t key = (static_cast<std::uint64_t>(src) << 33) |
                              (static_cast<std::uint64_t>(static_cast<std::uint32_t>(dst)) << 1) |
                              (reduce ? 1u : 0u);
    slot = &collective_route_map_.try_emplace(key, -1).first->second;
  }
  if (*slot >= 0) return *slot;
  BRIGADE_ASSIGN_OR_RETURN(std::int32_t index, route_index(src, dst));
  const cost::AlphaBeta step = cost::collective_step_alpha_beta(topo_.route(src, dst), topo_, prof_,
                                                                dst, col.kind, col.bytes, warm);
  const double bandwidth = reduce ? step.reduce_bandwidth_bytes_per_second : step.bandwidth_bytes_per_second;
  const RouteInfo plain = routes_[static_cast<size_t>(index)];
  const bool slower = bandwidth < plain.bandwidth_bytes_per_second;
  if (slower || step.alpha_seconds != plain.alpha_seconds) {
    RouteInfo info = plain;
    info.alpha_seconds = step.alpha_seconds;
    if (slower) {
      const auto channel = static_cast<ChannelId>(chan_capacity_.size());
      chan_capacity_.push_back(bandwidth);
      chan_.push_back(ChannelUse{});
      if (opt_.network == NetworkModel::kFlow) net_.add_channel(bandwidth);
      info.first = static_cast<std::int32_t>(route_channels_.size());
      info.count = plain.count + 1;
      info.bandwidth_bytes_per_second = bandwidth;
      for (std::int32_t i = 0; i < plain.count; ++i)
        route_channels_.push_back(route_channels_[static_cast<size_t>(plain.first + i)]);
      route_channels_.push_back(channel);
    }
    index = static_cast<std::int32_t>(routes_.size());
    routes_.push_back(info);
  }
  *slot = index;
  return index;
}

Status Engine::setup() {
  if (cancel_requested(opt_.cancel)) return cancelled_status();
  const std::string who = "program '" + p_.name + "': ";
  {
    std::int64_t every = 1;
    while (every < kProgressMaxEvery && every * kProgressCalls < p_.num_tasks()) every *= 2;
    progress_mask_ = every - 1;
  }
  BRIGADE_RETURN_IF_ERROR(p_.validate_against(topo_));
  const auto nt = static_cast<size_t>(p_.num_tasks());
  const auto nd = static_cast<size_t>(p_.num_devices);
  const auto nc = static_cast<size_t>(topo_.num_channels());
  const auto nk = static_cast<size_t>(kNumMemoryCategories);

  // Devices.
  speed_.assign(nd, 1.0);
  memory_speed_.assign(nd, 0.0);  // 0: as speed_
  for (const auto* factors : {&opt_.speed, &opt_.memory_speed})
    for (const auto& [dev, f] : *factors) {
      const char* what = factors == &opt_.speed ? "speed factor" : "memory speed factor";
      if (dev < 0 || static_cast<size_t>(dev) >= nd)
        return Status::error(who + what + " for device " + std::to_string(dev) +
                             ", which does not exist; expected a device in 0.." +
                             std::to_string(static_cast<long>(nd) - 1));
      if (!(f > 0) || !std::isfinite(f)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", f);
        return Status::error(who + what + " " + buf + " for device " + std::to_string(dev) +
                             "; expected a positive factor");
      }
      (factors == &opt_.speed ? speed_ : memory_speed_)[static_cast<size_t>(dev)] = f;
    }
  for (size_t d = 0; d < nd; ++d)
    if (memory_speed_[d] == 0) memory_speed_[d] = speed_[d];
  // Runtime conditions (core/runtime.hpp): what the plan did not see slows
  // every kernel of the device, streaming ones included.
  for (const auto& [dev, f] : opt_.runtime.speed) {
    if (dev < 0 || static_cast<size_t>(dev) >= nd) continue;  // a device the Program does not use
    if (!(f > 0) || !(f <= 1)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", f);
      return Status::error(who + "runtime speed " + buf + " for device " + std::to_string(dev) +
                           "; expected a factor in (0, 1]");
    }
    speed_[static_cast<size_t>(dev)] *= f;
    memory_speed_[static_cast<size_t>(dev)] *= f;
  }
  if (!(opt_.runtime.input_seconds >= 0) || !std::isfinite(opt_.runtime.input_seconds))
    return Status::error(who + "runtime input pipeline time " +
                         std::to_string(opt_.runtime.input_seconds) + "; expected a duration >= 0");
  slowdown_.assign(nd, 0);
  share_.assign(nd, 0);
  held_.assign(nd, {});
  debt_.assign(nd, 0);
  any_share_ = false;
  capacity_.assign(nd, 0);
  node_of_.assign(static_cast<size_t>(topo_.num_devices()), 0);
  for (int d = 0; d < topo_.num_devices(); ++d) node_of_[static_cast<size_t>(d)] = topo_.device(d).node;
  std::vector<std::int32_t> device_class(nd, 0);
  for (size_t d = 0; d < nd; ++d) {
    const Device& dev = topo_.device(static_cast<int>(d));
    slowdown_[d] = prof_.for_device(dev).comm_compute_slowdown;
    share_[d] = prof_.for_device(dev).comm_compute_share;
    any_share_ |= share_[d] > 0;
    capacity_[d] = dev.memory_bytes;
    // Devices with the same kernel-time inputs share memo entries.
    device_class[d] = static_cast<std::int32_t>(d);
    for (size_t e = 0; e < d && e < 64; ++e) {
      const Device& o = topo_.device(static_cast<int>(e));
      if (o.model == dev.model && o.peak_flops_per_second == dev.peak_flops_per_second &&
          o.memory_bandwidth_bytes_per_second == dev.memory_bandwidth_bytes_per_second) {
        device_class[d] = device_class[e];
        break;
      }
    }
  }
  compute_running_.assign(nd, 0);
  comm_running_.assign(nd, 0);
  last_change_.assign(nd, 0);
  busy_.assign(nd, 0);
  idle_.assign(nd, 0);
  comm_.assign(nd, 0);
  exposed_.assign(nd, 0);

  // Channels.
  chan_capacity_.assign(nc, 0);
  for (size_t c = 0; c < nc; ++c) {
    const Link& l = topo_.links()[static_cast<size_t>(link_of(static_cast<ChannelId>(c)))];
    chan_capacity_[c] = achieved_link_bandwidth_bytes_per_second(l, prof_);
  }
  chan_.assign(nc, ChannelUse{});
  if (opt_.network == NetworkModel::kFlow) net_.init(chan_capacity_);
  kind_steps_ = false;
  warm_steps_ = false;
  warm_kinds_.fill(false);
  for (const LinkProfile& lp : prof_.links) {
    kind_steps_ |= lp.has_kind_steps();
    warm_steps_ |= lp.has_warm_steps();
    for (int k = 0; k < kNumCollectiveKinds; ++k)
      warm_kinds_[static_cast<size_t>(k)] =
          warm_kinds_[static_cast<size_t>(k)] || lp.kind_steps(static_cast<CollectiveKind>(k)).has_warm();
  }
  // Dense pair -> route table for small device counts (the shortcut's
  // isolated runs are many and small: no 4 MB table each).
  if (nd <= 256) route_dense_.assign(nd * nd, -1);

  // Collectives: expandable, overheads.
  const auto ncoll = p_.collectives().size();
  if (ncoll >= (1u << 29) || nd >= (1u << 29) || nt >= (1ull << 31))
    return Status::error(who + "has " + std::to_string(ncoll) + " collectives, " + std::to_string(nd) +
                             " devices and " + std::to_string(nt) +
                             " tasks; the simulator handles up to 2^29 collectives and devices and 2^31 tasks",
                         ErrorKind::kUnsupported);
  arrived_.assign(ncoll, 0);
  last_arrival_.assign(ncoll, -1);
  coll_overhead_.assign(ncoll, 0);
  std::vector<double> device_overhead(nd, 0);
  for (size_t d = 0; d < nd; ++d)
    device_overhead[d] = prof_.for_device(topo_.device(static_cast<int>(d))).collective_overhead_seconds;
  coll_algorithm_.assign(ncoll, CollectiveAlgorithm::kRing);
  coll_nccl_.assign(ncoll, -1);
  nccl_steps_.clear();
  nccl_route_map_.clear();
  // NCCL's choice per collective (the closed form's, cost::collective_query_on),
  // memoised by what it depends on.
  std::map<std::tuple<CollectiveKind, CollectiveAlgorithm, double, std::vector<std::int32_t>>,
           std::pair<std::int32_t, CollectiveAlgorithm>>
      nccl_memo;
  for (size_t c = 0; c < ncoll; ++c) {
    const Collective& col = p_.collectives()[c];
    coll_algorithm_[c] = col.algorithm;
    double o = 0;
    for (std::int32_t d : col.group) o = std::max(o, device_overhead[static_cast<size_t>(d)]);
    coll_overhead_[c] = o;
    auto key = std::make_tuple(col.kind, col.algorithm, col.bytes, col.group);
    auto it = nccl_memo.find(key);
    if (it == nccl_memo.end()) {
      auto choice = cost::nccl_collective(topo_, prof_, col.kind, col.algorithm, col.group, col.bytes);
      if (!choice.is_ok())
        return Status::error(who + collective_label(static_cast<CollectiveId>(c)) + ": " +
                             choice.message());
      std::pair<std::int32_t, CollectiveAlgorithm> v{-1, col.algorithm};
      if (choice->has_value()) {
        nccl_steps_.push_back((*choice)->step);
        v = {static_cast<std::int32_t>(nccl_steps_.size()) - 1, (*choice)->expansion};
      }
      it = nccl_memo.emplace(std::move(key), v).first;
    }
    coll_nccl_[c] = it->second.first;
    if (coll_nccl_[c] >= 0) {
      coll_algorithm_[c] = it->second.second;
      // NCCL's latency is in the steps; the call pays the launch alone.
      coll_overhead_[c] = o;
    }
    if (Status st = check_expandable(running_collective(static_cast<CollectiveId>(c)), node_of_);
        !st.is_ok())
      return Status::error(who + collective_label(static_cast<CollectiveId>(c)) + ": " + st.message());
  }

  // Tasks: internal numbering in stream order, durations, dependency
  // counts, successors.
  KernelMemo memo;
  const auto ns = p_.streams().size();
  hot_.assign(nt, HotTask{});
  ext_.resize(nt);
  stream_device_.assign(ns, 0);
  stream_end_.assign(ns, 0);
  BigVector<std::int32_t> int_of(nt, -1);
  {
    std::int32_t k = 0;
    for (size_t st = 0; st < ns; ++st) {
      stream_device_[st] = p_.streams()[st].device;
      const auto ts = p_.stream_tasks(static_cast<StreamId>(st));
      for (size_t j = 0; j < ts.size(); ++j) {
        ext_[static_cast<size_t>(k)] = ts[j];
        int_of[static_cast<size_t>(ts[j])] = k;
        if (j > 0) ++hot_[static_cast<size_t>(k)].pending;  // its stream predecessor
        ++k;
      }
      stream_end_[st] = k;
    }
  }
  times_ = opt_.record_task_times || trace_mode_ == TraceRecorder::Mode::kFull;
  if (times_) {
    start_.assign(nt, 0);
    end_.assign(nt, 0);
  }
  // Passes over the Program in its own order (sequential reads of its
  // arrays); writes land on internal indices.
  BigVector<std::uint32_t> succ_off(nt + 1, 0);
  std::vector<TaskId> transfers;
  for (size_t t = 0; t < nt; ++t) {
    const Task& x = p_.task(static_cast<TaskId>(t));
    HotTask& h = hot_[static_cast<size_t>(int_of[t])];
    h.stream = x.stream;
    const std::int32_t aux = x.kind == TaskKind::kCollective ? x.collective
                             : x.kind == TaskKind::kTransfer ? x.peer
                                                              : 0;
    const bool mem = !p_.allocs(static_cast<TaskId>(t)).empty() || !p_.frees(static_cast<TaskId>(t)).empty();
    h.bits = static_cast<std::uint32_t>(x.kind) | (mem ? 4u : 0u) | (static_cast<std::uint32_t>(aux) << 3);
    if (x.kind == TaskKind::kCompute) {
      h.duration = memo.get(topo_, prof_, device_class[static_cast<size_t>(x.device)], x.device,
                            x.dtype, x.compute, x.flops, x.bytes, task_written_bytes(x), x.kernel,
                            x.kernel != KernelClass::kGeneric ? x.m : 0,
                            x.kernel != KernelClass::kGeneric ? x.k : 0) /
                   (x.compute == ComputeKind::kMemoryBound ? memory_speed_
                                                           : speed_)[static_cast<size_t>(x.device)];
    } else if (x.kind == TaskKind::kTransfer) {
      // Resolve the route now, so that a bad link is reported before running.
      auto r = route_index(x.device, x.peer);
      if (!r.is_ok()) return Status::error(who + task_label(static_cast<TaskId>(t)) + ": " + r.message());
      transfers.push_back(static_cast<TaskId>(t));
    }
    const auto deps = p_.deps(static_cast<TaskId>(t));
    h.pending += static_cast<std::int32_t>(deps.size());
    for (TaskId on : deps) ++succ_off[static_cast<size_t>(int_of[static_cast<size_t>(on)]) + 1];
  }
  for (size_t i = 0; i < nt; ++i) succ_off[i + 1] += succ_off[i];
  succ_.resize(succ_off[nt]);
  for (size_t i = 0; i < nt; ++i) {
    hot_[i].succ_begin = succ_off[i];
    hot_[i].succ_count = succ_off[i + 1] - succ_off[i];
  }
  for (size_t t = 0; t < nt; ++t)
    for (TaskId on : p_.deps(static_cast<TaskId>(t)))
      succ_[succ_off[static_cast<size_t>(int_of[static_cast<size_t>(on)])]++] = int_of[t];
  succ_off = {};
  coll_off_.assign(ncoll + 1, 0);
  for (size_t c = 0; c < ncoll; ++c)
    coll_off_[c + 1] = coll_off_[c] + static_cast<std::int32_t>(p_.collectives()[c].tasks.size());
  coll_int_.resize(static_cast<size_t>(coll_off_[ncoll]));
  for (size_t c = 0; c < ncoll; ++c) {
    const auto& tasks = p_.collectives()[c].tasks;
    for (size_t r = 0; r < tasks.size(); ++r)
      coll_int_[static_cast<size_t>(coll_off_[c]) + r] = int_of[static_cast<size_t>(tasks[r])];
  }

  // Warm collectives: every device with a kernel or a transfer starts dirty.
  dirty_.assign(nd, 0);
  coll_warm_.assign(ncoll, 0);
  if (warm_steps_)
    for (TaskId t = 0; t < p_.num_tasks(); ++t) {
      const Task& x = p_.task(t);
      if (x.kind == TaskKind::kCollective) continue;
      dirty_[static_cast<size_t>(x.device)] = 1;
      if (x.kind == TaskKind::kTransfer) dirty_[static_cast<size_t>(x.peer)] = 1;
    }

  // Shortcuts: collectives whose channels no concurrent traffic can touch
  // (not with warm collectives: a shortcut's time is decided before the
  // run, warmth when the collective starts).
  if (!shortcuts_planned_) {
    coll_shortcut_.assign(ncoll, -1);
    if (!opt_.exact && ncoll > 0 && !warm_steps_) {
      BRIGADE_RETURN_IF_ERROR(shortcut_plan_.plan(p_, coll_algorithm_, topo_, prof_, opt_.network, node_of_,
                                                  transfers, shortcuts_table_, coll_shortcut_, opt_.cancel,
                                                  trace_mode_ == TraceRecorder::Mode::kFull, !opt_.trace_steps));
    }
    shortcuts_planned_ = true;
  }
  if (cancel_requested(opt_.cancel)) return cancelled_status();
  refused_->resize(ncoll, 0);
  if (shortcut_plan_.any_candidate()) {
    held_until_.assign(nc, 0.0);
    held_by_.assign(nc, 0);
    // A held ring a flow joins is split at that instant (split_held) where
    // its isolated run can be replayed exactly: flows shared max-min fairly,
    // no trace to replay its messages into.
    split_rings_ = g_split_rings && implicit_rings_ && opt_.network == NetworkModel::kFlow &&
                   trace_mode_ == TraceRecorder::Mode::kOff;
    held_entry_.assign(ncoll, -1);
    held_since_.assign(ncoll, 0.0);
    split_.assign(ncoll, 0);
    may_refuse_ = !split_rings_ || !candidates_split();
  }

  // Memory: resident buffers are live from time 0.
  live_.assign(nd * nk, 0);
  total_.assign(nd, 0);
  peak_total_.assign(nd, 0);
  peak_cat_.assign(nd * nk, 0);
  buffer_live_.assign(p_.buffers().size(), 0);
  oom_seen_.assign(nd, 0);
  for (size_t b = 0; b < p_.buffers().size(); ++b) {
    const Buffer& buf = p_.buffers()[b];
    if (!buf.resident) continue;
    buffer_live_[b] = 1;
    const auto d = static_cast<size_t>(buf.device);
    live_[d * nk + static_cast<size_t>(buf.category)] += buf.bytes;
    total_[d] += buf.bytes;
  }
  for (size_t d = 0; d < nd; ++d) {
    peak_total_[d] = total_[d];
    for (size_t k = 0; k < nk; ++k) peak_cat_[d * nk + k] = live_[d * nk + k];
  }

  // Trace tables, and room for what the run records: a span per task, a
  // transfer per message (those of shortcut collectives and transfer tasks
  // are known now; expanded collectives' add as they come).
  if (trace_mode_ != TraceRecorder::Mode::kOff) {
    rec_.start(trace_mode_, p_, topo_, "sim:" + std::string(network_model_name(opt_.network)), opt_.trace_filter,
               !opt_.trace_steps);
    size_t messages = transfers.size();
    for (size_t c = 0; c < ncoll; ++c)
      if (coll_shortcut_[c] >= 0)
        messages += shortcuts_table_.entries[static_cast<size_t>(coll_shortcut_[c])].transfers.size();
    rec_.reserve(nt, messages);
    if (rec_.full())
      for (size_t d = 0; d < nd; ++d)
        for (size_t k = 0; k < nk; ++k) memory_sample(static_cast<std::int32_t>(d), static_cast<MemoryCategory>(k));
  }
  // Resident buffers alone over capacity: an OOM at time 0 with task -1.
  for (size_t d = 0; d < nd; ++d)
    if (total_[d] > capacity_[d]) report_oom(static_cast<std::int32_t>(d), -1);

  for (size_t i = 0; i < nt; ++i)
    if (hot_[i].pending == 0) ready_.push_back(static_cast<std::int32_t>(i));
  // The input pipeline (runtime.input_seconds): nothing of the step starts
  // before the batch is there; the devices are idle until then (last_change_
  // is 0, so touch_device counts the wait as idle).
  now_ = opt_.runtime.input_seconds;
  return Status::ok();
}

// ---- device and channel bookkeeping ------------------------------------------------

void Engine::touch_device(std::int32_t d) {
  const auto i = static_cast<size_t>(d);
  const double dt = now_ - last_change_[i];
  if (dt > 0) {
    if (compute_running_[i] > 0) busy_[i] += dt;
    if (compute_running_[i] == 0 && comm_running_[i] == 0) idle_[i] += dt;
    if (comm_running_[i] > 0) {
      comm_[i] += dt;
      if (compute_running_[i] == 0) {
        exposed_[i] += dt;
      } else {
        // The kernel loses share x dt to the communication: that much of it
        // is not hidden either.
        debt_[i] += share_[i] * dt;
        exposed_[i] += share_[i] * dt;
      }
    }
  }
  last_change_[i] = now_;
}

void Engine::channel_up(ChannelId c) {
  const auto i = static_cast<size_t>(c);
  ChannelUse& u = chan_[i];
  if (u.active++ == 0) u.since = now_;
}

void Engine::channel_down(ChannelId c, double bytes) {
  const auto i = static_cast<size_t>(c);
  ChannelUse& u = chan_[i];
  u.bytes += bytes;
  if (--u.active == 0) u.busy += now_ - u.since;
}

void Engine::memory_sample(std::int32_t d, MemoryCategory c) {
  rec_.memory(d, c, now_, live_[static_cast<size_t>(d) * kNumMemoryCategories + static_cast<size_t>(c)]);
}

void Engine::alloc_buffer(BufferId b, TaskId t) {
  if (buffer_live_[static_cast<size_t>(b)]) return;
  buffer_live_[static_cast<size_t>(b)] = 1;
  const Buffer& buf = p_.buffers()[static_cast<size_t>(b)];
  const auto d = static_cast<size_t>(buf.device);
  const size_t key = d * kNumMemoryCategories + static_cast<size_t>(buf.category);
  live_[key] += buf.bytes;
  total_[d] += buf.bytes;
  peak_cat_[key] = std::max(peak_cat_[key], live_[key]);
  peak_total_[d] = std::max(peak_total_[d], total_[d]);
  if (rec_.full()) memory_sample(buf.device, buf.category);
  if (total_[d] > capacity_[d] && !oom_seen_[d]) report_oom(buf.device, t);
}

void Engine::report_oom(std::int32_t device, TaskId t) {
  const auto d = static_cast<size_t>(device);
  oom_seen_[d] = 1;
  OomEvent e;
  e.device = device;
  e.time_seconds = now_;
  e.task = t;
  e.live_bytes = total_[d];
  e.capacity_bytes = capacity_[d];
  // The largest live buffers of the device (largest first, then by id). The
  // buffers by device, listed on the first report (a plan over capacity
  // everywhere reports every device: one pass over all buffers each was
  // most of such a run's time).
  if (buffers_of_device_.empty()) {
    buffers_of_device_.assign(p_.buffers().size() > 0 ? capacity_.size() : 0, {});
    for (size_t i = 0; i < p_.buffers().size(); ++i) {
      const auto bd = static_cast<size_t>(p_.buffers()[i].device);
      if (bd < buffers_of_device_.size()) buffers_of_device_[bd].push_back(static_cast<BufferId>(i));
    }
  }
  std::vector<std::pair<double, BufferId>> live;
  static const std::vector<BufferId> kNone;
  for (const BufferId b : d < buffers_of_device_.size() ? buffers_of_device_[d] : kNone)
    if (const auto i = static_cast<size_t>(b); buffer_live_[i]) {
      live.emplace_back(-p_.buffers()[i].bytes, static_cast<BufferId>(i));
      const auto c = static_cast<size_t>(p_.buffers()[i].category);
      e.live_by_category[c] += p_.buffers()[i].bytes;
      ++e.buffers_by_category[c];
    }
  const size_t k = std::min<size_t>(5, live.size());
  std::partial_sort(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(k), live.end());
  for (size_t i = 0; i < k; ++i)
    e.largest_buffers.emplace_back(p_.buffers()[static_cast<size_t>(live[i].second)].name, -live[i].first);
  oom_.push_back(std::move(e));
}

void Engine::free_buffer(BufferId b) {
  if (!buffer_live_[static_cast<size_t>(b)]) return;
  buffer_live_[static_cast<size_t>(b)] = 0;
  const Buffer& buf = p_.buffers()[static_cast<size_t>(b)];
  const auto d = static_cast<size_t>(buf.device);
  const size_t key = d * kNumMemoryCategories + static_cast<size_t>(buf.category);
  live_[key] -= buf.bytes;
  total_[d] -= buf.bytes;
  if (rec_.full()) memory_sample(buf.device, buf.category);
}

void Engine::progress() {
  if (opt_.on_progress && (tasks_done_ & progress_mask_) == 0) {
    opt_.on_progress(static_cast<double>(tasks_done_), static_cast<double>(p_.num_tasks()));
    if (cancel_requested(opt_.cancel) && error_.is_ok()) error_ = cancelled_status();
  }
}

// ---- tasks ------------------------------------------------------------------------

void Engine::begin_kernel(std::int32_t i, size_t d) {
  const HotTask& h = hot_[static_cast<size_t>(i)];
  if (times_) start_[static_cast<size_t>(ext_[static_cast<size_t>(i)])] = now_;
  if (warm_steps_) dirty_[d] = 1;
  double dur = h.duration;
  // Compute slowed by communication in flight on the device, decided at the
  // kernel's start (docs/simulator.md, "Approximations").
  if (comm_running_[d] > 0 && slowdown_[d] > 0) dur *= 1 + slowdown_[d];
  ++compute_running_[d];
  queue_.push(now_ + dur, make_event(static_cast<std::uint32_t>(i), kTaskEnd));
}

void Engine::start_task(std::int32_t i) {
  ++events_;
  const HotTask& h = hot_[static_cast<size_t>(i)];
  const TaskId t = ext_[static_cast<size_t>(i)];
  if (times_) start_[static_cast<size_t>(t)] = now_;
  const TaskKind kind = h.kind();
  if (kind == TaskKind::kCollective) {
    // A rank arrives; the collective starts when the last one does.
    const auto c = static_cast<size_t>(h.aux());
    last_arrival_[c] = i;
    if (++arrived_[c] == coll_off_[c + 1] - coll_off_[c]) start_collective(h.aux());
    return;
  }
  const std::int32_t dev = stream_device_[static_cast<size_t>(h.stream)];
  const auto d = static_cast<size_t>(dev);
  touch_device(dev);
  if (warm_steps_ && kind == TaskKind::kTransfer) {
    dirty_[d] = 1;
    dirty_[static_cast<size_t>(h.aux())] = 1;
  }
  if (h.has_memory())
    for (BufferId b : p_.allocs(t)) alloc_buffer(b, t);
  if (kind == TaskKind::kCompute) {
    if (comm_running_[d] > 0 && share_[d] >= 1) {
      held_[d].push_back(i);
      return;
    }
    begin_kernel(i, d);
    return;
  }
  // Transfer: one flow from the device to its peer.
  ++comm_running_[d];
  const std::int32_t peer = h.aux();
  const std::int32_t inst = new_instance();
  Instance& in = instances_[static_cast<size_t>(inst)];
  in.transfer = t;
  in.transfer_int = i;
  in.collective = -1;
  in.devices.assign({dev, peer});
  in.ring = false;
  in.sched.clear();
  in.sched.add_op(0, 1, p_.task(t).bytes);
  start_instance(inst);
}

void Engine::finish_task(std::int32_t i) {
  HotTask& h = hot_[static_cast<size_t>(i)];
  const TaskId t = ext_[static_cast<size_t>(i)];
  const std::int32_t dev = stream_device_[static_cast<size_t>(h.stream)];
  const auto d = static_cast<size_t>(dev);
  touch_device(dev);
  if (h.kind() == TaskKind::kCompute) {
    --compute_running_[d];
  } else if (--comm_running_[d] == 0 && !held_[d].empty()) {
    // begin_kernel holds nothing (no communication runs now), so the list
    // is walked in place and kept for its capacity.
    for (std::int32_t k : held_[d]) {
      hot_[static_cast<size_t>(k)].crit_pred = i;  // it waited for this communication
      begin_kernel(k, d);
    }
    held_[d].clear();
  }
  if (h.has_memory())
    for (BufferId b : p_.frees(t)) free_buffer(b);
  if (times_) end_[static_cast<size_t>(t)] = now_;
  if (rec_.full()) rec_.span(t, p_.task(t), start_[static_cast<size_t>(t)], now_);
  if (now_ >= step_end_) {
    step_end_ = now_;
    last_task_ = i;
  }
  const std::int32_t* succ = succ_.data() + h.succ_begin;
  for (std::uint32_t k = 0; k < h.succ_count; ++k) {
    HotTask& sh = hot_[static_cast<size_t>(succ[k])];
    if (--sh.pending == 0) {
      sh.crit_pred = i;
      ready_.push_back(succ[k]);
    }
  }
  // The next task on its stream is the next record.
  if (i + 1 < stream_end_[static_cast<size_t>(h.stream)]) {
    HotTask& sh = hot_[static_cast<size_t>(i) + 1];
    if (--sh.pending == 0) {
      sh.crit_pred = i;
      ready_.push_back(i + 1);
    }
  }
  ++tasks_done_;
  progress();
}

// ---- collectives and transfers -----------------------------------------------------

void Engine::start_collective(CollectiveId c) {
  // Every rank starts now; the chain of the critical path runs through the
  // last rank to arrive.
  const std::int32_t last = last_arrival_[static_cast<size_t>(c)];
  const std::int32_t via = hot_[static_cast<size_t>(last)].crit_pred;
  if (warm_steps_) {
    bool warm = true;
    for (std::int32_t dev : p_.collectives()[static_cast<size_t>(c)].group) {
      warm &= dirty_[static_cast<size_t>(dev)] == 0;
      dirty_[static_cast<size_t>(dev)] = 0;
    }
    coll_warm_[static_cast<size_t>(c)] = warm ? 1 : 0;
  }
  for (std::int32_t k = coll_off_[static_cast<size_t>(c)]; k < coll_off_[static_cast<size_t>(c) + 1]; ++k) {
    const std::int32_t ri = coll_int_[static_cast<size_t>(k)];
    HotTask& h = hot_[static_cast<size_t>(ri)];
    const TaskId rt = ext_[static_cast<size_t>(ri)];
    const std::int32_t dev = stream_device_[static_cast<size_t>(h.stream)];
    if (times_) start_[static_cast<size_t>(rt)] = now_;
    if (ri != last) h.crit_pred = via;
    touch_device(dev);
    ++comm_running_[static_cast<size_t>(dev)];
    if (h.has_memory())
      for (BufferId b : p_.allocs(rt)) alloc_buffer(b, rt);
  }
  // A warm collective of a kind with warm figures pays no call overhead
  // (cost::collective_query_on says the same).
  const bool no_overhead =
      warm_steps_ && coll_warm_[static_cast<size_t>(c)] != 0 &&
      warm_kinds_[static_cast<size_t>(p_.collectives()[static_cast<size_t>(c)].kind)];
  queue_.push(now_ + (no_overhead ? 0.0 : coll_overhead_[static_cast<size_t>(c)]),
              make_event(static_cast<std::uint32_t>(c), kCollectiveGo));
}

const Collective& Engine::running_collective(CollectiveId c) {
  const Collective& col = p_.collectives()[static_cast<size_t>(c)];
  const CollectiveAlgorithm a = coll_algorithm_[static_cast<size_t>(c)];
  if (a == col.algorithm) return col;
  Collective& x = running_scratch_;
  x.kind = col.kind;
  x.algorithm = a;
  x.group.assign(col.group.begin(), col.group.end());
  x.tasks.assign(col.tasks.begin(), col.tasks.end());  // the trace names each rank's task
  x.bytes = col.bytes;
  x.root = col.root;
  x.dtype = col.dtype;
  return x;
}

void Engine::collective_go(CollectiveId c) {
  // A candidate that starts inside a bucket the snapshot was not taken
  // before: too late for one (run_engine runs again from scratch).
  if (snapshot_ != nullptr && shortcut_plan_.is_candidate(c) && coll_shortcut_[static_cast<size_t>(c)] < 0)
    snapshot_ = nullptr;
  const Collective& col = running_collective(c);
  std::int32_t sc = coll_shortcut_[static_cast<size_t>(c)];
  if (sc < 0 && shortcut_plan_.any_candidate() && !(*refused_)[static_cast<size_t>(c)]) {
    // The checked shortcut (ShortcutPlan::candidate_entry): when no flow is
    // on its channels now, it holds them for its isolated run's time; a
    // flow that joins one of them meanwhile refuses it (alpha_end).
    auto e = shortcut_plan_.candidate_entry(c);
    if (!e.is_ok()) {
      error_ = e.status();
      return;
    }
    if (*e >= 0) {
      const ShortcutEntry& x = shortcuts_table_.entries[static_cast<size_t>(*e)];
      bool free = true;
      for (const auto& u : x.channels)
        free &= chan_[static_cast<size_t>(u.channel)].active == 0 && held_until_[static_cast<size_t>(u.channel)] <= now_;
      if (free) {
        for (const auto& u : x.channels) {
          held_until_[static_cast<size_t>(u.channel)] = now_ + x.duration_seconds;
          held_by_[static_cast<size_t>(u.channel)] = c;
        }
        held_entry_[static_cast<size_t>(c)] = *e;
        held_since_[static_cast<size_t>(c)] = now_;
        sc = *e;
      }
    }
  }
  if (sc >= 0) {
    // Channels provably its own: the isolated expansion's time and link use.
    const ShortcutEntry& e = shortcuts_table_.entries[static_cast<size_t>(sc)];
    ++shortcuts_;
    for (const auto& u : e.channels) {
      chan_[static_cast<size_t>(u.channel)].bytes += u.bytes;
      chan_[static_cast<size_t>(u.channel)].busy += u.busy_seconds;
    }
    // Its messages for the trace: the isolated run's, from now on.
    if (rec_.on() && !e.transfers.empty() && rec_.keeps_time(now_, now_ + e.duration_seconds))
      for (const ShortcutTransfer& x : e.transfers)
        rec_.replayed_transfer(col.tasks[static_cast<size_t>(x.src_rank)],
                               col.group[static_cast<size_t>(x.src_rank)],
                               col.group[static_cast<size_t>(x.dst_rank)], x.bytes,
                               now_ + x.start_seconds, now_ + x.end_seconds, x.lane);
    queue_.push(now_ + e.duration_seconds, make_event(static_cast<std::uint32_t>(c), kShortcutEnd));
    return;
  }
  const std::int32_t inst = new_instance();
  Instance& in = instances_[static_cast<size_t>(inst)];
  in.transfer = -1;
  in.transfer_int = -1;
  in.collective = c;
  in.devices.assign(col.group.begin(), col.group.end());
  if (implicit_rings_ && is_plain_ring(col)) {
    start_ring(inst, col);
    return;
  }
  in.ring = false;
  expand_collective(col, node_of_, in.sched, scratch_);
  start_instance(inst);
}

void Engine::start_ring(std::int32_t inst, const Collective& col) {
  if (!prepare_ring(inst, col)) return;
  const auto n = static_cast<std::int32_t>(col.group.size());
  for (std::int32_t r = 0; r < n; ++r) ring_try(inst, r);
}

// The ring's steps, super-steps and routes; false when it has nothing to do
// (finished) or failed (error_ set).
bool Engine::prepare_ring(std::int32_t inst, const Collective& col) {
  Instance& in = instances_[static_cast<size_t>(inst)];
  const auto n = static_cast<std::int32_t>(col.group.size());
  in.ring = true;
  const std::int32_t steps = n <= 1 ? 0 : (col.kind == CollectiveKind::kAllReduce ? 2 * (n - 1) : n - 1);
  in.ring_reduce_steps = plain_ring_reduce_steps(col);
  // Super-steps (SimOptions::ring_max_steps): each phase on its own, so that
  // no message mixes reducing and plain steps.
  const std::int32_t len_a = in.ring_reduce_steps, len_b = steps - len_a;
  auto group = [this](std::int32_t len) {
    const std::int32_t m = opt_.ring_max_steps;
    return m > 0 && len > m ? (len + m - 1) / m : 1;
  };
  in.ring_group_a = group(len_a);
  in.ring_group_b = group(len_b);
  in.ring_super_a = (len_a + in.ring_group_a - 1) / in.ring_group_a;
  in.ring_len_b = len_b;
  in.ring_steps = in.ring_super_a + (len_b + in.ring_group_b - 1) / in.ring_group_b;
  in.ring_bytes = col.bytes / n;
  in.next_step.assign(static_cast<size_t>(n), 0);
  in.sends_done.assign(static_cast<size_t>(n), 0);
  in.recvs_done.assign(static_cast<size_t>(n), 0);
  in.ring_route.resize(static_cast<size_t>(n));
  in.ring_reduce_route.resize(static_cast<size_t>(n));
  in.ops_left = in.ring_steps * n;
  if (in.ops_left == 0) {
    finish_instance(inst);
    return false;
  }
  for (std::int32_t r = 0; r < n; ++r) {
    const std::int32_t src = in.devices[static_cast<size_t>(r)];
    const std::int32_t dst = in.devices[static_cast<size_t>((r + 1) % n)];
    const bool warm = coll_warm_[static_cast<size_t>(in.collective)] != 0;
    auto route = collective_route_index(src, dst, false, in.collective, warm);
    if (route.is_ok() && in.ring_reduce_steps > 0) {
      auto reduce = collective_route_index(src, dst, true, in.collective, warm);
      if (!reduce.is_ok()) route = reduce.status();
      else instances_[static_cast<size_t>(inst)].ring_reduce_route[static_cast<size_t>(r)] = *reduce;
    }
    if (!route.is_ok()) {
      op_error(instances_[static_cast<size_t>(inst)], route.status());
      return false;
    }
    instances_[static_cast<size_t>(inst)].ring_route[static_cast<size_t>(r)] = *route;
  }
  return true;
}

// Starts rank r's next ring step if its previous send left and its
// predecessor's previous step arrived.
void Engine::ring_try(std::int32_t inst, std::int32_t r) {
  Instance& in = instances_[static_cast<size_t>(inst)];
  const auto i = static_cast<size_t>(r);
  const std::int32_t s = in.next_step[i];
  if (s >= in.ring_steps || in.sends_done[i] != s || in.recvs_done[i] < s) return;
  in.next_step[i] = s + 1;
  const RingStep x = ring_step(in, r, s);
  launch_flow(inst, r, s, x.bytes, x.route, x.alpha_times);
}

RingStep ring_step(const Instance& in, std::int32_t r, std::int32_t s) {
  const auto i = static_cast<size_t>(r);
  if (in.ring_group_a == 1 && in.ring_group_b == 1)
    return {in.ring_bytes, s < in.ring_reduce_steps ? in.ring_reduce_route[i] : in.ring_route[i], 1};
  // A super-step: g steps of the phase as one message (the phase's last one
  // may hold fewer).
  const bool reduce = s < in.ring_super_a;
  const std::int32_t g = reduce ? std::min(in.ring_group_a, in.ring_reduce_steps - s * in.ring_group_a)
                                : std::min(in.ring_group_b, in.ring_len_b - (s - in.ring_super_a) * in.ring_group_b);
  return {g * in.ring_bytes, reduce ? in.ring_reduce_route[i] : in.ring_route[i], g};
}

// Whether split_held can split every checked-shortcut candidate, as far
// as the Program and the topology tell: a plain ring as it runs, whose hops'
// routes share no channel (the channels the engine adds to a route are the
// pair's own). split_held checks again when it splits.
bool Engine::candidates_split() {
  const auto ncoll = p_.collectives().size();
  std::vector<std::uint64_t> owner(static_cast<size_t>(topo_.num_channels()), 0);
  std::uint64_t stamp = 0;
  for (size_t c = 0; c < ncoll; ++c) {
    if (!shortcut_plan_.is_candidate(static_cast<CollectiveId>(c))) continue;
    const Collective& col = running_collective(static_cast<CollectiveId>(c));
    if (!is_plain_ring(col)) return false;
    ++stamp;
    const size_t n = col.group.size();
    for (size_t r = 0; r < n; ++r) {
      const std::uint64_t mine = (stamp << 32) | r;
      for (ChannelId ch : topo_.route(col.group[r], col.group[(r + 1) % n]).channels) {
        std::uint64_t& o = owner[static_cast<size_t>(ch)];
        if ((o >> 32) == stamp && o != mine) return false;
        o = mine;
      }
    }
  }
  return true;
}

// A held ring (collective_go's checked shortcut) that a flow is about to
// join at now_. Until now no other flow was on its channels, so it has run
// exactly as its isolated expansion from held_since_: each rank's step
// starts when the rank's previous send has left and its predecessor's has
// arrived, waits its route's alpha, then moves its bytes at the route's
// narrowest capacity (alone on its channels: no two hops share one). That
// run is replayed here up to now_ (the same arithmetic as the events would
// do), and the ring goes on expanded from the state it reaches: messages
// in flight become flows, the rest starts as the ring's counters say. The
// shortcut's link figures, added when it started, are replaced by what the
// replayed messages carried. Returns false, changing nothing that counts,
// where the replay would not be the expansion: not a plain ring, two hops
// on one channel, or a channel of its routes already carrying a flow.
bool Engine::split_held(CollectiveId c) {
  const auto ci = static_cast<size_t>(c);
  const std::int32_t entry = held_entry_[ci];
  if (entry < 0) return false;
  const Collective& col = running_collective(c);
  if (!is_plain_ring(col)) return false;
  const auto n = static_cast<std::int32_t>(col.group.size());
  const std::int32_t inst = new_instance();
  {
    Instance& in = instances_[static_cast<size_t>(inst)];
    in.transfer = -1;
    in.transfer_int = -1;
    in.collective = c;
    in.devices.assign(col.group.begin(), col.group.end());
  }
  if (!prepare_ring(inst, col)) return false;  // an error (a held ring has steps)
  Instance& in = instances_[static_cast<size_t>(inst)];
  // Each hop's channels its own, and no flow on them.
  ++split_stamp_;
  if (split_owner_.size() < chan_capacity_.size()) split_owner_.resize(chan_capacity_.size(), 0);
  auto claim = [this](std::int32_t route, std::int32_t hop) {
    const RouteInfo& ri = routes_[static_cast<size_t>(route)];
    const std::uint64_t mine = (split_stamp_ << 32) | static_cast<std::uint32_t>(hop);
    for (std::int32_t i = 0; i < ri.count; ++i) {
      const auto ch = static_cast<size_t>(route_channels_[static_cast<size_t>(ri.first + i)]);
      std::uint64_t& o = split_owner_[ch];
      if (((o >> 32) == split_stamp_ && o != mine) || net_.flows_on(static_cast<ChannelId>(ch)) != 0) return false;
      o = mine;
    }
    return true;
  };
  for (std::int32_t r = 0; r < n; ++r)
    if (!claim(in.ring_route[static_cast<size_t>(r)], r) ||
        (in.ring_reduce_steps > 0 && !claim(in.ring_reduce_route[static_cast<size_t>(r)], r))) {
      free_instances_.push_back(inst);
      return false;
    }
  auto rate = [this](std::int32_t route) {
    const RouteInfo& ri = routes_[static_cast<size_t>(route)];
    return net_.narrowest(std::span<const ChannelId>(route_channels_.data() + ri.first, static_cast<size_t>(ri.count)));
  };
  auto account = [this](std::int32_t route, double bytes, double busy) {
    const RouteInfo& ri = routes_[static_cast<size_t>(route)];
    for (std::int32_t i = 0; i < ri.count; ++i) {
      ChannelUse& u = chan_[static_cast<size_t>(route_channels_[static_cast<size_t>(ri.first + i)])];
      u.bytes += bytes;
      u.busy += busy;
    }
  };
  // The replay, step by step over all ranks, until no rank starts one by now_.
  const double t0 = held_since_[ci];
  split_ranks_.assign(static_cast<size_t>(n), SplitRank{});
  split_prev_end_.assign(static_cast<size_t>(n), t0);
  for (std::int32_t s = 0; s < in.ring_steps; ++s) {
    bool any = false;
    for (std::int32_t r = 0; r < n; ++r) {
      SplitRank& k = split_ranks_[static_cast<size_t>(r)];
      const double start = s == 0 ? t0
                                  : std::max(split_prev_end_[static_cast<size_t>(r)],
                                             split_prev_end_[static_cast<size_t>((r + n - 1) % n)]);
      const RingStep x = ring_step(in, r, s);
      const double alpha = routes_[static_cast<size_t>(x.route)].alpha_seconds;
      const double alpha_end = start + (x.alpha_times == 1 ? alpha : alpha * x.alpha_times);
      k.end = x.bytes > 0 ? alpha_end + x.bytes / rate(x.route) : alpha_end;
      if (start > now_) continue;
      any = true;
      ++k.launched;
      if (k.end <= now_) {
        ++k.done;
        if (x.bytes > 0) account(x.route, x.bytes, k.end - alpha_end);
      } else {
        k.start = start;
        k.alpha_end = alpha_end;
        k.flight_end = k.end;
        k.bytes = x.bytes;
        k.route = x.route;
      }
    }
    if (!any) break;
    for (std::int32_t r = 0; r < n; ++r) split_prev_end_[static_cast<size_t>(r)] = split_ranks_[static_cast<size_t>(r)].end;
  }
  // The shortcut's figures out, its channels free.
  for (const auto& u : shortcuts_table_.entries[static_cast<size_t>(entry)].channels) {
    const auto ch = static_cast<size_t>(u.channel);
    chan_[ch].bytes -= u.bytes;
    chan_[ch].busy -= u.busy_seconds;
    if (held_by_[ch] == c) held_until_[ch] = now_;
  }
  held_entry_[ci] = -1;
  split_[ci] = 1;
  ++splits_;
  --shortcuts_;
  // The ring's counters, and its messages in flight.
  std::int32_t done = 0;
  for (std::int32_t r = 0; r < n; ++r) {
    const SplitRank& k = split_ranks_[static_cast<size_t>(r)];
    in.next_step[static_cast<size_t>(r)] = k.launched;
    in.sends_done[static_cast<size_t>(r)] = k.done;
    in.recvs_done[static_cast<size_t>((r + 1) % n)] = k.done;
    done += k.done;
  }
  in.ops_left = in.ring_steps * n - done;
  for (std::int32_t r = 0; r < n; ++r) {
    const SplitRank& k = split_ranks_[static_cast<size_t>(r)];
    if (k.launched == k.done) continue;
    const std::int32_t slot = new_flow();
    FlowSlot& f = flows_slots_[static_cast<size_t>(slot)];
    f.bytes = k.bytes;
    f.remaining = k.bytes;
    f.rate = 0;
    f.last_update = now_;
    f.start_seconds = k.start;
    f.instance = inst;
    f.op = r;
    f.step = k.done;
    f.route = k.route;
    ++flows_;
    if (now_ < k.alpha_end) {
      queue_.push(k.alpha_end, make_event(static_cast<std::uint32_t>(slot), kAlphaEnd, f.version));
      continue;
    }
    // Its bytes have been moving since its alpha ended, at the rate it had
    // alone: on_rate takes what it moved off, as at any change of rate.
    const RouteInfo& ri = routes_[static_cast<size_t>(k.route)];
    for (std::int32_t i = 0; i < ri.count; ++i) {
      const ChannelId ch = route_channels_[static_cast<size_t>(ri.first + i)];
      channel_up(ch);
      chan_[static_cast<size_t>(ch)].since = k.alpha_end;  // its own channel: up since then
    }
    f.rate = rate(k.route);
    f.last_update = k.alpha_end;
    if (net_.add(slot, std::span<const ChannelId>(route_channels_.data() + ri.first, static_cast<size_t>(ri.count))))
      on_rate(slot, net_.rate(slot));
  }
  if (in.ops_left == 0) finish_instance(inst);  // rounding: the foreign flow came as it ended
  return true;
}

void Engine::op_error(const Instance& in, const Status& st) {
  error_ = Status::error("program '" + p_.name + "': " +
                         (in.transfer >= 0 ? task_label(in.transfer) : collective_label(in.collective)) + ": " +
                         st.message());
}

void Engine::finish_collective(CollectiveId c) {
  for (std::int32_t k = coll_off_[static_cast<size_t>(c)]; k < coll_off_[static_cast<size_t>(c) + 1]; ++k)
    finish_task(coll_int_[static_cast<size_t>(k)]);
}

std::int32_t Engine::new_instance() {
  if (!free_instances_.empty()) {
    const std::int32_t i = free_instances_.back();
    free_instances_.pop_back();
    return i;
  }
  instances_.emplace_back();
  return static_cast<std::int32_t>(instances_.size()) - 1;
}

std::int32_t Engine::new_flow() {
  if (!free_flows_.empty()) {
    const std::int32_t i = free_flows_.back();
    free_flows_.pop_back();
    return i;
  }
  flows_slots_.emplace_back();
  return static_cast<std::int32_t>(flows_slots_.size()) - 1;
}

void Engine::start_instance(std::int32_t inst) {
  Instance& in = instances_[static_cast<size_t>(inst)];
  in.ops_left = in.sched.size();
  if (in.ops_left == 0) {
    finish_instance(inst);
    return;
  }
  // Ops without predecessors start now (their alphas end later, so nothing
  // here changes another op's count).
  const std::int32_t n = in.sched.size();
  for (std::int32_t op = 0; op < n; ++op)
    if (instances_[static_cast<size_t>(inst)].sched.ops[static_cast<size_t>(op)].pending == 0) start_op(inst, op);
}

void Engine::start_op(std::int32_t inst, std::int32_t op) {
  if (!error_.is_ok()) return;
  Instance& in = instances_[static_cast<size_t>(inst)];
  const ScheduleOp& o = in.sched.ops[static_cast<size_t>(op)];
  const std::int32_t src = in.devices[static_cast<size_t>(o.src_rank)];
  const std::int32_t dst = in.devices[static_cast<size_t>(o.dst_rank)];
  auto r = in.transfer >= 0 ? route_index(src, dst)
                            : collective_route_index(src, dst, o.reduce != 0, in.collective,
                                                     coll_warm_[static_cast<size_t>(in.collective)] != 0);
  if (!r.is_ok()) {
    op_error(in, r.status());
    return;
  }
  launch_flow(inst, op, 0, o.bytes, *r);
}

void Engine::launch_flow(std::int32_t inst, std::int32_t op, std::int32_t step, double bytes, std::int32_t route,
                         std::int32_t alpha_times) {
  const std::int32_t slot = new_flow();
  FlowSlot& f = flows_slots_[static_cast<size_t>(slot)];
  f.bytes = bytes;
  f.remaining = bytes;
  f.rate = 0;
  f.last_update = now_;
  f.start_seconds = now_;
  f.instance = inst;
  f.op = op;
  f.step = step;
  f.route = route;
  ++flows_;
  const double alpha = routes_[static_cast<size_t>(route)].alpha_seconds;
  queue_.push(now_ + (alpha_times == 1 ? alpha : alpha * alpha_times),
              make_event(static_cast<std::uint32_t>(slot), kAlphaEnd, f.version));
}

void Engine::alpha_end(std::int32_t slot) {
  FlowSlot& f = flows_slots_[static_cast<size_t>(slot)];
  const std::int32_t inst = f.instance;
  const std::int32_t op = f.op;
  // Cut-through successors start now.
  if (!instances_[static_cast<size_t>(inst)].ring) {
    Schedule& s = instances_[static_cast<size_t>(inst)].sched;
    for (std::int32_t e = s.ops[static_cast<size_t>(op)].head_alpha; e >= 0; e = s.edges[static_cast<size_t>(e)].next) {
      const std::int32_t to = s.edges[static_cast<size_t>(e)].to;
      if (--s.ops[static_cast<size_t>(to)].pending == 0) start_op(inst, to);
    }
  }
  FlowSlot& g = flows_slots_[static_cast<size_t>(slot)];  // start_op may have grown the pool
  if (!(g.bytes > 0)) {
    complete_flow(slot);
    return;
  }
  if (!held_until_.empty()) {
    const std::int32_t route = g.route;
    for (std::int32_t i = 0; i < routes_[static_cast<size_t>(route)].count; ++i) {
      const auto ch = static_cast<size_t>(route_channels_[static_cast<size_t>(routes_[static_cast<size_t>(route)].first + i)]);
      if (ch < held_until_.size() && held_until_[ch] > now_ && !(*refused_)[static_cast<size_t>(held_by_[ch])]) {
        // The held collective goes on expanded from now (split_held: no
        // rerun), or, where its run cannot be replayed, the Program runs
        // again with it expanded from its start.
        if (split_rings_ && split_held(held_by_[ch])) continue;
        if (!error_.is_ok()) return;
        (*refused_)[static_cast<size_t>(held_by_[ch])] = 1;
        ++refusals_;
      }
    }
  }
  FlowSlot& g2 = flows_slots_[static_cast<size_t>(slot)];  // split_held may have grown the pools
  const RouteInfo& r = routes_[static_cast<size_t>(g2.route)];
  for (std::int32_t i = 0; i < r.count; ++i) channel_up(route_channels_[static_cast<size_t>(r.first + i)]);
  g2.last_update = now_;
  if (opt_.network == NetworkModel::kIdeal) {
    g2.rate = r.bandwidth_bytes_per_second;
    queue_.push(now_ + g2.bytes / g2.rate, make_event(static_cast<std::uint32_t>(slot), kFlowEnd, g2.version));
  } else {
    if (net_.add(slot, std::span<const ChannelId>(route_channels_.data() + r.first, static_cast<size_t>(r.count))))
      on_rate(slot, net_.rate(slot));
  }
}

void Engine::on_rate(std::int32_t slot, double rate) {
  FlowSlot& f = flows_slots_[static_cast<size_t>(slot)];
  if (f.rate > 0) f.remaining = std::max(0.0, f.remaining - f.rate * (now_ - f.last_update));
  f.rate = rate;
  f.last_update = now_;
  ++f.version;
  queue_.push(now_ + f.remaining / rate, make_event(static_cast<std::uint32_t>(slot), kFlowEnd, f.version));
}

void Engine::complete_flow(std::int32_t slot) {
  FlowSlot& f = flows_slots_[static_cast<size_t>(slot)];
  const std::int32_t inst = f.instance;
  const std::int32_t op = f.op;
  if (f.bytes > 0) {
    const RouteInfo& r = routes_[static_cast<size_t>(f.route)];
    for (std::int32_t i = 0; i < r.count; ++i) channel_down(route_channels_[static_cast<size_t>(r.first + i)], f.bytes);
    if (opt_.network == NetworkModel::kFlow) net_.remove(slot);
  }
  Instance& in = instances_[static_cast<size_t>(inst)];
  const auto n = static_cast<std::int32_t>(in.devices.size());
  const std::int32_t src_rank = in.ring ? op : in.sched.ops[static_cast<size_t>(op)].src_rank;
  const std::int32_t dst_rank = in.ring ? (op + 1) % n : in.sched.ops[static_cast<size_t>(op)].dst_rank;
  if (rec_.on()) {
    const RouteInfo& r = routes_[static_cast<size_t>(f.route)];
    rec_.transfer(in.transfer >= 0 ? in.transfer
                                   : p_.collectives()[static_cast<size_t>(in.collective)].tasks[static_cast<size_t>(src_rank)],
                  in.devices[static_cast<size_t>(src_rank)], in.devices[static_cast<size_t>(dst_rank)], f.bytes,
                  f.start_seconds, now_,
                  r.trace_channel >= 0 ? r.trace_channel
                  : r.count > 0        ? route_channels_[static_cast<size_t>(r.first)]
                                       : -1);
  }
  ++f.version;  // any event still queued for this slot is stale
  free_flows_.push_back(slot);
  if (in.ring) {
    ++in.sends_done[static_cast<size_t>(src_rank)];
    ++in.recvs_done[static_cast<size_t>(dst_rank)];
    // The order the materialised schedule's edge lists would start them in.
    if (src_rank == n - 1) {
      ring_try(inst, src_rank);
      ring_try(inst, dst_rank);
    } else {
      ring_try(inst, dst_rank);
      ring_try(inst, src_rank);
    }
  } else {
    Schedule& s = in.sched;
    for (std::int32_t e = s.ops[static_cast<size_t>(op)].head_end; e >= 0; e = s.edges[static_cast<size_t>(e)].next) {
      const std::int32_t to = s.edges[static_cast<size_t>(e)].to;
      if (--s.ops[static_cast<size_t>(to)].pending == 0) start_op(inst, to);
    }
  }
  if (--instances_[static_cast<size_t>(inst)].ops_left == 0) finish_instance(inst);
}

void Engine::finish_instance(std::int32_t inst) {
  Instance& in = instances_[static_cast<size_t>(inst)];
  const std::int32_t transfer = in.transfer_int;
  const CollectiveId c = in.collective;
  free_instances_.push_back(inst);
  if (in.transfer >= 0) finish_task(transfer);
  else finish_collective(c);
}

// ---- the loop -------------------------------------------------------------------------

void Engine::handle(Event e) {
  switch (e.tag & kKindMask) {
    case kTaskEnd: {
      ++events_;
      // A kernel that shared its device's processor with communication ends
      // that much later (DeviceProfile::comm_compute_share).
      const auto d = any_share_
                         ? static_cast<size_t>(stream_device_[static_cast<size_t>(hot_[e.id].stream)])
                         : 0;
      if (any_share_ && share_[d] > 0) {
        touch_device(static_cast<std::int32_t>(d));
        if (debt_[d] > 0) {
          // At least 1 us at a time (a prepaid rest is kept as negative
          // debt): communication that outlasts many small extensions would
          // otherwise cost an event per sliver.
          const double extension = std::max(debt_[d], 1e-6);
          queue_.push(now_ + extension, e);
          debt_[d] -= extension;
          return;
        }
      }
      finish_task(static_cast<TaskId>(e.id));
      return;
    }
    case kAlphaEnd:
      ++events_;
      alpha_end(static_cast<std::int32_t>(e.id));
      return;
    case kFlowEnd:
      if ((flows_slots_[e.id].version & kVersionMask) != (e.tag >> kKindBits)) return;  // rescheduled
      ++events_;
      complete_flow(static_cast<std::int32_t>(e.id));
      return;
    case kCollectiveGo:
      ++events_;
      collective_go(static_cast<CollectiveId>(e.id));
      return;
    case kShortcutEnd:
      if (!split_.empty() && split_[e.id] != 0) return;  // split: its expansion finishes it
      ++events_;
      finish_collective(static_cast<CollectiveId>(e.id));
      return;
    default:
      return;
  }
}

bool Engine::candidate_go(Event e) const {
  return (e.tag & kKindMask) == kCollectiveGo && coll_shortcut_[e.id] < 0 &&
         shortcut_plan_.is_candidate(static_cast<CollectiveId>(e.id));
}

// Whether the next bucket starts a checked-shortcut candidate.
bool Engine::candidate_go_next() const {
  return queue_.next_bucket_has([this](Event e) { return candidate_go(e); });
}

Status Engine::run() {
  // Between loop iterations the engine's whole state is in its members (no
  // ready task half started, no bucket half handled): a copy taken there
  // runs on exactly as this one would.
  size_t ready_head = 0;
  std::uint32_t until_poll = kCancelPollEvery;
  for (;;) {
    if (!error_.is_ok()) return error_;
    if (--until_poll == 0) {
      until_poll = kCancelPollEvery;
      if (cancel_requested(opt_.cancel)) return cancelled_status();
    }
    if (!queue_.empty() && queue_.top_time() <= now_) {
      if (snapshot_ != nullptr && candidate_go_next()) {
        std::unique_ptr<Engine>* into = snapshot_;
        snapshot_ = nullptr;
        *into = std::make_unique<Engine>(*this);
      }
      handle(queue_.pop());
      for (size_t i = 0; error_.is_ok() && i < queue_.extras(); ++i) handle(queue_.extra(i));
      queue_.release();
      continue;
    }
    if (ready_head < ready_.size()) {
      // Start in the order they became ready. Starting may make more ready
      // (a collective's last rank); they are appended and started here too.
      // Where communication takes a processor (comm_compute_share), it comes
      // first at an instant, as on the CPU executor (docs/simulator.md):
      // transfers and collective ranks before kernels, so that a kernel
      // that becomes ready with them waits for them rather than starting
      // and standing still.
      if (any_share_)
        std::stable_partition(ready_.begin() + static_cast<std::ptrdiff_t>(ready_head), ready_.end(),
                              [this](std::int32_t i) {
                                return hot_[static_cast<size_t>(i)].kind() != TaskKind::kCompute;
                              });
      while (ready_head < ready_.size()) start_task(ready_[ready_head++]);
      ready_.clear();
      ready_head = 0;
      continue;
    }
    if (net_.dirty()) {
      net_.recompute([this](std::int32_t f, double r) { on_rate(f, r); });
      continue;
    }
    if (queue_.empty()) break;
    now_ = queue_.top_time();
  }
  if (tasks_done_ != p_.num_tasks()) {
    // Only a collective whose ranks never all arrive can stall (ProgramBuilder
    // rejects cycles, so this is a rank blocked behind another collective).
    for (size_t c = 0; c < p_.collectives().size(); ++c) {
      const auto n = static_cast<std::int32_t>(p_.collectives()[c].group.size());
      if (arrived_[c] > 0 && arrived_[c] < n)
        return Status::error("program '" + p_.name + "': deadlock: " +
                                 collective_label(static_cast<CollectiveId>(c)) + " has " +
                                 std::to_string(arrived_[c]) + " of its " + std::to_string(n) +
                                 " ranks ready and the others wait on it",
                             ErrorKind::kBadInput);
    }
    return Status::error("program '" + p_.name + "': " + std::to_string(p_.num_tasks() - tasks_done_) +
                             " tasks never became ready",
                         ErrorKind::kInternal);
  }
  return Status::ok();
}

SimResult Engine::result() {
  SimResult r;
  r.step_seconds = step_end_;
  r.events = events_;
  r.network = opt_.network;
  r.flows = flows_;
  r.collectives_shortcut = shortcuts_;
  r.collectives_split = splits_;
  const auto nd = static_cast<size_t>(p_.num_devices);
  for (size_t d = 0; d < nd; ++d) {
    now_ = step_end_;
    touch_device(static_cast<std::int32_t>(d));
    DeviceStats s;
    s.id = static_cast<int>(d);
    s.busy_seconds = busy_[d];
    s.comm_seconds = comm_[d];
    s.idle_seconds = idle_[d];
    s.exposed_comm_seconds = exposed_[d];
    s.peak_memory_bytes = peak_total_[d];
    for (size_t k = 0; k < static_cast<size_t>(kNumMemoryCategories); ++k)
      s.peak_by_category[k] = peak_cat_[d * kNumMemoryCategories + k];
    s.capacity_bytes = capacity_[d];
    r.devices.push_back(s);
  }
  const auto nc = static_cast<size_t>(topo_.num_channels());
  r.links.reserve(nc);
  for (size_t c = 0; c < nc; ++c) {
    LinkStats l;
    const auto ch = static_cast<ChannelId>(c);
    if (name_links_)
      l.name = topo_.vertex_name(topo_.channel_from(ch)) + "->" + topo_.vertex_name(topo_.channel_to(ch));
    l.channel = ch;
    l.bytes = chan_[c].bytes;
    l.busy_seconds = chan_[c].busy;
    l.occupancy = step_end_ > 0 ? chan_[c].busy / step_end_ : 0;
    l.utilization = step_end_ > 0 && chan_capacity_[c] > 0 ? chan_[c].bytes / (chan_capacity_[c] * step_end_) : 0;
    l.capacity_bytes_per_second = chan_capacity_[c];
    r.links.push_back(std::move(l));
  }
  std::stable_sort(oom_.begin(), oom_.end(),
                   [](const OomEvent& a, const OomEvent& b) { return a.time_seconds < b.time_seconds; });
  r.oom = std::move(oom_);
  for (std::int32_t i = last_task_; i >= 0; i = hot_[static_cast<size_t>(i)].crit_pred)
    r.critical_path.push_back(ext_[static_cast<size_t>(i)]);
  std::reverse(r.critical_path.begin(), r.critical_path.end());
  if (opt_.record_task_times) {
    r.task_start_seconds = std::move(start_);
    r.task_end_seconds = std::move(end_);
  }
  if (rec_.on()) r.trace = rec_.take();
  if (opt_.on_progress)
    opt_.on_progress(static_cast<double>(tasks_done_), static_cast<double>(p_.num_tasks()));
  return r;
}

}  // namespace

namespace {
std::atomic<bool> g_resume_runs{true};  // detail::resume_checked_runs

// CPU time of the calling thread: on a shared machine, wall time measures
// the neighbours as much as the simulator.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

Result<SimResult> run_engine(const Program& program, const Topology& topology, const HardwareProfile& profile,
                             const SimOptions& options, bool implicit_rings, bool name_links = true,
                             bool transfers_only = false) {
  const double t0 = thread_cpu_seconds();
  // Background load on links (runtime.link_load): the Program's messages see
  // (1 - load) of each loaded link, in every network model and shortcut.
  if (!options.runtime.link_load.empty()) {
    for (const auto& [link, load] : options.runtime.link_load)
      if (link < 0 || link >= static_cast<int>(topology.links().size()) || !(load >= 0) || !(load < 1))
      {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", load);
        return Status::error("program '" + program.name + "': runtime load " + buf + " on link " +
                             std::to_string(link) +
                             "; expected a link of the topology and a load in [0, 1)");
      }
    const Topology loaded = loaded_topology(topology, options.runtime);
    SimOptions plain = options;
    plain.runtime.link_load.clear();
    return run_engine(program, loaded, profile, plain, implicit_rings, name_links, transfers_only);
  }
  const auto mode = transfers_only        ? TraceRecorder::Mode::kTransfersOnly
                    : options.record_trace ? TraceRecorder::Mode::kFull
                                           : TraceRecorder::Mode::kOff;
  // The checked shortcut (ShortcutPlan::candidate_entry): a run in which a
  // flow joined a channel that such a shortcut held is made again with that
  // collective expanded, until a run refuses none; after kMaxRuns - 1 such
  // runs, the last one expands every candidate (the rule as it was).
  //
  // Until the first candidate starts, every run is the same event for event
  // (what was refused decides nothing before): a run from the start keeps a
  // copy of its engine from there (Engine::snapshot_into), and the next run
  // resumes that copy instead of simulating the prefix again.
  constexpr int kMaxRuns = 8;
  Engine::Shortcuts shortcuts;
  std::unique_ptr<Engine> snapshot;
  const bool resume_runs = g_resume_runs;
  double setup_cpu = 0, run_cpu = 0, t_prev = t0;
  for (int run = 1;; ++run) {
    std::unique_ptr<Engine> e;
    if (snapshot != nullptr) {
      // Taken over, not copied (a run after this one, rare, starts from
      // scratch and takes a copy of its own).
      e = std::move(snapshot);
    } else {
      e = std::make_unique<Engine>(program, topology, profile, options, implicit_rings, name_links, mode,
                                   shortcuts);
      BRIGADE_RETURN_IF_ERROR(e->setup());
      if (shortcuts.plan.any_candidate() && resume_runs && e->may_refuse()) e->snapshot_into(&snapshot);
    }
    const double t1 = thread_cpu_seconds();
    BRIGADE_RETURN_IF_ERROR(e->run());
    const double t2 = thread_cpu_seconds();
    setup_cpu += t1 - t_prev;
    run_cpu += t2 - t1;
    t_prev = t2;
    if (e->refusals() > 0) {
      if (run + 1 == kMaxRuns) std::fill(shortcuts.refused.begin(), shortcuts.refused.end(), 1);
      continue;
    }
    SimResult r = e->result();
    r.runs = run;
    r.setup_cpu_seconds = setup_cpu;
    r.run_cpu_seconds = run_cpu;
    return r;
  }
}
}  // namespace

namespace detail {
void resume_checked_runs(bool on) { g_resume_runs = on; }
void split_checked_rings(bool on) { g_split_rings = on; }
Result<SimResult> simulate_with(const Program& program, const Topology& topology,
                                const HardwareProfile& profile, const SimOptions& options,
                                bool implicit_rings) {
  return run_engine(program, topology, profile, options, implicit_rings);
}
Result<SimResult> simulate_unnamed_links(const Program& program, const Topology& topology,
                                         const HardwareProfile& profile, const SimOptions& options,
                                         bool record_transfers) {
  return run_engine(program, topology, profile, options, /*implicit_rings=*/true, /*name_links=*/false,
                    record_transfers);
}
}  // namespace detail

Result<SimResult> simulate(const Program& program, const Topology& topology,
                           const HardwareProfile& profile, const SimOptions& options) {
  return run_engine(program, topology, profile, options, /*implicit_rings=*/true);
}

}  // namespace brigade::sim
