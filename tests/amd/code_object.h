/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/code_object.h: a real AMDGPU code object (an ELF of
 * EM_AMDGPU with "add" and its "add.kd" kernel descriptor, amd-facts
 * §7.1), written byte by byte, whose code is the software GPU's marker
 * and callback id (amd/sim/sim.h): for the sim's launch tests and the AMD
 * device's.
 */
#ifndef RIG_TESTS_AMD_CODE_OBJECT_H
#define RIG_TESTS_AMD_CODE_OBJECT_H

#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "amd/sim/sim.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

enum { TEXT = 0x100, RODATA = 0x200, STRTAB = 0x240, SYMTAB = 0x260,
       SHSTRTAB = 0x2b0, SHDRS = 0x300, ELF_BYTES = SHDRS + 6 * 64 };

struct obj {
	uint8_t b[ELF_BYTES];
};

/* §7.1 kernel_code_t fields we set: kernarg_size, entry offset, rsrc1/2, properties. */
static void
build_object(struct obj *o, uint64_t magic, uint32_t callback, uint32_t rsrc2)
{
	static const char strtab[] = "\0add\0add.kd";
	static const char shstrtab[] = "\0.text\0.rodata\0.strtab\0.symtab\0.shstrtab";
	struct amd_sim_kernel_code code = { magic, callback, 0 };
	Elf64_Ehdr *eh = (Elf64_Ehdr *)o->b;
	Elf64_Shdr *sh = (Elf64_Shdr *)(o->b + SHDRS);
	Elf64_Sym *sym = (Elf64_Sym *)(o->b + SYMTAB);
	int64_t entry_off = TEXT - RODATA;
	uint32_t kernarg_size = 20, props = 1u << 3 | 1u << 10;	/* KERNARG_SEGMENT_PTR, wave32 */

	memset(o, 0, sizeof(*o));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = 64;		/* ELFOSABI_AMDGPU_HSA */
	eh->e_ident[EI_ABIVERSION] = 2;		/* code object v4 */
	eh->e_type = ET_DYN;
	eh->e_machine = EM_AMDGPU;
	eh->e_version = EV_CURRENT;
	eh->e_flags = 0x41;			/* EF_AMDGPU_MACH_AMDGCN_GFX1100 */
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shoff = SHDRS;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 6;
	eh->e_shstrndx = 5;
	memcpy(o->b + TEXT, &code, sizeof(code));
	memcpy(o->b + RODATA + 8, &kernarg_size, 4);
	memcpy(o->b + RODATA + 16, &entry_off, 8);
	memcpy(o->b + RODATA + 52, &rsrc2, 4);
	memcpy(o->b + RODATA + 56, &props, 2);
	memcpy(o->b + STRTAB, strtab, sizeof(strtab));
	sym[1] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			      .st_shndx = 1, .st_value = TEXT, .st_size = sizeof(code) };
	sym[2] = (Elf64_Sym){ .st_name = 5, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
			      .st_shndx = 2, .st_value = RODATA, .st_size = 64 };
	memcpy(o->b + SHSTRTAB, shstrtab, sizeof(shstrtab));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = TEXT, .sh_offset = TEXT, .sh_size = sizeof(code), .sh_addralign = 256 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_addr = RODATA, .sh_offset = RODATA, .sh_size = 64, .sh_addralign = 64 };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = STRTAB,
			      .sh_size = sizeof(strtab), .sh_addralign = 1 };
	sh[4] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_SYMTAB, .sh_offset = SYMTAB,
			      .sh_size = 3 * sizeof(Elf64_Sym), .sh_link = 3, .sh_info = 1,
			      .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) };
	sh[5] = (Elf64_Shdr){ .sh_name = 31, .sh_type = SHT_STRTAB, .sh_offset = SHSTRTAB,
			      .sh_size = sizeof(shstrtab), .sh_addralign = 1 };
}

#endif
