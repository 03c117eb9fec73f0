#include "gui/views/chart_util.hpp"

#include <QAbstractAxis>
#include <QChart>

namespace brigade::gui {

void clear_chart(QChart* chart) {
  chart->removeAllSeries();
  for (QAbstractAxis* a : chart->axes()) {
    chart->removeAxis(a);
    delete a;
  }
}

}  // namespace brigade::gui
