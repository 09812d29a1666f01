/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * When the missed-doorbell check runs (refnic_doorbell.c has the rule): one
 * EAL alarm per port, every half deadline while the port runs, that looks
 * at every queue of the port. Not a timer per queue: that was the first fix
 * ionic shipped, and its cost alone is what the doorbell bench measures
 * against this one (tests/bench/bench_doorbell_pqt.c).
 */

#include <rte_alarm.h>

#include "refnic.h"
#include "refnic_doorbell.h"
#include "refnic_tsan.h"

/* In the EAL interrupt thread, every half deadline while the port runs. */
static void
db_check_alarm(void *arg)
{
	struct rte_eth_dev *dev = arg;
	struct refnic_adapter *ad;
	struct refnic_db_check *c;
	uint16_t q;
	int ret;

	REFNIC_EAL_SYNC_ACQUIRE(dev);
	ad = refnic_adapter(dev);
	c = &ad->db;
	if (!__atomic_load_n(&c->running, __ATOMIC_ACQUIRE)) {
		/* A run that does nothing still read the port: a cancel waits
		 * for it too (the close then frees what it read). */
		REFNIC_EAL_SYNC_RELEASE(dev);
		return;
	}
	refnic_db_count_check(c);
	/* A failed port's queues wait for rte_eth_dev_reset(), not for us. */
	rte_spinlock_lock(&c->queue_lock);
	for (q = 0; !refnic_port_failed(ad) && q < dev->data->nb_tx_queues; q++)
		refnic_db_check_queue(dev, true, q);
	for (q = 0; !refnic_port_failed(ad) && q < dev->data->nb_rx_queues; q++)
		refnic_db_check_queue(dev, false, q);
	rte_spinlock_unlock(&c->queue_lock);
	REFNIC_EAL_SYNC_RELEASE(dev);
	ret = rte_eal_alarm_set(refnic_db_period_us(c), db_check_alarm, dev);
	if (ret != 0) {
		__atomic_store_n(&c->running, false, __ATOMIC_RELEASE);
		PMD_DRV_LOG(ERR, "port %u: cannot re-arm the doorbell check: %s; "
			    "missed doorbells now stall queues", dev->data->port_id,
			    rte_strerror(-ret));
	}
	REFNIC_EAL_SYNC_RELEASE(dev);	/* the run ends: what a cancel waits for */
}

int
refnic_db_alarms_set(struct rte_eth_dev *dev)
{
	REFNIC_EAL_SYNC_RELEASE(dev);
	return rte_eal_alarm_set(refnic_db_period_us(&refnic_adapter(dev)->db),
				 db_check_alarm, dev);
}

void
refnic_db_alarms_cancel(struct rte_eth_dev *dev)
{
	rte_eal_alarm_cancel(db_check_alarm, dev);
	REFNIC_EAL_SYNC_ACQUIRE(dev);
}
