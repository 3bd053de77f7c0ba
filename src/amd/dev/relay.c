/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/relay.c: waits on Store producers whose word this GPU cannot
 * read. The device declares that its queues wait for Store producers
 * (facts.waits.stores), so rig hands its submit every wait on one, also on
 * a device that is no AMD GPU of this machine (a polled device that
 * completes by store, an AMD GPU behind an IOMMU or of another machine):
 * its word is rig's, in process memory no DMA of the GPU reaches. For
 * those, a host thread of the device's own copies the producer's word into
 * a relay word in this GPU's VRAM (through the memory BAR), and the
 * compute queue's WAIT_REG_MEM64 waits on the relay word instead. The word
 * only moves forward, and the relay stores only values it read from it, so
 * the relay word never shows a value the producer's word did not.
 *
 * The thread starts at the first such wait, looks every 50 us while a
 * relay word is below a value a wait asked for, and sleeps on a condition
 * variable otherwise (no wake-up while nothing waits). It reads no word
 * through rig (it links no rig symbol: the open's layout test links
 * amd/ alone), so it polls rather than sleeping on the producer's word.
 *
 * A slot keeps its word until the device's own word shows the last value
 * that waited on it: only then can no queued WAIT_REG_MEM64 still read it,
 * and it may serve another word (its relay word reset to 0 first). With
 * every one of AMD_RELAY_SLOTS held by waits still queued, submit waits for
 * the producer on the host instead, before it encodes the value (bounded
 * by the producer: a lost producer's word is raised at its stop).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "amd/dev/dev.h"

#define LOOK_NS		50000

static _Atomic uint64_t *
relay_word(struct amd_dev *d, int k)
{
	return (_Atomic uint64_t *)(d->vram + AMD_RELAY_AT + 8u * (unsigned)k);
}

static void
nap(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

static void *
relay_main(void *arg)
{
	struct amd_dev *d = arg;

	pthread_mutex_lock(&d->relay_lock);
	while (!d->relay_quit) {
		bool pending = false;

		for (int k = 0; k < AMD_RELAY_SLOTS; k++) {
			struct amd_relay_slot *s = &d->relay[k];
			uint64_t v;

			if (!s->word)
				continue;
			v = atomic_load_explicit(s->word, memory_order_acquire);
			if (v > s->shown) {
				s->shown = v;
				atomic_store_explicit(relay_word(d, k), v, memory_order_release);
				/* Out of a write-combined BAR window before the GPU looks. */
				atomic_thread_fence(memory_order_seq_cst);
			}
			pending |= s->want > s->shown;
		}
		if (pending) {
			pthread_mutex_unlock(&d->relay_lock);
			nap(LOOK_NS);
			pthread_mutex_lock(&d->relay_lock);
		} else {
			pthread_cond_wait(&d->relay_cond, &d->relay_lock);
		}
	}
	pthread_mutex_unlock(&d->relay_lock);
	return NULL;
}

void
amd_relay_init(struct amd_dev *d)
{
	pthread_mutex_init(&d->relay_lock, NULL);
	pthread_cond_init(&d->relay_cond, NULL);
	memset(d->vram + AMD_RELAY_AT, 0, 8u * AMD_RELAY_SLOTS);
}

/* The slot serving word, or one free for it (under relay_lock); -1: none. */
static int
slot_for(struct amd_dev *d, const _Atomic uint64_t *word)
{
	uint64_t done = amd_dev_word(d);
	int free_at = -1;

	for (int k = 0; k < AMD_RELAY_SLOTS; k++) {
		struct amd_relay_slot *s = &d->relay[k];

		if (s->word == word)
			return k;
		if (free_at < 0 && (!s->word || s->last_use <= done))
			free_at = k;
	}
	if (free_at >= 0) {
		d->relay[free_at] = (struct amd_relay_slot){ word, 0, 0, 0 };
		atomic_store_explicit(relay_word(d, free_at), 0, memory_order_release);
	}
	return free_at;
}

int
amd_relay_va(struct amd_dev *d, const _Atomic uint64_t *word, uint64_t want,
	     uint64_t value, uint64_t *va)
{
	int k, ret;

	pthread_mutex_lock(&d->relay_lock);
	if (!d->relay_started) {
		if ((ret = pthread_create(&d->relay_thread, NULL, relay_main, d)) != 0) {
			pthread_mutex_unlock(&d->relay_lock);
			snprintf(d->fault, sizeof(d->fault), "no thread to relay a "
				 "producer's word to the GPU: %s", strerror(ret));
			return -EAGAIN;
		}
		d->relay_started = true;
	}
	k = slot_for(d, word);
	if (k >= 0) {
		struct amd_relay_slot *s = &d->relay[k];

		if (want > s->want)
			s->want = want;
		s->last_use = value;
		pthread_cond_signal(&d->relay_cond);
	}
	pthread_mutex_unlock(&d->relay_lock);
	if (k < 0) {
		/* Every slot is held by queued waits: wait here instead. */
		while (atomic_load_explicit(word, memory_order_acquire) < want)
			nap(LOOK_NS);
		return 1;
	}
	*va = AMD_VA_VRAM + AMD_RELAY_AT + 8u * (unsigned)k;
	return 0;
}

void
amd_relay_stop(struct amd_dev *d)
{
	bool started;

	pthread_mutex_lock(&d->relay_lock);
	d->relay_quit = true;
	started = d->relay_started;
	d->relay_started = false;
	pthread_cond_signal(&d->relay_cond);
	pthread_mutex_unlock(&d->relay_lock);
	if (started)
		pthread_join(d->relay_thread, NULL);
}

void
amd_relay_fini(struct amd_dev *d)
{
	amd_relay_stop(d);
	pthread_cond_destroy(&d->relay_cond);
	pthread_mutex_destroy(&d->relay_lock);
}
