/* SPDX-License-Identifier: MIT */
/*
 * core/io.h: what the core knows of Io devices (io.c): which devices are
 * Io devices, what their library does, the files under their allocations,
 * and the host maps of files that borrowed buffers use. All of it comes
 * from the device's facts (facts.io, rig_edge.h), never from a driver's
 * own header.
 */
#ifndef CORE_IO_H
#define CORE_IO_H

#include <stdbool.h>

#include "core/device.h"

/* d is an Io device (opened by rig_open_io): its facts name a library.
 * Inline: every copy asks it of both ends. */
static inline bool
io_device(const struct rig_device *d)
{
	return d->facts.io != NULL;
}

/* d is an Io device whose library makes files by path (create, open). */
bool io_makes_files(const struct rig_device *d);

/* The Io library's handle of d, an Io device not yet lost (tests read
 * their library's switches and counters through it), else NULL. */
void *io_handle(const struct rig_device *d);

/*
 * Create the file at path on d (io_makes_files) with *bytes zero bytes
 * (create), or open the existing one with access and set *bytes to its
 * size. Call it under d's mem_lock with d seen live (so the handle is not
 * yet released). Refusals change nothing and record only their cause
 * (rig_cause): RIG_ELOST once the device is lost; RIG_EINVAL with the path
 * and the library's cause for a file it refuses, or a read-write open of a
 * file that only opens read-only; RIG_ENOMEM.
 */
int io_file_make(struct rig_device *d, const char *path, bool create,
		 enum rig_access access, void **file, uint64_t *bytes);

/*
 * Map root's file (root on an Io device) into host memory for the
 * borrowed allocation a: a->io_host is set (NULL for a file of no bytes),
 * and the map keeps the file open until io_unmap(a). RIG_EINVAL with the
 * cause where the library maps no file, or refuses this one.
 */
int io_map(struct alloc *root, struct alloc *a);
/* Undo io_map() once nothing uses a's memory; nothing if a has no map.
 * Also after the Io device ended. */
void io_unmap(struct alloc *a);

#endif
