/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Queue life cycle: setup and release (host memory), start and stop on the
 * device (admin QUEUE_CREATE / QUEUE_DESTROY), and giving every mbuf back.
 */

#include <rte_malloc.h>

#include "refnic.h"
#include "refnic_rxtx.h"

static int
ring_size_check(const struct refnic_adapter *ad, const char *what, uint16_t qid,
		uint16_t nb_desc)
{
	if (nb_desc < ad->ident.min_ring_size || nb_desc > ad->ident.max_ring_size ||
	    !rte_is_power_of_2(nb_desc)) {
		PMD_DRV_LOG(ERR, "%s queue %u: %u descriptors: must be a power of two "
			    "from %u to %u", what, qid, nb_desc,
			    ad->ident.min_ring_size, ad->ident.max_ring_size);
		return -EINVAL;
	}
	return 0;
}

static uint16_t
free_thresh_get(uint16_t requested, uint16_t dflt, uint16_t nb_desc)
{
	uint16_t t = requested != 0 ? requested : dflt;

	return RTE_MIN(t, nb_desc / 2);
}

/*
 * A queue's host memory: the queue struct, its software ring, and one
 * IOVA-contiguous zone holding the descriptors, then the completions.
 */
static void *
queue_mem_alloc(struct rte_eth_dev *dev, const char *ring_name, uint16_t qid,
		uint16_t nb_desc, size_t queue_size, size_t entry_size,
		unsigned int socket_id, struct rte_mbuf ***sw_ring,
		const struct rte_memzone **mz)
{
	void *q = rte_zmalloc_socket(ring_name, queue_size, RTE_CACHE_LINE_SIZE, socket_id);

	*sw_ring = rte_zmalloc_socket(ring_name, nb_desc * sizeof(**sw_ring),
				      RTE_CACHE_LINE_SIZE, socket_id);
	*mz = rte_eth_dma_zone_reserve(dev, ring_name, qid, nb_desc * entry_size,
				       RTE_CACHE_LINE_SIZE, socket_id);
	if (q != NULL && *sw_ring != NULL && *mz != NULL)
		return q;
	PMD_DRV_LOG(ERR, "%s %u: out of memory for %u descriptors", ring_name, qid, nb_desc);
	if (*mz != NULL)
		rte_eth_dma_zone_free(dev, ring_name, qid);
	rte_free(*sw_ring);
	rte_free(q);
	return NULL;
}

void
refnic_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct refnic_rx_queue *rxq = dev->data->rx_queues[qid];

	if (rxq == NULL)
		return;
	refnic_queue_stats_leave(dev, false, qid, &rxq->stats, &rxq->stats_base);
	rte_eth_dma_zone_free(dev, "rx_ring", qid);
	rte_free(rxq->sw_ring);
	rte_free(rxq);
}

void
refnic_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct refnic_tx_queue *txq = dev->data->tx_queues[qid];

	if (txq == NULL)
		return;
	refnic_queue_stats_leave(dev, true, qid, &txq->stats, &txq->stats_base);
	rte_eth_dma_zone_free(dev, "tx_ring", qid);
	rte_free(txq->sw_ring);
	rte_free(txq);
}

int
refnic_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket_id, const struct rte_eth_rxconf *conf,
		      struct rte_mempool *mp)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	const struct rte_memzone *mz;
	struct refnic_rx_queue *rxq;
	struct rte_mbuf **sw_ring;
	uint32_t buf_size;
	uint64_t offloads, ts_flag = 0;
	int ret, ts_offset = -1;

	ret = ring_size_check(ad, "RX", qid, nb_desc);
	if (ret != 0)
		return ret;
	buf_size = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;
	if (rte_pktmbuf_data_room_size(mp) < RTE_PKTMBUF_HEADROOM ||
	    buf_size < ad->ident.min_rx_buf_size) {
		PMD_DRV_LOG(ERR, "RX queue %u: mempool %s buffers hold %u bytes, "
			    "the device needs at least %u", qid, mp->name,
			    rte_pktmbuf_data_room_size(mp), ad->ident.min_rx_buf_size +
			    RTE_PKTMBUF_HEADROOM);
		return -EINVAL;
	}
	offloads = conf->offloads | dev->data->dev_conf.rxmode.offloads;
	/* RX timestamps: the device's clock, once per process (the dynfield). */
	if (offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP) {
		ret = refnic_rx_tstamp_register(&ts_offset, &ts_flag);
		if (ret != 0)
			return ret;
	}
	refnic_rx_queue_release(dev, qid);

	/* With timestamps the completions are followed by one stamp each. */
	rxq = queue_mem_alloc(dev, "rx_ring", qid, nb_desc, sizeof(*rxq),
			      sizeof(struct refnic_rx_desc) + sizeof(struct refnic_rx_cpl) +
			      ((offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP) ? sizeof(uint64_t) : 0),
			      socket_id, &sw_ring, &mz);
	if (rxq == NULL)
		return -ENOMEM;
	rxq->sw_ring = sw_ring;
	rxq->mz = mz;
	rxq->ring = rxq->mz->addr;
	rxq->cq = RTE_PTR_ADD(rxq->mz->addr, nb_desc * sizeof(*rxq->ring));
	if (offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP)
		rxq->stamps = (uint64_t *)(rxq->cq + nb_desc);
	rxq->ts_offset = ts_offset;
	rxq->ts_flag = ts_flag;
	rxq->tail_reg = REFNIC_REG_RXQ(qid) + REFNIC_Q_TAIL;
	rxq->size = nb_desc;
	rxq->mask = nb_desc - 1;
	rxq->free_thresh = free_thresh_get(conf->rx_free_thresh,
					   REFNIC_DEFAULT_RX_FREE_THRESH, nb_desc);
	rxq->buf_size = RTE_MIN(buf_size, (uint32_t)UINT16_MAX);
	rxq->mp = mp;
	rxq->buf_offset = refnic_rx_buf_offset(mp);
	rxq->qid = qid;
	rxq->port_id = dev->data->port_id;
	rxq->mbuf_initializer = refnic_rx_mbuf_initializer(rxq->port_id);
	rxq->offloads = offloads;
	refnic_rx_ol_flags_tbl_init(rxq);
	rxq->ptype_mask = refnic_adapter(dev)->ptype_mask;
	rxq->deferred_start = conf->rx_deferred_start;
	refnic_queue_stats_join(dev, false, qid, rxq, &rxq->stats_base);
	return 0;
}

/* What tx_prepare and the burst check a packet against: the device's word. */
static void
tx_queue_limits(const struct refnic_adapter *ad, struct refnic_tx_queue *txq)
{
	txq->max_segs = ad->ident.max_tx_segs;
	/* TX_IPV4/IPV6 only describe the packet for the offloads. */
	txq->tx_ol_ok = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6;
	if (ad->ident.caps & REFNIC_CAP_PTP)
		txq->tx_ol_ok |= RTE_MBUF_F_TX_IEEE1588_TMST;
	if (ad->ident.caps & REFNIC_CAP_TX_CSUM)
		txq->tx_ol_ok |= RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK;
	if (ad->ident.caps & REFNIC_CAP_VLAN_INSERT)
		txq->tx_ol_ok |= RTE_MBUF_F_TX_VLAN;
	/*
	 * tx_prepare refuses TSO where the device has none; the burst trusts
	 * it as for the other offloads and bounds only what the ring holds,
	 * by the contract then: the device drops what it cannot segment.
	 */
	if (ad->ident.caps & REFNIC_CAP_TSO) {
		txq->tx_ol_ok |= RTE_MBUF_F_TX_TCP_SEG;
		txq->tso_max_segs = ad->ident.max_tso_segs;
		txq->tso_max_size = ad->ident.max_tso_size;
	} else {
		txq->tso_max_segs = REFNIC_MAX_TSO_SEGS;
		txq->tso_max_size = REFNIC_MAX_TSO_SIZE;
	}
	/* The context takes a descriptor too: the packet must fit the ring. */
	txq->tso_max_segs = RTE_MIN(txq->tso_max_segs, txq->mask - 1);
}

int
refnic_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		      unsigned int socket_id, const struct rte_eth_txconf *conf)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	const struct rte_memzone *mz;
	struct refnic_tx_queue *txq;
	struct rte_mbuf **sw_ring;
	int ret;

	ret = ring_size_check(ad, "TX", qid, nb_desc);
	if (ret != 0)
		return ret;
	refnic_tx_queue_release(dev, qid);

	txq = queue_mem_alloc(dev, "tx_ring", qid, nb_desc, sizeof(*txq),
			      sizeof(struct refnic_tx_desc) + sizeof(struct refnic_tx_cpl),
			      socket_id, &sw_ring, &mz);
	if (txq == NULL)
		return -ENOMEM;
	txq->sw_ring = sw_ring;
	txq->mz = mz;
	txq->ring = txq->mz->addr;
	txq->cq = RTE_PTR_ADD(txq->mz->addr, nb_desc * sizeof(*txq->ring));
	txq->tail_reg = REFNIC_REG_TXQ(qid) + REFNIC_Q_TAIL;
	txq->size = nb_desc;
	txq->mask = nb_desc - 1;
	txq->free_thresh = free_thresh_get(conf->tx_free_thresh,
					   REFNIC_DEFAULT_TX_FREE_THRESH, nb_desc);
	tx_queue_limits(ad, txq);
	txq->push_reg = REFNIC_PUSH_LINE(qid);
	txq->qid = qid;
	txq->port_id = dev->data->port_id;
	txq->offloads = conf->offloads | dev->data->dev_conf.txmode.offloads;
	txq->deferred_start = conf->tx_deferred_start;
	refnic_queue_stats_join(dev, true, qid, txq, &txq->stats_base);
	return 0;
}

/* With intr_conf.rxq the queue pair's vector may be armed (refnic_intr.c). */
static int
queue_create(struct rte_eth_dev *dev, uint8_t type, uint16_t qid, uint16_t size,
	     rte_iova_t ring_iova, rte_iova_t cq_iova, uint16_t rx_buf_size, uint16_t flags)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_admin_cmd cmd = {
		.opcode = REFNIC_ADMIN_QUEUE_CREATE,
		.qcreate = {
			.type = type,
			.qid = qid,
			.ring_size = size,
			.vector = REFNIC_QUEUE_VECTOR(qid),
			.ring_iova = ring_iova,
			.cq_iova = cq_iova,
			.rx_buf_size = rx_buf_size,
			.flags = flags |
				 (dev->data->dev_conf.intr_conf.rxq ? REFNIC_QCREATE_INTR : 0),
		},
	};
	int ret = refnic_admin_exec(ad, &cmd, NULL);

	if (ret == 0)
		refnic_itr_apply(ad, qid);
	return ret;
}

static int
queue_destroy(struct refnic_adapter *ad, uint8_t type, uint16_t qid)
{
	struct refnic_admin_cmd cmd = {
		.opcode = REFNIC_ADMIN_QUEUE_DESTROY,
		.qdestroy = { .type = type, .qid = qid },
	};

	return refnic_admin_exec(ad, &cmd, NULL);
}

/*
 * Completions in a ring of their own (the default), or written back into
 * the descriptors (refnic_hw.h) with rx_wb=on, which needs the device's
 * REFNIC_CAP_RX_WB. Written back saves L1 misses but cost two processes'
 * round trips 1.4x (doc/guides/nics/perf.md): not the default.
 */
static int
rx_wb_choose(struct rte_eth_dev *dev, const struct refnic_rx_queue *rxq, bool *wb)
{
	const struct refnic_adapter *ad = refnic_adapter(dev);

	*wb = ad->args.rx_wb == REFNIC_RX_WB_ON;
	if (*wb && !(ad->ident.caps & REFNIC_CAP_RX_WB)) {
		PMD_DRV_LOG(ERR, "port %u RX queue %u: %s=on, but the device does not "
			    "write completions back (no REFNIC_CAP_RX_WB)",
			    dev->data->port_id, rxq->qid, REFNIC_ARG_RX_WB);
		return -ENOTSUP;
	}
	return 0;
}

int
refnic_rx_queue_hw_start(struct rte_eth_dev *dev, struct refnic_rx_queue *rxq)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	/* The memzone: descriptors, a completion ring's room, stamps. */
	size_t ring_len = rxq->size * sizeof(*rxq->ring);
	size_t cq_len = rxq->size * sizeof(*rxq->cq);
	rte_iova_t cq_iova = rxq->mz->iova + ring_len;
	uint16_t flags = rxq->stamps != NULL ? REFNIC_QCREATE_RX_TSTAMP : 0;
	bool wb;
	int ret;

	ret = rx_wb_choose(dev, rxq, &wb);
	if (ret != 0)
		return ret;
	/* Written back: no slot says done before the device writes it. */
	memset(rxq->mz->addr, 0, ring_len + cq_len +
	       (rxq->stamps != NULL ? rxq->size * sizeof(*rxq->stamps) : 0));
	rxq->cq = wb ? (struct refnic_rx_cpl *)rxq->ring : RTE_PTR_ADD(rxq->mz->addr, ring_len);
	rxq->lap_flip = wb ? 0 : REFNIC_PHASE_BIT;
	if (wb) {
		flags |= REFNIC_QCREATE_RX_WB;
		cq_iova += cq_len;	/* the stamps, if any */
	}
	rxq->next = 0;
	rxq->tail = 0;
	rxq->phase = REFNIC_PHASE_BIT;
	/* The bursts read it lock-free (refnic_burst_enter()). */
	__atomic_store_n(&rxq->broken, false, __ATOMIC_RELAXED);
	__atomic_store_n(&rxq->started, false, __ATOMIC_RELEASE);
	ret = queue_create(dev, REFNIC_QTYPE_RX, rxq->qid, rxq->size, rxq->mz->iova,
			   cq_iova, rxq->buf_size, flags);
	if (ret != 0)
		return ret;
	if (refnic_rx_refill(rxq) == 0) {
		PMD_DRV_LOG(ERR, "port %u RX queue %u: mempool %s has no mbufs for %u buffers",
			    rxq->port_id, rxq->qid, rxq->mp->name, rxq->mask);
		queue_destroy(ad, REFNIC_QTYPE_RX, rxq->qid);
		return -ENOMEM;
	}
	__atomic_fetch_add(&rxq->starts, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&rxq->started, true, __ATOMIC_RELEASE);
	dev->data->rx_queue_state[rxq->qid] = RTE_ETH_QUEUE_STATE_STARTED;
	return 0;
}

int
refnic_tx_queue_hw_start(struct rte_eth_dev *dev, struct refnic_tx_queue *txq)
{
	int ret;

	tx_queue_limits(refnic_adapter(dev), txq);	/* a reset re-identified it */
	memset(txq->cq, 0, txq->size * sizeof(*txq->cq));
	txq->tail = 0;
	txq->clean = 0;
	txq->cq_head = 0;
	txq->hw_head = 0;
	txq->nb_free = txq->mask;
	txq->fast_pool = NULL;	/* the application may send from another pool now */
	txq->phase = REFNIC_PHASE_BIT;
	/* The bursts read it lock-free (refnic_burst_enter()). */
	__atomic_store_n(&txq->broken, false, __ATOMIC_RELAXED);
	ret = queue_create(dev, REFNIC_QTYPE_TX, txq->qid, txq->size, txq->mz->iova,
			   txq->mz->iova + txq->size * sizeof(*txq->ring), 0, 0);
	if (ret != 0)
		return ret;
	__atomic_fetch_add(&txq->starts, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&txq->started, true, __ATOMIC_RELEASE);
	dev->data->tx_queue_state[txq->qid] = RTE_ETH_QUEUE_STATE_STARTED;
	return 0;
}

int
refnic_rx_queue_hw_stop(struct rte_eth_dev *dev, struct refnic_rx_queue *rxq)
{
	__atomic_store_n(&rxq->started, false, __ATOMIC_RELEASE);
	dev->data->rx_queue_state[rxq->qid] = RTE_ETH_QUEUE_STATE_STOPPED;
	return queue_destroy(refnic_adapter(dev), REFNIC_QTYPE_RX, rxq->qid);
}

int
refnic_tx_queue_hw_stop(struct rte_eth_dev *dev, struct refnic_tx_queue *txq)
{
	__atomic_store_n(&txq->started, false, __ATOMIC_RELEASE);
	dev->data->tx_queue_state[txq->qid] = RTE_ETH_QUEUE_STATE_STOPPED;
	return queue_destroy(refnic_adapter(dev), REFNIC_QTYPE_TX, txq->qid);
}

/*
 * Only once the device no longer DMAs into the queue's buffers. The frames
 * the device completed and the application never got are counted
 * (ring_discards): the device counted them received (ipackets).
 */
void
refnic_rx_queue_free_mbufs(struct refnic_rx_queue *rxq)
{
	uint16_t i;

	REFNIC_STAT_ADD(rxq->stats.ring_discards, refnic_rx_undelivered(rxq));
	for (i = 0; i < rxq->size; i++) {
		if (rxq->sw_ring[i] != NULL) {
			rte_pktmbuf_free_seg(rxq->sw_ring[i]);
			rxq->sw_ring[i] = NULL;
		}
	}
	if (rxq->pkt_first != NULL) {
		rte_pktmbuf_free(rxq->pkt_first);
		rxq->pkt_first = NULL;
		rxq->pkt_last = NULL;
	}
	rxq->next = rxq->tail;		/* nothing posted */
}

/* The packets taken and never sent are counted (ring_discards, oerrors). */
void
refnic_tx_queue_free_mbufs(struct refnic_tx_queue *txq)
{
	uint16_t i;

	REFNIC_STAT_ADD(txq->stats.ring_discards, refnic_tx_unsent(txq));
	for (i = 0; i < txq->size; i++) {
		if (txq->sw_ring[i] != NULL) {
			rte_pktmbuf_free_seg(txq->sw_ring[i]);
			txq->sw_ring[i] = NULL;
		}
	}
	txq->clean = txq->hw_head = txq->tail;	/* nothing in flight */
	txq->nb_free = txq->mask;
}

/*
 * Per-queue start and stop (rte_eth_dev_rx_queue_start() and friends). A
 * queue the device did not confirm stopping may still be written: only a
 * device reset makes its buffers safe to free (refnic_quiesce()). They run
 * on the application's thread while the doorbell check may be reading the
 * queue on EAL's: its lock keeps the check off a queue being rewritten
 * (refnic_db_check.queue_lock).
 */
int
refnic_rx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	rte_spinlock_t *lock = &refnic_adapter(dev)->db.queue_lock;
	int ret;

	rte_spinlock_lock(lock);
	ret = refnic_rx_queue_hw_start(dev, dev->data->rx_queues[qid]);
	rte_spinlock_unlock(lock);
	return ret;
}

int
refnic_rx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	struct refnic_rx_queue *rxq = dev->data->rx_queues[qid];
	rte_spinlock_t *lock = &refnic_adapter(dev)->db.queue_lock;
	int ret;

	rte_spinlock_lock(lock);
	ret = refnic_rx_queue_hw_stop(dev, rxq);
	if (ret != 0)
		refnic_quiesce(dev);
	if (!refnic_adapter(dev)->dma_unsafe)
		refnic_rx_queue_free_mbufs(rxq);
	rte_spinlock_unlock(lock);
	return ret;
}

int
refnic_tx_queue_start(struct rte_eth_dev *dev, uint16_t qid)
{
	rte_spinlock_t *lock = &refnic_adapter(dev)->db.queue_lock;
	int ret;

	rte_spinlock_lock(lock);
	ret = refnic_tx_queue_hw_start(dev, dev->data->tx_queues[qid]);
	rte_spinlock_unlock(lock);
	return ret;
}

int
refnic_tx_queue_stop(struct rte_eth_dev *dev, uint16_t qid)
{
	struct refnic_tx_queue *txq = dev->data->tx_queues[qid];
	rte_spinlock_t *lock = &refnic_adapter(dev)->db.queue_lock;
	int ret;

	rte_spinlock_lock(lock);
	ret = refnic_tx_queue_hw_stop(dev, txq);
	if (ret != 0)
		refnic_quiesce(dev);
	if (!refnic_adapter(dev)->dma_unsafe)
		refnic_tx_queue_free_mbufs(txq);
	rte_spinlock_unlock(lock);
	return ret;
}

void
refnic_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_rxq_info *qinfo)
{
	struct refnic_rx_queue *rxq = dev->data->rx_queues[qid];

	qinfo->mp = rxq->mp;
	qinfo->scattered_rx = rxq->scatter;
	qinfo->nb_desc = rxq->size;
	qinfo->rx_buf_size = rxq->buf_size;
	qinfo->queue_state = dev->data->rx_queue_state[qid];
	qinfo->conf.rx_free_thresh = rxq->free_thresh;
	qinfo->conf.rx_deferred_start = rxq->deferred_start;
	qinfo->conf.offloads = rxq->offloads;
}

void
refnic_txq_info_get(struct rte_eth_dev *dev, uint16_t qid, struct rte_eth_txq_info *qinfo)
{
	struct refnic_tx_queue *txq = dev->data->tx_queues[qid];

	qinfo->nb_desc = txq->size;
	qinfo->queue_state = dev->data->tx_queue_state[qid];
	qinfo->conf.tx_free_thresh = txq->free_thresh;
	qinfo->conf.tx_deferred_start = txq->deferred_start;
	qinfo->conf.offloads = txq->offloads;
}
