/* SPDX-License-Identifier: MIT */
/*
 * host/guard.c: the fault handlers and the alternate stacks of the host
 * device's threads (guard.h states the design). The handlers are
 * installed once per process, with SA_ONSTACK (a kernel that overflows
 * its stack still reaches the handler) and SA_NODEFER (the jump out of the
 * handler leaves the signal unblocked, so sigsetjmp need not save the
 * mask: no system call per arming).
 *
 * No library contains faults of code in the same process; libsigsegv
 * handles stack overflow and page faults for garbage collectors, not
 * SIGFPE or SIGILL, nor chaining per thread, so this is written here.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "host/guard.h"

#define GUARD_STACK_BYTES	(64u << 10)

static const int guarded_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
#define NGUARDED	(sizeof(guarded_signals) / sizeof(guarded_signals[0]))

/* The actions before rig's: a fault rig does not take goes there.
 * Written under install_lock, when an open finds rig's handler gone; the
 * handler reads them unlocked (a lock is no use in a handler), so a
 * program fault that lands during such an open may chain to the action
 * being replaced: either one the program installed. */
static struct sigaction previous[NGUARDED];
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

/* The guard of the thread that runs this, or NULL for a thread not rig's. */
static _Thread_local struct host_guard *self;

static uintptr_t
pc_of(void *context)
{
	ucontext_t *uc = context;

	if (!uc)
		return 0;
#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	return 0;
#endif
}

/* Whether a signal was sent (kill, tgkill, sigqueue) rather than raised
 * by the CPU for the instruction that runs. */
static bool
sent(const siginfo_t *si)
{
	return si->si_code <= 0;
}

/* The action that was there before rig's, as the kernel would have run it. */
static void
chain(size_t i, int sig, siginfo_t *si, void *context)
{
	const struct sigaction *old = &previous[i];
	struct sigaction dfl;

	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction) {
			old->sa_sigaction(sig, si, context);
			return;
		}
	} else if (old->sa_handler == SIG_IGN) {
		if (sent(si))
			return;		/* ignored, as before */
	} else if (old->sa_handler != SIG_DFL) {
		old->sa_handler(sig);
		return;
	}
	/* The default: the process ends as it would have without rig. A
	 * CPU fault runs its instruction again on return, and faults into
	 * the default action; a sent signal is sent again. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (sent(si))
		raise(sig);
}

static void
on_signal(int sig, siginfo_t *si, void *context)
{
	struct host_guard *g = self;
	int saved = errno;
	size_t i;

	if (g && atomic_load_explicit(&g->armed, memory_order_relaxed)) {
		bool interrupt = sent(si) && sig == SIGSEGV &&
				 atomic_exchange_explicit(&g->interrupt, false, memory_order_acquire);

		if (!sent(si) || interrupt) {
			atomic_store_explicit(&g->armed, 0, memory_order_relaxed);
			g->jumped = true;
			g->fault = (struct host_fault){
				.sig = sig, .code = si->si_code,
				.addr = (uintptr_t)si->si_addr,
				.pc = interrupt ? 0 : pc_of(context),
				.interrupted = interrupt,
			};
			siglongjmp(g->jump, 1);
		}
	}
	/* An interrupt that came after its kernel returned: nothing to do. */
	if (g && sent(si) && sig == SIGSEGV &&
	    atomic_exchange_explicit(&g->interrupt, false, memory_order_acquire)) {
		errno = saved;
		return;
	}
	errno = saved;
	for (i = 0; i < NGUARDED; i++)
		if (guarded_signals[i] == sig)
			chain(i, sig, si, context);
}

/*
 * Install rig's action for each guarded signal where it is not the
 * current one, keeping the current as the one to chain to. Called at
 * each open, so a program (or a test harness) that set its own handler
 * after an earlier open has faults contained again on the next one, its
 * handler kept as the one to chain to.
 */
int
host_guard_install(char *why, size_t why_len)
{
	struct sigaction sa, now;
	size_t i;
	int err = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	pthread_mutex_lock(&install_lock);
	for (i = 0; i < NGUARDED && !err; i++) {
		if (sigaction(guarded_signals[i], NULL, &now) != 0) {
			err = errno;
			break;
		}
		if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_signal)
			continue;
		previous[i] = now;
		if (sigaction(guarded_signals[i], &sa, NULL) != 0)
			err = errno;
	}
	pthread_mutex_unlock(&install_lock);
	if (err) {
		snprintf(why, why_len, "cannot install the handlers that contain kernels' faults: %s",
			 strerror(err));
		return -err;
	}
	return 0;
}

int
host_guard_prepare(struct host_guard *g)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	atomic_init(&g->armed, 0);
	atomic_init(&g->interrupt, false);
	atomic_init(&g->live, false);
	g->stack_bytes = GUARD_STACK_BYTES;
	/* One page below the stack stays unmapped: an overflow of the
	 * handler's own stack faults rather than corrupting memory. */
	p = mmap(NULL, g->stack_bytes + (size_t)page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	mprotect(p, (size_t)page, PROT_NONE);
	g->stack = p;
	return 0;
}

void
host_guard_begin(struct host_guard *g)
{
	long page = sysconf(_SC_PAGESIZE);
	stack_t ss = { .ss_sp = (char *)g->stack + page, .ss_size = g->stack_bytes };

	/* It fails only on the alternate stack or for a bad size, neither of
	 * which holds here; without it a stack overflow is not contained. */
	(void)sigaltstack(&ss, NULL);
	g->thread = pthread_self();
	self = g;
	atomic_store_explicit(&g->live, true, memory_order_release);
}

void
host_guard_end(struct host_guard *g)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	atomic_store_explicit(&g->live, false, memory_order_release);
	self = NULL;
	sigaltstack(&ss, NULL);
}

bool
host_guard_borrow(struct host_guard *g)
{
	long page = sysconf(_SC_PAGESIZE);
	stack_t now, ss = { .ss_sp = (char *)g->stack + page, .ss_size = g->stack_bytes };
	sigset_t mask;
	size_t i;

	if (self && self != g)
		return false;	/* a device's thread: it has its own guard */
	if (pthread_sigmask(SIG_BLOCK, NULL, &mask) != 0)
		return false;
	g->mask = mask;
	g->jumped = false;
	for (i = 0; i < NGUARDED; i++)
		if (sigismember(&mask, guarded_signals[i]))
			return false;
	if (sigaltstack(NULL, &now) != 0 || (now.ss_flags & SS_ONSTACK))
		return false;
	/* Without an alternate stack only a stack overflow goes uncontained:
	 * a failed sigaltstack leaves the rest guarded. */
	g->own_stack = (now.ss_flags & SS_DISABLE) && sigaltstack(&ss, NULL) == 0;
	g->thread = pthread_self();
	self = g;
	atomic_store_explicit(&g->live, true, memory_order_release);
	return true;
}

void
host_guard_return(struct host_guard *g)
{
	stack_t ss = { .ss_flags = SS_DISABLE };

	atomic_store_explicit(&g->live, false, memory_order_release);
	if (g->own_stack)
		sigaltstack(&ss, NULL);
	g->own_stack = false;
	if (g->jumped)
		pthread_sigmask(SIG_SETMASK, &g->mask, NULL);
	g->jumped = false;
}

bool
host_guard_keep(struct host_guard *g)
{
	if (!g->kept) {
		if (!host_guard_borrow(g))
			return false;
		g->kept = true;
		return true;
	}
	if (self && self != g)
		return false;
	g->jumped = false;
	self = g;
	atomic_store_explicit(&g->live, true, memory_order_release);
	return true;
}

void
host_guard_keep_return(struct host_guard *g)
{
	atomic_store_explicit(&g->live, false, memory_order_release);
	if (g->jumped)
		pthread_sigmask(SIG_SETMASK, &g->mask, NULL);
	g->jumped = false;
}

void
host_guard_unkeep(struct host_guard *g)
{
	long page = sysconf(_SC_PAGESIZE);
	stack_t now, ss = { .ss_flags = SS_DISABLE };

	if (!g->kept)
		return;
	g->kept = false;
	/* g's stack, whoever borrowed last (a waiter's borrow of a kept
	 * guard finds it installed and leaves it). */
	if (g->stack && sigaltstack(NULL, &now) == 0 &&
	    now.ss_sp == (char *)g->stack + page && !(now.ss_flags & SS_ONSTACK))
		sigaltstack(&ss, NULL);
	g->own_stack = false;
}

void
host_guard_forget(struct host_guard *g)
{
	if (self == g)
		self = NULL;
}

void
host_guard_release(struct host_guard *g)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!g->stack)
		return;
	munmap(g->stack, g->stack_bytes + (size_t)page);
	g->stack = NULL;
}

void
host_guard_interrupt(struct host_guard *g)
{
	/* Acquire pairs with begin's release: thread is written. The
	 * thread is joined only after the interrupts, so it is valid. */
	if (!atomic_load_explicit(&g->live, memory_order_acquire) ||
	    !atomic_load_explicit(&g->armed, memory_order_relaxed))
		return;
	/* Release pairs with the handler's acquire exchange. */
	atomic_store_explicit(&g->interrupt, true, memory_order_release);
	pthread_kill(g->thread, SIGSEGV);
}

const char *
host_fault_name(const struct host_fault *f)
{
	if (f->interrupted)
		return "stopped while it ran";
	switch (f->sig) {
	case SIGSEGV:
		return f->code == SEGV_ACCERR ? "SIGSEGV (access not permitted)" :
		       f->code == SEGV_MAPERR ? "SIGSEGV (address not mapped)" : "SIGSEGV";
	case SIGBUS:
		return f->code == BUS_ADRALN ? "SIGBUS (misaligned address)" :
		       f->code == BUS_ADRERR ? "SIGBUS (no such physical address)" : "SIGBUS";
	case SIGFPE:
		return f->code == FPE_INTDIV ? "SIGFPE (integer divide by zero)" :
		       f->code == FPE_INTOVF ? "SIGFPE (integer overflow)" : "SIGFPE";
	case SIGILL:
		return f->code == ILL_ILLOPC || f->code == ILL_ILLOPN ?
		       "SIGILL (illegal instruction)" : "SIGILL";
	default:
		return "a signal";
	}
}
