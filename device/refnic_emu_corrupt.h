/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_CORRUPT_H_
#define _REFNIC_EMU_CORRUPT_H_

/* Hostile mode, fault_corrupt (refnic_emu_corrupt.c): what the device
 * writes is garbled just before the phase bit goes out. */

#include <stdbool.h>
#include <stdint.h>

#include "refnic_emu.h"
#include "refnic_hw.h"

struct refnic_emu;

/* What a device garbled; emu_may_garble() (refnic_emu_priv.h) asks first. */
struct refnic_emu_corrupt {
	uint64_t seq;			/* fault_corrupt: candidate writes seen */
	uint64_t garbled;		/* ... and garbled */
	uint32_t reply_garbled[REFNIC_ADMIN_OPCODE_MAX]; /* per command: its variants rotate */
	refnic_emu_tamper_t tamper;	/* a fuzzer's, see refnic_emu_set_tamper() */
	void *tamper_ctx;
};

void refnic_emu_corrupt_rx_cpl(struct refnic_emu *emu, struct refnic_rx_cpl *cpl, uint16_t size);
void refnic_emu_corrupt_tx_cpl(struct refnic_emu *emu, struct refnic_tx_cpl *cpl, uint16_t size);
void refnic_emu_corrupt_admin_cpl(struct refnic_emu *emu, struct refnic_admin_cpl *cpl);
void refnic_emu_corrupt_event(struct refnic_emu *emu, struct refnic_event *ev);
/* A reply buffer (IDENTIFY, STATS_GET, RSS_GET, FW_VERSION), as it is DMA-written. */
void refnic_emu_corrupt_reply(struct refnic_emu *emu, uint8_t opcode, void *data, uint32_t len);

/* splitmix64's finaliser: consecutive counts to scattered values, the same
 * every run (which writes fault_doorbell_drop and fault_corrupt hit). */
static inline uint64_t
refnic_emu_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

#endif /* _REFNIC_EMU_CORRUPT_H_ */
