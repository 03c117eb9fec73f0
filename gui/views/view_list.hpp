// The list of views, in menu order: the one place a view is registered
// (see view.hpp for how to add one).
#pragma once

#include <functional>
#include <vector>

#include <QString>
#include <Qt>

class QWidget;

namespace brigade::gui {

class View;

struct ViewInfo {
  QString name;                  // for --view and settings: "timeline"
  QString title;                 // for docks and menus: "Timeline"
  Qt::DockWidgetArea area;       // where its dock starts
  std::function<View*(QWidget*)> make;
};

const std::vector<ViewInfo>& view_list();
const ViewInfo* find_view(const QString& name);
// "timeline, topology, ..." for messages.
QString view_names();

}  // namespace brigade::gui
