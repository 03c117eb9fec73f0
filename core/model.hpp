// The model graph: logical ops over named tensors (the menu). Builders for
// MLPs and transformers live in planner/; explicit graphs come from scenario
// files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/status.hpp"

namespace brigade {

enum class Phase : std::uint8_t { kForward, kBackward, kRecompute, kOptimizer, kOther };
std::string_view phase_name(Phase p);

enum class OpKind : std::uint8_t {
  kMatmul,       // [..., m, k] x [k, n] -> [..., m, n]
  kElementwise,  // relu, gelu, add, mul, ... (fn says which)
  kSoftmax,      // over the last axis
  kLayerNorm,    // over the last axis
  kEmbedding,    // ids [...], table [V, h] -> [..., h]
  kLoss,         // cross-entropy / mse -> scalar
  kCustom,       // explicit flops and bytes
};
std::string_view op_kind_name(OpKind k);

// The most elements a tensor may have: 2^53, the largest count a double
// (which every judge computes sizes in) holds exactly; 36 PB of f32.
// Model::infer() refuses larger tensors (docs/scenario-format.md, "Limits").
inline constexpr double kMaxTensorElements = 9007199254740992.0;

struct TensorSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  DType dtype = DType::kF32;
  bool is_parameter = false;  // a weight (counted in parameters, gets gradients)
  // false: an op's output written without a shape; infer() fills shape and
  // dtype. true: the shape and dtype are given (and infer() checks them).
  bool shape_given = true;
  SourcePos pos;

  double elements() const;
  double bytes() const { return elements() * dtype_bytes(dtype); }
};

struct Op {
  std::string name;
  OpKind kind = OpKind::kCustom;
  std::string fn;                 // elementwise function or loss kind ("relu", "mse")
  std::vector<int> inputs;        // tensor indices
  std::vector<int> outputs;       // tensor indices
  double flops = -1;              // < 0: inferred from shapes
  double bytes = -1;              // memory traffic; < 0: inputs + outputs
  Phase phase = Phase::kForward;
  SourcePos pos;
};

// A directed data edge: tensor `tensor` produced by op `from`, read by op `to`.
struct DataEdge {
  int from = 0, to = 0, tensor = 0;
};

class Model {
 public:
  std::vector<TensorSpec> tensors;
  std::vector<Op> ops;

  Model();
  Model(const Model& other);
  Model& operator=(const Model& other);
  Model(Model&& other) noexcept;
  Model& operator=(Model&& other) noexcept;
  ~Model();

  // Room for this many tensors and ops, and their name index sized for them.
  void reserve(size_t tensor_count, size_t op_count);

  // The first tensor (op) of this name, or -1: through a hash index of the
  // names, built on first use and extended as entries are appended, so
  // that reading a graph of n ops costs O(n), not O(n^2) (issue 20, item 3).
  // Safe to call from several threads at once. Entries may be appended at
  // will, and removing some is noticed; after renaming an entry already
  // indexed, call reindex().
  int find_tensor(std::string_view name) const;
  int find_op(std::string_view name) const;
  void reindex();

  // Infers output shapes and dtypes (outputs may be declared without a
  // shape), FLOPs and bytes of every op; checks shapes agree and that the
  // graph is acyclic. Errors cite the op's SourcePos.
  Status infer();

  std::vector<DataEdge> edges() const;  // requires infer()
  double total_flops() const;
  double parameter_count() const;       // elements of parameter tensors

 private:
  struct NameIndex;  // core/model.cpp
  std::unique_ptr<NameIndex> index_;
};

}  // namespace brigade
