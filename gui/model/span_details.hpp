// What the timeline's details panel says about one span: the task, its
// op and shapes, bytes, FLOP, start and end, and which task it waited for
// and why (from the Program's dependencies when the document has one:
// its stream predecessor, its cross-stream dependencies, or, for a
// collective, the last rank to arrive at the barrier).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gui/model/document.hpp"

namespace brigade::gui {

struct DetailLine {
  std::string key;
  std::string value;
};

struct SpanDetails {
  std::string title;
  std::vector<DetailLine> lines;
  // The span whose end let this one start (-1: none known), and why.
  std::int32_t waited_for_span = -1;
  std::string waited_for;  // "" when the document has no Program
};

SpanDetails describe_span(const Document& doc, std::int32_t span);

// One line for a tooltip: "name — 1.23 ms (backward, gpu3/compute)".
std::string span_summary(const Document& doc, std::int32_t span);

}  // namespace brigade::gui
