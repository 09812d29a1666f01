/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The data queues' life cycle: created and destroyed by admin commands,
 * reset with the device, locked together by whoever changes them all,
 * stopped on an error; and what is read of them between passes (HEAD
 * registers, RX doorbells counted late). The work they do is TX service
 * (refnic_emu_tx.c) and RX delivery (refnic_emu_rx.c).
 */

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>

#include <rte_common.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_events.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_queue_priv.h"
#include "refnic_emu_trap.h"

_Static_assert(offsetof(struct refnic_emu_txq, lock) == 0 &&
	       offsetof(struct refnic_emu_rxq, lock) == 0, "queue locks come first");

/* Back to power-on state, all but the lock (its holder is clearing it). */
#define QUEUE_CLEAR(q) \
	memset(RTE_PTR_ADD((q), sizeof((q)->lock)), 0, sizeof(*(q)) - sizeof((q)->lock))

/* Control paths wait for a trap thread on another CPU, or one preempted on this one. */
static void
queue_lock_yielding(rte_spinlock_t *lock)
{
	while (!rte_spinlock_trylock(lock))
		sched_yield();
}

/*
 * Lock order: TX queue locks before RX queue locks, across devices too: a
 * TX doorbell delivers into the peer's RX ring holding its own TX lock.
 * The peer's receive configuration comes between: a pass holds it
 * (emu_rx_config_hold()) before it takes an RX queue; with every queue
 * locked, it is write-locked too, so that whoever holds them all (admin
 * commands, resets) changes it between two passes. Writers one at a time,
 * then every thread's passes out: they back off while a writer waits.
 */
void
refnic_emu_rx_config_write_lock(struct refnic_emu *emu)
{
	uint32_t none = 0;
	unsigned int s;

	while (!__atomic_compare_exchange_n(&emu->rx_config_writer, &none, 1, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
		none = 0;
		sched_yield();
	}
	for (s = 0; s < REFNIC_EMU_SHARDS; s++)
		while (__atomic_load_n(&emu->shard[s].rx_config_readers, __ATOMIC_SEQ_CST) != 0)
			sched_yield();
}

void
refnic_emu_rx_config_write_unlock(struct refnic_emu *emu)
{
	__atomic_store_n(&emu->rx_config_writer, 0, __ATOMIC_RELEASE);
}

void
refnic_emu_queues_lock_tx(struct refnic_emu *emu)
{
	uint16_t q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		queue_lock_yielding(&emu->txq[q].lock);
}

void
refnic_emu_queues_lock_rx(struct refnic_emu *emu)
{
	uint16_t q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		queue_lock_yielding(&emu->rxq[q].lock);
}

void
refnic_emu_queues_lock(struct refnic_emu *emu)
{
	refnic_emu_queues_lock_tx(emu);
	refnic_emu_rx_config_write_lock(emu);
	refnic_emu_queues_lock_rx(emu);
}

void
refnic_emu_queues_unlock(struct refnic_emu *emu)
{
	uint16_t q = REFNIC_MAX_QUEUES;

	/* Whoever held them all may have changed what frames are judged by. */
	refnic_emu_rx_plan_update(emu);
	while (q-- > 0)
		rte_spinlock_unlock(&emu->rxq[q].lock);
	refnic_emu_rx_config_write_unlock(emu);
	q = REFNIC_MAX_QUEUES;
	while (q-- > 0)
		rte_spinlock_unlock(&emu->txq[q].lock);
}

static void rx_count_doorbells_locked(struct refnic_emu *emu, uint16_t qid);

static bool
ring_size_valid(uint16_t size)
{
	return size >= REFNIC_MIN_RING_SIZE && size <= REFNIC_MAX_RING_SIZE &&
	       rte_is_power_of_2(size);
}

/* Map a new queue's descriptor and completion rings, ring_size entries each. */
static int
queue_rings_map(struct refnic_emu *emu, const struct refnic_admin_queue_create *qc,
		size_t desc_size, size_t cpl_size, void **ring, void **cq)
{
	*ring = refnic_emu_dma_map(emu, qc->ring_iova, (uint64_t)qc->ring_size * desc_size);
	*cq = refnic_emu_dma_map(emu, qc->cq_iova, (uint64_t)qc->ring_size * cpl_size);
	return *ring != NULL && *cq != NULL ? 0 : -EFAULT;
}

/* A new RX queue's descriptors, and its completions and stamps where its
 * format puts them (refnic_hw.h). */
static int
rxq_rings_map(struct refnic_emu *emu, struct refnic_emu_rxq *rxq,
	      const struct refnic_admin_queue_create *qc)
{
	bool wb = qc->flags & REFNIC_QCREATE_RX_WB;
	bool stamped = qc->flags & REFNIC_QCREATE_RX_TSTAMP;
	uint64_t cq_len = refnic_emu_rxq_cq_len(qc->ring_size, wb, stamped);
	void *cq_area = NULL;

	rxq->ring = refnic_emu_dma_map(emu, qc->ring_iova,
				   (uint64_t)qc->ring_size * sizeof(*rxq->ring));
	if (cq_len != 0)
		cq_area = refnic_emu_dma_map(emu, qc->cq_iova, cq_len);
	if (rxq->ring == NULL || (cq_len != 0 && cq_area == NULL))
		return -EFAULT;
	rxq->size = qc->ring_size;
	refnic_emu_rxq_layout(rxq, cq_area, wb, stamped);
	return 0;
}

/* Mirror the new queue in its registers; returns TAIL's write count, from
 * which its doorbells are counted. */
static uint32_t
queue_regs_set(struct refnic_emu *emu, uint32_t base, struct refnic_emu_db *db,
	       const struct refnic_admin_queue_create *qc)
{
	emu_reg_write(emu, base + REFNIC_Q_TAIL, 0);
	refnic_emu_db_reset(db);
	emu_reg_write(emu, base + REFNIC_Q_HEAD, 0);
	emu_reg_write(emu, base + REFNIC_Q_RING_BASE_LO, (uint32_t)qc->ring_iova);
	emu_reg_write(emu, base + REFNIC_Q_RING_BASE_HI, (uint32_t)(qc->ring_iova >> 32));
	emu_reg_write(emu, base + REFNIC_Q_RING_SIZE, qc->ring_size);
	emu_reg_write(emu, base + REFNIC_Q_VECTOR, qc->vector);
	emu_reg_write(emu, base + REFNIC_Q_STATUS, REFNIC_Q_STATUS_ENABLED);
	return emu_reg_writes(emu, base + REFNIC_Q_TAIL);
}

int
refnic_emu_queue_create(struct refnic_emu *emu, const struct refnic_admin_queue_create *qc)
{
	uint16_t size = qc->ring_size;

	if (qc->qid >= emu->params.max_queues || !ring_size_valid(size))
		return -EINVAL;
	/* Vector 0 is the admin queue's. */
	if ((qc->flags & REFNIC_QCREATE_INTR) &&
	    (qc->vector == REFNIC_ADMIN_VECTOR || qc->vector >= emu->nb_vectors))
		return -EINVAL;
	if (qc->flags & REFNIC_QCREATE_INTR)
		refnic_emu_intr_queue_reset(emu, qc->vector, qc->type == REFNIC_QTYPE_TX);
	if (qc->type == REFNIC_QTYPE_TX) {
		struct refnic_emu_txq *txq = &emu->txq[qc->qid];

		if (txq->enabled)
			return -EBUSY;
		QUEUE_CLEAR(txq);
		if (queue_rings_map(emu, qc, sizeof(*txq->ring), sizeof(*txq->cq),
				    (void **)&txq->ring, (void **)&txq->cq) != 0)
			return -EFAULT;
		txq->size = size;
		txq->cq_phase = REFNIC_PHASE_BIT;
		txq->intr = qc->flags & REFNIC_QCREATE_INTR;
		txq->vector = qc->vector;
		txq->db_seen = queue_regs_set(emu, REFNIC_REG_TXQ(qc->qid),
					      &emu->txdb[qc->qid], qc);
		txq->rering_seen = emu_reg_writes(emu, REFNIC_REG_TXQ(qc->qid) + REFNIC_Q_RERING);
		txq->enabled = true;
	} else if (qc->type == REFNIC_QTYPE_RX) {
		struct refnic_emu_rxq *rxq = &emu->rxq[qc->qid];

		if (rxq->enabled)
			return -EBUSY;
		if (qc->rx_buf_size < REFNIC_MIN_RX_BUF_SIZE)
			return -EINVAL;
		/* Stamps need the clock (caps_off=rx_tstamp: refused), write-back
		 * its capability. */
		if (((qc->flags & REFNIC_QCREATE_RX_TSTAMP) &&
		     !emu_has_cap(emu, REFNIC_CAP_RX_TSTAMP)) ||
		    ((qc->flags & REFNIC_QCREATE_RX_WB) && !emu_has_cap(emu, REFNIC_CAP_RX_WB)))
			return -ENOTSUP;
		QUEUE_CLEAR(rxq);
		if (rxq_rings_map(emu, rxq, qc) != 0)
			return -EFAULT;
		rxq->buf_size = qc->rx_buf_size;
		rxq->intr = qc->flags & REFNIC_QCREATE_INTR;
		rxq->vector = qc->vector;
		rxq->pub_phase = REFNIC_PHASE_BIT;
		rxq->ring_iova = qc->ring_iova;
		rxq->cq_iova = qc->cq_iova;
		__atomic_store_n(&rxq->db_seen, queue_regs_set(emu, REFNIC_REG_RXQ(qc->qid),
							       &emu->rxdb[qc->qid], qc),
				 __ATOMIC_RELAXED);
		rxq->enabled = true;
		if (emu->rx_published)
			refnic_emu_cable_rxq_publish(emu, qc->qid);
	} else {
		return -EINVAL;
	}
	return 0;
}

int
refnic_emu_queue_destroy(struct refnic_emu *emu, uint8_t type, uint16_t qid)
{
	bool *enabled;
	uint32_t base;
	uint16_t v;

	if (qid >= emu->params.max_queues)
		return -EINVAL;
	if (type == REFNIC_QTYPE_TX) {
		enabled = &emu->txq[qid].enabled;
		base = REFNIC_REG_TXQ(qid);
		v = emu->txq[qid].intr ? emu->txq[qid].vector : REFNIC_ADMIN_VECTOR;
	} else if (type == REFNIC_QTYPE_RX) {
		enabled = &emu->rxq[qid].enabled;
		base = REFNIC_REG_RXQ(qid);
		v = emu->rxq[qid].intr ? emu->rxq[qid].vector : REFNIC_ADMIN_VECTOR;
	} else {
		return -EINVAL;
	}
	/* A queue stopped on an error is still there to destroy. */
	if (!*enabled && !(emu_reg_read(emu, base + REFNIC_Q_STATUS) & REFNIC_Q_STATUS_ERROR))
		return -ENOENT;
	if (type == REFNIC_QTYPE_RX)
		rx_count_doorbells_locked(emu, qid);
	*enabled = false;
	emu_reg_write(emu, base + REFNIC_Q_STATUS, 0);
	refnic_emu_intr_queue_reset(emu, v, type == REFNIC_QTYPE_TX);
	/* Returns once the far end of an shm cable is out of the ring. */
	if (type == REFNIC_QTYPE_RX && emu->rx_published)
		refnic_emu_cable_rxq_publish(emu, qid);
	return 0;
}

void
refnic_emu_queues_reset(struct refnic_emu *emu)
{
	uint16_t q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		rx_count_doorbells_locked(emu, q);
		QUEUE_CLEAR(&emu->txq[q]);
		QUEUE_CLEAR(&emu->rxq[q]);
		refnic_emu_db_reset(&emu->txdb[q]);
		refnic_emu_db_reset(&emu->rxdb[q]);
		if (emu->rx_published)
			refnic_emu_cable_rxq_publish(emu, q);
	}
	refnic_emu_intr_reset(emu);
}

/*
 * A queue whose driver broke the ring protocol stops, says so in its
 * status register and tells the driver with an event; the port lives on.
 */
void
refnic_emu_queue_error(struct refnic_emu *emu, bool tx, uint16_t qid, bool *enabled,
		       const char *what)
{
	uint32_t base = tx ? REFNIC_REG_TXQ(qid) : REFNIC_REG_RXQ(qid);

	EMU_LOG(ERR, "%s: %s queue %u stopped: %s", emu->name, tx ? "TX" : "RX", qid, what);
	/* Under the queue's lock, but an idle engine looks at it without
	 * (refnic_emu_queues_publish_heads()): atomic. */
	__atomic_store_n(enabled, false, __ATOMIC_RELAXED);
	/* Delivering into the far end's port: its own device reports it. */
	if (unlikely(emu->view_cable != NULL)) {
		refnic_emu_cable_view_queue_error(emu, qid);
		return;
	}
	emu_reg_write(emu, base + REFNIC_Q_STATUS, REFNIC_Q_STATUS_ERROR);
	refnic_emu_post_event(emu, REFNIC_EVENT_QUEUE_ERROR,
			      (uint32_t)(tx ? REFNIC_QTYPE_TX : REFNIC_QTYPE_RX) << 16 | qid);
}

/* The device's own reason to stop a queue; every device lock held. */
void
refnic_emu_queue_fail(struct refnic_emu *emu, bool tx, uint16_t qid, const char *what)
{
	refnic_emu_queue_error(emu, tx, qid, tx ? &emu->txq[qid].enabled : &emu->rxq[qid].enabled, what);
}

/*
 * HEAD registers are for register dumps. In an emulated BAR they share a
 * cache line with TAIL, which the driver writes: writing HEAD per frame, or
 * per idle pass between two frames, would take that line from the driver's
 * core just before its next TAIL write. The engine writes them once it has
 * been idle for ENGINE_HEADS_SETTLE_US.
 */
static void
head_publish(struct refnic_emu *emu, uint32_t reg, uint16_t head)
{
	if (emu_reg_read(emu, reg) != head)
		emu_reg_write(emu, reg, head);
}

void
refnic_emu_queues_publish_heads(struct refnic_emu *emu, uint16_t qid)
{
	struct refnic_emu_rxq *rxq = &emu->rxq[qid];
	struct refnic_emu_txq *txq = &emu->txq[qid];

	/* The head moves under the queue's lock, on a trapping thread too: a
	 * queue someone is serving is not idle, its head waits for next time. */
	if (__atomic_load_n(&txq->enabled, __ATOMIC_RELAXED) && rte_spinlock_trylock(&txq->lock)) {
		head_publish(emu, REFNIC_REG_TXQ(qid) + REFNIC_Q_HEAD, txq->head);
		rte_spinlock_unlock(&txq->lock);
	}
	/* Not while a sender delivers (the engine would spin on the CPU it
	 * may share with the receiver): the next idle pass publishes it. */
	if (__atomic_load_n(&rxq->enabled, __ATOMIC_RELAXED) && rte_spinlock_trylock(&rxq->lock)) {
		head_publish(emu, REFNIC_REG_RXQ(qid) + REFNIC_Q_HEAD,
			     emu->rx_published ? refnic_emu_cable_rx_head(emu, qid) : rxq->head);
		emu_rxq_unlock(rxq);
	}
}

/*
 * RX TAIL writes are counted late, never by the trap: the BAR already
 * counts every store (write_count), and the tail itself is taken before
 * (emu_db_tail). Counting in the trap took the RX queue's lock on the
 * receiver's thread at every refill, the lock a sender's inline delivery
 * holds for a whole batch: an interrupt-driven receiver spent 60% of its
 * CPU spinning there at saturation (perf, bench.sh intr unpaced), and the
 * queue's line bounced to the sender's core with each refill. The engine
 * counts at its passes (exec=thread) without waiting for a delivery; what
 * is left is added when the counters are read (refnic_emu_rx_uncounted),
 * and counted before a queue goes away or the counters are cleared.
 */
static void
rx_count_doorbells_locked(struct refnic_emu *emu, uint16_t qid)
{
	struct refnic_emu_rxq *rxq = &emu->rxq[qid];
	uint32_t writes = emu_reg_writes(emu, REFNIC_REG_RXQ(qid) + REFNIC_Q_TAIL);

	if (rxq->enabled) {
		emu_stats(emu)->q[qid].rx_doorbells += writes - rxq->db_seen;
		__atomic_store_n(&rxq->db_seen, writes, __ATOMIC_RELAXED);
	}
}

void
refnic_emu_rx_count_doorbells(struct refnic_emu *emu, uint16_t qid)
{
	struct refnic_emu_rxq *rxq = &emu->rxq[qid];
	uint32_t writes = emu_reg_writes(emu, REFNIC_REG_RXQ(qid) + REFNIC_Q_TAIL);

	/* db_seen is looked at unlocked (an lcore's TAIL and the doorbell
	 * check's RERING trap on two threads): atomic, changed under the lock. */
	if (writes == __atomic_load_n(&rxq->db_seen, __ATOMIC_RELAXED) ||
	    !rte_spinlock_trylock(&rxq->lock))
		return;
	rx_count_doorbells_locked(emu, qid);
	emu_rxq_unlock(rxq);
}

/* RX TAIL writes not counted yet; every device lock held. */
uint64_t
refnic_emu_rx_uncounted(const struct refnic_emu *emu, uint16_t qid)
{
	const struct refnic_emu_rxq *rxq = &emu->rxq[qid];

	return rxq->enabled ?
	       (uint32_t)(emu_reg_writes(emu, REFNIC_REG_RXQ(qid) + REFNIC_Q_TAIL) -
			  rxq->db_seen) : 0;
}

/* The counters are cleared: what was written so far is not to be counted. */
void
refnic_emu_rx_doorbells_forget(struct refnic_emu *emu)
{
	uint16_t q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		__atomic_store_n(&emu->rxq[q].db_seen,
				 emu_reg_writes(emu, REFNIC_REG_RXQ(q) + REFNIC_Q_TAIL), __ATOMIC_RELAXED);
}
