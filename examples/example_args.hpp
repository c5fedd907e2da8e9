#pragma once
// Command-line options for the examples and apps: `--name value` or `--name=value` integers, and
// flags (`--check`) that are present or not.
//
//   ExampleArgs args("tessera-heat", argc, argv);
//   std::int64_t n = args.integer("--n", 256, 3);   // default 256, at least 3
//   bool check = args.flag("--check");
//   if (!args.ok()) { if (rank == 0) args.report(); return 2; }
//
// Every rank parses the same argv, so every rank reaches the same verdict and none hangs.
//
// LoopCounts: what tessera counted (rt.stats()) over an app's timed loop, per iteration, printed
// beside its time so that kernels and bytes per iteration can be set against the loop's memory
// floor (docs/BENCHMARKS.md); here once rather than in each of the nine apps.

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>

class ExampleArgs {
 public:
  ExampleArgs(const char* program, int argc, char** argv) : program_(program) {
    for (int i = 1; i < argc; ++i) words_.emplace_back(argv[i]);
    used_.assign(words_.size(), false);
  }

  // The value of option `name` (default if absent); an error unless it is an integer >= min.
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t min) {
    usage_ += " [" + name + " N]";
    for (std::size_t i = 0; i < words_.size(); ++i) {
      std::string text;
      if (words_[i] == name) {
        used_[i] = true;
        if (i + 1 >= words_.size()) {
          fail(name + " needs a value");
          return fallback;
        }
        used_[i + 1] = true;
        text = words_[i + 1];
      } else if (words_[i].rfind(name + "=", 0) == 0) {
        used_[i] = true;
        text = words_[i].substr(name.size() + 1);
      } else {
        continue;
      }
      char* rest = nullptr;
      errno = 0;
      long long v = std::strtoll(text.c_str(), &rest, 10);
      if (text.empty() || *rest != '\0' || errno == ERANGE) {
        fail(name + " expects an integer, got '" + text + "'");
        return fallback;
      }
      if (v < min) {
        fail(name + " must be at least " + std::to_string(min) + ", got " + text);
        return fallback;
      }
      return v;
    }
    return fallback;
  }

  // Whether the flag `name` is given (it takes no value).
  bool flag(const std::string& name) {
    usage_ += " [" + name + "]";
    bool found = false;
    for (std::size_t i = 0; i < words_.size(); ++i)
      if (words_[i] == name) used_[i] = found = true;
    return found;
  }

  // False if an option was malformed, unknown, or --help was asked for. Call after integer() and flag().
  bool ok() {
    for (std::size_t i = 0; i < words_.size(); ++i) {
      if (used_[i]) continue;
      if (words_[i] == "--help" || words_[i] == "-h")
        help_ = true;
      else
        fail("unknown argument '" + words_[i] + "'");
    }
    return error_.empty() && !help_;
  }

  // Prints the first error (or nothing for --help) and the usage line to stderr.
  void report() const {
    if (!error_.empty()) std::fprintf(stderr, "%s: error: %s\n", program_.c_str(), error_.c_str());
    std::fprintf(stderr, "usage: %s%s\n", program_.c_str(), usage_.c_str());
  }
  bool help() const { return help_ && error_.empty(); }

 private:
  void fail(const std::string& message) {
    if (error_.empty()) error_ = message;
  }

  std::string program_;
  std::vector<std::string> words_;
  std::vector<bool> used_;
  std::string usage_;
  std::string error_;
  bool help_ = false;
};

// The difference of rt.stats() between start() (right before the clock starts) and stop() (right
// after the timed loop's sync), so the counts cover what the time covers. They are this rank's
// counts; bytes are bytes_accessed, the planner's count of each kernel argument's view over the
// launch domain: no measure of a product's traffic (a GEMV counts its vectors at the matrix's
// size, a SpMV not its CSR matrix).
//
// recorded(), called right after the loop's last op and before anything waits for the device,
// marks when the host had recorded (and launched all but the last window of) the loop: where that
// time is close to the loop's, the host paces it; where it is far below, the device does.
struct LoopCounts {
  tessera::Stats before, after;
  std::chrono::steady_clock::time_point began, host_done;
  void start(const tessera::Runtime& rt) {
    before = rt.stats();
    began = host_done = std::chrono::steady_clock::now();
  }
  void recorded() { host_done = std::chrono::steady_clock::now(); }
  void stop(const tessera::Runtime& rt) { after = rt.stats(); }
  // "kernels per ITEM K, bytes per ITEM B (by tessera's count)": more than two words, so
  // apps/check_app.py does not take it for a result.
  void print(std::int64_t iters, const char* item = "iteration") const {
    const double per = iters > 0 ? 1.0 / static_cast<double>(iters) : 0.0;
    std::printf("kernels per %s %.2f, bytes per %s %.4g (by tessera's count)\n", item,
                static_cast<double>(after.kernels - before.kernels) * per, item,
                static_cast<double>(after.bytes_accessed - before.bytes_accessed) * per);
    if (host_done > began)
      std::printf("recorded and launched by the host in %.3f ms per %s\n",
                  std::chrono::duration<double, std::milli>(host_done - began).count() * per, item);
    std::printf("ops per %s %.2f, plan-cache misses %.2f, device allocations %.2f, frame copies %.2f\n", item,
                static_cast<double>(after.ops - before.ops) * per,
                static_cast<double>(after.plan_cache_misses - before.plan_cache_misses) * per,
                static_cast<double>(after.stores_allocated - before.stores_allocated) * per,
                static_cast<double>(after.frame_copies - before.frame_copies) * per);
  }
};
