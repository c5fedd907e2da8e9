#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages that tessera needs to build, test and run:
# compiler and CMake, Open MPI, Kokkos (Serial backend, from Trilinos), OpenBLAS (dense products
# on host backends), parallel HDF5, GoogleTest, and NumPy and SciPy for the apps' twins (apps/).
#   bash scripts/install-deps.sh        # as root, or as a user with sudo
#   bash scripts/install-deps.sh --slurm   # and Slurm and munge, for scripts/slurm-localhost.sh
# Used by the README's commands and by .ci/run, so there is one list of packages.
set -euo pipefail

packages=(cmake g++ make libtrilinos-kokkos-dev libopenmpi-dev openmpi-bin libgtest-dev libhdf5-openmpi-dev hdf5-tools libopenblas-dev python3-numpy python3-scipy)

as_root=()
if [[ $(id -u) -ne 0 ]]; then as_root=(sudo); fi
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}"
# --slurm: also Slurm (daemons and client) and munge, for the slurm_localhost test (.ci/run passes it).
if [[ " $* " == *" --slurm "* ]]; then
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurmctld slurmd slurm-client munge
fi
