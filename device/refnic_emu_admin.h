/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_ADMIN_H_
#define _REFNIC_EMU_ADMIN_H_

/* The admin queue processor, the device's firmware (refnic_emu_admin.c). */

#include <stdbool.h>
#include <stdint.h>

#include "refnic_hw.h"

struct refnic_emu;

/* What IDENTIFY reports. */
#define REFNIC_EMU_LINK_SPEED_MBPS	25000

struct refnic_emu_admin {
	bool configured;		/* rings latched from the registers */
	bool busy;			/* cmd fetched, completes at due_tsc */
	uint16_t depth;
	uint16_t head;
	uint8_t cq_phase;
	uint32_t db_seen;
	uint64_t due_tsc;
	struct refnic_admin_cmd *sq;
	struct refnic_admin_cpl *cq;
	struct refnic_admin_cmd cmd;	/* the command being executed */
};

void refnic_emu_fatal(struct refnic_emu *emu, uint32_t code);
unsigned int refnic_emu_admin_service(struct refnic_emu *emu, uint64_t now,
				      uint64_t *next_due_tsc);
/* An AQ_TAIL store's admin work on the storing thread: whether the
 * engines have some left. */
bool refnic_emu_admin_trap(struct refnic_emu *emu);
uint16_t refnic_emu_admin_dma_to_host(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd,
				      const void *data, uint32_t len);

#endif /* _REFNIC_EMU_ADMIN_H_ */
