/* SPDX-License-Identifier: MIT */
/*
 * core/image.h: images and functions, as the submission code sees them.
 */
#ifndef CORE_IMAGE_H
#define CORE_IMAGE_H

#include "core/device.h"

struct rig_function {
	struct rig_image *img;
	struct rig_entry entry;
	char *name;
	struct rig_function *next;
};

struct rig_image {
	struct rig_device *d;
	void *image;			/* the driver's */
	struct alloc *placed;		/* Device memory rig placed the code in, or NULL */
	_Atomic uint32_t refs;		/* the program's, and each submission's */
	bool unloaded;			/* under d->mem_lock */
	pthread_mutex_t lock;		/* fns */
	struct rig_function *fns;
	struct rig_image *prev, *next;	/* d's images, under d->mem_lock */
};

void image_get(struct rig_image *img);
void image_put(struct rig_image *img);
/* At the device's end: unload every image still held. Under d->mem_lock. */
void image_end_all_locked(struct rig_device *d);

#endif
