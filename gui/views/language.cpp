#include "gui/views/language.hpp"

#include <memory>

#include <QApplication>
#include <QCoreApplication>
#include <QFont>
#include <QFontDatabase>
#include <QTranslator>

namespace brigade::gui {
namespace {

Lang g_lang = Lang::kEn;
std::unique_ptr<QTranslator> g_translator;
QString g_default_family;  // the application font's family before zh

// The registered views' titles, so lupdate puts them in the .ts files
// (a view a later branch adds shows its English title until translated).
[[maybe_unused]] constexpr const char* kViewTitles[] = {
    QT_TRANSLATE_NOOP("ViewTitle", "Timeline"),    QT_TRANSLATE_NOOP("ViewTitle", "Topology"),
    QT_TRANSLATE_NOOP("ViewTitle", "Memory"),      QT_TRANSLATE_NOOP("ViewTitle", "Scaling"),
    QT_TRANSLATE_NOOP("ViewTitle", "Calibration"), QT_TRANSLATE_NOOP("ViewTitle", "What-if"),
    QT_TRANSLATE_NOOP("ViewTitle", "Lessons"),
};

}  // namespace

Lang ui_language() { return g_lang; }

bool set_ui_language(Lang lang) {
  if (lang == g_lang && (lang == Lang::kEn || g_translator)) return true;
  std::unique_ptr<QTranslator> next;
  if (lang == Lang::kZh) {
    next = std::make_unique<QTranslator>();
    if (!next->load(QStringLiteral(":/i18n/brigade_zh_CN.qm"))) return false;
  }
  g_lang = lang;
  if (qobject_cast<QApplication*>(QCoreApplication::instance())) {
    if (g_default_family.isEmpty()) g_default_family = QApplication::font().family();
    QFont f = QApplication::font();
    const QString cjk = cjk_font_family();
    if (lang == Lang::kZh && !cjk.isEmpty())
      f.setFamilies({g_default_family, cjk});
    else
      f.setFamilies({g_default_family});
    QApplication::setFont(f);
  }
  // Installing or removing a translator posts LanguageChange to every
  // top-level widget, which passes it to its children.
  if (g_translator) QCoreApplication::removeTranslator(g_translator.get());
  g_translator = std::move(next);
  if (g_translator) QCoreApplication::installTranslator(g_translator.get());
  return true;
}

QString cjk_font_family() {
  // The one Debian package scripts/install-deps installs first, then any
  // other family that says it writes Simplified Chinese.
  const QStringList families = QFontDatabase::families(QFontDatabase::SimplifiedChinese);
  for (const QString& f : families)
    if (f.startsWith(QLatin1String("WenQuanYi Micro Hei"))) return f;
  return families.isEmpty() ? QString() : families.front();
}

QString view_title(const QString& english) {
  return QCoreApplication::translate("ViewTitle", english.toUtf8().constData());
}

}  // namespace brigade::gui
