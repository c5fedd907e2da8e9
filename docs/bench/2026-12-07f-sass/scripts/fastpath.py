# fastpath.py file.sass [trips]: the instructions one thread of tessera_fused issues on the common
# path, estimated from the SASS (nvdisasm -c): a forward conditional branch is taken when the code it
# skips holds a CALL (a libdevice slow path: exp/log of large or special arguments, division's
# fix-up) or fewer than 20 instructions (special-value handling), else it falls through; a
# predicated EXIT is not taken; a backward conditional branch (the strided loop) is taken trips - 1
# times. Prints the instructions per thread, per element (divided by trips) and the opcodes counted.
import collections, re, sys
lines = open(sys.argv[1]).read().split('\n')
trips = int(sys.argv[2]) if len(sys.argv) > 2 else 1
code, labels, inside = [], {}, False
for l in lines:
    if l.startswith('.text.tessera_fused:'): inside = True; continue
    if inside and l.startswith('.text.'): break
    if not inside: continue
    m = re.match(r'^(\.L_x_\d+):', l.strip())
    if m: labels[m.group(1)] = len(code); continue
    m = re.match(r'^\s+/\*([0-9a-f]{4})\*/\s+(.*?)\s*;', l)
    if m: code.append(m.group(2))
def opcode(t):
    t = re.sub(r'^@!?U?P[0-9T]\s+', '', t)
    return t.split()[0]
count, ops, pc, seen = 0, collections.Counter(), 0, collections.Counter()
while pc < len(code):
    t = code[pc]; op = opcode(t); count += 1; ops[op.split('.')[0]] += 1
    predicated = t.startswith('@')
    if op.startswith('EXIT') and not predicated: break
    if op.startswith('BRA'):
        target = labels[re.search(r'\(?(\.L_x_\d+)\)?', t).group(1)]
        if not predicated: pc = target; continue
        if target <= pc:
            seen[pc] += 1
            if seen[pc] < trips: pc = target; continue
        else:
            skipped = code[pc + 1:target]
            if any(opcode(s).startswith('CALL') for s in skipped) or len(skipped) < 20: pc = target; continue
    if op.startswith('RET'): raise SystemExit('RET reached outside a call: ' + t)
    pc += 1
print('%s: %d per thread, %.1f per element (%d trips); %d instructions in the kernel' % (sys.argv[1], count, count / trips, trips, len(code)))
print('  ' + ' '.join('%s %d' % (k, v) for k, v in ops.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 14)))
