/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_INTR_H_
#define _REFNIC_EMU_INTR_H_

/*
 * A device's queue vectors (refnic_emu_intr.c), and how its counters are
 * sharded: kept apart from the rest of the device because an shm cable puts
 * both in memory the far end's process maps (refnic_emu_cable_shm.h), where
 * that process's deliveries raise the vectors and count.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_spinlock.h>

#include "refnic_emu.h"
#include "refnic_hw.h"

/*
 * What each thread that runs device work keeps of a device for itself, so
 * that no two write the same lines: engines have the first shards; threads
 * whose doorbells run device work inline (exec=inline) take one of the trap
 * slots after; a secondary process's threads share the last.
 */
#define REFNIC_EMU_TRAP_SLOTS		24
/* Secondary processes' doorbells run inline too, one at a time (the
 * device's secondary.lock): their shard comes last. */
#define REFNIC_EMU_REMOTE_SHARD		(REFNIC_EMU_MAX_ENGINES + REFNIC_EMU_TRAP_SLOTS)
#define REFNIC_EMU_SHARDS		(REFNIC_EMU_REMOTE_SHARD + 1)

/*
 * A queue vector's interrupt state; under its lock. Over an shm cable it
 * lies in the file, where the far end may write anything: no bool, whose
 * values other than 0 and 1 are undefined to load (UBSan, fuzz_shm_cable).
 */
#define REFNIC_EMU_CAUSE_RX		0x1u
#define REFNIC_EMU_CAUSE_TX		0x2u
struct refnic_emu_vector {
	rte_spinlock_t lock;
	uint8_t armed;			/* causes the driver armed */
	uint8_t pending;		/* armed causes that fired, not raised yet */
	uint8_t raised_once;		/* last_raise_tsc is valid */
	uint16_t rx_qid, tx_qid;	/* queues that armed each cause */
	uint64_t last_raise_tsc;
	uint64_t due_tsc;		/* a raise held back until then; 0: none */
};

struct refnic_emu_intr {
	uint8_t held;			/* some vector has a raise held back */
	struct { uint64_t rx, tx; } count[REFNIC_MAX_QUEUES]; /* raises per queue */
	struct refnic_emu_vector vec[REFNIC_MAX_VECTORS];
};

struct refnic_emu;

/* Queue interrupts and moderation (refnic_emu_intr.c). */
/* A write to a queue's CQ_HEAD: arm or disarm its cause. */
void refnic_emu_intr_arm(struct refnic_emu *emu, bool tx, uint16_t qid, uint32_t val);
/* Completions published on a queue whose cause may be armed; queue locked. */
void refnic_emu_intr_fire(struct refnic_emu *emu, uint16_t v, uint8_t cause, bool full);
/* Raise the vectors this thread fired; with no device lock held. */
void refnic_emu_intr_flush_deferred(void);
void refnic_emu_intr_queue_reset(struct refnic_emu *emu, uint16_t v, bool tx);
void refnic_emu_intr_reset(struct refnic_emu *emu);
unsigned int refnic_emu_intr_service(struct refnic_emu *emu, uint64_t now,
				     uint64_t *next_due_tsc);
void refnic_emu_intr_stats_add(const struct refnic_emu *emu, struct refnic_hw_stats *sum);

#endif /* _REFNIC_EMU_INTR_H_ */
