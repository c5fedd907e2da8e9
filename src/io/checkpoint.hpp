#pragma once
// Checkpoint/restart with parallel HDF5: ts::save writes named arrays into one HDF5 file, every rank
// writing its own tile through MPI-IO; ts::load reads them back tiled for the ranks that load them,
// which may be more or fewer than the ranks that saved them.
//
//   ts::save("run.h5", {{"u", u}, {"mask", mask}}, {{"step", step}});  // collective
//   ts::Checkpoint ck = ts::load("run.h5");                              // collective
//   ts::Array<double> u2 = ck.get<double>("u");
//   std::int64_t step2 = ck.attribute("step");
//   auto m = ts::load<bool>("run.h5", "mask");                           // one array only
//
// One dataset per array, with the array's global shape and a standard HDF5 type, so h5dump and
// h5py read the file as it is. save writes to "<path>.tmp.<pid of rank 0>" and renames that into
// place only once every rank has closed it: the path holds the old file or the new one, never a
// partial one. Every dataset carries a checksum that load verifies. Any failure (missing file,
// missing array, truncated or corrupt file, I/O error) throws the same tessera::Error on every rank
// and changes nothing: no array of the program is written by load, no file but the temporary one
// by save. The format and the checksum are specified in docs/CHECKPOINT.md.

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "tessera/array/array.hpp"

namespace tessera {

// An array to save and its name in the file; ts::save(path, {{"u", u}, {"v", v}}) makes these.
// Views are saved as arrays of their own shape; 0-d arrays (reductions) as HDF5 scalars.
struct NamedArray {
  template <class T>
  NamedArray(std::string name, const Array<T>& array) : name(std::move(name)), array(array.impl()) {}
  std::string name;
  detail::ArrayRef array;
};

// Integer metadata saved with the arrays (the step number of a simulation, ...), as attributes of
// the file's root group. Keys beginning with "tessera_" are reserved.
using CheckpointAttributes = std::map<std::string, std::int64_t>;

namespace detail {
struct CheckpointReader;
std::uint64_t checksum(const ArrayRef& a);
}  // namespace detail

// The arrays of a checkpoint file, loaded and tiled for the current ranks.
class Checkpoint {
 public:
  using Entry = std::variant<Array<bool>, Array<std::int32_t>, Array<std::int64_t>, Array<float>, Array<double>>;

  const std::string& path() const { return path_; }
  // The names of the arrays, sorted.
  std::vector<std::string> names() const;
  bool contains(const std::string& name) const { return arrays_.count(name) != 0; }
  DType dtype(const std::string& name) const { return static_cast<DType>(entry(name).index()); }
  // The loaded array; an error if there is none of that name or it has another element type
  // (convert with astype after get). Every call returns a handle to the same storage.
  template <class T>
  Array<T> get(const std::string& name) const {
    const Entry& e = entry(name);
    if (const Array<T>* a = std::get_if<Array<T>>(&e)) return *a;
    detail::raise("load('", path_, "'): the array '", name, "' holds ", tessera::name(dtype(name)), ", not ",
                  tessera::name(dtype_v<T>), ": call get<> with its type, then astype");
  }
  // The checksum stored with (and verified against) the array: equals ts::checksum of it.
  std::uint64_t checksum(const std::string& name) const;
  const CheckpointAttributes& attributes() const { return attributes_; }
  std::int64_t attribute(const std::string& key) const;  // an error if absent

 private:
  friend struct detail::CheckpointReader;
  const Entry& entry(const std::string& name) const;

  std::string path_;
  std::map<std::string, Entry> arrays_;
  std::map<std::string, std::uint64_t> checksums_;
  CheckpointAttributes attributes_;
};

// Writes the arrays (names unique, non-empty, without '/') and the attributes to `path`, replacing
// any file there only once the new one is complete. Collective: every rank calls it with the same
// names and arrays.
void save(const std::string& path, const std::vector<NamedArray>& arrays, const CheckpointAttributes& attributes = {});

// Reads every array of a file written by save, each tiled as the creation routines tile a new
// array of its shape, and verifies their checksums. Collective.
Checkpoint load(const std::string& path);

namespace detail {
Checkpoint load_only(const std::string& path, const std::string& name);
}

// Reads and verifies only the array `name`, which must hold T. Collective.
template <class T>
Array<T> load(const std::string& path, const std::string& name) {
  return detail::load_only(path, name).get<T>(name);
}

// A 64-bit hash of the array's dtype, shape and element values in row-major order: the checksum that
// save stores. The same for any number of ranks and any tiling (docs/CHECKPOINT.md gives the
// formula). Collective and synchronizing, as item().
template <class T>
std::uint64_t checksum(const Array<T>& a) {
  return detail::checksum(a.impl());
}

}  // namespace tessera
