// The app in Chinese (issue 17, teaching mode): the zh_CN translation
// covers every source string of its .ts (no unfinished entry), the embedded
// translator switches the main window at runtime, and the CJK font present
// offscreen has a glyph for every character of every Chinese string the app
// shows: the .ts translations, the lessons' *.zh.md and the quiz, and the
// planner's prose of every bundled scenario composed in zh (an empty-box
// glyph would pass a non-blank screenshot check), in which no English word
// is left.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFont>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QMenuBar>
#include <QPushButton>
#include <QRawFont>
#include <QRegularExpression>
#include <QSettings>
#include <QTableWidget>
#include <QToolButton>
#include <QXmlStreamReader>

#include "core/scenario.hpp"
#include "gui/app/main_window.hpp"
#include "gui/model/model_tr.hpp"
#include "gui/views/calibration_view.hpp"
#include "gui/views/compare_view.hpp"
#include "gui/views/language.hpp"
#include "gui/views/memory_view.hpp"
#include "gui/views/scaling_view.hpp"
#include "gui/views/timeline_view.hpp"
#include "gui/views/topology_view.hpp"
#include "gui/views/whatif_view.hpp"
#include "planner/lower.hpp"

namespace brigade::gui {
namespace {
namespace fs = std::filesystem;

const std::string kSrc = BRIGADE_SOURCE_DIR;

struct TsMessage {
  QString context, source, translation, type;
  bool numerus = false;
  QStringList forms;  // a %n message's plural forms (translation: them joined)
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
    if (xml.name() == QLatin1String("message")) {
      out.push_back({context, {}, {}, {}});
      out.back().numerus = xml.attributes().value("numerus") == QLatin1String("yes");
    }
    if (xml.name() == QLatin1String("source") && !out.empty()) out.back().source = xml.readElementText();
    if (xml.name() == QLatin1String("translation") && !out.empty()) {
      TsMessage& m = out.back();
      m.type = xml.attributes().value("type").toString();
      if (!m.numerus) {
        m.translation = xml.readElementText();
        continue;
      }
      while (!xml.atEnd() && !(xml.isEndElement() && xml.name() == QLatin1String("translation"))) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("numerusform"))
          m.forms << xml.readElementText();
      }
      m.translation = m.forms.join(' ');
    }
  }
  EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
  return out;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const QString kZhTs = QString::fromStdString(kSrc + "/gui/i18n/brigade_zh_CN.ts");
const QString kEnTs = QString::fromStdString(kSrc + "/gui/i18n/brigade_en.ts");

// The markup of a string: its tags, in order (<b>, </b>, <br>, ...).
QStringList tags(const QString& s) {
  QStringList out;
  static const QRegularExpression tag("<[^<>]+>");
  for (auto it = tag.globalMatch(s); it.hasNext();) out << it.next().captured();
  return out;
}

// Every source string has a finished Chinese translation that keeps its
// placeholders (%1 to %9, %n), its markup and its & shortcut.
TEST(Translation, ZhCoversEverySourceString) {
  const auto messages = read_ts(kZhTs);
  ASSERT_GE(messages.size(), 450u);
  for (const TsMessage& m : messages) {
    SCOPED_TRACE(m.context.toStdString() + ": " + m.source.toStdString());
    EXPECT_TRUE(m.type.isEmpty()) << "type=\"" << m.type.toStdString() << "\"";
    EXPECT_FALSE(m.translation.isEmpty());
    if (m.numerus) {
      EXPECT_EQ(m.forms.size(), 1) << "Chinese has one plural form";
    }
    for (const char* arg : {"%1", "%2", "%3", "%4", "%5", "%6", "%7", "%8", "%9", "%n"})
      EXPECT_EQ(m.source.contains(arg), m.translation.contains(arg)) << arg;
    EXPECT_EQ(tags(m.source), tags(m.translation));
    EXPECT_EQ(m.source.contains('&') && !m.source.contains("&&") && !m.source.contains(" & "),
              m.translation.contains('&'));
  }
}

// The English file is finished too: its translations are empty (the source
// is the English text), but a %n string has its singular and plural forms
// written out ("%n device(s)" would show as such).
TEST(Translation, EnIsFinishedWithPluralForms) {
  const auto messages = read_ts(kEnTs);
  EXPECT_EQ(messages.size(), read_ts(kZhTs).size());
  int plurals = 0;
  for (const TsMessage& m : messages) {
    SCOPED_TRACE(m.context.toStdString() + ": " + m.source.toStdString());
    EXPECT_TRUE(m.type.isEmpty()) << "type=\"" << m.type.toStdString() << "\"";
    if (!m.numerus) continue;
    ++plurals;
    ASSERT_EQ(m.forms.size(), 2);
    EXPECT_TRUE(m.forms[0].contains("%n") && m.forms[1].contains("%n"));
    EXPECT_FALSE(m.forms[0].contains("(s)") || m.forms[1].contains("(s)"));
  }
  EXPECT_GE(plurals, 5);
}

// Every tr("...") of the app's sources is in the .ts files: a file whose
// strings lupdate does not read (gui/CMakeLists.txt, _i18n_srcs) would show
// them in English whatever the language. The check can fail: a literal that
// is no tr() source is not found.
TEST(Translation, EveryTrStringOfTheSourcesIsInTheTsFiles) {
  std::set<QString> sources;
  for (const TsMessage& m : read_ts(kZhTs)) sources.insert(m.source);
  EXPECT_EQ(sources.count("no such string, not a tr() source"), 0u);
  static const QRegularExpression call(
      "(?:\\btr|QT_TR_NOOP|QT_TRANSLATE_NOOP\\(\"[A-Za-z:]+\",)\\s*\\(?\"([^\"\\\\]*)\"\\s*[,)]");
  int files = 0, found = 0;
  for (const char* dir : {"/gui/views", "/gui/app"})
    for (const auto& e : fs::directory_iterator(kSrc + dir)) {
      if (e.path().extension() != ".cpp" || e.path().filename() == "main.cpp") continue;
      ++files;
      const QString text = QString::fromStdString(read_text(e.path()));
      for (auto it = call.globalMatch(text); it.hasNext();) {
        const QString s = it.next().captured(1);
        if (s.isEmpty()) continue;
        ++found;
        EXPECT_EQ(sources.count(s), 1u) << e.path().filename().string() << ": " << s.toStdString();
      }
    }
  EXPECT_GE(files, 15);
  EXPECT_GE(found, 300);
}

// The same for gui/model's model_tr("Context", "...") (gui/model/model_tr.hpp)
// and the other layers' tr_text (core/tr.hpp): a file that calls it must be
// among lupdate's sources (gui/CMakeLists.txt), else its texts stay English
// in zh. Each source is found in its own context.
TEST(Translation, EveryModelTrStringOfTheModelIsInTheTsFiles) {
  std::set<std::pair<QString, QString>> sources;
  for (const TsMessage& m : read_ts(kZhTs)) sources.insert({m.context, m.source});
  // A source of several literals ("a " "b") is one string to lupdate.
  static const QRegularExpression call(
      "\\b(?:model_tr|tr_text)\\(\\s*\"([A-Za-z]+)\",\\s*((?:\"[^\"\\\\]*\"\\s*)+)[,)]");
  static const QRegularExpression piece("\"([^\"\\\\]*)\"");
  std::map<std::string, int> files;  // folder -> files with a call
  // lupdate's list: gui/model's files by name (foreach(_m ...)), the other
  // layers' as folder/name (foreach(_f ...)). A file missing there keeps its
  // strings only until the next update_translations, which drops them.
  const std::string cmake = read_text(fs::path(kSrc) / "gui" / "CMakeLists.txt");
  static const std::regex word_list("foreach\\((_m|_f)([^)]*)\\)");
  std::set<std::string> listed;
  for (auto it = std::sregex_iterator(cmake.begin(), cmake.end(), word_list); it != std::sregex_iterator(); ++it) {
    std::istringstream words((*it)[2].str());
    for (std::string w; words >> w;) listed.insert((*it)[1].str() == "_m" ? "gui/model/" + w : w);
  }
  int found = 0;
  for (const char* folder : {"gui/model", "core", "costmodel", "sim", "planner"})
    for (const auto& e : fs::directory_iterator(kSrc + "/" + folder)) {
      if (e.path().extension() != ".cpp") continue;
      const QString text = QString::fromStdString(read_text(e.path()));
      bool any = false;
      for (auto it = call.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        QString source;
        for (auto p = piece.globalMatch(m.captured(2)); p.hasNext();)
          source += p.next().captured(1);
        any = true;
        ++found;
        EXPECT_EQ(sources.count({m.captured(1), source}), 1u)
            << e.path().filename().string() << ": " << m.captured(1).toStdString() << " / "
            << source.toStdString();
      }
      files[folder] += any;
      if (any) {
        EXPECT_EQ(listed.count(std::string(folder) + "/" + e.path().stem().string()), 1u)
            << folder << "/" << e.path().filename().string()
            << " calls model_tr or tr_text but is not among lupdate's sources (gui/CMakeLists.txt)";
      }
    }
  EXPECT_GE(files["gui/model"], 7);
  EXPECT_GE(files["core"], 2);       // run_compare, trace_filter
  EXPECT_GE(files["costmodel"], 2);  // plan (warnings), transformer_blocks (reasons)
  EXPECT_GE(files["planner"], 4);    // lower*, sweep (roles, reasons, the Amdahl note)
  EXPECT_GE(found, 115);
}

// Without the app's translator (gui/model's tests, a Qt-free user) a plural
// source comes out in English by english_plural(): the same forms as
// brigade_en.ts writes out, for one and for two.
TEST(Translation, TheModelsEnglishFallbackHasTheEnTsPluralForms) {
  int plurals = 0;
  for (const TsMessage& m : read_ts(kEnTs)) {
    if (!m.numerus || m.forms.size() != 2) continue;
    ++plurals;
    const std::string source = m.source.toStdString();
    SCOPED_TRACE(m.context.toStdString() + ": " + source);
    EXPECT_EQ(english_plural(source, 1), QString(m.forms[0]).replace("%n", "1").toStdString());
    EXPECT_EQ(english_plural(source, 2), QString(m.forms[1]).replace("%n", "2").toStdString());
  }
  EXPECT_GE(plurals, 15);
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
  // A symbol the translation keeps from its English source (❚❚, ḡ, α) may
  // come from the application's own font, which draws it in English too (in
  // zh the CJK family is the fallback after it, language.cpp): it must
  // draw it then; every other character is the CJK font's.
  QFont app_font = QApplication::font();
  app_font.setPixelSize(16);
  const QRawFont app_raw = QRawFont::fromFont(app_font);
  const QFontMetrics app_fm(app_font);
  // Every context's translations, gui/model's included (the texts it
  // composes: the timeline's notes, a span's details, the calibration
  // plots, ...).
  std::set<QString> contexts;
  for (const TsMessage& m : read_ts(kZhTs)) contexts.insert(m.context);
  for (const char* c : {"Loader", "SpanDetails", "LaneLayout", "MemorySeries", "Compare", "WhatIf",
                        "CalibrationPlots", "ModelText"})
    EXPECT_EQ(contexts.count(QString::fromLatin1(c)), 1u) << c;
  for (const TsMessage& m : read_ts(kZhTs)) {
    QString not_cjk, not_drawn;
    for (const QChar c : missing_glyphs(raw, fm, m.translation))
      (m.source.contains(c) ? not_cjk : not_drawn) += c;
    EXPECT_EQ(not_drawn.toStdString(), "") << m.translation.toStdString();
    EXPECT_EQ(missing_glyphs(app_raw, app_fm, not_cjk).toStdString(), "")
        << m.translation.toStdString();
  }
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

struct English {  // the test ends in English, whatever it switched to
  ~English() {
    set_ui_language(Lang::kEn);
    QApplication::processEvents();
  }
};

QAbstractButton* button(QWidget& w, const QString& text) {
  for (QAbstractButton* b : w.findChildren<QAbstractButton*>())
    if (b->text() == text) return b;
  return nullptr;
}

void switch_to(Lang lang) {
  ASSERT_TRUE(set_ui_language(lang));
  // The translator's LanguageChange goes to the application, which posts
  // one to every top-level widget, which sends it to its children.
  for (int i = 0; i < 3; ++i) QApplication::processEvents();
}

// The views re-translate what they built once when the language changes
// (QEvent::LanguageChange): the what-if panel's buttons, its table's header
// and its empty state; the timeline's zoom buttons, its statistics' header
// and its hint; and back in English.
TEST(Translation, ViewsRetranslateAtRuntime) {
  English restore;
  WhatIfView whatif;
  TimelineView timeline;
  auto* whatif_table = whatif.findChild<QTableWidget*>();
  auto* timeline_table = timeline.findChild<QTableWidget*>();
  ASSERT_NE(whatif_table, nullptr);
  ASSERT_NE(timeline_table, nullptr);
  ASSERT_NE(button(whatif, "Reset"), nullptr);
  ASSERT_NE(button(timeline, "Zoom in"), nullptr);
  EXPECT_EQ(whatif_table->horizontalHeaderItem(1)->text(), "peak memory");

  switch_to(Lang::kZh);
  EXPECT_NE(button(whatif, QString::fromUtf8("重置")), nullptr);
  EXPECT_NE(button(whatif, QString::fromUtf8("另存为场景…")), nullptr);
  EXPECT_EQ(button(whatif, "Reset"), nullptr);
  EXPECT_EQ(whatif_table->horizontalHeaderItem(1)->text(), QString::fromUtf8("峰值显存"));
  EXPECT_EQ(whatif.summary_text(), QString::fromUtf8("打开一个场景，试着修改它的方案。"));
  EXPECT_NE(button(timeline, QString::fromUtf8("放大")), nullptr);
  EXPECT_EQ(timeline_table->horizontalHeaderItem(1)->text(), QString::fromUtf8("忙碌 %"));
  EXPECT_EQ(timeline.range_text(), QString::fromUtf8("在时间线上拖动以选择时间范围。"));

  switch_to(Lang::kEn);
  EXPECT_NE(button(whatif, "Reset"), nullptr);
  EXPECT_EQ(whatif_table->horizontalHeaderItem(1)->text(), "peak memory");
  EXPECT_EQ(whatif.summary_text(), "Open a scenario to try changes to its plan.");
  EXPECT_NE(button(timeline, "Zoom in"), nullptr);
  EXPECT_EQ(timeline.range_text(), "Drag over the timeline to select a time range.");
}

// The other views built once too: one text of each, in Chinese and back.
TEST(Translation, EveryViewRetranslatesAtRuntime) {
  English restore;
  MemoryView memory;
  TopologyView topology;
  ScalingView scaling;
  CalibrationView calibration;
  CompareView compare;
  auto* kinds = calibration.findChildren<QComboBox*>().value(1);
  ASSERT_NE(kinds, nullptr);
  const std::vector<std::tuple<QWidget*, const char*, const char*>> texts = {
      {&memory, "Scale to capacity", "按容量缩放"}, {&topology, "▶ Play", "▶ 播放"},
      {&topology, "◀ All nodes", "◀ 全部节点"},     {&scaling, "Sweep", "扫描"},
      {&compare, "Compare with…", "与之对比…"},     {&compare, "Clear B", "清除 B"},
  };
  for (const auto& [w, en, zh] : texts) ASSERT_NE(button(*w, QString::fromUtf8(en)), nullptr) << en;
  EXPECT_EQ(kinds->itemText(0), "all kinds");
  switch_to(Lang::kZh);
  for (const auto& [w, en, zh] : texts) EXPECT_NE(button(*w, QString::fromUtf8(zh)), nullptr) << zh;
  EXPECT_EQ(kinds->itemText(0), QString::fromUtf8("全部种类"));
  EXPECT_EQ(scaling.findChild<QTableWidget*>()->horizontalHeaderItem(2)->text(),
            QString::fromUtf8("加速比"));
  switch_to(Lang::kEn);
  for (const auto& [w, en, zh] : texts) EXPECT_NE(button(*w, QString::fromUtf8(en)), nullptr) << en;
  EXPECT_EQ(kinds->itemText(0), "all kinds");
}

// The ASCII words of a Chinese text that are English left over. Not
// counted: what is quoted ('data', “mm1”: the data's names), identifiers
// (with a digit, '_', '.' or '/': fc2, psum_scatter, layer 23/mlp.fc2,
// 1/8), single letters (x, y, P), `names` (the scenario's own: ops,
// tensors, mesh axes) and the terms kept in Chinese texts on purpose: the
// collectives' and kernels' names, the models' and schedules' proper names
// and the transformer's block labels ("layer", "embedding", "head": data
// labels, as in the buffers' names). The check can fail (below).
std::string english_left(const std::string& text, const std::set<std::string>& names) {
  static const std::set<std::string> kTerms = {
      // collectives, as the .ts and the lessons keep them
      "psum", "pmean", "AllReduce", "AllGather", "ReduceScatter", "AllToAll", "allreduce",
      "allgather", "reducescatter", "alltoall", "all-reduce", "all-gather", "reduce-scatter",
      "dispatch", "combine", "rank", "ring", "tree", "auto", "direct",
      // kernels, layers and models by their names
      "GEMM", "FFN", "QKV", "MLP", "MoE", "GQA", "MQA", "MLA", "SwiGLU", "RMSNorm", "LayerNorm",
      "FlashAttention", "Transformer", "GPT", "ZeRO", "GPipe", "Megatron", "Megatron-LM",
      "DeepSpeed", "DDP", "torchtitan", "XLA", "token", "top", "seq", "None", "kernel", "step",
      "region", "logit", "logits",
      "Engine",  // NVIDIA's Transformer Engine, a product's name
      // the transformer's block labels
      "layer", "embedding", "head"};
  QString t = QString::fromStdString(text);
  static const QRegularExpression quoted(QString::fromUtf8("'[^']*'|“[^”]*”"));
  t.remove(quoted);
  static const QRegularExpression word("[A-Za-z0-9][A-Za-z0-9_./+-]*");
  std::string left;
  for (auto it = word.globalMatch(t); it.hasNext();) {
    const std::string w = it.next().captured().toStdString();
    const std::string bare = w.back() == '-' || w.back() == '.' ? w.substr(0, w.size() - 1) : w;
    if (bare.size() < 2 || bare.find_first_of("0123456789_./") != std::string::npos) continue;
    if (kTerms.count(bare) || names.count(bare)) continue;
    left += (left.empty() ? "" : " ") + bare;
  }
  return left;
}

TEST(Translation, EnglishLeftFindsEnglish) {
  EXPECT_EQ(english_left("经 'data' 轴 psum：mm1 需要 w1 的布局为 P('data', None)", {}), "");
  EXPECT_EQ(english_left("这个桶：layer 23/mlp.fc2", {}), "");
  EXPECT_EQ(english_left("张量 0/1, experts 0-3 of 8", {}), "experts of");
  EXPECT_EQ(english_left("loss 需要 x", {"loss"}), "");
}

// Every bundled scenario (scenarios/**/*.yaml: the lessons, the graph
// scenarios, the MoE ones) lowered in zh: the plan's one-line summary (the
// head chef), every device's role (the chefs) and every collective's reason
// (the span details) are Chinese, with no English word left, and the CJK
// font draws every character of them. The reasons are those of the
// granularity the app would choose (kAuto within 100,000 tasks; a merged
// step-granularity reason quotes the kernel ones it merges).
TEST(Translation, EveryBundledScenariosPlanProseIsChineseInZh) {
  English restore;
  ASSERT_TRUE(set_ui_language(Lang::kZh));
  QFont font(cjk_font_family());
  font.setPixelSize(16);
  const QRawFont raw = QRawFont::fromFont(font, QFontDatabase::SimplifiedChinese);
  const QFontMetrics fm(font);
  QFont app_font = QApplication::font();
  app_font.setPixelSize(16);
  const QRawFont app_raw = QRawFont::fromFont(app_font);
  const QFontMetrics app_fm(app_font);
  static const QRegularExpression cjk("[\\x{4E00}-\\x{9FFF}]");
  int scenarios = 0, reasons = 0, roles = 0;
  std::set<std::string> seen;  // each distinct text checked once
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(kSrc + "/scenarios"))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    const std::string rel = file.substr(kSrc.size() + 1);
    auto sc = load_scenario(file);
    if (!sc.is_ok() || sc->model_kind == ModelKind::kNone) continue;  // a profile, a lesson list
    SCOPED_TRACE(rel);
    planner::LowerOptions lo;
    lo.max_kernel_tasks = 100'000;
    auto plan = planner::lower(*sc, lo);
    ASSERT_TRUE(plan.is_ok()) << plan.message();
    ++scenarios;
    std::set<std::string> names;
    for (const std::string& n : plan->program.names()) names.insert(n);
    for (const planner::DeviceView& v : plan->views)
      for (const planner::TensorView& x : v.tensors) names.insert(x.name);
    if (sc->mesh)
      for (const std::string& a : sc->mesh->axes) names.insert(a);
    else if (sc->model_kind == ModelKind::kMlp || sc->model_kind == ModelKind::kGraph)
      names.insert("data");  // the graph planner's mesh of a strategy (costmodel/op_graph.cpp)
    auto check = [&](const std::string& what, const std::string& text) {
      if (text.empty() || !seen.insert(text).second) return;
      SCOPED_TRACE(what + ": " + text);
      EXPECT_TRUE(QString::fromStdString(text).contains(cjk)) << "no Chinese at all";
      EXPECT_EQ(english_left(text, names), "");
      QString not_drawn;
      for (const QChar c : missing_glyphs(raw, fm, QString::fromStdString(text)))
        if (!missing_glyphs(app_raw, app_fm, QString(c)).isEmpty()) not_drawn += c;
      EXPECT_EQ(not_drawn.toStdString(), "");
    };
    check("summary", plan->summary);
    for (size_t d = 0; d < plan->device_role.size(); ++d)
      if (plan->view_of_device[d] >= 0) {
        ++roles;
        check("role of device " + std::to_string(d), plan->device_role[d]);
      }
    for (const Collective& c : plan->program.collectives()) {
      ++reasons;
      check("reason", c.reason);
    }
  }
  EXPECT_GE(scenarios, 40);
  EXPECT_GT(roles, 1000);
  EXPECT_GT(reasons, 1000);
  // The scenarios the earlier English leftovers came from are among them.
  for (const char* f : {"scenarios/mixtral_8x7b_16gpu.yaml", "scenarios/sharded_mlp.yaml",
                        "scenarios/pmap_train_step.yaml", "scenarios/row_sharded_matmul.yaml"})
    EXPECT_TRUE(std::find(files.begin(), files.end(), kSrc + "/" + f) != files.end()) << f;
}

}  // namespace
}  // namespace brigade::gui
