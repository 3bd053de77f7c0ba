/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/tree.c: the sim's sysfs tree under its root, in the shape
 * tests/amd/fake.c builds (what libpci and rig read), and the writes that
 * change its state as the kernel's sysfs does (Documentation/ABI
 * sysfs-bus-pci, amd-facts §8.3-8.4):
 *
 *   drivers/<d>/bind     binds it (-EBUSY if bound; -EINVAL if
 *                        driver_override names another driver)
 *   drivers/<d>/unbind   unbinds it (-ENODEV if not bound to <d>)
 *   drivers_probe        binds it to driver_override's driver, else amdgpu
 *   driver_override      sets it ("" or "\n" clears it to "(null)")
 *   reset                "1": a function reset (the sim's state, below)
 *   resource0_resize     a supported bit n: BAR0 becomes 2^n MiB (-EBUSY
 *                        while bound, -EINVAL for an unsupported size)
 *
 * Binding amdgpu makes its ip_discovery folder appear; unbinding removes
 * it. A function reset stops the sim's queues, clears its registers but
 * the straps (RCC_CONFIG_MEMSIZE) and leaves its firmware not running
 * (no mark, the security processor's OS down); VRAM keeps its bytes. Other
 * files are written as they are. The BAR files themselves are not in the
 * tree: the sim's machine gives windows (machine.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

static int
put(struct amd_sim *s, const char *rel, const char *text)
{
	char path[512], *slash;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", s->root, rel);
	for (slash = path + strlen(s->root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return amd_fail(-errno, "cannot make %s: %s", path, strerror(errno));
		*slash = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return amd_fail(-errno, "cannot write %s: %s", path, strerror(errno));
	n = write(fd, text, strlen(text));
	close(fd);
	if (n != (ssize_t)strlen(text))
		return amd_fail(-EIO, "short write of %s", path);
	return 0;
}

static int
dev_put(struct amd_sim *s, const char *name, const char *text)
{
	char rel[160];

	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/%s", s->bus, name);
	return put(s, rel, text);
}

static int
resource_file(struct amd_sim *s)
{
	char text[600];

	/* BAR0 VRAM 64-bit prefetchable, BAR2 doorbells 2 MiB, BAR5 MMIO 512 KiB */
	snprintf(text, sizeof(text),
		 "0x%016llx 0x%016llx 0x000000000014220c\n"
		 "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		 "0x000000fc00000000 0x000000fc001fffff 0x000000000014220c\n"
		 "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		 "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
		 "0x00000000fcc00000 0x00000000fcc7ffff 0x0000000000040200\n"
		 "0x0000000000000000 0x0000000000000000 0x0000000000000000\n",
		 (unsigned long long)s->bar0_bus,
		 (unsigned long long)(s->bar0_bus + s->bar0_bytes - 1));
	return dev_put(s, "resource", text);
}

/* The sizes BAR0 takes: 256 MiB up to VRAM, as resource0_resize reads. */
static uint64_t
resize_sizes(const struct amd_sim *s)
{
	uint64_t bits = 0;

	for (int b = 8; b < 40 && (1ull << 20 << b) <= s->vram_bytes; b++)
		bits |= 1ull << b;
	return bits;
}

int
sim_tree_build(struct amd_sim *s)
{
	uint16_t vendor, device;
	char text[64];
	int ret = 0;

	memcpy(&vendor, s->config, 2);
	memcpy(&device, s->config + 2, 2);
	snprintf(text, sizeof(text), "0x%04x\n", vendor);
	ret = ret ? ret : dev_put(s, "vendor", text);
	snprintf(text, sizeof(text), "0x%04x\n", device);
	ret = ret ? ret : dev_put(s, "device", text);
	snprintf(text, sizeof(text), "0x%02x%02x%02x\n", s->config[11], s->config[10],
		 s->config[9]);
	ret = ret ? ret : dev_put(s, "class", text);
	ret = ret ? ret : resource_file(s);
	ret = ret ? ret : dev_put(s, "enable", "1\n");
	ret = ret ? ret : dev_put(s, "driver_override", "(null)\n");
	ret = ret ? ret : dev_put(s, "reset", "");
	snprintf(text, sizeof(text), "%llx\n", (unsigned long long)resize_sizes(s));
	ret = ret ? ret : dev_put(s, "resource0_resize", text);
	ret = ret ? ret : put(s, "sys/bus/pci/drivers/amdgpu/bind", "");
	ret = ret ? ret : put(s, "sys/bus/pci/drivers/amdgpu/unbind", "");
	ret = ret ? ret : put(s, "sys/bus/pci/drivers/vfio-pci/bind", "");
	ret = ret ? ret : put(s, "sys/bus/pci/drivers/vfio-pci/unbind", "");
	ret = ret ? ret : put(s, "sys/bus/pci/drivers_probe", "");
	return ret;
}

/* The driver bound now into buf ("" for none). */
static void
bound(struct amd_sim *s, char *buf, size_t len)
{
	char path[512], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/driver", s->root, s->bus);
	n = readlink(path, target, sizeof(target) - 1);
	buf[0] = '\0';
	if (n > 0) {
		target[n] = '\0';
		snprintf(buf, len, "%.63s", strrchr(target, '/') ? strrchr(target, '/') + 1
							       : target);
	}
}

static int
bind_to(struct amd_sim *s, const char *driver)
{
	char now[64], path[512], target[128], override[64] = "";
	FILE *f;

	bound(s, now, sizeof(now));
	if (now[0])
		return amd_fail(-EBUSY, "%s is bound to %s already", s->bus, now);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/driver_override",
		 s->root, s->bus);
	if ((f = fopen(path, "r"))) {
		if (!fgets(override, sizeof(override), f))
			override[0] = '\0';
		fclose(f);
	}
	override[strcspn(override, "\n")] = '\0';
	if (strcmp(override, "(null)") && strcmp(override, driver))
		return amd_fail(-EINVAL, "%s's driver_override is %s, not %s", s->bus,
				override, driver);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/driver", s->root, s->bus);
	snprintf(target, sizeof(target), "../../drivers/%s", driver);
	if (symlink(target, path) < 0)
		return amd_fail(-errno, "cannot bind %s: %s", s->bus, strerror(errno));
	if (!strcmp(driver, "amdgpu")) {
		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/ip_discovery",
			 s->root, s->bus);
		mkdir(path, 0755);
	}
	return 0;
}

static int
unbind_from(struct amd_sim *s, const char *driver)
{
	char now[64], path[512];

	bound(s, now, sizeof(now));
	if (strcmp(now, driver))
		return amd_fail(-ENODEV, "%s is not bound to %s", s->bus, driver);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/driver", s->root, s->bus);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/ip_discovery",
		 s->root, s->bus);
	rmdir(path);
	return 0;
}

/* A function reset (FLR): what the GPU keeps and loses, said above. */
void
sim_function_reset(struct amd_sim *s)
{
	struct sim_engine *e[2] = { &s->cp, &s->sdma };

	for (int k = 0; k < 2; k++) {
		sim_engine_lock(e[k]);
		for (int i = 0; i < e[k]->nqueues; i++) {
			e[k]->q[i].enabled = false;
			memset(e[k]->q[i].hqd, 0, sizeof(e[k]->q[i].hqd));
		}
		sim_engine_route(e[k]);
		sim_engine_unlock(e[k]);
	}
	for (uint32_t i = 0; i < SIM_REGS; i++)
		sim_reg_set(s, i, 0);
	pthread_mutex_lock(&s->far_lock);
	(*s->nfar) = 0;
	/* The other AIDs' NBIO registers (ext.c) go with the rest. */
	memset(s->sh->naid, 0, sizeof(s->sh->naid));
	pthread_mutex_unlock(&s->far_lock);
	sim_reg_set(s, 0xde3, (uint32_t)(s->vram_bytes >> 20));
}

/* The sysfs reset: the function's state lost, and no firmware runs. */
static void
flr(struct amd_sim *s)
{
	sim_function_reset(s);
	pthread_mutex_lock(&s->mp_lock);
	sim_mp_power_on(s, false);
	pthread_mutex_unlock(&s->mp_lock);
}

static int
resize(struct amd_sim *s, const char *text)
{
	char now[64], *end;
	long bit = strtol(text, &end, 10);

	bound(s, now, sizeof(now));
	if (now[0])
		return amd_fail(-EBUSY, "%s is bound to %s: BAR0 cannot be resized",
				s->bus, now);
	if (end == text || bit < 0 || bit >= 40 || !(resize_sizes(s) >> bit & 1))
		return amd_fail(-EINVAL, "BAR0 of %s does not take size bit \"%s\"",
				s->bus, text);
	s->bar0_bytes = 1ull << 20 << bit;
	atomic_store(&s->bar0_now, s->bar0_bytes);
	atomic_store(&s->sh->bar0_bytes, s->bar0_bytes);	/* the GPU keeps it */
	return resource_file(s);
}

int
sim_tree_write(struct amd_sim *s, const char *rel, const char *text,
	       bool *handled)
{
	char dev[96], drv[64], tail[32], value[128];
	int ret = 0;

	snprintf(dev, sizeof(dev), "sys/bus/pci/devices/%s/", s->bus);
	snprintf(value, sizeof(value), "%s", text);
	value[strcspn(value, "\n")] = '\0';
	*handled = true;
	pthread_mutex_lock(&s->tree_lock);
	if (sscanf(rel, "sys/bus/pci/drivers/%63[^/]/%31s", drv, tail) == 2 &&
	    (!strcmp(tail, "bind") || !strcmp(tail, "unbind"))) {
		if (strcmp(value, s->bus))
			ret = amd_fail(-ENODEV, "no function %s to %s", value, tail);
		else
			ret = !strcmp(tail, "bind") ? bind_to(s, drv) : unbind_from(s, drv);
	} else if (!strcmp(rel, "sys/bus/pci/drivers_probe")) {
		char path[512], override[64] = "(null)";
		FILE *f;

		snprintf(path, sizeof(path), "%s/%sdriver_override", s->root, dev);
		if ((f = fopen(path, "r"))) {
			if (!fgets(override, sizeof(override), f))
				snprintf(override, sizeof(override), "(null)");
			fclose(f);
		}
		override[strcspn(override, "\n")] = '\0';
		ret = bind_to(s, strcmp(override, "(null)") ? override : "amdgpu");
	} else if (!strncmp(rel, dev, strlen(dev))) {
		const char *name = rel + strlen(dev);

		if (!strcmp(name, "driver_override") && strlen(text) >= 64)
			ret = amd_fail(-EINVAL, "driver_override \"%.64s...\" is too long",
				       text);
		else if (!strcmp(name, "driver_override"))
			ret = dev_put(s, name, value[0] ? strcat(value, "\n") : "(null)\n");
		else if (!strcmp(name, "reset") && !strcmp(value, "1"))
			flr(s);
		else if (!strcmp(name, "reset"))
			ret = amd_fail(-EINVAL, "reset takes \"1\", not \"%s\"", value);
		else if (!strcmp(name, "resource0_resize"))
			ret = resize(s, value);
		else
			*handled = false;
	} else {
		*handled = false;
	}
	pthread_mutex_unlock(&s->tree_lock);
	return ret;
}
