// The colour of a span: one class per task kind and phase (forward,
// backward, recompute, optimizer, other compute, transfer, each collective
// kind), and the host lane's issuing, one legend for every view. Colours are 0xRRGGBB (no Qt here).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "core/program.hpp"
#include "core/trace.hpp"

namespace brigade::gui {

enum class SpanClass : std::uint8_t {
  kForward,
  kBackward,
  kRecompute,
  kOptimizer,
  kCompute,  // other compute (phase "other", or a foreign kernel)
  kTransfer,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kCollective,  // a collective of unknown kind (a foreign trace's)
  kHost,        // the host issuing a task (Trace::host; the timeline's host rows)
};
inline constexpr int kNumSpanClasses = 14;

struct ClassStyle {
  std::uint32_t rgb;
  std::string_view label;  // the legend's words
};

// The one table of colours and legend labels, by SpanClass.
const ClassStyle& class_style(SpanClass c);
inline std::uint32_t class_rgb(SpanClass c) {
  return class_style(c).rgb;
}

// The class of a collective kind.
SpanClass collective_class(CollectiveKind k);

// The class of a task name written by someone else's tool ("ncclKernel_
// AllReduce_RING_LL_Sum_float", "nccl:all_gather", "Memcpy DtoD"):
// collectives and copies by their usual names, else `fallback`.
SpanClass class_from_name(std::string_view name, SpanClass fallback);

// The class of one span. `program`, when it ran this trace, names each
// collective's kind; without it the span's name decides (class_from_name).
SpanClass span_class(const TraceSpan& span, std::string_view name, const Program* program);

// The colour of a utilisation (a link's bytes over its capacity x time, a
// device's occupancy): grey at 0 through amber at 0.5 to red at 1, dark red
// above 1; linear in between.
std::uint32_t utilisation_rgb(double utilisation);

// Classes present in a list of classes, in legend order (a bit per class).
using ClassSet = std::uint32_t;
inline ClassSet class_bit(SpanClass c) {
  return ClassSet{1} << static_cast<int>(c);
}

}  // namespace brigade::gui
