#include "tessera/jit/program_images.hpp"

#include <algorithm>

#include "tessera/core/context.hpp"
#include "tessera/core/kokkos_compat.hpp"

namespace tessera::detail {
namespace {

constexpr std::size_t kMaxImages = 4096;

std::uint64_t content_hash(const Program& p) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (const Instr& in : p.code)
    mix(static_cast<std::uint64_t>(in.op) | static_cast<std::uint64_t>(in.type) << 8 |
        static_cast<std::uint64_t>(in.from) << 16 | static_cast<std::uint64_t>(in.dst) << 24 |
        static_cast<std::uint64_t>(in.a) << 40 | static_cast<std::uint64_t>(in.b) << 56);
  for (const Value& v : p.constants) mix(static_cast<std::uint64_t>(v.i64));
  for (std::size_t k = 0; k < p.reduce_kinds.size(); ++k)
    mix(static_cast<std::uint64_t>(p.reduce_kinds[k]) << 1 | (p.reduce_float[k] ? 1 : 0));
  mix(static_cast<std::uint64_t>(p.reduce_dim + 2) | static_cast<std::uint64_t>(p.epilogue + 1) << 8 |
      static_cast<std::uint64_t>(p.sweep + 1) << 24 | static_cast<std::uint64_t>(p.row_slots) << 40);
  mix(static_cast<std::uint64_t>(p.nested.dim + 2) | static_cast<std::uint64_t>(p.nested.end) << 8 |
      static_cast<std::uint64_t>(p.nested.kind) << 40 | static_cast<std::uint64_t>(p.nested.finalize) << 48);
  return h;
}

bool same_code(const std::vector<Instr>& x, const std::vector<Instr>& y) {
  return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const Instr& a, const Instr& b) {
    return a.op == b.op && a.type == b.type && a.from == b.from && a.dst == b.dst && a.a == b.a && a.b == b.b &&
           a.c == b.c;
  });
}

bool same_constants(const std::vector<Value>& x, const std::vector<Value>& y) {
  return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                    [](const Value& a, const Value& b) { return a.i64 == b.i64; });
}

}  // namespace

KernelImage& ProgramImages::get(const Program& program) {
  std::deque<Entry>& bucket = by_hash_[content_hash(program)];
  for (Entry& e : bucket)
    if (same_code(e.code, program.code) && same_constants(e.constants, program.constants) &&
        e.reduce_kinds == program.reduce_kinds && e.reduce_float == program.reduce_float &&
        e.reduce_dim == program.reduce_dim && e.nested == program.nested && e.epilogue == program.epilogue &&
        e.sweep == program.sweep && e.row_slots == program.row_slots)
      return e.image;
  // A program whose op stream never repeats would grow this without bound.
  if (count_ >= kMaxImages) {
    by_hash_.clear();
    count_ = 0;
    return get(program);
  }
  bucket.push_back(Entry{program.code,
                         program.constants,
                         program.reduce_kinds,
                         program.reduce_float,
                         program.reduce_dim,
                         program.nested,
                         program.epilogue,
                         program.sweep,
                         program.row_slots,
                         {}});
  Entry& e = bucket.back();
  e.image.serial = ++last_serial_;
  // On the host the image views the entry's own vectors, which stay where they are.
  e.image.code = to_device(e.code, "tessera::program");
  e.image.constants = to_device(e.constants, "tessera::constants");
  // Counted on every build, so that a steady loop's count is the same on the host as on the device:
  // on the host the image views the entry's own copies of the code and constants, made here.
  core_state().stats().stores_allocated += 2;
  ++count_;
  return e.image;
}

}  // namespace tessera::detail
