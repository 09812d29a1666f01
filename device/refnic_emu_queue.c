/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device's data queues: TX fetches descriptors from host memory after a
 * doorbell and hands whole frames to the cable; RX takes frames from the
 * cable, filters them, fills posted buffers and writes completions.
 */

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "refnic_emu_cable.h"
#include "refnic_emu_cable_shm_port.h"
#include "refnic_emu_clock.h"
#include "refnic_emu_corrupt.h"
#include "refnic_emu_events.h"
#include "refnic_emu_filter.h"
#include "refnic_emu_flow.h"
#include "refnic_emu_intr.h"
#include "refnic_emu_offload.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_priv.h"
#include "refnic_emu_push.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_rss.h"
#include "refnic_emu_trap.h"
#include "refnic_emu_tso.h"

#define TX_BUDGET		512	/* descriptors per queue per engine pass */
#define TX_PLAIN_BURST		32	/* plain frames handed to the cable at once */
#define RX_BURST_MAX		TX_PLAIN_BURST	/* plain frames an RX burst takes */
#define RX_PUBLISH_EVERY	16	/* RX completions a far end waits for, at most */

/* The rings' prefetches take a line per four entries. */
_Static_assert(sizeof(struct refnic_tx_desc) * 4 == RTE_CACHE_LINE_SIZE &&
	       sizeof(struct refnic_rx_desc) * 4 == RTE_CACHE_LINE_SIZE &&
	       sizeof(struct refnic_rx_cpl) * 4 == RTE_CACHE_LINE_SIZE, "four to a line");
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
 * The peer's receive configuration (rx_config_lock) comes between: a pass
 * read-locks it before it takes an RX queue; with every queue locked, it is
 * write-locked too, so that whoever holds them all (admin commands, resets)
 * changes it between two passes.
 */
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
	rte_rwlock_write_lock(&emu->rx_config_lock);
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
	rte_rwlock_write_unlock(&emu->rx_config_lock);
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
	*ring = refnic_dma_map(emu, qc->ring_iova, (uint64_t)qc->ring_size * desc_size);
	*cq = refnic_dma_map(emu, qc->cq_iova, (uint64_t)qc->ring_size * cpl_size);
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

	rxq->ring = refnic_dma_map(emu, qc->ring_iova,
				   (uint64_t)qc->ring_size * sizeof(*rxq->ring));
	if (cq_len != 0)
		cq_area = refnic_dma_map(emu, qc->cq_iova, cq_len);
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
			refnic_shm_rxq_publish(emu, qc->qid);
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
		refnic_shm_rxq_publish(emu, qid);
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
			refnic_shm_rxq_publish(emu, q);
	}
	refnic_emu_intr_reset(emu);
}

/*
 * A queue whose driver broke the ring protocol stops, says so in its
 * status register and tells the driver with an event; the port lives on.
 */
static void
queue_error(struct refnic_emu *emu, bool tx, uint16_t qid, bool *enabled, const char *what)
{
	uint32_t base = tx ? REFNIC_REG_TXQ(qid) : REFNIC_REG_RXQ(qid);

	EMU_LOG(ERR, "%s: %s queue %u stopped: %s", emu->name, tx ? "TX" : "RX", qid, what);
	*enabled = false;
	/* Delivering into the far end's port: its own device reports it. */
	if (unlikely(emu->view_cable != NULL)) {
		refnic_shm_view_queue_error(emu, qid);
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
	queue_error(emu, tx, qid, tx ? &emu->txq[qid].enabled : &emu->rxq[qid].enabled, what);
}

/* Count new TAIL writes; with a fetch cost, descriptors show up later. A
 * re-ring is no TAIL write, but it starts a fetch as one does. */
static void
tx_note_doorbells(struct refnic_emu *emu, uint16_t qid, uint64_t now)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];
	uint32_t writes = emu_reg_writes(emu, REFNIC_REG_TXQ(qid) + REFNIC_Q_TAIL);
	uint32_t rerings = emu_reg_writes(emu, REFNIC_REG_TXQ(qid) + REFNIC_Q_RERING);

	if (writes == txq->db_seen && rerings == txq->rering_seen)
		return;
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
	uint32_t dma_reads;
	uint64_t packets, bytes;
};

/*
 * Gather the packet starting at *idx into f. Returns false when the packet is
 * not complete yet (no EOP before tail). Sets *malformed on a bad chain.
 */
static bool
tx_gather(struct refnic_emu *emu, struct refnic_emu_txq *txq, struct tx_pass *p,
	  uint16_t *idx, struct refnic_frame *f, bool *malformed)
{
	uint16_t i = *idx, tail = p->tail, mask = p->mask, max_segs = p->max_segs;
	const struct refnic_tx_desc *ring = txq->ring;
	struct refnic_tx_desc d;
	bool ctx = false;

	/* The common packet first: one descriptor, a frame's size, no TSO. */
	if (likely(i != tail)) {
		d = ring[i];
		if (likely((d.flags & (REFNIC_TXD_EOP | REFNIC_TXD_CTX | REFNIC_TXD_TSO)) ==
			   REFNIC_TXD_EOP && d.len >= EMU_ETH_HLEN &&
			   d.len <= REFNIC_MAX_FRAME_LEN)) {
			f->offload = d.flags & (REFNIC_TXD_OFFLOADS | REFNIC_TXD_TSTAMP);
			f->vlan_tci = d.vlan_tci;
			f->hdr_lens = d.hdr_lens;
			*idx = (i + 1) & mask;
			/* Mapped once: a failed map counts its DMA error once. */
			f->seg[0] = refnic_dma_window_map(emu, &p->win, d.addr, d.len);
			if (unlikely(f->seg[0] == NULL)) {
				f->nb_segs = 0;
				f->len = 0;
				*malformed = true;
				return true;
			}
			p->dma_reads++;
			f->seg_len[0] = d.len;
			f->nb_segs = 1;
			f->len = d.len;
			*malformed = false;
			return true;
		}
	}
	f->nb_segs = 0;
	f->len = 0;
	f->offload = 0;
	*malformed = false;
	do {
		if (i == tail)
			return false;
		d = ring[i];
		i = (i + 1) & mask;
		if (unlikely(d.flags & REFNIC_TXD_CTX)) {
			/* TSO's context: first, once, and not a packet by itself. */
			const struct refnic_tx_ctx_desc *c = (const void *)&d;

			if (ctx || f->nb_segs != 0 || (d.flags & REFNIC_TXD_EOP))
				*malformed = true;
			ctx = true;
			f->mss = c->mss;
			f->l4_len = c->l4_len;
			max_segs = REFNIC_MAX_TSO_SEGS;
			continue;
		}
		if (f->nb_segs == 0 && !*malformed) {
			/* Offloads are what the packet's first descriptor asks. */
			f->offload = d.flags & (REFNIC_TXD_OFFLOADS | REFNIC_TXD_TSTAMP);
			f->vlan_tci = d.vlan_tci;
			f->hdr_lens = d.hdr_lens;
		}
		if (f->nb_segs == max_segs || d.len == 0) {
			*malformed = true;
			continue;
		}
		f->seg[f->nb_segs] = refnic_dma_window_map(emu, &p->win, d.addr, d.len);
		if (f->seg[f->nb_segs] == NULL) {
			*malformed = true;
			continue;
		}
		p->dma_reads++;
		f->seg_len[f->nb_segs++] = d.len;
		f->len += d.len;
	} while (!(d.flags & REFNIC_TXD_EOP));
	/* A plain frame's bounds first: one test for the TSO ones. */
	if (likely(!ctx && !(f->offload & REFNIC_TXD_TSO))) {
		if (f->len < EMU_ETH_HLEN || f->len > REFNIC_MAX_FRAME_LEN)
			*malformed = true;
	} else if (!ctx || !(f->offload & REFNIC_TXD_TSO) || f->len < EMU_ETH_HLEN ||
		   f->len > REFNIC_MAX_TSO_SIZE) {
		*malformed = true;
	}
	*idx = i;
	return true;
}

/*
 * The headers of a frame two descriptors ahead of idx (which is before the
 * tail): the first look at a frame (RX filtering and parsing, at the far
 * end) misses, since whoever filled the buffer (a peer's delivery, an
 * application) did so on another core. The descriptor line four ahead too.
 */
static inline void
tx_prefetch(const struct refnic_emu_txq *txq, const struct tx_pass *p, uint16_t idx)
{
	const struct refnic_tx_desc *d = &txq->ring[(idx + 2) & p->mask];
	const void *va;

	if ((idx & 3) == 0)	/* four to a line: the next line, once */
		rte_prefetch0(&txq->ring[(idx + 4) & p->mask]);
	if (((p->tail - idx) & p->mask) <= 2 || (d->flags & REFNIC_TXD_CTX))
		return;
	va = refnic_dma_window_peek(&p->win, d->addr, d->len);
	if (va == NULL)
		va = refnic_dma_lookup(p->dma, d->addr, d->len);
	if (va != NULL)
		rte_prefetch0(va);
}

/*
 * A run of plain descriptors from *idx (up to max, before the tail), as a
 * NIC's fetch engine takes a burst: each read once, checked, translated,
 * and its bytes prefetched for the copy that comes when the burst is
 * handed over. Stops at the first other descriptor. A buffer that does not
 * translate is tx_malformed, as before. Frames into pf; returns the
 * descriptors consumed.
 */
static __rte_always_inline unsigned int
tx_plain_run(struct refnic_emu *emu, const struct refnic_emu_txq *txq, struct tx_pass *p,
	     uint16_t *idxp, unsigned int max, struct refnic_plain_frame *pf, unsigned int *np,
	     struct refnic_hw_queue_stats *qs)
{
	unsigned int used = 0, k = *np, bad = 0;
	uint16_t idx = *idxp;
	uint64_t bytes = 0;

	while (used < max && idx != p->tail) {
		const struct refnic_tx_desc *d = &txq->ring[idx];
		uint16_t flags = d->flags, len = d->len;
		uint64_t addr = d->addr;
		const uint8_t *va;

		if ((flags & REFNIC_TXD_PLAIN_MASK) != REFNIC_TXD_EOP ||
		    len < EMU_ETH_HLEN || len > REFNIC_MAX_FRAME_LEN)
			break;
		if ((idx & 3) == 0)	/* four to a line: the next line, once */
			rte_prefetch0(&txq->ring[(idx + 4) & p->mask]);
		va = refnic_dma_window_map(emu, &p->win, addr, len);
		idx = (idx + 1) & p->mask;
		used++;
		if (unlikely(va == NULL)) {
			bad++;
			continue;
		}
		rte_prefetch0(va);
		pf[k].data = va;
		pf[k].len = len;
		bytes += len;
		k++;
	}
	p->packets += k - *np;
	p->dma_reads += k - *np;
	p->bytes += bytes;
	qs->tx_malformed += bad;
	*np = k;
	*idxp = idx;
	return used;
}

static void
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

/* Completions out: a cause armed on the queue's vector fires. */
static inline bool
queue_intr_armed(struct refnic_emu *emu, bool intr, uint16_t v, uint8_t cause)
{
	return unlikely(intr) &&
	       (__atomic_load_n(&emu->intr->vec[v].armed, __ATOMIC_RELAXED) & cause);
}

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

	return tail >= rxq->size ||
	       ((tail - rxq->head) & (rxq->size - 1)) <= REFNIC_ITR_RING_FILL(rxq->size);
}

/* TX: as many descriptors completed since the arm as would half fill it. */
static bool
txq_full(const struct refnic_emu_txq *txq)
{
	return ((txq->head - txq->arm_head) & (txq->size - 1)) >=
	       txq->size - REFNIC_ITR_RING_FILL(txq->size);
}

/* A frame dropped for want of a buffer: was the RX interrupt held back? */
static inline bool
rxq_intr_held(struct refnic_emu *emu, const struct refnic_emu_rxq *rxq)
{
	const struct refnic_emu_vector *vec;

	if (!rxq->intr)
		return false;	/* then its vector may be anything */
	vec = &emu->intr->vec[rxq->vector];
	return (__atomic_load_n(&vec->pending, __ATOMIC_RELAXED) & REFNIC_EMU_CAUSE_RX) &&
	       __atomic_load_n(&vec->due_tsc, __ATOMIC_RELAXED) != 0;
}

/*
 * Does the device have what the packet's first descriptor asks of it? A
 * device without an offload (caps_off=tx_csum, vlan_insert, tso) cannot do
 * the work asked: the packet is malformed, dropped whole and counted, as
 * a NIC does a descriptor it cannot parse. With TSO the checksum flags are
 * ignored (refnic_hw.h): segmentation makes the checksums itself.
 */
static bool
tx_offloads_offered(const struct refnic_emu *emu, uint16_t offload)
{
	if ((offload & REFNIC_TXD_VLAN_INSERT) && !emu_has_cap(emu, REFNIC_CAP_VLAN_INSERT))
		return false;
	if (offload & REFNIC_TXD_TSO)
		return true;	/* TSO itself: tx_tso() */
	return !(offload & (REFNIC_TXD_IP_CSUM | REFNIC_TXD_L4_CSUM_TCP |
			    REFNIC_TXD_L4_CSUM_UDP)) ||
	       emu_has_cap(emu, REFNIC_CAP_TX_CSUM);
}

/*
 * A TSO packet's frames, each through the normal delivery; returns how many.
 * *malformed if the device cannot segment it (TSO off, or a packet out of
 * the contract's bounds). The bounds bound the work: at most
 * REFNIC_MAX_TSO_SIZE / REFNIC_MIN_TSO_MSS frames.
 */
static unsigned int
tx_tso(struct refnic_emu *emu, struct refnic_hw_queue_stats *qs, const struct refnic_frame *f,
       struct refnic_rx_batch *batch, bool *malformed)
{
	struct refnic_emu_tso t;
	struct refnic_frame seg;
	unsigned int n = 0;

	if (!emu_has_cap(emu, REFNIC_CAP_TSO) || !refnic_emu_tso_start(&t, f)) {
		*malformed = true;
		return 0;
	}
	while (refnic_emu_tso_next(&t, &seg)) {
		qs->tx_packets++;
		qs->tx_bytes += seg.len;
		refnic_cable_tx(emu, &seg, batch);
		n++;
	}
	return n;
}

/* The plain frames a pass holds go out, before any other frame does. */
static inline void
tx_plain_flush(struct refnic_emu *emu, const struct refnic_plain_frame *pf, unsigned int *np,
	       struct refnic_rx_batch *batch)
{
	if (*np != 0) {
		refnic_cable_tx_plain(emu, pf, *np, batch);
		*np = 0;
	}
}

unsigned int
refnic_emu_tx_service(struct refnic_emu *emu, uint16_t qid, uint64_t now,
		      uint64_t *next_due_tsc)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];
	struct refnic_hw_stats *st = emu_stats(emu);
	struct refnic_hw_queue_stats *qs = &st->q[qid];
	struct refnic_rx_batch batch = { .held = NULL };
	unsigned int done = 0;
	const struct refnic_emu_push *push;
	struct refnic_frame f;
	struct refnic_plain_frame pf[TX_PLAIN_BURST];
	unsigned int np = 0;
	struct tx_pass p;
	uint16_t tail, idx;
	bool malformed, fetched;

	tx_note_doorbells(emu, qid, now);
	tail = emu_db_tail(&emu->txdb[qid]);
	if (tail >= txq->size) {
		queue_error(emu, true, qid, &txq->enabled, "TX tail beyond ring");
		return 1;
	}
	if (txq->head == tail) {
		txq->fetch_pending = false;	/* nothing left to fetch */
		txq->push_cons = txq->push_prod;	/* nor pushed lines to take */
		return 0;
	}
	/*
	 * With a fetch cost, the device fetches what a doorbell announced, a
	 * fetch later. The emulated BAR stores TAIL, then counts the store: a
	 * TAIL seen before its doorbell is counted waits for it, or its
	 * descriptors would skip the fetch. A pushed packet needs no fetch.
	 */
	fetched = emu->desc_fetch_tsc == 0 ||
		  (txq->fetch_pending && now >= txq->fetch_ready_tsc);
	if (!fetched && txq->fetch_pending)
		*next_due_tsc = RTE_MIN(*next_due_tsc, txq->fetch_ready_tsc);

	p = (struct tx_pass){
		.win = emu_dma_cache(emu)->tx_win,
		.dma = emu_dma_cache(emu),
		.mask = txq->size - 1,
		.tail = tail,
		.max_segs = refnic_emu_max_tx_segs(emu),
	};
	idx = txq->head;
	while (idx != tail && done < TX_BUDGET) {
		uint16_t start = idx;

		/* No call per packet while no line waits (push is for lone ones). */
		push = txq->push_cons == txq->push_prod ? NULL :
		       refnic_emu_push_front(txq, idx, tail);
		if (push != NULL) {
			st->tx_push_lines++;
			/* A lone plain packet all in its line: with the pass's plain
			 * ones (the line stays put: new ones wait for this lock). */
			if (likely(refnic_emu_push_plain(push, &pf[np], &idx, p.mask))) {
				refnic_emu_push_pop(txq);
				done++;
				p.packets++;
				p.bytes += pf[np].len;
				if (++np == TX_PLAIN_BURST)
					tx_plain_flush(emu, pf, &np, &batch);
				continue;
			}
			tx_plain_flush(emu, pf, &np, &batch);
			refnic_emu_push_gather(emu, push, &f, &idx, p.mask, &malformed);
			refnic_emu_push_pop(txq);
		} else {
			unsigned int used;

			if (!fetched)
				break;
			/* The common packets: a run of them goes with the pass's next ones. */
			used = tx_plain_run(emu, txq, &p, &idx,
					    RTE_MIN(TX_PLAIN_BURST - np, TX_BUDGET - done),
					    pf, &np, qs);
			if (used != 0) {
				done += used;
				if (np == TX_PLAIN_BURST)
					tx_plain_flush(emu, pf, &np, &batch);
				continue;
			}
			tx_plain_flush(emu, pf, &np, &batch);
			/* The driver wrote these on another core: start the misses early. */
			tx_prefetch(txq, &p, idx);
			if (!tx_gather(emu, txq, &p, &idx, &f, &malformed))
				break;
		}
		done += (idx - start) & p.mask;
		/* A plain packet (no offload, TSO or stamp asked) tests once. */
		if (unlikely(f.offload != 0) && !malformed) {
			/* What the device lacks it does not do (caps_off=). */
			if ((f.offload & REFNIC_TXD_OFFLOADS) &&
			    !tx_offloads_offered(emu, f.offload)) {
				malformed = true;
			} else if (f.offload & REFNIC_TXD_TSO) {
				/* Its frames count against the pass's budget too. */
				done += tx_tso(emu, qs, &f, &batch, &malformed);
				if (!malformed)
					continue;
			} else if (f.offload & REFNIC_TXD_OFFLOADS) {
				malformed = !refnic_emu_tx_offload(&f);
			}
		}
		if (malformed) {
			qs->tx_malformed++;
			continue;
		}
		p.packets++;
		p.bytes += f.len;
		/* The time it leaves, for IEEE 1588 (REFNIC_TXD_TSTAMP). */
		if (unlikely(f.offload & REFNIC_TXD_TSTAMP) && emu_timesync(emu))
			refnic_emu_ptp_latch(emu->clock, emu->bar0, true,
					     refnic_emu_clock_now(emu->clock));
		refnic_cable_tx(emu, &f, &batch);
	}
	tx_plain_flush(emu, pf, &np, &batch);
	refnic_cable_tx_flush(emu, &batch);
	qs->tx_packets += p.packets;
	qs->tx_bytes += p.bytes;
	st->dma_reads += p.dma_reads;
	p.dma->tx_win = p.win;
	/* What the budget left over is fetched already: next pass. */
	if (fetched)
		txq->fetch_pending = idx != tail;
	if (idx == tail)
		txq->push_cons = txq->push_prod;
	if (idx == txq->head)
		return 0;
	txq->head = idx;
	tx_post_completion(emu, txq, idx);
	st->dma_writes++;
	emu_path_stats(emu)->tx_completions++;
	if (queue_intr_armed(emu, txq->intr, txq->vector, REFNIC_EMU_CAUSE_TX))
		refnic_emu_intr_fire(emu, txq->vector, REFNIC_EMU_CAUSE_TX, txq_full(txq));
	return done;
}

void
refnic_emu_tx_run(struct refnic_emu *emu, uint16_t qid)
{
	struct refnic_emu_txq *txq = &emu->txq[qid];
	uint64_t no_timer = UINT64_MAX;

	rte_spinlock_lock(&txq->lock);
	if (txq->enabled && emu_state(emu) == REFNIC_STATE_READY && !emu->dataplane_paused)
		refnic_emu_tx_service(emu, qid, rte_get_tsc_cycles(), &no_timer);
	rte_spinlock_unlock(&txq->lock);
}

/* Engines, inline TX on several threads and cables from outside all deliver. */
static inline void
rxq_lock(struct refnic_emu_rxq *rxq)
{
	rte_spinlock_lock(&rxq->lock);
}

/* A release store: x86's rte_spinlock_unlock() is an xchg, a full barrier. */
static inline void
rxq_unlock(struct refnic_emu_rxq *rxq)
{
	__atomic_store_n(&rxq->lock.locked, 0, __ATOMIC_RELEASE);
}

/*
 * Completions are written first and made visible in runs (a batch's, or
 * RX_PUBLISH_EVERY of them): the driver polls the line the device writes,
 * so publishing entry by entry would hand the line back and forth once per
 * frame instead of once per run.
 */
static void
rxq_publish(struct refnic_emu_rxq *rxq)
{
	uint16_t pub = rxq->pub, head = rxq->head, size = rxq->size;
	struct refnic_rx_cpl *cq = rxq->cq;
	uint8_t phase = rxq->pub_phase;

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

/* The held queue's completions out, its interrupt, its lock given back. */
static void
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
		refnic_shm_view_leave(b->emu, (uint16_t)(rxq - b->emu->rxq));
	if (came && queue_intr_armed(b->emu, rxq->intr, rxq->vector, REFNIC_EMU_CAUSE_RX))
		refnic_emu_intr_fire(b->emu, rxq->vector, REFNIC_EMU_CAUSE_RX,
				     refnic_emu_rxq_full(b->emu, (uint16_t)(rxq - b->emu->rxq)));
	rxq_unlock(rxq);
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
		rxq_publish(rxq);
		emu_path_stats(b->emu)->rx_publishes++;
		/* The far end's arm reads the file's index: no spurious wake. */
		if (b->emu->view_cable != NULL)
			refnic_shm_view_publish(b->emu, (uint16_t)(rxq - b->emu->rxq));
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
		rte_rwlock_read_unlock(&b->config->rx_config_lock);
		b->config = NULL;
	}
}

/* Hold rxq for the batch: the one held before is done. */
static void
rx_batch_switch(struct refnic_rx_batch *b, struct refnic_emu *emu, struct refnic_emu_rxq *rxq)
{
	rx_batch_queue_end(b);
	rxq_lock(rxq);
	b->held = rxq;
	b->emu = emu;
	b->published = false;
	if (b->dev != emu) {
		rx_batch_win_keep(b);
		b->dev = emu;
		b->stats = emu_stats(emu);
		b->win = emu_dma_cache(emu)->rx_win;
	}
	/* Looked at once a queue a pass: a fault armed meanwhile takes the next. */
	b->garble = emu_may_garble(emu);
	/* The far end's port: its queue as its device has it now. */
	if (unlikely(emu->view_cable != NULL))
		refnic_shm_view_enter(emu, (uint16_t)(rxq - emu->rxq));
}

/* The same queue as the frame before: nothing to do (the common case). */
static __rte_always_inline void
rx_batch_hold(struct refnic_rx_batch *b, struct refnic_emu *emu, struct refnic_emu_rxq *rxq)
{
	if (unlikely(b->held != rxq))
		rx_batch_switch(b, emu, rxq);
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
	if (txq->enabled && rte_spinlock_trylock(&txq->lock)) {
		head_publish(emu, REFNIC_REG_TXQ(qid) + REFNIC_Q_HEAD, txq->head);
		rte_spinlock_unlock(&txq->lock);
	}
	/* Not while a sender delivers (the engine would spin on the CPU it
	 * may share with the receiver): the next idle pass publishes it. */
	if (rxq->enabled && rte_spinlock_trylock(&rxq->lock)) {
		head_publish(emu, REFNIC_REG_RXQ(qid) + REFNIC_Q_HEAD,
			     emu->rx_published ? refnic_shm_rx_head(emu, qid) : rxq->head);
		rxq_unlock(rxq);
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
	rxq_unlock(rxq);
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

/* Copy the first len bytes of a frame (which may span segments). */
static void
frame_peek(const struct refnic_frame *f, uint8_t *dst, uint32_t len)
{
	uint16_t s;
	uint32_t n;

	for (s = 0; s < f->nb_segs && len > 0; s++) {
		n = RTE_MIN(len, f->seg_len[s]);
		memcpy(dst, f->seg[s], n);
		dst += n;
		len -= n;
	}
}

/* Packet type, as the completion reports it. */
static uint8_t
rx_ptype(const struct refnic_pkt_hdrs *h)
{
	uint8_t l3 = h->ip_version == 4 ? REFNIC_PTYPE_IPV4 :
		     h->ip_version == 6 ? REFNIC_PTYPE_IPV6 : REFNIC_PTYPE_L2;

	if (h->ip_version == 0 || h->frag)
		return l3;
	return l3 | (h->proto == EMU_IPPROTO_TCP ? REFNIC_PTYPE_TCP :
		     h->proto == EMU_IPPROTO_UDP ? REFNIC_PTYPE_UDP : 0);
}

/*
 * A device model, unlike a NIC's parser, costs the CPU it runs on (the
 * sender's lcore, inline): it skips what nobody enabled, and decides what
 * that is when the configuration changes, not per frame.
 */
void
refnic_emu_rx_plan_update(struct refnic_emu *emu)
{
	uint8_t plan = 0;

	if (!(emu->rx_mode & REFNIC_RX_MODE_PROMISC) || (emu->features & REFNIC_CAP_VLAN_FILTER))
		plan |= REFNIC_EMU_RX_FILTER;
	if (emu->features & REFNIC_CAP_RX_PTYPE)
		plan |= REFNIC_EMU_RX_PTYPE;
	if (emu->features & REFNIC_CAP_RX_CSUM)
		plan |= REFNIC_EMU_RX_CSUM;
	if (emu->rss.hash_types != 0)
		plan |= REFNIC_EMU_RX_RSS;
	if (refnic_emu_flows_any(emu))
		plan |= REFNIC_EMU_RX_FLOW;
	if (emu->features & REFNIC_CAP_VLAN_STRIP)
		plan |= REFNIC_EMU_RX_STRIP;
	emu->rx_plan = plan;
}

/* Does a frame need parsing? For its packet type, a checksum verdict, an
 * RSS hash or the flow table. */
#define RX_PLAN_PARSE	(REFNIC_EMU_RX_PTYPE | REFNIC_EMU_RX_CSUM | REFNIC_EMU_RX_RSS | \
			 REFNIC_EMU_RX_FLOW)

/* Posted buffers needed for len bytes, or 0 if the ring has too few. */
static uint16_t
rx_buffers_needed(const struct refnic_emu_rxq *rxq, uint16_t tail, uint32_t len)
{
	uint16_t avail = (tail - rxq->head) & (rxq->size - 1);
	uint16_t n = 0, idx = rxq->head;

	while (len > 0) {
		uint16_t buf_len = rxq->ring[idx].buf_len;

		if (n == avail || buf_len < rxq->buf_size)
			return 0;
		len -= RTE_MIN(len, buf_len);
		idx = (idx + 1) & (rxq->size - 1);
		n++;
	}
	return n;
}

/* What the device learnt about a frame, for its completions. */
struct rx_meta {
	uint8_t ptype;
	bool hashed;
	uint32_t hash;
	uint16_t flags;		/* checksum verdicts, VLAN stripped */
	uint16_t vlan_tci;
	uint16_t last_flags;	/* on the frame's last completion: stamp, PTP */
	uint64_t stamp;		/* arrival, device clock ns, with REFNIC_RXC_TSTAMP */
};

/* The flow table's queue for a frame, its hash or mark; UINT16_MAX: drop. */
static uint16_t
rx_flow_classify(struct refnic_emu *emu, const uint8_t *hdr, const struct refnic_pkt_hdrs *h,
		 uint32_t len, struct rx_meta *meta)
{
	struct refnic_emu_flow_verdict v;
	uint16_t qid;

	switch (refnic_emu_flow_lookup(emu, hdr, h, len, &v)) {
	case REFNIC_EMU_FLOW_DROP:
		return UINT16_MAX;
	case REFNIC_EMU_FLOW_QUEUE:
		qid = v.queue;
		meta->hash = v.hash;
		meta->hashed = v.hashed;
		break;
	default:
		qid = refnic_emu_rss_queue(emu, hdr, h, &meta->hash, &meta->hashed);
		break;
	}
	if (v.marked) {	/* the mark takes the hash's place (refnic_hw.h) */
		meta->hash = v.mark;
		meta->hashed = false;
		meta->flags |= REFNIC_RXC_FLOW_MARK;
	}
	/* An shm cable's view holds the far end's table, as its file had it. */
	return qid & (REFNIC_MAX_QUEUES - 1);
}

/*
 * The buffer two ahead of the head idx, which the driver last touched on
 * another core; only one it posted (before the taken tail): the
 * descriptors beyond are the driver's, maybe being written.
 */
static inline void
rx_prefetch_buffer(struct refnic_emu *emu, const struct refnic_emu_rxq *rxq,
		   const struct refnic_dma_window *win, uint16_t idx, uint16_t tail)
{
	uint16_t mask = rxq->size - 1;
	uint64_t iova;
	void *va;

	if (((tail - idx) & mask) <= 2)
		return;
	iova = rxq->ring[(idx + 2) & mask].addr;
	va = refnic_dma_window_peek(win, iova, RTE_CACHE_LINE_SIZE);
	if (va == NULL)
		va = refnic_dma_map_cached(emu, iova, RTE_CACHE_LINE_SIZE);
	if (va != NULL)
		rte_prefetch0_write(va);
}

/* chunk bytes of f from segment *s at *seg_off into dst, across segments. */
static __rte_noinline void
rx_copy_segments(uint8_t *dst, const struct refnic_frame *f, uint32_t chunk, uint16_t *s,
		 uint32_t *seg_off)
{
	uint32_t copied = 0;

	while (copied < chunk) {
		uint32_t k = RTE_MIN(chunk - copied, f->seg_len[*s] - *seg_off);

		rte_memcpy(dst + copied, f->seg[*s] + *seg_off, k);
		copied += k;
		*seg_off += k;
		if (*seg_off == f->seg_len[*s]) {
			(*s)++;
			*seg_off = 0;
		}
	}
}

/*
 * A plain frame's completion, all but its phase (the batch's publish): the
 * frame's only buffer, no hash, verdict or tag.
 */
static __rte_always_inline void
rx_cpl_write(struct refnic_rx_cpl *cpl, uint16_t idx, uint32_t len, uint8_t ptype)
{
	cpl->rss_hash = 0;
	cpl->desc_idx = idx;
	cpl->len = len;
	cpl->flags = REFNIC_RXC_EOP;
	cpl->vlan_tci = 0;
	cpl->ptype = ptype;
}

/* Scatter f into n posted buffers; false on a DMA error (frame dropped). */
static __rte_always_inline bool
rx_scatter(struct refnic_emu *emu, struct refnic_rx_batch *batch, struct refnic_emu_rxq *rxq,
	   const struct refnic_frame *f, uint16_t n, uint16_t tail, const struct rx_meta *meta)
{
	uint32_t seg_off = 0, left = f->len;
	uint16_t s = 0, b;

	for (b = 0; b < n; b++) {
		uint16_t idx = rxq->head;
		struct refnic_rx_desc d = rxq->ring[idx];

		/* Read before its completion may be written over it (write-back):
		 * the two types do not alias for the compiler. */
		rte_compiler_barrier();

		/* A line holds four of each: the next line, once. */
		if ((idx & 3) == 0) {
			rte_prefetch0(&rxq->ring[(idx + 4) & (rxq->size - 1)]);
			rte_prefetch0(&rxq->cq[(idx + 4) & (rxq->size - 1)]);
		}
		rx_prefetch_buffer(emu, rxq, &batch->win, idx, tail);
		uint32_t chunk = RTE_MIN(left, (uint32_t)d.buf_len);
		struct refnic_rx_cpl *cpl = &rxq->cq[idx];
		uint8_t *dst = refnic_dma_window_map(emu, &batch->win, d.addr, chunk);

		if (dst == NULL)
			return false;
		/* The common frame: in one segment, into one buffer. */
		if (likely(chunk <= f->seg_len[s] - seg_off)) {
			rte_memcpy(dst, f->seg[s] + seg_off, chunk);
			seg_off += chunk;
			if (seg_off == f->seg_len[s]) {
				s++;
				seg_off = 0;
			}
		} else {
			rx_copy_segments(dst, f, chunk, &s, &seg_off);
		}
		left -= chunk;
		batch->stats->dma_writes += 2;

		cpl->rss_hash = meta->hash;
		cpl->desc_idx = idx;
		cpl->len = chunk;
		cpl->flags = (left == 0 ? REFNIC_RXC_EOP | meta->last_flags : 0) |
			     (meta->hashed ? REFNIC_RXC_RSS_VALID : 0) | meta->flags;
		/* Before the phase byte, which the batch's publish writes. */
		if (unlikely(left == 0 && (meta->last_flags & REFNIC_RXC_TSTAMP)))
			rxq->stamps[idx] = meta->stamp;
		cpl->vlan_tci = meta->vlan_tci;
		cpl->ptype = meta->ptype;
		if (unlikely(batch->garble))
			refnic_emu_corrupt_rx_cpl(emu, cpl, rxq->size);
		/* The phase bit goes out with the batch: refnic_emu_rx_publish(). */
		rxq->head = (idx + 1) & (rxq->size - 1);
	}
	return true;
}

/*
 * The frame's arrival time (1.4): into the queue's stamp slot, if it has
 * them, and, timesync on, into the RX latch if it is a PTP event message.
 */
static void
rx_stamp(struct refnic_emu *emu, const struct refnic_emu_rxq *rxq, const uint8_t *hdr,
	 uint32_t hdr_len, struct rx_meta *meta)
{
	bool event;

	meta->stamp = refnic_emu_clock_now(emu->clock);
	if (rxq->stamps != NULL)
		meta->last_flags |= REFNIC_RXC_TSTAMP;
	if (emu_timesync(emu) && refnic_emu_ptp_classify(hdr, hdr_len, &event)) {
		meta->last_flags |= REFNIC_RXC_PTP;
		if (event)
			refnic_emu_ptp_latch(emu->clock, emu->bar0, false, meta->stamp);
	}
}

/* Ethernet, a VLAN tag, IPv6 or IPv4 with options, L4 ports. */
#define RX_HDR_MAX	(EMU_ETH_HLEN + 4 + 60 + 4)

/* emu's configuration as it is, for the rest of the pass (one lock a pass). */
static __rte_always_inline void
rx_config_hold(struct refnic_rx_batch *b, struct refnic_emu *emu)
{
	if (unlikely(b->config != emu)) {
		/* A pass's first frame holds nothing yet. */
		if (b->config != NULL)
			refnic_emu_rx_batch_end(b);
		rte_rwlock_read_lock(&emu->rx_config_lock);
		b->config = emu;
	}
}

/* A frame nothing will take: counted (hostile tests add every frame up). */
#define RX_DROPPED	UINT16_MAX

/*
 * Is emu taking frames at all? Not unless it is up, and not with its PHY
 * off (LINK_SET): what comes in from another process or the kernel is not
 * taken. In this process, nothing is sent to a port that is down.
 */
static __rte_always_inline bool
rx_port_takes(struct refnic_emu *emu)
{
	if (unlikely(emu_state(emu) != REFNIC_STATE_READY) ||
	    unlikely(__atomic_load_n(&emu->phy_down, __ATOMIC_ACQUIRE))) {
		emu_stats(emu)->cable_rx_dropped++;
		return false;
	}
	return true;
}

/*
 * A frame's queue and what its completion will say, doing what the plan
 * asks and no more: the filters, the size, then the parser for a type, a
 * checksum, a hash or a rule (counted in *parsed). RX_DROPPED if it is not
 * taken (counted).
 */
static __rte_always_inline uint16_t
rx_classify(struct refnic_emu *emu, uint8_t plan, const struct refnic_frame *f,
	    const uint8_t *hdr, uint32_t hdr_len, struct rx_meta *meta, unsigned int *parsed)
{
	struct refnic_pkt_hdrs hdrs;
	uint16_t qid = 0;

	/* Promiscuous without a VLAN filter takes every frame: not looked at. */
	if ((plan & REFNIC_EMU_RX_FILTER) && !refnic_emu_rx_accept(emu, hdr, hdr_len)) {
		emu_stats(emu)->rx_filtered++;
		return RX_DROPPED;
	}
	if (f->len > emu->mtu + REFNIC_ETH_OVERHEAD) {
		emu_stats(emu)->rx_oversize++;
		return RX_DROPPED;
	}
	meta->ptype = REFNIC_PTYPE_L2;
	if (!(plan & RX_PLAN_PARSE))
		return 0;
	refnic_emu_parse(hdr, hdr_len, &hdrs);
	(*parsed)++;
	/* Flow rules before RSS; with none, one test. */
	if (plan & REFNIC_EMU_RX_FLOW) {
		qid = rx_flow_classify(emu, hdr, &hdrs, f->len, meta);
		if (qid == UINT16_MAX) {
			emu_stats(emu)->rx_filtered++;
			return RX_DROPPED;
		}
	} else if (plan & REFNIC_EMU_RX_RSS) {
		qid = refnic_emu_rss_queue(emu, hdr, &hdrs, &meta->hash, &meta->hashed);
	}
	if (plan & REFNIC_EMU_RX_PTYPE)
		meta->ptype = rx_ptype(&hdrs);
	if (plan & REFNIC_EMU_RX_CSUM)
		meta->flags |= refnic_emu_rx_csum(f, &hdrs);
	return qid;
}

/*
 * A classified frame into queue qid by itself: its tag stripped if asked,
 * its buffers found, its bytes scattered, stamped if the queue stamps, and
 * a held interrupt raised at once when the ring is half taken.
 */
static __rte_always_inline bool
rx_deliver_one(struct refnic_emu *emu, const struct refnic_frame *f, uint16_t qid,
	       struct rx_meta *meta, const uint8_t *hdr, uint32_t hdr_len, uint8_t plan,
	       struct refnic_rx_batch *b)
{
	struct refnic_frame stripped;
	struct refnic_hw_queue_stats *qs;
	struct refnic_emu_rxq *rxq;
	uint16_t tail, n;

	if ((plan & REFNIC_EMU_RX_STRIP) &&
	    refnic_emu_vlan_strip(f, &stripped, &meta->vlan_tci)) {
		meta->flags |= REFNIC_RXC_VLAN_STRIPPED;
		f = &stripped;
	}
	rxq = &emu->rxq[qid];
	rx_batch_hold(b, emu, rxq);
	qs = &b->stats->q[qid];
	if (!rxq->enabled) {
		qs->rx_no_buffer++;
		return false;
	}
	tail = emu_db_tail(&emu->rxdb[qid]);
	if (tail >= rxq->size) {
		queue_error(emu, false, qid, &rxq->enabled, "RX tail beyond ring");
		qs->rx_no_buffer++;
		return false;
	}
	n = rx_buffers_needed(rxq, tail, f->len);
	/* A device that cannot scatter (caps_off=scatter) writes a frame into
	 * one buffer or not at all: one longer than its buffers is oversize. */
	if (unlikely(n > 1) && !emu_has_cap(emu, REFNIC_CAP_SCATTER)) {
		emu_stats(emu)->rx_oversize++;
		return false;
	}
	/* Stamped once taken: a frame dropped here latches nothing. */
	if (unlikely(rxq->stamps != NULL || emu_timesync(emu)) && n != 0)
		rx_stamp(emu, rxq, hdr, hdr_len, meta);
	if (n == 0) {
		qs->rx_no_buffer++;
		if (rxq_intr_held(emu, rxq))
			qs->rx_missed_while_held++;
		return false;
	}
	if (!rx_scatter(emu, b, rxq, f, n, tail, meta)) {
		queue_error(emu, false, qid, &rxq->enabled, "RX buffer DMA error");
		qs->rx_no_buffer++;
		return false;
	}
	qs->rx_packets++;
	qs->rx_bytes += f->len;
	/* Half the ring taken while the driver sleeps: a held interrupt goes
	 * now, mid-batch, not when the pass ends, by which time a long pass
	 * may have filled the ring while the interrupt was held. (A far end's
	 * port over shm: at the pass's end, when its file learns the index.) */
	if (unlikely(rxq->intr) && likely(emu->view_cable == NULL) &&
	    queue_intr_armed(emu, rxq->intr, rxq->vector, REFNIC_EMU_CAUSE_RX) &&
	    refnic_emu_rxq_full(emu, qid)) {
		rxq_publish(rxq);
		emu_path_stats(emu)->rx_publishes++;
		refnic_emu_intr_fire(emu, rxq->vector, REFNIC_EMU_CAUSE_RX, true);
	}
	return true;
}

static __rte_always_inline bool
rx_frame(struct refnic_emu *emu, const struct refnic_frame *f, struct refnic_rx_batch *b)
{
	uint8_t hdr_copy[RX_HDR_MAX];
	uint32_t hdr_len = RTE_MIN(f->len, sizeof(hdr_copy));
	struct rx_meta meta = { .hash = 0 };
	unsigned int parsed = 0;
	const uint8_t *hdr;
	uint16_t qid;
	uint8_t plan;

	rx_config_hold(b, emu);
	plan = emu->rx_plan;
	if (!rx_port_takes(emu))
		return false;
	/* Parse the headers where they are; gather them only if split. */
	if (f->seg_len[0] >= hdr_len) {
		hdr = f->seg[0];
	} else {
		frame_peek(f, hdr_copy, hdr_len);
		hdr = hdr_copy;
	}
	qid = rx_classify(emu, plan, f, hdr, hdr_len, &meta, &parsed);
	if (parsed != 0)
		emu_path_stats(emu)->rx_parsed++;
	if (qid == RX_DROPPED)
		return false;
	return rx_deliver_one(emu, f, qid, &meta, hdr, hdr_len, plan, b);
}

bool
refnic_emu_rx_frame(struct refnic_emu *emu, const struct refnic_frame *f,
		    struct refnic_rx_batch *b)
{
	return rx_frame(emu, f, b);
}

/*
 * Plans whose frames are classified a burst at a time before any queue is
 * held: a queue, hash or verdict per frame, or a tag to find. Without them
 * every frame goes to queue 0 and is judged (filters, size, type) where it
 * is copied: one first touch of its line, not two a burst apart.
 */
#define RX_PLAN_CLASSIFY	(REFNIC_EMU_RX_CSUM | REFNIC_EMU_RX_RSS | REFNIC_EMU_RX_FLOW | \
				 REFNIC_EMU_RX_STRIP)

/* A frame's verdict from the classify stage. */
struct rx_verdict {
	uint16_t qid;			/* RX_DROPPED: not taken, counted */
	bool alone;			/* a tag to strip: delivered by itself */
	struct rx_meta meta;
};

/* The frame at position k of a queue's list (order), or k itself (none). */
#define RX_AT(order, k)		((order) == NULL ? (k) : (order)[k])

/* One queue's share of a burst, as it goes through the stages. */
struct rx_queue_burst {
	struct refnic_emu_rxq *rxq;
	uint16_t qid, tail;
	unsigned int looked;		/* frames looked at */
	unsigned int taken, filtered, oversize, no_buffer;
	uint32_t bytes;
	bool dma_error;
	uint8_t *dst[RX_BURST_MAX];	/* NULL: not taken */
};

/*
 * Can queue qid of a port taking bursts take its frames as one? Held,
 * enabled, with neither stamps nor an interrupt to raise mid-batch, and a
 * sane tail. Else its frames go one by one, which says why.
 */
static __rte_always_inline bool
rx_queue_open(struct refnic_emu *emu, struct refnic_rx_batch *b, struct rx_queue_burst *qb,
	      uint16_t qid)
{
	struct refnic_emu_rxq *rxq = &emu->rxq[qid];

	rx_batch_hold(b, emu, rxq);
	if (!rxq->enabled || rxq->intr || rxq->stamps != NULL)
		return false;
	qb->tail = emu_db_tail(&emu->rxdb[qid]);
	if (qb->tail >= rxq->size)
		return false;
	qb->rxq = rxq;
	qb->qid = qid;
	qb->looked = 0;
	qb->taken = qb->filtered = qb->oversize = qb->no_buffer = 0;
	qb->bytes = 0;
	qb->dma_error = false;
	return true;
}

/*
 * Stage one of a queue's burst: each frame judged (unless classified),
 * its buffer checked and translated, nothing written yet. Stops before a
 * frame it cannot take as the others (a tag to strip; a buffer shorter
 * than the queue's or than the frame: the per-frame path judges it), or
 * at one whose buffer does not translate.
 */
static __rte_always_inline void
rx_burst_map(struct refnic_emu *emu, struct refnic_rx_batch *b, struct rx_queue_burst *qb,
	     const struct refnic_plain_frame *pf, const uint8_t *order, unsigned int n,
	     const struct rx_verdict *v, uint8_t plan)
{
	struct refnic_emu_rxq *rxq = qb->rxq;
	uint32_t max_len = emu->mtu + REFNIC_ETH_OVERHEAD;
	uint16_t mask = rxq->size - 1, idx = rxq->head;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct refnic_plain_frame *fr = &pf[RX_AT(order, i)];
		struct refnic_rx_desc d;

		qb->dst[i] = NULL;
		if (v == NULL) {
			if ((plan & REFNIC_EMU_RX_FILTER) &&
			    !refnic_emu_rx_accept(emu, fr->data,
						  RTE_MIN(fr->len, (uint32_t)RX_HDR_MAX))) {
				qb->filtered++;
				continue;
			}
			if (fr->len > max_len) {
				qb->oversize++;
				continue;
			}
		} else if (v[RX_AT(order, i)].alone) {
			break;
		}
		if (idx == qb->tail) {
			qb->no_buffer++;
			continue;
		}
		d = rxq->ring[idx];
		if (d.buf_len < rxq->buf_size || fr->len > d.buf_len)
			break;
		qb->dst[i] = refnic_dma_window_map(emu, &b->win, d.addr, fr->len);
		if (unlikely(qb->dst[i] == NULL)) {
			qb->dma_error = true;	/* counted (dma_errors) by the look-up */
			break;
		}
		/* The driver's buffer, last touched on its core: the copy comes
		 * a burst later. A line holds four descriptors: the next, once. */
		rte_prefetch0_write(qb->dst[i]);
		if ((idx & 3) == 0) {
			rte_prefetch0(&rxq->ring[(idx + 4) & mask]);
			rte_prefetch0(&rxq->cq[(idx + 4) & mask]);
		}
		idx = (idx + 1) & mask;
		qb->taken++;
	}
	qb->looked = i;
}

/* A classified frame's completion, all but its phase (the batch's publish). */
static __rte_always_inline void
rx_cpl_write_meta(struct refnic_rx_cpl *cpl, uint16_t idx, uint32_t len,
		  const struct rx_meta *meta)
{
	cpl->rss_hash = meta->hash;
	cpl->desc_idx = idx;
	cpl->len = len;
	cpl->flags = REFNIC_RXC_EOP | (meta->hashed ? REFNIC_RXC_RSS_VALID : 0) | meta->flags;
	cpl->vlan_tci = meta->vlan_tci;
	cpl->ptype = meta->ptype;
}

/* Stage two: the bytes copied and the completions written, in ring order. */
static __rte_always_inline void
rx_burst_copy(struct refnic_emu *emu, struct refnic_rx_batch *b, struct rx_queue_burst *qb,
	      const struct refnic_plain_frame *pf, const uint8_t *order,
	      const struct rx_verdict *v, uint8_t plan)
{
	struct refnic_emu_rxq *rxq = qb->rxq;
	uint16_t mask = rxq->size - 1, idx = rxq->head;
	unsigned int i;

	/* Descriptors read before completions go over them (write-back). */
	rte_compiler_barrier();
	for (i = 0; i < qb->looked; i++) {
		const struct refnic_plain_frame *fr = &pf[RX_AT(order, i)];
		struct refnic_rx_cpl *cpl = &rxq->cq[idx];
		uint8_t ptype = REFNIC_PTYPE_L2;

		if (qb->dst[i] == NULL)
			continue;
		/* Typed where it is copied, when no classify stage typed it. */
		if (v == NULL && (plan & REFNIC_EMU_RX_PTYPE)) {
			struct refnic_pkt_hdrs h;

			refnic_emu_parse_inline(fr->data, RTE_MIN(fr->len, (uint32_t)RX_HDR_MAX),
						&h);
			ptype = rx_ptype(&h);
		}
		rte_memcpy(qb->dst[i], fr->data, fr->len);
		qb->bytes += fr->len;
		if (v == NULL)
			rx_cpl_write(cpl, idx, fr->len, ptype);
		else
			rx_cpl_write_meta(cpl, idx, fr->len, &v[RX_AT(order, i)].meta);
		if (unlikely(b->garble))
			refnic_emu_corrupt_rx_cpl(emu, cpl, rxq->size);
		idx = (idx + 1) & mask;
	}
	rxq->head = idx;
}

/* Stage three: the counters, once; returns the frames the burst consumed. */
static __rte_always_inline unsigned int
rx_burst_count(struct refnic_emu *emu, struct refnic_rx_batch *b, struct rx_queue_burst *qb,
	       bool typed_here)
{
	struct refnic_hw_queue_stats *qs = &b->stats->q[qb->qid];
	struct refnic_emu_path_stats *ps;

	qs->rx_packets += qb->taken;
	qs->rx_bytes += qb->bytes;
	b->stats->dma_writes += 2 * qb->taken;
	if (unlikely((qb->no_buffer | qb->filtered | qb->oversize) != 0)) {
		qs->rx_no_buffer += qb->no_buffer;
		b->stats->rx_filtered += qb->filtered;
		b->stats->rx_oversize += qb->oversize;
	}
	ps = emu_path_stats(emu);
	ps->rx_bursts++;
	ps->rx_burst_frames += qb->taken;
	if (typed_here)
		ps->rx_parsed += qb->taken;
	if (unlikely(qb->dma_error)) {
		queue_error(emu, false, qb->qid, &qb->rxq->enabled, "RX buffer DMA error");
		qs->rx_no_buffer++;
		return qb->looked + 1;	/* that frame is dropped */
	}
	return qb->looked;
}

/*
 * Frames into queue qid as a NIC's pipeline takes them: every frame judged
 * and its buffer checked and translated first, then the bytes copied and
 * the completions written, then the counters added, once for the burst.
 * Frames pf[RX_AT(order, k)], k < n; verdicts v, or NULL if not classified.
 * Returns the frames done; the caller delivers the next by itself.
 */
static __rte_always_inline unsigned int
rx_queue_burst(struct refnic_emu *emu, struct refnic_rx_batch *b, uint16_t qid,
	       const struct refnic_plain_frame *pf, const uint8_t *order, unsigned int n,
	       const struct rx_verdict *v, uint8_t plan)
{
	struct rx_queue_burst qb;

	if (!rx_queue_open(emu, b, &qb, qid))
		return 0;
	rx_burst_map(emu, b, &qb, pf, order, n, v, plan);
	rx_burst_copy(emu, b, &qb, pf, order, v, plan);
	return rx_burst_count(emu, b, &qb, v == NULL && (plan & REFNIC_EMU_RX_PTYPE));
}

/* Can plain frames into emu go in bursts? It is up, takes frames, and no
 * frame needs a stamp latched or a far end's view. */
static __rte_always_inline bool
rx_port_bursts(struct refnic_emu *emu)
{
	return emu_state(emu) == REFNIC_STATE_READY &&
	       !__atomic_load_n(&emu->phy_down, __ATOMIC_ACQUIRE) && !emu_timesync(emu) &&
	       emu->view_cable == NULL;
}

/* Frames all for queue 0, judged as they are copied; returns those done alone. */
static unsigned int
rx_burst_unclassified(struct refnic_emu *emu, uint8_t plan, const struct refnic_plain_frame *pf,
		      unsigned int n, struct refnic_rx_batch *b)
{
	struct refnic_frame f;
	unsigned int k = 0, single = 0;

	refnic_frame_plain_init(&f);
	while (k < n) {
		k += rx_queue_burst(emu, b, 0, pf + k, NULL, n - k, NULL, plan);
		if (k == n)
			break;
		/* The frame the burst stopped at. */
		refnic_frame_plain_set(&f, &pf[k++]);
		rx_frame(emu, &f, b);
		single++;
	}
	return single;
}

/* Stage zero of a classified burst: every frame's queue and verdicts,
 * before any queue is held. */
static void
rx_burst_classify(struct refnic_emu *emu, uint8_t plan, const struct refnic_plain_frame *pf,
		  unsigned int n, struct rx_verdict *v)
{
	struct refnic_frame f;
	unsigned int i, parsed = 0;

	refnic_frame_plain_init(&f);
	for (i = 0; i < n; i++) {
		const uint8_t *p = pf[i].data;

		refnic_frame_plain_set(&f, &pf[i]);
		v[i].meta = (struct rx_meta){ .hash = 0 };
		v[i].qid = rx_classify(emu, plan, &f, p, RTE_MIN(pf[i].len, (uint32_t)RX_HDR_MAX),
				       &v[i].meta, &parsed);
		/* refnic_emu_vlan_strip()'s test, on a frame of one segment. */
		v[i].alone = (plan & REFNIC_EMU_RX_STRIP) && pf[i].len >= EMU_ETH_HLEN + 4 &&
			     (p[12] << 8 | p[13]) == EMU_ETH_P_VLAN;
	}
	if (parsed != 0)
		emu_path_stats(emu)->rx_parsed += parsed;
}

/* A classified burst's frames grouped by queue, in arrival order in each. */
struct rx_by_queue {
	uint64_t queues;		/* a bit per queue with frames */
	uint8_t start[REFNIC_MAX_QUEUES];	/* its first in order[] */
	uint8_t count[REFNIC_MAX_QUEUES];
	uint8_t order[RX_BURST_MAX];	/* frame indexes */
};
_Static_assert(REFNIC_MAX_QUEUES <= 64 && RX_BURST_MAX <= UINT8_MAX, "rx_by_queue's widths");

/* Stage one: a counting sort, over the queues that have frames only. */
static void
rx_burst_group(const struct rx_verdict *v, unsigned int n, struct rx_by_queue *g)
{
	uint8_t at[REFNIC_MAX_QUEUES];
	unsigned int i, pos = 0;
	uint64_t m;

	g->queues = 0;
	for (i = 0; i < n; i++) {
		uint16_t q = v[i].qid;

		if (q == RX_DROPPED)
			continue;
		if (!(g->queues & RTE_BIT64(q))) {
			g->queues |= RTE_BIT64(q);
			g->count[q] = 0;
		}
		g->count[q]++;
	}
	for (m = g->queues; m != 0; m &= m - 1) {
		unsigned int q = __builtin_ctzll(m);

		g->start[q] = at[q] = pos;
		pos += g->count[q];
	}
	for (i = 0; i < n; i++)
		if (v[i].qid != RX_DROPPED)
			g->order[at[v[i].qid]++] = i;
}

/* A queue's frames: in bursts as far as they go, the rest one by one with
 * their verdicts; returns those done alone. */
static unsigned int
rx_queue_deliver(struct refnic_emu *emu, struct refnic_rx_batch *b, uint16_t qid,
		 const struct refnic_plain_frame *pf, const uint8_t *order, unsigned int n,
		 const struct rx_verdict *v, uint8_t plan)
{
	struct refnic_frame f;
	unsigned int k = 0, single = 0;

	refnic_frame_plain_init(&f);
	while (k < n) {
		struct rx_meta meta;
		unsigned int i;

		k += rx_queue_burst(emu, b, qid, pf, order + k, n - k, v, plan);
		if (k == n)
			break;
		i = order[k++];
		meta = v[i].meta;
		refnic_frame_plain_set(&f, &pf[i]);
		rx_deliver_one(emu, &f, qid, &meta, pf[i].data,
			       RTE_MIN(pf[i].len, (uint32_t)RX_HDR_MAX), plan, b);
		single++;
	}
	return single;
}

/*
 * Frames classified first (queue, hash, verdicts), then delivered a queue
 * at a time: one hold, one publish, one counter add per queue per burst.
 * Returns the frames done alone.
 */
static unsigned int
rx_burst_classified(struct refnic_emu *emu, uint8_t plan, const struct refnic_plain_frame *pf,
		    unsigned int n, struct refnic_rx_batch *b)
{
	struct rx_verdict v[RX_BURST_MAX];
	struct rx_by_queue g;
	unsigned int single = 0;
	uint64_t m;

	rx_burst_classify(emu, plan, pf, n, v);
	rx_burst_group(v, n, &g);
	for (m = g.queues; m != 0; m &= m - 1) {
		uint16_t q = __builtin_ctzll(m);

		single += rx_queue_deliver(emu, b, q, pf, &g.order[g.start[q]], g.count[q], v,
					   plan);
	}
	return single;
}

void
refnic_emu_rx_plain(struct refnic_emu *emu, const struct refnic_plain_frame *pf,
		    unsigned int n, struct refnic_rx_batch *b)
{
	unsigned int i, m, single = 0;
	struct refnic_frame f;
	uint8_t plan;

	rx_config_hold(b, emu);
	plan = emu->rx_plan;
	if (unlikely(!rx_port_bursts(emu))) {
		/* Every frame by itself, which says where it went. */
		refnic_frame_plain_init(&f);
		for (i = 0; i < n; i++) {
			refnic_frame_plain_set(&f, &pf[i]);
			rx_frame(emu, &f, b);
		}
		single = n;
	} else {
		for (i = 0; i < n; i += m) {
			m = RTE_MIN(n - i, (unsigned int)RX_BURST_MAX);
			single += (plan & RX_PLAN_CLASSIFY) ?
				  rx_burst_classified(emu, plan, pf + i, m, b) :
				  rx_burst_unclassified(emu, plan, pf + i, m, b);
		}
	}
	if (single != 0)
		emu_path_stats(emu)->rx_single_frames += single;
}
