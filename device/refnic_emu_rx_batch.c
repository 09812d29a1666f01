/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * RX delivery batches: the RX queue frames land on stays locked from one
 * frame (or burst) to the next, and its completions are published, and its
 * interrupt raised, when the batch moves to another queue or ends.
 */

#include <rte_common.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_dma_map.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_queue_priv.h"
#include "refnic_emu_trap.h"

#define RX_PUBLISH_EVERY	16	/* RX completions a far end waits for, at most */

/*
 * Is RX queue qid half taken (REFNIC_ITR_RING_FILL posted buffers or fewer
 * left)? Then a held interrupt goes out at once. Queue locked by a
 * delivery, or a snapshot from the arm (refnic_emu_intr_arm), which takes
 * no queue lock: a delivery that fills the ring further judges again.
 */
bool
refnic_emu_rxq_full(struct refnic_emu *emu, uint16_t qid)
{
	const struct refnic_emu_rxq *rxq = &emu->rxq[qid];
	uint16_t tail = emu_db_tail(&emu->rxdb[qid]);
	uint16_t head = __atomic_load_n(&rxq->head, __ATOMIC_RELAXED);

	return tail >= rxq->size ||
	       ((tail - head) & (rxq->size - 1)) <= REFNIC_ITR_RING_FILL(rxq->size);
}

/*
 * Completions are written first and made visible in runs (a batch's, or
 * RX_PUBLISH_EVERY of them): the driver polls the line the device writes,
 * so publishing entry by entry would hand the line back and forth once per
 * frame instead of once per run.
 */
static __rte_always_inline void
rxq_publish(struct refnic_emu_rxq *rxq)
{
	uint16_t pub = rxq->pub, head = rxq->head, size = rxq->size;
	struct refnic_rx_cpl *cq = rxq->cq;
	uint8_t phase = rxq->pub_phase;

	/* One completion (a lone frame's pass): its store, no run to work out. */
	if (likely(pub + 1 == head)) {
		__atomic_store_n(&cq[pub].phase, phase, __ATOMIC_RELEASE);
		pub = head;
	}
	/* A run of one phase at a time: up to head, or to the ring's end. */
	while (pub != head) {
		uint16_t end = head > pub ? head : size;

		for (; pub != end; pub++)
			__atomic_store_n(&cq[pub].phase, phase, __ATOMIC_RELEASE);
		if (pub == size) {
			pub = 0;
			phase ^= rxq->lap_flip;
		}
	}
	rxq->pub_phase = phase;
	/*
	 * Dekker with the arm (refnic_emu_intr_arm), which takes no queue
	 * lock: it sets the cause armed, then reads pub; this stores pub, then
	 * (fence) reads whether the cause is armed. One of the two sees the
	 * other: no wake-up is lost.
	 */
	__atomic_store_n(&rxq->pub, pub, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void
refnic_emu_rxq_publish(struct refnic_emu_rxq *rxq)
{
	rxq_publish(rxq);
}

/* The held queue's completions out, its interrupt, its lock given back.
 * Inline: a lone frame's pass went through it and the publish as calls. */
static __rte_always_inline void
rx_batch_queue_end(struct refnic_rx_batch *b)
{
	struct refnic_emu_rxq *rxq = b->held;
	bool came;

	if (rxq == NULL)
		return;
	/* Frames came: left to publish, or published in the middle. */
	came = rxq->pub != rxq->head || unlikely(b->published);
	if (came) {
		rxq_publish(rxq);
		emu_path_stats(b->emu)->rx_publishes++;
	}
	if (unlikely(b->emu->view_cable != NULL))
		refnic_emu_cable_view_leave(b->emu, (uint16_t)(rxq - b->emu->rxq));
	if (came && emu_queue_intr_armed(b->emu, rxq->intr, rxq->vector, REFNIC_EMU_CAUSE_RX))
		refnic_emu_intr_fire(b->emu, rxq->vector, REFNIC_EMU_CAUSE_RX,
				     refnic_emu_rxq_full(b->emu, (uint16_t)(rxq - b->emu->rxq)));
	emu_rxq_unlock(rxq);
	b->held = NULL;
}

/*
 * The held queue's completions out now if RX_PUBLISH_EVERY wait, for a
 * receiver that polls on another core (a far end over shm): it starts on
 * the first frames while the pass writes the rest, and two lcores on a
 * cable work side by side instead of taking turns burst by burst. The
 * interrupt waits for the batch's end.
 */
void
refnic_emu_rx_batch_publish(struct refnic_rx_batch *b)
{
	struct refnic_emu_rxq *rxq = b->held;

	if (rxq != NULL && ((rxq->head - rxq->pub) & (rxq->size - 1)) >= RX_PUBLISH_EVERY) {
		refnic_emu_rxq_publish(rxq);
		emu_path_stats(b->emu)->rx_publishes++;
		/* The far end's arm reads the file's index: no spurious wake. */
		if (b->emu->view_cable != NULL)
			refnic_emu_cable_view_publish(b->emu, (uint16_t)(rxq - b->emu->rxq));
		b->published = true;
	}
}

/* The batch's window, kept in its device's cache of this thread for the next. */
static inline void
rx_batch_win_keep(struct refnic_rx_batch *b)
{
	if (b->dev != NULL)
		emu_dma_cache(b->dev)->rx_win = b->win;
}

/* The pass ends: its queue, its window, then the receiving device's configuration. */
void
refnic_emu_rx_batch_end(struct refnic_rx_batch *b)
{
	rx_batch_queue_end(b);
	rx_batch_win_keep(b);
	if (b->config != NULL) {
		emu_rx_config_release(b->config_readers);
		b->config = NULL;
	}
}

/* Hold rxq for the batch: the one held before is done. */
void
refnic_emu_rx_batch_switch(struct refnic_rx_batch *b, struct refnic_emu *emu,
			   struct refnic_emu_rxq *rxq)
{
	if (b->held != NULL)
		rx_batch_queue_end(b);
	emu_rx_batch_take(b, emu, rxq);
}

void
refnic_emu_rx_batch_view_enter(struct refnic_emu *emu, struct refnic_emu_rxq *rxq)
{
	refnic_emu_cable_view_enter(emu, (uint16_t)(rxq - emu->rxq));
}
