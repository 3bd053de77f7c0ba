#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/amd_regs.py: the AMD path's register tables, in two steps.

  amd_regs.py extract REGS_PY > src/amd/regs/regs.def
      picks the registers the boot and the device program (ROLES below) out
      of tinygrad's tinygrad/runtime/autogen/am/regs.py (generated from
      linux's drivers/gpu/drm/amd/include/asic_reg/*_offset.h; tinygrad
      commit a9069c17, amd-facts §0.1), for each register header a supported
      block version reads (TABLES below), and adds SMUIO's from linux's
      smuio_13_0_3_offset.h and smuio_14_0_2_offset.h (SMUIO_FACTS), which
      regs.py lacks, and NBIO 7.9's indirect window from linux's
      nbio_7_9_0_offset.h (NBIO_FACTS). Roles in ONLY_IN are picked for
      the headers named there alone. regs.def is the tree's copy of those
      facts: extract of regs.py at tinygrad a9069c17 reproduces it byte
      for byte.
  amd_regs.py c REGS_DEF OUT_DIR
      writes OUT_DIR/names.h (one enum entry per register role) and
      OUT_DIR/tables.c (one table per register header, each naming the
      block versions it serves) from regs.def. The tree holds both outputs;
      check_amd_regs regenerates them and fails on any difference.

Which header serves a block version follows tinygrad's import_module
(support/amd.py): the header of the same major version, the largest not
above the block's. MP1 reads its own version's header (mp_13_0_0,
mp_14_0_2; amd-facts §3.9 prefers it to tinygrad's mp_11_0_0). On GC 11
and 12 the SDMA engine's registers are in the GC header (amd-facts §3.13),
resolved with SDMA0's own discovery bases.
"""
import ast
import os
import sys

# (block, hw_id, header, versions it serves)
TABLES = [
    ("GC", 11, "gc_9_4_3", ["9.4.3", "9.5.0"]),
    ("GC", 11, "gc_11_0_0", ["11.0.0", "11.0.2"]),
    ("GC", 11, "gc_12_0_0", ["12.0.0", "12.0.1"]),
    ("SDMA0", 42, "sdma_4_4_2", ["4.4.2", "4.4.4"]),
    ("SDMA0", 42, "gc_11_0_0", ["6.0.0", "6.0.2"]),
    ("SDMA0", 42, "gc_12_0_0", ["7.0.0", "7.0.1"]),
    ("MMHUB", 34, "mmhub_1_8_0", ["1.8.0", "1.8.1"]),
    ("MMHUB", 34, "mmhub_3_0_0", ["3.0.0"]),
    ("MMHUB", 34, "mmhub_3_0_1", ["3.0.1"]),
    ("MMHUB", 34, "mmhub_3_0_2", ["3.0.2"]),
    ("MMHUB", 34, "mmhub_4_1_0", ["4.1.0"]),
    ("NBIF", 108, "nbio_4_3_0", ["4.3.0"]),
    ("NBIF", 108, "nbio_7_9_0", ["7.9.0", "7.9.1"]),
    ("NBIF", 108, "nbif_6_3_1", ["6.3.1"]),
    ("OSSSYS", 40, "osssys_4_4_2", ["4.4.2", "4.4.5"]),
    ("OSSSYS", 40, "osssys_6_0_0", ["6.0.0", "6.0.1"]),
    ("OSSSYS", 40, "osssys_7_0_0", ["7.0.0"]),
    ("HDP", 41, "hdp_4_4_2", ["4.4.2", "4.4.5"]),
    ("HDP", 41, "hdp_6_0_0", ["6.0.0"]),
    ("HDP", 41, "hdp_7_0_0", ["7.0.0"]),
    ("MP0", 255, "mp_13_0_0", ["13.0.0", "13.0.6", "13.0.7", "13.0.14"]),
    ("MP0", 255, "mp_14_0_2", ["14.0.2", "14.0.3"]),
    ("MP1", 1, "mp_13_0_0", ["13.0.0", "13.0.6", "13.0.7", "13.0.12"]),
    ("MP1", 1, "mp_14_0_2", ["14.0.2", "14.0.3"]),
    ("SMUIO", 4, "smuio_13_0_3", ["13.0.3"]),
    ("SMUIO", 4, "smuio_14_0_2", ["14.0.2"]),
]


def c2pmsg(prefixes, numbers):
    return [("C2PMSG_%d" % n, ["%s_SMN_C2PMSG_%d" % (p, n) for p in prefixes])
            for n in numbers]


def same(*names):
    return [(n, ["reg" + n]) for n in names]


# Per block: (role, the names a header may give it, first found wins).
ROLES = {
    "GC": same(
        "SCRATCH_REG6", "SCRATCH_REG7", "GRBM_GFX_CNTL", "GRBM_SOFT_RESET",
        "GRBM_CNTL", "CP_STAT", "RLC_RLCS_BOOTLOAD_STATUS", "RLC_SAFE_MODE",
        "CP_MEC_CNTL", "CP_MEC_RS64_CNTL", "CP_MEC_RS64_PRGRM_CNTR_START",
        "CP_MEC_RS64_PRGRM_CNTR_START_HI", "CP_MEC_DOORBELL_RANGE_LOWER",
        "CP_MEC_DOORBELL_RANGE_UPPER", "CP_MQD_BASE_ADDR", "CP_MQD_BASE_ADDR_HI",
        "CP_HQD_ACTIVE", "CP_HQD_VMID", "CP_HQD_PQ_BASE", "CP_HQD_PQ_RPTR",
        "CP_HQD_PQ_WPTR_LO", "CP_HQD_PQ_WPTR_HI", "CP_HQD_PQ_DOORBELL_CONTROL",
        "CP_HQD_PQ_CONTROL", "CP_HQD_DEQUEUE_REQUEST", "CP_HQD_EOP_BASE_ADDR",
        "CP_INT_CNTL_RING0", "SPI_COMPUTE_QUEUE_RESET", "SH_MEM_CONFIG",
        "SH_MEM_BASES", "COMPUTE_PGM_LO", "COMPUTE_USER_DATA_0",
        "GCVM_CONTEXT0_CNTL", "GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32",
        "GCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32",
        "GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32",
        "GCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32",
        "GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32",
        "GCVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32", "GCVM_INVALIDATE_ENG17_SEM",
        "GCVM_INVALIDATE_ENG17_REQ", "GCVM_INVALIDATE_ENG17_ACK", "GCVM_L2_CNTL",
        "GCVM_L2_PROTECTION_FAULT_CNTL", "GCVM_L2_PROTECTION_FAULT_ADDR_LO32",
        "GCVM_L2_PROTECTION_FAULT_ADDR_HI32", "GCMC_VM_FB_LOCATION_BASE",
        "GCMC_VM_FB_LOCATION_TOP", "GB_ADDR_CONFIG", "TCP_UTCL1_CNTL2") + [
        ("GCVM_L2_PROTECTION_FAULT_STATUS",
         ["regGCVM_L2_PROTECTION_FAULT_STATUS",
          "regGCVM_L2_PROTECTION_FAULT_STATUS_LO32"])],
    "SDMA0": [(r, ["regSDMA0_QUEUE0_" + r, "regSDMA_GFX_" + r]) for r in (
        "RB_CNTL", "RB_BASE", "RB_BASE_HI", "RB_RPTR", "RB_RPTR_HI", "RB_WPTR",
        "RB_WPTR_HI", "RB_RPTR_ADDR_LO", "RB_RPTR_ADDR_HI",
        "RB_WPTR_POLL_ADDR_LO", "RB_WPTR_POLL_ADDR_HI", "DOORBELL",
        "DOORBELL_OFFSET", "IB_CNTL", "MINOR_PTR_UPDATE")] + [
        ("CNTL", ["regSDMA0_CNTL", "regSDMA_CNTL"]),
        ("HALT_CNTL", ["regSDMA0_F32_CNTL", "regSDMA0_MCU_CNTL", "regSDMA_F32_CNTL"])],
    "MMHUB": same(
        "MMVM_CONTEXT0_CNTL", "MMVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32",
        "MMVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32", "MMVM_INVALIDATE_ENG17_SEM",
        "MMVM_INVALIDATE_ENG17_REQ", "MMVM_INVALIDATE_ENG17_ACK", "MMVM_L2_CNTL",
        "MMVM_L2_PROTECTION_FAULT_CNTL", "MMVM_L2_PROTECTION_FAULT_ADDR_LO32",
        "MMVM_L2_PROTECTION_FAULT_ADDR_HI32", "MMMC_VM_FB_LOCATION_BASE",
        "MMMC_VM_FB_LOCATION_TOP") + [
        ("MMVM_L2_PROTECTION_FAULT_STATUS",
         ["regMMVM_L2_PROTECTION_FAULT_STATUS",
          "regMMVM_L2_PROTECTION_FAULT_STATUS_LO32"])],
    "NBIF": same(
        "BIF_BX_PF0_RSMU_INDEX", "BIF_BX_PF0_RSMU_DATA",
        "BIF_BX0_REMAP_HDP_MEM_FLUSH_CNTL", "BIF_BX_PF0_GPU_HDP_FLUSH_REQ",
        "BIF_BX_PF0_GPU_HDP_FLUSH_DONE", "RCC_DEV0_EPF0_RCC_DOORBELL_APER_EN",
        "BIF_BX0_BIF_DOORBELL_INT_CNTL", "XCC_DOORBELL_FENCE") + [
        # NBIO 7.9's indirect window to another AID's registers (linux's
        # nbio_v7_9.c get_pcie_index/data/index_hi_offset).
        (r, ["regBIF_BX0_" + r]) for r in ("PCIE_INDEX2", "PCIE_DATA2",
                                           "PCIE_INDEX2_HI")] + same(
        # NBIO 7.9's segment-8 registers: linux's nbio_v7_9.c writes
        # BIFC_GFX_INT_MONITOR_MASK (init_registers) and
        # BIFC_DOORBELL_ACCESS_EN_PF (enable_doorbell_aperture) on NBIO 0,
        # and routes SDMA instance n of AID a's doorbells through
        # DOORBELL0_CTRL_ENTRY_{1+n} + 4 * a (sdma_doorbell_range, on NBIO
        # 0) and that AID's S2A_DOORBELL_ENTRY_{1,2,5,6}_CTRL (through the
        # window). Their BASE_IDX is 8 in nbio_7_9_0_offset.h, so an MI300
        # discovery entry for NBIO lists at least 9 bases: linux's
        # amdgpu_discovery_reg_base_init points reg_offset[NBIO_HWIP][i] at
        # the entry's own base array, and SOC15_REG_OFFSET indexes it by
        # BASE_IDX.
        "BIFC_GFX_INT_MONITOR_MASK", "BIFC_DOORBELL_ACCESS_EN_PF",
        "DOORBELL0_CTRL_ENTRY_1", "DOORBELL0_CTRL_ENTRY_2",
        "DOORBELL0_CTRL_ENTRY_3", "DOORBELL0_CTRL_ENTRY_4",
        "S2A_DOORBELL_ENTRY_1_CTRL", "S2A_DOORBELL_ENTRY_2_CTRL",
        "S2A_DOORBELL_ENTRY_5_CTRL", "S2A_DOORBELL_ENTRY_6_CTRL"),
    "OSSSYS": same(
        "IH_RB_CNTL", "IH_RB_BASE", "IH_RB_BASE_HI", "IH_RB_RPTR", "IH_RB_WPTR",
        "IH_RB_WPTR_ADDR_LO", "IH_RB_WPTR_ADDR_HI", "IH_DOORBELL_RPTR",
        "IH_RB_CNTL_RING1", "IH_RB_BASE_RING1", "IH_RB_BASE_HI_RING1",
        "IH_RB_RPTR_RING1", "IH_RB_WPTR_RING1", "IH_CNTL"),
    "HDP": same("HDP_MEM_POWER_CTRL"),
    # C2PMSG_33: the sOS's mode-1 reset's completion (bit 31), which
    # linux's psp_v11_0.c/psp_v3_1.c mode1_reset waits for; linux's
    # mp_13_0_0_offset.h and mp_14_0_2_offset.h: 0x61, BASE_IDX 0.
    "MP0": c2pmsg(["regMP0", "regMPASP"], (33, 35, 36, 64, 67, 69, 70, 71, 81)),
    "MP1": c2pmsg(["regMP1"], (53, 54, 66, 75, 82, 90)),
    "SMUIO": same("GOLDEN_TSC_COUNT_LOWER", "GOLDEN_TSC_COUNT_UPPER"),
}

# Roles only the named headers' tables carry, though other headers have a
# register of the same name: the boot writes them on NBIO 7.9 alone (ext.c,
# soc.c, sdma.c), and regs.py's nbio_4_3_0 and nbif_6_3_1 list a
# PCIE_INDEX2 window of their own that nothing here programs.
ONLY_IN = {role: ["nbio_7_9_0"] for role in (
    "PCIE_INDEX2", "PCIE_DATA2", "PCIE_INDEX2_HI", "BIFC_GFX_INT_MONITOR_MASK",
    "BIFC_DOORBELL_ACCESS_EN_PF", "DOORBELL0_CTRL_ENTRY_1",
    "DOORBELL0_CTRL_ENTRY_2", "DOORBELL0_CTRL_ENTRY_3",
    "DOORBELL0_CTRL_ENTRY_4", "S2A_DOORBELL_ENTRY_1_CTRL",
    "S2A_DOORBELL_ENTRY_2_CTRL", "S2A_DOORBELL_ENTRY_5_CTRL",
    "S2A_DOORBELL_ENTRY_6_CTRL")}

# linux drivers/gpu/drm/amd/include/asic_reg/smuio/smuio_13_0_3_offset.h
# and smuio_14_0_2_offset.h: (offset, BASE_IDX).
SMUIO_FACTS = {
    "smuio_13_0_3": {"regGOLDEN_TSC_COUNT_UPPER": (0x2d, 2),
                     "regGOLDEN_TSC_COUNT_LOWER": (0x2e, 2)},
    "smuio_14_0_2": {"regGOLDEN_TSC_COUNT_UPPER": (0x2d, 1),
                     "regGOLDEN_TSC_COUNT_LOWER": (0x2e, 1)},
}


# linux drivers/gpu/drm/amd/include/asic_reg/nbio/nbio_7_9_0_offset.h:
# (offset, BASE_IDX), merged into regs.py's nbio_7_9_0 (tinygrad's
# regs/nbio_7_9_0.py, commit a17d304c, gives the same).
NBIO_FACTS = {
    "nbio_7_9_0": {"regBIF_BX0_PCIE_INDEX2": (0xe, 0),
                   "regBIF_BX0_PCIE_DATA2": (0xf, 0),
                   "regBIF_BX0_PCIE_INDEX2_HI": (0x11, 0)},
}


def load_regs_py(path):
    tree = ast.parse(open(path).read(), path)
    mods = {}
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id != "__all__"):
            mods[node.targets[0].id] = {k: (v[0], v[1]) for k, v in
                                        ast.literal_eval(node.value).items()}
    mods.update(SMUIO_FACTS)
    for header, regs in NBIO_FACTS.items():
        mods.setdefault(header, {}).update(regs)
    return mods


def extract(regs_py):
    mods = load_regs_py(regs_py)
    out = ["# SPDX-License-Identifier: MIT",
           "# src/amd/regs/regs.def: written by scripts/amd_regs.py extract; the",
           "# registers the AMD path programs, per register header: the block, its",
           "# hw_id, the header, the block versions it serves, then one line per",
           "# register: role, the header's name, offset (dwords), segment (BASE_IDX)."]
    for block, hw_id, header, versions in TABLES:
        regs = mods[header]
        out.append("table %s %d %s %s" % (block, hw_id, header, " ".join(versions)))
        for role, names in ROLES[block]:
            if header not in ONLY_IN.get(role, [header]):
                continue
            for name in names:
                if name in regs:
                    off, seg = regs[name]
                    out.append("  %s %s 0x%x %d" % (role, name, off, seg))
                    break
        out.append("end")
    return "\n".join(out) + "\n"


def parse_def(path):
    tables, cur = [], None
    for line in open(path):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "table":
            cur = {"block": words[1], "hw_id": int(words[2]), "header": words[3],
                   "versions": words[4:], "regs": []}
        elif words[0] == "end":
            tables.append(cur)
            cur = None
        else:
            cur["regs"].append((words[0], words[1], int(words[2], 16), int(words[3])))
    return tables


def c_out(regs_def, out_dir):
    tables = parse_def(regs_def)
    roles = []
    for block, _ in [(b, None) for b in ROLES]:
        for role, _ in ROLES[block]:
            roles.append((block, role))
    ident = lambda block, role: "AMD_REG_%s_%s" % (block, role)
    head = ["/* SPDX-License-Identifier: MIT */",
            "/* Written by scripts/amd_regs.py c from src/amd/regs/regs.def: do not",
            " * edit (check_amd_regs fails on a difference). */"]
    h = head + ["#ifndef AMD_REGS_NAMES_H", "#define AMD_REGS_NAMES_H", "",
                "/* One register role of a block; regs.h resolves each to a dword index. */",
                "enum amd_reg {"]
    for block, role in roles:
        h.append("\t%s," % ident(block, role))
    h += ["\tAMD_REG_COUNT", "};", "", "#endif"]
    c = head + ["#include \"amd/regs/regs.h\"", "",
                "const char *const amd_reg_names[AMD_REG_COUNT] = {"]
    for block, role in roles:
        c.append("\t[%s] = \"%s\"," % (ident(block, role), role))
    c.append("};")
    for t in tables:
        c += ["", "static const struct amd_reg_def %s_%s[] = {" %
              (t["block"].lower(), t["header"])]
        for role, name, off, seg in t["regs"]:
            c.append("\t{ %s, 0x%x, %d },\t/* %s */" %
                     (ident(t["block"], role), off, seg, name))
        c.append("};")
    c += ["", "const struct amd_reg_table amd_reg_tables[] = {"]
    for t in tables:
        vs = ", ".join("{ %s }" % ", ".join(v.split(".")) for v in t["versions"])
        c += ["\t{ .hw_id = %d, .header = \"%s\", .versions = { %s }," %
              (t["hw_id"], t["header"], vs),
              "\t  .nversions = %d, .regs = %s_%s," %
              (len(t["versions"]), t["block"].lower(), t["header"]),
              "\t  .nregs = sizeof(%s_%s) / sizeof(struct amd_reg_def) }," %
              (t["block"].lower(), t["header"])]
    c += ["};", "",
          "const size_t amd_reg_ntables = sizeof(amd_reg_tables) / sizeof(amd_reg_tables[0]);"]
    with open(os.path.join(out_dir, "names.h"), "w") as f:
        f.write("\n".join(h) + "\n")
    with open(os.path.join(out_dir, "tables.c"), "w") as f:
        f.write("\n".join(c) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "extract":
        sys.stdout.write(extract(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "c":
        c_out(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: amd_regs.py extract REGS_PY | c REGS_DEF OUT_DIR")
