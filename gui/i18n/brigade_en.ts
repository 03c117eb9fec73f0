<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>ViewTitle</name>
    <message>
        <source>Timeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Topology</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What-if</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>brigade::gui::LessonsView</name>
    <message>
        <source>Found no scenarios/lessons folder near brigade-gui or the working folder; expected one, or $BRIGADE_LESSONS naming it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quiz</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>◀ Previous</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next ▶</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the scenario</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Load this lesson&apos;s scenario in the timeline, topology and memory views</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A misconception, shown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A lesson of the guided tour</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lessons</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A misconception, shown.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Computing this lesson&apos;s numbers…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Found no brigade executable beside brigade-gui or on PATH; expected one to compute the lessons&apos; numbers ($BRIGADE_EXE names it).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>could not start %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>brigade lesson %1 gave no answers</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>brigade::gui::MainWindow</name>
    <message>
        <source>Brigade</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Messages</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop loading (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opening %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open the file; what was open stays open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled opening %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a scenario, trace or profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Brigade files (*.yaml *.yml *.json *.json.gz);;Scenarios (*.yaml *.yml *.json);;Chrome traces (*.json *.json.gz);;Profiles (*.yaml *.yml);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export View as &amp;PNG</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export View as &amp;SVG</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export as PNG</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export as SVG</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SVG images (*.svg)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export &amp;Trace as Chrome JSON…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the trace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Chrome traces (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not load the translation; the language stays as it was.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timeline: W/S zoom, A/D pan, Ctrl+wheel zoom at the mouse, Shift+wheel or middle-drag pan, drag to select a range, Z zoom to it, Backspace back, 0 all, click a span for details, Esc clears.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 — Brigade</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>: step %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No trace is open to export.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a scenario, a trace or a profile: File &gt; Open (Ctrl+O), or drop a file here.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>brigade::gui::QuizPanel</name>
    <message>
        <source>Show every answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Computing the answers from the lessons&apos; scenarios…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick an answer first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Right: %1. %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not quite: the tool computes %1. %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answer: %1. %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
