/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _RTE_PMD_REFNIC_H_
#define _RTE_PMD_REFNIC_H_

/**
 * @file
 * net_refnic's own API: interrupt moderation per queue, and TX completion
 * interrupts. Applications that call it link with librte_net_refnic.so.
 * Every function checks that port_id is a refnic port (-ENODEV) and
 * queue_id one of its configured queues (-EINVAL).
 *
 * A queue pair q has one interrupt vector, the eventfd that
 * rte_eth_dev_rx_intr_ctl_q(port, q, ...) adds to an epoll set: it wakes
 * for RX completions (rte_eth_dev_rx_intr_enable) and, if enabled with
 * rte_pmd_refnic_tx_intr_enable(), for TX completions. Each cause has its
 * own interval: the vector is raised at most once per interval of the
 * causes that want it.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest interval, in microseconds. */
#define RTE_PMD_REFNIC_ITR_MAX_US	10000

/**
 * Set a static interval between RX interrupts of a queue (0: none); turns
 * adaptive moderation off for the queue's RX. Takes effect at once if the
 * port is started, else at its start. -EINVAL above RTE_PMD_REFNIC_ITR_MAX_US.
 */
int rte_pmd_refnic_rx_itr_set(uint16_t port_id, uint16_t queue_id, uint32_t usec);
/** The interval RX interrupts of the queue run with now (adaptive: its latest choice). */
int rte_pmd_refnic_rx_itr_get(uint16_t port_id, uint16_t queue_id, uint32_t *usec);
/** The same for TX completion interrupts. */
int rte_pmd_refnic_tx_itr_set(uint16_t port_id, uint16_t queue_id, uint32_t usec);
int rte_pmd_refnic_tx_itr_get(uint16_t port_id, uint16_t queue_id, uint32_t *usec);

/**
 * Adaptive moderation on (1) or off (0) for a queue's RX and TX causes:
 * from the packet rate seen between two sleeps, short intervals at low
 * rate, long ones at high rate. Turning it off keeps the current interval.
 * Setting a static interval (rx_itr_set, tx_itr_set) ends it for that cause
 * only; adaptive_get says 1 while either cause still adapts.
 */
int rte_pmd_refnic_itr_adaptive_set(uint16_t port_id, uint16_t queue_id, int on);
int rte_pmd_refnic_itr_adaptive_get(uint16_t port_id, uint16_t queue_id, int *on);

/**
 * Arm (enable) or disarm (disable) the queue pair's vector for TX
 * completions: once armed, the next completion beyond what the application
 * reclaimed raises it. One-shot, like RX: arm again before each sleep.
 * Needs intr_conf.rxq = 1 (the vectors), and a started TX queue.
 */
int rte_pmd_refnic_tx_intr_enable(uint16_t port_id, uint16_t queue_id);
int rte_pmd_refnic_tx_intr_disable(uint16_t port_id, uint16_t queue_id);

#ifdef __cplusplus
}
#endif

#endif /* _RTE_PMD_REFNIC_H_ */
