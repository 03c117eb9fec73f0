// Trace filters and their flag syntax (core/trace_filter.hpp).
#include "core/trace_filter.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "core/tr.hpp"

namespace brigade {
namespace {

TEST(TraceFilter, DeviceListsTakeIdsAndRanges) {
  auto d = parse_device_list("0-7,64");
  ASSERT_TRUE(d.is_ok()) << d.message();
  EXPECT_EQ(*d, (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 64}));
  auto e = parse_device_list(" 5 , 3-4,3 ");
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(*e, (std::vector<std::int32_t>{3, 4, 5}));  // sorted, each once
  EXPECT_EQ(device_list_string(*d), "0-7,64");
  EXPECT_EQ(device_list_string({1, 2, 4}), "1-2,4");
}

class BadDeviceList : public ::testing::TestWithParam<const char*> {};
TEST_P(BadDeviceList, IsRefused) {
  auto d = parse_device_list(GetParam());
  ASSERT_FALSE(d.is_ok());
  EXPECT_EQ(d.message(), "a device list such as 0-7,64 (ids and ranges A-B, A <= B)");
}
INSTANTIATE_TEST_SUITE_P(Cases, BadDeviceList,
                         ::testing::Values("", "x", "1,", "7-0", "-3", "1-", "1.5", "2-x"));

TEST(TraceFilter, WindowsTakeDurationsWithUnits) {
  auto w = parse_time_window("0:50ms");
  ASSERT_TRUE(w.is_ok()) << w.message();
  EXPECT_EQ(w->first, 0);
  EXPECT_DOUBLE_EQ(w->second, 0.05);
  auto open_end = parse_time_window("1.5s:");
  ASSERT_TRUE(open_end.is_ok());
  EXPECT_EQ(open_end->first, 1.5);
  EXPECT_TRUE(std::isinf(open_end->second));
  auto open_start = parse_time_window(":20us");
  ASSERT_TRUE(open_start.is_ok());
  EXPECT_EQ(open_start->first, 0);
  EXPECT_DOUBLE_EQ(open_start->second, 20e-6);
}

class BadWindow : public ::testing::TestWithParam<const char*> {};
TEST_P(BadWindow, IsRefused) {
  auto w = parse_time_window(GetParam());
  ASSERT_FALSE(w.is_ok());
  EXPECT_EQ(
      w.message(),
      "a window START:END such as 0:50ms or 1s: (durations with units, START < END; either may "
      "be left out)");
}
INSTANTIATE_TEST_SUITE_P(Cases, BadWindow,
                         ::testing::Values("", ":", "50ms", "2s:1s", "1s:1s", "-1s:2s",
                                           "1 parsec:2s", "0:1s:2s"));

TEST(TraceFilter, KeepsWhatItSays) {
  TraceFilter f;
  EXPECT_TRUE(f.keeps_everything());
  EXPECT_EQ(f.str(), "");
  f.devices = {2, 9};
  f.start_seconds = 1e-3;
  f.end_seconds = 2e-3;
  EXPECT_FALSE(f.keeps_everything());
  EXPECT_TRUE(f.keeps_device(9));
  EXPECT_FALSE(f.keeps_device(3));
  EXPECT_TRUE(f.overlaps(0, 1e-3));     // ends as the window opens
  EXPECT_TRUE(f.overlaps(2e-3, 3e-3));  // starts as it closes
  EXPECT_FALSE(f.overlaps(0, 0.5e-3));
  EXPECT_EQ(f.str(), "devices 2,9; window 1.00 ms to 2.00 ms");
}

// The stored filter (str()) recomposed for people: as it is without a
// translator (the CLI), each part through tr_text with one.
std::string bracketed(const char* context, const char* source, const char*, int) {
  return std::string(context) == "TraceFilter" ? std::string("[") + source + "]" : std::string();
}

TEST(TraceFilter, TextForPeopleIsTheStoredFormInTheAppsLanguage) {
  TraceFilter f;
  f.devices = {0, 1, 2, 3, 64};
  f.end_seconds = 0.05;
  const std::string stored = f.str();
  ASSERT_EQ(stored, "devices 0-3,64; window 0 s to 50.0 ms");
  EXPECT_EQ(trace_filter_text(stored), stored);
  EXPECT_EQ(trace_filter_text("window 1.00 ms to the end"), "window 1.00 ms to the end");
  set_translator(&bracketed);
  EXPECT_EQ(trace_filter_text(stored), "[devices 0-3,64][; ][window 0 s to 50.0 ms]");
  EXPECT_EQ(trace_filter_text("window 1.00 ms to the end"), "[window 1.00 ms to [the end]]");
  EXPECT_EQ(trace_filter_text("devices 2"), "[devices 2]");
  // Not str()'s form (a foreign or future trace's text): as it is.
  EXPECT_EQ(trace_filter_text("devices 2; nodes 1"), "devices 2; nodes 1");
  set_translator(nullptr);
}

}  // namespace
}  // namespace brigade
