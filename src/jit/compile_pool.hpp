#pragma once
// CompilePool: the background compiles of both JIT tiers (jit/jit.hpp: NVRTC; jit/host_jit.hpp: the
// host compiler). Jobs start in the order they were submitted, on up to `threads` workers that
// start with the first jobs (a process that compiles nothing starts none), so compiles run while
// the launching thread goes on (the interpreter runs what is not compiled yet) and several host
// compilers run side by side. NVRTC runs one compile at a time whatever the threads calling it
// (measured: docs/JIT.md, "Background compiles"), so the CUDA tier uses one worker.
//
//   CompilePool pool(4);
//   pool.submit([&entry] { entry.code = compile(entry.source); entry.state = Ready; });
//   pool.wait_idle();  // every job submitted so far has finished
//
// A job must not throw: it reports failure through what it fills in. Destruction lets the jobs in
// flight finish and drops those still queued.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "tessera/core/config.hpp"

namespace tessera::detail {

// Workers for a tier's pool: Config::jit_threads, or the tier's `automatic` count where it is 0;
// at most the machine's hardware threads.
int compile_threads(const Config& config, int automatic);

class CompilePool {
 public:
  explicit CompilePool(int threads);
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  void submit(std::function<void()> job);
  void wait_idle();
  int threads() const { return threads_; }

 private:
  void work();

  const int threads_;
  std::mutex mutex_;
  std::condition_variable queued_, idle_;
  std::deque<std::function<void()>> queue_;
  int running_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace tessera::detail
