/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The emulated BAR's write trap: what runs after every register store the
 * driver makes, as a hypervisor's MMIO write handler runs after a trapped
 * guest store.
 *
 * A TAIL store (TX, RX, admin) is a doorbell: the device takes its value
 * into the queue's doorbell word (struct refnic_emu_db), which is what it
 * works from. With fault_doorbell_drop it misses one in N of them, as an
 * ASIC with REFNIC_ERRATA_MISSED_DOORBELL does: the value stays in the
 * register, the store is neither taken nor counted, and nothing runs or
 * wakes, so the work it posted waits for the next TAIL write or a
 * REFNIC_Q_RERING (which takes the register's value again).
 *
 * Every store the device sees is counted (write_count[], how the device
 * learns of each doorbell exactly once) and charged what it costs on the
 * modelled platform (a VM exit, an uncached write). Then:
 *  - exec=inline: a TX doorbell runs that queue's device work right here,
 *    on the writing thread, as QEMU's e1000 model transmits inside the
 *    trapped TDT write; frames land in the peer's RX ring directly. An RX
 *    doorbell of a port wired in this process needs nobody.
 *  - a queue's CQ_HEAD arms or disarms its interrupt, on the writer's
 *    thread, in every execution model (refnic_emu_intr.c);
 *  - anything else (admin, resets, events, exec=thread, cables from outside
 *    the process) is the engines' work: bump write_seq and kick the engines
 *    that doze (the ioeventfd model).
 *
 * Threads that run device work count into a shard of their own (an engine's,
 * or a trap slot taken at the first doorbell and given back at thread exit),
 * so that no two threads write the same counters.
 */

#include <pthread.h>
#include <sys/eventfd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_pause.h>
#include <rte_spinlock.h>

#include "refnic_emu_admin.h"
#include "refnic_emu_cable.h"
#include "refnic_emu_clock.h"
#include "refnic_emu_engine.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_link.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_push.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_remote.h"
#include "refnic_emu_trap.h"

__thread unsigned int refnic_emu_shard_id __attribute__((tls_model("initial-exec")));

/* Trap slots in use, one bit each; the last slot is shared, under a lock. */
static uint32_t trap_slots_used;
static rte_spinlock_t overflow_lock = RTE_SPINLOCK_INITIALIZER;
static pthread_key_t trap_slot_key;
static pthread_once_t trap_slot_once = PTHREAD_ONCE_INIT;

_Static_assert(REFNIC_EMU_TRAP_SLOTS <= 32, "trap slots fit a 32-bit mask");

#define TRAP_SLOT_OVERFLOW	REFNIC_EMU_TRAP_SHARED_SHARD
_Static_assert(REFNIC_EMU_TRAP_SHARED_SHARD ==
	       REFNIC_EMU_MAX_ENGINES + REFNIC_EMU_TRAP_SLOTS - 1, "the last trap slot");

static void
trap_slot_release(void *arg)
{
	unsigned int slot = (uintptr_t)arg - 1 - REFNIC_EMU_MAX_ENGINES;

	__atomic_fetch_and(&trap_slots_used, ~(1u << slot), __ATOMIC_RELEASE);
}

static void
trap_slot_key_create(void)
{
	pthread_key_create(&trap_slot_key, trap_slot_release);
}

/* This thread's shard for device work it runs in a trap. */
static unsigned int
trap_shard(void)
{
	uint32_t used, slot;

	/* An engine replaying a secondary's store counts as itself. */
	if (likely(refnic_emu_shard_id != 0) || refnic_emu_on_engine)
		return refnic_emu_shard_id;
	pthread_once(&trap_slot_once, trap_slot_key_create);
	used = __atomic_load_n(&trap_slots_used, __ATOMIC_RELAXED);
	do {
		/* The last slot is never taken: it is the shared one. */
		if (!rte_bsf32_safe(~used, &slot) || slot >= REFNIC_EMU_TRAP_SLOTS - 1)
			return TRAP_SLOT_OVERFLOW;
	} while (!__atomic_compare_exchange_n(&trap_slots_used, &used, used | (1u << slot),
					      false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	refnic_emu_shard_id = REFNIC_EMU_MAX_ENGINES + slot;
	pthread_setspecific(trap_slot_key, (void *)(uintptr_t)(refnic_emu_shard_id + 1));
	return refnic_emu_shard_id;
}

/* A queue doorbell's work, on the writing thread: TX runs (RX TAIL writes
 * are counted late: refnic_emu_rx_count_doorbells()). */
static void
trap_queue_doorbell(struct refnic_emu *emu, bool tx, uint16_t qid)
{
	unsigned int shard = trap_shard();

	if (unlikely(shard == TRAP_SLOT_OVERFLOW)) {
		rte_spinlock_lock(&overflow_lock);
		refnic_emu_shard_id = shard;
	}
	if (tx)
		refnic_emu_tx_run(emu, qid);
	else
		refnic_emu_rx_count_doorbells(emu, qid);
	if (unlikely(shard == TRAP_SLOT_OVERFLOW)) {
		refnic_emu_shard_id = 0;
		rte_spinlock_unlock(&overflow_lock);
	}
}

bool
refnic_emu_trap_own_shard_take(void)
{
	return trap_shard() != TRAP_SLOT_OVERFLOW;
}

void
refnic_emu_trap_tx(struct refnic_emu *emu, uint16_t qid)
{
	trap_queue_doorbell(emu, true, qid);
}

/* The engines' turn: wake those that doze. */
static void
trap_kick_engines(struct refnic_emu_link *link)
{
	uint32_t dozing;

	/* Dekker with engine_doze(): it sets its bit, then reads write_seq. */
	__atomic_fetch_add(&link->write_seq, 1, __ATOMIC_SEQ_CST);
	dozing = __atomic_load_n(&link->engine_dozing, __ATOMIC_SEQ_CST) &
		 RTE_LEN2MASK(REFNIC_EMU_LINK_MAX_ENGINES, uint32_t);
	for (; dozing != 0; dozing &= dozing - 1)
		eventfd_write(link->kick_fd[rte_bsf32(dozing)], 1);
}

void
refnic_emu_kick_engines(struct refnic_emu *emu)
{
	/* The link's eventfds are the primary's: a secondary has its own. */
	if (unlikely(rte_eal_process_type() == RTE_PROC_SECONDARY))
		refnic_emu_remote_kick();
	else
		trap_kick_engines(emu->link);
}

/* A queue's CQ_HEAD: the device arms or disarms its interrupt at once. */
static bool
trap_queue_reg(struct refnic_emu *emu, uint32_t off, uint32_t val)
{
	uint32_t nb = emu->params.max_queues;
	bool tx;

	if ((off & (REFNIC_REG_Q_STRIDE - 1)) != REFNIC_Q_CQ_HEAD)
		return false;
	if (off >= REFNIC_REG_TXQ(0) && off < REFNIC_REG_TXQ(nb))
		tx = true;
	else if (off >= REFNIC_REG_RXQ(0) && off < REFNIC_REG_RXQ(nb))
		tx = false;
	else
		return false;
	refnic_emu_intr_arm(emu, tx, (off - (tx ? REFNIC_REG_TXQ(0) : REFNIC_REG_RXQ(0))) /
			    REFNIC_REG_Q_STRIDE, val);
	return true;
}

uint32_t
refnic_emu_errata(const struct refnic_emu *emu)
{
	return emu->params.errata |
	       (emu->faults.doorbell_drop != 0 ? REFNIC_ERRATA_MISSED_DOORBELL : 0);
}

void
refnic_emu_db_reset(struct refnic_emu_db *db)
{
	uint64_t taken = __atomic_load_n(&db->taken, __ATOMIC_RELAXED);

	__atomic_store_n(&db->taken, ((taken >> 32) + 1) << 32, __ATOMIC_RELEASE);
}

/*
 * REFNIC_Q_RERING: take the TAIL register's value again. It is read after
 * the last take (acquire), so it is that take's value or a newer one; if a
 * TAIL write is taken meanwhile, the exchange fails and that newer take
 * stands. Racing the queue's own TAIL writes can thus never move the tail
 * back, which a driver re-writing TAIL from another thread could.
 */
static void
db_retake(struct refnic_emu *emu, struct refnic_emu_db *db, uint32_t tail_off)
{
	uint64_t old = __atomic_load_n(&db->taken, __ATOMIC_ACQUIRE);
	uint32_t tail = emu_reg_read(emu, tail_off);

	if ((uint32_t)old != tail)
		__atomic_compare_exchange_n(&db->taken, &old, ((old >> 32) + 1) << 32 | tail,
					    false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* The doorbell word behind a TAIL or RERING register, or NULL; *tail_off
 * is that TAIL's offset. */
static struct refnic_emu_db *
trap_doorbell(struct refnic_emu *emu, uint32_t off, uint32_t *tail_off)
{
	uint32_t reg = off & (REFNIC_REG_Q_STRIDE - 1), nb = emu->params.max_queues;

	*tail_off = off - reg + REFNIC_Q_TAIL;
	if (off == REFNIC_REG_AQ_TAIL) {
		*tail_off = off;
		return &emu->aqdb;
	}
	if (reg != REFNIC_Q_TAIL && reg != REFNIC_Q_RERING)
		return NULL;
	if (off >= REFNIC_REG_TXQ(0) && off < REFNIC_REG_TXQ(nb))
		return &emu->txdb[(off - REFNIC_REG_TXQ(0)) / REFNIC_REG_Q_STRIDE];
	if (off >= REFNIC_REG_RXQ(0) && off < REFNIC_REG_RXQ(nb))
		return &emu->rxdb[(off - REFNIC_REG_RXQ(0)) / REFNIC_REG_Q_STRIDE];
	return NULL;
}

/*
 * fault_doorbell_drop=N: is this TAIL write one the device misses? One in
 * N, pseudo-random but the same sequence every run for a register, so a
 * single-threaded test sees the same misses each time.
 */
static bool
db_missed(struct refnic_emu *emu, struct refnic_emu_db *db, uint32_t off)
{
	uint32_t n = __atomic_load_n(&emu->faults.doorbell_drop, __ATOMIC_RELAXED);
	uint32_t w;

	if (likely(n == 0))
		return false;
	w = __atomic_fetch_add(&db->writes, 1, __ATOMIC_RELAXED);
	if (refnic_emu_mix64((uint64_t)off << 32 | w) % n != 0)
		return false;
	__atomic_fetch_add(&emu->doorbells_dropped, 1, __ATOMIC_RELAXED);
	return true;
}

/* charge: the store's cost is this thread's to pay (not a replay). */
static void
trap_write(struct refnic_emu *emu, uint32_t off, uint32_t val, bool charge)
{
	struct refnic_emu_link *link = emu->link;
	uint64_t cost = charge ? link->trap_cost_tsc : 0;
	struct refnic_emu_db *db;
	uint32_t tail_off;

	db = trap_doorbell(emu, off, &tail_off);
	if (db != NULL) {
		if (off != tail_off) {
			db_retake(emu, db, tail_off);
		} else if (unlikely(db_missed(emu, db, off))) {
			/* The store cost what stores cost; nobody saw it. */
			if (cost != 0)
				refnic_emu_store_charge(cost);
			return;
		} else {
			refnic_emu_db_take(db, val);
		}
		/* An shm port's far end fills its RX ring up to this tail. */
		if (unlikely(emu->rx_published) && off >= REFNIC_REG_RXQ(0))
			refnic_emu_cable_rx_tail(emu,
						 (off - REFNIC_REG_RXQ(0)) / REFNIC_REG_Q_STRIDE);
	}
	/* An engine takes it: its wait starts at the first store not taken
	 * (read first: no write to the engine's line per doorbell). */
	if (db != NULL && !emu->inline_exec && off < REFNIC_REG_RXQ(0) && db != &emu->aqdb) {
		uint64_t *kicked = &emu->txq[db - emu->txdb].kicked_tsc;

		if (__atomic_load_n(kicked, __ATOMIC_RELAXED) == 0)
			__atomic_store_n(kicked, rte_get_tsc_cycles(), __ATOMIC_RELAXED);
	}
	/* Taken before counted: who sees the count sees the tail. */
	__atomic_fetch_add(&link->write_count[off / 4], 1, __ATOMIC_RELEASE);
	if (cost != 0)
		refnic_emu_store_charge(cost);
	if (unlikely(trap_queue_reg(emu, off, val)))
		return;
	/* An interval is read when a raise is due: no engine has work. An
	 * adaptive driver writes them as often as every 1 ms, and each kick
	 * woke the engine on the receiver's CPU just as it went to sleep. */
	if (off >= REFNIC_REG_VEC(1) && off < REFNIC_REG_VEC(REFNIC_MAX_VECTORS) &&
	    ((off & (REFNIC_REG_VEC_STRIDE - 1)) == REFNIC_VEC_RX_ITR_US ||
	     (off & (REFNIC_REG_VEC_STRIDE - 1)) == REFNIC_VEC_TX_ITR_US))
		return;
	if (emu->inline_exec && db != NULL && db != &emu->aqdb) {
		if (off < REFNIC_REG_RXQ(0)) {
			trap_queue_doorbell(emu, true, (off - REFNIC_REG_TXQ(0)) / REFNIC_REG_Q_STRIDE);
			return;
		}
		/* Posted buffers need nobody (the tail is taken, the store counted:
		 * refnic_emu_rx_count_doorbells), unless frames wait outside. */
		if (!refnic_emu_cable_external(emu))
			return;
	}
	/* Admin commands start on the storing thread (not an engine's replay
	 * of a secondary's store: secondaries send none). */
	if (db == &emu->aqdb && charge && rte_eal_process_type() == RTE_PROC_PRIMARY &&
	    !refnic_emu_admin_trap(emu))
		return;
	refnic_emu_kick_engines(emu);
}

void
refnic_emu_bar_write(void *ctx, uint32_t off, uint32_t val)
{
	struct refnic_emu *emu = ctx;

	/* The push window is a line, not a register: its own model. */
	if (unlikely(off >= REFNIC_PUSH_BASE && off < REFNIC_PUSH_END))
		refnic_emu_push_write(ctx, off, val);
	/* The clock block is served on the storing thread: a latch is read
	 * right after it (refnic_emu_clock.c). */
	else if (unlikely(off >= REFNIC_REG_CLOCK_BASE && off < REFNIC_REG_CLOCK_END)) {
		if (emu->link->trap_cost_tsc != 0)
			refnic_emu_store_charge(emu->link->trap_cost_tsc);
		refnic_emu_clock_store(emu->clock, emu->bar0, off);
	} else
		trap_write(ctx, off, val, true);
	/* Interrupts this store raised, now that it holds no device lock. */
	refnic_emu_intr_flush_deferred();
}

/* Secondaries never push (refnic_emu_remote.c): registers only. On engine
 * 0, which flushes the interrupts these raised once its pass is done. */
void
refnic_emu_bar_replay(struct refnic_emu *emu, uint32_t off, uint32_t val)
{
	trap_write(emu, off, val, false);
}
