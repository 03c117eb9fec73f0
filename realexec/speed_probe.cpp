// The speed probe: one GEMM and one streaming kernel run on every device,
// their measured times against what a hardware profile predicts
// (speed_against_profile, realexec/calibrate.hpp).
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "realexec/calibrate.hpp"
#include "realexec/calibrate_bench.hpp"
#include "realexec/summary.hpp"

namespace brigade::realexec {

namespace {

using calibrate_detail::Bench;
using calibrate_detail::on_every_device;

// One kernel, repeated on every device of `topology` at once for about
// `seconds` (a warm-up step, then the median of 3 timed steps), each after
// an untimed copy of `evict_bytes` to the next device where that is > 0: the
// profile's time for the kernel (`predicted`, launch included) over the
// measured one (the kernel's span plus the profile's launch overhead), the
// devices together (their mean) and each.
Result<SpeedProbe::Resource> kernel_speed(
    RealExecutor& executor, const Topology& topology, const HardwareProfile& profile,
    const char* what, double predicted, double evict_bytes, double seconds,
    const std::function<void(ProgramBuilder&, StreamId)>& add) {
  if (!(predicted > 0))
    return Status::error(std::string("the profile gives no time for the ") + what);
  const Device& d0 = topology.device(0);
  const DeviceProfile& dp = profile.for_device(d0);
  const double launch = dp.launch_overhead_seconds;
  const double bw = peak_memory_bandwidth_bytes_per_second(d0, dp);
  const double each = predicted + (evict_bytes > 0 && bw > 0 ? evict_bytes / bw : 0.0);
  // Clamped as a double: a tiny `each` makes the quotient too large for an int.
  const int reps = static_cast<int>(std::clamp(std::ceil(seconds / 4 / each), 2.0, 10000.0));
  const int n = topology.num_devices();
  BRIGADE_ASSIGN_OR_RETURN(
      auto probe_program,
      on_every_device(std::string("probe-") + what, n, [&](ProgramBuilder& b, StreamId s, int d) {
        for (int i = 0; i < reps; ++i) {
          if (evict_bytes > 0) b.add_transfer(s, (d + 1) % n, evict_bytes, "evict");
          add(b, s);
        }
      }));
  const Program& p = probe_program.first;
  const std::vector<StreamId>& ss = probe_program.second;
  RunOptions o;
  o.repeat = 4;  // the warm-up, then 3 timed
  BRIGADE_ASSIGN_OR_RETURN(std::vector<Trace> steps, executor.run_steps(p, topology, profile, o));
  // The mean kernel time on `streams` (each stream's mean, then their
  // mean), the median over the steps.
  auto ratio = [&](const std::vector<StreamId>& streams) -> Result<double> {
    std::vector<double> per;
    for (const Trace& t : steps) {
      double sum = 0;
      for (StreamId s : streams) sum += Bench::mean_span(t, TaskKind::kCompute, s);
      per.push_back(sum / static_cast<double>(streams.size()) + launch);
    }
    const double measured = median(per);
    if (!(measured > launch))
      return Status::error(std::string("the ") + what + " probe measured no time");
    return predicted / measured;
  };
  SpeedProbe::Resource r;
  BRIGADE_ASSIGN_OR_RETURN(r.ratio, ratio(ss));
  for (StreamId s : ss) {
    BRIGADE_ASSIGN_OR_RETURN(double x, ratio({s}));
    r.per_device.push_back(x);
  }
  return r;
}

}  // namespace

Result<SpeedProbe> speed_against_profile(RealExecutor& executor, const Topology& topology,
                                         const HardwareProfile& profile,
                                         const SpeedProbeOptions& options) {
  const Device& d = topology.device(0);
  // Back to back, the probe's operands are warm: it is compared with the
  // profile's warm GEMM time (without the cold-operand term).
  DeviceProfile warm = profile.for_device(d);
  warm.gemm_cold_operand_bandwidth_bytes_per_second = 0;
  const std::int64_t n = options.gemm_n;
  const DType dtype = options.gemm_dtype;
  SpeedProbe probe;
  BRIGADE_ASSIGN_OR_RETURN(
      probe.gemm,
      kernel_speed(executor, topology, profile, "GEMM",
                   kernel_seconds(d, warm, dtype, gemm_flops(n, n, n), gemm_bytes(n, n, n, dtype)),
                   0, options.seconds / 2,
                   [&](ProgramBuilder& b, StreamId s) { b.add_gemm(s, n, n, n, dtype, "probe"); }));
  // The streaming kernel cold, as calibrate measures it: each after a copy
  // that pushes its data out of the caches; that takes a second device.
  const int devices = topology.num_devices();
  const bool evict = options.evict_bytes > 0;
  if (options.stream_bytes > 0 && (!evict || devices >= 2)) {
    const double bytes = options.stream_bytes;
    BRIGADE_ASSIGN_OR_RETURN(
        probe.memory,
        kernel_speed(executor, topology, profile, "streaming",
                     kernel_seconds(d, warm, DType::kF32, 0, bytes, ComputeKind::kMemoryBound),
                     options.evict_bytes, options.seconds / 2, [&](ProgramBuilder& b, StreamId s) {
                       b.add_memory_bound(s, bytes, DType::kF32, "probe");
                     }));
  }
  return probe;
}

}  // namespace brigade::realexec
