/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/env.c: the software GPU a program selects with the environment
 * variable RIG_AMD_SIM=<GC version> (docs/amd.md "Trying the path with no
 * GPU"), so that someone with no AMD GPU runs the AMD path end to end:
 * GPU 0 of this machine is then one sim of that GC, made at the first
 * open of the process, as a clean session of rig left it, with its sysfs
 * tree in a folder under $TMPDIR (else /tmp) that the process removes at
 * its exit. The sim lives until the process exits, so a later open finds
 * the GPU as the last close left it, as a real GPU would be. Its example
 * kernels (example.c) are registered at once. Only amd/open.c calls here.
 */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "amd/amd.h"
#include "amd/fail.h"
#include "amd/sim/sim.h"

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static struct amd_sim *env_sim;
static char env_root[256];

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);		/* best effort: what fails to go stays */
	return 0;
}

void
amd_sim_tree_remove(const char *root)
{
	if (root && root[0])
		nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static pid_t env_pid;		/* the process that made the sim */

/* At exit: the sim's engines may still run (a device open at exit), so
 * only its tree goes; the kernel takes its memory with the process. Not
 * at a forked child's exit: the tree is its parent's, whose GPU it is. */
static void
remove_tree(void)
{
	if (getpid() == env_pid)
		amd_sim_tree_remove(env_root);
}

const char *
amd_sim_env(void)
{
	const char *gc = getenv("RIG_AMD_SIM");

	return gc && gc[0] ? gc : NULL;
}

int
amd_sim_env_machine(const struct rig_pci_machine **out)
{
	const char *gc = amd_sim_env(), *tmp = getenv("TMPDIR");
	struct amd_sim_opts o = { .gc = gc, .mark = AMD_SIM_CLEAN_MARK };
	int ret = 0;

	if (!gc)
		return amd_fail(-EINVAL, "RIG_AMD_SIM is not set");
	if (!tmp || !tmp[0])
		tmp = "/tmp";
	pthread_mutex_lock(&env_lock);
	if (!env_sim) {
		if ((size_t)snprintf(env_root, sizeof(env_root), "%s/rig-amd-sim-XXXXXX",
				     tmp) >= 200) {
			env_root[0] = 0;
			ret = amd_fail(-ENAMETOOLONG, "RIG_AMD_SIM=%s: TMPDIR %s is too long "
				       "for the software GPU's tree (its folder must be under "
				       "200 bytes)", gc, tmp);
			goto out;
		}
		if (!mkdtemp(env_root)) {
			ret = amd_fail(-errno, "RIG_AMD_SIM=%s: no folder for the software "
				       "GPU's tree under %s: %s", gc, tmp, strerror(errno));
			env_root[0] = 0;
			goto out;
		}
		o.root = env_root;
		env_pid = getpid();
		ret = amd_sim_create(&o, &env_sim);
		if (ret == 0)
			ret = amd_sim_example_kernels(env_sim);
		if (ret < 0) {
			char cause[400];

			amd_cause_copy(cause, sizeof(cause));
			amd_sim_destroy(env_sim);
			env_sim = NULL;
			remove_tree();
			env_root[0] = 0;
			ret = amd_fail(ret, "RIG_AMD_SIM=%s: %s", gc, cause);
			goto out;
		}
		atexit(remove_tree);
	}
	*out = amd_sim_machine(env_sim);
out:
	pthread_mutex_unlock(&env_lock);
	return ret;
}
