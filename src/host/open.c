/* SPDX-License-Identifier: MIT */
/*
 * host/open.c: rig_host_open() (rig_host.h), a program's way to open a
 * host device of a name, a core set and a hang clock. It checks the
 * config, then opens it through rig_open() with an opener whose arg is
 * the config, which make (host.c) copies what it needs of. The one file
 * of src/host that calls rig's public API, as any program would: the
 * driver itself stays behind rig_edge.h.
 */
#include <errno.h>
#include <string.h>

#include "rig.h"
#include "rig_edge.h"
#include "rig_host.h"

#define HOST_MAX_NAME	31
#define HOST_MAX_CORES	4096u

int
rig_host_open(const struct rig_host_config *c, struct rig_device **out)
{
	struct rig_opener o;
	size_t i;

	if (!c)
		return rig_why_set(__func__, RIG_EINVAL, "the config is NULL");
	if (!out)
		return rig_why_set(__func__, RIG_EINVAL, "the out device is NULL");
	if (!c->name || !c->name[0])
		return rig_why_set(__func__, RIG_EINVAL, "the name is %s", c->name ? "empty" : "NULL");
	if (strlen(c->name) > HOST_MAX_NAME)
		return rig_why_set(__func__, RIG_EINVAL, "the name '%.40s...' is longer than %d bytes",
				   c->name, HOST_MAX_NAME);
	if (c->cpus && !c->ncpus)
		return rig_why_set(__func__, RIG_EINVAL, "%s: cpus is given with ncpus 0", c->name);
	if (!c->cpus && c->ncpus)
		return rig_why_set(__func__, RIG_EINVAL, "%s: ncpus is %zu but cpus is NULL",
				   c->name, c->ncpus);
	for (i = 0; c->cpus && i < c->ncpus; i++)
		if (c->cpus[i] < 0 || c->cpus[i] >= 1024)
			return rig_why_set(__func__, RIG_EINVAL, "%s: cpus[%zu] is %d, not a core number (0-1023)",
					   c->name, i, c->cpus[i]);
	if (c->cores > HOST_MAX_CORES)
		return rig_why_set(__func__, RIG_EINVAL, "%s: %u cores, more than %u",
				   c->name, c->cores, HOST_MAX_CORES);
	o = rig_host_opener;
	o.name = c->name;
	o.arg = (void *)c;
	return rig_open(&o, out);
}
