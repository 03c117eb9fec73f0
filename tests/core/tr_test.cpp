// The translation hook (core/tr.hpp): the English fallback without a
// translator (plural forms, placeholders: the CLI's text), and an installed
// translator reaching every tr_text call.
#include "core/tr.hpp"

#include <string>

#include <gtest/gtest.h>

namespace brigade {
namespace {

struct PluralCase {
  const char* source;
  int n;
  const char* english;
};

class EnglishPlural : public testing::TestWithParam<PluralCase> {};

TEST_P(EnglishPlural, WithoutATranslator) {
  const PluralCase& c = GetParam();
  EXPECT_EQ(english_plural(c.source, c.n), c.english);
  EXPECT_EQ(tr_text("Test", c.source, nullptr, c.n), c.english);
}

INSTANTIATE_TEST_SUITE_P(Rows, EnglishPlural,
                         testing::Values(PluralCase{"%n device(s)", 1, "1 device"},
                                         PluralCase{"%n device(s)", 2, "2 devices"},
                                         PluralCase{"%n device(s)", 0, "0 devices"},
                                         PluralCase{"the %1 over %n rank(s)", 8,
                                                    "the %1 over 8 ranks"},
                                         // Without a count (n = -1), the source as it is.
                                         PluralCase{"%n device(s)", -1, "%n device(s)"},
                                         PluralCase{"100% (s)", -1, "100% (s)"}));

struct FillCase {
  const char* pattern;
  std::string a, b;
  const char* filled;
};

class FillArgs : public testing::TestWithParam<FillCase> {};

TEST_P(FillArgs, ReplacesPlaceholdersOnce) {
  const FillCase& c = GetParam();
  EXPECT_EQ(fill_args(c.pattern, {c.a, c.b}), c.filled);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, FillArgs,
    testing::Values(FillCase{"%1 on %2", "8 tasks", "4 devices", "8 tasks on 4 devices"},
                    // A translation reorders them.
                    FillCase{"%2 上的 %1", "8 个任务", "4 个设备", "4 个设备 上的 8 个任务"},
                    // An argument that looks like a placeholder stays as it is.
                    FillCase{"%1 and %2", "%2", "x", "%2 and x"},
                    // A placeholder without an argument, and a lone %, stay.
                    FillCase{"%1 %3 100%", "a", "b", "a %3 100%"}));

// An installed translator answers for every tr_text call; an empty answer
// (not translated) falls back to English; nullptr uninstalls it.
std::string upper_or_nothing(const char* context, const char* source, const char*, int n) {
  if (std::string(context) != "Test") return {};
  std::string s = std::string("[") + source + "]";
  if (n >= 0) s += "#" + std::to_string(n);
  return s;
}

TEST(Tr, AnInstalledTranslatorIsUsed) {
  set_translator(&upper_or_nothing);
  EXPECT_EQ(tr_text("Test", "kind"), "[kind]");
  EXPECT_EQ(tr_text("Test", "%n device(s)", nullptr, 3), "[%n device(s)]#3");
  EXPECT_EQ(tr_text("Other", "%n device(s)", nullptr, 3), "3 devices");
  set_translator(nullptr);
  EXPECT_EQ(tr_text("Test", "kind"), "kind");
}

}  // namespace
}  // namespace brigade
