// The simulator behind the core Executor interface.
#include <memory>
#include <string>
#include <utility>

#include "sim/simulator.hpp"

namespace brigade::sim {
namespace {

class SimExecutor final : public Executor {
 public:
  explicit SimExecutor(SimOptions options) : options_(std::move(options)) {}
  std::string name() const override {
    return "sim:" + std::string(network_model_name(options_.network));
  }
  Result<Trace> run(const Program& program, const Topology& topology,
                    const HardwareProfile& profile, const RunOptions& run) override {
    SimOptions o = options_;
    o.record_trace = run.record_trace;
    o.record_task_times = false;
    if (run.on_progress) o.on_progress = run.on_progress;
    if (run.cancel) o.cancel = run.cancel;
    auto r = simulate(program, topology, profile, o);
    if (!r.is_ok()) return r.status();
    if (!run.record_trace) {
      // The caller asked for no trace: still say what ran and how long it took.
      Trace t;
      t.source = name();
      t.program = program.name;
      return t;
    }
    return std::move(r->trace);
  }

 private:
  SimOptions options_;
};

}  // namespace

std::unique_ptr<Executor> make_sim_executor(SimOptions options) {
  return std::make_unique<SimExecutor>(std::move(options));
}

}  // namespace brigade::sim
