/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_PROFILE_H_
#define _REFNIC_EMU_PROFILE_H_

/* Timing profiles: what the modelled platform charges; numbers and sources
 * in refnic_emu_profile.c. */

#include <stdbool.h>
#include <stdint.h>

#include "refnic_emu.h"
#include "refnic_hw.h"

struct refnic_profile {
	const char *name;
	uint32_t admin_latency_us[REFNIC_ADMIN_OPCODE_MAX];
	uint32_t reset_latency_us;
	uint32_t desc_fetch_ns;		/* DMA read of descriptors after a doorbell */
	uint32_t bar_store_ns;		/* driver CPU cost of one non-WC BAR store,
					 * uncached push window stores included */
	uint32_t push_burst_ns;		/* one write-combined push window burst */
	bool push_wc;			/* the platform maps the push window WC */
	/* A device model the doorbell's trap may run (exec=inline): it reads
	 * descriptors straight from memory, no fetch to wait for. */
	bool trap_and_emulate;
	int32_t clock_skew_ppb;		/* the clock's oscillator error (1.4) */
};

const struct refnic_profile *refnic_emu_profile_get(enum refnic_emu_profile id);
/* A profile by the name users type (profile=...); -EINVAL if unknown. */
int refnic_emu_profile_parse(const char *name, enum refnic_emu_profile *profile);

/* Inline execution models a device emulated in the trapped store; a bus
 * device's asynchronous fetch needs an engine thread. */
static inline bool
refnic_emu_profile_allows_inline(const struct refnic_profile *p)
{
	return p->trap_and_emulate;
}

#endif /* _REFNIC_EMU_PROFILE_H_ */
