// Internal to sim/: the discrete-event engine (sim/simulator.cpp runs it).
// Layout for speed: per-task arrays indexed by TaskId (durations
// precomputed, dependency counters, successors as CSR), flows and running
// collectives in recycled slots, one event queue whose events are 8 bytes
// and dispatched by a switch. Nothing is allocated per event once the pools
// have grown. Its definitions: the event loop and everything it calls per
// event in sim/simulator.cpp (one translation unit, so that the loop's
// callees can be inlined), setup and the result in sim/engine_setup.cpp,
// held rings split and held again in sim/engine_hold.cpp.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "costmodel/collectives.hpp"
#include "sim/engine_records.hpp"
#include "sim/event_queue.hpp"
#include "sim/network.hpp"
#include "sim/schedule.hpp"
#include "sim/shortcut.hpp"
#include "sim/simulator.hpp"
#include "sim/trace_recorder.hpp"

namespace brigade::sim::engine {

inline constexpr std::uint32_t kKindBits = 4;
inline constexpr std::uint32_t kKindMask = (1u << kKindBits) - 1;
enum EventKind : std::uint32_t {
  kTaskEnd = 0,       // id: compute task
  kAlphaEnd = 1,      // id: flow slot; its alpha is over, its bytes start
  kFlowEnd = 2,       // id: flow slot, tag carries its version
  kCollectiveGo = 3,  // id: collective; its overhead is over, its steps start
  kShortcutEnd = 4,   // id: collective run by the shortcut; it is over
  kRelease = 5,       // id: task (internal index); its host has issued it
};
inline constexpr std::uint32_t kVersionMask = 0xFFFFFFFFu >> kKindBits;
inline Event make_event(std::uint32_t id, EventKind kind, std::uint32_t version = 0) {
  return Event{id, kind | ((version & kVersionMask) << kKindBits)};
}

// on_progress about 256 times a run (a progress bar's resolution), at most
// every 2^20 tasks; cancellation is polled after each call and every
// kCancelPollEvery loop iterations.
inline constexpr std::int64_t kProgressMaxEvery = 1 << 20;
inline constexpr std::int64_t kProgressCalls = 256;
inline constexpr std::uint32_t kCancelPollEvery = 4096;

extern std::atomic<bool> g_split_rings;  // detail::split_checked_rings

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
  // The host lane (DeviceProfile::host_op_seconds): each task's issue time,
  // as a kRelease event it waits for like a predecessor.
  void setup_host_lane(const std::vector<double>& host_op);
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
  std::int32_t launch_flow(std::int32_t inst, std::int32_t op, std::int32_t step, double bytes, std::int32_t route,
                           std::int32_t alpha_times = 1);
  void ring_try(std::int32_t inst, std::int32_t rank);
  void start_ring(std::int32_t inst, const Collective& col);
  bool prepare_ring(std::int32_t inst, const Collective& col);
  bool candidates_split();
  bool split_held(CollectiveId c);
  double replay_hold(CollectiveId c, const Instance& in, double until, bool account);
  void mark_split_channels(const Instance& in, CollectiveId owner);
  void hold_again(CollectiveId c);
  template <class F>
  void for_each_hop_channel(const Instance& in, F&& f) const;
  void end_hold(CollectiveId c);
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
  // The host lane: per task (internal index), the task its host issued
  // just before it, on any of the host's devices (-1: none; empty without a
  // host lane), the critical path's link where the issue came last and
  // that task had ended by then (host_done_: per task, it has ended; the
  // link otherwise would run back in time, and with a shared host could
  // close a loop through another device's tasks).
  std::vector<std::int32_t> host_pred_;
  std::vector<std::uint8_t> host_done_;
  double host_op_max_ = 0;
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
  // NCCL's kernels take SMs (core/profile.hpp, nccl_sm_share): per device
  // its SM count where they do (0: not, or a kernel's slowdown is stated
  // otherwise there) and the channels its running collectives hold; per
  // collective the channels its NCCL kernel holds (0: none known). A kernel
  // of such a device on all of its SMs (sm_held 0) runs at 1 - min(1, held
  // / SMs) of its rate, its end moved whenever that changes: per running
  // kernel its work left (seconds at the whole rate) as of `since`, its
  // rate, and the version its end event carries (never 0; an event of
  // another version is stale).
  struct SharedKernel {
    std::int32_t task = 0;
    std::uint32_t version = 0;
    double left = 0, since = 0, rate = 1;
  };
  std::vector<double> sm_of_;
  std::vector<std::int32_t> sm_held_, coll_sm_channels_;
  std::vector<std::vector<SharedKernel>> sm_kernels_;
  std::uint32_t sm_version_ = 0;
  bool any_sm_share_ = false;
  void sm_retime(size_t d, std::int32_t channels);
  std::uint32_t next_sm_version() {
    sm_version_ = (sm_version_ + 1) & kVersionMask;
    if (sm_version_ == 0) sm_version_ = 1;
    return sm_version_;
  }
  double sm_rate(size_t d) const {
    return 1 - std::min(1.0, static_cast<double>(sm_held_[d]) / sm_of_[d]);
  }
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
  // Channels of NCCL's steps faster than their route's links, on which they
  // run alone (collective_route_index): what they carry is on no link of
  // the topology (SimResult::off_link_bytes). `shortcut_off_link_`: the same
  // bytes of the collectives run by a shortcut.
  std::vector<ChannelId> alone_channels_;
  double shortcut_off_link_ = 0;
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
  // Held rings split where a flow joins them, and held again once no other
  // flow is on their channels (engine_hold.cpp). Per collective: the
  // shortcut entry it holds its channels by since its start (-1: none) and
  // since when; the version of its pending end event (a split makes it
  // stale); its ring's instance while split or held again (-1: none);
  // queued for a check whether it can be held again. Per topology channel:
  // the split ring running on it (-1: none).
  bool split_rings_ = false;
  bool may_refuse_ = true;
  std::vector<std::int32_t> held_entry_;
  std::vector<double> held_since_;
  std::vector<std::uint32_t> hold_version_;
  std::vector<std::int32_t> coll_inst_;
  std::vector<std::uint8_t> hold_queued_;
  std::vector<CollectiveId> hold_check_;
  std::vector<CollectiveId> split_ring_of_chan_;
  std::int64_t splits_ = 0, holds_again_ = 0;
  std::vector<std::uint64_t> split_owner_;  // per channel: (stamp << 32) | hop
  std::uint64_t split_stamp_ = 0;
  // A replay's result per rank (replay_hold).
  struct ReplayRank {
    double end = 0;  // of its latest step replayed
    std::int32_t done = 0, launched = 0;
    HoldRank flight;  // its message in flight when launched > done
  };
  std::vector<ReplayRank> replay_;
  std::vector<double> replay_prev_end_;
  std::vector<double> replay_rate_;  // per rank: its hop's plain and reducing route's rate alone
  std::unique_ptr<Engine>* snapshot_ = nullptr;  // wanted and not taken yet (snapshot_into)
  TraceRecorder rec_;
};

}  // namespace brigade::sim::engine
