/* SPDX-License-Identifier: MIT */
/*
 * bench/amd_open.c: how long rig_open() of the AMD path takes on rig's
 * software GPU, for information (issue 18; no target: the sim's firmware
 * answers at once, where a real PSP and SMU take milliseconds, so these
 * are rig's own share of a boot plus the sim's checks of every image).
 *
 *   open_partial  a GPU a clean session left (its mark, SCRATCH_REG6 0):
 *                 the partial boot, no firmware unit.
 *   open_full     a GPU just power-cycled (no firmware runs, bootloader
 *                 ready): the full boot, the sOS's components and every
 *                 LOAD_IP_FW, which the sim compares byte for byte with
 *                 the pinned images.
 *   open_dirty    a GPU whose last session did not end clean (SCRATCH_REG6
 *                 1, as a killed process leaves it): the mode-1 reset
 *                 through the SMU, with its fixed 500 ms wait (amd-facts
 *                 §3.9), then the full boot.
 *
 * Each sample is rig_open() alone (bench_per_op_self): the close before
 * it and the power cycle or mark before the next are not timed. The sim's
 * GC is RIG_AMD_SIM's, else 12.0.1 (the R9700); its images come from
 * RIG_TEST_FIRMWARE. Without them the program exits 77 (skipped). The
 * sim's engines are threads of this process, on this machine's cores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "rig.h"
#include "rig_amd_pci.h"
#include "amd/sim/priv.h"

enum how { PARTIAL, FULL, DIRTY };

struct gpu {
	struct amd_sim *sim;
	struct rig_opener *o;
	enum how how;
};

static const struct bench *prog;

/* The GPU as how says, then its open timed, then its close. */
static int
open_once(void *arg, uint64_t *ns)
{
	struct gpu *g = arg;
	struct rig_device *d;
	uint64_t t0;
	int ret;

	if (g->how == FULL && amd_sim_inject(g->sim, AMD_SIM_POWER_CYCLE, 0, true) < 0)
		return -1;
	if (g->how == DIRTY && amd_sim_reg_write(g->sim, g->sim->lay.scratch6, 1) < 0)
		return -1;
	t0 = bench_now_ns();
	ret = rig_open(g->o, &d);
	*ns = bench_now_ns() - t0;
	if (ret < 0) {
		bench_note(prog, "rig_open: %s", rig_why());
		return ret;
	}
	ret = rig_close(d);
	rig_device_release(d);
	if (ret < 0)
		bench_note(prog, "rig_close: %s", rig_why());
	return ret;
}

int
main(int argc, char **argv)
{
	static const char *const names[] = { "open_partial", "open_full", "open_dirty" };
	const char *fw = getenv("RIG_TEST_FIRMWARE"), *gc = getenv("RIG_AMD_SIM");
	const char *tmp = getenv("TMPDIR"), *dirs[2] = { fw, NULL };
	struct amd_sim_opts o = { .mark = AMD_SIM_CLEAN_MARK, .firmware = fw };
	struct gpu g = { 0 };
	char root[256], impl[32];
	struct bench b;
	int ret = 0;

	bench_init(&b, "amd_open", argc, argv);
	prog = &b;
	if (!fw) {
		bench_note(&b, "skipped: RIG_TEST_FIRMWARE names no images' folder");
		return BENCH_SKIP;
	}
	o.gc = gc && gc[0] ? gc : "12.0.1";
	snprintf(root, sizeof(root), "%s/rig-amd-open-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		bench_note(&b, "no folder for the sim's tree: %s", root);
		return 1;
	}
	o.root = root;
	if (amd_sim_create(&o, &g.sim) < 0 ||
	    rig_amd_pci_gpu(amd_sim_machine(g.sim), dirs, 0, &g.o) < 0) {
		bench_note(&b, "the software GPU %s: %s", o.gc, rig_why());
		ret = -1;
	}
	snprintf(impl, sizeof(impl), "rig-amd-sim-%s", o.gc);
	for (int h = PARTIAL; h <= DIRTY && ret == 0; h++) {
		g.how = (enum how)h;
		ret = bench_per_op_self(&b, names[h], impl, BENCH_RIG, open_once, &g,
					bench_count(&b, h == DIRTY ? 3 : 10, 2));
	}
	rig_amd_pci_opener_free(g.o);
	amd_sim_destroy(g.sim);
	amd_sim_tree_remove(root);
	return ret == 0 ? 0 : 1;
}
