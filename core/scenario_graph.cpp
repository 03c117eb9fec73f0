// The scenario's explicit graph, `model.graph: {tensors, ops}`: tensors
// with their shapes, ops with their inputs and outputs, names resolved in
// any order and parameters inferred. Read apart from the rest of the
// scenario (core/scenario.cpp calls read_graph_spec).
#include "core/scenario_graph.hpp"

#include <set>
#include <string>
#include <vector>

#include "core/json_tree.hpp"
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

// Pass 1's bookkeeping, shared by the two readings of the ops below.
struct OpsRead {
  Model& g;
  std::vector<int> producer;  // per tensor: the op that writes it, or -1
  // An input named before its producer, resolved by pass 2: the op, the
  // input's slot, its name (a view into the document's tree).
  struct Pending {
    size_t op, slot;
    std::string_view name;
  };
  std::vector<Pending> pending;
};

// Why an op's outputs could not be named: the output's index and the fault,
// for the caller to word with positions.
struct OutputFault {
  enum Kind { kNone, kProducedTwice, kParameter } kind = kNone;
  size_t slot = 0;
  int tensor = -1;
};

// One name of an op's `in` or `out`: its text (a view into the document's
// tree) and where it is written.
struct NameAt {
  std::string_view text;
  int line = 0, column = 0;
};

// Op i's outputs (an output may be named without being declared) and its
// inputs already known; an input named before its producer waits for pass
// 2. Appends the op unless an output is at fault.
OutputFault add_op(OpsRead& r, size_t i, Op& op, const std::vector<NameAt>& outs,
                   const std::vector<NameAt>& ins, const std::string& file) {
  Model& g = r.g;
  for (size_t k = 0; k < outs.size(); ++k) {
    int t = g.find_tensor(outs[k].text);
    if (t < 0) {
      TensorSpec ts;
      ts.name = std::string(outs[k].text);
      ts.pos = SourcePos{file, outs[k].line, outs[k].column};
      ts.shape_given = false;
      g.tensors.push_back(std::move(ts));
      r.producer.push_back(-1);
      t = static_cast<int>(g.tensors.size()) - 1;
    }
    const size_t ti = static_cast<size_t>(t);
    if (r.producer[ti] >= 0) return {OutputFault::kProducedTwice, k, t};
    if (g.tensors[ti].is_parameter) return {OutputFault::kParameter, k, t};
    r.producer[ti] = static_cast<int>(i);
    op.outputs.push_back(t);
  }
  for (const NameAt& in : ins) {
    const int t = g.find_tensor(in.text);
    if (t < 0) r.pending.push_back(OpsRead::Pending{i, op.inputs.size(), in.text});
    op.inputs.push_back(t);
  }
  g.ops.push_back(std::move(op));
  return {};
}

// A tensor name list (`x` or `[x, y]`) straight from the JSON tree: false
// for anything name_list would refuse.
bool json_names(const json_tree::Tree& tree, std::uint32_t index, std::vector<NameAt>* out) {
  out->clear();
  auto add = [&](const json_tree::Value& v) {
    if (v.kind != json_tree::Kind::kScalar || !yamlio::is_clean_name(tree.text(v))) return false;
    out->push_back(NameAt{tree.text(v), static_cast<int>(v.line), static_cast<int>(v.column)});
    return true;
  };
  const json_tree::Value& v = tree.at(index);
  if (v.kind == json_tree::Kind::kList) {
    for (std::uint32_t k = 0; k < v.size; ++k)
      if (!add(tree.at(tree.child(v, k)))) return false;
    return true;
  }
  return add(v);
}

// The ops of a JSON graph read straight from the compact tree, without a
// cursor per op and per key: a generator's million-op graph spent most of
// its read making cursors and their paths (issue 20, item 3). Reads only
// ops written as {name, op, in, out} with every check passing; at anything
// else (another key, a missing name, a fault of any kind) it returns false,
// the caller undoes what it appended and reads the list again with cursors,
// whose messages are then the only ones a user sees. Same model either way
// (ScenarioGraph.FastJsonReadEqualsTheCursorRead).
bool read_ops_from_json(const Cursor& ops, OpsRead& r) {
  const auto [tree, list_index] = ops.json_value();
  if (tree == nullptr) return false;
  const json_tree::Value& list = tree->at(list_index);
  if (list.kind != json_tree::Kind::kList) return false;
  Model& g = r.g;
  std::vector<NameAt> ins, outs;
  for (std::uint32_t i = 0; i < list.size; ++i) {
    const json_tree::Value& o = tree->at(tree->child(list, i));
    if (o.kind != json_tree::Kind::kMap) return false;
    // name, op, in, out: each once, nothing else.
    std::uint32_t at[4] = {0, 0, 0, 0};
    unsigned seen = 0;
    for (std::uint32_t k = 0; k + 1 < o.size; k += 2) {
      const std::uint32_t ki = tree->child(o, k);
      const json_tree::Value& key = tree->at(ki);
      if (key.kind != json_tree::Kind::kScalar) return false;
      const std::string_view text = tree->text(key);
      const int slot = text == "name" ? 0 : text == "op" ? 1 : text == "in" ? 2 : text == "out" ? 3 : -1;
      if (slot < 0 || (seen & (1u << slot))) return false;
      seen |= 1u << slot;
      at[slot] = ki + 1;
    }
    if (seen != 0xF) return false;
    const json_tree::Value& name = tree->at(at[0]);
    if (name.kind != json_tree::Kind::kScalar || !yamlio::is_clean_name(tree->text(name)))
      return false;
    if (g.find_op(tree->text(name)) >= 0) return false;
    const json_tree::Value& kind = tree->at(at[1]);
    if (kind.kind != json_tree::Kind::kScalar) return false;
    const std::string_view kind_text = tree->text(kind);
    const OpSpelling* spelling = nullptr;
    for (const OpSpelling& sp : kOpSpellings)
      if (kind_text == sp.name) spelling = &sp;
    if (spelling == nullptr) return false;
    if ((spelling->kind == OpKind::kElementwise || spelling->kind == OpKind::kLoss) &&
        *spelling->fn == '\0')
      return false;  // fn: is required there
    if (!json_names(*tree, at[2], &ins) || !json_names(*tree, at[3], &outs) || outs.empty())
      return false;
    Op op;
    op.name = std::string(tree->text(name));
    op.kind = spelling->kind;
    op.fn = spelling->fn;
    op.pos = SourcePos{ops.file(), static_cast<int>(o.line), static_cast<int>(o.column)};
    if (add_op(r, i, op, outs, ins, ops.file()).kind != OutputFault::kNone) return false;
  }
  return true;
}

// The ops read with cursors: every YAML graph, and a JSON one the fast
// path declined. Every message about an op comes from here.
Status read_ops_with_cursors(const Cursor& ops, OpsRead& r) {
  Model& g = r.g;
  std::vector<Cursor> ins, outs;  // one op's, kept for their capacity
  std::vector<NameAt> in_names, out_names;
  auto names_at = [](const std::vector<Cursor>& cs, std::vector<NameAt>* out) {
    out->clear();
    for (const Cursor& x : cs) {
      const SourcePos p = x.pos();
      out->push_back(NameAt{x.text_view(), p.line, p.column});
    }
  };
  return ops.quiet().for_each_item([&](size_t i, const Cursor& o) -> Status {
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
    names_at(ins, &in_names);
    names_at(outs, &out_names);
    const std::string op_name = op.name;
    const OutputFault f = add_op(r, i, op, out_names, in_names, ops.file());
    if (f.kind == OutputFault::kNone) return Status::ok();
    const std::string name(out_names[f.slot].text);
    const Cursor& out = outs[f.slot];
    if (f.kind == OutputFault::kProducedTwice)
      return out.error("found tensor '" + name + "' as an output of op '" + op_name +
                       "'; expected each tensor to be produced by one op (op '" +
                       g.ops[static_cast<size_t>(r.producer[static_cast<size_t>(f.tensor)])].name +
                       "' produces it)");
    return out.error("found parameter '" + name + "' as an output of op '" + op_name +
                     "'; expected parameters to be graph inputs");
  });
}

// The cursor of op `op`'s input `slot`, for pass 2's message (found again:
// only a graph with an error pays for it).
Cursor input_cursor(const Cursor& ops, size_t op, size_t slot) {
  Cursor found = ops;
  (void)ops.quiet().for_each_item([&](size_t i, const Cursor& o) -> Status {
    if (i < op) return Status::ok();
    const Cursor in = o.get("in");
    found = in;
    if (in.is_list())
      (void)in.for_each_item([&](size_t k, const Cursor& x) -> Status {
        if (k == slot) found = x;
        return Status::ok();
      });
    return Status::error("found");  // stops the walk
  });
  return found;
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
  // Pass 1: the ops and their outputs, and the inputs already known; an
  // input named before its producer waits for pass 2. JSON first straight
  // from its tree; when that declines, the cursors read it again from the
  // state before it (the tensors declared, no op).
  const size_t declared = g.tensors.size();
  OpsRead r{g, std::vector<int>(declared, -1), {}};
  if (!read_ops_from_json(ops, r)) {
    g.ops.clear();
    g.tensors.resize(declared);
    g.reindex();
    r.producer.assign(declared, -1);
    r.pending.clear();
    BRIGADE_RETURN_IF_ERROR(read_ops_with_cursors(ops, r));
  }
  // Pass 2: inputs name declared tensors or outputs of ops (in any order).
  for (const OpsRead::Pending& p : r.pending) {
    const int t = g.find_tensor(p.name);
    if (t < 0) {
      std::vector<std::string> names;
      for (const TensorSpec& x : g.tensors) names.push_back(x.name);
      const std::string name(p.name);
      std::string msg = "found tensor '" + name + "' as an input of op '" + g.ops[p.op].name +
                        "'; expected a declared tensor or an op's output";
      if (auto m = closest_match_in(name, names)) msg += " (did you mean '" + *m + "'?)";
      return input_cursor(ops, p.op, p.slot).error(msg);
    }
    g.ops[p.op].inputs[p.slot] = t;
  }
  const std::vector<int>& producer = r.producer;
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
