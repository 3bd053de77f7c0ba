/*
 * timeline/state.c: what a value's state is (reached, signaled, dropped) and
 * the loss that ends a timeline. Never blocks.
 *
 * A value is reached when the word shows it and it was not dropped; it is
 * signaled when it was reached or dropped. A loss records the word's value
 * at that moment (lost_at): every value above it is dropped, even if the
 * driver's word later passes it, since the device's work is no longer
 * trusted.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/futex.h"
#include "timeline/timeline.h"

void
timeline_raise(_Atomic uint64_t *a, uint64_t v)
{
	uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);

	while (cur < v &&
	       !atomic_compare_exchange_weak_explicit(a, &cur, v,
			memory_order_acq_rel, memory_order_relaxed))
		;
}

uint64_t
timeline_word(struct timeline *tl)
{
	/* Pairs with the driver's release store of the word: the work's
	 * results are visible once the value is. */
	uint64_t w = atomic_load_explicit(tl->word, memory_order_acquire);

	if (tl->signaled) {
		uint64_t own = tl->signaled(tl->signaled_arg);

		if (own > w) {
			timeline_raise(tl->word, own);
			w = own;
		}
	}
	return w;
}

bool
timeline_reached(struct timeline *tl, uint64_t v)
{
	if (timeline_word(tl) < v)
		return false;
	if (atomic_load_explicit(&tl->lost, memory_order_acquire) == NULL)
		return true;
	return v <= atomic_load(&tl->lost_at);
}

bool
timeline_signaled(struct timeline *tl, uint64_t v)
{
	return atomic_load_explicit(&tl->lost, memory_order_acquire) != NULL ||
	       timeline_word(tl) >= v;
}

void
timeline_wake(struct timeline *tl)
{
	atomic_fetch_add_explicit(tl->futex, 1, memory_order_release);
	if (atomic_load(&tl->waiters))
		futex_wake_all(tl->futex);
}

bool
timeline_lose(struct timeline *tl, const char *reason)
{
	static pthread_mutex_t lose_lock = PTHREAD_MUTEX_INITIALIZER;
	static char no_memory[] = "lost (no memory to keep the reason)";
	char *why;

	pthread_mutex_lock(&lose_lock);
	if (atomic_load(&tl->lost)) {
		pthread_mutex_unlock(&lose_lock);
		return false;
	}
	why = strdup(reason);
	atomic_store(&tl->lost_at, timeline_word(tl));
	/* Pairs with the acquire loads of lost: whoever sees the loss sees
	 * lost_at. */
	atomic_store_explicit(&tl->lost, why ? why : no_memory,
			      memory_order_release);
	pthread_mutex_unlock(&lose_lock);
	timeline_wake(tl);
	return true;
}

/* Free the reason a loss kept (at the device's end). */
void
timeline_forget(struct timeline *tl)
{
	char *why = atomic_exchange(&tl->lost, NULL);

	if (why && strncmp(why, "lost (no memory", 15))
		free(why);
}
