#include "gui/views/view_list.hpp"

#include <QStringList>

#include "gui/views/calibration_view.hpp"
#include "gui/views/compare_view.hpp"
#include "gui/views/kernels_view.hpp"
#include "gui/views/lessons_view.hpp"
#include "gui/views/memory_view.hpp"
#include "gui/views/scaling_view.hpp"
#include "gui/views/teach_view.hpp"
#include "gui/views/timeline_view.hpp"
#include "gui/views/topology_view.hpp"
#include "gui/views/whatif_view.hpp"

namespace brigade::gui {

const std::vector<ViewInfo>& view_list() {
  static const std::vector<ViewInfo> views = {
      {"timeline", "Timeline", Qt::TopDockWidgetArea,
       [](QWidget* p) -> View* { return new TimelineView(p); }},
      {"topology", "Topology", Qt::BottomDockWidgetArea,
       [](QWidget* p) -> View* { return new TopologyView(p); }},
      {"memory", "Memory", Qt::BottomDockWidgetArea,
       [](QWidget* p) -> View* { return new MemoryView(p); }},
      {"scaling", "Scaling", Qt::BottomDockWidgetArea,
       [](QWidget* p) -> View* { return new ScalingView(p); }},
      {"calibration", "Calibration", Qt::BottomDockWidgetArea,
       [](QWidget* p) -> View* { return new CalibrationView(p); }},
      {"whatif", "What-if", Qt::BottomDockWidgetArea,
       [](QWidget* p) -> View* { return new WhatIfView(p); }},
      {"teach", "Teach", Qt::BottomDockWidgetArea,
       [](QWidget* p) -> View* { return new TeachView(p); }},
      {"lessons", "Lessons", Qt::BottomDockWidgetArea,
       [](QWidget* p) -> View* { return new LessonsView(p); }},
      {"compare", "Compare", Qt::TopDockWidgetArea,
       [](QWidget* p) -> View* { return new CompareView(p); }},
      {"kernels", "Kernels", Qt::BottomDockWidgetArea,
       [](QWidget* p) -> View* { return new KernelsView(p); }},
  };
  return views;
}

const ViewInfo* find_view(const QString& name) {
  for (const ViewInfo& v : view_list())
    if (v.name == name) return &v;
  return nullptr;
}

QString view_names() {
  QStringList names;
  for (const ViewInfo& v : view_list()) names << v.name;
  return names.join(", ");
}

}  // namespace brigade::gui
