/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_TRAP_H_
#define _REFNIC_EMU_TRAP_H_

/*
 * The emulated BAR's write trap (refnic_emu_trap.c): the tails it takes,
 * which the device embeds (txdb, rxdb, aqdb), and what the other areas
 * call of it.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_pause.h>

struct refnic_emu;

/*
 * A queue's doorbell as the device took it: the device works from this tail,
 * never from the TAIL register itself (with REFNIC_ERRATA_MISSED_DOORBELL
 * the two differ). The take counter sits above the tail in one word, so a
 * re-ring that read TAIL before a newer write was taken cannot install the
 * older value (refnic_emu_trap.c). One line per queue: each has its writer.
 */
struct refnic_emu_db {
	uint64_t taken;			/* takes << 32 | tail */
	uint32_t writes;		/* TAIL writes, for fault_doorbell_drop */
} __rte_cache_aligned;

static inline uint32_t
emu_db_tail(const struct refnic_emu_db *db)
{
	return (uint32_t)__atomic_load_n(&db->taken, __ATOMIC_ACQUIRE);
}

/* The trap itself (a refnic_emu_trap_t). */
void refnic_emu_bar_write(void *ctx, uint32_t off, uint32_t val);
/* The same for a store another process made, and paid for there. */
void refnic_emu_bar_replay(struct refnic_emu *emu, uint32_t off, uint32_t val);

/* The modelled cost of a BAR store, on the writer's CPU as a real BAR's. */
static inline void
refnic_emu_store_charge(uint64_t cycles)
{
	uint64_t end = rte_get_tsc_cycles() + cycles;

	while (rte_get_tsc_cycles() < end)
		rte_pause();
}
/* TX work of queue qid, inline on this thread, as if its doorbell rang. */
void refnic_emu_trap_tx(struct refnic_emu *emu, uint16_t qid);
/* The trap slots' shard that threads share, under a lock, once the others
 * are taken (REFNIC_EMU_MAX_ENGINES + REFNIC_EMU_TRAP_SLOTS - 1). */
#define REFNIC_EMU_TRAP_SHARED_SHARD	31u
bool refnic_emu_trap_own_shard_take(void);
extern __thread unsigned int refnic_emu_shard_id __attribute__((tls_model("initial-exec")));
/* This thread counts into a shard of its own (taken now if need be), not
 * the shared one, which refnic_emu_trap_tx() locks around the work: it may
 * run the work itself with a queue locked. Inline: a thread that has its
 * shard (every push after its first) reads one word. */
static inline bool
refnic_emu_trap_own_shard(void)
{
	unsigned int id = refnic_emu_shard_id;

	if (likely(id != 0))
		return id != REFNIC_EMU_TRAP_SHARED_SHARD;
	return refnic_emu_trap_own_shard_take();
}
/* The device sets a TAIL register to 0 itself (queue create, reset). */
void refnic_emu_db_reset(struct refnic_emu_db *db);
/* A TAIL write the device takes (or a push line's tail): always the newest
 * value of its register. Inline: every doorbell and push line takes one. */
static inline void
refnic_emu_db_take(struct refnic_emu_db *db, uint32_t tail)
{
	uint64_t old = __atomic_load_n(&db->taken, __ATOMIC_RELAXED), new;

	do {
		new = ((old >> 32) + 1) << 32 | tail;
	} while (!__atomic_compare_exchange_n(&db->taken, &old, new, false,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}
/* REFNIC_REG_ERRATA as this device has it: its revision's, and the fault's. */
uint32_t refnic_emu_errata(const struct refnic_emu *emu);

#endif /* _REFNIC_EMU_TRAP_H_ */
