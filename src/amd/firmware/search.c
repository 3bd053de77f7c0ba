/* SPDX-License-Identifier: MIT */
/*
 * amd/firmware/search.c: finding a pinned image (docs/amd.md, Firmware): the
 * directories given, then rig's firmware directory, then root's home when
 * run as root, then /lib/firmware/amdgpu; the first directory holding the
 * image with its pinned digest wins. A file of the image's name with
 * another digest is passed over and named in the refusal.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <blake2.h>

#include "amd/fail.h"
#include "amd/firmware/firmware.h"
#include "rig_amd_pci.h"

#define RIG_FIRMWARE_SUBDIR "rig/firmware/amdgpu"

void
amd_digest_hex(const uint8_t *bytes, size_t len, char hex[65])
{
	uint8_t d[AMD_DIGEST_BYTES];

	/* libb2's one-shot order: out, in, key, outlen, inlen, keylen. */
	blake2b(d, bytes, NULL, sizeof(d), len, 0);
	for (int i = 0; i < AMD_DIGEST_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

int
rig_amd_firmware_directory(char *buf, size_t len)
{
	const char *env = getenv("RIG_FIRMWARE_DIR");
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	int n;

	if (!buf)
		return amd_fail(-EINVAL, "buf is NULL");
	if ((ptrdiff_t)len < 0)		/* snprintf would write past buf */
		return amd_fail(-EINVAL, "%td bytes is negative", (ptrdiff_t)len);
	if (env && env[0])
		n = snprintf(buf, len, "%s", env);
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/%s", xdg, RIG_FIRMWARE_SUBDIR);
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.local/share/%s", home,
			     RIG_FIRMWARE_SUBDIR);
	else
		return amd_fail(-EINVAL, "none of RIG_FIRMWARE_DIR, XDG_DATA_HOME "
				"and HOME is set");
	if (n < 0 || (size_t)n >= len)
		return amd_fail(-EINVAL, "the directory needs %d bytes, more than %zu",
				n, len);
	return 0;
}

static int
add_dir(struct amd_search *s, const char *fmt, const char *a, const char *b)
{
	int n;

	for (int i = 0; i < s->ndirs; i++) {
		char probe[256];

		snprintf(probe, sizeof(probe), fmt, a, b);
		if (!strcmp(probe, s->dirs[i]))
			return 0;	/* searched already */
	}
	if (s->ndirs == AMD_SEARCH_DIRS)
		return amd_fail(-EINVAL, "more than %d firmware directories",
				AMD_SEARCH_DIRS);
	n = snprintf(s->dirs[s->ndirs], sizeof(s->dirs[0]), fmt, a, b);
	if (n < 0 || (size_t)n >= sizeof(s->dirs[0]))
		return amd_fail(-EINVAL, "firmware directory %s%s is longer than %zu "
				"bytes", a, b, sizeof(s->dirs[0]) - 1);
	s->ndirs++;
	return 0;
}

int
amd_fw_search_dirs(const char *root, const char *const *given,
		   struct amd_search *out)
{
	char rig_dir[256];
	struct passwd *pw;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; given && given[i] && ret == 0; i++)
		ret = add_dir(out, "%s%s", given[i], "");
	if (ret == 0 && rig_amd_firmware_directory(rig_dir, sizeof(rig_dir)) == 0)
		ret = add_dir(out, "%s%s", rig_dir, "");
	if (ret == 0 && geteuid() == 0 && (pw = getpwuid(0)) && pw->pw_dir)
		ret = add_dir(out, "%s%s/.local/share/" RIG_FIRMWARE_SUBDIR, root,
			      pw->pw_dir);
	if (ret == 0)
		ret = add_dir(out, "%s%s", root, "/lib/firmware/amdgpu");
	return ret;
}

/* Reads path whole; -ENOENT for none. */
static int
read_whole(const char *path, uint8_t **bytes, size_t *len)
{
	struct stat st;
	uint8_t *b;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOENT;
	}
	b = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, b + got, (size_t)st.st_size - got);

		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	if (ret < 0) {
		free(b);
		return ret;
	}
	*bytes = b;
	*len = got;
	return 0;
}

int
amd_fw_find(const struct amd_search *s, const struct amd_pin *pin,
	    struct amd_found *out)
{
	char others[640] = "", searched[1024] = "", hex[65];
	size_t olen = 0, slen = 0;

	for (int i = 0; i < s->ndirs; i++) {
		char path[512];
		uint8_t *b = NULL;
		size_t len = 0;
		int ret;

		slen += (size_t)snprintf(searched + slen, sizeof(searched) - slen,
					 "%s%s", i ? ", " : "", s->dirs[i]);
		slen = slen < sizeof(searched) ? slen : sizeof(searched) - 1;
		snprintf(path, sizeof(path), "%s/%s", s->dirs[i], pin->name);
		ret = read_whole(path, &b, &len);
		if (ret == -ENOMEM)
			return amd_fail(ret, "no memory to read %s", path);
		if (ret < 0)
			continue;
		amd_digest_hex(b, len, hex);
		if (len == pin->bytes && !strcmp(hex, pin->digest)) {
			snprintf(out->path, sizeof(out->path), "%s", path);
			out->bytes = b;
			out->len = len;
			return 0;
		}
		free(b);
		olen += (size_t)snprintf(others + olen, sizeof(others) - olen,
					 "%s%s (%.16s…, %zu bytes)",
					 olen ? ", " : "", path, hex, len);
		olen = olen < sizeof(others) ? olen : sizeof(others) - 1;
	}
	return amd_fail(-ENOENT, "%s is in none of the directories with its "
			"digest %.16s…: searched %s; %s%s", pin->name, pin->digest,
			searched, others[0] ? "another digest: " : "no file of "
			"another digest", others);
}
