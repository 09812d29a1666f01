/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * A secondary process's port (DPDK multi-process): it receives, transmits
 * and reads. The port's configuration, its state and the device's control
 * (admin queue, interrupts, recovery) are the primary's; the rest is
 * refused with one line. Its bursts store through a register access of its
 * own (refnic_port_bar[]), which the bus glue made for this process. What
 * it reads through the primary (counters, RSS, the private dump) goes over
 * EAL's multi-process channel (refnic_mp.c).
 */

#include <stdlib.h>

#include "refnic.h"
#include "refnic_logs.h"
#include "refnic_rxtx.h"

static const struct eth_dev_ops refnic_secondary_ops;

int
refnic_secondary_refuse(struct rte_eth_dev *dev, const char *what)
{
	PMD_DRV_LOG(ERR, "port %u: %s belongs to the primary process; a secondary "
		    "receives, transmits and reads", dev->data->port_id, what);
	return -E_RTE_SECONDARY;
}

static int
refnic_secondary_configure(struct rte_eth_dev *dev)
{
	return refnic_secondary_refuse(dev, "configuration");
}

static int
refnic_secondary_start_stop(struct rte_eth_dev *dev)
{
	return refnic_secondary_refuse(dev, "starting and stopping the port");
}

static int
refnic_secondary_rx_mode(struct rte_eth_dev *dev)
{
	return refnic_secondary_refuse(dev, "the Rx mode");
}

static int
refnic_secondary_link_set(struct rte_eth_dev *dev)
{
	return refnic_secondary_refuse(dev, "the link state");
}

static int
refnic_secondary_mtu_set(struct rte_eth_dev *dev, uint16_t mtu __rte_unused)
{
	return refnic_secondary_refuse(dev, "the MTU");
}

/* Without this op ethdev would take the mask and do nothing. */
static int
refnic_secondary_ptypes_set(struct rte_eth_dev *dev, uint32_t ptype_mask __rte_unused)
{
	return refnic_secondary_refuse(dev, "the packet type mask");
}

static int
refnic_secondary_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *mac __rte_unused)
{
	return refnic_secondary_refuse(dev, "the MAC address");
}

static int
refnic_secondary_queue_op(struct rte_eth_dev *dev, uint16_t qid __rte_unused)
{
	return refnic_secondary_refuse(dev, "starting, stopping and arming queues");
}

static int
refnic_secondary_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid __rte_unused,
				uint16_t nb_desc __rte_unused,
				unsigned int socket_id __rte_unused,
				const struct rte_eth_rxconf *conf __rte_unused,
				struct rte_mempool *mp __rte_unused)
{
	return refnic_secondary_refuse(dev, "queue setup");
}

static int
refnic_secondary_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid __rte_unused,
				uint16_t nb_desc __rte_unused,
				unsigned int socket_id __rte_unused,
				const struct rte_eth_txconf *conf __rte_unused)
{
	return refnic_secondary_refuse(dev, "queue setup");
}

static const struct eth_dev_ops refnic_closed_ops;

/*
 * The primary closes the port (refnic_mp.c, on EAL's multi-process thread):
 * its queues and device are about to be freed. This process's bursts go to
 * ethdev's dummies, the ones under way are let finish, and every other call
 * but close is refused (-ENOTSUP) from now on.
 */
void
refnic_secondary_port_gone(struct rte_eth_dev *dev)
{
	struct rte_eth_fp_ops *fpo = &rte_eth_fp_ops[dev->data->port_id];

	if (dev->dev_ops != &refnic_secondary_ops)
		return;
	dev->rx_pkt_burst = fpo->rx_pkt_burst = rte_eth_pkt_burst_dummy;
	dev->tx_pkt_burst = fpo->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	dev->tx_pkt_prepare = fpo->tx_pkt_prepare = NULL;
	dev->rx_queue_count = fpo->rx_queue_count = NULL;
	dev->rx_descriptor_status = fpo->rx_descriptor_status = NULL;
	dev->tx_descriptor_status = fpo->tx_descriptor_status = NULL;
	rte_mb();
	dev->dev_ops = &refnic_closed_ops;
	rte_delay_ms(REFNIC_BURST_GRACE_MS);
	PMD_DRV_LOG(ERR, "port %u: closed by the primary process; this process no longer "
		    "receives or sends on it", dev->data->port_id);
}

static int
refnic_secondary_timesync(struct rte_eth_dev *dev)
{
	return refnic_secondary_refuse(dev, "turning timesync on or off");
}

static int
refnic_secondary_adjust_time(struct rte_eth_dev *dev, int64_t delta __rte_unused)
{
	return refnic_secondary_refuse(dev, "moving the clock");
}

static int
refnic_secondary_write_time(struct rte_eth_dev *dev, const struct timespec *ts __rte_unused)
{
	return refnic_secondary_refuse(dev, "moving the clock");
}

/* Closing a secondary's port ends this process's use of it, nothing more. */
static int
refnic_secondary_close(struct rte_eth_dev *dev)
{
	struct refnic_secondary *sec = dev->process_private;

	dev->process_private = NULL;
	refnic_port_bar[dev->data->port_id] = NULL;
	if (sec != NULL) {
		sec->release(&sec->hw);
		free(sec);
	}
	return 0;
}

REFNIC_STATS_GET_OP(refnic_secondary_stats_get, refnic_mp_stats_fill)
REFNIC_PTYPES_GET_OP(refnic_secondary_ptypes_get, refnic_ptypes)

static const struct eth_dev_ops refnic_secondary_ops = {
	.dev_configure = refnic_secondary_configure,
	.dev_start = refnic_secondary_start_stop,
	.dev_stop = refnic_secondary_start_stop,
	.dev_close = refnic_secondary_close,
	.dev_reset = refnic_secondary_start_stop,
	.dev_infos_get = refnic_dev_infos_get,
	.dev_supported_ptypes_get = refnic_secondary_ptypes_get,
	.link_update = refnic_link_update,
	.dev_set_link_up = refnic_secondary_link_set,
	.dev_set_link_down = refnic_secondary_link_set,
	.promiscuous_enable = refnic_secondary_rx_mode,
	.promiscuous_disable = refnic_secondary_rx_mode,
	.allmulticast_enable = refnic_secondary_rx_mode,
	.allmulticast_disable = refnic_secondary_rx_mode,
	.mac_addr_set = refnic_secondary_mac_addr_set,
	.mtu_set = refnic_secondary_mtu_set,
	.dev_ptypes_set = refnic_secondary_ptypes_set,
	/* What only the primary reaches (the admin queue), asked of it. */
	.stats_get = refnic_secondary_stats_get,
	.stats_reset = refnic_mp_stats_reset,
	.xstats_get = refnic_mp_xstats_get,
	.xstats_get_names = refnic_xstats_get_names,
	.xstats_reset = refnic_mp_xstats_reset,
	.reta_query = refnic_mp_reta_query,
	.rss_hash_conf_get = refnic_mp_rss_hash_conf_get,
	.eth_dev_priv_dump = refnic_mp_priv_dump,
	.fw_version_get = refnic_fw_version_get,
	.get_reg = refnic_get_reg,
	.rx_queue_start = refnic_secondary_queue_op,
	.rx_queue_stop = refnic_secondary_queue_op,
	.tx_queue_start = refnic_secondary_queue_op,
	.tx_queue_stop = refnic_secondary_queue_op,
	.rxq_info_get = refnic_rxq_info_get,
	.txq_info_get = refnic_txq_info_get,
	.tx_done_cleanup = refnic_tx_done_cleanup,
	.rx_queue_setup = refnic_secondary_rx_queue_setup,
	.tx_queue_setup = refnic_secondary_tx_queue_setup,
	.rx_burst_mode_get = refnic_rx_burst_mode_get,
	.tx_burst_mode_get = refnic_tx_burst_mode_get,
	.rx_queue_intr_enable = refnic_secondary_queue_op,
	.rx_queue_intr_disable = refnic_secondary_queue_op,
	/* Its rte_flow calls are refused, each with a message (refnic_flow.c). */
	.flow_ops_get = refnic_flow_ops_get,
	/* The clock and the PTP latches are registers: read here. */
	.read_clock = refnic_read_clock,
	.timesync_read_rx_timestamp = refnic_timesync_read_rx_timestamp,
	.timesync_read_tx_timestamp = refnic_timesync_read_tx_timestamp,
	.timesync_read_time = refnic_timesync_read_time,
	.timesync_enable = refnic_secondary_timesync,
	.timesync_disable = refnic_secondary_timesync,
	.timesync_adjust_time = refnic_secondary_adjust_time,
	.timesync_write_time = refnic_secondary_write_time,
};

/* A secondary's port its primary closed: only its own close is left. */
static const struct eth_dev_ops refnic_closed_ops = {
	.dev_close = refnic_secondary_close,
};

bool
refnic_secondary_is_port(const struct rte_eth_dev *dev)
{
	return dev->dev_ops == &refnic_secondary_ops;
}

int
refnic_secondary_init(struct rte_eth_dev *dev, struct refnic_secondary *sec)
{
	dev->process_private = sec;
	refnic_port_bar[dev->data->port_id] = &sec->hw;
	dev->dev_ops = &refnic_secondary_ops;
	refnic_set_burst_functions(dev);
	refnic_mp_listen();
	PMD_INIT_LOG(INFO, "port %u: %s attached in a secondary process", dev->data->port_id,
		     dev->data->name);
	return 0;
}
