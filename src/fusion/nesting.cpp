#include "tessera/fusion/nesting.hpp"

#include "tessera/data/store.hpp"
#include "tessera/fusion/runtime_state.hpp"

namespace tessera::detail {
namespace {

// The result dimension of input dimension d of a reduction along `axis` (-1: reduced away; with
// keepdims the reduced axis stays, of length 1).
int kept_dim(int d, int axis, bool keepdims) {
  if (keepdims) return d;
  return d == axis ? -1 : d < axis ? d : d - 1;
}

}  // namespace

std::optional<Nesting> nesting(const Task& inner, const Store& inner_result, const Task& outer, const Store& result) {
  const View& in = inner.args[inner.key].view;
  const int n = in.ndim, n1 = inner_result.ndim(), n2 = result.ndim();
  if (inner.program.reduce_dim < 0 || outer.program.reduce_dim < 0 || n2 == 0) return std::nullopt;
  const int inner_axis = inner.program.reduce_dim - (3 - n);
  const int outer_axis = outer.program.reduce_dim - (3 - n1);  // an axis of the inner result
  const bool keep1 = n1 == n, keep2 = n2 == n1;
  Nesting g;
  g.inner_dim = inner.program.reduce_dim;
  // Inner-domain dimension of each inner-result dimension.
  int from[3] = {-1, -1, -1};
  for (int d = 0; d < n; ++d)
    if (const int r = kept_dim(d, inner_axis, keep1); r >= 0 && !(keep1 && d == inner_axis)) from[r] = d;
  if (outer_axis < 0 || outer_axis >= n1 || from[outer_axis] < 0) return std::nullopt;  // the kept length-1 axis
  g.outer_dim = 3 - n + from[outer_axis];
  for (int p = 0; p < 3; ++p) {
    const int r = p - (3 - n1);
    g.coord_map[p] = r >= 0 && from[r] >= 0 ? 3 - n + from[r] : 0;
  }
  // The launch domain: inner-domain dimension d moves result dimension k where the reductions
  // keep it; the reduced dimensions (of length 1 in the result with keepdims) are stretched.
  View& v = g.domain;
  v.ndim = n;
  v.store_ndim = n2;
  for (int d = 0; d < n; ++d) {
    v.extent[d] = in.extent[d];
    if (d == inner_axis) continue;
    const int r = kept_dim(d, inner_axis, keep1);
    if (r == outer_axis) continue;
    const int k = kept_dim(r, outer_axis, keep2);
    if (k >= 0 && result.full().extent(k) == in.extent[d]) v.map[k][d] = 1;
  }
  return g;
}

std::string gathered_operand(const Nesting& nesting, const Tiling& launch,
                             const std::vector<std::pair<const Store*, View>>& operands) {
  const int n = launch.ndim;
  for (const auto& [store, view] : operands) {
    const std::optional<Tiling> t = store->ndim() > 0 ? induced(store->tiling(), view) : std::nullopt;
    if (!t || t->grid != launch.grid) continue;
    for (const int d : {nesting.inner_dim - (3 - n), nesting.outer_dim - (3 - n)})
      if (launch.cuts[d] && launch.cuts[d]->parts > 1 && t->cuts[d] == launch.cuts[d] && t->axis[d] == launch.axis[d])
        return "store#" + std::to_string(store->id()) + " is cut along reduced dimension " + std::to_string(d) +
               " as the launch domain is, and would be gathered";
  }
  return "";
}

std::optional<View> epilogue_lift(const View& domain, int op_ndim, const Index3& op_extent) {
  const int n = domain.ndim;
  if (n == 0 || (op_ndim != n - 1 && op_ndim != n)) return std::nullopt;
  for (int d = 0; d < n - 1; ++d)
    if (op_extent[d] != domain.extent[d]) return std::nullopt;
  if (op_ndim == n && op_extent[n - 1] != 1) return std::nullopt;
  View lift;
  lift.ndim = n;
  lift.store_ndim = op_ndim;
  lift.extent = domain.extent;
  for (int d = 0; d < n - 1; ++d) lift.map[d][d] = 1;  // the reduced dimension is stretched
  return lift;
}

bool same_parts(const Tiling& a, const Tiling& b) {
  if (a.ndim != b.ndim) return false;
  if (a.aligned(b)) return true;
  const RuntimeState& rt = runtime();
  const ProcessGrid &ga = rt.grid(a.grid), &gb = rt.grid(b.grid);
  for (int r = 0; r < rt.size(); ++r) {
    const Box x = a.tile(ga.coords(r)), y = b.tile(gb.coords(r));
    for (int d = 0; d < a.ndim; ++d)
      if (x.lo[d] != y.lo[d] || x.hi[d] != y.hi[d]) return false;
  }
  return true;
}

bool same_holders(const Tiling& a, const Tiling& b) {
  const RuntimeState& rt = runtime();
  const ProcessGrid &ga = rt.grid(a.grid), &gb = rt.grid(b.grid);
  for (int r = 0; r < rt.size(); ++r)
    if (a.tile(ga.coords(r)).empty() != b.tile(gb.coords(r)).empty()) return false;
  return true;
}

}  // namespace tessera::detail
