// Checkpoint files with parallel HDF5 (format and guarantees: docs/CHECKPOINT.md).
//
// Every step that can fail runs on every rank and ends in an agreement: an allreduce of "the first
// rank that failed" and a broadcast of that rank's message. So all ranks leave a failed save or load
// at the same step with the same message, and none is left waiting in a collective (HDF5's
// collective metadata operations, MPI-IO writes) that the others skipped. HDF5's own error printing
// is switched off for the duration; its error stack is folded into our messages instead.

#include "tessera/io/checkpoint.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <utility>

#include "tessera/array/store_factory.hpp"
#include "tessera/comm/agreement.hpp"
#include "tessera/core/error.hpp"
#include "tessera/core/profiling.hpp"
#include "tessera/fusion/runtime_state.hpp"
#include "tessera/fusion/window.hpp"
#include "tessera/io/host_part.hpp"

namespace tessera {
namespace detail {
namespace {

constexpr int kFormatVersion = 1;
constexpr const char* kFormatAttr = "tessera_format";      // root group: int32, the format version
constexpr const char* kDTypeAttr = "tessera_dtype";        // each dataset: "float64", "bool", ...
constexpr const char* kChecksumAttr = "tessera_checksum";  // each dataset: uint64
constexpr const char* kReservedPrefix = "tessera_";

// ---- Errors ----

std::string hex(std::uint64_t x) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(x));
  return text;
}

std::int64_t volume_of(const Shape& shape) {
  std::int64_t v = 1;
  for (std::int64_t e : shape) v *= e;
  return v;
}

herr_t collect_error(unsigned, const H5E_error2_t* e, void* out) {
  if (e->desc && *e->desc) static_cast<std::vector<std::string>*>(out)->push_back(e->desc);
  return 0;
}

// HDF5's account of its last failure: the outermost entry of its error stack (what the API call
// could not do) and the innermost (why), e.g. "unable to open file: truncated file: eof = ...".
std::string hdf5_detail() {
  std::vector<std::string> lines;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &lines);
  H5Eclear2(H5E_DEFAULT);
  if (lines.empty()) return "";
  std::string out = " (HDF5: " + lines.front();
  if (lines.size() > 1 && lines.back() != lines.front()) out += ": " + lines.back();
  return out + ")";
}

// After an HDF5 call every rank made: the same IoFailure on every rank if it failed on any, with
// HDF5's account of it.
void check(Collective& c, bool ok, const std::string& what) { c.require(ok, ok ? what : what + hdf5_detail()); }

// ---- HDF5 handles ----

class H5 {
 public:
  H5() = default;
  H5(hid_t id, herr_t (*closer)(hid_t)) : id_(id), closer_(closer) {}
  H5(H5&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = -1; }
  H5& operator=(H5&& o) noexcept {
    if (this != &o) {
      close();
      id_ = o.id_, closer_ = o.closer_;
      o.id_ = -1;
    }
    return *this;
  }
  ~H5() { close(); }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }
  // Closes now; false if HDF5 reports a failure (closing a file flushes it).
  bool close() {
    const bool good = id_ < 0 || !closer_ || closer_(id_) >= 0;
    id_ = -1;
    return good;
  }

 private:
  hid_t id_ = -1;
  herr_t (*closer_)(hid_t) = nullptr;  // null for HDF5's predefined types
};

// Silences HDF5's printing of errors for the lifetime of the object (we report them ourselves).
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// The HDF5 type of a dtype, in memory or in the file (little-endian there). bool is h5py's own
// convention, an enum {FALSE = 0, TRUE = 1} over int8, which h5py reads back as numpy bool.
H5 hdf5_type(DType t, bool in_file) {
  switch (t) {
    case DType::Bool: {
      H5 e(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose);
      const signed char no = 0, yes = 1;
      if (e.ok() && (H5Tenum_insert(e.get(), "FALSE", &no) < 0 || H5Tenum_insert(e.get(), "TRUE", &yes) < 0)) e.close();
      return e;
    }
    case DType::Int32: return H5(in_file ? H5T_STD_I32LE : H5T_NATIVE_INT32, nullptr);
    case DType::Int64: return H5(in_file ? H5T_STD_I64LE : H5T_NATIVE_INT64, nullptr);
    case DType::Float32: return H5(in_file ? H5T_IEEE_F32LE : H5T_NATIVE_FLOAT, nullptr);
    default: return H5(in_file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE, nullptr);
  }
}

std::string describe_type(hid_t type) {
  const std::string size = std::to_string(H5Tget_size(type)) + "-byte ";
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: return "a " + size + (H5Tget_sign(type) == H5T_SGN_NONE ? "unsigned integer" : "integer");
    case H5T_FLOAT: return "a " + size + "float";
    case H5T_ENUM: return "a " + size + "enum";
    case H5T_STRING: return "a string";
    default: return "an HDF5 type of class " + std::to_string(static_cast<int>(H5Tget_class(type)));
  }
}

bool type_matches(hid_t type, DType t) {
  const H5T_class_t c = H5Tget_class(type);
  const std::size_t size = H5Tget_size(type);
  const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
  switch (t) {
    case DType::Bool: return c == H5T_ENUM && size == 1;
    case DType::Int32: return c == H5T_INTEGER && size == 4 && is_signed;
    case DType::Int64: return c == H5T_INTEGER && size == 8 && is_signed;
    case DType::Float32: return c == H5T_FLOAT && size == 4;
    default: return c == H5T_FLOAT && size == 8;
  }
}

bool parse_dtype(const std::string& text, DType& out) {
  for (DType t : {DType::Bool, DType::Int32, DType::Int64, DType::Float32, DType::Float64})
    if (text == name(t)) return out = t, true;
  return false;
}

std::string quoted_list(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out;
}

// A scalar dataspace (0-d arrays, attributes) or a simple one of the array's shape.
H5 dataspace(const Shape& shape) {
  if (shape.empty()) return H5(H5Screate(H5S_SCALAR), H5Sclose);
  hsize_t dims[kMaxDims];
  for (std::size_t d = 0; d < shape.size(); ++d) dims[d] = static_cast<hsize_t>(shape[d]);
  return H5(H5Screate_simple(static_cast<int>(shape.size()), dims, nullptr), H5Sclose);
}

// Selects this rank's part in the file's dataspace and makes the matching memory dataspace.
bool select_part(hid_t file_space, const HostPart& part, int ndim, H5& mem_space) {
  if (part.empty()) {
    mem_space = H5(H5Screate(H5S_SCALAR), H5Sclose);
    return mem_space.ok() && H5Sselect_none(mem_space.get()) >= 0 && H5Sselect_none(file_space) >= 0;
  }
  const hsize_t count = part.box.volume();
  mem_space = H5(H5Screate_simple(1, &count, nullptr), H5Sclose);
  if (!mem_space.ok()) return false;
  if (ndim == 0) return H5Sselect_all(file_space) >= 0;
  hsize_t start[kMaxDims], extent[kMaxDims];
  for (int d = 0; d < ndim; ++d) {
    start[d] = static_cast<hsize_t>(part.box.lo[d]);
    extent[d] = static_cast<hsize_t>(part.box.extent(d));
  }
  return H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, extent, nullptr) >= 0;
}

H5 parallel_access(Collective& c) {
  H5 fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  // Metadata is written collectively (fewer small writes at scale). Reads are not made collective:
  // a rank that meets corrupt metadata in a collective read gives up while the others wait in its
  // broadcast; load checks all metadata on rank 0 before any rank opens the file (see inspect).
  check(c,
        fapl.ok() && H5Pset_fapl_mpio(fapl.get(), c.comm(), MPI_INFO_NULL) >= 0 &&
            H5Pset_coll_metadata_write(fapl.get(), true) >= 0,
        "cannot set up parallel (MPI-IO) HDF5 file access");
  return fapl;
}

H5 collective_transfer(Collective& c) {
  H5 dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  check(c, dxpl.ok() && H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE) >= 0,
        "cannot set up collective HDF5 transfers");
  return dxpl;
}

// ---- Attributes ----

void write_attribute(Collective& c, hid_t object, const char* key, hid_t file_type, hid_t mem_type, const void* value,
                     const std::string& where) {
  H5 space(H5Screate(H5S_SCALAR), H5Sclose);
  H5 attribute;
  bool ok = space.ok();
  if (ok) attribute = H5(H5Acreate2(object, key, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  ok = ok && attribute.ok() && H5Awrite(attribute.get(), mem_type, value) >= 0;
  ok = attribute.close() && ok;
  check(c, ok, "cannot write the attribute '" + std::string(key) + "' of " + where);
}

void write_string_attribute(Collective& c, hid_t object, const char* key, const std::string& value,
                            const std::string& where) {
  H5 type(H5Tcopy(H5T_C_S1), H5Tclose);
  check(c,
        type.ok() && H5Tset_size(type.get(), value.size() + 1) >= 0 && H5Tset_strpad(type.get(), H5T_STR_NULLTERM) >= 0,
        "cannot make a string type");
  write_attribute(c, object, key, type.get(), type.get(), value.c_str(), where);
}

// On one rank (the inspection of a file, below): a failed HDF5 call or check throws an IoFailure that
// the caller hands to the agreement.
void expect(bool ok, const std::string& what) {
  if (!ok) throw IoFailure(what + hdf5_detail());
}
void expect_that(bool ok, const std::string& what) {
  if (!ok) throw IoFailure(what);
}

void require_attribute(hid_t object, const char* key, const std::string& where) {
  const htri_t exists = H5Aexists(object, key);
  expect(exists >= 0, "cannot look up the attribute '" + std::string(key) + "' of " + where);
  expect_that(exists > 0, where + " has no '" + key + "' attribute: it was not written by tessera::save");
}

// Reads a one-element attribute converted to `mem_type`.
void read_attribute(hid_t object, const char* key, hid_t mem_type, void* value, const std::string& where) {
  require_attribute(object, key, where);
  H5 attribute(H5Aopen(object, key, H5P_DEFAULT), H5Aclose);
  H5 space;
  if (attribute.ok()) space = H5(H5Aget_space(attribute.get()), H5Sclose);
  const bool ok =
      space.ok() && H5Sget_simple_extent_npoints(space.get()) == 1 && H5Aread(attribute.get(), mem_type, value) >= 0;
  expect(ok, "cannot read the attribute '" + std::string(key) + "' of " + where);
}

std::string read_string_attribute(hid_t object, const char* key, const std::string& where) {
  require_attribute(object, key, where);
  H5 attribute(H5Aopen(object, key, H5P_DEFAULT), H5Aclose);
  H5 type;
  if (attribute.ok()) type = H5(H5Aget_type(attribute.get()), H5Tclose);
  const bool fixed_string = type.ok() && H5Tget_class(type.get()) == H5T_STRING && H5Tis_variable_str(type.get()) == 0;
  std::vector<char> text(fixed_string ? H5Tget_size(type.get()) + 1 : 1, '\0');
  const bool ok = fixed_string && H5Aread(attribute.get(), type.get(), text.data()) >= 0;
  expect(ok, "cannot read the attribute '" + std::string(key) + "' of " + where + " as a fixed-length string");
  return std::string(text.data());
}

herr_t collect_name(hid_t, const char* name, const H5A_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->push_back(name);
  return 0;
}

herr_t collect_link(hid_t, const char* name, const H5L_info_t*, void* out) {
  static_cast<std::vector<std::string>*>(out)->push_back(name);
  return 0;
}

// ---- save ----

void validate(const std::string& path, const std::vector<NamedArray>& arrays, const CheckpointAttributes& attributes) {
  runtime();
  if (path.empty()) raise("save: the path is empty");
  std::set<std::string> seen;
  for (const NamedArray& a : arrays) {
    check_runtime(a.array, ("save('" + path + "'): the array '" + a.name + "'").c_str());
    if (a.name.empty() || a.name.find('/') != std::string::npos || a.name == "." || a.name == "..")
      raise("save('", path, "'): '", a.name, "' cannot name an array (non-empty, no '/', not '.' or '..')");
    if (!seen.insert(a.name).second) raise("save('", path, "'): the name '", a.name, "' is given twice");
  }
  for (const auto& entry : attributes)
    if (entry.first.empty() || entry.first.rfind(kReservedPrefix, 0) == 0)
      raise("save('", path, "'): '", entry.first, "' cannot name an attribute (non-empty; names beginning with '",
            kReservedPrefix, "' are tessera's)");
}

void write_file(Collective& c, const std::string& tmp, const std::vector<NamedArray>& arrays,
                const CheckpointAttributes& attributes, bool& created) {
  H5 fapl = parallel_access(c);
  H5 file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose);
  check(c, file.ok(), "cannot create '" + tmp + "'");
  created = true;
  const int version = kFormatVersion;
  write_attribute(c, file.get(), kFormatAttr, H5T_STD_I32LE, H5T_NATIVE_INT, &version, "the file");
  for (const auto& [key, value] : attributes)
    write_attribute(c, file.get(), key.c_str(), H5T_STD_I64LE, H5T_NATIVE_INT64, &value, "the file");
  H5 dxpl = collective_transfer(c);

  std::vector<H5> datasets;
  std::vector<std::uint64_t> sums(arrays.size(), 0);
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const ArrayRef& a = arrays[i].array;
    const std::string where = "the array '" + arrays[i].name + "'";
    const DType type = a.dtype();
    const Shape shape = a.shape();
    H5 file_type = hdf5_type(type, true), mem_type = hdf5_type(type, false);
    H5 space = dataspace(shape);
    H5 dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    check(c,
          file_type.ok() && mem_type.ok() && space.ok() && dcpl.ok() &&
              H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER) >= 0,
          "cannot describe " + where);
    H5 dataset(H5Dcreate2(file.get(), arrays[i].name.c_str(), file_type.get(), space.get(), H5P_DEFAULT, dcpl.get(),
                          H5P_DEFAULT),
               H5Dclose);
    check(c, dataset.ok(), "cannot create the dataset of " + where);
    write_string_attribute(c, dataset.get(), kDTypeAttr, name(type), where);

    HostPart part;
    c.local("cannot copy " + where + " to the host", [&] {
      part = host_part(a, c.rank());
      sums[i] = partial_hash(part, shape, type);
    });
    H5 mem_space;
    static const char nothing = 0;  // HDF5 wants a buffer even when this rank writes nothing
    // A dataset of no elements has no storage to write to (HDF5 fails a write of nothing to it).
    const bool ok = a.size() == 0 || (select_part(space.get(), part, a.ndim(), mem_space) &&
                                      H5Dwrite(dataset.get(), mem_type.get(), mem_space.get(), space.get(), dxpl.get(),
                                               part.empty() ? &nothing : part.bytes.data()) >= 0);
    check(c, ok, "cannot write " + where);
    datasets.push_back(std::move(dataset));
  }

  c.sum(sums);
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const std::uint64_t checksum = header_hash(arrays[i].array.dtype(), arrays[i].array.shape()) + sums[i];
    write_attribute(c, datasets[i].get(), kChecksumAttr, H5T_STD_U64LE, H5T_NATIVE_UINT64, &checksum,
                    "the array '" + arrays[i].name + "'");
  }
  bool closed = true;
  for (H5& d : datasets) closed = d.close() && closed;
  closed = file.close() && closed;  // flushes
  check(c, closed, "cannot close '" + tmp + "'");
}

std::string errno_text(int e) { return std::string(": ") + std::strerror(e); }

// Rank 0, once every rank has closed the temporary file: make its contents durable, then give it
// the final name (atomic on POSIX file systems), then make the new name durable.
std::string commit(const std::string& tmp, const std::string& path) {
  const int fd = ::open(tmp.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    return "cannot sync '" + tmp + "'" + errno_text(e);
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    return "cannot rename '" + tmp + "' to '" + path + "'" + errno_text(e);
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);  // best effort: some file systems do not sync directories
    ::close(dfd);
  }
  return "";
}

// ---- load ----

// What a file holds, read from its metadata by rank 0 and broadcast to the others.
struct ArrayInfo {
  std::string name;
  DType type = DType::Float64;
  Shape shape;
  std::uint64_t stored = 0;  // tessera_checksum
};
struct Contents {
  CheckpointAttributes attributes;
  std::vector<ArrayInfo> arrays;
};

// The bytes a dataset of this shape and element size stores; false if that overflows 64 bits.
bool stored_bytes(const Shape& shape, std::uint64_t element_size, std::uint64_t& bytes) {
  bytes = element_size;
  for (std::int64_t e : shape) {
    const auto extent = static_cast<std::uint64_t>(e);
    if (extent != 0 && bytes > ~std::uint64_t(0) / extent) return false;
    bytes *= extent;
  }
  return true;
}

// Reads the metadata of a checkpoint file on this rank alone, through HDF5's POSIX driver, and
// checks it. All of it is read here, before any rank opens the file in parallel: HDF5 1.10 reads
// the superblock and root group collectively (one rank reads, then broadcasts), and a rank that
// meets corrupt metadata there leaves the others waiting in that broadcast. A file whose metadata
// rank 0 has read once is safe to open in parallel (the same bytes, read again).
Contents inspect(const std::string& path, const std::string* only) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  expect_that(std::filesystem::exists(status), "no such file");
  expect_that(!std::filesystem::is_directory(status), "it is a directory, not a checkpoint file");
  const std::uintmax_t file_size = std::filesystem::file_size(path, ec);
  expect_that(!ec, "cannot read its size: " + ec.message());
  H5 file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  expect(file.ok(), "cannot open it as an HDF5 file");
  int version = 0;
  read_attribute(file.get(), kFormatAttr, H5T_NATIVE_INT, &version, "the file");
  expect_that(version == kFormatVersion, "the file has format version " + std::to_string(version) +
                                             "; this tessera reads version " + std::to_string(kFormatVersion));

  Contents out;
  // Integer attributes of the root group that are not tessera's own: the caller's metadata.
  std::vector<std::string> keys;
  expect(H5Aiterate2(file.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &keys) >= 0,
         "cannot list the file's attributes");
  for (const std::string& key : keys) {
    if (key.rfind(kReservedPrefix, 0) == 0) continue;
    H5 attribute(H5Aopen(file.get(), key.c_str(), H5P_DEFAULT), H5Aclose);
    H5 type;
    if (attribute.ok()) type = H5(H5Aget_type(attribute.get()), H5Tclose);
    expect(type.ok(), "cannot open the attribute '" + key + "'");
    if (H5Tget_class(type.get()) != H5T_INTEGER) continue;  // not one that save writes
    read_attribute(file.get(), key.c_str(), H5T_NATIVE_INT64, &out.attributes[key], "the file");
  }

  std::vector<std::string> links, names;
  expect(H5Literate(file.get(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_link, &links) >= 0,
         "cannot list the file's contents");
  for (const std::string& link : links) {
    H5 object(H5Oopen(file.get(), link.c_str(), H5P_DEFAULT), H5Oclose);
    expect(object.ok(), "cannot open the object '" + link + "'");
    if (H5Iget_type(object.get()) == H5I_DATASET) names.push_back(link);
  }
  if (only) {
    expect_that(std::find(names.begin(), names.end(), *only) != names.end(),
                "there is no array '" + *only + "'; the file has " + quoted_list(names));
    names = {*only};
  }
  for (const std::string& name : names) {
    ArrayInfo info;
    info.name = name;
    const std::string where = "the array '" + name + "'";
    H5 dataset(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    expect(dataset.ok(), "cannot open " + where);
    const std::string type_name = read_string_attribute(dataset.get(), kDTypeAttr, where);
    expect_that(parse_dtype(type_name, info.type), where + " has the unknown tessera_dtype '" + type_name + "'");
    H5 file_type(H5Dget_type(dataset.get()), H5Tclose);
    expect(file_type.ok(), "cannot read the HDF5 type of " + where);
    expect_that(type_matches(file_type.get(), info.type), where + " is " + type_name + " by its tessera_dtype but " +
                                                              describe_type(file_type.get()) + " in HDF5");
    H5 space(H5Dget_space(dataset.get()), H5Sclose);
    expect(space.ok(), "cannot read the shape of " + where);
    const H5S_class_t kind = H5Sget_simple_extent_type(space.get());
    const int ndim = kind == H5S_SCALAR ? 0 : H5Sget_simple_extent_ndims(space.get());
    expect_that((kind == H5S_SCALAR || kind == H5S_SIMPLE) && ndim >= 0 && ndim <= kMaxDims,
                where + " is not an array of 0 to 3 dimensions");
    hsize_t dims[kMaxDims] = {0, 0, 0};
    if (ndim > 0)
      expect(H5Sget_simple_extent_dims(space.get(), dims, nullptr) == ndim, "cannot read the shape of " + where);
    for (int d = 0; d < ndim; ++d) info.shape.push_back(static_cast<std::int64_t>(dims[d]));
    read_attribute(dataset.get(), kChecksumAttr, H5T_NATIVE_UINT64, &info.stored, where);
    // The shape must describe the bytes the dataset stores, inside the file: damaged dimensions
    // would otherwise have every rank allocate a tile of the wrong (possibly enormous) size.
    std::uint64_t bytes = 0;
    const bool sized = stored_bytes(info.shape, H5Tget_size(file_type.get()), bytes);
    const hsize_t storage = H5Dget_storage_size(dataset.get());
    const haddr_t offset = bytes == 0 ? 0 : H5Dget_offset(dataset.get());
    expect_that(
        sized && bytes == storage && offset != HADDR_UNDEF && offset <= file_size && storage <= file_size - offset,
        where + " of shape " + shape_string(info.shape) + " does not match its storage in the file (" +
            std::to_string(storage) + " bytes): the file is corrupt");
    out.arrays.push_back(std::move(info));
  }
  expect(file.close(), "cannot close the file");
  return out;
}

// Contents as bytes, for the broadcast.
class Packer {
 public:
  void put(std::uint64_t x) { bytes_.append(reinterpret_cast<const char*>(&x), sizeof x); }
  void put(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    bytes_ += s;
  }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

class Unpacker {
 public:
  explicit Unpacker(const std::string& bytes) : bytes_(bytes) {}
  std::uint64_t number() {
    std::uint64_t x = 0;
    std::memcpy(&x, bytes_.data() + at_, sizeof x);
    at_ += sizeof x;
    return x;
  }
  std::string text() {
    const std::size_t n = number();
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }

 private:
  const std::string& bytes_;
  std::size_t at_ = 0;
};

Contents broadcast(Collective& c, const Contents& mine) {
  Packer p;
  if (c.rank() == 0) {
    p.put(mine.attributes.size());
    for (const auto& [key, value] : mine.attributes) p.put(key), p.put(static_cast<std::uint64_t>(value));
    p.put(mine.arrays.size());
    for (const ArrayInfo& a : mine.arrays) {
      p.put(a.name), p.put(static_cast<std::uint64_t>(a.type)), p.put(a.stored), p.put(a.shape.size());
      for (std::int64_t e : a.shape) p.put(static_cast<std::uint64_t>(e));
    }
  }
  const std::string bytes = c.broadcast(std::move(p.bytes()));
  Unpacker u(bytes);
  Contents out;
  for (std::uint64_t n = u.number(); n > 0; --n) {
    std::string key = u.text();
    out.attributes[key] = static_cast<std::int64_t>(u.number());
  }
  for (std::uint64_t n = u.number(); n > 0; --n) {
    ArrayInfo a;
    a.name = u.text();
    a.type = static_cast<DType>(u.number());
    a.stored = u.number();
    for (std::uint64_t d = u.number(); d > 0; --d) a.shape.push_back(static_cast<std::int64_t>(u.number()));
    out.arrays.push_back(std::move(a));
  }
  return out;
}

}  // namespace

struct CheckpointReader {
  struct Loaded {
    ArrayInfo info;
    Tiling tiling;
    std::vector<char> bytes;  // this rank's tile, row-major
  };

  static Checkpoint read(const std::string& path, const std::string* only);
  static void read_data(Collective& c, const std::string& path, const Contents& contents, std::vector<Loaded>& out);
  static Checkpoint::Entry entry(const ArrayRef& r);
};

Checkpoint::Entry CheckpointReader::entry(const ArrayRef& r) {
  switch (r.dtype()) {
    case DType::Bool: return Array<bool>(r);
    case DType::Int32: return Array<std::int32_t>(r);
    case DType::Int64: return Array<std::int64_t>(r);
    case DType::Float32: return Array<float>(r);
    default: return Array<double>(r);
  }
}

// Every rank reads its tile of every array with collective hyperslab reads, then the ranks check
// the checksums together.
void CheckpointReader::read_data(Collective& c, const std::string& path, const Contents& contents,
                                 std::vector<Loaded>& out) {
  H5 fapl = parallel_access(c);
  H5 file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  check(c, file.ok(), "cannot open it as an HDF5 file in parallel");
  H5 dxpl = collective_transfer(c);
  RuntimeState& rt = runtime();
  std::vector<std::uint64_t> sums(contents.arrays.size(), 0);
  for (std::size_t i = 0; i < contents.arrays.size(); ++i) {
    Loaded l;
    l.info = contents.arrays[i];
    const ArrayInfo& info = l.info;
    const int ndim = static_cast<int>(info.shape.size());
    const std::string where = "the array '" + info.name + "'";
    H5 dataset(H5Dopen2(file.get(), info.name.c_str(), H5P_DEFAULT), H5Dclose);
    H5 space;
    if (dataset.ok()) space = H5(H5Dget_space(dataset.get()), H5Sclose);
    check(c, space.ok(), "cannot open " + where);

    // This rank's tile: as a new array of this shape is tiled (a 0-d array is read by every rank).
    HostPart part;
    c.local("cannot read " + where, [&] {
      if (ndim > 0) {
        l.tiling = balanced_tiling(info.shape, "load");
        part.box = l.tiling.tile(rt.grid(ndim).coords(rt.rank()));
      }
      part.bytes.resize(static_cast<std::size_t>(part.box.volume()) * size_of(info.type));
    });
    H5 mem_type = hdf5_type(info.type, false);
    H5 mem_space;
    static char nothing = 0;
    const bool no_elements = ndim > 0 && volume_of(info.shape) == 0;  // no storage to read from
    const bool ok = no_elements || (mem_type.ok() && select_part(space.get(), part, ndim, mem_space) &&
                                    H5Dread(dataset.get(), mem_type.get(), mem_space.get(), space.get(), dxpl.get(),
                                            part.empty() ? &nothing : part.bytes.data()) >= 0);
    check(c, ok, "cannot read " + where);
    if (ndim > 0 || c.rank() == 0) sums[i] = partial_hash(part, info.shape, info.type);
    l.bytes = std::move(part.bytes);
    out.push_back(std::move(l));
  }

  c.sum(sums);
  std::string corrupt;
  for (std::size_t i = 0; i < out.size() && corrupt.empty(); ++i) {
    const ArrayInfo& info = out[i].info;
    const std::uint64_t computed = header_hash(info.type, info.shape) + sums[i];
    if (computed != info.stored)
      corrupt = "the array '" + info.name + "' does not match its checksum (stored " + hex(info.stored) +
                ", computed " + hex(computed) + "): the file is corrupt";
  }
  c.require(corrupt.empty(), corrupt);
  for (const Loaded& l : out) {  // a matching checksum over values other than 0 and 1 (a forged file)
    bool valid = true;
    if (l.info.type == DType::Bool)
      for (char b : l.bytes) valid = valid && (b == 0 || b == 1);
    c.require(valid, "the array '" + l.info.name + "' holds values other than FALSE (0) and TRUE (1)");
  }
  check(c, file.close(), "cannot close the file");
}

Checkpoint CheckpointReader::read(const std::string& path, const std::string* only) {
  runtime();
  if (path.empty()) raise("load: the path is empty");
  ScopedRegion region("tessera::load");
  std::vector<Loaded> loaded;
  Contents contents;
  {
    QuietHdf5 quiet;
    Collective c;
    try {
      std::string problem;
      if (c.rank() == 0) {
        try {
          contents = inspect(path, only);
        } catch (const std::exception& e) {
          problem = e.what();
        }
      }
      c.require(problem.empty(), problem);
      contents = broadcast(c, contents);
      read_data(c, path, contents, loaded);
    } catch (const detail::IoFailure& e) {
      raise("load('", path, "'): ", e.what());
    }
  }
  // Only now, with every array read and verified, do the new arrays come into being.
  Checkpoint ck;
  ck.path_ = path;
  ck.attributes_ = contents.attributes;
  for (Loaded& l : loaded) {
    ArrayRef r = new_array(l.info.type, l.info.shape.empty() ? Tiling{} : l.tiling, false);
    if (!l.bytes.empty())
      Kokkos::deep_copy(
          Kokkos::View<char*, MemSpace, Kokkos::MemoryUnmanaged>(r.store->data(), l.bytes.size()),
          Kokkos::View<const char*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(l.bytes.data(), l.bytes.size()));
    ck.arrays_.emplace(l.info.name, entry(r));
    ck.checksums_[l.info.name] = l.info.stored;
  }
  return ck;
}

Checkpoint load_only(const std::string& path, const std::string& name) { return CheckpointReader::read(path, &name); }

std::uint64_t checksum(const ArrayRef& in) {
  check_runtime(in, "checksum");
  const BoxView box_view(in);
  const ArrayRef& a = box_view.ref();
  flush_window();
  fence("tessera::checksum");
  Collective c;
  const HostPart part = host_part(a, c.rank());
  std::vector<std::uint64_t> sum{partial_hash(part, a.shape(), a.dtype())};
  c.sum(sum);
  return header_hash(a.dtype(), a.shape()) + sum[0];
}

}  // namespace detail

void save(const std::string& path, const std::vector<NamedArray>& arrays_in, const CheckpointAttributes& attributes) {
  detail::validate(path, arrays_in, attributes);
  std::vector<std::unique_ptr<detail::BoxView>> boxes;
  std::vector<NamedArray> arrays = arrays_in;
  for (NamedArray& a : arrays) a.array = boxes.emplace_back(std::make_unique<detail::BoxView>(a.array))->ref();
  detail::flush_window();
  detail::fence("tessera::save");
  detail::ScopedRegion region("tessera::save");
  detail::QuietHdf5 quiet;
  detail::Collective c;
  const std::string tmp = path + ".tmp." + std::to_string(c.broadcast(static_cast<std::int64_t>(::getpid())));
  bool created = false;
  try {
    detail::write_file(c, tmp, arrays, attributes, created);
    const std::string failed = c.agree(c.rank() == 0 ? detail::commit(tmp, path) : std::string());
    if (!failed.empty()) throw detail::IoFailure(failed);
  } catch (const detail::IoFailure& e) {
    if (created && c.rank() == 0) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
    }
    MPI_Barrier(c.comm());  // the temporary file is gone before any rank moves on
    detail::raise("save('", path, "'): ", e.what(), "; any file already at that path is unchanged");
  }
}

Checkpoint load(const std::string& path) { return detail::CheckpointReader::read(path, nullptr); }

std::vector<std::string> Checkpoint::names() const {
  std::vector<std::string> out;
  for (const auto& entry : arrays_) out.push_back(entry.first);
  return out;
}

const Checkpoint::Entry& Checkpoint::entry(const std::string& name) const {
  auto it = arrays_.find(name);
  if (it == arrays_.end())
    detail::raise("load('", path_, "'): there is no array '", name, "'; the file has ", detail::quoted_list(names()));
  return it->second;
}

std::uint64_t Checkpoint::checksum(const std::string& name) const {
  entry(name);
  return checksums_.at(name);
}

std::int64_t Checkpoint::attribute(const std::string& key) const {
  auto it = attributes_.find(key);
  if (it == attributes_.end()) {
    std::vector<std::string> keys;
    for (const auto& entry : attributes_) keys.push_back(entry.first);
    detail::raise("load('", path_, "'): there is no attribute '", key, "'; the file has ", detail::quoted_list(keys));
  }
  return it->second;
}

}  // namespace tessera
