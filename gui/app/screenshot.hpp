// `brigade-gui --screenshot OUT.png --view NAME [--time T] [--step K] FILE`: one view
// (`--view lessons [--lesson N] [--quiz]` needs no FILE: a lesson brings its own)
// rendered without a display (QT_QPA_PLATFORM=offscreen) for tests, docs and
// scripts (`--view compare --compare A B`: two runs compared). Bad input:
// the CLI's one line on stderr, exit 2, no file.
#pragma once

#include <optional>
#include <utility>

#include <QSize>
#include <QString>

#include "gui/model/loader.hpp"

namespace brigade::gui {

struct ScreenshotRequest {
  QString out;  // .png or .svg
  QString view = "timeline";
  QString file;
  QString compare;           // B, compared with `file` (--view compare or window); "" none
  double time_seconds = -1;  // < 0: none
  // --window START:END: the timeline zoomed to [START, END] seconds (--view timeline).
  std::optional<std::pair<double, double>> window;
  int step = -1;             // --step K of a view with steps (View::steps); < 0: none
  QSize size{1600, 900};
  LoadOptions load;
  int lesson = 0;  // --lesson N: the Lessons view shows lesson N (0: the first)
  bool quiz = false;  // --quiz: the Lessons view shows its quiz tab
  // --record FILE (--view kernels): a profiler's record, or Brigade's own
  // trace of the plan, beside the step; "" none.
  QString record;
};

// Returns the exit code: 0 written, 2 bad input (message on stderr), 1 other failures.
int take_screenshot(const ScreenshotRequest& request);

}  // namespace brigade::gui
