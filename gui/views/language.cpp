#include "gui/views/language.hpp"

#include <memory>

#include <QApplication>
#include <QCoreApplication>
#include <QEvent>
#include <QFont>
#include <QFontDatabase>
#include <QTranslator>
#include <QVariant>

#include "gui/model/model_tr.hpp"

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
    QT_TRANSLATE_NOOP("ViewTitle", "Lessons"),     QT_TRANSLATE_NOOP("ViewTitle", "Teach"),
    QT_TRANSLATE_NOOP("ViewTitle", "Compare"),     QT_TRANSLATE_NOOP("ViewTitle", "Kernels"),
};

// The fixed words of gui/model that the views show as they are (model_text):
// gui/model/memory_series.cpp's memory_category_label, gui/model/compare.cpp's
// section titles, core/run_compare.cpp's figures and
// gui/model/palette.cpp's span classes (the timeline's legend), and
// gui/model/loader.cpp's stages (the main window's progress bar).
[[maybe_unused]] constexpr const char* kModelTexts[] = {
    QT_TRANSLATE_NOOP("ModelText", "parameters"),
    QT_TRANSLATE_NOOP("ModelText", "gradients"),
    QT_TRANSLATE_NOOP("ModelText", "optimizer state"),
    QT_TRANSLATE_NOOP("ModelText", "activations"),
    QT_TRANSLATE_NOOP("ModelText", "communication buffers"),
    QT_TRANSLATE_NOOP("ModelText", "other"),
    QT_TRANSLATE_NOOP("ModelText", "per device"),
    QT_TRANSLATE_NOOP("ModelText", "peak memory per device"),
    QT_TRANSLATE_NOOP("ModelText", "per task kind (span time summed over devices)"),
    QT_TRANSLATE_NOOP("ModelText", "per task kind (the busiest device's time per step)"),
    QT_TRANSLATE_NOOP("ModelText", "busy"),
    QT_TRANSLATE_NOOP("ModelText", "communication"),
    QT_TRANSLATE_NOOP("ModelText", "exposed"),
    QT_TRANSLATE_NOOP("ModelText", "idle"),
    QT_TRANSLATE_NOOP("ModelText", "peak memory"),
    QT_TRANSLATE_NOOP("ModelText", "time"),
    QT_TRANSLATE_NOOP("ModelText", "forward"),
    QT_TRANSLATE_NOOP("ModelText", "backward"),
    QT_TRANSLATE_NOOP("ModelText", "recompute"),
    QT_TRANSLATE_NOOP("ModelText", "optimizer"),
    QT_TRANSLATE_NOOP("ModelText", "other compute"),
    QT_TRANSLATE_NOOP("ModelText", "transfer"),
    QT_TRANSLATE_NOOP("ModelText", "collective"),
    QT_TRANSLATE_NOOP("ModelText", "host issuing"),
    QT_TRANSLATE_NOOP("ModelText", "reading"),
    QT_TRANSLATE_NOOP("ModelText", "lowering"),
    QT_TRANSLATE_NOOP("ModelText", "simulating"),
    QT_TRANSLATE_NOOP("ModelText", "indexing"),
    // core/kernel_groups.cpp's groups and subtotals (the kernels view).
    QT_TRANSLATE_NOOP("ModelText", "GEMM, FP8"),
    QT_TRANSLATE_NOOP("ModelText", "GEMM, BF16/FP16"),
    QT_TRANSLATE_NOOP("ModelText", "GEMM, other widths"),
    QT_TRANSLATE_NOOP("ModelText", "attention"),
    QT_TRANSLATE_NOOP("ModelText", "norms"),
    QT_TRANSLATE_NOOP("ModelText", "activation functions"),
    QT_TRANSLATE_NOOP("ModelText", "FP8 casts and scaling"),
    QT_TRANSLATE_NOOP("ModelText", "loss"),
    QT_TRANSLATE_NOOP("ModelText", "embedding"),
    QT_TRANSLATE_NOOP("ModelText", "other streaming"),
    QT_TRANSLATE_NOOP("ModelText", "fused runs"),
    QT_TRANSLATE_NOOP("ModelText", "NCCL AllReduce"),
    QT_TRANSLATE_NOOP("ModelText", "NCCL AllGather"),
    QT_TRANSLATE_NOOP("ModelText", "NCCL ReduceScatter"),
    QT_TRANSLATE_NOOP("ModelText", "NCCL Broadcast/Reduce"),
    QT_TRANSLATE_NOOP("ModelText", "send/recv, AllToAll"),
    QT_TRANSLATE_NOOP("ModelText", "copies and fills"),
    QT_TRANSLATE_NOOP("ModelText", "GEMMs, all widths"),
    QT_TRANSLATE_NOOP("ModelText", "streaming, all"),
    QT_TRANSLATE_NOOP("ModelText", "compute, all"),
    QT_TRANSLATE_NOOP("ModelText", "communication and copies"),
};

// The property keep_tr() stores its texts in: {property: [context, source]}.
constexpr const char* kKeptTexts = "brigade_kept_tr";

// Sets the kept texts of the objects it watches again on LanguageChange.
class Retranslator : public QObject {
 public:
  static Retranslator* get() {
    static auto* r = new Retranslator(QCoreApplication::instance());
    return r;
  }
  using QObject::QObject;
  bool eventFilter(QObject* o, QEvent* e) override {
    if (e->type() == QEvent::LanguageChange) apply(o);
    return false;
  }
  static void apply(QObject* o) {
    const QVariantMap kept = o->property(kKeptTexts).toMap();
    for (auto it = kept.begin(); it != kept.end(); ++it) {
      const QStringList cs = it.value().toStringList();
      o->setProperty(
          it.key().toLatin1().constData(),
          QCoreApplication::translate(cs[0].toLatin1().constData(), cs[1].toUtf8().constData()));
    }
  }
};

// gui/model's translator (gui/model/model_tr.hpp): its sources through the
// installed QTranslator, %n filled by Qt (QCoreApplication::translate is
// safe on the loader's and the what-if panel's worker threads).
std::string translate_for_model(const char* context, const char* source, const char* disambiguation,
                                int n) {
  return QCoreApplication::translate(context, source, disambiguation, n).toStdString();
}

}  // namespace

QString keep_tr(QObject* target, const char* property, const QObject* context, const char* source) {
  QVariantMap kept = target->property(kKeptTexts).toMap();
  if (kept.isEmpty()) target->installEventFilter(Retranslator::get());
  kept.insert(QString::fromLatin1(property),
              QStringList{QString::fromLatin1(context->metaObject()->className()),
                          QString::fromUtf8(source)});
  target->setProperty(kKeptTexts, kept);
  const QString text = QCoreApplication::translate(context->metaObject()->className(), source);
  target->setProperty(property, text);
  return text;
}

Lang ui_language() { return g_lang; }

bool set_ui_language(Lang lang) {
  set_translator(&translate_for_model);
  if (lang == g_lang && g_translator) return true;
  // English loads its translator too: the source texts are English, but
  // a %n string needs brigade_en.ts's plural forms ("1 device", "2 devices").
  auto next = std::make_unique<QTranslator>();
  if (!next->load(lang == Lang::kZh ? QStringLiteral(":/i18n/brigade_zh_CN.qm")
                                    : QStringLiteral(":/i18n/brigade_en.qm")))
    return false;
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
  // Text the model keeps (a plan's summary, roles and reasons:
  // gui/model/plan_prose.hpp) is composed again in the new language.
  translations_changed();
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

QString model_text(const std::string& english) {
  return QCoreApplication::translate("ModelText", english.c_str());
}

QString view_title(const QString& english) {
  return QCoreApplication::translate("ViewTitle", english.toUtf8().constData());
}

}  // namespace brigade::gui
