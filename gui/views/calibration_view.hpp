// The calibration view: a hardware profile (one written by brigade
// calibrate, or a scenario's) as four plots — GEMM efficiency against FLOP
// per kernel per dtype, streaming bandwidth against bytes, transfer
// bandwidth against bytes per link class, each collective's bus bandwidth
// against size — with the measured samples as points and the judges' line
// from the profile's fits, like nccl-tests' plots; and the R² of every fit.
// A profile without samples shows its fits and says so. Logic:
// gui/model/calibration_plots.hpp.
#pragma once

#include <vector>

#include "gui/model/calibration_plots.hpp"
#include "gui/views/view.hpp"

class QChart;
class QComboBox;
class QLabel;
class QTableWidget;

namespace brigade::gui {

class CalibrationView : public View {
  Q_OBJECT
 public:
  explicit CalibrationView(QWidget* parent = nullptr);
  void set_document(DocumentPtr doc) override;
  bool shows(const Document& doc) const override { return doc.hardware_profile() != nullptr; }

  const CalibrationPlots& plots() const { return plots_; }
  QString header_text() const;

 protected:
  void changeEvent(QEvent* e) override;  // LanguageChange: retranslate(), the texts again

 private:
  void retranslate();
  void show_model(const QString& model);
  void draw(QChart* chart, const CalibrationPlot& plot, bool x_flops);

  DocumentPtr doc_;
  CalibrationPlots plots_;
  QComboBox* models_;
  QComboBox* kinds_;
  QLabel* header_;
  QChart* gemm_;
  QChart* memory_;
  QChart* transfers_;
  QChart* collectives_;
  QTableWidget* fits_;
  QLabel* absent_;
  std::vector<QWidget*> chart_views_;  // gemm, memory, transfers, collectives
};

}  // namespace brigade::gui
