/* SPDX-License-Identifier: MIT */
/*
 * host/guard.h: containing a host kernel's faults, as a GPU's driver
 * contains a VM fault. Each of the host device's threads (its device
 * thread and its workers) owns a struct host_guard: an alternate signal
 * stack and a jump buffer. While the thread runs kernel code it is armed;
 * a SIGSEGV, SIGBUS, SIGFPE or SIGILL that the CPU raises on an armed
 * thread jumps back out of the kernel to where the thread armed itself,
 * with the fault's signal, code, address and instruction. Any other
 * fault, on any other thread or outside a kernel, goes to the handler
 * installed before rig's (the program's own, a sanitizer's, or the
 * default, which ends the process as it would have), so the program's own
 * crashes still crash.
 *
 * Interrupting: host_guard_interrupt() sends the thread a SIGSEGV by
 * tgkill (si_code SI_TKILL) with its interrupt flag set; an armed thread
 * leaves its kernel as from a fault (fault.interrupted), an unarmed one
 * ignores it. The device's stop uses it, so neither a close nor exit()
 * waits on a kernel that never returns.
 *
 * Why signals and jumps: a kernel shares the process, so the only way to
 * take a faulting or endless kernel back is on its own thread. Kernels
 * make no system call, take no lock and allocate nothing (rig_host.h), so
 * abandoning their frames leaves no state behind but what they wrote.
 * What cannot be contained: writes through valid addresses (a kernel that
 * corrupts its buffers, another image or the program's memory), and a
 * program that replaces these handlers after a host device opened.
 *
 *                    arm/disarm   handler   interrupt
 *   owner thread         X           X
 *   other threads                              X (flag, then tgkill)
 */
#ifndef HOST_GUARD_H
#define HOST_GUARD_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* What stopped a kernel. */
struct host_fault {
	int sig;		/* SIGSEGV, SIGBUS, SIGFPE or SIGILL */
	int code;		/* si_code */
	uintptr_t addr;		/* si_addr: the address that faulted */
	uintptr_t pc;		/* the faulting instruction, 0 if unknown */
	bool interrupted;	/* stopped by host_guard_interrupt(), not a fault */
};

struct host_guard {
	sigjmp_buf jump;
	_Atomic int armed;		/* the owner runs kernel code (lock-free: the handler reads it) */
	_Atomic bool interrupt;		/* host_guard_interrupt() asked */
	_Atomic bool live;		/* the owner thread has it, between begin and end */
	struct host_fault fault;	/* filled by the handler before the jump */
	pthread_t thread;
	void *stack;			/* the alternate signal stack */
	size_t stack_bytes;
	bool own_stack;			/* borrowed: this guard's stack is the thread's now */
	bool jumped;			/* the handler jumped out since the borrow */
	bool kept;			/* host_guard_keep(): borrowed for the thread's life */
	sigset_t mask;			/* borrowed: the thread's signal mask at the borrow */
};

/* Install the handlers where they are not installed now (each open
 * calls it). Returns 0, or a negative errno with why filled. */
int host_guard_install(char *why, size_t why_len);

/* Before the owner thread starts: its alternate stack. 0 or a negative
 * errno; release frees it once the thread is joined. */
int host_guard_prepare(struct host_guard *g);
void host_guard_release(struct host_guard *g);

/* On the owner thread, at its start and its end. */
void host_guard_begin(struct host_guard *g);
void host_guard_end(struct host_guard *g);

/*
 * A thread not the device's that runs kernel code for a while (a waiter
 * lent to the device: assist.c) borrows a guard of its own (prepared as
 * above): borrow at the start, return at the end. borrow answers false,
 * changing nothing, where the thread cannot contain a fault now: a
 * guarded signal is blocked (the kernel would end the process), it runs
 * on its alternate stack (in a signal handler), or it is a device's
 * thread. The thread's own alternate stack is kept where it has one, else
 * g's serves until the return. Once borrowed, g stays the thread's guard
 * (an interrupt that lands after the return is ignored, not chained)
 * until host_guard_forget(), at the thread's end. The return restores the
 * thread's signal mask where a fault jumped out meanwhile (a sanitizer's
 * handler may have blocked the signal around rig's, and the jump does not
 * restore it: the program's thread keeps its own mask).
 */
bool host_guard_borrow(struct host_guard *g);
void host_guard_return(struct host_guard *g);
void host_guard_forget(struct host_guard *g);

/*
 * A thread that runs kernels often and briefly (a submitter that runs its
 * values itself: here.c) keeps its borrow instead, so each run makes no
 * system call (a bare one costs about 1 us on this machine: more than a
 * 4 KiB request's kernel). keep borrows as above the first time and then
 * leaves the alternate stack installed and the checks made: the thread's
 * signal mask is checked at that first keep only (a thread that blocks a
 * guarded signal later is not contained: its fault ends the process, as
 * without rig), and a jump out restores the mask of that first keep.
 * keep_return ends one run; host_guard_unkeep(), on the thread at its
 * end, takes the stack back off (only if it is still g's).
 */
bool host_guard_keep(struct host_guard *g);
void host_guard_keep_return(struct host_guard *g);
void host_guard_unkeep(struct host_guard *g);

/*
 * HOST_GUARDED(g, faulted, body): run the statement body armed; set the
 * bool faulted to whether a fault or an interrupt left it (g->fault says
 * which). body must not return or jump out, and the caller's locals it
 * changes must be volatile. A macro because sigsetjmp must be called in
 * the frame the jump returns to.
 */
#define HOST_GUARDED(g, faulted, body)					\
	do {								\
		if (sigsetjmp((g)->jump, 0)) {				\
			(faulted) = true;				\
		} else {						\
			atomic_store_explicit(&(g)->armed, 1,		\
					      memory_order_relaxed);	\
			atomic_signal_fence(memory_order_seq_cst);	\
			body;						\
			atomic_signal_fence(memory_order_seq_cst);	\
			atomic_store_explicit(&(g)->armed, 0,		\
					      memory_order_relaxed);	\
			(faulted) = false;				\
		}							\
	} while (0)

/* From any thread: stop g's kernel, if it runs one now (see the top). */
void host_guard_interrupt(struct host_guard *g);

/* "SIGSEGV (address not mapped)"-style names of a fault, for messages. */
const char *host_fault_name(const struct host_fault *f);

#endif
