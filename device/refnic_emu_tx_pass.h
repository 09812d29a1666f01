/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_TX_PASS_H_
#define _REFNIC_EMU_TX_PASS_H_

/*
 * A TX pass's start and end (refnic_emu_tx.c), inline, and the pass of a
 * pushed lone packet built from them, which the push window's trap runs
 * in place (refnic_emu_push.c). Queue locked.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_corrupt.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_queue_priv.h"
#include "refnic_emu_trap.h"

/* Count new TAIL writes; with a fetch cost, descriptors show up later. A
 * re-ring is no TAIL write, but it starts a fetch as one does. */
static __rte_always_inline void
tx_note_doorbells(struct refnic_emu *emu, uint16_t qid, uint64_t now)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];
	uint32_t writes = emu_reg_writes(emu, REFNIC_REG_TXQ(qid) + REFNIC_Q_TAIL);
	uint32_t rerings = emu_reg_writes(emu, REFNIC_REG_TXQ(qid) + REFNIC_Q_RERING);
	uint64_t kicked;

	if (writes == txq->db_seen && rerings == txq->rering_seen)
		return;
	/* The engine's wait for this doorbell (the trap noted its store). */
	kicked = __atomic_load_n(&txq->kicked_tsc, __ATOMIC_RELAXED);
	if (kicked != 0 && (kicked = __atomic_exchange_n(&txq->kicked_tsc, 0,
							 __ATOMIC_RELAXED)) != 0) {
		uint64_t wait = rte_get_tsc_cycles() - kicked;

		if (wait > __atomic_load_n(&txq->take_wait_max, __ATOMIC_RELAXED))
			__atomic_store_n(&txq->take_wait_max, wait, __ATOMIC_RELAXED);
	}
	emu_stats(emu)->q[qid].tx_doorbells += writes - txq->db_seen;
	txq->db_seen = writes;
	txq->rering_seen = rerings;
	if (!txq->fetch_pending && emu->desc_fetch_tsc != 0) {
		txq->fetch_pending = true;
		txq->fetch_ready_tsc = now + emu->desc_fetch_tsc;
	}
}

/*
 * What a TX pass reads once (the ring's mask, the tail it took, this
 * thread's DMA cache) and what it counts as it goes, added to the shard
 * once at its end: under the queue's lock, where every reader of the
 * counters waits (refnic_emu_read_stats() holds every device lock).
 */
struct tx_pass {
	struct refnic_dma_window win;	/* this thread's last page */
	struct refnic_dma_cache *dma;
	uint16_t mask;
	uint16_t tail;
	uint16_t max_segs;		/* refnic_emu_max_tx_segs() */
	bool fetched;			/* descriptors past their fetch delay */
	struct refnic_hw_stats *st;		/* this thread's shard */
	struct refnic_hw_queue_stats *qs;	/* the queue's, in it */
	uint32_t dma_reads;
	uint64_t packets, bytes;
};

static __rte_always_inline void
tx_post_completion(struct refnic_emu *emu, struct refnic_emu_txq *txq, uint16_t sq_head)
{
	struct refnic_tx_cpl *cpl = &txq->cq[txq->cq_tail];

	/* Atomic: a reader that lags a ring lap behind (the driver's doorbell
	 * check looks without consuming) may read the slot as it is rewritten;
	 * the phase, stored last, says which lap it holds. */
	__atomic_store_n(&cpl->sq_head, sq_head, __ATOMIC_RELAXED);
	cpl->status = REFNIC_TXC_STS_OK;
	if (unlikely(emu_may_garble(emu)))
		refnic_emu_corrupt_tx_cpl(emu, cpl, txq->size);
	__atomic_store_n(&cpl->phase, txq->cq_phase, __ATOMIC_RELEASE);
	txq->cq_tail = (txq->cq_tail + 1) & (txq->size - 1);
	if (txq->cq_tail == 0)
		txq->cq_phase ^= REFNIC_PHASE_BIT;
}

/* TX: as many descriptors completed since the arm as would half fill it. */
static inline bool
txq_full(const struct refnic_emu_txq *txq)
{
	return ((txq->head - txq->arm_head) & (txq->size - 1)) >=
	       txq->size - REFNIC_ITR_RING_FILL(txq->size);
}

/* The plain frames a pass holds go out, before any other frame does. */
static inline void
tx_plain_flush(struct refnic_emu *emu, const struct refnic_plain_frame *pf, unsigned int *np,
	       struct refnic_rx_batch *batch)
{
	if (*np != 0) {
		refnic_emu_cable_tx_plain(emu, pf, *np, batch);
		*np = 0;
	}
}

/*
 * A pass starts: doorbells counted, the tail taken and checked, whether
 * the descriptors are fetched yet. False if there is nothing to do, with
 * the pass's result in *ret. ring: the pass may read descriptors from the
 * ring (else only a pushed line: no DMA window to carry).
 */
static __rte_always_inline bool
tx_pass_begin(struct refnic_emu *emu, uint16_t qid, uint64_t now, uint64_t *next_due_tsc,
	      struct tx_pass *p, unsigned int *ret, bool ring)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];
	uint16_t tail;

	tx_note_doorbells(emu, qid, now);
	tail = emu_db_tail(&emu->txdb[qid]);
	if (tail >= txq->size) {
		refnic_emu_queue_error(emu, true, qid, &txq->enabled, "TX tail beyond ring");
		*ret = 1;
		return false;
	}
	if (txq->head == tail) {
		txq->fetch_pending = false;	/* nothing left to fetch */
		txq->push_cons = txq->push_prod;	/* nor pushed lines to take */
		*ret = 0;
		return false;
	}
	if (ring) {
		*p = (struct tx_pass){
			.win = emu_dma_cache(emu)->tx_win,
			.dma = emu_dma_cache(emu),
			.mask = txq->size - 1,
			.tail = tail,
			.max_segs = refnic_emu_max_tx_segs(emu),
		};
	} else {
		/* Nothing read from the ring or through the DMA window. */
		p->mask = txq->size - 1;
		p->tail = tail;
		p->dma_reads = 0;
		p->packets = 0;
		p->bytes = 0;
	}
	p->st = emu_stats(emu);
	p->qs = &p->st->q[qid];
	/*
	 * With a fetch cost, the device fetches what a doorbell announced, a
	 * fetch later. The emulated BAR stores TAIL, then counts the store: a
	 * TAIL seen before its doorbell is counted waits for it, or its
	 * descriptors would skip the fetch. A pushed packet needs no fetch.
	 */
	p->fetched = emu->desc_fetch_tsc == 0 ||
		     (txq->fetch_pending && now >= txq->fetch_ready_tsc);
	if (!p->fetched && txq->fetch_pending)
		*next_due_tsc = RTE_MIN(*next_due_tsc, txq->fetch_ready_tsc);
	return true;
}

/*
 * The pass ends at idx: its counters added, what the budget left over
 * waits for the next pass (fetched already), and one completion for what
 * it took, with the queue's interrupt if armed. Returns the work done.
 */
static __rte_always_inline unsigned int
tx_pass_end(struct refnic_emu *emu, uint16_t qid, struct tx_pass *p, uint16_t idx,
	    unsigned int done, bool ring)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];
	struct refnic_hw_stats *st = p->st;

	p->qs->tx_packets += p->packets;
	p->qs->tx_bytes += p->bytes;
	st->dma_reads += p->dma_reads;
	if (ring)
		p->dma->tx_win = p->win;
	if (p->fetched)
		txq->fetch_pending = idx != p->tail;
	if (idx == p->tail)
		txq->push_cons = txq->push_prod;
	if (idx == txq->head)
		return 0;
	txq->head = idx;
	tx_post_completion(emu, txq, idx);
	st->dma_writes++;
	emu_path_stats(emu)->tx_completions++;
	if (emu_queue_intr_armed(emu, txq->intr, txq->vector, REFNIC_EMU_CAUSE_TX))
		refnic_emu_intr_fire(emu, txq->vector, REFNIC_EMU_CAUSE_TX, txq_full(txq));
	return done;
}

/*
 * refnic_emu_tx_service()'s pass for a pushed lone plain packet, which a
 * pushed line's store hands over as it stands (refnic_emu_push.c), queue
 * locked: the pass's start and end, the line counted, the frame to the
 * cable; no FIFO to look at, no loop. The same counters, completion and
 * frame. Inline in the store's trap: a call cost it ~25 instructions.
 */
static __rte_always_inline void
refnic_emu_tx_push_now(struct refnic_emu *emu, uint16_t qid, const struct refnic_plain_frame *pf)
{
	uint64_t no_timer = UINT64_MAX;
	struct refnic_rx_batch batch;
	unsigned int np = 1, ret;
	struct tx_pass p;

	if (!tx_pass_begin(emu, qid, 0, &no_timer, &p, &ret, false))
		return;
	p.st->tx_push_lines++;
	p.packets++;
	p.bytes += pf->len;
	refnic_emu_rx_batch_init(&batch);
	tx_plain_flush(emu, pf, &np, &batch);
	refnic_emu_cable_tx_flush(emu, &batch);
	tx_pass_end(emu, qid, &p, (emu->txq[qid].head + 1) & p.mask, 1, false);
}

#endif /* _REFNIC_EMU_TX_PASS_H_ */
