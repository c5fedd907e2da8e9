// Each TESSERA_COMPILE_FAIL_* case is an operation NumPy rejects with a TypeError, which tessera's
// static types turn into a compile-time error (or a local task whose function cannot take its
// arguments' tiles); tests/CMakeLists.txt builds every case and passes
// only on the case's static_assert message. Without a case the file compiles.

#include <cstdint>

#include <tessera/tessera.hpp>

namespace ts = tessera;

void reject(ts::Array<double> d, ts::Array<std::int32_t> i, ts::Array<bool> b) {
#if defined(TESSERA_COMPILE_FAIL_BITWISE_FLOAT)
  auto r = d & i;  // np.bitwise_and(float64, int32): TypeError
#elif defined(TESSERA_COMPILE_FAIL_IN_PLACE_FLOAT_SCALAR)
  i |= 2.5;  // a float scalar makes the operation floating
#elif defined(TESSERA_COMPILE_FAIL_INVERT_FLOAT)
  auto r = ~d;
#elif defined(TESSERA_COMPILE_FAIL_SIGN_BOOL)
  auto r = ts::sign(b);
#elif defined(TESSERA_COMPILE_FAIL_BINCOUNT_FLOAT)
  auto r = ts::bincount(d);  // np.bincount(float64): TypeError (no safe cast to int64)
#elif defined(TESSERA_COMPILE_FAIL_LOCAL_TASK_NOT_A_TILE)
  ts::local_task("t", ts::writes(d), [](double*) {});  // a local task's function takes ts::Tile<T, N>s
#elif defined(TESSERA_COMPILE_FAIL_LOCAL_TASK_TILE_COUNT)
  ts::local_task("t", ts::writes(d), ts::reads(i), [](ts::Tile<double, 1>) {});  // one tile per argument
#endif
  (void)d, (void)i, (void)b;
}

int main() { return 0; }
