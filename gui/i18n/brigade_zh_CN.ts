<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
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
</TS>
