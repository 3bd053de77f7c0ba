/* SPDX-License-Identifier: MIT */
/*
 * core/borrow.c: rig_buffer_borrow(). The borrowed buffer lies on the
 * second device, over a mapping of the root allocation's memory made by
 * that device's driver (map_host for memory the host addresses, else
 * map_peer). It shares the root's stamps, so work on either device is
 * ordered by the same rules.
 *
 * A file of an Io device has no host address: its bytes are first mapped
 * into host memory (io_map, a shared map of the whole file, where the Io
 * library maps files), which the second device then maps like any host
 * memory; the borrowed allocation keeps the file's map until its own
 * memory returns (alloc.c).
 */
#include <stdlib.h>
#include <unistd.h>

#include "core/buffer.h"
#include "core/error.h"
#include "core/io.h"

/* Ask d2 to map root's memory; the region and where root starts in it. */
static enum rig_mapping
map(struct rig_device *d2, struct alloc *root, void **region, uint64_t *delta,
    void *root_host)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), host, start;

	*delta = 0;
	host = (uintptr_t)root_host;
	if (host && d2->facts.maps_host && d2->ops->map_host) {
		/* map_host takes memory that starts on a page. */
		start = host & ~(page - 1);
		*delta = host - start;
		return d2->ops->map_host(d2->handle, (void *)start,
					 root->bytes + *delta, region);
	}
	if (d2->ops->map_peer && !io_device(root->d))
		return d2->ops->map_peer(d2->handle, &root->loc, root->bytes, region);
	return RIG_MAP_NEVER;
}

struct mapping {
	struct rig_device *d2;
	struct alloc *root, *a;
	void *host;			/* where root's bytes lie for the host */
	uint64_t delta;
	enum rig_mapping m;
};

#ifdef RIG_TEST_HOOKS
void (*borrow_window)(void);
#endif

/*
 * One try of d2's driver: 0, the mapping on d2's list; RIG_ENOMEM for no
 * room (reclaim_retry() returns d2's released memory and tries again);
 * RIG_EINVAL where it never maps it; RIG_ELOST. The map and the list
 * under d2's mem_lock, as an allocation's (alloc.c, try_make): d2's end
 * (alloc_end_all, then the driver handle's release) either finds the
 * mapping on the list and gives it back, or we find d2 lost before its
 * driver is asked. A mapping put on the list after the end would go back
 * to a released driver, or never.
 */
static int
try_map(void *arg)
{
	struct mapping *p = arg;
	struct rig_device *d2 = p->d2;
	int ret;

	p->m = RIG_MAPS;
	pthread_mutex_lock(&d2->mem_lock);
	if ((ret = device_check_live(NULL, d2)) < 0 || !p->root->bytes)
		goto out;
	if (!submit_call_enter(&d2->sub)) {
		ret = device_check_live(NULL, d2);
		goto out;
	}
	p->m = map(d2, p->root, &p->a->region, &p->delta, p->host);
	if (p->m == RIG_MAPS)
		d2->ops->locate(d2->handle, p->a->region, &p->a->loc);
	submit_call_leave(&d2->sub);
	if (p->m != RIG_MAPS) {
		ret = p->m == RIG_MAP_NEVER ? RIG_EINVAL : RIG_ENOMEM;
		goto out;
	}
#ifdef RIG_TEST_HOOKS
	if (borrow_window)
		borrow_window();
#endif
	p->a->loc.address += p->delta;
	p->a->loc.host = p->host;
out:
	if (ret == 0)
		alloc_live_locked(d2, p->a);
	pthread_mutex_unlock(&d2->mem_lock);
	return ret;
}

static int
borrow(struct rig_buffer *b, struct rig_device *d2, struct alloc **out)
{
	struct alloc *root = b->a->root, *a;
	struct mapping p = { d2, root, NULL, root->loc.host, 0, RIG_MAP_NO_ROOM };
	int ret;

	if (!(a = alloc_new(d2, 0, root)))
		return rig_cause(RIG_ENOMEM, "no memory for the mapping's handle");
	if (io_device(root->d)) {
		if ((ret = io_map(root, a)) < 0) {
			alloc_discard(a);
			return ret;
		}
		p.host = a->io_host;
	}
	p.a = a;
	if ((ret = reclaim_retry(d2, try_map, &p)) < 0) {
		io_unmap(a);
		alloc_discard(a);
		if (ret == RIG_ELOST)
			return ret;
		return p.m == RIG_MAP_NEVER ?
		       rig_cause(RIG_EINVAL, "%s does not map %s's memory", d2->name, root->d->name) :
		       rig_cause(RIG_ENOMEM, "%s has no room to map %llu bytes of %s",
				 d2->name, (unsigned long long)root->bytes, root->d->name);
	}
	*out = a;
	return 0;
}

int
rig_buffer_borrow(struct rig_buffer *b, struct rig_device *d2,
		  struct rig_buffer **out)
{
	struct alloc *a = NULL;
	int ret;

	if ((ret = buffer_check(__func__, b)) < 0)
		return ret;
	if (!d2 || !out)
		return rig_fail(RIG_EINVAL, "the %s is NULL", !d2 ? "device" : "out");
	if ((ret = device_check_live(__func__, d2)) < 0 ||
	    (ret = callback_refuse(__func__)) < 0)
		return ret;
	if (b->a->d == d2) {
		if (!(*out = buffer_dup(b)))
			return rig_fail(RIG_ENOMEM, "no memory for the buffer's handle");
		return 0;
	}
	if ((ret = borrow(b, d2, &a)) < 0)
		return rig_fail_keep(__func__, ret);
	if (!(*out = buffer_over(a, b->offset, b->length, b->access))) {
		alloc_put(a);
		return rig_fail(RIG_ENOMEM, "no memory for the buffer's handle");
	}
	return 0;
}
