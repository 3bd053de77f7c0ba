/* SPDX-License-Identifier: MIT */
/*
 * 01-add: a vector add on the first GPU that opens, else on the host's
 * cores. The only lines that name a device are the openers and the choice
 * of the kernel's object; the rest is the same on any device: buffers, an
 * image, a submission made once, a run, a submit, a wait.
 *
 * With RIG_AMD_SIM set (RIG_AMD_SIM=11.0.0 ./01-add), GPU 0 is rig's
 * software GPU of that GC version (README.md here): the AMD path runs end
 * to end over 1 Mi floats, on add-sim.co, a code object whose code is the software GPU's
 * marker for its add kernel. No add kernel for a real AMD GPU is shipped
 * yet, so on a real one the example uses the host's cores.
 *
 * Usage: 01-add [OBJECT] (default: the add.o or add-sim.co the build made).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "rig_amd_pci.h"

/* The kernel's object: the path the build gives (meson, or this folder's
 * Makefile), else add.o in the working directory. */
#ifndef ADD_OBJECT
#define ADD_OBJECT "add.o"
#endif
#ifndef ADD_SIM_OBJECT
#define ADD_SIM_OBJECT "add-sim.co"
#endif

#define N (16 << 20)
/* The software GPU runs its kernels on one host thread, with a page walk
 * per 4 KiB: 1 Mi floats keep its add well inside the device's hang_ms. */
#define N_SIM (1 << 20)
#define PER_GROUP 4096

static void *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *bytes = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (bytes = malloc((size_t)n)) &&
	    fread(bytes, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(bytes);
		bytes = NULL;
	}
	fclose(f);
	return bytes;
}

/* The first AMD GPU that opens, else the host's cores; *object is the
 * kernel's object for it. */
static int
open_device(struct rig_device **d, const char **object)
{
	struct rig_opener *gpu;

	if (rig_amd_pci_gpu(rig_pci_machine_this(), NULL, 0, &gpu) == 0) {
		int ret = rig_open(gpu, d);

		rig_amd_pci_opener_free(gpu);
		if (ret == 0 && getenv("RIG_AMD_SIM")) {
			*object = ADD_SIM_OBJECT;
			return 0;
		}
		if (ret == 0) {
			printf("%s opens, but this example has no add kernel for a real "
			       "AMD GPU yet; using the host's cores\n", rig_name(*d));
			rig_close(*d);
			rig_device_release(*d);
			*object = ADD_OBJECT;
			return rig_host_device(d);
		}
	}
	printf("no GPU opens (%s); using the host's cores\n", rig_why());
	*object = ADD_OBJECT;
	return rig_host_device(d);
}

#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "01-add: %s\n", rig_why()); return 1; } } while (0)

int
main(int argc, char **argv)
{
	const char *path = NULL;
	struct rig_device *d;
	struct rig_buffer *a, *b, *c;
	struct rig_image *img;
	struct rig_function *add;
	struct rig_submission *s;
	struct rig_run *run;
	struct rig_point p;
	struct rig_ref refs[] = { RIG_READ(0, 0), RIG_READ(1, 8), RIG_WRITE(2, 16) };
	struct rig_part_spec part;
	float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
	int64_t params[4] = { 0, 0, 0, N };
	uint32_t grid[3] = { 0, 1, 1 }, group[3] = { 1, 1, 1 };
	int n = N;
	size_t len = 0, wrong = 0;
	void *object;
	uint64_t t0, t1;

	if (!x || !y)
		return 1;
	for (int i = 0; i < N; i++) {
		x[i] = (float)i;
		y[i] = 0.5f * (float)i;
	}
	TRY(open_device(&d, &path));
	if (strcmp(path, ADD_SIM_OBJECT) == 0)
		n = N_SIM;
	if (argc > 1)
		path = argv[1];
	params[3] = n;
	grid[0] = (uint32_t)((n + PER_GROUP - 1) / PER_GROUP);
	printf("device %s (%s)\n", rig_name(d), rig_arch(d));
	if (!(object = read_file(path, &len))) {
		fprintf(stderr, "01-add: cannot read %s\n", path);
		rig_device_release(d);
		free(x);
		free(y);
		return 1;
	}
	TRY(rig_buffer_create(d, (size_t)n * sizeof(float), RIG_MEMORY_DEVICE, &a));
	TRY(rig_buffer_create(d, (size_t)n * sizeof(float), RIG_MEMORY_DEVICE, &b));
	TRY(rig_buffer_create(d, (size_t)n * sizeof(float), RIG_MEMORY_DEVICE, &c));
	TRY(rig_buffer_write(a, 0, x, (size_t)n * sizeof(float)));
	TRY(rig_buffer_write(b, 0, y, (size_t)n * sizeof(float)));
	TRY(rig_image_load(d, object, len, &img));
	TRY(rig_image_function(img, "add", &add));
	part = rig_part_launch(add, sizeof(params), refs, 3);
	TRY(rig_submission_make(d, &part, 1, NULL, 0, (struct rig_keep){ 0 }, &s));

	t0 = rig_now_ns();
	TRY(rig_run_take(s, &run));
	TRY(rig_run_store(run, 0, grid, group, params, sizeof(params)));
	TRY(rig_submit(run, (struct rig_buffer *[]){ a, b, c }, 3, NULL, 0, &p));
	TRY(rig_wait(p, 60ull * 1000000000));
	t1 = rig_now_ns();

	TRY(rig_buffer_read(c, 0, x, (size_t)n * sizeof(float)));
	for (int i = 0; i < n; i++)
		wrong += x[i] != 1.5f * (float)i;
	printf("added %d floats in %.2f ms (%.1f GB/s): %s\n", n, (double)(t1 - t0) / 1e6,
	       3.0 * n * sizeof(float) / (double)(t1 - t0),
	       wrong ? "WRONG" : "every sum is right");

	rig_submission_release(s);
	rig_image_release(img);
	rig_buffer_release(a);
	rig_buffer_release(b);
	rig_buffer_release(c);
	rig_device_release(d);
	free(object);
	free(x);
	free(y);
	return wrong != 0;
}
