// Small helpers shared by the views drawn with Qt Charts (memory, scaling,
// calibration).
#pragma once

class QChart;

namespace brigade::gui {

// Removes (and deletes) every series and axis of `chart`.
void clear_chart(QChart* chart);

}  // namespace brigade::gui
