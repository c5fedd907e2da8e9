#include "tessera/core/config.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "tessera/core/error.hpp"

namespace tessera {
namespace {

constexpr double kMaxSeconds = 1e9;  // about 30 years: "never" without overflowing a clock

const char* getenv_or_null(const char* name) {
  const char* value = std::getenv(name);
  return value;
}

long parse_positive(const char* var, const std::string& text, long max) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    detail::raise(var, "='", text, "' is not valid: expected a positive integer");
  errno = 0;
  long v = std::strtol(text.c_str(), nullptr, 10);
  if (errno != 0 || v <= 0 || v > max)
    detail::raise(var, "='", text, "' is not valid: expected a positive integer up to ", max);
  return v;
}

// A positive, finite number of seconds, written as a decimal ("300", "2.5").
double parse_seconds(const char* var, const std::string& text) {
  const char* what = "' is not valid: expected a positive number of seconds (e.g. 300 or 2.5)";
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos) detail::raise(var, "='", text, what);
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !(v > 0) || v > kMaxSeconds)
    detail::raise(var, "='", text, what);
  return v;
}

// A single-block launch over more elements than this would be slower than any kernel of its own.
constexpr long kMaxBatchElements = 1L << 24;
constexpr long kMaxJitThreads = 64;

bool valid_jit_elements(int e) { return e == 0 || e == 1 || e == 2 || e == 4; }
bool valid_spmv(const std::string& s) { return s == "auto" || s == "generated" || s == "cusparse"; }
bool valid_matvec(const std::string& s) { return s == "auto" || s == "generated" || s == "blas"; }

void check_log(const std::string& text) {
  if (text.empty()) return;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item != "fusion" && item != "comm" && item != "exec" && item != "all")
      detail::raise("TESSERA_LOG='", text, "' is not valid: '", item,
                    "' is not one of fusion, comm, exec, all (comma-separated)");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

}  // namespace

namespace detail {

std::vector<int> parse_grid(const std::string& text, const char* origin) {
  std::vector<int> dims;
  std::size_t start = 0;
  while (true) {
    std::size_t x = text.find('x', start);
    std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6 ||
        std::stol(part) <= 0)
      raise(origin, "='", text, "' is not valid: expected 1 to 3 positive integers joined by 'x', e.g. 2x2");
    dims.push_back(std::stoi(part));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (dims.size() > 3) raise(origin, "='", text, "' is not valid: at most 3 dimensions");
  return dims;
}

}  // namespace detail

Config Config::with_environment() const {
  Config c = *this;
  if (const char* v = getenv_or_null("TESSERA_WINDOW"))
    c.window = static_cast<int>(parse_positive("TESSERA_WINDOW", v, 1 << 20));
  if (const char* v = getenv_or_null("TESSERA_FUSION")) {
    std::string s = v;
    if (s != "0" && s != "1") detail::raise("TESSERA_FUSION='", s, "' is not valid: expected 0 or 1");
    c.fusion = s == "1";
  }
  if (const char* v = getenv_or_null("TESSERA_BACKEND")) {
    std::string s = v;
    if (s == "auto")
      c.backend = Backend::Auto;
    else if (s == "interp")
      c.backend = Backend::Interp;
    else if (s == "jit")
      c.backend = Backend::Jit;
    else
      detail::raise("TESSERA_BACKEND='", s, "' is not valid: expected auto, interp or jit");
  }
  if (const char* v = getenv_or_null("TESSERA_GRID")) c.grid = detail::parse_grid(v, "TESSERA_GRID");
  if (const char* v = getenv_or_null("TESSERA_LOG")) {
    c.log = v;
    check_log(c.log);
  }
  if (const char* v = getenv_or_null("TESSERA_COMM")) {
    std::string s = v;
    if (s != "auto" && s != "mpi" && s != "nccl")
      detail::raise("TESSERA_COMM='", s, "' is not valid: expected auto, mpi or nccl");
    c.comm = s;
  }
  if (const char* v = getenv_or_null("TESSERA_SPMV")) {
    std::string s = v;
    if (!valid_spmv(s)) detail::raise("TESSERA_SPMV='", s, "' is not valid: expected auto, generated or cusparse");
    c.spmv = s;
  }
  if (const char* v = getenv_or_null("TESSERA_MATVEC")) {
    std::string s = v;
    if (!valid_matvec(s)) detail::raise("TESSERA_MATVEC='", s, "' is not valid: expected auto, generated or blas");
    c.matvec = s;
  }
  if (const char* v = getenv_or_null("TESSERA_CHECK_DIVERGENCE")) {
    std::string s = v;
    if (s != "0" && s != "1") detail::raise("TESSERA_CHECK_DIVERGENCE='", s, "' is not valid: expected 0 or 1");
    c.check_divergence = s == "1";
  }
  if (const char* v = getenv_or_null("TESSERA_OVERLAP")) {
    std::string s = v;
    if (s != "0" && s != "1") detail::raise("TESSERA_OVERLAP='", s, "' is not valid: expected 0 or 1");
    c.overlap = s == "1";
  }
  if (const char* v = getenv_or_null("TESSERA_COMM_TIMEOUT")) c.comm_timeout = parse_seconds("TESSERA_COMM_TIMEOUT", v);
  if (const char* v = getenv_or_null("TESSERA_JIT_ELEMENTS")) {
    const std::string s = v;
    if (s != "0" && s != "1" && s != "2" && s != "4")
      detail::raise("TESSERA_JIT_ELEMENTS='", s, "' is not valid: expected 0 (automatic), 1, 2 or 4");
    c.jit_elements = std::stoi(s);
  }
  if (const char* v = getenv_or_null("TESSERA_JIT_WAIT")) {
    std::string s = v;
    if (s != "0" && s != "1") detail::raise("TESSERA_JIT_WAIT='", s, "' is not valid: expected 0 or 1");
    c.jit_wait = s == "1";
  }
  if (const char* v = getenv_or_null("TESSERA_JIT_THREADS"))
    c.jit_threads =
        std::string(v) == "0" ? 0 : static_cast<int>(parse_positive("TESSERA_JIT_THREADS", v, kMaxJitThreads));
  if (const char* v = getenv_or_null("TESSERA_CXX")) {
    if (*v == '\0') detail::raise("TESSERA_CXX is set but empty: expected a C++ compiler (a path or a name on PATH)");
    c.cxx = v;
  }
  if (const char* v = getenv_or_null("TESSERA_JIT_SOURCES")) c.jit_sources = v;
  if (const char* v = getenv_or_null("TESSERA_BATCH_ELEMENTS"))
    c.batch_elements = std::string(v) == "0" ? 0 : parse_positive("TESSERA_BATCH_ELEMENTS", v, kMaxBatchElements);
  if (const char* v = getenv_or_null("TESSERA_CACHE_DIR")) {
    if (*v == '\0') detail::raise("TESSERA_CACHE_DIR is set but empty: expected a folder path");
    c.cache_dir = v;
  }
  return c;
}

void Config::validate() const {
  if (window <= 0) detail::raise("Config::window=", window, " is not valid: expected a positive integer");
  if (grid.size() > 3) detail::raise("Config::grid has ", grid.size(), " dimensions: at most 3");
  for (int g : grid)
    if (g <= 0) detail::raise("Config::grid holds ", g, ": every entry must be positive");
  check_log(log);
  if (comm != "auto" && comm != "mpi" && comm != "nccl")
    detail::raise("Config::comm='", comm, "' is not valid: expected auto, mpi or nccl");
  if (!valid_spmv(spmv)) detail::raise("Config::spmv='", spmv, "' is not valid: expected auto, generated or cusparse");
  if (!valid_matvec(matvec))
    detail::raise("Config::matvec='", matvec, "' is not valid: expected auto, generated or blas");
  if (!valid_jit_elements(jit_elements))
    detail::raise("Config::jit_elements=", jit_elements, " is not valid: expected 0 (automatic), 1, 2 or 4");
  if (jit_threads < 0 || jit_threads > kMaxJitThreads)
    detail::raise("Config::jit_threads=", jit_threads, " is not valid: expected 0 (automatic) to ", kMaxJitThreads);
  if (batch_elements < 0 || batch_elements > kMaxBatchElements)
    detail::raise("Config::batch_elements=", batch_elements, " is not valid: expected 0 to ", kMaxBatchElements);
  if (!(comm_timeout > 0) || comm_timeout > kMaxSeconds)
    detail::raise("Config::comm_timeout=", comm_timeout, " is not valid: expected a positive number of seconds up to ",
                  kMaxSeconds);
}

}  // namespace tessera
