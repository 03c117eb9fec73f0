#include "gui/app/session.hpp"

#include <chrono>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMetaObject>
#include <QThread>

namespace brigade::gui {

Session::Session(QObject* parent) : QObject(parent) {}

Session::~Session() {
  // Jobs cancel and join in their destructors: first flag all, then join.
  if (current_) current_->cancel = true;
  for (auto& j : retired_) j->cancel = true;
  current_.reset();
  retired_.clear();
}

void Session::retire_finished() {
  std::erase_if(retired_, [](const std::unique_ptr<Job>& j) { return j->done.load(); });
}

void Session::open(const QString& path, LoadOptions options) {
  if (current_) {
    current_->cancel = true;
    retired_.push_back(std::move(current_));
  }
  retire_finished();
  current_ = std::make_unique<Job>();
  Job* job = current_.get();
  job->path = path;
  job->id = next_id_++;
  const std::uint64_t id = job->id;
  emit started(path);
  options.cancel = &job->cancel;
  // Progress reaches the GUI thread at most every 50 ms.
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  options.on_progress = [this, id, last](const std::string& stage, double done, double total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::milliseconds(50) && done != total) return;
    *last = now;
    const QString s = QString::fromStdString(stage);
    QMetaObject::invokeMethod(
        this,
        [this, id, s, done, total] {
          if (current_ && current_->id == id) emit progress(s, done, total);
        },
        Qt::QueuedConnection);
  };
  job->thread = std::thread([this, job, id, path, options = std::move(options)] {
    Result<DocumentPtr> r = load_document(path.toStdString(), options);
    const bool was_cancelled = job->cancel.load();
    QMetaObject::invokeMethod(
        this,
        [this, id, path, was_cancelled, r = std::move(r)] {
          if (!current_ || current_->id != id) return;  // cancelled or replaced: dropped
          retired_.push_back(std::move(current_));     // joined once its thread has ended
          if (was_cancelled || (!r.is_ok() && is_cancelled(r.status())))
            emit cancelled(path);
          else if (r.is_ok())
            emit loaded(r.value());
          else
            emit failed(path, QString::fromStdString(r.message()));
        },
        Qt::QueuedConnection);
    job->done = true;
  });
}

void Session::cancel() {
  if (!current_) return;
  current_->cancel = true;
  const QString path = current_->path;
  retired_.push_back(std::move(current_));
  retire_finished();
  emit cancelled(path);
}

bool Session::wait(int timeout_ms) {
  QElapsedTimer timer;
  timer.start();
  while (current_) {
    if (timer.elapsed() > timeout_ms) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  return true;
}

}  // namespace brigade::gui
