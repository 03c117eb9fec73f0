// Kernel groups (core/kernel_groups.hpp): measured kernels by their names,
// a Program's tasks by what they are, and the rows `brigade kernels` prints.
#include "core/kernel_groups.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/program.hpp"
#include "core/trace.hpp"

namespace brigade {
namespace {

// Kernel names as Nsight Systems and PyTorch's profiler record them on
// Hopper and Ampere runs of Megatron-LM / Transformer Engine / PyTorch
// (cuBLAS, CUTLASS, FlashAttention-2, cuDNN, NCCL 2.19+ and before, Apex,
// ATen), each with the group docs/FIDELITY.md's rules give it.
TEST(KernelGroups, NamesOfRealKernelsFallInTheirGroups) {
  const std::vector<std::pair<std::string, KernelGroup>> cases = {
      {"sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_"
       "execute_segment_k_off_kernel_trans",
       KernelGroup::kGemmFp8},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_"
       "execute_segment_k_off_kernel__5x_cublas",
       KernelGroup::kGemm16},
      {"ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_nn", KernelGroup::kGemm16},
      {"sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize160x128x32_stage4_warpsize2x2x1_"
       "tensor16x8x16_kernel",
       KernelGroup::kGemm16},
      {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_"
       "align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8::Params)",
       KernelGroup::kGemm16},
      {"ampere_sgemm_128x64_tn", KernelGroup::kGemmOther},
      {"nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NTN", KernelGroup::kGemmOther},
      {"void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float>(...)",
       KernelGroup::kGemm16},
      {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
       "cutlass::bfloat16_t>, false, true, false, false, true, true, false, false>"
       "(Flash_fwd_params)",
       KernelGroup::kAttention},
      {"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, "
       "8, 2, 4, 2, false, false, cutlass::bfloat16_t>, true, false, false, false, false, true>"
       "(Flash_bwd_params)",
       KernelGroup::kAttention},
      {"cudnn_generated_fort_native_sdpa_sm90_knob_7_64x128x128_4x1x1_kernel0_0",
       KernelGroup::kAttention},
      {"void scaled_masked_softmax_warp_forward<c10::Half, c10::Half, float, 11>(c10::Half*, "
       "c10::Half const*, unsigned char const*, float, int, int, int, int)",
       KernelGroup::kAttention},
      {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, "
       "float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(...)",
       KernelGroup::kLoss},
      {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, "
       "float, long>(...)",
       KernelGroup::kLoss},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       KernelGroup::kAllReduce},
      {"ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
       KernelGroup::kAllGather},
      {"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       KernelGroup::kReduceScatter},
      {"ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       KernelGroup::kBroadcast},
      {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", KernelGroup::kSendRecv},
      {"[CUDA memcpy Device-to-Device]", KernelGroup::kMemcpy},
      {"Memset (Device)", KernelGroup::kMemcpy},
      {"void transformer_engine::(anonymous namespace)::ln_fwd_tuned_kernel<Kernel_traits<"
       "__nv_bfloat16, __nv_bfloat16, __nv_fp8_e4m3, float, unsigned int, 4096u, 1u, 1u, 4u, "
       "16u, 4ul>>(transformer_engine::layer_norm::FwdParams)",
       KernelGroup::kNorm},
      {"void cuApplyLayerNorm<c10::Half, float, c10::Half>(...)", KernelGroup::kNorm},
      {"void cuComputePartGradGammaBeta<c10::Half, float, c10::Half>(...)", KernelGroup::kNorm},
      {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, "
       "float>(...)",
       KernelGroup::kNorm},
      {"void transformer_engine::detail::cast_transpose_kernel<8, 4, __nv_bfloat16, "
       "__nv_fp8_e4m3>(...)",
       KernelGroup::kFp8Cast},
      {"void transformer_engine::delayed_scaling_recipe::(anonymous namespace)::kernel_bulk(...)",
       KernelGroup::kFp8Cast},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(...)"
       "::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(...)",
       KernelGroup::kActivation},
      {"void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float, "
       "float, float, float, float, adamMode_t, float>(...)",
       KernelGroup::kOptimizer},
      {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, "
       "unsigned int, 2, 2, -2, true>(...)",
       KernelGroup::kEmbedding},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<"
       "c10::BFloat16>, at::detail::Array<char*, 3> >(...)",
       KernelGroup::kElementwise},
      {"void at::native::(anonymous namespace)::fused_dropout_kernel_vec<c10::BFloat16, float, "
       "unsigned int, 1, 4, bool>(...)",
       KernelGroup::kElementwise},
      {"triton_poi_fused_add_mul_0", KernelGroup::kElementwise},
      // ATen's templates name their lambdas ("lambda" holds "lamb", Apex's LAMB).
      {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
       "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
       "const::{lambda(c10::BFloat16)#1}> >(int, ...)",
       KernelGroup::kElementwise},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
       "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
       "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, "
       "4> "
       ">(...)",
       KernelGroup::kElementwise},
      {"ampere_tf32_s1688gemm_tf32_128x128_16x3_nt", KernelGroup::kGemmOther},
      // Transformer Engine's activations write FP8 and say so.
      {"void transformer_engine::(anonymous namespace)::gated_act_kernel<true, float, "
       "&transformer_engine::silu<float, float>, __nv_bfloat16, __nv_fp8_e4m3>(...)",
       KernelGroup::kActivation},
      {"void transformer_engine::multi_tensor_compute_scale_and_scale_inv_kernel(...)",
       KernelGroup::kFp8Cast},
      {"triton_tem_fused_mm_0", KernelGroup::kGemmOther},
      {"void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<c10::BFloat16, "
       "float>(...)",
       KernelGroup::kNorm},
      {"my_own_kernel_0", KernelGroup::kOther},
      {"simulation_padding_allocates", KernelGroup::kOther},
  };
  for (const auto& [name, group] : cases)
    EXPECT_EQ(kernel_group_key(group_of_kernel_name(name)), kernel_group_key(group)) << name;
}

// A hand-built Program: each task's group from what it is.
TEST(KernelGroups, TasksFallInTheirGroups) {
  ProgramBuilder b("groups", 2);
  const StreamId s = b.stream(0, "compute");
  const StreamId c0 = b.stream(0, "comm");
  const StreamId c1 = b.stream(1, "comm");
  const TaskId fp8 = b.add_gemm(s, 64, 64, 64, DType::kFP8, "mlp.fc1");
  const TaskId bf16 = b.add_gemm(s, 64, 64, 64, DType::kBF16, "head.logits");
  const TaskId f32 = b.add_gemm(s, 64, 64, 64, DType::kF32, "probe");
  const TaskId flash = b.add_fixed(s, 1e9, 1e6, DType::kBF16, "attn.flash");
  b.task(flash).kernel = KernelClass::kFusedAttentionBackward;
  const TaskId ln = b.add_memory_bound(s, 1e6, DType::kBF16, "ln1");
  b.task(ln).kernel = KernelClass::kNormForward;
  const TaskId gelu = b.add_memory_bound(s, 1e6, DType::kBF16, "mlp.gelu");
  b.task(gelu).kernel = KernelClass::kActivationBackward;
  const TaskId cast = b.add_memory_bound(s, 1e6, DType::kBF16, "mlp.fc1.bwd.cast");
  const TaskId amax = b.add_memory_bound(s, 1e3, DType::kF32, "fp8.amax.fwd.update");
  const TaskId opt = b.add_memory_bound(s, 1e6, DType::kF32, "optimizer");
  const TaskId ce = b.add_memory_bound(s, 1e6, DType::kF32, "head.cross_entropy.exp");
  const TaskId emb = b.add_memory_bound(s, 1e6, DType::kBF16, "embedding.word.grad_accumulate");
  const TaskId res = b.add_memory_bound(s, 1e6, DType::kBF16, "attn.residual");
  const TaskId fused = b.add_fixed(s, 1e9, 1e6, DType::kBF16, "layers 0-1 forward");
  b.task(fused).batch = 12;
  const TaskId send = b.add_transfer(s, 1, 1e6, "pipeline send");
  const CollectiveId ar = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                           {0, 1}, 1e6, {c0, c1}, "grads");
  auto program = std::move(b).build();
  ASSERT_TRUE(program.is_ok()) << program.message();
  const Program& p = *program;
  const std::vector<std::pair<TaskId, KernelGroup>> cases = {
      {fp8, KernelGroup::kGemmFp8},
      {bf16, KernelGroup::kGemm16},
      {f32, KernelGroup::kGemmOther},
      {flash, KernelGroup::kAttention},
      {ln, KernelGroup::kNorm},
      {gelu, KernelGroup::kActivation},
      {cast, KernelGroup::kFp8Cast},
      {amax, KernelGroup::kFp8Cast},
      {opt, KernelGroup::kOptimizer},
      {ce, KernelGroup::kLoss},
      {emb, KernelGroup::kEmbedding},
      {res, KernelGroup::kElementwise},
      {fused, KernelGroup::kFused},
      {send, KernelGroup::kSendRecv},
      {p.collectives()[static_cast<size_t>(ar)].tasks[0], KernelGroup::kAllReduce},
  };
  for (const auto& [task, group] : cases)
    EXPECT_EQ(kernel_group_key(group_of_task(p, task)), kernel_group_key(group))
        << p.task_name(task);
}

// A trace's spans by group: a task's group where the span names it, its
// name's otherwise; a fused task counts its kernels; other devices' spans
// are left out.
TEST(KernelGroups, TraceSpansSumByGroup) {
  ProgramBuilder b("spans", 2);
  const StreamId s = b.stream(0, "compute");
  const TaskId gemm = b.add_gemm(s, 64, 64, 64, DType::kFP8, "mlp.fc1");
  const TaskId fused = b.add_fixed(s, 1e9, 1e6, DType::kBF16, "layers 0-1 forward");
  b.task(fused).batch = 12;
  auto program = std::move(b).build();
  ASSERT_TRUE(program.is_ok()) << program.message();
  Trace t;
  t.device_names = {"gpu0", "gpu1"};
  const NameId fc1 = t.intern("mlp.fc1");
  const NameId run = t.intern("layers 0-1 forward");
  const NameId foreign = t.intern("ncclDevKernel_AllGather_RING_LL(x)");
  t.spans.push_back(TraceSpan{gemm, 0, 0, 0.0, 0.002, fc1});
  t.spans.push_back(TraceSpan{gemm, 0, 0, 0.002, 0.005, fc1});
  t.spans.push_back(TraceSpan{fused, 0, 0, 0.005, 0.010, run});
  t.spans.push_back(TraceSpan{-1, 0, 1, 0.0, 0.004, foreign});
  t.spans.push_back(TraceSpan{gemm, 1, 0, 0.0, 1.0, fc1});  // another device
  const KernelGroupTimes g = kernel_group_times(t, &*program, 0);
  EXPECT_DOUBLE_EQ(g.of(KernelGroup::kGemmFp8), 0.005);
  EXPECT_DOUBLE_EQ(g.count[static_cast<size_t>(KernelGroup::kGemmFp8)], 2);
  EXPECT_DOUBLE_EQ(g.of(KernelGroup::kFused), 0.005);
  EXPECT_DOUBLE_EQ(g.count[static_cast<size_t>(KernelGroup::kFused)], 12);
  EXPECT_DOUBLE_EQ(g.of(KernelGroup::kAllGather), 0.004);
}

// Rows: the groups either side has, then the subtotals, each the sum of its
// groups on each side (worked by hand).
TEST(KernelGroups, RowsAndSubtotalsByHand) {
  KernelGroupTimes sim, meas;
  sim.add(KernelGroup::kGemmFp8, 1.0, 10);
  sim.add(KernelGroup::kGemm16, 0.5, 5);
  sim.add(KernelGroup::kNorm, 0.1, 4);
  sim.add(KernelGroup::kElementwise, 0.2, 8);
  sim.add(KernelGroup::kAllReduce, 0.3, 2);
  meas.add(KernelGroup::kGemmFp8, 1.2, 10);
  meas.add(KernelGroup::kGemmOther, 0.6, 5);  // nvjet: no width in the name
  meas.add(KernelGroup::kNorm, 0.15, 4);
  meas.add(KernelGroup::kOther, 0.05, 1);
  meas.add(KernelGroup::kAllReduce, 0.36, 2);
  meas.add(KernelGroup::kMemcpy, 0.04, 3);
  const std::vector<KernelGroupRow> rows = kernel_group_rows(sim, &meas);
  std::vector<std::string> keys;
  for (const KernelGroupRow& r : rows) keys.push_back(r.key);
  const std::vector<std::string> expected = {
      "gemm_fp8", "gemm_16bit", "gemm_other", "norm",          "elementwise", "allreduce",
      "memcpy",   "other",      "gemm_all",   "streaming_all", "compute_all", "communication_all"};
  EXPECT_EQ(keys, expected);
  const auto row = [&](const std::string& key) {
    for (const KernelGroupRow& r : rows)
      if (r.key == key) return r;
    ADD_FAILURE() << key;
    return KernelGroupRow{};
  };
  EXPECT_DOUBLE_EQ(row("gemm_all").simulated_seconds, 1.5);
  EXPECT_DOUBLE_EQ(row("gemm_all").measured_seconds, 1.8);
  EXPECT_DOUBLE_EQ(row("streaming_all").simulated_seconds, 0.3);
  EXPECT_DOUBLE_EQ(row("streaming_all").measured_seconds, 0.15);
  // Compute: every group but NCCL's and the copies ("other" included).
  EXPECT_DOUBLE_EQ(row("compute_all").simulated_seconds, 1.8);
  EXPECT_DOUBLE_EQ(row("compute_all").measured_seconds, 2.0);
  EXPECT_DOUBLE_EQ(row("communication_all").simulated_seconds, 0.3);
  EXPECT_DOUBLE_EQ(row("communication_all").measured_seconds, 0.4);
  EXPECT_TRUE(row("communication_all").communication);
  EXPECT_TRUE(row("memcpy").communication);
  EXPECT_FALSE(row("norm").communication);
  EXPECT_EQ(row("gemm_fp8").profile_keys,
            "gemm.fp8 curve; fp8_split_accumulator_efficiency (gradients)");
  // Without a measured side, only the simulated groups.
  EXPECT_EQ(kernel_group_rows(sim, nullptr).size(), 5u + 4u);
}

TEST(KernelGroups, MeasuredKernelsDividedByStepsAndGpus) {
  MeasuredKernels m;
  m.kernels = {{"sm90_xmma_gemm_e4m3bf16_x", 0.8, 40}, {"mystery", 0.4, 4}, {"enigma", 0.2, 2}};
  const KernelGroupTimes g = kernel_group_times(m, 4);  // 2 steps x 2 GPUs
  EXPECT_DOUBLE_EQ(g.of(KernelGroup::kGemmFp8), 0.2);
  EXPECT_DOUBLE_EQ(g.count[static_cast<size_t>(KernelGroup::kGemmFp8)], 10);
  EXPECT_DOUBLE_EQ(g.of(KernelGroup::kOther), 0.15);
  const std::vector<MeasuredKernel> unnamed = unnamed_kernels(m, 1);
  ASSERT_EQ(unnamed.size(), 1u);
  EXPECT_EQ(unnamed[0].name, "mystery");
}

// A Brigade trace read as a record (read_measured_kernels' "brigade"
// format): its spans summed by task, each placed by its task's group in the
// Program, as the simulated side's are (a name of the planner's, "mlp.fc1",
// would read as "other"); the divisor as for a profiler's record.
TEST(KernelGroups, BrigadeRecordGroupsByTask) {
  ProgramBuilder b("record", 2);
  const StreamId s0 = b.stream(0, "compute");
  const StreamId s1 = b.stream(1, "compute");
  const TaskId gemm = b.add_gemm(s0, 64, 64, 64, DType::kFP8, "mlp.fc1");
  const TaskId fused = b.add_fixed(s0, 1e9, 1e6, DType::kBF16, "layers 0-1 forward");
  b.task(fused).batch = 12;
  const TaskId other = b.add_gemm(s1, 64, 64, 64, DType::kBF16, "mlp.fc1");
  auto program = std::move(b).build();
  ASSERT_TRUE(program.is_ok()) << program.message();
  Trace t;
  t.source = "cuda";
  t.program = "record";
  t.device_names = {"gpu0", "gpu1"};
  const NameId fc1 = t.intern("mlp.fc1");
  const NameId run = t.intern("layers 0-1 forward");
  t.spans.push_back(TraceSpan{gemm, 0, 0, 0.0, 0.002, fc1});
  t.spans.push_back(TraceSpan{fused, 0, 0, 0.002, 0.010, run});
  t.spans.push_back(TraceSpan{other, 1, 1, 0.0, 0.004, fc1});
  MeasuredKernels m = measured_kernels_of_trace(t);
  EXPECT_EQ(m.format, "brigade");
  EXPECT_EQ(m.steps, 1);
  EXPECT_EQ(m.devices, (std::vector<int>{0, 1}));
  ASSERT_EQ(m.kernels.size(), 3u);
  EXPECT_EQ(m.kernels[2].task, other);
  EXPECT_EQ(m.kernels[2].device, 1);
  EXPECT_TRUE(check_record_plan(m, *program, "t.json").is_ok());
  EXPECT_TRUE(unnamed_kernels(m, 8).empty());  // tasks have their groups

  // Both devices, halved (2 GPUs): FP8 0.002 / 2, BF16 0.004 / 2; the fused
  // run 0.008 / 2 in 12 kernels / 2.
  const KernelGroupTimes both = kernel_group_times(m, 2, &*program);
  EXPECT_DOUBLE_EQ(both.of(KernelGroup::kGemmFp8), 0.001);
  EXPECT_DOUBLE_EQ(both.of(KernelGroup::kGemm16), 0.002);
  EXPECT_DOUBLE_EQ(both.of(KernelGroup::kFused), 0.004);
  EXPECT_DOUBLE_EQ(both.count[static_cast<size_t>(KernelGroup::kFused)], 6);
  // Without the Program, by name: the planner's names are no profiler's.
  EXPECT_DOUBLE_EQ(kernel_group_times(m, 1).of(KernelGroup::kOther), 0.014);

  EXPECT_TRUE(m.has_device(0));
  EXPECT_TRUE(m.has_device(1));
  EXPECT_FALSE(m.has_device(2));
  EXPECT_FALSE(m.has_device(-1));
  const KernelGroupTimes one = kernel_group_times(m, 1, &*program, 0);
  EXPECT_DOUBLE_EQ(one.of(KernelGroup::kGemmFp8), 0.002);
  EXPECT_DOUBLE_EQ(one.of(KernelGroup::kGemm16), 0);
  // The same as the simulated side's reading of the trace itself.
  const KernelGroupTimes direct = kernel_group_times(t, &*program, 0);
  EXPECT_EQ(one.seconds, direct.seconds);
  EXPECT_EQ(one.count, direct.count);

  // A profiler's kernels carry no device: a device chosen keeps them all.
  MeasuredKernels nsys;
  nsys.format = "nsys";
  nsys.kernels = {{"sm90_xmma_gemm_e4m3bf16_x", 0.8, 40}};
  EXPECT_FALSE(nsys.has_device(3));
  EXPECT_DOUBLE_EQ(kernel_group_times(nsys, 2, &*program, 3).of(KernelGroup::kGemmFp8), 0.4);
  EXPECT_TRUE(check_record_plan(nsys, *program, "k.csv").is_ok());
}

// A Brigade trace of another plan is refused, naming what differs.
TEST(KernelGroups, BrigadeRecordOfAnotherPlanRefused) {
  ProgramBuilder b("plan", 1);
  const StreamId s = b.stream(0, "compute");
  b.add_gemm(s, 64, 64, 64, DType::kBF16, "attn.qkv");
  auto program = std::move(b).build();
  ASSERT_TRUE(program.is_ok()) << program.message();
  MeasuredKernels m;
  m.format = "brigade";
  m.program = "other";
  m.kernels = {{"attn.qkv", 0.1, 1, 0, 0}};
  auto st = check_record_plan(m, *program, "t.json");
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(),
            "t.json: error: found a trace of program 'other'; expected a trace of this "
            "scenario's plan, program 'plan' of 1 tasks (brigade execute --trace or brigade "
            "simulate --trace of the same scenario, at the same --granularity)");
  m.program = "plan";
  m.kernels = {{"ln1", 0.1, 1, 0, 0}};
  st = check_record_plan(m, *program, "t.json");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("found task 0 named 'ln1' on device 0 (the plan's: 'attn.qkv' on "
                              "device 0)"),
            std::string::npos)
      << st.message();
  m.kernels = {{"attn.qkv", 0.1, 1, 5, 0}};
  st = check_record_plan(m, *program, "t.json");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("found task 5 ('attn.qkv'), past the plan's tasks"),
            std::string::npos);
  m.kernels = {{"attn.qkv", 0.1, 1, 0, 0}};
  EXPECT_TRUE(check_record_plan(m, *program, "t.json").is_ok());
  // The task's id on another device too (its spans kept apart): refused.
  m.kernels = {{"attn.qkv", 0.1, 1, 0, 0}, {"attn.qkv", 0.1, 1, 0, 1}};
  st = check_record_plan(m, *program, "t.json");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("found task 0 named 'attn.qkv' on device 1"), std::string::npos)
      << st.message();
  m.program.clear();
  st = check_record_plan(m, *program, "t.json");
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("found a Brigade trace whose \"brigade\" header names no program"),
            std::string::npos)
      << st.message();
}

// scale_to_record by hand: each group's keys times simulated / measured,
// an efficiency held at 1, unset norm and activation efficiencies taken
// from memory_efficiency before it moves, groups one side lacks left.
TEST(KernelGroups, ScaleToRecordByHand) {
  DeviceProfile p;
  p.memory_efficiency = 0.8;
  p.gemm[static_cast<size_t>(DType::kFP8)].points = {{1e9, 0.5}, {1e12, 0.7}};
  p.gemm[static_cast<size_t>(DType::kBF16)].points = {{1e12, 0.75}};
  FlashAttentionRates fa;
  fa.head_dim = 128;
  fa.forward.points = {{2048, 4e14}};
  fa.backward.points = {{2048, 3e14}};
  p.flash_attention = {fa};
  KernelGroupTimes sim, meas;
  sim.add(KernelGroup::kGemmFp8, 1.0);
  meas.add(KernelGroup::kGemmFp8, 2.0);  // twice as slow: efficiencies halve
  sim.add(KernelGroup::kGemm16, 1.0);    // not in the record: left
  sim.add(KernelGroup::kAttention, 0.4);
  meas.add(KernelGroup::kAttention, 0.5);  // 1.25 x: rates / 1.25
  sim.add(KernelGroup::kNorm, 0.1);
  meas.add(KernelGroup::kNorm, 0.125);  // 0.8 (from memory_efficiency) / 1.25 = 0.64
  sim.add(KernelGroup::kElementwise, 0.2);
  sim.add(KernelGroup::kFp8Cast, 0.2);       // not in the record: not pooled
  meas.add(KernelGroup::kElementwise, 0.1);  // 0.5 x: 0.8 / 0.5 = 1.6, held at 1
  const std::vector<ProfileScaling> s = scale_to_record(p, sim, meas);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].key, "gemm.fp8");
  EXPECT_DOUBLE_EQ(s[0].ratio, 2);
  EXPECT_DOUBLE_EQ(s[0].factor, 0.5);
  EXPECT_DOUBLE_EQ(p.gemm[static_cast<size_t>(DType::kFP8)].points[0].second, 0.25);
  EXPECT_DOUBLE_EQ(p.gemm[static_cast<size_t>(DType::kFP8)].points[1].second, 0.35);
  EXPECT_DOUBLE_EQ(p.gemm[static_cast<size_t>(DType::kBF16)].points[0].second, 0.75);
  EXPECT_EQ(s[1].group, "attention");
  EXPECT_DOUBLE_EQ(p.flash_attention[0].forward.points[0].second, 3.2e14);
  EXPECT_DOUBLE_EQ(p.flash_attention[0].backward.points[0].second, 2.4e14);
  // An unfused core's efficiencies, unset, start from memory_efficiency.
  EXPECT_DOUBLE_EQ(p.attention_forward_efficiency, 0.64);
  EXPECT_EQ(s[2].group, "norms");
  EXPECT_DOUBLE_EQ(p.norm_forward_efficiency, 0.64);
  EXPECT_DOUBLE_EQ(p.norm_backward_efficiency, 0.64);
  EXPECT_DOUBLE_EQ(p.activation_forward_efficiency, 0.8);  // fixed at memory_efficiency's old value
  EXPECT_EQ(s[3].key, "memory_efficiency");
  EXPECT_DOUBLE_EQ(s[3].ratio, 0.5);
  EXPECT_TRUE(s[3].held);
  EXPECT_DOUBLE_EQ(s[3].factor, 0);
  EXPECT_DOUBLE_EQ(p.memory_efficiency, 1);
  EXPECT_EQ(s[3].groups.size(), 5u);

  // Its halves: the plan has the same keys and ratios and moves nothing
  // (nothing held yet, factor 1 / ratio); applied, the same profile.
  DeviceProfile q;
  q.memory_efficiency = 0.8;
  q.gemm[static_cast<size_t>(DType::kFP8)].points = {{1e9, 0.5}, {1e12, 0.7}};
  std::vector<ProfileScaling> plan = plan_profile_scaling(sim, meas);
  ASSERT_EQ(plan.size(), 4u);
  for (size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(plan[i].key, s[i].key);
    EXPECT_EQ(plan[i].ratio, s[i].ratio);
    EXPECT_FALSE(plan[i].held);
    EXPECT_DOUBLE_EQ(plan[i].factor, 1 / s[i].ratio);
  }
  EXPECT_EQ(plan[0].what, ScaledKeys::kGemmFp8);
  EXPECT_EQ(plan[3].what, ScaledKeys::kMemory);
  apply_profile_scaling(q, plan);
  EXPECT_TRUE(plan[3].held);
  EXPECT_DOUBLE_EQ(plan[3].factor, 0);
  EXPECT_DOUBLE_EQ(q.gemm[static_cast<size_t>(DType::kFP8)].points[1].second, 0.35);
  EXPECT_DOUBLE_EQ(q.norm_forward_efficiency, 0.64);
  EXPECT_DOUBLE_EQ(q.memory_efficiency, 1);
}

// A record whose GEMMs give no width (cuBLAS's nvjet kernels: "other
// widths") against a plan of FP8 and BF16 GEMMs: every width by the GEMMs'
// time together, not FP8 by FP8 alone (which the record has none of).
TEST(KernelGroups, ScaleToRecordTakesGemmsTogetherWhenTheRecordGivesNoWidth) {
  DeviceProfile p;
  p.gemm[static_cast<size_t>(DType::kFP8)].points = {{1e12, 0.8}};
  p.gemm[static_cast<size_t>(DType::kBF16)].points = {{1e12, 0.6}};
  KernelGroupTimes sim, meas;
  sim.add(KernelGroup::kGemmFp8, 1.0);
  sim.add(KernelGroup::kGemm16, 1.0);
  meas.add(KernelGroup::kGemmFp8, 0.5);    // the few kernels that name FP8
  meas.add(KernelGroup::kGemmOther, 2.5);  // nvjet: (0.5 + 2.5) / 2 = 1.5 x slower
  const std::vector<ProfileScaling> s = scale_to_record(p, sim, meas);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].group, "GEMMs, all widths");
  EXPECT_DOUBLE_EQ(s[0].ratio, 1.5);
  EXPECT_DOUBLE_EQ(p.gemm[static_cast<size_t>(DType::kFP8)].points[0].second, 0.8 / 1.5);
  EXPECT_DOUBLE_EQ(p.gemm[static_cast<size_t>(DType::kBF16)].points[0].second, 0.4);
}

// Bounds: an efficiency is held at 1e-6, an attention rate at the peak.
TEST(KernelGroups, ScaleToRecordHoldsItsKeysWithinTheirBounds) {
  DeviceProfile p;
  p.memory_efficiency = 0.5;
  p.norm_forward_efficiency = 0.5;
  p.norm_backward_efficiency = 0.5;
  FlashAttentionRates fa;
  fa.head_dim = 128;
  fa.forward.points = {{2048, 4e14}};
  fa.backward.points = {{2048, 4e14}};
  p.flash_attention = {fa};
  KernelGroupTimes sim, meas;
  sim.add(KernelGroup::kNorm, 1e-9);
  meas.add(KernelGroup::kNorm, 1.0);  // a billion times slower: held at 1e-6
  sim.add(KernelGroup::kAttention, 1.0);
  meas.add(KernelGroup::kAttention, 0.1);  // 10 x faster: 4e15, held at a 1e15 peak
  const std::vector<ProfileScaling> s = scale_to_record(p, sim, meas, 1e15);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(s[0].held);
  EXPECT_TRUE(s[1].held);
  EXPECT_DOUBLE_EQ(p.norm_forward_efficiency, 1e-6);
  EXPECT_DOUBLE_EQ(p.flash_attention[0].forward.points[0].second, 1e15);
}

}  // namespace
}  // namespace brigade
