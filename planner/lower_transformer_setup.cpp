// The transformer lowering's setup (degrees, micro-batches, block templates,
// rank map, granularity) and what a plan is, in words and shapes (`brigade
// explain`, the app's plan prose): the summary line, the notes, each
// pipeline stage's view of the tensors it holds and each device's role, from
// the setup alone, without building the Program (lower_transformer.cpp
// builds it).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/plan_check.hpp"
#include "core/profile.hpp"
#include "core/tr.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/model_size.hpp"
#include "planner/builders.hpp"
#include "planner/lower_internal.hpp"
#include "planner/lower_transformer_setup.hpp"
#include "planner/schedule.hpp"

namespace brigade::planner::detail {
namespace {

std::string recompute_label(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return tr_text("Summary", "no recomputation");
    case Recompute::kSelective:
      return tr_text("Summary", "selective recomputation (attention core)");
    case Recompute::kFull:
      return tr_text("Summary", "full recomputation (whole layer)");
    case Recompute::kOp:
      return tr_text("Summary",
                     "op-level selective recomputation (torchtitan's policy: matmul and attention "
                     "outputs kept but every second matmul's)");
  }
  return "";
}

std::string schedule_label(PipelineSchedule s, int v) {
  switch (s) {
    case PipelineSchedule::kGpipe:
      return "GPipe";
    case PipelineSchedule::k1F1B:
      return "1F1B";
    case PipelineSchedule::kInterleaved:
      return v > 1 ? fill_args(tr_text("Summary", "interleaved 1F1B (%1 chunks per device)"),
                               {std::to_string(v)})
                   : "1F1B";
  }
  return "";
}

}  // namespace

// The lowering's setup: degrees, micro-batches, the block templates
// (costmodel/transformer_blocks.hpp) and the rank map. check_plan has run.
Status prepare_setup(const Scenario& sc, Setup& s) {
  const StrategySpec& st = sc.strategy;
  const TransformerSpec& spec = sc.transformer;
  s.sc = &sc;
  s.T = st.tensor;
  s.C = st.context;
  s.D = st.data * s.C;
  s.P = st.pipeline;
  s.v = st.schedule == PipelineSchedule::kInterleaved && st.pipeline > 1
            ? std::max(1, st.virtual_stages)
            : 1;
  s.V = s.P * s.v;
  s.EP = spec.moe.enabled() ? std::max(1, st.expert) : 1;
  s.expert_loads = cost::expert_rank_loads(spec.moe, s.EP);
  for (double x : s.expert_loads) s.uneven_experts |= x != s.expert_loads.front();
  s.training = !sc.training.inference;
  s.zero = s.training ? st.zero : 0;
  s.dtype = spec.dtype;
  s.e = dtype_bytes(spec.dtype);
  s.grad_dtype = s.training && sc.training.main_grad_fp32 ? DType::kF32 : spec.dtype;
  s.g = dtype_bytes(s.grad_dtype);
  s.fp8_gather = s.training && sc.training.fp8_param_gather ? 1.0 : s.e;
  // check_plan (called by lower) has made the degrees fit the devices, the
  // batch divide by the data degree and the micro-batch, the layers by the
  // (virtual) stages. The closed-form judge builds its blocks from the same
  // shape (costmodel/transformer_blocks.hpp, transformer_shape).
  const TransformerShape shape = cost::transformer_shape(sc);
  s.b = shape.micro_batch;
  s.m = static_cast<int>(per_replica_batch(sc) / s.b);
  s.split = pipeline_split(sc);
  s.layers_per_chunk = s.split.per_chunk;
  s.recompute_cap = cost::block_recompute_layers(sc);
  s.kept_per_chunk = cost::kept_layers_of(s.layers_per_chunk, s.recompute_cap);

  BRIGADE_ASSIGN_OR_RETURN(s.layer, transformer_layer(shape));
  if (s.kept_per_chunk > 0) {
    BRIGADE_ASSIGN_OR_RETURN(s.layer_kept, transformer_layer_kept(shape));
  }
  BRIGADE_ASSIGN_OR_RETURN(s.embedding, embedding_block(shape));
  BRIGADE_ASSIGN_OR_RETURN(s.head, head_block(shape));
  s.boundary_bytes = cost::pipeline_boundary_bytes(shape);
  s.deepspeed =
      s.training && s.P > 1 && sc.strategy.pipeline_engine == PipelineEngine::kDeepSpeed;
  s.ds_part_bytes = s.T > 1 ? s.boundary_bytes / s.T : s.boundary_bytes;
  s.scatter_gather = cost::scatter_gathers_boundary(sc.strategy);
  s.blocking_sends = cost::blocks_on_pipeline_sends(sc.strategy);
  if (!s.training) {
    s.layer.backward.clear();
    s.layer.recompute.clear();
    s.embedding.backward.clear();
    s.head.backward.clear();
  }
  BRIGADE_ASSIGN_OR_RETURN(RankMap ranks,
                           RankMap::make(s.T, st.data, s.P, st.rank_order, s.C));
  s.ranks = std::make_unique<RankMap>(ranks);

  return Status::ok();
}

// The finest granularity whose task count fits the budget (or the one asked
// for), and the task counts kernel and region granularity would give.
Granularity choose_granularity(const Setup& s, const LowerOptions& options, double* kernel_tasks_out,
                               double* region_tasks_out) {
  const int N = s.T * s.D * s.P;
  // Granularity: the finest whose task count fits the budget.
  auto count = [](const BlockTemplate& t) {
    return static_cast<double>(t.forward.size() + t.backward.size() + t.recompute.size());
  };
  auto collectives = [](const BlockTemplate& t) {
    double n = 0;
    for (const auto* ks : {&t.forward, &t.backward, &t.recompute})
      for (const Kernel& k : *ks) n += k.is_collective;
    return n;
  };
  const double steps_per_device = static_cast<double>(s.m) * s.v * (s.training ? 2 : 1);
  // Context parallelism splits each ring kernel into C blocks and C - 1 hops.
  auto ring_tasks = [](const BlockTemplate& t) {
    double n = 0;
    for (const auto* ks : {&t.forward, &t.backward, &t.recompute})
      for (const Kernel& k : *ks) n += k.ring_steps > 1 ? 2.0 * (k.ring_steps - 1) : 0.0;
    return n;
  };
  // (A chunk's layers: the recomputing ones and block recomputation's kept ones.)
  const double recomputing = static_cast<double>(s.layers_per_chunk - s.kept_per_chunk);
  const double kept = static_cast<double>(s.kept_per_chunk);
  auto per_layer = [&](auto&& tasks) {
    return (recomputing * tasks(s.layer) + (kept > 0 ? kept * tasks(s.layer_kept) : 0.0)) /
           (s.training ? 2 : 1);
  };
  const double per_step_kernels =
      per_layer([&](const BlockTemplate& t) { return count(t) + ring_tasks(t); });
  // kRegion: per collective, the collective and the GEMM and memory tasks
  // of the run before it; recomputation adds its own runs.
  const double per_step_regions = per_layer([&](const BlockTemplate& t) {
    return 3 * collectives(t) + (t.recompute.empty() ? 0 : 4) + ring_tasks(t);
  });
  const double kernel_tasks = N * steps_per_device * (per_step_kernels + 1);
  const double region_tasks = N * steps_per_device * (per_step_regions + 2);
  const double budget = static_cast<double>(options.max_kernel_tasks);
  Granularity g = options.granularity;
  if (g == Granularity::kAuto)
    g = kernel_tasks <= budget   ? Granularity::kKernel
        : region_tasks <= budget ? Granularity::kRegion
                                 : Granularity::kStep;

  if (kernel_tasks_out) *kernel_tasks_out = kernel_tasks;
  if (region_tasks_out) *region_tasks_out = region_tasks;
  return g;
}

// What the plan is, in words and shapes (`brigade explain`), from the setup
// alone: the summary, the notes, each stage's view and each device's role.
void describe_transformer(const Scenario& sc, const Setup& s, Granularity g, double kernel_tasks,
                          double region_tasks, Plan& plan) {
  const StrategySpec& st = sc.strategy;
  const TransformerSpec& spec = sc.transformer;
  const int N = s.T * s.D * s.P;
  const std::int64_t B = global_batch(sc);
  const std::int64_t per_replica = per_replica_batch(sc);
  plan.granularity = g;
  plan.parameters = transformer_parameters(spec);

  // Explanation: the one line the app's teach view shows too, so in the
  // app's language (tr_text, "Summary"); the CLI's words without a translator.
  const std::string variant = cost::transformer_variant_label(spec);
  const std::string model =
      variant.empty()
          ? fill_args(tr_text("Summary",
                              "GPT-style transformer (%1 layers, hidden %2, %3 heads, "
                              "seq %4)"),
                      {std::to_string(spec.layers), std::to_string(spec.hidden),
                       std::to_string(spec.heads), std::to_string(spec.seq)})
          : fill_args(
                tr_text("Summary", "transformer (%1 layers, hidden %2, %3 heads, seq %4; %5)"),
                {std::to_string(spec.layers), std::to_string(spec.hidden),
                 std::to_string(spec.heads), std::to_string(spec.seq), variant});
  plan.summary = fill_args(
      tr_text("Summary", "%1 on %2 devices: tensor %3 x pipeline %4 x data %5"),
      {model, std::to_string(N), std::to_string(s.T), std::to_string(s.P),
       std::to_string(st.data)});
  if (s.C > 1)
    plan.summary += fill_args(tr_text("Summary", " x context %1"), {std::to_string(s.C)});
  if (st.sequence_parallel && s.T > 1) plan.summary += tr_text("Summary", " + sequence parallel");
  const std::string comma = tr_text("Summary", ", ");
  if (s.P > 1) plan.summary += comma + schedule_label(st.schedule, s.v);
  if (s.zero > 0)
    plan.summary += comma + (sc.training.distributed_optimizer
                                 ? tr_text("Summary", "distributed optimizer (ZeRO-1)")
                                 : "ZeRO-" + std::to_string(s.zero));
  if (s.training && sc.training.main_grad_fp32)
    plan.summary += comma + tr_text("Summary", "fp32 main_grad");
  if (s.training && !sc.training.gradient_accumulation_fusion)
    plan.summary += comma + tr_text("Summary", "gradient accumulation unfused");
  if (s.training && sc.training.cross_entropy_fusion)
    plan.summary += comma + tr_text("Summary", "cross-entropy fused");
  // Dropout where it is not Megatron-LM's 0.1 on both (training only: an
  // inference step runs in eval mode).
  if (s.training && spec.hidden_dropout == 0 && spec.attention_dropout == 0)
    plan.summary += comma + tr_text("Summary", "no dropout");
  else if (s.training && (spec.hidden_dropout != 0.1 || spec.attention_dropout != 0.1))
    plan.summary += comma + fill_args(tr_text("Summary", "dropout %1 (residual), %2 (attention)"),
                                      {fmt::format("{:g}", spec.hidden_dropout),
                                       fmt::format("{:g}", spec.attention_dropout)});
  if (sc.training.transformer_impl == TransformerImpl::kLocal)
    plan.summary += comma + tr_text("Summary", "Megatron-LM's own layers (no Transformer Engine)");
  if (sc.training.fp8 == Fp8Recipe::kHybrid)
    plan.summary += comma + tr_text("Summary", "FP8 GEMMs (hybrid: E4M3 forward, E5M2 gradients)");
  else if (sc.training.fp8 == Fp8Recipe::kE4M3)
    plan.summary += comma + tr_text("Summary", "FP8 GEMMs (E4M3 forward and backward)");
  if (s.training)
    plan.summary += comma + (sc.training.recompute == Recompute::kSelective &&
                                     spec.attention == AttentionKernel::kFlash
                                 ? tr_text("Summary",
                                           "selective recomputation (nothing to recompute: "
                                           "FlashAttention keeps no seq x seq activation)")
                             : sc.training.recompute_method == RecomputeMethod::kBlock
                                 ? fill_args(tr_text("Summary",
                                                     "block recomputation (the first %1 of a "
                                                     "chunk's %2 layers)"),
                                             {std::to_string(s.layers_per_chunk - s.kept_per_chunk),
                                              std::to_string(s.layers_per_chunk)})
                                 : recompute_label(sc.training.recompute));
  else
    plan.summary += comma + tr_text("Summary", "inference");
  auto note = [&](std::string n) { plan.notes.push_back(std::move(n)); };
  if (!spec.source.empty()) note("model: " + spec.source);
  if (spec.moe.enabled()) {
    const MoeSpec& moe = spec.moe;
    const std::string routing =
        "the router sends each token to " + std::to_string(moe.top_k) + " of " +
        std::to_string(moe.experts) + " experts (" +
        (moe.capacity_factor > 0 ? "buffers padded to capacity factor " +
                                       std::to_string(moe.capacity_factor).substr(0, 4)
                                 : std::string("dropless")) +
        "), each matrix of the local experts run as one grouped GEMM" +
        (moe.shared_experts > 0
             ? "; " + std::to_string(moe.shared_experts) + " shared expert(s) run on every token"
             : std::string());
    if (s.EP == 1) {
      note("mixture of experts: every device holds all " + std::to_string(moe.experts) +
           " experts of every layer (expert 1), each expert's FFN " +
           (s.T > 1 ? "columns split over 'tensor' (" + std::to_string(moe.ffn_hidden / s.T) +
                          " of " + std::to_string(moe.ffn_hidden) + ")"
                    : std::string("whole")) +
           "; " + routing + "; no AllToAll, as no expert-parallel group splits the experts");
    } else {
      const std::int64_t per = moe.experts / s.EP;
      const std::vector<double>& loads = s.expert_loads;
      double busiest = 0;
      int at = 0;
      for (size_t j = 0; j < loads.size(); ++j)
        if (loads[j] > busiest) busiest = loads[j], at = static_cast<int>(j);
      char load[64];
      std::snprintf(load, sizeof load, "%.3g", busiest);
      note("mixture of experts over 'expert' (" + std::to_string(s.EP) +
           " consecutive data ranks): each holds " + std::to_string(per) +
           " whole experts of every MoE layer (data rank j: experts (j mod " +
           std::to_string(s.EP) + ") x " + std::to_string(per) + " onward); " + routing +
           "; per layer and micro-batch a dispatch AllToAll sends each rank's token copies to "
           "the ranks of their experts and a combine AllToAll brings the outputs back (two more "
           "in the backward); the experts' gradients are summed over the " +
           std::to_string(s.D / s.EP) + " ranks holding the same experts, not over 'data'");
      if (s.uneven_experts)
        note("router imbalance: the rank holding experts " + std::to_string(at * per) + "-" +
             std::to_string(at * per + per - 1) + " of each expert-parallel group gets " + load +
             " x the mean tokens; it is the straggler the combine AllToAll waits for");
    }
  }
  if (s.C > 1) {
    const std::int64_t chunk = spec.seq / (2 * s.C);
    note("context parallel over 'context' (" + std::to_string(s.C) +
         " ranks, Megatron-Core's ring attention): each sequence of " + std::to_string(spec.seq) +
         " positions is cut in " + std::to_string(2 * s.C) + " chunks of " + std::to_string(chunk) +
         "; context rank c holds chunks c and " + std::to_string(2 * s.C - 1) +
         " - c, so that every rank has the same share of the causal mask's work. Every layer "
         "and micro-batch, each rank's keys and values go round the ring of the context ranks "
         "of its tensor rank and replica (rank c sends to c + 1): " +
         std::to_string(s.C - 1) + " point-to-point hops of " + std::to_string(s.b * 2 * chunk) +
         " positions' K and V each in the forward, overlapped with the attention blocks, and " +
         std::to_string(s.C - 1) +
         " hops of K, V and their gradients in the backward; the linear layers see " +
         std::to_string(spec.seq / s.C) +
         " positions, activations are 1/" + std::to_string(s.C) +
         "; gradients are summed over data x context (" + std::to_string(s.D) + " ranks)");
  }
  note("batch: " + std::to_string(B) + " sequences per iteration; each data replica takes " +
       std::to_string(per_replica) + " (" +
       (st.data_mode == DataMode::kPmap
            ? std::string("pmap: replica i takes sequence i of the (") + std::to_string(B) + ", " +
                  std::to_string(spec.seq) + ") batch"
            : std::string("batch sharding: rows [k*B/N, (k+1)*B/N) go to replica k")) +
       "), in " + std::to_string(s.m) + " micro-batch(es) of " + std::to_string(s.b));
  {
    std::string order;
    for (const auto& o : st.rank_order) order += (order.empty() ? "" : ", ") + o;
    note("rank order (innermost first): " + order +
         "; consecutive device ids share a node, so the innermost groups talk over NVLink");
    // Tensor groups should sit inside a node (NVLink), as Megatron-LM places them.
    bool spans = false;
    for (int p = 0; p < s.P && !spans; ++p)
      for (int d = 0; d < s.D && !spans; ++d) {
        std::set<int> nodes;
        for (int dev : s.ranks->tensor_group(d, p)) nodes.insert(sc.topology.device(dev).node);
        spans = nodes.size() > 1;
      }
    if (spans)
      note(
          "warning: a tensor-parallel group spans nodes; its all-reduces (4 per layer and "
          "micro-batch) cross the inter-node fabric. Put 'tensor' first in rank_order.");
  }
  {
    std::string why;
    switch (g) {
      case Granularity::kKernel:
        why = "one task per GEMM and per fused memory-bound region";
        break;
      case Granularity::kRegion:
        why =
            "kernels between two communication points fused into one task, timed by the "
            "roofline of their summed FLOPs and bytes with a launch per kernel and the GEMM "
            "curve at their mean size (kernel tasks would number about " +
            std::to_string(static_cast<long long>(kernel_tasks)) + ")";
        break;
      default:
        why =
            "per pipeline step: one fused task per phase, the step's tensor-parallel "
            "collectives merged per kind into one (kernel tasks would number about " +
            std::to_string(static_cast<long long>(kernel_tasks)) + ", region tasks about " +
            std::to_string(static_cast<long long>(region_tasks)) + ")";
        break;
    }
    note("granularity: " + std::string(granularity_name(g)) + " (" + why + ")");
  }
  if (s.P > 1 && s.training)
    note("pipeline: " + std::to_string(s.m) +
         " micro-batches; the bubble is about (p-1)/(m+p-1) = " +
         std::to_string(static_cast<double>(s.P - 1) / (s.m + s.P - 1)).substr(0, 5) +
         " of the step for GPipe and 1F1B alike; 1F1B keeps at most p micro-batches' "
         "activations on the first stage, GPipe all m");
  if (s.deepspeed)
    note("pipeline engine: DeepSpeed's (strategy.pipeline_engine): a step's sends and receives "
         "block both stages, one after the other" +
         (s.T > 1 ? ", each tensor rank sending 1/" + std::to_string(s.T) +
                        " of the boundary tensor, which the receiving stage's tensor group "
                        "all-gathers back (once before a forward, twice before a backward)"
                  : std::string()));

  if (s.P > 1 && s.split.uneven())
    note(std::string("pipeline split: ") +
         (s.split.embedding && s.split.loss ? "the embedding and the loss"
          : s.split.embedding               ? "the embedding"
                                            : "the loss") +
         " counted as layers (Megatron-Core's account_for_*_in_pipeline_split): " +
         std::to_string(s.split.per_chunk) + " layers a chunk, " +
         (s.split.embedding ? std::to_string(s.split.layers(0)) + " in the first" : "") +
         (s.split.embedding && s.split.loss ? " and " : "") +
         (s.split.loss ? std::to_string(s.split.layers(s.split.virtual_stages - 1)) +
                             " in the last"
                       : ""));
  if (s.blocking_sends)
    note("pipeline: Megatron-LM's blocking exchanges (strategy.pipeline_blocking_sends): a "
         "stage's next compute waits for its own sends");
  if (s.scatter_gather)
    note("pipeline: Megatron-LM's scatter-gather (strategy.pipeline_scatter_gather): each tensor "
         "rank sends 1/" + std::to_string(s.T) +
         " of the boundary tensor, and the receiving stage's tensor group all-gathers it back "
         "after each receive, on its compute stream");
  plan.view_of_device.assign(static_cast<size_t>(sc.topology.num_devices()), -1);
  plan.device_role.assign(static_cast<size_t>(sc.topology.num_devices()), "unused");
  for (int dev = 0; dev < N; ++dev) {
    const RankCoord c = s.ranks->coord(dev);
    plan.view_of_device[static_cast<size_t>(dev)] = c.pipeline;
    plan.device_role[static_cast<size_t>(dev)] =
        fill_args(tr_text("Roles", "tensor %1/%2, data %3/%4, pipeline %5/%6"),
                  {std::to_string(c.tensor), std::to_string(s.T), std::to_string(c.data),
                   std::to_string(st.data), std::to_string(c.pipeline), std::to_string(s.P)});
    if (s.C > 1) {
      // Megatron-Core's get_batch_on_this_cp_rank: chunks c and 2C - 1 - c.
      const std::int64_t chunk = spec.seq / (2 * s.C);
      const std::int64_t lo = c.context * chunk, hi = (2 * s.C - 1 - c.context) * chunk;
      const int next = s.ranks->device(c.tensor, c.data * s.C + (c.context + 1) % s.C, c.pipeline);
      plan.device_role[static_cast<size_t>(dev)] += fill_args(
          tr_text("Roles", ", context %1/%2 (positions %3-%4 and %5-%6; KV ring to device %7)"),
          {std::to_string(c.context), std::to_string(s.C), std::to_string(lo),
           std::to_string(lo + chunk - 1), std::to_string(hi), std::to_string(hi + chunk - 1),
           std::to_string(next)});
    }
    if (s.EP > 1) {
      const std::int64_t per = spec.moe.experts / s.EP;
      const std::int64_t first = (c.data % s.EP) * per;
      plan.device_role[static_cast<size_t>(dev)] +=
          per == 1 ? fill_args(tr_text("Roles", ", expert %1 of %2"),
                               {std::to_string(first), std::to_string(spec.moe.experts)})
                   : fill_args(tr_text("Roles", ", experts %1-%2 of %3"),
                               {std::to_string(first), std::to_string(first + per - 1),
                                std::to_string(spec.moe.experts)});
    }
  }
  const bool sp = st.sequence_parallel && s.T > 1;
  const std::int64_t f = ffn_width(spec);
  for (int p = 0; p < s.P; ++p) {
    DeviceView view;
    const std::int64_t first = s.split.first_layer(p);
    view.title = s.P > 1 ? "pipeline stage " + std::to_string(p) + " of " + std::to_string(s.P)
                         : "every device";
    std::int64_t layers_sum = 0;
    for (int c = 0; c < s.v; ++c) layers_sum += s.split.layers(c * s.P + p);
    if (s.v == 1) {
      view.title += " (layers " + std::to_string(first) + "-" +
                    std::to_string(first + s.split.layers(p) - 1) + ")";
    } else {
      view.title += " (" + std::to_string(s.v) + " chunks of " +
                    std::to_string(s.layers_per_chunk) + " layers";
      if (s.split.layers(p) != s.layers_per_chunk)
        view.title += ", chunk 0 holding " + std::to_string(s.split.layers(p)) + " and the embedding";
      const int last_vs = (s.v - 1) * s.P + p;
      if (s.split.layers(last_vs) != s.layers_per_chunk)
        view.title += ", chunk " + std::to_string(s.v - 1) + " holding " +
                      std::to_string(s.split.layers(last_vs)) + " and the loss";
      view.title += ")";
    }
    const int layers_here = static_cast<int>(layers_sum);
    const std::string shard3 =
        s.zero >= 3 ? "; 1/" + std::to_string(s.D) + " kept between uses (ZeRO-3)" : "";
    auto add_params = [&](const BlockTemplate& tpl, int copies, const std::string& prefix) {
      for (const ParamGroup& g2 : tpl.params)
        for (const ParamTensor& pt : g2.tensors) {
          TensorView tv;
          tv.name = prefix + pt.name;
          tv.role = "parameter";
          tv.global_shape = pt.global_shape;
          tv.local_shape = pt.local_shape;
          tv.dtype = spec.dtype;
          tv.count = copies;
          std::string how = "replicated";
          if (g2.expert)
            how = "experts split over 'expert' (" + std::to_string(pt.local_shape[0]) + " of " +
                  std::to_string(pt.global_shape[0]) + " on each rank)";
          else if (pt.tensor_sharded)
            how = pt.local_shape.size() == 2 && pt.local_shape[0] != pt.global_shape[0]
                      ? "split over 'tensor' (rows)"
                      : "split over 'tensor' (columns)";
          tv.sharding = how + shard3;
          view.tensors.push_back(tv);
        }
    };
    auto act = [&](std::string name, std::vector<std::int64_t> global,
                   std::vector<std::int64_t> local, std::string how, DType dt) {
      TensorView tv;
      tv.name = std::move(name);
      tv.role = "activation (one micro-batch)";
      tv.global_shape = std::move(global);
      tv.local_shape = std::move(local);
      tv.dtype = dt;
      tv.sharding = std::move(how);
      view.tensors.push_back(tv);
    };
    const std::int64_t bsz = s.b, seq = spec.seq, h = spec.hidden;
    if (p == 0) {
      act("tokens", {B, seq}, {bsz, seq / s.C},
          "batch split over 'data' (" + std::to_string(per_replica) + " per replica), " +
              std::to_string(s.m) + " micro-batch(es)" +
              (s.C > 1 ? "; sequence split over 'context' (chunks c and " +
                             std::to_string(2 * s.C - 1) + " - c of " + std::to_string(2 * s.C) + ")"
                       : std::string()),
          DType::kI32);
      add_params(s.embedding, 1, "");
    }
    add_params(s.layer, layers_here, "layer.");
    if (p == s.P - 1 && !spec.tie_embeddings) add_params(s.head, 1, "");
    if (p == s.P - 1 && s.P > 1 && spec.tie_embeddings) {
      TensorView tv;
      tv.name = "head.word_embedding_copy";
      tv.role = "parameter";
      tv.global_shape = s.embedding.params[0].tensors[0].global_shape;
      tv.local_shape = s.embedding.params[0].tensors[0].local_shape;
      tv.dtype = spec.dtype;
      tv.sharding = std::string(s.T > 1 ? "split over 'tensor' (rows: vocabulary)" : "replicated") +
                    "; tied to the first stage's embedding" + shard3;
      view.tensors.push_back(tv);
    }
    const std::int64_t lseq = seq / s.C;  // positions on a context rank
    const std::string cpw =
        s.C > 1 ? "; sequence split over 'context' (2 of " + std::to_string(2 * s.C) + " chunks)"
                : std::string();
    act("hidden states", {bsz, seq, h}, {bsz, sp ? lseq / s.T : lseq, h},
        (sp ? "sequence split over 'tensor' between the GEMMs" : "replicated over 'tensor'") + cpw,
        spec.dtype);
    const std::int64_t kv = spec.key_value_heads(), dh = spec.head_width();
    if (kv < spec.heads)
      act("keys and values (" + std::to_string(kv) + " key/value heads for " +
              std::to_string(spec.heads) + " query heads)",
          {bsz, seq, 2 * kv * dh}, {bsz, lseq, 2 * kv * dh / s.T},
          (s.T > 1 ? "key/value heads split over 'tensor'" : "whole") + cpw +
              (s.C > 1 ? "; passed round the context ring" : ""),
          spec.dtype);
    if (spec.attention == AttentionKernel::kFlash)
      act("attention log-sum-exp (FlashAttention keeps no seq x seq scores)",
          {bsz, spec.heads, seq}, {bsz, spec.heads / s.T, lseq},
          (s.T > 1 ? "heads split over 'tensor'" : "whole") + cpw, DType::kF32);
    else
      act("attention scores", {bsz, spec.heads, seq, seq}, {bsz, spec.heads / s.T, seq, seq},
          s.T > 1 ? "heads split over 'tensor'" : "whole", spec.dtype);
    const std::int64_t fc1 = spec.mlp == MlpKind::kSwiglu ? 2 * f : f;
    act(spec.mlp == MlpKind::kSwiglu ? "FFN gate and up" : "FFN hidden", {bsz, seq, fc1},
        {bsz, lseq, fc1 / s.T},
        (s.T > 1 ? "columns split over 'tensor'" : "whole") + cpw, spec.dtype);
    if (p == s.P - 1)
      act("logits", {bsz, seq, spec.vocab}, {bsz, lseq, spec.vocab / s.T},
          (s.T > 1 ? "vocabulary split over 'tensor'" : "whole") + cpw, spec.dtype);
    plan.views.push_back(std::move(view));
  }
}

Result<Plan> describe_transformer(const Scenario& sc, const LowerOptions& options) {
  Setup s;
  BRIGADE_RETURN_IF_ERROR(prepare_setup(sc, s));
  double kernel_tasks = 0, region_tasks = 0;
  const Granularity g = choose_granularity(s, options, &kernel_tasks, &region_tasks);
  Plan plan;
  describe_transformer(sc, s, g, kernel_tasks, region_tasks, plan);
  // Counted FLOPs (GEMMs) of the Program lower() would build: Megatron-LM's
  // Eq. 3 for the global batch, with recomputation (docs/planner.md, "Counted FLOPs").
  const TransformerSpec& spec = sc.transformer;
  const double Bd = static_cast<double>(global_batch(sc));
  const double recomputed_fraction = cost::recomputed_layer_fraction(sc);
  plan.flops_per_iteration =
      cost::transformer_hardware_flops(spec, Bd, s.training, sc.training.recompute,
                                       recomputed_fraction, sc.training.fp8 != Fp8Recipe::kNone);
  return plan;
}

// ---- a stage's blocks and model states (emit_stage's) ---------------------------

std::vector<std::vector<Block>> stage_blocks(const Setup& s, int p, StageOut& out) {
  const bool tied = s.sc->transformer.tie_embeddings;
  std::vector<std::vector<Block>> chunks(static_cast<size_t>(s.v));
  for (int c = 0; c < s.v; ++c) {
    const int vs = c * s.P + p;
    auto& blocks = chunks[static_cast<size_t>(c)];
    if (vs == 0) {
      Block e;
      e.tpl = &s.embedding;
      e.label = "embedding";
      e.owned = s.embedding.params;
      e.tied_group = s.P > 1 && tied ? 0 : -1;
      blocks.push_back(e);
    }
    // (With the embedding or the loss counted in the split, the first and
    // the last virtual stage a layer short.)
    const std::int64_t here = s.split.layers(vs);
    const std::int64_t recomputing = here - cost::kept_layers_of(here, s.recompute_cap);
    for (std::int64_t j = 0; j < here; ++j) {
      Block l;
      // Block recomputation: the chunk's first layers recompute, the rest keep.
      l.tpl = j < recomputing ? &s.layer : &s.layer_kept;
      l.layer = static_cast<int>(s.split.first_layer(vs) + j);
      l.label = "layer " + std::to_string(l.layer);
      l.owned = s.layer.params;
      blocks.push_back(l);
    }
    if (vs == s.V - 1) {
      Block h;
      h.tpl = &s.head;
      h.label = "head";
      // Tied weights: the logits GEMM uses the word embedding. On another
      // device than the embedding, the head keeps its own copy (Megatron-LM
      // sums the two copies' gradients, see the finishing pass). Untied
      // (Llama), the head owns its output matrix.
      if (!tied) {
        h.owned = s.head.params;
      } else if (p != 0) {
        h.owned.push_back(s.embedding.params[0]);
        h.owned.back().name = "head.word_embedding_copy";
        h.tied_group = 0;
      }
      blocks.push_back(h);
    }
    for (Block& blk : blocks) {
      for (const ParamGroup& g : blk.owned) blk.owned_elements += g.local_elements();
      blk.gather_elements = blk.owned_elements;
      if (blk.tpl == &s.head && p == 0 && tied)  // uses the embedding's (gathered) table
        blk.gather_elements = s.embedding.params[0].local_elements();
      out.owned_elements += blk.owned_elements;
      for (const ParamGroup& g : blk.owned) {
        out.replicated_elements += g.replicated_elements();
        out.fp8_weight_elements += g.fp8_elements();
        if (g.expert) out.expert_elements += g.local_elements();
        if (g.expert) out.fp8_expert_elements += g.fp8_elements();
        if (g.name == "attn.qk_norm") out.qk_norm_elements += g.local_elements();
      }
      if (blk.tied_group >= 0 && s.P > 1)
        out.tied_elements = blk.owned[static_cast<size_t>(blk.tied_group)].local_elements();
    }
  }
  return chunks;
}

// Model states (costmodel/memory.hpp: bytes per parameter by dtype and
// optimizer, ZeRO sharding over the data group), resident from time 0.
Status add_resident_buffers(ProgramBuilder& b, const Setup& s, const StageOut& out) {
  const Scenario& sc = *s.sc;
  const cost::BytesPerParameter per = cost::bytes_per_parameter(
      cost::optimizer_kind(sc.training.optimizer), s.dtype, sc.training.mixed_precision,
      s.training, sc.training.main_grad_fp32, cost::optimizer_layout(sc.training));
  // (Expert parallelism under ZeRO-1: the experts' optimizer state over the
  // expert-data group, data / expert ranks, as the closed form's:
  // cost::ShardedParameters.)
  BRIGADE_ASSIGN_OR_RETURN(const cost::ModelStateBytes m,
                           cost::model_state_bytes(held_parameters(s, out), per, s.zero));
  for (int r = 0; r < s.T * s.D; ++r) {
    const int dev = out.devices[static_cast<size_t>(r)];
    b.add_buffer("parameters", dev, m.params_bytes, MemoryCategory::kParams, true);
    if (m.grads_bytes > 0)
      b.add_buffer("gradients", dev, m.grads_bytes, MemoryCategory::kGrads, true);
    if (m.optimizer_bytes > 0)
      b.add_buffer("optimizer state", dev, m.optimizer_bytes, MemoryCategory::kOptimizer, true);
    // Transformer Engine's FP8 copies of the linear layers' weights (and
    // their transposes), beside the 16-bit weights; FP8 primary weights take
    // those weights' place (nothing more at bf16).
    const double fp8_extra = cost::fp8_weight_extra_bytes(
        out.fp8_weight_elements, s.e, s.training && s.sc->training.fp8_param_gather);
    if (fp8_extra > 0)
      b.add_buffer("fp8 weights", dev, fp8_extra, MemoryCategory::kParams, true);
  }
  return Status::ok();
}

}  // namespace brigade::planner::detail
