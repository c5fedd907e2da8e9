#!/usr/bin/env bash
# Static SASS counts of Black-Scholes' generated kernel on the CPU machine (no GPU), 2026-12-07,
# seventh session. Needs: the CUDA 13 toolkit (NVRTC), and nvdisasm from Debian's non-free
# nvidia-cuda-toolkit 11.8, extracted, not installed (CUDA 13 ships no disassembler here):
#   (non-free in /etc/apt/sources.list.d) apt-get download nvidia-cuda-toolkit
#   dpkg-deb -x nvidia-cuda-toolkit_*.deb /tmp/nvd/x
# Kernels: a CPU build with stride.patch, experiment-knobs-n.patch and 2026-12-07e's
# dump-kernels.patch (applies with an offset), then per variant
#   env <switches> DUMP_BS=/tmp/k/<variant>/ build/tests/test_jit_codegen --gtest_filter='*TempDumpBlack*'
# with both / nolit (TESSERA_EXPERIMENT_NO_LITERALS=1) / nostride (TESSERA_EXPERIMENT_NO_STRIDE=1)
# / neither (both switches). 2^27 options with the loop are 8 a thread (65,536 blocks of 256).
set -eu
g++ -O1 -I/usr/local/cuda/include nvc.cpp -o /tmp/nvc -L/usr/local/cuda/lib -lnvrtc -Wl,-rpath,/usr/local/cuda/lib
for v in neither nostride nolit both; do
  trips=1; [[ $v == both || $v == nolit ]] && trips=8
  /tmp/nvc /tmp/k/$v/0_e1.cu /tmp/k/$v.cubin 2>&1 | grep -o 'Used [0-9]* registers' | sed "s/^/$v: /"
  python3 fixelf.py /tmp/k/$v.cubin /tmp/k/$v.fixed.cubin
  /tmp/nvd/x/usr/bin/nvdisasm -c /tmp/k/$v.fixed.cubin > /tmp/k/$v.sass
  python3 fastpath.py /tmp/k/$v.sass $trips
done
# The PTX before and with the small literals, registers and constants blanked (R, K): what changed
# besides constants becoming immediates.
for v in neither nostride; do /tmp/nvc /tmp/k/$v/0_e1.cu /tmp/k/$v.ptx ptx 2> /dev/null; done
norm() { grep -E '^\s+[a-z]' "$1" | grep -vE '^\s+(ld\.param|cvta|\.reg|\.loc)' | sed -E 's/%[a-z]+[0-9]+/R/g; s/0d[0-9A-F]{16}/K/g; s/\[[^]]*\]/[M]/g'; }
echo "PTX, before (<) and with the small literals (>):"
diff <(norm /tmp/k/neither.ptx) <(norm /tmp/k/nostride.ptx) || true
