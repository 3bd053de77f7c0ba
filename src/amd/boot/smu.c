/* SPDX-License-Identifier: MIT */
/*
 * amd/boot/smu.c: the power manager (MP1) through its mailbox (amd-facts
 * §3.9): a message in C2PMSG_66, its argument in C2PMSG_82, the answer in
 * C2PMSG_90 (1 OK; 0xFF failed, 0xFE unknown, 0xFD prerequisite, 0xFC
 * busy), a return value read back from C2PMSG_82. The full boot asks its
 * version, gives it the driver table's address (16 KiB of VRAM) and
 * enables its features. The debug mailbox (C2PMSG_75, argument 53,
 * answer 54) takes the mode-1 reset on MP1 13.0.0/13.0.7 and 14.
 * MP1 13.0.6 (GC 9.4.3) numbers its messages otherwise (§3.9:
 * EnableAllSmuFeatures 5, SetDriverDramAddrHigh 0xD, Low 0xE; TestMessage
 * and GetSmuVersion as 13.0.0) and takes its mode-1 reset as
 * GfxDriverReset(1), message 3 on the normal mailbox, whose answer the
 * reset clears. Nothing is undone at stop.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amd/amd.h"
#include "amd/boot/boot.h"

#define MS	1000

enum msg { GET_SMU_VERSION, ENABLE_ALL_FEATURES, DRAM_ADDR_HIGH, DRAM_ADDR_LOW,
	   GFX_DRIVER_RESET, MSGS };
#define DEBUG_MODE1_RESET 2

static const char *const msg_names[MSGS] = {
	"GetSmuVersion", "EnableAllSmuFeatures", "SetDriverDramAddrHigh",
	"SetDriverDramAddrLow", "GfxDriverReset",
};
/* Message ids (§3.9): MP1 13.0.0/13.0.7/14.0.x, and MP1 13.0.6 (GC 9.4.3). */
static const uint32_t ids[2][MSGS] = {
	{ 2, 6, 0xE, 0xF, 0 },
	{ 2, 5, 0xD, 0xE, 3 },
};

static uint32_t
id(const struct amd_boot *b, enum msg m)
{
	return ids[b->d->gc_major == 9][m];
}

/* One message: 0 with *out the argument register after, or a status. */
static int
send(struct amd_boot *b, enum msg msg, uint32_t arg, unsigned ms, uint32_t *out)
{
	char what[80];
	uint32_t answer;
	int ret;

	BW(b, AMD_REG_MP1_C2PMSG_90, 0, 0);
	BW(b, AMD_REG_MP1_C2PMSG_82, 0, arg);
	BW(b, AMD_REG_MP1_C2PMSG_66, 0, id(b, msg));
	snprintf(what, sizeof(what), "no answer to %s", msg_names[msg]);
	if ((ret = amd_boot_wait_nonzero(b, "SMU", what, AMD_REG_MP1_C2PMSG_90, ms,
					 &answer)) < 0)
		return ret;
	if (answer != 1)
		return amd_boot_fail(b, -EPROTO, "SMU: %s(0x%x) refused (C2PMSG_90 = "
				     "0x%x)", msg_names[msg], arg, answer);
	if (out)
		*out = amd_dev_rreg(b->d, AMD_REG_MP1_C2PMSG_82, 0);
	return 0;
}

bool
amd_boot_smu_alive(struct amd_boot *b, unsigned ms)
{
	return send(b, GET_SMU_VERSION, 0, ms, NULL) == 0;
}

int
amd_boot_smu_mode1(struct amd_boot *b)
{
	if (b->d->gc_major == 9) {	/* GfxDriverReset(1): no answer survives it */
		BW(b, AMD_REG_MP1_C2PMSG_90, 0, 0);
		BW(b, AMD_REG_MP1_C2PMSG_82, 0, 1);
		BW(b, AMD_REG_MP1_C2PMSG_66, 0, id(b, GFX_DRIVER_RESET));
		amd_boot_sleep(500);	/* §3.9: the reset's 500 ms */
		return 0;
	}
	BW(b, AMD_REG_MP1_C2PMSG_54, 0, 0);
	BW(b, AMD_REG_MP1_C2PMSG_53, 0, 0);
	BW(b, AMD_REG_MP1_C2PMSG_75, 0, DEBUG_MODE1_RESET);
	amd_boot_sleep(500);		/* §3.9: the reset's 500 ms */
	return 0;
}

int
amd_boot_smu_init(struct amd_boot *b)
{
	uint64_t table = b->d->fb_base + AMD_BOOT_SMU_TABLE_AT;
	int ret;

	memset(b->d->vram + AMD_BOOT_SMU_TABLE_AT, 0, AMD_BOOT_SMU_TABLE_BYTES);
	if ((ret = send(b, GET_SMU_VERSION, 0, MS, &b->smu_version)) < 0 ||
	    (ret = send(b, DRAM_ADDR_HIGH, (uint32_t)(table >> 32), MS, NULL)) < 0 ||
	    (ret = send(b, DRAM_ADDR_LOW, (uint32_t)table, MS, NULL)) < 0 ||
	    (ret = send(b, ENABLE_ALL_FEATURES, 0, MS, NULL)) < 0)
		return ret;
	return 0;
}
