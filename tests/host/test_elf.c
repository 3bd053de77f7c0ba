/* SPDX-License-Identifier: MIT */
/*
 * tests/host/test_elf.c: the host's ELF linker. Objects the test build
 * compiled load, run and give the right results (libm's functions, memcpy,
 * memset, memmove, every kind of data reference), their memory is W^X, and
 * malformed objects are refused with their reason and never crash:
 * truncated at every length, bad section and symbol indices, unsupported
 * and overflowing relocations, undefined symbols.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <elf.h>

#include "host/elf.h"
#include "host/elf_host.h"
#include "host/elf_reloc.h"
#include "kernels.h"
#include "link_ok.h"

/* A machine that is not this host's, for the wrong-machine refusal. */
#if defined(__x86_64__)
#define ELF_HOST_MACHINE_OTHER		EM_AARCH64
#define ELF_HOST_MACHINE_OTHER_TEXT	"183 (EM_AARCH64)"
#else
#define ELF_HOST_MACHINE_OTHER		EM_X86_64
#define ELF_HOST_MACHINE_OTHER_TEXT	"62 (EM_X86_64)"
#endif

static kernel_fn
fn(struct elf_image *img, const char *name)
{
	kernel_fn f = (kernel_fn)elf_symbol(img, name);

	if (!f)
		fail_msg("no function %s", name);
	return f;
}

static void
refused(const unsigned char *b, size_t len, const char *want)
{
	struct elf_image *img = (struct elf_image *)&img;
	char why[ELF_WHY_BYTES] = "";
	int ret;

	ret = elf_link(b, len, &img, why, sizeof(why));
	if (ret != -ENOEXEC || !strstr(why, want))
		fail_msg("expected -ENOEXEC with \"%s\", got %d \"%s\"", want, ret, why);
	assert_null(img);
}

/* ---- Objects that run -------------------------------------------------- */

static void
test_add_runs(void **state)
{
	struct elf_image *img = link_ok("add");
	kernel_fn add = fn(img, "add");
	enum { N = 10000 };
	static float a[N], b[N], c[N];
	struct add_params p = { a, b, c, N, 64 };
	int64_t groups = (N + 63) / 64, g;
	int i;

	for (i = 0; i < N; i++) {
		a[i] = (float)i;
		b[i] = 0.5f * (float)i;
	}
	for (g = 0; g < groups; g += 7)
		add(&p, g, g + 7 < groups ? g + 7 : groups);
	for (i = 0; i < N; i++)
		if (c[i] != 1.5f * (float)i)
			fail_msg("c[%d] = %g, expected %g", i, c[i], 1.5f * (float)i);
	elf_unlink(img);
}

static void
test_math_matches_libm(void **state)
{
	struct elf_image *img = link_ok("math");
	enum { N = 257 };
	static double x[N], out[7 * N];
	static float outf[7 * N];
	struct math_params p = { x, out, outf, N };
	int i;

	for (i = 0; i < N; i++)
		x[i] = 0.01 + 0.37 * i;
	fn(img, "math")(&p, 0, N);
	for (i = 0; i < N; i++) {
		double v = x[i];
		float f = (float)v;
		double want[7] = { sqrt(v), exp(v), log(v), sin(v), cos(v), pow(v, 1.0 + v), fma(v, v, -v) };
		float wantf[7] = { sqrtf(f), expf(f), logf(f), sinf(f), cosf(f), powf(f, 1.0f + f), fmaf(f, f, -f) };
		int k;

		for (k = 0; k < 7; k++) {
			if (memcmp(&out[k * N + i], &want[k], sizeof(double)))
				fail_msg("double function %d of %g: %.17g, expected %.17g", k, v, out[k * N + i], want[k]);
			if (memcmp(&outf[k * N + i], &wantf[k], sizeof(float)))
				fail_msg("float function %d of %g: %.9g, expected %.9g", k, f, outf[k * N + i], wantf[k]);
		}
	}
	elf_unlink(img);
}

struct wide_params {
	const uint64_t *x;
	int64_t *out;
};

static void
test_libgcc_helpers(void **state)
{
	struct elf_image *img = link_ok("wide");
	static const uint64_t x[4] = { 0, 1, 0xdeadbeefcafef00dull, UINT64_MAX };
	int64_t out[20];
	struct wide_params p = { x, out };
	int i;

	fn(img, "wide")(&p, 0, 4);
	for (i = 0; i < 4; i++) {
		unsigned __int128 u = ((unsigned __int128)x[i] << 64) | 12345u;
		__int128 s = -(__int128)u / 3;

		assert_int_equal(out[5 * i + 0], (int64_t)(u / (x[i] | 1)));
		assert_int_equal(out[5 * i + 1], (int64_t)(u % (x[i] | 1)));
		assert_int_equal(out[5 * i + 2], (int64_t)(s / 7));
		assert_int_equal(out[5 * i + 3], (int64_t)(s % 7));
		assert_int_equal(out[5 * i + 4], __builtin_popcountll(x[i]));
	}
	elf_unlink(img);
}

static void
test_host_symbol_table(void **state)
{
	static const char *const names[] = {
		"memcpy", "memset", "memmove", "memcmp", "sqrt", "sqrtf", "exp",
		"expf", "log", "logf", "sin", "sinf", "cos", "cosf", "pow", "powf",
		"fma", "fmaf", "tanh", "__divti3", "__udivti3", "__popcountdi2",
		"__stack_chk_fail", "acos", "truncf",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!elf_host_symbol(names[i]))
			fail_msg("the host gives objects no %s", names[i]);
	assert_ptr_equal(elf_host_symbol("memcpy"), (void *)memcpy);
	assert_ptr_equal(elf_host_symbol("sin"), (void *)sin);
	assert_null(elf_host_symbol("printf"));
	assert_null(elf_host_symbol("malloc"));
	assert_null(elf_host_symbol(""));
}

static void
test_memory_functions(void **state)
{
	struct elf_image *img = link_ok("mem");
	enum { G = 9, B = 4096 };
	static unsigned char src[G * B], dst[G * B];
	struct mem_params p = { dst, src, B };
	int i;

	for (i = 0; i < G * B; i++)
		src[i] = (unsigned char)(i * 7 + 3);
	fn(img, "mem_copy")(&p, 0, G);
	assert_memory_equal(dst, src, sizeof(src));
	memset(dst, 0, sizeof(dst));
	fn(img, "mem_struct")(&p, 0, G);
	assert_memory_equal(dst, src, sizeof(src));
	fn(img, "mem_set")(&p, 0, G);
	for (i = 0; i < G * B; i++)
		assert_int_equal(dst[i], i / B);
	for (i = 0; i < G * B; i++)
		dst[i] = (unsigned char)i;
	fn(img, "mem_move")(&p, 0, G);
	for (i = 0; i < G * B; i++)
		assert_int_equal(dst[i], (unsigned char)(i % B == 0 ? i : i - 1));
	elf_unlink(img);
}

/* The permissions of the mapping holding addr, from /proc/self/maps. */
static void
perms_of(const void *addr, char perms[5])
{
	unsigned long lo, hi;
	char line[512], p[5];
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	strcpy(perms, "none");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 &&
		    (uintptr_t)addr >= lo && (uintptr_t)addr < hi)
			memcpy(perms, p, 5);
	fclose(f);
}

static void
test_data_relocations(void **state)
{
	struct elf_image *img = link_ok("data");
	int64_t (*counter)(void) = (int64_t (*)(void))elf_symbol(img, "data_counter");
	int64_t (*common)(void) = (int64_t (*)(void))elf_symbol(img, "data_common");
	void *(*host_memcpy)(void) = (void *(*)(void))elf_symbol(img, "data_host_memcpy");
	int (*weak_absent)(void) = (int (*)(void))elf_symbol(img, "data_weak_is_absent");
	static const int64_t table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };
	int64_t out[50], g, sum = 0;
	struct data_params p = { out };

	assert_non_null(counter);
	assert_non_null(common);
	fn(img, "data")(&p, 0, 50);
	for (g = 0; g < 50; g++) {
		int64_t op = g % 3 == 0 ? 2 * g : g % 3 == 1 ? g * g : -g;
		int64_t k = g % 7;
		int64_t pick = k == 0 ? g + 1 : k == 1 ? g * 3 : k == 2 ? g - 7 :
			       k == 3 ? (g ^ 5) : k == 4 ? g * g : k == 5 ? 11 : -1;

		assert_int_equal(out[g], table[g & 7] + op + pick);
		sum += g;
	}
	assert_int_equal(counter(), 150);
	assert_int_equal(common(), sum);
	assert_ptr_equal(host_memcpy(), (void *)memcpy);
	assert_int_equal(weak_absent(), 1);
	elf_unlink(img);
}

static void
test_memory_is_w_xor_x(void **state)
{
	struct elf_image *img = link_ok("data");
	const void *(*table)(void) = (const void *(*)(void))elf_symbol(img, "data_table");
	int64_t *(*counter)(void) = (int64_t *(*)(void))elf_symbol(img, "data_counter_address");
	char perms[5];

	perms_of((void *)table, perms);
	assert_string_equal(perms, "r-xp");
	perms_of(table(), perms);
	assert_string_equal(perms, "r--p");
	perms_of(counter(), perms);
	assert_string_equal(perms, "rw-p");
	elf_unlink(img);
}

static void
test_symbols(void **state)
{
	struct elf_image *img = link_ok("data");

	assert_null(elf_symbol(img, "no_such_function"));
	assert_null(elf_symbol(img, "pick"));		/* local */
	assert_null(elf_symbol(img, "counter"));	/* an object, not a function */
	assert_null(elf_symbol(img, ""));
	assert_null(elf_symbol(NULL, "data"));
	assert_non_null(elf_symbol(img, "data"));
	elf_unlink(img);
	elf_unlink(NULL);
}

static void
test_images_are_independent(void **state)
{
	struct elf_image *a = link_ok("data"), *b = link_ok("data");
	int64_t (*ca)(void) = (int64_t (*)(void))elf_symbol(a, "data_counter");
	int64_t (*cb)(void) = (int64_t (*)(void))elf_symbol(b, "data_counter");
	int64_t out[4];
	struct data_params p = { out };

	fn(a, "data")(&p, 0, 4);
	assert_int_equal(ca(), 104);
	assert_int_equal(cb(), 100);
	elf_unlink(a);
	elf_unlink(b);
}

/* ---- Refusals ---------------------------------------------------------- */

/* A kernel's bytes to patch, and where its headers lie. */
struct obj {
	unsigned char *b;
	size_t len;
};

static struct obj
obj_read(const char *name)
{
	struct obj o;

	o.b = kernel_read(name, &o.len);
	return o;
}

static Elf64_Ehdr *
ehdr(struct obj *o)
{
	return (Elf64_Ehdr *)o->b;
}

static Elf64_Shdr *
shdr(struct obj *o, size_t i)
{
	return (Elf64_Shdr *)(o->b + ehdr(o)->e_shoff) + i;
}

static size_t
section(struct obj *o, const char *name)
{
	const char *names = (const char *)o->b + shdr(o, ehdr(o)->e_shstrndx)->sh_offset;
	size_t i;

	for (i = 1; i < ehdr(o)->e_shnum; i++)
		if (strcmp(names + shdr(o, i)->sh_name, name) == 0)
			return i;
	fail_msg("no section %s", name);
	return 0;
}

static size_t
section_of_type(struct obj *o, unsigned type)
{
	size_t i;

	for (i = 1; i < ehdr(o)->e_shnum; i++)
		if (shdr(o, i)->sh_type == type)
			return i;
	fail_msg("no section of type %u", type);
	return 0;
}

static Elf64_Sym *
symbol(struct obj *o, const char *name)
{
	Elf64_Shdr *st = shdr(o, section_of_type(o, SHT_SYMTAB));
	const char *names = (const char *)o->b + shdr(o, st->sh_link)->sh_offset;
	Elf64_Sym *s = (Elf64_Sym *)(o->b + st->sh_offset);
	size_t i;

	for (i = 0; i < st->sh_size / sizeof(*s); i++)
		if (strcmp(names + s[i].st_name, name) == 0)
			return &s[i];
	fail_msg("no symbol %s", name);
	return NULL;
}

/* The first relocation of .rela.text of type type. */
static Elf64_Rela *
rela(struct obj *o, unsigned type)
{
	Elf64_Shdr *rs = shdr(o, section(o, ".rela.text"));
	Elf64_Rela *r = (Elf64_Rela *)(o->b + rs->sh_offset);
	size_t i;

	for (i = 0; i < rs->sh_size / sizeof(*r); i++)
		if (ELF64_R_TYPE(r[i].r_info) == type)
			return &r[i];
	fail_msg("no relocation of type %u", type);
	return NULL;
}

static void
test_truncated_at_every_length(void **state)
{
	static const char *const names[] = { "add", "math", "mem", "data", "empty", "groups", "wide" };
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct obj o = obj_read(names[i]);

		for (n = 0; n < o.len; n++) {
			/* A copy of exactly n bytes, so ASan sees any read past it. */
			unsigned char *b = malloc(n ? n : 1);

			memcpy(b, o.b, n);
			refused(b, n, "truncated");
			free(b);
		}
		free(o.b);
	}
}

static void
test_truncated_at_header_boundaries(void **state)
{
	struct obj o = obj_read("add");
	size_t shoff = ehdr(&o)->e_shoff;

	refused(o.b, 0, "truncated: 0 bytes, shorter than the 16-byte ELF identification");
	refused(o.b, 4, "truncated: 4 bytes, shorter than the 16-byte ELF identification");
	refused(o.b, 16, "truncated: 16 bytes, shorter than the 64-byte ELF header");
	refused(o.b, 63, "shorter than the 64-byte ELF header");
	refused(o.b, 64, "truncated: the section headers end at byte");
	refused(o.b, shoff, "truncated: the section headers end at byte");
	refused(o.b, shoff + sizeof(Elf64_Shdr), "truncated: the section headers end at byte");
	refused(o.b, o.len - 1, "truncated: the section headers end at byte");
	free(o.b);
}

static void
test_truncated_section(void **state)
{
	struct obj o = obj_read("add");

	shdr(&o, section(&o, ".text"))->sh_size = o.len;
	refused(o.b, o.len, "truncated: section");
	free(o.b);
	o = obj_read("add");
	shdr(&o, section(&o, ".text"))->sh_offset = o.len + 1;
	refused(o.b, o.len, "truncated: section");
	free(o.b);
	o = obj_read("add");
	ehdr(&o)->e_shoff = o.len;
	refused(o.b, o.len, "truncated: the section headers end at byte");
	free(o.b);
}

static void
test_not_elf(void **state)
{
	static const unsigned char text[] = "hello, this is not an object at all, just text";
	struct obj o = obj_read("add");

	refused(text, sizeof(text), "not an ELF object");
	refused(text, 2, "not an ELF object");
	o.b[EI_CLASS] = ELFCLASS32;
	refused(o.b, o.len, "wrong class: EI_CLASS 1 (ELFCLASS32), expected ELFCLASS64");
	o.b[EI_CLASS] = ELFCLASS64;
	o.b[EI_DATA] = ELFDATA2MSB;
	refused(o.b, o.len, "wrong byte order");
	o.b[EI_DATA] = ELFDATA2LSB;
	o.b[EI_VERSION] = 9;
	refused(o.b, o.len, "unknown ELF version 9");
	o.b[EI_VERSION] = EV_CURRENT;
	ehdr(&o)->e_type = ET_EXEC;
	refused(o.b, o.len, "not a relocatable object: e_type 2");
	ehdr(&o)->e_type = ET_DYN;
	refused(o.b, o.len, "ET_DYN, a shared object");
	ehdr(&o)->e_type = ET_REL;
	ehdr(&o)->e_machine = ELF_HOST_MACHINE_OTHER;
	refused(o.b, o.len, "wrong machine: e_machine " ELF_HOST_MACHINE_OTHER_TEXT);
	free(o.b);
}

static void
test_bad_section_headers(void **state)
{
	struct obj o = obj_read("add");

	ehdr(&o)->e_shentsize = 40;
	refused(o.b, o.len, "section header size 40, expected 64");
	free(o.b);
	o = obj_read("add");
	ehdr(&o)->e_shnum = 0;
	refused(o.b, o.len, "extended section numbering");
	ehdr(&o)->e_shoff = 0;
	refused(o.b, o.len, "no section headers");
	free(o.b);
}

static void
test_bad_section_indices(void **state)
{
	struct obj o = obj_read("add");
	uint16_t shnum = ehdr(&o)->e_shnum;
	size_t symtab = section_of_type(&o, SHT_SYMTAB);
	size_t rt, text = section(&o, ".text");

	ehdr(&o)->e_shstrndx = shnum;
	refused(o.b, o.len, "bad section index: e_shstrndx");
	ehdr(&o)->e_shstrndx = (uint16_t)text;
	refused(o.b, o.len, "bad section index: section names' table names section");
	free(o.b);

	o = obj_read("add");
	shdr(&o, symtab)->sh_link = shnum + 3;
	refused(o.b, o.len, "bad section index: symbol table");
	shdr(&o, symtab)->sh_link = (uint32_t)section(&o, ".text");
	refused(o.b, o.len, "bad section index: symbol names' table names section");
	free(o.b);

	o = obj_read("add");
	symbol(&o, "add")->st_shndx = shnum + 1;
	refused(o.b, o.len, "bad section index: symbol");
	free(o.b);

	o = obj_read("data");
	rt = section(&o, ".rela.text");
	shdr(&o, rt)->sh_info = ehdr(&o)->e_shnum;
	refused(o.b, o.len, "bad section index: relocation section");
	shdr(&o, rt)->sh_info = (uint32_t)section(&o, ".text");
	shdr(&o, rt)->sh_link = (uint32_t)section(&o, ".text");
	refused(o.b, o.len, "not the symbol table");
	free(o.b);

	o = obj_read("mem");
	rela(&o, R_X86_64_PLT32)->r_info = ELF64_R_INFO(100000, R_X86_64_PLT32);
	refused(o.b, o.len, "bad symbol index: relocation");
	free(o.b);
}

static void
test_bad_tables(void **state)
{
	struct obj o = obj_read("add");
	size_t symtab = section_of_type(&o, SHT_SYMTAB);
	Elf64_Shdr *names = shdr(&o, ehdr(&o)->e_shstrndx);

	o.b[names->sh_offset + names->sh_size - 1] = 'x';
	refused(o.b, o.len, "does not end in NUL");
	free(o.b);
	o = obj_read("add");
	shdr(&o, symtab)->sh_entsize = 16;
	refused(o.b, o.len, "symbol entries of 16 bytes");
	free(o.b);
	o = obj_read("add");
	symbol(&o, "add")->st_name = 1u << 30;
	refused(o.b, o.len, "name offset");
	free(o.b);
	o = obj_read("add");
	shdr(&o, section(&o, ".text"))->sh_name = 1u << 30;
	refused(o.b, o.len, "name offset");
	free(o.b);
	o = obj_read("add");
	shdr(&o, section(&o, ".text"))->sh_addralign = 24;
	refused(o.b, o.len, "alignment 24 is not a power of two");
	shdr(&o, section(&o, ".text"))->sh_addralign = 1u << 16;
	refused(o.b, o.len, "exceeds a page");
	free(o.b);
	o = obj_read("add");
	symbol(&o, "add")->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_GNU_IFUNC);
	refused(o.b, o.len, "('add') is an indirect function (STT_GNU_IFUNC)");
	free(o.b);
	o = obj_read("add");
	symbol(&o, "add")->st_value = 1u << 20;
	refused(o.b, o.len, "symbol");
	refused(o.b, o.len, "('add') lies outside its section");
	free(o.b);
}

static void
test_thread_local_storage_refused(void **state)
{
	struct obj o = obj_read("data");

	shdr(&o, section(&o, ".data"))->sh_flags |= SHF_TLS;
	refused(o.b, o.len, "('.data') holds thread-local storage");
	free(o.b);
}

static void
test_undefined_symbol(void **state)
{
	struct obj o = obj_read("undefined");

	refused(o.b, o.len, "undefined symbol 'missing_function': a host kernel may call only");
	free(o.b);
}

static void
test_unsupported_relocations(void **state)
{
	struct obj o = obj_read("mem");
	Elf64_Rela *r = rela(&o, R_X86_64_PLT32);
	size_t sym = ELF64_R_SYM(r->r_info);

	r->r_info = ELF64_R_INFO(sym, R_X86_64_SIZE32);
	refused(o.b, o.len, "unsupported relocation R_X86_64_SIZE32 (type 32) at .text+0x");
	refused(o.b, o.len, ": compile with -fPIC");
	r->r_info = ELF64_R_INFO(sym, 200);
	refused(o.b, o.len, "unsupported relocation unknown (type 200)");
	r->r_info = ELF64_R_INFO(sym, R_X86_64_TPOFF32);
	refused(o.b, o.len, "R_X86_64_TPOFF32 (type 23)");
	refused(o.b, o.len, "thread-local storage, which host kernels cannot use");
	free(o.b);

	o = obj_read("data");
	shdr(&o, section(&o, ".rela.text"))->sh_type = SHT_REL;
	refused(o.b, o.len, "SHT_REL relocations are unsupported");
	free(o.b);
}

static void
test_relocation_overflow(void **state)
{
	struct obj o = obj_read("data");
	Elf64_Rela *r = rela(&o, R_X86_64_PC32);

	r->r_addend += (int64_t)1 << 33;
	refused(o.b, o.len, "relocation R_X86_64_PC32 (type 2) at .text+0x");
	refused(o.b, o.len, "overflows: value 0x");
	free(o.b);

	/* An absolute 32-bit reference 8 GiB past the image, which no
	 * mapping below 2 GiB reaches: the non-PIC advice. */
	o = obj_read("data");
	r = rela(&o, R_X86_64_PC32);
	r->r_info = ELF64_R_INFO(ELF64_R_SYM(r->r_info), R_X86_64_32);
	r->r_addend += (int64_t)1 << 33;
	refused(o.b, o.len, "relocation R_X86_64_32 (type 10)");
	refused(o.b, o.len, "compiled without -fPIC, and its 32-bit absolute addresses do not reach; compile it with -fPIC");
	free(o.b);

	o = obj_read("data");
	r = rela(&o, R_X86_64_PC32);
	r->r_offset = shdr(&o, section(&o, ".text"))->sh_size - 2;
	refused(o.b, o.len, "lies past the end of its section");
	free(o.b);
}

static void
test_huge_bss_refused(void **state)
{
	struct obj o = obj_read("data");

	symbol(&o, "common_value")->st_size = (uint64_t)1 << 40;
	refused(o.b, o.len, "more than the");
	free(o.b);
	o = obj_read("add");
	shdr(&o, section(&o, ".text"))->sh_type = SHT_NOBITS;
	shdr(&o, section(&o, ".text"))->sh_size = (uint64_t)1 << 40;
	refused(o.b, o.len, "more than the");
	free(o.b);
}

/* Random corruption of real objects: refused or linked, never a crash. */
static void
test_random_corruption(void **state)
{
	static const char *const names[] = { "add", "math", "mem", "data", "groups" };
	unsigned seed = 12345;
	size_t i, k, linked = 0;

	for (i = 0; i < 4000; i++) {
		struct obj o = obj_read(names[i % 5]);
		struct elf_image *img = NULL;
		char why[ELF_WHY_BYTES];

		for (k = 0; k < 1 + i % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			o.b[(seed >> 8) % o.len] ^= (unsigned char)(1u << (seed % 8));
		}
		if (elf_link(o.b, o.len, &img, why, sizeof(why)) == 0) {
			linked++;
			elf_unlink(img);
		} else {
			assert_null(img);
			assert_true(why[0] != '\0');
		}
		free(o.b);
	}
	assert_true(linked > 0);	/* flips in padding or code still link */
}

/* ---- aarch64 relocations, checked as instruction encodings ------------ */

static uint32_t
a64(unsigned type, uint32_t insn, uint64_t P, uint64_t S, uint64_t stub,
    enum elf_reloc_status want)
{
	unsigned char w[4];
	struct elf_reloc r = { .where = w, .P = P, .S = S, .G = S, .stub = stub };
	int64_t v;

	memcpy(w, &insn, 4);
	assert_int_equal(elf_reloc_apply(EM_AARCH64, type, &r, &v), want);
	memcpy(&insn, w, 4);
	return insn;
}

static void
test_aarch64_encodings(void **state)
{
	/* adrp x0, page: 4 pages up. */
	assert_int_equal(a64(R_AARCH64_ADR_PREL_PG_HI21, 0x90000000, 0x1000, 0x5008, 0, ELF_RELOC_OK), 0x90000020);
	assert_int_equal(a64(R_AARCH64_ADR_PREL_PG_HI21, 0x90000000, 0x5000, 0x4000, 0, ELF_RELOC_OK), 0xf0ffffe0);
	assert_int_equal(a64(R_AARCH64_ADR_GOT_PAGE, 0x90000000, 0x1000, 0x5008, 0, ELF_RELOC_OK), 0x90000020);
	/* add x0, x0, #lo12; ldr x0, [x0, #lo12]. */
	assert_int_equal(a64(R_AARCH64_ADD_ABS_LO12_NC, 0x91000000, 0, 0x1234, 0, ELF_RELOC_OK), 0x9108d000);
	assert_int_equal(a64(R_AARCH64_LDST64_ABS_LO12_NC, 0xf9400000, 0, 0x1238, 0, ELF_RELOC_OK), 0xf9411c00);
	a64(R_AARCH64_LDST64_ABS_LO12_NC, 0xf9400000, 0, 0x1234, 0, ELF_RELOC_MISALIGNED);
	/* bl: in reach, out of reach, and out of reach through a stub. */
	assert_int_equal(a64(R_AARCH64_CALL26, 0x94000000, 0x1000, 0x2000, 0, ELF_RELOC_OK), 0x94000400);
	a64(R_AARCH64_CALL26, 0x94000000, 0x1000, (uint64_t)1 << 40, 0, ELF_RELOC_OVERFLOW);
	assert_int_equal(a64(R_AARCH64_CALL26, 0x94000000, 0x1000, (uint64_t)1 << 40, 0x1010, ELF_RELOC_OK), 0x94000004);
	a64(R_AARCH64_MOVW_UABS_G0, 0xd2800000, 0, 0, 0, ELF_RELOC_UNSUPPORTED);
	assert_string_equal(elf_reloc_name(EM_AARCH64, R_AARCH64_CALL26), "R_AARCH64_CALL26");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_runs),
		cmocka_unit_test(test_math_matches_libm),
		cmocka_unit_test(test_memory_functions),
		cmocka_unit_test(test_libgcc_helpers),
		cmocka_unit_test(test_host_symbol_table),
		cmocka_unit_test(test_data_relocations),
		cmocka_unit_test(test_memory_is_w_xor_x),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_images_are_independent),
		cmocka_unit_test(test_truncated_at_every_length),
		cmocka_unit_test(test_truncated_at_header_boundaries),
		cmocka_unit_test(test_truncated_section),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_bad_section_headers),
		cmocka_unit_test(test_bad_section_indices),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_thread_local_storage_refused),
		cmocka_unit_test(test_undefined_symbol),
		cmocka_unit_test(test_unsupported_relocations),
		cmocka_unit_test(test_relocation_overflow),
		cmocka_unit_test(test_huge_bss_refused),
		cmocka_unit_test(test_random_corruption),
		cmocka_unit_test(test_aarch64_encodings),
	};

	return cmocka_run_group_tests_name("test_elf", tests, NULL, NULL);
}
