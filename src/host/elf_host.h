/* SPDX-License-Identifier: MIT */
/*
 * host/elf_host.h: the host functions a loaded object may call by name:
 * the few a freestanding compile still emits calls to (memcpy, memset,
 * memmove, memcmp) and libm's, bound to the host's own.
 */
#ifndef HOST_ELF_HOST_H
#define HOST_ELF_HOST_H

/* The host's function of that name, or NULL if objects may not call it. */
void *elf_host_symbol(const char *name);

#endif
