#include "gui/model/teach_scene.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "core/profile.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/plan.hpp"
#include "gui/model/plan_prose.hpp"

namespace brigade::gui {

std::string shape_text(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

namespace {

double elements(const Shape& s) {
  double n = 1;
  for (std::int64_t d : s) n *= static_cast<double>(d);
  return n;
}

double tensor_bytes(const planner::TensorView& t) {
  return elements(t.global_shape) * dtype_bytes(t.dtype);
}

const planner::DeviceView* view_of(const planner::Plan& plan, int device) {
  if (device < 0 || device >= static_cast<int>(plan.view_of_device.size())) return nullptr;
  const int v = plan.view_of_device[static_cast<size_t>(device)];
  return v >= 0 && v < static_cast<int>(plan.views.size()) ? &plan.views[static_cast<size_t>(v)]
                                                           : nullptr;
}

// The first device the plan uses (its views are the teaching's tensors).
int first_used_device(const planner::Plan& plan) {
  for (size_t d = 0; d < plan.view_of_device.size(); ++d)
    if (plan.view_of_device[d] >= 0) return static_cast<int>(d);
  return 0;
}

// A tensor of `view`: the first whose role starts with `role` and whose
// rank is at least `min_rank`.
const planner::TensorView* find_tensor(const planner::DeviceView* view, const std::string& role,
                                       size_t min_rank) {
  if (!view) return nullptr;
  for (const planner::TensorView& t : view->tensors)
    if (t.role.rfind(role, 0) == 0 && t.global_shape.size() >= min_rank) return &t;
  return nullptr;
}

// The split factor of axis 0 in the plan (global / local), 1 if whole.
int split_of(const planner::TensorView* t) {
  if (!t || t->global_shape.empty() || t->local_shape.empty() || t->local_shape[0] <= 0) return 1;
  return static_cast<int>(std::max<std::int64_t>(1, t->global_shape[0] / t->local_shape[0]));
}

// Rows [k B/N, (k+1) B/N) of axis 0, as integers.
std::int64_t row_at(std::int64_t rows, int k, int n) {
  return rows * k / n;
}

Shape with_rows(Shape s, std::int64_t rows) {
  if (!s.empty()) s[0] = rows;
  return s;
}

// The layout of `global` split by rows over n chefs (device k holds block k).
ShardLayout row_split(const std::string& name, const Shape& global, int n, bool partial = false) {
  ShardLayout l{name, global, {}, {}};
  const std::int64_t rows = global.empty() ? 1 : global[0];
  for (int k = 0; k < n; ++k) {
    const std::int64_t r0 = row_at(rows, k, n), r1 = row_at(rows, k + 1, n);
    l.local_shapes.push_back(with_rows(global, r1 - r0));
    l.blocks.push_back(
        {{static_cast<double>(k) / n, static_cast<double>(k + 1) / n, 0, 1, k, partial}});
  }
  return l;
}

// Every chef holds the whole: each of the n blocks (gathered) or one summed block.
ShardLayout whole_on_each(const std::string& name, const Shape& global, int n, bool gathered,
                          bool partial) {
  ShardLayout l{name, global, {}, {}};
  for (int k = 0; k < n; ++k) {
    l.local_shapes.push_back(global);
    std::vector<ShardBlock> blocks;
    if (gathered)
      for (int j = 0; j < n; ++j)
        blocks.push_back({static_cast<double>(j) / n, static_cast<double>(j + 1) / n, 0, 1, j});
    else
      blocks.push_back({0, 1, 0, 1, partial ? k : -1, partial});
    l.blocks.push_back(std::move(blocks));
  }
  return l;
}

// The whole tensor on chef 0 only (before it is split).
ShardLayout whole_on_first(const std::string& name, const Shape& global, int n) {
  ShardLayout l{name, global, {}, {}};
  for (int k = 0; k < n; ++k) {
    l.local_shapes.push_back(k == 0 ? global : Shape{});
    l.blocks.push_back(k == 0 ? std::vector<ShardBlock>{{0, 1, 0, 1, -1}}
                              : std::vector<ShardBlock>{});
  }
  return l;
}

// The group of a collective of the Program on `device` with `ranks` ranks
// (the plan's own), else devices device, device+1, ...
std::vector<int> group_of(const Program& program, int device, int ranks, int total_devices) {
  for (const Collective& c : program.collectives()) {
    if (static_cast<int>(c.group.size()) != ranks) continue;
    if (std::find(c.group.begin(), c.group.end(), device) != c.group.end())
      return {c.group.begin(), c.group.end()};
  }
  std::vector<int> g;
  for (int k = 0; k < ranks && device + k < total_devices; ++k) g.push_back(device + k);
  return g;
}

struct CollectiveTime {
  bool ok = false;
  double seconds = 0;
  cost::AlphaBetaSplit split;
};

CollectiveTime ring_time(const Scenario& s, CollectiveKind kind, const std::vector<int>& group,
                         double bytes) {
  CollectiveTime t;
  if (group.size() < 2) return t;
  auto q = cost::collective_query_on(s.topology, s.profile, kind, CollectiveAlgorithm::kRing, group,
                                     bytes);
  if (!q.is_ok()) return t;
  auto c = cost::collective_cost(*q);
  if (!c.is_ok()) return t;
  t.ok = true;
  t.seconds = c->seconds;
  t.split = cost::split_alpha_beta(*q, c->seconds);
  return t;
}

void fill_chefs(TeachScene& scene, const Scenario& s, const planner::Plan& plan,
                const cost::PlanEstimate* estimate) {
  const Topology& topo = s.topology;
  const int shown = std::min(topo.num_devices(), kMaxChefs);
  scene.hidden_chefs = topo.num_devices() - shown;
  for (int d = 0; d < shown; ++d) {
    const Device& dev = topo.device(d);
    TeachChef c;
    c.device = d;
    c.name = dev.name;
    c.node = dev.node;
    c.capacity_bytes = dev.memory_bytes;
    if (d < static_cast<int>(plan.device_role.size()))
      c.role = plan.device_role[static_cast<size_t>(d)];
    const planner::DeviceView* v = view_of(plan, d);
    c.used = v != nullptr;
    if (v)
      for (const planner::TensorView& t : v->tensors) {
        if (c.holds.size() >= 4) break;
        c.holds.push_back(t.name + " " + shape_text(t.local_shape));
      }
    if (estimate)
      for (const cost::DeviceMemoryEstimate& m : estimate->memory)
        if (m.device == d) {
          c.peak_bytes = m.peak_bytes;
          c.parts_bytes = {m.params_bytes, m.grads_bytes, m.optimizer_bytes, m.activations_bytes,
                           m.other_bytes};
          if (m.capacity_bytes > 0) c.capacity_bytes = m.capacity_bytes;
        }
    scene.chefs.push_back(std::move(c));
  }
  // Ring neighbours: i to i+1, and the last back to the first when there are three or more.
  const int links = shown > 2 ? shown : shown - 1;
  for (int i = 0; i < links; ++i) {
    const int j = (i + 1) % shown;
    const Route& r = topo.route(i, j);
    scene.runners.push_back({i, j, route_alpha_seconds(r, s.profile),
                             route_bandwidth_bytes_per_second(r, topo, s.profile),
                             std::string(link_class_name(r.slowest_class))});
  }
}

void fill_transfer(TeachScene& scene, const Scenario& s, const planner::Plan& plan) {
  TeachTransfer& t = scene.transfer;
  const Topology& topo = s.topology;
  const Program& program = plan.program;
  // The plan's largest collective (closed form's communication list).
  const TeachCommunication* largest = nullptr;
  for (const TeachCommunication& c : scene.communication)
    if (c.kind != "p2p" && c.group_size >= 2 && (!largest || c.bytes > largest->bytes))
      largest = &c;
  // 1. a transfer of the Program.
  for (const Task& task : program.tasks())
    if (task.kind == TaskKind::kTransfer && task.peer >= 0 && task.peer != task.device) {
      t.source = TransferSource::kPlanTransfer;
      t.from = task.device;
      t.to = task.peer;
      t.bytes = task.bytes;
      t.tensor = task.name >= 0 ? program.names()[static_cast<size_t>(task.name)] : std::string();
      // The Program names a transfer by what it does ("transfer a", "send activations"):
      // the tensor is what follows the verb.
      for (const char* verb : {"transfer ", "send "})
        if (t.tensor.rfind(verb, 0) == 0) t.tensor.erase(0, std::string_view(verb).size());
      break;
    }
  const int first = first_used_device(plan);
  std::vector<int> group;
  if (largest) {
    const auto kind = parse_collective_kind(largest->kind);
    group = group_of(program, first, largest->group_size, topo.num_devices());
    const double per_call = largest->count > 0 ? largest->bytes / largest->count : largest->bytes;
    if (kind && group.size() >= 2) {
      const CollectiveTime ct = ring_time(s, *kind, group, per_call);
      if (ct.ok) {
        t.has_collective = true;
        t.collective_kind = largest->kind;
        t.algorithm = "ring";
        t.ranks = static_cast<int>(group.size());
        t.collective_bytes = per_call;
        t.alpha_term_seconds = ct.split.alpha_seconds;
        t.beta_term_seconds = ct.split.beta_seconds;
        t.alpha_messages = ct.split.messages;
      }
      if (t.source == TransferSource::kNone) {
        // 2. one step of the ring: each rank hands its neighbour M/N.
        t.source = TransferSource::kRingStep;
        t.tensor = largest->kind;
        t.from = group[0];
        t.to = group[1];
        t.bytes = per_call / static_cast<double>(group.size());
      }
    }
  }
  if (t.source == TransferSource::kNone && topo.num_devices() >= 2) {
    // 3. nothing moves in this plan: device 0's largest tensor, were it sent to device 1.
    const planner::DeviceView* v = view_of(plan, first);
    const planner::TensorView* big = nullptr;
    if (v)
      for (const planner::TensorView& x : v->tensors)
        if (!big || tensor_bytes(x) > tensor_bytes(*big)) big = &x;
    t.source = TransferSource::kWhatIf;
    t.from = first;
    t.to = first + 1 < topo.num_devices() ? first + 1 : 0;
    t.tensor = big ? big->name : std::string();
    t.bytes = big ? elements(big->local_shape) * dtype_bytes(big->dtype) : 0;
  }
  if (t.source == TransferSource::kNone) return;
  t.from_name = topo.device(t.from).name;
  t.to_name = topo.device(t.to).name;
  const Route& r = topo.route(t.from, t.to);
  t.alpha_seconds = route_alpha_seconds(r, s.profile);
  t.bandwidth_bytes_per_second = route_bandwidth_bytes_per_second(r, topo, s.profile);
  // Point to point: T = alpha + M/B (costmodel/collectives.hpp, p2p_seconds).
  t.alpha_part_seconds = t.alpha_seconds;
  t.beta_part_seconds = cost::p2p_seconds(t.bytes, {0, t.bandwidth_bytes_per_second, 0});
}

// A tensor whole on the first chef, then cut by rows over n chefs; in the
// plan when the planner splits `t` that way.
TeachTransform split_by_rows(TransformKind kind, const planner::TensorView* t,
                             const std::string& name, const Shape& shape, int n) {
  TeachTransform r;
  r.kind = kind;
  r.before = whole_on_first(name, shape, n);
  r.after = row_split(name, shape, n);
  r.in_plan = t && split_of(t) == n && n > 1;
  return r;
}

void fill_transforms(TeachScene& scene, const Scenario& s, const planner::Plan& plan) {
  const int first = first_used_device(plan);
  const planner::DeviceView* v = view_of(plan, first);
  const planner::TensorView* x = find_tensor(v, "input", 1);
  if (!x) x = find_tensor(v, "activation", 1);
  if (!x) x = find_tensor(v, "", 1);
  const planner::TensorView* w = find_tensor(v, "parameter", 2);
  const Shape xs = x ? x->global_shape : Shape{8, 16};
  const std::string xname = x ? x->name : "x";
  const Shape ws =
      w ? w->global_shape : Shape{xs.size() > 1 ? xs[1] : xs[0], xs.size() > 1 ? xs[1] : 1};
  const std::string wname = w ? w->name : "w";
  const DType dtype = x ? x->dtype : DType::kF32;
  // N: the plan's split of x or W over chefs, else the chefs it uses.
  int n = std::max(split_of(x), split_of(w));
  if (n <= 1) n = std::max(1, scene.used_devices);
  n = std::min({n, s.topology.num_devices(), kMaxChefs});
  n = std::max(n, 1);
  const std::vector<int> group = group_of(plan.program, first, n, s.topology.num_devices());
  // y = x W: (B, K) with B = x's rows and K = W's columns.
  const Shape ys = {xs[0], ws.size() > 1 ? ws[1] : ws[0]};
  const double x_bytes = elements(xs) * dtype_bytes(dtype);
  const double y_bytes = elements(ys) * dtype_bytes(dtype);

  TeachTransform& split = scene.transforms[0];
  split = split_by_rows(TransformKind::kBatchSplit, x, xname, xs, n);

  TeachTransform& gather = scene.transforms[1];
  gather.kind = TransformKind::kAllGather;
  gather.before = split.after;
  gather.after = whole_on_each(xname, xs, n, /*gathered=*/true, false);
  gather.bytes = x_bytes;
  const CollectiveTime g = ring_time(s, CollectiveKind::kAllGather, group, x_bytes);
  gather.seconds = g.seconds;

  scene.transforms[2] = split_by_rows(TransformKind::kRowSplit, w, wname, ws, n);

  TeachTransform& scatter = scene.transforms[3];
  scatter.kind = TransformKind::kReduceScatter;
  scatter.before = whole_on_each("y", ys, n, /*gathered=*/false, /*partial=*/true);
  scatter.after = row_split("y", ys, n);
  for (auto& blocks : scatter.after.blocks) blocks[0].origin = -1;  // rows of the sum: everyone's
  scatter.bytes = y_bytes;
  const CollectiveTime r = ring_time(s, CollectiveKind::kReduceScatter, group, y_bytes);
  scatter.seconds = r.seconds;
}

void fill_output(TeachScene& scene, const planner::Plan& plan) {
  const planner::DeviceView* v = view_of(plan, first_used_device(plan));
  const planner::TensorView* y = nullptr;
  if (v)
    for (const planner::TensorView& t : v->tensors)
      if (t.role.rfind("activation", 0) == 0 && !t.global_shape.empty()) y = &t;  // the last
  if (!y) y = find_tensor(v, "", 1);
  TeachOutput& o = scene.output;
  const int n =
      std::max(1, std::min(scene.transforms[0].after.blocks.empty()
                               ? 1
                               : static_cast<int>(scene.transforms[0].after.blocks.size()),
                           kMaxChefs));
  o.tensor = y ? y->name : "y";
  o.global_shape = y ? y->global_shape : Shape{8, 16};
  const ShardLayout l = row_split(o.tensor, o.global_shape, n);
  o.local_shapes = l.local_shapes;
  o.concatenated_shape = o.global_shape;
  if (o.global_shape[0] % n == 0) {
    o.stacked_shape = {n};
    o.stacked_shape.insert(o.stacked_shape.end(), o.local_shapes[0].begin(),
                           o.local_shapes[0].end());
  }
}

void fill_pmap(TeachScene& scene, const Scenario& s, const planner::Plan& plan,
               const cost::PlanEstimate* estimate) {
  TeachPmap& p = scene.pmap;
  const TeachTransform& split = scene.transforms[0];
  p.devices = static_cast<int>(split.after.blocks.size());
  p.input = split.after.tensor;
  p.input_global = split.after.global_shape;
  p.input_local = split.after.local_shapes.empty() ? Shape{} : split.after.local_shapes[0];
  if (!p.input_global.empty() && p.input_global[0] % p.devices == 0) {
    p.input_reshaped = {p.devices};
    p.input_reshaped.insert(p.input_reshaped.end(), p.input_local.begin(), p.input_local.end());
  }
  p.training = !s.training.inference;
  const planner::DeviceView* v = view_of(plan, first_used_device(plan));
  if (const planner::TensorView* w = find_tensor(v, "parameter", 1)) {
    p.param = w->name;
    p.param_shape = w->local_shape;
  }
  p.allgather_seconds = scene.transforms[1].seconds;
  if (estimate) {
    p.compute_seconds = estimate->compute_seconds;
    p.step_seconds = estimate->step_seconds;
    for (const cost::CommunicationEstimate& c : estimate->communication)
      if (c.kind == "allreduce" && (c.purpose == "data" || p.gradient_bytes == 0)) {
        p.gradient_bytes = c.count > 0 ? c.bytes / c.count : c.bytes;
        p.allreduce_seconds = c.seconds;
      }
  }
  if (p.gradient_bytes > 0 || !v) return;
  // No gradient AllReduce in this plan: its parameters' gradients, were it trained.
  for (const planner::TensorView& t : v->tensors)
    if (t.role.rfind("parameter", 0) == 0)
      p.gradient_bytes += elements(t.local_shape) * dtype_bytes(t.dtype) * t.count;
  p.gradient_if_trained = true;
  const std::vector<int> group =
      group_of(plan.program, first_used_device(plan), p.devices, s.topology.num_devices());
  p.allreduce_seconds = ring_time(s, CollectiveKind::kAllReduce, group, p.gradient_bytes).seconds;
}

}  // namespace

void reword_teach_scene(TeachScene& scene, const PlanProse& prose) {
  scene.summary = prose.summary;
  for (TeachChef& c : scene.chefs)
    if (c.device >= 0 && static_cast<size_t>(c.device) < prose.device_role.size())
      c.role = prose.device_role[static_cast<size_t>(c.device)];
}

TeachScene build_teach_scene(const Scenario& s, const planner::Plan& plan) {
  TeachScene scene;
  scene.title = s.name;
  scene.summary = plan.summary;
  scene.total_devices = s.topology.num_devices();
  for (int v : plan.view_of_device) scene.used_devices += v >= 0 ? 1 : 0;
  std::optional<cost::PlanEstimate> estimate;
  if (auto e = cost::estimate_plan(s); e.is_ok())
    estimate = std::move(*e);
  else
    scene.notes.push_back(e.message());
  if (estimate) {
    scene.step_seconds = estimate->step_seconds;
    scene.compute_seconds = estimate->compute_seconds;
    scene.exposed_communication_seconds = estimate->exposed_communication_seconds;
    for (const cost::CommunicationEstimate& c : estimate->communication)
      scene.communication.push_back({c.kind, c.purpose, c.group_size, c.count, c.bytes, c.seconds});
  }
  const cost::PlanEstimate* e = estimate ? &*estimate : nullptr;
  fill_chefs(scene, s, plan, e);
  fill_transfer(scene, s, plan);
  fill_transforms(scene, s, plan);
  fill_output(scene, plan);
  fill_pmap(scene, s, plan, e);
  return scene;
}

}  // namespace brigade::gui
