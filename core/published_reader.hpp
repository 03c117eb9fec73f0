// Reads a scenario's `published:` section (core/published.hpp). Private to
// core/: it takes a yamlio::Cursor; core/scenario.cpp calls it so that a
// scenario with a malformed section is refused by every judge.
#pragma once

#include "core/published.hpp"
#include "core/yaml_reader.hpp"

namespace brigade {

Result<PublishedResult> read_published(const yamlio::Cursor& c);

}  // namespace brigade
