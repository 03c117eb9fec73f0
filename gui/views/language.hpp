// The app's language (English or Chinese, the seed texts' language),
// switchable at runtime: set_ui_language() installs the translator built
// from gui/i18n/brigade_zh_CN.ts (embedded at :/i18n/), and Qt sends every
// widget a LanguageChange event, on which each retranslates its strings.
// The lessons' texts are data files (scenarios/lessons/*.zh.md), read in
// ui_language() by the Lessons view.
#pragma once

#include <string>

#include <QString>

class QObject;

#include "core/lesson.hpp"

namespace brigade::gui {

Lang ui_language();
// Installs the translator of `lang` (zh: the Chinese texts; en: only the
// English plural forms of %n strings); false if the embedded .qm cannot be
// loaded (the language then stays as it was). Installs gui/model's
// translator too (gui/model/model_tr.hpp), so that the texts the model
// composes come out in the language.
bool set_ui_language(Lang lang);

// The installed family the app draws Chinese with ("WenQuanYi Micro Hei",
// fonts-wqy-microhei); "" when no font of the Simplified Chinese writing
// system is installed. In zh the application font falls back to it, so
// that no glyph is an empty box, on screen or offscreen.
QString cjk_font_family();

// Sets `target`'s `property` ("text", "toolTip", "placeholderText",
// "title") to `source` translated now, and again whenever `target`
// receives a LanguageChange: for the labels and buttons a view builds once.
// `context` names the translation context by its class (lupdate gives
// QT_TR_NOOP in a member function of a Q_OBJECT class that class's name):
//   keep_tr(button, "text", this, QT_TR_NOOP("Zoom in"));
// Returns the translated text.
QString keep_tr(QObject* target, const char* property, const QObject* context, const char* source);

// A fixed word gui/model returns in English, in the current language, for
// the few a view shows as they are (sentences and labels the model composes
// go through gui/model/model_tr.hpp's model_tr instead): the
// memory categories, compare's section titles and figures (the "ModelText"
// context, listed in language.cpp); any other text stays as it is.
QString model_text(const std::string& english);

// A dock's title in the current language: the registry's English title
// (gui/views/view_list.cpp) through the "ViewTitle" context.
QString view_title(const QString& english);

}  // namespace brigade::gui
