/* SPDX-License-Identifier: MIT */
/*
 * amd/pci/lock.c: opens, resets and changes to the machine of AMD GPUs run
 * one at a time (docs/amd.md, Moving GPUs), each under this lock for its whole
 * run. Callers check callback_depth() first: a call from inside one of
 * rig's callbacks is refused instead of taking it.
 */
#include <pthread.h>

#include "amd/pci/pci.h"

static pthread_mutex_t machine_lock = PTHREAD_MUTEX_INITIALIZER;

void
pci_lock(void)
{
	pthread_mutex_lock(&machine_lock);
}

void
pci_unlock(void)
{
	pthread_mutex_unlock(&machine_lock);
}
