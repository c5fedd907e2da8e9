#pragma once
// The op stream: operations are recorded into a window and run when it is flushed — when it is
// full, on item()/to_host()/flush(), and at Runtime teardown. With fusion off (TESSERA_FUSION=0)
// every op runs at once as its own kernel: the reference the fused path is checked against.

#include <memory>
#include <unordered_map>
#include <vector>

#include "tessera/fusion/plan.hpp"

namespace tessera::detail {

class Window {
 public:
  explicit Window(int capacity) : capacity_(capacity) {}
  void record(Task&& op);
  void flush();
  bool empty() const { return ops_.empty(); }

 private:
  void run(bool everything);
  void execute_plan(const Plan& plan, const CanonicalWindow& window);

  static constexpr int kMaxCapacity = 4096;
  static constexpr std::size_t kMaxPlans = 4096;
  int capacity_;
  std::vector<Task> ops_;
  struct Hash {
    std::size_t operator()(const WindowSignature& s) const { return static_cast<std::size_t>(s.hash); }
  };
  std::unordered_map<WindowSignature, Plan, Hash> cache_;
};

// Hands a task to the runtime: runs it now (fusion off) or records it in the window.
void submit(Task&& task);
// Runs everything recorded so far.
void flush_window();

}  // namespace tessera::detail
