/* SPDX-License-Identifier: MIT */
/*
 * test_amd_machine_io: the Linux machine's operations on a taken function
 * (src/amd/pci/io.c, dma.c, irq.c), on a fake machine whose BARs and
 * config space are files: a register write lands in the MMIO BAR at 4 x
 * its index and a read returns what the BAR holds; a doorbell is one
 * 64-bit store at its offset; bus mastering sets and clears PCI_COMMAND's
 * bit 2 through config_write; each refuses what is out of range; the
 * pagemap translation of amd-facts §8.5; the interrupt timer fires while
 * armed and never once disarmed. Huge-page DMA runs on this machine in
 * test_amd_hugepages.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rig.h"
#include "amd/pci/pci.h"
#include "env.h"

#define DEVDIR "sys/bus/pci/devices/" BUS "/"

static struct pci_taken t;

static int
setup(void **state)
{
	struct env *e;

	if (env_setup(state))
		return -1;
	e = *state;
	env_gpu(e, "11.0.0", (struct fake_gpu){ 0 });
	if (e->m->ops->take(e->m, BUS, &t) || pci_windows_map(e->m, &t))
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	e->m->ops->give_back(e->m, &t);
	return env_teardown(state);
}

/* The 32-bit word at byte offset at of a file of the fake function. */
static uint32_t
file_u32(struct env *e, const char *name, uint64_t at)
{
	char path[512];
	uint32_t v = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/" DEVDIR "%s", e->root, name);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(pread(fd, &v, 4, (off_t)at), 4);
	close(fd);
	return v;
}

static void
test_registers(void **state)
{
	struct env *e = *state;
	const struct pci_machine_ops *ops = e->m->ops;
	uint32_t v = 0;

	assert_int_equal(ops->reg_write(e->m, &t, 0xc046, 0xA0000008), 0);
	assert_int_equal(file_u32(e, "resource5", 0xc046 * 4), 0xA0000008);
	fake_reg(e->root, BUS, 0x16091, 0x1234);
	assert_int_equal(ops->reg_read(e->m, &t, 0x16091, &v), 0);
	assert_int_equal(v, 0x1234);
	/* RCC_CONFIG_MEMSIZE as the fake writes it: 512 MiB */
	assert_int_equal(ops->reg_read(e->m, &t, 0xde3, &v), 0);
	assert_int_equal(v, 512);
	/* past the 512 KiB window: refused, nothing read */
	v = 7;
	assert_int_equal(ops->reg_read(e->m, &t, 0x20000, &v), -ERANGE);
	assert_int_equal(v, 7);
	assert_string_equal(rig_why(), "pci_sysfs_reg_read: " BUS ": register "
			    "0x20000 is past the MMIO window's 0x20000 registers");
	assert_int_equal(ops->reg_write(e->m, &t, 0x20000, 1), -ERANGE);
}

static void
test_registers_unmapped(void **state)
{
	struct env *e = *state;
	struct pci_taken bare = { .bus = BUS, .config_fd = -1 };
	uint32_t v;

	assert_int_equal(e->m->ops->reg_read(e->m, &bare, 0, &v), -ENXIO);
	assert_string_equal(rig_why(), "pci_sysfs_reg_read: " BUS ": its MMIO "
			    "window is not mapped");
	assert_int_equal(e->m->ops->doorbell_write(e->m, &bare, 0, 1), -ENXIO);
}

static void
test_doorbell(void **state)
{
	struct env *e = *state;
	const struct pci_machine_ops *ops = e->m->ops;

	/* amd-facts §3.10: MEC ring 0's doorbell is 64-bit slot 3, byte 0x18 */
	assert_int_equal(ops->doorbell_write(e->m, &t, 0x18, 0x1122334455667788ull), 0);
	assert_int_equal(file_u32(e, "resource2", 0x18), 0x55667788);
	assert_int_equal(file_u32(e, "resource2", 0x1c), 0x11223344);
	assert_int_equal(ops->doorbell_write(e->m, &t, 0x1c, 1), -EINVAL);
	assert_string_equal(rig_why(), "pci_sysfs_doorbell_write: " BUS ": doorbell "
			    "offset 0x1c is not 8-aligned");
	assert_int_equal(ops->doorbell_write(e->m, &t, 2 << 20, 1), -ERANGE);
	assert_int_equal(file_u32(e, "resource2", 0x18), 0x55667788);
}

/* A doorbell resolved once rings as doorbell_write does; its checks are
 * doorbell_write's, made at the open. */
static void
test_doorbell_open(void **state)
{
	struct env *e = *state;
	const struct pci_machine_ops *ops = e->m->ops;
	struct pci_taken bare = { .bus = BUS, .config_fd = -1 };
	struct pci_doorbell db = { 0 };

	assert_int_equal(ops->doorbell_open(e->m, &t, 0x800, &db), 0);
	pci_doorbell_ring(&db, 0x0102030405060708ull);
	assert_int_equal(file_u32(e, "resource2", 0x800), 0x05060708);
	assert_int_equal(file_u32(e, "resource2", 0x804), 0x01020304);
	pci_doorbell_ring(&db, 9);
	assert_int_equal(file_u32(e, "resource2", 0x800), 9);
	assert_int_equal(ops->doorbell_open(e->m, &t, 0x804, &db), -EINVAL);
	assert_string_equal(rig_why(), "pci_sysfs_doorbell_open: " BUS ": doorbell "
			    "offset 0x804 is not 8-aligned");
	assert_int_equal(ops->doorbell_open(e->m, &t, 2 << 20, &db), -ERANGE);
	assert_int_equal(ops->doorbell_open(e->m, &bare, 0, &db), -ENXIO);
	assert_string_equal(rig_why(), "pci_sysfs_doorbell_open: " BUS ": its "
			    "doorbell window is not mapped");
}

/* §8.4: PCI_COMMAND is config 0x04, bus master its bit 2. */
static void
test_bus_master(void **state)
{
	struct env *e = *state;
	uint16_t command = 0x0002;	/* memory space on */

	assert_int_equal(e->m->ops->config_write(e->m, &t, 4, &command, 2), 0);
	assert_int_equal(pci_bus_master(e->m, &t, true), 0);
	assert_int_equal(file_u32(e, "config", 4) & 0xffff, 0x0006);
	assert_int_equal(pci_bus_master(e->m, &t, false), 0);
	assert_int_equal(file_u32(e, "config", 4) & 0xffff, 0x0002);
	assert_int_equal(e->m->ops->config_write(e->m, &t, 4095, &command, 2),
			 -EINVAL);
	assert_string_equal(rig_why(), "pci_sysfs_config_write: " BUS ": 2 bytes "
			    "at 0xfff are outside the 4 KiB config space");
}

/* Giving the function back unmaps its windows. */
static void
test_give_back_unmaps(void **state)
{
	struct env *e = *state;

	assert_non_null(t.mmio.addr);
	e->m->ops->give_back(e->m, &t);
	assert_null(t.mmio.addr);
	assert_null(t.doorbell.addr);
	assert_null(t.vram.addr);
	assert_int_equal(e->m->ops->take(e->m, BUS, &t), 0);	/* for teardown */
}

/* §8.5: PFN [54:0], present [63]; no frame without CAP_SYS_ADMIN. */
static void
test_pagemap_translation(void **state)
{
	uint64_t bus = 0;

	(void)state;
	assert_int_equal(pci_pagemap_bus(1ull << 63 | 0x12345, 0x7f0000201abc, &bus), 0);
	assert_int_equal(bus, 0x12345ull * 4096 + 0xabc);
	assert_int_equal(pci_pagemap_bus(1ull << 63 | 1ull << 55 | 0x10, 0x1000, &bus), 0);
	assert_int_equal(bus, 0x10000);		/* soft-dirty is not the frame */
	assert_int_equal(pci_pagemap_bus(0x12345, 0x1000, &bus), -EFAULT);
	assert_int_equal(pci_pagemap_bus(1ull << 63, 0x1000, &bus), -EPERM);
	assert_non_null(strstr(rig_why(), "needs CAP_SYS_ADMIN"));
}

/* A fake machine has no hugetlbfs: DMA memory is refused, saying so. */
static void
test_dma_needs_hugetlbfs(void **state)
{
	struct env *e = *state;
	struct pci_dma d = { 0 };
	char want[1200];

	assert_int_equal(e->m->ops->dma_alloc(e->m, &t, 4096, &d), -ENOENT);
	snprintf(want, sizeof(want), "hugepages_alloc: %s/dev/hugepages is not a "
		 "hugetlbfs mount; fix: mount -t hugetlbfs none %s/dev/hugepages",
		 e->root, e->root);
	assert_string_equal(rig_why(), want);
	assert_null(d.host);
	assert_int_equal(e->m->ops->dma_alloc(e->m, &t, 0, &d), -EINVAL);
}

static bool
readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* Without MSI: a timer that ticks while armed, and is silent disarmed. */
static void
test_interrupt_timer(void **state)
{
	struct env *e = *state;
	const struct pci_machine_ops *ops = e->m->ops;
	struct pci_irq irq;
	uint64_t ticks;
	struct timespec nap = { 0, 20 * 1000000L };

	assert_int_equal(ops->irq_open(e->m, &t, &irq), 0);
	assert_false(irq.msi);
	assert_int_equal(irq.period_ns, 1000000);
	assert_false(readable(irq.fd, 20));		/* not armed: silent */
	assert_int_equal(ops->irq_arm(e->m, &t, &irq, true), 0);
	assert_true(readable(irq.fd, 5000));
	assert_int_equal(read(irq.fd, &ticks, 8), 8);
	assert_true(ticks >= 1);
	assert_int_equal(ops->irq_arm(e->m, &t, &irq, false), 0);
	(void)read(irq.fd, &ticks, 8);			/* a tick before the disarm */
	nanosleep(&nap, NULL);
	assert_int_equal(read(irq.fd, &ticks, 8), -1);
	assert_int_equal(errno, EAGAIN);
	ops->irq_close(e->m, &t, &irq);
	assert_int_equal(irq.fd, -1);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_registers), T(test_registers_unmapped), T(test_doorbell),
		T(test_doorbell_open),
		T(test_bus_master), T(test_give_back_unmaps),
		T(test_pagemap_translation), T(test_dma_needs_hugetlbfs),
		T(test_interrupt_timer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
