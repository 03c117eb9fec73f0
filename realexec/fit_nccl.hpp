// Fitting NCCL's per-protocol figures (LL, LL128, Simple) to collectives
// measured on one node (issue 19 item 2): NCCL runs each size with the
// protocol its tuning model picks, so a measured curve T(M) is the lower
// envelope of one line per protocol, T = latency_p + M / algBw_p, each over
// a contiguous range of sizes (LL the smallest, Simple the largest). The fit
// finds that envelope and writes each protocol's latency and bandwidth into
// the ring entries of an NCCL table (core/nccl_table.hpp), keeping NCCL's
// structure: the table's base and per-step latencies scaled together to the
// measured latency, the bandwidth factor to the measured bus bandwidth.
// docs/costmodel.md, "NCCL's protocols and algorithms", says it with a worked
// example.
#pragma once

#include <string>
#include <vector>

#include "core/nccl_table.hpp"
#include "core/nccl_tests.hpp"
#include "core/status.hpp"
#include "core/topology.hpp"
#include "costmodel/nccl_model.hpp"

namespace brigade::realexec {

// One measured size (core/nccl_tests.hpp, which also reads them from
// nccl-tests' output).
using brigade::NcclSizePoint;

// One protocol's line over the sizes it ran.
struct NcclProtocolLine {
  NcclProtocol protocol = NcclProtocol::kSimple;
  double latency_seconds = 0;  // NCCL's latency of the call (launch excluded)
  double alg_bandwidth_bytes_per_second = 0;
  double bus_bandwidth_bytes_per_second = 0;  // algBw x nsteps / n (NCCL's busBw)
  double min_bytes = 0, max_bytes = 0;        // the sizes it was fitted to
  int points = 0;
};

struct NcclProtocolFit {
  // The envelope's segments in size order (one to three protocols; a
  // protocol whose sizes NCCL never ran is not fitted and keeps the table's).
  std::vector<NcclProtocolLine> lines;
  NcclTable table;  // the input table with the fitted ring entries
  // Over all points, in relative residuals (fit_line's weights): R^2 of the
  // envelope and its worst miss, (model - measured) / measured.
  double r_squared = 0;
  double worst_miss = 0;
};

// Fits the ring entries of `table` to AllReduce (or AllGather,
// ReduceScatter) times measured on `group` (one node: the fit reads
// nsteps x the intra-node hop). Every contiguous split of the sizes into up
// to three segments, each of at least two sizes, is fitted (a non-negative
// line per segment, relative residuals), and the best envelope whose
// latencies and bandwidths both rise from LL to LL128 to Simple is kept;
// each segment is the protocol that `table`'s own ring model picks at the
// segment's middle size (geometric), and a split whose segments do not take
// rising protocols is skipped. `launch_seconds` is subtracted from every
// time first (NCCL's model leaves the launch out). Only the ring is fitted:
// where NCCL runs NVLS or a tree for some sizes (an AllReduce on an NVSwitch
// node), fit a kind that runs the ring (AllGather) or measure with
// NCCL_ALGO=Ring.
// Errors ("found X; expected Y"): fewer than two points, a group on several
// nodes, a kind other than those, no monotonic envelope.
Result<NcclProtocolFit> fit_nccl_protocols(const NcclTable& table,
                                           const cost::NcclGroupShape& group, CollectiveKind kind,
                                           std::vector<NcclSizePoint> points,
                                           double launch_seconds);

// The fit-sanity rules calibrate applies to every collective fit
// (realexec::apply_fit_sanity, issue 18 item 15), for this one: "" when the
// fit may be written, else why not: times that fall as sizes grow (a smaller
// size over 1.1 x slower than a larger), R^2 < 0.5, a size missed by more
// than a factor of 3, or a table check_nccl_table refuses (incomplete or
// non-monotonic).
std::string nccl_fit_refusal(const NcclProtocolFit& fit, const std::vector<NcclSizePoint>& points);

struct Calibration;

// Calibrate's use of the above: where the calibrated device's profile has an
// NCCL table and collectives were measured on one node, fits the ring's
// protocols to the measured AllReduce (AllGather where the table has NVLS:
// NCCL's AllReduce runs NVLS there) with the device's collective overhead as
// the launch, and writes the table into cal.profile when nccl_fit_refusal
// has nothing against it; else names the refusal in cal.rejected (the
// table calibrate started from stands). A note says what was fitted.
void apply_nccl_fit(Calibration& cal, const Topology& topology);

}  // namespace brigade::realexec
