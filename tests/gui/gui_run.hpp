// What the widget tests that run brigade-gui itself share: the folder the
// pictures go to, and one run of the program with its exit code and stderr.
#pragma once

#include <filesystem>

#include <QProcess>
#include <QString>
#include <QStringList>

namespace brigade::gui {

// $TMPDIR/brigade_gui_screens, created.
inline std::filesystem::path out_dir() {
  const auto d = std::filesystem::temp_directory_path() / "brigade_gui_screens";
  std::filesystem::create_directories(d);
  return d;
}

struct GuiRun {
  int code;
  QString err;
};

// brigade-gui ARGS, waited for (two minutes at most).
inline GuiRun run_gui(const QStringList& args) {
  QProcess p;
  p.start(BRIGADE_GUI_EXE, args);
  p.waitForFinished(120000);
  return {p.exitCode(), QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace brigade::gui
