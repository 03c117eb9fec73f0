// The discrete-event simulator: the engine's event loop and everything it
// calls per event (sim/engine.hpp), and the runs the checked shortcut makes.
#include "sim/simulator.hpp"

#include "sim/engine.hpp"

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

namespace engine {

std::atomic<bool> g_split_rings{true};

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
  if (any_sm_share_ && sm_of_[d] > 0 && !h.gave_sms()) {
    // At the rate NCCL's kernels running now leave it (sm_retime moves its end).
    SharedKernel k{i, next_sm_version(), dur, now_, sm_rate(d)};
    sm_kernels_[d].push_back(k);
    if (k.rate > 0)
      queue_.push(now_ + dur / k.rate, make_event(static_cast<std::uint32_t>(i), kTaskEnd, k.version));
    return;
  }
  queue_.push(now_ + dur, make_event(static_cast<std::uint32_t>(i), kTaskEnd));
}

// Device d's collectives now hold `channels` more SMs (fewer when
// negative): each of its running kernels in the SM share model keeps the
// work it has done at its old rate and ends when the rest is done at the
// new one (a stale end event is dropped by its version).
void Engine::sm_retime(size_t d, std::int32_t channels) {
  sm_held_[d] += channels;
  const double rate = sm_rate(d);
  for (SharedKernel& k : sm_kernels_[d]) {
    k.left = std::max(0.0, k.left - k.rate * (now_ - k.since));
    k.since = now_;
    k.rate = rate;
    k.version = next_sm_version();
    if (rate > 0)
      queue_.push(now_ + k.left / rate,
                  make_event(static_cast<std::uint32_t>(k.task), kTaskEnd, k.version));
  }
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
  if (h.kind() == TaskKind::kCollective && any_sm_share_ && sm_of_[d] > 0)
    if (const std::int32_t ch = coll_sm_channels_[static_cast<size_t>(h.aux())]; ch > 0) sm_retime(d, -ch);
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
  if (!host_done_.empty()) host_done_[static_cast<size_t>(i)] = 1;
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
    if (any_sm_share_ && sm_of_[static_cast<size_t>(dev)] > 0 && coll_sm_channels_[static_cast<size_t>(c)] > 0)
      sm_retime(static_cast<size_t>(dev), coll_sm_channels_[static_cast<size_t>(c)]);
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
    shortcut_off_link_ += e.off_link_bytes;
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
  in.ring_flight.assign(static_cast<size_t>(n), -1);
  in.hold_ranks.clear();
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
  const std::int32_t slot = launch_flow(inst, r, s, x.bytes, x.route, x.alpha_times);
  instances_[static_cast<size_t>(inst)].ring_flight[i] = slot;
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

std::int32_t Engine::launch_flow(std::int32_t inst, std::int32_t op, std::int32_t step, double bytes,
                                 std::int32_t route, std::int32_t alpha_times) {
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
  return slot;
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
    if (!split_ring_of_chan_.empty()) {
      // Leaving a split ring's channel: the ring may be held again once
      // the network is re-shared (run, hold_again).
      const CollectiveId own = instances_[static_cast<size_t>(inst)].collective;
      for (std::int32_t i = 0; i < r.count; ++i) {
        const auto ch = static_cast<size_t>(route_channels_[static_cast<size_t>(r.first + i)]);
        if (ch >= split_ring_of_chan_.size()) continue;
        const CollectiveId c = split_ring_of_chan_[ch];
        if (c >= 0 && c != own && hold_queued_[static_cast<size_t>(c)] == 0) {
          hold_queued_[static_cast<size_t>(c)] = 1;
          hold_check_.push_back(c);
        }
      }
    }
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
    in.ring_flight[static_cast<size_t>(src_rank)] = -1;
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
  if (c >= 0 && !coll_inst_.empty() && coll_inst_[static_cast<size_t>(c)] == inst) {
    mark_split_channels(in, -1);  // a split ring's last message
    coll_inst_[static_cast<size_t>(c)] = -1;
  }
  free_instances_.push_back(inst);
  if (in.transfer >= 0) finish_task(transfer);
  else finish_collective(c);
}

// ---- the loop -------------------------------------------------------------------------

void Engine::handle(Event e) {
  switch (e.tag & kKindMask) {
    case kTaskEnd: {
      if (const std::uint32_t version = e.tag >> kKindBits; version != 0) {
        // A kernel in the SM share model: its latest end, or stale.
        const auto d = static_cast<size_t>(stream_device_[static_cast<size_t>(hot_[e.id].stream)]);
        std::vector<SharedKernel>& ks = sm_kernels_[d];
        auto it = std::find_if(ks.begin(), ks.end(), [&](const SharedKernel& k) {
          return k.task == static_cast<std::int32_t>(e.id);
        });
        if (it == ks.end() || it->version != version) return;
        *it = ks.back();
        ks.pop_back();
      }
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
      if ((flows_slots_[e.id].version & kVersionMask) != (e.tag >> kKindBits)) return;  // held again
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
    case kRelease: {
      ++events_;
      HotTask& h = hot_[e.id];
      if (--h.pending == 0) {
        // Waited for its host: the path goes on through the latest of the
        // tasks issued before it that had ended (a shared host's other
        // devices may still run theirs), looking a few issues back (the
        // host's devices twice over); none: the path starts here, waiting.
        std::int32_t hp = host_pred_[e.id];
        for (int k = 2 * opt_.devices_per_host + 2;
             hp >= 0 && !host_done_[static_cast<size_t>(hp)] && k > 0; --k)
          hp = host_pred_[static_cast<size_t>(hp)];
        h.crit_pred = hp >= 0 && host_done_[static_cast<size_t>(hp)] ? hp : -1;
        ready_.push_back(static_cast<std::int32_t>(e.id));
      }
      return;
    }
    case kShortcutEnd:
      if (!hold_version_.empty()) {
        if ((hold_version_[e.id] & kVersionMask) != (e.tag >> kKindBits)) return;  // split since
        if (coll_inst_[e.id] >= 0) end_hold(static_cast<CollectiveId>(e.id));  // held again
      }
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
    if (!hold_check_.empty()) {
      // Split rings some flow left at this instant, the network re-shared:
      // those with no other flow on their channels are held again.
      for (size_t k = 0; k < hold_check_.size(); ++k) {
        hold_queued_[static_cast<size_t>(hold_check_[k])] = 0;
        hold_again(hold_check_[k]);
      }
      hold_check_.clear();
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

}  // namespace engine

namespace {
using engine::Engine;
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
void split_checked_rings(bool on) { engine::g_split_rings = on; }
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
