// gui/model's texts in the app's language: core/tr.hpp's hook under the
// name gui/model has always used (model_tr is tr_text; lupdate reads both as
// QCoreApplication::translate, gui/CMakeLists.txt). Each source's context is
// the model file's concept ("Loader", "SpanDetails"). A text composed once
// and kept (a LaneLayout's labels, a Document's facts) is composed again by
// its view on QEvent::LanguageChange.
#pragma once

#include <string>
#include <string_view>

#include "core/tr.hpp"

namespace brigade::gui {

using brigade::english_plural;
using brigade::fill_args;
using brigade::plural_count;

// `source` in the installed translator's language (core/tr.hpp's tr_text).
inline std::string model_tr(const char* context, const char* source,
                            const char* disambiguation = nullptr, int n = -1) {
  return tr_text(context, source, disambiguation, n);
}

// A fixed word of the model computed at run time (a span class's label
// "forward", a memory category, a phase) in the current language: the
// "ModelText" context, whose sources gui/views/language.cpp lists for
// lupdate; a word not listed comes back as it is ("AllReduce").
std::string model_word(std::string_view english);

}  // namespace brigade::gui
