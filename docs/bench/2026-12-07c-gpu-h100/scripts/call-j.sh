#!/usr/bin/env bash
# Session 2026-12-07 (third), call J: SASS of the hand-written and generated staged kernels and
# the committed one, as NVRTC compiles them (cuobjdump is not on the build machine).
set -u
cd "$(dirname "$0")/h27r"
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
for k in hand6 vecnorefill6 none6 int6; do ./nvc $k.cu /tmp/$k.cubin && cuobjdump -sass /tmp/$k.cubin > $OUT/$k.sass; echo "$k rc=$? $(wc -l < $OUT/$k.sass)"; done
