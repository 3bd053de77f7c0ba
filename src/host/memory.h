/*
 * host/memory.h: the memory device's opener (rig_memory_device() in core
 * uses it; the driver itself knows only rig_edge.h).
 */
#ifndef HOST_MEMORY_H
#define HOST_MEMORY_H

#include "rig_edge.h"

/* An opener of a memory device named name (the string must outlive it). */
void memory_opener(const char *name, struct rig_opener *out);

#endif
