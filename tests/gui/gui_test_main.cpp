// main() of gui_tests: one QApplication on the offscreen platform for every
// widget test, and settings in a folder of this process's own. ctest runs
// each test as its own process, several at once: with one shared settings
// file, one process's clear() or save wiped another's recent files midway
// (MainWindow.RecentFilesKeepTheLatestTenWithoutRepeats failed in CI).
#include <cstdlib>

#include <gtest/gtest.h>
#include <QApplication>
#include <QSettings>
#include <QTemporaryDir>

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  QTemporaryDir settings_dir;  // removed when main returns
  if (!settings_dir.isValid()) return 1;
  QSettings::setDefaultFormat(QSettings::IniFormat);
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings_dir.path());
  QApplication::setOrganizationName("BrigadeTests");
  QApplication::setApplicationName("gui_tests");
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
