/* SPDX-License-Identifier: MIT */
/*
 * host/elf_reloc.c: computing and writing relocations. x86-64: the types
 * `cc -c -O2 -fPIC` emits (64, PC32, PLT32, 32, 32S, PC64 and the GOTPCREL
 * family), and the large code model's (-fPIC -mcmodel=large: GOTPC64,
 * GOTOFF64, GOT64, GOTPCREL64, PLTOFF64, whose 64-bit fields always reach;
 * PLTOFF64 names the function itself, as a 64-bit offset needs no PLT). aarch64: absolute and PC-relative data, ADRP/ADD/LDR page pairs
 * (direct and through the GOT) and branches. Every field is checked for
 * overflow before it is written; nothing is written on a refusal.
 *
 * A call or PC-relative reference to a host function (memcpy, sin) may lie
 * farther than the field reaches from the image; such a symbol has a stub in
 * the image's text (elf.c allocates it) and the reference goes there instead.
 */
#include <elf.h>
#include <stdbool.h>
#include <string.h>

#include "host/elf_reloc.h"

struct type_info {
	const char *name;
	signed char width;	/* bytes patched; -1: unsupported */
	unsigned char needs;	/* ELF_NEEDS_* */
};

/* x86-64, indexed by type. */
static const struct type_info x86_64_types[] = {
	[R_X86_64_NONE]		= { "R_X86_64_NONE", 0, 0 },
	[R_X86_64_64]		= { "R_X86_64_64", 8, 0 },
	[R_X86_64_PC32]		= { "R_X86_64_PC32", 4, ELF_NEEDS_STUB },
	[R_X86_64_GOT32]	= { "R_X86_64_GOT32", -1, 0 },
	[R_X86_64_PLT32]	= { "R_X86_64_PLT32", 4, ELF_NEEDS_STUB },
	[R_X86_64_COPY]		= { "R_X86_64_COPY", -1, 0 },
	[R_X86_64_GLOB_DAT]	= { "R_X86_64_GLOB_DAT", -1, 0 },
	[R_X86_64_JUMP_SLOT]	= { "R_X86_64_JUMP_SLOT", -1, 0 },
	[R_X86_64_RELATIVE]	= { "R_X86_64_RELATIVE", -1, 0 },
	[R_X86_64_GOTPCREL]	= { "R_X86_64_GOTPCREL", 4, ELF_NEEDS_GOT },
	[R_X86_64_32]		= { "R_X86_64_32", 4, 0 },
	[R_X86_64_32S]		= { "R_X86_64_32S", 4, 0 },
	[R_X86_64_16]		= { "R_X86_64_16", -1, 0 },
	[R_X86_64_PC16]		= { "R_X86_64_PC16", -1, 0 },
	[R_X86_64_8]		= { "R_X86_64_8", -1, 0 },
	[R_X86_64_PC8]		= { "R_X86_64_PC8", -1, 0 },
	[R_X86_64_DTPMOD64]	= { "R_X86_64_DTPMOD64", -1, 0 },
	[R_X86_64_DTPOFF64]	= { "R_X86_64_DTPOFF64", -1, 0 },
	[R_X86_64_TPOFF64]	= { "R_X86_64_TPOFF64", -1, 0 },
	[R_X86_64_TLSGD]	= { "R_X86_64_TLSGD", -1, 0 },
	[R_X86_64_TLSLD]	= { "R_X86_64_TLSLD", -1, 0 },
	[R_X86_64_DTPOFF32]	= { "R_X86_64_DTPOFF32", -1, 0 },
	[R_X86_64_GOTTPOFF]	= { "R_X86_64_GOTTPOFF", -1, 0 },
	[R_X86_64_TPOFF32]	= { "R_X86_64_TPOFF32", -1, 0 },
	[R_X86_64_PC64]		= { "R_X86_64_PC64", 8, 0 },
	[R_X86_64_GOTOFF64]	= { "R_X86_64_GOTOFF64", 8, 0 },
	[R_X86_64_GOTPC32]	= { "R_X86_64_GOTPC32", 4, 0 },
	[R_X86_64_GOT64]	= { "R_X86_64_GOT64", 8, ELF_NEEDS_GOT },
	[R_X86_64_GOTPCREL64]	= { "R_X86_64_GOTPCREL64", 8, ELF_NEEDS_GOT },
	[R_X86_64_GOTPC64]	= { "R_X86_64_GOTPC64", 8, 0 },
	[R_X86_64_GOTPLT64]	= { "R_X86_64_GOTPLT64", -1, 0 },
	[R_X86_64_PLTOFF64]	= { "R_X86_64_PLTOFF64", 8, 0 },
	[R_X86_64_SIZE32]	= { "R_X86_64_SIZE32", -1, 0 },
	[R_X86_64_SIZE64]	= { "R_X86_64_SIZE64", -1, 0 },
	[R_X86_64_GOTPC32_TLSDESC] = { "R_X86_64_GOTPC32_TLSDESC", -1, 0 },
	[R_X86_64_TLSDESC_CALL]	= { "R_X86_64_TLSDESC_CALL", -1, 0 },
	[R_X86_64_TLSDESC]	= { "R_X86_64_TLSDESC", -1, 0 },
	[R_X86_64_IRELATIVE]	= { "R_X86_64_IRELATIVE", -1, 0 },
	[R_X86_64_RELATIVE64]	= { "R_X86_64_RELATIVE64", -1, 0 },
	[40]			= { NULL, -1, 0 },
	[R_X86_64_GOTPCRELX]	= { "R_X86_64_GOTPCRELX", 4, ELF_NEEDS_GOT },
	[R_X86_64_REX_GOTPCRELX] = { "R_X86_64_REX_GOTPCRELX", 4, ELF_NEEDS_GOT },
};

/* aarch64, the types applied; any other is unsupported. */
static const struct {
	unsigned type;
	struct type_info info;
} aarch64_types[] = {
	{ R_AARCH64_NONE,		{ "R_AARCH64_NONE", 0, 0 } },
	{ 256,				{ "R_AARCH64_NONE", 0, 0 } },	/* the old number */
	{ R_AARCH64_ABS64,		{ "R_AARCH64_ABS64", 8, 0 } },
	{ R_AARCH64_ABS32,		{ "R_AARCH64_ABS32", 4, 0 } },
	{ R_AARCH64_PREL64,		{ "R_AARCH64_PREL64", 8, 0 } },
	{ R_AARCH64_PREL32,		{ "R_AARCH64_PREL32", 4, 0 } },
	{ R_AARCH64_ADR_PREL_PG_HI21,	{ "R_AARCH64_ADR_PREL_PG_HI21", 4, 0 } },
	{ R_AARCH64_ADR_PREL_PG_HI21_NC, { "R_AARCH64_ADR_PREL_PG_HI21_NC", 4, 0 } },
	{ R_AARCH64_ADD_ABS_LO12_NC,	{ "R_AARCH64_ADD_ABS_LO12_NC", 4, 0 } },
	{ R_AARCH64_LDST8_ABS_LO12_NC,	{ "R_AARCH64_LDST8_ABS_LO12_NC", 4, 0 } },
	{ R_AARCH64_LDST16_ABS_LO12_NC,	{ "R_AARCH64_LDST16_ABS_LO12_NC", 4, 0 } },
	{ R_AARCH64_LDST32_ABS_LO12_NC,	{ "R_AARCH64_LDST32_ABS_LO12_NC", 4, 0 } },
	{ R_AARCH64_LDST64_ABS_LO12_NC,	{ "R_AARCH64_LDST64_ABS_LO12_NC", 4, 0 } },
	{ R_AARCH64_LDST128_ABS_LO12_NC, { "R_AARCH64_LDST128_ABS_LO12_NC", 4, 0 } },
	{ R_AARCH64_TSTBR14,		{ "R_AARCH64_TSTBR14", 4, 0 } },
	{ R_AARCH64_CONDBR19,		{ "R_AARCH64_CONDBR19", 4, 0 } },
	{ R_AARCH64_JUMP26,		{ "R_AARCH64_JUMP26", 4, ELF_NEEDS_STUB } },
	{ R_AARCH64_CALL26,		{ "R_AARCH64_CALL26", 4, ELF_NEEDS_STUB } },
	{ R_AARCH64_ADR_GOT_PAGE,	{ "R_AARCH64_ADR_GOT_PAGE", 4, ELF_NEEDS_GOT } },
	{ R_AARCH64_LD64_GOT_LO12_NC,	{ "R_AARCH64_LD64_GOT_LO12_NC", 4, ELF_NEEDS_GOT } },
};

static const struct type_info *
info(unsigned machine, unsigned type)
{
	size_t i;

	if (machine == EM_X86_64) {
		if (type < sizeof(x86_64_types) / sizeof(x86_64_types[0]) &&
		    x86_64_types[type].name)
			return &x86_64_types[type];
		return NULL;
	}
	if (machine == EM_AARCH64)
		for (i = 0; i < sizeof(aarch64_types) / sizeof(aarch64_types[0]); i++)
			if (aarch64_types[i].type == type)
				return &aarch64_types[i].info;
	return NULL;
}

int
elf_reloc_width(unsigned machine, unsigned type)
{
	const struct type_info *t = info(machine, type);

	return t ? t->width : -1;
}

unsigned
elf_reloc_needs(unsigned machine, unsigned type)
{
	const struct type_info *t = info(machine, type);

	return t && t->width >= 0 ? t->needs : 0;
}

const char *
elf_reloc_advice(unsigned machine, unsigned type)
{
	if (machine == EM_X86_64 && type >= R_X86_64_DTPMOD64 && type <= R_X86_64_TPOFF32)
		return ": thread-local storage, which host kernels cannot use: make the variable a global or a params member";
	if (machine == EM_X86_64 && (type == R_X86_64_GOTPC32_TLSDESC || type == R_X86_64_TLSDESC_CALL ||
				     type == R_X86_64_TLSDESC))
		return ": thread-local storage, which host kernels cannot use: make the variable a global or a params member";
	if (machine == EM_X86_64 && (type == R_X86_64_COPY || type == R_X86_64_GLOB_DAT ||
				     type == R_X86_64_JUMP_SLOT || type == R_X86_64_RELATIVE ||
				     type == R_X86_64_IRELATIVE || type == R_X86_64_RELATIVE64))
		return ": a dynamic relocation, found only in linked programs and shared objects: give rig the object `cc -c` made";
	return ": compile with -fPIC (the small or the large code model; -mcmodel=medium is not linked)";
}

const char *
elf_reloc_name(unsigned machine, unsigned type)
{
	const struct type_info *t = info(machine, type);

	return t ? t->name : "unknown";
}

static bool
fits_signed(int64_t v, unsigned bits)
{
	return v >= -((int64_t)1 << (bits - 1)) && v < ((int64_t)1 << (bits - 1));
}

static void
put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void
put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* A PC-relative value to S, or to the stub where S lies out of reach. */
static int64_t
pcrel_reach(const struct elf_reloc *r, unsigned bits, unsigned shift)
{
	int64_t v = (int64_t)(r->S + (uint64_t)r->A - r->P);

	if (r->stub && !fits_signed(v >> shift, bits))
		v = (int64_t)(r->stub + (uint64_t)r->A - r->P);
	return v;
}

static enum elf_reloc_status
x86_64(unsigned type, const struct elf_reloc *r, int64_t *value)
{
	int64_t v;

	switch (type) {
	case R_X86_64_NONE:
		return ELF_RELOC_OK;
	case R_X86_64_64:
		put64(r->where, r->S + (uint64_t)r->A);
		return ELF_RELOC_OK;
	case R_X86_64_PC64:
		put64(r->where, r->S + (uint64_t)r->A - r->P);
		return ELF_RELOC_OK;
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		v = *value = pcrel_reach(r, 32, 0);
		break;
	case R_X86_64_GOTPCREL:
	case R_X86_64_GOTPCRELX:
	case R_X86_64_REX_GOTPCRELX:
		v = *value = (int64_t)(r->G + (uint64_t)r->A - r->P);
		break;
	case R_X86_64_32:
		*value = (int64_t)(r->S + (uint64_t)r->A);
		if ((uint64_t)*value > UINT32_MAX)
			return ELF_RELOC_OVERFLOW;
		put32(r->where, (uint32_t)*value);
		return ELF_RELOC_OK;
	case R_X86_64_32S:
		v = *value = (int64_t)(r->S + (uint64_t)r->A);
		break;
	case R_X86_64_GOTPC32:
		v = *value = (int64_t)(r->GOT + (uint64_t)r->A - r->P);
		break;
	case R_X86_64_GOTPC64:
		put64(r->where, r->GOT + (uint64_t)r->A - r->P);
		return ELF_RELOC_OK;
	case R_X86_64_GOTOFF64:
	case R_X86_64_PLTOFF64:
		put64(r->where, r->S + (uint64_t)r->A - r->GOT);
		return ELF_RELOC_OK;
	case R_X86_64_GOT64:
		put64(r->where, r->G - r->GOT + (uint64_t)r->A);
		return ELF_RELOC_OK;
	case R_X86_64_GOTPCREL64:
		put64(r->where, r->G + (uint64_t)r->A - r->P);
		return ELF_RELOC_OK;
	default:
		return ELF_RELOC_UNSUPPORTED;
	}
	if (!fits_signed(v, 32))
		return ELF_RELOC_OVERFLOW;
	put32(r->where, (uint32_t)(int32_t)v);
	return ELF_RELOC_OK;
}

/* aarch64: read-modify-write of one instruction word. */
static uint32_t
insn(const struct elf_reloc *r)
{
	uint32_t i;

	memcpy(&i, r->where, 4);
	return i;
}

static uint64_t
page(uint64_t a)
{
	return a & ~(uint64_t)0xfff;
}

static enum elf_reloc_status
adrp(const struct elf_reloc *r, uint64_t target, bool check, int64_t *value)
{
	int64_t v = *value = (int64_t)(page(target) - page(r->P)) >> 12;
	uint32_t i = insn(r);

	if (check && !fits_signed(v, 21))
		return ELF_RELOC_OVERFLOW;
	i &= ~((3u << 29) | (0x7ffffu << 5));
	i |= ((uint32_t)v & 3u) << 29 | (((uint32_t)v >> 2) & 0x7ffffu) << 5;
	put32(r->where, i);
	return ELF_RELOC_OK;
}

static enum elf_reloc_status
lo12(const struct elf_reloc *r, uint64_t target, unsigned shift, int64_t *value)
{
	uint32_t lo = (uint32_t)(target & 0xfff);
	uint32_t i = insn(r);

	*value = lo;
	if (lo & ((1u << shift) - 1))
		return ELF_RELOC_MISALIGNED;
	i &= ~(0xfffu << 10);
	i |= (lo >> shift) << 10;
	put32(r->where, i);
	return ELF_RELOC_OK;
}

/* A branch of bits bits of word offset, its field at bit lsb. */
static enum elf_reloc_status
branch(const struct elf_reloc *r, unsigned bits, unsigned lsb, int64_t *value)
{
	int64_t v = *value = pcrel_reach(r, bits, 2);
	uint32_t mask = ((1u << bits) - 1) << lsb;
	uint32_t i = insn(r);

	if (v & 3)
		return ELF_RELOC_MISALIGNED;
	if (!fits_signed(v >> 2, bits))
		return ELF_RELOC_OVERFLOW;
	i = (i & ~mask) | (((uint32_t)(v >> 2) << lsb) & mask);
	put32(r->where, i);
	return ELF_RELOC_OK;
}

static enum elf_reloc_status
aarch64(unsigned type, const struct elf_reloc *r, int64_t *value)
{
	uint64_t sa = r->S + (uint64_t)r->A;
	int64_t v;

	switch (type) {
	case R_AARCH64_NONE:
	case 256:
		return ELF_RELOC_OK;
	case R_AARCH64_ABS64:
		put64(r->where, sa);
		return ELF_RELOC_OK;
	case R_AARCH64_PREL64:
		put64(r->where, sa - r->P);
		return ELF_RELOC_OK;
	case R_AARCH64_ABS32:
	case R_AARCH64_PREL32:
		v = *value = (int64_t)(type == R_AARCH64_ABS32 ? sa : sa - r->P);
		if (v < INT32_MIN || v > (int64_t)UINT32_MAX)
			return ELF_RELOC_OVERFLOW;
		put32(r->where, (uint32_t)v);
		return ELF_RELOC_OK;
	case R_AARCH64_ADR_PREL_PG_HI21:
		return adrp(r, sa, true, value);
	case R_AARCH64_ADR_PREL_PG_HI21_NC:
		return adrp(r, sa, false, value);
	case R_AARCH64_ADR_GOT_PAGE:
		return adrp(r, r->G, true, value);
	case R_AARCH64_ADD_ABS_LO12_NC:
	case R_AARCH64_LDST8_ABS_LO12_NC:
		return lo12(r, sa, 0, value);
	case R_AARCH64_LDST16_ABS_LO12_NC:
		return lo12(r, sa, 1, value);
	case R_AARCH64_LDST32_ABS_LO12_NC:
		return lo12(r, sa, 2, value);
	case R_AARCH64_LDST64_ABS_LO12_NC:
		return lo12(r, sa, 3, value);
	case R_AARCH64_LDST128_ABS_LO12_NC:
		return lo12(r, sa, 4, value);
	case R_AARCH64_LD64_GOT_LO12_NC:
		return lo12(r, r->G, 3, value);
	case R_AARCH64_TSTBR14:
		return branch(r, 14, 5, value);
	case R_AARCH64_CONDBR19:
		return branch(r, 19, 5, value);
	case R_AARCH64_JUMP26:
	case R_AARCH64_CALL26:
		return branch(r, 26, 0, value);
	default:
		return ELF_RELOC_UNSUPPORTED;
	}
}

enum elf_reloc_status
elf_reloc_apply(unsigned machine, unsigned type, const struct elf_reloc *r,
		int64_t *value)
{
	*value = 0;
	if (machine == EM_X86_64)
		return x86_64(type, r, value);
	if (machine == EM_AARCH64)
		return aarch64(type, r, value);
	return ELF_RELOC_UNSUPPORTED;
}

void
elf_stub_write(unsigned machine, unsigned char *at, uint64_t target)
{
	/* x86-64: jmp *0(%rip); .quad target; int3 padding. */
	static const unsigned char x86_jmp[6] = { 0xff, 0x25, 0, 0, 0, 0 };

	if (machine == EM_X86_64) {
		memset(at, 0xcc, ELF_STUB_BYTES);
		memcpy(at, x86_jmp, sizeof(x86_jmp));
		put64(at + 6, target);
		return;
	}
	/* aarch64: ldr x16, .+8; br x16; .quad target. */
	put32(at, 0x58000050u);
	put32(at + 4, 0xd61f0200u);
	put64(at + 8, target);
}
