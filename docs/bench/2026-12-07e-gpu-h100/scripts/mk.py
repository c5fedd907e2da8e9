# Black-Scholes kernel variants from the generated kernel g1.cu (tessera's JIT, 1 option a thread).
# The generated kernels come from dump-kernels.patch on the CPU machine, at 5e26e09 (checked to give
# the kernel call A ran byte for byte):
#   DUMP_BS=/tmp/k build/tests/test_jit_codegen --gtest_filter='*TempDumpBlack*'
#   cp /tmp/k0_e1.cu g1.cu; (echo '// per-thread 2'; cat /tmp/k0_e2.cu) > g2.cu
# and lm2.cu the same way as g2.cu from a build with experiment-knobs.patch, run with
# TESSERA_EXPERIMENT_LANE_MAJOR=1. The first line `// per-thread N` tells bsr the options a thread.
import re
src = open('g1.cu').read()
head, rest = src.split('extern "C" __global__', 1)
body = rest.split('const long i0 = 0, i1 = 0;\n', 1)[1]
body = body[:body.rindex('    }\n  }\n}')]
R, V = 0.02, 0.3  # bench/workloads.hpp kRate, kVolatility
A = [0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429]
CND = [0.0, 1.0, 0.39894228040143267793994605993438, -0.5, 1.0, 1.0, 0.2316419] + A
VALUES = [R + 0.5 * V * V, V] + CND + [-R, V] + CND + [1.0, 1.0]  # p.constants in the generated kernel's order
consts = {k: v.hex() for k, v in enumerate(VALUES)}
def literal(b):
    return re.sub(r'p\.constants\[(\d+)\]\.f64', lambda m: '(' + consts[int(m.group(1))] + ')', b)
def kernel(name, per_thread, stride, b, bounds='256'):
    copies = ''.join('      {\n        const long j = j0 + %d;\n        if (j < n2) {\n%s        }\n      }\n'
                     % (e * stride, b) for e in range(per_thread))
    k = ('// per-thread %d\n' % per_thread + head + 'extern "C" __global__ void __launch_bounds__(%s) tessera_fused(const KernelParams p) {\n' % bounds +
         '  const long n2 = p.domain.n[2];\n' +
         '  const long j0 = static_cast<long>(blockIdx.x) * %d + %s;\n' % (256 * per_thread, 'threadIdx.x' if stride == 256 else 'threadIdx.x * %d' % per_thread) +
         copies + '}\n')
    open(name, 'w').write(k)
kernel('s1.cu', 1, 256, body)              # g1 restated (the harness' baseline for the rewrites)
kernel('lit1.cu', 1, 256, literal(body))   # constants as literals
kernel('s2.cu', 2, 256, body)              # 2 options a thread, 256 apart, each option's code whole
kernel('a2.cu', 2, 1, body)                # 2 adjacent options a thread (Inductor's layout)
kernel('lita2.cu', 2, 1, literal(body))
kernel('lits2.cu', 2, 256, literal(body))
open('constants.txt', 'w').write(' '.join(v.hex() for v in VALUES) + '\n')
kernel('s4.cu', 4, 256, body)
kernel('lits4.cu', 4, 256, literal(body))
