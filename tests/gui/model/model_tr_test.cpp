// gui/model's name for the hook (gui/model/model_tr.hpp): model_tr is
// core's tr_text (tests/core/tr_test.cpp), model_word looks a word up in the
// "ModelText" context.
#include "gui/model/model_tr.hpp"

#include <string>

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

std::string tagged(const char* context, const char* source, const char*, int) {
  return std::string(context) + ":" + source;
}

TEST(ModelTr, IsCoresHookAndModelWordUsesModelText) {
  EXPECT_EQ(model_tr("Test", "%n rank(s)", nullptr, 1), "1 rank");
  set_translator(&tagged);
  EXPECT_EQ(model_tr("Test", "kind"), tr_text("Test", "kind"));
  EXPECT_EQ(model_tr("Test", "kind"), "Test:kind");
  EXPECT_EQ(model_word("forward"), "ModelText:forward");
  set_translator(nullptr);
  EXPECT_EQ(model_word("forward"), "forward");
}

}  // namespace
}  // namespace brigade::gui
