#pragma once
// The word mixer of the plan cache's keys: the planner's canonical windows and the task bodies'
// signatures fold their words with it, so that the two agree on how a word enters a key.

#include <cstdint>

namespace tessera::detail {

// h with the word v folded in (boost's hash_combine step, then a multiply that spreads it).
inline std::uint64_t mix64(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

}  // namespace tessera::detail
