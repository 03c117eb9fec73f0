// The engine's setup (per-task arrays, routes, shortcuts, memory) and its
// result (sim/engine.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <queue>

#include "costmodel/collectives.hpp"
#include "costmodel/nccl_model.hpp"
#include "sim/engine.hpp"
#include "sim/kernel_memo.hpp"

namespace brigade::sim::engine {

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
      alone_channels_.push_back(channel);
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
  // The spread's factors (core/runtime.hpp) are drawn for every device.
  for (const auto& [dev, f] : opt_.runtime.device_speeds(static_cast<int>(nd))) {
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
  std::vector<const DeviceProfile*> device_profile(nd, nullptr);  // looked up once a device
  for (size_t d = 0; d < nd; ++d) {
    const Device& dev = topo_.device(static_cast<int>(d));
    device_profile[d] = &prof_.for_device(dev);
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
  sm_of_.assign(nd, 0);
  sm_held_.assign(nd, 0);
  sm_kernels_.assign(nd, {});
  sm_version_ = 0;
  bool any_sm_device = false;
  for (size_t d = 0; d < nd; ++d) {
    const DeviceProfile& dp = prof_.for_device(topo_.device(static_cast<int>(d)));
    if (nccl_sm_share(dp, 1) > 0) {
      sm_of_[d] = dp.sm_count;
      any_sm_device = true;
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
  if (ncoll >= (1u << 28) || nd >= (1u << 28) || nt >= (1ull << 31))
    return Status::error(who + "has " + std::to_string(ncoll) + " collectives, " + std::to_string(nd) +
                             " devices and " + std::to_string(nt) +
                             " tasks; the simulator handles up to 2^28 collectives and devices and 2^31 tasks",
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
  std::map<std::tuple<CollectiveKind, CollectiveAlgorithm, double, std::int32_t,
                      std::vector<std::int32_t>>,
           std::tuple<std::int32_t, CollectiveAlgorithm, std::int32_t>>
      nccl_memo;
  coll_sm_channels_.assign(ncoll, 0);
  any_sm_share_ = false;
  for (size_t c = 0; c < ncoll; ++c) {
    const Collective& col = p_.collectives()[c];
    coll_algorithm_[c] = col.algorithm;
    // A merged collective (Collective::parts) is `parts` calls of its mean
    // bytes one after another: each call's launch, and NCCL's choice at
    // the mean bytes with its latency paid `parts` times (its bandwidth
    // term is linear in the bytes, so the expansion of all of them takes
    // parts x the one call's time). Under the alpha-beta model the calls'
    // launches are paid, their routes' latencies once.
    const std::int32_t parts = std::max<std::int32_t>(1, col.parts);
    double o = 0;
    for (std::int32_t d : col.group) o = std::max(o, device_overhead[static_cast<size_t>(d)]);
    o *= parts;
    coll_overhead_[c] = o;
    auto key = std::make_tuple(col.kind, col.algorithm, col.bytes, parts, col.group);
    auto it = nccl_memo.find(key);
    if (it == nccl_memo.end()) {
      auto choice = cost::nccl_collective(topo_, prof_, col.kind, col.algorithm, col.group,
                                          col.bytes / parts);
      if (!choice.is_ok())
        return Status::error(who + collective_label(static_cast<CollectiveId>(c)) + ": " +
                             choice.message());
      std::tuple<std::int32_t, CollectiveAlgorithm, std::int32_t> v{-1, col.algorithm, 0};
      if (choice->has_value()) {
        cost::AlphaBeta step = (*choice)->step;
        step.alpha_seconds *= parts;
        nccl_steps_.push_back(step);
        v = {static_cast<std::int32_t>(nccl_steps_.size()) - 1, (*choice)->expansion,
             cost::nccl_sm_channels((*choice)->chosen)};
      }
      it = nccl_memo.emplace(std::move(key), v).first;
    }
    coll_nccl_[c] = std::get<0>(it->second);
    // (Transformer Engine's userbuffers hold none of their own.)
    coll_sm_channels_[c] = any_sm_device && !col.userbuffers ? std::get<2>(it->second) : 0;
    any_sm_share_ |= coll_sm_channels_[c] > 0;
    if (coll_nccl_[c] >= 0) {
      coll_algorithm_[c] = std::get<1>(it->second);
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
  // A fused task's time by its GEMM shapes (Task::gemm_mix), per shapes
  // and device class, for the task it was worked out for: another task of
  // the same shapes but other FLOPs, bytes, kernels, width or class (what
  // the shapes leave to the rest of the task) is worked out anew.
  size_t classes = 1;
  for (const std::int32_t c : device_class) classes = std::max(classes, static_cast<size_t>(c) + 1);
  struct MixTime {
    bool known = false;
    double seconds = -1;  // -1: the profile has no wave model
    double flops = 0, bytes = 0;
    std::int64_t batch = 0;
    DType dtype = DType::kF32;
    KernelClass kernel = KernelClass::kGeneric;
  };
  std::vector<MixTime> mix_seconds;
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
    const bool gave_sms = x.kind == TaskKind::kCompute && x.sm_held > 0;
    h.bits = static_cast<std::uint32_t>(x.kind) | (mem ? 4u : 0u) | (gave_sms ? 8u : 0u) |
             (static_cast<std::uint32_t>(aux) << 4);
    if (x.kind == TaskKind::kCompute) {
      const std::int32_t cls = device_class[static_cast<size_t>(x.device)];
      double seconds = -1;
      if (x.gemm_mix > 0) {  // a fused run's GEMMs shape by shape (a wave model's profile)
        const size_t slot = (static_cast<size_t>(x.gemm_mix) - 1) * classes + static_cast<size_t>(cls);
        if (slot >= mix_seconds.size()) mix_seconds.resize(slot + 1);
        MixTime& m = mix_seconds[slot];
        if (!m.known || m.flops != x.flops || m.bytes != x.bytes || m.batch != x.batch ||
            m.dtype != x.dtype || m.kernel != x.kernel) {
          const Device& d = topo_.device(x.device);
          m = MixTime{true, gemm_mix_seconds(d, prof_.for_device(d), x, p_.gemm_mix(x.gemm_mix)),
                      x.flops, x.bytes, x.batch, x.dtype, x.kernel};
        }
        seconds = m.seconds;
      }
      if (seconds < 0)
        seconds = memo.get(topo_, prof_, cls, x.device, x.dtype, x.compute, x.flops, x.bytes,
                           task_written_bytes(x), x.kernel,
                           is_flash_attention(x.kernel) ? x.m : 0,
                           is_flash_attention(x.kernel) ? x.k : 0, fused_kernels(x),
                           x.compute == ComputeKind::kGemm ? GemmShape{x.m, x.n, x.k, x.batch}
                                                           : GemmShape{});
      // GEMMs adding into the gradient buffer (fused accumulation), where
      // the device's profile prices the addition.
      const DeviceProfile& dp = *device_profile[static_cast<size_t>(x.device)];
      if (x.gemm_mix > 0 && dp.gemm_accumulate_exposed > 0)
        seconds += accumulate_seconds(topo_.device(x.device), dp,
                                      gemm_mix_accumulate_bytes(p_.gemm_mix(x.gemm_mix)));
      h.duration = seconds / (x.compute == ComputeKind::kMemoryBound
                                  ? memory_speed_
                                  : speed_)[static_cast<size_t>(x.device)];
      if (x.sm_held > 0)  // SMs given to a communication kernel beside it
        h.duration /= sm_share(dp, x.sm_held);
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
    hold_version_.assign(ncoll, 0);
    coll_inst_.assign(ncoll, -1);
    hold_queued_.assign(ncoll, 0);
    if (split_rings_) split_ring_of_chan_.assign(nc, -1);
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

  // The host lane: each device's host time per operation.
  {
    std::vector<double> host_op(nd, 0);
    bool any = false;
    for (size_t d = 0; d < nd; ++d) {
      const double h = host_op_seconds(prof_, topo_.device(static_cast<int>(d)), opt_.host_op_seconds);
      if (!(h >= 0) || !std::isfinite(h))
        return Status::error(who + "host time per operation " + std::to_string(h) + " for device " +
                             std::to_string(d) + "; expected a duration >= 0");
      host_op[d] = h;
      any |= h > 0;
    }
    if (opt_.devices_per_host < 1)
      return Status::error(who + "devices per host " + std::to_string(opt_.devices_per_host) +
                           "; expected an integer >= 1");
    host_op_max_ = host_op.empty() ? 0 : *std::max_element(host_op.begin(), host_op.end());
    if (any) setup_host_lane(host_op);
  }
  for (size_t i = 0; i < nt; ++i)
    if (hot_[i].pending == 0) ready_.push_back(static_cast<std::int32_t>(i));
  // The input pipeline (runtime.input_seconds): nothing of the step starts
  // before the batch is there; the devices are idle until then (last_change_
  // is 0, so touch_device counts the wait as idle).
  now_ = opt_.runtime.input_seconds;
  return Status::ok();
}

// Each host (devices k*n .. k*n + n - 1 share host k, n =
// SimOptions::devices_per_host; 1: a host per device) issues its devices'
// tasks one after another in the Program's order (stream order, a task
// after its dependencies on the host's devices, the lower TaskId first
// among those free to go: Kahn's order, as the CUDA executor's one thread
// walks it), each fused_kernels(task) x h of its device after the one
// before, from the input pipeline's end (the host waits for the batch;
// the step starts with the host and the device synchronised, as after the
// previous step's optimizer). The host never waits for the device (no
// synchronisation inside the step), so the issue times are known before
// the run: each task with h > 0 gets a kRelease event at its issue time,
// counted as one more predecessor (docs/simulator.md, "The host lane").
void Engine::setup_host_lane(const std::vector<double>& host_op) {
  const size_t nt = hot_.size();
  host_pred_.assign(nt, -1);
  host_done_.assign(nt, 0);
  auto device_of = [this](size_t i) {
    return static_cast<size_t>(stream_device_[static_cast<size_t>(hot_[i].stream)]);
  };
  const auto per_host = static_cast<size_t>(opt_.devices_per_host);
  auto host_of = [&](size_t i) { return device_of(i) / per_host; };
  // A lower bound on each task's start: the input pipeline's end plus the
  // kernels before it on its stream, which run one after another at no less
  // than their durations (a slowdown or a share only lengthens them). An
  // issue no later than that can never hold the task back: it gets no event
  // (on a device-bound plan, almost none does).
  std::vector<double> earliest(nt, 0);
  for (size_t st = 0, k = 0; st < stream_end_.size(); ++st) {
    double at = opt_.runtime.input_seconds;
    for (; k < static_cast<size_t>(stream_end_[st]); ++k) {
      earliest[k] = at;
      if (hot_[k].kind() == TaskKind::kCompute) at += hot_[k].duration;
    }
  }
  const size_t hosts = (host_op.size() + per_host - 1) / per_host;
  std::vector<double> host(hosts, opt_.runtime.input_seconds);
  std::vector<std::int32_t> last(hosts, -1);
  auto issue = [&](size_t i) {
    const size_t d = device_of(i), k = d / per_host;
    if (!(host_op[d] > 0)) return;
    const Task& x = p_.task(ext_[i]);
    const double from = host[k];
    host[k] += static_cast<double>(fused_kernels(x)) * host_op[d];
    if (rec_.full()) rec_.host(ext_[i], x, from, host[k]);
    host_pred_[i] = last[k];
    last[k] = static_cast<std::int32_t>(i);
    if (host[k] > earliest[i]) {
      ++hot_[i].pending;
      queue_.push(host[k], make_event(static_cast<std::uint32_t>(i), kRelease));
    }
  };
  // Where every dependency points to a lower TaskId (as the planners build
  // their Programs; a stream's tasks are in TaskId order already), TaskId
  // order is Kahn's order with the lower TaskId first: issue in it.
  bool sorted = true;
  for (TaskId t = 0; sorted && t < p_.num_tasks(); ++t)
    for (TaskId on : p_.deps(t)) sorted &= on < t;
  if (sorted) {
    std::vector<std::int32_t> int_of(nt);
    for (size_t i = 0; i < nt; ++i) int_of[static_cast<size_t>(ext_[i])] = static_cast<std::int32_t>(i);
    for (size_t t = 0; t < nt; ++t) issue(static_cast<size_t>(int_of[t]));
    return;
  }
  // Otherwise Kahn's order over each host's own graph. Predecessors on
  // the task's own host: its stream predecessor and its dependencies on
  // the host's devices (counted as Engine::pending counts them).
  std::vector<std::int32_t> local(nt, 0);
  auto for_each_local_successor = [&](size_t i, auto&& f) {
    const HotTask& h = hot_[i];
    const size_t k0 = host_of(i);
    for (std::uint32_t k = 0; k < h.succ_count; ++k) {
      const auto j = static_cast<size_t>(succ_[h.succ_begin + k]);
      if (host_of(j) == k0) f(j);
    }
    if (static_cast<std::int32_t>(i) + 1 < stream_end_[static_cast<size_t>(h.stream)]) f(i + 1);
  };
  for (size_t i = 0; i < nt; ++i) for_each_local_successor(i, [&](size_t j) { ++local[j]; });
  using Entry = std::pair<TaskId, std::int32_t>;  // (TaskId, internal index): the lower TaskId first
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> free_to_go;
  for (size_t i = 0; i < nt; ++i)
    if (local[i] == 0) free_to_go.emplace(ext_[i], static_cast<std::int32_t>(i));
  while (!free_to_go.empty()) {
    const auto i = static_cast<size_t>(free_to_go.top().second);
    free_to_go.pop();
    issue(i);
    for_each_local_successor(i, [&](size_t j) {
      if (--local[j] == 0) free_to_go.emplace(ext_[j], static_cast<std::int32_t>(j));
    });
  }
}

SimResult Engine::result() {
  SimResult r;
  r.step_seconds = step_end_;
  r.host_op_seconds = host_op_max_;
  r.devices_per_host = opt_.devices_per_host;
  r.events = events_;
  r.network = opt_.network;
  r.flows = flows_;
  r.collectives_shortcut = shortcuts_;
  r.off_link_bytes = shortcut_off_link_;
  for (const ChannelId c : alone_channels_) r.off_link_bytes += chan_[static_cast<size_t>(c)].bytes;
  r.collectives_split = splits_;
  r.holds_again = holds_again_;
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
  // Every link runs back in time (a predecessor ended before its successor
  // started), so the walk ends; the bound guards against a link that would not.
  for (std::int32_t i = last_task_; i >= 0 && r.critical_path.size() < hot_.size();
       i = hot_[static_cast<size_t>(i)].crit_pred)
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

}  // namespace brigade::sim::engine
