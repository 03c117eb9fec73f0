// The command line's verbs. Each verb lives in its own cli/cmd_*.cpp and
// registers itself; main.cpp only builds the app and maps errors to exit
// codes (0 ok, 1 runtime failure, 2 bad input).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace brigade::cli {

// Thrown by verbs for bad input (file, flag): `message` is printed as is on
// stderr and the exit code is 2. Caught in main.cpp only (never crosses a
// library boundary: the CLI is an executable).
struct BadInput {
  std::string message;
};
// Thrown for failures that are not the input's fault (exit code 1).
struct RuntimeFailure {
  std::string message;
};

struct Verb {
  std::string name;
  int order;  // position in --help
  // Adds the subcommand and sets its callback.
  std::function<void(CLI::App& app)> setup;
};

std::vector<Verb>& verb_registry();

struct RegisterVerb {
  RegisterVerb(std::string name, int order, std::function<void(CLI::App&)> setup) {
    verb_registry().push_back(Verb{std::move(name), order, std::move(setup)});
  }
};

}  // namespace brigade::cli
