/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CLOCK_H_
#define _REFNIC_EMU_CLOCK_H_

/* The device clock and the PTP latches (refnic_emu_clock.c, 1.4). */

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#include "refnic_emu_priv.h"

/*
 * In the BAR's memzone (refnic_emu_remote.c), which secondaries map: their
 * traps latch the clock themselves.
 */
struct refnic_emu_clock {
	uint32_t seq;			/* odd while base_* change */
	uint64_t base_host;		/* the clock read base_ns at this host ns */
	int64_t base_ns;
	uint64_t mult;			/* device ns per host ns, 32.32 fixed point */
	rte_spinlock_t latch_lock;	/* a latch's registers, written whole */
	bool timesync;			/* REFNIC_ADMIN_TIMESYNC_CTRL */
};
void refnic_emu_clock_init(struct refnic_emu_clock *c, int32_t skew_ppb);
void refnic_emu_clock_reset(struct refnic_emu_clock *c);
int64_t refnic_emu_clock_now(const struct refnic_emu_clock *c);
/* A store into [REFNIC_REG_CLOCK_BASE, REFNIC_REG_CLOCK_END), trapped. */
void refnic_emu_clock_store(struct refnic_emu_clock *c, uint8_t *bar0, uint32_t off);
void refnic_emu_ptp_latch(struct refnic_emu_clock *c, uint8_t *bar0, bool tx, uint64_t ns);
bool refnic_emu_ptp_classify(const uint8_t *p, uint32_t len, bool *event);
uint16_t refnic_emu_admin_clock(struct refnic_emu *emu, const struct refnic_admin_cmd *cmd);
/* Timesync on (PTP frames flagged and latched)? */
static inline bool
emu_timesync(const struct refnic_emu *emu)
{
	return emu->clock != NULL && __atomic_load_n(&emu->clock->timesync, __ATOMIC_RELAXED);
}

#endif /* _REFNIC_EMU_CLOCK_H_ */
