#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""add_sim.py OUT: writes add-sim.co, 01-add's AMDGPU code object for rig's
software GPU (RIG_AMD_SIM, docs/amd.md). It is a real code object as rig's
AMD device loads it: an ELF64 of EM_AMDGPU (code object v4) with the symbols
"add" (the code) and "add.kd" (its 64-byte kernel descriptor: 32 kernarg
bytes, the entry's offset, USER_SGPR_COUNT 2 for the kernarg pointer,
wave32). Its code bytes are no GPU instructions: they are the software
GPU's marker, the callback id of its add kernel (src/amd/sim/example.c)
and the user SGPR that holds the kernarg address. A real GPU cannot run
it; the sim runs that host function in its place."""
import struct
import sys

MAGIC = 0x4E4B4D4953474952          # "RIGSIMKN": AMD_SIM_KERNEL_MAGIC
CALLBACK = 62                       # AMD_SIM_EXAMPLE_ADD
KERNARG_SGPR = 0
KERNARG_BYTES = 32                  # { a, b, c, n }

TEXT, RODATA, STRTAB, SYMTAB, SHSTRTAB, SHDRS = 0x100, 0x200, 0x240, 0x260, 0x2B0, 0x300
EM_AMDGPU, ET_DYN = 224, 3
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB = 1, 2, 3
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4


def image():
    b = bytearray(SHDRS + 6 * 64)
    strtab = b"\0add\0add.kd\0"
    shstrtab = b"\0.text\0.rodata\0.strtab\0.symtab\0.shstrtab\0"
    code = struct.pack("<QII", MAGIC, CALLBACK, KERNARG_SGPR)
    ident = b"\x7fELF" + bytes([2, 1, 1, 64, 2]) + bytes(7)   # 64-bit LE, HSA, v4
    b[0:64] = ident + struct.pack("<HHIQQQIHHHHHH", ET_DYN, EM_AMDGPU, 1, 0, 0, SHDRS,
                                  0x41, 64, 0, 0, 64, 6, 5)
    b[TEXT:TEXT + len(code)] = code
    # The kernel descriptor (amd-facts 7.1): kernarg_size at 8, the entry's
    # offset from the descriptor at 16, COMPUTE_PGM_RSRC2 at 52 (its
    # USER_SGPR_COUNT in bits 5:1), properties at 56 (KERNARG_SEGMENT_PTR,
    # wave32).
    struct.pack_into("<I", b, RODATA + 8, KERNARG_BYTES)
    struct.pack_into("<q", b, RODATA + 16, TEXT - RODATA)
    struct.pack_into("<I", b, RODATA + 52, 2 << 1)
    struct.pack_into("<H", b, RODATA + 56, 1 << 3 | 1 << 10)
    b[STRTAB:STRTAB + len(strtab)] = strtab
    sym = lambda name, info, shndx, value, size: struct.pack("<IBBHQQ", name, info, 0,
                                                             shndx, value, size)
    b[SYMTAB + 24:SYMTAB + 48] = sym(1, 0x12, 1, TEXT, len(code))      # GLOBAL FUNC
    b[SYMTAB + 48:SYMTAB + 72] = sym(5, 0x11, 2, RODATA, 64)           # GLOBAL OBJECT
    b[SHSTRTAB:SHSTRTAB + len(shstrtab)] = shstrtab
    sh = lambda *f: struct.pack("<IIQQQQIIQQ", *f)
    shdrs = [bytes(64),
             sh(1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, TEXT, TEXT, len(code), 0, 0, 256, 0),
             sh(7, SHT_PROGBITS, SHF_ALLOC, RODATA, RODATA, 64, 0, 0, 64, 0),
             sh(15, SHT_STRTAB, 0, 0, STRTAB, len(strtab), 0, 0, 1, 0),
             sh(23, SHT_SYMTAB, 0, 0, SYMTAB, 3 * 24, 3, 1, 8, 24),
             sh(31, SHT_STRTAB, 0, 0, SHSTRTAB, len(shstrtab), 0, 0, 1, 0)]
    b[SHDRS:] = b"".join(shdrs)
    return bytes(b)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: add_sim.py OUT")
    with open(sys.argv[1], "wb") as f:
        f.write(image())
