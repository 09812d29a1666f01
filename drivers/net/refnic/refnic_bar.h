/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_BAR_H_
#define _REFNIC_BAR_H_

/*
 * Register access. The driver reaches the device only through these, the
 * host memory it hands over as IOVAs, and interrupt eventfds.
 *
 * rte_write32() puts rte_io_wmb() before the store, so descriptors written
 * before a doorbell are visible to the device first. The rte_io_* barriers
 * order against a real device and against a software peer on another core
 * alike, so one set serves both BAR kinds.
 */

#include <sys/eventfd.h>

#include <rte_cycles.h>
#include <rte_io.h>
#include <rte_pause.h>

#include "refnic_hw.h"
#include "refnic_emu_bar.h"

/* What the bus hands over at probe, as PCI hands mem_resource + intr_handle. */
struct refnic_hw {
	uint8_t *bar0;
	struct refnic_emu_link *emu_link;	/* emulated BAR only, else NULL */
	uint16_t nb_vectors;
	int vector_fd[REFNIC_MAX_VECTORS];
};

/*
 * The emulated BAR's side of a store: count it, kick a dozing device engine,
 * charge what the store costs on the modelled platform. A real BAR does all
 * of that in hardware and has no link.
 */
static inline void
refnic_emu_bar_trap(struct refnic_emu_link *link, uint32_t off)
{
	uint32_t cost_ns = link->trap_cost_ns;
	uint32_t dozing;

	__atomic_fetch_add(&link->write_count[off / 4], 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&link->write_seq, 1, __ATOMIC_SEQ_CST);
	/* Bits the device wrote: only those that name a kick fd count. */
	dozing = __atomic_load_n(&link->engine_dozing, __ATOMIC_SEQ_CST) &
		 RTE_LEN2MASK(REFNIC_EMU_LINK_MAX_ENGINES, uint32_t);
	for (; dozing != 0; dozing &= dozing - 1)
		eventfd_write(link->kick_fd[rte_bsf32(dozing)], 1);
	if (cost_ns != 0) {
		uint64_t end = rte_get_tsc_cycles() + cost_ns * rte_get_tsc_hz() / 1000000000;

		while (rte_get_tsc_cycles() < end)
			rte_pause();
	}
}

static inline uint32_t
refnic_reg_read(const struct refnic_hw *hw, uint32_t off)
{
	return rte_read32(hw->bar0 + off);
}

static inline void
refnic_reg_write(struct refnic_hw *hw, uint32_t off, uint32_t val)
{
	rte_write32(val, hw->bar0 + off);
	if (hw->emu_link != NULL)
		refnic_emu_bar_trap(hw->emu_link, off);
}

static inline void
refnic_reg_write64(struct refnic_hw *hw, uint32_t off_lo, uint64_t val)
{
	refnic_reg_write(hw, off_lo, (uint32_t)val);
	refnic_reg_write(hw, off_lo + 4, (uint32_t)(val >> 32));
}

#endif /* _REFNIC_BAR_H_ */
