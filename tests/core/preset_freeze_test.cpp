// The presets are frozen (issue 19 item 1: "Freeze the presets (name the
// commit in docs/FIDELITY.md) before you add end-to-end rows, and never
// change a preset because of one"). docs/FIDELITY.md, "The freeze", names
// the commit and a digest of the two files that hold every preset constant
// (core/presets.cpp: the machines and their links; core/presets_profiles.cpp:
// the kernels' and collectives' measured rates). This test fails when
// either file differs from the frozen text, so that no preset changes
// without a new freeze: a constant may change only from a kernel- or
// collective-level measurement, and then the freeze is renewed in
// docs/FIDELITY.md (its digest, its commit, the table regenerated at it).
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace brigade {
namespace {

std::string read_source(const std::string& path) {
  std::ifstream in(std::string(BRIGADE_SOURCE_DIR) + "/" + path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// FNV-1a, 64 bits (Fowler, Noll, Vo): offset basis 14695981039346656037,
// prime 1099511628211.
std::uint64_t fnv1a(const std::string& bytes, std::uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The digest of the preset files: each file's path, a NUL, its bytes, a
// NUL, in this order.
std::uint64_t preset_digest() {
  std::uint64_t h = 14695981039346656037ull;
  for (const char* path : {"core/presets.cpp", "core/presets_profiles.cpp"}) {
    h = fnv1a(std::string(path) + '\0', h);
    h = fnv1a(read_source(path) + '\0', h);
  }
  return h;
}

// A check of the hash itself (the FNV authors' test vector: "a" hashes to
// 0xaf63dc4c8601ec8c in FNV-1a 64).
TEST(PresetFreeze, Fnv1aOfAIsTheReferenceValue) {
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a(""), 14695981039346656037ull);
}

TEST(PresetFreeze, PresetFilesAreTheFrozenOnes) {
  const std::string doc = read_source("docs/FIDELITY.md");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      doc, m, std::regex("preset digest `(0x[0-9a-f]{16})`, commit `([0-9a-f]{7,40})`")))
      << "docs/FIDELITY.md must name the frozen presets as: preset digest `0x...`, commit `...`";
  char now[32];
  std::snprintf(now, sizeof now, "0x%016llx", static_cast<unsigned long long>(preset_digest()));
  EXPECT_EQ(m[1].str(), std::string(now))
      << "core/presets.cpp or core/presets_profiles.cpp differs from the presets frozen at commit "
      << m[2].str()
      << " (docs/FIDELITY.md, \"The freeze\"). A preset constant changes only from a kernel- or "
         "collective-level measurement, never from an end-to-end row; renew the freeze there "
         "(digest now "
      << now << ", the commit that made the change, the table regenerated at it).";
}

}  // namespace
}  // namespace brigade
