# fixelf.py in.cubin out.cubin: rewrites a CUDA 13 cubin's ELF header (ABI version byte 7, byte 8,
# e_flags) to the form CUDA 11.8's nvdisasm reads; the code itself is unchanged.
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[7] = 0x33; b[8] = 7
struct.pack_into('<I', b, 48, 0x5a055a)
open(sys.argv[2], 'wb').write(b)
