#include "costmodel/sharding.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/tr.hpp"

namespace brigade::cost {

int Mesh::size() const {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  return static_cast<int>(n);
}

int Mesh::axis(const std::string& name) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] == name) return static_cast<int>(i);
  return -1;
}

std::vector<int> Mesh::coords(int device) const {
  std::vector<int> c(shape.size());
  std::int64_t rest = device;
  for (size_t k = shape.size(); k-- > 0;) {
    c[k] = static_cast<int>(rest % shape[k]);
    rest /= shape[k];
  }
  return c;
}

std::vector<std::vector<int>> Mesh::groups(const std::vector<int>& over) const {
  std::map<std::vector<int>, std::vector<std::pair<std::int64_t, int>>> by_key;
  std::vector<std::vector<int>> order;  // keys in order of their first device
  std::vector<std::vector<int>> keys;
  for (int dev = 0; dev < size(); ++dev) {
    std::vector<int> c = coords(dev);
    std::int64_t rank = 0;
    for (int a : over) {
      rank = rank * shape[static_cast<size_t>(a)] + c[static_cast<size_t>(a)];
      c[static_cast<size_t>(a)] = 0;
    }
    auto [it, fresh] = by_key.try_emplace(c);
    if (fresh) keys.push_back(c);
    it->second.emplace_back(rank, dev);
  }
  std::vector<std::vector<int>> out;
  for (const auto& k : keys) {
    auto members = by_key[k];
    std::sort(members.begin(), members.end());
    std::vector<int> g;
    for (const auto& [rank, dev] : members) g.push_back(dev);
    out.push_back(std::move(g));
  }
  return out;
}

std::string Mesh::axes_string(const std::vector<int>& over) const {
  if (over.size() == 1) return "'" + axes[static_cast<size_t>(over[0])] + "'";
  std::string s = "(";
  for (size_t i = 0; i < over.size(); ++i)
    s += (i ? ", '" : "'") + axes[static_cast<size_t>(over[i])] + "'";
  return s + ")";
}

std::string spec_string(const PartitionSpec& spec, const Mesh& mesh) {
  std::string s = "(";
  for (size_t i = 0; i < spec.size(); ++i) {
    if (i) s += ", ";
    s += spec[i] < 0 ? "None" : "'" + mesh.axes[static_cast<size_t>(spec[i])] + "'";
  }
  if (spec.size() == 1) s += ",";
  return s + ")";
}

Result<std::vector<std::int64_t>> local_shape(const std::string& tensor,
                                              const std::vector<std::int64_t>& global,
                                              const PartitionSpec& spec, const Mesh& mesh) {
  std::vector<std::int64_t> local = global;
  for (size_t d = 0; d < global.size() && d < spec.size(); ++d) {
    if (spec[d] < 0) continue;
    const std::int64_t n = mesh.shape[static_cast<size_t>(spec[d])];
    if (global[d] % n != 0)
      return Status::error("tensor '" + tensor + "': dimension " + std::to_string(d) + " of size " +
                           std::to_string(global[d]) + " cannot be split over '" +
                           mesh.axes[static_cast<size_t>(spec[d])] + "' of size " +
                           std::to_string(n) + "; expected a multiple of " + std::to_string(n));
    local[d] = global[d] / n;
  }
  return local;
}

namespace {

double local_bytes(const std::vector<std::int64_t>& global, const PartitionSpec& spec,
                   const Mesh& mesh, double element_bytes) {
  double n = element_bytes;
  for (size_t d = 0; d < global.size(); ++d) {
    double g = static_cast<double>(global[d]);
    if (d < spec.size() && spec[d] >= 0)
      g /= static_cast<double>(mesh.shape[static_cast<size_t>(spec[d])]);
    n *= g;
  }
  return n;
}

int find(const PartitionSpec& spec, int axis) {
  for (size_t i = 0; i < spec.size(); ++i)
    if (spec[i] == axis) return static_cast<int>(i);
  return -1;
}

}  // namespace

std::vector<ReshardStep> reshard(const Sharded& from, const PartitionSpec& to,
                                 const std::vector<std::int64_t>& global, double element_bytes,
                                 const Mesh& mesh) {
  std::vector<ReshardStep> steps;
  PartitionSpec cur = from.spec;
  cur.resize(global.size(), -1);
  auto bytes = [&] { return local_bytes(global, cur, mesh, element_bytes); };
  // 1. Partial sums: psum_scatter onto a dimension the target shards over
  // the same axis (and that is whole now), else one psum over the rest.
  std::vector<int> psum_axes;
  for (int a : from.partial) {
    const int j = find(to, a);
    if (j >= 0 && cur[static_cast<size_t>(j)] < 0 && find(cur, a) < 0) {
      ReshardStep s;
      s.kind = CollectiveKind::kReduceScatter;
      s.axes = {a};
      s.bytes = bytes();
      s.what = fill_args(tr_text("Reasons", "psum_scatter over %1 onto dimension %2"),
                         {mesh.axes_string({a}), std::to_string(j)});
      cur[static_cast<size_t>(j)] = a;
      s.spec_after = cur;
      steps.push_back(s);
    } else {
      psum_axes.push_back(a);
    }
  }
  if (!psum_axes.empty()) {
    ReshardStep s;
    s.kind = CollectiveKind::kAllReduce;
    s.axes = psum_axes;
    s.bytes = bytes();
    s.what = fill_args(tr_text("Reasons", "psum over %1"), {mesh.axes_string(psum_axes)});
    s.spec_after = cur;
    steps.push_back(s);
  }
  // 2. An axis moving from one dimension to another: all_to_all.
  for (size_t i = 0; i < cur.size(); ++i) {
    const int a = cur[i];
    if (a < 0 || (i < to.size() && to[i] == a)) continue;
    const int j = find(to, a);
    if (j >= 0 && cur[static_cast<size_t>(j)] < 0) {
      ReshardStep s;
      s.kind = CollectiveKind::kAllToAll;
      s.axes = {a};
      s.bytes = bytes();
      s.what = fill_args(tr_text("Reasons", "all_to_all over %1 (dimension %2 -> %3)"),
                         {mesh.axes_string({a}), std::to_string(i), std::to_string(j)});
      cur[i] = -1;
      cur[static_cast<size_t>(j)] = a;
      s.spec_after = cur;
      steps.push_back(s);
    }
  }
  // 3. Dimensions wanted whole (or over another axis): all_gather.
  for (size_t i = 0; i < cur.size(); ++i) {
    const int a = cur[i];
    if (a < 0 || (i < to.size() && to[i] == a)) continue;
    ReshardStep s;
    s.kind = CollectiveKind::kAllGather;
    s.axes = {a};
    s.bytes = bytes() * static_cast<double>(mesh.shape[static_cast<size_t>(a)]);
    s.what = fill_args(tr_text("Reasons", "all_gather over %1 (dimension %2)"),
                       {mesh.axes_string({a}), std::to_string(i)});
    cur[i] = -1;
    s.spec_after = cur;
    steps.push_back(s);
  }
  // 4. Slices are local: no step.
  return steps;
}

Propagation propagate_einsum(const EinsumRule& rule, const std::vector<Sharded>& operands,
                             const std::vector<double>& operand_bytes, const Mesh& mesh) {
  Propagation out;
  // Candidate axis per label, from the largest operand that shards it.
  std::map<char, int> axis_of;
  std::map<char, double> weight;  // bytes of the operand that chose the label's axis
  for (size_t i = 0; i < rule.inputs.size(); ++i) {
    const std::string& labels = rule.inputs[i];
    const PartitionSpec& spec = operands[i].spec;
    for (size_t d = 0; d < labels.size(); ++d) {
      const char l = labels[d];
      const int a = d < spec.size() ? spec[d] : -1;
      if (!axis_of.count(l)) {
        axis_of[l] = -1;
        weight[l] = -1;
      }
      if (a < 0) continue;
      if (axis_of[l] >= 0 && axis_of[l] != a)
        out.notes.push_back(
            "operands disagree on a dimension ('" + mesh.axes[static_cast<size_t>(axis_of[l])] +
            "' vs '" + mesh.axes[static_cast<size_t>(a)] + "'); the smaller operand is gathered");
      if (operand_bytes[i] > weight[l]) {
        axis_of[l] = a;
        weight[l] = operand_bytes[i];
      }
    }
  }
  // One axis can split only one label: keep it where the larger operand has it.
  std::vector<std::pair<double, char>> by_weight;
  for (const auto& [l, a] : axis_of)
    if (a >= 0) by_weight.emplace_back(-weight[l], l);
  std::sort(by_weight.begin(), by_weight.end());
  std::set<int> used;
  for (const auto& [w, l] : by_weight) {
    const int a = axis_of[l];
    if (used.count(a)) {
      out.notes.push_back("axis '" + mesh.axes[static_cast<size_t>(a)] +
                          "' would split two dimensions; the smaller operand is gathered");
      axis_of[l] = -1;
    } else {
      used.insert(a);
    }
  }
  for (const std::string& labels : rule.inputs) {
    PartitionSpec spec;
    for (char l : labels) spec.push_back(axis_of[l]);
    out.inputs.push_back(spec);
  }
  for (char l : rule.output) out.output.spec.push_back(axis_of[l]);
  for (const auto& [l, a] : axis_of)
    if (a >= 0 && rule.output.find(l) == std::string::npos) out.output.partial.push_back(a);
  std::sort(out.output.partial.begin(), out.output.partial.end());
  return out;
}

}  // namespace brigade::cost
