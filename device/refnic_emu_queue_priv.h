/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_QUEUE_PRIV_H_
#define _REFNIC_EMU_QUEUE_PRIV_H_

/*
 * What the queues' files share: the queue life cycle
 * (refnic_emu_queue.c), the TX service (refnic_emu_tx.c), and RX delivery
 * (refnic_emu_rx_batch.c, refnic_emu_rx.c).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>

#include "refnic_emu_dma_map.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_queue.h"

#define TX_PLAIN_BURST		32	/* plain frames handed to the cable at once */
#define RX_BURST_MAX		TX_PLAIN_BURST	/* plain frames an RX burst takes */

/* A queue whose driver broke the ring protocol stops (refnic_emu_queue.c). */
void refnic_emu_queue_error(struct refnic_emu *emu, bool tx, uint16_t qid, bool *enabled,
			    const char *what);

/* Completions out: a cause armed on the queue's vector fires. */
static inline bool
emu_queue_intr_armed(struct refnic_emu *emu, bool intr, uint16_t v, uint8_t cause)
{
	return unlikely(intr) &&
	       (__atomic_load_n(&emu->intr->vec[v].armed, __ATOMIC_RELAXED) & cause);
}

/* A release store: x86's rte_spinlock_unlock() is an xchg, a full barrier. */
static inline void
emu_rxq_unlock(struct refnic_emu_rxq *rxq)
{
	__atomic_store_n(&rxq->lock.locked, 0, __ATOMIC_RELEASE);
}

/* refnic_emu_tx_run()'s work, the queue already locked by the caller (a
 * push line's store, refnic_emu_push.c). */
static inline void
refnic_emu_tx_run_locked(struct refnic_emu *emu, uint16_t qid)
{
	uint64_t no_timer = UINT64_MAX;

	/* The clock only for a fetch delay, which inline work never has
	 * (emu_timing_set()): a read per doorbell otherwise. */
	if (emu->txq[qid].enabled && emu_state(emu) == REFNIC_STATE_READY &&
	    !emu->dataplane_paused)
		refnic_emu_tx_service(emu, qid,
				      emu->desc_fetch_tsc != 0 ? rte_get_tsc_cycles() : 0,
				      &no_timer);
}

/* refnic_emu_corrupt.c, for the per-completion paths: may anything garble at all? */
static inline bool
emu_may_garble(const struct refnic_emu *emu)
{
	return emu->faults.corrupt_what != 0 ||
	       __atomic_load_n(&emu->corrupt.tamper, __ATOMIC_RELAXED) != NULL;
}

/* The RX queue's completions made visible up to its head (refnic_emu_rx_batch.c). */
void refnic_emu_rxq_publish(struct refnic_emu_rxq *rxq);
/* Hold rxq for the batch: the one held before is done. */
void refnic_emu_rx_batch_switch(struct refnic_rx_batch *b, struct refnic_emu *emu,
				struct refnic_emu_rxq *rxq);
/* An shm cable's far end: its queue as its device has it now. */
void refnic_emu_rx_batch_view_enter(struct refnic_emu *emu, struct refnic_emu_rxq *rxq);

/*
 * Hold rxq for a batch that holds none (refnic_emu_rx_batch_switch() ends
 * the one held before, then comes here). Inline: a lone frame's pass holds
 * one queue, and a call cost it ~15 instructions.
 */
static __rte_always_inline void
emu_rx_batch_take(struct refnic_rx_batch *b, struct refnic_emu *emu, struct refnic_emu_rxq *rxq)
{
	/* Engines, inline TX on several threads and cables from outside
	 * all deliver. */
	rte_spinlock_lock(&rxq->lock);
	b->held = rxq;
	b->emu = emu;
	b->published = false;
	if (b->dev != emu) {
		/* The window of the device before, kept in its cache of this
		 * thread for the next batch; this one's taken. */
		if (b->dev != NULL)
			emu_dma_cache(b->dev)->rx_win = b->win;
		b->dev = emu;
		b->stats = emu_stats(emu);
		b->win = emu_dma_cache(emu)->rx_win;
	}
	/* Looked at once a queue a pass: a fault armed meanwhile takes the next. */
	b->garble = emu_may_garble(emu);
	if (unlikely(emu->view_cable != NULL))
		refnic_emu_rx_batch_view_enter(emu, rxq);
}

/* The same queue as the frame before: nothing to do (the common case). */
static __rte_always_inline void
emu_rx_batch_hold(struct refnic_rx_batch *b, struct refnic_emu *emu, struct refnic_emu_rxq *rxq)
{
	if (likely(b->held == rxq))
		return;
	if (b->held == NULL)
		emu_rx_batch_take(b, emu, rxq);	/* a pass's first queue */
	else
		refnic_emu_rx_batch_switch(b, emu, rxq);
}

#endif /* _REFNIC_EMU_QUEUE_PRIV_H_ */
