// gui/model's texts in the app's language, without Qt (issue 17: Chinese
// everywhere in the app). gui/model composes sentences and labels (the
// document's notes, a span's details, the calibration plots' titles, ...)
// that the app shows as they are; each English source goes through
// model_tr() when the text is composed, and the app installs a translator
// (gui/views/language.cpp: QCoreApplication::translate over
// gui/i18n/*.ts). Without one (the model's tests, any Qt-free user) the
// English source comes back, with %n and "(s)" made English:
//   model_tr("SpanDetails", "%n rank(s)", nullptr, 1) == "1 rank"
// lupdate reads model_tr(...) as QCoreApplication::translate(context,
// source, disambiguation, n) (gui/CMakeLists.txt: -tr-function-alias
// translate+=model_tr), so every source must be a string literal in the
// call and its context one of the model's (the file's concept, e.g.
// "Loader", "SpanDetails").
//
// Placeholders are Qt's: %1 to %9 filled by fill_args() (a translation may
// reorder them), %n the count of a plural source. A text composed once and
// kept (a LaneLayout's labels, a Document's facts) is composed again by its
// view on QEvent::LanguageChange.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace brigade::gui {

// (context, source, disambiguation or nullptr, n or -1) -> UTF-8 text; an
// empty result means "no translation" (the English fallback is used).
using ModelTranslator = std::string (*)(const char* context, const char* source,
                                        const char* disambiguation, int n);

// Installs `t` for every later model_tr() call, on any thread (nullptr:
// English). The app installs one once, before any view composes text.
void set_model_translator(ModelTranslator t);

// `source` in the installed translator's language.
std::string model_tr(const char* context, const char* source, const char* disambiguation = nullptr,
                     int n = -1);

// A fixed word of the model computed at run time (a span class's label
// "forward", a memory category, a phase) in the current language: the
// "ModelText" context, whose sources gui/views/language.cpp lists for
// lupdate; a word not listed comes back as it is ("AllReduce").
std::string model_word(std::string_view english);

// A container's size as model_tr's n (a cast with angle brackets in the
// call would hide the call from lupdate's parser); INT_MAX at most.
int plural_count(std::size_t n);

// The English text of `source` without a translator: %n replaced by n and
// "(s)" dropped when n == 1, else "s" ("%n device(s)": "1 device", "2 devices").
std::string english_plural(std::string_view source, int n);

// `pattern` with %1..%9 replaced by args[0..8], in one pass (an argument
// containing "%2" stays as it is); a % not followed by a digit in range stays.
std::string fill_args(std::string_view pattern, std::initializer_list<std::string_view> args);

}  // namespace brigade::gui
