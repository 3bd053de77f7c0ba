/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/priv.h: the sim's state, shared by its files (sim.h lists them).
 *
 * Who writes what. The register file is atomics: any thread stores, any
 * loads. A queue's configuration is set by register writes under its
 * engine's lock and read by the engine under it; the queue's write pointer
 * comes from doorbells (an atomic the engine loads with acquire, pairing
 * with the doorbell's release store, so the packets a host wrote before it
 * rang are visible). Its read pointer is the engine's alone, published
 * atomically for amd_sim_idle(). The IH ring is appended under its lock.
 */
#ifndef AMD_SIM_PRIV_H
#define AMD_SIM_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include <ck_ec.h>

#include "amd/sim/sim.h"
#include "amd/pci/pci.h"

#define SIM_BAR5_BYTES		(512u << 10)
#define SIM_REGS		(SIM_BAR5_BYTES / 4)
#define SIM_BAR2_BYTES		(2u << 20)
#define SIM_CONFIG_BYTES	4096
#define SIM_CP_QUEUES		8	/* ME1 pipe 0, queues 0..7 */
#define SIM_SDMA_QUEUES		1	/* SDMA0 QUEUE0 */
/* Padding that keeps fields written by different threads off one cache
 * line (padding, not _Alignas: the sim is calloc'd). */
#define SIM_LINE		64
#define SIM_SH_REGS		0x400	/* the SET_SH_REG window, 0x2C00..0x3000 */
#define SIM_HOST_REGIONS	64
#define SIM_KERNELS		64
#define SIM_HQD_REGS		56	/* CP_MQD_BASE_ADDR .. CP_HQD_PQ_WPTR_HI */
#define SIM_FAR_REGS		256	/* registers past BAR5 that hold a value */
/* XCCs (GC 9.4.3): at most 8; XCC k > 0's GC bases are XCC 0's plus k *
 * SIM_XCC_STRIDE dwords, past BAR5, reached through the RSMU pair as
 * tinygrad reaches MI300's (amd-facts §2.4): the stride is the sim's. */
#define SIM_XCCS		8
#define SIM_XCC_STRIDE		0x40000u
/* AIDs (GC 9.4.3): at most 4 (the extended SMN address's two bits), each
 * past AID 0 keeping up to SIM_AID_REGS registers written to it through
 * NBIO's PCIE_INDEX2 window (ext.c). */
#define SIM_AIDS		4
#define SIM_AID_REGS		16

/* Page-table entry formats (amd-facts §3.6 and §3.14). */
enum sim_pte_format { PTE_VG10, PTE_NV10, PTE_GFX12 };

/* A GC version's facts: block versions, SOC, and where its registers are. */
struct sim_layout {
	const char *gc;
	uint8_t ver[8][3];	/* GC, SDMA0, MP0, MP1, MMHUB, NBIF, OSSSYS, HDP */
	int soc;		/* 15 (GC 9) or 21 (GC 11, 12) */
	enum sim_pte_format pte;
	bool gfx12;
	/* Absolute dword indices, resolved against the discovery bases. */
	uint32_t scratch6, scratch7, grbm_gfx_cntl, cp_stat, rlc_bootload;
	uint32_t hqd;			/* CP_MQD_BASE_ADDR */
	uint32_t vm_cntl, vm_base_lo, vm_start_lo, vm_end_lo, vm_fault_status;
	uint32_t sdma_q0;		/* SDMA0_QUEUE0_RB_CNTL (SDMA_GFX_ on 4.x) */
	uint32_t mec_cntl;		/* GC 9's CP_MEC_CNTL, else 0 (mec.c) */
	uint32_t mec_pc, mec_pc_hi;	/* GC 11/12's CP_MEC_RS64_PRGRM_CNTR_START[_HI] */
	uint32_t mec_rs64_cntl;		/* GC 11/12's CP_MEC_RS64_CNTL */
	/* Below sdma_q0: RB_RPTR_ADDR_LO, _HI, DOORBELL, DOORBELL_OFFSET. */
	uint8_t sdma_rptr_lo, sdma_rptr_hi, sdma_doorbell, sdma_doorbell_offset;
	uint32_t sdma_count_mask;	/* COPY/FILL count: 30 bits, 22 on SDMA 4 */
	uint32_t ih;			/* IH_RB_CNTL */
	bool ih_v7;			/* OSSSYS 7: RPTR, WPTR, BASE order */
	uint32_t fb_base;		/* MMMC_VM_FB_LOCATION_BASE; TOP is next */
	uint32_t c2pmsg_81, mp1_c2pmsg_90;
	uint32_t rsmu_index, rsmu_data;	/* BIF_BX_PF0_RSMU_INDEX/DATA (§0.3) */
	/* GC 9.4.3's XCCs (xcc.c): how many (1..8), each one's registers
	 * the sim checks (XCC 0's at the indices above). */
	unsigned xccs;
	struct sim_xcc {
		uint32_t vm_cntl, vm_base_lo, mec_cntl, gb_addr_config;
		uint32_t tcp_utcl1_cntl2, grbm_cntl, sh_mem_config, sh_mem_bases;
		uint32_t db_lower, db_upper;
	} xcc[SIM_XCCS];
	uint32_t xcc_fence;		/* NBIO 7.9's XCC_DOORBELL_FENCE */
	/* GC 9.4.3's AIDs (1..4; XCC x on die sim_xcc_die()) and NBIO 7.9's
	 * indirect window, else 0 (ext.c). */
	unsigned aids;
	uint32_t pcie_index2, pcie_data2, pcie_index2_hi;
	/* NBIO 7.9's segment-8 registers and the S2A ports, else 0 (nbio.c):
	 * BIFC_GFX_INT_MONITOR_MASK, BIFC_DOORBELL_ACCESS_EN_PF, and entry
	 * 0 of DOORBELL0_CTRL_ENTRY_n and of S2A_DOORBELL_ENTRY_n_CTRL (each
	 * n at entry 0 + n, as linux's nbio_7_9_0_offset.h places them). */
	uint32_t bifc_int_monitor, bifc_db_access, db_ctrl_entry0, s2a_entry0;
};

/* The die (AID) XCC x of l lies on: the XCCs divided evenly. */
static inline unsigned
sim_xcc_die(const struct sim_layout *l, unsigned x)
{
	return l->aids > 1 ? x / (l->xccs / l->aids) : 0;
}

/* The GC versions the sim models; NULL for another. layout.c */
const struct sim_layout *sim_layout_find(const char *gc);
/* Fill the absolute indices of l from the discovery bases of the table. */
int sim_layout_resolve(struct sim_layout *l, const uint8_t *table, size_t len);
/* table.c: the discovery table of l into buf (cap >= 10 KiB); its length. */
size_t sim_table_build(const struct sim_layout *l, uint8_t *buf, size_t cap);

struct sim_queue {
	/* Set under the engine's lock by register writes. */
	bool enabled;
	uint64_t base;			/* GPU VA of the ring */
	uint64_t bytes;			/* a power of two */
	uint64_t rptr_addr, wptr_addr;	/* GPU VAs of write-back words */
	bool rptr_writeback;
	uint32_t doorbell;		/* dword index in BAR2 */
	bool doorbell_on;
	/* The doorbell's value (CP: dwords; SDMA: bytes), monotonic. A line
	 * of its own (SIM_LINE apart from the fields around it), which the
	 * ringing thread writes and the engine reads: the engine's stores
	 * below, every pass, never take it from the ringing thread. */
	char pad_wptr[SIM_LINE];
	_Atomic uint64_t wptr;
	char pad_rptr[SIM_LINE];
	/* The engine's: where it reads (same units), published. */
	_Atomic uint64_t rptr;
	_Atomic bool stalled, halted, blocked;
	char why[160];			/* written once, before halted */
	uint32_t sh[SIM_SH_REGS];	/* CP: SET_SH_REG state */
	uint32_t hqd[SIM_HQD_REGS];	/* CP: its HQD registers' bank */
	/* CP, the engine's own: the IB it is in. */
	uint64_t ib_base;
	uint32_t ib_dw, ib_pos;
	bool in_ib;
};

struct sim_engine {
	struct amd_sim *sim;
	enum amd_sim_engine kind;
	pthread_t thread;
	int nqueues;
	/*
	 * Per queue the route sim_engine_route() last entered in the sim's
	 * doorbell decode (amd_sim.db_route): its doorbell's dword index |
	 * SIM_ROUTE_ON while the queue is enabled with its doorbell on, else
	 * 0. Under the engine's lock.
	 */
	uint32_t route[SIM_CP_QUEUES];
	/*
	 * Set while the engine sleeps or is on its way to (engine.c's
	 * engine_main); a doorbell bumps ec only then. A line of its own,
	 * written once per sleep, so a stream of doorbells reads it from the
	 * ringing thread's cache.
	 */
	char pad_asleep[SIM_LINE];
	_Atomic bool asleep;
	/*
	 * Whether the sim's membarrier is not to be had (engine.c's
	 * sim_engine_start: not registered, or a call failed): ringers fence
	 * (sim.c's ring) and the engine's sleeps end every POLL_NS. Read by
	 * each doorbell beside asleep, written at most once after the start.
	 */
	_Atomic bool ring_fences;
	/* How long the engine keeps looking before it goes to sleep (ns) and
	 * how often it went to sleep (each a membarrier): engine.c, amd_sim_spin. */
	_Atomic uint64_t spin_ns, sleeps;
	char pad_ec[SIM_LINE];
	struct ck_ec32 ec;		/* bumped by kicks: doorbells to a sleeper, stops */
	char pad_lock[SIM_LINE];
	pthread_mutex_t lock;
	_Atomic bool stop;
	_Atomic uint32_t idle_passes;	/* passes that found nothing to do */
	char pad_q[SIM_LINE];
	struct sim_queue q[SIM_CP_QUEUES];
};

struct sim_host_region {
	uint64_t bus, bytes;
	void *ptr;
};

struct sim_kernel {
	amd_sim_kernel_fn fn;
	void *ctx;
};

/* peer.c: sims of one machine on one PCI bus, under lock. */
#define SIM_BUS_SIMS		8
struct sim_bus {
	pthread_mutex_t lock;
	struct amd_sim *live[SIM_BUS_SIMS];
	int nlive, made;
	_Atomic bool peers;		/* nlive > 1: an access may reach a peer */
	struct { uint8_t *vram; uint64_t bytes; } kept[SIM_BUS_SIMS];
	int nkept;
};

/* fw.c: the pinned images the sim's PSP expects, cut into their pieces. */
#define SIM_FW_FILES		8
#define SIM_FW_PARTS		24
struct sim_file {
	const uint8_t *bytes;
	size_t len;
	char name[48];
};
struct sim_part {
	uint32_t type;			/* enum psp_fw_type or psp_gfx_fw_type */
	uint32_t cmd;			/* the bootloader's command, for a component */
	const uint8_t *bytes;
	uint64_t len;
	const char *image, *what;
};
struct sim_fw {
	bool tried, ready;		/* read once; every image found */
	char why[400];			/* why not ready */
	struct sim_file files[SIM_FW_FILES];
	size_t nfiles;
	struct sim_part boot[SIM_FW_PARTS];	/* the bootloader's, in order */
	size_t nboot;
	struct sim_part load[SIM_FW_PARTS];	/* LOAD_IP_FW's, in order */
	size_t nload;
	const uint8_t *toc;
	uint64_t toc_len;
	const uint8_t *rl;			/* the sOS's PSP_RL: GC 9's REG_LIST */
	uint64_t rl_len;
	uint32_t sos_version, smu_version;
	uint64_t mec_start;
};

/* psp.c, smu.c: the security processor's and power manager's state. */
struct sim_mp {
	bool bootloader;		/* ready for a component (no sOS yet) */
	bool sos, ring, toc;		/* the sOS runs; its ring; LOAD_TOC done */
	bool tmr;			/* SETUP_TMR done (MP0 13) */
	size_t boot_next, load_next;	/* the next expected component, piece */
	uint32_t wptr;			/* ring dwords consumed */
	bool autoloaded;		/* the RLC started: AUTOLOAD_RLC, GC 9's REG_LIST */
	bool smu;			/* the SMU's firmware runs */
	uint32_t smu_version;
	bool dram_hi, dram_lo, features;
	uint32_t dram_high;
	uint32_t never_ready, smu_silent, sos_survives;	/* injected faults */
	uint32_t mode1_silent;		/* injected: the sOS ignores MODE1_RST */
	uint32_t refuse_type;		/* a LOAD_IP_FW type refused (0: none) */
	uint64_t loads;			/* LOAD_IP_FW pieces taken */
	/* The MEC's gate (mec.c): atomics, so the register path and the CP
	 * read them without mp_lock (the PSP stores them under it). */
	_Atomic bool mec_loaded;	/* the RLC placed the MEC's image */
	_Atomic uint64_t mec_pc_want;	/* START | START_HI << 32 of that image */
	_Atomic bool mec_runs;		/* un-halted, at that start, after the load */
	_Atomic bool mec_stays_halted;	/* injected: un-halt and PC writes ignored */
	/* XCCs 1..7's gates (mec.c; XCC 0's is mec_runs), the partition
	 * the sOS was asked for (SRIOV_SPATIAL_PART's mode, 0: none), and
	 * the XCC whose register writes fail (injected; 0: none). */
	_Atomic bool xcc_mec_runs[SIM_XCCS];
	uint32_t spatial_mode;
	_Atomic uint32_t xcc_writes_fail;
};

/*
 * shared.c: what a GPU keeps while no process drives it, in one block of
 * memory: the registers (those past BAR5 too), config space, the security
 * processor's and power manager's state, BAR0's size. A sim made with
 * opts.shared keeps it in its device folder's file sim_state (and VRAM in
 * sim_vram), mapped MAP_SHARED, so another process attaches to the same
 * GPU (amd_sim_attach) and finds it as the last left it, a killed one
 * included; otherwise it is the process's own memory. Its fields are
 * atomics or taken under the locks of the process that drives the GPU
 * (the function lock keeps two processes from driving one at once).
 */
#define SIM_SHARED_MAGIC	0x54534d4953474952ull	/* "RIGSIMST" */
struct sim_far_reg { uint32_t index, value; };
struct sim_shared {
	uint64_t magic;
	uint32_t version, bytes;	/* SIM_SHARED_VERSION, sizeof */
	char gc[16], bus[32];
	uint64_t vram_bytes;
	_Atomic uint64_t bar0_bytes;
	_Atomic uint32_t regs[SIM_REGS];
	size_t nfar;
	struct sim_far_reg far[SIM_FAR_REGS];
	uint8_t config[SIM_CONFIG_BYTES];
	_Atomic bool bus_master;
	struct sim_mp mp;
	uint32_t xccs;			/* opts.xccs, for an attach */
	uint32_t aids;			/* opts.aids, for an attach */
	/* AIDs 1..3's registers written through the window (ext.c), under
	 * the driving process's far_lock. */
	uint32_t naid[SIM_AIDS];
	struct sim_far_reg aid[SIM_AIDS][SIM_AID_REGS];
};
#define SIM_SHARED_VERSION	4

struct amd_sim {
	struct sim_layout lay;
	char bus[32];
	char root[208];
	struct rig_pci_machine machine;
	int vram_fd;
	uint8_t *vram;
	uint64_t vram_bytes;
	uint64_t bar0_bytes;		/* BAR0's size now (resize changes it) */
	_Atomic uint64_t bar0_now;	/* the same, for peers' engines (peer.c) */
	uint64_t bar0_bus;		/* BAR0's bus address (peer.c) */
	struct sim_bus *pbus;		/* the bus it is on (peer.c) */
	int index;			/* its place on the bus */
	pthread_mutex_t tree_lock;	/* the tree's state changes */
	/* What a GPU keeps (shared.c): sh's, in a file when shared. */
	struct sim_shared *sh;
	bool shared;
	_Atomic uint32_t *regs;
	/* Registers past BAR5 (reached by RSMU index/data), under far_lock. */
	pthread_mutex_t far_lock;
	struct sim_far_reg *far;
	size_t *nfar;
	pthread_mutex_t config_lock;
	uint8_t *config;
	_Atomic bool *bus_master;
	_Atomic uint64_t dropped_dma;
	/* Host memory: filled under host_lock, published by nhost (release). */
	pthread_mutex_t host_lock;
	struct sim_host_region host[SIM_HOST_REGIONS];
	_Atomic size_t nhost;
	uint64_t next_bus;
	pthread_mutex_t kernel_lock;
	struct sim_kernel kernels[SIM_KERNELS];
	/* IH */
	pthread_mutex_t ih_lock;
	int irq_fd;
	struct sim_engine cp, sdma;
	/*
	 * The doorbell decode, what a doorbell write reads (sim.c's ring()):
	 * per 64-bit slot of BAR2, a bit for each queue whose doorbell it is
	 * (SIM_DB_BIT), so a write finds its queues with one load, as a GPU's
	 * doorbell block decodes an offset; set and cleared by
	 * sim_engine_route() under the engine's lock (fetch-or and fetch-and:
	 * the CP's and the SDMA's locks differ). Written only as queues start
	 * and stop, so a ringing thread reads its slot from its own cache.
	 */
	char pad_db[SIM_LINE];
	_Atomic uint16_t db_route[SIM_BAR2_BYTES / 8];
	char pad_db_end[SIM_LINE];
	/* PSP and SMU (psp.c, smu.c, fw.c), under mp_lock. Lock order: an
	 * engine's lock, then mp_lock (a CP packet's register write reaches
	 * the mailboxes); no engine's lock is ever taken under mp_lock (a
	 * mode-1 reset stops the engines before taking it, smu.c; the MEC's
	 * gate is atomics, mec.c). */
	pthread_mutex_t mp_lock;
	struct sim_mp *mp;
	/* A pause (amd_sim_pause): the step, the writes left, the fd told. */
	_Atomic int pause_step;
	_Atomic int pause_left;
	int pause_fd;
	struct sim_fw fw;
	char fw_dir[256];		/* opts.firmware, searched first */
	_Atomic uint64_t reg_writes;	/* every register write (amd_sim_reg_writes) */
};

/* shared.c: sh made (in files when o->shared) or attached; unmapped. */
int sim_shared_make(struct amd_sim *s, const struct amd_sim_opts *o);
int sim_shared_attach(struct amd_sim *s, const char *root, const char *bus);
void sim_shared_unmap(struct amd_sim *s);
/* shared.c: whether a register write (or PSP event) is the armed pause's:
 * if so it tells the pause's fd and never returns (the test kills it). */
void sim_pause_check(struct amd_sim *s, int step);

/* fw.c: the expected images, read once (under mp_lock); freed at destroy. */
void sim_fw_load(struct amd_sim *s);
void sim_fw_free(struct amd_sim *s);
/* psp.c, smu.c: a write to MP0's or MP1's registers (index absolute),
 * handled: true, with the register file updated as the hardware would. */
bool sim_psp_write(struct amd_sim *s, uint32_t index, uint32_t value);
bool sim_smu_write(struct amd_sim *s, uint32_t index, uint32_t value);
/* psp.c: the state at power-on (a mode-1 reset's: bootloader ready) or
 * after a function reset (no firmware runs); and as a clean session left
 * it (sOS, SMU and RLC running). Under mp_lock. */
void sim_mp_power_on(struct amd_sim *s, bool bootloader);
void sim_mp_running(struct amd_sim *s);
/* smu.c: a mode-1 reset, as the SMU's debug mailbox makes it (or a power
 * cycle: no firmware survives). Not under mp_lock or an engine's lock: it
 * stops the engines (sim_function_reset takes and lets go of their
 * locks), then takes mp_lock, so no engine's lock is taken under it. */
void sim_mode1_reset(struct amd_sim *s, bool power_cycle);
/*
 * mec.c: the MEC's gate. sim_mec_power_on: halted, no image (a reset);
 * sim_mec_loaded: the RLC placed the image whose start address is
 * start (under mp_lock, taking no other lock); sim_mec_clean: running
 * at the expected image's start, as a clean session leaves it (takes
 * mp_lock); sim_mec_write: a write to one of the
 * layout's mec_* registers (after its store), which may start or stop
 * it; sim_mec_runs: whether the CP runs packets (cp_run()).
 */
void sim_mec_power_on(struct amd_sim *s);
void sim_mec_loaded(struct amd_sim *s, uint64_t start);
void sim_mec_clean(struct amd_sim *s);
void sim_mec_write(struct amd_sim *s, uint32_t index, uint32_t value);
bool sim_mec_runs(struct amd_sim *s);
/* mec.c: a write to XCC xcc's (> 0) CP_MEC_CNTL, after its store; whether
 * that XCC's MEC runs (xcc 0: sim_mec_runs). */
void sim_mec_xcc_write(struct amd_sim *s, unsigned xcc, uint32_t value);
bool sim_mec_xcc_runs(struct amd_sim *s, unsigned xcc);
/* ext.c: a write of value to NBIO's PCIE_DATA2: true where it reached
 * another AID (stored there) or nothing; false, with *index the local
 * register it addresses, for the caller to write. */
bool sim_ext_write(struct amd_sim *s, uint32_t *index, uint32_t value);
/* ext.c: AID aid's (1..aids - 1) register index as last written through
 * the window, in *out (0 and false if never). */
bool sim_aid_get(struct amd_sim *s, unsigned aid, uint32_t index, uint32_t *out);
/*
 * nbio.c: whether the SDMA queue's doorbell at BAR2 dword dw reaches the
 * engine (always, but on NBIO 7.9: only through AID 0's routing of SDMA
 * instance 0); read under the SDMA engine's lock (sim_engine_route).
 * sim_nbio_write: after a write's store to index, re-enters the SDMA
 * queue's route if index is part of that routing (takes the SDMA
 * engine's lock).
 */
bool sim_nbio_sdma_routed(struct amd_sim *s, uint32_t dw);
void sim_nbio_write(struct amd_sim *s, uint32_t index);
/* xcc.c: the XCC (1..xccs - 1) whose GC registers hold index, else 0. */
unsigned sim_xcc_of(const struct amd_sim *s, uint32_t index);
/* tree.c: a function reset's loss of the engines' and registers' state. */
void sim_function_reset(struct amd_sim *s);

/* regs.c */
uint32_t sim_reg(struct amd_sim *s, uint32_t index);
void sim_reg_set(struct amd_sim *s, uint32_t index, uint32_t value);
void sim_regs_clean_session(struct amd_sim *s, uint32_t mark);

/* engine.c: start, stop, kick and lock the engines, halt a queue; sim.c:
 * ring them, and the 100 MHz GPU clock (amd-facts §4.3). A start is 0, or
 * -errno with amd_why() saying why; a stop waits for the thread to end. */
int sim_engine_start(struct amd_sim *s, struct sim_engine *e, enum amd_sim_engine kind,
		     int nqueues);
void sim_engine_stop(struct sim_engine *e);
void sim_engine_kick(struct sim_engine *e);
/*
 * The engine's lock. Its thread holds it while it runs a packet (cp_run(),
 * sdma_run()), so register writes that stop, restart or reset a queue
 * land between packets. Recursive: a packet's register write (WRITE_DATA)
 * or a launch's callback reaches the paths that take it again on the
 * engine's own thread. Order: CP, then SDMA.
 */
void sim_engine_lock(struct sim_engine *e);
void sim_engine_unlock(struct sim_engine *e);
/* Under e's lock, after a change to a queue's enabled or doorbell: the
 * routes doorbell writes read without the lock. */
#define SIM_ROUTE_ON	(1u << 31)
/* The bit of e's queue i in a doorbell slot's decode: the CP's queues
 * first, then the SDMA's. */
#define SIM_DB_BIT(kind, i)	(1u << ((kind) == AMD_SIM_CP ? (i) : SIM_CP_QUEUES + (i)))
void sim_engine_route(struct sim_engine *e);
/* A doorbell offset's checks (0 or -EINVAL naming func), and a handle's ring of the
 * slot they passed (machine.c's doorbell_open: at is the slot, ctx the
 * sim). */
int sim_doorbell_check(const char *func, uint64_t offset);
void sim_doorbell_ring(const struct pci_doorbell *db, uint64_t value);
uint64_t sim_gpu_clock(void);
void sim_queue_halt(struct sim_queue *q, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* vm.c. A fault: what an IH entry and the fault status report. */
struct sim_fault {
	uint64_t va;
	bool write;
	uint32_t status;	/* GCVM_L2_PROTECTION_FAULT_STATUS fields */
	bool dropped;		/* host memory with bus mastering off */
};
/* STATUS fields (amd-facts §6.4, gc_11_0_0). */
#define FAULT_WALKER_ERROR	(1u << 1)	/* walker_error[3:1] = 1 */
#define FAULT_PERM_READ		(1u << 5)	/* permission_faults[7:4] */
#define FAULT_PERM_WRITE	(1u << 6)
#define FAULT_MAPPING_ERROR	(1u << 8)
#define FAULT_RW		(1u << 18)
/*
 * [va, va + bytes) through context 0's page tables, inside one page: a
 * host pointer, or NULL with *f filled (unmapped, permission, or host
 * memory with bus mastering off: f->status 0 and dropped_dma counted).
 */
void *sim_vm_ptr(struct amd_sim *s, uint64_t va, size_t bytes, bool write,
		 struct sim_fault *f);
/* Copies across pages: 0, or -EFAULT with *f. */
int sim_vm_read(struct amd_sim *s, uint64_t va, void *to, size_t bytes,
		struct sim_fault *f);
int sim_vm_write(struct amd_sim *s, uint64_t va, const void *from,
		 size_t bytes, struct sim_fault *f);
/* An MC address (the FB aperture, else a bus address): host pointer or NULL. */
void *sim_mc_ptr(struct amd_sim *s, uint64_t mc, size_t bytes);
/* n bytes of memory engines share, as relaxed atomics (vm.c's note). */
void sim_copy(uint8_t *to, const uint8_t *from, size_t n);
/* A bus address of host memory: pointer or NULL (bus mastering off too). */
void *sim_bus_ptr(struct amd_sim *s, uint64_t bus, size_t bytes);

/* ih.c: entries (amd-facts §6.1). */
struct sim_iv {
	uint8_t client, src, ring, vmid;
	uint32_t data[4];
};
void sim_ih_push(struct amd_sim *s, const struct sim_iv *iv);
void sim_ih_vm_fault(struct amd_sim *s, const struct sim_fault *f, uint8_t cid);
void sim_ih_reg_write(struct amd_sim *s, uint32_t rel);

/* cp.c, sdma.c: one pass over a queue; returns whether it progressed. */
bool cp_run(struct amd_sim *s, int qi);
bool sdma_run(struct amd_sim *s, int qi);
/* Under cp.lock: HQD register rel (bits 7:0) of queue (bits 15:8) was written. */
void cp_hqd_write(struct amd_sim *s, uint32_t q_rel);
void sdma_reg_write(struct amd_sim *s, uint32_t rel);

/* launch.c: DISPATCH_DIRECT's work. 0, or a halt reason was set. */
int launch_dispatch(struct amd_sim *s, int qi, const uint32_t dims[3],
		    uint32_t initiator);

/* tree.c */
int sim_tree_build(struct amd_sim *s);
int sim_tree_write(struct amd_sim *s, const char *rel, const char *text,
		   bool *handled);

/* peer.c (what it says of the bus). sim_bus_join: s joins peer's bus, or
 * a new one for NULL; sets s's BAR0 and host bus addresses. sim_bus_leave:
 * whether s was the last (its VRAM is then the caller's to unmap; else the
 * bus keeps it mapped). sim_bus_find: the member with that bus address.
 * sim_bus_peer_ptr: bytes at a bus address in another member's BAR0, or
 * NULL. sim_bus_bar_address: where bytes at offset of peer's BAR sit. */
int sim_bus_join(struct amd_sim *s, struct amd_sim *peer);
bool sim_bus_leave(struct amd_sim *s);
struct amd_sim *sim_bus_find(struct amd_sim *s, const char *bus);
void *sim_bus_peer_ptr(struct amd_sim *s, uint64_t bus, size_t bytes);
int sim_bus_bar_address(struct amd_sim *s, const char *peer, int bar,
			uint64_t offset, uint64_t bytes, uint64_t *bus);

/* machine.c */
extern const struct pci_machine_ops sim_machine_ops;
struct amd_sim *sim_of_machine(const struct rig_pci_machine *m);

/* The function field of WAIT_REG_MEM and POLL_REGMEM (amd-facts §4, §5):
 * 0 always, then <, <=, ==, !=, >=, >; 7 is reserved and never passes. */
static inline bool
sim_compare(uint32_t fn, uint64_t v, uint64_t ref)
{
	switch (fn) {
	case 0: return true;
	case 1: return v < ref;
	case 2: return v <= ref;
	case 3: return v == ref;
	case 4: return v != ref;
	case 5: return v >= ref;
	case 6: return v > ref;
	}
	return false;
}

#endif
