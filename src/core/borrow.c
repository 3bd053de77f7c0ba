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

static int
borrow(struct rig_buffer *b, struct rig_device *d2, struct alloc **out)
{
	struct alloc *root = b->a->root, *a;
	enum rig_mapping m = RIG_MAP_NO_ROOM;
	uint64_t delta = 0;
	void *host = root->loc.host;
	int ret;

	if (!(a = alloc_new(d2, 0, root)))
		return rig_cause(RIG_ENOMEM, "no memory for the mapping's handle");
	if (io_device(root->d)) {
		if ((ret = io_map(root, a)) < 0) {
			alloc_discard(a);
			return ret;
		}
		host = a->io_host;
	}
	for (int tries = 0; tries < 2 && m == RIG_MAP_NO_ROOM; tries++) {
		if (tries)
			alloc_reclaim(d2);
		if (!root->bytes) {
			m = RIG_MAPS;
		} else if (submit_call_enter(&d2->sub)) {
			m = map(d2, root, &a->region, &delta, host);
			if (m == RIG_MAPS)
				d2->ops->locate(d2->handle, a->region, &a->loc);
			submit_call_leave(&d2->sub);
		} else {
			io_unmap(a);
			alloc_discard(a);
			return device_check_live(NULL, d2);
		}
	}
	if (m != RIG_MAPS) {
		io_unmap(a);
		alloc_discard(a);
		return m == RIG_MAP_NEVER ?
		       rig_cause(RIG_EINVAL, "%s does not map %s's memory", d2->name, root->d->name) :
		       rig_cause(RIG_ENOMEM, "%s has no room to map %llu bytes of %s",
				 d2->name, (unsigned long long)root->bytes, root->d->name);
	}
	if (a->region) {
		a->loc.address += delta;
		a->loc.host = host;
	}
	if ((ret = alloc_live(d2, a)) < 0) {
		if (a->region)
			d2->ops->free(d2->handle, a->region);
		io_unmap(a);
		alloc_discard(a);
		return ret;
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
