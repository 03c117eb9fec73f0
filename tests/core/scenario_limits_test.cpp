// Hardening (issue 20): limits checked before anything is allocated (item
// 2), numbers refused where they would overflow later (item 4), text that is
// not UTF-8 refused with its position (item 5), a repeated key reported
// before the problems after it (item 6). Every row failed before its fix:
// the scenario was accepted (and allocated gigabytes, or printed garbage
// later), or another line was reported.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/scenario.hpp"

namespace brigade {
namespace {

struct ErrorCase {
  const char* name;
  const char* text;
  const char* expected;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

class ScenarioLimit : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ScenarioLimit, ExactMessage) {
  const ErrorCase& c = GetParam();
  Result<Scenario> r = parse_scenario(c.text, "t.yaml");
  ASSERT_FALSE(r.is_ok()) << "parsed without error:\n" << c.text;
  EXPECT_EQ(r.message(), c.expected) << c.text;
}

#define LIMITS "(docs/scenario-format.md, \"Limits\")"
#define COLLECTIVE "model: {collective: {kind: allreduce, bytes: 1MB}}\n"

const ErrorCase kCases[] = {
    // Item 2: a 49-byte scenario allocated 5.6 GB.
    {"DevicesAboveTheLimit", "topology: {preset: cpu-host, devices: 125045548}\n" COLLECTIVE,
     "t.yaml:1:39: error: found 125045548 devices; expected at most 65536 devices " LIMITS},
    {"NodesAboveTheLimit", "topology: {preset: dgx-a100, nodes: 1000000000}\n" COLLECTIVE,
     "t.yaml:1:37: error: found 1000000000 nodes of 8 devices (8000000000 devices); expected at "
     "most 65536 devices " LIMITS},
    {"NodesTimesDevicesAboveTheLimit",
     "topology: {preset: cpu-host, nodes: 3, devices: 30000}\n" COLLECTIVE,
     "t.yaml:1:37: error: found 3 nodes of 30000 devices (90000 devices); expected at most "
     "65536 devices " LIMITS},
    // Item 4: integers near INT64_MAX overflowed in the judges ("MFU 262.5%").
    {"TransformerHiddenNearInt64Max",
     "topology: {preset: dgx-a100}\n"
     "model: {transformer: {layers: 2, hidden: 9223372036854775807, heads: 1, seq: 8, vocab: "
     "8}}\n",
     "t.yaml:2:42: error: found '9223372036854775807'; expected an integer from 1 to 2147483647"},
    {"WidthBeyondInt64",
     "topology: {preset: cpu-host}\n"
     "model: {mlp: {batch: 8, widths: [16, 99999999999999999999]}}\n",
     "t.yaml:2:38: error: found '99999999999999999999'; expected an integer from 1 to 2147483647"},
    {"ShapeOfTooManyDimensions",
     "topology: {preset: cpu-host}\n"
     "model: {graph: {tensors: {x: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
     "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
     "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]}, ops: [{op: relu, in: x, out: y}]}}\n",
     "t.yaml:2:30: error: found 65 dimensions; expected at most 64 dimensions " LIMITS},
    {"TensorOfTooManyElements",
     "topology: {preset: cpu-host}\n"
     "model: {graph: {tensors: {x: [2147483647, 2147483647, 4]}, ops: [{op: relu, in: x, out: "
     "y}]}}\n",
     "t.yaml:2:27: error: found tensor 'x' of 1.84e+19 elements; expected at most 2^53 (9.01e15) "
     "elements " LIMITS},
    // 1e308GB/s became infinity and was accepted although '.inf' was refused.
    {"FabricBandwidthThatOverflows",
     "topology: {preset: dgx-a100, nodes: 2, fabric: {bandwidth: 1e308GB/s}}\n" COLLECTIVE,
     "t.yaml:1:60: error: found '1e308GB/s'; expected a positive bandwidth from 1 bit/s to 1e18 "
     "B/s"},
    {"LinkBandwidthTooSmallToDivideBy",
     "topology:\n"
     "  devices: [{memory: 1GiB, memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}},\n"
     "            {memory: 1GiB, memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}]\n"
     "  links: [{between: [0, 1], bandwidth: 1e-300, latency: 1us}]\n" COLLECTIVE,
     "t.yaml:4:40: error: found '1e-300'; expected a positive bandwidth from 1 bit/s to 1e18 B/s"},
    {"LatencyOfAMillionYears",
     "topology:\n"
     "  devices: [{memory: 1GiB, memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}},\n"
     "            {memory: 1GiB, memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}]\n"
     "  links: [{between: [0, 1], bandwidth: 1GB/s, latency: 1e308}]\n" COLLECTIVE,
     "t.yaml:4:56: error: found '1e308'; expected a duration of at most 1e6 s (11.6 days)"},
    {"SpeedFactorTooSmallToDivideBy",
     "topology: {preset: cpu-host, devices: 4}\n" COLLECTIVE "simulation: {speed: {1: 1e-300}}\n",
     "t.yaml:3:25: error: found '1e-300'; expected a speed factor from 1e-6 to 1e6"},
    // Item 5: invalid UTF-8 made --json fail with an internal error.
    {"NameNotUtf8", "name: ab\xff\xfe\ntopology: {preset: cpu-host}\n" COLLECTIVE,
     "t.yaml:1:9: error: found byte 0xff, which is not UTF-8; expected UTF-8 text"},
    {"OverlongUtf8", "topology: {preset: cpu-host}\n" COLLECTIVE "description: \xc0\xaf\n",
     "t.yaml:3:14: error: found byte 0xc0, which is not UTF-8; expected UTF-8 text"},
    {"ControlCharacter", "name: a\x01z\ntopology: {preset: cpu-host}\n" COLLECTIVE,
     "t.yaml:1:8: error: found control character 0x01; expected text without control characters "
     "(tab and line breaks aside)"},
    // Both faults in one pass: a byte that is not UTF-8 is reported even
    // after a control character.
    {"NotUtf8AfterAControlCharacter",
     "name: a\x01z\ntopology: {preset: cpu-host}\n" COLLECTIVE "description: \xc0\xaf\n",
     "t.yaml:4:14: error: found byte 0xc0, which is not UTF-8; expected UTF-8 text"},
    {"EscapedNulInAName",
     "topology:\n"
     "  devices: [{name: \"a\\0b\", memory: 1GiB, memory_bandwidth: 1TB/s, flops: {f32: "
     "1TFLOPS}}]\n" COLLECTIVE,
     "t.yaml:2:20: error: found 'a\\x00b'; expected a name on one line"},
    {"EscapedNulInADescription",
     "topology: {preset: cpu-host}\n" COLLECTIVE "description: \"a\\0b\"\n",
     "t.yaml:3:14: error: found 'a\\x00b' with control character 0x00; expected UTF-8 text "
     "without control characters (tab and line breaks aside)"},
    {"JsonLoneSurrogate",
     "{\"name\": \"\\udc00\", \"topology\": {\"preset\": \"cpu-host\"}, \"model\": "
     "{\"collective\": {\"kind\": \"allreduce\", \"bytes\": \"1MB\"}}}\n",
     "t.yaml:1:17: error: found malformed YAML (invalid unicode: 56320); expected a well-formed "
     "YAML or JSON scenario"},
    // Item 6: the key repeated on line 4 was reported after the problem on line 7.
    {"RepeatedKeyBeforeALaterProblem",
     "topology: {preset: cpu-host, devices: 4}\n"
     "strategy:\n"
     "  data: 4\n"
     "  data: 2\n"
     "model:\n"
     "  mlp:\n"
     "    batch: eight\n",
     "t.yaml:4:3: error: found key 'data' a second time; expected each key once"},
    {"RepeatedKeyInJson",
     "{\"topology\": {\"preset\": \"cpu-host\"}, \"model\": {\"mlp\": {\"batch\": 8, \"batch\": "
     "4}}}\n",
     "t.yaml:1:68: error: found key 'batch' a second time; expected each key once"},
};

INSTANTIATE_TEST_SUITE_P(Scenario, ScenarioLimit, ::testing::ValuesIn(kCases),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// A listed topology is counted before a device is read: 65537 devices (as
// JSON: each item has its own position) stop at the 65537th.
TEST(ScenarioLimits, ListedDevicesAboveTheLimitStopAtTheFirstOneTooMany) {
  const std::string head = "{\"topology\": {\"devices\": [";
  std::string text = head;
  for (int i = 0; i <= ScenarioLimits::kMaxDevices; ++i) text += i ? ",0" : "0";
  text += "]}, \"model\": {\"collective\": {\"kind\": \"allreduce\", \"bytes\": 1}}}";
  Result<Scenario> r = parse_scenario(text, "t.json");
  ASSERT_FALSE(r.is_ok());
  const size_t column = head.size() + 2 * 65536 + 1;
  EXPECT_EQ(r.message(), "t.json:1:" + std::to_string(column) +
                             ": error: found more than 65536 devices; expected at most 65536 "
                             "devices " LIMITS);
}

// YAML text above 16 MiB must be JSON (yaml-cpp would hold ~1.2 GB for it).
TEST(ScenarioLimits, YamlAboveSixteenMebibytesMustBeJson) {
  std::string text = "topology: {preset: cpu-host}\n";
  while (text.size() <= (size_t{16} << 20)) text += "# a comment line to make the file large\n";
  Result<Scenario> r = parse_scenario(text, "t.yaml");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), "t.yaml:1:1: error: found malformed JSON (found a character that starts "
                         "no JSON value) in a file of " +
                             std::to_string(text.size()) +
                             " bytes; expected JSON (text above 16 MiB must be JSON)");
}

class ScenarioFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("brigade_limits_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

#define WHAT "; expected a readable scenario file (.yaml, .yml or .json)"

// A FIFO with no writer used to hang the reader; a device was read forever.
TEST_F(ScenarioFiles, AFifoWithNoWriterIsRefusedAtOnce) {
  const std::string p = path("s.yaml");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  Result<Scenario> r = load_scenario(p);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), p + ": error: found a FIFO" WHAT);
}

TEST_F(ScenarioFiles, DevicesAndFoldersAreRefused) {
  for (const char* dev : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
    Result<Scenario> r = load_scenario(dev);
    ASSERT_FALSE(r.is_ok()) << dev;
    EXPECT_EQ(r.message(), std::string(dev) + ": error: found a character device" WHAT);
  }
  Result<Scenario> r = load_scenario(dir_.string());
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), dir_.string() + ": error: found a folder" WHAT);
}

// The size is checked before a byte is read (a sparse file takes no disk).
TEST_F(ScenarioFiles, AFileAboveTheSizeLimitIsRefusedBeforeItIsRead) {
  const std::string p = path("big.yaml");
  const int fd = ::open(p.c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(ScenarioLimits::kMaxFileBytes) + 1), 0);
  ::close(fd);
  Result<Scenario> r = load_scenario(p);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), p + ": error: found a file of 268435457 bytes" WHAT
                             " of at most 268435456 bytes " LIMITS);
}

TEST_F(ScenarioFiles, AMissingFileSaysWhy) {
  Result<Scenario> r = load_scenario(path("none.yaml"));
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            path("none.yaml") + ": error: found no readable file (No such file or directory)" WHAT);
}

}  // namespace
}  // namespace brigade
