#pragma once
// The word mixer of the plan cache's keys: the planner's canonical windows and the task bodies'
// signatures fold their words with it, so that the two agree on how a word enters a key.

#include <cstdint>
#include <cstring>
#include <string>

namespace tessera::detail {

// h with the word v folded in (boost's hash_combine step, then a multiply that spreads it).
inline std::uint64_t mix64(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

// A string's bytes folded into h eight to a word (the last one padded with zeros) by `mix`: each
// word changes the hash as one character did.
template <class Mix>
std::uint64_t fold_bytes(std::uint64_t h, const std::string& s, Mix mix) {
  const char* p = s.data();
  std::size_t left = s.size();
  for (; left >= 8; p += 8, left -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = mix(h, w);
  }
  if (left > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, left);
    h = mix(h, w);
  }
  return h;
}

}  // namespace tessera::detail
