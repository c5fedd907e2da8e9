#pragma once
// Store: one distributed buffer. Each rank holds its owned tile plus ghost cells around it
// (grown on demand) and remembers how wide its valid halo is; any write invalidates the halo.
//
//   owned [4, 7) of a 1-D store on rank 1 of 3, ghosts {1, 1}: the allocation covers [3, 8)
//
// A 0-d store (a reduction result, a scalar) is replicated: every rank holds the same value.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/core/dtype.hpp"
#include "tessera/core/kokkos_compat.hpp"
#include "tessera/partition/tiling.hpp"
#include "tessera/partition/view.hpp"

namespace tessera::detail {

// Row-major placement of a box of elements in a buffer: element x is at offset(x).
struct Layout {
  Box frame;
  Index3 stride{0, 0, 0};
  static Layout row_major(const Box& frame);
  std::int64_t offset(const Index3& x) const {
    std::int64_t o = 0;
    for (int d = 0; d < frame.ndim; ++d) o += (x[d] - frame.lo[d]) * stride[d];
    return o;
  }
};

class Store {
 public:
  // `owned`: this rank's tile; `primary`: whether this rank's copy of it is the one that counts
  // where a tiling holds copies (partition/tiling.hpp): gathers and checkpoints read that one.
  Store(DType dtype, const Tiling& tiling, const Box& owned, bool primary, bool initialize_zero);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  DType dtype() const { return dtype_; }
  int ndim() const { return tiling_.ndim; }
  std::uint64_t id() const { return id_; }
  const Tiling& tiling() const { return tiling_; }
  const Box& owned() const { return owned_; }
  bool primary() const { return primary_; }
  Box full() const;
  View whole() const { return View::of_box(full()); }
  Box allocated() const;
  Layout layout() const { return Layout::row_major(allocated()); }
  // The device buffer, allocated on first use: a store that only ever lives in registers of a
  // fused kernel (a temporary) is never allocated.
  char* data();
  bool allocated_yet() const { return data_.data() != nullptr; }

  // Live Array<T> handles (user references), as opposed to the runtime's own references from
  // recorded ops: a store written in a fused group with no user handle and no later reader is
  // a temporary.
  int user_refs() const { return user_refs_; }
  void add_user_ref() { ++user_refs_; }
  void drop_user_ref() { --user_refs_; }

  // Bounds every element is known to lie in, where the op that made the store says so (argmin's
  // result lies in [0, extent)): set when that op is recorded, forgotten when a later op that
  // writes the store is (submit, fusion/window.cpp). bincount skips reading max(x) back when they
  // decide its length.
  struct Bounds {
    std::int64_t lo, hi;
  };
  const std::optional<Bounds>& known_bounds() const { return bounds_; }
  void set_known_bounds(Bounds b) { bounds_ = b; }
  void forget_bounds() { bounds_.reset(); }

  // Valid halo widths per side; the data of full() ∩ bloat(owned, valid) is current.
  const Index3& valid_lo() const { return valid_lo_; }
  const Index3& valid_hi() const { return valid_hi_; }
  void set_valid(const Index3& lo, const Index3& hi) { valid_lo_ = lo, valid_hi_ = hi; }
  void invalidate_halo() { valid_lo_ = valid_hi_ = Index3{0, 0, 0}; }
  // A kernel wrote the owned tile in place (the halo is stale; a spare buffer's frame too).
  void mark_written() {
    invalidate_halo();
    ++writes_;
  }
  // Makes room for ghosts at least this wide, keeping the data (and valid halo) already held.
  void ensure_ghosts(const Index3& lo, const Index3& hi);

  // Buffer renaming: a kernel writes part of the owned tile into a buffer of the same size and
  // layout (rename_buffer), the rest of the tile, `frame`, is copied over unless the buffer
  // already holds it, and the buffer becomes the store's storage (adopt). The old buffer is kept
  // as the next renaming's buffer: in a loop (stencil.py) its frame is still current when the
  // frame is the same and nothing else wrote the store in between, and the copy is skipped.
  Kokkos::View<char*, MemSpace> rename_buffer(const std::vector<Box>& frame, bool& frame_current);
  void adopt(Kokkos::View<char*, MemSpace>&& written, const std::vector<Box>& frame);
  // The next renaming's buffer (null if there is none yet), and whether its `frame` is current.
  // A caller that copies the frame into it ahead of the renaming (at the end of a batch of small
  // kernels, fusion/executor.cpp) says so with spare_frame_copied: the renaming then copies
  // nothing, unless the store is written before it.
  char* spare_data() const { return spare_.data(); }
  bool spare_frame_current(const std::vector<Box>& frame) const {
    return spare_.data() && spare_writes_ == writes_ && spare_frame_ == frame;
  }
  void spare_frame_copied(const std::vector<Box>& frame) {
    spare_frame_ = frame;
    spare_writes_ = writes_;
  }

  // Gives the buffers back to the memory pool: the executor's call for a store that nothing can
  // read any more (no Array handle, no recorded op) once the last kernel touching it is enqueued.
  void discard();

  // Frees the device memory (at runtime teardown); later use raises tessera::Error.
  void release();
  bool released() const { return released_; }

  // The list of live stores (release_stores(), below): intrusive, so that creating and destroying
  // a store (every temporary of an op) allocates nothing for it.
  void link_into(Store*& head) {
    prev_ = nullptr;
    next_ = head;
    if (head) head->prev_ = this;
    head = this;
  }
  void unlink_from(Store*& head) {
    if (prev_)
      prev_->next_ = next_;
    else
      head = next_;
    if (next_) next_->prev_ = prev_;
    prev_ = next_ = nullptr;
  }
  Store* next_linked() const { return next_; }

  // The planner's canonical number of this store in the window being canonicalized (stamp: which
  // canonicalization set it), so that numbering the stores needs no map.
  bool canonical_number(std::uint64_t stamp, int& number) const {
    if (canon_stamp_ != stamp) return false;
    number = canon_number_;
    return true;
  }
  void set_canonical_number(std::uint64_t stamp, int number) const { canon_stamp_ = stamp, canon_number_ = number; }
  // The planner's hash of tiling() (which never changes), once computed; 0: not yet.
  std::uint64_t tiling_hash() const { return tiling_hash_; }
  void set_tiling_hash(std::uint64_t h) const { tiling_hash_ = h; }

 private:
  DType dtype_;
  Tiling tiling_;
  Box owned_;
  Index3 ghost_lo_{0, 0, 0}, ghost_hi_{0, 0, 0};
  Index3 valid_lo_{0, 0, 0}, valid_hi_{0, 0, 0};
  Kokkos::View<char*, MemSpace> data_;
  Kokkos::View<char*, MemSpace> spare_;  // the buffer given up at the last renaming
  std::vector<Box> spare_frame_;         // ... the frame it shares with data_ then
  std::uint64_t writes_ = 0;             // in-place writes (mark_written)
  std::optional<Bounds> bounds_;
  std::uint64_t spare_writes_ = 0;  // writes_ when spare_ was given up
  std::uint64_t id_;
  int user_refs_ = 0;
  bool primary_ = true;
  bool zero_ = false;
  bool released_ = false;
  Store* prev_ = nullptr;
  Store* next_ = nullptr;
  mutable std::uint64_t canon_stamp_ = 0;
  mutable int canon_number_ = 0;
  mutable std::uint64_t tiling_hash_ = 0;
};

// A new store, held by a shared_ptr whose block (the store and its counts, one allocation) comes
// from a free list of such blocks: a steady loop makes and drops a store per temporary, more per
// window than malloc's per-thread cache keeps.
std::shared_ptr<Store> make_store(DType dtype, const Tiling& tiling, const Box& owned, bool primary,
                                  bool initialize_zero);

Box bloat(const Box& b, const Index3& lo, const Index3& hi);

// Copies the elements of `region` between two placements (pack, unpack, local copies).
void copy_box(const char* src, const Layout& src_layout, char* dst, const Layout& dst_layout, const Box& region,
              int element_size, const char* label);

// Copies disjoint boxes (at most 2 * kMaxDims) between two buffers of one layout, in one kernel.
void copy_pieces(const char* src, char* dst, const Layout& layout, const std::vector<Box>& pieces, int element_size,
                 const char* label);

// Frees the device memory of every live store and forgets them (at runtime teardown: arrays may
// outlive the runtime, their device memory may not outlive Kokkos); store ids start again at 1.
void release_stores();

// Holds a user reference on a store for a scope: an intermediate the caller has not yet wrapped
// in an Array<T> (an operand copy that a later op of the same call reads) must not look like a
// dead temporary if the op window is run meanwhile.
struct UserRef {
  explicit UserRef(std::shared_ptr<Store> s) : store(std::move(s)) { store->add_user_ref(); }
  UserRef(UserRef&& o) noexcept : store(std::move(o.store)) {}
  UserRef(const UserRef&) = delete;
  ~UserRef() {
    if (store) store->drop_user_ref();
  }
  std::shared_ptr<Store> store;
};

}  // namespace tessera::detail
