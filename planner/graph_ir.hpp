// A training graph for op-graph models (MLPs and explicit scenario
// graphs): the forward ops, their backward ops (reverse-mode autodiff, one
// op per input gradient) and one optimizer op per parameter. Each op is
// described as an einsum over labelled dimensions, so sharding propagation
// (planner/sharding.hpp) and per-device shapes work the same for forward
// and backward: a matmul y = x·W is "mk,kn->mn", its input gradient
// "mn,kn->mk" and its weight gradient "mk,mn->kn" (contracting the batch,
// which is where data parallelism's gradient psum comes from).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/scenario.hpp"
#include "planner/sharding.hpp"

namespace brigade::planner {

enum class IrKind : std::uint8_t {
  kEinsum,         // matmul (GEMM) or reduction (one operand)
  kElementwise,    // same labels in and out (operands may broadcast)
  kRowwise,        // softmax / layernorm: needs whole rows (last dimension)
  kLoss,           // reduces to a scalar
  kLossGrad,       // d(loss)/d(prediction): elementwise over the prediction
  kEmbedding,      // ids x table -> rows (a gather; vocabulary sharding leaves partial sums)
  kEmbeddingGrad,  // scatter-add of row gradients into the table's gradient
  kCustom,         // explicit FLOPs and bytes
  kOptimizer,      // updates one parameter in place
};

struct IrTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  DType dtype = DType::kF32;
  bool parameter = false;
  bool input = false;  // fed from outside (batch, labels, a seed gradient)
  int grad_of = -1;    // this tensor is the gradient of tensor `grad_of`
  int producer = -1;   // op index, -1 for inputs and parameters
};

struct IrOp {
  std::string name;
  IrKind kind = IrKind::kElementwise;
  OpKind op_kind = OpKind::kCustom;
  std::string fn;
  Phase phase = Phase::kForward;
  std::vector<int> inputs;
  int output = -1;                // -1: in place (optimizer)
  EinsumRule rule;                // labels of inputs and output
  int forward_op = -1;            // backward / optimizer: the forward op it belongs to
  int model_op = -1;              // the scenario's op index, -1 if derived
  double flops = -1, bytes = -1;  // kCustom: explicit global values (<0: unknown)
  int param = -1;                 // kOptimizer: the parameter tensor
};

struct TrainingGraph {
  std::vector<IrTensor> tensors;
  std::vector<IrOp> ops;
  bool has_backward = false;
  int find_tensor(const std::string& name) const;
};

// The work of one op on one device with the given local shapes (indexed
// like the graph's tensors; only the op's operands and output are read).
struct OpCost {
  ComputeKind compute = ComputeKind::kMemoryBound;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;  // GEMMs
  double flops = 0;  // counted FLOPs: GEMMs 2mnk·batch, custom ops as given, else 0
  double bytes = 0;  // memory traffic
};
OpCost op_cost(const TrainingGraph& g, const IrOp& op,
               const std::vector<std::vector<std::int64_t>>& shapes,
               double optimizer_bytes_per_param);

// Builds the training graph of a forward model whose shapes are known.
// `training` adds the backward (only for tensors that depend on a
// parameter) and, with an optimizer, the optimizer ops. The backward is
// seeded from the loss ops, or, without one, from the graph's outputs (their
// gradients become inputs named "d<output>"). Errors cite the op's position.
Result<TrainingGraph> make_training_graph(const Model& forward, bool training, Optimizer optimizer);

// The MLP's forward Model: x (batch, in) -> mm_i (+ bias and activation
// act_i, fused as one elementwise op) -> y, and with `with_loss` an mse
// loss against `target`. Shapes filled in; w_i and b_i are parameters.
Result<Model> mlp_forward_model(const MlpSpec& spec, bool with_loss);

}  // namespace brigade::planner
