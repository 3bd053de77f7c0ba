/* SPDX-License-Identifier: MIT */
/*
 * tests/amd/env.h: the fixture of the opener and enumeration tests: a fake
 * machine holding a bridge and a GPU's audio function (no GPUs), rig's
 * firmware directory inside it, and the real images as the given folder.
 */
#ifndef TESTS_AMD_ENV_H
#define TESTS_AMD_ENV_H

#include "rig_amd_pci.h"
#include "fake.h"

#define BUS "0000:03:00.0"

struct env {
	char root[256];
	char rigdir[300];
	struct rig_pci_machine *m;
	const char *fw[2];	/* RIG_TEST_FIRMWARE, NULL */
};

/* cmocka setup and teardown: *state is a struct env. */
int env_setup(void **state);
int env_teardown(void **state);

/* A GPU of gc ("11.0.0", ...) with a valid table, at BUS unless g.bus. */
void env_gpu(struct env *e, const char *gc, struct fake_gpu g);

/* The open file descriptors of this process. */
int env_fds(void);

#endif
