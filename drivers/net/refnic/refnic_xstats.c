/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Extended statistics. Each counter is defined once (name + where its value
 * lives), and names and values are produced by the same walk, so they line
 * up by id. Device counters come from the device itself (admin STATS_GET),
 * relative to the last stats reset (refnic_stats.c says across what they
 * go on); admin_* are the driver's own measurements.
 */

#include <stdio.h>

#include "refnic.h"
#include "refnic_rxtx.h"

/* Port-wide counters, gathered into one struct before they are emitted. */
struct refnic_port_xstats {
	uint64_t tx_doorbell_writes;
	uint64_t rx_doorbell_writes;
	uint64_t admin_commands;
	uint64_t admin_polls;
	uint64_t admin_wait_us;
	uint64_t reset_wait_us;
	uint64_t rx_no_buffer;
	uint64_t rx_missed_while_held;
	uint64_t rx_filtered;
	uint64_t rx_oversize;
	uint64_t tx_malformed;
	uint64_t dma_errors;
	uint64_t cable_tx_dropped;
	uint64_t cable_rx_dropped;
	uint64_t cable_rx_foreign;
	uint64_t cable_rx_truncated;
	uint64_t cable_rx_bad_header;
	uint64_t cable_rx_bad_vni;
	uint64_t cable_rx_oversize;
	uint64_t cable_tx_oversize;
	uint64_t device_resets;
	uint64_t rx_interrupts;
	uint64_t tx_interrupts;
	uint64_t queue_errors;
	uint64_t recoveries;
	uint64_t recovery_failures;
	uint64_t reset_requests;
	uint64_t admin_reply_errors;
	uint64_t doorbells_dropped;
	uint64_t missed_doorbell_recoveries;
	uint64_t doorbell_checks;
	uint64_t tx_push_packets;
	uint64_t tx_fetch_packets;
	uint64_t tx_tso_packets;
	uint64_t tx_tso_segments;
};

struct refnic_xstat_def {
	const char *name;
	size_t offset;
};

#define PORT_XSTAT(field) { #field, offsetof(struct refnic_port_xstats, field) }
static const struct refnic_xstat_def port_xstats[] = {
	PORT_XSTAT(tx_doorbell_writes),
	PORT_XSTAT(rx_doorbell_writes),
	PORT_XSTAT(admin_commands),
	PORT_XSTAT(admin_polls),
	PORT_XSTAT(admin_wait_us),
	PORT_XSTAT(reset_wait_us),
	PORT_XSTAT(rx_no_buffer),
	PORT_XSTAT(rx_missed_while_held),
	PORT_XSTAT(rx_filtered),
	PORT_XSTAT(rx_oversize),
	PORT_XSTAT(tx_malformed),
	PORT_XSTAT(dma_errors),
	PORT_XSTAT(cable_tx_dropped),
	PORT_XSTAT(cable_rx_dropped),
	PORT_XSTAT(cable_rx_foreign),
	PORT_XSTAT(cable_rx_truncated),
	PORT_XSTAT(cable_rx_bad_header),
	PORT_XSTAT(cable_rx_bad_vni),
	PORT_XSTAT(cable_rx_oversize),
	PORT_XSTAT(cable_tx_oversize),
	PORT_XSTAT(device_resets),
	PORT_XSTAT(rx_interrupts),
	PORT_XSTAT(tx_interrupts),
	PORT_XSTAT(queue_errors),
	PORT_XSTAT(recoveries),
	PORT_XSTAT(recovery_failures),
	PORT_XSTAT(reset_requests),
	PORT_XSTAT(admin_reply_errors),
	PORT_XSTAT(doorbells_dropped),
	PORT_XSTAT(missed_doorbell_recoveries),
	PORT_XSTAT(doorbell_checks),
	PORT_XSTAT(tx_push_packets),
	PORT_XSTAT(tx_fetch_packets),
	PORT_XSTAT(tx_tso_packets),
	PORT_XSTAT(tx_tso_segments),
};

/* Per queue, straight from the device's per-queue counters... */
#define QUEUE_XSTAT(name, field) { name, offsetof(struct refnic_hw_queue_stats, field) }
/* ...but for the interval the queue's interrupts run with, the re-rings
 * of the doorbell check and the frames freed from its ring undelivered,
 * the driver's. */
#define QUEUE_ITR_US		SIZE_MAX
#define QUEUE_DB_RECOVERIES	(SIZE_MAX - 1)
#define QUEUE_RING_DISCARDS	(SIZE_MAX - 2)
#define QUEUE_DRIVER_XSTAT(offset)	((offset) >= QUEUE_RING_DISCARDS)
static const struct refnic_xstat_def rxq_xstats[] = {
	QUEUE_XSTAT("doorbell_writes", rx_doorbells),
	QUEUE_XSTAT("no_buffer", rx_no_buffer),
	QUEUE_XSTAT("missed_while_held", rx_missed_while_held),
	QUEUE_XSTAT("interrupts", rx_interrupts),
	{ "itr_us", QUEUE_ITR_US },
	{ "missed_doorbell_recoveries", QUEUE_DB_RECOVERIES },
	{ "ring_discards", QUEUE_RING_DISCARDS },
};
static const struct refnic_xstat_def txq_xstats[] = {
	QUEUE_XSTAT("doorbell_writes", tx_doorbells),
	QUEUE_XSTAT("malformed", tx_malformed),
	QUEUE_XSTAT("interrupts", tx_interrupts),
	{ "itr_us", QUEUE_ITR_US },
	{ "missed_doorbell_recoveries", QUEUE_DB_RECOVERIES },
	{ "ring_discards", QUEUE_RING_DISCARDS },
};

static unsigned int
refnic_xstats_count(const struct rte_eth_dev *dev)
{
	return RTE_DIM(port_xstats) + dev->data->nb_rx_queues * RTE_DIM(rxq_xstats) +
	       dev->data->nb_tx_queues * RTE_DIM(txq_xstats);
}

static uint64_t
field(const void *base, size_t offset)
{
	return *(const uint64_t *)RTE_PTR_ADD(base, offset);
}

/* Device counter since the last reset. */
static uint64_t
hw_delta(const struct refnic_adapter *ad, const void *cur, size_t offset)
{
	size_t at = RTE_PTR_DIFF(cur, &ad->hw_stats) + offset;

	return field(&ad->hw_stats, at) - field(&ad->hw_stats_base, at);
}

/* Frames freed from queue q's ring undelivered, since the last reset. */
static uint64_t
queue_ring_discards(const struct rte_eth_dev *dev, uint16_t q, bool tx)
{
	struct refnic_queue_stats sw;

	refnic_queue_counts(dev, q, tx, &sw);
	return sw.ring_discards;
}

static uint64_t
queue_xstat(const struct rte_eth_dev *dev, uint16_t q, bool tx, size_t offset)
{
	const struct refnic_adapter *ad = refnic_adapter(dev);

	if (offset == QUEUE_RING_DISCARDS)
		return queue_ring_discards(dev, q, tx);
	if (offset == QUEUE_ITR_US)
		return refnic_itr_current(ad, q, tx);
	if (offset == QUEUE_DB_RECOVERIES)
		return refnic_db_queue_recoveries(ad, q, tx);
	return hw_delta(ad, &ad->hw_stats.q[q], offset);
}

void
refnic_queue_hw_counters(const struct refnic_adapter *ad, uint16_t q, bool tx,
			 struct refnic_state_sink *s)
{
	const struct refnic_xstat_def *defs = tx ? txq_xstats : rxq_xstats;
	unsigned int i, n = tx ? RTE_DIM(txq_xstats) : RTE_DIM(rxq_xstats);

	for (i = 0; i < n; i++)
		if (!QUEUE_DRIVER_XSTAT(defs[i].offset))
			s->u64(s, defs[i].name, hw_delta(ad, &ad->hw_stats.q[q], defs[i].offset));
}

static void
port_xstats_gather(const struct rte_eth_dev *dev, const struct refnic_admin_stats *admin,
		   const struct refnic_admin_stats *reset, struct refnic_port_xstats *x)
{
	const struct refnic_adapter *ad = refnic_adapter(dev);
	const struct refnic_hw_stats *s = &ad->hw_stats, *b = &ad->hw_stats_base;
	unsigned int q;

	memset(x, 0, sizeof(*x));
	/* Which TX path each packet took is the driver's own count, as are
	 * TSO packets and the frames the device was asked to cut them into. */
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		struct refnic_queue_stats sw;

		refnic_queue_counts(dev, q, true, &sw);
		x->tx_push_packets += sw.push;
		x->tx_fetch_packets += sw.packets - sw.push;
		x->tx_tso_packets += sw.tso;
		x->tx_tso_segments += sw.tso_segs;
	}
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		x->tx_doorbell_writes += s->q[q].tx_doorbells - b->q[q].tx_doorbells;
		x->rx_doorbell_writes += s->q[q].rx_doorbells - b->q[q].rx_doorbells;
		x->rx_no_buffer += s->q[q].rx_no_buffer - b->q[q].rx_no_buffer;
		x->rx_missed_while_held += s->q[q].rx_missed_while_held -
					   b->q[q].rx_missed_while_held;
		x->tx_malformed += s->q[q].tx_malformed - b->q[q].tx_malformed;
		x->rx_interrupts += s->q[q].rx_interrupts - b->q[q].rx_interrupts;
		x->tx_interrupts += s->q[q].tx_interrupts - b->q[q].tx_interrupts;
	}
	x->admin_commands = admin->commands;
	x->admin_polls = admin->polls;
	x->admin_wait_us = admin->wait_us;
	x->reset_wait_us = reset->wait_us;
	x->rx_filtered = s->rx_filtered - b->rx_filtered;
	x->rx_oversize = s->rx_oversize - b->rx_oversize;
	x->dma_errors = s->dma_errors - b->dma_errors;
	x->cable_tx_dropped = s->cable_tx_dropped - b->cable_tx_dropped;
	x->cable_rx_dropped = s->cable_rx_dropped - b->cable_rx_dropped;
	x->cable_rx_foreign = s->cable_rx_foreign - b->cable_rx_foreign;
	x->cable_rx_truncated = s->cable_rx_truncated - b->cable_rx_truncated;
	x->cable_rx_bad_header = s->cable_rx_bad_header - b->cable_rx_bad_header;
	x->cable_rx_bad_vni = s->cable_rx_bad_vni - b->cable_rx_bad_vni;
	x->cable_rx_oversize = s->cable_rx_oversize - b->cable_rx_oversize;
	x->cable_tx_oversize = s->cable_tx_oversize - b->cable_tx_oversize;
	x->device_resets = s->resets;	/* all of them: the port's own come first */
	x->queue_errors = __atomic_load_n(&ad->failure_stats.queue_errors, __ATOMIC_RELAXED);
	x->recoveries = __atomic_load_n(&ad->failure_stats.recoveries, __ATOMIC_RELAXED);
	x->recovery_failures = __atomic_load_n(&ad->failure_stats.recovery_failures,
					       __ATOMIC_RELAXED);
	x->reset_requests = __atomic_load_n(&ad->failure_stats.reset_requests,
					    __ATOMIC_RELAXED);
	x->admin_reply_errors = __atomic_load_n(&ad->failure_stats.reply_errors,
						__ATOMIC_RELAXED);
	x->doorbells_dropped = s->doorbells_dropped - b->doorbells_dropped;
	x->missed_doorbell_recoveries = refnic_db_recoveries(ad);
	x->doorbell_checks = refnic_db_checks(ad);
}

int
refnic_xstats_get_names(struct rte_eth_dev *dev, struct rte_eth_xstat_name *names,
			unsigned int n)
{
	unsigned int count = refnic_xstats_count(dev), i, q, id = 0;

	if (names == NULL || n < count)
		return count;
	for (i = 0; i < RTE_DIM(port_xstats); i++)
		strlcpy(names[id++].name, port_xstats[i].name, sizeof(names->name));
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		for (i = 0; i < RTE_DIM(rxq_xstats); i++)
			snprintf(names[id++].name, sizeof(names->name), "rx_q%u_%s",
				 q, rxq_xstats[i].name);
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		for (i = 0; i < RTE_DIM(txq_xstats); i++)
			snprintf(names[id++].name, sizeof(names->name), "tx_q%u_%s",
				 q, txq_xstats[i].name);
	return count;
}

int
refnic_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xstats, unsigned int n)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	unsigned int count = refnic_xstats_count(dev), i, q, id = 0;
	struct refnic_admin_stats admin, reset;	/* before our own command */
	struct refnic_port_xstats px;

	if (xstats == NULL || n < count)
		return count;
	refnic_admin_stats_read(ad, &admin, &reset);
	pthread_mutex_lock(&ad->stats_lock);
	/* A failed device keeps its last known counts; the admin ones go on. */
	if (!refnic_port_failed(ad))
		refnic_fetch_hw_stats(ad);
	port_xstats_gather(dev, &admin, &reset, &px);
	for (i = 0; i < RTE_DIM(port_xstats); i++, id++) {
		xstats[id].id = id;
		xstats[id].value = field(&px, port_xstats[i].offset);
	}
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		for (i = 0; i < RTE_DIM(rxq_xstats); i++, id++) {
			xstats[id].id = id;
			xstats[id].value = queue_xstat(dev, q, false, rxq_xstats[i].offset);
		}
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		for (i = 0; i < RTE_DIM(txq_xstats); i++, id++) {
			xstats[id].id = id;
			xstats[id].value = queue_xstat(dev, q, true, txq_xstats[i].offset);
		}
	pthread_mutex_unlock(&ad->stats_lock);
	return count;
}

int
refnic_xstats_reset(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);

	refnic_admin_stats_clear(ad);
	memset(&ad->failure_stats, 0, sizeof(ad->failure_stats));
	refnic_db_stats_reset(ad);
	return dev->dev_ops->stats_reset(dev);
}
