#!/usr/bin/env bash
# Builds and installs a CUDA-enabled Kokkos 4.x for tessera's GPU build (docs/GPU.md, "Building"):
# the CUDA and Serial backends for one GPU architecture, with the three changes that Kokkos
# releases before CUDA 13 support (upstream kokkos PR #8298) need to build with nvcc 13. Each
# change is made only where the source still has the old form, so a Kokkos that already supports
# CUDA 13 builds unchanged.
#   scripts/build-kokkos-cuda.sh KOKKOS_SOURCE PREFIX [ARCH]
# KOKKOS_SOURCE: a Kokkos source tree; it is copied, never modified. PREFIX: where to install
# (then configure tessera with -DKokkos_ROOT=PREFIX -DCMAKE_CXX_COMPILER=PREFIX/bin/nvcc_wrapper).
# ARCH: a Kokkos architecture option suffix and its sm_ number, HOPPER90 (default, sm_90) or e.g.
# AMPERE80. Needs nvcc on PATH (or CUDA in /usr/local/cuda) and CMake. Environment: JOBS [nproc].
set -euo pipefail
source_dir=${1:?usage: build-kokkos-cuda.sh KOKKOS_SOURCE PREFIX [ARCH]}
prefix=${2:?usage: build-kokkos-cuda.sh KOKKOS_SOURCE PREFIX [ARCH]}
arch=${3:-HOPPER90}
sm="sm_${arch//[!0-9]/}"
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH=/usr/local/cuda/bin:$PATH; fi
command -v nvcc >/dev/null || { echo "build-kokkos-cuda.sh: nvcc not found" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
tar -C "$source_dir" --exclude=./build --exclude=./.git -cf - . | tar -C "$work/src" -xf -  # not an in-tree build
cd "$work/src"

# 1. nvcc_wrapper's default architecture: nvcc 13 rejects sm_70 (CMake passes the chosen
#    architecture to the build, but configure-time checks compile with the default).
sed -i "s/^default_arch=\"sm_70\"/default_arch=\"$sm\"/" bin/nvcc_wrapper
instance=core/src/Cuda/Kokkos_Cuda_Instance.hpp
# 2. cudaGraphAddDependencies takes the edge data (nullptr) before the count in CUDA 13.
sed -i 's/return cudaGraphAddDependencies(graph, from, to, numDependencies);/return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);/' "$instance"
# 3. cudaMemPrefetchAsync takes a cudaMemLocation and flags in CUDA 13.
python3 - "$instance" <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
old = "return cudaMemPrefetchAsync(devPtr, count, dstDevice, m_stream);"
new = ("cudaMemLocation location{};\n    location.type = cudaMemLocationTypeDevice;\n"
       "    location.id = dstDevice;\n    return cudaMemPrefetchAsync(devPtr, count, location, 0, m_stream);")
open(path, "w").write(text.replace(old, new))
EOF

cmake -S . -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_CXX_COMPILER="$PWD/bin/nvcc_wrapper" -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_SERIAL=ON \
  "-DKokkos_ARCH_$arch=ON"
cmake --build "$work/build" -j "${JOBS:-$(nproc)}"
cmake --install "$work/build"
echo "Kokkos with CUDA ($arch) installed in $prefix"
