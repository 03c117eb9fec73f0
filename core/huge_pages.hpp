// Transparent huge pages for the few large arrays of a big read: a
// million-op graph's JSON tree, its ops and tensors, and their name index
// (issue 20, item 3). Each 4 KiB page of them costs a page fault when first
// written, and each random access into the index a TLB miss; 2 MiB pages
// cut both by 512. A hint only: nothing is allocated, nothing changes in
// what is stored, and where the kernel has no THP (or off Linux) nothing
// happens.
#pragma once

#include <cstddef>

namespace brigade {

// Asks that [data, data + bytes) be backed by huge pages where it can be
// (the 2 MiB-aligned pages inside it; nothing below 4 MiB). Call it before
// the memory is first written: pages already faulted in stay small.
void advise_huge_pages(const void* data, std::size_t bytes);

}  // namespace brigade
