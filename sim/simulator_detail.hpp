// Internal to sim/ (and its tests): the engine with its representation
// choices exposed, so that tests can hold equivalent representations to the
// same results.
#pragma once

#include "sim/simulator.hpp"

namespace brigade::sim::detail {

// simulate() with rings run from a materialised schedule (implicit_rings =
// false) instead of per-rank counters. Both must give identical results.
Result<SimResult> simulate_with(const Program& program, const Topology& topology,
                                const HardwareProfile& profile, const SimOptions& options,
                                bool implicit_rings);

// simulate() for the shortcut's isolated runs: LinkStats::name left empty
// (thousands of channel names per run, none of them read); with
// `record_transfers`, SimResult::trace holds the run's transfers alone (no
// spans, memory or name tables; merged as options.trace_steps says),
// whatever options.record_trace says.
Result<SimResult> simulate_unnamed_links(const Program& program, const Topology& topology,
                                         const HardwareProfile& profile, const SimOptions& options,
                                         bool record_transfers = false);

// Whether the shortcut's isolated runs are shared by collectives of the same
// shape (sim/shortcut.cpp, shape_key; on by default): tests hold runs with
// and without sharing to the same figures.
void share_shortcut_shapes(bool on);

// Whether a run the checked shortcut makes again resumes the first run's
// engine from just before the first candidate collective starts (on by
// default) or simulates the Program from its start: tests hold both to the
// same figures, bit for bit.
void resume_checked_runs(bool on);

// Whether a held ring that a flow joins is split at that instant (replayed
// to it and expanded from it, Engine::split_held; on by default) or refused
// (the Program runs again with it expanded from its start): tests hold both
// to the same figures.
void split_checked_rings(bool on);

}  // namespace brigade::sim::detail
