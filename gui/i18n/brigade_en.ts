<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>Amdahl</name>
    <message>
        <source>no Amdahl fit: a lone collective has no work that divides over the devices (each rank moves its M bytes whatever their number; a ring&apos;s time grows as (N-1)/N), so a parallel fraction means nothing here</source>
        <translation></translation>
    </message>
    <message>
        <source>the fitted p is not a parallel fraction (Amdahl&apos;s law needs 0 &lt;= p &lt;= 1): the step only grows with the devices, whatever of it is parallel is outweighed by what adding devices costs</source>
        <translation></translation>
    </message>
    <message>
        <source>the fitted p is not a parallel fraction (Amdahl&apos;s law needs 0 &lt;= p &lt;= 1): the speedup is better than linear (per-device work fits caches or memory better)</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>CalibrationPlots</name>
    <message>
        <source>%1 measured</source>
        <translation></translation>
    </message>
    <message>
        <source>streaming kernels: T = α + bytes / B</source>
        <translation></translation>
    </message>
    <message>
        <source>collective steps, all kinds together: T = overhead + s α + copied / B + reduced / B_r</source>
        <translation></translation>
    </message>
    <message>
        <source>transfers over %1: T = α + bytes / B</source>
        <translation></translation>
    </message>
    <message>
        <source>%1&apos;s own steps (α and scale by size)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 GEMM curve against its samples</source>
        <translation></translation>
    </message>
    <message>
        <source>GEMM efficiency (of each dtype&apos;s peak) against FLOP per GEMM</source>
        <translation></translation>
    </message>
    <message>
        <source>FLOP per GEMM (log scale)</source>
        <translation></translation>
    </message>
    <message>
        <source>efficiency</source>
        <translation></translation>
    </message>
    <message>
        <source>peaks: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>no peak known for %1: the curve alone (no half-performance time)</source>
        <translation></translation>
    </message>
    <message>
        <source>Streaming kernels: bandwidth against bytes per kernel</source>
        <translation></translation>
    </message>
    <message>
        <source>bytes per kernel (log scale)</source>
        <translation></translation>
    </message>
    <message>
        <source>bandwidth (bytes / kernel time)</source>
        <translation></translation>
    </message>
    <message>
        <source>model: %1 x %2, launch %3</source>
        <translation></translation>
    </message>
    <message>
        <source>no memory bandwidth known for %1 (neither measured nor a data sheet&apos;s): no model line</source>
        <translation></translation>
    </message>
    <message>
        <source>measured</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) over %1</source>
        <translation>
            <numerusform>%n rank over %1</numerusform>
            <numerusform>%n ranks over %1</numerusform>
        </translation>
    </message>
    <message>
        <source>no link measured in this profile: transfers and collectives take the topology&apos;s bandwidths (open a scenario that names the profile to see them)</source>
        <translation></translation>
    </message>
    <message>
        <source>Transfers: bandwidth against bytes, per link class</source>
        <translation></translation>
    </message>
    <message>
        <source>bytes (log scale)</source>
        <translation></translation>
    </message>
    <message>
        <source>bandwidth (bytes / time)</source>
        <translation></translation>
    </message>
    <message>
        <source>Collectives: bus bandwidth against size (nccl-tests&apos; busBw)</source>
        <translation></translation>
    </message>
    <message>
        <source>size M (bytes, log scale)</source>
        <translation></translation>
    </message>
    <message>
        <source>bus bandwidth</source>
        <translation></translation>
    </message>
    <message>
        <source>ring algorithm, %1</source>
        <translation></translation>
    </message>
    <message>
        <source>ring algorithm; solid: %1; dashed: %2</source>
        <translation></translation>
    </message>
    <message>
        <source>no samples in this profile: the fits alone</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) in node %1</source>
        <translation>
            <numerusform>%n rank in node %1</numerusform>
            <numerusform>%n ranks in node %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n node(s), one rank each</source>
        <translation>
            <numerusform>%n node, one rank each</numerusform>
            <numerusform>%n nodes, one rank each</numerusform>
        </translation>
    </message>
    <message>
        <source>norm</source>
        <translation></translation>
    </message>
    <message>
        <source>norm backward</source>
        <translation></translation>
    </message>
    <message>
        <source>activation</source>
        <translation></translation>
    </message>
    <message>
        <source>activation backward</source>
        <translation></translation>
    </message>
    <message>
        <source>norm measured</source>
        <translation></translation>
    </message>
    <message>
        <source>activation measured</source>
        <translation></translation>
    </message>
    <message>
        <source>gated activation</source>
        <translation></translation>
    </message>
    <message>
        <source>gated activation backward</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 model x %2</source>
        <translation></translation>
    </message>
    <message>
        <source>gated activation measured</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>Compare</name>
    <message>
        <source>simulated (%1)</source>
        <translation></translation>
    </message>
    <message>
        <source>closed form</source>
        <translation></translation>
    </message>
    <message>
        <source>a trace</source>
        <translation></translation>
    </message>
    <message>
        <source>measured (%1)</source>
        <translation></translation>
    </message>
    <message>
        <source>step: A %1, B %2, B - A %3%4</source>
        <translation></translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>&apos;%1&apos; · %2 · %n device(s) · step %3</source>
        <translation>
            <numerusform>&apos;%1&apos; · %2 · %n device · step %3</numerusform>
            <numerusform>&apos;%1&apos; · %2 · %n devices · step %3</numerusform>
        </translation>
    </message>
    <message>
        <source>different programs: &apos;%1&apos; and &apos;%2&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>no device names in common: devices matched by id</source>
        <translation></translation>
    </message>
    <message>
        <source>different devices: %1 and %2 (%3 in common: no per-device rows)</source>
        <translation></translation>
    </message>
    <message>
        <source>different devices: %1 and %2 (%3 in common)</source>
        <translation></translation>
    </message>
    <message>
        <source>a measurement against a prediction (%1, %2)</source>
        <translation></translation>
    </message>
    <message>
        <source>a prediction against a measurement (%1, %2)</source>
        <translation></translation>
    </message>
    <message>
        <source>per-kind times counted differently (A: %1, B: %2): compared are the step, the devices and the memory</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>HostLane</name>
    <message>
        <source>device %1</source>
        <translation></translation>
    </message>
    <message>
        <source>task %1</source>
        <translation></translation>
    </message>
    <message>
        <source>%1&apos;s host issues %2: %3, from %4 to %5</source>
        <translation></translation>
    </message>
    <message>
        <source>; it started then, waiting for its host</source>
        <translation></translation>
    </message>
    <message>
        <source>; it started at %1</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>KernelGroups</name>
    <message>
        <source>kernel groups of %1 on %2, one step (simulated, %3)</source>
        <translation></translation>
    </message>
    <message>
        <source>against %1 (%2 steps, %3 GPUs: its times / %4)</source>
        <translation></translation>
    </message>
    <message>
        <source>granularity %1: a fused run of kernels is a group of its own (open the scenario with --granularity kernel, or run brigade kernels, to name each kernel&apos;s group)</source>
        <translation></translation>
    </message>
    <message>
        <source>against %1 (Brigade&apos;s trace from %2, its device %3: its times / %4)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1: no span of %2 in Brigade&apos;s trace</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>LaneLayout</name>
    <message>
        <source>node %1</source>
        <translation></translation>
    </message>
    <message>
        <source>device %1</source>
        <translation></translation>
    </message>
    <message>
        <source>stream %1</source>
        <translation></translation>
    </message>
    <message>
        <source>host</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>Loader</name>
    <message>
        <source>%1 on %2, granularity %3</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>%n task(s)</source>
        <translation>
            <numerusform>%n task</numerusform>
            <numerusform>%n tasks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n device(s)</source>
        <translation>
            <numerusform>%n device</numerusform>
            <numerusform>%n devices</numerusform>
        </translation>
    </message>
    <message>
        <source>recorded for %1</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>MemorySeries</name>
    <message>
        <source>resident buffers</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 (task %2)</source>
        <translation></translation>
    </message>
    <message>
        <source>task %1</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>ModelText</name>
    <message>
        <source>parameters</source>
        <translation></translation>
    </message>
    <message>
        <source>gradients</source>
        <translation></translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation></translation>
    </message>
    <message>
        <source>activations</source>
        <translation></translation>
    </message>
    <message>
        <source>communication buffers</source>
        <translation></translation>
    </message>
    <message>
        <source>other</source>
        <translation></translation>
    </message>
    <message>
        <source>per device</source>
        <translation></translation>
    </message>
    <message>
        <source>peak memory per device</source>
        <translation></translation>
    </message>
    <message>
        <source>per task kind (span time summed over devices)</source>
        <translation></translation>
    </message>
    <message>
        <source>per task kind (the busiest device&apos;s time per step)</source>
        <translation></translation>
    </message>
    <message>
        <source>busy</source>
        <translation></translation>
    </message>
    <message>
        <source>communication</source>
        <translation></translation>
    </message>
    <message>
        <source>exposed</source>
        <translation></translation>
    </message>
    <message>
        <source>idle</source>
        <translation></translation>
    </message>
    <message>
        <source>peak memory</source>
        <translation></translation>
    </message>
    <message>
        <source>time</source>
        <translation></translation>
    </message>
    <message>
        <source>forward</source>
        <translation></translation>
    </message>
    <message>
        <source>backward</source>
        <translation></translation>
    </message>
    <message>
        <source>recompute</source>
        <translation></translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation></translation>
    </message>
    <message>
        <source>other compute</source>
        <translation></translation>
    </message>
    <message>
        <source>transfer</source>
        <translation></translation>
    </message>
    <message>
        <source>collective</source>
        <translation></translation>
    </message>
    <message>
        <source>reading</source>
        <translation></translation>
    </message>
    <message>
        <source>lowering</source>
        <translation></translation>
    </message>
    <message>
        <source>simulating</source>
        <translation></translation>
    </message>
    <message>
        <source>indexing</source>
        <translation></translation>
    </message>
    <message>
        <source>host issuing</source>
        <translation></translation>
    </message>
    <message>
        <source>GEMM, FP8</source>
        <translation></translation>
    </message>
    <message>
        <source>GEMM, BF16/FP16</source>
        <translation></translation>
    </message>
    <message>
        <source>GEMM, other widths</source>
        <translation></translation>
    </message>
    <message>
        <source>attention</source>
        <translation></translation>
    </message>
    <message>
        <source>norms</source>
        <translation></translation>
    </message>
    <message>
        <source>activation functions</source>
        <translation></translation>
    </message>
    <message>
        <source>FP8 casts and scaling</source>
        <translation></translation>
    </message>
    <message>
        <source>loss</source>
        <translation></translation>
    </message>
    <message>
        <source>embedding</source>
        <translation></translation>
    </message>
    <message>
        <source>other streaming</source>
        <translation></translation>
    </message>
    <message>
        <source>fused runs</source>
        <translation></translation>
    </message>
    <message>
        <source>NCCL AllReduce</source>
        <translation></translation>
    </message>
    <message>
        <source>NCCL AllGather</source>
        <translation></translation>
    </message>
    <message>
        <source>NCCL ReduceScatter</source>
        <translation></translation>
    </message>
    <message>
        <source>NCCL Broadcast/Reduce</source>
        <translation></translation>
    </message>
    <message>
        <source>send/recv, AllToAll</source>
        <translation></translation>
    </message>
    <message>
        <source>copies and fills</source>
        <translation></translation>
    </message>
    <message>
        <source>GEMMs, all widths</source>
        <translation></translation>
    </message>
    <message>
        <source>streaming, all</source>
        <translation></translation>
    </message>
    <message>
        <source>compute, all</source>
        <translation></translation>
    </message>
    <message>
        <source>communication and copies</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>PlanWarnings</name>
    <message>
        <source>schedule: interleaved with virtual_stages: 1 is plain 1F1B (interleaving needs 2 or more model chunks per device): judged as 1F1B</source>
        <translation></translation>
    </message>
    <message>
        <source>no strategy: the plan uses 1 of the topology&apos;s %1 devices (strategy: {data: %1} would use them all; `brigade search` looks for a strategy)</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>Purpose</name>
    <message>
        <source>data</source>
        <translation></translation>
    </message>
    <message>
        <source>tensor</source>
        <translation></translation>
    </message>
    <message>
        <source>pipeline</source>
        <translation></translation>
    </message>
    <message>
        <source>expert</source>
        <translation></translation>
    </message>
    <message>
        <source>expert data</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence</source>
        <translation></translation>
    </message>
    <message>
        <source>tied embedding</source>
        <translation></translation>
    </message>
    <message>
        <source>zero-3 params</source>
        <translation></translation>
    </message>
    <message>
        <source>sharding</source>
        <translation></translation>
    </message>
    <message>
        <source>transfer</source>
        <translation></translation>
    </message>
    <message>
        <source>collective</source>
        <translation></translation>
    </message>
    <message>
        <source>fp8 amax</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>Reasons</name>
    <message>
        <source>FP8 current scaling: the amax of a sequence-parallel tensor is reduced over &apos;tensor&apos; before its cast, so that every rank&apos;s shard takes one scale</source>
        <translation></translation>
    </message>
    <message>
        <source>FP8 delayed scaling: the amaxes of the device&apos;s FP8 tensors reduced (MAX) over &apos;tensor&apos; once a chunk&apos;s pass (Transformer Engine&apos;s reduce_and_update_fp8_tensors)</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel: gather the LayerNorm output&apos;s sequence shards over &apos;tensor&apos; before the column-parallel QKV GEMM</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel: the row-parallel projection leaves partial sums; reduce-scatter them over &apos;tensor&apos; into sequence shards</source>
        <translation></translation>
    </message>
    <message>
        <source>Megatron row-parallel attention projection: each rank holds a partial sum over its heads; psum over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel: gather the LayerNorm output&apos;s sequence shards over &apos;tensor&apos; before the column-parallel fc1 GEMM</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel: the row-parallel fc2 leaves partial sums; reduce-scatter them over &apos;tensor&apos; into sequence shards</source>
        <translation></translation>
    </message>
    <message>
        <source>Megatron row-parallel fc2: each rank holds a partial sum over its FFN columns; psum over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel backward: gather the output gradient&apos;s sequence shards over &apos;tensor&apos; (the transpose of the forward reduce-scatter)</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel backward: re-gather fc1&apos;s input over &apos;tensor&apos; for its weight gradient (only the sequence shard was kept)</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel backward: fc1&apos;s input gradient is partial over the FFN shards; reduce-scatter it over &apos;tensor&apos; (the transpose of the forward all-gather)</source>
        <translation></translation>
    </message>
    <message>
        <source>backward of the column-parallel fc1: its input gradient is a partial sum over the FFN columns; psum over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel backward: re-gather the QKV input over &apos;tensor&apos; for its weight gradient (only the sequence shard was kept)</source>
        <translation></translation>
    </message>
    <message>
        <source>the scenario asks for one %1 of %2 bytes over %3 devices (%4)</source>
        <translation></translation>
    </message>
    <message>
        <source>psum over %1: the gradients of %2 sum over the batch, which is split over %1 (averaging gradients; one bucket, as DDP buckets or XLA&apos;s all-reduce combiner)</source>
        <translation></translation>
    </message>
    <message>
        <source>psum_scatter over %1: ZeRO-%2: the gradients of %3 sum over the batch split over %1; each replica keeps the 1/%4 shard it updates</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 tensor-parallel %2s of this pipeline step, merged into one (granularity step): </source>
        <translation></translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s pipeline engine sends 1/%1 of the boundary tensor a rank; all-gather it back over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>Megatron-LM&apos;s scatter-gather sends 1/%1 of the boundary tensor a rank; all-gather it back over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>ZeRO-%1: sum the gradients over &apos;data&apos; bucket by bucket, each replica keeping the 1/%2 shard it updates</source>
        <translation></translation>
    </message>
    <message>
        <source>data parallel: average the gradients over &apos;data&apos; (the sauce bowl) bucket by bucket, each as soon as the backward has produced it</source>
        <translation></translation>
    </message>
    <message>
        <source>; this bucket: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>expert parallel: send each token&apos;s top-%1 copies to the ranks of &apos;expert&apos; (%2 ranks, %3 experts each) that hold their experts</source>
        <translation></translation>
    </message>
    <message>
        <source>expert parallel: return the experts&apos; outputs over &apos;expert&apos; to the ranks whose tokens they were</source>
        <translation></translation>
    </message>
    <message>
        <source>expert parallel backward: send the output gradients of the token copies over &apos;expert&apos; to the ranks holding their experts (the transpose of the combine)</source>
        <translation></translation>
    </message>
    <message>
        <source>expert parallel backward: return the input gradients of the token copies over &apos;expert&apos; (the transpose of the dispatch)</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel backward: re-gather the MLP input over &apos;tensor&apos; for the weight gradients (only the sequence shard was kept)</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel backward: the QKV input gradient is partial over the heads; reduce-scatter it over &apos;tensor&apos; (the transpose of the forward all-gather)</source>
        <translation></translation>
    </message>
    <message>
        <source>backward of the column-parallel QKV: its input gradient is a partial sum over the heads; psum over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>psum_scatter over %1 onto dimension %2</source>
        <translation></translation>
    </message>
    <message>
        <source>psum over %1</source>
        <translation></translation>
    </message>
    <message>
        <source>all_to_all over %1 (dimension %2 -&gt; %3)</source>
        <translation></translation>
    </message>
    <message>
        <source>all_gather over %1 (dimension %2)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation></translation>
    </message>
    <message>
        <source>the loss &apos;%1&apos; sums over every element of its input, which is split over %2</source>
        <translation></translation>
    </message>
    <message>
        <source>the table of %1 is split over %2 by vocabulary rows; each device looked up only its rows</source>
        <translation></translation>
    </message>
    <message>
        <source>the contracted dimension (size %1) of %2 is split over %3, so each device holds a partial sum (y = sum_k x_k W_k)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 needs %2 as %3 (whole rows)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 needs %2 as %3</source>
        <translation></translation>
    </message>
    <message>
        <source>the gradient of %1 sums over the batch, which is split over %2 (averaging gradients, pmean)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 is wanted as %2</source>
        <translation></translation>
    </message>
    <message>
        <source>all_gather over %1: ZeRO-%2: each replica updated only its 1/%3 of %4; gather the new weights (the shared platter)</source>
        <translation></translation>
    </message>
    <message>
        <source>ZeRO-3: each data replica keeps 1/%1 of %2&apos;s parameters; all-gather them over &apos;data&apos; before use</source>
        <translation></translation>
    </message>
    <message>
        <source>ZeRO-3: sum %1&apos;s gradients over &apos;data&apos;, each replica keeping its 1/%2 shard</source>
        <translation></translation>
    </message>
    <message>
        <source>tied word embeddings: the first and last pipeline stages each hold a copy; sum their gradients</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel: LayerNorm, bias and position-embedding gradients are partial over the sequence shards; psum over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>QK-norm: each tensor rank&apos;s query and key norms saw only its own heads; sum their gains&apos; gradients over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>expert parallel: each expert lives on %1 data ranks (one per expert-parallel group); sum its gradients over them, the expert-data group, not over &apos;data&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>expert parallel, ZeRO-1: each expert lives on %1 data ranks; reduce-scatter its gradients over them, the expert-data group, each keeping the shard it updates</source>
        <translation></translation>
    </message>
    <message>
        <source>expert parallel, ZeRO-1: each of the expert&apos;s %1 data ranks updated its shard; all-gather the new expert weights over them</source>
        <translation></translation>
    </message>
    <message>
        <source>ZeRO-%1 with overlap_param_gather: each data replica updated only its 1/%2 of the weights; all-gather them over &apos;data&apos; bucket by bucket in the next step&apos;s first forward, one bucket ahead of the compute</source>
        <translation></translation>
    </message>
    <message>
        <source>ZeRO-%1: each data replica updated only its 1/%2 of the weights; all-gather the new weights over &apos;data&apos; (the shared platter), bucket by bucket</source>
        <translation></translation>
    </message>
    <message>
        <source>vocabulary-parallel embedding: each rank looked up only its V/t rows; reduce-scatter the partial embeddings over &apos;tensor&apos; into sequence shards</source>
        <translation></translation>
    </message>
    <message>
        <source>vocabulary-parallel embedding: each rank looked up only its V/t rows; psum over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel backward: gather the embedding gradient&apos;s sequence shards over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel: gather the final hidden states&apos; sequence shards over &apos;tensor&apos; before the vocabulary-parallel logits GEMM</source>
        <translation></translation>
    </message>
    <message>
        <source>vocabulary-parallel cross-entropy: max, target logit and sum of exponentials over the V/t shards; psum over &apos;tensor&apos; (Megatron-LM issues three all-reduces of b*s values; fused here into one)</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel backward: the logits&apos; input gradient is partial over the vocabulary shards; reduce-scatter it over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>backward of the vocabulary-parallel logits GEMM: its input gradient is a partial sum over the vocabulary shards; psum over &apos;tensor&apos;</source>
        <translation></translation>
    </message>
    <message>
        <source>FP8 delayed scaling: the amaxes of the device&apos;s FP8 tensors reduced (MAX) over &apos;tensor&apos; and &apos;context&apos; once a chunk&apos;s pass (Transformer Engine&apos;s reduce_and_update_fp8_tensors)</source>
        <translation></translation>
    </message>
    <message>
        <source>FP8 delayed scaling: the amaxes of the device&apos;s FP8 tensors reduced (MAX) over &apos;tensor&apos;, &apos;data&apos; and &apos;context&apos; once a chunk&apos;s pass (Transformer Engine&apos;s reduce_and_update_fp8_tensors)</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>Roles</name>
    <message>
        <source>rank %1 of %2</source>
        <translation></translation>
    </message>
    <message>
        <source>idle</source>
        <translation></translation>
    </message>
    <message>
        <source>runs %1</source>
        <translation></translation>
    </message>
    <message>
        <source>tensor %1/%2, data %3/%4, pipeline %5/%6</source>
        <translation></translation>
    </message>
    <message>
        <source>, </source>
        <translation></translation>
    </message>
    <message>
        <source>%1 %2/%3</source>
        <comment>a mesh axis&apos;s name, the coordinate/its size</comment>
        <translation></translation>
    </message>
    <message>
        <source>, experts %1-%2 of %3</source>
        <translation></translation>
    </message>
    <message>
        <source>, expert %1 of %2</source>
        <translation></translation>
    </message>
    <message>
        <source>, context %1/%2 (positions %3-%4 and %5-%6; KV ring to device %7)</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>SpanDetails</name>
    <message>
        <source>(unnamed)</source>
        <translation></translation>
    </message>
    <message>
        <source>device %1</source>
        <translation></translation>
    </message>
    <message>
        <source>stream %1</source>
        <translation></translation>
    </message>
    <message>
        <source>stream order: issued after it on the same stream (%1)</source>
        <translation></translation>
    </message>
    <message>
        <source>data: the transfer from device %1 to this device</source>
        <translation></translation>
    </message>
    <message>
        <source>dependency on a transfer</source>
        <translation></translation>
    </message>
    <message>
        <source>data computed on device %1</source>
        <translation></translation>
    </message>
    <message>
        <source>event: a kernel on stream &apos;%1&apos; of this device</source>
        <translation></translation>
    </message>
    <message>
        <source>dependency</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 — %2 (%3, %4)</source>
        <translation></translation>
    </message>
    <message>
        <source>kind</source>
        <translation></translation>
    </message>
    <message>
        <source>where</source>
        <translation></translation>
    </message>
    <message>
        <source>start</source>
        <translation></translation>
    </message>
    <message>
        <source>end</source>
        <translation></translation>
    </message>
    <message>
        <source>duration</source>
        <translation></translation>
    </message>
    <message>
        <source>task</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 (phase %2)</source>
        <translation></translation>
    </message>
    <message>
        <source>layer</source>
        <translation></translation>
    </message>
    <message>
        <source>micro-batch</source>
        <translation></translation>
    </message>
    <message>
        <source>op</source>
        <translation></translation>
    </message>
    <message>
        <source>bytes</source>
        <translation></translation>
    </message>
    <message>
        <source>achieved</source>
        <translation></translation>
    </message>
    <message>
        <source>GEMM %1 x %2 x %3%4 (%5)</source>
        <translation></translation>
    </message>
    <message>
        <source>waves</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 filled (%2 waves of %3 tiles of %4 x %5; a part-full wave takes a full one&apos;s time)</source>
        <translation></translation>
    </message>
    <message>
        <source>NCCL&apos;s SMs</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 of it beside collectives, the longest &apos;%2&apos; (its NCCL kernel holds %3 of %4 SMs): about %5 longer than alone</source>
        <translation></translation>
    </message>
    <message>
        <source>, batch %1</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 kernel (%2)</source>
        <translation></translation>
    </message>
    <message>
        <source>transfer to %1</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 (nccl-tests size)</source>
        <translation></translation>
    </message>
    <message>
        <source>why</source>
        <translation></translation>
    </message>
    <message>
        <source>barrier: the last rank to arrive was %1 (rank %2), waiting for &apos;%3&apos; (%4)</source>
        <translation></translation>
    </message>
    <message>
        <source>nothing: the first task of its stream, with no dependencies</source>
        <translation></translation>
    </message>
    <message>
        <source>&apos;%1&apos; — %2</source>
        <translation></translation>
    </message>
    <message>
        <source>; it started %1 after that was done</source>
        <translation></translation>
    </message>
    <message>
        <source>waited for</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>the result of the %1 over %n rank(s)</source>
        <translation>
            <numerusform>the result of the %1 over %n rank</numerusform>
            <numerusform>the result of the %1 over %n ranks</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 (%2) over %n rank(s), %3</source>
        <translation>
            <numerusform>%1 (%2) over %n rank, %3</numerusform>
            <numerusform>%1 (%2) over %n ranks, %3</numerusform>
        </translation>
    </message>
    <message>
        <source>its host, which issued it at %1 (host_op_time)</source>
        <translation></translation>
    </message>
    <message>
        <source>, %1 after &apos;%2&apos; was done</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>Summary</name>
    <message>
        <source>MQA (1 key/value head)</source>
        <translation></translation>
    </message>
    <message>
        <source>GQA with %1 key/value heads</source>
        <translation></translation>
    </message>
    <message>
        <source>heads of %1</source>
        <translation></translation>
    </message>
    <message>
        <source>QK norm</source>
        <translation></translation>
    </message>
    <message>
        <source>SwiGLU FFN %1</source>
        <translation></translation>
    </message>
    <message>
        <source>FFN %1</source>
        <translation></translation>
    </message>
    <message>
        <source>MoE: %1 experts, top-%2, expert FFN %3</source>
        <translation></translation>
    </message>
    <message>
        <source>, %1 shared</source>
        <translation></translation>
    </message>
    <message>
        <source>, capacity factor %1</source>
        <translation></translation>
    </message>
    <message>
        <source>, first %1 dense</source>
        <translation></translation>
    </message>
    <message>
        <source>, MoE every %1 layers</source>
        <translation></translation>
    </message>
    <message>
        <source>MLA (latent %1)</source>
        <translation></translation>
    </message>
    <message>
        <source>rotary positions</source>
        <translation></translation>
    </message>
    <message>
        <source>untied output</source>
        <translation></translation>
    </message>
    <message>
        <source>biases on QKV only</source>
        <translation></translation>
    </message>
    <message>
        <source>no biases</source>
        <translation></translation>
    </message>
    <message>
        <source>, </source>
        <translation></translation>
    </message>
    <message>
        <source>MLP %1 (batch %2)</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>graph of %n op(s)</source>
        <translation>
            <numerusform>graph of %n op</numerusform>
            <numerusform>graph of %n ops</numerusform>
        </translation>
    </message>
    <message>
        <source>one %1 over %2 devices</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>%1 on a mesh %2 of %n device(s)</source>
        <translation>
            <numerusform>%1 on a mesh %2 of %n device</numerusform>
            <numerusform>%1 on a mesh %2 of %n devices</numerusform>
        </translation>
    </message>
    <message>
        <source>; </source>
        <translation></translation>
    </message>
    <message>
        <source>%1 -&gt; device %2</source>
        <translation></translation>
    </message>
    <message>
        <source>%1, manual placement: %2</source>
        <translation></translation>
    </message>
    <message>
        <source>no recomputation</source>
        <translation></translation>
    </message>
    <message>
        <source>selective recomputation (attention core)</source>
        <translation></translation>
    </message>
    <message>
        <source>full recomputation (whole layer)</source>
        <translation></translation>
    </message>
    <message>
        <source>op-level selective recomputation (torchtitan&apos;s policy: matmul and attention outputs kept but every second matmul&apos;s)</source>
        <translation></translation>
    </message>
    <message>
        <source>block recomputation (the first %1 of a chunk&apos;s %2 layers)</source>
        <translation></translation>
    </message>
    <message>
        <source>interleaved 1F1B (%1 chunks per device)</source>
        <translation></translation>
    </message>
    <message>
        <source>GPT-style transformer (%1 layers, hidden %2, %3 heads, seq %4)</source>
        <translation></translation>
    </message>
    <message>
        <source>transformer (%1 layers, hidden %2, %3 heads, seq %4; %5)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 on %2 devices: tensor %3 x pipeline %4 x data %5</source>
        <translation></translation>
    </message>
    <message>
        <source> x context %1</source>
        <translation></translation>
    </message>
    <message>
        <source> + sequence parallel</source>
        <translation></translation>
    </message>
    <message>
        <source>selective recomputation (nothing to recompute: FlashAttention keeps no seq x seq activation)</source>
        <translation></translation>
    </message>
    <message>
        <source>distributed optimizer (ZeRO-1)</source>
        <translation></translation>
    </message>
    <message>
        <source>fp32 main_grad</source>
        <translation></translation>
    </message>
    <message>
        <source>gradient accumulation unfused</source>
        <translation></translation>
    </message>
    <message>
        <source>cross-entropy fused</source>
        <translation></translation>
    </message>
    <message>
        <source>no dropout</source>
        <translation></translation>
    </message>
    <message>
        <source>dropout %1 (residual), %2 (attention)</source>
        <translation></translation>
    </message>
    <message>
        <source>Megatron-LM&apos;s own layers (no Transformer Engine)</source>
        <translation></translation>
    </message>
    <message>
        <source>FP8 GEMMs (hybrid: E4M3 forward, E5M2 gradients)</source>
        <translation></translation>
    </message>
    <message>
        <source>FP8 GEMMs (E4M3 forward and backward)</source>
        <translation></translation>
    </message>
    <message>
        <source>inference</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>TraceFilter</name>
    <message>
        <source>devices %1</source>
        <translation></translation>
    </message>
    <message>
        <source>window %1 to %2</source>
        <translation></translation>
    </message>
    <message>
        <source>the end</source>
        <translation></translation>
    </message>
    <message>
        <source>; </source>
        <translation></translation>
    </message>
</context>
<context>
    <name>ViewTitle</name>
    <message>
        <source>Timeline</source>
        <translation></translation>
    </message>
    <message>
        <source>Topology</source>
        <translation></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation></translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation></translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation></translation>
    </message>
    <message>
        <source>What-if</source>
        <translation></translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation></translation>
    </message>
    <message>
        <source>Teach</source>
        <translation></translation>
    </message>
    <message>
        <source>Compare</source>
        <translation></translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>WhatIf</name>
    <message numerus="yes">
        <source>out of memory on %n device(s) (the memory view shows where)</source>
        <translation>
            <numerusform>out of memory on %n device (the memory view shows where)</numerusform>
            <numerusform>out of memory on %n devices (the memory view shows where)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>does not fit: %1 of %n device(s) over their memory</source>
        <translation>
            <numerusform>does not fit: %1 of %n device over their memory</numerusform>
            <numerusform>does not fit: %1 of %n devices over their memory</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>brigade::gui::CalibrationView</name>
    <message>
        <source>The device model whose profile entry is drawn</source>
        <translation></translation>
    </message>
    <message>
        <source>all kinds</source>
        <translation></translation>
    </message>
    <message>
        <source>Collectives drawn in the bus bandwidth plot</source>
        <translation></translation>
    </message>
    <message>
        <source>Device model:</source>
        <translation></translation>
    </message>
    <message>
        <source>Collectives:</source>
        <translation></translation>
    </message>
    <message>
        <source>fit</source>
        <translation></translation>
    </message>
    <message>
        <source>R²</source>
        <translation></translation>
    </message>
    <message>
        <source>what it fits</source>
        <translation></translation>
    </message>
    <message>
        <source>A trace carries no hardware profile: open a profile written by brigade calibrate, or a scenario.</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a profile (brigade calibrate --out) or a scenario.</source>
        <translation></translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2)</source>
        <translation></translation>
    </message>
    <message>
        <source>. Points: measured; lines: the judges with this profile.</source>
        <translation></translation>
    </message>
    <message>
        <source>. &lt;i&gt;No samples in this profile: its fits alone&lt;/i&gt; (brigade calibrate writes them; this profile was written without).</source>
        <translation></translation>
    </message>
    <message>
        <source> Links and collectives on the scenario&apos;s topology.</source>
        <translation></translation>
    </message>
    <message>
        <source>nothing in this profile</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::CompareView</name>
    <message>
        <source>Compare with…</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a second run beside the open one: a scenario (simulated) or a trace (File &gt; Compare with…, Ctrl+Shift+O; or drop a file here)</source>
        <translation></translation>
    </message>
    <message>
        <source>Copy table</source>
        <translation></translation>
    </message>
    <message>
        <source>Copy the differences as text, as `brigade compare A B --rows 0` prints them</source>
        <translation></translation>
    </message>
    <message>
        <source>Clear B</source>
        <translation></translation>
    </message>
    <message>
        <source>Nothing to compare with yet.

File &gt; Compare with… (Ctrl+Shift+O), the button above, or a file dropped here sets a second run beside the open one: a scenario (simulated here) or a trace, such as the .sim.json and .measured.json that `brigade validate --trace-dir` writes.</source>
        <translation></translation>
    </message>
    <message>
        <source>device / kind</source>
        <translation></translation>
    </message>
    <message>
        <source>figure</source>
        <translation></translation>
    </message>
    <message>
        <source>A</source>
        <translation></translation>
    </message>
    <message>
        <source>B</source>
        <translation></translation>
    </message>
    <message>
        <source>B − A</source>
        <translation></translation>
    </message>
    <message>
        <source>change</source>
        <translation></translation>
    </message>
    <message>
        <source>Largest difference first in each part. Click a device&apos;s row to open and shade its lanes in both timelines, a kind&apos;s to outline its spans.</source>
        <translation></translation>
    </message>
    <message>
        <source>Copied the differences as text</source>
        <translation></translation>
    </message>
    <message>
        <source>Compare with a scenario or a trace</source>
        <translation></translation>
    </message>
    <message>
        <source>Runs (*.yaml *.yml *.json *.json.gz);;Scenarios (*.yaml *.yml *.json);;Chrome traces (*.json *.json.gz);;All files (*)</source>
        <translation></translation>
    </message>
    <message>
        <source>B: %1 %2</source>
        <translation></translation>
    </message>
    <message>
        <source>Comparing…</source>
        <translation></translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation></translation>
    </message>
    <message>
        <source>Compared %1 with %2</source>
        <translation></translation>
    </message>
    <message>
        <source>A %1 has no run to compare: open a scenario or a trace.</source>
        <translation></translation>
    </message>
    <message>
        <source>profile</source>
        <translation></translation>
    </message>
    <message>
        <source>document</source>
        <translation></translation>
    </message>
    <message>
        <source>Note: </source>
        <translation></translation>
    </message>
    <message>
        <source>Compared as far as they can be: </source>
        <translation></translation>
    </message>
    <message>
        <source>nothing open</source>
        <translation></translation>
    </message>
    <message>
        <source>none yet</source>
        <translation></translation>
    </message>
    <message>
        <source>Choose a second run to see the differences per device and per task kind.</source>
        <translation></translation>
    </message>
    <message>
        <source>%1: %2 spans in A, %3 in B, outlined</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 %2: A %3, B %4, B − A %5</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::KernelsView</name>
    <message>
        <source>Open a scenario to see its step by kernel group</source>
        <translation></translation>
    </message>
    <message>
        <source>Brigade</source>
        <translation></translation>
    </message>
    <message>
        <source>measured</source>
        <translation></translation>
    </message>
    <message>
        <source>group</source>
        <translation></translation>
    </message>
    <message>
        <source>measured/Brigade</source>
        <translation></translation>
    </message>
    <message>
        <source>Device</source>
        <translation></translation>
    </message>
    <message>
        <source>The device whose step is shown (0: pipeline stage 0)</source>
        <translation></translation>
    </message>
    <message>
        <source>Profiler record…</source>
        <translation></translation>
    </message>
    <message>
        <source>Steps</source>
        <translation></translation>
    </message>
    <message>
        <source>How many steps the record covers</source>
        <translation></translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation></translation>
    </message>
    <message>
        <source>How many GPUs the record sums</source>
        <translation></translation>
    </message>
    <message>
        <source>Profiler record</source>
        <translation></translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation></translation>
    </message>
    <message>
        <source>Hold the step against a profiler&apos;s record of the same plan: Nsight Systems&apos; kernel summary (nsys stats --report cuda_gpu_kern_sum --format csv), PyTorch&apos;s profiler trace (.json, .json.gz), or Brigade&apos;s own trace of it (brigade execute --trace), the chosen device&apos;s spans</source>
        <translation></translation>
    </message>
    <message>
        <source>Profiler records and Brigade traces (*.csv *.json *.json.gz);;All files (*)</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::LessonsView</name>
    <message>
        <source>Found no scenarios/lessons folder near brigade-gui or the working folder; expected one, or $BRIGADE_LESSONS naming it.</source>
        <translation></translation>
    </message>
    <message>
        <source>Tour</source>
        <translation></translation>
    </message>
    <message>
        <source>Quiz</source>
        <translation></translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation></translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation></translation>
    </message>
    <message>
        <source>Open the scenario</source>
        <translation></translation>
    </message>
    <message>
        <source>Load this lesson&apos;s scenario in the timeline, topology and memory views</source>
        <translation></translation>
    </message>
    <message>
        <source>A misconception, shown</source>
        <translation></translation>
    </message>
    <message>
        <source>A lesson of the guided tour</source>
        <translation></translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation></translation>
    </message>
    <message>
        <source>A misconception, shown.</source>
        <translation></translation>
    </message>
    <message>
        <source>Computing this lesson&apos;s numbers…</source>
        <translation></translation>
    </message>
    <message>
        <source>Found no brigade executable beside brigade-gui or on PATH; expected one to compute the lessons&apos; numbers ($BRIGADE_EXE names it).</source>
        <translation></translation>
    </message>
    <message>
        <source>could not start %1</source>
        <translation></translation>
    </message>
    <message>
        <source>brigade lesson %1 gave no answers</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::MainWindow</name>
    <message>
        <source>Brigade</source>
        <translation></translation>
    </message>
    <message>
        <source>Messages</source>
        <translation></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation></translation>
    </message>
    <message>
        <source>Stop loading (Esc)</source>
        <translation></translation>
    </message>
    <message>
        <source>Opening %1</source>
        <translation></translation>
    </message>
    <message>
        <source>Could not open the file; what was open stays open.</source>
        <translation></translation>
    </message>
    <message>
        <source>Cancelled opening %1</source>
        <translation></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation></translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a scenario, trace or profile</source>
        <translation></translation>
    </message>
    <message>
        <source>Brigade files (*.yaml *.yml *.json *.json.gz);;Scenarios (*.yaml *.yml *.json);;Chrome traces (*.json *.json.gz);;Profiles (*.yaml *.yml);;All files (*)</source>
        <translation></translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation></translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation></translation>
    </message>
    <message>
        <source>Export View as &amp;PNG</source>
        <translation></translation>
    </message>
    <message>
        <source>Export View as &amp;SVG</source>
        <translation></translation>
    </message>
    <message>
        <source>…</source>
        <translation></translation>
    </message>
    <message>
        <source>Export as PNG</source>
        <translation></translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation></translation>
    </message>
    <message>
        <source>Export as SVG</source>
        <translation></translation>
    </message>
    <message>
        <source>SVG images (*.svg)</source>
        <translation></translation>
    </message>
    <message>
        <source>Export &amp;Trace as Chrome JSON…</source>
        <translation></translation>
    </message>
    <message>
        <source>Export the trace</source>
        <translation></translation>
    </message>
    <message>
        <source>Chrome traces (*.json)</source>
        <translation></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation></translation>
    </message>
    <message>
        <source>Could not load the translation; the language stays as it was.</source>
        <translation></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation></translation>
    </message>
    <message>
        <source>&amp;Keys</source>
        <translation></translation>
    </message>
    <message>
        <source>Timeline: W/S zoom, A/D pan, Ctrl+wheel zoom at the mouse, Shift+wheel or middle-drag pan, drag to select a range, Z zoom to it, Backspace back, 0 all, click a span for details, Esc clears.</source>
        <translation></translation>
    </message>
    <message>
        <source>Clear</source>
        <translation></translation>
    </message>
    <message>
        <source>reading</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 — Brigade</source>
        <translation></translation>
    </message>
    <message>
        <source>: step %1</source>
        <translation></translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation></translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation></translation>
    </message>
    <message>
        <source>No trace is open to export.</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a scenario, a trace or a profile: File &gt; Open (Ctrl+O), or drop a file here.</source>
        <translation></translation>
    </message>
    <message>
        <source>Compare &amp;With…</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::MemoryView</name>
    <message>
        <source>nothing live</source>
        <translation></translation>
    </message>
    <message>
        <source>Device:</source>
        <translation></translation>
    </message>
    <message>
        <source>Devices by peak memory, highest first; type to search</source>
        <translation></translation>
    </message>
    <message>
        <source>Scale to capacity</source>
        <translation></translation>
    </message>
    <message>
        <source>Draw the axis up to the device&apos;s capacity even when the peak is far below it</source>
        <translation></translation>
    </message>
    <message>
        <source>at %1: %2 live
%3</source>
        <translation></translation>
    </message>
    <message>
        <source>This %1 has no memory samples.</source>
        <translation></translation>
    </message>
    <message>
        <source>profile</source>
        <translation></translation>
    </message>
    <message>
        <source>trace</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a scenario or a trace to see its memory over time.</source>
        <translation></translation>
    </message>
    <message>
        <source>device %1</source>
        <translation></translation>
    </message>
    <message>
        <source>peak %1</source>
        <translation></translation>
    </message>
    <message>
        <source> of %1</source>
        <translation></translation>
    </message>
    <message>
        <source>time (%1)</source>
        <translation></translation>
    </message>
    <message>
        <source>live memory (%1)</source>
        <translation></translation>
    </message>
    <message>
        <source>capacity %1</source>
        <translation></translation>
    </message>
    <message>
        <source>OOM at %1: %2</source>
        <translation></translation>
    </message>
    <message>
        <source>OOM: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>%1: peak %2 at %3</source>
        <translation></translation>
    </message>
    <message>
        <source> of %1 (%2%)</source>
        <translation></translation>
    </message>
    <message>
        <source>The axis stops at the peak: the capacity (%1) lies far above.</source>
        <translation></translation>
    </message>
    <message>
        <source>&lt;b style=&apos;color:#b00000&apos;&gt;Out of memory&lt;/b&gt; at %1: %2 brought it to %3 of %4 — live then: %5.</source>
        <translation></translation>
    </message>
    <message>
        <source> Largest buffers: %1.</source>
        <translation></translation>
    </message>
    <message>
        <source>At %1: %2 live — %3.</source>
        <translation></translation>
    </message>
    <message>
        <source>Click the chart to place the time cursor; hover for what is live.</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::QuizPanel</name>
    <message>
        <source>Show every answer</source>
        <translation></translation>
    </message>
    <message>
        <source>Computing the answers from the lessons&apos; scenarios…</source>
        <translation></translation>
    </message>
    <message>
        <source>Check</source>
        <translation></translation>
    </message>
    <message>
        <source>Pick an answer first.</source>
        <translation></translation>
    </message>
    <message>
        <source>Right: %1. %2</source>
        <translation></translation>
    </message>
    <message>
        <source>Not quite: the tool computes %1. %2</source>
        <translation></translation>
    </message>
    <message>
        <source>Answer: %1. %2</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::ScalingView</name>
    <message>
        <source>devices (log scale)</source>
        <translation></translation>
    </message>
    <message>
        <source>no Amdahl fit (fewer than two judged device counts)</source>
        <translation></translation>
    </message>
    <message>
        <source>Amdahl p = %1 (R² %2)</source>
        <translation></translation>
    </message>
    <message>
        <source>, no curve drawn: </source>
        <translation></translation>
    </message>
    <message>
        <source>: no serial part</source>
        <translation></translation>
    </message>
    <message>
        <source>: at most %1× however many devices</source>
        <translation></translation>
    </message>
    <message>
        <source>: no parallel part, more devices only add cost</source>
        <translation></translation>
    </message>
    <message>
        <source>; doubling beyond about %1 devices gains less than 10%</source>
        <translation></translation>
    </message>
    <message>
        <source>Device counts to sweep, separated by commas; the data degree scales, the global batch stays</source>
        <translation></translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation></translation>
    </message>
    <message>
        <source>Judge every device count with the closed form, then the simulator</source>
        <translation></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation></translation>
    </message>
    <message>
        <source>Devices:</source>
        <translation></translation>
    </message>
    <message>
        <source>Speedup against the first device count</source>
        <translation></translation>
    </message>
    <message>
        <source>Parallel efficiency</source>
        <translation></translation>
    </message>
    <message>
        <source>devices</source>
        <translation></translation>
    </message>
    <message>
        <source>simulated step</source>
        <translation></translation>
    </message>
    <message>
        <source>speedup</source>
        <translation></translation>
    </message>
    <message>
        <source>efficiency</source>
        <translation></translation>
    </message>
    <message>
        <source>closed-form step</source>
        <translation></translation>
    </message>
    <message>
        <source>note</source>
        <translation></translation>
    </message>
    <message>
        <source>Devices: found &apos;%1&apos;; expected positive whole numbers such as 1, 2, 4</source>
        <translation></translation>
    </message>
    <message>
        <source>Devices: found nothing; expected counts such as 1, 2, 4</source>
        <translation></translation>
    </message>
    <message>
        <source>A sweep needs a scenario: this is a %1.</source>
        <translation></translation>
    </message>
    <message>
        <source>profile</source>
        <translation></translation>
    </message>
    <message>
        <source>trace</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a scenario to sweep it over device counts.</source>
        <translation></translation>
    </message>
    <message>
        <source>simulating %1 device counts…</source>
        <translation></translation>
    </message>
    <message>
        <source>simulated %1 of %2 (%3 devices: %4)</source>
        <translation></translation>
    </message>
    <message>
        <source>not judged</source>
        <translation></translation>
    </message>
    <message>
        <source>Judging %1 device counts…</source>
        <translation></translation>
    </message>
    <message>
        <source>Not simulated: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>Scaling sweep done</source>
        <translation></translation>
    </message>
    <message>
        <source>Cancelled; press Sweep to start again.</source>
        <translation></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation></translation>
    </message>
    <message>
        <source>Sweeping %1 over device counts…</source>
        <translation></translation>
    </message>
    <message>
        <source>No device count could be judged; see the table.</source>
        <translation></translation>
    </message>
    <message>
        <source>speedup (×, log scale)</source>
        <translation></translation>
    </message>
    <message>
        <source>ideal (linear)</source>
        <translation></translation>
    </message>
    <message>
        <source>Amdahl fit, p = %1 (on to %2 devices)</source>
        <translation></translation>
    </message>
    <message>
        <source>Amdahl fit, p = %1</source>
        <translation></translation>
    </message>
    <message>
        <source>closed form</source>
        <translation></translation>
    </message>
    <message>
        <source>simulated</source>
        <translation></translation>
    </message>
    <message>
        <source>efficiency (%)</source>
        <translation></translation>
    </message>
    <message>
        <source>ideal (100%)</source>
        <translation></translation>
    </message>
    <message>
        <source>Amdahl fit</source>
        <translation></translation>
    </message>
    <message>
        <source>, global batch %1</source>
        <translation></translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;: strong scaling (the data degree grows%2).</source>
        <translation></translation>
    </message>
    <message>
        <source>Simulated and closed form alike: %1.</source>
        <translation></translation>
    </message>
    <message>
        <source>Simulated: %1.</source>
        <translation></translation>
    </message>
    <message>
        <source>Closed form: %1.</source>
        <translation></translation>
    </message>
    <message>
        <source>Adding devices stops paying after 1 device: the next count is no faster.</source>
        <translation></translation>
    </message>
    <message>
        <source>Adding devices stops paying after %1 devices: the next count is no faster.</source>
        <translation></translation>
    </message>
    <message>
        <source>…</source>
        <translation></translation>
    </message>
    <message>
        <source>—</source>
        <translation></translation>
    </message>
    <message>
        <source>not simulated</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::TeachCanvas</name>
    <message>
        <source>device %1</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a scenario to see its plan told as a kitchen: chefs (devices), their stations (memory), runners (links) and the head chef (the planner).</source>
        <translation></translation>
    </message>
    <message>
        <source>The kitchen: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>Chefs are devices, their stations the memory, runners the links, the sauce bowl AllReduce; the head chef (XLA: the planner) wrote the plan.</source>
        <translation></translation>
    </message>
    <message>
        <source>Head chef (XLA, the planner)</source>
        <translation></translation>
    </message>
    <message>
        <source>one step: %1 (compute %2, communication left exposed %3)</source>
        <translation></translation>
    </message>
    <message>
        <source>the closed form gives no step time for this plan</source>
        <translation></translation>
    </message>
    <message>
        <source>idle: nothing placed here</source>
        <translation></translation>
    </message>
    <message>
        <source>peak %1</source>
        <translation></translation>
    </message>
    <message>
        <source>%1% of %2</source>
        <translation></translation>
    </message>
    <message>
        <source>runner from %1 back to %2 (the ring closes): α %3, %4</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>… and %n more chef(s)</source>
        <translation>
            <numerusform>… and %n more chef</numerusform>
            <numerusform>… and %n more chefs</numerusform>
        </translation>
    </message>
    <message>
        <source>sauce bowl: AllReduce (%1) over %2 chefs, %3 × %4 a step, %5</source>
        <translation></translation>
    </message>
    <message>
        <source>Nobody waits: in this plan the chefs never need each other&apos;s results.</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 (%2) among %3 chefs: %4 × a step, %5 in all, %6</source>
        <translation></translation>
    </message>
    <message>
        <source>weights</source>
        <translation></translation>
    </message>
    <message>
        <source>gradients</source>
        <translation></translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation></translation>
    </message>
    <message>
        <source>activations</source>
        <translation></translation>
    </message>
    <message>
        <source>communication buffers</source>
        <translation></translation>
    </message>
    <message>
        <source>Transfer: a runner carries a tensor, T = α + M/B</source>
        <translation></translation>
    </message>
    <message>
        <source>α: the latency every message pays, however small; M/B: its bytes over the link&apos;s bandwidth.</source>
        <translation></translation>
    </message>
    <message>
        <source>One chef alone: nothing moves between devices in this kitchen.</source>
        <translation></translation>
    </message>
    <message>
        <source>The plan sends %1 (%2) from %3 to %4.</source>
        <translation></translation>
    </message>
    <message>
        <source>One step of the plan&apos;s ring %1: each chef hands its neighbour M/N = %2 (%3 to %4).</source>
        <translation></translation>
    </message>
    <message>
        <source>This plan moves nothing between chefs; were %1 (%2) sent from %3 to %4:</source>
        <translation></translation>
    </message>
    <message>
        <source>sends a chunk of the %1</source>
        <translation></translation>
    </message>
    <message>
        <source>sends %1</source>
        <translation></translation>
    </message>
    <message>
        <source>has the chunk</source>
        <translation></translation>
    </message>
    <message>
        <source>waits for the chunk</source>
        <translation></translation>
    </message>
    <message>
        <source>has %1</source>
        <translation></translation>
    </message>
    <message>
        <source>waits for %1</source>
        <translation></translation>
    </message>
    <message>
        <source>link: α %1, bandwidth %2</source>
        <translation></translation>
    </message>
    <message>
        <source>T = α + M/B = %1 + %2 / %3 = %4 + %5 = %6</source>
        <translation></translation>
    </message>
    <message>
        <source>α %1</source>
        <translation></translation>
    </message>
    <message>
        <source>M/B %1</source>
        <translation></translation>
    </message>
    <message>
        <source>The whole %1 %2 over %3 chefs (M = %4): %5 latencies in series, α term %6; β term %7</source>
        <translation></translation>
    </message>
    <message>
        <source>α term %1</source>
        <translation></translation>
    </message>
    <message>
        <source>β term %1</source>
        <translation></translation>
    </message>
    <message>
        <source>The same runner with other dishes: T = α + M/B</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 (this one)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 + %2 = %3 (α %4%)</source>
        <translation></translation>
    </message>
    <message>
        <source>latency α: paid per message, independent of its size</source>
        <translation></translation>
    </message>
    <message>
        <source>bandwidth term M/B: grows with the bytes</source>
        <translation></translation>
    </message>
    <message>
        <source>Output: every chef&apos;s %1 gathered back</source>
        <translation></translation>
    </message>
    <message>
        <source>pmap returns the results stacked by device: the leading axis is the device axis. Batch sharding returns them concatenated along the batch.</source>
        <translation></translation>
    </message>
    <message>
        <source>pmap: the rows do not split evenly over %1 devices</source>
        <translation></translation>
    </message>
    <message>
        <source>pmap: stacked, shape %1</source>
        <translation></translation>
    </message>
    <message>
        <source>out[d] is chef d&apos;s result: axis 0 has one entry per device</source>
        <translation></translation>
    </message>
    <message>
        <source>batch sharding: concatenated, shape %1</source>
        <translation></translation>
    </message>
    <message>
        <source>rows of chef d follow those of chef d−1: the batch is whole again</source>
        <translation></translation>
    </message>
    <message>
        <source>nothing</source>
        <translation></translation>
    </message>
    <message>
        <source>rows %1 to %2</source>
        <translation></translation>
    </message>
    <message>
        <source>a partial sum</source>
        <translation></translation>
    </message>
    <message>
        <source>batch split</source>
        <translation></translation>
    </message>
    <message>
        <source>AllGather</source>
        <translation></translation>
    </message>
    <message>
        <source>row split</source>
        <translation></translation>
    </message>
    <message>
        <source>ReduceScatter</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>Batch split: %1 cut by rows into %n block(s), one per chef</source>
        <translation>
            <numerusform>Batch split: %1 cut by rows into %n block, one per chef</numerusform>
            <numerusform>Batch split: %1 cut by rows into %n blocks, one per chef</numerusform>
        </translation>
    </message>
    <message>
        <source>Chef k gets rows kB/N to (k+1)B/N (NamedSharding P(&apos;data&apos;); the seed&apos;s pmap split). The host hands out the blocks: no chef waits for another.</source>
        <translation></translation>
    </message>
    <message>
        <source>split the rows</source>
        <translation></translation>
    </message>
    <message>
        <source>AllGather: every chef puts its block on the shared platter and takes the whole back</source>
        <translation></translation>
    </message>
    <message>
        <source>all_gather(x, tiled=True): %1 on every chef again. Ring: (N−1)α + (N−1)/N · M/B.</source>
        <translation></translation>
    </message>
    <message>
        <source>AllGather of %1: %2</source>
        <translation></translation>
    </message>
    <message>
        <source>Row split: %1 cut by rows, block W_k on chef k</source>
        <translation></translation>
    </message>
    <message>
        <source>Model sharding: each chef keeps 1/N of the weights; y = Σ_k x_k W_k, so each chef&apos;s x_k W_k is only a partial sum.</source>
        <translation></translation>
    </message>
    <message>
        <source>ReduceScatter: the partial sums go into the bowl, each chef takes back its rows of the sum</source>
        <translation></translation>
    </message>
    <message>
        <source>psum_scatter: %1 partial on each chef → its rows of the sum. AllGather after ReduceScatter is an AllReduce (psum).</source>
        <translation></translation>
    </message>
    <message>
        <source>ReduceScatter of %1: %2</source>
        <translation></translation>
    </message>
    <message>
        <source>this is the plan&apos;s own layout of %1</source>
        <translation></translation>
    </message>
    <message>
        <source>the plan does not do this to %1; shown with its shapes</source>
        <translation></translation>
    </message>
    <message>
        <source>before</source>
        <translation></translation>
    </message>
    <message>
        <source>after</source>
        <translation></translation>
    </message>
    <message>
        <source>device mapping</source>
        <translation></translation>
    </message>
    <message>
        <source>data sharding</source>
        <translation></translation>
    </message>
    <message>
        <source>compute on every chef at once</source>
        <translation></translation>
    </message>
    <message>
        <source>psum: pour into the sauce bowl</source>
        <translation></translation>
    </message>
    <message>
        <source>pmean: take the average back</source>
        <translation></translation>
    </message>
    <message>
        <source>all_gather: the shared platter</source>
        <translation></translation>
    </message>
    <message>
        <source>update: one step done</source>
        <translation></translation>
    </message>
    <message>
        <source>pmap, step %1 of %2: %3</source>
        <translation></translation>
    </message>
    <message>
        <source>The second seed&apos;s data-parallel step on this plan: %1 chefs, %2 %3 split by rows.</source>
        <translation></translation>
    </message>
    <message>
        <source>host (the restaurant owner)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 %2: the whole batch</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 → %2: row block d for device d</source>
        <translation></translation>
    </message>
    <message>
        <source>device axis index %1</source>
        <translation></translation>
    </message>
    <message>
        <source>memory %1</source>
        <translation></translation>
    </message>
    <message>
        <source>waiting for its shard</source>
        <translation></translation>
    </message>
    <message>
        <source>f(x[%1]), %2</source>
        <translation></translation>
    </message>
    <message>
        <source>ḡ = Σ g / %1</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 ← %1 − η·ḡ</source>
        <translation></translation>
    </message>
    <message>
        <source>pmap&apos;s device axis: index d runs on device d (0 to %1)</source>
        <translation></translation>
    </message>
    <message>
        <source>psum: Σ_d g_d, %1 from each chef (AllReduce %2, were this plan trained)</source>
        <translation></translation>
    </message>
    <message>
        <source>psum: Σ_d g_d, %1 from each chef (AllReduce %2)</source>
        <translation></translation>
    </message>
    <message>
        <source>pmean: Σ_d g_d / %1 back to every chef</source>
        <translation></translation>
    </message>
    <message>
        <source>the shared platter: each chef puts down its block and takes all %1 (AllGather %2)</source>
        <translation></translation>
    </message>
    <message>
        <source>pmap is not a for loop: all %1 chefs run the same program on their own shard at the same time.</source>
        <translation></translation>
    </message>
    <message>
        <source>this plan&apos;s step (closed form): compute %1, the whole step %3; a gradient AllReduce would add %2 were it trained</source>
        <translation></translation>
    </message>
    <message>
        <source>one training step (closed form): compute %1 + gradient AllReduce %2; the whole step %3</source>
        <translation></translation>
    </message>
    <message>
        <source>The plan&apos;s largest collective, a %1 %2 over %3 chefs (M = %4): %5 latencies in series, α term %6; β term %7</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::TeachView</name>
    <message>
        <source>Overview</source>
        <translation></translation>
    </message>
    <message>
        <source>Transfer</source>
        <translation></translation>
    </message>
    <message>
        <source>Transform</source>
        <translation></translation>
    </message>
    <message>
        <source>Output</source>
        <translation></translation>
    </message>
    <message>
        <source>pmap demo</source>
        <translation></translation>
    </message>
    <message>
        <source>The kitchen: chefs (devices), stations (memory), runners (links), the head chef</source>
        <translation></translation>
    </message>
    <message>
        <source>A tensor moving between two devices: T = α + M/B, drawn as its two parts</source>
        <translation></translation>
    </message>
    <message>
        <source>A sharding changing: batch split, AllGather, row split, ReduceScatter</source>
        <translation></translation>
    </message>
    <message>
        <source>Results gathered back, stacked by device as pmap returns them</source>
        <translation></translation>
    </message>
    <message>
        <source>The second seed&apos;s pmap: device mapping, sharding, psum, pmean, all_gather, one training step</source>
        <translation></translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation></translation>
    </message>
    <message>
        <source>The step before (Left)</source>
        <translation></translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation></translation>
    </message>
    <message>
        <source>The next step (Right)</source>
        <translation></translation>
    </message>
    <message>
        <source>Play the steps one after another, or pause (Space)</source>
        <translation></translation>
    </message>
    <message>
        <source>❚❚ Pause</source>
        <translation></translation>
    </message>
    <message>
        <source>▶ Play</source>
        <translation></translation>
    </message>
    <message>
        <source>step %1 of %2</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a scenario (File &gt; Open) to teach with its plan.</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>The kitchen of %1: %n chef(s) (devices), each with a station (its memory, filled to its peak); runners (links) carry dishes between them, and the head chef (XLA, the planner) decided: %2.</source>
        <translation>
            <numerusform>The kitchen of %1: %n chef (devices), each with a station (its memory, filled to its peak); runners (links) carry dishes between them, and the head chef (XLA, the planner) decided: %2.</numerusform>
            <numerusform>The kitchen of %1: %n chefs (devices), each with a station (its memory, filled to its peak); runners (links) carry dishes between them, and the head chef (XLA, the planner) decided: %2.</numerusform>
        </translation>
    </message>
    <message>
        <source>A runner sets off from %1: before a single byte moves, the message pays the link&apos;s latency α = %2, however small it is.</source>
        <translation></translation>
    </message>
    <message>
        <source>Arrived at %1 after α + M/B = %2. The whole ring %3 pays %4 latencies in series (α term %5) and the β term %6: for small messages α dominates.</source>
        <translation></translation>
    </message>
    <message>
        <source>Arrived at %1 after α + M/B = %2.</source>
        <translation></translation>
    </message>
    <message>
        <source>Batch split: each chef gets its own rows of %1 and cooks the same recipe on them.</source>
        <translation></translation>
    </message>
    <message>
        <source>AllGather: the blocks are put on the shared platter and every chef takes the whole tensor back: %1 on this kitchen&apos;s links.</source>
        <translation></translation>
    </message>
    <message>
        <source>Row split: the weights %1 are cut by rows, so each chef holds 1/N of them; each chef&apos;s product is then a partial sum.</source>
        <translation></translation>
    </message>
    <message>
        <source>ReduceScatter: the partial sums meet in the sauce bowl and each chef takes back only its rows of the total: %1.</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>pmap gives the results back stacked: a new leading axis of %n device(s), entry d from chef d.</source>
        <translation>
            <numerusform>pmap gives the results back stacked: a new leading axis of %n device, entry d from chef d.</numerusform>
            <numerusform>pmap gives the results back stacked: a new leading axis of %n devices, entry d from chef d.</numerusform>
        </translation>
    </message>
    <message>
        <source>Batch sharding gives them back as one batch: the rows concatenated, %1.</source>
        <translation></translation>
    </message>
    <message numerus="yes">
        <source>jax.devices() lists the chefs: %n device(s), each an index on pmap&apos;s device axis.</source>
        <translation>
            <numerusform>jax.devices() lists the chefs: %n device, each an index on pmap&apos;s device axis.</numerusform>
            <numerusform>jax.devices() lists the chefs: %n devices, each an index on pmap&apos;s device axis.</numerusform>
        </translation>
    </message>
    <message>
        <source>The batch %1 is reshaped to %2: row block d goes to device d.</source>
        <translation></translation>
    </message>
    <message>
        <source>Every chef runs the same compiled function on its own block, all at once (%1 each): each ends with its own gradient g_d.</source>
        <translation></translation>
    </message>
    <message>
        <source>psum: every chef pours its gradient (%1) into the sauce bowl; the bowl holds the sum. This AllReduce takes %2.</source>
        <translation></translation>
    </message>
    <message>
        <source>pmean: the sum divided by %1 goes back to every chef, so all of them hold the same averaged gradient.</source>
        <translation></translation>
    </message>
    <message>
        <source>all_gather: each chef puts its block on the shared platter and takes every block back (%1).</source>
        <translation></translation>
    </message>
    <message>
        <source>Every chef updates its copy of the weights with the same averaged gradient: the copies stay equal. One step: %1.</source>
        <translation></translation>
    </message>
    <message>
        <source>Then the bytes cross: M/B = %1 / %2 = %3. Bigger dishes take longer; the latency does not grow with them.</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::TimelineCanvas</name>
    <message>
        <source>This document has no trace to show.</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a scenario or a trace (File &gt; Open, or drop a file here).</source>
        <translation></translation>
    </message>
    <message>
        <source>utilisation (all devices)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 transfers in view: zoom in to see their arrows</source>
        <translation></translation>
    </message>
    <message>
        <source>view %1</source>
        <translation></translation>
    </message>
    <message>
        <source>transfer / collective step</source>
        <translation></translation>
    </message>
    <message>
        <source>
%1 spans share these pixels: zoom in (W) to tell them apart</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::TimelineView</name>
    <message>
        <source>Find spans by name (Ctrl+F; Enter: next)</source>
        <translation></translation>
    </message>
    <message>
        <source>◀</source>
        <translation></translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation></translation>
    </message>
    <message>
        <source>▶</source>
        <translation></translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation></translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation></translation>
    </message>
    <message>
        <source>Zoom in (W, Ctrl+wheel)</source>
        <translation></translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation></translation>
    </message>
    <message>
        <source>Zoom out (S)</source>
        <translation></translation>
    </message>
    <message>
        <source>Zoom to selection</source>
        <translation></translation>
    </message>
    <message>
        <source>Zoom to the selected range or span (Z)</source>
        <translation></translation>
    </message>
    <message>
        <source>Back</source>
        <translation></translation>
    </message>
    <message>
        <source>Back to the previous zoom (Backspace)</source>
        <translation></translation>
    </message>
    <message>
        <source>All</source>
        <translation></translation>
    </message>
    <message>
        <source>Show the whole trace (0)</source>
        <translation></translation>
    </message>
    <message>
        <source>Arrows</source>
        <translation></translation>
    </message>
    <message>
        <source>Draw transfers and collective steps as arrows between lanes</source>
        <translation></translation>
    </message>
    <message>
        <source>Click a span for its details; drag to select a time range.</source>
        <translation></translation>
    </message>
    <message>
        <source>Drag over the timeline to select a time range.</source>
        <translation></translation>
    </message>
    <message>
        <source>device</source>
        <translation></translation>
    </message>
    <message>
        <source>busy %</source>
        <translation></translation>
    </message>
    <message>
        <source>comm %</source>
        <translation></translation>
    </message>
    <message>
        <source>exposed comm</source>
        <translation></translation>
    </message>
    <message>
        <source>sent</source>
        <translation></translation>
    </message>
    <message>
        <source>received</source>
        <translation></translation>
    </message>
    <message>
        <source>no match</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 to %2 (%3): %4 spans, %5 moved</source>
        <translation></translation>
    </message>
    <message>
        <source>host %</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::TopologyCanvas</name>
    <message>
        <source>A trace file carries no topology: open its scenario to see the cluster.</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a scenario to see its cluster.</source>
        <translation></translation>
    </message>
    <message>
        <source>node %1 of %2 (Esc: all nodes) — </source>
        <translation></translation>
    </message>
    <message>
        <source>click a node to expand it — </source>
        <translation></translation>
    </message>
    <message>
        <source>%1: %2 devices, %3 links — utilisation over the whole step (%4)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1: %2 devices, %3 links — t = %4, utilisation over %5 to %6</source>
        <translation></translation>
    </message>
    <message>
        <source>node %1</source>
        <translation></translation>
    </message>
    <message>
        <source>node %1 · %2%</source>
        <translation></translation>
    </message>
    <message>
        <source>link utilisation</source>
        <translation></translation>
    </message>
    <message>
        <source>100%  (width: capacity)</source>
        <translation></translation>
    </message>
    <message>
        <source>device fill: compute occupancy</source>
        <translation></translation>
    </message>
    <message>
        <source>frame: collective in flight; node frame: its NVLink, top bar: its uplinks; click a node for its packets</source>
        <translation></translation>
    </message>
    <message>
        <source>frame: collective in flight (its kind&apos;s colour); dots: packets</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 (%2)
compute occupancy %3%</source>
        <translation></translation>
    </message>
    <message>
        <source>
in flight: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>node %1: %2 devices, compute occupancy %3%
links out of the node: %4%</source>
        <translation></translation>
    </message>
    <message>
        <source>
in flight on %1 of its devices: %2</source>
        <translation></translation>
    </message>
    <message>
        <source>
click (or Ctrl+wheel) to expand</source>
        <translation></translation>
    </message>
    <message>
        <source>%1
capacity %2 each way (%3)
utilisation %4% (%5 carried)</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::TopologyView</name>
    <message>
        <source>▶ Play</source>
        <translation></translation>
    </message>
    <message>
        <source>Animate the step: packets move along their routes</source>
        <translation></translation>
    </message>
    <message>
        <source>◀ All nodes</source>
        <translation></translation>
    </message>
    <message>
        <source>Back to every node of the cluster (Esc)</source>
        <translation></translation>
    </message>
    <message>
        <source>Playback speed: 1x plays the whole step in 10 s</source>
        <translation></translation>
    </message>
    <message>
        <source>Whole step</source>
        <translation></translation>
    </message>
    <message>
        <source>Colour links and devices by their use over the whole step</source>
        <translation></translation>
    </message>
    <message>
        <source>Node %1 expanded; Esc or ◀ All nodes goes back</source>
        <translation></translation>
    </message>
    <message>
        <source>❚❚ Pause</source>
        <translation></translation>
    </message>
</context>
<context>
    <name>brigade::gui::WhatIfView</name>
    <message>
        <source>unchanged</source>
        <translation></translation>
    </message>
    <message>
        <source>new</source>
        <translation></translation>
    </message>
    <message>
        <source>Plan</source>
        <translation></translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation></translation>
    </message>
    <message>
        <source>Reset</source>
        <translation></translation>
    </message>
    <message>
        <source>Back to the starting plan</source>
        <translation></translation>
    </message>
    <message>
        <source>Save as scenario…</source>
        <translation></translation>
    </message>
    <message>
        <source>Write the edited plan as a scenario file</source>
        <translation></translation>
    </message>
    <message>
        <source>devices</source>
        <translation></translation>
    </message>
    <message>
        <source>peak memory</source>
        <translation></translation>
    </message>
    <message>
        <source>change</source>
        <translation></translation>
    </message>
    <message>
        <source>capacity</source>
        <translation></translation>
    </message>
    <message>
        <source>exposed communication</source>
        <translation></translation>
    </message>
    <message>
        <source>Data-parallel degree (strategy.data)</source>
        <translation></translation>
    </message>
    <message>
        <source>Tensor-parallel degree (strategy.tensor, Megatron-LM)</source>
        <translation></translation>
    </message>
    <message>
        <source>Pipeline stages (strategy.pipeline)</source>
        <translation></translation>
    </message>
    <message>
        <source>sequence parallel</source>
        <translation></translation>
    </message>
    <message>
        <source>strategy.sequence_parallel: needs tensor ≥ 2</source>
        <translation></translation>
    </message>
    <message>
        <source>overlap</source>
        <translation></translation>
    </message>
    <message>
        <source>strategy.overlap: gradient communication during the backward pass</source>
        <translation></translation>
    </message>
    <message>
        <source>0 (none)</source>
        <translation></translation>
    </message>
    <message>
        <source>1 (optimizer)</source>
        <translation></translation>
    </message>
    <message>
        <source>2 (+ gradients)</source>
        <translation></translation>
    </message>
    <message>
        <source>3 (FSDP)</source>
        <translation></translation>
    </message>
    <message>
        <source>strategy.zero: ZeRO stage over the data-parallel group</source>
        <translation></translation>
    </message>
    <message>
        <source>strategy.data_mode: how the data axis splits the batch</source>
        <translation></translation>
    </message>
    <message>
        <source>training.micro_batch: rows per micro-batch on one replica</source>
        <translation></translation>
    </message>
    <message>
        <source>default</source>
        <translation></translation>
    </message>
    <message>
        <source>strategy.schedule: pipeline schedule</source>
        <translation></translation>
    </message>
    <message>
        <source>strategy.virtual_stages: model chunks per device (interleaved)</source>
        <translation></translation>
    </message>
    <message>
        <source>training.recompute: activation recomputation</source>
        <translation></translation>
    </message>
    <message>
        <source>strategy.rank_order: rank mapping, innermost first</source>
        <translation></translation>
    </message>
    <message>
        <source>strategy.bucket: gradient AllReduce bucket</source>
        <translation></translation>
    </message>
    <message>
        <source>strategy.algorithm: for the plan&apos;s collectives</source>
        <translation></translation>
    </message>
    <message>
        <source>ZeRO</source>
        <translation></translation>
    </message>
    <message>
        <source>micro-batch</source>
        <translation></translation>
    </message>
    <message>
        <source>schedule</source>
        <translation></translation>
    </message>
    <message>
        <source>virtual stages</source>
        <translation></translation>
    </message>
    <message>
        <source>recompute</source>
        <translation></translation>
    </message>
    <message>
        <source>rank order</source>
        <translation></translation>
    </message>
    <message>
        <source>algorithm</source>
        <translation></translation>
    </message>
    <message>
        <source>bucket</source>
        <translation></translation>
    </message>
    <message>
        <source>data mode</source>
        <translation></translation>
    </message>
    <message>
        <source>A link class some route of this topology bottlenecks on</source>
        <translation></translation>
    </message>
    <message>
        <source>The class&apos;s α (per message), 0.1× to 10× the starting value</source>
        <translation></translation>
    </message>
    <message>
        <source>The class&apos;s bandwidth per direction, 0.1× to 10× the starting value</source>
        <translation></translation>
    </message>
    <message>
        <source>The device whose speed the slider sets</source>
        <translation></translation>
    </message>
    <message>
        <source>simulation.speed: the device&apos;s compute speed, 0.01× to 10× (a known straggler: every judge sees it)</source>
        <translation></translation>
    </message>
    <message>
        <source>link class</source>
        <translation></translation>
    </message>
    <message>
        <source>α</source>
        <translation></translation>
    </message>
    <message>
        <source>bandwidth</source>
        <translation></translation>
    </message>
    <message>
        <source>speed of device</source>
        <translation></translation>
    </message>
    <message>
        <source>The what-if panel edits a scenario&apos;s plan: this is a %1.</source>
        <translation></translation>
    </message>
    <message>
        <source>profile</source>
        <translation></translation>
    </message>
    <message>
        <source>trace</source>
        <translation></translation>
    </message>
    <message>
        <source>Open a scenario to try changes to its plan.</source>
        <translation></translation>
    </message>
    <message>
        <source>This model has no strategy (a graph is placed by its placement or mesh, a collective by its group)</source>
        <translation></translation>
    </message>
    <message>
        <source>= %1 of %2 devices</source>
        <translation></translation>
    </message>
    <message>
        <source>full (block of %1)</source>
        <translation></translation>
    </message>
    <message>
        <source>%1 (×%2)</source>
        <translation></translation>
    </message>
    <message>
        <source>no links</source>
        <translation></translation>
    </message>
    <message>
        <source>%1× %2</source>
        <translation></translation>
    </message>
    <message>
        <source>(straggler)</source>
        <translation></translation>
    </message>
    <message>
        <source>Closed form: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>Simulator: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>What-if: the simulator has judged the edited plan</source>
        <translation></translation>
    </message>
    <message>
        <source>This plan cannot be: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>simulating…</source>
        <translation></translation>
    </message>
    <message>
        <source>not judged</source>
        <translation></translation>
    </message>
    <message>
        <source>starting plan → edited plan</source>
        <translation></translation>
    </message>
    <message>
        <source>starting plan</source>
        <translation></translation>
    </message>
    <message>
        <source>closed form</source>
        <translation></translation>
    </message>
    <message>
        <source>simulator</source>
        <translation></translation>
    </message>
    <message>
        <source>step time</source>
        <translation></translation>
    </message>
    <message>
        <source>peak memory (highest device)</source>
        <translation></translation>
    </message>
    <message>
        <source>exposed communication (most exposed device)</source>
        <translation></translation>
    </message>
    <message>
        <source>Per device: waiting for a judge</source>
        <translation></translation>
    </message>
    <message>
        <source>Per device (%1), devices alike in one row, largest change first%2</source>
        <translation></translation>
    </message>
    <message>
        <source>; the first %1 rows</source>
        <translation></translation>
    </message>
    <message>
        <source>over capacity</source>
        <translation></translation>
    </message>
    <message>
        <source>Saved the edited plan as %1</source>
        <translation></translation>
    </message>
    <message>
        <source>Save the edited plan as a scenario</source>
        <translation></translation>
    </message>
    <message>
        <source>Scenarios (*.yaml)</source>
        <translation></translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation></translation>
    </message>
    <message>
        <source>Context-parallel degree (strategy.context): the sequence split over this many ranks, ring attention</source>
        <translation></translation>
    </message>
    <message>
        <source>Expert-parallel degree (strategy.expert): a MoE layer&apos;s experts split over this many data-parallel ranks (inside data)</source>
        <translation></translation>
    </message>
    <message>
        <source>data × tensor × context × pipeline</source>
        <translation></translation>
    </message>
    <message>
        <source>expert</source>
        <translation></translation>
    </message>
    <message>
        <source>simulation.host_op_time: the host&apos;s time to issue one operation (a kernel, a collective, a send); where the device&apos;s kernels are shorter, the host sets the pace. 0: the host keeps ahead (every judge sees it)</source>
        <translation></translation>
    </message>
    <message>
        <source>host time per operation</source>
        <translation></translation>
    </message>
    <message>
        <source>simulation.devices_per_host: how many devices one host drives, issuing all their operations one after another (1: a process per GPU; 8: one process for a node&apos;s GPUs). Acts with a host time per operation</source>
        <translation></translation>
    </message>
    <message>
        <source>devices per host</source>
        <translation></translation>
    </message>
</context>
</TS>
