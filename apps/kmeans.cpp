// k-means (Lloyd's algorithm) as cuPyNumeric's examples/kmeans.py runs it, with the distances by
// broadcasting: d2[i, k] = sum_j (data[i, j] - centroids[k, j])^2, labels = argmin(d2, 1), and
// each centroid moved to the mean of its points (a centroid without points goes to 0, as there).
//
//   mpirun -n 4 ./tessera-kmeans --n 100000 --dims 2 --centers 10 --iters 50 [--warmup 2] [--check]
//
// The update is cuPyNumeric's: the points of each centroid counted with bincount, and their sums
// one bincount per dimension with the column as weights. The data are clusters from index formulas (the NumPy twin
// kmeans.py builds the same): point i lies near centre i % centers, data[i, j] = 5 cos(2 pi (i % centers) / centers +
// j)
// + 0.5 sin(1.7 i + 0.3 j); the initial centroids are points 0, 2, 4, ... Runs --iters iterations
// (cuPyNumeric's benchmark mode, without the early stop). Prints the final distance sum, the norm
// of the centroids, the sum of the labels and the size of each cluster; --check fails unless the
// distance sum never grew (Lloyd's iterations cannot increase it).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  ExampleArgs args("tessera-kmeans", argc, argv);
  const std::int64_t n = args.integer("--n", 100000, 1);
  const std::int64_t dims = args.integer("--dims", 2, 1);
  const std::int64_t centers = args.integer("--centers", 10, 1);
  const std::int64_t iters = args.integer("--iters", 50, 1);
  const std::int64_t warmup = args.integer("--warmup", 0, 0);
  const bool check = args.flag("--check");
  if (!args.ok() || n < 2 * centers) {
    if (rt.rank() == 0) {
      if (args.ok()) std::fprintf(stderr, "tessera-kmeans: error: --n must be at least 2 --centers\n");
      args.report();
    }
    return args.help() ? 0 : 2;
  }
  const double pi = 3.14159265358979323846;

  auto i = ts::arange<double>(n)(ts::all, ts::newaxis), j = ts::arange<double>(dims)(ts::newaxis, ts::all);
  auto cluster = i % static_cast<double>(centers);
  auto data = 5.0 * ts::cos(2.0 * pi * cluster / static_cast<double>(centers) + j) + 0.5 * ts::sin(1.7 * i + 0.3 * j);

  // `steps` iterations from the initial centroids, timed from the first.
  ts::Array<double> centroids, counts, distance_sum;
  ts::Array<std::int64_t> labels;
  bool never_grew = true;
  double total = 0, ms = 0;
  LoopCounts loop;
  auto run = [&](std::int64_t steps) {
    centroids = ts::copy(data(ts::slice(0, 2 * centers, 2), ts::all));
    never_grew = true;
    double previous = INFINITY;
    rt.flush();
    loop.start(rt);
    const auto start = std::chrono::steady_clock::now();
    for (std::int64_t it = 0; it < steps; ++it) {
      {
        // data[:, None, :] - centroids[None, :, :] is (n, centers, dims); its squares summed over
        // dims. The block ends d2's handle: the argmin and the min then fold it where it is
        // computed (one kernel), where a handle held at a synchronization would keep it stored.
        auto d2 =
            ts::sum(ts::square(data(ts::all, ts::newaxis, ts::all) - centroids(ts::newaxis, ts::all, ts::all)), 2);
        labels = ts::argmin(d2, 1);
        distance_sum = ts::sum(ts::min(d2, 1));
      }
      counts = ts::bincount(labels, centers).astype<double>();
      auto sums = ts::empty<double>({centers, dims});
      for (std::int64_t d = 0; d < dims; ++d) sums(ts::all, d).assign(ts::bincount(labels, data(ts::all, d), centers));
      centroids = sums / ts::maximum(counts, 1.0)(ts::all, ts::newaxis);
      if (check) {
        const double now = distance_sum.item();
        never_grew = never_grew && now <= previous * (1 + 1e-12);
        previous = now;
      }
    }
    total = distance_sum.item();
    ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    loop.stop(rt);
  };
  if (warmup > 0) run(std::min(warmup, iters));  // untimed: kernels loaded, memory pool grown
  run(iters);
  const double centroid_norm = ts::norm(centroids).item();
  const std::int64_t label_sum = ts::sum(labels).item();
  const std::vector<double> sizes = counts.to_host();

  const bool ok = !check || never_grew;
  if (rt.rank() == 0) {
    std::printf("kmeans: n=%lld dims=%lld centers=%lld iters=%lld ranks=%d\n", static_cast<long long>(n),
                static_cast<long long>(dims), static_cast<long long>(centers), static_cast<long long>(iters),
                rt.size());
    std::printf("distance_sum %.17g\n", total);
    std::printf("centroid_norm %.17g\n", centroid_norm);
    std::printf("label_sum %lld\n", static_cast<long long>(label_sum));
    for (std::size_t k = 0; k < sizes.size(); ++k) std::printf("count[%zu] %.0f\n", k, sizes[k]);
    std::printf("time per iteration %.3f ms\n", ms / static_cast<double>(iters));
    loop.print(iters);
    if (check) std::printf("check %s: the distance sum never grew\n", ok ? "passed" : "FAILED");
  }
  return ok ? 0 : 1;
}
