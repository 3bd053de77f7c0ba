/* SPDX-License-Identifier: MIT */
/*
 * core/version.c: rig_version(), the version the library was built as:
 * rig_base.h's RIG_VERSION_* macros, which meson.build checks against its
 * project version when it configures.
 */
#include "rig.h"

#define VERSION_TEXT_(x)	#x
#define VERSION_TEXT(x)		VERSION_TEXT_(x)

const char *
rig_version(void)
{
	return VERSION_TEXT(RIG_VERSION_MAJOR) "." VERSION_TEXT(RIG_VERSION_MINOR)
		"." VERSION_TEXT(RIG_VERSION_PATCH);
}
