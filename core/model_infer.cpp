// Model::infer(): shapes, dtypes, FLOPs and bytes of an explicit op graph.
// The per-element FLOP counts below are documented in
// docs/scenario-format.md ("FLOPs and bytes of graph ops"); keep both in step.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "core/model.hpp"

namespace brigade {
namespace {

using Shape = std::vector<std::int64_t>;

std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

double elements(const Shape& s) {
  double n = 1;
  for (std::int64_t d : s) n *= static_cast<double>(d);
  return n;
}

Status op_error(const Op& op, const std::string& message) {
  if (op.pos.line > 0 || !op.pos.file.empty()) return Status::at(op.pos, message);
  return Status::error("op '" + op.name + "': " + message);  // a graph built in code
}

// Per-element FLOPs of elementwise functions; a transcendental (exp, tanh)
// counts as one FLOP.
struct ElementwiseFn {
  const char* name;
  int arity;
  double flops_per_element;
};
constexpr ElementwiseFn kElementwise[] = {
    {"relu", 1, 1},  // max(x, 0)
    // GELU, tanh form (Hendrycks & Gimpel 2016, Sec. 2):
    // 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))): x^3 (2), *0.044715 (1), +x (1),
    // *sqrt(2/pi) (1), tanh (1), +1 (1), *x (1), *0.5 (1) = 9.
    {"gelu", 1, 9},
    {"tanh", 1, 1},
    {"sigmoid", 1, 4},  // 1 / (1 + exp(-x)): negate, exp, add, divide
    {"silu", 1, 5},     // x * sigmoid(x)
    {"exp", 1, 1},
    {"add", 2, 1},
    {"sub", 2, 1},
    {"mul", 2, 1},
    {"div", 2, 1},
};

// Safe softmax (Milakov & Gimelshein 2018, "Online normalizer calculation
// for softmax", Algorithm 2): per element a max, a subtract, an exp, a sum and
// a divide.
constexpr double kSoftmaxFlopsPerElement = 5;
// Layer normalisation (Ba, Kiros & Hinton 2016, Eq. 4): mean (1 add), x - mu
// (1), square (1), variance sum (1), scale by 1/sigma (1) = 5 per element,
// plus 1 for the gain g and 1 for the bias b when given.
constexpr double kLayerNormFlopsPerElement = 5;
// Mean squared error: subtract, square, accumulate.
constexpr double kMseFlopsPerElement = 3;
// Cross-entropy over logits [..., V] via log-sum-exp: per logit a max, a
// subtract, an exp and a sum (4); per row a log, the picked logit's subtract
// and the mean's add (3).
constexpr double kCrossEntropyFlopsPerLogit = 4;
constexpr double kCrossEntropyFlopsPerRow = 3;

std::vector<std::string> elementwise_names() {
  std::vector<std::string> n;
  for (const ElementwiseFn& f : kElementwise) n.emplace_back(f.name);
  return n;
}

std::string unknown_fn(const std::string& what, const std::string& fn,
                       const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  std::string msg = "found " + what + " fn '" + fn + "'; expected one of " + list;
  if (auto m = closest_match_in(fn, names)) msg += " (did you mean '" + *m + "'?)";
  return msg;
}

// NumPy broadcasting of two shapes (aligned at the right); on failure the
// mismatching pair.
bool broadcast(const Shape& a, const Shape& b, Shape* out, std::int64_t* da, std::int64_t* db) {
  const size_t n = std::max(a.size(), b.size());
  out->assign(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const std::int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
    const std::int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) {
      *da = x;
      *db = y;
      return false;
    }
    (*out)[n - 1 - i] = std::max(x, y);
  }
  return true;
}

class Inferrer {
 public:
  explicit Inferrer(Model* m) : m_(*m) {}

  Status run() {
    const int nt = static_cast<int>(m_.tensors.size());
    producer_.assign(m_.tensors.size(), -1);
    for (size_t o = 0; o < m_.ops.size(); ++o) {
      const Op& op = m_.ops[o];
      for (int t : op.inputs)
        if (t < 0 || t >= nt)
          return op_error(op, "found tensor index " + std::to_string(t) + "; expected 0.." +
                                  std::to_string(nt - 1));
      for (int t : op.outputs) {
        if (t < 0 || t >= nt)
          return op_error(op, "found tensor index " + std::to_string(t) + "; expected 0.." +
                                  std::to_string(nt - 1));
        int& p = producer_[static_cast<size_t>(t)];
        if (p >= 0)
          return op_error(op, "found tensor '" + m_.tensors[static_cast<size_t>(t)].name +
                                  "' as an output of op '" + op.name +
                                  "'; expected each tensor to be produced by one op (op '" +
                                  m_.ops[static_cast<size_t>(p)].name + "' produces it)");
        p = static_cast<int>(o);
      }
    }
    for (size_t t = 0; t < m_.tensors.size(); ++t)
      if (producer_[t] < 0 && !m_.tensors[t].shape_given)
        return Status::at(m_.tensors[t].pos, "found tensor '" + m_.tensors[t].name +
                                                 "' without a shape and produced by no op; "
                                                 "expected a declared shape");
    for (const TensorSpec& t : m_.tensors)
      if (t.shape_given) BRIGADE_RETURN_IF_ERROR(check_size(t));
    std::vector<int> order;
    BRIGADE_RETURN_IF_ERROR(topological_order(&order));
    for (int o : order) {
      const Op& op = m_.ops[static_cast<size_t>(o)];
      BRIGADE_RETURN_IF_ERROR(infer_op(m_.ops[static_cast<size_t>(o)]));
      for (int t : op.outputs) BRIGADE_RETURN_IF_ERROR(check_size(tensor(t), &op));
    }
    return Status::ok();
  }

 private:
  // Kahn's algorithm, lowest op index first (deterministic); a cycle is
  // reported as "a -> b -> a", read "a waits for b" (Ninja's form).
  Status topological_order(std::vector<int>* order) {
    const size_t n = m_.ops.size();
    std::vector<int> indegree(n, 0);
    std::vector<std::vector<int>> users(n);
    for (size_t o = 0; o < n; ++o)
      for (int t : m_.ops[o].inputs) {
        const int p = producer_[static_cast<size_t>(t)];
        if (p >= 0) {
          ++indegree[o];
          users[static_cast<size_t>(p)].push_back(static_cast<int>(o));
        }
      }
    // The ready ops in a min-heap: lowest index first in O(log n), so that a
    // wide graph (a million independent ops) is not quadratic.
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (size_t o = 0; o < n; ++o)
      if (indegree[o] == 0) ready.push(static_cast<int>(o));
    std::vector<bool> done(n, false);
    order->reserve(n);
    while (!ready.empty()) {
      const int o = ready.top();
      ready.pop();
      order->push_back(o);
      done[static_cast<size_t>(o)] = true;
      for (int u : users[static_cast<size_t>(o)])
        if (--indegree[static_cast<size_t>(u)] == 0) ready.push(u);
    }
    if (order->size() == n) return Status::ok();
    // Every op left waits for another op left: walk "waits for" edges until
    // an op repeats.
    int start = 0;
    while (done[static_cast<size_t>(start)]) ++start;
    std::vector<int> path;
    std::vector<int> seen_at(n, -1);
    int cur = start;
    while (seen_at[static_cast<size_t>(cur)] < 0) {
      seen_at[static_cast<size_t>(cur)] = static_cast<int>(path.size());
      path.push_back(cur);
      int next = -1;
      for (int t : m_.ops[static_cast<size_t>(cur)].inputs) {
        const int p = producer_[static_cast<size_t>(t)];
        if (p >= 0 && !done[static_cast<size_t>(p)]) {
          next = p;
          break;
        }
      }
      cur = next;
    }
    std::string cycle;
    for (size_t i = static_cast<size_t>(seen_at[static_cast<size_t>(cur)]); i < path.size(); ++i)
      cycle += m_.ops[static_cast<size_t>(path[i])].name + " -> ";
    cycle += m_.ops[static_cast<size_t>(cur)].name;
    return op_error(m_.ops[static_cast<size_t>(cur)],
                    "found a dependency cycle " + cycle + "; expected an acyclic graph");
  }

  TensorSpec& tensor(int t) { return m_.tensors[static_cast<size_t>(t)]; }

  // A tensor no larger than kMaxTensorElements, cited at its declaration
  // (or, inferred, at the op that makes it).
  Status check_size(const TensorSpec& t, const Op* producer = nullptr) {
    const double n = t.elements();
    if (n <= kMaxTensorElements) return Status::ok();
    char count[32];
    std::snprintf(count, sizeof count, "%.3g", n);
    const std::string msg = "found tensor '" + t.name + "' of " + count +
                            " elements; expected at most 2^53 (9.01e15) elements "
                            "(docs/scenario-format.md, \"Limits\")";
    if (producer && !t.shape_given) return op_error(*producer, msg);
    if (t.pos.line > 0 || !t.pos.file.empty()) return Status::at(t.pos, msg);
    return Status::error(msg);
  }

  Status arity(const Op& op, const std::string& what, size_t min_in, size_t max_in) {
    const size_t n = op.inputs.size();
    if (n < min_in || n > max_in) {
      const std::string want = min_in == max_in
                                   ? std::to_string(min_in)
                                   : std::to_string(min_in) + " to " + std::to_string(max_in);
      return op_error(op, "found " + what + " with " + std::to_string(n) + " input" +
                              (n == 1 ? "" : "s") + "; expected " + want);
    }
    if (op.outputs.size() != 1)
      return op_error(op, "found " + what + " with " + std::to_string(op.outputs.size()) +
                              " outputs; expected 1");
    return Status::ok();
  }

  Status same_dtype(const Op& op, const std::string& what, const TensorSpec& a,
                    const TensorSpec& b) {
    if (a.dtype == b.dtype) return Status::ok();
    return op_error(op, "found " + what + " of " + std::string(dtype_name(a.dtype)) + " " +
                            shape_str(a.shape) + " and " + std::string(dtype_name(b.dtype)) + " " +
                            shape_str(b.shape) + "; expected operands of one dtype");
  }

  // Gives the op's output its shape (or checks a declared one).
  Status set_output(const Op& op, const Shape& shape, DType dtype) {
    TensorSpec& out = tensor(op.outputs[0]);
    if (out.shape_given) {
      if (out.shape != shape)
        return op_error(op, "found output '" + out.name + "' declared " + shape_str(out.shape) +
                                "; expected " + shape_str(shape) + " (what op '" + op.name +
                                "' produces)");
      return Status::ok();  // a declared dtype wins (e.g. an f32 accumulator)
    }
    out.shape = shape;
    out.dtype = dtype;
    return Status::ok();
  }

  Status infer_op(Op& op) {
    double flops = 0;
    double bytes = -1;  // < 0: inputs + outputs
    switch (op.kind) {
      case OpKind::kMatmul: {
        BRIGADE_RETURN_IF_ERROR(arity(op, "matmul", 2, 2));
        const TensorSpec& a = tensor(op.inputs[0]);
        const TensorSpec& b = tensor(op.inputs[1]);
        const std::string pair = "matmul of " + shape_str(a.shape) + " and " + shape_str(b.shape);
        if (a.shape.size() < 2 || b.shape.size() < 2)
          return op_error(op, "found " + pair + "; expected operands of rank 2 or more");
        const std::int64_t m = a.shape[a.shape.size() - 2];
        const std::int64_t k = a.shape.back();
        const std::int64_t kb = b.shape[b.shape.size() - 2];
        const std::int64_t n = b.shape.back();
        if (k != kb)
          return op_error(op, "found " + pair + "; expected inner dimensions to agree (" +
                                  std::to_string(k) + " vs " + std::to_string(kb) + ")");
        BRIGADE_RETURN_IF_ERROR(same_dtype(op, "matmul", a, b));
        Shape batch;
        std::int64_t x = 0, y = 0;
        if (!broadcast(Shape(a.shape.begin(), a.shape.end() - 2),
                       Shape(b.shape.begin(), b.shape.end() - 2), &batch, &x, &y))
          return op_error(op, "found " + pair + "; expected batch dimensions that broadcast (" +
                                  std::to_string(x) + " vs " + std::to_string(y) + ")");
        // GEMM: 2mnk FLOP per matrix product (a multiply and an add per term),
        // times the broadcast batch.
        flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) *
                elements(batch);
        Shape out = batch;
        out.push_back(m);
        out.push_back(n);
        BRIGADE_RETURN_IF_ERROR(set_output(op, out, a.dtype));
        break;
      }
      case OpKind::kElementwise: {
        const ElementwiseFn* fn = nullptr;
        for (const ElementwiseFn& f : kElementwise)
          if (op.fn == f.name) fn = &f;
        if (!fn) return op_error(op, unknown_fn("elementwise", op.fn, elementwise_names()));
        BRIGADE_RETURN_IF_ERROR(
            arity(op, op.fn, static_cast<size_t>(fn->arity), static_cast<size_t>(fn->arity)));
        const TensorSpec& a = tensor(op.inputs[0]);
        Shape out = a.shape;
        if (fn->arity == 2) {
          const TensorSpec& b = tensor(op.inputs[1]);
          std::int64_t x = 0, y = 0;
          if (!broadcast(a.shape, b.shape, &out, &x, &y))
            return op_error(op, "found " + op.fn + " of " + shape_str(a.shape) + " and " +
                                    shape_str(b.shape) + "; expected shapes that broadcast (" +
                                    std::to_string(x) + " vs " + std::to_string(y) + ")");
          BRIGADE_RETURN_IF_ERROR(same_dtype(op, op.fn, a, b));
        }
        flops = fn->flops_per_element * elements(out);
        BRIGADE_RETURN_IF_ERROR(set_output(op, out, a.dtype));
        break;
      }
      case OpKind::kSoftmax: {
        BRIGADE_RETURN_IF_ERROR(arity(op, "softmax", 1, 1));
        const TensorSpec& a = tensor(op.inputs[0]);
        flops = kSoftmaxFlopsPerElement * a.elements();
        BRIGADE_RETURN_IF_ERROR(set_output(op, a.shape, a.dtype));
        break;
      }
      case OpKind::kLayerNorm: {
        BRIGADE_RETURN_IF_ERROR(arity(op, "layernorm", 1, 3));
        const TensorSpec& a = tensor(op.inputs[0]);
        if (a.shape.empty())
          return op_error(op, "found layernorm of a scalar; expected a tensor of rank 1 or more");
        for (size_t i = 1; i < op.inputs.size(); ++i) {
          const TensorSpec& g = tensor(op.inputs[i]);
          if (g.shape != Shape{a.shape.back()})
            return op_error(op, "found layernorm of " + shape_str(a.shape) + " with '" + g.name +
                                    "' " + shape_str(g.shape) + "; expected " +
                                    shape_str(Shape{a.shape.back()}) + " (the normalised axis)");
        }
        flops =
            (kLayerNormFlopsPerElement + static_cast<double>(op.inputs.size() - 1)) * a.elements();
        BRIGADE_RETURN_IF_ERROR(set_output(op, a.shape, a.dtype));
        break;
      }
      case OpKind::kEmbedding: {
        BRIGADE_RETURN_IF_ERROR(arity(op, "embedding", 2, 2));
        const TensorSpec& ids = tensor(op.inputs[0]);
        const TensorSpec& table = tensor(op.inputs[1]);
        if (table.shape.size() != 2)
          return op_error(op, "found embedding table '" + table.name + "' " +
                                  shape_str(table.shape) + "; expected a table [vocab, hidden]");
        Shape out = ids.shape;
        out.push_back(table.shape[1]);
        flops = 0;  // a gather
        // Reads the ids and the selected rows, writes the rows: not the whole table.
        bytes = ids.bytes() + 2.0 * elements(out) * dtype_bytes(table.dtype);
        BRIGADE_RETURN_IF_ERROR(set_output(op, out, table.dtype));
        break;
      }
      case OpKind::kLoss: {
        if (op.fn != "mse" && op.fn != "cross_entropy")
          return op_error(op, unknown_fn("loss", op.fn, {"mse", "cross_entropy"}));
        BRIGADE_RETURN_IF_ERROR(arity(op, op.fn, 2, 2));
        const TensorSpec& a = tensor(op.inputs[0]);
        const TensorSpec& b = tensor(op.inputs[1]);
        if (op.fn == "mse") {
          if (a.shape != b.shape)
            return op_error(op, "found mse of " + shape_str(a.shape) + " and " +
                                    shape_str(b.shape) +
                                    "; expected prediction and target of one shape");
          flops = kMseFlopsPerElement * a.elements();
        } else {
          const Shape rows(a.shape.begin(), a.shape.empty() ? a.shape.end() : a.shape.end() - 1);
          if (a.shape.empty() || b.shape != rows)
            return op_error(op,
                            "found cross_entropy of logits " + shape_str(a.shape) + " and labels " +
                                shape_str(b.shape) +
                                "; expected labels shaped like the logits without their last axis");
          flops =
              kCrossEntropyFlopsPerLogit * a.elements() + kCrossEntropyFlopsPerRow * elements(rows);
        }
        BRIGADE_RETURN_IF_ERROR(set_output(op, Shape{}, a.dtype));
        break;
      }
      case OpKind::kCustom: {
        if (op.outputs.empty())
          return op_error(op,
                          "found custom op '" + op.name + "' with no outputs; expected 1 or more");
        for (int t : op.outputs)
          if (!tensor(t).shape_given)
            return op_error(
                op, "found output '" + tensor(t).name + "' of custom op '" + op.name +
                        "' without a shape; expected a declared shape (custom ops are opaque)");
        if (op.flops < 0)
          return op_error(op, "found custom op '" + op.name +
                                  "' without flops; expected flops: its FLOP count");
        break;
      }
    }
    if (op.flops < 0) op.flops = flops;
    if (op.bytes < 0) {
      if (bytes < 0) {
        bytes = 0;
        for (int t : op.inputs) bytes += tensor(t).bytes();
        for (int t : op.outputs) bytes += tensor(t).bytes();
      }
      op.bytes = bytes;
    }
    return Status::ok();
  }

  Model& m_;
  std::vector<int> producer_;
};

}  // namespace

Status Model::infer() {
  return Inferrer(this).run();
}

}  // namespace brigade
