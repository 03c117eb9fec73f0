#include "core/profile_io_nccl.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "core/nccl_table_check.hpp"
#include "core/units.hpp"

namespace brigade {
namespace {

using yamlio::Bound;
using yamlio::Cursor;

std::vector<std::string> names_of(int n, std::string_view (*name)(int)) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.emplace_back(name(i));
  return v;
}

std::string_view protocol_at(int i) { return nccl_protocol_name(static_cast<NcclProtocol>(i)); }

Status unknown(const Cursor& k, const std::string& what, const std::vector<std::string>& names) {
  std::string msg = "found " + what + " " + k.found() + "; expected one of " + yamlio::join_list(names);
  if (k.is_scalar())
    if (auto m = closest_match_in(k.text(), names)) msg += " (did you mean '" + *m + "'?)";
  return k.error(msg);
}

// Cursors of what was read, so that a fault found in the whole table is
// reported where it was written.
struct Places {
  std::map<int, Cursor> algorithm;                // by algorithm
  std::map<std::pair<int, int>, Cursor> entry;    // by (algorithm, protocol)
  std::map<std::tuple<int, int, std::string>, Cursor> field;
};

// A bandwidth, or a list of 1 to 3 by the number of nodes (one, two, more;
// a shorter list repeats its last).
Status read_by_nodes(const Cursor& m, std::array<double, 3>* out) {
  std::vector<Cursor> caps = m.is_list() ? m.items() : std::vector<Cursor>{m};
  if (caps.empty() || caps.size() > 3)
    return m.error("found " + m.found() +
                   "; expected a bandwidth or a list of 1 to 3 (one node, two, more)");
  for (size_t i = 0; i < 3; ++i) {
    const Cursor& x = caps[std::min(i, caps.size() - 1)];
    BRIGADE_ASSIGN_OR_RETURN((*out)[i], x.as_quantity(Dimension::kBytesPerSecond, Bound::kNonNegative));
  }
  return Status::ok();
}

Status read_entry(const Cursor& c, NcclAlgorithm a, NcclProtocol p, NcclEntry* e, Places* at) {
  const bool nvls = a == NcclAlgorithm::kNvls;
  const bool nvls_tree = a == NcclAlgorithm::kNvlsTree;
  BRIGADE_RETURN_IF_ERROR(c.expect_map(
      nvls        ? "an NVLS entry {latency, nvlink, network, bandwidth, bus_bandwidth}"
      : nvls_tree ? "an NVLS-tree entry {latency, nvlink, network, bandwidth, channel_max_bandwidth}"
                  : "a protocol entry {latency, nvlink, pcie, network, bandwidth, multinode_bandwidth, "
                    "max_bandwidth, channel_max_bandwidth}"));
  if (nvls)
    BRIGADE_RETURN_IF_ERROR(
        c.check_keys({"latency", "nvlink", "network", "bandwidth", "bus_bandwidth", "max_bandwidth"}));
  else if (nvls_tree)
    BRIGADE_RETURN_IF_ERROR(
        c.check_keys({"latency", "nvlink", "network", "bandwidth", "channel_max_bandwidth"}));
  else
    BRIGADE_RETURN_IF_ERROR(c.check_keys({"latency", "nvlink", "pcie", "network", "bandwidth",
                                          "multinode_bandwidth", "max_bandwidth",
                                          "channel_max_bandwidth"}));
  const int ai = static_cast<int>(a), pi = static_cast<int>(p);
  for (const auto& [k, v] : c.entries()) at->field.emplace(std::make_tuple(ai, pi, k.text()), v);
  BRIGADE_RETURN_IF_ERROR(c.require(
      "latency", nvls ? "the NVLS call latency (NCCL's baseLat)" : "the call latency (NCCL's baseLat)"));
  BRIGADE_ASSIGN_OR_RETURN(e->latency_seconds,
                           c.get_quantity("latency", 0, Dimension::kSeconds, Bound::kNonNegative));
  for (int h = 0; h < kNumNcclHops; ++h) {
    const std::string key(nccl_hop_name(static_cast<NcclHop>(h)));
    BRIGADE_ASSIGN_OR_RETURN(e->hop_latency_seconds[static_cast<size_t>(h)],
                             c.get_quantity(key, -1, Dimension::kSeconds, Bound::kNonNegative));
  }
  if (c.has("bandwidth")) {
    BRIGADE_ASSIGN_OR_RETURN(e->bandwidth_factor,
                             c.get("bandwidth").as_number_in(1e-6, 1, "a bandwidth factor"));
  }
  if (c.has("multinode_bandwidth")) {
    BRIGADE_ASSIGN_OR_RETURN(e->multinode_bandwidth_factor,
                             c.get("multinode_bandwidth").as_number_in(1e-6, 1, "a bandwidth factor"));
  }
  BRIGADE_ASSIGN_OR_RETURN(e->bus_bandwidth_bytes_per_second,
                           c.get_quantity("bus_bandwidth", 0, Dimension::kBytesPerSecond,
                                          Bound::kPositive));
  if (c.has("max_bandwidth"))
    BRIGADE_RETURN_IF_ERROR(read_by_nodes(c.get("max_bandwidth"), &e->max_bandwidth_bytes_per_second));
  if (c.has("channel_max_bandwidth"))
    BRIGADE_RETURN_IF_ERROR(read_by_nodes(c.get("channel_max_bandwidth"),
                                          &e->channel_max_bandwidth_bytes_per_second));
  return Status::ok();
}

}  // namespace

Result<NcclVersion> read_nccl_version(const Cursor& c) {
  if (c.is_scalar())
    if (std::optional<NcclVersion> v = parse_nccl_version(c.text())) return *v;
  return c.error("found NCCL version " + c.found() + "; expected one of " + nccl_version_list() +
                 " (the NCCL releases whose tuning model Brigade knows: docs/costmodel.md, "
                 "\"NCCL's version\")");
}

Status read_nccl_table(const Cursor& c, NcclTable* t) {
  BRIGADE_RETURN_IF_ERROR(c.expect_map(
      "an NCCL table {ring, tree, nvls, nvls_tree, nvlink_bandwidth, net_overhead, ring_plateau, "
      "channels, graph_channels, tree_correction, version}"));
  BRIGADE_RETURN_IF_ERROR(c.check_keys({"ring", "tree", "nvls", "nvls_tree", "nvlink_bandwidth",
                                        "net_overhead", "ring_plateau", "channels",
                                        "graph_channels", "tree_correction", "version"}));
  // The NCCL release whose model the table follows (default 2.29).
  if (c.has("version")) {
    BRIGADE_ASSIGN_OR_RETURN(t->version, read_nccl_version(c.get("version")));
  }
  // channels (comm->nChannels) and graph_channels (the search's
  // graphs[a]->nChannels): a count, or a list of 1 to 3 by the number of
  // nodes (one, two, more; a shorter list repeats its last); 0: not known.
  for (const char* key : {"channels", "graph_channels"}) {
    if (!c.has(key)) continue;
    const Cursor m = c.get(key);
    std::vector<Cursor> v = m.is_list() ? m.items() : std::vector<Cursor>{m};
    if (v.empty() || v.size() > 3)
      return m.error("found " + m.found() +
                     "; expected a channel count or a list of 1 to 3 (one node, two, more)");
    std::array<int, 3>& out = std::string(key) == "channels" ? t->channels : t->graph_channels;
    for (size_t i = 0; i < 3; ++i) {
      BRIGADE_ASSIGN_OR_RETURN(const std::int64_t n, v[std::min(i, v.size() - 1)].as_int(0, 64));
      out[i] = static_cast<int>(n);
    }
  }
  if (c.has("ring_plateau")) {
    BRIGADE_ASSIGN_OR_RETURN(t->ring_plateau_factor,
                             c.get("ring_plateau").as_number_in(1, 10, "a latency factor"));
  }
  BRIGADE_ASSIGN_OR_RETURN(t->nvlink_bandwidth_bytes_per_second,
                           c.get_quantity("nvlink_bandwidth", 0, Dimension::kBytesPerSecond,
                                          Bound::kPositive));
  BRIGADE_ASSIGN_OR_RETURN(t->net_overhead_seconds,
                           c.get_quantity("net_overhead", 0, Dimension::kSeconds, Bound::kNonNegative));
  Places at;
  for (int ai = 0; ai < kNumNcclAlgorithms; ++ai) {
    const auto a = static_cast<NcclAlgorithm>(ai);
    const std::string key(nccl_algorithm_name(a));
    if (!c.has(key)) continue;
    const Cursor m = c.get(key);
    at.algorithm.emplace(ai, m);
    BRIGADE_RETURN_IF_ERROR(m.expect_map(nccl_is_nvls(a)
                                             ? key + "'s protocol {simple: {...}}"
                                             : "protocols {ll: {...}, ll128: {...}, simple: {...}}"));
    for (const auto& [k, v] : m.entries()) {
      std::optional<NcclProtocol> p;
      if (k.is_scalar()) p = parse_nccl_protocol(k.text());
      if (!p) return unknown(k, "protocol", names_of(kNumNcclProtocols, protocol_at));
      if (!nccl_protocol_defined(a, *p))
        return k.error("found protocol '" + k.text() + "' for " + key +
                       "; expected simple (NCCL runs NVLink SHARP with the Simple protocol "
                       "alone)");
      at.entry.emplace(std::make_pair(ai, static_cast<int>(*p)), v);
      BRIGADE_RETURN_IF_ERROR(read_entry(v, a, *p, &t->at(a, *p), &at));
    }
  }
  if (c.has("tree_correction")) {
    const Cursor m = c.get("tree_correction");
    BRIGADE_RETURN_IF_ERROR(m.expect_map(
        "factors by protocol, such as {simple: [0.9, 0.9, ...]} (23 each, by log2(bytes/64))"));
    for (const auto& [k, v] : m.entries()) {
      std::optional<NcclProtocol> p;
      if (k.is_scalar()) p = parse_nccl_protocol(k.text());
      if (!p) return unknown(k, "protocol", names_of(kNumNcclProtocols, protocol_at));
      const std::vector<Cursor> xs = v.items();
      if (!v.is_list() || xs.size() != 23)
        return v.error("found " + v.found() +
                       "; expected 23 factors (sizes 64 B to 256 MiB, by log2(bytes/64))");
      for (size_t i = 0; i < xs.size(); ++i) {
        BRIGADE_ASSIGN_OR_RETURN(t->tree_correction[static_cast<size_t>(*p)][i],
                                 xs[i].as_number_in(1e-6, 1, "a correction factor"));
      }
    }
  }
  if (auto f = find_nccl_table_fault(*t)) {
    const int ai = static_cast<int>(f->algorithm), pi = static_cast<int>(f->protocol);
    switch (f->where) {
      case NcclTableFault::Where::kTable: return c.error(f->message);
      case NcclTableFault::Where::kAlgorithm: return at.algorithm.at(ai).error(f->message);
      case NcclTableFault::Where::kEntry: {
        auto it = at.entry.find({ai, pi});
        return (it != at.entry.end() ? it->second : c).error(f->message);
      }
      case NcclTableFault::Where::kField: {
        auto it = at.field.find({ai, pi, f->field});
        if (it != at.field.end()) return it->second.error(f->message);
        auto e = at.entry.find({ai, pi});
        return (e != at.entry.end() ? e->second : c).error(f->message);
      }
    }
  }
  return Status::ok();
}

namespace {

void emit_number(YAML::Emitter& out, double v) {
  char buf[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  out << buf;
}

}  // namespace

void emit_nccl_table(YAML::Emitter& out, const NcclTable& t) {
  if (!t.present()) return;
  out << YAML::Key << "nccl" << YAML::Value << YAML::BeginMap;
  if (t.version != kDefaultNcclVersion)
    out << YAML::Key << "version" << YAML::Value << YAML::DoubleQuoted
        << std::string(nccl_version_name(t.version));
  if (t.nvlink_bandwidth_bytes_per_second > 0) {
    out << YAML::Key << "nvlink_bandwidth" << YAML::Value;
    emit_number(out, t.nvlink_bandwidth_bytes_per_second);
  }
  if (t.net_overhead_seconds > 0) {
    out << YAML::Key << "net_overhead" << YAML::Value;
    emit_number(out, t.net_overhead_seconds);
  }
  if (t.ring_plateau_factor > 0) {
    out << YAML::Key << "ring_plateau" << YAML::Value;
    emit_number(out, t.ring_plateau_factor);
  }
  for (const auto& [key, v] : {std::pair<const char*, const std::array<int, 3>*>{"channels", &t.channels},
                               {"graph_channels", &t.graph_channels}}) {
    if ((*v)[0] <= 0 && (*v)[1] <= 0 && (*v)[2] <= 0) continue;
    out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (int x : *v) out << x;
    out << YAML::EndSeq;
  }
  for (int ai = 0; ai < kNumNcclAlgorithms; ++ai) {
    const auto a = static_cast<NcclAlgorithm>(ai);
    if (!t.has(a)) continue;
    out << YAML::Key << std::string(nccl_algorithm_name(a)) << YAML::Value << YAML::BeginMap;
    for (int pi = 0; pi < kNumNcclProtocols; ++pi) {
      const auto p = static_cast<NcclProtocol>(pi);
      const NcclEntry& e = t.at(a, p);
      if (!e.given()) continue;
      out << YAML::Key << std::string(nccl_protocol_name(p)) << YAML::Value << YAML::Flow
          << YAML::BeginMap;
      out << YAML::Key << "latency" << YAML::Value;
      emit_number(out, e.latency_seconds);
      for (int h = 0; h < kNumNcclHops; ++h) {
        if (!(e.hop_latency_seconds[static_cast<size_t>(h)] >= 0)) continue;
        out << YAML::Key << std::string(nccl_hop_name(static_cast<NcclHop>(h))) << YAML::Value;
        emit_number(out, e.hop_latency_seconds[static_cast<size_t>(h)]);
      }
      out << YAML::Key << "bandwidth" << YAML::Value;
      emit_number(out, e.bandwidth_factor);
      if (e.multinode_bandwidth_factor > 0) {
        out << YAML::Key << "multinode_bandwidth" << YAML::Value;
        emit_number(out, e.multinode_bandwidth_factor);
      }
      if (e.bus_bandwidth_bytes_per_second > 0) {
        out << YAML::Key << "bus_bandwidth" << YAML::Value;
        emit_number(out, e.bus_bandwidth_bytes_per_second);
      }
      if (e.max_bandwidth_bytes_per_second[0] > 0) {
        out << YAML::Key << "max_bandwidth" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (double x : e.max_bandwidth_bytes_per_second) emit_number(out, x);
        out << YAML::EndSeq;
      }
      bool channel_caps = false;
      for (double x : e.channel_max_bandwidth_bytes_per_second) channel_caps |= x > 0;
      if (channel_caps) {
        out << YAML::Key << "channel_max_bandwidth" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (double x : e.channel_max_bandwidth_bytes_per_second) emit_number(out, x);
        out << YAML::EndSeq;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  bool any_correction = false;
  for (const auto& row : t.tree_correction)
    for (double x : row) any_correction |= x > 0;
  if (any_correction) {
    out << YAML::Key << "tree_correction" << YAML::Value << YAML::BeginMap;
    for (int pi = 0; pi < kNumNcclProtocols; ++pi) {
      out << YAML::Key << std::string(nccl_protocol_name(static_cast<NcclProtocol>(pi)))
          << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (double x : t.tree_correction[static_cast<size_t>(pi)]) emit_number(out, x > 0 ? x : 1.0);
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

}  // namespace brigade
