#include "gui/model/compare.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "core/units.hpp"
#include "gui/model/model_tr.hpp"

namespace brigade::gui {

namespace {

bool known(double x) {
  return !std::isnan(x);
}

std::string source_words(const std::string& source) {
  if (source.rfind("sim", 0) == 0)
    return fill_args(model_tr("Compare", "simulated (%1)"), {source});
  if (source == "cost") return model_tr("Compare", "closed form");
  if (source.empty()) return model_tr("Compare", "a trace");
  return fill_args(model_tr("Compare", "measured (%1)"), {source});
}

// A device's id from its name as figures_of_trace names it: the trace's
// name, else "device N".
int device_named(const Trace& t, const std::string& name) {
  for (size_t d = 0; d < t.device_names.size(); ++d)
    if (t.device_names[d] == name) return static_cast<int>(d);
  constexpr std::string_view kPrefix = "device ";
  if (name.rfind(kPrefix, 0) != 0) return -1;
  int id = -1;
  const char* b = name.data() + kPrefix.size();
  const char* e = name.data() + name.size();
  auto [p, ec] = std::from_chars(b, e, id);
  return ec == std::errc() && p == e && id >= 0 ? id : -1;
}

void add_section(std::vector<CompareTableRow>& out, CompareSection section,
                 const std::string& title, const std::vector<FigureRow>& rows) {
  if (rows.empty()) return;
  CompareTableRow head;
  head.title = true;
  head.section = section;
  head.scope = title;
  out.push_back(head);
  // The longest bar per unit: seconds and bytes are not on one scale.
  std::map<bool, double> largest;
  for (const FigureRow& r : rows)
    if (known(r.delta())) largest[r.bytes] = std::max(largest[r.bytes], std::fabs(r.delta()));
  for (const FigureRow& r : rows) {
    CompareTableRow row;
    row.section = section;
    row.scope = r.scope;
    row.figure = r.figure;
    row.a = figure_text(r.a, r.bytes);
    row.b = figure_text(r.b, r.bytes);
    row.delta = figure_delta_text(r.delta(), r.bytes);
    row.percent = percent_change_text(r.a, r.b);
    row.delta_value = r.delta();
    const double top = largest[r.bytes];
    row.bar = known(r.delta()) && top > 0 ? std::fabs(r.delta()) / top : 0;
    out.push_back(std::move(row));
  }
}

}  // namespace

Result<RunFigures> figures_of_document(const Document& doc) {
  if (doc.kind == DocumentKind::kProfile || !doc.trace)
    return Status::error(doc.path +
                         ": error: found a hardware profile; expected a scenario or a "
                         "trace to compare");
  if (doc.kind == DocumentKind::kScenario && doc.program() && doc.result)
    return figures_of_simulation(*doc.trace, *doc.program(), doc.result->step_seconds, doc.path);
  return figures_of_trace(*doc.trace, doc.path);
}

Result<RunComparison> compare_documents(const Document& a, const Document& b) {
  auto fa = figures_of_document(a);
  if (!fa.is_ok()) return fa.status();
  auto fb = figures_of_document(b);
  if (!fb.is_ok()) return fb.status();
  return compare_runs(*fa, *fb);
}

TimeWindow shared_extent(const Document& a, const Document& b) {
  double t0 = 0, t1 = 0;
  bool any = false;
  for (const Document* d : {&a, &b}) {
    if (!d->has_trace() || d->trace->spans.empty()) continue;
    const double s = d->index->start_seconds(), e = d->index->end_seconds();
    t0 = any ? std::min(t0, s) : s;
    t1 = any ? std::max(t1, e) : e;
    any = true;
  }
  if (!any) return {0, 1};
  // As the timeline pads its own trace (TimelineCanvas::set_document).
  const double pad = std::max((t1 - t0) * 0.01, 1e-9);
  return {t0 - pad, t1 + pad};
}

std::vector<CompareTableRow> compare_table(const RunComparison& c) {
  std::vector<CompareTableRow> out;
  add_section(out, CompareSection::kDevices, "per device", c.device_rows);
  add_section(out, CompareSection::kMemory, "peak memory per device", c.memory_rows);
  add_section(out, CompareSection::kKinds,
              c.a.basis == KindBasis::kDeviceSeconds
                  ? "per task kind (span time summed over devices)"
                  : "per task kind (the busiest device's time per step)",
              c.kind_rows);
  return out;
}

std::string step_summary(const RunComparison& c) {
  const std::string p = percent_change_text(c.a.step_seconds, c.b.step_seconds);
  return fill_args(model_tr("Compare", "step: A %1, B %2, B - A %3%4"),
                   {format_seconds(c.a.step_seconds), format_seconds(c.b.step_seconds),
                    figure_delta_text(c.b.step_seconds - c.a.step_seconds, false),
                    p.empty() ? std::string() : fill_args(model_tr("Compare", " (%1)"), {p})});
}

std::string run_summary(const RunFigures& f) {
  return fill_args(model_tr("Compare", "'%1' · %2 · %n device(s) · step %3", nullptr,
                            plural_count(f.devices.size())),
                   {f.program, source_words(f.source), format_seconds(f.step_seconds)});
}

std::vector<std::int32_t> spans_of_kind(const Document& doc, const std::string& kind) {
  std::vector<std::int32_t> out;
  if (!doc.trace) return out;
  const Program* program = doc.kind == DocumentKind::kScenario ? doc.program() : nullptr;
  const Trace& t = *doc.trace;
  for (size_t i = 0; i < t.spans.size(); ++i)
    if (span_kind_key(t, t.spans[i], program) == kind) out.push_back(static_cast<std::int32_t>(i));
  return out;
}

std::pair<int, int> devices_of_scope(const Trace& a, const Trace& b, const std::string& scope) {
  const int da = device_named(a, scope);
  int db = device_named(b, scope);
  if (db < 0 && da >= 0 &&
      (b.device_names.empty() || static_cast<size_t>(da) < b.device_names.size()))
    db = da;
  return {da, db};
}

}  // namespace brigade::gui
