// The scenario's explicit graph, `model.graph: {tensors, ops}`: tensors
// with their shapes, ops with their inputs and outputs, names resolved in
// any order and parameters inferred. Read apart from the rest of the
// scenario (core/scenario.cpp calls read_graph_spec).
#include "core/scenario_graph.hpp"

#include <set>
#include <string>
#include <vector>

#include "core/scenario_model.hpp"
#include "core/text.hpp"

namespace brigade {
namespace {

using yamlio::Bound;
using yamlio::Cursor;
using Limits = ScenarioLimits;
constexpr std::int64_t kMaxDim = ScenarioLimits::kMaxDimension;

// Op spellings of the `op:` key: the kind, and the function for elementwise
// and loss ops written by their function's name.
struct OpSpelling {
  const char* name;
  OpKind kind;
  const char* fn;
};
constexpr OpSpelling kOpSpellings[] = {
    {"matmul", OpKind::kMatmul, ""},        {"elementwise", OpKind::kElementwise, ""},
    {"relu", OpKind::kElementwise, "relu"}, {"gelu", OpKind::kElementwise, "gelu"},
    {"tanh", OpKind::kElementwise, "tanh"}, {"sigmoid", OpKind::kElementwise, "sigmoid"},
    {"silu", OpKind::kElementwise, "silu"}, {"exp", OpKind::kElementwise, "exp"},
    {"add", OpKind::kElementwise, "add"},   {"sub", OpKind::kElementwise, "sub"},
    {"mul", OpKind::kElementwise, "mul"},   {"div", OpKind::kElementwise, "div"},
    {"softmax", OpKind::kSoftmax, ""},      {"layernorm", OpKind::kLayerNorm, ""},
    {"embedding", OpKind::kEmbedding, ""},  {"loss", OpKind::kLoss, ""},
    {"mse", OpKind::kLoss, "mse"},          {"cross_entropy", OpKind::kLoss, "cross_entropy"},
    {"custom", OpKind::kCustom, ""},
};

// A tensor's shape: [8, 512] or, in the list form, [8, 512, f32].
Status read_shape(const Cursor& c, bool dtype_last, TensorSpec* t) {
  BRIGADE_RETURN_IF_ERROR(
      c.expect_list(dtype_last ? "a shape with an optional dtype, such as [8, 512, f32]"
                               : "a shape, such as [8, 512]"));
  const std::vector<Cursor> items = c.quiet().items();
  const bool has_dtype =
      dtype_last && !items.empty() && items.back().is_scalar() && !items.back().as_int().is_ok();
  const size_t rank = items.size() - (has_dtype ? 1 : 0);
  if (rank > static_cast<size_t>(Limits::kMaxRank))
    return c.error(over_limit(static_cast<std::int64_t>(rank), Limits::kMaxRank, "dimensions"));
  for (size_t i = 0; i < items.size(); ++i) {
    const Cursor& it = items[i];
    if (dtype_last && i + 1 == items.size() && it.is_scalar() && !it.as_int().is_ok()) {
      BRIGADE_ASSIGN_OR_RETURN(t->dtype, read_dtype(it));
      break;
    }
    BRIGADE_ASSIGN_OR_RETURN(const std::int64_t d, it.as_int(1, kMaxDim));
    t->shape.push_back(d);
  }
  return Status::ok();
}

Status read_op_kind(const Cursor& c, Op* op) {
  if (c.is_scalar()) {
    const std::string_view text = c.text_view();
    for (const OpSpelling& s : kOpSpellings) {
      if (text == s.name) {
        op->kind = s.kind;
        op->fn = s.fn;
        return Status::ok();
      }
    }
  }
  std::vector<std::string> names;
  for (const OpSpelling& s : kOpSpellings) names.emplace_back(s.name);
  std::string msg = "found op " + c.found() + "; expected one of " + yamlio::join_list(names);
  if (c.is_scalar())
    if (auto m = closest_match_in(c.text(), names)) msg += " (did you mean '" + *m + "'?)";
  return c.error(msg);
}

// `x` or `[x, y]`: names as cursors (for positions), into *out.
Status name_list(const Cursor& c, std::string_view what, std::vector<Cursor>* out) {
  out->clear();
  if (c.is_scalar()) {
    out->push_back(c);
  } else if (c.is_list()) {
    BRIGADE_RETURN_IF_ERROR(c.for_each_item([&](std::size_t, const Cursor& i) {
      out->push_back(i);
      return Status::ok();
    }));
  } else {
    return c.error("found " + c.found() + "; expected " + std::string(what));
  }
  for (const Cursor& i : *out) BRIGADE_RETURN_IF_ERROR(i.check_name());
  return Status::ok();
}

Status read_graph_body(const Cursor& c, Model& g) {
  BRIGADE_RETURN_IF_ERROR(c.expect_map("a graph {tensors: {...}, ops: [...]}"));
  BRIGADE_RETURN_IF_ERROR(c.check_keys({"tensors", "ops"}));
  BRIGADE_RETURN_IF_ERROR(c.require("ops", "a list of ops [{name, op, in, out}]"));
  std::set<std::string> param_given;
  if (c.has("tensors")) {
    const Cursor ts = c.get("tensors");
    BRIGADE_RETURN_IF_ERROR(ts.expect_map("tensors by name, such as {x: [8, 512, f32]}"));
    g.tensors.reserve(ts.size());
    const Status tensors_read =
        ts.quiet().for_each_entry([&](const Cursor& k, const Cursor& v) -> Status {
          TensorSpec t;
          BRIGADE_ASSIGN_OR_RETURN(t.name, k.as_name());
          t.pos = k.pos();
          if (v.is_map()) {
            BRIGADE_RETURN_IF_ERROR(v.check_keys({"shape", "dtype", "param"}));
            BRIGADE_RETURN_IF_ERROR(v.require("shape", "the tensor's shape, such as [8, 512]"));
            BRIGADE_RETURN_IF_ERROR(read_shape(v.get("shape"), false, &t));
            if (v.has("dtype")) {
              BRIGADE_ASSIGN_OR_RETURN(t.dtype, read_dtype(v.get("dtype")));
            }
            if (v.has("param")) {
              BRIGADE_ASSIGN_OR_RETURN(t.is_parameter, v.get("param").as_bool());
              param_given.insert(t.name);
            }
          } else if (v.is_list()) {
            BRIGADE_RETURN_IF_ERROR(read_shape(v, true, &t));
          } else {
            return v.error(
                "found " + v.found() +
                "; expected a tensor: [8, 512, f32] or {shape: [8, 512], dtype: f32, param: true}");
          }
          g.tensors.push_back(std::move(t));
          return Status::ok();
        });
    if (!tensors_read.is_ok()) return tensors_read;
  }
  const Cursor ops = c.get("ops");
  BRIGADE_RETURN_IF_ERROR(ops.expect_list("a list of ops [{name, op, in, out}]"));
  // Quiet: a graph's ops keep their own positions (Op::pos), and a million
  // of them would otherwise fill the scenario's position table.
  // Items one at a time: a million cursors held at once cost more than
  // the graph itself (issue 20, item 3).
  const size_t n_ops = ops.size();
  if (n_ops == 0) return ops.error("found an empty list; expected at least one op");
  g.reserve(g.tensors.size() + n_ops, n_ops);
  // Pass 1: the ops and their outputs (an output may be named without being
  // declared), and the inputs already known; an input named before its
  // producer waits for pass 2.
  struct Pending {
    size_t op, slot;
    Cursor name;
  };
  std::vector<Pending> pending;
  std::vector<int> producer(g.tensors.size(), -1);
  std::vector<Cursor> ins, outs;  // one op's, kept for their capacity
  const Status ops_read = ops.quiet().for_each_item([&](size_t i, const Cursor& o) -> Status {
    BRIGADE_RETURN_IF_ERROR(o.expect_map("an op {name, op, in, out, fn, flops, bytes}"));
    BRIGADE_RETURN_IF_ERROR(o.check_keys({"name", "op", "in", "out", "fn", "flops", "bytes"}));
    Op op;
    op.pos = o.pos();
    if (o.has("name")) {
      BRIGADE_ASSIGN_OR_RETURN(op.name, o.get("name").as_name());
    } else {
      op.name = "op" + std::to_string(i);
    }
    if (g.find_op(op.name) >= 0)
      return o.get("name").error("found op name '" + op.name +
                                 "' a second time; expected unique op names");
    BRIGADE_RETURN_IF_ERROR(o.require("op", "the op's kind, such as matmul or relu"));
    BRIGADE_RETURN_IF_ERROR(read_op_kind(o.get("op"), &op));
    if (o.has("fn")) {
      const Cursor fn = o.get("fn");
      if (!(op.kind == OpKind::kElementwise || op.kind == OpKind::kLoss) || !op.fn.empty())
        return o.key_of("fn").error("found 'fn' with op '" + o.get("op").text() +
                                    "'; expected fn only with op elementwise or loss");
      BRIGADE_ASSIGN_OR_RETURN(op.fn, fn.as_name());
    } else if ((op.kind == OpKind::kElementwise || op.kind == OpKind::kLoss) && op.fn.empty()) {
      return o.key_of("op").error("found op '" + o.get("op").text() +
                                  "' without 'fn'; expected fn: the function, such as relu or mse");
    }
    BRIGADE_ASSIGN_OR_RETURN(op.flops,
                             o.get_quantity("flops", -1, Dimension::kFlops, Bound::kNonNegative));
    BRIGADE_ASSIGN_OR_RETURN(op.bytes,
                             o.get_quantity("bytes", -1, Dimension::kBytes, Bound::kNonNegative));
    BRIGADE_RETURN_IF_ERROR(o.require("in", "the op's input tensors, such as [x, w1]"));
    BRIGADE_RETURN_IF_ERROR(name_list(o.get("in"), "input tensor names", &ins));
    BRIGADE_RETURN_IF_ERROR(o.require("out", "the op's output tensor, such as h"));
    BRIGADE_RETURN_IF_ERROR(name_list(o.get("out"), "output tensor names", &outs));
    if (outs.empty())
      return o.get("out").error("found an empty list; expected at least one output tensor");
    for (const Cursor& out : outs) {
      const std::string_view name = out.text_view();
      int t = g.find_tensor(name);
      if (t < 0) {
        TensorSpec ts;
        ts.name = std::string(name);
        ts.pos = out.pos();
        ts.shape_given = false;
        g.tensors.push_back(std::move(ts));
        producer.push_back(-1);
        t = static_cast<int>(g.tensors.size()) - 1;
      }
      const size_t ti = static_cast<size_t>(t);
      if (producer[ti] >= 0)
        return out.error("found tensor '" + std::string(name) + "' as an output of op '" + op.name +
                         "'; expected each tensor to be produced by one op (op '" +
                         g.ops[static_cast<size_t>(producer[ti])].name + "' produces it)");
      if (g.tensors[ti].is_parameter)
        return out.error("found parameter '" + std::string(name) + "' as an output of op '" +
                         op.name + "'; expected parameters to be graph inputs");
      producer[ti] = static_cast<int>(i);
      op.outputs.push_back(t);
    }
    for (const Cursor& in : ins) {
      const int t = g.find_tensor(in.text_view());
      if (t < 0) pending.push_back(Pending{i, op.inputs.size(), in});
      op.inputs.push_back(t);
    }
    g.ops.push_back(std::move(op));
    return Status::ok();
  });
  if (!ops_read.is_ok()) return ops_read;
  // Pass 2: inputs name declared tensors or outputs of ops (in any order).
  for (const Pending& p : pending) {
    const std::string name = p.name.text();
    const int t = g.find_tensor(name);
    if (t < 0) {
      std::vector<std::string> names;
      for (const TensorSpec& x : g.tensors) names.push_back(x.name);
      std::string msg = "found tensor '" + name + "' as an input of op '" + g.ops[p.op].name +
                        "'; expected a declared tensor or an op's output";
      if (auto m = closest_match_in(name, names)) msg += " (did you mean '" + *m + "'?)";
      return p.name.error(msg);
    }
    g.ops[p.op].inputs[p.slot] = t;
  }
  // Parameters: `param:` when given; otherwise a graph input (produced by
  // no op) read as a weight: the right operand of a matmul, the table of an
  // embedding, the scale and shift of a layernorm.
  for (const Op& op : g.ops) {
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const bool weight_slot = (op.kind == OpKind::kMatmul && k == 1) ||
                               (op.kind == OpKind::kEmbedding && k == 1) ||
                               (op.kind == OpKind::kLayerNorm && k >= 1);
      const size_t t = static_cast<size_t>(op.inputs[k]);
      if (weight_slot && producer[t] < 0 && param_given.count(g.tensors[t].name) == 0)
        g.tensors[t].is_parameter = true;
    }
  }
  return g.infer();
}

}  // namespace

Status read_graph_spec(const yamlio::Cursor& c, Model* graph) {
  return read_graph_body(c, *graph);
}

}  // namespace brigade
