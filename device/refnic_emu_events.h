/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_EVENTS_H_
#define _REFNIC_EMU_EVENTS_H_

/* The async event queue and vector 0 (refnic_emu_events.c). */

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#include "refnic_hw.h"

struct refnic_emu;

struct refnic_emu_aeq {
	rte_spinlock_t lock;		/* engine and trapping threads post events */
	bool enabled;
	uint16_t depth;
	uint16_t tail;			/* next entry to write */
	uint8_t phase;
	uint32_t ctrl_seen;		/* AEQ_CTRL writes seen */
	struct refnic_event *ring;
};

unsigned int refnic_emu_aeq_service(struct refnic_emu *emu);
void refnic_emu_post_event(struct refnic_emu *emu, uint16_t type, uint32_t data);
void refnic_emu_raise_vector(struct refnic_emu *emu, uint16_t vector);

#endif /* _REFNIC_EMU_EVENTS_H_ */
