/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Bench only (tests/meson.build links it into refnic-bench-doorbell-pqt in
 * place of drivers/net/refnic/refnic_db_alarm.c; nothing ships it): the
 * missed-doorbell check on the schedule of ionic's first fix for the
 * doorbell miss, one timer per queue, for devtools/bench.sh doorbell to
 * measure the shipped one (one alarm per port) against. Each queue's alarm
 * checks that queue alone, with the same rule (refnic_doorbell.h).
 */

#include <rte_alarm.h>

#include "refnic.h"
#include "refnic_doorbell.h"

struct db_queue_timer {
	struct rte_eth_dev *dev;
	uint16_t q;
	bool tx;
};

static struct db_queue_timer db_timers[RTE_MAX_ETHPORTS][2][REFNIC_MAX_QUEUES];

static void
db_queue_alarm(void *arg)
{
	struct db_queue_timer *t = arg;
	struct refnic_adapter *ad = refnic_adapter(t->dev);
	struct refnic_db_check *c = &ad->db;

	if (!__atomic_load_n(&c->running, __ATOMIC_ACQUIRE))
		return;
	refnic_db_count_check(c);
	if (!ad->failed)
		refnic_db_check_queue(t->dev, t->tx, t->q);
	rte_eal_alarm_set(refnic_db_period_us(c), db_queue_alarm, t);
}

int
refnic_db_alarms_set(struct rte_eth_dev *dev)
{
	uint16_t port = dev->data->port_id, q;
	unsigned int dir;
	int ret = 0;

	for (dir = 0; dir < 2; dir++) {
		uint16_t nb = dir ? dev->data->nb_tx_queues : dev->data->nb_rx_queues;

		for (q = 0; ret == 0 && q < nb; q++) {
			struct db_queue_timer *t = &db_timers[port][dir][q];

			*t = (struct db_queue_timer){ .dev = dev, .q = q, .tx = dir };
			ret = rte_eal_alarm_set(refnic_db_period_us(&refnic_adapter(dev)->db),
						db_queue_alarm, t);
		}
	}
	return ret;
}

void
refnic_db_alarms_cancel(struct rte_eth_dev *dev)
{
	uint16_t port = dev->data->port_id, q;
	unsigned int dir;

	for (dir = 0; dir < 2; dir++)
		for (q = 0; q < REFNIC_MAX_QUEUES; q++)
			rte_eal_alarm_cancel(db_queue_alarm, &db_timers[port][dir][q]);
}
