<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>Amdahl</name>
    <message>
        <source>no Amdahl fit: a lone collective has no work that divides over the devices (each rank moves its M bytes whatever their number; a ring&apos;s time grows as (N-1)/N), so a parallel fraction means nothing here</source>
        <translation>无法拟合 Amdahl：单独一次集合通信没有可分到各设备上的工作（无论设备多少，每个 rank 都要搬运自己的 M 字节；环的时间按 (N-1)/N 增长），所以并行比例在这里没有意义</translation>
    </message>
    <message>
        <source>the fitted p is not a parallel fraction (Amdahl&apos;s law needs 0 &lt;= p &lt;= 1): the step only grows with the devices, whatever of it is parallel is outweighed by what adding devices costs</source>
        <translation>拟合出的 p 不是并行比例（Amdahl 定律要求 0 &lt;= p &lt;= 1）：一步的时间只随设备增多而变长，可并行的部分被加设备的代价抵消了</translation>
    </message>
    <message>
        <source>the fitted p is not a parallel fraction (Amdahl&apos;s law needs 0 &lt;= p &lt;= 1): the speedup is better than linear (per-device work fits caches or memory better)</source>
        <translation>拟合出的 p 不是并行比例（Amdahl 定律要求 0 &lt;= p &lt;= 1）：加速比好于线性（每台设备的工作更容易放进缓存或显存）</translation>
    </message>
</context>
<context>
    <name>CalibrationPlots</name>
    <message>
        <source>%1 measured</source>
        <translation>%1 实测</translation>
    </message>
    <message>
        <source>streaming kernels: T = α + bytes / B</source>
        <translation>流式 kernel：T = α + 字节数 / B</translation>
    </message>
    <message>
        <source>collective steps, all kinds together: T = overhead + s α + copied / B + reduced / B_r</source>
        <translation>集合通信的步骤（所有种类合在一起）：T = 开销 + s α + 复制量 / B + 归约量 / B_r</translation>
    </message>
    <message>
        <source>transfers over %1: T = α + bytes / B</source>
        <translation>经 %1 的传输：T = α + 字节数 / B</translation>
    </message>
    <message>
        <source>%1&apos;s own steps (α and scale by size)</source>
        <translation>%1 自己的步骤（α 及随大小的缩放）</translation>
    </message>
    <message>
        <source>%1 GEMM curve against its samples</source>
        <translation>%1 的 GEMM 曲线与其采样点</translation>
    </message>
    <message>
        <source>GEMM efficiency (of each dtype&apos;s peak) against FLOP per GEMM</source>
        <translation>GEMM 效率（相对各 dtype 的峰值）随单个 GEMM 的 FLOP 的变化</translation>
    </message>
    <message>
        <source>FLOP per GEMM (log scale)</source>
        <translation>单个 GEMM 的 FLOP（对数刻度）</translation>
    </message>
    <message>
        <source>efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <source>peaks: %1</source>
        <translation>峰值：%1</translation>
    </message>
    <message>
        <source>no peak known for %1: the curve alone (no half-performance time)</source>
        <translation>%1 没有已知的峰值：只画曲线（没有半性能时间）</translation>
    </message>
    <message>
        <source>Streaming kernels: bandwidth against bytes per kernel</source>
        <translation>流式 kernel：带宽随单个 kernel 字节数的变化</translation>
    </message>
    <message>
        <source>bytes per kernel (log scale)</source>
        <translation>单个 kernel 的字节数（对数刻度）</translation>
    </message>
    <message>
        <source>bandwidth (bytes / kernel time)</source>
        <translation>带宽（字节数 / kernel 时间）</translation>
    </message>
    <message>
        <source>model: %1 x %2, launch %3</source>
        <translation>模型：%1 x %2，启动开销 %3</translation>
    </message>
    <message>
        <source>no memory bandwidth known for %1 (neither measured nor a data sheet&apos;s): no model line</source>
        <translation>%1 没有已知的显存带宽（既无实测值，也无数据手册值）：不画模型线</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) over %1</source>
        <translation>
            <numerusform>经 %1 的 %n 个 rank</numerusform>
        </translation>
    </message>
    <message>
        <source>no link measured in this profile: transfers and collectives take the topology&apos;s bandwidths (open a scenario that names the profile to see them)</source>
        <translation>此硬件配置中没有实测的链路：传输与集合通信采用拓扑的带宽（打开一个引用此硬件配置的场景即可看到）</translation>
    </message>
    <message>
        <source>Transfers: bandwidth against bytes, per link class</source>
        <translation>传输：带宽随字节数的变化，按链路类别</translation>
    </message>
    <message>
        <source>bytes (log scale)</source>
        <translation>字节数（对数刻度）</translation>
    </message>
    <message>
        <source>bandwidth (bytes / time)</source>
        <translation>带宽（字节数 / 时间）</translation>
    </message>
    <message>
        <source>Collectives: bus bandwidth against size (nccl-tests&apos; busBw)</source>
        <translation>集合通信：总线带宽随大小的变化（nccl-tests 的 busBw）</translation>
    </message>
    <message>
        <source>size M (bytes, log scale)</source>
        <translation>大小 M（字节，对数刻度）</translation>
    </message>
    <message>
        <source>bus bandwidth</source>
        <translation>总线带宽</translation>
    </message>
    <message>
        <source>ring algorithm, %1</source>
        <translation>ring 算法，%1</translation>
    </message>
    <message>
        <source>ring algorithm; solid: %1; dashed: %2</source>
        <translation>ring 算法；实线：%1；虚线：%2</translation>
    </message>
    <message>
        <source>no samples in this profile: the fits alone</source>
        <translation>此硬件配置没有采样点：只有拟合结果</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) in node %1</source>
        <translation>
            <numerusform>节点 %1 内的 %n 个 rank</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n node(s), one rank each</source>
        <translation>
            <numerusform>%n 个节点，每个节点一个 rank</numerusform>
        </translation>
    </message>
    <message>
        <source>norm</source>
        <translation>归一化（norm）</translation>
    </message>
    <message>
        <source>norm backward</source>
        <translation>归一化反向</translation>
    </message>
    <message>
        <source>activation</source>
        <translation>激活函数</translation>
    </message>
    <message>
        <source>activation backward</source>
        <translation>激活函数反向</translation>
    </message>
    <message>
        <source>norm measured</source>
        <translation>归一化实测</translation>
    </message>
    <message>
        <source>activation measured</source>
        <translation>激活函数实测</translation>
    </message>
    <message>
        <source>gated activation</source>
        <translation>门控激活函数</translation>
    </message>
    <message>
        <source>gated activation backward</source>
        <translation>门控激活函数反向</translation>
    </message>
    <message>
        <source>%1 model x %2</source>
        <translation>%1 模型 x %2</translation>
    </message>
    <message>
        <source>gated activation measured</source>
        <translation>门控激活函数实测</translation>
    </message>
</context>
<context>
    <name>Compare</name>
    <message>
        <source>simulated (%1)</source>
        <translation>模拟（%1）</translation>
    </message>
    <message>
        <source>closed form</source>
        <translation>闭式模型</translation>
    </message>
    <message>
        <source>a trace</source>
        <translation>一份 trace</translation>
    </message>
    <message>
        <source>measured (%1)</source>
        <translation>实测（%1）</translation>
    </message>
    <message>
        <source>step: A %1, B %2, B - A %3%4</source>
        <translation>单步时间：A %1，B %2，B - A %3%4</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation>（%1）</translation>
    </message>
    <message numerus="yes">
        <source>&apos;%1&apos; · %2 · %n device(s) · step %3</source>
        <translation>
            <numerusform>“%1” · %2 · %n 个设备 · 单步 %3</numerusform>
        </translation>
    </message>
    <message>
        <source>different programs: &apos;%1&apos; and &apos;%2&apos;</source>
        <translation>程序不同：“%1”与“%2”</translation>
    </message>
    <message>
        <source>no device names in common: devices matched by id</source>
        <translation>没有相同的设备名：按编号对应设备</translation>
    </message>
    <message>
        <source>different devices: %1 and %2 (%3 in common: no per-device rows)</source>
        <translation>设备不同：%1 台与 %2 台（共有 %3 台：没有逐设备的行）</translation>
    </message>
    <message>
        <source>different devices: %1 and %2 (%3 in common)</source>
        <translation>设备不同：%1 台与 %2 台（共有 %3 台）</translation>
    </message>
    <message>
        <source>a measurement against a prediction (%1, %2)</source>
        <translation>实测对预测（%1，%2）</translation>
    </message>
    <message>
        <source>a prediction against a measurement (%1, %2)</source>
        <translation>预测对实测（%1，%2）</translation>
    </message>
    <message>
        <source>per-kind times counted differently (A: %1, B: %2): compared are the step, the devices and the memory</source>
        <translation>按类别的时间计法不同（A：%1，B：%2）：只比较一步的时间、各设备和显存</translation>
    </message>
</context>
<context>
    <name>HostLane</name>
    <message>
        <source>device %1</source>
        <translation>设备 %1</translation>
    </message>
    <message>
        <source>task %1</source>
        <translation>任务 %1</translation>
    </message>
    <message>
        <source>%1&apos;s host issues %2: %3, from %4 to %5</source>
        <translation>%1 的主机发出 %2：%3，从 %4 到 %5</translation>
    </message>
    <message>
        <source>; it started then, waiting for its host</source>
        <translation>；它随即开始，一直在等主机</translation>
    </message>
    <message>
        <source>; it started at %1</source>
        <translation>；它在 %1 开始</translation>
    </message>
</context>
<context>
    <name>KernelGroups</name>
    <message>
        <source>kernel groups of %1 on %2, one step (simulated, %3)</source>
        <translation>%1 在 %2 上一步的 kernel 分组（模拟，%3）</translation>
    </message>
    <message>
        <source>against %1 (%2 steps, %3 GPUs: its times / %4)</source>
        <translation>对照 %1（%2 步，%3 块 GPU：其时间 / %4）</translation>
    </message>
    <message>
        <source>granularity %1: a fused run of kernels is a group of its own (open the scenario with --granularity kernel, or run brigade kernels, to name each kernel&apos;s group)</source>
        <translation>粒度 %1：一串融合的 kernel 自成一组（用 --granularity kernel 打开场景，或运行 brigade kernels，即可给出每个 kernel 所属的分组）</translation>
    </message>
    <message>
        <source>against %1 (Brigade&apos;s trace from %2, its device %3: its times / %4)</source>
        <translation>对照 %1（Brigade 自己的 trace，来源 %2，取其设备 %3：其时间 / %4）</translation>
    </message>
    <message>
        <source>%1: no span of %2 in Brigade&apos;s trace</source>
        <translation>%1：Brigade 的 trace 中没有 %2 的区段</translation>
    </message>
</context>
<context>
    <name>LaneLayout</name>
    <message>
        <source>node %1</source>
        <translation>节点 %1</translation>
    </message>
    <message>
        <source>device %1</source>
        <translation>设备 %1</translation>
    </message>
    <message>
        <source>stream %1</source>
        <translation>流 %1</translation>
    </message>
    <message>
        <source>host</source>
        <translation>主机</translation>
    </message>
</context>
<context>
    <name>Loader</name>
    <message>
        <source>%1 on %2, granularity %3</source>
        <translation>%1，分布在 %2上，粒度 %3</translation>
    </message>
    <message numerus="yes">
        <source>%n task(s)</source>
        <translation>
            <numerusform>%n 个任务</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n device(s)</source>
        <translation>
            <numerusform>%n 个设备</numerusform>
        </translation>
    </message>
    <message>
        <source>recorded for %1</source>
        <translation>记录范围：%1</translation>
    </message>
</context>
<context>
    <name>MemorySeries</name>
    <message>
        <source>resident buffers</source>
        <translation>常驻缓冲区</translation>
    </message>
    <message>
        <source>%1 (task %2)</source>
        <translation>%1（任务 %2）</translation>
    </message>
    <message>
        <source>task %1</source>
        <translation>任务 %1</translation>
    </message>
</context>
<context>
    <name>ModelText</name>
    <message>
        <source>parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>communication buffers</source>
        <translation>通信缓冲区</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>per device</source>
        <translation>按设备</translation>
    </message>
    <message>
        <source>peak memory per device</source>
        <translation>每个设备的峰值显存</translation>
    </message>
    <message>
        <source>per task kind (span time summed over devices)</source>
        <translation>按任务种类（区段时间在各设备上求和）</translation>
    </message>
    <message>
        <source>per task kind (the busiest device&apos;s time per step)</source>
        <translation>按任务种类（最忙设备每步的时间）</translation>
    </message>
    <message>
        <source>busy</source>
        <translation>忙碌</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>exposed</source>
        <translation>暴露</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>peak memory</source>
        <translation>峰值显存</translation>
    </message>
    <message>
        <source>time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>other compute</source>
        <translation>其他计算</translation>
    </message>
    <message>
        <source>transfer</source>
        <translation>传输</translation>
    </message>
    <message>
        <source>collective</source>
        <translation>集合通信</translation>
    </message>
    <message>
        <source>reading</source>
        <translation>读取中</translation>
    </message>
    <message>
        <source>lowering</source>
        <translation>生成程序中</translation>
    </message>
    <message>
        <source>simulating</source>
        <translation>模拟中</translation>
    </message>
    <message>
        <source>indexing</source>
        <translation>建立索引中</translation>
    </message>
    <message>
        <source>host issuing</source>
        <translation>主机发出</translation>
    </message>
    <message>
        <source>GEMM, FP8</source>
        <translation>GEMM，FP8</translation>
    </message>
    <message>
        <source>GEMM, BF16/FP16</source>
        <translation>GEMM，BF16/FP16</translation>
    </message>
    <message>
        <source>GEMM, other widths</source>
        <translation>GEMM，其他位宽</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>norms</source>
        <translation>归一化</translation>
    </message>
    <message>
        <source>activation functions</source>
        <translation>激活函数</translation>
    </message>
    <message>
        <source>FP8 casts and scaling</source>
        <translation>FP8 转换与缩放</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>embedding</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>other streaming</source>
        <translation>其他流式 kernel</translation>
    </message>
    <message>
        <source>fused runs</source>
        <translation>融合的 kernel 串</translation>
    </message>
    <message>
        <source>NCCL AllReduce</source>
        <translation>NCCL AllReduce</translation>
    </message>
    <message>
        <source>NCCL AllGather</source>
        <translation>NCCL AllGather</translation>
    </message>
    <message>
        <source>NCCL ReduceScatter</source>
        <translation>NCCL ReduceScatter</translation>
    </message>
    <message>
        <source>NCCL Broadcast/Reduce</source>
        <translation>NCCL Broadcast/Reduce</translation>
    </message>
    <message>
        <source>send/recv, AllToAll</source>
        <translation>发送/接收，AllToAll</translation>
    </message>
    <message>
        <source>copies and fills</source>
        <translation>拷贝与填充</translation>
    </message>
    <message>
        <source>GEMMs, all widths</source>
        <translation>GEMM，全部位宽</translation>
    </message>
    <message>
        <source>streaming, all</source>
        <translation>流式 kernel，全部</translation>
    </message>
    <message>
        <source>compute, all</source>
        <translation>计算，全部</translation>
    </message>
    <message>
        <source>communication and copies</source>
        <translation>通信与拷贝</translation>
    </message>
</context>
<context>
    <name>PlanWarnings</name>
    <message>
        <source>schedule: interleaved with virtual_stages: 1 is plain 1F1B (interleaving needs 2 or more model chunks per device): judged as 1F1B</source>
        <translation>schedule：virtual_stages 为 1 的 interleaved 就是普通的 1F1B（交错需要每台设备 2 个或更多模型块）：按 1F1B 评估</translation>
    </message>
    <message>
        <source>no strategy: the plan uses 1 of the topology&apos;s %1 devices (strategy: {data: %1} would use them all; `brigade search` looks for a strategy)</source>
        <translation>没有 strategy：方案只用了拓扑中 %1 台设备里的 1 台（strategy: {data: %1} 会用上全部；`brigade search` 可以找一个策略）</translation>
    </message>
</context>
<context>
    <name>Purpose</name>
    <message>
        <source>data</source>
        <translation>数据并行</translation>
    </message>
    <message>
        <source>tensor</source>
        <translation>张量并行</translation>
    </message>
    <message>
        <source>pipeline</source>
        <translation>流水线并行</translation>
    </message>
    <message>
        <source>expert</source>
        <translation>专家并行</translation>
    </message>
    <message>
        <source>expert data</source>
        <translation>专家的数据组</translation>
    </message>
    <message>
        <source>sequence</source>
        <translation>序列并行</translation>
    </message>
    <message>
        <source>tied embedding</source>
        <translation>共享词嵌入</translation>
    </message>
    <message>
        <source>zero-3 params</source>
        <translation>ZeRO-3 参数</translation>
    </message>
    <message>
        <source>sharding</source>
        <translation>分片布局</translation>
    </message>
    <message>
        <source>transfer</source>
        <translation>传输</translation>
    </message>
    <message>
        <source>collective</source>
        <translation>场景指定</translation>
    </message>
    <message>
        <source>fp8 amax</source>
        <translation>FP8 缩放同步</translation>
    </message>
</context>
<context>
    <name>Reasons</name>
    <message>
        <source>FP8 current scaling: the amax of a sequence-parallel tensor is reduced over &apos;tensor&apos; before its cast, so that every rank&apos;s shard takes one scale</source>
        <translation>FP8 当前缩放：序列并行张量的最大绝对值在转换之前经“tensor”轴归约，使各秩的分片共用一个缩放因子</translation>
    </message>
    <message>
        <source>FP8 delayed scaling: the amaxes of the device&apos;s FP8 tensors reduced (MAX) over &apos;tensor&apos; once a chunk&apos;s pass (Transformer Engine&apos;s reduce_and_update_fp8_tensors)</source>
        <translation>FP8 延迟缩放：模型块的每次前向与反向结束时，本设备全部 FP8 张量的最大绝对值经“tensor”轴归约（取最大值；Transformer Engine 的 reduce_and_update_fp8_tensors）</translation>
    </message>
    <message>
        <source>sequence parallel: gather the LayerNorm output&apos;s sequence shards over &apos;tensor&apos; before the column-parallel QKV GEMM</source>
        <translation>序列并行：在按列并行的 QKV GEMM 之前，经“tensor”轴收齐 LayerNorm 输出的各个序列分片</translation>
    </message>
    <message>
        <source>sequence parallel: the row-parallel projection leaves partial sums; reduce-scatter them over &apos;tensor&apos; into sequence shards</source>
        <translation>序列并行：按行并行的投影留下部分和；经“tensor”轴 reduce-scatter 成序列分片</translation>
    </message>
    <message>
        <source>Megatron row-parallel attention projection: each rank holds a partial sum over its heads; psum over &apos;tensor&apos;</source>
        <translation>Megatron 按行并行的注意力投影：每个 rank 持有自己那些头上的部分和；经“tensor”轴 psum</translation>
    </message>
    <message>
        <source>sequence parallel: gather the LayerNorm output&apos;s sequence shards over &apos;tensor&apos; before the column-parallel fc1 GEMM</source>
        <translation>序列并行：在按列并行的 fc1 GEMM 之前，经“tensor”轴收齐 LayerNorm 输出的各个序列分片</translation>
    </message>
    <message>
        <source>sequence parallel: the row-parallel fc2 leaves partial sums; reduce-scatter them over &apos;tensor&apos; into sequence shards</source>
        <translation>序列并行：按行并行的 fc2 留下部分和；经“tensor”轴 reduce-scatter 成序列分片</translation>
    </message>
    <message>
        <source>Megatron row-parallel fc2: each rank holds a partial sum over its FFN columns; psum over &apos;tensor&apos;</source>
        <translation>Megatron 按行并行的 fc2：每个 rank 持有自己那些 FFN 列上的部分和；经“tensor”轴 psum</translation>
    </message>
    <message>
        <source>sequence parallel backward: gather the output gradient&apos;s sequence shards over &apos;tensor&apos; (the transpose of the forward reduce-scatter)</source>
        <translation>序列并行的反向：经“tensor”轴收齐输出梯度的各个序列分片（前向 reduce-scatter 的转置）</translation>
    </message>
    <message>
        <source>sequence parallel backward: re-gather fc1&apos;s input over &apos;tensor&apos; for its weight gradient (only the sequence shard was kept)</source>
        <translation>序列并行的反向：为算 fc1 的权重梯度，经“tensor”轴重新收齐它的输入（之前只保留了序列分片）</translation>
    </message>
    <message>
        <source>sequence parallel backward: fc1&apos;s input gradient is partial over the FFN shards; reduce-scatter it over &apos;tensor&apos; (the transpose of the forward all-gather)</source>
        <translation>序列并行的反向：fc1 的输入梯度是各 FFN 分片上的部分和；经“tensor”轴 reduce-scatter（前向 all-gather 的转置）</translation>
    </message>
    <message>
        <source>backward of the column-parallel fc1: its input gradient is a partial sum over the FFN columns; psum over &apos;tensor&apos;</source>
        <translation>按列并行的 fc1 的反向：它的输入梯度是各 FFN 列上的部分和；经“tensor”轴 psum</translation>
    </message>
    <message>
        <source>sequence parallel backward: re-gather the QKV input over &apos;tensor&apos; for its weight gradient (only the sequence shard was kept)</source>
        <translation>序列并行的反向：为算权重梯度，经“tensor”轴重新收齐 QKV 的输入（之前只保留了序列分片）</translation>
    </message>
    <message>
        <source>the scenario asks for one %1 of %2 bytes over %3 devices (%4)</source>
        <translation>场景要求在 %3 台设备上做一次 %2 字节的 %1（%4）</translation>
    </message>
    <message>
        <source>psum over %1: the gradients of %2 sum over the batch, which is split over %1 (averaging gradients; one bucket, as DDP buckets or XLA&apos;s all-reduce combiner)</source>
        <translation>经 %1 轴 psum：批次按 %1 切分，%2 的梯度要在整个批次上求和（梯度平均；合成一个桶，就像 DDP 的分桶或 XLA 的 all-reduce 合并器）</translation>
    </message>
    <message>
        <source>psum_scatter over %1: ZeRO-%2: the gradients of %3 sum over the batch split over %1; each replica keeps the 1/%4 shard it updates</source>
        <translation>经 %1 轴 psum_scatter：ZeRO-%2：批次按 %1 切分，%3 的梯度在整个批次上求和；每个副本只留下自己要更新的 1/%4 分片</translation>
    </message>
    <message>
        <source>%1 tensor-parallel %2s of this pipeline step, merged into one (granularity step): </source>
        <translation>这一流水线步的 %1 次张量并行 %2，合并成一次（粒度 step）：</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s pipeline engine sends 1/%1 of the boundary tensor a rank; all-gather it back over &apos;tensor&apos;</source>
        <translation>DeepSpeed 的流水线引擎让每个 rank 只发送边界张量的 1/%1；再经“tensor”轴 all-gather 回整个张量</translation>
    </message>
    <message>
        <source>Megatron-LM&apos;s scatter-gather sends 1/%1 of the boundary tensor a rank; all-gather it back over &apos;tensor&apos;</source>
        <translation>Megatron-LM 的分散—聚集优化让每个 rank 只发送边界张量的 1/%1；再经“tensor”轴 all-gather 回整个张量</translation>
    </message>
    <message>
        <source>ZeRO-%1: sum the gradients over &apos;data&apos; bucket by bucket, each replica keeping the 1/%2 shard it updates</source>
        <translation>ZeRO-%1：经“data”轴逐桶对梯度求和，每个副本只留下自己要更新的 1/%2 分片</translation>
    </message>
    <message>
        <source>data parallel: average the gradients over &apos;data&apos; (the sauce bowl) bucket by bucket, each as soon as the backward has produced it</source>
        <translation>数据并行：经“data”轴逐桶平均梯度（大家一起倒进酱汁碗），反向一算出一个桶就倒一个</translation>
    </message>
    <message>
        <source>; this bucket: %1</source>
        <translation>；这个桶：%1</translation>
    </message>
    <message>
        <source>expert parallel: send each token&apos;s top-%1 copies to the ranks of &apos;expert&apos; (%2 ranks, %3 experts each) that hold their experts</source>
        <translation>专家并行：经“expert”轴把每个 token 的 top-%1 个副本发往持有其专家的 rank（共 %2 个 rank，每个持有 %3 个专家）</translation>
    </message>
    <message>
        <source>expert parallel: return the experts&apos; outputs over &apos;expert&apos; to the ranks whose tokens they were</source>
        <translation>专家并行：经“expert”轴把各专家的输出送回这些 token 原来所在的 rank</translation>
    </message>
    <message>
        <source>expert parallel backward: send the output gradients of the token copies over &apos;expert&apos; to the ranks holding their experts (the transpose of the combine)</source>
        <translation>专家并行的反向：经“expert”轴把各 token 副本的输出梯度发往持有其专家的 rank（combine 的转置）</translation>
    </message>
    <message>
        <source>expert parallel backward: return the input gradients of the token copies over &apos;expert&apos; (the transpose of the dispatch)</source>
        <translation>专家并行的反向：经“expert”轴送回各 token 副本的输入梯度（dispatch 的转置）</translation>
    </message>
    <message>
        <source>sequence parallel backward: re-gather the MLP input over &apos;tensor&apos; for the weight gradients (only the sequence shard was kept)</source>
        <translation>序列并行的反向：为算权重梯度，经“tensor”轴重新收齐 MLP 的输入（之前只保留了序列分片）</translation>
    </message>
    <message>
        <source>sequence parallel backward: the QKV input gradient is partial over the heads; reduce-scatter it over &apos;tensor&apos; (the transpose of the forward all-gather)</source>
        <translation>序列并行的反向：QKV 的输入梯度是各个头上的部分和；经“tensor”轴 reduce-scatter（前向 all-gather 的转置）</translation>
    </message>
    <message>
        <source>backward of the column-parallel QKV: its input gradient is a partial sum over the heads; psum over &apos;tensor&apos;</source>
        <translation>按列并行的 QKV 的反向：它的输入梯度是各个头上的部分和；经“tensor”轴 psum</translation>
    </message>
    <message>
        <source>psum_scatter over %1 onto dimension %2</source>
        <translation>经 %1 轴 psum_scatter 到第 %2 维</translation>
    </message>
    <message>
        <source>psum over %1</source>
        <translation>经 %1 轴 psum</translation>
    </message>
    <message>
        <source>all_to_all over %1 (dimension %2 -&gt; %3)</source>
        <translation>经 %1 轴 all_to_all（第 %2 维 -&gt; 第 %3 维）</translation>
    </message>
    <message>
        <source>all_gather over %1 (dimension %2)</source>
        <translation>经 %1 轴 all_gather（第 %2 维）</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>the loss &apos;%1&apos; sums over every element of its input, which is split over %2</source>
        <translation>损失“%1”要对输入的每个元素求和，而输入按 %2 轴切分</translation>
    </message>
    <message>
        <source>the table of %1 is split over %2 by vocabulary rows; each device looked up only its rows</source>
        <translation>%1 的表按词表的行切分到 %2 轴上；每台设备只查了自己的那些行</translation>
    </message>
    <message>
        <source>the contracted dimension (size %1) of %2 is split over %3, so each device holds a partial sum (y = sum_k x_k W_k)</source>
        <translation>%2 的收缩维（大小 %1）按 %3 轴切分，所以每台设备持有的是部分和（y = sum_k x_k W_k）</translation>
    </message>
    <message>
        <source>%1 needs %2 as %3 (whole rows)</source>
        <translation>%1 需要 %2 的布局为 %3（整行）</translation>
    </message>
    <message>
        <source>%1 needs %2 as %3</source>
        <translation>%1 需要 %2 的布局为 %3</translation>
    </message>
    <message>
        <source>the gradient of %1 sums over the batch, which is split over %2 (averaging gradients, pmean)</source>
        <translation>%1 的梯度要在整个批次上求和，而批次按 %2 轴切分（梯度平均，pmean）</translation>
    </message>
    <message>
        <source>%1 is wanted as %2</source>
        <translation>%1 要求的布局是 %2</translation>
    </message>
    <message>
        <source>all_gather over %1: ZeRO-%2: each replica updated only its 1/%3 of %4; gather the new weights (the shared platter)</source>
        <translation>经 %1 轴 all_gather：ZeRO-%2：每个副本只更新了 %4 的 1/%3；收齐新的权重（公共大盘）</translation>
    </message>
    <message>
        <source>ZeRO-3: each data replica keeps 1/%1 of %2&apos;s parameters; all-gather them over &apos;data&apos; before use</source>
        <translation>ZeRO-3：每个数据副本只保存 %2 参数的 1/%1；用之前经“data”轴 all-gather</translation>
    </message>
    <message>
        <source>ZeRO-3: sum %1&apos;s gradients over &apos;data&apos;, each replica keeping its 1/%2 shard</source>
        <translation>ZeRO-3：经“data”轴对 %1 的梯度求和，每个副本留下自己的 1/%2 分片</translation>
    </message>
    <message>
        <source>tied word embeddings: the first and last pipeline stages each hold a copy; sum their gradients</source>
        <translation>共享的词嵌入：流水线的第一级和最后一级各持有一份；对两份的梯度求和</translation>
    </message>
    <message>
        <source>sequence parallel: LayerNorm, bias and position-embedding gradients are partial over the sequence shards; psum over &apos;tensor&apos;</source>
        <translation>序列并行：LayerNorm、偏置和位置嵌入的梯度是各序列分片上的部分和；经“tensor”轴 psum</translation>
    </message>
    <message>
        <source>QK-norm: each tensor rank&apos;s query and key norms saw only its own heads; sum their gains&apos; gradients over &apos;tensor&apos;</source>
        <translation>查询与键归一化：每个张量并行 rank 的查询与键归一化只见到自己的头；经“tensor”轴对其增益的梯度求和</translation>
    </message>
    <message>
        <source>expert parallel: each expert lives on %1 data ranks (one per expert-parallel group); sum its gradients over them, the expert-data group, not over &apos;data&apos;</source>
        <translation>专家并行：每个专家分布在 %1 个数据 rank 上（每个专家并行组一个）；在这些 rank（专家-数据组）上对它的梯度求和，而不是经“data”轴</translation>
    </message>
    <message>
        <source>expert parallel, ZeRO-1: each expert lives on %1 data ranks; reduce-scatter its gradients over them, the expert-data group, each keeping the shard it updates</source>
        <translation>专家并行，ZeRO-1：每个专家分布在 %1 个数据 rank 上；在这些 rank（专家-数据组）上对它的梯度做 reduce-scatter，各自留下要更新的那一份</translation>
    </message>
    <message>
        <source>expert parallel, ZeRO-1: each of the expert&apos;s %1 data ranks updated its shard; all-gather the new expert weights over them</source>
        <translation>专家并行，ZeRO-1：该专家的 %1 个数据 rank 各自更新了自己那一份；在它们之间 all-gather 新的专家权重</translation>
    </message>
    <message>
        <source>ZeRO-%1 with overlap_param_gather: each data replica updated only its 1/%2 of the weights; all-gather them over &apos;data&apos; bucket by bucket in the next step&apos;s first forward, one bucket ahead of the compute</source>
        <translation>ZeRO-%1（overlap_param_gather）：每个数据副本只更新了自己那 1/%2 的权重；在下一步的第一个前向中经“data”轴逐桶 all-gather 它们，比计算提前一个桶</translation>
    </message>
    <message>
        <source>ZeRO-%1: each data replica updated only its 1/%2 of the weights; all-gather the new weights over &apos;data&apos; (the shared platter), bucket by bucket</source>
        <translation>ZeRO-%1：每个数据副本只更新了自己那 1/%2 的权重；经“data”轴逐桶 all-gather 新的权重（公共大盘）</translation>
    </message>
    <message>
        <source>vocabulary-parallel embedding: each rank looked up only its V/t rows; reduce-scatter the partial embeddings over &apos;tensor&apos; into sequence shards</source>
        <translation>词表并行的嵌入：每个 rank 只查了自己那 V/t 行；经“tensor”轴把部分嵌入 reduce-scatter 成序列分片</translation>
    </message>
    <message>
        <source>vocabulary-parallel embedding: each rank looked up only its V/t rows; psum over &apos;tensor&apos;</source>
        <translation>词表并行的嵌入：每个 rank 只查了自己那 V/t 行；经“tensor”轴 psum</translation>
    </message>
    <message>
        <source>sequence parallel backward: gather the embedding gradient&apos;s sequence shards over &apos;tensor&apos;</source>
        <translation>序列并行的反向：经“tensor”轴收齐嵌入梯度的各个序列分片</translation>
    </message>
    <message>
        <source>sequence parallel: gather the final hidden states&apos; sequence shards over &apos;tensor&apos; before the vocabulary-parallel logits GEMM</source>
        <translation>序列并行：在词表并行的 logits GEMM 之前，经“tensor”轴收齐最后隐藏状态的各个序列分片</translation>
    </message>
    <message>
        <source>vocabulary-parallel cross-entropy: max, target logit and sum of exponentials over the V/t shards; psum over &apos;tensor&apos; (Megatron-LM issues three all-reduces of b*s values; fused here into one)</source>
        <translation>词表并行的交叉熵：各 V/t 分片上的最大值、目标 logit 和指数和；经“tensor”轴 psum（Megatron-LM 发出三次各 b*s 个值的 all-reduce；这里合并成一次）</translation>
    </message>
    <message>
        <source>sequence parallel backward: the logits&apos; input gradient is partial over the vocabulary shards; reduce-scatter it over &apos;tensor&apos;</source>
        <translation>序列并行的反向：logits 的输入梯度是各词表分片上的部分和；经“tensor”轴 reduce-scatter</translation>
    </message>
    <message>
        <source>backward of the vocabulary-parallel logits GEMM: its input gradient is a partial sum over the vocabulary shards; psum over &apos;tensor&apos;</source>
        <translation>词表并行的 logits GEMM 的反向：它的输入梯度是各词表分片上的部分和；经“tensor”轴 psum</translation>
    </message>
    <message>
        <source>FP8 delayed scaling: the amaxes of the device&apos;s FP8 tensors reduced (MAX) over &apos;tensor&apos; and &apos;context&apos; once a chunk&apos;s pass (Transformer Engine&apos;s reduce_and_update_fp8_tensors)</source>
        <translation>FP8 延迟缩放：模型块的每次前向与反向结束时，本设备全部 FP8 张量的最大绝对值经“tensor”与“context”两轴归约（取最大值；Transformer Engine 的 reduce_and_update_fp8_tensors）</translation>
    </message>
    <message>
        <source>FP8 delayed scaling: the amaxes of the device&apos;s FP8 tensors reduced (MAX) over &apos;tensor&apos;, &apos;data&apos; and &apos;context&apos; once a chunk&apos;s pass (Transformer Engine&apos;s reduce_and_update_fp8_tensors)</source>
        <translation>FP8 延迟缩放：模型块的每次前向与反向结束时，本设备全部 FP8 张量的最大绝对值经“tensor”“data”与“context”三轴归约（取最大值；Transformer Engine 的 reduce_and_update_fp8_tensors）</translation>
    </message>
</context>
<context>
    <name>Roles</name>
    <message>
        <source>rank %1 of %2</source>
        <translation>rank %1（共 %2 个）</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>runs %1</source>
        <translation>负责 %1</translation>
    </message>
    <message>
        <source>tensor %1/%2, data %3/%4, pipeline %5/%6</source>
        <translation>张量 %1/%2，数据 %3/%4，流水线 %5/%6</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>%1 %2/%3</source>
        <comment>a mesh axis&apos;s name, the coordinate/its size</comment>
        <translation>%1 轴 %2/%3</translation>
    </message>
    <message>
        <source>, experts %1-%2 of %3</source>
        <translation>，专家 %1-%2（共 %3 个）</translation>
    </message>
    <message>
        <source>, expert %1 of %2</source>
        <translation>，专家 %1（共 %2 个）</translation>
    </message>
    <message>
        <source>, context %1/%2 (positions %3-%4 and %5-%6; KV ring to device %7)</source>
        <translation>，上下文 %1/%2（位置 %3-%4 与 %5-%6；K/V 沿环传给设备 %7）</translation>
    </message>
</context>
<context>
    <name>SpanDetails</name>
    <message>
        <source>(unnamed)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <source>device %1</source>
        <translation>设备 %1</translation>
    </message>
    <message>
        <source>stream %1</source>
        <translation>流 %1</translation>
    </message>
    <message>
        <source>stream order: issued after it on the same stream (%1)</source>
        <translation>流顺序：在同一个流（%1）上排在它之后发出</translation>
    </message>
    <message>
        <source>data: the transfer from device %1 to this device</source>
        <translation>数据：从设备 %1 到本设备的传输</translation>
    </message>
    <message>
        <source>dependency on a transfer</source>
        <translation>依赖一次传输</translation>
    </message>
    <message>
        <source>data computed on device %1</source>
        <translation>在设备 %1 上计算出的数据</translation>
    </message>
    <message>
        <source>event: a kernel on stream &apos;%1&apos; of this device</source>
        <translation>事件：本设备流“%1”上的一个 kernel</translation>
    </message>
    <message>
        <source>dependency</source>
        <translation>依赖</translation>
    </message>
    <message>
        <source>%1 — %2 (%3, %4)</source>
        <translation>%1 — %2（%3，%4）</translation>
    </message>
    <message>
        <source>kind</source>
        <translation>种类</translation>
    </message>
    <message>
        <source>where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>end</source>
        <translation>结束</translation>
    </message>
    <message>
        <source>duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>%1 (phase %2)</source>
        <translation>%1（阶段 %2）</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <source>op</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>字节数</translation>
    </message>
    <message>
        <source>achieved</source>
        <translation>实际达到</translation>
    </message>
    <message>
        <source>GEMM %1 x %2 x %3%4 (%5)</source>
        <translation>GEMM %1 x %2 x %3%4（%5）</translation>
    </message>
    <message>
        <source>waves</source>
        <translation>波次</translation>
    </message>
    <message>
        <source>%1 filled (%2 waves of %3 tiles of %4 x %5; a part-full wave takes a full one&apos;s time)</source>
        <translation>填满 %1（%2 个波次，每波 %3 个 %4 x %5 的输出块；不满的一波与满的一波耗时相同）</translation>
    </message>
    <message>
        <source>NCCL&apos;s SMs</source>
        <translation>NCCL 占用的 SM</translation>
    </message>
    <message>
        <source>%1 of it beside collectives, the longest &apos;%2&apos; (its NCCL kernel holds %3 of %4 SMs): about %5 longer than alone</source>
        <translation>其中 %1 与集合通信并行，最长的是“%2”（其 NCCL 内核占用 %4 个 SM 中的 %3 个）：比单独运行约长 %5</translation>
    </message>
    <message>
        <source>, batch %1</source>
        <translation>，批 %1</translation>
    </message>
    <message>
        <source>%1 kernel (%2)</source>
        <translation>%1 kernel（%2）</translation>
    </message>
    <message>
        <source>transfer to %1</source>
        <translation>传输到 %1</translation>
    </message>
    <message>
        <source>%1 (nccl-tests size)</source>
        <translation>%1（nccl-tests 的大小口径）</translation>
    </message>
    <message>
        <source>why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>barrier: the last rank to arrive was %1 (rank %2), waiting for &apos;%3&apos; (%4)</source>
        <translation>屏障：最后到达的 rank 是 %1（rank %2），它在等待“%3”（%4）</translation>
    </message>
    <message>
        <source>nothing: the first task of its stream, with no dependencies</source>
        <translation>无：它是所在流的第一个任务，没有依赖</translation>
    </message>
    <message>
        <source>&apos;%1&apos; — %2</source>
        <translation>“%1” — %2</translation>
    </message>
    <message>
        <source>; it started %1 after that was done</source>
        <translation>；它在其完成 %1 之后才开始</translation>
    </message>
    <message>
        <source>waited for</source>
        <translation>等待的是</translation>
    </message>
    <message numerus="yes">
        <source>the result of the %1 over %n rank(s)</source>
        <translation>
            <numerusform>%n 个 rank 上 %1 的结果</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 (%2) over %n rank(s), %3</source>
        <translation>
            <numerusform>%1（%2），%n 个 rank，%3</numerusform>
        </translation>
    </message>
    <message>
        <source>its host, which issued it at %1 (host_op_time)</source>
        <translation>它的主机，在 %1 发出了它（host_op_time）</translation>
    </message>
    <message>
        <source>, %1 after &apos;%2&apos; was done</source>
        <translation>，在“%2”完成 %1 之后</translation>
    </message>
</context>
<context>
    <name>Summary</name>
    <message>
        <source>MQA (1 key/value head)</source>
        <translation>MQA（1 个键/值头）</translation>
    </message>
    <message>
        <source>GQA with %1 key/value heads</source>
        <translation>GQA，%1 个键/值头</translation>
    </message>
    <message>
        <source>heads of %1</source>
        <translation>每个头 %1 维</translation>
    </message>
    <message>
        <source>QK norm</source>
        <translation>查询与键归一化</translation>
    </message>
    <message>
        <source>SwiGLU FFN %1</source>
        <translation>SwiGLU FFN 宽 %1</translation>
    </message>
    <message>
        <source>FFN %1</source>
        <translation>FFN 宽 %1</translation>
    </message>
    <message>
        <source>MoE: %1 experts, top-%2, expert FFN %3</source>
        <translation>MoE：%1 个专家，top-%2，专家 FFN 宽 %3</translation>
    </message>
    <message>
        <source>, %1 shared</source>
        <translation>，%1 个共享专家</translation>
    </message>
    <message>
        <source>, capacity factor %1</source>
        <translation>，容量因子 %1</translation>
    </message>
    <message>
        <source>, first %1 dense</source>
        <translation>，前 %1 层为稠密层</translation>
    </message>
    <message>
        <source>, MoE every %1 layers</source>
        <translation>，每 %1 层有一个 MoE 层</translation>
    </message>
    <message>
        <source>MLA (latent %1)</source>
        <translation>MLA（潜在维 %1）</translation>
    </message>
    <message>
        <source>rotary positions</source>
        <translation>旋转位置编码</translation>
    </message>
    <message>
        <source>untied output</source>
        <translation>输出层不与嵌入共享</translation>
    </message>
    <message>
        <source>biases on QKV only</source>
        <translation>仅 QKV 有偏置</translation>
    </message>
    <message>
        <source>no biases</source>
        <translation>无偏置</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>MLP %1 (batch %2)</source>
        <translation>MLP %1（批大小 %2）</translation>
    </message>
    <message numerus="yes">
        <source>graph of %n op(s)</source>
        <translation>
            <numerusform>%n 个算子的计算图</numerusform>
        </translation>
    </message>
    <message>
        <source>one %1 over %2 devices</source>
        <translation>在 %2 台设备上做一次 %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 on a mesh %2 of %n device(s)</source>
        <translation>
            <numerusform>%1，运行在 %n 台设备组成的网格 %2 上</numerusform>
        </translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>%1 -&gt; device %2</source>
        <translation>%1 -&gt; 设备 %2</translation>
    </message>
    <message>
        <source>%1, manual placement: %2</source>
        <translation>%1，手动放置：%2</translation>
    </message>
    <message>
        <source>no recomputation</source>
        <translation>不重计算</translation>
    </message>
    <message>
        <source>selective recomputation (attention core)</source>
        <translation>选择性重计算（注意力核心）</translation>
    </message>
    <message>
        <source>full recomputation (whole layer)</source>
        <translation>完全重计算（整层）</translation>
    </message>
    <message>
        <source>op-level selective recomputation (torchtitan&apos;s policy: matmul and attention outputs kept but every second matmul&apos;s)</source>
        <translation>算子级选择性重计算（torchtitan 的策略：保留矩阵乘与注意力的输出，但每隔一个矩阵乘不保留）</translation>
    </message>
    <message>
        <source>block recomputation (the first %1 of a chunk&apos;s %2 layers)</source>
        <translation>分块重计算（每个分块 %2 层中的前 %1 层）</translation>
    </message>
    <message>
        <source>interleaved 1F1B (%1 chunks per device)</source>
        <translation>交错式 1F1B（每台设备 %1 个模型块）</translation>
    </message>
    <message>
        <source>GPT-style transformer (%1 layers, hidden %2, %3 heads, seq %4)</source>
        <translation>GPT 式 Transformer（%1 层，隐藏维 %2，%3 个头，序列长 %4）</translation>
    </message>
    <message>
        <source>transformer (%1 layers, hidden %2, %3 heads, seq %4; %5)</source>
        <translation>Transformer（%1 层，隐藏维 %2，%3 个头，序列长 %4；%5）</translation>
    </message>
    <message>
        <source>%1 on %2 devices: tensor %3 x pipeline %4 x data %5</source>
        <translation>%1，%2 台设备：张量 %3 × 流水线 %4 × 数据 %5</translation>
    </message>
    <message>
        <source> x context %1</source>
        <translation> × 上下文 %1</translation>
    </message>
    <message>
        <source> + sequence parallel</source>
        <translation> + 序列并行</translation>
    </message>
    <message>
        <source>selective recomputation (nothing to recompute: FlashAttention keeps no seq x seq activation)</source>
        <translation>选择性重计算（无需重计算：FlashAttention 不保留 seq × seq 的激活）</translation>
    </message>
    <message>
        <source>distributed optimizer (ZeRO-1)</source>
        <translation>分布式优化器（ZeRO-1）</translation>
    </message>
    <message>
        <source>fp32 main_grad</source>
        <translation>fp32 主梯度（main_grad）</translation>
    </message>
    <message>
        <source>gradient accumulation unfused</source>
        <translation>梯度累加未融合（逐微批次单独相加）</translation>
    </message>
    <message>
        <source>cross-entropy fused</source>
        <translation>交叉熵已融合</translation>
    </message>
    <message>
        <source>no dropout</source>
        <translation>无随机失活</translation>
    </message>
    <message>
        <source>dropout %1 (residual), %2 (attention)</source>
        <translation>随机失活 %1（残差），%2（注意力）</translation>
    </message>
    <message>
        <source>Megatron-LM&apos;s own layers (no Transformer Engine)</source>
        <translation>Megatron-LM 自带的层（不用 Transformer Engine）</translation>
    </message>
    <message>
        <source>FP8 GEMMs (hybrid: E4M3 forward, E5M2 gradients)</source>
        <translation>FP8 GEMM（混合格式：前向 E4M3，梯度 E5M2）</translation>
    </message>
    <message>
        <source>FP8 GEMMs (E4M3 forward and backward)</source>
        <translation>FP8 GEMM（前向与反向均为 E4M3）</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>推理</translation>
    </message>
</context>
<context>
    <name>TraceFilter</name>
    <message>
        <source>devices %1</source>
        <translation>设备 %1</translation>
    </message>
    <message>
        <source>window %1 to %2</source>
        <translation>时间窗 %1 至 %2</translation>
    </message>
    <message>
        <source>the end</source>
        <translation>结束</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
</context>
<context>
    <name>ViewTitle</name>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Topology</source>
        <translation>拓扑</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation>扩展</translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation>校准</translation>
    </message>
    <message>
        <source>What-if</source>
        <translation>假设分析</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>Teach</source>
        <translation>教学</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>Kernel</translation>
    </message>
</context>
<context>
    <name>WhatIf</name>
    <message numerus="yes">
        <source>out of memory on %n device(s) (the memory view shows where)</source>
        <translation>
            <numerusform>%n 个设备显存不足（显存视图显示在何处）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>does not fit: %1 of %n device(s) over their memory</source>
        <translation>
            <numerusform>放不下：%n 个设备中有 %1 个超出显存</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>brigade::gui::CalibrationView</name>
    <message>
        <source>The device model whose profile entry is drawn</source>
        <translation>绘制其硬件配置条目的设备型号</translation>
    </message>
    <message>
        <source>all kinds</source>
        <translation>全部种类</translation>
    </message>
    <message>
        <source>Collectives drawn in the bus bandwidth plot</source>
        <translation>总线带宽图中绘制的集合通信</translation>
    </message>
    <message>
        <source>Device model:</source>
        <translation>设备型号：</translation>
    </message>
    <message>
        <source>Collectives:</source>
        <translation>集合通信：</translation>
    </message>
    <message>
        <source>fit</source>
        <translation>拟合</translation>
    </message>
    <message>
        <source>R²</source>
        <translation>R²</translation>
    </message>
    <message>
        <source>what it fits</source>
        <translation>拟合对象</translation>
    </message>
    <message>
        <source>A trace carries no hardware profile: open a profile written by brigade calibrate, or a scenario.</source>
        <translation>trace 不含硬件配置：请打开 brigade calibrate 写出的硬件配置，或一个场景。</translation>
    </message>
    <message>
        <source>Open a profile (brigade calibrate --out) or a scenario.</source>
        <translation>打开一个硬件配置（brigade calibrate --out）或一个场景。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2)</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;（%2）</translation>
    </message>
    <message>
        <source>. Points: measured; lines: the judges with this profile.</source>
        <translation>。点：实测值；线：各评判器使用此硬件配置的结果。</translation>
    </message>
    <message>
        <source>. &lt;i&gt;No samples in this profile: its fits alone&lt;/i&gt; (brigade calibrate writes them; this profile was written without).</source>
        <translation>。&lt;i&gt;此硬件配置没有采样点，只有拟合结果&lt;/i&gt;（brigade calibrate 会写出采样点；这份配置写出时没有包含）。</translation>
    </message>
    <message>
        <source> Links and collectives on the scenario&apos;s topology.</source>
        <translation> 链路与集合通信基于该场景的拓扑。</translation>
    </message>
    <message>
        <source>nothing in this profile</source>
        <translation>此硬件配置中没有内容</translation>
    </message>
</context>
<context>
    <name>brigade::gui::CompareView</name>
    <message>
        <source>Compare with…</source>
        <translation>与之对比…</translation>
    </message>
    <message>
        <source>Open a second run beside the open one: a scenario (simulated) or a trace (File &gt; Compare with…, Ctrl+Shift+O; or drop a file here)</source>
        <translation>在已打开的运行旁边再打开一个运行：一个场景（模拟得出）或一个 trace（文件 &gt; 与之对比…，Ctrl+Shift+O；或把文件拖到这里）</translation>
    </message>
    <message>
        <source>Copy table</source>
        <translation>复制表格</translation>
    </message>
    <message>
        <source>Copy the differences as text, as `brigade compare A B --rows 0` prints them</source>
        <translation>将差异复制为文本，格式与 `brigade compare A B --rows 0` 的输出相同</translation>
    </message>
    <message>
        <source>Clear B</source>
        <translation>清除 B</translation>
    </message>
    <message>
        <source>Nothing to compare with yet.

File &gt; Compare with… (Ctrl+Shift+O), the button above, or a file dropped here sets a second run beside the open one: a scenario (simulated here) or a trace, such as the .sim.json and .measured.json that `brigade validate --trace-dir` writes.</source>
        <translation>还没有可对比的运行。

通过 文件 &gt; 与之对比…（Ctrl+Shift+O）、上方的按钮，或把文件拖到这里，可在已打开的运行旁边放上第二个运行：一个场景（在这里模拟）或一个 trace，例如 `brigade validate --trace-dir` 写出的 .sim.json 和 .measured.json。</translation>
    </message>
    <message>
        <source>device / kind</source>
        <translation>设备 / 种类</translation>
    </message>
    <message>
        <source>figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>B − A</source>
        <translation>B − A</translation>
    </message>
    <message>
        <source>change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Largest difference first in each part. Click a device&apos;s row to open and shade its lanes in both timelines, a kind&apos;s to outline its spans.</source>
        <translation>每部分按差异从大到小排列。点击设备所在行，可在两条时间线中展开并突出显示它的通道；点击种类所在行，可勾出它的区段。</translation>
    </message>
    <message>
        <source>Copied the differences as text</source>
        <translation>已将差异复制为文本</translation>
    </message>
    <message>
        <source>Compare with a scenario or a trace</source>
        <translation>与一个场景或 trace 对比</translation>
    </message>
    <message>
        <source>Runs (*.yaml *.yml *.json *.json.gz);;Scenarios (*.yaml *.yml *.json);;Chrome traces (*.json *.json.gz);;All files (*)</source>
        <translation>运行 (*.yaml *.yml *.json *.json.gz);;场景 (*.yaml *.yml *.json);;Chrome trace (*.json *.json.gz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>B: %1 %2</source>
        <translation>B：%1 %2</translation>
    </message>
    <message>
        <source>Comparing…</source>
        <translation>正在对比…</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>正在打开 %1…</translation>
    </message>
    <message>
        <source>Compared %1 with %2</source>
        <translation>已将 %1 与 %2 对比</translation>
    </message>
    <message>
        <source>A %1 has no run to compare: open a scenario or a trace.</source>
        <translation>%1 没有可对比的运行：请打开一个场景或 trace。</translation>
    </message>
    <message>
        <source>profile</source>
        <translation>硬件配置</translation>
    </message>
    <message>
        <source>document</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>Note: </source>
        <translation>注意：</translation>
    </message>
    <message>
        <source>Compared as far as they can be: </source>
        <translation>已在可比较的范围内对比：</translation>
    </message>
    <message>
        <source>nothing open</source>
        <translation>未打开任何文件</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>尚无</translation>
    </message>
    <message>
        <source>Choose a second run to see the differences per device and per task kind.</source>
        <translation>选择第二个运行，查看按设备和按任务种类的差异。</translation>
    </message>
    <message>
        <source>%1: %2 spans in A, %3 in B, outlined</source>
        <translation>%1：A 中 %2 个区段，B 中 %3 个，已勾出</translation>
    </message>
    <message>
        <source>%1 %2: A %3, B %4, B − A %5</source>
        <translation>%1 %2：A %3，B %4，B − A %5</translation>
    </message>
</context>
<context>
    <name>brigade::gui::KernelsView</name>
    <message>
        <source>Open a scenario to see its step by kernel group</source>
        <translation>打开一个场景，查看它一步按 kernel 分组的时间</translation>
    </message>
    <message>
        <source>Brigade</source>
        <translation>Brigade</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>measured/Brigade</source>
        <translation>实测/Brigade</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>The device whose step is shown (0: pipeline stage 0)</source>
        <translation>显示其一步的设备（0：流水线第 0 级）</translation>
    </message>
    <message>
        <source>Profiler record…</source>
        <translation>性能剖析记录…</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>How many steps the record covers</source>
        <translation>记录覆盖的步数</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>How many GPUs the record sums</source>
        <translation>记录汇总了多少块 GPU</translation>
    </message>
    <message>
        <source>Profiler record</source>
        <translation>性能剖析记录</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <source>Hold the step against a profiler&apos;s record of the same plan: Nsight Systems&apos; kernel summary (nsys stats --report cuda_gpu_kern_sum --format csv), PyTorch&apos;s profiler trace (.json, .json.gz), or Brigade&apos;s own trace of it (brigade execute --trace), the chosen device&apos;s spans</source>
        <translation>把这一步与同一方案的记录对照：Nsight Systems 的 kernel 汇总（nsys stats --report cuda_gpu_kern_sum --format csv）、PyTorch 性能剖析器的 trace（.json、.json.gz），或 Brigade 自己对该方案的 trace（brigade execute --trace，取所选设备的区段）</translation>
    </message>
    <message>
        <source>Profiler records and Brigade traces (*.csv *.json *.json.gz);;All files (*)</source>
        <translation>性能剖析记录与 Brigade trace (*.csv *.json *.json.gz);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>brigade::gui::LessonsView</name>
    <message>
        <source>Found no scenarios/lessons folder near brigade-gui or the working folder; expected one, or $BRIGADE_LESSONS naming it.</source>
        <translation>在 brigade-gui 或工作目录附近找不到 scenarios/lessons 文件夹；需要有一个，或用 $BRIGADE_LESSONS 指明它。</translation>
    </message>
    <message>
        <source>Tour</source>
        <translation>导览</translation>
    </message>
    <message>
        <source>Quiz</source>
        <translation>测验</translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation>◀ 上一课</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一课 ▶</translation>
    </message>
    <message>
        <source>Open the scenario</source>
        <translation>打开场景</translation>
    </message>
    <message>
        <source>Load this lesson&apos;s scenario in the timeline, topology and memory views</source>
        <translation>在时间线、拓扑和显存视图中载入本课的场景</translation>
    </message>
    <message>
        <source>A misconception, shown</source>
        <translation>一个误区，亲眼看到</translation>
    </message>
    <message>
        <source>A lesson of the guided tour</source>
        <translation>导览中的一课</translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>A misconception, shown.</source>
        <translation>一个误区，亲眼看到。</translation>
    </message>
    <message>
        <source>Computing this lesson&apos;s numbers…</source>
        <translation>正在计算本课的数字…</translation>
    </message>
    <message>
        <source>Found no brigade executable beside brigade-gui or on PATH; expected one to compute the lessons&apos; numbers ($BRIGADE_EXE names it).</source>
        <translation>在 brigade-gui 旁边或 PATH 中找不到 brigade 可执行文件；需要它来计算课程中的数字（可用 $BRIGADE_EXE 指明）。</translation>
    </message>
    <message>
        <source>could not start %1</source>
        <translation>无法启动 %1</translation>
    </message>
    <message>
        <source>brigade lesson %1 gave no answers</source>
        <translation>brigade lesson %1 没有给出答案</translation>
    </message>
</context>
<context>
    <name>brigade::gui::MainWindow</name>
    <message>
        <source>Brigade</source>
        <translation>Brigade</translation>
    </message>
    <message>
        <source>Messages</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop loading (Esc)</source>
        <translation>停止载入（Esc）</translation>
    </message>
    <message>
        <source>Opening %1</source>
        <translation>正在打开 %1</translation>
    </message>
    <message>
        <source>Could not open the file; what was open stays open.</source>
        <translation>无法打开该文件；已打开的内容保持不变。</translation>
    </message>
    <message>
        <source>Cancelled opening %1</source>
        <translation>已取消打开 %1</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a scenario, trace or profile</source>
        <translation>打开场景、trace 或硬件配置</translation>
    </message>
    <message>
        <source>Brigade files (*.yaml *.yml *.json *.json.gz);;Scenarios (*.yaml *.yml *.json);;Chrome traces (*.json *.json.gz);;Profiles (*.yaml *.yml);;All files (*)</source>
        <translation>Brigade 文件 (*.yaml *.yml *.json *.json.gz);;场景 (*.yaml *.yml *.json);;Chrome trace (*.json *.json.gz);;硬件配置 (*.yaml *.yml);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>重新载入(&amp;R)</translation>
    </message>
    <message>
        <source>Export View as &amp;PNG</source>
        <translation>将视图导出为 &amp;PNG</translation>
    </message>
    <message>
        <source>Export View as &amp;SVG</source>
        <translation>将视图导出为 &amp;SVG</translation>
    </message>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>Export as PNG</source>
        <translation>导出为 PNG</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>Export as SVG</source>
        <translation>导出为 SVG</translation>
    </message>
    <message>
        <source>SVG images (*.svg)</source>
        <translation>SVG 图像 (*.svg)</translation>
    </message>
    <message>
        <source>Export &amp;Trace as Chrome JSON…</source>
        <translation>将 trace 导出为 Chrome JSON(&amp;T)…</translation>
    </message>
    <message>
        <source>Export the trace</source>
        <translation>导出 trace</translation>
    </message>
    <message>
        <source>Chrome traces (*.json)</source>
        <translation>Chrome trace (*.json)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Could not load the translation; the language stays as it was.</source>
        <translation>无法载入翻译；语言保持不变。</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keys</source>
        <translation>快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Timeline: W/S zoom, A/D pan, Ctrl+wheel zoom at the mouse, Shift+wheel or middle-drag pan, drag to select a range, Z zoom to it, Backspace back, 0 all, click a span for details, Esc clears.</source>
        <translation>时间线：W/S 缩放，A/D 平移，Ctrl+滚轮在鼠标处缩放，Shift+滚轮或中键拖动平移，拖动选择一段范围，Z 缩放到该范围，Backspace 返回，0 显示全部，点击一个区段查看详情，Esc 清除。</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>reading</source>
        <translation>读取中</translation>
    </message>
    <message>
        <source>%1 — Brigade</source>
        <translation>%1 — Brigade</translation>
    </message>
    <message>
        <source>: step %1</source>
        <translation>：一步 %1</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>No trace is open to export.</source>
        <translation>没有打开可导出的 trace。</translation>
    </message>
    <message>
        <source>Open a scenario, a trace or a profile: File &gt; Open (Ctrl+O), or drop a file here.</source>
        <translation>打开场景、trace 或硬件配置：文件 &gt; 打开（Ctrl+O），或把文件拖到这里。</translation>
    </message>
    <message>
        <source>Compare &amp;With…</source>
        <translation>与之对比(&amp;W)…</translation>
    </message>
</context>
<context>
    <name>brigade::gui::MemoryView</name>
    <message>
        <source>nothing live</source>
        <translation>没有在用的数据</translation>
    </message>
    <message>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <source>Devices by peak memory, highest first; type to search</source>
        <translation>按峰值显存从高到低排列的设备；输入文字可搜索</translation>
    </message>
    <message>
        <source>Scale to capacity</source>
        <translation>按容量缩放</translation>
    </message>
    <message>
        <source>Draw the axis up to the device&apos;s capacity even when the peak is far below it</source>
        <translation>即使峰值远低于容量，坐标轴也画到设备容量</translation>
    </message>
    <message>
        <source>at %1: %2 live
%3</source>
        <translation>在 %1：在用 %2
%3</translation>
    </message>
    <message>
        <source>This %1 has no memory samples.</source>
        <translation>这个 %1 没有显存采样。</translation>
    </message>
    <message>
        <source>profile</source>
        <translation>硬件配置</translation>
    </message>
    <message>
        <source>trace</source>
        <translation>trace</translation>
    </message>
    <message>
        <source>Open a scenario or a trace to see its memory over time.</source>
        <translation>打开一个场景或 trace，查看显存随时间的变化。</translation>
    </message>
    <message>
        <source>device %1</source>
        <translation>设备 %1</translation>
    </message>
    <message>
        <source>peak %1</source>
        <translation>峰值 %1</translation>
    </message>
    <message>
        <source> of %1</source>
        <translation> / %1</translation>
    </message>
    <message>
        <source>time (%1)</source>
        <translation>时间（%1）</translation>
    </message>
    <message>
        <source>live memory (%1)</source>
        <translation>在用显存（%1）</translation>
    </message>
    <message>
        <source>capacity %1</source>
        <translation>容量 %1</translation>
    </message>
    <message>
        <source>OOM at %1: %2</source>
        <translation>在 %1 显存溢出：%2</translation>
    </message>
    <message>
        <source>OOM: %1</source>
        <translation>显存溢出：%1</translation>
    </message>
    <message>
        <source>%1: peak %2 at %3</source>
        <translation>%1：%3 时峰值 %2</translation>
    </message>
    <message>
        <source> of %1 (%2%)</source>
        <translation> / %1（%2%）</translation>
    </message>
    <message>
        <source>The axis stops at the peak: the capacity (%1) lies far above.</source>
        <translation>坐标轴止于峰值：容量（%1）远在其上。</translation>
    </message>
    <message>
        <source>&lt;b style=&apos;color:#b00000&apos;&gt;Out of memory&lt;/b&gt; at %1: %2 brought it to %3 of %4 — live then: %5.</source>
        <translation>&lt;b style=&apos;color:#b00000&apos;&gt;显存溢出&lt;/b&gt;，发生在 %1：%2 使占用达到 %3（容量 %4）——当时在用：%5。</translation>
    </message>
    <message>
        <source> Largest buffers: %1.</source>
        <translation> 最大的缓冲区：%1。</translation>
    </message>
    <message>
        <source>At %1: %2 live — %3.</source>
        <translation>在 %1：在用 %2——%3。</translation>
    </message>
    <message>
        <source>Click the chart to place the time cursor; hover for what is live.</source>
        <translation>点击图表放置时间游标；悬停查看在用的数据。</translation>
    </message>
</context>
<context>
    <name>brigade::gui::QuizPanel</name>
    <message>
        <source>Show every answer</source>
        <translation>显示全部答案</translation>
    </message>
    <message>
        <source>Computing the answers from the lessons&apos; scenarios…</source>
        <translation>正在根据各课的场景计算答案…</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>核对</translation>
    </message>
    <message>
        <source>Pick an answer first.</source>
        <translation>请先选择答案。</translation>
    </message>
    <message>
        <source>Right: %1. %2</source>
        <translation>正确：%1。%2</translation>
    </message>
    <message>
        <source>Not quite: the tool computes %1. %2</source>
        <translation>不太对：工具算出的答案是 %1。%2</translation>
    </message>
    <message>
        <source>Answer: %1. %2</source>
        <translation>答案：%1。%2</translation>
    </message>
</context>
<context>
    <name>brigade::gui::ScalingView</name>
    <message>
        <source>devices (log scale)</source>
        <translation>设备数（对数坐标）</translation>
    </message>
    <message>
        <source>no Amdahl fit (fewer than two judged device counts)</source>
        <translation>无 Amdahl 拟合（评判过的设备数少于两个）</translation>
    </message>
    <message>
        <source>Amdahl p = %1 (R² %2)</source>
        <translation>Amdahl p = %1（R² %2）</translation>
    </message>
    <message>
        <source>, no curve drawn: </source>
        <translation>，未画曲线：</translation>
    </message>
    <message>
        <source>: no serial part</source>
        <translation>：没有串行部分</translation>
    </message>
    <message>
        <source>: at most %1× however many devices</source>
        <translation>：无论多少设备，至多 %1×</translation>
    </message>
    <message>
        <source>: no parallel part, more devices only add cost</source>
        <translation>：没有并行部分，更多设备只会增加开销</translation>
    </message>
    <message>
        <source>; doubling beyond about %1 devices gains less than 10%</source>
        <translation>；超过约 %1 个设备后，设备数翻倍的收益不到 10%</translation>
    </message>
    <message>
        <source>Device counts to sweep, separated by commas; the data degree scales, the global batch stays</source>
        <translation>要扫描的设备数，用逗号分隔；数据并行度随之变化，全局批大小不变</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>Judge every device count with the closed form, then the simulator</source>
        <translation>先用闭式模型、再用模拟器评判每个设备数</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Devices:</source>
        <translation>设备数：</translation>
    </message>
    <message>
        <source>Speedup against the first device count</source>
        <translation>相对第一个设备数的加速比</translation>
    </message>
    <message>
        <source>Parallel efficiency</source>
        <translation>并行效率</translation>
    </message>
    <message>
        <source>devices</source>
        <translation>设备数</translation>
    </message>
    <message>
        <source>simulated step</source>
        <translation>模拟的单步时间</translation>
    </message>
    <message>
        <source>speedup</source>
        <translation>加速比</translation>
    </message>
    <message>
        <source>efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <source>closed-form step</source>
        <translation>闭式模型的单步时间</translation>
    </message>
    <message>
        <source>note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Devices: found &apos;%1&apos;; expected positive whole numbers such as 1, 2, 4</source>
        <translation>设备数：发现 &apos;%1&apos;；应为正整数，例如 1, 2, 4</translation>
    </message>
    <message>
        <source>Devices: found nothing; expected counts such as 1, 2, 4</source>
        <translation>设备数：什么也没有；应为设备数，例如 1, 2, 4</translation>
    </message>
    <message>
        <source>A sweep needs a scenario: this is a %1.</source>
        <translation>扫描需要一个场景：这是一个 %1。</translation>
    </message>
    <message>
        <source>profile</source>
        <translation>硬件配置</translation>
    </message>
    <message>
        <source>trace</source>
        <translation>trace</translation>
    </message>
    <message>
        <source>Open a scenario to sweep it over device counts.</source>
        <translation>打开一个场景，按设备数扫描它。</translation>
    </message>
    <message>
        <source>simulating %1 device counts…</source>
        <translation>正在模拟 %1 个设备数…</translation>
    </message>
    <message>
        <source>simulated %1 of %2 (%3 devices: %4)</source>
        <translation>已模拟 %1 / %2（%3 个设备：%4）</translation>
    </message>
    <message>
        <source>not judged</source>
        <translation>未评判</translation>
    </message>
    <message>
        <source>Judging %1 device counts…</source>
        <translation>正在评判 %1 个设备数…</translation>
    </message>
    <message>
        <source>Not simulated: %1</source>
        <translation>未模拟：%1</translation>
    </message>
    <message>
        <source>Scaling sweep done</source>
        <translation>扩展扫描完成</translation>
    </message>
    <message>
        <source>Cancelled; press Sweep to start again.</source>
        <translation>已取消；按“扫描”重新开始。</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Sweeping %1 over device counts…</source>
        <translation>正在按设备数扫描 %1…</translation>
    </message>
    <message>
        <source>No device count could be judged; see the table.</source>
        <translation>没有一个设备数能被评判；请看表格。</translation>
    </message>
    <message>
        <source>speedup (×, log scale)</source>
        <translation>加速比（×，对数坐标）</translation>
    </message>
    <message>
        <source>ideal (linear)</source>
        <translation>理想（线性）</translation>
    </message>
    <message>
        <source>Amdahl fit, p = %1 (on to %2 devices)</source>
        <translation>Amdahl 拟合，p = %1（外推到 %2 个设备）</translation>
    </message>
    <message>
        <source>Amdahl fit, p = %1</source>
        <translation>Amdahl 拟合，p = %1</translation>
    </message>
    <message>
        <source>closed form</source>
        <translation>闭式模型</translation>
    </message>
    <message>
        <source>simulated</source>
        <translation>模拟</translation>
    </message>
    <message>
        <source>efficiency (%)</source>
        <translation>效率（%）</translation>
    </message>
    <message>
        <source>ideal (100%)</source>
        <translation>理想（100%）</translation>
    </message>
    <message>
        <source>Amdahl fit</source>
        <translation>Amdahl 拟合</translation>
    </message>
    <message>
        <source>, global batch %1</source>
        <translation>，全局批大小 %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;: strong scaling (the data degree grows%2).</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;：强扩展（数据并行度增大%2）。</translation>
    </message>
    <message>
        <source>Simulated and closed form alike: %1.</source>
        <translation>模拟与闭式模型一致：%1。</translation>
    </message>
    <message>
        <source>Simulated: %1.</source>
        <translation>模拟：%1。</translation>
    </message>
    <message>
        <source>Closed form: %1.</source>
        <translation>闭式模型：%1。</translation>
    </message>
    <message>
        <source>Adding devices stops paying after 1 device: the next count is no faster.</source>
        <translation>超过 1 个设备后，增加设备就不再划算：下一个设备数并不更快。</translation>
    </message>
    <message>
        <source>Adding devices stops paying after %1 devices: the next count is no faster.</source>
        <translation>超过 %1 个设备后，增加设备就不再划算：下一个设备数并不更快。</translation>
    </message>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <source>not simulated</source>
        <translation>未模拟</translation>
    </message>
</context>
<context>
    <name>brigade::gui::TeachCanvas</name>
    <message>
        <source>device %1</source>
        <translation>设备 %1</translation>
    </message>
    <message>
        <source>Open a scenario to see its plan told as a kitchen: chefs (devices), their stations (memory), runners (links) and the head chef (the planner).</source>
        <translation>打开一个场景，看它的方案如何讲成一间厨房：厨师（设备）、他们的灶台（显存）、传菜员（链路）和总厨（规划器）。</translation>
    </message>
    <message>
        <source>The kitchen: %1</source>
        <translation>厨房：%1</translation>
    </message>
    <message>
        <source>Chefs are devices, their stations the memory, runners the links, the sauce bowl AllReduce; the head chef (XLA: the planner) wrote the plan.</source>
        <translation>厨师是设备，灶台是显存，传菜员是链路，酱汁碗是 AllReduce；方案由总厨（XLA：规划器）写定。</translation>
    </message>
    <message>
        <source>Head chef (XLA, the planner)</source>
        <translation>总厨（XLA，规划器）</translation>
    </message>
    <message>
        <source>one step: %1 (compute %2, communication left exposed %3)</source>
        <translation>一步：%1（计算 %2，未被掩盖的通信 %3）</translation>
    </message>
    <message>
        <source>the closed form gives no step time for this plan</source>
        <translation>闭式模型没有给出这个方案的单步时间</translation>
    </message>
    <message>
        <source>idle: nothing placed here</source>
        <translation>空闲：这里没有放置任何工作</translation>
    </message>
    <message>
        <source>peak %1</source>
        <translation>峰值 %1</translation>
    </message>
    <message>
        <source>%1% of %2</source>
        <translation>%2 的 %1%</translation>
    </message>
    <message>
        <source>runner from %1 back to %2 (the ring closes): α %3, %4</source>
        <translation>从 %1 回到 %2 的传菜员（环闭合）：α %3，%4</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more chef(s)</source>
        <translation>
            <numerusform>……还有 %n 位厨师</numerusform>
        </translation>
    </message>
    <message>
        <source>sauce bowl: AllReduce (%1) over %2 chefs, %3 × %4 a step, %5</source>
        <translation>酱汁碗：%2 位厨师之间的 AllReduce（%1），每步 %3 × %4，%5</translation>
    </message>
    <message>
        <source>Nobody waits: in this plan the chefs never need each other&apos;s results.</source>
        <translation>没有人等待：在这个方案中，厨师们从不需要彼此的结果。</translation>
    </message>
    <message>
        <source>%1 (%2) among %3 chefs: %4 × a step, %5 in all, %6</source>
        <translation>%3 位厨师之间的 %1（%2）：每步 %4 次，共 %5，%6</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>communication buffers</source>
        <translation>通信缓冲区</translation>
    </message>
    <message>
        <source>Transfer: a runner carries a tensor, T = α + M/B</source>
        <translation>传输：传菜员端送一个张量，T = α + M/B</translation>
    </message>
    <message>
        <source>α: the latency every message pays, however small; M/B: its bytes over the link&apos;s bandwidth.</source>
        <translation>α：每条消息不论多小都要付出的延迟；M/B：它的字节数除以链路带宽。</translation>
    </message>
    <message>
        <source>One chef alone: nothing moves between devices in this kitchen.</source>
        <translation>只有一位厨师：这间厨房里设备之间没有东西移动。</translation>
    </message>
    <message>
        <source>The plan sends %1 (%2) from %3 to %4.</source>
        <translation>方案把 %1（%2）从 %3 送到 %4。</translation>
    </message>
    <message>
        <source>One step of the plan&apos;s ring %1: each chef hands its neighbour M/N = %2 (%3 to %4).</source>
        <translation>方案中环形 %1 的一步：每位厨师把 M/N = %2 交给邻座（%3 到 %4）。</translation>
    </message>
    <message>
        <source>This plan moves nothing between chefs; were %1 (%2) sent from %3 to %4:</source>
        <translation>这个方案不在厨师之间传送任何东西；假如把 %1（%2）从 %3 送到 %4：</translation>
    </message>
    <message>
        <source>sends a chunk of the %1</source>
        <translation>送出 %1 的一块</translation>
    </message>
    <message>
        <source>sends %1</source>
        <translation>送出 %1</translation>
    </message>
    <message>
        <source>has the chunk</source>
        <translation>已拿到这一块</translation>
    </message>
    <message>
        <source>waits for the chunk</source>
        <translation>等待这一块</translation>
    </message>
    <message>
        <source>has %1</source>
        <translation>已拿到 %1</translation>
    </message>
    <message>
        <source>waits for %1</source>
        <translation>等待 %1</translation>
    </message>
    <message>
        <source>link: α %1, bandwidth %2</source>
        <translation>链路：α %1，带宽 %2</translation>
    </message>
    <message>
        <source>T = α + M/B = %1 + %2 / %3 = %4 + %5 = %6</source>
        <translation>T = α + M/B = %1 + %2 / %3 = %4 + %5 = %6</translation>
    </message>
    <message>
        <source>α %1</source>
        <translation>α %1</translation>
    </message>
    <message>
        <source>M/B %1</source>
        <translation>M/B %1</translation>
    </message>
    <message>
        <source>The whole %1 %2 over %3 chefs (M = %4): %5 latencies in series, α term %6; β term %7</source>
        <translation>%3 位厨师之间的整个 %1 %2（M = %4）：%5 个串行的延迟，α 项 %6；β 项 %7</translation>
    </message>
    <message>
        <source>α term %1</source>
        <translation>α 项 %1</translation>
    </message>
    <message>
        <source>β term %1</source>
        <translation>β 项 %1</translation>
    </message>
    <message>
        <source>The same runner with other dishes: T = α + M/B</source>
        <translation>同一位传菜员端送别的菜：T = α + M/B</translation>
    </message>
    <message>
        <source>%1 (this one)</source>
        <translation>%1（本次）</translation>
    </message>
    <message>
        <source>%1 + %2 = %3 (α %4%)</source>
        <translation>%1 + %2 = %3（α 占 %4%）</translation>
    </message>
    <message>
        <source>latency α: paid per message, independent of its size</source>
        <translation>延迟 α：每条消息付一次，与大小无关</translation>
    </message>
    <message>
        <source>bandwidth term M/B: grows with the bytes</source>
        <translation>带宽项 M/B：随字节数增长</translation>
    </message>
    <message>
        <source>Output: every chef&apos;s %1 gathered back</source>
        <translation>输出：收回每位厨师的 %1</translation>
    </message>
    <message>
        <source>pmap returns the results stacked by device: the leading axis is the device axis. Batch sharding returns them concatenated along the batch.</source>
        <translation>pmap 按设备把结果堆叠返回：最前面的轴就是设备轴。批分片则沿批维度把它们拼接返回。</translation>
    </message>
    <message>
        <source>pmap: the rows do not split evenly over %1 devices</source>
        <translation>pmap：行数不能平均分到 %1 个设备上</translation>
    </message>
    <message>
        <source>pmap: stacked, shape %1</source>
        <translation>pmap：堆叠，形状 %1</translation>
    </message>
    <message>
        <source>out[d] is chef d&apos;s result: axis 0 has one entry per device</source>
        <translation>out[d] 是 d 号厨师的结果：第 0 轴每个设备一项</translation>
    </message>
    <message>
        <source>batch sharding: concatenated, shape %1</source>
        <translation>批分片：拼接，形状 %1</translation>
    </message>
    <message>
        <source>rows of chef d follow those of chef d−1: the batch is whole again</source>
        <translation>d 号厨师的行接在 d−1 号厨师的行之后：批次又完整了</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>无</translation>
    </message>
    <message>
        <source>rows %1 to %2</source>
        <translation>第 %1 至 %2 行</translation>
    </message>
    <message>
        <source>a partial sum</source>
        <translation>部分和</translation>
    </message>
    <message>
        <source>batch split</source>
        <translation>按批切分</translation>
    </message>
    <message>
        <source>AllGather</source>
        <translation>AllGather</translation>
    </message>
    <message>
        <source>row split</source>
        <translation>按行切分</translation>
    </message>
    <message>
        <source>ReduceScatter</source>
        <translation>ReduceScatter</translation>
    </message>
    <message numerus="yes">
        <source>Batch split: %1 cut by rows into %n block(s), one per chef</source>
        <translation>
            <numerusform>按批切分：%1 按行切成 %n 块，每位厨师一块</numerusform>
        </translation>
    </message>
    <message>
        <source>Chef k gets rows kB/N to (k+1)B/N (NamedSharding P(&apos;data&apos;); the seed&apos;s pmap split). The host hands out the blocks: no chef waits for another.</source>
        <translation>k 号厨师拿到第 kB/N 至 (k+1)B/N 行（NamedSharding P(&apos;data&apos;)；即种子文本中 pmap 的切分）。由主机分发各块：没有厨师需要等别人。</translation>
    </message>
    <message>
        <source>split the rows</source>
        <translation>切分行</translation>
    </message>
    <message>
        <source>AllGather: every chef puts its block on the shared platter and takes the whole back</source>
        <translation>AllGather：每位厨师把自己的一块放到公共大盘上，再取回整份</translation>
    </message>
    <message>
        <source>all_gather(x, tiled=True): %1 on every chef again. Ring: (N−1)α + (N−1)/N · M/B.</source>
        <translation>all_gather(x, tiled=True)：每位厨师又拿到完整的 %1。环形：(N−1)α + (N−1)/N · M/B。</translation>
    </message>
    <message>
        <source>AllGather of %1: %2</source>
        <translation>%1 的 AllGather：%2</translation>
    </message>
    <message>
        <source>Row split: %1 cut by rows, block W_k on chef k</source>
        <translation>按行切分：%1 按行切开，W_k 块放在 k 号厨师处</translation>
    </message>
    <message>
        <source>Model sharding: each chef keeps 1/N of the weights; y = Σ_k x_k W_k, so each chef&apos;s x_k W_k is only a partial sum.</source>
        <translation>模型分片：每位厨师只保存 1/N 的权重；y = Σ_k x_k W_k，所以每位厨师算出的 x_k W_k 只是部分和。</translation>
    </message>
    <message>
        <source>ReduceScatter: the partial sums go into the bowl, each chef takes back its rows of the sum</source>
        <translation>ReduceScatter：部分和倒进酱汁碗，每位厨师取回总和中属于自己的那些行</translation>
    </message>
    <message>
        <source>psum_scatter: %1 partial on each chef → its rows of the sum. AllGather after ReduceScatter is an AllReduce (psum).</source>
        <translation>psum_scatter：每位厨师处是 %1 的部分和 → 总和中属于自己的行。ReduceScatter 之后再 AllGather，就是一次 AllReduce（psum）。</translation>
    </message>
    <message>
        <source>ReduceScatter of %1: %2</source>
        <translation>%1 的 ReduceScatter：%2</translation>
    </message>
    <message>
        <source>this is the plan&apos;s own layout of %1</source>
        <translation>这就是方案中 %1 的布局</translation>
    </message>
    <message>
        <source>the plan does not do this to %1; shown with its shapes</source>
        <translation>方案并没有对 %1 这样做；这里用它的形状来演示</translation>
    </message>
    <message>
        <source>before</source>
        <translation>之前</translation>
    </message>
    <message>
        <source>after</source>
        <translation>之后</translation>
    </message>
    <message>
        <source>device mapping</source>
        <translation>设备映射</translation>
    </message>
    <message>
        <source>data sharding</source>
        <translation>数据分片</translation>
    </message>
    <message>
        <source>compute on every chef at once</source>
        <translation>所有厨师同时计算</translation>
    </message>
    <message>
        <source>psum: pour into the sauce bowl</source>
        <translation>psum：倒进酱汁碗</translation>
    </message>
    <message>
        <source>pmean: take the average back</source>
        <translation>pmean：取回平均值</translation>
    </message>
    <message>
        <source>all_gather: the shared platter</source>
        <translation>all_gather：公共大盘</translation>
    </message>
    <message>
        <source>update: one step done</source>
        <translation>更新：一步完成</translation>
    </message>
    <message>
        <source>pmap, step %1 of %2: %3</source>
        <translation>pmap，第 %1 / %2 步：%3</translation>
    </message>
    <message>
        <source>The second seed&apos;s data-parallel step on this plan: %1 chefs, %2 %3 split by rows.</source>
        <translation>第二份种子文本中的数据并行一步，用在这个方案上：%1 位厨师，%2 %3 按行切分。</translation>
    </message>
    <message>
        <source>host (the restaurant owner)</source>
        <translation>主机（餐厅老板）</translation>
    </message>
    <message>
        <source>%1 %2: the whole batch</source>
        <translation>%1 %2：整个批次</translation>
    </message>
    <message>
        <source>%1 → %2: row block d for device d</source>
        <translation>%1 → %2：第 d 个行块给 d 号设备</translation>
    </message>
    <message>
        <source>device axis index %1</source>
        <translation>设备轴索引 %1</translation>
    </message>
    <message>
        <source>memory %1</source>
        <translation>显存 %1</translation>
    </message>
    <message>
        <source>waiting for its shard</source>
        <translation>等待自己的分片</translation>
    </message>
    <message>
        <source>f(x[%1]), %2</source>
        <translation>f(x[%1])，%2</translation>
    </message>
    <message>
        <source>ḡ = Σ g / %1</source>
        <translation>ḡ = Σ g / %1</translation>
    </message>
    <message>
        <source>%1 ← %1 − η·ḡ</source>
        <translation>%1 ← %1 − η·ḡ</translation>
    </message>
    <message>
        <source>pmap&apos;s device axis: index d runs on device d (0 to %1)</source>
        <translation>pmap 的设备轴：索引 d 在 d 号设备上运行（0 至 %1）</translation>
    </message>
    <message>
        <source>psum: Σ_d g_d, %1 from each chef (AllReduce %2, were this plan trained)</source>
        <translation>psum：Σ_d g_d，每位厨师贡献 %1（假如这个方案用于训练，AllReduce 需 %2）</translation>
    </message>
    <message>
        <source>psum: Σ_d g_d, %1 from each chef (AllReduce %2)</source>
        <translation>psum：Σ_d g_d，每位厨师贡献 %1（AllReduce %2）</translation>
    </message>
    <message>
        <source>pmean: Σ_d g_d / %1 back to every chef</source>
        <translation>pmean：Σ_d g_d / %1 回到每位厨师手里</translation>
    </message>
    <message>
        <source>the shared platter: each chef puts down its block and takes all %1 (AllGather %2)</source>
        <translation>公共大盘：每位厨师放下自己的一块，再取走全部 %1（AllGather %2）</translation>
    </message>
    <message>
        <source>pmap is not a for loop: all %1 chefs run the same program on their own shard at the same time.</source>
        <translation>pmap 不是 for 循环：全部 %1 位厨师同时在各自的分片上运行同一个程序。</translation>
    </message>
    <message>
        <source>this plan&apos;s step (closed form): compute %1, the whole step %3; a gradient AllReduce would add %2 were it trained</source>
        <translation>这个方案的一步（闭式模型）：计算 %1，整步 %3；假如用于训练，梯度 AllReduce 还会增加 %2</translation>
    </message>
    <message>
        <source>one training step (closed form): compute %1 + gradient AllReduce %2; the whole step %3</source>
        <translation>一个训练步（闭式模型）：计算 %1 + 梯度 AllReduce %2；整步 %3</translation>
    </message>
    <message>
        <source>The plan&apos;s largest collective, a %1 %2 over %3 chefs (M = %4): %5 latencies in series, α term %6; β term %7</source>
        <translation>方案中最大的集合通信：%3 位厨师之间的 %1 %2（M = %4）：%5 个串行的延迟，α 项 %6；β 项 %7</translation>
    </message>
</context>
<context>
    <name>brigade::gui::TeachView</name>
    <message>
        <source>Overview</source>
        <translation>总览</translation>
    </message>
    <message>
        <source>Transfer</source>
        <translation>传输</translation>
    </message>
    <message>
        <source>Transform</source>
        <translation>变换</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>pmap demo</source>
        <translation>pmap 演示</translation>
    </message>
    <message>
        <source>The kitchen: chefs (devices), stations (memory), runners (links), the head chef</source>
        <translation>厨房：厨师（设备）、灶台（显存）、传菜员（链路）、总厨</translation>
    </message>
    <message>
        <source>A tensor moving between two devices: T = α + M/B, drawn as its two parts</source>
        <translation>一个张量在两台设备之间移动：T = α + M/B，分成两部分画出</translation>
    </message>
    <message>
        <source>A sharding changing: batch split, AllGather, row split, ReduceScatter</source>
        <translation>分片方式的变换：按批切分、AllGather、按行切分、ReduceScatter</translation>
    </message>
    <message>
        <source>Results gathered back, stacked by device as pmap returns them</source>
        <translation>把结果收回，像 pmap 返回的那样按设备堆叠</translation>
    </message>
    <message>
        <source>The second seed&apos;s pmap: device mapping, sharding, psum, pmean, all_gather, one training step</source>
        <translation>第二份种子文本中的 pmap：设备映射、分片、psum、pmean、all_gather、一个训练步</translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation>◀ 上一步</translation>
    </message>
    <message>
        <source>The step before (Left)</source>
        <translation>上一步（Left）</translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation>下一步 ▶</translation>
    </message>
    <message>
        <source>The next step (Right)</source>
        <translation>下一步（Right）</translation>
    </message>
    <message>
        <source>Play the steps one after another, or pause (Space)</source>
        <translation>逐步连续播放，或暂停（Space）</translation>
    </message>
    <message>
        <source>❚❚ Pause</source>
        <translation>❚❚ 暂停</translation>
    </message>
    <message>
        <source>▶ Play</source>
        <translation>▶ 播放</translation>
    </message>
    <message>
        <source>step %1 of %2</source>
        <translation>第 %1 / %2 步</translation>
    </message>
    <message>
        <source>Open a scenario (File &gt; Open) to teach with its plan.</source>
        <translation>打开一个场景（文件 &gt; 打开），用它的方案来教学。</translation>
    </message>
    <message numerus="yes">
        <source>The kitchen of %1: %n chef(s) (devices), each with a station (its memory, filled to its peak); runners (links) carry dishes between them, and the head chef (XLA, the planner) decided: %2.</source>
        <translation>
            <numerusform>%1 的厨房：%n 位厨师（设备），每位都有一个灶台（他的显存，按峰值填满）；传菜员（链路）在他们之间端送菜品，总厨（XLA，规划器）的决定是：%2。</numerusform>
        </translation>
    </message>
    <message>
        <source>A runner sets off from %1: before a single byte moves, the message pays the link&apos;s latency α = %2, however small it is.</source>
        <translation>一位传菜员从 %1 出发：在任何一个字节移动之前，消息先要付出链路的延迟 α = %2，不论它多小。</translation>
    </message>
    <message>
        <source>Arrived at %1 after α + M/B = %2. The whole ring %3 pays %4 latencies in series (α term %5) and the β term %6: for small messages α dominates.</source>
        <translation>经过 α + M/B = %2 后到达 %1。整个环形 %3 要付出 %4 个串行的延迟（α 项 %5）和 β 项 %6：消息小的时候，α 占主导。</translation>
    </message>
    <message>
        <source>Arrived at %1 after α + M/B = %2.</source>
        <translation>经过 α + M/B = %2 后到达 %1。</translation>
    </message>
    <message>
        <source>Batch split: each chef gets its own rows of %1 and cooks the same recipe on them.</source>
        <translation>按批切分：每位厨师拿到 %1 中属于自己的行，按同一份菜谱烹饪。</translation>
    </message>
    <message>
        <source>AllGather: the blocks are put on the shared platter and every chef takes the whole tensor back: %1 on this kitchen&apos;s links.</source>
        <translation>AllGather：各块放到公共大盘上，每位厨师取回整个张量：在这间厨房的链路上需要 %1。</translation>
    </message>
    <message>
        <source>Row split: the weights %1 are cut by rows, so each chef holds 1/N of them; each chef&apos;s product is then a partial sum.</source>
        <translation>按行切分：权重 %1 按行切开，每位厨师只保存其中 1/N；于是每位厨师的乘积只是部分和。</translation>
    </message>
    <message>
        <source>ReduceScatter: the partial sums meet in the sauce bowl and each chef takes back only its rows of the total: %1.</source>
        <translation>ReduceScatter：部分和在酱汁碗里汇合，每位厨师只取回总和中属于自己的行：%1。</translation>
    </message>
    <message numerus="yes">
        <source>pmap gives the results back stacked: a new leading axis of %n device(s), entry d from chef d.</source>
        <translation>
            <numerusform>pmap 把结果堆叠返回：新增一个长度为 %n（设备数）的最前轴，第 d 项来自 d 号厨师。</numerusform>
        </translation>
    </message>
    <message>
        <source>Batch sharding gives them back as one batch: the rows concatenated, %1.</source>
        <translation>批分片把它们作为一个批次返回：各行拼接起来，%1。</translation>
    </message>
    <message numerus="yes">
        <source>jax.devices() lists the chefs: %n device(s), each an index on pmap&apos;s device axis.</source>
        <translation>
            <numerusform>jax.devices() 列出各位厨师：%n 台设备，每台对应 pmap 设备轴上的一个索引。</numerusform>
        </translation>
    </message>
    <message>
        <source>The batch %1 is reshaped to %2: row block d goes to device d.</source>
        <translation>批次 %1 被重塑为 %2：第 d 个行块交给 d 号设备。</translation>
    </message>
    <message>
        <source>Every chef runs the same compiled function on its own block, all at once (%1 each): each ends with its own gradient g_d.</source>
        <translation>每位厨师同时在自己的块上运行同一个编译好的函数（各用 %1）：最后各自得到自己的梯度 g_d。</translation>
    </message>
    <message>
        <source>psum: every chef pours its gradient (%1) into the sauce bowl; the bowl holds the sum. This AllReduce takes %2.</source>
        <translation>psum：每位厨师把自己的梯度（%1）倒进酱汁碗；碗里是它们的和。这次 AllReduce 需要 %2。</translation>
    </message>
    <message>
        <source>pmean: the sum divided by %1 goes back to every chef, so all of them hold the same averaged gradient.</source>
        <translation>pmean：总和除以 %1 后回到每位厨师手里，于是大家拿到同一个平均梯度。</translation>
    </message>
    <message>
        <source>all_gather: each chef puts its block on the shared platter and takes every block back (%1).</source>
        <translation>all_gather：每位厨师把自己的一块放到公共大盘上，再取回所有的块（%1）。</translation>
    </message>
    <message>
        <source>Every chef updates its copy of the weights with the same averaged gradient: the copies stay equal. One step: %1.</source>
        <translation>每位厨师用同一个平均梯度更新自己那份权重：各份副本保持一致。一步：%1。</translation>
    </message>
    <message>
        <source>Then the bytes cross: M/B = %1 / %2 = %3. Bigger dishes take longer; the latency does not grow with them.</source>
        <translation>然后字节才过去：M/B = %1 / %2 = %3。菜越大，端得越久；延迟却不随之增长。</translation>
    </message>
</context>
<context>
    <name>brigade::gui::TimelineCanvas</name>
    <message>
        <source>This document has no trace to show.</source>
        <translation>这个文档没有可显示的 trace。</translation>
    </message>
    <message>
        <source>Open a scenario or a trace (File &gt; Open, or drop a file here).</source>
        <translation>打开一个场景或 trace（文件 &gt; 打开，或把文件拖到这里）。</translation>
    </message>
    <message>
        <source>utilisation (all devices)</source>
        <translation>利用率（全部设备）</translation>
    </message>
    <message>
        <source>%1 transfers in view: zoom in to see their arrows</source>
        <translation>视图中有 %1 次传输：放大才能看到它们的箭头</translation>
    </message>
    <message>
        <source>view %1</source>
        <translation>视图 %1</translation>
    </message>
    <message>
        <source>transfer / collective step</source>
        <translation>传输 / 集合通信的一步</translation>
    </message>
    <message>
        <source>
%1 spans share these pixels: zoom in (W) to tell them apart</source>
        <translation>
%1 个区段挤在这些像素里：放大（W）才能分清</translation>
    </message>
</context>
<context>
    <name>brigade::gui::TimelineView</name>
    <message>
        <source>Find spans by name (Ctrl+F; Enter: next)</source>
        <translation>按名称查找区段（Ctrl+F；Enter：下一个）</translation>
    </message>
    <message>
        <source>◀</source>
        <translation>◀</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>上一个匹配（Shift+Enter）</translation>
    </message>
    <message>
        <source>▶</source>
        <translation>▶</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>下一个匹配（Enter）</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>放大</translation>
    </message>
    <message>
        <source>Zoom in (W, Ctrl+wheel)</source>
        <translation>放大（W，Ctrl+滚轮）</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>缩小</translation>
    </message>
    <message>
        <source>Zoom out (S)</source>
        <translation>缩小（S）</translation>
    </message>
    <message>
        <source>Zoom to selection</source>
        <translation>缩放到选区</translation>
    </message>
    <message>
        <source>Zoom to the selected range or span (Z)</source>
        <translation>缩放到选中的范围或区段（Z）</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>返回</translation>
    </message>
    <message>
        <source>Back to the previous zoom (Backspace)</source>
        <translation>回到上一次的缩放（Backspace）</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Show the whole trace (0)</source>
        <translation>显示整个 trace（0）</translation>
    </message>
    <message>
        <source>Arrows</source>
        <translation>箭头</translation>
    </message>
    <message>
        <source>Draw transfers and collective steps as arrows between lanes</source>
        <translation>把传输和集合通信的各步画成通道之间的箭头</translation>
    </message>
    <message>
        <source>Click a span for its details; drag to select a time range.</source>
        <translation>点击区段查看详情；拖动选择时间范围。</translation>
    </message>
    <message>
        <source>Drag over the timeline to select a time range.</source>
        <translation>在时间线上拖动以选择时间范围。</translation>
    </message>
    <message>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>busy %</source>
        <translation>忙碌 %</translation>
    </message>
    <message>
        <source>comm %</source>
        <translation>通信 %</translation>
    </message>
    <message>
        <source>exposed comm</source>
        <translation>暴露的通信</translation>
    </message>
    <message>
        <source>sent</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>received</source>
        <translation>接收</translation>
    </message>
    <message>
        <source>no match</source>
        <translation>无匹配</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>%1 to %2 (%3): %4 spans, %5 moved</source>
        <translation>%1 至 %2（%3）：%4 个区段，传送 %5</translation>
    </message>
    <message>
        <source>host %</source>
        <translation>主机 %</translation>
    </message>
</context>
<context>
    <name>brigade::gui::TopologyCanvas</name>
    <message>
        <source>A trace file carries no topology: open its scenario to see the cluster.</source>
        <translation>trace 文件不含拓扑：打开它的场景才能看到集群。</translation>
    </message>
    <message>
        <source>Open a scenario to see its cluster.</source>
        <translation>打开一个场景，查看它的集群。</translation>
    </message>
    <message>
        <source>node %1 of %2 (Esc: all nodes) — </source>
        <translation>节点 %1 / %2（Esc：全部节点）—— </translation>
    </message>
    <message>
        <source>click a node to expand it — </source>
        <translation>点击节点将其展开 —— </translation>
    </message>
    <message>
        <source>%1: %2 devices, %3 links — utilisation over the whole step (%4)</source>
        <translation>%1：%2 个设备，%3 条链路——整步的利用率（%4）</translation>
    </message>
    <message>
        <source>%1: %2 devices, %3 links — t = %4, utilisation over %5 to %6</source>
        <translation>%1：%2 个设备，%3 条链路——t = %4，%5 至 %6 的利用率</translation>
    </message>
    <message>
        <source>node %1</source>
        <translation>节点 %1</translation>
    </message>
    <message>
        <source>node %1 · %2%</source>
        <translation>节点 %1 · %2%</translation>
    </message>
    <message>
        <source>link utilisation</source>
        <translation>链路利用率</translation>
    </message>
    <message>
        <source>100%  (width: capacity)</source>
        <translation>100%（宽度：容量）</translation>
    </message>
    <message>
        <source>device fill: compute occupancy</source>
        <translation>设备填充：计算占用率</translation>
    </message>
    <message>
        <source>frame: collective in flight; node frame: its NVLink, top bar: its uplinks; click a node for its packets</source>
        <translation>边框：进行中的集合通信；节点边框：其 NVLink，顶栏：其上行链路；点击节点查看它的数据包</translation>
    </message>
    <message>
        <source>frame: collective in flight (its kind&apos;s colour); dots: packets</source>
        <translation>边框：进行中的集合通信（按种类着色）；圆点：数据包</translation>
    </message>
    <message>
        <source>%1 (%2)
compute occupancy %3%</source>
        <translation>%1（%2）
计算占用率 %3%</translation>
    </message>
    <message>
        <source>
in flight: %1</source>
        <translation>
进行中：%1</translation>
    </message>
    <message>
        <source>node %1: %2 devices, compute occupancy %3%
links out of the node: %4%</source>
        <translation>节点 %1：%2 个设备，计算占用率 %3%
出节点链路：%4%</translation>
    </message>
    <message>
        <source>
in flight on %1 of its devices: %2</source>
        <translation>
在其 %1 个设备上进行中：%2</translation>
    </message>
    <message>
        <source>
click (or Ctrl+wheel) to expand</source>
        <translation>
点击（或 Ctrl+滚轮）展开</translation>
    </message>
    <message>
        <source>%1
capacity %2 each way (%3)
utilisation %4% (%5 carried)</source>
        <translation>%1
每个方向容量 %2（%3）
利用率 %4%（已传送 %5）</translation>
    </message>
</context>
<context>
    <name>brigade::gui::TopologyView</name>
    <message>
        <source>▶ Play</source>
        <translation>▶ 播放</translation>
    </message>
    <message>
        <source>Animate the step: packets move along their routes</source>
        <translation>播放这一步的动画：数据包沿各自路由移动</translation>
    </message>
    <message>
        <source>◀ All nodes</source>
        <translation>◀ 全部节点</translation>
    </message>
    <message>
        <source>Back to every node of the cluster (Esc)</source>
        <translation>回到集群的全部节点（Esc）</translation>
    </message>
    <message>
        <source>Playback speed: 1x plays the whole step in 10 s</source>
        <translation>播放速度：1x 在 10 秒内播完整步</translation>
    </message>
    <message>
        <source>Whole step</source>
        <translation>整步</translation>
    </message>
    <message>
        <source>Colour links and devices by their use over the whole step</source>
        <translation>按整步的使用情况给链路和设备着色</translation>
    </message>
    <message>
        <source>Node %1 expanded; Esc or ◀ All nodes goes back</source>
        <translation>已展开节点 %1；按 Esc 或“◀ 全部节点”返回</translation>
    </message>
    <message>
        <source>❚❚ Pause</source>
        <translation>❚❚ 暂停</translation>
    </message>
</context>
<context>
    <name>brigade::gui::WhatIfView</name>
    <message>
        <source>unchanged</source>
        <translation>不变</translation>
    </message>
    <message>
        <source>new</source>
        <translation>新增</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>方案</translation>
    </message>
    <message>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Back to the starting plan</source>
        <translation>回到初始方案</translation>
    </message>
    <message>
        <source>Save as scenario…</source>
        <translation>另存为场景…</translation>
    </message>
    <message>
        <source>Write the edited plan as a scenario file</source>
        <translation>把编辑后的方案写成场景文件</translation>
    </message>
    <message>
        <source>devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>peak memory</source>
        <translation>峰值显存</translation>
    </message>
    <message>
        <source>change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <source>exposed communication</source>
        <translation>暴露的通信</translation>
    </message>
    <message>
        <source>Data-parallel degree (strategy.data)</source>
        <translation>数据并行度（strategy.data）</translation>
    </message>
    <message>
        <source>Tensor-parallel degree (strategy.tensor, Megatron-LM)</source>
        <translation>张量并行度（strategy.tensor，Megatron-LM）</translation>
    </message>
    <message>
        <source>Pipeline stages (strategy.pipeline)</source>
        <translation>流水线级数（strategy.pipeline）</translation>
    </message>
    <message>
        <source>sequence parallel</source>
        <translation>序列并行</translation>
    </message>
    <message>
        <source>strategy.sequence_parallel: needs tensor ≥ 2</source>
        <translation>strategy.sequence_parallel：需要 tensor ≥ 2</translation>
    </message>
    <message>
        <source>overlap</source>
        <translation>重叠</translation>
    </message>
    <message>
        <source>strategy.overlap: gradient communication during the backward pass</source>
        <translation>strategy.overlap：在反向传播期间进行梯度通信</translation>
    </message>
    <message>
        <source>0 (none)</source>
        <translation>0（无）</translation>
    </message>
    <message>
        <source>1 (optimizer)</source>
        <translation>1（优化器状态）</translation>
    </message>
    <message>
        <source>2 (+ gradients)</source>
        <translation>2（+ 梯度）</translation>
    </message>
    <message>
        <source>3 (FSDP)</source>
        <translation>3（FSDP）</translation>
    </message>
    <message>
        <source>strategy.zero: ZeRO stage over the data-parallel group</source>
        <translation>strategy.zero：数据并行组上的 ZeRO 阶段</translation>
    </message>
    <message>
        <source>strategy.data_mode: how the data axis splits the batch</source>
        <translation>strategy.data_mode：数据轴如何切分批次</translation>
    </message>
    <message>
        <source>training.micro_batch: rows per micro-batch on one replica</source>
        <translation>training.micro_batch：一个副本上每个微批次的行数</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>strategy.schedule: pipeline schedule</source>
        <translation>strategy.schedule：流水线调度</translation>
    </message>
    <message>
        <source>strategy.virtual_stages: model chunks per device (interleaved)</source>
        <translation>strategy.virtual_stages：每个设备上的模型块数（交错）</translation>
    </message>
    <message>
        <source>training.recompute: activation recomputation</source>
        <translation>training.recompute：激活重计算</translation>
    </message>
    <message>
        <source>strategy.rank_order: rank mapping, innermost first</source>
        <translation>strategy.rank_order：rank 映射，最内层在前</translation>
    </message>
    <message>
        <source>strategy.bucket: gradient AllReduce bucket</source>
        <translation>strategy.bucket：梯度 AllReduce 的分桶大小</translation>
    </message>
    <message>
        <source>strategy.algorithm: for the plan&apos;s collectives</source>
        <translation>strategy.algorithm：方案中集合通信所用的算法</translation>
    </message>
    <message>
        <source>ZeRO</source>
        <translation>ZeRO</translation>
    </message>
    <message>
        <source>micro-batch</source>
        <translation>微批次</translation>
    </message>
    <message>
        <source>schedule</source>
        <translation>调度</translation>
    </message>
    <message>
        <source>virtual stages</source>
        <translation>虚拟级数</translation>
    </message>
    <message>
        <source>recompute</source>
        <translation>重计算</translation>
    </message>
    <message>
        <source>rank order</source>
        <translation>rank 顺序</translation>
    </message>
    <message>
        <source>algorithm</source>
        <translation>算法</translation>
    </message>
    <message>
        <source>bucket</source>
        <translation>分桶</translation>
    </message>
    <message>
        <source>data mode</source>
        <translation>数据模式</translation>
    </message>
    <message>
        <source>A link class some route of this topology bottlenecks on</source>
        <translation>本拓扑中某条路由的瓶颈所在的链路类别</translation>
    </message>
    <message>
        <source>The class&apos;s α (per message), 0.1× to 10× the starting value</source>
        <translation>该类别的 α（每条消息），初始值的 0.1× 到 10×</translation>
    </message>
    <message>
        <source>The class&apos;s bandwidth per direction, 0.1× to 10× the starting value</source>
        <translation>该类别每个方向的带宽，初始值的 0.1× 到 10×</translation>
    </message>
    <message>
        <source>The device whose speed the slider sets</source>
        <translation>滑块所设定速度的设备</translation>
    </message>
    <message>
        <source>simulation.speed: the device&apos;s compute speed, 0.01× to 10× (a known straggler: every judge sees it)</source>
        <translation>simulation.speed：该设备的计算速度，0.01× 到 10×（已知的慢设备：每个评判器都看得到）</translation>
    </message>
    <message>
        <source>link class</source>
        <translation>链路类别</translation>
    </message>
    <message>
        <source>α</source>
        <translation>α</translation>
    </message>
    <message>
        <source>bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <source>speed of device</source>
        <translation>设备速度</translation>
    </message>
    <message>
        <source>The what-if panel edits a scenario&apos;s plan: this is a %1.</source>
        <translation>假设分析面板编辑的是场景的方案：这是一个 %1。</translation>
    </message>
    <message>
        <source>profile</source>
        <translation>硬件配置</translation>
    </message>
    <message>
        <source>trace</source>
        <translation>trace</translation>
    </message>
    <message>
        <source>Open a scenario to try changes to its plan.</source>
        <translation>打开一个场景，试着修改它的方案。</translation>
    </message>
    <message>
        <source>This model has no strategy (a graph is placed by its placement or mesh, a collective by its group)</source>
        <translation>这个模型没有并行策略（计算图由它的 placement 或 mesh 放置，集合通信由它的 group 决定）</translation>
    </message>
    <message>
        <source>= %1 of %2 devices</source>
        <translation>= %1 / %2 个设备</translation>
    </message>
    <message>
        <source>full (block of %1)</source>
        <translation>full（分块 %1 层）</translation>
    </message>
    <message>
        <source>%1 (×%2)</source>
        <translation>%1（×%2）</translation>
    </message>
    <message>
        <source>no links</source>
        <translation>没有链路</translation>
    </message>
    <message>
        <source>%1× %2</source>
        <translation>%1× %2</translation>
    </message>
    <message>
        <source>(straggler)</source>
        <translation>（慢设备）</translation>
    </message>
    <message>
        <source>Closed form: %1</source>
        <translation>闭式模型：%1</translation>
    </message>
    <message>
        <source>Simulator: %1</source>
        <translation>模拟器：%1</translation>
    </message>
    <message>
        <source>What-if: the simulator has judged the edited plan</source>
        <translation>假设分析：模拟器已评判编辑后的方案</translation>
    </message>
    <message>
        <source>This plan cannot be: %1</source>
        <translation>这个方案不可行：%1</translation>
    </message>
    <message>
        <source>simulating…</source>
        <translation>正在模拟…</translation>
    </message>
    <message>
        <source>not judged</source>
        <translation>未评判</translation>
    </message>
    <message>
        <source>starting plan → edited plan</source>
        <translation>初始方案 → 编辑后的方案</translation>
    </message>
    <message>
        <source>starting plan</source>
        <translation>初始方案</translation>
    </message>
    <message>
        <source>closed form</source>
        <translation>闭式模型</translation>
    </message>
    <message>
        <source>simulator</source>
        <translation>模拟器</translation>
    </message>
    <message>
        <source>step time</source>
        <translation>单步时间</translation>
    </message>
    <message>
        <source>peak memory (highest device)</source>
        <translation>峰值显存（最高的设备）</translation>
    </message>
    <message>
        <source>exposed communication (most exposed device)</source>
        <translation>暴露的通信（暴露最多的设备）</translation>
    </message>
    <message>
        <source>Per device: waiting for a judge</source>
        <translation>按设备：等待评判</translation>
    </message>
    <message>
        <source>Per device (%1), devices alike in one row, largest change first%2</source>
        <translation>按设备（%1），相同的设备合为一行，变化最大的在前%2</translation>
    </message>
    <message>
        <source>; the first %1 rows</source>
        <translation>；前 %1 行</translation>
    </message>
    <message>
        <source>over capacity</source>
        <translation>超出容量</translation>
    </message>
    <message>
        <source>Saved the edited plan as %1</source>
        <translation>已将编辑后的方案保存为 %1</translation>
    </message>
    <message>
        <source>Save the edited plan as a scenario</source>
        <translation>把编辑后的方案保存为场景</translation>
    </message>
    <message>
        <source>Scenarios (*.yaml)</source>
        <translation>场景 (*.yaml)</translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation>未保存：%1</translation>
    </message>
    <message>
        <source>Context-parallel degree (strategy.context): the sequence split over this many ranks, ring attention</source>
        <translation>上下文并行度（strategy.context）：序列切分到这么多个秩上，环形注意力</translation>
    </message>
    <message>
        <source>Expert-parallel degree (strategy.expert): a MoE layer&apos;s experts split over this many data-parallel ranks (inside data)</source>
        <translation>专家并行度（strategy.expert）：MoE 层的专家分布在这么多个数据并行秩上（在数据并行之内）</translation>
    </message>
    <message>
        <source>data × tensor × context × pipeline</source>
        <translation>数据 × 张量 × 上下文 × 流水线</translation>
    </message>
    <message>
        <source>expert</source>
        <translation>专家并行</translation>
    </message>
    <message>
        <source>simulation.host_op_time: the host&apos;s time to issue one operation (a kernel, a collective, a send); where the device&apos;s kernels are shorter, the host sets the pace. 0: the host keeps ahead (every judge sees it)</source>
        <translation>simulation.host_op_time：主机发出一个操作（一个内核、一次集合通信、一次发送）所需的时间；设备的内核比它短时，由主机决定节奏。0：主机始终领先（每位评判都看得到）</translation>
    </message>
    <message>
        <source>host time per operation</source>
        <translation>每个操作的主机时间</translation>
    </message>
    <message>
        <source>simulation.devices_per_host: how many devices one host drives, issuing all their operations one after another (1: a process per GPU; 8: one process for a node&apos;s GPUs). Acts with a host time per operation</source>
        <translation>simulation.devices_per_host：一个主机驱动几个设备，它们的所有操作都由它一个接一个地发出（1：每张 GPU 一个进程；8：整个节点的 GPU 一个进程）。有每个操作的主机时间时才起作用</translation>
    </message>
    <message>
        <source>devices per host</source>
        <translation>每个主机的设备数</translation>
    </message>
</context>
</TS>
