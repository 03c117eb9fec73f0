// brigade: device placement laboratory, command line.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli/verbs.hpp"
#include "core/status.hpp"

namespace brigade::cli {
std::vector<Verb>& verb_registry() {
  static std::vector<Verb> verbs;
  return verbs;
}
namespace {

// The verb being parsed when CLI11 gave up (nullptr before one was named).
const CLI::App* parsed_verb(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) return sub;
  return nullptr;
}

// "collective, amdahl, cost, ..." in the registry's order.
std::string verb_list(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands({}))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// CLI11's messages in Brigade's one-line form, "found X; expected Y", naming
// the flag and, for a mistyped flag, the closest one the verb has.
std::string parse_error_line(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  const CLI::App* verb = parsed_verb(app);
  const std::string help =
      verb ? "'brigade " + verb->get_name() + " --help'" : std::string("'brigade --help'");
  static const std::string kRequired = " is required";
  if (dynamic_cast<const CLI::RequiredError*>(&e) && what.size() > kRequired.size() &&
      what.compare(what.size() - kRequired.size(), kRequired.size(), kRequired) == 0) {
    const std::string name = what.substr(0, what.size() - kRequired.size());
    if (name == "A subcommand")
      return "brigade: error: found no verb; expected one of " + verb_list(app) +
             " (see 'brigade --help')";
    if (name.rfind("--", 0) != 0)  // a positional argument such as SCENARIO
      return "brigade: error: found no " + name + "; expected the " + name + " argument (see " + help + ")";
    return "brigade: error: " + name + ": found nothing; expected a value (" + name +
           " is required; see " + help + ")";
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) && verb) {
    std::vector<std::string> extras = verb->remaining();
    if (extras.empty()) extras = app.remaining();
    std::string found;
    for (const std::string& x : extras) found += (found.empty() ? "'" : ", '") + x + "'";
    std::string line = "brigade: error: found unexpected argument" +
                       std::string(extras.size() > 1 ? "s " : " ") + found +
                       "; expected only the flags and arguments of " + help;
    const auto flag = std::find_if(extras.begin(), extras.end(),
                                   [](const std::string& x) { return x.rfind("--", 0) == 0; });
    if (flag != extras.end()) {
      std::vector<std::string> flags;
      for (const CLI::Option* opt : verb->get_options())
        for (const std::string& l : opt->get_lnames()) flags.push_back("--" + l);
      if (auto m = brigade::closest_match_in(flag->substr(0, flag->find('=')), flags))
        line += " (did you mean '" + *m + "'?)";
    }
    return line;
  }
  return "brigade: error: " + what;
}

}  // namespace
}  // namespace brigade::cli

int main(int argc, char** argv) {
  using namespace brigade::cli;
  CLI::App app{
      "Brigade: how long a training or inference step takes under a device placement,\n"
      "how much memory each device needs, where the time goes, and which placement is best."};
  app.name("brigade");
  app.set_version_flag("--version", std::string("brigade ") + BRIGADE_VERSION);
  app.require_subcommand(1);
  auto& verbs = verb_registry();
  std::sort(verbs.begin(), verbs.end(), [](const Verb& a, const Verb& b) { return a.order < b.order; });
  for (const Verb& v : verbs) v.setup(app);
  if (argc >= 2 && argv[1][0] != '-') {
    const std::string word = argv[1];
    std::vector<std::string> names;
    for (const Verb& v : verbs) names.push_back(v.name);
    if (std::find(names.begin(), names.end(), word) == names.end()) {
      std::string msg = "brigade: error: found verb '" + word + "'; expected one of ";
      for (size_t i = 0; i < names.size(); ++i) msg += (i ? ", " : "") + names[i];
      if (auto m = brigade::closest_match_in(word, names)) msg += " (did you mean '" + *m + "'?)";
      std::cerr << msg << "\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << parse_error_line(app, e) << "\n";
    return 2;
  } catch (const BadInput& e) {
    std::cerr << e.message << "\n";
    return 2;
  } catch (const RuntimeFailure& e) {
    std::cerr << e.message << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // The one exception libraries let through (docs/ARCHITECTURE.md, "Errors"):
    // a plan too large for this machine's memory to lower or simulate.
    std::cerr << "brigade: error: found too little host memory for this run (std::bad_alloc); "
                 "expected a smaller plan (try --granularity step) or a machine with more memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "brigade: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
