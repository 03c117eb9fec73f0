// brigade: device placement laboratory, command line.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cli/verbs.hpp"
#include "core/status.hpp"
#include "core/text.hpp"

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
  const std::string flag_part = what.substr(0, what.find(':'));
  const CLI::Option* opt = nullptr;
  if (verb && flag_part.rfind("--", 0) == 0) opt = verb->get_option_no_throw(flag_part);
  const auto starts = [&](const std::string& p) { return what.rfind(p, 0) == 0; };
  const auto ends = [&](const std::string& p) {
    return what.size() >= p.size() && what.compare(what.size() - p.size(), p.size(), p) == 0;
  };
  if (dynamic_cast<const CLI::ConversionError*>(&e)) {
    // "Could not convert: --repeat = abc"
    static const std::string kConvert = "Could not convert: ";
    if (starts(kConvert)) {
      const std::string rest = what.substr(kConvert.size());
      const size_t eq = rest.find(" = ");
      const std::string name = rest.substr(0, eq);
      const std::string value = eq == std::string::npos ? "" : rest.substr(eq + 3);
      const CLI::Option* o = verb ? verb->get_option_no_throw(name) : nullptr;
      const std::string type = o ? o->get_type_name() : "";
      std::string expected = "a value of the type " + help + " names";
      if (type == "INT") expected = "a whole number";
      if (type == "UINT") expected = "a whole number >= 0";
      if (type == "FLOAT" || type == "NUMBER") expected = "a number";
      return "brigade: error: " + name + ": found '" + value + "'; expected " + expected;
    }
    if (ends(": too many inputs for a flag") || ends(": Should be true/false or a number"))
      return "brigade: error: " + flag_part + ": found a value; expected none (" + flag_part +
             " is a flag: give it alone)";
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && flag_part.rfind("-", 0) == 0) {
    // "--trace: At Most 1 required but received 2", "--granularity: 1 required TEXT missing"
    const size_t received = what.rfind("received ");
    if (what.find(": At Most ") != std::string::npos && received != std::string::npos)
      return "brigade: error: " + flag_part + ": found it " + what.substr(received + 9) +
             " times; expected it once";
    if (ends(" missing"))
      return "brigade: error: " + flag_part + ": found nothing; expected a value after " +
             flag_part + " (see " + help + ")";
    return "brigade: error: " + flag_part + ": found the wrong number of values; expected " +
           (opt && opt->get_expected_max() > 1 ? "one or more" : std::string("one")) +
           " (see " + help + ")";
  }
  if (dynamic_cast<const CLI::RequiresError*>(&e)) {
    const size_t r = what.find(" requires ");
    return "brigade: error: " + what.substr(0, r) + ": found it without " +
           what.substr(r + 10) + "; expected both (see " + help + ")";
  }
  if (dynamic_cast<const CLI::ExcludesError*>(&e)) {
    const size_t x = what.find(" excludes ");
    return "brigade: error: " + what.substr(0, x) + ": found it with " + what.substr(x + 10) +
           "; expected one of them (see " + help + ")";
  }
  // Validators of Brigade's own already say "found X; expected Y".
  if (dynamic_cast<const CLI::ValidationError*>(&e) && what.find("found ") != std::string::npos)
    return "brigade: error: " + what;
  return "brigade: error: found a command line that cannot be read (" + what + "); expected " +
         "the flags and arguments of " + help;
}

// What to do when the host's memory ran out, in the flags this verb has.
std::string out_of_memory_line(const CLI::App& app) {
  const CLI::App* verb = parsed_verb(app);
  const std::string name = verb ? verb->get_name() : std::string("brigade");
  std::string advice = "a smaller plan (fewer devices, layers, micro-batches or ops)";
  if (verb && verb->get_option_no_throw("--granularity"))
    advice = "--granularity step, or a smaller plan (fewer devices, layers, micro-batches or ops)";
  else if (name == "sweep")
    advice = "fewer or smaller points (--devices, --set), or --judge cost";
  return "brigade: error: " + name +
         ": found too little host memory for this run (std::bad_alloc); expected " + advice +
         ", or a machine with more memory";
}

}  // namespace
}  // namespace brigade::cli

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // Keep freed heap memory for the next allocation instead of trimming it
  // back to the system: the simulator's shortcut plan runs thousands of
  // small isolated engines one after another (arrays of a few MB each for
  // a 16,384-GPU topology), and on the development VM every page given
  // back and touched again costs a fault and a zeroing (docs/PERFORMANCE.md,
  // "Fresh pages and routes"). Blocks of 4 MiB or more that the planner and
  // the simulator use are mapped apart (core/program.hpp).
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
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
      std::cerr << brigade::one_line(msg) << "\n";
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
    std::cerr << brigade::one_line(parse_error_line(app, e)) << "\n";
    return 2;
  } catch (const BadInput& e) {
    // Every error line is one line of UTF-8, whatever bytes the user gave
    // (an argument with a line break, a Latin-1 name): docs/RELIABILITY.md.
    std::cerr << brigade::one_line(e.message) << "\n";
    return 2;
  } catch (const RuntimeFailure& e) {
    std::cerr << brigade::one_line(e.message) << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // The one exception libraries let through (docs/ARCHITECTURE.md, "Errors"):
    // a plan too large for this machine's memory to lower or simulate.
    std::cerr << out_of_memory_line(app) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << brigade::one_line(std::string("brigade: internal error: ") + e.what()) << "\n";
    return 1;
  }
  return 0;
}
