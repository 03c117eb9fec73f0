// The teaching view's numbers (the kitchen of the seed texts: chefs are
// devices, stations their memory, runners the links, the sauce bowl
// AllReduce, the head chef XLA), taken from the open scenario's real plan:
// the planner's shards (planner::Plan's device views), the closed form's
// memory and communication (cost::estimate_plan) and the alpha-beta model's
// times on the scenario's topology (costmodel/collectives.hpp). Nothing
// here is stored text: the view words every figure through tr().
//
// Widget-free (no Qt): built once per document, read by
// gui/views/teach_view.cpp, tested in tests/gui/model/teach_scene_test.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"
#include "planner/plan.hpp"

namespace brigade::gui {

using Shape = std::vector<std::int64_t>;

// "(4, 256)".
std::string shape_text(const Shape& shape);

// The parts of a station's bar, in order: the memory categories the closed
// form's M_peak sums (everything but kOther).
inline constexpr int kNumStationParts = 5;
inline constexpr std::array<MemoryCategory, kNumStationParts> kStationParts{
    MemoryCategory::kParams, MemoryCategory::kGrads, MemoryCategory::kOptimizer,
    MemoryCategory::kActivations, MemoryCategory::kCommBuffers};

// A chef (device) and its station (memory at its peak, by category).
struct TeachChef {
  int device = 0;
  std::string name;  // "gpu0"
  int node = 0;
  std::string role;  // the planner's: "data 0/4"
  bool used = true;  // the plan places work on it
  double capacity_bytes = 0;
  // The closed form's M_peak = M_model + M_grad + M_opt + M_act (+ comm buffers).
  double peak_bytes = 0;
  // By kStationParts: params, grads, optimizer, activations, communication buffers.
  std::array<double, kNumStationParts> parts_bytes{};
  std::vector<std::string> holds;       // "x (4, 256)", the planner's shards (first few)
};

// A runner: the route between two chefs shown side by side.
struct TeachRunner {
  int from = 0, to = 0;  // indices into TeachScene::chefs
  double alpha_seconds = 0;
  double bandwidth_bytes_per_second = 0;
  std::string link_class;  // "nvlink", "pcie", ...
};

// One kind of communication per step (the closed form's, from the busiest device).
struct TeachCommunication {
  std::string kind;     // "allreduce", "allgather", "reducescatter", "p2p", ...
  std::string purpose;  // "data", "tensor", "pipeline", "sharding", ...
  int group_size = 0;
  double count = 0;  // calls per step
  double bytes = 0;  // their M together
  double seconds = 0;
};

// Transfer mode: one message from one chef to another, T = alpha + M/B.
enum class TransferSource {
  kPlanTransfer,  // a point-to-point transfer of the Program (placement edge, pipeline)
  kRingStep,      // one step of the plan's largest ring collective: M/N to the next rank
  kWhatIf,        // the plan moves nothing: device 0's largest tensor, were it sent to device 1
  kNone,          // a single device: nothing can move
};

struct TeachTransfer {
  TransferSource source = TransferSource::kNone;
  std::string tensor;    // the tensor or collective it carries ("a", "allreduce")
  int from = 0, to = 0;  // devices
  std::string from_name, to_name;
  double bytes = 0;
  double alpha_seconds = 0;               // the route's alpha
  double bandwidth_bytes_per_second = 0;  // the route's bottleneck
  double alpha_part_seconds = 0;          // alpha
  double beta_part_seconds = 0;           // M / B
  double seconds() const { return alpha_part_seconds + beta_part_seconds; }
  // The collective this step belongs to (kRingStep) or the plan's largest
  // one, with its alpha and beta terms apart (cost::split_alpha_beta).
  bool has_collective = false;
  std::string collective_kind;  // "allreduce"
  std::string algorithm;        // "ring"
  int ranks = 0;
  double collective_bytes = 0;
  double alpha_term_seconds = 0;  // ring AllReduce: 2(N-1) alpha
  double beta_term_seconds = 0;   // ring AllReduce: (N-1)/N M (beta_r + beta)
  double alpha_messages = -1;     // the alphas in series (2(N-1) for the ring AllReduce)
};

// Transform mode: a layout, per device shown, as blocks of the global tensor.
struct ShardBlock {
  double row0 = 0, row1 = 1, col0 = 0, col1 = 1;  // fractions of the global tensor
  int origin = -1;       // the device whose data it is (its colour); -1 the whole, summed
  bool partial = false;  // a partial sum (x_k W_k before the sauce bowl)
};

struct ShardLayout {
  std::string tensor;  // "x", "w", "y"
  Shape global_shape;
  std::vector<Shape> local_shapes;              // per device shown
  std::vector<std::vector<ShardBlock>> blocks;  // per device shown
};

enum class TransformKind { kBatchSplit, kAllGather, kRowSplit, kReduceScatter };
inline constexpr int kNumTransforms = 4;

struct TeachTransform {
  TransformKind kind = TransformKind::kBatchSplit;
  ShardLayout before, after;
  // The collective's time in the alpha-beta model on the plan's group
  // (0 for a split, which moves nothing between chefs) and its M.
  double seconds = 0;
  double bytes = 0;
  // The `after` layout is the planner's own for this tensor (else it is
  // what the transform would give, shown for teaching).
  bool in_plan = false;
};

// Output mode: every chef's result gathered back, stacked by device as
// pmap returns it (leading axis = devices), or concatenated as batch
// sharding returns it.
struct TeachOutput {
  std::string tensor;  // "y"
  Shape global_shape;
  std::vector<Shape> local_shapes;  // per device shown
  Shape stacked_shape;              // (N, B/N, ...) when the rows divide evenly; else empty
  Shape concatenated_shape;         // (B, ...)
};

// The pmap demo's figures (the second seed's data-parallel step).
struct TeachPmap {
  int devices = 1;  // N, the data degree (or the devices used)
  std::string input;
  Shape input_global, input_local, input_reshaped;  // (B, d), (B/N, d), (N, B/N, d)
  std::string param;
  Shape param_shape;
  double gradient_bytes = 0;     // what each chef pours into the bowl
  double allreduce_seconds = 0;  // the gradients' AllReduce (closed form)
  // The plan has no gradient AllReduce (inference, or one chef): the two
  // figures above are the ring AllReduce (alpha-beta) of its parameters'
  // gradients over the chefs, were it trained.
  bool gradient_if_trained = false;
  double allgather_seconds = 0;  // all_gather of the input back (alpha-beta)
  double compute_seconds = 0;    // forward and backward of one chef
  double step_seconds = 0;       // the closed form's step
  bool training = true;
};

struct TeachScene {
  std::string title;    // the scenario's name
  std::string summary;  // the head chef's plan in one line (planner::Plan::summary)
                        // in the language of reword_teach_scene's call
  int total_devices = 0;
  int used_devices = 0;
  std::vector<TeachChef> chefs;      // the first kMaxChefs devices
  int hidden_chefs = 0;              // devices not shown
  std::vector<TeachRunner> runners;  // between chefs i and i+1 (and the last back to the first)
  std::vector<TeachCommunication> communication;
  double step_seconds = 0;
  double compute_seconds = 0;
  double exposed_communication_seconds = 0;
  TeachTransfer transfer;
  std::array<TeachTransform, kNumTransforms> transforms;
  TeachOutput output;
  TeachPmap pmap;
  // Why a part is missing ("the closed form does not judge this plan: ...").
  std::vector<std::string> notes;
};

// Chefs drawn side by side at most.
inline constexpr int kMaxChefs = 8;

// The scene of a scenario and its plan (lowered: its Program's transfers and
// collective groups are read). Never fails: a figure the closed form cannot
// give is 0 and a note says why.
TeachScene build_teach_scene(const Scenario& scenario, const planner::Plan& plan);

struct PlanProse;  // gui/model/plan_prose.hpp

// The scene's words from the planner (the head chef's summary, each chef's
// role) set to `prose`'s: the current language's (plan_prose(doc)), again
// when the language changes. The figures stay.
void reword_teach_scene(TeachScene& scene, const PlanProse& prose);

}  // namespace brigade::gui
