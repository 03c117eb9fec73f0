#include "gui/model/model_tr.hpp"

namespace brigade::gui {

std::string model_word(std::string_view english) {
  const std::string source(english);
  return model_tr("ModelText", source.c_str());
}

}  // namespace brigade::gui
