#!/usr/bin/env bash
# The installed package config finds the Kokkos tessera was built with, not another one earlier
# on the prefix path, and refuses a Kokkos that lacks a backend tessera was built with, at
# configure time and with a message naming both. Installs an already-built tessera tree, makes a
# decoy Kokkos package (a KokkosConfig.cmake that claims other backends and defines an empty
# Kokkos::kokkos), puts it first on CMAKE_PREFIX_PATH and configures tests/consumer:
#   a. as users do: the recorded Kokkos is used, and the consumer builds (no run: install_consumer
#      runs it);
#   b. with the recorded Kokkos "moved" (tessera_KOKKOS_DIR pointed at a directory without it):
#      the normal search finds the decoy first, and configuring fails with the backend message;
#   c. moved, without the decoy but with the real Kokkos on the prefix path: the fallback search
#      finds it, so a relocated Kokkos still works.
#   bash tests/consumer/kokkos_decoy.sh <tessera build dir> [work dir]
# CMAKE overrides the cmake found on PATH (CTest passes its own).
set -euo pipefail

if [[ $# -lt 1 || ! -f "$1/CMakeCache.txt" ]]; then
  echo "usage: $0 <configured and built tessera build dir> [work dir]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${2:-$build_dir/kokkos-decoy}
cmake=${CMAKE:-cmake}
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
configure() {  # <build dir> <CMAKE_PREFIX_PATH> [more cmake arguments]
  local dir=$1 prefix_path=$2
  shift 2
  "$cmake" -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix_path" \
    ${cxx:+-DCMAKE_CXX_COMPILER="$cxx"} "$@" 2>&1
}
cached_kokkos_dir() { sed -n 's/^Kokkos_DIR:[A-Z]*=//p' "$1/CMakeCache.txt"; }

rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build_dir" --prefix "$work/prefix" >/dev/null
config=$(find "$work/prefix" -name tesseraConfig.cmake | head -n 1)
[[ -n $config ]] || fail "no tesseraConfig.cmake under $work/prefix"
recorded=$(sed -n 's/^set(tessera_KOKKOS_BUILD_DIR "\(.*\)")$/\1/p' "$config")
backends=$(sed -n 's/^set(tessera_KOKKOS_BACKENDS "\(.*\)")$/\1/p' "$config")
[[ -n $recorded && -f $recorded/KokkosConfig.cmake ]] || fail "the config records no usable Kokkos_DIR ('$recorded')"
[[ -n $backends ]] || fail "the config records no Kokkos backends"
echo "recorded Kokkos: $recorded (backends: $backends)"

# The decoy claims one backend the real Kokkos does not have, and none of those it has.
decoy_backend=OPENMP
[[ ";$backends;" == *";OPENMP;"* ]] && decoy_backend=THREADS
decoy_dir=$work/decoy/lib/cmake/Kokkos
mkdir -p "$decoy_dir"
cat >"$decoy_dir/KokkosConfig.cmake" <<EOF
# A decoy made by tests/consumer/kokkos_decoy.sh: not the Kokkos tessera was built with.
set(Kokkos_DEVICES $decoy_backend)
set(Kokkos_ENABLE_$decoy_backend ON)
if(NOT TARGET Kokkos::kokkos)
  add_library(Kokkos::kokkos INTERFACE IMPORTED)
endif()
EOF
cat >"$decoy_dir/KokkosConfigVersion.cmake" <<'EOF'
set(PACKAGE_VERSION "4.9.0")
set(PACKAGE_VERSION_COMPATIBLE TRUE)
EOF

echo "== a. decoy first on CMAKE_PREFIX_PATH: the recorded Kokkos is used"
out=$(configure "$work/a" "$work/decoy;$work/prefix") || { echo "$out"; fail "a: configuring failed"; }
found=$(cached_kokkos_dir "$work/a")
[[ $found == "$recorded" ]] || { echo "$out"; fail "a: Kokkos_DIR is '$found', not the recorded '$recorded'"; }
"$cmake" --build "$work/a" >/dev/null || fail "a: building the consumer failed"
echo "ok: Kokkos_DIR=$found, app built"

echo "== b. recorded Kokkos moved: the decoy is found and refused"
if out=$(configure "$work/b" "$work/decoy;$work/prefix" -Dtessera_KOKKOS_DIR="$work/moved"); then
  echo "$out"
  fail "b: configuring succeeded with the decoy Kokkos"
fi
# CMake wraps the reason given by the package: compare with all whitespace removed.
flat=$(tr -d ' \n' <<<"$out")
want_backends=${backends//;/, }
for want in "but it set tessera_FOUND to FALSE" \
  "tessera was built with Kokkos" "(backends: $want_backends) from $recorded" \
  "$work/moved, which has no KokkosConfig.cmake now" \
  "the Kokkos found is 4.9.0 (backends: $decoy_backend) from $decoy_dir, which lacks $want_backends." \
  "-DKokkos_DIR=$recorded"; do
  [[ $flat == *"${want//[[:space:]]/}"* ]] || { echo "$out"; fail "b: the message lacks '$want'"; }
done
echo "ok: configuring failed with:"
sed -n '/Reason given by package/,/Configuring incomplete/p' <<<"$out" | grep -v '^$'

echo "== c. recorded Kokkos moved, no decoy: the fallback search finds a good one"
out=$(configure "$work/c" "$work/prefix;$recorded" -Dtessera_KOKKOS_DIR="$work/moved") ||
  { echo "$out"; fail "c: configuring failed"; }
found=$(cached_kokkos_dir "$work/c")
[[ $found == "$recorded" ]] || { echo "$out"; fail "c: Kokkos_DIR is '$found', not '$recorded'"; }
echo "ok: Kokkos_DIR=$found"
