#include "tessera/core/context.hpp"

#include <cstdio>
#include <utility>

#include "tessera/core/error.hpp"

namespace tessera::detail {
namespace {
CoreState* g_core = nullptr;
}  // namespace

CoreState::CoreState(const Config& config, int rank, int size) : config_(config), rank_(rank), size_(size) {
  const std::string& log = config_.log;
  auto has = [&](const char* w) { return log.find(w) != std::string::npos || log.find("all") != std::string::npos; };
  if (has("fusion")) log_mask_ |= static_cast<unsigned>(LogTopic::Fusion);
  if (has("comm")) log_mask_ |= static_cast<unsigned>(LogTopic::Comm);
  if (has("exec")) log_mask_ |= static_cast<unsigned>(LogTopic::Exec);
}

void CoreState::log(LogTopic, const std::string& line) const {
  std::fprintf(stderr, "[tessera %d/%d] %s\n", rank(), size(), line.c_str());
}

CoreState& core_state() {
  if (!g_core)
    raise(
        "no active runtime: create a tessera::Runtime before using arrays, and do not use them after it is "
        "destroyed");
  return *g_core;
}

bool runtime_active() { return g_core != nullptr; }

Kokkos::View<char*, MemSpace> allocate(std::size_t bytes, const char* label, bool zero) {
  CoreState& rt = core_state();
  return rt.pool().acquire(bytes, label, zero, rt.stats().stores_allocated);
}

void recycle(Kokkos::View<char*, MemSpace>&& buffer) {
  if (runtime_active()) core_state().pool().give_back(std::move(buffer));
}

void set_core_state(CoreState* state) { g_core = state; }

}  // namespace tessera::detail
