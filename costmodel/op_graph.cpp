#include "costmodel/op_graph.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "core/profile.hpp"
#include "core/tr.hpp"
#include "costmodel/memory.hpp"

namespace brigade::cost {

int TrainingGraph::find_tensor(const std::string& name) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

constexpr const char* kPool = "abcdefgh";  // labels of batch / elementwise dimensions

std::string shape_str(const std::vector<std::int64_t>& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

double elements(const std::vector<std::int64_t>& s) {
  double n = 1;
  for (std::int64_t d : s) n *= static_cast<double>(d);
  return n;
}

Status op_error(const Op& op, const std::string& what) {
  if (op.pos.line > 0) return Status::at(op.pos, what);
  return Status::error("op '" + op.name + "': " + what);
}

// Labels of a matmul's operands and output; fills the output shape.
Status matmul_rule(const Op& op, const std::vector<std::int64_t>& a,
                   const std::vector<std::int64_t>& b, EinsumRule& rule,
                   std::vector<std::int64_t>& out) {
  if (a.empty() || b.size() < 2)
    return op_error(op, "found a matmul of " + shape_str(a) + " and " + shape_str(b) +
                            "; expected [..., m, k] x [k, n]");
  const size_t ra = a.size(), rb = b.size();
  const size_t nbatch = ra >= 2 ? ra - 2 : 0;
  if (rb - 2 > nbatch)
    return op_error(op, "found a batched matmul of " + shape_str(a) + " and " + shape_str(b) +
                            "; expected the second operand's batch dimensions to lead the first's");
  const std::int64_t k = a.back();
  if (b[rb - 2] != k)
    return op_error(op, "found a matmul of " + shape_str(a) + " and " + shape_str(b) +
                            "; expected the contracted dimensions to agree (" + std::to_string(k) +
                            " vs " + std::to_string(b[rb - 2]) + ")");
  std::string batch(kPool, nbatch);
  rule.inputs = {batch + (ra >= 2 ? "mk" : "k"), batch.substr(nbatch - (rb - 2)) + "kn"};
  rule.output = batch + (ra >= 2 ? "m" : "") + "n";
  out.assign(a.begin(), a.end() - 1);
  out.push_back(b.back());
  for (size_t i = 0; i < rb - 2; ++i)
    if (b[i] != a[nbatch - (rb - 2) + i])
      return op_error(op, "found batched matmul operands " + shape_str(a) + " and " + shape_str(b) +
                              "; expected equal batch dimensions");
  return Status::ok();
}

// Right-aligned broadcasting; labels from the pool.
Status broadcast_rule(const Op& op, const std::vector<std::vector<std::int64_t>>& ins,
                      EinsumRule& rule, std::vector<std::int64_t>& out) {
  size_t rank = 0;
  for (const auto& s : ins) rank = std::max(rank, s.size());
  if (rank > 8)
    return op_error(op, "found a tensor of rank " + std::to_string(rank) + "; expected rank <= 8");
  out.assign(rank, 1);
  const std::string labels(kPool, rank);
  rule.inputs.clear();
  for (const auto& s : ins) {
    rule.inputs.push_back(labels.substr(rank - s.size()));
    for (size_t i = 0; i < s.size(); ++i) {
      std::int64_t& o = out[rank - s.size() + i];
      if (o == 1) {
        o = s[i];
      } else if (s[i] != 1 && s[i] != o) {
        std::string all;
        for (const auto& x : ins) all += (all.empty() ? "" : " and ") + shape_str(x);
        return op_error(op, "found operands " + all + "; expected shapes that broadcast");
      }
    }
  }
  rule.output = labels;
  return Status::ok();
}

}  // namespace

OpCost op_cost(const TrainingGraph& g, const IrOp& op,
               const std::vector<std::vector<std::int64_t>>& shapes,
               double optimizer_bytes_per_param) {
  OpCost c;
  auto bytes_of = [&](int t) {
    return elements(shapes[static_cast<size_t>(t)]) *
           dtype_bytes(g.tensors[static_cast<size_t>(t)].dtype);
  };
  double in_bytes = 0;
  for (int t : op.inputs) in_bytes += bytes_of(t);
  const double out_bytes = op.output >= 0 ? bytes_of(op.output) : 0;
  switch (op.kind) {
    case IrKind::kEinsum: {
      if (op.inputs.size() == 2) {
        std::map<char, std::int64_t> size;
        for (size_t i = 0; i < 2; ++i) {
          const std::string& l = op.rule.inputs[i];
          const auto& s = shapes[static_cast<size_t>(op.inputs[i])];
          for (size_t d = 0; d < l.size(); ++d) size[l[d]] = s[d];
        }
        const std::string& a = op.rule.inputs[0];
        const std::string& b = op.rule.inputs[1];
        const std::string& o = op.rule.output;
        std::int64_t m = 1, n = 1, k = 1, batch = 1;
        for (const auto& [l, sz] : size) {
          const bool in_a = a.find(l) != std::string::npos;
          const bool in_b = b.find(l) != std::string::npos;
          const bool in_o = o.find(l) != std::string::npos;
          if (in_a && in_b && in_o)
            batch *= sz;
          else if (in_a && in_b)
            k *= sz;
          else if (in_a && in_o)
            m *= sz;
          else if (in_b && in_o)
            n *= sz;
        }
        c.compute = ComputeKind::kGemm;
        c.m = m;
        c.n = n;
        c.k = k;
        c.batch = batch;
        c.flops = gemm_flops(m, n, k, batch);
        c.bytes = gemm_bytes(m, n, k, g.tensors[static_cast<size_t>(op.output)].dtype, batch);
        return c;
      }
      c.bytes = in_bytes + out_bytes;  // a reduction
      return c;
    }
    case IrKind::kEmbedding:
      c.bytes = 2 * out_bytes + bytes_of(op.inputs[0]);  // read rows, write rows, read ids
      return c;
    case IrKind::kEmbeddingGrad:
      c.bytes = 3 * bytes_of(op.inputs[0]);  // read row gradients, read-modify-write the table rows
      return c;
    case IrKind::kCustom: {
      double frac = 1;
      if (op.output >= 0) {
        const double global = elements(g.tensors[static_cast<size_t>(op.output)].shape);
        if (global > 0) frac = elements(shapes[static_cast<size_t>(op.output)]) / global;
      }
      c.compute = ComputeKind::kFixed;
      c.flops = std::max(0.0, op.flops) * frac;
      c.bytes = op.bytes >= 0 ? op.bytes * frac : in_bytes + out_bytes;
      return c;
    }
    case IrKind::kOptimizer:
      c.bytes = optimizer_bytes_per_param * elements(shapes[static_cast<size_t>(op.param)]);
      return c;
    case IrKind::kElementwise:
    case IrKind::kRowwise:
    case IrKind::kLoss:
    case IrKind::kLossGrad:
      c.bytes = in_bytes + out_bytes;
      return c;
  }
  return c;
}

Result<TrainingGraph> make_training_graph(const Model& f, bool training, Optimizer optimizer) {
  TrainingGraph g;
  for (const TensorSpec& t : f.tensors) {
    IrTensor x;
    x.name = t.name;
    x.shape = t.shape;
    x.dtype = t.dtype;
    x.parameter = t.is_parameter;
    g.tensors.push_back(x);
  }
  // Topological order of the forward ops.
  const size_t nops = f.ops.size();
  std::vector<int> producer(f.tensors.size(), -1);
  for (size_t o = 0; o < nops; ++o)
    for (int t : f.ops[o].outputs) {
      if (t < 0 || t >= static_cast<int>(f.tensors.size()))
        return op_error(f.ops[o], "names a tensor that does not exist");
      producer[static_cast<size_t>(t)] = static_cast<int>(o);
    }
  std::vector<int> order, indeg(nops, 0);
  std::vector<std::vector<int>> users(nops);
  for (size_t o = 0; o < nops; ++o)
    for (int t : f.ops[o].inputs) {
      if (t < 0 || t >= static_cast<int>(f.tensors.size()))
        return op_error(f.ops[o], "names a tensor that does not exist");
      const int p = producer[static_cast<size_t>(t)];
      if (p >= 0) {
        users[static_cast<size_t>(p)].push_back(static_cast<int>(o));
        ++indeg[o];
      }
    }
  for (size_t o = 0; o < nops; ++o)
    if (indeg[o] == 0) order.push_back(static_cast<int>(o));
  for (size_t i = 0; i < order.size(); ++i)
    for (int u : users[static_cast<size_t>(order[i])])
      if (--indeg[static_cast<size_t>(u)] == 0) order.push_back(u);
  if (order.size() != nops) return Status::error("model graph: the ops form a cycle");
  for (size_t t = 0; t < g.tensors.size(); ++t)
    g.tensors[t].input = producer[t] < 0 && !g.tensors[t].parameter;

  // Forward ops.
  std::vector<int> ir_of_model(nops, -1);
  for (int o : order) {
    const Op& op = f.ops[static_cast<size_t>(o)];
    if (op.outputs.size() != 1)
      return op_error(
          op, "found " + std::to_string(op.outputs.size()) + " outputs; expected exactly one");
    IrOp x;
    x.name = op.name;
    x.op_kind = op.kind;
    x.fn = op.fn;
    x.inputs = op.inputs;
    x.output = op.outputs[0];
    x.model_op = o;
    x.flops = op.flops;
    x.bytes = op.bytes;
    std::vector<std::vector<std::int64_t>> ins;
    for (int t : op.inputs) ins.push_back(g.tensors[static_cast<size_t>(t)].shape);
    std::vector<std::int64_t> out;
    switch (op.kind) {
      case OpKind::kMatmul:
        if (ins.size() != 2)
          return op_error(
              op, "found a matmul with " + std::to_string(ins.size()) + " inputs; expected 2");
        x.kind = IrKind::kEinsum;
        BRIGADE_RETURN_IF_ERROR(matmul_rule(op, ins[0], ins[1], x.rule, out));
        break;
      case OpKind::kElementwise:
        x.kind = IrKind::kElementwise;
        BRIGADE_RETURN_IF_ERROR(broadcast_rule(op, ins, x.rule, out));
        break;
      case OpKind::kSoftmax:
      case OpKind::kLayerNorm:
        x.kind = IrKind::kRowwise;
        BRIGADE_RETURN_IF_ERROR(broadcast_rule(op, ins, x.rule, out));
        break;
      case OpKind::kLoss:
        x.kind = IrKind::kLoss;
        if (op.fn == "cross_entropy" && ins.size() == 2 && !ins[0].empty() &&
            ins[1].size() + 1 == ins[0].size()) {
          // Logits [..., C] against labels [...] (Model::infer has checked the
          // shapes): the rows' labels shared, the class dimension C summed over.
          const std::string rows(kPool, ins[1].size());
          x.rule.inputs = {rows + "C", rows};
        } else {
          BRIGADE_RETURN_IF_ERROR(broadcast_rule(op, ins, x.rule, out));
        }
        x.rule.output.clear();
        out.clear();
        break;
      case OpKind::kEmbedding: {
        if (ins.size() != 2 || ins[1].size() != 2)
          return op_error(op, "found an embedding of " + std::to_string(ins.size()) +
                                  " inputs; expected ids and a (vocabulary, width) table");
        x.kind = IrKind::kEmbedding;
        const std::string ids(kPool, ins[0].size());
        x.rule.inputs = {ids, "VE"};
        x.rule.output = ids + "E";
        out = ins[0];
        out.push_back(ins[1][1]);
        break;
      }
      case OpKind::kCustom:
        x.kind = IrKind::kCustom;
        out = g.tensors[static_cast<size_t>(x.output)].shape;
        if (out.empty() && !ins.empty()) out = ins[0];
        break;
    }
    IrTensor& ot = g.tensors[static_cast<size_t>(x.output)];
    if (ot.shape.empty()) {
      ot.shape = out;
    } else if (op.kind != OpKind::kCustom && ot.shape != out) {
      return op_error(op, "found output '" + ot.name + "' declared " + shape_str(ot.shape) +
                              "; expected " + shape_str(out));
    }
    if (op.kind != OpKind::kEmbedding && op.kind != OpKind::kCustom && !op.inputs.empty())
      ot.dtype = g.tensors[static_cast<size_t>(op.inputs[0])].dtype;
    if (op.kind == OpKind::kEmbedding)
      ot.dtype = g.tensors[static_cast<size_t>(op.inputs[1])].dtype;
    ot.producer = static_cast<int>(g.ops.size());
    ir_of_model[static_cast<size_t>(o)] = static_cast<int>(g.ops.size());
    g.ops.push_back(std::move(x));
  }
  if (!training) return g;

  // Which tensors depend on a parameter.
  std::vector<bool> rg(g.tensors.size(), false);
  for (size_t t = 0; t < g.tensors.size(); ++t) rg[t] = g.tensors[t].parameter;
  for (const IrOp& op : g.ops)
    for (int t : op.inputs)
      if (rg[static_cast<size_t>(t)]) rg[static_cast<size_t>(op.output)] = true;

  const size_t nfwd = g.ops.size();
  std::vector<int> grad(g.tensors.size(), -1);
  std::vector<bool> loss_seed(g.tensors.size(), false);
  bool has_loss = false;
  for (const IrOp& op : g.ops)
    if (op.kind == IrKind::kLoss && rg[static_cast<size_t>(op.output)]) {
      loss_seed[static_cast<size_t>(op.output)] = true;
      has_loss = true;
    }
  if (!has_loss) {
    std::vector<bool> consumed(g.tensors.size(), false);
    for (const IrOp& op : g.ops)
      for (int t : op.inputs) consumed[static_cast<size_t>(t)] = true;
    for (size_t i = 0; i < nfwd; ++i) {
      const int t = g.ops[i].output;
      if (consumed[static_cast<size_t>(t)] || !rg[static_cast<size_t>(t)]) continue;
      IrTensor seed;
      seed.name = "d" + g.tensors[static_cast<size_t>(t)].name;
      seed.shape = g.tensors[static_cast<size_t>(t)].shape;
      seed.dtype = g.tensors[static_cast<size_t>(t)].dtype;
      seed.input = true;
      seed.grad_of = t;
      grad[static_cast<size_t>(t)] = static_cast<int>(g.tensors.size());
      g.tensors.push_back(seed);
    }
  }

  auto new_tensor = [&](const std::string& name, int like) {
    IrTensor x;
    x.name = name;
    x.shape = g.tensors[static_cast<size_t>(like)].shape;
    x.dtype = g.tensors[static_cast<size_t>(like)].dtype;
    x.grad_of = like;
    x.producer = static_cast<int>(g.ops.size());  // the op about to be added
    g.tensors.push_back(x);
    return static_cast<int>(g.tensors.size() - 1);
  };
  auto add_op = [&](IrOp op) {
    op.phase = Phase::kBackward;
    g.ops.push_back(std::move(op));
    return static_cast<int>(g.ops.size() - 1);
  };
  // Adds gradient contribution `c` of tensor `t` (summing with earlier ones).
  auto contribute = [&](int t, int c, int fwd) {
    if (grad[static_cast<size_t>(t)] < 0) {
      grad[static_cast<size_t>(t)] = c;
      return;
    }
    const std::string name = "d" + g.tensors[static_cast<size_t>(t)].name;
    const int sum = new_tensor(name + ".sum" + std::to_string(g.ops.size()), t);
    IrOp acc;
    acc.name = name + ".accumulate";
    acc.kind = IrKind::kElementwise;
    acc.op_kind = OpKind::kElementwise;
    acc.fn = "add";
    acc.inputs = {grad[static_cast<size_t>(t)], c};
    const std::string l(kPool, g.tensors[static_cast<size_t>(t)].shape.size());
    acc.rule.inputs = {l, l};
    acc.rule.output = l;
    acc.output = sum;
    acc.forward_op = fwd;
    add_op(acc);
    grad[static_cast<size_t>(t)] = sum;
  };
  // The reduction of a broadcast operand's gradient (bias: sum over rows).
  auto reduce_to = [&](int t, int from, const std::string& from_labels,
                       const std::string& to_labels, const std::string& name, int fwd) {
    const int out = new_tensor("d" + g.tensors[static_cast<size_t>(t)].name + "." + name, t);
    IrOp r;
    r.name = g.ops[static_cast<size_t>(fwd)].name + "." + name;
    r.kind = IrKind::kEinsum;
    r.op_kind = OpKind::kCustom;
    r.fn = "sum";
    r.inputs = {from};
    r.rule.inputs = {from_labels};
    r.rule.output = to_labels;
    r.output = out;
    r.forward_op = fwd;
    add_op(r);
    return out;
  };

  for (size_t i = nfwd; i-- > 0;) {
    const IrOp fop = g.ops[i];  // copy: g.ops grows below
    const int fwd = static_cast<int>(i);
    const bool is_loss = fop.kind == IrKind::kLoss;
    const int dout = is_loss ? -1 : grad[static_cast<size_t>(fop.output)];
    if (!is_loss && dout < 0) continue;
    if (is_loss && !loss_seed[static_cast<size_t>(fop.output)]) continue;
    auto needs = [&](size_t k) { return rg[static_cast<size_t>(fop.inputs[k])]; };
    switch (fop.kind) {
      case IrKind::kEinsum: {
        for (size_t k = 0; k < fop.inputs.size() && fop.inputs.size() == 2; ++k) {
          if (!needs(k)) continue;
          const int x = fop.inputs[k];
          const bool param = g.tensors[static_cast<size_t>(x)].parameter;
          const std::string suffix = k == 0 ? "dgrad" : (param ? "wgrad" : "grad1");
          const int c =
              new_tensor("d" + g.tensors[static_cast<size_t>(x)].name + "." + fop.name, x);
          IrOp b;
          b.name = fop.name + "." + suffix;
          b.kind = IrKind::kEinsum;
          b.op_kind = OpKind::kMatmul;
          b.forward_op = fwd;
          b.output = c;
          if (k == 0) {
            b.inputs = {dout, fop.inputs[1]};
            b.rule.inputs = {fop.rule.output, fop.rule.inputs[1]};
          } else {
            b.inputs = {fop.inputs[0], dout};
            b.rule.inputs = {fop.rule.inputs[0], fop.rule.output};
          }
          b.rule.output = fop.rule.inputs[k];
          add_op(b);
          contribute(x, c, fwd);
        }
        break;
      }
      case IrKind::kElementwise:
      case IrKind::kRowwise: {
        const bool passthrough = fop.kind == IrKind::kElementwise &&
                                 (fop.fn == "add" || fop.fn == "sub" || fop.fn.empty());
        int gsum = dout;
        if (!passthrough) {
          gsum = new_tensor("d" + g.tensors[static_cast<size_t>(fop.output)].name + ".pre",
                            fop.output);
          IrOp b;
          b.name = fop.name + ".bwd";
          b.kind = fop.kind;
          b.op_kind = fop.op_kind;
          b.fn = fop.fn;
          b.inputs = {dout};
          b.rule.inputs = {fop.rule.output};
          for (size_t k = 0; k < fop.inputs.size(); ++k) {
            b.inputs.push_back(fop.inputs[k]);
            b.rule.inputs.push_back(fop.rule.inputs[k]);
          }
          b.rule.output = fop.rule.output;
          b.output = gsum;
          b.forward_op = fwd;
          add_op(b);
        }
        for (size_t k = 0; k < fop.inputs.size(); ++k) {
          if (!needs(k)) continue;
          const int x = fop.inputs[k];
          if (fop.rule.inputs[k] == fop.rule.output) {
            contribute(x, gsum, fwd);
          } else {
            contribute(x,
                       reduce_to(x, gsum, fop.rule.output, fop.rule.inputs[k],
                                 "grad" + std::to_string(k), fwd),
                       fwd);
          }
        }
        break;
      }
      case IrKind::kLoss: {
        if (!needs(0)) break;
        const int x = fop.inputs[0];
        const int c = new_tensor("d" + g.tensors[static_cast<size_t>(x)].name, x);
        IrOp b;
        b.name = fop.name + ".bwd";
        b.kind = IrKind::kLossGrad;
        b.op_kind = OpKind::kLoss;
        b.fn = fop.fn;
        b.inputs = fop.inputs;
        b.rule.inputs = fop.rule.inputs;
        b.rule.output = fop.rule.inputs[0];
        b.output = c;
        b.forward_op = fwd;
        add_op(b);
        contribute(x, c, fwd);
        break;
      }
      case IrKind::kEmbedding: {
        if (!needs(1)) break;
        const int table = fop.inputs[1];
        const int c = new_tensor("d" + g.tensors[static_cast<size_t>(table)].name, table);
        IrOp b;
        b.name = fop.name + ".wgrad";
        b.kind = IrKind::kEmbeddingGrad;
        b.op_kind = OpKind::kEmbedding;
        b.inputs = {dout, fop.inputs[0]};
        b.rule.inputs = {fop.rule.output, fop.rule.inputs[0]};
        b.rule.output = "VE";
        b.output = c;
        b.forward_op = fwd;
        add_op(b);
        contribute(table, c, fwd);
        break;
      }
      case IrKind::kCustom: {
        // An explicit op's backward is taken to cost what its forward does,
        // once per input that needs a gradient (as a GEMM's two backward GEMMs).
        for (size_t k = 0; k < fop.inputs.size(); ++k) {
          if (!needs(k)) continue;
          const int x = fop.inputs[k];
          const int c =
              new_tensor("d" + g.tensors[static_cast<size_t>(x)].name + "." + fop.name, x);
          IrOp b;
          b.name = fop.name + ".bwd" + std::to_string(k);
          b.kind = IrKind::kCustom;
          b.op_kind = OpKind::kCustom;
          b.inputs = {dout};
          for (int in : fop.inputs) b.inputs.push_back(in);
          b.output = c;
          b.forward_op = fwd;
          b.flops = fop.flops;
          b.bytes = fop.bytes;
          add_op(b);
          contribute(x, c, fwd);
        }
        break;
      }
      default:
        break;
    }
  }
  g.has_backward = g.ops.size() > nfwd;
  // Name each final parameter gradient "d<param>".
  if (optimizer != Optimizer::kNone) {
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      if (!g.tensors[t].parameter || grad[t] < 0) continue;
      IrOp o;
      o.name = "optimizer." + g.tensors[t].name;
      o.kind = IrKind::kOptimizer;
      o.op_kind = OpKind::kCustom;
      o.fn = optimizer == Optimizer::kAdam ? "adam" : "sgd";
      o.phase = Phase::kOptimizer;
      o.inputs = {static_cast<int>(t), grad[t]};
      o.param = static_cast<int>(t);
      for (size_t i = 0; i < nfwd; ++i)
        if (std::find(g.ops[i].inputs.begin(), g.ops[i].inputs.end(), static_cast<int>(t)) !=
            g.ops[i].inputs.end()) {
          o.forward_op = static_cast<int>(i);
          break;
        }
      g.ops.push_back(o);
    }
  }
  return g;
}

Result<Model> mlp_forward_model(const MlpSpec& spec, bool with_loss) {
  if (spec.widths.size() < 2 || spec.batch <= 0)
    return Status::error("mlp: expected a batch > 0 and at least two widths [in, out]");
  Model m;
  auto tensor = [&](std::string name, std::vector<std::int64_t> shape, bool param) {
    TensorSpec t;
    t.name = std::move(name);
    t.shape = std::move(shape);
    t.dtype = spec.dtype;
    t.is_parameter = param;
    m.tensors.push_back(t);
    return static_cast<int>(m.tensors.size() - 1);
  };
  auto op = [&](std::string name, OpKind kind, std::string fn, std::vector<int> in, int out) {
    Op o;
    o.name = std::move(name);
    o.kind = kind;
    o.fn = std::move(fn);
    o.inputs = std::move(in);
    o.outputs = {out};
    m.ops.push_back(o);
  };
  int a = tensor("x", {spec.batch, spec.widths[0]}, false);
  const size_t n = spec.widths.size() - 1;
  for (size_t i = 1; i <= n; ++i) {
    const std::string k = std::to_string(i);
    const int w = tensor("w" + k, {spec.widths[i - 1], spec.widths[i]}, true);
    const int bias = spec.bias ? tensor("b" + k, {spec.widths[i]}, true) : -1;
    const bool last = i == n;
    const bool act = !last && spec.activation != "none";
    const bool has_elementwise = act || bias >= 0;
    const int h =
        tensor(last && !has_elementwise ? "y" : "h" + k, {spec.batch, spec.widths[i]}, false);
    op("mm" + k, OpKind::kMatmul, "", {a, w}, h);
    a = h;
    if (has_elementwise) {
      const int out = tensor(last ? "y" : "a" + k, {spec.batch, spec.widths[i]}, false);
      std::vector<int> in = {h};
      if (bias >= 0) in.push_back(bias);
      op(last ? "bias" + k : "act" + k, OpKind::kElementwise, act ? spec.activation : "add", in,
         out);
      a = out;
    }
  }
  if (with_loss) {
    const int target = tensor("target", {spec.batch, spec.widths.back()}, false);
    const int loss = tensor("loss", {}, false);
    op("loss", OpKind::kLoss, "mse", {a, target}, loss);
  }
  return m;
}

// ---- what both judges read of an op-graph scenario ---------------------------------

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// A tensor's PartitionSpec from the scenario's axis names; a spec shorter
// than the tensor's rank leaves the trailing dimensions whole (as JAX's
// PartitionSpec does). check_plan has checked the names and sizes.
Result<PartitionSpec> spec_from_names(const Mesh& mesh, const std::string& tensor,
                                      const std::vector<std::string>& names,
                                      const std::vector<std::int64_t>& shape) {
  PartitionSpec spec(shape.size(), -1);
  for (size_t d = 0; d < names.size() && d < shape.size(); ++d) {
    if (names[d].empty()) continue;
    spec[d] = mesh.axis(names[d]);
    if (spec[d] < 0)
      return Status::error("sharding of '" + tensor + "' names axis '" + names[d] +
                               "' that the mesh lacks (check_plan was not called)",
                           ErrorKind::kInternal);
  }
  return spec;
}

}  // namespace

Result<OpGraphSetup> op_graph_setup(const Scenario& sc) {
  OpGraphSetup c;
  c.training = !sc.training.inference;
  const Optimizer opt = c.training ? sc.training.optimizer : Optimizer::kNone;
  Model fwd;
  if (sc.model_kind == ModelKind::kMlp) {
    BRIGADE_ASSIGN_OR_RETURN(fwd, mlp_forward_model(sc.mlp, c.training));
    std::string widths;
    for (auto w : sc.mlp.widths) widths += (widths.empty() ? "" : "-") + std::to_string(w);
    c.model_label =
        fill_args(tr_text("Summary", "MLP %1 (batch %2)"), {widths, std::to_string(sc.mlp.batch)});
  } else {
    fwd = sc.graph;
    c.model_label =
        tr_text("Summary", "graph of %n op(s)", nullptr, plural_count(sc.graph.ops.size()));
  }
  BRIGADE_ASSIGN_OR_RETURN(c.g, make_training_graph(fwd, c.training, opt));
  const DType dt = sc.model_kind == ModelKind::kMlp
                       ? sc.mlp.dtype
                       : (c.g.tensors.empty() ? DType::kF32 : c.g.tensors.front().dtype);
  c.state_per_param =
      bytes_per_parameter(optimizer_kind(opt), dt, sc.training.mixed_precision, c.training).optimizer;
  c.traffic_per_param =
      opt == Optimizer::kNone
          ? 0.0
          : optimizer_step_bytes_per_parameter(
                bytes_per_parameter(optimizer_kind(opt), dt, sc.training.mixed_precision, true));
  // check_plan keeps pipeline and tensor degrees to transformers and ZeRO
  // to transformers and batch-sharded MLPs (stages 1 and 2).
  c.zero = c.training && sc.strategy.data > 1 ? sc.strategy.zero : 0;
  c.manual = !sc.placement.empty() || !sc.device_put.empty();
  if (c.manual && sc.mesh)
    return Status::at(sc.where("mesh"),
                      "found a mesh and a placement; expected one of them (a placement puts "
                      "each op on one device, a mesh runs every op on every device)",
                      ErrorKind::kUnsupported);
  return c;
}

ManualPlacement manual_placement(const Scenario& sc, const TrainingGraph& g) {
  const size_t nops = g.ops.size(), nt = g.tensors.size();
  ManualPlacement mp;
  mp.op_device.assign(nops, 0);
  mp.home.assign(nt, -1);
  mp.committed.assign(nt, -1);
  // check_plan has checked that placement and device_put name ops, tensors
  // and devices that exist.
  for (size_t t = 0; t < nt; ++t) {
    auto it = sc.device_put.find(g.tensors[t].name);
    if (it != sc.device_put.end()) mp.committed[t] = it->second;
  }
  std::vector<int>& dev = mp.op_device;
  std::vector<int> producer_dev(nt, -1);
  for (size_t i = 0; i < nops; ++i) {
    const IrOp& op = g.ops[i];
    if (op.forward_op >= 0) {
      dev[i] = op.kind == IrKind::kOptimizer ? -1 : dev[static_cast<size_t>(op.forward_op)];
    } else {
      auto it = sc.placement.find(op.name);
      int d = it != sc.placement.end() ? it->second : -1;
      for (size_t k = 0; d < 0 && k < op.inputs.size(); ++k) {
        const auto t = static_cast<size_t>(op.inputs[k]);
        if (mp.committed[t] >= 0)
          d = mp.committed[t];
        else if (producer_dev[t] >= 0)
          d = producer_dev[t];
      }
      dev[i] = d < 0 ? 0 : d;
    }
    if (op.output >= 0) producer_dev[static_cast<size_t>(op.output)] = dev[i];
  }
  for (size_t t = 0; t < nt; ++t) {
    if (g.tensors[t].producer >= 0 && !g.tensors[t].input) {
      mp.home[t] = producer_dev[t];
      continue;
    }
    mp.home[t] = mp.committed[t];
    for (size_t i = 0; mp.home[t] < 0 && i < nops; ++i)
      for (int in : g.ops[i].inputs)
        if (in == static_cast<int>(t) && dev[i] >= 0) {
          mp.home[t] = dev[i];
          break;
        }
    if (mp.home[t] < 0) mp.home[t] = 0;
  }
  for (size_t i = 0; i < nops; ++i)
    if (dev[i] < 0) dev[i] = mp.home[static_cast<size_t>(g.ops[i].param)];  // optimizer
  for (size_t i = 0; i < nops; ++i) mp.used = std::max(mp.used, dev[i] + 1);
  for (size_t t = 0; t < nt; ++t) mp.used = std::max(mp.used, mp.home[t] + 1);
  return mp;
}

Result<SpmdLayout> spmd_layout(const Scenario& sc, const TrainingGraph& g) {
  SpmdLayout e;
  const StrategySpec& st = sc.strategy;
  const size_t nt = g.tensors.size();
  e.requested.assign(nt, {});
  std::vector<int> batch_inputs;
  for (size_t t = 0; t < nt; ++t)
    if (g.tensors[t].input && g.tensors[t].grad_of < 0 && !g.tensors[t].shape.empty())
      batch_inputs.push_back(static_cast<int>(t));
  if (sc.mesh) {
    e.mesh.axes = sc.mesh->axes;
    e.mesh.shape = sc.mesh->shape;
    e.mode_note =
        "JAX-style shardings: NamedSharding(mesh, PartitionSpec) per tensor; unnamed "
        "tensors start replicated";
  } else if (st.data_mode == DataMode::kPmap && st.data > 1) {
    // pmap proper: the leading axis is the device axis (check_plan made it
    // equal to the data degree); device i gets x[i].
    e.mesh.axes = {"data"};
    e.mesh.shape = {st.data};
    e.pmap = true;
    const auto& x = g.tensors[static_cast<size_t>(batch_inputs.empty() ? 0 : batch_inputs[0])];
    std::vector<std::int64_t> rest(x.shape.begin() + (x.shape.empty() ? 0 : 1), x.shape.end());
    e.mode_note = "pmap proper: the leading axis of " + x.name + " " + shape_text(x.shape) +
                  " is the device axis; device i gets " + x.name + "[i], shape " +
                  shape_text(rest);
  } else {
    e.mesh.axes = {"data"};
    e.mesh.shape = {st.data};
    if (st.data > 1 && !batch_inputs.empty()) {
      const auto& x = g.tensors[static_cast<size_t>(batch_inputs[0])];
      std::vector<std::int64_t> loc = x.shape;
      loc[0] /= st.data;
      e.mode_note = "batch sharding (NamedSharding(mesh, P('data'))): " + x.name + " " +
                    shape_text(x.shape) + " -> " + shape_text(loc) + " on each of " +
                    std::to_string(st.data) + " devices; device k gets rows [k*B/N, (k+1)*B/N)";
    }
  }
  if (sc.mesh) {
    for (const auto& [name, axes] : sc.shardings) {
      const int t = g.find_tensor(name);
      if (t < 0) continue;  // check_plan names unknown tensors
      BRIGADE_ASSIGN_OR_RETURN(e.requested[static_cast<size_t>(t)],
                               spec_from_names(e.mesh, name, axes, g.tensors[static_cast<size_t>(t)].shape));
    }
  } else if (e.mesh.shape[0] > 1) {
    for (int t : batch_inputs) {
      PartitionSpec sp(g.tensors[static_cast<size_t>(t)].shape.size(), -1);
      sp[0] = 0;
      e.requested[static_cast<size_t>(t)] = sp;
    }
  }
  return e;
}

Result<Propagation> propagate_op(const TrainingGraph& g, const IrOp& op,
                                 const std::vector<Sharded>& operands, const std::vector<double>& sizes,
                                 const std::vector<PartitionSpec>& home, const Mesh& mesh) {
  Propagation prop;
  switch (op.kind) {
    case IrKind::kCustom:
    case IrKind::kOptimizer: {
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        PartitionSpec s(g.tensors[static_cast<size_t>(op.inputs[k])].shape.size(), -1);
        if (k == 0 || op.kind == IrKind::kOptimizer) s = operands[k].spec;
        prop.inputs.push_back(s);
      }
      if (op.output >= 0) {
        const size_t rank = g.tensors[static_cast<size_t>(op.output)].shape.size();
        prop.output.spec = !operands.empty() && operands[0].spec.size() == rank ? operands[0].spec
                                                                               : PartitionSpec(rank, -1);
      }
      break;
    }
    case IrKind::kEmbeddingGrad: {
      EinsumRule r{op.rule.inputs, "E"};
      prop = propagate_einsum(r, operands, sizes, mesh);
      const int table = g.tensors[static_cast<size_t>(op.output)].grad_of;
      const PartitionSpec& ts = home[static_cast<size_t>(table)];
      const int v_axis = ts.empty() ? -1 : ts[0];
      prop.output.spec = {v_axis == prop.output.spec[0] ? -1 : v_axis, prop.output.spec[0]};
      break;
    }
    default:
      prop = propagate_einsum(op.rule, operands, sizes, mesh);
      if (op.kind == IrKind::kRowwise && !op.rule.output.empty()) {
        // Softmax and LayerNorm need whole rows.
        const char row = op.rule.output.back();
        for (size_t k = 0; k < op.inputs.size(); ++k)
          for (size_t d = 0; d < op.rule.inputs[k].size(); ++d)
            if (op.rule.inputs[k][d] == row) prop.inputs[k][d] = -1;
        prop.output.spec.back() = -1;
      }
      break;
  }
  return prop;
}

KernelClass streaming_class(const IrOp& op) {
  return streaming_class_of(op.op_kind, op.fn, op.phase);
}

}  // namespace brigade::cost
