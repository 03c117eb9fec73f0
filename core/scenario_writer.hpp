// Writing a scenario back as YAML after its plan was edited (the app's
// what-if panel, "Save as scenario..."). The writer does not re-serialise a
// whole Scenario: it takes the file the scenario came from and overwrites
// only the keys whose values the edit changed (strategy, training's
// micro_batch and recompute, simulation.speed and host_op_time, and the
// profile reference), so that the topology, the model, placements and
// shardings stay exactly as their author wrote them (comments are not kept: yaml-cpp drops them).
// The result reads back (load_scenario) as the edited scenario for every
// key it writes; tests/core/scenario_writer_test.cpp holds it to that.
#pragma once

#include <optional>
#include <string>

#include "core/scenario.hpp"
#include "core/status.hpp"

namespace YAML {
class Node;
}

namespace brigade {

struct ScenarioWriteOptions {
  // When set, the `profile:` key is written with this text (a path, relative
  // to the written file or absolute); when not, it is left as it was.
  std::optional<std::string> profile;
  // When set, the `name:` key.
  std::optional<std::string> name;
  // The folder the text will be written in: model.huggingface's config,
  // written relative to the original's folder, is rewritten relative to
  // this one; when empty, as an absolute path (a relative path would not
  // resolve from another folder). save_edited_scenario sets it.
  std::string folder;
};

// A path as written in the scenario file `scenario_file` (relative to that
// file's folder, or absolute) as it must be written in a file in `folder`:
// relative to `folder` when given, else absolute; an absolute path stays.
std::string rebase_path(const std::string& written, const std::string& scenario_file,
                        const std::string& folder = "");
// The same for model.huggingface's config in a scenario's YAML tree (either
// form: {config: PATH, ...} or PATH), read from `scenario_file`.
void rebase_huggingface(YAML::Node& root, const std::string& scenario_file,
                        const std::string& folder = "");

// The YAML text of `edited`: `original_text` (the scenario file `edited`
// was read from, YAML or JSON; `filename` names it in messages) with the
// keys that differ between its own reading and `edited` replaced. Errors:
// the original's reading error (it must read), kBadInput.
Result<std::string> scenario_yaml_with_edits(const std::string& original_text,
                                             const std::string& filename, const Scenario& edited,
                                             const ScenarioWriteOptions& options = {});

// The same written to `path` through write_file_atomically (core/file_io.hpp),
// reading the original from `edited.path`.
Status save_edited_scenario(const Scenario& edited, const std::string& path,
                            const ScenarioWriteOptions& options = {});

}  // namespace brigade
