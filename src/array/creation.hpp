#pragma once
// Creating arrays. Shapes have 1 to 3 extents; the array is tiled over the process grid.
//
//   auto a = ts::zeros<double>({n, m});        auto r = ts::random<double>({n}, 42);
//   auto x = ts::linspace<double>(0, 1, 101);  auto g = ts::from_host<double>({n, m}, host);
//   auto z = ts::random_normal<float>({n}, 7); auto id = ts::eye<double>(n);
//   auto b = ts::zeros_like(a);                auto c = ts::full_like(a, 0.5);   // also ones_, empty_like

#include "tessera/array/array.hpp"

namespace tessera {

template <class T>
Array<T> empty(const Shape& shape) {
  return Array<T>(detail::empty_array(dtype_v<T>, shape, false));
}

template <class T, class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>
Array<T> full(const Shape& shape, S value) {
  return Array<T>(detail::full_array(dtype_v<T>, shape, detail::Operand::of_scalar(value)));
}

template <class T>
Array<T> zeros(const Shape& shape) {
  return Array<T>(detail::empty_array(dtype_v<T>, shape, true));
}

template <class T>
Array<T> ones(const Shape& shape) {
  return full<T>(shape, 1);
}

// 0, 1, ..., n-1
template <class T>
Array<T> arange(std::int64_t n) {
  return Array<T>(detail::arange_array(dtype_v<T>, n));
}

// n samples from lo to hi inclusive, computed as NumPy does (in float64, then converted).
template <class T>
Array<T> linspace(double lo, double hi, std::int64_t n) {
  return Array<T>(detail::linspace_array(dtype_v<T>, lo, hi, n));
}

// Uniform in [0, 1), counter-based: the same global array for any number of ranks.
template <class T>
Array<T> random(const Shape& shape, std::uint64_t seed = 0) {
  return Array<T>(detail::random_array(dtype_v<T>, shape, seed));
}

// Standard normal samples, counter-based like random(): element i is Box-Muller on the uniforms
// of random(seed)'s sequence at 2i and 2i + 1, so the global array is the same for any number of
// ranks.
template <class T>
Array<T> random_normal(const Shape& shape, std::uint64_t seed = 0) {
  return Array<T>(detail::random_normal_array(dtype_v<T>, shape, seed));
}

// The n x n identity matrix.
template <class T>
Array<T> eye(std::int64_t n) {
  return Array<T>(detail::eye_array(dtype_v<T>, n));
}

// New arrays of a's shape and type (0-d for a 0-d a), tiled like a's view, so that
// `a(ts::slice(1, ts::end)) + ts::zeros_like(a(ts::slice(1, ts::end)))` moves no data.
// full_like's value is cast to T as full's is.
template <class T>
Array<T> empty_like(const Array<T>& a) {
  return Array<T>(detail::empty_like_array("empty_like", a.impl(), false));
}

template <class T>
Array<T> zeros_like(const Array<T>& a) {
  return Array<T>(detail::empty_like_array("zeros_like", a.impl(), true));
}

template <class T, class S, class = std::enable_if_t<std::is_arithmetic_v<S>>>
Array<T> full_like(const Array<T>& a, S value) {
  return Array<T>(detail::full_like_array("full_like", a.impl(), detail::Operand::of_scalar(value)));
}

template <class T>
Array<T> ones_like(const Array<T>& a) {
  return Array<T>(detail::full_like_array("ones_like", a.impl(), detail::Operand::of_scalar(1)));
}

// From a global row-major buffer present on every rank; each rank keeps its own tile.
template <class T>
Array<T> from_host(const Shape& shape, const std::vector<T>& host) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<char> bytes(host.begin(), host.end());
    return Array<T>(detail::from_host_bytes(DType::Bool, shape, bytes.data(), bytes.size()));
  } else {
    return Array<T>(
        detail::from_host_bytes(dtype_v<T>, shape, reinterpret_cast<const char*>(host.data()), host.size()));
  }
}

}  // namespace tessera
