// brigade: device placement laboratory, command line.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/verbs.hpp"
#include "core/status.hpp"

namespace brigade::cli {
std::vector<Verb>& verb_registry() {
  static std::vector<Verb> verbs;
  return verbs;
}
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
    // CLI11's own messages name the flag; prefix them like ours.
    std::cerr << "brigade: error: " << e.what() << "\n";
    return 2;
  } catch (const BadInput& e) {
    std::cerr << e.message << "\n";
    return 2;
  } catch (const RuntimeFailure& e) {
    std::cerr << e.message << "\n";
    return 1;
  }
  return 0;
}
