#include "core/nccl_table.hpp"

#include <cmath>
#include <cstdio>

#include "core/nccl_table_check.hpp"
#include "core/units.hpp"

namespace brigade {

std::string_view nccl_protocol_name(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::kLL: return "ll";
    case NcclProtocol::kLL128: return "ll128";
    case NcclProtocol::kSimple: return "simple";
  }
  return "?";
}

std::optional<NcclProtocol> parse_nccl_protocol(std::string_view s) {
  for (int i = 0; i < kNumNcclProtocols; ++i)
    if (s == nccl_protocol_name(static_cast<NcclProtocol>(i))) return static_cast<NcclProtocol>(i);
  return std::nullopt;
}

std::string_view nccl_algorithm_name(NcclAlgorithm a) {
  switch (a) {
    case NcclAlgorithm::kRing: return "ring";
    case NcclAlgorithm::kTree: return "tree";
    case NcclAlgorithm::kNvls: return "nvls";
    case NcclAlgorithm::kNvlsTree: return "nvls_tree";
  }
  return "?";
}

std::optional<NcclAlgorithm> parse_nccl_algorithm(std::string_view s) {
  for (int i = 0; i < kNumNcclAlgorithms; ++i)
    if (s == nccl_algorithm_name(static_cast<NcclAlgorithm>(i))) return static_cast<NcclAlgorithm>(i);
  return std::nullopt;
}

std::string_view nccl_version_name(NcclVersion v) {
  switch (v) {
    case NcclVersion::k2_24: return "2.24";
    case NcclVersion::k2_29: return "2.29";
  }
  return "?";
}

std::optional<NcclVersion> parse_nccl_version(std::string_view s) {
  for (int i = 0; i < kNumNcclVersions; ++i)
    if (s == nccl_version_name(static_cast<NcclVersion>(i))) return static_cast<NcclVersion>(i);
  return std::nullopt;
}

std::string nccl_version_list() {
  std::string out;
  for (int i = 0; i < kNumNcclVersions; ++i) {
    if (i) out += ", ";
    out += nccl_version_name(static_cast<NcclVersion>(i));
  }
  return out;
}

std::string_view nccl_hop_name(NcclHop h) {
  switch (h) {
    case NcclHop::kNvlink: return "nvlink";
    case NcclHop::kPcie: return "pcie";
    case NcclHop::kNetwork: return "network";
  }
  return "?";
}

bool nccl_protocol_defined(NcclAlgorithm a, NcclProtocol p) {
  return !nccl_is_nvls(a) || p == NcclProtocol::kSimple;
}

bool nccl_hop_defined(NcclAlgorithm a, NcclHop h) {
  return !nccl_is_nvls(a) || h != NcclHop::kPcie;
}

namespace {

std::string entry_path(NcclAlgorithm a, NcclProtocol p) {
  return "nccl." + std::string(nccl_algorithm_name(a)) + "." + std::string(nccl_protocol_name(p));
}

std::string protocol_list(NcclAlgorithm a) {
  return nccl_is_nvls(a) ? "simple" : "ll, ll128 and simple";
}

std::string field_list(NcclAlgorithm a) {
  switch (a) {
    case NcclAlgorithm::kNvls:
      return "latency, nvlink, network, bandwidth and bus_bandwidth in nvls.simple";
    case NcclAlgorithm::kNvlsTree:
      return "latency, nvlink, network and bandwidth (NVLS's efficiency) in nvls_tree.simple";
    default:
      return "latency, nvlink, pcie, network and bandwidth in every ring and tree protocol";
  }
}

}  // namespace

std::optional<NcclTableFault> find_nccl_table_fault(const NcclTable& t) {
  bool any = false;
  for (int a = 0; a < kNumNcclAlgorithms; ++a) any |= t.has(static_cast<NcclAlgorithm>(a));
  if (!any) return std::nullopt;  // no table: no NCCL model
  auto fault = [](NcclTableFault::Where where, NcclAlgorithm a, NcclProtocol p, std::string field,
                  std::string message) {
    return NcclTableFault{where, a, p, std::move(field), std::move(message)};
  };
  if (!t.has(NcclAlgorithm::kRing))
    return fault(NcclTableFault::Where::kTable, NcclAlgorithm::kRing, NcclProtocol::kLL, "ring",
                 "found nccl without 'ring'; expected a ring table with ll, ll128 and simple "
                 "(every collective kind runs as a ring)");
  for (int ai = 0; ai < kNumNcclAlgorithms; ++ai) {
    const auto a = static_cast<NcclAlgorithm>(ai);
    if (!t.has(a)) continue;
    const std::string alg(nccl_algorithm_name(a));
    // Complete: every protocol the algorithm is defined with, every field.
    for (int pi = 0; pi < kNumNcclProtocols; ++pi) {
      const auto p = static_cast<NcclProtocol>(pi);
      const NcclEntry& e = t.at(a, p);
      if (!nccl_protocol_defined(a, p)) {
        if (e.given())
          return fault(NcclTableFault::Where::kEntry, a, p, "",
                       "found " + entry_path(a, p) + "; expected only simple for " + alg +
                           " (NCCL runs NVLink SHARP with the Simple protocol alone)");
        continue;
      }
      if (!e.given())
        return fault(NcclTableFault::Where::kAlgorithm, a, p, "",
                     "found nccl." + alg + " without '" + std::string(nccl_protocol_name(p)) +
                         "'; expected " + protocol_list(a) + " for " + alg +
                         " (a protocol table is complete)");
      for (int hi = 0; hi < kNumNcclHops; ++hi) {
        const auto h = static_cast<NcclHop>(hi);
        if (nccl_hop_defined(a, h) && !(e.hop_latency_seconds[static_cast<size_t>(hi)] >= 0))
          return fault(NcclTableFault::Where::kEntry, a, p, "",
                       "found " + entry_path(a, p) + " without '" + std::string(nccl_hop_name(h)) +
                           "'; expected " + field_list(a));
      }
      if (!(e.bandwidth_factor > 0))
        return fault(NcclTableFault::Where::kEntry, a, p, "",
                     "found " + entry_path(a, p) + " without 'bandwidth'; expected " + field_list(a));
      if (a == NcclAlgorithm::kNvls && !(e.bus_bandwidth_bytes_per_second > 0))
        return fault(NcclTableFault::Where::kEntry, a, p, "",
                     "found " + entry_path(a, p) + " without 'bus_bandwidth'; expected " +
                         field_list(a));
    }
    if (a == NcclAlgorithm::kNvlsTree && !t.has(NcclAlgorithm::kNvls))
      return fault(NcclTableFault::Where::kAlgorithm, a, NcclProtocol::kSimple, "",
                   "found nccl.nvls_tree without nccl.nvls; expected nvls too (NVLS-tree reduces "
                   "in each node's NVSwitch as NVLS does)");
    if (nccl_is_nvls(a)) continue;
    // Monotonic: LL <= LL128 <= Simple in every hop latency and in bandwidth.
    for (int pi = 0; pi + 1 < kNumNcclProtocols; ++pi) {
      const auto lo = static_cast<NcclProtocol>(pi), hi = static_cast<NcclProtocol>(pi + 1);
      const NcclEntry &x = t.at(a, lo), &y = t.at(a, hi);
      for (int h = 0; h < kNumNcclHops; ++h) {
        const double u = x.hop_latency_seconds[static_cast<size_t>(h)];
        const double v = y.hop_latency_seconds[static_cast<size_t>(h)];
        if (u > v) {
          const std::string hop(nccl_hop_name(static_cast<NcclHop>(h)));
          return fault(NcclTableFault::Where::kField, a, lo, hop,
                       "found " + entry_path(a, lo) + "." + hop + " " + format_seconds(u) +
                           " above " + entry_path(a, hi) + "." + hop + " " + format_seconds(v) +
                           "; expected ll <= ll128 <= simple in every step latency (each "
                           "protocol buys bandwidth with latency)");
        }
      }
      for (bool multi : {false, true}) {
        const double u = x.factor(multi), v = y.factor(multi);
        if (u > v) {
          const std::string f = multi ? "multinode_bandwidth" : "bandwidth";
          char buf[96];
          std::snprintf(buf, sizeof buf, " %g above ", u);
          char buf2[48];
          std::snprintf(buf2, sizeof buf2, " %g", v);
          return fault(NcclTableFault::Where::kField, a, lo, f,
                       "found " + entry_path(a, lo) + "." + f + buf + entry_path(a, hi) + "." + f +
                           buf2 + "; expected ll <= ll128 <= simple in bandwidth (each protocol "
                                  "buys bandwidth with latency)");
        }
      }
    }
  }
  return std::nullopt;
}

Status check_nccl_table(const NcclTable& table) {
  if (auto f = find_nccl_table_fault(table)) return Status::error(f->message);
  return Status::ok();
}

}  // namespace brigade
