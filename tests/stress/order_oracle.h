/* SPDX-License-Identifier: MIT */
/*
 * tests/stress/order_oracle.h: the order oracle of test_stress_order and
 * test_amd_stress_order (docs/order.md, rule 3). Every claim is logged in
 * the order it landed (order_on_claim, set as claim_trace: it runs under
 * the allocation's lock), and the test records when each value's work
 * started and ended on one global clock (order_clock). order_check() then
 * proves, for every pair of claims of one allocation that conflict (either
 * writes, and they share a word), that the later one's work started after
 * the earlier one's ended; run_of names the record of a value of a slot.
 * Header-only: each test is its own program.
 */
#ifndef TESTS_STRESS_ORDER_ORACLE_H
#define TESTS_STRESS_ORDER_ORACLE_H

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/device.h"

#define ORDER_MAXLOG (1 << 20)

struct claim_rec { struct alloc *a; uint64_t lo, hi; int kind; uint32_t slot; uint64_t value; };
struct run_rec { uint64_t start, end; };

static struct claim_rec order_claims[ORDER_MAXLOG];
static _Atomic uint64_t order_nclaims;
static _Atomic uint64_t order_clock_seq = 1;

static void
order_on_claim(const struct use *u, struct stamp st)
{
	uint64_t i = atomic_fetch_add(&order_nclaims, 1);

	if (i < ORDER_MAXLOG)
		order_claims[i] = (struct claim_rec){ u->a, u->lo, u->hi, u->kind, st.slot, st.value };
}

/* Stamp r's start or end with the next tick of the one clock. */
static void
order_stamp(struct run_rec *r, int end)
{
	uint64_t t = atomic_fetch_add(&order_clock_seq, 1);

	__atomic_store_n(end ? &r->end : &r->start, t, __ATOMIC_RELEASE);
}

/* Every conflicting pair of claims of one allocation ran in claim order:
 * the number of such pairs, or exit(1) naming the first that did not. */
static uint64_t
order_check(struct run_rec *(*run_of)(uint32_t slot, uint64_t value))
{
	uint64_t n = atomic_load(&order_nclaims), pairs = 0;

	if (n > ORDER_MAXLOG) {
		fprintf(stderr, "%llu claims, more than the log holds\n", (unsigned long long)n);
		exit(1);
	}
	for (uint64_t j = 0; j < n; j++) {
		struct run_rec *rj = run_of(order_claims[j].slot, order_claims[j].value);

		for (uint64_t i = j; i-- > 0;) {
			const struct claim_rec *ci = &order_claims[i], *cj = &order_claims[j];
			struct run_rec *ri;

			if (ci->a != cj->a || ci->hi <= cj->lo || cj->hi <= ci->lo ||
			    (ci->kind != USE_WRITE && cj->kind != USE_WRITE) ||
			    (ci->slot == cj->slot && ci->value == cj->value))
				continue;
			ri = run_of(ci->slot, ci->value);
			pairs++;
			if (!(ri->end && rj->start > ri->end)) {
				fprintf(stderr, "claim %llu (slot %u value %llu) ran [%llu, %llu], "
					"but it follows claim %llu (slot %u value %llu) that ran [%llu, %llu]\n",
					(unsigned long long)j, cj->slot, (unsigned long long)cj->value,
					(unsigned long long)rj->start, (unsigned long long)rj->end,
					(unsigned long long)i, ci->slot, (unsigned long long)ci->value,
					(unsigned long long)ri->start, (unsigned long long)ri->end);
				exit(1);
			}
		}
	}
	return pairs;
}

#endif
