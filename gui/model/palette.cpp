#include "gui/model/palette.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace brigade::gui {

namespace {

// Compute phases in calm hues (blue forward, green backward, violet
// recompute, amber optimizer), communication in warm ones, so that exposed
// communication stands out; distinct lightness for colour-blind readers.
constexpr std::array<ClassStyle, kNumSpanClasses> kStyles{{
    {0x4C78A8, "forward"},
    {0x54A24B, "backward"},
    {0xB279A2, "recompute"},
    {0xE8A33D, "optimizer"},
    {0x9D9D9D, "other compute"},
    {0x2CB5B8, "transfer"},
    {0xE45756, "AllReduce"},
    {0xF58518, "AllGather"},
    {0xC7385C, "ReduceScatter"},
    {0x8C6D31, "Broadcast"},
    {0x9E3D22, "Reduce"},
    {0xD6A5C9, "AllToAll"},
    {0xFF9DA6, "collective"},
    {0x6B6ECF, "host issuing"},
}};

std::string lower_alnum(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

}  // namespace

const ClassStyle& class_style(SpanClass c) {
  return kStyles[static_cast<size_t>(c)];
}

std::uint32_t utilisation_rgb(double u) {
  struct Stop {
    double at;
    int r, g, b;
  };
  static constexpr Stop kStops[] = {
      {0, 0xc8, 0xcc, 0xd2}, {0.5, 0xf2, 0xc1, 0x4e}, {1, 0xd7, 0x26, 0x3d}};
  if (!(u > 0)) u = 0;
  if (u > 1) return 0x7a0f1e;
  for (int i = 1; i < 3; ++i) {
    if (u > kStops[i].at) continue;
    const Stop& a = kStops[i - 1];
    const Stop& b = kStops[i];
    const double f = (u - a.at) / (b.at - a.at);
    auto mix = [f](int x, int y) {
      return static_cast<std::uint32_t>(std::lround(x + (y - x) * f));
    };
    return mix(a.r, b.r) << 16 | mix(a.g, b.g) << 8 | mix(a.b, b.b);
  }
  return 0xd7263d;
}

SpanClass collective_class(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllReduce:
      return SpanClass::kAllReduce;
    case CollectiveKind::kAllGather:
      return SpanClass::kAllGather;
    case CollectiveKind::kReduceScatter:
      return SpanClass::kReduceScatter;
    case CollectiveKind::kBroadcast:
      return SpanClass::kBroadcast;
    case CollectiveKind::kReduce:
      return SpanClass::kReduce;
    case CollectiveKind::kAllToAll:
      return SpanClass::kAllToAll;
  }
  return SpanClass::kCollective;
}

SpanClass class_from_name(std::string_view name, SpanClass fallback) {
  const std::string n = lower_alnum(name);
  // Point-to-point and copies first, then the collectives' words
  // (core/program.hpp), the looser ones only where the name is known to be
  // a collective's or an NCCL kernel's.
  if (n.find("sendrecv") != std::string::npos || n.find("memcpy") != std::string::npos)
    return SpanClass::kTransfer;
  const bool nccl = n.find("nccl") != std::string::npos;
  const NameContext context = fallback == SpanClass::kCollective ? NameContext::kCollective
                              : nccl                             ? NameContext::kNccl
                                                                 : NameContext::kAny;
  if (const auto kind = collective_kind_in_name(n, context)) return collective_class(*kind);
  if (nccl) return SpanClass::kCollective;
  return fallback;
}

SpanClass span_class(const TraceSpan& span, std::string_view name, const Program* program) {
  switch (span.kind) {
    case TaskKind::kTransfer:
      return SpanClass::kTransfer;
    case TaskKind::kCollective:
      if (program && span.collective >= 0 &&
          static_cast<size_t>(span.collective) < program->collectives().size())
        return collective_class(program->collectives()[static_cast<size_t>(span.collective)].kind);
      return class_from_name(name, SpanClass::kCollective);
    case TaskKind::kCompute:
      break;
  }
  switch (span.phase) {
    case Phase::kForward:
      return SpanClass::kForward;
    case Phase::kBackward:
      return SpanClass::kBackward;
    case Phase::kRecompute:
      return SpanClass::kRecompute;
    case Phase::kOptimizer:
      return SpanClass::kOptimizer;
    case Phase::kOther:
      break;
  }
  return SpanClass::kCompute;
}

}  // namespace brigade::gui
