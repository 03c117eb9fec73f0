// `brigade amdahl`: S(N) and efficiency by hand, the fit, exact error lines.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

namespace brigade {
namespace {

using testing::run_brigade;

// p = 0.95: S(8) = 1/(0.05 + 0.95/8) = 160/27 = 5.9259...; efficiency 20/27;
// Gustafson 0.05 + 0.95*8 = 7.65; ceiling 1/0.05 = 20; doubling limit 0.95*0.9/(0.2*0.05) = 85.5.
TEST(AmdahlVerb, SeedByHandJson) {
  auto r = run_brigade({"amdahl", "--p", "0.95", "--devices", "1,2,4,8", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 4u);
  EXPECT_EQ(j["rows"][0]["devices"], 1);
  EXPECT_DOUBLE_EQ(j["rows"][0]["speedup"].get<double>(), 1.0);
  EXPECT_EQ(j["rows"][3]["devices"], 8);
  EXPECT_NEAR(j["rows"][3]["speedup"].get<double>(), 160.0 / 27.0, 1e-12);
  EXPECT_NEAR(j["rows"][3]["efficiency"].get<double>(), 20.0 / 27.0, 1e-12);
  EXPECT_NEAR(j["rows"][3]["gustafson_speedup"].get<double>(), 7.65, 1e-12);
  EXPECT_NEAR(j["max_speedup"].get<double>(), 20.0, 1e-9);
  EXPECT_NEAR(j["doubling_limit_devices"].get<double>(), 85.5, 1e-9);
}

TEST(AmdahlVerb, HumanTable) {
  auto r = run_brigade({"amdahl", "--p", "0.95", "--devices", "8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("5.926"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("74.1%"), std::string::npos) << r.out;
}

// Exact points of p = 0.8: S(2) = 1/(0.2 + 0.4) = 5/3, S(4) = 1/(0.2 + 0.2) = 2.5: p = 0.8, R^2 = 1.
TEST(AmdahlVerb, FitRecoversP) {
  auto r = run_brigade({"amdahl", "--fit", "1:1,2:1.6666666666666667,4:2.5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["p"].get<double>(), 0.8, 1e-12);
  EXPECT_NEAR(j["fit"]["r_squared"].get<double>(), 1.0, 1e-12);
  ASSERT_EQ(j["rows"].size(), 3u);  // one row per fitted point when --devices is absent
  EXPECT_NEAR(j["rows"][2]["speedup"].get<double>(), 2.5, 1e-12);
}

struct BadAmdahl {
  const char* name;
  std::vector<std::string> args;
  const char* err;
};

void PrintTo(const BadAmdahl& b, std::ostream* os) { *os << b.name; }

class AmdahlVerbErrors : public ::testing::TestWithParam<BadAmdahl> {};

TEST_P(AmdahlVerbErrors, OneLineExitTwo) {
  std::vector<std::string> args{"amdahl"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  auto r = run_brigade(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string(GetParam().err) + "\n");
  EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Lines, AmdahlVerbErrors,
    ::testing::Values(
        BadAmdahl{"p_above_one", {"--p", "1.5"},
                  "brigade: error: --p: found '1.5'; expected a number from 0 to 1"},
        BadAmdahl{"p_text", {"--p", "most"},
                  "brigade: error: --p: found 'most'; expected a number from 0 to 1"},
        BadAmdahl{"devices_list", {"--p", "0.9", "--devices", "1,2,x"},
                  "brigade: error: --devices: found '1,2,x'; expected a comma-separated list of "
                  "whole numbers >= 1 such as 1,2,4,8"},
        BadAmdahl{"neither", {},
                  "brigade: error: amdahl: found neither --p nor --fit; expected one of them"},
        BadAmdahl{"both", {"--p", "0.9", "--fit", "1:1,2:1.8"},
                  "brigade: error: amdahl: found both --p and --fit; expected one of them"},
        BadAmdahl{"fit_syntax", {"--fit", "1-1,2:1.8"},
                  "brigade: error: --fit: found '1-1,2:1.8'; expected N:S pairs such as "
                  "1:1,2:1.9,4:3.5"},
        BadAmdahl{"fit_one_point", {"--fit", "2:1.8"},
                  "brigade: error: --fit: found 1 speedup point; expected at least 2"}));

}  // namespace
}  // namespace brigade
