/* SPDX-License-Identifier: MIT */
/*
 * util/membar.c: membar.h's registration and slow side. A child of fork()
 * starts unregistered (the state is its address space's), so a refusal
 * registers again once; registered, the call cannot fail, and a fast side
 * that skipped its fence must not go unseen.
 */
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/membar.h"

_Atomic bool membar_asymmetric;

static void
register_once(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		atomic_store(&membar_asymmetric, true);
}

void
membar_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, register_once);
}

void
membar_slow(void)
{
	if (!atomic_load_explicit(&membar_asymmetric, memory_order_relaxed)) {
		atomic_thread_fence(memory_order_seq_cst);
		return;
	}
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return;
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0 ||
	    syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		abort();
}
