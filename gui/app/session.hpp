// The app's session: opens a file into a Document on a worker thread
// (gui/model/loader.hpp: lower + simulate + index), reports progress and
// hands the result to the GUI thread. One load at a time; opening another
// file or cancel() stops the current one.
//
// Cancellation: cancel() sets the load's flag, which planner::lower and
// sim::simulate poll (LoadOptions::cancel); the GUI is free at once: the
// cancelled load's worker is retired, joined once it ends (within
// milliseconds of the flag; at the latest when the session is destroyed),
// and its result is dropped.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include <QObject>
#include <QString>

#include "gui/model/loader.hpp"

namespace brigade::gui {

class Session : public QObject {
  Q_OBJECT
 public:
  explicit Session(QObject* parent = nullptr);
  ~Session() override;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Starts loading `path` (stopping any load in flight).
  void open(const QString& path, LoadOptions options = {});
  void cancel();
  bool busy() const { return current_ != nullptr; }
  // Waits for the load in flight, delivering its signals (for tests and
  // --screenshot); returns false after `timeout_ms`.
  bool wait(int timeout_ms);

 signals:
  void started(const QString& path);
  // stage: "reading", "lowering", "simulating", "indexing"; total 0: unknown.
  void progress(const QString& stage, double done, double total);
  void loaded(brigade::gui::DocumentPtr doc);
  void failed(const QString& path, const QString& message);
  void cancelled(const QString& path);

 private:
  // A load. Owned by the session alone (the worker holds a plain pointer and
  // reports by id), so that it is always joined, on the GUI thread.
  struct Job {
    ~Job() {
      cancel = true;
      if (thread.joinable()) thread.join();
    }
    std::thread thread;
    std::atomic<bool> cancel{false};
    std::atomic<bool> done{false};
    QString path;
    std::uint64_t id = 0;
  };
  void retire_finished();
  std::unique_ptr<Job> current_;
  std::vector<std::unique_ptr<Job>> retired_;
  std::uint64_t next_id_ = 1;
};

}  // namespace brigade::gui
