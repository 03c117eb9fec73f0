#include "gui/model/loader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include <yaml-cpp/yaml.h>

#include "core/text.hpp"
#include "core/trace_filter.hpp"
#include "core/units.hpp"
#include "gui/model/foreign_trace.hpp"
#include "gui/model/model_tr.hpp"
#include "planner/lower.hpp"
#include "sim/scenario_options.hpp"

namespace brigade::gui {

namespace {

// Another tool's JSON trace is parsed into a DOM (about ten times its size
// in memory): beyond this, the file is refused with a message rather than
// exhausting the machine. Brigade's own traces stream (read_by_core).
constexpr std::uintmax_t kMaxTraceFileBytes = std::uintmax_t{1} << 30;
constexpr std::uintmax_t kMaxTextFileBytes = std::uintmax_t{64} << 20;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The first `n` bytes of a file ("" if unreadable).
std::string head(const std::string& path, size_t n) {
  std::ifstream f(path, std::ios::binary);
  std::string s(n, '\0');
  f.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<size_t>(std::max<std::streamsize>(f.gcount(), 0)));
  return s;
}

char first_non_space(const std::string& s) {
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) return c;
  return '\0';
}

// A profile file has a profile's top-level keys and none of a scenario's.
bool yaml_is_profile(const std::string& path) {
  try {
    const YAML::Node root = YAML::LoadFile(path);
    if (!root.IsMap()) return false;
    if (root["model"] || root["topology"] || root["strategy"]) return false;
    return root["machine_kind"] || root["devices"] || root["links"];
  } catch (const std::exception&) {
    return false;  // load_scenario will report the syntax error at its position
  }
}

bool cancelled(const LoadOptions& o) {
  return cancel_requested(o.cancel);
}

void progress(const LoadOptions& o, const std::string& stage, double done, double total) {
  if (o.on_progress) o.on_progress(stage, done, total);
}

}  // namespace

bool is_cancelled(const Status& status) {
  return !status.is_ok() && status.kind() == ErrorKind::kCancelled;
}

FileKind sniff_file_kind(const std::string& path) {
  const std::string p = ascii_lower(path);
  if (ends_with(p, ".json.gz") || ends_with(p, ".trace.json")) return FileKind::kTrace;
  if (ends_with(p, ".yaml") || ends_with(p, ".yml"))
    return yaml_is_profile(path) ? FileKind::kProfile : FileKind::kScenario;
  const std::string h = head(path, 1 << 16);
  if (h.size() >= 2 && static_cast<unsigned char>(h[0]) == 0x1f &&
      static_cast<unsigned char>(h[1]) == 0x8b)
    return FileKind::kTrace;  // gzip: only traces are written compressed
  const char c = first_non_space(h);
  if (c == '[') return FileKind::kTrace;
  if (c == '{') {
    // A Chrome trace object names its events array; a JSON scenario does not.
    if (h.find("\"traceEvents\"") != std::string::npos) return FileKind::kTrace;
    return ends_with(p, ".json") ? FileKind::kScenario : FileKind::kUnknown;
  }
  if (ends_with(p, ".json")) return FileKind::kTrace;  // let the reader say what is wrong
  return FileKind::kUnknown;
}

DocumentPtr document_from_trace(Trace trace, std::string path) {
  auto doc = std::make_shared<Document>();
  doc->path = std::move(path);
  doc->kind = DocumentKind::kTrace;
  doc->trace = std::make_unique<Trace>(std::move(trace));
  doc->index = std::make_unique<TraceIndex>(TraceIndex::build(*doc->trace, nullptr));
  doc->host = HostLane::build(*doc->trace);
  doc->title = !doc->trace->program.empty() ? doc->trace->program
                                            : std::filesystem::path(doc->path).filename().string();
  return doc;
}

std::vector<std::string> document_notes(const Document& doc) {
  std::vector<std::string> out;
  if (const Program* program = doc.program())
    out.push_back(fill_args(model_tr("Loader", "%1 on %2, granularity %3"),
                            {model_tr("Loader", "%n task(s)", nullptr, program->num_tasks()),
                             model_tr("Loader", "%n device(s)", nullptr, program->num_devices),
                             planner::granularity_name(doc.plan->granularity)}));
  if (doc.trace && !doc.trace->filter.empty())
    out.push_back(
        fill_args(model_tr("Loader", "recorded for %1"), {trace_filter_text(doc.trace->filter)}));
  return out;
}

Result<DocumentPtr> document_from_scenario(Scenario scenario, const LoadOptions& o) {
  auto doc = std::make_shared<Document>();
  doc->path = scenario.path;
  doc->kind = DocumentKind::kScenario;
  doc->title = scenario.name.empty() ? std::filesystem::path(scenario.path).filename().string()
                                     : scenario.name;
  if (!o.profile.empty()) {
    auto profile = load_profile(o.profile);
    if (!profile.is_ok()) return profile.status();
    scenario.profile = std::move(profile).value();
    scenario.profile_path = o.profile;
  }
  doc->scenario = std::make_unique<Scenario>(std::move(scenario));
  const Scenario& sc = *doc->scenario;

  planner::LowerOptions lower_options;
  lower_options.granularity = o.granularity;
  lower_options.max_kernel_tasks = o.max_traced_tasks;
  lower_options.cancel = o.cancel;
  progress(o, "lowering", 0, 0);
  const int generation = translation_generation();
  auto plan = planner::lower(sc, lower_options);
  if (cancelled(o)) return cancelled_status();
  if (!plan.is_ok()) return plan.status();
  doc->plan = std::make_unique<planner::Plan>(std::move(plan).value());
  doc->prose_generation = generation == translation_generation() ? generation : -1;
  const Program& program = doc->plan->program;

  sim::SimOptions sim_options = scenario_sim_options(sc, o.cancel, o.network);
  sim_options.record_trace = true;
  sim_options.on_progress = [&o](double done, double total) {
    progress(o, "simulating", done, total);
  };
  progress(o, "simulating", 0, program.num_tasks());
  auto result = sim::simulate(program, sc.topology, sc.profile, sim_options);
  if (cancelled(o)) return cancelled_status();
  if (!result.is_ok()) return result.status();
  doc->result = std::make_unique<sim::SimResult>(std::move(result).value());
  doc->trace = std::make_unique<Trace>(std::move(doc->result->trace));
  doc->result->trace = Trace{};
  progress(o, "indexing", 0, 0);
  doc->index = std::make_unique<TraceIndex>(TraceIndex::build(*doc->trace, &program));
  doc->host = HostLane::build(*doc->trace);
  if (cancelled(o)) return cancelled_status();
  doc->usage =
      std::make_unique<TopologyUsage>(TopologyUsage::build(*doc->trace, sc.topology, sc.profile));
  if (cancelled(o)) return cancelled_status();
  return DocumentPtr(std::move(doc));
}

Result<DocumentPtr> load_document(const std::string& path, const LoadOptions& o) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return Status::error(
        path + ": error: found no readable file; expected a scenario, a trace or a profile");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  const FileKind kind = sniff_file_kind(path);
  progress(o, "reading", 0, 0);
  switch (kind) {
    case FileKind::kUnknown:
      return Status::error(path +
                           ": error: found a file of unknown kind; expected a scenario (.yaml, "
                           ".yml, .json), a Chrome trace (.json) or a hardware profile (.yaml)");
    case FileKind::kProfile: {
      if (size > kMaxTextFileBytes)
        return Status::error(path + ": error: found a file of " + format_bytes(double(size)) +
                             "; expected a profile of at most " +
                             format_bytes(double(kMaxTextFileBytes)));
      auto profile = load_profile(path);
      if (!profile.is_ok()) return profile.status();
      auto doc = std::make_shared<Document>();
      doc->path = path;
      doc->kind = DocumentKind::kProfile;
      doc->profile = std::make_unique<HardwareProfile>(std::move(profile).value());
      doc->title = doc->profile->name;
      return DocumentPtr(std::move(doc));
    }
    case FileKind::kScenario: {
      if (size > kMaxTextFileBytes)
        return Status::error(path + ": error: found a file of " + format_bytes(double(size)) +
                             "; expected a scenario of at most " +
                             format_bytes(double(kMaxTextFileBytes)));
      auto scenario = load_scenario(path);
      if (!scenario.is_ok()) return scenario.status();
      if (cancelled(o)) return cancelled_status();
      return document_from_scenario(std::move(scenario).value(), o);
    }
    case FileKind::kTrace: {
      if (size > kMaxTraceFileBytes && !read_by_core(path))
        return Status::error(path + ": error: found a trace of " + format_bytes(double(size)) +
                             "; expected at most " + format_bytes(double(kMaxTraceFileBytes)) +
                             " (open the scenario instead, or record fewer devices)");
      auto trace = read_any_chrome_trace_file(path);
      if (cancelled(o)) return cancelled_status();
      if (!trace.is_ok()) return trace.status();
      progress(o, "indexing", 0, 0);
      return document_from_trace(std::move(trace).value(), path);
    }
  }
  return Status::error(path + ": error: found a file of unknown kind", ErrorKind::kInternal);
}

sim::SimOptions scenario_sim_options(const Scenario& scenario, const std::atomic<bool>* cancel,
                                     const std::string& network) {
  sim::SimOptions so = sim::options_for(scenario);
  if (!network.empty())
    so.network = network == "ideal" ? sim::NetworkModel::kIdeal : sim::NetworkModel::kFlow;
  so.cancel = cancel;
  return so;
}

}  // namespace brigade::gui
