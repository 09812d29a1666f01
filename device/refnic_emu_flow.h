/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_FLOW_H_
#define _REFNIC_EMU_FLOW_H_

/* The device's flow table, as the device holds it and an shm cable's file
 * publishes it to the far end, whose threads deliver into this port. */

#include <stdbool.h>
#include <stdint.h>

#include "refnic_hw.h"

/*
 * The flow table (refnic_emu_flow.c): slots as FLOW_ADD filled them (spec
 * already masked), and the order lookups take them in. RX threads read it
 * without a lock while the admin processor changes it: every index and
 * queue id in it is valid at all times, so a frame that races a change
 * sees a rule or not, never a wrong queue.
 */
#define REFNIC_EMU_FLOWS		1024
#define REFNIC_EMU_FLOW_PRIORITIES	16
struct refnic_emu_flow_entry {
	uint64_t spec[8];		/* struct refnic_flow_key, & mask */
	uint64_t mask[8];
	uint16_t priority;
	uint16_t actions;		/* REFNIC_FLOW_ACT_* */
	uint16_t queue;
	uint8_t used;			/* 0 or 1: a byte, as a peer's file may hold any */
	uint32_t mark;
	uint32_t rss_hash_types;
	uint8_t rss_key[REFNIC_RSS_KEY_SIZE];
	uint8_t reta[REFNIC_FLOW_RETA_SIZE];
	uint64_t hits;			/* COUNT; atomic: any RX thread adds */
	uint64_t bytes;
};

struct refnic_emu_flows {
	uint32_t nb;			/* slots in order[] */
	uint32_t gen;			/* changes: an shm cable publishes it again */
	uint16_t order[REFNIC_EMU_FLOWS];
	struct refnic_emu_flow_entry e[REFNIC_EMU_FLOWS];
};

#endif /* _REFNIC_EMU_FLOW_H_ */
