// text_fault_offset: the first byte that is not UTF-8, else the first
// control character (tab, line feed, carriage return allowed; DEL not), as
// YAML 1.2 and Brigade's readers define them. The word-at-a-time skip over
// printable ASCII must find the same offset as a byte-by-byte reading.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/text.hpp"

namespace brigade {
namespace {

// The definition, one byte at a time: the UTF-8 fault wins over an earlier
// control character (the reader reports the encoding first).
std::size_t reference(std::string_view t, bool* not_utf8) {
  *not_utf8 = false;
  if (const std::size_t u = utf8_error_offset(t); u != std::string_view::npos) {
    *not_utf8 = true;
    return u;
  }
  return control_char_offset(t);
}

TEST(TextFault, PrintableAsciiHasNone) {
  bool not_utf8 = true;
  EXPECT_EQ(text_fault_offset("{\"name\": \"op12\", \"op\": \"relu\"}\n\t\r ~", &not_utf8),
            std::string_view::npos);
  EXPECT_FALSE(not_utf8);
}

TEST(TextFault, EveryBadByteAtEveryPlaceOfAWord) {
  // Positions 0..23 cover each lane of three 8-byte words and the tail.
  for (const char bad : {'\x00', '\x01', '\x1f', '\x7f', '\x80', '\xff', '\xc3'}) {
    for (std::size_t at = 0; at < 24; ++at) {
      std::string t(23, 'a');
      t.insert(t.begin() + static_cast<std::ptrdiff_t>(at), bad);
      bool got_utf8 = false, want_utf8 = false;
      EXPECT_EQ(text_fault_offset(t, &got_utf8), reference(t, &want_utf8))
          << "byte " << static_cast<int>(static_cast<unsigned char>(bad)) << " at " << at;
      EXPECT_EQ(got_utf8, want_utf8);
      EXPECT_EQ(text_fault_offset(t, &got_utf8), at);  // each is a fault where it stands
    }
  }
}

TEST(TextFault, AllowedBreaksAndMultiByteTextAreNotFaults) {
  bool not_utf8 = false;
  EXPECT_EQ(text_fault_offset("abcdefg\nabcdefg\tabcdefg\rabcdefgh", &not_utf8),
            std::string_view::npos);
  EXPECT_EQ(text_fault_offset("厨师 chefs and the 酱汁碗 sauce bowl, eight bytes on", &not_utf8),
            std::string_view::npos);
  // 0x7E is printable; 0x7F (DEL) is the control character right above it.
  EXPECT_EQ(text_fault_offset("~~~~~~~~~~~~~~~~\x7f", &not_utf8), 16u);
  EXPECT_FALSE(not_utf8);
}

TEST(TextFault, RandomTextAgreesWithTheByteByByteReading) {
  std::mt19937 rng(20261201);
  // Mostly printable, sometimes a break, a control, DEL or a high byte.
  const std::string alphabet = std::string("abcXYZ09 {}\":,~") + "\n\t\r\x01\x7f\xc3\xa9\xe4\xb8\xad\xff";
  for (int round = 0; round < 20000; ++round) {
    std::string t(rng() % 40, ' ');
    for (char& c : t) c = rng() % 8 ? 'a' + static_cast<char>(rng() % 26) : alphabet[rng() % alphabet.size()];
    bool got_utf8 = false, want_utf8 = false;
    const std::size_t got = text_fault_offset(t, &got_utf8);
    ASSERT_EQ(got, reference(t, &want_utf8)) << "round " << round;
    ASSERT_EQ(got_utf8, want_utf8) << "round " << round;
  }
}

}  // namespace
}  // namespace brigade
