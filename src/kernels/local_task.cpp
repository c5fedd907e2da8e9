// local_task: the arguments checked against the function's tile parameters, then one task with
// partition constraints (align for writes and plain reads, bloat(w) for reads with a halo) whose
// domain is the first written array, recorded and run at once.

#include "tessera/kernels/local_task.hpp"

#include "tessera/core/error.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"

namespace tessera::detail {
namespace {

const char* access_name(const LocalAccess& a) { return a.write ? "ts::writes" : "ts::reads"; }

const char* cpp_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int32: return "std::int32_t";
    case DType::Int64: return "std::int64_t";
    case DType::Float32: return "float";
    default: return "double";
  }
}

std::string tile_name(DType t, int ndim, bool writable) {
  return std::string("ts::Tile<") + (writable ? "" : "const ") + cpp_name(t) + ", " + std::to_string(ndim) + ">";
}

// The argument the launch domain is: the first written one (or the first).
int domain_of(const std::vector<LocalAccess>& accesses) {
  for (std::size_t i = 0; i < accesses.size(); ++i)
    if (accesses[i].write) return static_cast<int>(i);
  return 0;
}

}  // namespace

std::vector<ArgSpec> local_task_specs(const std::string& label, const std::vector<LocalAccess>& accesses,
                                      const std::vector<TileParam>& params) {
  const std::string what = "local_task \"" + label + "\"";
  for (const LocalAccess& a : accesses) check_runtime(a.array, what.c_str());
  const int key = domain_of(accesses);
  const Shape shape = accesses[key].array.shape();
  std::vector<ArgSpec> specs;
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    const LocalAccess& a = accesses[i];
    const TileParam& p = params[i];
    const std::string arg = what + ": argument " + std::to_string(i) + " (" + access_name(a) + ")";
    const int ndim = a.array.ndim();
    if (ndim == 0)
      raise(arg, " is a 0-d array; a local task takes arrays of 1 to 3 dimensions (read a 0-d value with item())");
    if (ndim != p.ndim || a.array.dtype() != p.dtype)
      raise(arg, " is a ", name(a.array.dtype()), " array of shape ", shape_string(a.array.shape()),
            ", but the function takes it as ", tile_name(p.dtype, p.ndim, p.writable), "; take it as ",
            tile_name(a.array.dtype(), ndim, a.write));
    if (!a.write && p.writable)
      raise(arg, " is read-only, but the function takes it as ", tile_name(p.dtype, p.ndim, true),
            ", which could write it; take ", tile_name(p.dtype, p.ndim, false), " (or declare it ts::writes)");
    if (a.halo < 0) raise(arg, ": halo ", a.halo, " is negative; a halo is 0 or more cells wide");
    if (a.array.shape() != shape)
      raise(arg, " has shape ", shape_string(a.array.shape()), " but argument ", key, " has shape ",
            shape_string(shape), ": the arrays of a local task share one tile per rank, so one shape");
    for (std::size_t j = 0; j < i; ++j)
      if (accesses[j].array.store == a.array.store && (a.write || accesses[j].write))
        raise(what, ": arguments ", j, " and ", i, " name the same array and one of them writes it; a task reads ",
              "and writes an array through one ts::writes argument (its tile holds the current values)");
    if (a.write && static_cast<int>(i) != key) {
      const ArrayRef& d = accesses[key].array;
      const auto mine = induced(a.array.store->tiling(), a.array.view);
      const auto theirs = induced(d.store->tiling(), d.view);
      if (!mine || !theirs || !mine->matches(*theirs))
        raise(what, ": the written arguments ", key, " and ", i,
              " are tiled differently (views of arrays of other shapes), so no rank holds both tiles; write into "
              "arrays created alike (ts::empty_like) or into one and assign the other from it");
    }
    specs.push_back({a.write ? Privilege::ReadWrite : Privilege::Read, a.halo > 0 ? bloat(a.halo) : align()});
  }
  return specs;
}

void run_local_task(const std::string& label, const std::vector<LocalAccess>& accesses,
                    std::shared_ptr<const TaskBody> body) {
  Task task;
  task.label = "tessera::local_task[" + label + "]";
  task.key = domain_of(accesses);
  std::vector<ArgView> views;
  for (const LocalAccess& a : accesses) {
    task.args.push_back(Arg{a.array.store, a.array.view, a.write, false});
    views.push_back({a.array.store.get(), a.array.view});
  }
  body->validate(task.label, views, task.key);
  task.body = std::move(body);
  runtime().stats().ops++;
  submit(std::move(task));
  flush_window();
}

}  // namespace tessera::detail
