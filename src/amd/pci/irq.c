/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/irq.c: a taken function's interrupt source. Bound to vfio-pci,
 * its MSI is delivered to an eventfd (VFIO_DEVICE_SET_IRQS, MSI index 1,
 * amd-facts §8.4); taken through sysfs alone it has no way to user space,
 * so the source is a timerfd the driver arms while work is outstanding
 * (every 1 ms: a loss of up to 1 ms in noticing a fault or a completion
 * only the interrupt ring tells) and disarms when idle. Either way the
 * driver polls one descriptor and reads 8 bytes from it.
 */
#include <errno.h>
#include <linux/vfio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "amd/fail.h"
#include "amd/pci/pci.h"

#define TIMER_PERIOD_NS	1000000ull

/* MSI vector 0 to fd, or (fd -1) off. */
static int
msi_set(struct pci_vfio *v, int fd)
{
	char buf[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
	struct vfio_irq_set *set = (struct vfio_irq_set *)buf;
	int32_t efd = fd;

	memset(buf, 0, sizeof(buf));
	set->argsz = sizeof(buf);
	set->index = VFIO_PCI_MSI_IRQ_INDEX;
	set->start = 0;
	if (fd >= 0) {
		set->flags = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;
		set->count = 1;
		memcpy(set->data, &efd, sizeof(efd));
	} else {
		set->flags = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER;
		set->count = 0;
		set->argsz = sizeof(*set);
	}
	return ioctl(v->device, VFIO_DEVICE_SET_IRQS, set) < 0 ? -errno : 0;
}

int
pci_sysfs_irq_open(const struct rig_pci_machine *m, struct pci_taken *t,
		   struct pci_irq *out)
{
	struct pci_irq irq = { .fd = -1 };
	int ret;

	(void)m;
	if (t->machine) {
		irq.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (irq.fd < 0)
			return amd_fail(-errno, "%s: no eventfd for its MSI: %s",
					t->bus, strerror(errno));
		if ((ret = msi_set(t->machine, irq.fd)) < 0) {
			close(irq.fd);
			return amd_fail(ret, "%s: cannot route its MSI to an eventfd: "
					"%s", t->bus, strerror(-ret));
		}
		irq.msi = true;
	} else {
		irq.fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (irq.fd < 0)
			return amd_fail(-errno, "%s: no timerfd to poll its interrupt "
					"ring: %s", t->bus, strerror(errno));
		irq.period_ns = TIMER_PERIOD_NS;
	}
	*out = irq;
	return 0;
}

int
pci_sysfs_irq_arm(const struct rig_pci_machine *m, struct pci_taken *t,
		  struct pci_irq *irq, bool outstanding)
{
	struct itimerspec its = { 0 };

	(void)m;
	if (irq->msi || irq->armed == outstanding)
		return 0;	/* MSI needs no arming; a timer already so */
	if (outstanding) {
		its.it_value.tv_nsec = (long)irq->period_ns;
		its.it_interval.tv_nsec = (long)irq->period_ns;
	}
	if (timerfd_settime(irq->fd, 0, &its, NULL) < 0)
		return amd_fail(-errno, "%s: cannot %s its interrupt timer: %s",
				t->bus, outstanding ? "arm" : "disarm",
				strerror(errno));
	irq->armed = outstanding;
	return 0;
}

void
pci_sysfs_irq_close(const struct rig_pci_machine *m, struct pci_taken *t,
		    struct pci_irq *irq)
{
	(void)m;
	if (irq->fd < 0)
		return;
	if (irq->msi && t->machine)
		(void)msi_set(t->machine, -1);
	close(irq->fd);
	irq->fd = -1;
	irq->armed = false;
}
