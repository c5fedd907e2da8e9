// Divergence detection (docs/RELIABILITY.md): the running hash of the op stream, the check at
// each flush, the report of the first diverging op and the watchdog.

#include "tessera/fusion/divergence.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

#include "tessera/core/error.hpp"
#include "tessera/core/hash.hpp"
#include "tessera/fusion/runtime_state.hpp"

namespace tessera::detail {

std::uint64_t hash_mix(std::uint64_t h, std::uint64_t x) {
  std::uint64_t z = h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t hash_bytes(std::uint64_t h, const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = hash_mix(h, w);
  }
  std::uint64_t tail = bytes;
  for (; i < bytes; ++i) tail = tail << 8 | p[i];
  return hash_mix(h, tail);
}

namespace {

// A polynomial step with an odd multiplier: a change in any one word changes the result, for
// certain (the final hash_mix only spreads the bits).
inline std::uint64_t fold(std::uint64_t h, std::uint64_t word) { return h * 0x9e3779b97f4a7c15ULL + word; }

}  // namespace

// What makes ranks disagree: the op (label, instructions, constants, reductions), and for every
// operand the store (numbered in creation order, the same on every rank of one stream), its dtype
// and shape, the view and whether it is written.
std::uint64_t hash_task(const Task& t) {
  // The label's length, then its bytes eight to a word.
  std::uint64_t h = fold_bytes(t.label.size(), t.label, fold);
  for (const Instr& in : t.program.code) {
    h = fold(h, std::uint64_t(in.op) | std::uint64_t(in.type) << 8 | std::uint64_t(in.from) << 16 |
                    std::uint64_t(in.dst) << 32);
    h = fold(h, std::uint64_t(in.a) | std::uint64_t(in.b) << 16 | std::uint64_t(in.c) << 32);
  }
  for (const Value& v : t.program.constants) h = fold(h, static_cast<std::uint64_t>(v.i64));
  for (std::size_t k = 0; k < t.program.reduce_kinds.size(); ++k)
    h = fold(h, std::uint64_t(t.program.reduce_kinds[k]) << 1 | std::uint64_t(t.program.reduce_float[k]));
  h = fold(h, static_cast<std::uint64_t>(t.key) | static_cast<std::uint64_t>(t.program.reduce_dim + 2) << 32);
  if (t.body) h = fold(h, t.body->signature());
  for (const Arg& a : t.args) {
    const Store& s = *a.store;
    h = fold(h, s.id() << 16 | std::uint64_t(s.dtype()) << 8 | std::uint64_t(a.view.ndim) << 2 |
                    std::uint64_t(a.written) << 1 | std::uint64_t(a.created));
    for (int d = 0; d < kMaxDims; ++d) {
      h = fold(h, static_cast<std::uint64_t>(a.view.extent[d]));
      h = fold(h, static_cast<std::uint64_t>(a.view.origin[d]));
      for (int k = 0; k < kMaxDims; ++k) h = fold(h, static_cast<std::uint64_t>(a.view.map[k][d]));
      h = fold(h, static_cast<std::uint64_t>(s.tiling().extent[d]));
    }
  }
  for (const ReductionOut& r : t.reductions) {
    std::uint64_t count;
    std::memcpy(&count, &r.count, 8);
    h = fold(h, r.out->id() << 8 | std::uint64_t(r.finalize));
    h = fold(h, count);
  }
  return hash_mix(h, t.args.size());
}

namespace {

std::string value_text(const Value& v, DType t) {
  std::ostringstream out;
  switch (t) {
    case DType::Bool: out << (v.b ? "true" : "false"); break;
    case DType::Int32: out << v.i32; break;
    case DType::Int64: out << v.i64; break;
    case DType::Float32: out.precision(9), out << v.f32; break;
    default: out.precision(17), out << v.f64; break;
  }
  return out.str();
}

std::string shape_text(const Index3& extent, int ndim) {
  std::string out = "(";
  for (int d = 0; d < ndim; ++d) out += (d ? ", " : "") + std::to_string(extent[d]);
  return out + (ndim == 1 ? ",)" : ")");
}

}  // namespace

StreamCheck::OpRecord StreamCheck::record_of(const Task& t) {
  OpRecord r;
  r.label = t.label;
  auto operand = [](const Store& s, const View& view, bool written) {
    return OpRecord::Operand{s.id(), s.dtype(), s.tiling().extent, view, written};
  };
  for (const Arg& a : t.args) r.operands.push_back(operand(*a.store, a.view, a.written));
  for (const Instr& in : t.program.code) {
    if (in.op == OpCode::Const) {
      r.constants.emplace_back(t.program.constants[in.a], in.type);
      r.is_seed.push_back(false);
    } else if (in.op == OpCode::Random) {
      r.constants.emplace_back(t.program.constants[in.b], DType::Int64);
      r.is_seed.push_back(true);
    }
  }
  for (std::size_t k = 0; k < t.reductions.size(); ++k)
    r.reductions.emplace_back(t.program.reduce_kinds[k], operand(*t.reductions[k].out, View{}, true));
  return r;
}

// "add: reads array#3 (float64, shape (8, 8), view [1:7, 0:8]), constant 2.5 (float64); writes ..."
std::string StreamCheck::describe(const OpRecord& r) {
  std::string op = r.label;
  const std::size_t open = op.find('[');
  if (open != std::string::npos && op.back() == ']') op = op.substr(open + 1, op.size() - open - 2);
  std::ostringstream out;
  out << op;
  const char* sep = ": ";
  auto operand = [&](const OpRecord::Operand& a, const char* verb) {
    out << sep << verb << " array#" << a.id << " (" << tessera::name(a.dtype) << ", shape "
        << shape_text(a.shape, a.view.store_ndim) << ", view " << a.view << ")";
    sep = ", ";
  };
  for (const auto& a : r.operands)
    if (!a.written) operand(a, "reads");
  for (std::size_t k = 0; k < r.constants.size(); ++k) {
    if (r.is_seed[k])
      out << sep << "seed " << r.constants[k].first.i64;
    else
      out << sep << "constant " << value_text(r.constants[k].first, r.constants[k].second) << " ("
          << tessera::name(r.constants[k].second) << ")";
    sep = ", ";
  }
  for (const auto& a : r.operands)
    if (a.written) operand(a, "writes");
  for (const auto& [kind, out_store] : r.reductions)
    out << sep << name(kind) << " into 0-d array#" << out_store.id << " (" << tessera::name(out_store.dtype) << ")";
  return out.str();
}

namespace {

const char* flush_text(FlushKind kind) {
  switch (kind) {
    case FlushKind::WindowFull: return "runs its full op window";
    case FlushKind::Flush: return "flushes (item(), to_host() or Runtime::flush())";
    case FlushKind::Teardown: return "destroys its tessera::Runtime";
    case FlushKind::Unwinding: return "leaves the tessera::Runtime's scope by an exception";
    default: return "runs an op that may communicate, or its 'window'-th op, eagerly (TESSERA_FUSION=0)";
  }
}

}  // namespace

StreamCheck::StreamCheck(const Config& config, MPI_Comm parent)
    : enabled_(config.check_divergence), timeout_s_(config.comm_timeout) {
  MPI_Comm_dup(parent, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

StreamCheck::~StreamCheck() {
  if (watchdog_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(watch_mutex_);
      stop_ = true;
    }
    watch_wake_.notify_all();
    watchdog_.join();
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void StreamCheck::add(std::uint64_t hash, int task) {
  running_ = fold(running_, hash);
  pending_.push_back(Pending{hash, Source::Window, task, {}});
}

void StreamCheck::add(std::uint64_t hash, std::string description) {
  running_ = fold(running_, hash);
  pending_.push_back(Pending{hash, Source::Described, 0, std::move(description)});
}

void StreamCheck::add_current(std::uint64_t hash) {
  running_ = fold(running_, hash);
  pending_.push_back(Pending{hash, Source::Current, 0, {}});
}

void StreamCheck::keep(const Task& ran) {
  if (pending_.empty() || pending_.back().source != Source::Current) return;  // checked already
  pending_.back().source = Source::Kept;
  pending_.back().index = static_cast<int>(kept_.size());
  kept_.push_back(record_of(ran));
}

void StreamCheck::verify(FlushKind kind, const std::vector<Task>& window, const Task* current, double timeout_s) {
  const std::int64_t count = checked_ + static_cast<std::int64_t>(pending_.size());
  // Bijective in the running hash: streams that differ in any one op never compare equal.
  const std::uint64_t word = fold(fold(running_, static_cast<std::uint64_t>(count)), std::uint64_t(kind));
  // max(word) == word and max(~word) == ~word hold on every rank only if every rank has this word.
  std::uint64_t mine[2] = {word, ~word}, all[2] = {0, 0};
  watchdog_arm(kind, count, timeout_s);
  MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, comm_);
  deadline_ns_.store(0, std::memory_order_relaxed);
  if (all[0] != word || all[1] != ~word) report(kind, window, current);
  checked_ = count;
  pending_.clear();
  kept_.clear();
}

namespace {
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void StreamCheck::watchdog_arm(FlushKind kind, std::int64_t count, double timeout_s) {
  if (!watchdog_.joinable()) watchdog_ = std::thread([this] { watch(); });
  waiting_kind_.store(static_cast<int>(kind), std::memory_order_relaxed);
  waiting_at_.store(count, std::memory_order_relaxed);
  waiting_timeout_.store(timeout_s, std::memory_order_relaxed);
  deadline_ns_.store(now_ns() + static_cast<std::int64_t>(timeout_s * 1e9), std::memory_order_release);
}

// The watchdog thread makes no MPI call (MPI is initialized for one thread): when a check has
// waited too long it prints why and aborts the process, and mpirun then ends the job.
void StreamCheck::watch() {
  std::unique_lock<std::mutex> lock(watch_mutex_);
  while (!stop_) {
    watch_wake_.wait_for(lock, std::chrono::milliseconds(100));
    const std::int64_t deadline = deadline_ns_.load(std::memory_order_acquire);
    if (stop_ || deadline == 0 || now_ns() < deadline) continue;
    const auto kind = static_cast<FlushKind>(waiting_kind_.load(std::memory_order_relaxed));
    const std::int64_t at = waiting_at_.load(std::memory_order_relaxed);
    const double timeout_s = waiting_timeout_.load(std::memory_order_relaxed);
    std::string why;
    if (kind == FlushKind::Unwinding)
      why = concat("rank ", rank_, " of ", size_, " leaves the tessera::Runtime's scope by an exception",
                   enabled_ ? concat(" after op #", at - 1) : std::string(),
                   ", and the other ranks did not do the same within ", timeout_s,
                   " s (they may be waiting for this rank): aborting the job");
    else
      why =
          concat("rank ", rank_, " of ", size_, " waited ", timeout_s, " s (TESSERA_COMM_TIMEOUT) for the other ranks ",
                 "at the divergence check after op #", at - 1, " (this rank ", flush_text(kind),
                 "); a rank has stopped, is stuck, or took another path: aborting the job");
    std::fprintf(stderr, "tessera: fatal: %s\n", why.c_str());
    std::fflush(stderr);
    std::abort();
  }
}

void StreamCheck::report(FlushKind kind, const std::vector<Task>& window, const Task* current) {
  // Every rank knows that the streams differ (the allreduce gave all the same answer), so every
  // rank takes part in finding the first op that differs. Entry k of a rank: its k-th op since
  // the last agreement, then a marker for where it flushes, then nothing.
  const long long mine = static_cast<long long>(pending_.size());
  long long longest = 0;
  MPI_Allreduce(&mine, &longest, 1, MPI_LONG_LONG, MPI_MAX, comm_);
  const std::uint64_t marker = hash_mix(0xf105, std::uint64_t(kind));
  std::vector<std::uint64_t> words(2 * static_cast<std::size_t>(longest + 1)), maxima(words.size());
  for (long long k = 0; k <= longest; ++k) {
    const std::uint64_t x = k < mine ? pending_[k].hash : k == mine ? marker : 0;
    words[2 * k] = x;
    words[2 * k + 1] = ~x;
  }
  MPI_Allreduce(words.data(), maxima.data(), static_cast<int>(words.size()), MPI_UINT64_T, MPI_MAX, comm_);
  long long first = 0;
  while (first < longest && maxima[2 * first] == ~maxima[2 * first + 1]) ++first;
  const std::int64_t index = checked_ + first;

  std::string what;
  if (first < mine) {
    const Pending& p = pending_[first];
    switch (p.source) {
      case Source::Window: what = describe(record_of(window[p.index])); break;
      case Source::Current: what = describe(record_of(*current)); break;
      case Source::Kept: what = describe(kept_[p.index]); break;
      default: what = p.description; break;
    }
  } else {
    what = std::string("no op #") + std::to_string(index) + ": this rank " + flush_text(kind);
  }
  std::string line = concat("rank ", rank_, " of ", size_, " at op #", index, ": ", what);
  constexpr std::size_t kLine = 1024;
  line.resize(std::min(line.size(), kLine - 1));
  std::vector<char> lines(kLine * static_cast<std::size_t>(size_), '\0');
  std::vector<char> own(kLine, '\0');
  std::copy(line.begin(), line.end(), own.begin());
  MPI_Allgather(own.data(), static_cast<int>(kLine), MPI_CHAR, lines.data(), static_cast<int>(kLine), MPI_CHAR, comm_);
  if (rank_ == 0) {
    std::string all =
        concat("tessera: fatal: the ranks' op streams diverge at op #", index,
               " (every rank must record the same ops in the same order; ",
               checked_ > 0 ? concat("they agreed up to op #", checked_ - 1) : std::string("from the start"), "). Op #",
               index, " on each rank:\n");
    for (int r = 0; r < size_; ++r) all += std::string("tessera:   ") + &lines[kLine * r] + "\n";
    std::fputs(all.c_str(), stderr);
  } else {
    std::fprintf(stderr, "tessera: fatal: op streams diverge: %s\n", line.c_str());
  }
  std::fflush(stderr);
  MPI_Barrier(comm_);  // every report is written before the job is aborted
  // One rank aborts the job (several concurrent MPI_Abort calls garble Open MPI's report); the
  // others wait in a barrier that rank 0 never joins, until the abort ends them.
  if (rank_ == 0) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Barrier(comm_);
  std::abort();
}

bool checking_divergence() { return runtime().window().check().enabled(); }

void note_op(std::uint64_t hash, std::string description) {
  StreamCheck& check = runtime().window().check();
  if (check.enabled()) check.add(hash, std::move(description));
}

}  // namespace tessera::detail
