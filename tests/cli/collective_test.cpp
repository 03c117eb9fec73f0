// `brigade collective`: JSON values against the formulas (issue 2: 1e-9
// relative), exact error lines and exit codes.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

nlohmann::json run_json(const std::vector<std::string>& args) {
  auto r = run_brigade(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return nlohmann::json::parse(r.out);
}

void expect_rel(double actual, double expected) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * 1e-9) << "expected " << expected;
}

// The seed's ring AllReduce, N = 8, alpha = 5 us, B = 100 GB/s, M = 1 GiB:
//   T = 2*7*5e-6 + 2*7/8 * 2^30/1e11 = 7e-5 + 0.01879048192 = 0.01886048192 s;
//   algBw = 2^30 / T = 5.69307...e10 B/s; busBw = 1.75 algBw (nccl-tests).
TEST(CollectiveVerb, RingAllReduceJson) {
  auto j = run_json({"collective", "allreduce", "--devices", "8", "--bytes", "1GiB", "--alpha",
                     "5us", "--bandwidth", "100GB/s", "--json"});
  expect_rel(j["seconds"].get<double>(), 0.01886048192);
  expect_rel(j["alg_bandwidth"].get<double>(), 1073741824.0 / 0.01886048192);
  expect_rel(j["bus_bandwidth"].get<double>(), 1.75 * 1073741824.0 / 0.01886048192);
  EXPECT_EQ(j["kind"], "allreduce");
  EXPECT_EQ(j["algorithm"], "ring");
}

// SI numbers work as well as units: the same query in bytes, seconds and B/s.
TEST(CollectiveVerb, SiNumbersEqualUnits) {
  auto j = run_json({"collective", "allreduce", "--devices", "8", "--bytes", "1073741824",
                     "--alpha", "5e-6", "--bandwidth", "1e11", "--json"});
  expect_rel(j["seconds"].get<double>(), 0.01886048192);
}

// Hierarchical, 2 nodes x 8: 2.8e-5 + 1.75*2^30/2.4e11 + 1e-5 + (2^30/8)/2.3e10
//   = 0.013702920857971014 s (tests/costmodel/collectives_test.cpp works it out).
TEST(CollectiveVerb, HierarchicalJson) {
  auto j = run_json({"collective", "allreduce", "--devices", "16", "--bytes", "1GiB", "--alpha",
                     "2us", "--bandwidth", "240GB/s", "--algorithm", "hierarchical",
                     "--ranks-per-node", "8", "--inter-alpha", "5us", "--inter-bandwidth", "23GB/s",
                     "--json"});
  expect_rel(j["seconds"].get<double>(), 0.013702920857971014);
}

// AllGather, halving-doubling, N = 4, 1 us, 10 GB/s, 400 MB: 2e-6 + 3/4 * 0.04 = 0.030002 s;
// busBw = 400e6/0.030002 * 3/4. With 10 us of overhead: 0.030012 s.
TEST(CollectiveVerb, AllGatherHalvingDoublingWithOverhead) {
  auto j = run_json({"collective", "allgather", "--devices", "4", "--bytes", "400MB", "--alpha",
                     "1us", "--bandwidth", "10GB/s", "--algorithm", "halving-doubling", "--json"});
  expect_rel(j["seconds"].get<double>(), 0.030002);
  expect_rel(j["bus_bandwidth"].get<double>(), 400e6 / 0.030002 * 0.75);
  auto k = run_json({"collective", "allgather", "--devices", "4", "--bytes", "400MB", "--alpha",
                     "1us", "--bandwidth", "10GB/s", "--algorithm", "halving-doubling",
                     "--overhead", "10us", "--json"});
  expect_rel(k["seconds"].get<double>(), 0.030012);
}

// The alpha term and the beta term apart (issue 17; the seed's quiz Q3): ring
// AllReduce, N = 8, alpha = 5 us, B = 100 GB/s, M = 1 GiB:
//   alpha term 2(N-1)alpha = 14 x 5 us = 7e-5 s, whatever M;
//   beta term 2(N-1)/N M/B = 1.75 x 2^30 / 1e11 = 0.01879048192 s;
//   with 10 us of overhead the time is their sum + 1e-5.
TEST(CollectiveVerb, AlphaAndBetaTermsApart) {
  auto j = run_json({"collective", "allreduce", "--devices", "8", "--bytes", "1GiB", "--alpha",
                     "5us", "--bandwidth", "100GB/s", "--overhead", "10us", "--json"});
  expect_rel(j["alpha_term_seconds"].get<double>(), 7e-5);
  expect_rel(j["beta_term_seconds"].get<double>(), 0.01879048192);
  EXPECT_EQ(j["alpha_messages"].get<double>(), 14);
  expect_rel(j["seconds"].get<double>(), 7e-5 + 0.01879048192 + 1e-5);
  // 1 KiB: the alpha term is unchanged, the beta term 1.75 x 1024 / 1e11 = 1.792e-8 s.
  auto k = run_json({"collective", "allreduce", "--devices", "8", "--bytes", "1KiB", "--alpha",
                     "5us", "--bandwidth", "100GB/s", "--json"});
  expect_rel(k["alpha_term_seconds"].get<double>(), 7e-5);
  expect_rel(k["beta_term_seconds"].get<double>(), 1.792e-8);
  // Tree AllReduce on 8: 2 ceil(lg 8) = 6 latencies.
  auto t = run_json({"collective", "allreduce", "--devices", "8", "--bytes", "1GiB", "--alpha",
                     "5us", "--bandwidth", "100GB/s", "--algorithm", "tree", "--json"});
  expect_rel(t["alpha_term_seconds"].get<double>(), 3e-5);
  EXPECT_EQ(t["alpha_messages"].get<double>(), 6);
}

TEST(CollectiveVerb, HumanOutputShowsBothTerms) {
  auto r = run_brigade({"collective", "allreduce", "--devices", "8", "--bytes", "1GiB", "--alpha",
                        "5us", "--bandwidth", "100GB/s"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("    α term    70.0 us   latency: paid even for 0 bytes (14 latencies of "
                       "5.00 us in series)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    β term    18.8 ms   bandwidth: grows with the bytes"), std::string::npos)
      << r.out;
}

// The human table names the quantities with units.
TEST(CollectiveVerb, HumanOutput) {
  auto r = run_brigade({"collective", "allreduce", "--devices", "8", "--bytes", "1GiB", "--alpha",
                        "5us", "--bandwidth", "100GB/s"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("allreduce of 1.00 GiB over 8 devices, ring algorithm"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("18.9 ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("56.9 GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("99.6 GB/s"), std::string::npos) << r.out;
}

struct BadFlags {
  const char* name;
  std::vector<std::string> args;
  const char* err;
};

void PrintTo(const BadFlags& b, std::ostream* os) { *os << b.name; }

class CollectiveVerbErrors : public ::testing::TestWithParam<BadFlags> {};

TEST_P(CollectiveVerbErrors, OneLineExitTwo) {
  std::vector<std::string> args{"collective"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  auto r = run_brigade(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string(GetParam().err) + "\n");
  EXPECT_EQ(r.out, "");
}

const std::vector<std::string> kGood = {"--devices", "8", "--bytes", "1GiB", "--alpha", "5us"};

std::vector<std::string> with(std::vector<std::string> extra, std::string kind = "allreduce") {
  std::vector<std::string> v{std::move(kind)};
  v.insert(v.end(), kGood.begin(), kGood.end());
  v.insert(v.end(), extra.begin(), extra.end());
  return v;
}

INSTANTIATE_TEST_SUITE_P(
    Lines, CollectiveVerbErrors,
    ::testing::Values(
        BadFlags{"negative_bandwidth", with({"--bandwidth=-5"}),
                 "brigade: error: --bandwidth: found '-5'; expected a positive bandwidth such as "
                 "25GB/s"},
        BadFlags{"negative_bandwidth_spaced", with({"--bandwidth", "-5"}),
                 "brigade: error: --bandwidth: found '-5'; expected a positive bandwidth such as "
                 "25GB/s"},
        BadFlags{"zero_bandwidth", with({"--bandwidth", "0"}),
                 "brigade: error: --bandwidth: found '0'; expected a positive bandwidth such as "
                 "25GB/s"},
        BadFlags{"bandwidth_in_bytes", with({"--bandwidth", "25GB"}),
                 "brigade: error: --bandwidth: found '25GB'; expected a positive bandwidth such "
                 "as 25GB/s"},
        BadFlags{"bytes_unit", {"allreduce", "--devices", "8", "--bytes", "1 parsec", "--alpha",
                                "5us", "--bandwidth", "1e9"},
                 "brigade: error: --bytes: found '1 parsec'; expected a size >= 0 such as 1GiB"},
        BadFlags{"alpha_negative", {"allreduce", "--devices", "8", "--bytes", "1", "--alpha=-1us",
                                    "--bandwidth", "1e9"},
                 "brigade: error: --alpha: found '-1us'; expected a duration >= 0 such as 5us"},
        BadFlags{"devices_zero", {"allreduce", "--devices", "0", "--bytes", "1", "--alpha", "0",
                                  "--bandwidth", "1e9"},
                 "brigade: error: --devices: found '0'; expected a whole number >= 1"},
        BadFlags{"devices_fraction", {"allreduce", "--devices", "2.5", "--bytes", "1", "--alpha",
                                      "0", "--bandwidth", "1e9"},
                 "brigade: error: --devices: found '2.5'; expected a whole number >= 1"},
        BadFlags{"unknown_kind", with({"--bandwidth", "1e9"}, "allreduse"),
                 "brigade: error: KIND: found 'allreduse'; expected one of allreduce, allgather, "
                 "reducescatter, broadcast, reduce, alltoall (did you mean 'allreduce'?)"},
        BadFlags{"unknown_algorithm", with({"--bandwidth", "1e9", "--algorithm", "rings"}),
                 "brigade: error: --algorithm: found 'rings'; expected one of ring, tree, "
                 "halving-doubling, hierarchical (did you mean 'ring'?)"},
        BadFlags{"halving_doubling_6", {"allreduce", "--devices", "6", "--bytes", "1", "--alpha",
                                        "0", "--bandwidth", "1e9", "--algorithm",
                                        "halving-doubling"},
                 "brigade: error: --devices: found '6'; expected a power of two (1, 2, 4, 8, ...) "
                 "for --algorithm halving-doubling"},
        BadFlags{"hierarchical_uneven",
                 {"allreduce", "--devices", "12", "--bytes", "1", "--alpha", "0", "--bandwidth",
                  "1e9", "--algorithm", "hierarchical", "--ranks-per-node", "8", "--inter-alpha",
                  "5us", "--inter-bandwidth", "25GB/s"},
                 "brigade: error: --ranks-per-node: found '8'; expected a divisor of --devices 12 "
                 "(whole nodes)"},
        BadFlags{"hierarchical_without_g", with({"--bandwidth", "1e9", "--algorithm", "hierarchical"}),
                 "brigade: error: --algorithm hierarchical: found no --ranks-per-node; expected "
                 "--ranks-per-node G (and --inter-alpha, --inter-bandwidth when there are several "
                 "nodes)"},
        BadFlags{"hierarchical_without_inter",
                 with({"--bandwidth", "1e9", "--algorithm", "hierarchical", "--ranks-per-node", "4",
                       "--inter-alpha", "5us"}),
                 "brigade: error: --algorithm hierarchical: found no --inter-bandwidth; expected "
                 "--inter-alpha and --inter-bandwidth for 8 ranks on nodes of 4"},
        BadFlags{"inter_without_hierarchical", with({"--bandwidth", "1e9", "--ranks-per-node", "4"}),
                 "brigade: error: --ranks-per-node: found '4'; expected it only with --algorithm "
                 "hierarchical"},
        BadFlags{"hierarchical_broadcast",
                 with({"--bandwidth", "1e9", "--algorithm", "hierarchical", "--ranks-per-node", "8"},
                      "broadcast"),
                 "brigade: error: --algorithm: found 'hierarchical'; expected ring, tree or "
                 "halving-doubling for broadcast (hierarchical is defined for allreduce, allgather "
                 "and reducescatter)"},
        BadFlags{"tree_allgather", with({"--bandwidth", "1e9", "--algorithm", "tree"}, "allgather"),
                 "brigade: error: --algorithm: found 'tree'; expected ring, halving-doubling or "
                 "hierarchical for allgather (tree is defined for allreduce, broadcast and reduce)"},
        BadFlags{"tree_alltoall", with({"--bandwidth", "1e9", "--algorithm", "tree"}, "alltoall"),
                 "brigade: error: --algorithm: found 'tree'; expected ring for alltoall (alltoall "
                 "is modelled as N-1 pairwise exchanges; the algorithm does not apply)"},
        BadFlags{"extra_argument", with({"--bandwidth", "1e9", "extra"}),
                 "brigade: error: found unexpected argument 'extra'; expected only the flags and "
                 "arguments of 'brigade collective --help'"},
        BadFlags{"mistyped_flag", with({"--bandwidth", "1e9", "--bandwith", "2"}),
                 "brigade: error: found unexpected arguments '--bandwith', '2'; expected only the "
                 "flags and arguments of 'brigade collective --help' (did you mean '--bandwidth'?)"},
        BadFlags{"mistyped_flag_alone", with({"--bandwidth", "1e9", "--algoritm=ring"}),
                 "brigade: error: found unexpected argument '--algoritm=ring'; expected only the "
                 "flags and arguments of 'brigade collective --help' (did you mean "
                 "'--algorithm'?)"}));

// A missing required flag names the flag in the found/expected form.
TEST(CollectiveVerb, MissingBandwidth) {
  std::vector<std::string> args{"collective"};
  for (const std::string& a : with({})) args.push_back(a);
  auto r = run_brigade(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "brigade: error: --bandwidth: found nothing; expected a value (--bandwidth is "
            "required without --preset; see 'brigade collective --help')\n");
}

// --model nccl on a preset: NCCL's choice and its time (hand-worked in
// tests/costmodel/nccl_model_test.cpp from NCCL's src/graph/tuning.cc).
// DGX H100, 8 ranks, 1 GiB AllReduce: NVLS, 25 us + 2^30 / (480 GB/s x 8/14)
// and two loops of NVLS's pipeline fill (128 x 128 KiB chunks = 16 MiB each);
// busBw = algBw x 14/8.
TEST(CollectiveVerb, NcclModelOnDgxH100) {
  auto j = run_json({"collective", "allreduce", "--model", "nccl", "--preset", "dgx-h100",
                     "--devices", "8", "--bytes", "1GiB", "--json"});
  const double want = 25e-6 + (1073741824.0 + 2 * 16777216.0) / (480e9 * 8 / 14);
  expect_rel(j["seconds"].get<double>(), want);
  expect_rel(j["bus_bandwidth"].get<double>(), 1.75 * 1073741824.0 / want);
  EXPECT_EQ(j["model"], "nccl");
  EXPECT_EQ(j["nccl_algorithm"], "nvls");
  EXPECT_EQ(j["nccl_protocol"], "simple");
  // ring and tree x 3 protocols, NVLS and NVLS-tree Simple (NVLS-tree listed as
  // not available on one node)
  EXPECT_EQ(j["candidates"].size(), 8u);
  // NVLS's chunk at 1 GiB on 8 GPUs: 128 KiB (calcCollChunking).
  for (const auto& k : j["candidates"]) {
    if (k["algorithm"] == "nvls") {
      EXPECT_EQ(k["chunk_bytes"].get<double>(), 131072.0);
    }
  }
  // DGX A100, 64 KiB: ring LL, 15.0 us + 65536 / (87.7 GB/s x 8/14) in
  // NCCL's model, run on 2 of the node's 24 channels (NCCL's enqueue: 32768
  // B a channel for ring LL on 8 ranks): algBw x 2/24.
  auto a = run_json({"collective", "allreduce", "--model", "nccl", "--preset", "dgx-a100",
                     "--devices", "8", "--bytes", "64KiB", "--json"});
  expect_rel(a["seconds"].get<double>(), 15e-6 + 65536 / (87.7e9 * 8 / 14 * 2 / 24));
  EXPECT_EQ(a["nccl_algorithm"], "ring");
  EXPECT_EQ(a["nccl_protocol"], "ll");
}

// The same preset under alpha-beta: the ring on the preset's routes, no
// NCCL fields.
TEST(CollectiveVerb, AlphaBetaOnPreset) {
  auto j = run_json({"collective", "allreduce", "--model", "alpha-beta", "--preset", "dgx-h100",
                     "--devices", "8", "--bytes", "1GiB", "--json"});
  EXPECT_EQ(j["model"], "alpha-beta");
  EXPECT_EQ(j["modelled_algorithm"], "ring");
  EXPECT_FALSE(j.contains("nccl_protocol"));
}

// An AllToAll over two DGX A100 nodes: NCCL's grouped sends, each rank's
// 7 peers on its node beside its 8 on the other (docs/costmodel.md):
// 8 x (5 us + 1 MiB / 23 GB/s) = 404.7 us (CollectiveQueryOn.AllToAllAcrossTwoNodes).
TEST(CollectiveVerb, AllToAllOverNodesIsGroupedSends) {
  auto j = run_json({"collective", "alltoall", "--preset", "dgx-a100", "--nodes", "2", "--devices",
                     "16", "--bytes", "16MiB", "--json"});
  EXPECT_EQ(j["modelled_algorithm"],
            "grouped sends, a rank's 7 peers on its node beside its 8 on others");
  EXPECT_EQ(j["local_peers"], 7);
  EXPECT_EQ(j["remote_peers"], 8);
  EXPECT_NEAR(j["seconds"].get<double>(), 8 * (5e-6 + 1048576 / 23e9), 1e-12);
  auto one = run_json({"collective", "alltoall", "--preset", "dgx-a100", "--devices", "8",
                       "--bytes", "16MiB", "--json"});
  EXPECT_EQ(one["modelled_algorithm"], "ring");
  EXPECT_FALSE(one.contains("local_peers"));
}

TEST(CollectiveVerb, NcclModelErrors) {
  auto nvls = run_brigade({"collective", "allreduce", "--model", "nccl", "--preset", "dgx-a100",
                           "--devices", "8", "--bytes", "1GiB", "--algorithm", "nvls"});
  EXPECT_EQ(nvls.exit_code, 2);
  EXPECT_EQ(nvls.err,
            "brigade: error: --algorithm: found algorithm 'nvls'; expected hardware that can run "
            "NVLS: device 'gpu0' (NVIDIA A100-SXM4-80GB) has no NVLS: NVLink SHARP needs a "
            "third-generation NVSwitch (Hopper or later), and its NCCL table has no nvls\n");
  EXPECT_EQ(nvls.out, "");
  auto no_preset = run_brigade({"collective", "allreduce", "--model", "nccl", "--devices", "8",
                                "--bytes", "1GiB"});
  EXPECT_EQ(no_preset.exit_code, 2);
  EXPECT_EQ(no_preset.err.rfind("brigade: error: --model nccl: found no --preset; expected "
                                "--preset NAME (", 0),
            0u)
      << no_preset.err;
  auto too_many = run_brigade({"collective", "allreduce", "--model", "nccl", "--preset",
                               "dgx-h100", "--devices", "16", "--bytes", "1GiB"});
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_EQ(too_many.err,
            "brigade: error: --devices: found '16'; expected at most 8 (the devices of dgx-h100 "
            "on 1 node; more with --nodes)\n");
  auto alpha = run_brigade({"collective", "allreduce", "--model", "nccl", "--preset", "dgx-h100",
                            "--devices", "8", "--bytes", "1GiB", "--alpha", "5us"});
  EXPECT_EQ(alpha.exit_code, 2);
  EXPECT_EQ(alpha.err,
            "brigade: error: --alpha: found '5us'; expected it only without --preset (the "
            "preset's routes and profile give latency, bandwidth and nodes)\n");
  auto model = run_brigade({"collective", "allreduce", "--model", "ncl", "--preset", "dgx-h100",
                            "--devices", "8", "--bytes", "1GiB"});
  EXPECT_EQ(model.exit_code, 2);
  EXPECT_EQ(model.err,
            "brigade: error: --model: found 'ncl'; expected one of alpha-beta, nccl (did you mean "
            "'nccl'?)\n");
}

// --nccl-version: the preset's NCCL tables follow that release's tuning
// model (tests/costmodel/nccl_version_test.cpp works the numbers by hand).
// Four DGX H100 nodes, 2 MiB: NCCL 2.24 takes NVLS-tree (81 us + 2 MiB /
// (184 GB/s x 5/6), two loops of fill: 81 + 3 x 13.677 = 122.03 us), 2.29
// (the default) the tree LL128.
TEST(CollectiveVerb, NcclVersionFlag) {
  const std::vector<std::string> base = {"collective", "allreduce", "--model", "nccl",
                                         "--preset", "dgx-h100", "--nodes", "4",
                                         "--devices", "32", "--bytes", "2MiB", "--json"};
  auto old = base;
  old.insert(old.end(), {"--nccl-version", "2.24"});
  auto j = run_json(old);
  EXPECT_EQ(j["nccl_version"], "2.24");
  EXPECT_EQ(j["nccl_algorithm"], "nvls_tree");
  expect_rel(j["seconds"].get<double>(), 81e-6 + 3 * 2097152.0 / (184e9 * 5 / 6));
  auto d = run_json(base);
  EXPECT_EQ(d["nccl_version"], "2.29");
  EXPECT_EQ(d["nccl_algorithm"], "tree");
  EXPECT_EQ(d["nccl_protocol"], "ll128");

  auto bad = base;
  bad.insert(bad.end(), {"--nccl-version", "2.30"});
  auto r = run_brigade(bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "brigade: error: --nccl-version: found '2.30'; expected one of 2.24, 2.29 (did you "
            "mean '2.24'?)\n");
  EXPECT_EQ(r.out, "");
  auto no_preset = run_brigade({"collective", "allreduce", "--devices", "8", "--bytes", "1GiB",
                                "--alpha", "5us", "--bandwidth", "100GB/s", "--nccl-version",
                                "2.24"});
  EXPECT_EQ(no_preset.exit_code, 2);
  EXPECT_EQ(no_preset.err,
            "brigade: error: --nccl-version: found '2.24'; expected it only with --preset\n");
}

}  // namespace
}  // namespace brigade
