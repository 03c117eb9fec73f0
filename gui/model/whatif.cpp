#include "gui/model/whatif.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include <filesystem>

#include "core/file_io.hpp"
#include "core/plan_check.hpp"
#include "core/profile.hpp"
#include "core/scenario_writer.hpp"
#include "core/units.hpp"
#include "costmodel/plan.hpp"
#include "gui/model/loader.hpp"
#include "gui/model/model_tr.hpp"
#include "planner/lower.hpp"

namespace brigade::gui {

namespace {

bool is_cancelled_flag(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

std::string number(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

Status out_of_range(const std::string& what, const std::string& found,
                    const std::string& expected) {
  return Status::error(what + ": found " + found + "; expected " + expected);
}

Status check_strategy(const StrategySpec& st, std::int64_t micro_batch) {
  const std::pair<const char*, int> counts[] = {{"strategy.data", st.data},
                                                {"strategy.tensor", st.tensor},
                                                {"strategy.pipeline", st.pipeline},
                                                {"strategy.virtual_stages", st.virtual_stages}};
  for (const auto& [key, v] : counts)
    if (v < 1) return out_of_range(key, std::to_string(v), "a whole number >= 1");
  if (!(st.bucket_bytes > 0) || st.bucket_bytes > 0x1p60)
    return out_of_range("strategy.bucket", number(st.bucket_bytes) + " B",
                        "a size from 1 B to 1 EiB");
  if (micro_batch < 0)
    return out_of_range("training.micro_batch", std::to_string(micro_batch),
                        "a whole number >= 1 (or the default)");
  return Status::ok();
}

// Scales a calibrated collective figure (> 0 or >= 0 when set) by `f`.
// The hop of NCCL's tuning model (core/nccl_table.hpp) that a link class is.
std::optional<NcclHop> nccl_hop_of(LinkClass c) {
  switch (c) {
    case LinkClass::kNvlink: return NcclHop::kNvlink;
    case LinkClass::kPcie: return NcclHop::kPcie;
    case LinkClass::kInfiniband:
    case LinkClass::kEthernet: return NcclHop::kNetwork;
    case LinkClass::kSharedMemory: break;
  }
  return std::nullopt;
}

// NCCL's tables price a collective from their own per-step latencies, NVLink
// figure, caps and NVLS bandwidth, not from the link profile: the same edit
// of a link class moves them too, or the sliders would do nothing where
// NCCL's model times the collectives. The class's change of alpha is added
// to every latency per step across its hop (NCCL's hwLat); the bandwidths of
// that hop are scaled by the bandwidth's factor `fb`.
void edit_nccl_tables(HardwareProfile& profile, LinkClass cls, double delta_alpha_seconds,
                      double fb) {
  const std::optional<NcclHop> hop = nccl_hop_of(cls);
  if (!hop) return;
  const bool network = *hop == NcclHop::kNetwork;
  for (DeviceProfile& d : profile.devices) {
    NcclTable& t = d.nccl;
    if (!t.present()) continue;
    for (auto& row : t.entries)
      for (NcclEntry& e : row) {
        double& h = e.hop_latency_seconds[static_cast<size_t>(*hop)];
        if (h >= 0) h = std::max(0.0, h + delta_alpha_seconds);
        // Caps by node count: one node's column is the intra-node path's.
        for (size_t k = 0; k < e.max_bandwidth_bytes_per_second.size(); ++k)
          if ((k > 0) == network) e.max_bandwidth_bytes_per_second[k] *= fb;
        if (*hop == NcclHop::kNvlink) e.bus_bandwidth_bytes_per_second *= fb;
      }
    if (*hop == NcclHop::kNvlink) t.nvlink_bandwidth_bytes_per_second *= fb;
  }
}

void scale_if_set(double* v, double f, bool zero_is_set) {
  if (zero_is_set ? *v >= 0 : *v > 0) *v *= f;
}

}  // namespace

std::vector<LinkClassKnob> link_class_knobs(const Scenario& s) {
  std::vector<LinkClassKnob> knobs;
  std::array<bool, kNumLinkClasses> seen{};
  const Topology& t = s.topology;
  for (int dst = 1; dst < t.num_devices(); ++dst) {
    const Route& r = t.route(0, dst);
    const auto c = static_cast<size_t>(r.slowest_class);
    if (seen[c]) continue;
    seen[c] = true;
    const LinkProfile& lp = s.profile.for_link(r.slowest_class);
    knobs.push_back({r.slowest_class, route_alpha_seconds(r, s.profile),
                     lp.bandwidth_bytes_per_second > 0 ? lp.bandwidth_bytes_per_second
                                                       : r.bandwidth_bytes_per_second});
  }
  std::sort(knobs.begin(), knobs.end(), [](const LinkClassKnob& a, const LinkClassKnob& b) {
    return a.link_class < b.link_class;
  });
  return knobs;
}

bool operator==(const WhatIfEdits& a, const WhatIfEdits& b) {
  const StrategySpec& x = a.strategy;
  const StrategySpec& y = b.strategy;
  const bool same_strategy = x.data == y.data && x.tensor == y.tensor && x.pipeline == y.pipeline &&
                             x.sequence_parallel == y.sequence_parallel &&
                             x.schedule == y.schedule && x.virtual_stages == y.virtual_stages &&
                             x.zero == y.zero && x.data_mode == y.data_mode &&
                             x.rank_order == y.rank_order && x.bucket_bytes == y.bucket_bytes &&
                             x.overlap == y.overlap && x.algorithm == y.algorithm;
  return same_strategy && a.has_strategy == b.has_strategy && a.micro_batch == b.micro_batch &&
         a.recompute == b.recompute && a.links == b.links && a.speed == b.speed &&
         a.host_op_seconds == b.host_op_seconds && a.devices_per_host == b.devices_per_host;
}

WhatIfEdits starting_edits(const Scenario& s) {
  WhatIfEdits e;
  e.has_strategy = s.has_strategy;
  e.strategy = s.strategy;
  e.micro_batch = s.training.micro_batch;
  e.recompute = s.training.recompute;
  e.speed = s.simulation.speed;
  e.host_op_seconds = s.simulation.host_op_seconds;
  e.devices_per_host = s.simulation.devices_per_host;
  return e;
}

Result<Scenario> apply_edits(const Scenario& base, const WhatIfEdits& e) {
  BRIGADE_RETURN_IF_ERROR(check_strategy(e.strategy, e.micro_batch));
  for (const auto& [device, factor] : e.speed) {
    const std::string what = "speed of device " + std::to_string(device);
    if (device < 0 || device >= base.topology.num_devices())
      return out_of_range(what, "device " + std::to_string(device),
                          "a device from 0 to " + std::to_string(base.topology.num_devices() - 1));
    if (!(factor >= 1e-6 && factor <= 1e6))
      return out_of_range(what, number(factor), "a factor from 1e-06 to 1e+06");
  }
  if (e.host_op_seconds && !(*e.host_op_seconds >= 0 && *e.host_op_seconds <= 1))
    return out_of_range("host time per operation", number(*e.host_op_seconds) + " s",
                        "a duration from 0 to 1 s");
  if (const int n = std::max(1, base.topology.num_devices());
      !(e.devices_per_host >= 1 && e.devices_per_host <= n))
    return out_of_range("devices per host", std::to_string(e.devices_per_host),
                        "a whole number from 1 to " + std::to_string(n));
  for (const auto& [cls, knob] : e.links) {
    const std::string name(link_class_name(cls));
    if (!(knob.alpha_seconds >= 0 && knob.alpha_seconds <= 1e6))
      return out_of_range(name + " alpha", number(knob.alpha_seconds) + " s",
                          "a duration from 0 to 1e6 s");
    if (!(knob.bandwidth_bytes_per_second >= 0.125 && knob.bandwidth_bytes_per_second <= 1e18))
      return out_of_range(name + " bandwidth", number(knob.bandwidth_bytes_per_second) + " B/s",
                          "a bandwidth from 1 bit/s to 1e18 B/s");
  }
  Scenario s = base;
  s.has_strategy = e.has_strategy;
  s.strategy = e.strategy;
  s.training.micro_batch = e.micro_batch;
  set_recompute(s.training, e.recompute);
  s.simulation.speed = e.speed;
  s.simulation.host_op_seconds = e.host_op_seconds;
  s.simulation.devices_per_host = e.devices_per_host;
  if (!e.links.empty()) {
    const std::vector<LinkClassKnob> start = link_class_knobs(base);
    for (const auto& [cls, knob] : e.links) {
      auto it = std::find_if(start.begin(), start.end(),
                             [cls = cls](const LinkClassKnob& k) { return k.link_class == cls; });
      if (it == start.end())
        return out_of_range(std::string(link_class_name(cls)) + " link",
                            "a class no route of this topology bottlenecks on",
                            "one of the topology's link classes");
      if (it->alpha_seconds == knob.alpha_seconds &&
          it->bandwidth_bytes_per_second == knob.bandwidth_bytes_per_second)
        continue;
      LinkProfile& lp = s.profile.links[static_cast<size_t>(cls)];
      lp.alpha_seconds = knob.alpha_seconds;
      lp.bandwidth_bytes_per_second = knob.bandwidth_bytes_per_second;
      // A calibrated profile's collective steps over the class move with it.
      const double fa = it->alpha_seconds > 0 ? knob.alpha_seconds / it->alpha_seconds : 1;
      const double fb = knob.bandwidth_bytes_per_second / it->bandwidth_bytes_per_second;
      scale_if_set(&lp.collective_alpha_seconds, fa, true);
      scale_if_set(&lp.collective_bandwidth_bytes_per_second, fb, false);
      scale_if_set(&lp.collective_reduce_bandwidth_bytes_per_second, fb, false);
      for (LinkProfile::KindSteps& k : lp.collective_kinds) {
        scale_if_set(&k.alpha_seconds, fa, true);
        scale_if_set(&k.warm_alpha_seconds, fa, true);
      }
      edit_nccl_tables(s.profile, cls, knob.alpha_seconds - it->alpha_seconds, fb);
    }
  }
  return s;
}

std::string reason_of(const Status& status) {
  const std::string& m = status.message();
  const std::string marker = ": error: ";
  const size_t at = m.find(marker);
  return at == std::string::npos ? m : m.substr(at + marker.size());
}

double Judgement::max_peak_memory_bytes() const {
  double m = 0;
  for (const DeviceFigures& d : devices) m = std::max(m, d.peak_memory_bytes);
  return m;
}

double Judgement::max_exposed_comm_seconds() const {
  double m = 0;
  for (const DeviceFigures& d : devices) m = std::max(m, d.exposed_comm_seconds);
  return m;
}

std::vector<std::string> Judgement::notes() const {
  std::vector<std::string> out = cost::plan_warning_texts(warnings);
  if (devices_over_memory > 0)
    out.push_back(fill_args(model_tr("WhatIf", "does not fit: %1 of %n device(s) over their memory",
                                     nullptr, plural_count(devices.size())),
                            {std::to_string(devices_over_memory)}));
  if (oom_devices > 0)
    out.push_back(model_tr("WhatIf", "out of memory on %n device(s) (the memory view shows where)",
                           nullptr, oom_devices));
  return out;
}

Result<Judgement> judge_closed_form(const Scenario& s) {
  BRIGADE_ASSIGN_OR_RETURN(const cost::PlanEstimate e, cost::estimate_plan(s));
  Judgement j;
  j.step_seconds = e.step_seconds;
  int over = 0;
  for (const cost::DeviceMemoryEstimate& m : e.memory) {
    DeviceFigures d;
    d.device = m.device;
    d.peak_memory_bytes = m.peak_bytes;
    d.capacity_bytes = m.capacity_bytes;
    d.exposed_comm_seconds = e.exposed_communication_seconds;
    if (m.stage >= 0 && static_cast<size_t>(m.stage) < e.stage_communication.size()) {
      d.exposed_comm_seconds = 0;
      for (const cost::CommunicationEstimate& c :
           e.stage_communication[static_cast<size_t>(m.stage)])
        d.exposed_comm_seconds += c.exposed_seconds;
    }
    if (!m.fits) ++over;
    j.devices.push_back(d);
  }
  std::sort(j.devices.begin(), j.devices.end(),
            [](const DeviceFigures& a, const DeviceFigures& b) { return a.device < b.device; });
  j.warnings = cost::plan_warning_facts(s);
  j.devices_over_memory = over;
  return j;
}

Judgement judgement_of(const sim::SimResult& r) {
  Judgement j;
  j.step_seconds = r.step_seconds;
  for (const sim::DeviceStats& d : r.devices)
    j.devices.push_back({d.id, d.peak_memory_bytes, d.capacity_bytes, d.exposed_comm_seconds});
  j.oom_devices = static_cast<int>(r.oom.size());
  return j;
}

planner::Granularity whatif_granularity(planner::Granularity starting) {
  return starting == planner::Granularity::kRegion || starting == planner::Granularity::kStep
             ? starting
             : planner::Granularity::kAuto;
}

Result<Judgement> judge_simulated(const Scenario& s, const std::atomic<bool>* cancel,
                                  planner::Granularity granularity, std::int64_t max_kernel_tasks) {
  BRIGADE_RETURN_IF_ERROR(check_plan(s));
  if (is_cancelled_flag(cancel)) return cancelled_status();
  planner::LowerOptions lo;
  lo.granularity = granularity;
  lo.max_kernel_tasks = max_kernel_tasks;
  lo.cancel = cancel;
  auto plan = planner::lower(s, lo);
  if (is_cancelled_flag(cancel)) return cancelled_status();
  if (!plan.is_ok()) return plan.status();
  sim::SimOptions so = scenario_sim_options(s, cancel);
  so.record_task_times = false;
  auto r = sim::simulate(plan->program, s.topology, s.profile, so);
  if (is_cancelled_flag(cancel)) return cancelled_status();
  if (!r.is_ok()) return r.status();
  Judgement j = judgement_of(*r);
  j.warnings = cost::plan_warning_facts(s);
  return j;
}

double relative_change(double before, double after) {
  if (before == after) return 0;
  if (before == 0) return std::numeric_limits<double>::infinity();
  return after / before - 1;
}

namespace {

// |a - b| / max(|a|, |b|): a change's size in [0, 1], for ordering rows.
double change_size(double a, double b) {
  const double m = std::max(std::abs(a), std::abs(b));
  return m == 0 ? 0 : std::abs(a - b) / m;
}

}  // namespace

WhatIfDelta compare_judgements(const Judgement& before, const Judgement& after) {
  WhatIfDelta d;
  d.step_before_seconds = before.step_seconds;
  d.step_after_seconds = after.step_seconds;
  d.peak_before_bytes = before.max_peak_memory_bytes();
  d.peak_after_bytes = after.max_peak_memory_bytes();
  d.exposed_before_seconds = before.max_exposed_comm_seconds();
  d.exposed_after_seconds = after.max_exposed_comm_seconds();
  // device -> (before, after)
  std::map<int, std::pair<const DeviceFigures*, const DeviceFigures*>> by_device;
  for (const DeviceFigures& f : before.devices) by_device[f.device].first = &f;
  for (const DeviceFigures& f : after.devices) by_device[f.device].second = &f;
  std::map<std::array<double, 5>, std::vector<int>> groups;
  for (const auto& [device, pair] : by_device) {
    const DeviceFigures* b = pair.first;
    const DeviceFigures* a = pair.second;
    const std::array<double, 5> key = {b ? b->peak_memory_bytes : 0, a ? a->peak_memory_bytes : 0,
                                       a   ? a->capacity_bytes
                                       : b ? b->capacity_bytes
                                           : 0,
                                       b ? b->exposed_comm_seconds : 0,
                                       a ? a->exposed_comm_seconds : 0};
    groups[key].push_back(device);
  }
  for (auto& [k, devices] : groups) {
    DeviceDeltaRow row;
    row.devices = std::move(devices);
    row.peak_before_bytes = k[0];
    row.peak_after_bytes = k[1];
    row.capacity_bytes = k[2];
    row.exposed_before_seconds = k[3];
    row.exposed_after_seconds = k[4];
    d.rows.push_back(std::move(row));
  }
  std::sort(d.rows.begin(), d.rows.end(), [](const DeviceDeltaRow& x, const DeviceDeltaRow& y) {
    const double px = change_size(x.peak_before_bytes, x.peak_after_bytes);
    const double py = change_size(y.peak_before_bytes, y.peak_after_bytes);
    if (px != py) return px > py;
    const double ex = change_size(x.exposed_before_seconds, x.exposed_after_seconds);
    const double ey = change_size(y.exposed_before_seconds, y.exposed_after_seconds);
    if (ex != ey) return ex > ey;
    return x.devices.front() < y.devices.front();
  });
  return d;
}

std::string device_ranges_text(std::vector<int> devices) {
  std::sort(devices.begin(), devices.end());
  std::string out;
  for (size_t i = 0; i < devices.size();) {
    size_t j = i;
    while (j + 1 < devices.size() && devices[j + 1] == devices[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(devices[i]);
    if (j > i) out += "-" + std::to_string(devices[j]);
    i = j + 1;
  }
  return out;
}

Status save_whatif_scenario(const Scenario& edited, bool links_edited, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path out(path);
  const fs::path profile_out = out.parent_path() / (out.stem().string() + ".profile.yaml");
  for (const fs::path& p :
       links_edited ? std::vector<fs::path>{out, profile_out} : std::vector<fs::path>{out}) {
    auto target = check_output_path(p.string());
    if (!target.is_ok()) return Status::error(p.string() + ": error: " + target.message());
  }
  ScenarioWriteOptions o;
  o.name = out.stem().string();
  std::error_code ec;
  const fs::path dir = fs::absolute(out, ec).parent_path();
  if (links_edited) {
    HardwareProfile profile = edited.profile;
    profile.name += " (what-if)";
    BRIGADE_RETURN_IF_ERROR(save_profile(profile, profile_out.string()));
    o.profile = profile_out.filename().string();
  } else if (!edited.profile_path.empty()) {
    o.profile = fs::proximate(fs::absolute(edited.profile_path, ec), dir, ec).generic_string();
  }
  return save_edited_scenario(edited, path, o);
}

// ---- LatestRequestRunner ------------------------------------------------------

LatestRequestRunner::LatestRequestRunner(Work work, Done done)
    : work_(std::move(work)), done_(std::move(done)), thread_([this] { loop(); }) {}

LatestRequestRunner::~LatestRequestRunner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    pending_.reset();
    if (running_cancel_) running_cancel_->store(true);
  }
  wake_.notify_all();
  thread_.join();
}

std::uint64_t LatestRequestRunner::submit(Scenario scenario) {
  std::uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = ++latest_;
    pending_ = std::move(scenario);
    if (running_cancel_) running_cancel_->store(true);
  }
  wake_.notify_all();
  return id;
}

void LatestRequestRunner::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.reset();
  if (running_cancel_) running_cancel_->store(true);
}

std::uint64_t LatestRequestRunner::latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

bool LatestRequestRunner::idle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !pending_ && running_ == 0;
}

int LatestRequestRunner::started() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return started_;
}

int LatestRequestRunner::cancelled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cancelled_;
}

void LatestRequestRunner::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
    if (stop_) return;
    Scenario scenario = std::move(*pending_);
    pending_.reset();
    const std::uint64_t id = latest_;
    std::atomic<bool> cancel{false};
    running_cancel_ = &cancel;
    running_ = id;
    ++started_;
    lock.unlock();
    Result<Judgement> result = work_(scenario, &cancel);
    lock.lock();
    running_cancel_ = nullptr;
    const bool stopped = cancel.load();
    if (stopped) ++cancelled_;
    if (!stopped && id == latest_ && !stop_) {
      lock.unlock();
      done_(id, std::move(result));
      lock.lock();
    }
    running_ = 0;  // idle() only once the result is delivered
  }
}

}  // namespace brigade::gui
