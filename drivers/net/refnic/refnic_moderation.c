/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Interrupt moderation: the interval between two interrupts of a queue
 * pair's vector, one per cause (RX, TX), programmed into the vector's
 * registers. Static (itr=static, rx_itr_us=, tx_itr_us=, or the
 * rte_pmd_refnic API), off, or adaptive (the default): in the spirit of
 * Linux's DIM, each time the application arms a queue to sleep, the packet
 * rate since the last decision picks the interval: none at low rate (an
 * interrupt per wake-up is cheap and every microsecond of delay is
 * latency), longer as the rate grows (the receiver wakes less often and
 * takes more per wake-up). It runs only where interrupts are armed, never
 * in the burst functions.
 *
 * Only the packet rate counts: the receiver's cost is per packet, and
 * without LRO/TSO a frame is at most a jumbo, so the byte rate adds no
 * signal of its own (DIM uses it against aggregated frames).
 */

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "refnic.h"
#include "refnic_rxtx.h"
#include "rte_pmd_refnic.h"

_Static_assert(RTE_PMD_REFNIC_ITR_MAX_US == REFNIC_ITR_MAX_US, "one limit, public and device");

/*
 * Rates (packets/s, below max_pps) and the interval each gets. A wake-up
 * costs the receiver about 11 us of CPU (bench.sh intr: 11% of a CPU at
 * 10k unmoderated interrupts/s), so below 20 kpps an interrupt per frame
 * costs under a quarter of a CPU and moderation would only add latency.
 */
static const struct {
	uint32_t max_pps;
	uint32_t itr_us;
} dim_levels[] = {
	{ 20000, 0 },
	{ 50000, 16 },
	{ 200000, 50 },
	{ 1000000, 100 },
	{ UINT32_MAX, 250 },
};

#define DIM_SAMPLE_US	1000	/* decide on rates seen over at least this long */

void
refnic_itr_init(struct refnic_adapter *ad)
{
	const struct refnic_itr_conf *conf = &ad->args.itr;
	bool adaptive = conf->mode == REFNIC_ITR_ADAPTIVE;
	bool off = conf->mode == REFNIC_ITR_OFF;
	uint16_t q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		struct refnic_queue_itr *itr = &ad->itr[q];

		rte_spinlock_init(&itr->lock);
		itr->rx.adaptive = adaptive;
		itr->tx.adaptive = adaptive;
		itr->rx.us = adaptive || off ? 0 : conf->rx_us;
		itr->tx.us = adaptive || off ? 0 : conf->tx_us;
		itr->rx.dim_level = 0;
		itr->tx.dim_level = 0;
		itr->rx.dim_tsc = 0;
		itr->tx.dim_tsc = 0;
	}
}

static bool
itr_supported(const struct refnic_adapter *ad)
{
	return ad->ident.caps & REFNIC_CAP_INTR_MODERATION;
}

/* Program queue pair q's vector: after its queues are created, and on change. */
void
refnic_itr_apply(struct refnic_adapter *ad, uint16_t q)
{
	uint32_t vec = REFNIC_REG_VEC(REFNIC_QUEUE_VECTOR(q));

	if (!itr_supported(ad) || refnic_port_failed(ad))
		return;
	refnic_reg_write(&ad->hw, vec + REFNIC_VEC_RX_ITR_US, ad->itr[q].rx.us);
	refnic_reg_write(&ad->hw, vec + REFNIC_VEC_TX_ITR_US, ad->itr[q].tx.us);
}

/* The interval for a rate: one level up at a time, down at once (latency first). */
static uint32_t
dim_decide(struct refnic_itr_cause *c, uint64_t pps, uint16_t ring_size)
{
	unsigned int target = 0;
	uint64_t ring_us;

	while (target < RTE_DIM(dim_levels) - 1 && pps >= dim_levels[target].max_pps)
		target++;
	if (target > c->dim_level)
		c->dim_level++;
	else
		c->dim_level = target;
	/* Never wait longer than half the ring takes to fill. */
	ring_us = pps != 0 ? (uint64_t)ring_size * US_PER_S / 2 / pps : UINT32_MAX;
	return RTE_MIN((uint64_t)dim_levels[c->dim_level].itr_us, ring_us);
}

/*
 * A queue is about to sleep: with adaptive moderation, pick its cause's
 * interval from the packets it moved since the last decision. Returns true
 * if the interval changed (the caller writes the vector).
 */
static bool
dim_sample(struct refnic_itr_cause *c, uint64_t packets, uint16_t ring_size)
{
	uint64_t now = rte_get_tsc_cycles(), hz = rte_get_tsc_hz();
	uint64_t dt = now - c->dim_tsc;
	uint32_t us;

	if (!c->adaptive)
		return false;
	if (c->dim_tsc == 0 || dt * US_PER_S < DIM_SAMPLE_US * hz) {
		if (c->dim_tsc == 0) {
			c->dim_tsc = now;
			c->dim_packets = packets;
		}
		return false;
	}
	us = dim_decide(c, (packets - c->dim_packets) * hz / dt, ring_size);
	c->dim_tsc = now;
	c->dim_packets = packets;
	if (us == c->us)
		return false;
	c->us = us;
	return true;
}

void
refnic_itr_adapt(struct refnic_adapter *ad, uint16_t q, bool tx, uint64_t packets,
		 uint16_t ring_size)
{
	struct refnic_queue_itr *itr = &ad->itr[q];
	bool changed;

	rte_spinlock_lock(&itr->lock);
	changed = dim_sample(tx ? &itr->tx : &itr->rx, packets, ring_size);
	if (changed)
		refnic_itr_apply(ad, q);
	rte_spinlock_unlock(&itr->lock);
}

uint32_t
refnic_itr_current(const struct refnic_adapter *ad, uint16_t q, bool tx)
{
	return tx ? ad->itr[q].tx.us : ad->itr[q].rx.us;
}

/* The public API (rte_pmd_refnic.h). */

static int
itr_set(uint16_t port_id, uint16_t queue_id, bool tx, uint32_t usec)
{
	struct rte_eth_dev *dev;
	struct refnic_adapter *ad;
	struct refnic_itr_cause *c;
	int ret = refnic_port_queue_get(port_id, queue_id, true, &dev);

	if (ret != 0)
		return ret;
	ad = refnic_adapter(dev);
	if (usec > REFNIC_ITR_MAX_US) {
		PMD_DRV_LOG(ERR, "port %u queue %u: %s interval %u us is above the %u us maximum",
			    port_id, queue_id, tx ? "TX" : "RX", usec, REFNIC_ITR_MAX_US);
		return -EINVAL;
	}
	if (!itr_supported(ad))
		return -ENOTSUP;
	c = tx ? &ad->itr[queue_id].tx : &ad->itr[queue_id].rx;
	rte_spinlock_lock(&ad->itr[queue_id].lock);
	c->adaptive = false;
	c->us = usec;
	refnic_itr_apply(ad, queue_id);
	rte_spinlock_unlock(&ad->itr[queue_id].lock);
	return 0;
}

static int
itr_get(uint16_t port_id, uint16_t queue_id, bool tx, uint32_t *usec)
{
	struct rte_eth_dev *dev;
	int ret = refnic_port_queue_get(port_id, queue_id, false, &dev);

	if (ret != 0)
		return ret;
	if (usec == NULL)
		return -EINVAL;
	*usec = refnic_itr_current(refnic_adapter(dev), queue_id, tx);
	return 0;
}

int
rte_pmd_refnic_rx_itr_set(uint16_t port_id, uint16_t queue_id, uint32_t usec)
{
	return itr_set(port_id, queue_id, false, usec);
}

int
rte_pmd_refnic_rx_itr_get(uint16_t port_id, uint16_t queue_id, uint32_t *usec)
{
	return itr_get(port_id, queue_id, false, usec);
}

int
rte_pmd_refnic_tx_itr_set(uint16_t port_id, uint16_t queue_id, uint32_t usec)
{
	return itr_set(port_id, queue_id, true, usec);
}

int
rte_pmd_refnic_tx_itr_get(uint16_t port_id, uint16_t queue_id, uint32_t *usec)
{
	return itr_get(port_id, queue_id, true, usec);
}

int
rte_pmd_refnic_itr_adaptive_set(uint16_t port_id, uint16_t queue_id, int on)
{
	struct refnic_queue_itr *itr;
	struct rte_eth_dev *dev;
	int ret = refnic_port_queue_get(port_id, queue_id, true, &dev);

	if (ret != 0)
		return ret;
	if (!itr_supported(refnic_adapter(dev)))
		return -ENOTSUP;
	itr = &refnic_adapter(dev)->itr[queue_id];
	rte_spinlock_lock(&itr->lock);
	itr->rx.adaptive = on != 0;
	itr->tx.adaptive = on != 0;
	itr->rx.dim_tsc = 0;	/* a fresh sample */
	itr->tx.dim_tsc = 0;
	rte_spinlock_unlock(&itr->lock);
	return 0;
}

int
rte_pmd_refnic_itr_adaptive_get(uint16_t port_id, uint16_t queue_id, int *on)
{
	struct rte_eth_dev *dev;
	int ret = refnic_port_queue_get(port_id, queue_id, false, &dev);

	if (ret != 0)
		return ret;
	if (on == NULL)
		return -EINVAL;
	/* A static interval set on one cause leaves the other adaptive. */
	*on = refnic_adapter(dev)->itr[queue_id].rx.adaptive ||
	      refnic_adapter(dev)->itr[queue_id].tx.adaptive;
	return 0;
}
