/* SPDX-License-Identifier: MIT */
/*
 * rig_host.h: the host kernel contract, for the code a host device runs
 * and the program that launches it. A kernel's source includes it alone
 * (it needs only <stdint.h>, so it builds freestanding); a program
 * includes it beside rig.h.
 *
 * The signature. A host kernel is
 *     RIG_HOST_KERNEL void f(const void *params, int64_t first, int64_t end);
 * a function of external linkage in a relocatable ELF object, which
 * rig_image_load() links and rig_image_function() finds by its symbol's
 * name (RIG_HOST_KERNEL keeps a C++ name unmangled).
 *
 * The grid. A launch over a grid of g0 x g1 x g2 groups runs every group
 * index g in [0, g0*g1*g2) exactly once, counted in x, then y, then z:
 * group (x, y, z) is g = x + g0 * (y + g1 * z) (rig_host_group() turns g
 * back). Each call runs the groups [first, end), end > first. The group
 * shape (threads per group) is not passed to the kernel and changes
 * nothing on the host: a group is one unit of the kernel's own loop,
 * whose size the kernel knows (put it in params). The kernel receives no
 * grid: put its dimensions in params too.
 *
 * Several workers call a kernel at once, each with its own range: one
 * worker per core the device holds (the opener's count or set), the
 * device's own thread among them. The ranges are chunks of whole groups:
 * a quarter of each worker's even share, at least one group; a grid
 * smaller than two chunks per worker runs in one call on the device's
 * thread (on a device opened with run_at_submit, a value whose work runs
 * on one thread, submitted while the device is idle and waiting for
 * nothing undone, runs in its submit, on the submitting thread: faults
 * contained there too, but a kernel that never returns holds that
 * thread). A kernel must not assume which worker runs which range, nor
 * that ranges come in order. A thread that waits for the launch with no
 * timeout (rig_wait with UINT64_MAX; or a timeout longer than twice the
 * device's hang_ms) may run some of its ranges itself, in the device
 * thread's place, on a device opened without a set of cores: its faults
 * are contained as the workers' are, and a hang there is stopped too.
 *
 * The params block: a copy of the launch's parameter bytes made at
 * submit, with the buffers' host addresses its refs place. Its address is
 * a multiple of RIG_HOST_PARAMS_ALIGN (64), so a member of any vector type
 * up to AVX-512's may be read with an aligned load. Every call of one
 * launch gets the same block; it lives until the launch's last call
 * returns. Kernels read it and must not write it.
 *
 * Globals persist between launches of an image and are shared: by every
 * worker at once and by every launch, until the image is released. A
 * kernel that updates a global from several groups must use atomics.
 * The host reaches a global data object by name with rig_image_symbol()
 * (its address and size), to fill a table before launches or read what
 * launches left; a const object lies in read-only memory. A name the
 * object lacks is refused listing the names it has, pointing out C++
 * (mangled, _Z...) names.
 * An object's constructors (.init_array, C++ dynamic initialisation) run
 * once, in link order, when rig_image_load() links it, before any launch;
 * its destructors (.fini_array, and those C++ registers with
 * __cxa_atexit) run when the image is unloaded. Thread-local storage and
 * old-style .ctors/.dtors sections are refused.
 *
 * What a kernel may call: nothing of the C library but
 *   memcpy, memset, memmove, memcmp;
 * these libgcc and glibc helpers that compilers emit:
 *   __divti3, __modti3, __popcountdi2, __stack_chk_fail, __udivti3,
 *   __umodti3
 *   (and __cxa_atexit, for C++ constructors);
 * and these 112 functions of libm (bound to the host's own, so results
 * match the program's bit for bit):
 *   acos, acosf, acosh, acoshf, asin, asinf, asinh, asinhf, atan,
 *   atan2, atan2f, atanf, atanh, atanhf, cbrt, cbrtf, ceil, ceilf,
 *   copysign, copysignf, cos, cosf, cosh, coshf, erf, erfc, erfcf, erff,
 *   exp, exp10, exp10f, exp2, exp2f, expf, expm1, expm1f, fabs, fabsf,
 *   fdim, fdimf, floor, floorf, fma, fmaf, fmax, fmaxf, fmin, fminf, fmod,
 *   fmodf, frexp, frexpf, hypot, hypotf, ilogb, ilogbf, ldexp, ldexpf,
 *   lgamma, lgammaf, llrint, llrintf, llround, llroundf, log, log10,
 *   log10f, log1p, log1pf, log2, log2f, logb, logbf, logf, lrint, lrintf,
 *   lround, lroundf, modf, modff, nearbyint, nearbyintf, nextafter,
 *   nextafterf, pow, powf, remainder, remainderf, remquo, remquof, rint,
 *   rintf, round, roundf, scalbn, scalbnf, sin, sincos, sincosf, sinf,
 *   sinh, sinhf, sqrt, sqrtf, tan, tanf, tanh, tanhf, tgamma, tgammaf,
 *   trunc, truncf.
 * Any other undefined symbol is refused, every one named in one message.
 * A kernel makes no system call, allocates nothing and takes no lock.
 *
 * Building: compile with RIG_HOST_KERNEL_CFLAGS, which rig's pkg-config
 * file gives as `pkg-config --variable=host_kernel_cflags rig` (and rig's
 * meson file as the variable host_kernel_cflags of dependency('rig')):
 *     cc -c $(pkg-config --variable=host_kernel_cflags rig) k.c -o k.o
 * Other models link too: -O3, -march=native (for the machine that runs
 * it), non-PIC objects (mapped below 2 GiB; a reference that still does
 * not reach names its symbol and asks for -fPIC), and -fPIC
 * -mcmodel=large. LTO objects (GCC's GIMPLE, LLVM bitcode) are refused:
 * compile with -fno-lto.
 *
 * Faults. A kernel that faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL) is
 * stopped: its device is lost, with the kernel's name, the signal, the
 * fault's address and the culprit value, submission and part
 * (rig_loss()); the program and its other devices go on, and the name
 * opens anew. A kernel that never returns is stopped when its device
 * is lost by the hang clock (rig_host_config.hang_ms), closed, or ended
 * at exit(), which never waits on it. A fault outside a kernel (the
 * program's own) goes to the handler that was there before rig's, or
 * ends the process as it would have.
 *
 * What cannot be contained: a kernel that writes memory of the process
 * it may write (its buffers, another image's or
 * the program's own) corrupts it silently, as on a GPU that shares the
 * process's address space; a fault inside a constructor runs on the
 * loading thread and is the program's own; a program that installs its
 * own SIGSEGV, SIGBUS, SIGFPE or SIGILL handler after a host device
 * opened takes faults back until the next host device opens (rig then
 * chains to that handler).
 */
#ifndef RIG_HOST_H
#define RIG_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The alignment of every launch's params block on a host device. */
#define RIG_HOST_PARAMS_ALIGN	64

/* The flags a host kernel is compiled with (pkg-config's host_kernel_cflags). */
#define RIG_HOST_KERNEL_CFLAGS	"-O2 -fPIC -ffreestanding -fno-math-errno -nostdlib -fno-lto"

/* Declares a host kernel: C linkage under C++, visible whatever
 * -fvisibility the object is built with. */
#ifdef __cplusplus
#define RIG_HOST_KERNEL	extern "C" __attribute__((visibility("default")))
#else
#define RIG_HOST_KERNEL	__attribute__((visibility("default")))
#endif

/* A host kernel's type. */
typedef void (*rig_host_kernel_fn)(const void *params, int64_t first, int64_t end);

/* A group's place in its grid. */
struct rig_host_group {
	uint32_t x, y, z;
};

/* The place of group index g in a grid of g0 x g1 groups per z (any g2). */
static inline struct rig_host_group
rig_host_group(int64_t g, uint32_t g0, uint32_t g1)
{
	struct rig_host_group r;
	uint64_t u = (uint64_t)g;

	r.x = (uint32_t)(u % g0);
	r.y = (uint32_t)((u / g0) % g1);
	r.z = (uint32_t)(u / ((uint64_t)g0 * g1));
	return r;
}

/* ---- Host devices, for the program ------------------------------------ */

struct rig_device;

/*
 * What a host device is made of. Several host devices each have their own
 * timeline, device thread and workers, so unrelated work runs side by
 * side on them, as streams do on a GPU; the order rules across them are
 * those across any devices (a submission that reads what another device's
 * work wrote waits for it).
 */
struct rig_host_config {
	const char *name;	/* "HOST", "HOST:1", ...: its name, up to 31 bytes */
	unsigned cores;		/* threads that run its launches (its device thread
				 * among them), at least 1; 0: one per core of cpus,
				 * or of the process */
	const int *cpus;	/* NULL, or the cores its threads run on */
	size_t ncpus;
	uint32_t hang_ms;	/* 0: no hang clock; else lost with "no progress for
				 * n ms" once a wait sees no progress that long */
	uint32_t run_at_submit;	/* 1: a submit that finds the device idle runs the
				 * value itself, on the submitting thread, where
				 * its work would run on one thread anyway (see
				 * rig_host_open(3)); 0: the device's threads run
				 * every value. Not with cpus. */
};

/*
 * rig_host_open() - open the host device c describes, or return the one
 * open under c->name (whose config then stays as it was opened). "HOST"
 * is also what rig_host_device() opens, with every core and no hang
 * clock. Any thread, not from a callback of rig's.
 * Returns 0 with *out set; RIG_EINVAL for a NULL c or out, a name that is
 * NULL, empty or longer than 31 bytes, cpus with ncpus 0 or a core number
 * outside 0-1023, or more cores than 4096; what rig_open() returns.
 */
int rig_host_open(const struct rig_host_config *c, struct rig_device **out);

#ifdef __cplusplus
}
#endif
#endif /* RIG_HOST_H */
