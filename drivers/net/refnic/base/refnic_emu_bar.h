/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_BAR_H_
#define _REFNIC_EMU_BAR_H_

/*
 * The emulated BAR: what stands between the driver's register stores and a
 * device that is software.
 *
 * A real BAR turns every store into a PCIe transaction the device sees; plain
 * memory does not. So, as a hypervisor traps a guest's doorbell write and
 * kicks the device model (virtio's ioeventfd), the emulated BAR's write
 * accessor does three things after the store itself:
 *  - counts the write in write_count[] (one counter per register), which is
 *    how the device learns of every doorbell, exactly once;
 *  - bumps write_seq and wakes the device engine if it dozes;
 *  - charges trap_cost_ns of CPU time, the cost of the store on the modelled
 *    platform (a VM exit, an uncached write), as a real BAR would by itself.
 *
 * The bus hands this link to the driver next to the BAR pointer; on a real
 * BAR there is none and the accessor is a plain rte_write32().
 */

#include <stdint.h>

#include "refnic_hw.h"

#define REFNIC_EMU_LINK_MAGIC		0x4b4e4c45u /* "ELNK" */
#define REFNIC_EMU_LINK_MAX_ENGINES	8

struct refnic_emu_link {
	uint32_t magic;
	uint32_t write_seq;		/* bumped after every counted write */
	uint32_t engine_dozing;		/* device: bit k set before engine k sleeps */
	uint32_t trap_cost_ns;		/* device: cost of one BAR store */
	uint32_t wc_available;		/* platform: push window is WC */
	int32_t kick_fd[REFNIC_EMU_LINK_MAX_ENGINES]; /* eventfd per engine: write
						       * those whose bit is set */
	uint32_t rsvd[3];
	uint32_t write_count[REFNIC_BAR0_SIZE / 4]; /* by register offset / 4 */
};

#endif /* _REFNIC_EMU_BAR_H_ */
