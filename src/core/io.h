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

/* The disk engine's handle of d where d is an Io device run by rig's disk
 * (io/disk.h), else NULL: only such a device makes files. */
void *io_disk(const struct rig_device *d);

/*
 * Map root's file (root on an Io device, with bytes) into host memory for
 * the borrowed allocation a: a->io_host is set, and the map keeps the file
 * open until io_unmap(a). RIG_EINVAL with the cause where mmap refuses.
 */
int io_map(struct alloc *root, struct alloc *a);
/* Undo io_map() once nothing uses a's memory; nothing if a has no map. */
void io_unmap(struct alloc *a);

#endif
