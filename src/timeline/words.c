/* SPDX-License-Identifier: MIT */
/*
 * timeline/words.c: the process-wide array of timeline words and who holds
 * each slot. A slot is taken at open and given back at the device's end;
 * the word keeps its value, so the next device's values start above it.
 * Slots change hands rarely: a mutex guards the free list.
 *
 * Beside each word, the event count its waits sleep on (util/ec.h, wait.c):
 * rig bumps it when it sees the word move (the poller) or loses the device,
 * and a driver that stored the word itself may bump it at once
 * (rig_word_wake()).
 */
#include <pthread.h>
#include <time.h>

#include "util/ec.h"
#include "timeline/timeline.h"

_Atomic uint64_t rig_words[RIG_WORD_SLOTS];
static struct ck_ec32 word_ec[RIG_WORD_SLOTS];

static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static bool slot_taken[RIG_WORD_SLOTS];

uint64_t
rig_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
timeline_slot_take(struct timeline *tl)
{
	int slot = -1;

	pthread_mutex_lock(&slot_lock);
	for (int i = 0; i < RIG_WORD_SLOTS; i++) {
		if (!slot_taken[i]) {
			slot_taken[i] = true;
			slot = i;
			break;
		}
	}
	pthread_mutex_unlock(&slot_lock);
	tl->slot = slot;
	if (slot < 0)
		return -1;
	tl->word = &rig_words[slot];
	tl->futex = &word_ec[slot];
	return slot;
}

void
rig_word_wake(const _Atomic uint64_t *word)
{
	/* Addresses, not a pointer difference: word may lie anywhere. */
	uintptr_t off = (uintptr_t)word - (uintptr_t)rig_words;

	if (off >= sizeof(rig_words) || off % sizeof(rig_words[0]))
		return;
	/* After the driver's store of the word (see timeline_wake()). */
	ck_ec32_inc(&word_ec[off / sizeof(rig_words[0])], ec_mp());
}

bool
rig_word_sleep(const _Atomic uint64_t *word, uint64_t value, uint64_t timeout_ns)
{
	uintptr_t off = (uintptr_t)word - (uintptr_t)rig_words;
	struct timespec until;
	struct ck_ec32 *ec;
	uint64_t end;
	uint32_t f;

	if (!word)
		return false;
	if (off >= sizeof(rig_words) || off % sizeof(rig_words[0])) {
		nanosleep(&(struct timespec){ (time_t)(timeout_ns / 1000000000u),
					      (long)(timeout_ns % 1000000000u) }, NULL);
		return atomic_load_explicit(word, memory_order_acquire) >= value;
	}
	ec = &word_ec[off / sizeof(rig_words[0])];
	/* The count, then the look (wait.c says why no wake is lost). */
	f = ck_ec32_value(ec);
	if (atomic_load_explicit(word, memory_order_acquire) >= value)
		return true;
	end = rig_now_ns() + timeout_ns;
	until = (struct timespec){ (time_t)(end / 1000000000u), (long)(end % 1000000000u) };
	ec32_wait_until(ec, ec_mp(), f, &until);
	return atomic_load_explicit(word, memory_order_acquire) >= value;
}

void
timeline_start(struct timeline *tl)
{
	uint64_t b = atomic_load_explicit(tl->word, memory_order_acquire);

	tl->base = b;
	atomic_store(&tl->issued, b);
	atomic_store(&tl->submitted, b);
	atomic_store(&tl->committed, b);
	atomic_store(&tl->commit_want, b);
}

void
timeline_slot_give(struct timeline *tl)
{
	if (tl->slot < 0)
		return;
	pthread_mutex_lock(&slot_lock);
	slot_taken[tl->slot] = false;
	pthread_mutex_unlock(&slot_lock);
	tl->slot = -1;
}

int
timeline_slots_taken(void)
{
	int n = 0;

	pthread_mutex_lock(&slot_lock);
	for (int i = 0; i < RIG_WORD_SLOTS; i++)
		n += slot_taken[i];
	pthread_mutex_unlock(&slot_lock);
	return n;
}

void
words_fork_prepare(void)
{
	pthread_mutex_lock(&slot_lock);
}

void
words_fork_after(void)
{
	pthread_mutex_unlock(&slot_lock);
}
