#include "tessera/data/store.hpp"

#include <cstdint>
#include <new>

#include "tessera/core/context.hpp"
#include "tessera/core/error.hpp"

namespace tessera::detail {
namespace {
Store* g_stores = nullptr;  // the live stores, linked through themselves (Store::link_into)
std::uint64_t g_store_counter = 0;

// Freed blocks of one type, at most kMaxFreeBlocks, reachable from this global until the process
// ends (no destructor: nothing to order at exit). Stores are made and dropped on the thread that
// runs the program, as the list of live stores above assumes.
// Under AddressSanitizer nothing is kept, so that a use of a dropped store is still reported.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kMaxFreeBlocks = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kMaxFreeBlocks = 0;
#else
constexpr int kMaxFreeBlocks = 256;
#endif
#else
constexpr int kMaxFreeBlocks = 256;
#endif
struct FreeBlock {
  FreeBlock* next;
};
template <class T>
struct FreeBlocks {
  static inline FreeBlock* head = nullptr;
  static inline int count = 0;
};

template <class T>
struct PooledAllocator {
  static_assert(sizeof(T) >= sizeof(FreeBlock) && alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
  using value_type = T;
  PooledAllocator() = default;
  template <class U>
  PooledAllocator(const PooledAllocator<U>&) {}  // NOLINT(google-explicit-constructor): rebinding
  T* allocate(std::size_t n) {
    using List = FreeBlocks<T>;
    if (n != 1 || !List::head) return static_cast<T*>(::operator new(n * sizeof(T)));
    FreeBlock* b = List::head;
    List::head = b->next;
    --List::count;
    return reinterpret_cast<T*>(b);
  }
  void deallocate(T* p, std::size_t n) {
    using List = FreeBlocks<T>;
    if (n != 1 || List::count >= kMaxFreeBlocks) return ::operator delete(p);
    List::head = ::new (static_cast<void*>(p)) FreeBlock{List::head};
    ++List::count;
  }
  template <class U>
  bool operator==(const PooledAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const PooledAllocator<U>&) const {
    return false;
  }
};
}  // namespace

std::shared_ptr<Store> make_store(DType dtype, const Tiling& tiling, const Box& owned, bool primary,
                                  bool initialize_zero) {
  return std::allocate_shared<Store>(PooledAllocator<Store>{}, dtype, tiling, owned, primary, initialize_zero);
}

Layout Layout::row_major(const Box& frame) {
  Layout l;
  l.frame = frame;
  std::int64_t s = 1;
  for (int d = frame.ndim - 1; d >= 0; --d) {
    l.stride[d] = s;
    s *= std::max<std::int64_t>(0, frame.extent(d));
  }
  return l;
}

Box bloat(const Box& b, const Index3& lo, const Index3& hi) {
  Box r = b;
  for (int d = 0; d < b.ndim; ++d) {
    r.lo[d] -= lo[d];
    r.hi[d] += hi[d];
  }
  return r;
}

Store::Store(DType dtype, const Tiling& tiling, const Box& owned, bool primary, bool initialize_zero)
    : dtype_(dtype), tiling_(tiling), owned_(owned), primary_(primary), zero_(initialize_zero) {
  core_state();  // raises without a runtime
  id_ = ++g_store_counter;
  link_into(g_stores);
}

Store::~Store() {
  if (!released_ && runtime_active()) {
    unlink_from(g_stores);
    recycle(std::move(data_));
    recycle(std::move(spare_));
  }
}

void release_stores() {
  for (Store* s = g_stores; s; s = s->next_linked()) s->release();
  g_stores = nullptr;
  g_store_counter = 0;
}

Box Store::full() const {
  Box b;
  b.ndim = tiling_.ndim;
  for (int d = 0; d < b.ndim; ++d) b.hi[d] = tiling_.extent[d];
  return b;
}

Box Store::allocated() const { return bloat(owned_, ghost_lo_, ghost_hi_); }

char* Store::data() {
  if (released_) raise("array data used after the tessera::Runtime that owned it was destroyed");
  if (!data_.data() && allocated().volume() > 0)
    data_ = allocate(static_cast<std::size_t>(allocated().volume()) * size_of(dtype_), "tessera::store", zero_);
  return data_.data();
}

void Store::ensure_ghosts(const Index3& lo, const Index3& hi) {
  Index3 new_lo = ghost_lo_, new_hi = ghost_hi_;
  bool grow = false;
  for (int d = 0; d < ndim(); ++d) {
    if (lo[d] > new_lo[d]) new_lo[d] = lo[d], grow = true;
    if (hi[d] > new_hi[d]) new_hi[d] = hi[d], grow = true;
  }
  if (!grow) return;
  if (!allocated_yet()) {  // nothing to keep: the first allocation will include the ghosts
    ghost_lo_ = new_lo;
    ghost_hi_ = new_hi;
    return;
  }
  const Box old_box = allocated();
  const Layout old_layout = layout();
  Box new_box = bloat(owned_, new_lo, new_hi);
  auto fresh = allocate(static_cast<std::size_t>(new_box.volume()) * size_of(dtype_), "tessera::store", false);
  // Keep the owned tile and whatever halo is still valid.
  Box keep = intersect(intersect(bloat(owned_, valid_lo_, valid_hi_), full()), old_box);
  copy_box(data_.data(), old_layout, fresh.data(), Layout::row_major(new_box), keep, size_of(dtype_),
           "tessera::store[grow ghosts]");
  recycle(std::move(data_));
  recycle(std::move(spare_));  // laid out for the old ghosts
  spare_ = Kokkos::View<char*, MemSpace>();
  data_ = fresh;
  ghost_lo_ = new_lo;
  ghost_hi_ = new_hi;
}

Kokkos::View<char*, MemSpace> Store::rename_buffer(const std::vector<Box>& frame, bool& frame_current) {
  if (released_) raise("array data used after the tessera::Runtime that owned it was destroyed");
  if (spare_.data()) {
    frame_current = spare_writes_ == writes_ && spare_frame_ == frame;
    // A moved-from View may keep its pointer (Kokkos 3): empty it explicitly.
    Kokkos::View<char*, MemSpace> buffer = spare_;
    spare_ = Kokkos::View<char*, MemSpace>();
    return buffer;
  }
  frame_current = frame.empty();
  return allocate(static_cast<std::size_t>(allocated().volume()) * size_of(dtype_), "tessera::store", false);
}

void Store::adopt(Kokkos::View<char*, MemSpace>&& written, const std::vector<Box>& frame) {
  if (released_) raise("array data used after the tessera::Runtime that owned it was destroyed");
  recycle(std::move(spare_));
  spare_ = data_;
  data_ = written;
  written = Kokkos::View<char*, MemSpace>();
  spare_frame_ = frame;
  mark_written();
  spare_writes_ = writes_;
}

void Store::discard() {
  if (released_) return;
  // A moved-from View may keep its pointer (Kokkos 3): empty them explicitly.
  recycle(std::move(data_));
  data_ = Kokkos::View<char*, MemSpace>();
  recycle(std::move(spare_));
  spare_ = Kokkos::View<char*, MemSpace>();
  invalidate_halo();
}

void Store::release() {
  data_ = Kokkos::View<char*, MemSpace>();
  spare_ = Kokkos::View<char*, MemSpace>();
  released_ = true;
}

namespace {

template <class Word>
void copy_box_typed(const char* src, const Layout& sl, char* dst, const Layout& dl, const Box& region,
                    const char* label) {
  const std::int64_t n1 = region.extent(1), n2 = region.extent(2);
  const std::int64_t src_base = sl.offset(region.lo), dst_base = dl.offset(region.lo);
  const std::int64_t ss0 = sl.stride[0], ss1 = sl.stride[1], ss2 = sl.stride[2];
  const std::int64_t ds0 = dl.stride[0], ds1 = dl.stride[1], ds2 = dl.stride[2];
  const Word* s = reinterpret_cast<const Word*>(src);
  Word* d = reinterpret_cast<Word*>(dst);
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, region.volume()),
      KOKKOS_LAMBDA(std::int64_t i) {
        const std::int64_t i2 = i % n2, r = i / n2, i1 = r % n1, i0 = r / n1;
        d[dst_base + i0 * ds0 + i1 * ds1 + i2 * ds2] = s[src_base + i0 * ss0 + i1 * ss1 + i2 * ss2];
      });
}

// An element as bytes (alignment 1): for buffers whose base is not aligned to the element size,
// such as a message that packs a bool piece before a float one; a misaligned typed access is
// undefined behaviour.
template <int N>
struct Bytes {
  unsigned char b[N];
};

bool aligned(const char* p, int element_size) {
  return reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(element_size) == 0;
}

// Up to 2 * kMaxDims boxes, by value: the kernel finds an element's box by its prefix count.
struct Pieces {
  static constexpr int kMax = 2 * kMaxDims;
  int count = 0;
  std::int64_t start[kMax + 1] = {};
  std::int64_t base[kMax] = {}, n1[kMax] = {}, n2[kMax] = {};
};

template <class Word>
void copy_pieces_typed(const char* src, char* dst, const Layout& l, const Pieces& p, const char* label) {
  const std::int64_t s0 = l.stride[0], s1 = l.stride[1], s2 = l.stride[2];
  const Word* s = reinterpret_cast<const Word*>(src);
  Word* d = reinterpret_cast<Word*>(dst);
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, p.start[p.count]),
      KOKKOS_LAMBDA(std::int64_t i) {
        int k = 0;
        while (i >= p.start[k + 1]) ++k;
        const std::int64_t j = i - p.start[k];
        const std::int64_t i2 = j % p.n2[k], r = j / p.n2[k], i1 = r % p.n1[k], i0 = r / p.n1[k];
        const std::int64_t o = p.base[k] + i0 * s0 + i1 * s1 + i2 * s2;
        d[o] = s[o];
      });
}

}  // namespace

void copy_pieces(const char* src, char* dst, const Layout& layout, const std::vector<Box>& pieces, int element_size,
                 const char* label) {
  Pieces p;
  for (const Box& b : pieces) {
    if (b.empty()) continue;
    if (p.count == Pieces::kMax) raise("internal: copy_pieces takes at most ", Pieces::kMax, " boxes");
    p.base[p.count] = layout.offset(b.lo);
    p.n1[p.count] = b.extent(1);
    p.n2[p.count] = b.extent(2);
    p.start[p.count + 1] = p.start[p.count] + b.volume();
    ++p.count;
  }
  if (p.count == 0) return;
  // Pool buffers are aligned for every element type, and both buffers share one layout.
  switch (element_size) {
    case 1: copy_pieces_typed<std::uint8_t>(src, dst, layout, p, label); break;
    case 4: copy_pieces_typed<std::uint32_t>(src, dst, layout, p, label); break;
    default: copy_pieces_typed<std::uint64_t>(src, dst, layout, p, label); break;
  }
}

void copy_box(const char* src, const Layout& src_layout, char* dst, const Layout& dst_layout, const Box& region,
              int element_size, const char* label) {
  if (region.empty()) return;
  const bool typed = aligned(src, element_size) && aligned(dst, element_size);
  switch (element_size) {
    case 1: copy_box_typed<std::uint8_t>(src, src_layout, dst, dst_layout, region, label); break;
    case 4:
      if (typed)
        copy_box_typed<std::uint32_t>(src, src_layout, dst, dst_layout, region, label);
      else
        copy_box_typed<Bytes<4>>(src, src_layout, dst, dst_layout, region, label);
      break;
    default:
      if (typed)
        copy_box_typed<std::uint64_t>(src, src_layout, dst, dst_layout, region, label);
      else
        copy_box_typed<Bytes<8>>(src, src_layout, dst, dst_layout, region, label);
      break;
  }
}

}  // namespace tessera::detail
