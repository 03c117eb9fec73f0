#include "core/tr.hpp"

#include <atomic>
#include <climits>
#include <vector>

namespace brigade {

namespace {
std::atomic<Translator> g_translator{nullptr};
std::atomic<int> g_generation{0};
}  // namespace

void set_translator(Translator t) {
  if (g_translator.exchange(t) != t) g_generation.fetch_add(1);
}

void translations_changed() {
  g_generation.fetch_add(1);
}

int translation_generation() {
  return g_generation.load();
}

int plural_count(std::size_t n) {
  return n > static_cast<std::size_t>(INT_MAX) ? INT_MAX : static_cast<int>(n);
}

std::string english_plural(std::string_view source, int n) {
  std::string out;
  out.reserve(source.size() + 8);
  for (size_t i = 0; i < source.size(); ++i) {
    if (n >= 0 && source.compare(i, 2, "%n") == 0) {
      out += std::to_string(n);
      ++i;
    } else if (n >= 0 && source.compare(i, 3, "(s)") == 0) {
      if (n != 1) out += 's';
      i += 2;
    } else {
      out += source[i];
    }
  }
  return out;
}

std::string tr_text(const char* context, const char* source, const char* disambiguation, int n) {
  if (const Translator t = g_translator.load()) {
    std::string s = t(context, source, disambiguation, n);
    if (!s.empty()) return s;
  }
  return english_plural(source, n);
}

std::string fill_args(std::string_view pattern, std::initializer_list<std::string_view> args) {
  const std::vector<std::string_view> a(args);
  std::string out;
  out.reserve(pattern.size() + 16 * a.size());
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '%' && i + 1 < pattern.size() && pattern[i + 1] >= '1' && pattern[i + 1] <= '9') {
      const auto k = static_cast<size_t>(pattern[i + 1] - '1');
      if (k < a.size()) {
        out += a[k];
        ++i;
        continue;
      }
    }
    out += c;
  }
  return out;
}

}  // namespace brigade
