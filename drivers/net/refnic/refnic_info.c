/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * What a user asks of the PMD about its state: the private dump
 * (rte_eth_dev_priv_dump(), telemetry's /ethdev/dump_priv) and the burst
 * mode of each queue (testpmd's "show rxq info", "show txq info").
 * Read-only: registers read through the BAR, the driver's own structures.
 */

#include <inttypes.h>
#include <stdio.h>

#include "refnic.h"
#include "refnic_rxtx.h"

static const char *
queue_state(bool started, bool deferred)
{
	if (started)
		return "started";
	return deferred ? "stopped (deferred start)" : "stopped";
}

int
refnic_dev_priv_dump(struct rte_eth_dev *dev, FILE *f)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	const struct refnic_admin *aq = &ad->admin;
	uint32_t status = refnic_reg_read(&ad->hw, REFNIC_REG_STATUS);
	char policy[64];
	uint16_t q;

	refnic_poll_policy_format(&aq->policy, policy, sizeof(policy));
	fprintf(f, "refnic port %u (%s)\n", dev->data->port_id, dev->data->name);
	fprintf(f, "device: version 0x%08x, status 0x%08x (state %u, link %s%s), "
		"resets %u\n",
		refnic_reg_read(&ad->hw, REFNIC_REG_VERSION), status,
		status & REFNIC_STATUS_STATE_MASK,
		status & REFNIC_STATUS_LINK_UP ? "up" : "down",
		status & REFNIC_STATUS_FATAL ? ", FATAL" : "",
		refnic_reg_read(&ad->hw, REFNIC_REG_RESET_GEN));
	fprintf(f, "driver: %s%s\n", ad->failed ? "failed (needs reset)" : "ok",
		ad->dma_unsafe ? ", DMA unsafe" : "");
	fprintf(f, "admin: admin_poll=%s, timeout %u us, commands %" PRIu64
		", polls %" PRIu64 ", wait %" PRIu64 " us; reset wait %" PRIu64 " us\n",
		policy, aq->timeout_us, aq->stats.commands, aq->stats.polls,
		aq->stats.wait_us, ad->reset_stats.wait_us);
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		const struct refnic_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq == NULL)
			continue;
		fprintf(f, "rxq %u: %s%s, %u descriptors, next %u, tail %u, phase %u, "
			"free threshold %u, buffer %u, packets %" PRIu64 ", bytes %" PRIu64
			", errors %" PRIu64 ", nombuf %" PRIu64 "\n",
			q, queue_state(rxq->started, rxq->deferred_start),
			rxq->broken ? ", broken" : "", rxq->size, rxq->next, rxq->tail,
			rxq->phase, rxq->free_thresh, rxq->buf_size, rxq->stats.packets,
			rxq->stats.bytes, rxq->stats.errors, rxq->stats.nombuf);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		const struct refnic_tx_queue *txq = dev->data->tx_queues[q];

		if (txq == NULL)
			continue;
		fprintf(f, "txq %u: %s%s, %u descriptors, tail %u, clean %u, device head %u, "
			"free %u, free threshold %u, packets %" PRIu64 ", bytes %" PRIu64
			", errors %" PRIu64 "\n",
			q, queue_state(txq->started, txq->deferred_start),
			txq->broken ? ", broken" : "", txq->size, txq->tail, txq->clean,
			txq->hw_head, txq->nb_free, txq->free_thresh, txq->stats.packets,
			txq->stats.bytes, txq->stats.errors);
	}
	return 0;
}

/* One burst function each way, scalar; Rx assembles multi-segment frames
 * only on queues with the scatter offload. */
int
refnic_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			 struct rte_eth_burst_mode *mode)
{
	const struct refnic_rx_queue *rxq = dev->data->rx_queues[qid];

	if (dev->rx_pkt_burst != refnic_recv_pkts || rxq == NULL)
		return -EINVAL;
	mode->flags = 0;
	snprintf(mode->info, sizeof(mode->info), "Scalar%s",
		 rxq->offloads & RTE_ETH_RX_OFFLOAD_SCATTER ? " Scattered" : "");
	return 0;
}

int
refnic_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			 struct rte_eth_burst_mode *mode)
{
	if (dev->tx_pkt_burst != refnic_xmit_pkts || dev->data->tx_queues[qid] == NULL)
		return -EINVAL;
	mode->flags = 0;
	snprintf(mode->info, sizeof(mode->info), "Scalar");
	return 0;
}
