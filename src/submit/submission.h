/* SPDX-License-Identifier: MIT */
/*
 * submit/submission.h: prepared submissions and their runs (docs/submissions.md).
 *
 * A submission is made once: its parts validated, placed on queues with
 * their follow lists (submit/place.c), and its driver parts kept in dparts,
 * whose scratch persists from one driver call to the next (only the
 * device's submission thread touches dparts, under the driver lock). Each
 * submit copies what varies (copy ends that are slots, a launch's block
 * with refs placed) into a job, which fills dparts just before room.
 *
 * Lifetimes: the program's reference and each taken run hold the
 * submission; once the last goes, it lets go of its buffers, images and
 * keep when the work of its last value is done (a job in flight takes no
 * reference: a submit costs no atomic on a line the device's thread
 * writes).
 */
#ifndef CORE_SUBMISSION_H
#define CORE_SUBMISSION_H

#include <stdalign.h>

#include <ck_stack.h>

#include "core/device.h"
#include "core/image.h"

#define BLOCK_HEADER 32
#define FILL_HEADER 16		/* before a fill's argument in a job: its function */		/* grid[3], group[3], 8 spare bytes */
#define PARAMS_MAX ((1ll << 31) - BLOCK_HEADER)
/* The most slots a submission has (rig.h, RIG_SLOTS_MAX): a slot names one
 * of a submit's buffers, and a higher one would only have make allocate a
 * slot table for buffers no submit passes. */
#define SLOTS_MAX RIG_SLOTS_MAX

struct block {
	uint32_t grid[3];
	uint32_t group[3];
	uint32_t spare[2];
};
_Static_assert(sizeof(struct block) == BLOCK_HEADER, "a block's header");

/* What each slot is used for, over all parts. */
enum {
	SLOT_READ = 1,		/* ordered read by a copy or a ref */
	SLOT_WRITE = 2,		/* ordered write by a copy or a ref */
	SLOT_WRITABLE = 4,	/* written (ordered or not): must admit writes */
	SLOT_ADDRESSED = 8,	/* a ref places its address: the device addresses it */
	SLOT_COPY = 16,		/* an end of a copy */
};

struct sub_part {
	enum rig_part_kind kind;
	struct rig_side src, dst;	/* copy: buffers are the submission's own views */
	struct rig_function *fn;	/* launch */
	rig_fill_fn fill;		/* fill */
	uint32_t params;		/* launch, fill */
	struct rig_ref *refs;
	size_t nrefs;
	struct rig_buffer *words;	/* words: the submission's own view */
	size_t block;			/* launch, fill: offset of its block in a run */
	size_t arg;			/* launch, fill: offset of its params in a job */
};

struct rig_run {
	struct rig_submission *s;
	uint32_t index;
	ck_stack_entry_t entry;		/* the free stack's link */
	unsigned char *bytes;		/* the blocks, run_bytes */
	/* The last value submitted through this run: its taker's alone (a
	 * run has one taker at a time, and values drawn through it only
	 * grow, each taker's after the last one's give back), read by the
	 * submission's last put (submission_last). Not for the shared run,
	 * which many take at once: last_value, a compare-and-swap, is. */
	uint64_t last;
};

#define RUN_CHUNK 64
#define RUN_CHUNKS 1024

struct rig_submission {
	struct rig_device *d;
	_Atomic uint32_t refs;		/* the program's, and each taken run's */
	_Atomic uint64_t last_value;	/* the last value submitted through its shared run */
	struct sub_part *parts;
	size_t nparts;
	struct rig_part *dparts;	/* the driver's view; see above */
	size_t nslots;
	uint8_t *slot_use;
	struct rig_fixed *fixed;	/* buffers are the submission's own views */
	size_t nfixed;
	struct rig_keep keep;
	size_t run_bytes;		/* bytes of a run's blocks */
	size_t arg_bytes;		/* bytes of a job's params */
	size_t job_args_at, job_waits_at;	/* where a job's params and waits start
						 * (submitting.c, job_layout) */
	size_t nheld;			/* buffers each taken run holds (hold.c): fixed, and
				 * named by parts; 0 spares a take and a submit the walk */
	/* Runs: the lone taker's cache, then a lock-free stack (ck_stack,
	 * tagged against ABA), over chunks that never move. The cached run
	 * keeps the reference it was taken with (runs.c), until the program's
	 * release (released) takes it back. */
	struct rig_run *_Atomic cached;
	_Atomic bool released;		/* rig_submission_release() was called */
	alignas(16) ck_stack_t free_runs;	/* 16-byte aligned: a double-width CAS */
	_Atomic uint32_t nruns;
	struct rig_run *_Atomic chunk[RUN_CHUNKS];
	struct rig_run shared;		/* the byteless run (run_bytes == 0) */
};

/* submitting.c: the job's layout, what of it the parts decide, at make. */
void submitting_layout(struct rig_submission *s);
void submission_get(struct rig_submission *s);
/* hold.c: a taken run holds its submission's buffers (delta +1, then -1). */
void submission_hold(struct rig_submission *s, int delta);
void submission_put(struct rig_submission *s);
/* The last value submitted through s, by any run: once no run is taken
 * (its last put). */
uint64_t submission_last(const struct rig_submission *s);
/* runs.c: give a run back (cache, else the free stack); the program's
 * release, which takes back the reference the cached run keeps. */
void run_give_back(struct rig_run *r);
void runs_release(struct rig_submission *s);

#endif
