// The app's Chinese for the prose the libraries compose (core/tr.hpp's
// tr_text: the plan's summary, the chefs' roles, the collectives' reasons),
// for `brigade explain --kitchen --lang zh` and the lessons it narrates: the
// same words the app shows. gui/i18n/brigade_zh_CN.ts is embedded at build
// time (cli/CMakeLists.txt) and read here without Qt; its entries are
// looked up by context, source and disambiguation, a %n entry's one
// Chinese form with %n replaced by the count.
#pragma once

#include <string>

#include "core/lesson.hpp"

namespace brigade::cli {

// Installs the translator of `lang` for every later tr_text() (kEn: none,
// the English sources).
void use_language(Lang lang);

// The embedded .ts's translation of (context, source, disambiguation), ""
// if it has none (tests).
std::string zh_text(const char* context, const char* source, const char* disambiguation);

}  // namespace brigade::cli
