/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_LOGS_H_
#define _REFNIC_LOGS_H_

#include <rte_log.h>

extern int refnic_logtype_init;
extern int refnic_logtype_driver;
extern int refnic_logtype_rx;
extern int refnic_logtype_tx;

#define PMD_INIT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, refnic_logtype_init, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)
#define PMD_DRV_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, refnic_logtype_driver, "refnic: " fmt "\n", ##__VA_ARGS__)

/* Data-path logs cost nothing unless DPDK's debug switches are on. */
#ifdef RTE_ETHDEV_DEBUG_RX
#define PMD_RX_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, refnic_logtype_rx, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)
#else
#define PMD_RX_LOG(level, fmt, ...) do { } while (0)
#endif
#ifdef RTE_ETHDEV_DEBUG_TX
#define PMD_TX_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, refnic_logtype_tx, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)
#else
#define PMD_TX_LOG(level, fmt, ...) do { } while (0)
#endif

#endif /* _REFNIC_LOGS_H_ */
