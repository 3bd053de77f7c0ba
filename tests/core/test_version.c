/* SPDX-License-Identifier: MIT */
/*
 * test_version: rig_base.h's RIG_VERSION_MAJOR/MINOR/PATCH are meson's
 * project version (passed as MESON_VERSION), and rig_version() says the
 * same. Exit 0 on pass, 1 on failure.
 */
#include <stdio.h>
#include <string.h>

#include "rig.h"

int
main(void)
{
	char headers[64];

	snprintf(headers, sizeof(headers), "%d.%d.%d", RIG_VERSION_MAJOR,
		 RIG_VERSION_MINOR, RIG_VERSION_PATCH);
	if (strcmp(headers, MESON_VERSION) || strcmp(rig_version(), MESON_VERSION)) {
		printf("FAIL: meson's version %s, the headers' %s, rig_version() %s\n",
		       MESON_VERSION, headers, rig_version());
		return 1;
	}
	printf("ok: version %s in meson.build, rig_base.h and rig_version()\n",
	       rig_version());
	return 0;
}
