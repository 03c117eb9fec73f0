// Text that comes from outside (files, flags) on its way into messages and
// outputs: UTF-8 validation, and quoting for one-line messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace brigade {

// The offset of the first byte of `text` that does not begin a well-formed
// UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing past
// U+10FFFF), or std::string_view::npos when all of it is UTF-8.
std::size_t utf8_error_offset(std::string_view text);

// The offset of the first character that has no place in a text file: a C0
// control other than tab, line feed and carriage return, or DEL (YAML 1.2's
// c-printable, which JSON's strings also keep escaped); npos when none.
// Assumes valid UTF-8.
std::size_t control_char_offset(std::string_view text);

// Both checks in one pass, as a reader of a whole file makes them: the
// offset of the first byte that is not UTF-8 (anywhere in the text: that
// fault is reported first), else of the first control character, else npos;
// *not_utf8 says which it is.
std::size_t text_fault_offset(std::string_view text, bool* not_utf8);

// `text` for a one-line message, in single quotes: line breaks and tabs as
// \n \r \t, other control bytes and bytes that are not UTF-8 as \xNN, cut
// after `max_chars` characters (never inside one) with "..." appended.
//   quoted("a\nb") == "'a\\nb'"
std::string quoted(std::string_view text, std::size_t max_chars = 60);

// `text` escaped as quoted() escapes it, without quotes and uncut: a whole
// message made one line of UTF-8 whatever the user's bytes in it (the CLI
// prints every error line through it).
std::string one_line(std::string_view text);

// `text` with ASCII letters in lower case (bytes past ASCII as they are):
// for matching names and keywords without case.
std::string ascii_lower(std::string_view text);

// `text` without the whitespace (std::isspace in the C locale: space, tab,
// CR, LF, VT, FF) at either end.
std::string_view trim_space(std::string_view text);

}  // namespace brigade
