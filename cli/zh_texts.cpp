#include "cli/zh_texts.hpp"

#include <string_view>
#include <unordered_map>

#include "core/tr.hpp"

namespace brigade::cli {

extern const char* const kZhTs;  // the generated zh_ts.cpp

namespace {

std::string unescape(std::string_view s) {
  static const std::pair<std::string_view, char> kEntities[] = {
      {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}, {"&amp;", '&'}};
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    bool replaced = false;
    if (s[i] == '&')
      for (const auto& [entity, c] : kEntities)
        if (s.compare(i, entity.size(), entity) == 0) {
          out += c;
          i += entity.size() - 1;
          replaced = true;
          break;
        }
    if (!replaced) out += s[i];
  }
  return out;
}

// The text between <tag> (or <tag attributes>) and </tag> at or after
// `from`, before `end`; npos-free: "" when absent.
std::string_view element(std::string_view text, std::string_view tag, size_t from, size_t end,
                         size_t* after = nullptr) {
  const std::string open = "<" + std::string(tag);
  size_t at = text.find(open, from);
  while (at != std::string_view::npos && at < end && text[at + open.size()] != '>' &&
         text[at + open.size()] != ' ')
    at = text.find(open, at + 1);
  if (at == std::string_view::npos || at >= end) return {};
  const size_t start = text.find('>', at);
  const size_t stop = text.find("</" + std::string(tag) + ">", start);
  if (start == std::string_view::npos || stop == std::string_view::npos || stop > end) return {};
  if (after) *after = stop;
  return text.substr(start + 1, stop - start - 1);
}

std::string key(std::string_view context, std::string_view source, std::string_view comment) {
  std::string k(context);
  k += '\x1f';
  k += source;
  k += '\x1f';
  k += comment;
  return k;
}

const std::unordered_map<std::string, std::string>& table() {
  static const std::unordered_map<std::string, std::string> t = [] {
    std::unordered_map<std::string, std::string> out;
    const std::string_view ts(kZhTs);
    for (size_t c = ts.find("<context>"); c != std::string_view::npos;
         c = ts.find("<context>", c + 1)) {
      const size_t c_end = ts.find("</context>", c);
      if (c_end == std::string_view::npos) break;
      const std::string context = unescape(element(ts, "name", c, c_end));
      for (size_t m = ts.find("<message", c); m != std::string_view::npos && m < c_end;
           m = ts.find("<message", m + 1)) {
        const size_t m_end = ts.find("</message>", m);
        if (m_end == std::string_view::npos || m_end > c_end) break;
        const std::string source = unescape(element(ts, "source", m, m_end));
        const std::string comment = unescape(element(ts, "comment", m, m_end));
        std::string_view translation = element(ts, "translation", m, m_end);
        const std::string_view form = element(ts, "numerusform", m, m_end);
        if (!form.empty()) translation = form;  // Chinese: one plural form
        if (!translation.empty()) out[key(context, source, comment)] = unescape(translation);
      }
    }
    return out;
  }();
  return t;
}

std::string translate_zh(const char* context, const char* source, const char* disambiguation,
                         int n) {
  std::string t = zh_text(context, source, disambiguation);
  if (n < 0) return t;
  std::string out;
  for (size_t i = 0; i < t.size(); ++i)
    if (t.compare(i, 2, "%n") == 0) {
      out += std::to_string(n);
      ++i;
    } else {
      out += t[i];
    }
  return out;
}

}  // namespace

std::string zh_text(const char* context, const char* source, const char* disambiguation) {
  const auto& t = table();
  const auto it = t.find(key(context, source, disambiguation ? disambiguation : ""));
  return it == t.end() ? std::string() : it->second;
}

void use_language(Lang lang) {
  set_translator(lang == Lang::kZh ? &translate_zh : nullptr);
}

}  // namespace brigade::cli
