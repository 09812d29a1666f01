/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The port without rte_flow: built in place of refnic_flow.c where the
 * DPDK driver SDK at hand lacks rte_flow_driver.h (DPDK 25.11 made it a
 * driver SDK header, which Debian does not ship; a full DPDK source tree
 * as REFNIC_DPDK_SRC has it). rte_flow calls then fail with ENOTSUP, and
 * the device's flow table stays empty.
 */

#include <errno.h>

#include "refnic.h"

void
refnic_flow_fini(struct rte_eth_dev *dev __rte_unused)
{
}

int
refnic_flows_restore(struct rte_eth_dev *dev __rte_unused)
{
	return 0;
}

int
refnic_flow_ops_get(struct rte_eth_dev *dev, const struct rte_flow_ops **ops __rte_unused)
{
	PMD_DRV_LOG(INFO, "port %u: no rte_flow: built without DPDK's rte_flow_driver.h",
		    dev->data->port_id);
	return -ENOTSUP;
}

int
refnic_rx_metadata_negotiate(struct rte_eth_dev *dev __rte_unused, uint64_t *features)
{
	*features = 0;
	return 0;
}
