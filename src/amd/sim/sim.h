/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/: a software AMD GPU, a test instrument that sits behind the
 * machine interface (amd/pci/pci.h) where a real GPU's BARs, config space
 * and sysfs files would be. It decodes what a driver writes from the byte
 * layouts of amd-facts (§4 PM4, §5 SDMA, §3.6 page tables, §6 interrupt
 * entries) and never decides what a driver should write. docs/amd.md
 * "The software GPU" says what it models and what it does not.
 *
 *   sim.c      a GPU: VRAM (a memfd), host memory with bus addresses,
 *              config space, doorbells, faults
 *   engine.c   the engines' threads: their passes, spin and sleep
 *   regs.c     the register file and the registers' side effects
 *   layout.c   each GC version's blocks, versions and register offsets
 *   table.c    the IP discovery table it carries in VRAM (amd-facts §2)
 *   tree.c     its sysfs tree, which changes state as sysfs does
 *   vm.c       page-table walks in each generation's PTE format
 *   ih.c       the interrupt ring (IH) and its entries (amd-facts §6)
 *   cp.c       the command processor: PM4 queues (HQDs)
 *   sdma.c     the copy engine: SDMA queues
 *   launch.c   DISPATCH_DIRECT: test kernels as host callbacks
 *   machine.c  the machine operations on a sim
 *   example.c  the examples' kernels (callback ids of their code objects)
 *   env.c      the sim a program selects with RIG_AMD_SIM
 *   peer.c     sims of one machine on one PCI bus, reaching each other's BAR0
 *   psp.c      the security processor: bootloader, sOS ring, LOAD_IP_FW
 *   smu.c      the power manager's mailbox and its mode-1 reset
 *   fw.c       the pinned images' pieces the security processor expects
 *   shared.c   what the GPU keeps across processes (files when shared);
 *              a test's pause at a firmware event
 *
 * Concurrency: every function here may be called from any thread at any
 * time, as a real GPU's registers and doorbells may be written by any CPU.
 * Each engine runs on its own thread, woken by doorbells (ck_ec).
 */
#ifndef AMD_SIM_SIM_H
#define AMD_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct amd_sim;
struct rig_pci_machine;

struct amd_sim_opts {
	const char *gc;		/* "11.0.0", "11.0.2", "12.0.0", "12.0.1", "9.4.3" */
	const char *root;	/* an existing folder its sysfs tree is built in */
	const char *bus;	/* NULL: "0000:03:00.0" */
	uint64_t vram_bytes;	/* 0: 1 GiB; a multiple of 2 MiB, >= 512 MiB */
	/*
	 * What the last session left in SCRATCH_REG7 (amd-facts §3.1): the
	 * sim starts as a GPU a clean session left (firmware running,
	 * SCRATCH_REG6 = 0, no VM fault pending), marked with this value.
	 */
	uint32_t mark;
	/*
	 * NULL, or a sim already made whose machine and PCI bus this one
	 * joins (amd/sim/peer.c): the same root, another bus address; each
	 * reaches the other's BAR0 as a PCI peer, and either's machine lists
	 * and drives both functions. A bus holds 8 sims at most.
	 */
	struct amd_sim *peer;
	/*
	 * NULL, or a directory the sim's security processor searches first
	 * for the pinned images it checks loads against (then the
	 * directories an open searches, amd/firmware/firmware.h).
	 */
	const char *firmware;
	/*
	 * Whether what the GPU keeps while no process drives it (registers,
	 * config space, its firmware's state, BAR0's size, VRAM) lives in the
	 * files sim_state and sim_vram of its device folder, mapped shared,
	 * so another process attaches to it (amd_sim_attach) and finds it as
	 * the last left it (shared.c). Not with peer.
	 */
	bool shared;
	/*
	 * GC 9.4.3's XCCs, 0 or 1 to 8 (0: one): its discovery table lists a
	 * GC instance per XCC, XCC k's registers at its own bases (xcc.c),
	 * each with its MEC's gate. Every other GC has one.
	 */
	unsigned xccs;
	/*
	 * GC 9.4.3's AIDs, 0 or 1 to 4 (0: one), dividing xccs evenly: its
	 * discovery table lists a die per AID, XCCs 0.. on die 0, the next
	 * xccs / aids on die 1, ..., every other block on die 0; another AID's
	 * registers are reached through NBIO's PCIE_INDEX2 window (ext.c).
	 */
	unsigned aids;
};

/*
 * amd_sim_create() - a new simulated GPU, its sysfs tree under o->root,
 * bound to no driver. Returns 0, or -EINVAL (bad options), -ENOMEM,
 * -errno of a file or thread, with amd_why() saying why; nothing is left
 * behind on failure.
 */
int amd_sim_create(const struct amd_sim_opts *o, struct amd_sim **out);
/*
 * amd_sim_attach() - the sim made with opts.shared under root at bus
 * (NULL: "0000:03:00.0"), in this process: its state and VRAM mapped
 * from its files as the last process left them, and engines of its own
 * with every queue stopped (a GPU nobody drives does nothing; shared.c).
 * firmware is as opts.firmware. Its kernels are this process's to
 * register. Returns 0, or -EINVAL, -ENOENT (no such sim), -EPROTO (not a
 * sim's state of this build) with amd_why() saying why.
 */
int amd_sim_attach(const char *root, const char *bus, const char *firmware,
		   struct amd_sim **out);
/* Stops its engines and frees it (its sysfs tree stays). NULL is a no-op. */
void amd_sim_destroy(struct amd_sim *s);

/* Its PCI address and machine (the sysfs machine of its tree, with the
 * sim's config space, windows and registers: machine.c). */
const char *amd_sim_bus(const struct amd_sim *s);
const struct rig_pci_machine *amd_sim_machine(struct amd_sim *s);

/* ---- what the machine interface reaches -------------------------------- */

/* Registers: dword index into BAR5 (amd-facts §0.3). -EINVAL past BAR5. */
int amd_sim_reg_read(struct amd_sim *s, uint32_t index, uint32_t *out);
int amd_sim_reg_write(struct amd_sim *s, uint32_t index, uint32_t value);
/* A 64-bit doorbell write at a BAR2 byte offset (8-aligned). */
int amd_sim_doorbell(struct amd_sim *s, uint64_t offset, uint64_t value);
/* Config space (4 KiB): bytes at offset. Bit 2 of PCI_COMMAND (0x04) is
 * bus mastering: with it off, no engine reaches host memory. */
int amd_sim_config_read(struct amd_sim *s, uint32_t offset, void *buf, size_t n);
int amd_sim_config_write(struct amd_sim *s, uint32_t offset, const void *buf,
			 size_t n);
/* VRAM: the memfd (BAR0's bytes) and its mapping in this process. */
int amd_sim_vram_fd(const struct amd_sim *s);
void *amd_sim_vram(const struct amd_sim *s);
uint64_t amd_sim_vram_bytes(const struct amd_sim *s);
/*
 * Host memory the GPU may reach by bus address (what a real machine gives
 * from 2 MiB huge pages or an IOMMU): bytes (a multiple of 4 KiB) at *ptr,
 * bus address *bus. Lives until the sim is destroyed.
 */
int amd_sim_host_alloc(struct amd_sim *s, size_t bytes, void **ptr,
		       uint64_t *bus);
/* The interrupt source: an eventfd the sim signals for each IH entry. */
int amd_sim_irq_fd(const struct amd_sim *s);

/* ---- test kernels (launch.c) ------------------------------------------- */

/*
 * A test kernel's code bytes, at its entry (COMPUTE_PGM_LO/HI << 8): the
 * magic, the callback id, and which user SGPR (COMPUTE_USER_DATA_n, n <
 * 15) holds the low half of the kernarg address (amd-facts §7.3).
 */
#define AMD_SIM_KERNEL_MAGIC	0x4e4b4d4953474952ull	/* "RIGSIMKN" */
struct amd_sim_kernel_code {
	uint64_t magic;
	uint32_t callback;
	uint32_t kernarg_sgpr;
};

struct amd_sim_launch {
	uint32_t grid[3];	/* work-groups (DISPATCH_DIRECT DW1..3) */
	uint32_t group[3];	/* work-items per group (COMPUTE_NUM_THREAD_*) */
	uint64_t kernarg;	/* GPU VA */
	struct amd_sim *sim;
	void *ctx;		/* what amd_sim_kernel() was given */
	int queue;		/* the HQD's index */
};

/* SQ errors a kernel may end with (amd-facts §6.4 ERROR types). */
enum amd_sim_sq_error {
	AMD_SIM_SQ_OK = 0,
	AMD_SIM_SQ_ILLEGAL_INST = 1,
	AMD_SIM_SQ_MEMVIOL = 2,
};

/* Returns AMD_SIM_SQ_OK or the SQ error the kernel ends with. */
typedef int (*amd_sim_kernel_fn)(const struct amd_sim_launch *l);

/* Registers callback id (< 64). -EINVAL for a bad id or NULL fn. */
int amd_sim_kernel(struct amd_sim *s, uint32_t id, amd_sim_kernel_fn fn,
		   void *ctx);
/*
 * A kernel's access to [va, va + bytes) through the queue's page tables:
 * a host pointer, or NULL after raising the VM fault the hardware would
 * (the launch then halts its queue). The range must lie in one page.
 */
void *amd_sim_translate(const struct amd_sim_launch *l, uint64_t va,
			size_t bytes, bool write);

/* ---- fault injection and inspection ----------------------------------- */

/* A queue that stops consuming: its engine ignores its doorbells. */
enum amd_sim_engine { AMD_SIM_CP = 0, AMD_SIM_SDMA = 1 };
int amd_sim_stall(struct amd_sim *s, enum amd_sim_engine e, int queue,
		  bool stalled);
/* Whether a queue halted on an error, and the halt's cause (NUL-ended). */
bool amd_sim_halted(struct amd_sim *s, enum amd_sim_engine e, int queue,
		    char *why, size_t len);
/* Whether the queue's engine found it waiting on memory or a register (a
 * WAIT_REG_MEM, WAIT_REG_MEM64 or POLL_REGMEM that has not passed) at the
 * end of its last pass. */
bool amd_sim_waiting(struct amd_sim *s, enum amd_sim_engine e, int queue);
/* Blocks until every enabled, unstalled, unhalted queue is idle (rptr ==
 * wptr and no wait pending on memory), or timeout_ns passes: 0 or
 * -ETIMEDOUT. For tests. */
int amd_sim_idle(struct amd_sim *s, uint64_t timeout_ns);
/*
 * amd_sim_spin() - how long (ns) both engines keep looking at their queues
 * after their last progress before they go to sleep (each sleep costs a
 * membarrier: engine.c). 0 makes an engine go to sleep at every pass that
 * finds nothing to do, as the doorbell stress test wants; the default is
 * AMD_SIM_SPIN_NS. 0, or -EINVAL for a NULL sim or a spin over 1 s.
 */
#define AMD_SIM_SPIN_NS	20000u
int amd_sim_spin(struct amd_sim *s, uint64_t ns);
/* How often engine e has gone to sleep since the sim started; 0 for a
 * NULL sim or an engine it does not have. */
uint64_t amd_sim_sleeps(struct amd_sim *s, enum amd_sim_engine e);
/*
 * Faults of the security processor and power manager (psp.c, smu.c):
 * a bootloader that is never ready (from the next reset on), a power
 * manager whose mailboxes never answer, firmware that survives a mode-1
 * reset (the sOS still runs after it), and a LOAD_IP_FW of PSP type arg
 * refused as a bad image. on false clears the fault. AMD_SIM_POWER_CYCLE
 * is no fault but an event: the GPU power-cycled now, as a mode-1 reset
 * leaves it with no firmware surviving (bootloader ready).
 * AMD_SIM_MEC_STAYS_HALTED: the MEC ignores the writes that would start
 * it (mec.c), so its queues stay idle, as a driver that never un-halts
 * it would find them; on false, the next such write starts it.
 * AMD_SIM_XCC_WRITES_FAIL: every write to a GC register of XCC arg (1 to
 * xccs - 1) fails, as a machine's failed register access does.
 * AMD_SIM_SOS_MODE1_SILENT: the sOS takes GFX_CTRL_CMD_ID_MODE1_RST and
 * does nothing (no reset, C2PMSG_33 not set). -EINVAL for another.
 */
enum amd_sim_fault {
	AMD_SIM_BOOTLOADER_NEVER_READY = 1,
	AMD_SIM_SMU_SILENT,
	AMD_SIM_SOS_SURVIVES_RESET,
	AMD_SIM_PSP_REFUSES_TYPE,
	AMD_SIM_POWER_CYCLE,
	AMD_SIM_MEC_STAYS_HALTED,
	AMD_SIM_XCC_WRITES_FAIL,
	AMD_SIM_SOS_MODE1_SILENT,
};
int amd_sim_inject(struct amd_sim *s, enum amd_sim_fault f, uint32_t arg, bool on);
/*
 * A test's pause (shared.c): at the nth event of a kind from now on, the
 * thread that caused it writes one byte to fd and stops for good, once
 * the sim has acted on it (as the GPU finishes what a dying process gave
 * it), so the test kills the process there (kill -9) and knows where it
 * stopped: the nth command the bootloader takes (a
 * component of the sOS image), or the nth command of the sOS's ring
 * (LOAD_TOC, SETUP_TMR, LOAD_IP_FW, AUTOLOAD_RLC). AMD_SIM_PAUSE_NONE
 * disarms it. -EINVAL for another kind, nth 0 or fd < 0.
 */
enum amd_sim_pause_at {
	AMD_SIM_PAUSE_NONE = 0,
	AMD_SIM_PAUSE_BOOTLOADER,
	AMD_SIM_PAUSE_PSP_COMMAND,
};
int amd_sim_pause(struct amd_sim *s, enum amd_sim_pause_at at, unsigned nth, int fd);
/*
 * amd_sim_xcc_check() - whether XCC xcc (< opts.xccs) was set up as
 * amd-facts says a full boot sets it up, checked against what the driver
 * wrote (xcc.c): its GC hub's context 0 on XCC 0's tables (§3.10 step
 * 2), GB_ADDR_CONFIG golden, TCP_UTCL1_CNTL2's spare 1, GRBM_CNTL's
 * read_timeout 0xff, SH_MEM_CONFIG and SH_MEM_BASES as §3.10 step 6 (the
 * last vmid's: the sim keeps one bank), its MEC doorbell range, its MEC
 * un-halted after the load, NBIO's XCC_DOORBELL_FENCE clear for it, and
 * with several XCCs the sOS asked for one partition. 0, or -EPROTO with
 * why naming the XCC, the register and what it holds; -EINVAL for a bad
 * argument.
 */
int amd_sim_xcc_check(struct amd_sim *s, unsigned xcc, char *why, size_t len);
/* AID aid's (1 to opts.aids - 1) register index (dwords, at AID 0's
 * offsets) as last written through NBIO's PCIE_INDEX2 window (ext.c):
 * 0, -ENOENT if never written, -EINVAL for a bad argument. */
int amd_sim_aid_reg(struct amd_sim *s, unsigned aid, uint32_t index, uint32_t *out);
/*
 * amd_sim_nbio_check() - whether NBIO 7.9 (GC 9.4.3) was set up as
 * linux's nbio_v7_9.c sets it up, checked against what the driver wrote
 * (nbio.c): BIFC_GFX_INT_MONITOR_MASK 0x7ff, BIFC_DOORBELL_ACCESS_EN_PF
 * 0xfffff, and on every AID of the sim its four SDMA instances' doorbell
 * ranges (AID 0's DOORBELL0_CTRL_ENTRY_n) and S2A ports (the AID's own).
 * 0, or -EPROTO with why naming the register and what it holds; -EINVAL
 * for a bad argument or a sim of another NBIO. The SDMA queue's doorbell
 * reaches the engine only once AID 0's instance 0 is routed.
 */
int amd_sim_nbio_check(struct amd_sim *s, char *why, size_t len);
/* What the marks read now: SCRATCH_REG7 (rig's mark) and SCRATCH_REG6
 * (1 while a session runs or after one that did not stop clean). */
void amd_sim_marks(struct amd_sim *s, uint32_t *mark, uint32_t *dirty);
/* Register writes the sim has taken since it was made. */
uint64_t amd_sim_reg_writes(struct amd_sim *s);
/* LOAD_IP_FW pieces its security processor took; whether RLC autoload ran. */
uint64_t amd_sim_psp_loads(struct amd_sim *s, bool *autoloaded);
/* Host-memory accesses dropped because bus mastering was off. */
uint64_t amd_sim_dropped_dma(struct amd_sim *s);

/* ---- a program's sim (env.c) and the examples' kernels (example.c) ---- */

/* What a clean session of rig leaves in SCRATCH_REG7 (amd/dev/boot.c). */
#define AMD_SIM_CLEAN_MARK	0xA0000008u
/* Callback ids of the examples' code objects (the top of the id space). */
#define AMD_SIM_EXAMPLE_ADD	62

/* Registers the examples' kernels on s. */
int amd_sim_example_kernels(struct amd_sim *s);
/* RIG_AMD_SIM's GC version, or NULL when it is unset or empty. */
const char *amd_sim_env(void);
/* Remove the folder root and what lies beneath it, as far as it goes (a
 * sim's sysfs tree once the sim is destroyed, or at exit). */
void amd_sim_tree_remove(const char *root);
/*
 * The process's sim of RIG_AMD_SIM's GC, made at the first call (its tree
 * under $TMPDIR, else /tmp, removed at exit), as a clean session left it:
 * its machine in *out. Returns 0, or the sim's refusal (a GC it does not
 * model, a folder that cannot be made) naming RIG_AMD_SIM.
 */
int amd_sim_env_machine(const struct rig_pci_machine **out);

#endif
