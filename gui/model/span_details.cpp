#include "gui/model/span_details.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/gemm_waves.hpp"
#include "core/units.hpp"
#include "costmodel/collectives.hpp"
#include "gui/model/model_tr.hpp"
#include "gui/model/palette.hpp"
#include "gui/model/plan_prose.hpp"
#include "gui/model/ruler.hpp"

namespace brigade::gui {

namespace {

std::string name_of(const Trace& t, NameId id) {
  return id >= 0 && static_cast<size_t>(id) < t.names.size() ? t.names[static_cast<size_t>(id)]
                                                             : model_tr("SpanDetails", "(unnamed)");
}

std::string device_name(const Trace& t, int d) {
  return d >= 0 && static_cast<size_t>(d) < t.device_names.size() &&
                 !t.device_names[static_cast<size_t>(d)].empty()
             ? t.device_names[static_cast<size_t>(d)]
             : fill_args(model_tr("SpanDetails", "device %1"), {std::to_string(d)});
}

std::string stream_name(const Trace& t, int s) {
  if (s < 0 || static_cast<size_t>(s) >= t.streams.size())
    return fill_args(model_tr("SpanDetails", "stream %1"), {std::to_string(s)});
  const Stream& st = t.streams[static_cast<size_t>(s)];
  return device_name(t, st.device) + "/" + st.name;
}

// When task `t` finished in this run (from its span), NaN if unknown.
double end_of(const Document& doc, TaskId t) {
  const std::int32_t s = doc.index->span_of_task(t);
  if (s >= 0) return doc.trace->spans[static_cast<size_t>(s)].end_seconds;
  if (doc.result && static_cast<size_t>(t) < doc.result->task_end_seconds.size())
    return doc.result->task_end_seconds[static_cast<size_t>(t)];
  return NAN;
}

// The task before `t` on its stream, -1 if it is the first.
TaskId stream_predecessor(const Program& p, TaskId t) {
  const auto tasks = p.stream_tasks(p.task(t).stream);
  // Tasks join their stream in issue order with increasing ids.
  auto it = std::lower_bound(tasks.begin(), tasks.end(), t);
  if (it == tasks.end() || *it != t || it == tasks.begin()) return -1;
  return *(it - 1);
}

struct Ready {
  double seconds = -INFINITY;  // when the last input was done
  TaskId task = -1;            // the input that was last
  bool stream_order = false;   // it was the stream predecessor
};

// When task t could start, as far as its own inputs go.
Ready ready_of(const Document& doc, const Program& p, TaskId t) {
  Ready r;
  const TaskId pred = stream_predecessor(p, t);
  if (pred >= 0) {
    const double e = end_of(doc, pred);
    if (e > r.seconds) r = {e, pred, true};
  }
  for (TaskId d : p.deps(t)) {
    const double e = end_of(doc, d);
    if (e > r.seconds) r = {e, d, false};
  }
  return r;
}

std::string why(const Program& p, TaskId t, TaskId on, bool stream_order) {
  const Task& me = p.task(t);
  const Task& u = p.task(on);
  if (stream_order)
    return fill_args(
        model_tr("SpanDetails", "stream order: issued after it on the same stream (%1)"),
        {p.streams()[static_cast<size_t>(me.stream)].name});
  switch (u.kind) {
    case TaskKind::kTransfer:
      if (u.peer == me.device)
        return fill_args(
            model_tr("SpanDetails", "data: the transfer from device %1 to this device"),
            {std::to_string(u.device)});
      return model_tr("SpanDetails", "dependency on a transfer");
    case TaskKind::kCollective: {
      const Collective& c = p.collectives()[static_cast<size_t>(u.collective)];
      return fill_args(model_tr("SpanDetails", "the result of the %1 over %n rank(s)", nullptr,
                                plural_count(c.group.size())),
                       {class_style(collective_class(c.kind)).label});
    }
    case TaskKind::kCompute:
      if (u.device != me.device)
        return fill_args(model_tr("SpanDetails", "data computed on device %1"),
                         {std::to_string(u.device)});
      return fill_args(model_tr("SpanDetails", "event: a kernel on stream '%1' of this device"),
                       {p.streams()[static_cast<size_t>(u.stream)].name});
  }
  return model_tr("SpanDetails", "dependency");
}

// A GEMM under its device's wave model (core/gemm_waves.hpp): how full its waves of output tiles are, and how many
// (docs/costmodel.md, "GEMMs by shape: waves of tiles"). Nothing where the
// profile has no wave model or the GEMM is under one wave.
template <class Add>
void add_waves(const Document& doc, const Task& task, Add&& add) {
  if (!doc.scenario || task.device < 0 || task.device >= doc.scenario->topology.num_devices())
    return;
  const DeviceProfile& dp =
      doc.scenario->profile.for_device(doc.scenario->topology.device(task.device));
  const GemmWaves w =
      gemm_waves(dp, task.dtype, task.kernel, GemmShape{task.m, task.n, task.k, task.batch});
  if (w.waves == 0) return;
  char filled[32];
  std::snprintf(filled, sizeof filled, "%.1f%%", 100 * w.filled);
  add(model_tr("SpanDetails", "waves"),
      fill_args(model_tr("SpanDetails",
                         "%1 filled (%2 waves of %3 tiles of %4 x %5; a part-full wave takes a "
                         "full one's time)"),
                {filled, std::to_string(w.waves), std::to_string(dp.sm_count),
                 std::to_string(w.rows), std::to_string(w.cols)}));
}

// A kernel beside NCCL's collectives on its device (core/profile.hpp,
// nccl_sm_share; docs/costmodel.md, "NCCL's kernels take SMs"): how long it
// ran beside them, which one (the longest beside it), how many SMs that
// one's kernel held, and the time the kernel lost to them (share x time
// beside, summed). Nothing where no collective of an NCCL channel count ran
// beside it, where the profile leaves NCCL's SMs out, or where the kernel
// gave SMs up already (sm_held).
template <class Add>
void add_nccl_sms(const Document& doc, const TraceSpan& s, const Task& task, Add&& add) {
  const Program* p = doc.program();
  if (!doc.scenario || !p || task.sm_held > 0 || s.device < 0 ||
      s.device >= doc.scenario->topology.num_devices())
    return;
  const Topology& topo = doc.scenario->topology;
  const DeviceProfile& dp = doc.scenario->profile.for_device(topo.device(s.device));
  if (nccl_sm_share(dp, 1) <= 0) return;
  const Trace& tr = *doc.trace;
  double beside = 0, lost = 0, longest = 0;
  int longest_channels = 0;
  std::int32_t longest_span = -1;
  std::vector<std::int32_t> found;
  for (size_t st = 0; st < tr.streams.size(); ++st) {
    if (tr.streams[st].device != s.device) continue;
    for (const std::int32_t track : doc.index->tracks_of_stream(static_cast<int>(st))) {
      found.clear();
      doc.index->spans_in(track, s.start_seconds, s.end_seconds, found);
      for (const std::int32_t k : found) {
        const TraceSpan& c = tr.spans[static_cast<size_t>(k)];
        if (c.kind != TaskKind::kCollective || c.collective < 0 ||
            c.collective >= static_cast<CollectiveId>(p->collectives().size()))
          continue;
        const Collective& col = p->collectives()[static_cast<size_t>(c.collective)];
        if (col.userbuffers) continue;
        const double overlap = std::min(c.end_seconds, s.end_seconds) -
                               std::max(c.start_seconds, s.start_seconds);
        if (overlap <= 0) continue;
        const std::vector<int> group(col.group.begin(), col.group.end());
        auto q = cost::collective_query_on(topo, doc.scenario->profile, col.kind, col.algorithm,
                                           group, col.bytes);
        if (!q.is_ok() || !q->nccl) continue;
        const double share = nccl_sm_share(dp, q->nccl_sm_channels);
        if (share <= 0) continue;
        beside += overlap;
        lost += share * overlap;
        if (overlap > longest) {
          longest = overlap;
          longest_channels = q->nccl_sm_channels;
          longest_span = k;
        }
      }
    }
  }
  if (longest_span < 0) return;
  add(model_tr("SpanDetails", "NCCL's SMs"),
      fill_args(model_tr("SpanDetails",
                         "%1 of it beside collectives, the longest '%2' (its NCCL kernel holds %3 "
                         "of %4 SMs): about %5 longer than alone"),
                {format_duration(beside),
                 name_of(tr, tr.spans[static_cast<size_t>(longest_span)].name),
                 std::to_string(longest_channels), std::to_string(dp.sm_count),
                 format_duration(lost)}));
}

}  // namespace

std::string span_summary(const Document& doc, std::int32_t span) {
  const Trace& t = *doc.trace;
  const TraceSpan& s = t.spans[static_cast<size_t>(span)];
  return fill_args(
      model_tr("SpanDetails", "%1 — %2 (%3, %4)"),
      {name_of(t, s.name), format_duration(s.end_seconds - s.start_seconds),
       model_word(class_style(doc.index->span_class(span)).label), stream_name(t, s.stream)});
}

SpanDetails describe_span(const Document& doc, std::int32_t span) {
  SpanDetails out;
  const Trace& tr = *doc.trace;
  const TraceSpan& s = tr.spans[static_cast<size_t>(span)];
  const double dur = s.end_seconds - s.start_seconds;
  out.title = name_of(tr, s.name);
  auto add = [&](std::string k, std::string v) {
    out.lines.push_back({std::move(k), std::move(v)});
  };
  add(model_tr("SpanDetails", "kind"), model_word(class_style(doc.index->span_class(span)).label));
  add(model_tr("SpanDetails", "where"), stream_name(tr, s.stream));
  add(model_tr("SpanDetails", "start"), format_duration(s.start_seconds));
  add(model_tr("SpanDetails", "end"), format_duration(s.end_seconds));
  add(model_tr("SpanDetails", "duration"), format_duration(dur));
  const Program* p = doc.program();
  if (!p || s.task < 0 || s.task >= p->num_tasks()) {
    if (s.task >= 0) add(model_tr("SpanDetails", "task"), std::to_string(s.task));
    return out;
  }
  const TaskId t = s.task;
  const Task& task = p->task(t);
  add(model_tr("SpanDetails", "task"), fill_args(model_tr("SpanDetails", "%1 (phase %2)"),
                                                 {std::to_string(t), phase_name(task.phase)}));
  if (task.layer >= 0) add(model_tr("SpanDetails", "layer"), std::to_string(task.layer));
  if (task.micro_batch >= 0)
    add(model_tr("SpanDetails", "micro-batch"), std::to_string(task.micro_batch));
  const std::string op = model_tr("SpanDetails", "op");
  const std::string bytes = model_tr("SpanDetails", "bytes");
  const std::string achieved = model_tr("SpanDetails", "achieved");
  switch (task.kind) {
    case TaskKind::kCompute:
      if (task.compute == ComputeKind::kGemm)
        add(op, fill_args(model_tr("SpanDetails", "GEMM %1 x %2 x %3%4 (%5)"),
                          {std::to_string(task.m), std::to_string(task.n), std::to_string(task.k),
                           task.batch > 1 ? fill_args(model_tr("SpanDetails", ", batch %1"),
                                                      {std::to_string(task.batch)})
                                          : std::string(),
                           dtype_name(task.dtype)}));
      else
        add(op, fill_args(model_tr("SpanDetails", "%1 kernel (%2)"),
                          {compute_kind_name(task.compute), dtype_name(task.dtype)}));
      if (task.flops > 0) add("FLOP", format_flops(task.flops));
      add(bytes, format_bytes(task.bytes));
      if (dur > 0 && task.flops > 0) add(achieved, format_flops_rate(task.flops / dur));
      if (task.compute == ComputeKind::kGemm) add_waves(doc, task, add);
      add_nccl_sms(doc, s, task, add);
      break;
    case TaskKind::kTransfer:
      add(op, fill_args(model_tr("SpanDetails", "transfer to %1"), {device_name(tr, task.peer)}));
      add(bytes, format_bytes(task.bytes));
      if (dur > 0) add(achieved, format_bandwidth(task.bytes / dur));
      break;
    case TaskKind::kCollective: {
      const Collective& c = p->collectives()[static_cast<size_t>(task.collective)];
      add(op, fill_args(model_tr("SpanDetails", "%1 (%2) over %n rank(s), %3", nullptr,
                                 plural_count(c.group.size())),
                        {collective_kind_name(c.kind), collective_algorithm_name(c.algorithm),
                         dtype_name(c.dtype)}));
      add(bytes,
          fill_args(model_tr("SpanDetails", "%1 (nccl-tests size)"), {format_bytes(c.bytes)}));
      // The planner's reason for it, in the current language (plan_prose.hpp:
      // composed again after a language switch).
      if (!c.reason.empty())
        add(model_tr("SpanDetails", "why"), collective_reason(doc, task.collective));
      break;
    }
  }

  // What it waited for.
  Ready r = ready_of(doc, *p, t);
  std::string who;
  if (task.kind == TaskKind::kCollective) {
    // A barrier: it started when the last rank's inputs were done.
    const Collective& c = p->collectives()[static_cast<size_t>(task.collective)];
    Ready last;
    int last_rank = -1;
    for (size_t k = 0; k < c.tasks.size(); ++k) {
      const Ready rk = ready_of(doc, *p, c.tasks[k]);
      if (rk.seconds > last.seconds) {
        last = rk;
        last_rank = static_cast<int>(k);
      }
    }
    // Ranks that arrived together: this rank's own input is as much the
    // reason as anyone's, and the simpler one to show.
    if (last.task >= 0 && r.seconds < last.seconds &&
        c.tasks[static_cast<size_t>(last_rank)] != t) {
      r = last;
      who = fill_args(
          model_tr("SpanDetails",
                   "barrier: the last rank to arrive was %1 (rank %2), waiting for '%3' (%4)"),
          {device_name(tr, c.group[static_cast<size_t>(last_rank)]), std::to_string(last_rank),
           p->task_name(last.task),
           why(*p, c.tasks[static_cast<size_t>(last_rank)], last.task, last.stream_order)});
    }
  }
  // Its host's issue, where that came last (the host lane; docs/simulator.md,
  // "The host lane"): the simulator starts such a task at its issue time.
  const int slice = doc.host ? doc.host->slice_of_task(t) : -1;
  const double issued = slice >= 0 ? doc.host->slice(slice).end_seconds : -1;
  if (slice >= 0 && issued >= r.seconds && s.start_seconds <= issued) {
    out.waited_for =
        fill_args(model_tr("SpanDetails", "its host, which issued it at %1 (host_op_time)"),
                  {format_duration(issued)});
    if (r.task >= 0) {
      out.waited_for += fill_args(model_tr("SpanDetails", ", %1 after '%2' was done"),
                                  {format_duration(issued - r.seconds), p->task_name(r.task)});
      out.waited_for_span = doc.index->span_of_task(r.task);
    }
  } else if (r.task < 0) {
    out.waited_for =
        model_tr("SpanDetails", "nothing: the first task of its stream, with no dependencies");
  } else {
    if (who.empty())
      who = fill_args(model_tr("SpanDetails", "'%1' — %2"),
                      {p->task_name(r.task), why(*p, t, r.task, r.stream_order)});
    out.waited_for_span = doc.index->span_of_task(r.task);
    const double late = s.start_seconds - r.seconds;
    if (std::isfinite(late) && late > 1e-9 * std::max(1.0, s.start_seconds) && late > 1e-12)
      who += fill_args(model_tr("SpanDetails", "; it started %1 after that was done"),
                       {format_duration(late)});
    out.waited_for = who;
  }
  add(model_tr("SpanDetails", "waited for"), out.waited_for);
  return out;
}

}  // namespace brigade::gui
