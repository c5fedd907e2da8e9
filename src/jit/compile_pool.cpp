#include "tessera/jit/compile_pool.hpp"

#include <algorithm>

namespace tessera::detail {

int compile_threads(const Config& config, int automatic) {
  const int asked = config.jit_threads > 0 ? config.jit_threads : automatic;
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  return hardware > 0 ? std::min(asked, hardware) : asked;
}

CompilePool::CompilePool(int threads) : threads_(std::max(1, threads)) {}

CompilePool::~CompilePool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  queued_.notify_all();
  for (std::thread& w : workers_) w.join();
}

void CompilePool::submit(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.push_back(std::move(job));
  // A worker more while the jobs outnumber the workers that could take them.
  if (static_cast<int>(workers_.size()) < threads_ &&
      queue_.size() + static_cast<std::size_t>(running_) > workers_.size())
    workers_.emplace_back([this] { work(); });
  queued_.notify_one();
}

void CompilePool::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [&] { return queue_.empty() && running_ == 0; });
}

void CompilePool::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    queued_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    job();
    lock.lock();
    --running_;
    if (queue_.empty() && running_ == 0) idle_.notify_all();
  }
}

}  // namespace tessera::detail
