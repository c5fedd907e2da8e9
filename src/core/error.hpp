#pragma once
// tessera::Error: the one exception type for user errors (bad shapes, slices, dtypes, configuration,
// use after teardown). Messages carry the offending values. Every check that raises it runs on
// metadata that all ranks share, so every rank throws the same error at the same op and none hangs.

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace tessera {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

template <class... Args>
std::string concat(Args&&... args) {
  std::ostringstream out;
  (out << ... << std::forward<Args>(args));
  return out.str();
}

template <class... Args>
[[noreturn]] void raise(Args&&... args) {
  throw Error(concat("tessera: ", std::forward<Args>(args)...));
}

// Communication or device faults cannot be recovered consistently on every rank: abort them all.
[[noreturn]] void fatal(const std::string& message);

}  // namespace detail
}  // namespace tessera
