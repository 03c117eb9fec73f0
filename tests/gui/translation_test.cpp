// The app in Chinese (issue 17, teaching mode): the zh_CN translation
// covers every source string of its .ts (no unfinished entry), the embedded
// translator switches the main window at runtime, and the CJK font present
// offscreen has a glyph for every character of every Chinese string the app
// shows: the .ts translations, the lessons' *.zh.md and the quiz (an
// empty-box glyph would pass a non-blank screenshot check).
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFont>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QMenuBar>
#include <QRawFont>
#include <QSettings>
#include <QXmlStreamReader>

#include "gui/app/main_window.hpp"
#include "gui/views/language.hpp"

namespace brigade::gui {
namespace {
namespace fs = std::filesystem;

const std::string kSrc = BRIGADE_SOURCE_DIR;

struct TsMessage {
  QString context, source, translation, type;
};

std::vector<TsMessage> read_ts(const QString& path) {
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path.toStdString();
  QXmlStreamReader xml(&f);
  std::vector<TsMessage> out;
  QString context;
  while (!xml.atEnd()) {
    xml.readNext();
    if (!xml.isStartElement()) continue;
    if (xml.name() == QLatin1String("name")) context = xml.readElementText();
    if (xml.name() == QLatin1String("message")) out.push_back({context, {}, {}, {}});
    if (xml.name() == QLatin1String("source") && !out.empty()) out.back().source = xml.readElementText();
    if (xml.name() == QLatin1String("translation") && !out.empty()) {
      out.back().type = xml.attributes().value("type").toString();
      out.back().translation = xml.readElementText();
    }
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  return out;
}

const QString kZhTs = QString::fromStdString(kSrc + "/gui/i18n/brigade_zh_CN.ts");

// Every source string has a finished Chinese translation that keeps its
// %1 %2 placeholders and its & shortcut.
TEST(Translation, ZhCoversEverySourceString) {
  const auto messages = read_ts(kZhTs);
  ASSERT_GE(messages.size(), 60u);
  for (const TsMessage& m : messages) {
    SCOPED_TRACE(m.context.toStdString() + ": " + m.source.toStdString());
    EXPECT_TRUE(m.type.isEmpty()) << "type=\"" << m.type.toStdString() << "\"";
    EXPECT_FALSE(m.translation.isEmpty());
    for (const char* arg : {"%1", "%2"})
      EXPECT_EQ(m.source.contains(arg), m.translation.contains(arg)) << arg;
    EXPECT_EQ(m.source.contains('&') && !m.source.contains("&&") && !m.source.contains(" & "),
              m.translation.contains('&'));
  }
}

// View > Language switches the running window: menus and dock titles in
// Chinese, then back in English.
TEST(Translation, LanguageMenuSwitchesAtRuntime) {
  MainWindow w({}, /*remember=*/false);
  w.show();
  auto titles = [&] {
    QStringList t;
    for (QAction* a : w.menuBar()->actions()) t << a->text();
    return t;
  };
  ASSERT_TRUE(titles().contains("&File"));
  QAction* zh = w.findChild<QAction*>("language_zh");
  ASSERT_NE(zh, nullptr);
  zh->trigger();
  QApplication::processEvents();
  EXPECT_EQ(ui_language(), Lang::kZh);
  EXPECT_TRUE(titles().contains(QString::fromUtf8("文件(&F)"))) << titles().join(' ').toStdString();
  auto* dock = w.findChild<QDockWidget*>("dock_timeline");
  ASSERT_NE(dock, nullptr);
  EXPECT_EQ(dock->windowTitle(), QString::fromUtf8("时间线"));
  QAction* en = w.findChild<QAction*>("language_en");
  ASSERT_NE(en, nullptr);
  en->trigger();
  QApplication::processEvents();
  EXPECT_EQ(ui_language(), Lang::kEn);
  EXPECT_TRUE(titles().contains("&File"));
  EXPECT_EQ(w.findChild<QDockWidget*>("dock_timeline")->windowTitle(), "Timeline");
}

// The choice is remembered for the next start (brigade-gui reads it).
TEST(Translation, LanguageIsRemembered) {
  MainWindow w({}, /*remember=*/true);
  w.findChild<QAction*>("language_zh")->trigger();
  QApplication::processEvents();
  EXPECT_EQ(QSettings().value("language").toString(), "zh");
  w.findChild<QAction*>("language_en")->trigger();
  QApplication::processEvents();
  EXPECT_EQ(QSettings().value("language").toString(), "en");
}

// Every character of `text` (not whitespace) that `font` has no glyph for.
QString missing_glyphs(const QRawFont& raw, const QFontMetrics& fm, const QString& text) {
  QString missing;
  for (const uint c : text.toUcs4()) {
    if (QChar::isSpace(c) || c < 0x20) continue;
    if (!raw.supportsCharacter(c) || !fm.inFontUcs4(c)) {
      const QString s = QString::fromUcs4(reinterpret_cast<const char32_t*>(&c), 1);
      if (!missing.contains(s)) missing += s;
    }
  }
  return missing;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The CJK font (fonts-wqy-microhei, scripts/install-deps) is found offscreen
// and draws every character of every Chinese string of the app.
TEST(Translation, CjkFontCoversEveryChineseString) {
  const QString family = cjk_font_family();
  ASSERT_FALSE(family.isEmpty()) << "no Simplified Chinese font installed (fonts-wqy-microhei)";
  QFont font(family);
  font.setPixelSize(16);
  const QRawFont raw = QRawFont::fromFont(font, QFontDatabase::SimplifiedChinese);
  ASSERT_TRUE(raw.isValid());
  EXPECT_EQ(raw.familyName(), family) << "the font drawn is not the one asked for";
  const QFontMetrics fm(font);
  // The check can fail: a character no font has.
  EXPECT_FALSE(missing_glyphs(raw, fm, QString(QChar(0xE000))).isEmpty());
  for (const TsMessage& m : read_ts(kZhTs))
    EXPECT_EQ(missing_glyphs(raw, fm, m.translation).toStdString(), "") << m.translation.toStdString();
  int files = 0;
  for (const auto& e : fs::directory_iterator(kSrc + "/scenarios/lessons")) {
    const std::string name = e.path().filename().string();
    if (name.size() < 6 || name.substr(name.size() - 6) != ".zh.md") continue;
    ++files;
    EXPECT_EQ(missing_glyphs(raw, fm, QString::fromStdString(read_text(e.path()))).toStdString(), "")
        << name;
  }
  EXPECT_GE(files, 14);  // 13 lessons and the quiz
}

}  // namespace
}  // namespace brigade::gui
