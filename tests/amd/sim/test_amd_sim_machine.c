/* SPDX-License-Identifier: MIT */
/*
 * test_amd_sim_machine: the machine interface's operations (amd/pci/pci.h)
 * on the sim, as the driver calls them: take, registers, doorbells,
 * config writes (bus mastering), DMA host memory with bus addresses the
 * engines reach through their page tables, the MSI eventfd, and windows
 * of BAR2 and BAR5 that no raw pointer can use.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rig.h"
#include "gpu.h"

#define BUS "0000:03:00.0"

/* The permissions /proc/self/maps shows for the mapping at addr. */
static void
perms_of(void *addr, char perms[5])
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	strcpy(perms, "?");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
		    (unsigned long)addr >= lo && (unsigned long)addr < hi)
			break;
		strcpy(perms, "?");
	}
	if (f)
		fclose(f);
}

static void
test_take_and_registers(void **state)
{
	const struct rig_pci_machine *m;
	struct pci_window w;
	struct pci_taken t;
	char perms[5];
	uint32_t v = 0;
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	m = amd_sim_machine(g.sim);
	assert_int_equal(m->ops->take(m, BUS, &t), 0);
	assert_ptr_equal(t.machine, g.sim);
	assert_int_equal(m->ops->reg_write(m, &t, g.sim->lay.scratch6, 0x77), 0);
	assert_int_equal(m->ops->reg_read(m, &t, g.sim->lay.scratch6, &v), 0);
	assert_int_equal(v, 0x77);
	assert_int_equal(m->ops->reg_read(m, &t, SIM_REGS, &v), -ERANGE);
	assert_string_equal(rig_why(), "sim_reg_read: register 0x20000 is past "
			    "BAR5's window");
	assert_int_equal(m->ops->doorbell_write(m, &t, SIM_BAR2_BYTES, 1), -ERANGE);
	assert_int_equal(m->ops->doorbell_write(m, &t, 3, 1), -EINVAL);
	assert_int_equal(m->ops->window_map(m, BUS, AMD_BAR_MMIO, &w), 0);
	perms_of(w.addr, perms);
	assert_string_equal(perms, "---p");		/* no raw register access */
	m->ops->window_unmap(m, &w);
	assert_int_equal(m->ops->window_map(m, BUS, AMD_BAR_DOORBELL, &w), 0);
	perms_of(w.addr, perms);
	assert_string_equal(perms, "---p");
	m->ops->window_unmap(m, &w);
	m->ops->give_back(m, &t);
	gpu_close(&g);
}

/* A doorbell resolved once (doorbell_open, as the device's queues ring
 * theirs) reaches the queue whose doorbell it is; its offset is checked at
 * the open; one no queue owns rings nothing. */
static void
test_doorbell_handle(void **state)
{
	const struct rig_pci_machine *m;
	struct pci_doorbell db, none;
	struct pci_taken t;
	uint64_t word = VA_VRAM + DATA_AT;
	uint32_t *base;
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	m = amd_sim_machine(g.sim);
	assert_int_equal(m->ops->take(m, BUS, &t), 0);
	assert_int_equal(m->ops->doorbell_open(m, &t, SIM_BAR2_BYTES, &db), -ERANGE);
	assert_int_equal(m->ops->doorbell_open(m, &t, 3, &db), -EINVAL);
	assert_string_equal(rig_why(), "sim_doorbell_open: doorbell 0x3 is not an "
			    "8-aligned offset in BAR2's 2 MiB");
	gpu_cp_queue(&g, 1, 4096, &r);
	assert_int_equal(m->ops->doorbell_open(m, &t, r.doorbell, &db), 0);
	assert_int_equal(m->ops->doorbell_open(m, &t, 100 * 8, &none), 0);
	pci_doorbell_ring(&none, 5);			/* no queue's */
	*(uint32_t *)gpu_ptr(&g, word) = 0;
	base = gpu_ptr(&g, r.va);
	base[0] = pkt3(0x37, 3);			/* WRITE_DATA, memory */
	base[1] = 5u << 8;
	base[2] = (uint32_t)word;
	base[3] = (uint32_t)(word >> 32);
	base[4] = 0x1234;
	pci_doorbell_ring(&db, 5);
	gpu_idle(&g);
	assert_int_equal(atomic_load((_Atomic uint32_t *)gpu_ptr(&g, word)), 0x1234);
	m->ops->give_back(m, &t);
	gpu_close(&g);
}

/* give_back unmaps the windows pci_windows_map() made, as the sysfs
 * machine's does: an open and close of the sim left BAR2's and BAR5's
 * reservations mapped. */
static void
test_give_back_unmaps(void **state)
{
	const struct rig_pci_machine *m;
	struct pci_taken t;
	void *bar2, *bar5;
	char perms[5];
	struct gpu g;

	(void)state;
	gpu_open(&g, "11.0.0");
	m = amd_sim_machine(g.sim);
	assert_int_equal(m->ops->take(m, BUS, &t), 0);
	assert_int_equal(pci_windows_map(m, &t), 0);
	bar2 = t.doorbell.addr;
	bar5 = t.mmio.addr;
	perms_of(bar2, perms);
	assert_string_equal(perms, "---p");
	perms_of(bar5, perms);
	assert_string_equal(perms, "---p");
	m->ops->give_back(m, &t);
	assert_null(t.vram.addr);
	assert_null(t.doorbell.addr);
	assert_null(t.mmio.addr);
	perms_of(bar2, perms);
	assert_string_equal(perms, "?");		/* unmapped */
	perms_of(bar5, perms);
	assert_string_equal(perms, "?");
	gpu_close(&g);
}

/* DMA memory the copy engine writes by bus address; an EOP on the MSI fd;
 * bus mastering off through config_write. */
static void
test_dma_irq_bus_master(void **state)
{
	const struct rig_pci_machine *m;
	struct pollfd pfd;
	struct pci_taken t;
	struct pci_irq irq;
	struct pci_dma d;
	uint32_t p[8];
	uint16_t command;
	uint64_t count;
	struct ring r;
	struct gpu g;

	(void)state;
	gpu_open(&g, "12.0.1");
	m = amd_sim_machine(g.sim);
	assert_int_equal(m->ops->take(m, BUS, &t), 0);
	assert_int_equal(m->ops->dma_alloc(m, &t, 3u << 20, &d), 0);
	assert_int_equal(d.bytes, 4u << 20);			/* two 2 MiB pages */
	assert_int_equal(d.how, PCI_DMA_SIM);
	gpu_map(&g, VA_HOST, d.bus[0], 2u << 20, PTE_RWX | PTE_SYS | PTE_SNOOP, true);
	gpu_map(&g, VA_HOST + (2u << 20), d.bus[1], 2u << 20,
		PTE_RWX | PTE_SYS | PTE_SNOOP, true);
	assert_int_equal(m->ops->irq_open(m, &t, &irq), 0);
	assert_true(irq.msi);
	gpu_sdma_queue(&g, 4096, &r);
	p[0] = 5;						/* §5 FENCE */
	p[1] = (uint32_t)(VA_HOST + (2u << 20) + 8);
	p[2] = (uint32_t)((VA_HOST + (2u << 20)) >> 32);
	p[3] = 0xabc;
	p[4] = 6;						/* §5 TRAP */
	p[5] = 1;
	ring_put(&r, p, 6);
	gpu_idle(&g);
	assert_int_equal(atomic_load((_Atomic uint32_t *)((char *)d.host + (2u << 20) + 8)),
			 0xabc);
	pfd = (struct pollfd){ .fd = irq.fd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 0), 1);
	assert_int_equal(read(irq.fd, &count, 8), 8);
	assert_true(count >= 1);
	command = 0x0002;					/* memory only */
	assert_int_equal(m->ops->config_write(m, &t, 4, &command, 2), 0);
	p[3] = 0xdef;
	ring_put(&r, p, 4);
	gpu_idle(&g);
	assert_int_equal(atomic_load((_Atomic uint32_t *)((char *)d.host + (2u << 20) + 8)),
			 0xabc);
	assert_true(amd_sim_halted(g.sim, AMD_SIM_SDMA, 0, NULL, 0));
	m->ops->irq_close(m, &t, &irq);
	m->ops->dma_free(m, &t, &d);
	m->ops->give_back(m, &t);
	gpu_close(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take_and_registers),
		cmocka_unit_test(test_doorbell_handle),
		cmocka_unit_test(test_give_back_unmaps),
		cmocka_unit_test(test_dma_irq_bus_master),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
