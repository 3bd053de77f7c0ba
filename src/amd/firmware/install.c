/* SPDX-License-Identifier: MIT */
/*
 * amd/firmware/install.c: `rig firmware amd`. Copies every pinned image
 * from the source directories into rig's firmware directory, verifying the
 * digest of the source and of the copy; a copy is written to a temporary
 * file and renamed, so the directory never holds a partial image.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/amd.h"
#include "amd/firmware/firmware.h"
#include "rig_amd_pci.h"

static const char *const default_from[] = {
	"/lib/firmware/amdgpu", "/usr/lib/firmware/amdgpu", NULL,
};

/* mkdir -p */
static int
make_dirs(const char *dir)
{
	char path[256];
	size_t len = strlen(dir);

	if (len >= sizeof(path))
		return amd_fail(-EINVAL, "%s is too long", dir);
	memcpy(path, dir, len + 1);
	for (char *p = path + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				return amd_fail(-errno, "cannot make %s: %s", path,
						strerror(errno));
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

static int
write_copy(const char *to, const struct amd_pin *pin,
	   const struct amd_found *src)
{
	char tmp[512], dst[512];
	struct amd_search only = { .ndirs = 1 };
	struct amd_found check;
	size_t put = 0;
	int fd, ret = 0;

	snprintf(tmp, sizeof(tmp), "%s/.%s.part", to, pin->name);
	snprintf(dst, sizeof(dst), "%s/%s", to, pin->name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return amd_fail(-errno, "cannot create %s: %s", tmp, strerror(errno));
	while (put < src->len && ret == 0) {
		ssize_t n = write(fd, src->bytes + put, src->len - put);

		if (n < 0)
			ret = -errno;
		else
			put += (size_t)n;
	}
	if (ret == 0 && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(tmp, dst) < 0)
		ret = -errno;
	if (ret < 0) {
		unlink(tmp);
		return amd_fail(ret, "cannot write %s: %s", dst, strerror(-ret));
	}
	snprintf(only.dirs[0], sizeof(only.dirs[0]), "%s", to);
	ret = amd_fw_find(&only, pin, &check);
	if (ret < 0)
		return amd_fail(-EIO, "the copy %s does not have its digest", dst);
	free(check.bytes);
	return 0;
}

/* One image: 0 when in place, 1 when not, or a negative status. */
static int
install_one(const char *to, const struct amd_search *from,
	    const struct amd_pin *pin, FILE *report)
{
	struct amd_search here = { .ndirs = 1 };
	struct amd_found found;
	char dst[512];
	int ret;

	snprintf(here.dirs[0], sizeof(here.dirs[0]), "%s", to);
	if (amd_fw_find(&here, pin, &found) == 0) {
		free(found.bytes);
		if (report)
			fprintf(report, "present       %s\n", found.path);
		return 0;
	}
	ret = amd_fw_find(from, pin, &found);
	if (ret == -ENOENT) {
		const char *why = strstr(amd_why(), "another digest: ");

		if (report && why)
			fprintf(report, "other digest  %s: %s\n", pin->name, why + 16);
		else if (report)
			fprintf(report, "missing       %s\n", pin->name);
		return 1;
	}
	if (ret < 0)
		return ret;
	ret = write_copy(to, pin, &found);
	snprintf(dst, sizeof(dst), "%s", found.path);
	free(found.bytes);
	if (ret < 0)
		return ret;
	if (report)
		fprintf(report, "installed     %s/%s (from %s)\n", to, pin->name, dst);
	return 0;
}

int
rig_amd_firmware_install(const char *const *from, const char *to, FILE *report)
{
	struct amd_search src = { 0 };
	const struct amd_pin *pins;
	char dir[256];
	size_t n;
	int ret, missing = 0;

	if (!from)
		from = default_from;
	for (size_t i = 0; from[i]; i++) {
		if (src.ndirs == AMD_SEARCH_DIRS)
			return amd_fail(-EINVAL, "more than %d source directories",
					AMD_SEARCH_DIRS);
		if (strlen(from[i]) >= sizeof(src.dirs[0]))
			return amd_fail(-EINVAL, "source directory %s is too long",
					from[i]);
		snprintf(src.dirs[src.ndirs++], sizeof(src.dirs[0]), "%s", from[i]);
	}
	if (!to) {
		ret = rig_amd_firmware_directory(dir, sizeof(dir));
		if (ret < 0)
			return amd_rewrap(__func__, ret, "");
		to = dir;
	}
	ret = make_dirs(to);
	if (ret < 0)
		return amd_rewrap(__func__, ret, "");
	pins = amd_pins(&n);
	for (size_t i = 0; i < n; i++) {
		ret = install_one(to, &src, &pins[i], report);
		if (ret < 0)
			return amd_rewrap(__func__, ret, "");
		missing += ret;
	}
	return missing;
}
