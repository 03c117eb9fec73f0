#include "tests/fuzz/fuzz_bodies.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "core/hf_config.hpp"
#include "core/kernel_groups.hpp"
#include "core/kernel_summary.hpp"
#include "core/nccl_tests.hpp"
#include "core/plan_check.hpp"
#include "core/profile.hpp"
#include "core/scenario.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"
#include "costmodel/plan.hpp"
#include "planner/lower.hpp"

namespace brigade::fuzz {
namespace {

// The name every input is read under; messages must start with it.
constexpr const char* kFile = "fuzz.yaml";
// The most devices of a plan the body judges in closed form.
constexpr int kMaxDevicesToJudge = 256;

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1Fu;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0Fu;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07u;
    } else {
      return false;
    }
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return false;
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3Fu);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return false;
    i += n + 1;
  }
  return true;
}

// "FILE:LINE:COL: error: ..." names a place in the input: a line at most
// one past its last, a column at most one past its size (a trace's column
// on line 1 was once the reader's buffer address). `data` is the input as
// read; a gzip stream's text is longer than its bytes, so only the sign is
// checked there.
void check_position(const std::string& m, std::string_view file, std::string_view data) {
  if (file.empty() || m.rfind(std::string(file) + ":", 0) != 0) return;
  std::size_t i = file.size() + 1;
  long long n[2] = {0, 0};
  for (long long& x : n) {
    const std::size_t start = i;
    bool negative = false;
    if (i < m.size() && m[i] == '-') negative = true, ++i;
    while (i < m.size() && m[i] >= '0' && m[i] <= '9' && x < (1LL << 40))
      x = x * 10 + (m[i++] - '0');
    if (i == start || i >= m.size() || m[i] != ':') return;  // no "LINE:COL:" here
    if (negative) x = -x;
    ++i;
  }
  check(n[0] >= 1 && n[1] >= 1, "a position that is not positive", m);
  const bool gzip = data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
                    static_cast<unsigned char>(data[1]) == 0x8b;
  if (gzip) return;
  const auto lines = static_cast<long long>(std::count(data.begin(), data.end(), '\n')) + 1;
  check(n[0] <= lines + 1, "a line past the input's end", m);
  check(n[1] <= static_cast<long long>(data.size()) + 1, "a column past the input's end", m);
}

// An error message is one line, in UTF-8, naming the input, and no bug's.
void check_message(const Status& st, std::string_view file, std::string_view data) {
  const std::string& m = st.message();
  check_position(m, file, data);
  check(st.kind() != ErrorKind::kInternal, "an internal error", m);
  check(m.find('\n') == std::string::npos, "a message of more than one line", m);
  check(valid_utf8(m), "a message in invalid UTF-8", m);
  if (!file.empty())
    check(m.rfind(std::string(file) + ":", 0) == 0, "a message that does not start with the file",
        m);
  check(m.find(": error: ") != std::string::npos, "a message without ': error: '", m);
}

void check_finite(double x, std::string_view what) {
  check(std::isfinite(x), "a result that is not a finite number", what);
}

void check_estimate(const cost::PlanEstimate& e) {
  check_finite(e.step_seconds, "step_seconds");
  check(e.step_seconds >= 0, "a negative step time");
  check_finite(e.compute_seconds, "compute_seconds");
  check_finite(e.bubble_seconds, "bubble_seconds");
  check_finite(e.exposed_communication_seconds, "exposed_communication_seconds");
  check_finite(e.optimizer_seconds, "optimizer_seconds");
  for (const auto& c : e.communication) {
    check_finite(c.count, "communication.count");
    check_finite(c.bytes, "communication.bytes");
    check_finite(c.seconds, "communication.seconds");
    check_finite(c.exposed_seconds, "communication.exposed_seconds");
  }
  for (const auto& m : e.memory) {
    check_finite(m.params_bytes, "memory.params_bytes");
    check_finite(m.grads_bytes, "memory.grads_bytes");
    check_finite(m.optimizer_bytes, "memory.optimizer_bytes");
    check_finite(m.activations_bytes, "memory.activations_bytes");
    check_finite(m.other_bytes, "memory.other_bytes");
    check_finite(m.peak_bytes, "memory.peak_bytes");
  }
  check_finite(e.parameters, "parameters");
  check(e.parameters >= 0, "a negative parameter count");
  check_finite(e.model_flops_per_iteration, "model_flops_per_iteration");
  check_finite(e.hardware_flops_per_iteration, "hardware_flops_per_iteration");
  check_finite(e.achieved_flops_per_second_per_device, "achieved_flops_per_second_per_device");
  check_finite(e.mfu, "mfu");
  check_finite(e.amdahl_p, "amdahl_p");
  for (const auto& r : e.amdahl) {
    check_finite(r.speedup, "amdahl.speedup");
    check_finite(r.efficiency, "amdahl.efficiency");
  }
  if (e.placement) {
    check_finite(e.placement->cost_with_alpha_seconds, "placement.cost_with_alpha_seconds");
    check_finite(e.placement->critical_path_seconds, "placement.critical_path_seconds");
  }
}

// Plans small enough to lower in milliseconds: the fuzzer's time goes to
// reading, not to building large Programs (the tests and benchmarks cover
// large plans).
bool small_enough_to_lower(const Scenario& s) {
  if (s.topology.num_devices() > 8) return false;
  switch (s.model_kind) {
    case ModelKind::kTransformer:
      return s.transformer.layers <= 4 && global_batch(s) <= 16;
    case ModelKind::kMlp:
      return s.mlp.widths.size() <= 8 && global_batch(s) <= 4096;
    case ModelKind::kGraph:
      return s.graph.ops.size() <= 32;
    case ModelKind::kCollective:
      return true;
    case ModelKind::kNone:
      return false;
  }
  return false;
}

}  // namespace

void check(bool ok, std::string_view what, std::string_view detail) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: broken promise: %s: %s\n", std::string(what).c_str(),
               std::string(detail).c_str());
  std::abort();
}

void scenario_one(std::string_view data) {
  Result<Scenario> s = parse_scenario(std::string(data), kFile);
  if (!s.is_ok()) {
    // A profile file named by the scenario is named in its own messages.
    const bool in_profile = s.message().rfind(kFile, 0) != 0 && data.find("profile") != data.npos;
    return check_message(s.status(), in_profile ? "" : kFile, data);
  }
  if (Status st = check_plan(*s); !st.is_ok()) return check_message(st, kFile, data);
  // The closed form's route tables grow as devices^2 (6 GB at 16384 devices,
  // docs/RELIABILITY.md): larger plans are read and checked, not judged.
  if (s->topology.num_devices() > kMaxDevicesToJudge) return;
  Result<cost::PlanEstimate> e = cost::estimate_plan(*s);
  if (!e.is_ok()) return check_message(e.status(), kFile, data);
  check_estimate(*e);
  if (!small_enough_to_lower(*s)) return;
  planner::LowerOptions options;
  options.max_kernel_tasks = 2000;
  Result<planner::Plan> plan = planner::lower(*s, options);
  if (!plan.is_ok()) return check_message(plan.status(), kFile, data);
  check_finite(plan->parameters, "plan.parameters");
  check_finite(plan->flops_per_iteration, "plan.flops_per_iteration");
}

void profile_one(std::string_view data) {
  Result<HardwareProfile> p = parse_profile(std::string(data), kFile);
  if (!p.is_ok()) return check_message(p.status(), kFile, data);
}

void trace_one(std::string_view data) {
  std::istringstream in{std::string(data)};
  Result<Trace> t = read_chrome_trace(in, kFile);
  if (!t.is_ok()) return check_message(t.status(), kFile, data);
}

void hf_config_one(std::string_view data) {
  constexpr const char* kConfig = "config.json";
  Result<HfConfig> c = parse_hf_config(std::string(data), kConfig);
  if (!c.is_ok()) return check_message(c.status(), kConfig, data);
  const TransformerSpec& t = c->spec;
  check(t.hidden >= 1 && t.heads >= 1 && t.layers >= 1 && t.vocab >= 1 && t.seq >= 1 &&
            t.ffn_hidden >= 1,
        "a config read with a dimension below 1");
  // Latent attention (DeepSeek-V3) has head widths of its own
  // (qk_nope/qk_rope/v_head_dim), and so has a config with a head_dim of its
  // own (Qwen3, Mistral NeMo: kept as head_dim, hidden need not divide);
  // otherwise plain attention promises a whole hidden/heads. check_plan
  // refuses MLA before anything divides by it.
  check(t.mla.enabled() || t.head_dim >= 1 || t.hidden % t.heads == 0,
        "a config read with hidden_size not divisible by the heads and no head_dim");
  check(t.mla.enabled() || t.head_width() >= 1, "a config read with a head width below 1");
  check(!t.mla.enabled() || (t.mla.qk_nope_head_dim >= 1 && t.mla.qk_rope_head_dim >= 1 &&
                             t.mla.v_head_dim >= 1),
        "a latent-attention config read with a head width below 1");
  check(t.kv_heads == 0 || t.heads % t.kv_heads == 0,
        "a config read with key/value heads that do not divide the heads");
}

void nccl_tests_one(std::string_view data) {
  constexpr const char* kTable = "nccl.txt";
  Result<std::vector<NcclSizePoint>> p = parse_nccl_tests(std::string(data), kTable);
  if (!p.is_ok()) return check_message(p.status(), kTable, data);
  check(!p->empty(), "a table read with no size");
  for (const NcclSizePoint& x : *p) {
    check_finite(x.bytes, "nccl-tests size");
    check_finite(x.seconds, "nccl-tests time");
    check(x.bytes > 0 && x.seconds > 0, "a size or time read that is not positive");
  }
}

void kernel_summary_one(std::string_view data) {
  constexpr const char* kCsv = "kern.csv";
  constexpr const char* kJson = "trace.json";
  const auto check_kernels = [](const MeasuredKernels& m) {
    check(!m.kernels.empty(), "a record read with no kernel");
    for (const MeasuredKernel& k : m.kernels) {
      check_finite(k.seconds, "a kernel's seconds");
      check_finite(k.count, "a kernel's instances");
      check(k.seconds >= 0 && k.count >= 0, "a kernel's time or count below 0");
      group_of_kernel_name(k.name);
    }
    const KernelGroupTimes g = kernel_group_times(m, 3);
    for (double s : g.seconds) check_finite(s, "a group's seconds");
  };
  Result<MeasuredKernels> nsys = parse_nsys_kernel_summary(data, kCsv);
  if (nsys.is_ok())
    check_kernels(*nsys);
  else
    check_message(nsys.status(), kCsv, data);
  std::istringstream in{std::string(data)};
  Result<MeasuredKernels> kineto = read_kineto_kernels(in, kJson);
  if (kineto.is_ok())
    check_kernels(*kineto);
  else
    check_message(kineto.status(), kJson, data);
}

void units_one(std::string_view data) {
  for (Dimension dim : {Dimension::kBytes, Dimension::kSeconds, Dimension::kBytesPerSecond,
                        Dimension::kFlopsPerSecond, Dimension::kFlops, Dimension::kNumber}) {
    Result<double> q = parse_quantity(data, dim);
    if (!q.is_ok()) {
      check(q.message().find('\n') == std::string::npos, "a message of more than one line",
            q.message());
      check(valid_utf8(q.message()), "a message in invalid UTF-8", q.message());
      continue;
    }
    check_finite(*q, "parse_quantity");
    for (const std::string& f : {format_seconds(*q), format_bytes(*q), format_bandwidth(*q),
                                 format_flops(*q), format_flops_rate(*q), format_count(*q)}) {
      check(f.find("nan") == std::string::npos && f.find("inf") == std::string::npos,
            "a formatted quantity that is not a number", f);
      check(f.size() < 32, "a formatted quantity longer than 31 characters", f);
    }
  }
}

}  // namespace brigade::fuzz
