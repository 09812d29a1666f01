/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_LINK_H_
#define _REFNIC_EMU_LINK_H_

/*
 * The device's side of the emulated BAR: what its write trap
 * (refnic_emu_trap.c) keeps about the driver's stores, and how it reaches
 * the engines. The driver never sees this; it only calls the trap.
 */

#include <stdint.h>

#include "refnic_hw.h"

#define REFNIC_EMU_LINK_MAX_ENGINES	8

struct refnic_emu_link {
	uint32_t write_seq;		/* bumped after every write an engine serves */
	uint32_t engine_dozing;		/* bit k set before engine k sleeps */
	uint64_t trap_cost_tsc;		/* cost of one BAR store on the platform */
	int32_t kick_fd[REFNIC_EMU_LINK_MAX_ENGINES]; /* eventfd per engine: written
						       * for those whose bit is set */
	uint32_t write_count[REFNIC_BAR0_SIZE / 4]; /* by register offset / 4 */
};

#endif /* _REFNIC_EMU_LINK_H_ */
