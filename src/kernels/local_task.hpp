#pragma once
// Kernels of the user's own on local tiles: an escape hatch that stays inside the runtime.
//
//   ts::local_task("my_smoother", ts::writes(u), ts::reads(f), ts::reads(v, /*halo=*/1),
//                  [](ts::Tile<double, 2> u_tile, ts::Tile<const double, 2> f_tile,
//                     ts::Tile<const double, 2> v_tile, const ts::TileInfo& info) {
//                    const std::int64_t n0 = info.hi[0] - info.lo[0], n1 = info.hi[1] - info.lo[1];
//                    Kokkos::parallel_for("smooth", Kokkos::MDRangePolicy<ts::ExecSpace, Kokkos::Rank<2>>(
//                        {0, 0}, {n0, n1}), KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) {
//                      u_tile(i, j) = f_tile(i, j) + v_tile(i - 1, j) + v_tile(i + 1, j);
//                    });
//                  });
//
// ts::Tile<T, N> is a Kokkos::Experimental::OffsetView of rank N in the runtime's memory space over
// the rank's tile: index 0 along each axis is the tile's first owned element; a read with a halo of
// width w has its ghost cells at -w..-1 and n..n+w-1 (n the owned extent); the OffsetView's own
// begin(d)/end(d)/extent(d) count the ghosts. Ghost cells hold the array's store around the tile
// (a view's neighbours included) and unspecified values past the store. Every array of a task has
// the same shape and so one tile per rank; info.lo/info.hi are its owned part as a half-open
// global box, info.shape the global shape. The function runs once per rank, also where the tile is
// empty (zero extents, no ghosts), on the host, and launches its kernels on ts::ExecSpace.
//
// The parameters' types fix each argument's element type and ndim (checked against the arrays:
// tessera::Error otherwise); ts::reads needs a Tile<const T, N>, ts::writes a Tile<T, N>, whose
// owned cells hold the array's current values (so it may read them too; it has no ghosts). The
// task runs when local_task is called, after everything recorded before it (the function may
// capture locals by reference); the halos it asks for are exchanged first, and what it writes is
// marked written (its halos are stale afterwards). It is its own group: opaque to fusion.

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <Kokkos_Core.hpp>
#include <Kokkos_OffsetView.hpp>

#include "tessera/array/array.hpp"
#include "tessera/tasks/task_body.hpp"

namespace tessera {

using ExecSpace = detail::ExecSpace;

namespace detail {
template <class T, int N>
struct tile_data {
  using type = typename tile_data<T, N - 1>::type*;
};
template <class T>
struct tile_data<T, 0> {
  using type = T;
};
}  // namespace detail

template <class T, int N>
using Tile = Kokkos::Experimental::OffsetView<typename detail::tile_data<T, N>::type, Kokkos::LayoutStride,
                                              detail::MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

struct TileInfo {
  Shape lo, hi;  // the owned part of the tile, a half-open global box
  Shape shape;   // the global shape
};

namespace detail {

// What ts::reads / ts::writes say about one argument.
struct LocalAccess {
  ArrayRef array;
  bool write = false;
  std::int64_t halo = 0;
};

// What the function's parameter for one argument takes.
struct TileParam {
  DType dtype = DType::Float64;
  int ndim = 0;
  bool writable = false;
};

// Checks the arguments against the function's parameters (tessera::Error, the same on every rank,
// otherwise) and returns their privileges and constraints.
std::vector<ArgSpec> local_task_specs(const std::string& label, const std::vector<LocalAccess>& accesses,
                                      const std::vector<TileParam>& params);
// Records the task and runs it, and everything recorded before it, at once.
void run_local_task(const std::string& label, const std::vector<LocalAccess>& accesses,
                    std::shared_ptr<const TaskBody> body);

template <class D>
struct pointer_depth {
  static constexpr int value = 0;
  using element = D;
};
template <class D>
struct pointer_depth<D*> {
  static constexpr int value = 1 + pointer_depth<D>::value;
  using element = typename pointer_depth<D>::element;
};
template <class X>
struct tile_of {
  static constexpr bool value = false;
};
template <class D>
struct tile_of<
    Kokkos::Experimental::OffsetView<D, Kokkos::LayoutStride, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>> {
  static constexpr bool value = true;
  static constexpr int ndim = pointer_depth<D>::value;
  using element = typename pointer_depth<D>::element;  // const T for a read-only tile
};

// The parameter types of a (non-generic) lambda or function object.
template <class F>
struct parameters_of : parameters_of<decltype(&F::operator())> {};
template <class C, class R, class... P>
struct parameters_of<R (C::*)(P...) const> {
  using type = std::tuple<std::decay_t<P>...>;
};
template <class C, class R, class... P>
struct parameters_of<R (C::*)(P...)> {
  using type = std::tuple<std::decay_t<P>...>;
};
template <class R, class... P>
struct parameters_of<R (*)(P...)> {
  using type = std::tuple<std::decay_t<P>...>;
};

template <class P>
TileParam tile_param() {
  using E = typename tile_of<P>::element;
  return TileParam{dtype_v<std::remove_const_t<E>>, tile_of<P>::ndim, !std::is_const_v<E>};
}

// The OffsetView over this rank's part of argument `a`: element (x0, ..., x{N-1}) relative to the
// tile's first owned element, ghosts from -ghosts.
template <class P>
P make_tile(const TileArg& a) {
  using E = typename tile_of<P>::element;
  constexpr int N = tile_of<P>::ndim;
  using Plain = Kokkos::View<typename tile_data<E, N>::type, Kokkos::LayoutStride, MemSpace,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::LayoutStride layout;
  typename P::begins_type begins;
  E* first = reinterpret_cast<E*>(a.data);
  const std::int64_t g = a.data ? a.ghosts : 0;
  for (int d = 0; d < N; ++d) {
    layout.dimension[d] = static_cast<std::size_t>(a.extent[d] + 2 * g);
    layout.stride[d] = static_cast<std::size_t>(a.stride[d]);
    begins[d] = -g;
    if (first) first -= g * a.stride[d];
  }
  return P(Plain(first, layout), begins);
}

template <class F, class Params, class Seq>
class LocalTaskBody;
template <class F, class... P, std::size_t... I>
class LocalTaskBody<F, std::tuple<P...>, std::index_sequence<I...>> final : public TaskBody {
 public:
  LocalTaskBody(std::vector<ArgSpec> specs, F fn) : TaskBody(std::move(specs)), fn_(std::move(fn)) {}
  void run(const TileContext& c) const override {
    TileInfo info;
    for (int d = 0; d < c.tile.ndim; ++d) {
      info.lo.push_back(c.tile.lo[d]);
      info.hi.push_back(c.tile.hi[d]);
      info.shape.push_back(c.shape[d]);
    }
    if constexpr (sizeof...(P) > sizeof...(I))
      fn_(make_tile<std::tuple_element_t<I, std::tuple<P...>>>(c.args[I])..., info);
    else
      fn_(make_tile<std::tuple_element_t<I, std::tuple<P...>>>(c.args[I])...);
  }

 private:
  mutable F fn_;  // a mutable lambda may change its captures
};

template <std::size_t... I, class Args>
void local_task_impl(const std::string& label, std::index_sequence<I...>, Args&& args) {
  using F = std::decay_t<std::tuple_element_t<sizeof...(I), std::decay_t<Args>>>;
  static_assert(!std::is_same_v<F, LocalAccess>,
                "tessera::local_task(label, ts::reads(a)..., ts::writes(b)..., fn): the last argument is the function");
  using Params = typename parameters_of<F>::type;
  constexpr std::size_t nparams = std::tuple_size_v<Params>;
  constexpr bool with_info = nparams == sizeof...(I) + 1;
  static_assert(nparams == sizeof...(I) || with_info,
                "tessera::local_task: the function takes one ts::Tile<T, N> per ts::reads/ts::writes argument, in "
                "order, and then (optionally) a const ts::TileInfo&");
  if constexpr (with_info)
    static_assert(std::is_same_v<std::tuple_element_t<nparams - 1, Params>, TileInfo>,
                  "tessera::local_task: the function's last parameter is a const ts::TileInfo&");
  static_assert((tile_of<std::tuple_element_t<I, Params>>::value && ...),
                "tessera::local_task: each of the function's first parameters is a ts::Tile<T, N> "
                "(ts::Tile<const T, N> for ts::reads)");
  const std::vector<LocalAccess> accesses{std::get<I>(args)...};
  std::vector<ArgSpec> specs = local_task_specs(label, accesses, {tile_param<std::tuple_element_t<I, Params>>()...});
  using Body = LocalTaskBody<F, Params, std::index_sequence<I...>>;
  run_local_task(label, accesses,
                 std::make_shared<const Body>(std::move(specs), std::get<sizeof...(I)>(std::forward<Args>(args))));
}

}  // namespace detail

// The argument `a` read by the task, with ghost cells `halo` wide on every side.
template <class T>
detail::LocalAccess reads(const Array<T>& a, std::int64_t halo = 0) {
  return detail::LocalAccess{a.impl(), false, halo};
}
// The argument `a` written (and readable) by the task, its owned cells only.
template <class T>
detail::LocalAccess writes(const Array<T>& a) {
  return detail::LocalAccess{a.impl(), true, 0};
}

// local_task(label, ts::writes(u), ts::reads(f), ..., fn): see the top of this file.
template <class... Rest>
void local_task(const std::string& label, Rest&&... rest) {
  static_assert(sizeof...(Rest) >= 2, "tessera::local_task(label, ts::reads(a) or ts::writes(a), ..., fn)");
  detail::local_task_impl(label, std::make_index_sequence<sizeof...(Rest) - 1>{},
                          std::forward_as_tuple(std::forward<Rest>(rest)...));
}

}  // namespace tessera
