// A synthetic stand-in for GPT-3 175B training on 1024 GPUs (Megatron-LM
// style: tensor parallel 8 inside a DGX node, pipeline parallel 16 with the
// 1F1B schedule, data parallel 8; micro-batch 1, global batch 1536), built
// directly with ProgramBuilder so that the simulator can be measured before
// the planner produces the real Program. Shapes follow Narayanan et al.,
// "Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM", SC 2021 (sec. 2, 3); the FLOP counts are the usual GEMM
// shapes, not a calibrated model. Used by bench/sim_bench.cpp and, at a
// small scale, by tests/sim to hold the shortcuts to the full expansion.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/program.hpp"

namespace brigade::sim {

struct Gpt3Shape {
  int tp = 8, pp = 16, dp = 8;
  int layers = 96;
  std::int64_t hidden = 12288, heads = 96, seq = 2048, vocab = 51200;
  int micro_batches = 192;  // global batch 1536 / dp 8 / micro-batch 1
};

// Device of (data replica, stage, tensor rank): one tensor-parallel group per
// 8-GPU node, stages of a replica on consecutive nodes.
inline std::int32_t gpt3_device(const Gpt3Shape& s, int d, int st, int r) {
  return static_cast<std::int32_t>((d * s.pp + st) * s.tp + r);
}

inline Program build_gpt3_standin(const Gpt3Shape& s) {
  const int ndev = s.tp * s.pp * s.dp;
  ProgramBuilder b("gpt3-175b-standin", ndev);
  const double sq = static_cast<double>(s.seq), h = static_cast<double>(s.hidden), t = s.tp;
  const int lps = s.layers / s.pp;  // layers per stage
  const int m = s.micro_batches;
  const double act_bytes = sq * h * 2;                 // one activation tensor, bf16
  const double params_per_layer = 12 * h * h / t;      // per tensor rank (Megatron Eq. 2 without embeddings)
  const double layer_act_bytes = 34 * sq * h / t;      // per layer, selective recompute (Korthikanti et al. 2022)
  std::vector<StreamId> compute(static_cast<size_t>(ndev)), pp(static_cast<size_t>(ndev)), dpst(static_cast<size_t>(ndev));
  for (int dev = 0; dev < ndev; ++dev) {
    compute[static_cast<size_t>(dev)] = b.stream(dev, "compute");
    pp[static_cast<size_t>(dev)] = b.stream(dev, "pp");
    dpst[static_cast<size_t>(dev)] = b.stream(dev, "dp");
  }
  // Per (device, micro-batch): first forward task, forward send, first
  // backward task, backward send (-1 where there is none).
  auto at = [&](int dev, int i) { return static_cast<size_t>(dev) * static_cast<size_t>(m) + static_cast<size_t>(i); };
  std::vector<TaskId> f_first(static_cast<size_t>(ndev) * m, -1), f_send(f_first), b_first(f_first), b_send(f_first);
  // Per (device, layer): last backward task of the last micro-batch (its gradients are done).
  std::vector<TaskId> grads_done(static_cast<size_t>(ndev) * static_cast<size_t>(lps), -1);
  std::vector<BufferId> act_buf(static_cast<size_t>(ndev) * m, -1);

  for (int d = 0; d < s.dp; ++d) {
    for (int st = 0; st < s.pp; ++st) {
      std::vector<std::int32_t> group;
      std::vector<StreamId> gstreams;
      for (int r = 0; r < s.tp; ++r) {
        const std::int32_t dev = gpt3_device(s, d, st, r);
        group.push_back(dev);
        gstreams.push_back(compute[static_cast<size_t>(dev)]);
        b.add_buffer("params", dev, params_per_layer * lps * 2, MemoryCategory::kParams, true);
        b.add_buffer("grads", dev, params_per_layer * lps * 2, MemoryCategory::kGrads, true);
        b.add_buffer("adam", dev, params_per_layer * lps * 12 / s.dp, MemoryCategory::kOptimizer, true);  // ZeRO-1
        for (int i = 0; i < m; ++i)
          act_buf[at(dev, i)] = b.add_buffer("act" + std::to_string(i), dev, layer_act_bytes * lps,
                                             MemoryCategory::kActivations);
      }
      // One kernel on every tensor rank, in lockstep; returns rank 0's task.
      auto all = [&](auto&& add) {
        TaskId first = -1;
        for (int r = 0; r < s.tp; ++r) {
          const TaskId x = add(compute[static_cast<size_t>(group[static_cast<size_t>(r)])]);
          if (r == 0) first = x;
        }
        return first;
      };
      auto tp_allreduce = [&](const char* name, Phase ph) {
        b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, act_bytes, gstreams, name, ph);
      };
      auto forward = [&](int i) {
        for (int r = 0; r < s.tp; ++r) {
          const std::int32_t dev = group[static_cast<size_t>(r)];
          const StreamId c = compute[static_cast<size_t>(dev)];
          TaskId first = -1;
          if (st == 0) first = b.add_memory_bound(c, act_bytes * 2, DType::kBF16, "embed");
          f_first[at(dev, i)] = first;
        }
        for (int l = 0; l < lps; ++l) {
          TaskId x = all([&](StreamId c) { return b.add_memory_bound(c, act_bytes * 2, DType::kBF16, "ln1"); });
          if (l == 0 && st > 0)
            for (int r = 0; r < s.tp; ++r) f_first[at(group[static_cast<size_t>(r)], i)] = x + r;
          all([&](StreamId c) { return b.add_gemm(c, s.seq, 3 * s.hidden / s.tp, s.hidden, DType::kBF16, "qkv"); });
          all([&](StreamId c) {
            return b.add_fixed(c, 4 * sq * sq * h / t, 2 * 2 * (s.heads / s.tp) * sq * sq, DType::kBF16, "attn");
          });
          all([&](StreamId c) { return b.add_gemm(c, s.seq, s.hidden, s.hidden / s.tp, DType::kBF16, "proj"); });
          tp_allreduce("ar_attn", Phase::kForward);
          all([&](StreamId c) { return b.add_memory_bound(c, act_bytes * 2, DType::kBF16, "ln2"); });
          all([&](StreamId c) { return b.add_gemm(c, s.seq, 4 * s.hidden / s.tp, s.hidden, DType::kBF16, "fc1"); });
          all([&](StreamId c) { return b.add_gemm(c, s.seq, s.hidden, 4 * s.hidden / s.tp, DType::kBF16, "fc2"); });
          tp_allreduce("ar_mlp", Phase::kForward);
        }
        if (st == s.pp - 1)
          all([&](StreamId c) { return b.add_gemm(c, s.seq, s.vocab / s.tp, s.hidden, DType::kBF16, "logits"); });
      };
      auto backward = [&](int i) {
        if (st == s.pp - 1)
          all([&](StreamId c) {
            return b.add_gemm(c, s.seq, s.vocab / s.tp, s.hidden, DType::kBF16, "logits_b", Phase::kBackward, 2);
          });
        bool first_done = st == s.pp - 1;
        for (int l = lps - 1; l >= 0; --l) {
          TaskId x = all([&](StreamId c) {
            return b.add_gemm(c, s.seq, s.hidden, 4 * s.hidden / s.tp, DType::kBF16, "fc2_b", Phase::kBackward, 2);
          });
          if (!first_done)
            for (int r = 0; r < s.tp; ++r) b_first[at(group[static_cast<size_t>(r)], i)] = x + r;
          first_done = true;
          all([&](StreamId c) {
            return b.add_gemm(c, s.seq, 4 * s.hidden / s.tp, s.hidden, DType::kBF16, "fc1_b", Phase::kBackward, 2);
          });
          tp_allreduce("ar_mlp_b", Phase::kBackward);
          all([&](StreamId c) { return b.add_memory_bound(c, act_bytes * 2, DType::kBF16, "ln2_b", Phase::kBackward); });
          all([&](StreamId c) {
            return b.add_gemm(c, s.seq, s.hidden, s.hidden / s.tp, DType::kBF16, "proj_b", Phase::kBackward, 2);
          });
          // Backward of attention (2x) plus its selective recomputation (1x).
          all([&](StreamId c) {
            return b.add_fixed(c, 3 * 4 * sq * sq * h / t, 3 * 2 * 2 * (s.heads / s.tp) * sq * sq, DType::kBF16,
                               "attn_b", Phase::kBackward);
          });
          all([&](StreamId c) {
            return b.add_gemm(c, s.seq, 3 * s.hidden / s.tp, s.hidden, DType::kBF16, "qkv_b", Phase::kBackward, 2);
          });
          tp_allreduce("ar_attn_b", Phase::kBackward);
          x = all([&](StreamId c) { return b.add_memory_bound(c, act_bytes * 2, DType::kBF16, "ln1_b", Phase::kBackward); });
          if (i == m - 1)
            for (int r = 0; r < s.tp; ++r)
              grads_done[static_cast<size_t>(group[static_cast<size_t>(r)]) * static_cast<size_t>(lps) + static_cast<size_t>(l)] = x + r;
        }
      };
      auto last_tasks = [&](std::vector<TaskId>& out) {
        // The last task each rank issued on its compute stream: the final
        // `tp` tasks were one per rank, in rank order (or a collective's ranks).
        out.resize(static_cast<size_t>(s.tp));
        for (int r = 0; r < s.tp; ++r) out[static_cast<size_t>(r)] = b.num_tasks() - s.tp + r;
      };
      std::vector<TaskId> last(static_cast<size_t>(s.tp));
      auto send = [&](int i, bool fwd) {
        last_tasks(last);
        for (int r = 0; r < s.tp; ++r) {
          const std::int32_t dev = group[static_cast<size_t>(r)];
          const std::int32_t peer = gpt3_device(s, d, fwd ? st + 1 : st - 1, r);
          const TaskId x = b.add_transfer(pp[static_cast<size_t>(dev)], peer, act_bytes / s.tp, fwd ? "send_act" : "send_grad",
                                          fwd ? Phase::kForward : Phase::kBackward);
          b.depend(x, last[static_cast<size_t>(r)]);
          (fwd ? f_send : b_send)[at(dev, i)] = x;
        }
      };
      auto free_acts = [&](int i) {
        last_tasks(last);
        for (int r = 0; r < s.tp; ++r) b.free(last[static_cast<size_t>(r)], act_buf[at(group[static_cast<size_t>(r)], i)]);
      };
      auto alloc_acts = [&](int i) {
        for (int r = 0; r < s.tp; ++r) {
          const std::int32_t dev = group[static_cast<size_t>(r)];
          b.alloc(f_first[at(dev, i)], act_buf[at(dev, i)]);
        }
      };
      auto run_f = [&](int i) {
        forward(i);
        alloc_acts(i);
        if (st + 1 < s.pp) send(i, true);
      };
      auto run_b = [&](int i) {
        backward(i);
        free_acts(i);
        if (st > 0) send(i, false);
      };
      // 1F1B (PipeDream-Flush): warm-up forwards, steady one-forward-one-
      // backward, cool-down backwards.
      const int warm = std::min(s.pp - st - 1, m);
      for (int i = 0; i < warm; ++i) run_f(i);
      for (int i = 0; i < m - warm; ++i) {
        run_f(warm + i);
        run_b(i);
      }
      for (int i = m - warm; i < m; ++i) run_b(i);
    }
  }
  // Pipeline edges: a stage's micro-batch waits for its input.
  for (int d = 0; d < s.dp; ++d)
    for (int st = 0; st < s.pp; ++st)
      for (int r = 0; r < s.tp; ++r) {
        const std::int32_t dev = gpt3_device(s, d, st, r);
        for (int i = 0; i < m; ++i) {
          if (st > 0) b.depend(f_first[at(dev, i)], f_send[at(gpt3_device(s, d, st - 1, r), i)]);
          if (st + 1 < s.pp) b.depend(b_first[at(dev, i)], b_send[at(gpt3_device(s, d, st + 1, r), i)]);
        }
      }
  // Data-parallel gradient AllReduce per layer (a bucket), as soon as the
  // last micro-batch's backward of that layer is done; then the optimizer.
  for (int st = 0; st < s.pp; ++st)
    for (int r = 0; r < s.tp; ++r) {
      std::vector<std::int32_t> group;
      std::vector<StreamId> streams;
      for (int d = 0; d < s.dp; ++d) {
        group.push_back(gpt3_device(s, d, st, r));
        streams.push_back(dpst[static_cast<size_t>(group.back())]);
      }
      std::vector<std::vector<TaskId>> ranks(static_cast<size_t>(s.dp));
      for (int l = lps - 1; l >= 0; --l) {
        const CollectiveId c = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group,
                                                params_per_layer * 2, streams, "dp_ar", Phase::kBackward);
        for (int k = 0; k < s.dp; ++k) {
          const TaskId x = b.collective_task(c, k);
          b.depend(x, grads_done[static_cast<size_t>(group[static_cast<size_t>(k)]) * static_cast<size_t>(lps) +
                                 static_cast<size_t>(l)]);
          ranks[static_cast<size_t>(k)].push_back(x);
        }
      }
      for (int k = 0; k < s.dp; ++k) {
        const std::int32_t dev = group[static_cast<size_t>(k)];
        const TaskId opt = b.add_memory_bound(compute[static_cast<size_t>(dev)], params_per_layer * lps * 16 / s.dp * 2,
                                              DType::kF32, "adam", Phase::kOptimizer);
        for (TaskId x : ranks[static_cast<size_t>(k)]) b.depend(opt, x);
      }
    }
  auto p = std::move(b).build();
  if (!p.is_ok()) {
    std::fprintf(stderr, "gpt3 stand-in: %s\n", p.message().c_str());
    std::abort();
  }
  return std::move(p).value();
}

}  // namespace brigade::sim
