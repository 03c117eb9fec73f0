// A training graph for op-graph models (MLPs and explicit scenario
// graphs): the forward ops, their backward ops (reverse-mode autodiff, one
// op per input gradient) and one optimizer op per parameter. Each op is
// described as an einsum over labelled dimensions, so sharding propagation
// (costmodel/sharding.hpp) and per-device shapes work the same for forward
// and backward: a matmul y = x·W is "mk,kn->mn", its input gradient
// "mn,kn->mk" and its weight gradient "mk,mn->kn" (contracting the batch,
// which is where data parallelism's gradient psum comes from).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "core/program.hpp"
#include "core/scenario.hpp"
#include "costmodel/sharding.hpp"

namespace brigade::cost {

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

// The class of a graph op's streaming kernel (core's streaming_class_of):
// both judges of an op graph take it from here.
KernelClass streaming_class(const IrOp& op);

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

// ---- what both judges read of an op-graph scenario (MLP or graph) ----------

// The training graph of the scenario and the figures its ops and buffers
// take (planner/lower_graph.cpp lowers it; costmodel/plan_graph.cpp judges it).
struct OpGraphSetup {
  TrainingGraph g;
  bool training = false;
  double state_per_param = 0;    // optimizer state bytes per parameter
  double traffic_per_param = 0;  // optimizer step traffic per parameter
  int zero = 0;                  // ZeRO stage (1 or 2) of a data-parallel MLP, else 0
  std::string model_label;       // "MLP 16-16 (batch 8)", "graph of 3 op(s)"
  bool manual = false;           // a placement or device_put: each op on one device
};
Result<OpGraphSetup> op_graph_setup(const Scenario& sc);

// A manual placement resolved (jit(f, device=...) per op, device_put per
// tensor): forward ops run where placed, else where their committed or
// produced inputs are (computation follows data), else on device 0; backward
// ops with their forward op; optimizer ops with their parameter. Inputs and
// parameters live where they were put, else where first used; a produced
// tensor where its producer runs.
struct ManualPlacement {
  std::vector<int> op_device;    // per op of the training graph
  std::vector<int> home;         // per tensor
  std::vector<int> committed;    // per tensor: its device_put device, or -1
  int used = 1;                  // devices 0 .. used-1 appear in the plan
};
ManualPlacement manual_placement(const Scenario& sc, const TrainingGraph& g);

// The mesh an SPMD op graph runs on and the sharding each tensor is asked
// for: the scenario's mesh and shardings, or a 'data' axis of the data degree
// that splits the batch inputs' leading dimension (batch sharding, or pmap
// proper: the leading axis is the device axis).
struct SpmdLayout {
  Mesh mesh;
  std::vector<PartitionSpec> requested;  // per tensor; empty = no request
  bool pmap = false;
  std::string mode_note;  // how the batch is split, for explain and cost
};
Result<SpmdLayout> spmd_layout(const Scenario& sc, const TrainingGraph& g);

// Sharding propagation through one op of the training graph: the spec each
// operand must have and the output's (with pending partial sums), given the
// operands' current shardings, their global bytes and each tensor's home spec
// (for an embedding's gradient, the table's). Softmax and LayerNorm need
// whole rows; custom and optimizer ops keep their first operand's sharding.
Result<Propagation> propagate_op(const TrainingGraph& g, const IrOp& op,
                                 const std::vector<Sharded>& operands,
                                 const std::vector<double>& operand_bytes,
                                 const std::vector<PartitionSpec>& home, const Mesh& mesh);

}  // namespace brigade::cost
