// The teaching view: the seed texts' kitchen drawn from the open scenario's
// real plan (gui/model/teach_scene.hpp), in the seed's four modes
// (overview, transfer, transform, output) and the second seed's pmap demo,
// stepped by a pure state machine (gui/model/teach_steps.hpp) that a QTimer
// plays: mode buttons, previous / play-pause / next, and a narration of
// the step under them. Every string goes through tr(); a LanguageChange
// re-translates the buttons and the narration and redraws.
#pragma once

#include <memory>
#include <optional>

#include "gui/model/teach_scene.hpp"
#include "gui/model/teach_steps.hpp"
#include "gui/views/view.hpp"

class QButtonGroup;
class QElapsedTimer;
class QLabel;
class QTimer;
class QToolButton;

namespace brigade::gui {

class TeachCanvas;

class TeachView : public View {
  Q_OBJECT
 public:
  explicit TeachView(QWidget* parent = nullptr);
  ~TeachView() override;
  void set_document(DocumentPtr doc) override;
  bool shows(const Document& doc) const override { return doc.scenario && doc.plan; }
  int steps() const override { return kNumTeachSteps; }
  void set_step(int step) override;

  const TeachPlayer& player() const { return player_; }
  // The scene shown (null: no scenario open).
  const TeachScene* scene() const { return scene_ ? &*scene_ : nullptr; }
  // The narration of the current step, as shown.
  QString narration() const;
  // The buttons, for tests: play() / pause() as the play button does.
  void play();
  void pause();
  void next();
  void previous();
  void show_mode(TeachMode mode);

 protected:
  void changeEvent(QEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;

 private:
  void retranslate();
  void refresh();  // controls, narration and canvas from the player
  void on_tick();
  void stopped();
  QString narration_of(TeachStep step) const;

  DocumentPtr doc_;
  std::optional<TeachScene> scene_;
  TeachPlayer player_;
  QTimer* timer_;
  std::unique_ptr<QElapsedTimer> clock_;
  QToolButton* mode_buttons_[kNumTeachModes] = {};
  QButtonGroup* modes_;
  QToolButton* previous_;
  QToolButton* play_;
  QToolButton* next_;
  QLabel* step_label_;
  QLabel* narration_;
  TeachCanvas* canvas_;
};

}  // namespace brigade::gui
