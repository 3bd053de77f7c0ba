/* SPDX-License-Identifier: MIT */
/*
 * profile/env.c: RIG_PROFILE=PATH in the environment, read once (at the
 * first open of a device or the first rig_profile_start()), takes a
 * profile of every device from then on, bounded by RIG_PROFILE_VALUES values per device (default 65536), and
 * writes it as trace-event JSON to PATH when the process exits; with
 * RIG_PROFILE_PLOT=PATH2 also a gnuplot script that draws it (plot.c).
 * `rig trace` sets both. The exit handler is registered after rig's own
 * (process_watch() first), so it runs first, while the devices live.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/device.h"
#include "profile/profile.h"

static struct rig_profile *env_profile;
static const char *env_path, *env_plot;

static void
write_at_exit(void)
{
	struct rig_profile *p = env_profile;

	if (!p)
		return;
	env_profile = NULL;
	rig_profile_stop(p);
	if (rig_profile_write(p, env_path) < 0)
		fprintf(stderr, "rig: RIG_PROFILE: %s\n", rig_why());
	if (env_plot && rig_profile_write_plot(p, env_plot) < 0)
		fprintf(stderr, "rig: RIG_PROFILE_PLOT: %s\n", rig_why());
	rig_profile_release(p);
}

static void
start_from_env(void)
{
	const char *values = getenv("RIG_PROFILE_VALUES");
	size_t n = values ? strtoull(values, NULL, 10) : 65536;

	env_path = getenv("RIG_PROFILE");
	env_plot = getenv("RIG_PROFILE_PLOT");
	if (!env_path || !env_path[0])
		return;
	process_watch();	/* rig's exit handler before ours: ours runs first */
	if (profile_start(NULL, 0, n ? n : 65536, &env_profile) < 0) {
		fprintf(stderr, "rig: RIG_PROFILE: %s\n", rig_why());
		return;
	}
	atexit(write_at_exit);
}

void
profile_env_once(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, start_from_env);
}
