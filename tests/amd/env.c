/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/env.c: the fixture of env.h. A helper that fails aborts.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "env.h"
#include "synth.h"

int
env_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

int
env_setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!e)
		abort();
	fake_root(e->root);
	snprintf(e->rigdir, sizeof(e->rigdir), "%s/rig-firmware", e->root);
	setenv("RIG_FIRMWARE_DIR", e->rigdir, 1);
	/* A bridge and a GPU's audio function are no GPUs. */
	fake_function(e->root, "0000:00:00.0", 0x8086, 0x0d57, 0x060000);
	fake_function(e->root, "0000:03:00.1", 0x1002, 0xab30, 0x040300);
	if (rig_pci_machine_at(e->root, &e->m) < 0)
		abort();
	e->fw[0] = getenv("RIG_TEST_FIRMWARE");
	*state = e;
	return 0;
}

int
env_teardown(void **state)
{
	struct env *e = *state;

	rig_pci_machine_release(e->m);
	fake_remove(e->root);
	free(e);
	return 0;
}

void
env_gpu(struct env *e, const char *gc, struct fake_gpu g)
{
	static struct synth s;

	synth_build(&s, gc, 0);
	g.bus = g.bus ? g.bus : BUS;
	if (!g.table) {
		g.table = s.b;
		g.table_len = s.len;
	}
	fake_gpu(e->root, &g);
}
