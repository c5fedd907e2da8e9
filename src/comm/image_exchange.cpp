#include "tessera/comm/image_exchange.hpp"

#include "tessera/core/context.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/profiling.hpp"

namespace tessera::detail {
namespace {

// Halos and redistributions tag by direction (100+, 200+); an image exchange has a range of its own.
constexpr int kImageTag = 300;

template <class Word>
void gather(const char* owned, const Kokkos::View<const std::int64_t*, MemSpace>& index, char* out, const char* label) {
  const Word* src = reinterpret_cast<const Word*>(owned);
  Word* dst = reinterpret_cast<Word*>(out);
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, index.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i) { dst[i] = src[index(i)]; });
}

}  // namespace

ImageFetch::ImageFetch(Communicator& comm, const ImagePlan& plan, Store& store, char* ghosts, std::string label)
    : comm_(comm), label_(std::move(label)) {
  ScopedRegion region(label_);
  const int esize = size_of(store.dtype());
  const auto bytes = [&](std::int64_t n) { return static_cast<std::size_t>(n) * esize; };
  const std::int64_t sent = static_cast<std::int64_t>(plan.send_index.extent(0));
  std::vector<Message> sends, receives;
  if (sent > 0) {
    send_buffer_ = allocate(bytes(sent), "tessera::image[send]", false);
    const char* owned = store.data() + store.layout().offset(store.owned().lo) * esize;
    switch (esize) {
      case 1: gather<std::uint8_t>(owned, plan.send_index, send_buffer_.data(), label_.c_str()); break;
      case 4: gather<std::uint32_t>(owned, plan.send_index, send_buffer_.data(), label_.c_str()); break;
      default: gather<std::uint64_t>(owned, plan.send_index, send_buffer_.data(), label_.c_str()); break;
    }
  }
  std::int64_t at = 0;
  for (const auto& [peer, n] : plan.sends) {
    sends.push_back({peer, kImageTag, send_buffer_.data() + bytes(at), bytes(n)});
    at += n;
  }
  at = 0;
  for (const auto& [peer, n] : plan.receives) {
    receives.push_back({peer, kImageTag, ghosts + bytes(at), bytes(n)});
    at += n;
  }
  received_ = static_cast<std::int64_t>(bytes(at));
  comm_.start_exchange(sends, receives);
}

std::int64_t ImageFetch::finish() {
  if (finished_) return received_;
  finished_ = true;
  ScopedRegion region(label_);
  comm_.finish_exchange();
  recycle(std::move(send_buffer_));
  return received_;
}

ImageFetch::~ImageFetch() { finish(); }

}  // namespace tessera::detail
