#include "planner/builders.hpp"

#include <cmath>
#include <utility>

#include "core/profile.hpp"
#include "costmodel/memory.hpp"

namespace brigade::planner {
double transformer_parameters(const TransformerSpec& spec) {
  TransformerShape s;
  s.spec = spec;
  auto layer = transformer_layer(s);
  auto emb = embedding_block(s);
  auto head = head_block(s);
  if (!layer.is_ok() || !emb.is_ok() || !head.is_ok()) return 0;
  return static_cast<double>(spec.layers) * layer->local_param_elements() +
         emb->local_param_elements() + head->local_param_elements();
}

double optimizer_traffic_bytes_per_param(Optimizer optimizer, bool mixed_precision, DType dtype,
                                         bool fp32_grads) {
  if (optimizer == Optimizer::kNone) return 0;
  const cost::BytesPerParameter per = cost::bytes_per_parameter(
      cost::optimizer_kind(optimizer), dtype, mixed_precision, true, fp32_grads);
  return cost::optimizer_step_bytes_per_parameter(per);
}

// ---- the transformer as a core Model ---------------------------------------------

Result<Model> build_transformer_model(const TransformerSpec& spec, std::int64_t batch,
                                      Recompute recompute, Optimizer optimizer) {
  TransformerShape shape;
  shape.spec = spec;
  shape.micro_batch = batch;
  shape.recompute = recompute;
  BRIGADE_ASSIGN_OR_RETURN(BlockTemplate layer, transformer_layer(shape));
  BRIGADE_ASSIGN_OR_RETURN(BlockTemplate emb, embedding_block(shape));
  BRIGADE_ASSIGN_OR_RETURN(BlockTemplate head, head_block(shape));

  Model m;
  // The graph is the kernel sequence as one device runs it: each op reads
  // the previous op's output (and the parameters it uses) and writes its own.
  int prev = -1;
  {
    TensorSpec ids;
    ids.name = "tokens";
    ids.shape = {batch, spec.seq};
    ids.dtype = DType::kI32;
    m.tensors.push_back(ids);
    prev = 0;
  }
  auto add_params = [&](const std::string& prefix, const BlockTemplate& blk) {
    std::vector<int> ids;
    for (const ParamGroup& g : blk.params)
      for (const ParamTensor& p : g.tensors) {
        TensorSpec t;
        t.name = prefix + p.name;
        t.shape = p.global_shape;
        t.dtype = spec.dtype;
        t.is_parameter = true;
        ids.push_back(static_cast<int>(m.tensors.size()));
        m.tensors.push_back(t);
      }
    return ids;
  };
  auto add_ops = [&](const std::string& prefix, const std::vector<Kernel>& ks, Phase phase,
                     const std::vector<int>& params) {
    for (const Kernel& k : ks) {
      if (k.is_collective) continue;  // no collectives on one device
      Op op;
      op.name = prefix + k.name;
      op.kind = k.compute == ComputeKind::kGemm ? OpKind::kCustom : k.op;
      if (k.compute == ComputeKind::kGemm) op.kind = OpKind::kMatmul;
      op.flops = k.flops();
      if (k.compute == ComputeKind::kFixed) op.kind = OpKind::kCustom;  // FlashAttention
      op.bytes = k.compute == ComputeKind::kGemm ? gemm_bytes(k.m, k.n, k.k, spec.dtype, k.batch)
                                                 : k.bytes;
      op.phase = phase;
      op.inputs.push_back(prev);
      if (phase == Phase::kForward || phase == Phase::kRecompute)
        for (int p : params) op.inputs.push_back(p);
      TensorSpec out;
      out.name = op.name + ".out";
      out.dtype = spec.dtype;
      out.shape = k.compute == ComputeKind::kGemm
                      ? std::vector<std::int64_t>{k.batch, k.m, k.n}
                      : std::vector<std::int64_t>{batch, spec.seq, spec.hidden};
      op.outputs.push_back(static_cast<int>(m.tensors.size()));
      prev = op.outputs.back();
      m.tensors.push_back(out);
      m.ops.push_back(op);
    }
  };
  const std::vector<int> emb_params = add_params("", emb);
  std::vector<std::vector<int>> layer_params;
  for (std::int64_t l = 0; l < spec.layers; ++l)
    layer_params.push_back(add_params("layer" + std::to_string(l) + ".", layer));
  add_ops("", emb.forward, Phase::kForward, emb_params);
  for (std::int64_t l = 0; l < spec.layers; ++l)
    add_ops("layer" + std::to_string(l) + ".", layer.forward, Phase::kForward,
            layer_params[static_cast<size_t>(l)]);
  const std::vector<int> head_params =
      spec.tie_embeddings ? std::vector<int>{emb_params[0]} : add_params("", head);
  add_ops("", head.forward, Phase::kForward, head_params);
  add_ops("", head.backward, Phase::kBackward, {});
  for (std::int64_t l = spec.layers - 1; l >= 0; --l) {
    const std::string p = "layer" + std::to_string(l) + ".";
    const auto& bw = layer.backward;
    const auto split = bw.begin() + layer.recompute_before;
    add_ops(p, std::vector<Kernel>(bw.begin(), split), Phase::kBackward, {});
    add_ops(p, layer.recompute, Phase::kRecompute, layer_params[static_cast<size_t>(l)]);
    add_ops(p, std::vector<Kernel>(split, bw.end()), Phase::kBackward, {});
  }
  add_ops("", emb.backward, Phase::kBackward, {});
  if (optimizer != Optimizer::kNone) {
    const double traffic = optimizer_traffic_bytes_per_param(optimizer, true, spec.dtype);
    for (size_t i = 0; i < m.tensors.size(); ++i) {
      if (!m.tensors[i].is_parameter) continue;
      Op op;
      op.name = "optimizer." + m.tensors[i].name;
      op.kind = OpKind::kCustom;
      op.fn = optimizer == Optimizer::kAdam ? "adam" : "sgd";
      op.flops = 0;
      op.bytes = traffic * m.tensors[i].elements();
      op.phase = Phase::kOptimizer;
      op.inputs.push_back(static_cast<int>(i));
      m.ops.push_back(op);
    }
  }
  return m;
}

}  // namespace brigade::planner
