// User-visible prose in the app's language, without Qt (issue 17: the app
// in English and Chinese). Every layer composes some prose that the app
// shows as it is: the planner's chef roles and collective reasons, the
// closed form's warnings and Amdahl note, core's run comparison. Each
// English source goes through tr_text() when the text is composed; the app
// installs a translator (gui/views/language.cpp: QCoreApplication::translate
// over gui/i18n/*.ts). Without one (the CLI, every library test) the English
// source comes back, with %n and "(s)" made English, so the CLI's text is
// exactly as before:
//   tr_text("SpanDetails", "%n rank(s)", nullptr, 1) == "1 rank"
// lupdate reads tr_text(...) as QCoreApplication::translate(context, source,
// disambiguation, n) (gui/CMakeLists.txt: -tr-function-alias
// translate+=tr_text), so every source must be a string literal in the call
// and its context a name for its concept ("Explain", "PlanWarnings"); a file
// that calls it is listed among lupdate's sources (tests/gui/translation_test
// checks both).
//
// Placeholders are Qt's: %1 to %9 filled by fill_args() (a translation may
// reorder them), %n the count of a plural source. Only prose for people goes
// through it: error messages stay English (the house rule), and so do the
// data's own names and what is written to files.
//
// Text composed once and kept (a plan's summary, roles and reasons) is in
// the language of the moment it was composed; translation_generation()
// tells a keeper when to compose it again (gui/model/plan_prose.hpp).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace brigade {

// (context, source, disambiguation or nullptr, n or -1) -> UTF-8 text; an
// empty result means "no translation" (the English fallback is used).
using Translator = std::string (*)(const char* context, const char* source,
                                   const char* disambiguation, int n);

// Installs `t` for every later tr_text() call, on any thread (nullptr:
// English). The app installs one once, before any view composes text.
void set_translator(Translator t);

// Says that the installed translator now answers in another language (the
// app's language switch, gui/views/language.cpp).
void translations_changed();

// A number that changes whenever the language of tr_text's answers may
// have: on set_translator with another translator and on
// translations_changed(). Text composed under one generation is worded in
// one language.
int translation_generation();

// `source` in the installed translator's language (English without one).
std::string tr_text(const char* context, const char* source, const char* disambiguation = nullptr,
                    int n = -1);

// A container's size as tr_text's n (a cast with angle brackets in the
// call would hide the call from lupdate's parser); INT_MAX at most.
int plural_count(std::size_t n);

// The English text of `source` without a translator: %n replaced by n and
// "(s)" dropped when n == 1, else "s" ("%n device(s)": "1 device", "2 devices").
std::string english_plural(std::string_view source, int n);

// `pattern` with %1..%9 replaced by args[0..8], in one pass (an argument
// containing "%2" stays as it is); a % not followed by a digit in range stays.
std::string fill_args(std::string_view pattern, std::initializer_list<std::string_view> args);

}  // namespace brigade
