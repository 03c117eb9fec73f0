// main() of gui_tests: one QApplication on the offscreen platform for every
// widget test, settings in a temporary organisation so that tests never
// touch the user's.
#include <cstdlib>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QStandardPaths::setTestModeEnabled(true);
  QApplication app(argc, argv);
  QApplication::setOrganizationName("BrigadeTests");
  QApplication::setApplicationName("gui_tests");
  QSettings().clear();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
