#include "planner/quiz.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"
#include "core/units.hpp"
#include "core/yaml_reader.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/plan.hpp"
#include "planner/explain.hpp"
#include "planner/lower.hpp"
#include "planner/search.hpp"

namespace brigade::planner {
namespace fs = std::filesystem;

std::string QuizQuestion::answer() const {
  std::string out;
  for (const QuizChoice& c : choices)
    if (c.correct) out += c.letter;
  return out;
}

namespace {

// The scenario files the answers come from (scenarios/lessons/).
constexpr const char* kJit = "03-jit-device.yaml";
constexpr const char* kAuto = "02-xla-auto-choice.yaml";
constexpr const char* kPmap = "04-pmap-sharding.yaml";
constexpr const char* kBowl = "05-sauce-bowl.yaml";
constexpr const char* kMemory = "06-peak-memory.yaml";
constexpr const char* kZero = "more/06-zero1.yaml";
constexpr const char* kRowSharded = "07-model-sharding.yaml";
constexpr const char* kKnee = "08-scaling-knee.yaml";
constexpr const char* kSurprise = "12-runtime-surprise.yaml";
constexpr const char* kHand = "more/12-hand-placed.yaml";

struct Explained {
  Scenario scenario;
  cost::PlanEstimate estimate;
  nlohmann::json json;  // explain_plan_json
};

Result<Explained> explain_file(const std::string& path) {
  BRIGADE_ASSIGN_OR_RETURN(Scenario s, load_scenario(path));
  BRIGADE_ASSIGN_OR_RETURN(Plan plan, describe(s));
  BRIGADE_ASSIGN_OR_RETURN(cost::PlanEstimate e, cost::estimate_plan(s));
  nlohmann::json j = explain_plan_json(plan, s, e);
  return Explained{std::move(s), std::move(e), std::move(j)};
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + ")";
}

std::vector<std::int64_t> shape_of(const nlohmann::json& j) {
  return j.get<std::vector<std::int64_t>>();
}

// The shape entry `name` of device `d` in an explanation.
Result<nlohmann::json> shape_entry(const nlohmann::json& j, int d, const std::string& name) {
  for (const auto& s : j["devices"][static_cast<size_t>(d)]["shapes"])
    if (s["name"] == name) return s;
  return Status::error("found no tensor '" + name + "' on device " + std::to_string(d) +
                       "; expected the lesson's scenario to hold it");
}

// Letters only, lower case: "AllReduce（全归约）" -> "allreduce".
std::string letters(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (c < 128 && std::isalpha(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

// What one question's computation gives: facts for the text, and which
// letters are right.
struct Answer {
  std::map<std::string, std::string> facts;
  std::set<char> correct;
  std::vector<std::string> scenarios;
};

// The choice whose text names `word` (letters compared, case ignored).
Result<char> choice_naming(const std::vector<QuizChoice>& choices, const std::string& word) {
  for (const QuizChoice& c : choices)
    if (letters(c.text).rfind(letters(word), 0) == 0 ||
        letters(c.text).find(letters(word)) != std::string::npos)
      return c.letter;
  return Status::error("found no choice naming '" + word + "'; expected one");
}

// Q1, Q4 and Q7's C: the pmap lesson's plan.
Result<Answer> pmap_facts(const std::string& dir) {
  BRIGADE_ASSIGN_OR_RETURN(Explained e, explain_file(dir + "/" + kPmap));
  Answer a;
  a.scenarios = {kPmap};
  const int n = static_cast<int>(e.json["devices"].size());
  BRIGADE_ASSIGN_OR_RETURN(nlohmann::json x, shape_entry(e.json, 0, "x"));
  BRIGADE_ASSIGN_OR_RETURN(nlohmann::json w, shape_entry(e.json, 0, "w1"));
  const auto global = shape_of(x["global"]);
  const auto local = shape_of(x["local"]);
  // The same program everywhere: every device holds the same shapes.
  bool same = true;
  for (const auto& d : e.json["devices"]) same = same && d["shapes"] == e.json["devices"][0]["shapes"];
  // jax.pmap proper wants the leading axis to be the devices: (N, B/N, ...).
  std::vector<std::int64_t> reshaped = {n, global[0] / n};
  reshaped.insert(reshaped.end(), global.begin() + 1, global.end());
  BRIGADE_ASSIGN_OR_RETURN(const auto pmap_local, per_device_input_shape(reshaped, n, DataMode::kPmap));
  if (pmap_local != local)
    return Status::error("found pmap's block " + shape_text(pmap_local) + " and batch sharding's " +
                         shape_text(local) + "; expected the same rows per device");
  a.facts = {{"devices", std::to_string(n)},
             {"x_global", shape_text(global)},
             {"x_local", shape_text(local)},
             {"pmap_input", shape_text(reshaped)},
             {"w_global", shape_text(shape_of(w["global"]))},
             {"w_local", shape_text(shape_of(w["local"]))}};
  a.facts["rows"] = std::to_string(global[0]) + " / " + std::to_string(n) + " = " +
                    std::to_string(local[0]);
  const bool split_rows = local[0] * n == global[0] &&
                          std::equal(local.begin() + 1, local.end(), global.begin() + 1);
  if (split_rows && same) a.correct.insert('B');
  if (n == 1) a.correct.insert('A');
  return a;
}

// Q2 and Q7's B: every op of the jit lesson on the device its placement names.
Result<Answer> jit_facts(const std::string& dir) {
  BRIGADE_ASSIGN_OR_RETURN(Explained e, explain_file(dir + "/" + kJit));
  Answer a;
  a.scenarios = {kJit};
  std::set<int> used;
  for (const auto& [op, dev] : e.scenario.placement) used.insert(dev);
  if (used.empty()) return Status::error(std::string(kJit) + ": error: found no placement; expected jit(f, device=...) as one");
  const int d = *used.begin();
  a.facts = {{"jit_device", e.scenario.topology.devices()[static_cast<size_t>(d)].name},
             {"jit_ops", std::to_string(e.scenario.placement.size())},
             {"jit_devices_used", std::to_string(e.estimate.devices)}};
  if (used.size() == 1 && e.estimate.devices == 1) a.correct.insert('C');
  if (e.estimate.devices > 1) a.correct.insert('D');
  return a;
}

// Q3: the ring's alpha term on the sauce bowl lesson's 8 chefs.
Result<Answer> alpha_facts(const std::string& dir) {
  BRIGADE_ASSIGN_OR_RETURN(Scenario s, load_scenario(dir + "/" + kBowl));
  const double m = s.collective.bytes;
  std::vector<int> group;
  for (const Device& d : s.topology.devices()) group.push_back(d.id);
  BRIGADE_ASSIGN_OR_RETURN(cost::CollectiveQuery q,
                           cost::collective_query_on(s.topology, s.profile, CollectiveKind::kAllReduce,
                                                     CollectiveAlgorithm::kRing, group, m));
  const int n = static_cast<int>(group.size());
  const double at0 = cost::ring_allreduce_seconds(n, 0, q.intra);
  const double at_m = cost::ring_allreduce_seconds(n, m, q.intra);
  const double at_2m = cost::ring_allreduce_seconds(n, 2 * m, q.intra);
  const double alpha_term_at_m = at_m - (at_2m - at_m);  // time less the part linear in M
  Answer a;
  a.scenarios = {kBowl};
  a.facts = {{"n", std::to_string(n)},
             {"rounds", std::to_string(2 * (n - 1))},
             {"alpha", format_seconds(q.intra.alpha_seconds)},
             {"alpha_term", format_seconds(at0)},
             {"bytes", format_bytes(m)},
             {"total", format_seconds(at_m)},
             {"beta_term", format_seconds(at_m - at0)}};
  const bool fixed = at0 > 0 && std::abs(alpha_term_at_m - at0) <= 1e-9 * at_m;
  if (fixed) a.correct.insert('C');
  else a.correct.insert('A');
  return a;
}

// Q5: the collective a data-parallel training plan syncs its gradients with.
Result<Answer> grad_sync_facts(const std::string& dir, const std::vector<QuizChoice>& choices) {
  BRIGADE_ASSIGN_OR_RETURN(Explained e, explain_file(dir + "/" + kMemory));
  Answer a;
  a.scenarios = {kMemory};
  for (const auto& c : e.json["devices"][0]["collectives"])
    if (c["purpose"] == "data") {
      const std::string kind = c["kind"];
      a.facts = {{"grad_kind", kind},
                 {"grad_bytes", format_bytes(c["bytes"].get<double>())},
                 {"grad_group", std::to_string(c["group_size"].get<int>())}};
      BRIGADE_ASSIGN_OR_RETURN(char letter, choice_naming(choices, kind));
      a.correct.insert(letter);
      return a;
    }
  return Status::error(std::string(kMemory) + ": error: found no gradient collective; expected data parallelism");
}

// Q6: the same plan with and without overlapping gradient communication.
Result<Answer> overlap_facts(const std::string& dir) {
  BRIGADE_ASSIGN_OR_RETURN(Scenario s, load_scenario(dir + "/" + kMemory));
  s.strategy.overlap = true;
  BRIGADE_ASSIGN_OR_RETURN(cost::PlanEstimate on, cost::estimate_plan(s));
  s.strategy.overlap = false;
  BRIGADE_ASSIGN_OR_RETURN(cost::PlanEstimate off, cost::estimate_plan(s));
  auto peak = [](const cost::PlanEstimate& e) {
    double p = 0;
    for (const auto& m : e.memory) p = std::max(p, m.peak_bytes);
    return p;
  };
  Answer a;
  a.scenarios = {kMemory};
  a.facts = {{"exposed_on", format_seconds(on.exposed_communication_seconds)},
             {"exposed_off", format_seconds(off.exposed_communication_seconds)},
             {"step_on", format_seconds(on.step_seconds)},
             {"step_off", format_seconds(off.step_seconds)},
             {"work", format_flops(on.hardware_flops_per_iteration)},
             {"compute_off", format_seconds(off.compute_seconds)},
             {"compute_on", format_seconds(on.compute_seconds)}};
  // The same work either way; with overlap its kernels take a little
  // longer (the collectives' NCCL kernels hold some SMs beside them), so
  // what overlap buys is hidden communication, not less computation.
  if (on.exposed_communication_seconds < off.exposed_communication_seconds &&
      on.hardware_flops_per_iteration == off.hardware_flops_per_iteration &&
      on.compute_seconds >= off.compute_seconds)
    a.correct.insert('B');
  if (on.compute_seconds < off.compute_seconds) a.correct.insert('A');
  if (peak(on) < peak(off)) a.correct.insert('D');
  return a;
}

// Q7: automatic and manual placement.
Result<Answer> placement_facts(const std::string& dir) {
  Answer a;
  a.scenarios = {kAuto, kJit, kPmap, kSurprise, kHand};
  BRIGADE_ASSIGN_OR_RETURN(Scenario auto_s, load_scenario(dir + "/" + kAuto));
  SearchOptions so;
  so.top = 1;
  BRIGADE_ASSIGN_OR_RETURN(SearchResult found, run_search(auto_s, so));
  if (!found.plans.empty()) a.correct.insert('A');
  a.facts["search_choice"] = found.plans.empty() ? "-" : found.plans.front().label;
  BRIGADE_ASSIGN_OR_RETURN(Answer jit, jit_facts(dir));
  if (jit.correct.count('C')) a.correct.insert('B');
  a.facts["jit_device"] = jit.facts["jit_device"];
  BRIGADE_ASSIGN_OR_RETURN(Answer pmap, pmap_facts(dir));
  if (pmap.facts["w_local"] != pmap.facts["w_global"]) a.correct.insert('C');
  a.facts["w_local"] = pmap.facts["w_local"];
  // A hand plan that loses on paper: "manual is always faster" is false.
  BRIGADE_ASSIGN_OR_RETURN(Scenario surprise, load_scenario(dir + "/" + kSurprise));
  BRIGADE_ASSIGN_OR_RETURN(SearchResult searched, run_search(surprise, so));
  BRIGADE_ASSIGN_OR_RETURN(Scenario hand, load_scenario(dir + "/" + kHand));
  BRIGADE_ASSIGN_OR_RETURN(cost::PlanEstimate hand_e, cost::estimate_plan(hand));
  if (searched.plans.empty())
    return Status::error(std::string(kSurprise) + ": error: found no plan by search; expected one");
  const double paper_search = searched.plans.front().step_seconds;
  a.facts["paper_search"] = format_seconds(paper_search);
  a.facts["paper_hand"] = format_seconds(hand_e.step_seconds);
  if (hand_e.step_seconds < paper_search) a.correct.insert('D');
  return a;
}

// Q8: what lowers the price of synchronising.
Result<Answer> sync_cost_facts(const std::string& dir) {
  BRIGADE_ASSIGN_OR_RETURN(Explained knee, explain_file(dir + "/" + kKnee));
  const Scenario& s = knee.scenario;
  double m = 0;
  for (const auto& c : knee.json["devices"][0]["collectives"])
    if (c["purpose"] == "data") m += c["bytes"].get<double>();
  if (m <= 0 || s.topology.devices().size() < 9)
    return Status::error(std::string(kKnee) + ": error: found no gradients over two nodes; expected them");
  auto ring = [&](std::vector<int> group, double bytes) -> Result<double> {
    BRIGADE_ASSIGN_OR_RETURN(cost::CollectiveQuery q,
                             cost::collective_query_on(s.topology, s.profile, CollectiveKind::kAllReduce,
                                                       CollectiveAlgorithm::kRing, group, bytes));
    return cost::ring_allreduce_seconds(static_cast<int>(group.size()), bytes, q.intra);
  };
  const int near_peer = 1;
  int far_peer = -1;
  for (const Device& d : s.topology.devices())
    if (d.node != s.topology.devices()[0].node) { far_peer = d.id; break; }
  BRIGADE_ASSIGN_OR_RETURN(const double near, ring({0, near_peer}, m));
  BRIGADE_ASSIGN_OR_RETURN(const double far, ring({0, far_peer}, m));
  BRIGADE_ASSIGN_OR_RETURN(const double twice, ring({0, near_peer}, 2 * m));
  constexpr int kAccumulate = 4;
  Answer a;
  a.scenarios = {kKnee, kRowSharded};
  a.facts = {{"grad_bytes", format_bytes(m)},
             {"near", format_seconds(near)},
             {"far", format_seconds(far)},
             {"twice", format_seconds(twice)},
             {"accumulate", std::to_string(kAccumulate)},
             {"every_micro_batch", format_seconds(kAccumulate * near)},
             {"once_per_step", format_seconds(near)}};
  if (near < kAccumulate * near) a.correct.insert('A');
  if (twice < near) a.correct.insert('B');
  if (near < far) a.correct.insert('C');
  // Model parallelism communicates too: the row-sharded lesson's plan.
  BRIGADE_ASSIGN_OR_RETURN(Explained row, explain_file(dir + "/" + kRowSharded));
  const auto& colls = row.json["devices"][0]["collectives"];
  a.facts["mp_collective"] = colls.empty() ? "-" : colls[0]["kind"].get<std::string>();
  if (colls.empty()) a.correct.insert('D');
  return a;
}

// Q9: two plans of one model (data parallel, and ZeRO-1).
Result<Answer> metrics_facts(const std::string& dir) {
  BRIGADE_ASSIGN_OR_RETURN(Explained p1, explain_file(dir + "/" + kMemory));
  BRIGADE_ASSIGN_OR_RETURN(Explained p2, explain_file(dir + "/" + kZero));
  auto peak = [](const nlohmann::json& j) { return j["devices"][0]["memory"]["peak"].get<double>(); };
  Answer a;
  a.scenarios = {kMemory, kZero};
  a.facts = {{"step_dp", format_seconds(p1.estimate.step_seconds)},
             {"step_zero", format_seconds(p2.estimate.step_seconds)},
             {"peak_dp", format_bytes(peak(p1.json))},
             {"peak_zero", format_bytes(peak(p2.json))}};
  const TrainingSpec& t1 = p1.scenario.training;
  const TrainingSpec& t2 = p2.scenario.training;
  const bool same_math = t1.global_batch == t2.global_batch && t1.optimizer == t2.optimizer &&
                         t1.mixed_precision == t2.mixed_precision;
  if (p1.estimate.step_seconds != p2.estimate.step_seconds) a.correct.insert('B');
  if (peak(p1.json) != peak(p2.json)) a.correct.insert('C');
  if (!same_math) {
    a.correct.insert('A');
    a.correct.insert('D');
  }
  return a;
}

// Q10: W row-sharded over 4 chefs: the collective that adds the partial sums.
Result<Answer> row_shard_facts(const std::string& dir, const std::vector<QuizChoice>& choices) {
  BRIGADE_ASSIGN_OR_RETURN(Explained e, explain_file(dir + "/" + kRowSharded));
  Answer a;
  a.scenarios = {kRowSharded};
  BRIGADE_ASSIGN_OR_RETURN(nlohmann::json w, shape_entry(e.json, 0, "w"));
  const auto& colls = e.json["devices"][0]["collectives"];
  if (colls.empty())
    return Status::error(std::string(kRowSharded) + ": error: found no collective; expected the partial sums added");
  const std::string kind = colls[0]["kind"];
  a.facts = {{"w_global", shape_text(shape_of(w["global"]))},
             {"w_local", shape_text(shape_of(w["local"]))},
             {"combine", kind},
             {"combine_bytes", format_bytes(colls[0]["bytes"].get<double>())},
             {"chefs", std::to_string(e.json["devices"].size())}};
  BRIGADE_ASSIGN_OR_RETURN(char letter, choice_naming(choices, kind));
  a.correct.insert(letter);
  return a;
}

Result<Answer> compute(int number, const std::string& dir, const std::vector<QuizChoice>& choices) {
  switch (number) {
    case 1: return pmap_facts(dir);
    case 2: return jit_facts(dir);
    case 3: return alpha_facts(dir);
    case 4: {
      BRIGADE_ASSIGN_OR_RETURN(Answer a, pmap_facts(dir));
      a.correct.clear();
      for (const QuizChoice& c : choices)
        if (c.text.find(a.facts["x_local"]) != std::string::npos) a.correct.insert(c.letter);
      return a;
    }
    case 5: return grad_sync_facts(dir, choices);
    case 6: return overlap_facts(dir);
    case 7: return placement_facts(dir);
    case 8: return sync_cost_facts(dir);
    case 9: return metrics_facts(dir);
    case 10: return row_shard_facts(dir, choices);
    default: break;
  }
  return Status::error("found question " + std::to_string(number) + "; expected 1 to 10");
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

}  // namespace

Result<Quiz> load_quiz(const std::string& lessons_folder, Lang lang) {
  const std::string file =
      (fs::path(lessons_folder) / ("quiz." + std::string(lang_code(lang)) + ".md")).string();
  std::string markdown;
  BRIGADE_RETURN_IF_ERROR(yamlio::read_file_text(file, "the quiz's questions beside the lessons",
                                                 &markdown, std::size_t{1} << 20));
  BRIGADE_ASSIGN_OR_RETURN(LessonText text, parse_lesson_text(markdown, file));
  if (text.sections.size() != 10)
    return Status::error(file + ": error: found " + std::to_string(text.sections.size()) +
                         " questions; expected the seed's 10");
  Quiz quiz;
  quiz.title = text.title;
  quiz.intro = text.intro;
  for (size_t i = 0; i < text.sections.size(); ++i) {
    QuizQuestion q;
    q.number = static_cast<int>(i + 1);
    q.question = text.sections[i].heading;
    // Choices: lines "- A. text"; the rest, the explanation. A line "*...*"
    // right after the heading marks a question with several answers when
    // it holds "[multiple]".
    std::string rest;
    size_t start = 0;
    const std::string& body = text.sections[i].body;
    while (start <= body.size()) {
      const size_t nl = body.find('\n', start);
      const std::string line = body.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      if (line.size() > 5 && line.rfind("- ", 0) == 0 && line[2] >= 'A' && line[2] <= 'D' && line[3] == '.') {
        q.choices.push_back(QuizChoice{line[2], trim(line.substr(4)), false});
      } else if (line.find("[multiple]") != std::string::npos) {
        q.multiple = true;
      } else {
        rest += line + "\n";
      }
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    if (q.choices.size() != 4)
      return Status::error(file + ": error: question " + std::to_string(q.number) + ": found " +
                           std::to_string(q.choices.size()) +
                           " choices; expected four lines '- A. ...' to '- D. ...'");
    BRIGADE_ASSIGN_OR_RETURN(Answer a, compute(q.number, lessons_folder, q.choices));
    for (QuizChoice& c : q.choices) c.correct = a.correct.count(c.letter) > 0;
    for (const auto& [name, at] : answer_placeholders(rest))
      if (!a.facts.count(name))
        return Status::error(file + ": error: question " + std::to_string(q.number) + ": found {{" +
                             name + "}}; expected a fact the tool computes for it");
    q.facts = a.facts;
    q.scenarios = a.scenarios;
    q.explanation = join_wrapped_lines(fill_answers(trim(rest), a.facts), /*latin=*/true);
    quiz.questions.push_back(std::move(q));
  }
  return quiz;
}

}  // namespace brigade::planner
