/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_CABLE_SHM_H_
#define _REFNIC_CABLE_SHM_H_

/*
 * The shared-memory cable's file (/dev/shm/refnic-cable-NAME), as both
 * processes map it: the cable (refnic_cable_shm.c) and the fuzzer that
 * plays a hostile far end (tests/fuzz/fuzz_shm_cable.c).
 */

#include <stdint.h>

#include <rte_common.h>

#include "refnic_hw.h"

#define REFNIC_SHM_PATH_FMT	"/refnic-cable-%s"	/* shm_open name */

#define SHM_MAGIC		0x52464e53	/* "RFNS" */
#define SHM_VERSION		1
#define SHM_SLOTS		256		/* per direction, power of two */
#define SHM_SLOT_DATA		RTE_ALIGN_CEIL(REFNIC_MAX_FRAME_LEN, 64)

struct shm_slot {
	uint32_t len;
	uint32_t src_gen;		/* sender's attachment */
	uint32_t dst_gen;		/* receiver's attachment, as the sender knew it */
	uint8_t rsvd[52];
	uint8_t data[SHM_SLOT_DATA];
};

/* Frames to one end. Indexes run free; slot = index % SHM_SLOTS. */
struct shm_ring {
	uint32_t tail __rte_cache_aligned;	/* the sender's */
	uint32_t head __rte_cache_aligned;	/* the receiver's */
	struct shm_slot slot[SHM_SLOTS] __rte_cache_aligned;
};

struct shm_end {
	int32_t pid;			/* process holding the end, 0: free (for logs) */
	uint32_t gen;			/* bumped by every attachment */
	uint32_t dozing;		/* its engine sleeps: send a wake-up */
} __rte_cache_aligned;

struct shm_layout {
	uint32_t magic;
	uint32_t version;
	uint32_t nb_slots;
	uint32_t slot_size;
	uint64_t size;			/* of the whole layout */
	uint32_t unplugged;		/* pulled, by either side */
	struct shm_end end[2] __rte_cache_aligned;
	struct shm_ring ring[2];	/* ring[i]: frames to end i */
};

#endif /* _REFNIC_CABLE_SHM_H_ */
