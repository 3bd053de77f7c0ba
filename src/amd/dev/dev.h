/* SPDX-License-Identifier: MIT */
/*
 * amd/dev/: the device (Rig_amd) on a GPU over PCI, behind rig_edge.h.
 * Everything it does to the GPU goes through the machine interface
 * (amd/pci/pci.h): registers, doorbells, DMA memory, the interrupt source.
 *
 *   boot.c   register access by role and the page tables, which the boot
 *            (amd/boot/: its units and amd_dev_unboot, their undoing) uses
 *   mem.c    VRAM and GART (host DMA memory) regions, their GPU addresses
 *   queue.c  room, submit, commit: the two rings, device order, the word
 *   ih.c     the interrupt ring: EOP wakes waiters, faults lose the device
 *   peer.c   other AMD GPUs of the process: their words and regions mapped
 *            into this GPU through their memory BARs (map_peer, waits)
 *   relay.c  waits on producers whose word the GPU cannot reach: a host
 *            thread copies each word into a word of this GPU's VRAM
 *   code.c   AMDGPU code objects: load places them, entry reads the `.kd`
 *   ops.c    the rest of struct rig_ops: facts, stop, release
 *
 * Layout. VRAM offset o is GPU VA AMD_VA_VRAM + o (2 MiB leaves over all of
 * VRAM, in both hubs); GART page k of host memory is AMD_VA_HOST + k * 2 MiB.
 * The driver's own structures sit in the first AMD_RESERVED bytes of VRAM,
 * the discovery table the firmware left in the last AMD_TOP_KEPT bytes.
 *
 * Peers' memory is AMD_VA_PEER + k * 2 MiB: pages of other GPUs' memory
 * BARs, mapped as SYSTEM (uncached) pages at their bus addresses (peer.c).
 *
 * The timeline word. The compute queue's RELEASE_MEM writes each value into
 * the device's own 64-bit word in VRAM (one store, never torn, never
 * backwards): completion Store, with the word a region of the driver's own
 * (facts.word) that rig reads through ops.signaled (the host reads it
 * through the memory BAR) and another AMD GPU's compute queue waits on
 * through this GPU's BAR (peer.c). The EOP interrupt only wakes: rig wakes
 * the word's waiters once the events call returns (ih.c).
 */
#ifndef AMD_DEV_DEV_H
#define AMD_DEV_DEV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "amd/pci/pci.h"
#include "amd/pm4/dispatch.h"
#include "amd/pm4/ring.h"
#include "amd/regs/regs.h"
#include "amd/sdma/sdma.h"

#define AMD_VA_VRAM	0x200000000000ull
#define AMD_VA_HOST	0x300000000000ull
#define AMD_RESERVED	(16ull << 20)
#define AMD_TOP_KEPT	(16ull << 20)

/* Offsets in VRAM of the driver's structures. */
#define AMD_PT_AT	0x000000ull		/* page tables: 4 MiB of pages */
#define AMD_PT_END	0x400000ull
#define AMD_IH_AT	0x400000ull		/* IH ring, 64 KiB */
#define AMD_IH_BYTES	(64u << 10)
#define AMD_IH_WPTR_AT	0x410000ull
#define AMD_CP_RING_AT	0x500000ull		/* 256 KiB each */
#define AMD_SDMA_RING_AT 0x540000ull
#define AMD_RING_BYTES	(256u << 10)
#define AMD_CP_RPTR_AT	0x580000ull		/* 32-bit, dwords */
#define AMD_SDMA_RPTR_AT 0x580040ull		/* 64-bit, bytes */
#define AMD_CP_STEP_AT	0x580100ull		/* hand-offs CP -> SDMA */
#define AMD_SDMA_STEP_AT 0x580140ull		/* hand-offs SDMA -> CP */
#define AMD_WORD_AT	0x580180ull		/* the device's timeline word */
#define AMD_RELAY_AT	0x580200ull		/* relay.c's words, 8 bytes each */
#define AMD_RELAY_SLOTS	32
#define AMD_VA_PEER	0x380000000000ull	/* peers' BAR pages (peer.c) */
#define AMD_PEER_WORDS	16			/* peers whose word a wait maps */
#define AMD_ARENA_AT	0x600000ull		/* kernargs: a ring of bytes */
#define AMD_ARENA_BYTES	(8ull << 20)

/* Doorbell slots (qwords of BAR2, amd-facts §3.12). */
#define AMD_CP_DOORBELL		3
#define AMD_SDMA_DOORBELL	256

/* The driver commits on its own at least once every AMD_COMMIT_K values. */
#define AMD_COMMIT_K	16

/*
 * EOP interrupts asked and not yet read by the events call, at most: half
 * the IH ring's entries, so end-of-pipe entries never fill the ring, which
 * keeps the other half for fault entries however late the events call
 * drains it (queue.c, ih.c).
 */
#define AMD_EOP_MAX	(AMD_IH_BYTES / 32 / 2)

/*
 * Per value, what each part was placed at (for a fault's culprit). A
 * sequence lock per entry: its one writer is submit (rig's calls run one at
 * a time), its reader the events call at a fault (queue.c), so submit
 * takes no lock: a lock's read-modify-write per part waited for the ring
 * lines submit had just written to come back from the engine's core. The
 * sequence is the value itself, doubled (odd while submit writes the
 * entry): values only grow, so a rewrite always changes it, and the entry
 * is four stores, not seven.
 */
#define AMD_HISTORY	1024
struct amd_placed {
	_Atomic uint64_t seq;	/* 2 * value, + 1 while submit writes the entry */
	_Atomic uint64_t start;	/* CP: dwords; SDMA: bytes */
	/* The part's length (same units) << 32 | its index << 1 | sdma. */
	_Atomic uint64_t info;
};

struct amd_region {
	enum rig_memory kind;
	bool peer;		/* another GPU's memory, at peer_va (peer.c) */
	bool word;		/* the device's word (facts.word): never freed */
	uint64_t peer_va;	/* the GPU VA of its first byte, for a peer */
	uint64_t peer_pages;	/* the 2 MiB pages it mapped from there */
	uint64_t offset;	/* VRAM offset, or GART offset from AMD_VA_HOST */
	uint64_t bytes;
	struct pci_dma dma;	/* GART's */
	void *host;
	struct amd_region *next;	/* the free list's (mem.c) */
	struct amd_region *live_prev, *live_next;	/* live regions */
};

struct amd_dev {
	const struct rig_driver *drv;	/* first: what rig reads of edge */
	const struct rig_pci_machine *m;
	struct pci_taken t;
	int lock_fd;
	char name[32];
	char bus[32];
	char arch[16];
	unsigned gc_major, gc_minor, gc_rev;
	unsigned xccs;			/* unharvested GC instances (§2.4: XCCs) */
	enum amd_gfx gfx;
	enum amd_sdma sdma_gen;
	struct amd_regs regs;
	uint8_t *vram;			/* BAR0 window */
	uint64_t vram_bytes;
	uint64_t fb_base;		/* MC address of VRAM offset 0 */
	uint64_t pt_next;
	struct pci_irq irq;
	_Atomic uint64_t *rig_word;
	struct rig_queue queues[2];

	/* Memory (mem.c), under mem_lock. */
	pthread_mutex_t mem_lock;
	struct amd_region *holes;	/* free VRAM ranges, by offset */
	struct amd_region *live;	/* allocated regions */
	uint64_t gart_next;		/* next GART VA offset */

	/* Queues (queue.c): the C functions' own, one call at a time. */
	struct amd_ring cp, sdma;
	/* Their doorbells, resolved once at open (a commit rings them). */
	struct pci_doorbell cp_db, sdma_db;
	uint64_t cp_committed, sdma_committed;	/* wptrs rung */
	uint64_t last_submitted, last_committed;
	uint32_t step;			/* engine hand-offs made */
	bool on_sdma;			/* the last part placed ran on SDMA */
	/* The function whose registers the compute queue's SH state holds
	 * (its template's serial), 0 where not known: a launch of it takes
	 * the again form (amd/pm4/dispatch.h). */
	uint64_t sh_serial;
	uint64_t arena_next;
	uint64_t arena_used_by[AMD_HISTORY];	/* arena end per value slot */
	_Atomic uint64_t cp_rung;	/* cp_committed, for the events thread */
	/* The RELEASE_MEM of the last value encoded since the last commit
	 * (NULL: none), whose interrupt the commit asks for (queue.c). */
	uint32_t *eop_pending;
	/* Every value's ending RELEASE_MEM, its value left 0 (queue.c). */
	uint32_t end_template[PM4_RELEASE_MEM_DWORDS];
	uint64_t eop_asked;		/* EOP interrupts asked */
	uint64_t eop_value;		/* the value of the last one asked */
	/* What room last read of the engines' read pointers and the word:
	 * each only grows, so an old one only understates the room. */
	uint32_t cp_rptr_seen;
	uint64_t sdma_rptr_seen, done_seen;
	struct amd_placed placed[AMD_HISTORY];
	_Atomic uint64_t nplaced;	/* entries written (release) */

	/* Peers (peer.c), under mem_lock: the pages of other GPUs' words
	 * mapped so far, and the next free peer VA. */
	struct { char bus[32]; uint64_t bar_bus; uint64_t va; } peer_words[AMD_PEER_WORDS];
	int npeer_words;
	uint64_t peer_next;
	struct amd_region word_region;

	/* The relay (relay.c). */
	pthread_mutex_t relay_lock;
	pthread_cond_t relay_cond;
	pthread_t relay_thread;
	bool relay_started, relay_quit;
	struct amd_relay_slot {
		const _Atomic uint64_t *word;	/* NULL: free */
		uint64_t want, shown, last_use;
	} relay[AMD_RELAY_SLOTS];

	/* Serials given to functions' templates (code.c's entry). */
	_Atomic uint64_t fn_serials;

	/* IH (ih.c), the events call's own. */
	uint32_t ih_rptr;
	_Atomic uint64_t eop_seen;	/* EOP entries read (queue.c's limit) */
	char fault[512];
	_Atomic bool lost;
	_Atomic bool stopped;
};

/* amd/boot/boot.c: the boot's finis, in reverse (clean: a stop with no fault) */
void amd_dev_unboot(struct amd_dev *d, bool clean);
int amd_dev_wreg(struct amd_dev *d, enum amd_reg r, uint64_t plus, uint32_t v);
uint32_t amd_dev_rreg(struct amd_dev *d, enum amd_reg r, uint64_t plus);
/* The same on XCC xcc's instance of a GC register (amd_regs_xcc; 0 is
 * the two above): -ENOTSUP naming the XCC where it has none. */
int amd_dev_wreg_xcc(struct amd_dev *d, unsigned xcc, enum amd_reg r, uint64_t plus,
		     uint32_t v);
uint32_t amd_dev_rreg_xcc(struct amd_dev *d, unsigned xcc, enum amd_reg r,
			  uint64_t plus);
/* Maps [va, va + bytes) to pa with flags in 2 MiB leaves (both hubs' tables). */
void amd_dev_map(struct amd_dev *d, uint64_t va, uint64_t pa, uint64_t bytes,
		 uint64_t flags);
#define AMD_PTE_V	(1ull << 0)
#define AMD_PTE_SYS	(1ull << 1)
#define AMD_PTE_SNOOP	(1ull << 2)
#define AMD_PTE_X	(1ull << 4)
#define AMD_PTE_R	(1ull << 5)
#define AMD_PTE_W	(1ull << 6)
#define AMD_PTE_RWX	(AMD_PTE_V | AMD_PTE_R | AMD_PTE_W | AMD_PTE_X)

/* mem.c */
int amd_mem_init(struct amd_dev *d);
void amd_mem_fini(struct amd_dev *d);
int amd_mem_alloc(void *t, uint64_t bytes, enum rig_memory kind, void **region,
		  const char **fault);
void amd_mem_free(void *t, void *region);
void amd_mem_locate(void *t, void *region, struct rig_location *out);
/* The live region holding GPU VA va, and va's offset in it; NULL for none. */
const struct amd_region *amd_mem_find(struct amd_dev *d, uint64_t va,
				      uint64_t *offset);

/* queue.c */
extern const struct rig_driver amd_dev_driver;
void amd_queue_init(struct amd_dev *d);
/* The part and value whose work sat at the halted engine's read pointer. */
void amd_queue_culprit(struct amd_dev *d, bool sdma, struct rig_fault_site *site);

/* ih.c */
int amd_ih_events(void *t, struct rig_fault_site *site, const char **fault);
/* The device word's value (acquire). */
uint64_t amd_dev_word(const struct amd_dev *d);

/* peer.c */
/* Enters d in the process's AMD devices (others' waits and map_peer find
 * it); leave takes it out. Both before any other device can reach it. */
void amd_peer_enter(struct amd_dev *d);
void amd_peer_leave(struct amd_dev *d);
enum rig_mapping amd_peer_map(void *t, const struct rig_location *peer,
			      uint64_t bytes, void **region);
/* The GPU VA at which d's queues read the word of the AMD device whose
 * rig word is word, mapping it on first use: 1 with *va set, 0 where word
 * is no AMD device's that d reaches (relay.c serves it then). */
int amd_peer_word_va(struct amd_dev *d, const _Atomic uint64_t *word,
		     uint64_t *va);

/* relay.c */
/* The GPU VA of a relay word that shows what word shows, from now until d
 * stops, for d's value `value` to wait on with value `want`: 0; 1 where
 * every slot was held and it waited on the host until word showed want;
 * -EAGAIN (no thread) with d->fault set. */
int amd_relay_va(struct amd_dev *d, const _Atomic uint64_t *word, uint64_t want,
		 uint64_t value, uint64_t *va);
void amd_relay_init(struct amd_dev *d);
/* Ends the relay's thread (stop) and frees what it holds (fini). */
void amd_relay_stop(struct amd_dev *d);
void amd_relay_fini(struct amd_dev *d);

/* code.c */
int amd_code_load(void *t, const void *bytes, size_t len, struct rig_code *out,
		  const char **fault);
void amd_code_unload(void *t, void *image);
int amd_code_entry(void *t, void *image, const char *name, struct rig_entry *out,
		   uint64_t *bytes);

/* ops.c */
extern const struct rig_ops amd_dev_ops;

#endif
