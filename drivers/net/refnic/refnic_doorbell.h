/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_DOORBELL_H_
#define _REFNIC_DOORBELL_H_

/*
 * The missed-doorbell check in two parts: the rule (refnic_doorbell.c:
 * what a stalled queue is, re-ring it, look at a stuck one's status) and
 * its schedule (refnic_db_alarm.c: one EAL alarm per port, every
 * half deadline). This is the seam between them. The doorbell bench builds
 * the same rule on another schedule, a timer per queue, to measure what
 * one alarm per port saves (tests/bench/bench_doorbell_pqt.c).
 */

#include <stdbool.h>
#include <stdint.h>

#include "refnic.h"

/* The rule, for the schedule. */
/* Check TX (tx) or RX queue q of the port once: re-ring it if stalled. */
void refnic_db_check_queue(struct rte_eth_dev *dev, bool tx, uint16_t q);
/* How often the check runs: twice per deadline. */
uint64_t refnic_db_period_us(const struct refnic_db_check *c);
/* One more run of the check (the checks xstat). */
void refnic_db_count_check(struct refnic_db_check *c);

/* The schedule, for refnic_db_check_start()/_stop(): run the check for the
 * port's queues every refnic_db_period_us() until cancelled; cancel waits
 * for a run in progress and removes what it re-armed. */
int refnic_db_alarms_set(struct rte_eth_dev *dev);
void refnic_db_alarms_cancel(struct rte_eth_dev *dev);

#endif /* _REFNIC_DOORBELL_H_ */
