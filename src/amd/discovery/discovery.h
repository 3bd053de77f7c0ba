/* SPDX-License-Identifier: MIT */
/*
 * amd/discovery/: the GPU's IP discovery table (amd-facts §2, layouts of
 * linux discovery.h, names kept). parse.c checks a table and turns it into
 * a typed table of blocks with versions, instances and register bases;
 * read.c finds and reads it through a machine without changing the GPU.
 */
#ifndef AMD_DISCOVERY_DISCOVERY_H
#define AMD_DISCOVERY_DISCOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BINARY_SIGNATURE		0x28211407
#define DISCOVERY_TABLE_SIGNATURE	0x53445049	/* "IPDS" */
#define GC_TABLE_ID			0x4347		/* "GC" */
#define HARVEST_TABLE_SIGNATURE		0x56524148	/* "HARV" */

enum table_index {
	IP_DISCOVERY = 0, GC, HARVEST_INFO, VCN_INFO, MALL_INFO, NPS_INFO,
	TOTAL_TABLES = 6,
};

/* Limits linux's parser keeps (amdgpu_discovery.c). */
#define HWIP_MAX_INSTANCE	44
#define HW_ID_MAX		300
#define MAX_DIES		16

/* hw_id values the boot needs (amd-facts §2.5, linux soc15_hw_ip.h). */
enum amd_hw_id {
	MP1_HWID = 1, SMUIO_HWID = 4, GC_HWID = 11, MMHUB_HWID = 34, OSSSYS_HWID = 40,
	HDP_HWID = 41, SDMA0_HWID = 42, NBIF_HWID = 108, MP0_HWID = 255,
};

struct table_info {
	uint16_t offset;
	uint16_t checksum;
	uint16_t size;
	uint16_t padding;
};
_Static_assert(sizeof(struct table_info) == 8, "§2.2");

struct binary_header {
	uint32_t binary_signature;
	uint16_t version_major;
	uint16_t version_minor;
	uint16_t binary_checksum;	/* of bytes [10, binary_size) */
	uint16_t binary_size;
	struct table_info table_list[TOTAL_TABLES];
};
_Static_assert(sizeof(struct binary_header) == 60, "§2.2");

struct die_info {
	uint16_t die_id;
	uint16_t die_offset;		/* from the table's start */
};
_Static_assert(sizeof(struct die_info) == 4, "§2.3");

struct ip_discovery_header {
	uint32_t signature;
	uint16_t version;
	uint16_t size;			/* bytes the checksum covers */
	uint32_t id;
	uint16_t num_dies;
	struct die_info die_info[MAX_DIES];
	uint8_t base_addr_64_bit;	/* bit 0, version 4 */
	uint8_t reserved2;
} __attribute__((packed));
_Static_assert(sizeof(struct ip_discovery_header) == 80, "§2.3");

struct die_header {
	uint16_t die_id;
	uint16_t num_ips;
};
_Static_assert(sizeof(struct die_header) == 4, "§2.3");

/* The 8-byte head of ip, ip_v3 and ip_v4; base addresses follow. */
struct ip_v3 {
	uint16_t hw_id;
	uint8_t instance_number;
	uint8_t num_base_address;
	uint8_t major;
	uint8_t minor;
	uint8_t revision;
	uint8_t sub_revision_variant;	/* harvest bits in v1/v2 */
};
_Static_assert(sizeof(struct ip_v3) == 8, "§2.4");

struct gpu_info_header {
	uint32_t table_id;
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t size;
};
_Static_assert(sizeof(struct gpu_info_header) == 12, "§2.6");

struct harvest_info {
	uint16_t hw_id;
	uint8_t number_instance;
	uint8_t reserved;
};
struct harvest_table {
	uint32_t signature;
	uint32_t version;
	struct harvest_info list[32];
};
_Static_assert(sizeof(struct harvest_table) == 136, "§2.6");

/* The smallest GC info bodies (header included) of v1.0 and v2.0. */
#define GC_INFO_V1_0_BYTES	88
#define GC_INFO_V2_0_BYTES	80

/* ---- The typed table ------------------------------------------------------ */

#define AMD_BLOCK_BASES	16
#define AMD_BLOCKS	256

struct amd_block {
	uint16_t hw_id;
	uint16_t die;
	uint8_t instance;
	uint8_t major, minor, revision;
	bool harvested;
	uint8_t nbases;
	uint64_t base[AMD_BLOCK_BASES];	/* dword indices of its segments */
};

struct amd_discovery {
	uint16_t version_major, version_minor;	/* of the binary header */
	uint16_t ip_version;			/* of the IP discovery header */
	size_t nblocks;
	struct amd_block blocks[AMD_BLOCKS];
	struct {
		uint16_t version_major, version_minor;
		uint32_t num_se;
		uint32_t num_cu_per_sh;		/* v2; v1: 2 × (wgp0 + wgp1) per SA */
		uint32_t num_sh_per_se;
	} gc;
};

/*
 * amd_discovery_parse() - check a discovery table (signatures, sizes,
 * checksums, every die and IP entry inside the table, linux's limits) and
 * fill *out. Returns 0, or -EPROTO with amd_why() naming what is wrong.
 */
int amd_discovery_parse(const uint8_t *bytes, size_t len,
			struct amd_discovery *out);

/* The first unharvested block of hw_id, instance 0, or NULL. */
const struct amd_block *amd_discovery_block(const struct amd_discovery *t,
					    uint16_t hw_id);

/* A block's name for messages ("GC", "SDMA0", "MP0", ...). */
const char *amd_hw_name(uint16_t hw_id);

#endif
