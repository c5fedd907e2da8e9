#!/usr/bin/env bash
# Installs an already-built tessera tree, builds tests/consumer against the install with
# find_package(tessera), and runs the result under mpirun -n 2.
#   bash tests/consumer/run.sh <tessera build dir> [work dir]
# CMAKE and MPIEXEC override the cmake and mpirun found on PATH (CTest passes its own).
set -euo pipefail

if [[ $# -lt 1 || ! -f "$1/CMakeCache.txt" ]]; then
  echo "usage: $0 <configured and built tessera build dir> [work dir]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${2:-$build_dir/install-consumer}
cmake=${CMAKE:-cmake}
mpiexec=${MPIEXEC:-mpirun}
# Build the consumer with the compiler tessera was built with.
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")

rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build_dir" --prefix "$work/prefix"
"$cmake" -S "$here" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  ${cxx:+-DCMAKE_CXX_COMPILER="$cxx"}
"$cmake" --build "$work/build"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$mpiexec" -n 2 --oversubscribe "$work/build/app"
