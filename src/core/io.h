/*
 * core/io.h: what the core knows of Io devices (io.c, files.c): which
 * devices are Io devices, their library's handle, the files under their
 * allocations, and the host maps of files that borrowed buffers use.
 */
#ifndef CORE_IO_H
#define CORE_IO_H

#include <stdbool.h>

#include "core/device.h"

/* d is an Io device (opened by rig_open_io). */
bool io_device(const struct rig_device *d);

/* d is an Io device run by rig's disk (io/disk.h): only such a device
 * makes files, and maps them for borrowing. */
bool io_is_disk(const struct rig_device *d);

/* The disk engine's handle of d, a disk not yet ended (tests read its
 * switches and counters through it), else NULL. */
void *io_disk(const struct rig_device *d);

/*
 * Create the file at path on the disk d with *bytes zero bytes (create),
 * or open the existing one with access and set *bytes to its size. Call
 * it under d's mem_lock with d seen live (so the handle is not yet
 * released). Refusals change nothing and record only their cause
 * (rig_cause): RIG_ELOST once the disk stopped; RIG_EINVAL with the path
 * and errno's text for a file the system refuses, or a read-write open of
 * a file that only opens read-only; RIG_ENOMEM.
 */
int io_file_make(struct rig_device *d, const char *path, bool create,
		 enum rig_access access, void **file, uint64_t *bytes);

/*
 * Map root's file (root on an Io device, with bytes) into host memory for
 * the borrowed allocation a: a->io_host is set, and the map keeps the file
 * open until io_unmap(a). RIG_EINVAL with the cause where mmap refuses.
 */
int io_map(struct alloc *root, struct alloc *a);
/* Undo io_map() once nothing uses a's memory; nothing if a has no map. */
void io_unmap(struct alloc *a);

#endif
