/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The port's counters (rte_eth_stats here; xstats and telemetry read the
 * same copies), from the probe or the last stats reset, and on across
 * everything else the port goes through, so that a tool computing rates
 * never sees one go back and every frame lost stays counted:
 *  - the device's own (STATS_GET) run from its creation: a recovery and
 *    rte_eth_dev_reset() keep the port's baseline, so what the device
 *    counted while the driver could not ask it (a failed port, until the
 *    application resets it) shows in the first read once it answers;
 *    meanwhile its last answer stands;
 *  - the queues' own (bad completions, mbuf shortages, frames freed from a
 *    ring undelivered, TX paths) live in the queue structs, written by
 *    their lcore: a queue released (rte_eth_dev_reset(), a new setup,
 *    fewer queues configured) leaves what it counted to the next queue set
 *    up with its id, or to the port's totals while there is none.
 */

#include "refnic.h"
#include "refnic_rxtx.h"

void
refnic_hw_stats_rebase(struct refnic_adapter *ad, bool go_on)
{
	const uint64_t *now = (const uint64_t *)&ad->hw_stats;
	uint64_t *base = (uint64_t *)&ad->hw_stats_base;
	size_t w;

	/* A counter the device set back (against its contract: only
	 * STATS_CLEAR does, which the driver never sends) starts over from
	 * its new value rather than wrap. */
	for (w = 0; w < sizeof(ad->hw_stats) / sizeof(*now); w++)
		if (!go_on || now[w] < base[w])
			base[w] = now[w];
}

/*
 * Queue id q's counts go on in the queue taking its place: a new queue's
 * counters start at 0, so its base is what its predecessors counted, taken
 * away (unsigned: stats - base is then their counts plus its own).
 */
static void
queue_stats_take_over(struct refnic_queue_stats *carry, struct refnic_queue_stats *base)
{
	const uint64_t *c = (const uint64_t *)carry;
	uint64_t *b = (uint64_t *)base;
	unsigned int i;

	for (i = 0; i < sizeof(*base) / sizeof(*b); i++)
		b[i] = -c[i];
	memset(carry, 0, sizeof(*carry));
}

/* The queue (an RX one, or TX) takes its slot in the port. */
void
refnic_queue_stats_join(struct rte_eth_dev *dev, bool tx, uint16_t qid, void *queue,
			struct refnic_queue_stats *base)
{
	struct refnic_adapter *ad = refnic_adapter(dev);

	pthread_mutex_lock(&ad->stats_lock);
	queue_stats_take_over(tx ? &ad->txq_carry[qid] : &ad->rxq_carry[qid], base);
	(tx ? dev->data->tx_queues : dev->data->rx_queues)[qid] = queue;
	pthread_mutex_unlock(&ad->stats_lock);
}

/* Under the stats lock, so that no reader finds the queue half gone. */
void
refnic_queue_stats_leave(struct rte_eth_dev *dev, bool tx, uint16_t qid,
			 const struct refnic_queue_stats *stats,
			 const struct refnic_queue_stats *base)
{
	struct refnic_adapter *ad = refnic_adapter(dev);

	pthread_mutex_lock(&ad->stats_lock);
	refnic_queue_stats_read(stats, base, tx ? &ad->txq_carry[qid] : &ad->rxq_carry[qid]);
	(tx ? dev->data->tx_queues : dev->data->rx_queues)[qid] = NULL;
	pthread_mutex_unlock(&ad->stats_lock);
}

void
refnic_queue_counts(const struct rte_eth_dev *dev, uint16_t q, bool tx,
		    struct refnic_queue_stats *out)
{
	const struct refnic_adapter *ad = refnic_adapter(dev);
	const struct refnic_tx_queue *txq = NULL;
	const struct refnic_rx_queue *rxq = NULL;

	if (tx && q < dev->data->nb_tx_queues)
		txq = dev->data->tx_queues[q];
	else if (!tx && q < dev->data->nb_rx_queues)
		rxq = dev->data->rx_queues[q];
	if (txq != NULL)
		refnic_queue_stats_read(&txq->stats, &txq->stats_base, out);
	else if (rxq != NULL)
		refnic_queue_stats_read(&rxq->stats, &rxq->stats_base, out);
	else
		*out = tx ? ad->txq_carry[q] : ad->rxq_carry[q];
}

/*
 * Packets and bytes are the device's own counts, taken at the MAC as real
 * NICs report them (a frame waiting in an RX ring has been received); a
 * device without counters (caps_off=stats_dma) leaves them to the queues.
 * The port's totals take every queue id the device has, configured now or
 * not; the first RTE_ETHDEV_QUEUE_STAT_CNTRS configured queues' counts go
 * to qstats, if given.
 */
int
refnic_stats_fill(struct rte_eth_dev *dev, struct rte_eth_stats *stats,
		  struct refnic_qstats *qstats)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	const struct refnic_hw_queue_stats *cur = ad->hw_stats.q, *base = ad->hw_stats_base.q;
	struct refnic_queue_stats sw;
	uint64_t pkts, bytes;
	uint16_t q;
	bool hw;

	/* A secondary asks the primary (refnic_mp.c), which runs this. */
	pthread_mutex_lock(&ad->stats_lock);
	/* Under the lock: a recovery identifies the device again under it. */
	hw = refnic_has_hw_stats(ad);
	/* A refused reply, or a failed port, leaves the last good counts. */
	if (!refnic_port_failed(ad))
		refnic_fetch_hw_stats(ad);

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		refnic_queue_counts(dev, q, false, &sw);
		pkts = hw ? cur[q].rx_packets - base[q].rx_packets : sw.packets;
		bytes = hw ? cur[q].rx_bytes - base[q].rx_bytes : sw.bytes;
		stats->ipackets += pkts;
		stats->ibytes += bytes;
		stats->ierrors += sw.errors;
		stats->rx_nombuf += sw.nombuf;
		if (hw)
			stats->imissed += cur[q].rx_no_buffer - base[q].rx_no_buffer;
		if (qstats != NULL && q < dev->data->nb_rx_queues &&
		    q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			qstats->q_ipackets[q] = pkts;
			qstats->q_ibytes[q] = bytes;
			qstats->q_errors[q] = sw.errors;
		}
	}
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		refnic_queue_counts(dev, q, true, &sw);
		pkts = hw ? cur[q].tx_packets - base[q].tx_packets : sw.packets;
		bytes = hw ? cur[q].tx_bytes - base[q].tx_bytes : sw.bytes;
		stats->opackets += pkts;
		stats->obytes += bytes;
		/* Taken and never sent: freed from the ring at a stop or recovery. */
		stats->oerrors += sw.errors + sw.ring_discards;
		if (hw)
			stats->oerrors += cur[q].tx_malformed - base[q].tx_malformed;
		if (qstats != NULL && q < dev->data->nb_tx_queues &&
		    q < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			qstats->q_opackets[q] = pkts;
			qstats->q_obytes[q] = bytes;
		}
	}
	pthread_mutex_unlock(&ad->stats_lock);
	return 0;
}

/*
 * Everything from here on: the queues' counts and what released queues
 * left, and the device's from its answer now; on a failed port, from its
 * last answer (what it counts meanwhile shows once it answers again).
 */
int
refnic_stats_reset(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	uint16_t q;

	pthread_mutex_lock(&ad->stats_lock);
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct refnic_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq != NULL)
			refnic_queue_stats_read(&rxq->stats, NULL, &rxq->stats_base);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		struct refnic_tx_queue *txq = dev->data->tx_queues[q];

		if (txq != NULL)
			refnic_queue_stats_read(&txq->stats, NULL, &txq->stats_base);
	}
	memset(ad->rxq_carry, 0, sizeof(ad->rxq_carry));
	memset(ad->txq_carry, 0, sizeof(ad->txq_carry));
	if (!refnic_port_failed(ad))
		refnic_fetch_hw_stats_baseline(ad);
	ad->hw_stats_base = ad->hw_stats;
	pthread_mutex_unlock(&ad->stats_lock);
	return 0;
}
