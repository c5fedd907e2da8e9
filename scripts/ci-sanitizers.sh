#!/usr/bin/env bash
# Sanitizer job (docs/RELIABILITY.md): builds tessera with AddressSanitizer and
# UndefinedBehaviorSanitizer in build-asan, runs the test suite at 1 and 2 ranks (ctest labels
# np1 and np2) stopping at the first report, then runs the example apps under LeakSanitizer.
# Open MPI's own allocations that live until exit are suppressed (the list below); tessera's
# are not. Prints how long each phase took.
#
#   bash scripts/ci-sanitizers.sh            # from the repository root, after install-deps.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${TESSERA_ASAN_BUILD:-build-asan}
started=$(date +%s)
phase() { echo "ci-sanitizers: $1 ($(($(date +%s) - started)) s so far)"; }

flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize=vptr"
# -O1, AddressSanitizer's recommended level, and line tables only (-g1: the reports keep file and
# line, not variables): with RelWithDebInfo's -O2 -g, src/fusion/planner.cpp took 72 s to compile
# and tests/fuzz/generator_exprs.cpp 16 s, against 39 s and 7 s (docs/RELIABILITY.md).
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build "$build" -j2
phase "built"

# Leaks inside Open MPI, hwloc, PMIx and libevent (allocated by MPI_Init, freed never or by
# MPI_Finalize's children) are not tessera's.
supp="$(cd "$build" && pwd)/lsan.supp"  # $build may be relative or absolute
cat >"$supp" <<'SUPP'
leak:libopen-pal.so
leak:libopen-rte.so
leak:libmpi.so
leak:libmpi_cxx.so
leak:libhwloc.so
leak:libpmix.so
leak:libevent
leak:mca_
leak:libucp.so
leak:libucs.so
leak:libfabric.so
leak:libpsm
SUPP
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_odr_violation=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# Full unwinding: Open MPI is built without frame pointers, and the suppressions match callers.
export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0:fast_unwind_on_malloc=0"
# Open MPI unloads its components at MPI_Finalize; kept loaded, their leaks have names.
export OMPI_MCA_mca_base_component_disable_dlclose=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# The JIT tests (label jit) need the CUDA driver library, which a sanitized link keeps as a
# dependency and a machine without a GPU does not have.
ctest --test-dir "$build" -L np1 -LE jit --output-on-failure -j2
phase "tests at np 1 passed"
ctest --test-dir "$build" -L np2 -LE jit --output-on-failure -j1
phase "tests at np 2 passed"

# The example apps, under LeakSanitizer (part of AddressSanitizer) at 1 and 2 ranks.
mpiexec=$(command -v mpiexec)
for np in 1 2; do
  "$mpiexec" -n "$np" "$build/examples/tessera-quickstart"
  "$mpiexec" -n "$np" "$build/examples/tessera-heat" --n 64 --steps 50 --every 25
  "$mpiexec" -n "$np" "$build/examples/tessera-black-scholes" --n 10000 --iters 2
done
phase "example apps clean under LeakSanitizer; done"
