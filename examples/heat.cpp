// 2-D heat equation, explicit 5-point stencil, zero Dirichlet boundary, written with views.
//
//   mpirun -n 4 ./tessera-heat --n 512 --steps 1000 --every 100
//   mpirun -n 2 ./tessera-heat --steps 500 --checkpoint-every 100 --checkpoint heat.h5
//   mpirun -n 3 ./tessera-heat --steps 1000 --restart heat.h5       # continues from step 500
//
// u is n x n; the boundary rows and columns stay 0 and the interior starts as a hot square of 1s
// in the middle. Each step applies u[1:-1,1:-1] += alpha * (north + south + east + west - 4 center),
// with alpha = dt / h^2 = 0.2 (the explicit scheme is stable for alpha <= 0.25). Every `every`
// steps rank 0 prints the 2-norm of the update (it shrinks as the grid cools); at the end it
// prints the sum of the grid, which is the same for any number of ranks up to rounding, and
// ts::checksum of the grid, a hash of its exact values that does not depend on the rank count.
//
// Checkpoints: --checkpoint-every K --checkpoint PATH saves u and the step number to PATH (HDF5,
// see docs/CHECKPOINT.md) after every K-th step; --restart PATH continues from such a file, on any
// number of ranks, up to step --steps; --dump PATH saves the final u. Each step computes every
// element from the same values in the same order whatever the tiling, so a restarted run ends
// with exactly the grid of an uninterrupted one (tests/checkpoint/heat_restart.sh checks that).
#include <cstdio>
#include <string>
#include <vector>

#include <tessera/tessera.hpp>

#include "example_args.hpp"

namespace ts = tessera;

namespace {

// Removes `--name PATH` or `--name=PATH` from `words` and returns PATH ("" if absent).
std::string take_path(std::vector<std::string>& words, const std::string& name, std::string& error) {
  std::string value;
  for (std::size_t i = 0; i < words.size();) {
    if (words[i] == name) {
      if (i + 1 >= words.size() || words[i + 1].empty()) {
        if (error.empty()) error = name + " needs a path";
        words.erase(words.begin() + i);
        continue;
      }
      value = words[i + 1];
      words.erase(words.begin() + i, words.begin() + i + 2);
    } else if (words[i].rfind(name + "=", 0) == 0) {
      value = words[i].substr(name.size() + 1);
      if (value.empty() && error.empty()) error = name + " needs a path";
      words.erase(words.begin() + i);
    } else {
      ++i;
    }
  }
  return value;
}

bool given(const std::vector<std::string>& words, const std::string& name) {
  for (const std::string& w : words)
    if (w == name || w.rfind(name + "=", 0) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  ts::Runtime rt(argc, argv);
  std::vector<std::string> words(argv + 1, argv + argc);
  std::string error;
  const std::string checkpoint = take_path(words, "--checkpoint", error);
  const std::string restart = take_path(words, "--restart", error);
  const std::string dump = take_path(words, "--dump", error);
  std::vector<char*> rest{argv[0]};
  for (std::string& w : words) rest.push_back(w.data());
  ExampleArgs args("tessera-heat", static_cast<int>(rest.size()), rest.data());
  std::int64_t n = args.integer("--n", 256, 3);
  const std::int64_t steps = args.integer("--steps", 500, 0);
  const std::int64_t every = args.integer("--every", 100, 1);
  const std::int64_t checkpoint_every = args.integer("--checkpoint-every", 0, 0);
  if (error.empty() && (checkpoint_every > 0) != !checkpoint.empty())
    error =
        checkpoint.empty() ? "--checkpoint-every needs --checkpoint PATH" : "--checkpoint needs --checkpoint-every K";
  const bool args_ok = args.ok();
  if (!args_ok || !error.empty()) {
    if (rt.rank() == 0) {
      if (!error.empty()) std::fprintf(stderr, "tessera-heat: error: %s\n", error.c_str());
      args.report();  // its own first error, if any, and the usage line
      std::fprintf(stderr, "       [--checkpoint PATH] [--restart PATH] [--dump PATH]\n");
    }
    return args.help() && error.empty() ? 0 : 2;
  }
  const double alpha = 0.2;

  ts::Array<double> u;
  std::int64_t done = 0;  // steps already taken
  if (!restart.empty()) {
    try {
      ts::Checkpoint saved = ts::load(restart);
      u = saved.get<double>("u");
      done = saved.attribute("step");
    } catch (const ts::Error& e) {  // thrown on every rank alike
      if (rt.rank() == 0) std::fprintf(stderr, "tessera-heat: %s\n", e.what());
      return 1;
    }
    const ts::Shape shape = u.shape();
    std::string problem;
    if (shape.size() != 2 || shape[0] != shape[1] || shape[0] < 3)
      problem = "the checkpoint's u is not an n x n grid with n >= 3";
    else if (given(words, "--n") && shape[0] != n)
      problem = "--n " + std::to_string(n) + " differs from the checkpoint's n = " + std::to_string(shape[0]);
    else if (done > steps)
      problem = "the checkpoint is at step " + std::to_string(done) + ", past --steps " + std::to_string(steps);
    if (!problem.empty()) {
      if (rt.rank() == 0) std::fprintf(stderr, "tessera-heat: %s: %s\n", restart.c_str(), problem.c_str());
      return 2;
    }
    n = shape[0];
  } else {
    u = ts::zeros<double>({n, n});
    u(ts::slice(n / 4, 3 * n / 4), ts::slice(n / 4, 3 * n / 4)).assign(1.0);
  }

  // Views of u: they share its storage, so they see every update.
  const auto inner = ts::slice(1, -1);
  auto center = u(inner, inner);
  auto north = u(ts::slice(0, -2), inner);
  auto south = u(ts::slice(2, ts::end), inner);
  auto west = u(inner, ts::slice(0, -2));
  auto east = u(inner, ts::slice(2, ts::end));

  if (rt.rank() == 0) {
    std::printf("heat: n=%lld steps=%lld every=%lld ranks=%d\n", static_cast<long long>(n),
                static_cast<long long>(steps), static_cast<long long>(every), rt.size());
    if (!restart.empty()) std::printf("restart: %s at step %lld\n", restart.c_str(), static_cast<long long>(done));
  }
  try {
    for (std::int64_t step = done + 1; step <= steps; ++step) {
      auto update = alpha * (north + south + east + west - 4.0 * center);
      center.assign(center + update);
      if (step % every == 0 || step == steps) {
        double residual = ts::norm(update).item();
        if (rt.rank() == 0) std::printf("step %8lld  residual %.12e\n", static_cast<long long>(step), residual);
      }
      if (checkpoint_every > 0 && step % checkpoint_every == 0) {
        ts::save(checkpoint, {{"u", u}}, {{"step", step}});
        if (rt.rank() == 0)
          std::printf("checkpoint: %s at step %lld\n", checkpoint.c_str(), static_cast<long long>(step));
      }
    }
    if (!dump.empty()) ts::save(dump, {{"u", u}}, {{"step", steps}});
  } catch (const ts::Error& e) {  // a failed save, on every rank alike
    if (rt.rank() == 0) std::fprintf(stderr, "tessera-heat: %s\n", e.what());
    return 1;
  }

  double checksum = ts::sum(u).item();
  const unsigned long long hash = ts::checksum(u);
  if (rt.rank() == 0) {
    std::printf("checksum %.15e\n", checksum);
    std::printf("hash 0x%016llx\n", hash);
  }
  return 0;
}
