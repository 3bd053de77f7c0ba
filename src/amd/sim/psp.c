/* SPDX-License-Identifier: MIT */
/*
 * amd/sim/psp.c: the security processor (MP0) as amd-facts §3.8 says a
 * driver finds it. Its bootloader takes the sOS image's components one at
 * a time (C2PMSG_36: the buffer's MC address >> 20; C2PMSG_35: the
 * command; bit 31 of C2PMSG_35 ready, low 16 bits its status), the sOS
 * shows its sign of life in C2PMSG_81, takes a KM ring (C2PMSG_69/70/71,
 * C2PMSG_64 = 2 << 16; bit 31 ready, low 16 bits status) and runs the
 * frames written before each write pointer (C2PMSG_67): each command
 * buffer's response status at 0x360, then its fence value at the frame's
 * fence address.
 *
 * What it checks (fw.c has the expected bytes, from files with the pinned
 * digests): each component and piece equal, byte for byte, to the pinned
 * image's, in linux's order; the command buffer's size and version;
 * LOAD_TOC before any LOAD_IP_FW and AUTOLOAD_RLC after the last; on MP0
 * 13 SETUP_TMR (1 MiB aligned in VRAM, LOAD_TOC's size, virt_phy_addr)
 * right after the SMU's firmware and before any other piece; on MP0
 * 13.0.6 (GC 9.4.3, no TOC, a boot-time TMR) SETUP_TMR with buffer 0 and
 * size 0 before the first piece, REG_LIST as the last piece and no
 * AUTOLOAD_RLC (§3.8), and, once the RLC runs, SRIOV_SPATIAL_PART of
 * mode 1 (one partition, §3.8), whose mode amd_sim_xcc_check reads. Its
 * SMU answers once the piece that carries the SMU's file is taken (its
 * firmware, or 13.0.6's P2S table: when a real 13.0.6 SMU first answers
 * is not in the facts). Its
 * sOS takes GFX_CTRL_CMD_ID_MODE1_RST (0x00070000, linux's psp_gfx_if.h)
 * in C2PMSG_64 as psp_v11_0.c's mode1_reset gives it: it resets the GPU
 * whole as the SMU's mode 1 does (smu.c), then sets bit 31 of C2PMSG_33,
 * the completion linux waits for (that a real sOS sets it only once the
 * reset is done is the sim's reading; silenced, amd_sim_inject, it takes
 * the command and does nothing). Its
 * refusals' statuses are GlobalPlatform TEE codes, the family linux's
 * psp_cmd_submit_buf tests (TEE_ERROR_NOT_SUPPORTED): BAD_PARAMETERS
 * 0xFFFF0006 (a layout), BAD_STATE 0xFFFF0007 (out of order), SECURITY
 * 0xFFFF000F (bytes not the pinned image's), NOT_SUPPORTED 0xFFFF000A
 * (an unknown command); which code a real PSP gives each refusal is not
 * in the facts, nor the bootloader's statuses (here 1 out of order, 2 not
 * the pinned bytes, 3 no pinned image). It answers at once, in the
 * writing thread; a real one takes milliseconds.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "amd/fail.h"
#include "amd/sim/priv.h"

#define ST_BAD_PARAMETERS	0xFFFF0006u
#define ST_BAD_STATE		0xFFFF0007u
#define ST_NOT_SUPPORTED	0xFFFF000Au
#define ST_SECURITY		0xFFFF000Fu
#define SIM_TMR_BYTES		0x1000000u	/* the sim's LOAD_TOC answer */
#define MODE1_RST		0x00070000u	/* GFX_CTRL_CMD_ID_MODE1_RST */
#define MODE1_DONE		(1u << 31)	/* C2PMSG_33 */

static uint32_t
c2p(const struct amd_sim *s, uint32_t n)
{
	return s->lay.c2pmsg_81 - 81 + n;
}

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void
wr32(uint8_t *p, uint32_t v)
{
	__atomic_store_n((uint32_t *)(void *)p, v, __ATOMIC_RELEASE);
}

static bool
same(struct amd_sim *s, uint64_t mc, const struct sim_part *want, uint64_t len)
{
	const uint8_t *got;

	if (len != want->len || !(got = sim_mc_ptr(s, mc, len)))
		return false;
	atomic_thread_fence(memory_order_acquire);
	return memcmp(got, want->bytes, len) == 0;
}

void
sim_mp_power_on(struct amd_sim *s, bool bootloader)
{
	struct sim_mp *m = s->mp;
	bool survives = m->sos_survives && m->sos && bootloader;

	m->bootloader = bootloader && !m->never_ready && !survives;
	m->sos = survives;
	m->ring = m->toc = m->tmr = m->autoloaded = false;
	m->boot_next = m->load_next = 0;
	m->wptr = 0;
	m->smu = survives;
	m->dram_hi = m->dram_lo = m->features = false;
	m->spatial_mode = 0;
	sim_mec_power_on(s);
	sim_reg_set(s, c2p(s, 35), m->bootloader ? 0x80000000u : 0);
	sim_reg_set(s, c2p(s, 81), survives ? 0x1u : 0);
	sim_reg_set(s, c2p(s, 64), survives ? 0x80000000u : 0);
}

void
sim_mp_running(struct amd_sim *s)
{
	struct sim_mp *m = s->mp;

	m->bootloader = false;
	m->sos = m->smu = true;
	m->smu_version = 0x00540000u;	/* the sim's own, until one is loaded */
	sim_reg_set(s, c2p(s, 64), 0x80000000u);
}

static void
bootloader_cmd(struct amd_sim *s, uint32_t cmd)
{
	struct sim_mp *m = s->mp;
	struct sim_fw *w = &s->fw;
	const struct sim_part *want;
	uint32_t status = 0;

	if (!m->bootloader)
		return;			/* no bootloader answers */
	sim_fw_load(s);
	/* The first component again: a driver that died part way (a killed
	 * process) starts over; the sim's choice, the facts say nothing. */
	if (m->boot_next && w->ready && w->nboot && cmd == w->boot[0].cmd)
		m->boot_next = 0;
	want = m->boot_next < w->nboot ? &w->boot[m->boot_next] : NULL;
	if (!w->ready)
		status = 3;
	else if (!want || want->cmd != cmd)
		status = 1;
	else if (!same(s, (uint64_t)sim_reg(s, c2p(s, 36)) << 20, want, want->len))
		status = 2;
	if (status) {
		sim_reg_set(s, c2p(s, 35), 0x80000000u | status);
		return;
	}
	m->boot_next++;
	if (want->type != 1) {
		sim_reg_set(s, c2p(s, 35), 0x80000000u);
		return;
	}
	/* The SOS: the bootloader hands over. */
	m->bootloader = false;
	m->sos = true;
	sim_reg_set(s, c2p(s, 35), 0);
	sim_reg_set(s, c2p(s, 81), w->sos_version ? w->sos_version : 1);
	sim_reg_set(s, c2p(s, 64), 0x80000000u);
}

/* A command in C2PMSG_64; true for GFX_CTRL_CMD_ID_MODE1_RST, which the
 * caller carries out once mp_lock is released (sim_mode1_reset()). */
static bool
ring_cmd(struct amd_sim *s, uint32_t v)
{
	struct sim_mp *m = s->mp;
	uint64_t base = (uint64_t)sim_reg(s, c2p(s, 70)) << 32 | sim_reg(s, c2p(s, 69));
	uint32_t bytes = sim_reg(s, c2p(s, 71));

	if (!m->sos)
		return false;
	if (v == MODE1_RST)
		return !m->mode1_silent;	/* silenced: it never answers */
	if (v == 0x30000) {
		m->ring = false;
		sim_reg_set(s, c2p(s, 64), 0x80000000u);
	} else if (v == 2u << 16 && bytes >= 4096 && !(bytes & (bytes - 1)) &&
		   !(base & 0xFFF) && sim_mc_ptr(s, base, bytes)) {
		m->ring = true;
		m->wptr = 0;
		sim_reg_set(s, c2p(s, 64), 0x80000000u);
	} else {
		sim_reg_set(s, c2p(s, 64), 0x80000000u | 1);
	}
	return false;
}

/* The RLC runs the loaded images: CP idle, bootload complete where the
 * GC has that register (GC 11, 12), the MEC's image in place (it runs
 * once the driver starts it: mec.c). */
static void
rlc_started(struct amd_sim *s)
{
	s->mp->autoloaded = true;
	sim_mec_loaded(s, s->fw.mec_start);
	if (s->lay.rlc_bootload)
		sim_reg_set(s, s->lay.rlc_bootload, 1u << 31);
	sim_reg_set(s, s->lay.cp_stat, 0);
}

/* One command buffer: its status (the response's tmr_size in *tmr). */
static uint32_t
run(struct amd_sim *s, const uint8_t *cmd, uint32_t *tmr)
{
	struct sim_mp *m = s->mp;
	struct sim_fw *w = &s->fw;
	const uint8_t *p = cmd + 0x1c;
	uint64_t addr = (uint64_t)rd32(p + 4) << 32 | rd32(p);
	const struct sim_part *want;

	if (rd32(cmd) != 1024 || rd32(cmd + 4) != 1)
		return ST_BAD_PARAMETERS;
	switch (rd32(cmd + 8)) {
	case 0x20:		/* LOAD_TOC */
		sim_fw_load(s);
		if (!w->ready || !w->toc)
			return ST_SECURITY;
		if (m->toc || m->load_next)
			return ST_BAD_STATE;
		if (rd32(p + 8) != w->toc_len || !same(s, addr, &(struct sim_part){
				.bytes = w->toc, .len = w->toc_len }, w->toc_len))
			return ST_SECURITY;
		m->toc = true;
		*tmr = SIM_TMR_BYTES;
		return 0;
	case 6:			/* LOAD_IP_FW */
		sim_fw_load(s);
		if (!w->ready)
			return ST_SECURITY;
		if ((w->toc && !m->toc) || m->autoloaded || m->load_next >= w->nload)
			return ST_BAD_STATE;
		want = &w->load[m->load_next];
		if (rd32(p + 12) != want->type || (want->type != 18 && !m->tmr &&
						    s->lay.ver[2][0] < 14))
			return ST_BAD_STATE;
		if (m->refuse_type == want->type || !same(s, addr, want, rd32(p + 8)))
			return ST_SECURITY;
		m->load_next++;
		m->loads++;
		if (want->type == 18 || want->type == 129) {	/* the SMU starts */
			m->smu = true;
			m->smu_version = w->smu_version;
		}
		if (want->type == 67)		/* GC 9: REG_LIST starts the RLC */
			rlc_started(s);
		return 0;
	case 0x21:		/* AUTOLOAD_RLC: GC 11 and 12 */
		if (s->lay.ver[0][0] == 9)
			return ST_NOT_SUPPORTED;
		if (!w->ready || m->load_next != w->nload || m->autoloaded)
			return ST_BAD_STATE;
		rlc_started(s);
		return 0;
	case 0x27:		/* SRIOV_SPATIAL_PART: GC 9.4.3, once the RLC runs */
		if (s->lay.ver[0][0] != 9)
			return ST_NOT_SUPPORTED;
		if (!m->autoloaded)
			return ST_BAD_STATE;
		if (rd32(p) != 1)	/* §3.8 names mode 1 (one partition) only */
			return ST_NOT_SUPPORTED;
		m->spatial_mode = rd32(p);
		return 0;
	case 5:			/* SETUP_TMR: MP0 14.0.2/14.0.3 hold it from boot */
		if (s->lay.ver[0][0] == 9) {	/* MP0 13.0.6: boot-time, announced */
			sim_fw_load(s);
			if (!w->ready || m->tmr || m->load_next != 0)
				return ST_BAD_STATE;
			if (addr || rd32(p + 8))
				return ST_BAD_PARAMETERS;
			m->tmr = true;
			return 0;
		}
		if (s->lay.ver[2][0] >= 14 || !m->toc || m->tmr || m->load_next != 1)
			return ST_BAD_STATE;	/* MP0 13: after the SMU's firmware */
		if (addr & 0xFFFFF || rd32(p + 8) != SIM_TMR_BYTES || !(rd32(p + 12) & 2) ||
		    !sim_mc_ptr(s, addr, SIM_TMR_BYTES))
			return ST_BAD_PARAMETERS;
		m->tmr = true;
		return 0;
	}
	return ST_NOT_SUPPORTED;
}

/* The frames between the last write pointer and v (dwords). */
static void
ring_run(struct amd_sim *s, uint32_t v)
{
	struct sim_mp *m = s->mp;
	uint64_t base = (uint64_t)sim_reg(s, c2p(s, 70)) << 32 | sim_reg(s, c2p(s, 69));
	uint32_t dw = sim_reg(s, c2p(s, 71)) / 4;
	uint8_t *ring;

	if (!m->sos || !m->ring || !dw || v >= dw || v % 16 ||
	    !(ring = sim_mc_ptr(s, base, dw * 4ull)))
		return;
	atomic_thread_fence(memory_order_acquire);
	while (m->wptr != v) {
		const uint8_t *f = ring + m->wptr * 4ull;
		uint64_t cmd_mc = (uint64_t)rd32(f + 4) << 32 | rd32(f);
		uint64_t fence_mc = (uint64_t)rd32(f + 0x10) << 32 | rd32(f + 0xc);
		uint8_t *cmd = sim_mc_ptr(s, cmd_mc, 1024);
		uint8_t *fence = sim_mc_ptr(s, fence_mc, 4);
		uint32_t tmr = 0, status;

		m->wptr = (m->wptr + 16) % dw;
		if (!cmd || !fence || rd32(f + 8) != 1024)
			continue;	/* no answer: the driver's wait ends it */
		status = run(s, cmd, &tmr);
		memcpy(cmd + 0x360, &status, 4);
		memcpy(cmd + 0x370, &tmr, 4);
		wr32(fence, rd32(f + 0x14));
		/* A test's pause: the driver dies once the PSP has taken it. */
		sim_pause_check(s, AMD_SIM_PAUSE_PSP_COMMAND);
	}
}

bool
sim_psp_write(struct amd_sim *s, uint32_t index, uint32_t value)
{
	bool reset = false;

	if (!s->lay.c2pmsg_81 || index < c2p(s, 33) || index > c2p(s, 81))
		return false;
	pthread_mutex_lock(&s->mp_lock);
	sim_reg_set(s, index, value);
	if (index == c2p(s, 35)) {
		bootloader_cmd(s, value);
		/* A test's pause: the driver dies once the bootloader took it. */
		sim_pause_check(s, AMD_SIM_PAUSE_BOOTLOADER);
	}
	else if (index == c2p(s, 64))
		reset = ring_cmd(s, value);
	else if (index == c2p(s, 67))
		ring_run(s, value);
	pthread_mutex_unlock(&s->mp_lock);
	if (reset) {
		/* Mode 1 (smu.c's), then the sOS's word that it is done,
		 * which the reset's cleared registers would otherwise lose. */
		sim_mode1_reset(s, false);
		pthread_mutex_lock(&s->mp_lock);
		sim_reg_set(s, c2p(s, 33), MODE1_DONE);
		pthread_mutex_unlock(&s->mp_lock);
	}
	return true;
}

int
amd_sim_inject(struct amd_sim *s, enum amd_sim_fault f, uint32_t arg, bool on)
{
	struct sim_mp *m;

	if (!s)
		return amd_fail(-EINVAL, "sim is NULL");
	m = s->mp;
	pthread_mutex_lock(&s->mp_lock);
	switch (f) {
	case AMD_SIM_BOOTLOADER_NEVER_READY:
		m->never_ready = on;
		break;
	case AMD_SIM_SMU_SILENT:
		m->smu_silent = on;
		break;
	case AMD_SIM_SOS_SURVIVES_RESET:
		m->sos_survives = on;
		break;
	case AMD_SIM_SOS_MODE1_SILENT:
		m->mode1_silent = on;
		break;
	case AMD_SIM_PSP_REFUSES_TYPE:
		m->refuse_type = on ? arg : 0;
		break;
	case AMD_SIM_MEC_STAYS_HALTED:
		atomic_store_explicit(&m->mec_stays_halted, on, memory_order_relaxed);
		break;
	case AMD_SIM_XCC_WRITES_FAIL:
		if (arg < 1 || arg >= s->lay.xccs) {
			pthread_mutex_unlock(&s->mp_lock);
			return amd_fail(-EINVAL, "XCC %u is not one of the sim's XCCs "
					"past XCC 0 (it has %u)", arg, s->lay.xccs);
		}
		atomic_store_explicit(&m->xcc_writes_fail, on ? arg : 0,
				      memory_order_relaxed);
		break;
	case AMD_SIM_POWER_CYCLE:
		/* Without mp_lock: the reset takes the engines' locks. */
		pthread_mutex_unlock(&s->mp_lock);
		sim_mode1_reset(s, true);
		return 0;
	default:
		pthread_mutex_unlock(&s->mp_lock);
		return amd_fail(-EINVAL, "fault %d is not one the sim injects", (int)f);
	}
	pthread_mutex_unlock(&s->mp_lock);
	return 0;
}

uint64_t
amd_sim_reg_writes(struct amd_sim *s)
{
	return s ? atomic_load_explicit(&s->reg_writes, memory_order_relaxed) : 0;
}

uint64_t
amd_sim_psp_loads(struct amd_sim *s, bool *autoloaded)
{
	uint64_t n;

	if (!s)
		return 0;
	pthread_mutex_lock(&s->mp_lock);
	n = s->mp->loads;
	if (autoloaded)
		*autoloaded = s->mp->autoloaded;
	pthread_mutex_unlock(&s->mp_lock);
	return n;
}
