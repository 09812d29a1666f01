/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The ethdev side of net_refnic: bring-up, the primary process's dev_ops,
 * port configuration (a secondary's port is refnic_secondary.c).
 * It knows nothing of how the device was found; the bus glue hands it a
 * struct refnic_bar (BAR, emulated-BAR link, eventfds) and a release hook.
 */

#include <stdarg.h>

#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "refnic.h"
#include "refnic_rxtx.h"

RTE_LOG_REGISTER(refnic_logtype_init, pmd.net.refnic.init, NOTICE);
RTE_LOG_REGISTER(refnic_logtype_driver, pmd.net.refnic.driver, NOTICE);
RTE_LOG_REGISTER(refnic_logtype_rx, pmd.net.refnic.rx, NOTICE);
RTE_LOG_REGISTER(refnic_logtype_tx, pmd.net.refnic.tx, NOTICE);

static const struct eth_dev_ops refnic_eth_dev_ops;

/* This process's fast path: rte_eth_devices[] is per process (a secondary
 * picks its bursts here; a primary again at each start). */
void
refnic_set_burst_functions(struct rte_eth_dev *dev)
{
	refnic_burst_select(dev);
	dev->tx_pkt_prepare = refnic_prep_pkts;
	dev->rx_queue_count = refnic_rx_queue_count;
	dev->rx_descriptor_status = refnic_rx_descriptor_status;
	dev->tx_descriptor_status = refnic_tx_descriptor_status;
}

/* Reset the device, set up the admin queue and learn what the device is. */
static int
refnic_hw_init(struct refnic_adapter *ad)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_IDENTIFY };
	/* Again (recovery, dev_reset): another thread (telemetry, stats) may
	 * be inside an admin command; the reset and the new admin queue wait
	 * for it, rather than rebuild the queue under it. */
	bool again = ad->admin.mz != NULL;
	struct refnic_identify id;
	int ret;

	if (again)
		pthread_mutex_lock(&ad->admin.lock);
	/* Under the lock: a command in flight polls by the policy. */
	ad->admin.policy = ad->args.admin_poll;
	ret = refnic_hw_reset(ad);
	if (ret == 0) {
		ad->dma_unsafe = false;	/* a finished reset stopped all DMA */
		/* Before the first admin doorbell: the device may miss that one too. */
		refnic_db_check_init(ad);
		ret = refnic_admin_init(ad);
	}
	if (again)
		pthread_mutex_unlock(&ad->admin.lock);
	if (ret == 0)
		ret = refnic_aeq_setup(ad);
	if (ret != 0)
		return ret;
	__atomic_store_n(&ad->failed, false, __ATOMIC_RELEASE);
	ret = refnic_admin_exec_buf(ad, &cmd, &id, sizeof(id), false);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "IDENTIFY failed: %s", rte_strerror(-ret));
		return ret;
	}
	/* Under the stats lock: a stats reader (another thread, during a
	 * recovery) checks the device's counters against what it is. */
	pthread_mutex_lock(&ad->stats_lock);
	ret = refnic_identify_check(ad, &id);
	if (ret != 0) {
		pthread_mutex_unlock(&ad->stats_lock);
		return ret;
	}
	if (!rte_is_valid_assigned_ether_addr((struct rte_ether_addr *)ad->ident.mac)) {
		rte_eth_random_addr(ad->ident.mac);
		PMD_INIT_LOG(WARNING, "device has no valid MAC address; using a random one");
	}
	/* Device counters run from its creation; the port's from its probe,
	 * and on across a recovery or rte_eth_dev_reset() (refnic_stats.c). */
	ret = refnic_fetch_hw_stats_baseline(ad);
	if (ret == 0)
		refnic_hw_stats_rebase(ad, again);
	pthread_mutex_unlock(&ad->stats_lock);
	return ret == -ENOTSUP ? 0 : ret;	/* no device counters: not an error */
}

int
refnic_ethdev_init(struct rte_eth_dev *dev, const struct refnic_bar *hw,
		   const struct refnic_devargs *args, const struct refnic_bus_ops *bus,
		   void *bus_priv)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	char policy[32];
	int ret;

	ad->hw = *hw;
	refnic_port_bar[dev->data->port_id] = &ad->hw;	/* the bursts' */
	ad->args = *args;
	ad->bus = bus;
	ad->bus_priv = bus_priv;
	ad->port_id = dev->data->port_id;
	ad->ptype_mask = RTE_PTYPE_ALL_MASK;
	pthread_mutex_init(&ad->stats_lock, NULL);
	rte_spinlock_init(&ad->db.queue_lock);
	/* The rte_flow rules, kept by the driver (none without rte_flow). */
	pthread_mutex_init(&ad->flows.lock, NULL);
	TAILQ_INIT(&ad->flows.list);

	dev->dev_ops = &refnic_eth_dev_ops;	/* the event handler calls them */
	refnic_failure_listen();
	refnic_mp_listen();
	refnic_itr_init(ad);
	ret = refnic_hw_init(ad);
	if (ret == 0)
		ret = refnic_intr_init(dev);
	if (ret == 0) {
		dev->data->mac_addrs = rte_zmalloc("refnic_mac", refnic_max_mac_addrs(ad) *
						   RTE_ETHER_ADDR_LEN, 0);
		if (dev->data->mac_addrs == NULL)
			ret = -ENOMEM;
	}
	if (ret != 0) {
		/* A command that failed on the way scheduled the failed port's
		 * reset event: it must not fire on a port that is gone. */
		refnic_reset_event_clear(ad);
		refnic_intr_fini(dev);
		/* As at close: memory the device may still write stays allocated. */
		if (refnic_hw_reset(ad) == 0) {
			refnic_admin_fini(ad);
			refnic_aeq_free(ad);
		} else {
			PMD_INIT_LOG(ERR, "device did not reset; its admin and event rings "
				     "are left allocated");
		}
		refnic_port_bar[dev->data->port_id] = NULL;	/* ad goes with the port */
		return ret;
	}
	memcpy(dev->data->mac_addrs[0].addr_bytes, ad->ident.mac, RTE_ETHER_ADDR_LEN);
	refnic_wc_select(dev);
	refnic_set_burst_functions(dev);
	dev->data->dev_flags |= RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;

	refnic_poll_policy_format(&ad->admin.policy, policy, sizeof(policy));
	PMD_INIT_LOG(INFO, "port %u: %s, fw %s, %u queue pairs, admin_poll=%s, "
		     "init took %" PRIu64 " admin commands, %" PRIu64 " polls",
		     dev->data->port_id, dev->data->name, ad->ident.fw_version,
		     ad->ident.max_queues, policy, ad->admin.stats.commands,
		     ad->admin.stats.polls);
	return 0;
}

bool
refnic_is_port(const struct rte_eth_dev *dev)
{
	return dev->dev_ops == &refnic_eth_dev_ops || refnic_secondary_is_port(dev);
}

int
refnic_port_queue_get(uint16_t port_id, uint16_t queue_id, bool change,
		      struct rte_eth_dev **devp)
{
	struct rte_eth_dev *dev;

	if (!rte_eth_dev_is_valid_port(port_id))
		return -ENODEV;
	dev = &rte_eth_devices[port_id];
	if (!refnic_is_port(dev)) {
		PMD_DRV_LOG(ERR, "port %u is not a refnic port", port_id);
		return -ENODEV;
	}
	if (queue_id >= RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues)) {
		PMD_DRV_LOG(ERR, "port %u: no queue %u", port_id, queue_id);
		return -EINVAL;
	}
	if (change && rte_eal_process_type() != RTE_PROC_PRIMARY)
		return refnic_secondary_refuse(dev, "changing moderation and queue interrupts");
	*devp = dev;
	return 0;
}

/*
 * The link runs at the device's one speed, full duplex, not negotiated:
 * link_speeds may ask for autonegotiation of anything, or for a list or a
 * fixed speed that holds it; a speed it does not have cannot be had.
 */
static int
refnic_link_speeds_check(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	uint32_t want = dev->data->dev_conf.link_speeds;
	uint32_t capa = rte_eth_speed_bitflag(ad->ident.link_speed_mbps,
					      RTE_ETH_LINK_FULL_DUPLEX);

	if (want == RTE_ETH_LINK_SPEED_AUTONEG || (want & capa) != 0)
		return 0;
	PMD_DRV_LOG(ERR, "port %u: link_speeds 0x%x: the link runs at %u Mbps, full "
		    "duplex, only (dev_info.speed_capa 0x%x)", dev->data->port_id, want,
		    ad->ident.link_speed_mbps, capa);
	return -EINVAL;
}

static int
refnic_dev_configure(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	int ret;

	if (refnic_port_failed(ad))
		return -EIO;
	ret = refnic_link_speeds_check(dev);
	if (ret != 0)
		return ret;
	return refnic_rss_configure(dev);
}

static int
refnic_set_rx_mode(struct rte_eth_dev *dev, bool promisc, bool allmulti)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_admin_cmd cmd = {
		.opcode = REFNIC_ADMIN_SET_RX_MODE,
		.value = REFNIC_RX_MODE_UNICAST | REFNIC_RX_MODE_BROADCAST |
			 REFNIC_RX_MODE_MULTICAST |
			 (promisc ? REFNIC_RX_MODE_PROMISC : 0) |
			 (allmulti ? REFNIC_RX_MODE_ALLMULTI : 0),
	};

	return refnic_admin_exec(ad, &cmd, NULL);
}

static int
refnic_set_mtu(struct refnic_adapter *ad, uint16_t mtu)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_SET_MTU, .value = mtu };

	return refnic_admin_exec(ad, &cmd, NULL);
}

/* The port's PHY on or off, through the device: the far end sees the link go. */
static int
refnic_link_set(struct refnic_adapter *ad, bool up)
{
	struct refnic_admin_cmd cmd = {
		.opcode = REFNIC_ADMIN_LINK_SET,
		.value = up ? REFNIC_LINK_UP : 0,
	};

	return refnic_admin_exec(ad, &cmd, NULL);
}

/*
 * The device's link event updates the port's link status and raises LSC,
 * here as on the far end: updating it here first would leave that event
 * nothing to report.
 */
static int
refnic_dev_set_link(struct rte_eth_dev *dev, bool up)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	int ret = refnic_link_set(ad, up);

	if (ret == 0)
		ad->link_down_requested = !up;
	return ret;
}

static int
refnic_dev_set_link_up(struct rte_eth_dev *dev)
{
	return refnic_dev_set_link(dev, true);
}

static int
refnic_dev_set_link_down(struct rte_eth_dev *dev)
{
	return refnic_dev_set_link(dev, false);
}

int
refnic_link_update(struct rte_eth_dev *dev, int wait_to_complete __rte_unused)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct rte_eth_link link = {
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
	};

	if (__atomic_load_n(&ad->started, __ATOMIC_ACQUIRE) && !refnic_port_failed(ad) &&
	    (refnic_reg_read(&ad->hw, REFNIC_REG_STATUS) & REFNIC_STATUS_LINK_UP)) {
		link.link_status = RTE_ETH_LINK_UP;
		link.link_speed = ad->ident.link_speed_mbps;
	}
	return rte_eth_linkstatus_set(dev, &link);
}

/*
 * The device did not confirm stopping a queue: only a reset guarantees it
 * stopped writing to host memory. Returns 0 if the device is quiet now; the
 * port is failed either way (its admin queue is gone until dev_reset).
 */
int
refnic_quiesce(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);

	refnic_port_fail(ad, "device did not confirm a queue stop");
	if (refnic_hw_reset(ad) == 0)
		return 0;
	ad->dma_unsafe = true;
	PMD_DRV_LOG(ERR, "port %u: device did not stop its queues; keeping their "
		    "buffers rather than freeing memory it may still write",
		    dev->data->port_id);
	return -EIO;
}

/* Destroy every started queue on the device; true if the device is quiet. */
static bool
refnic_queues_hw_stop(struct rte_eth_dev *dev)
{
	bool failed = false;
	uint16_t q;

	for (q = 0; q < dev->data->nb_tx_queues; q++)
		if (dev->data->tx_queue_state[q] == RTE_ETH_QUEUE_STATE_STARTED)
			failed |= refnic_tx_queue_hw_stop(dev, dev->data->tx_queues[q]) != 0;
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		if (dev->data->rx_queue_state[q] == RTE_ETH_QUEUE_STATE_STARTED)
			failed |= refnic_rx_queue_hw_stop(dev, dev->data->rx_queues[q]) != 0;
	if (failed)
		refnic_quiesce(dev);
	return !refnic_adapter(dev)->dma_unsafe;
}

static void
refnic_queues_free_mbufs(struct rte_eth_dev *dev)
{
	uint16_t q;

	for (q = 0; q < dev->data->nb_tx_queues; q++)
		if (dev->data->tx_queues[q] != NULL)
			refnic_tx_queue_free_mbufs(dev->data->tx_queues[q]);
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		if (dev->data->rx_queues[q] != NULL)
			refnic_rx_queue_free_mbufs(dev->data->rx_queues[q]);
}

/* The port's queues off the device, their interrupts and checks too. */
static void
port_stop(struct rte_eth_dev *dev)
{
	refnic_db_check_stop(dev);
	refnic_rxq_intr_teardown(dev);
	if (refnic_queues_hw_stop(dev))
		refnic_queues_free_mbufs(dev);
}

static int
refnic_dev_stop(struct rte_eth_dev *dev)
{
	refnic_recovery_wait(refnic_adapter(dev));
	__atomic_store_n(&refnic_adapter(dev)->started, false, __ATOMIC_RELEASE);
	dev->data->dev_started = 0;
	port_stop(dev);
	refnic_link_update(dev, 0);
	return 0;
}

/*
 * Which RX queues take frames in several buffers: those asked to, and, as
 * ixgbe and i40e do, those whose buffers cannot hold a frame of this MTU,
 * so that jumbo frames work on default mbufs without the application
 * asking for scatter. Only a device that cannot scatter refuses. keep_on
 * (a started port): a queue already scattered stays so, since frames the
 * device split under the old MTU may still be in its ring.
 */
static int
refnic_rx_scatter_set(struct rte_eth_dev *dev, uint16_t mtu, bool keep_on)
{
	bool can = refnic_adapter(dev)->ident.caps & REFNIC_CAP_SCATTER;
	uint32_t frame = mtu + REFNIC_ETH_OVERHEAD;
	bool any = false;
	uint16_t q;

	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct refnic_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq->buf_size < frame && !can &&
		    !(rxq->offloads & RTE_ETH_RX_OFFLOAD_SCATTER)) {
			PMD_DRV_LOG(ERR, "port %u RX queue %u: %u-byte buffers cannot hold "
				    "%u-byte frames and the device cannot scatter; use "
				    "larger mbufs", dev->data->port_id, q, rxq->buf_size,
				    frame);
			return -EINVAL;
		}
	}
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct refnic_rx_queue *rxq = dev->data->rx_queues[q];
		bool on = (rxq->offloads & RTE_ETH_RX_OFFLOAD_SCATTER) ||
			  rxq->buf_size < frame || (keep_on && rxq->scatter);

		/* Read by the burst only on a frame's non-last buffer; set before
		 * the device is told the MTU that makes such buffers. */
		__atomic_store_n(&rxq->scatter, on, __ATOMIC_RELEASE);
		any |= on;
	}
	dev->data->scattered_rx = any;
	return 0;
}

/*
 * Start the port. The queues started are those not deferred, or with st
 * (a recovery) those the application had started: a queue it stopped is
 * not brought up, even for a moment.
 */
static int
port_start(struct rte_eth_dev *dev, const struct refnic_recovery_state *st)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	uint16_t q;
	int ret;

	if (refnic_port_failed(ad)) {
		PMD_DRV_LOG(ERR, "port %u failed; reset it (rte_eth_dev_reset) first",
			    dev->data->port_id);
		return -EIO;
	}
	for (q = 0; q < RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues); q++) {
		if ((q < dev->data->nb_rx_queues && dev->data->rx_queues[q] == NULL) ||
		    (q < dev->data->nb_tx_queues && dev->data->tx_queues[q] == NULL)) {
			PMD_DRV_LOG(ERR, "port %u: queue %u is not set up", dev->data->port_id, q);
			return -EINVAL;
		}
	}
	ret = refnic_rx_scatter_set(dev, dev->data->mtu, false);
	if (ret != 0)
		return ret;
	refnic_burst_select(dev);
	/* The port's configuration, before its first frame. */
	ret = refnic_set_mtu(ad, dev->data->mtu);
	if (ret == 0)
		ret = refnic_set_rx_mode(dev, dev->data->promiscuous,
					 dev->data->all_multicast);
	if (ret == 0)
		ret = refnic_features_apply(dev);
	if (ret == 0)
		ret = refnic_filters_restore(dev);
	if (ret == 0)
		ret = refnic_rss_start(dev);
	if (ret == 0)
		ret = refnic_flows_restore(dev);
	if (ret == 0)
		ret = refnic_timesync_restore(dev);
	if (ret == 0)
		ret = refnic_rxq_intr_setup(dev);
	for (q = 0; ret == 0 && q < dev->data->nb_tx_queues; q++) {
		struct refnic_tx_queue *txq = dev->data->tx_queues[q];

		if (st != NULL ? st->tx_state[q] == RTE_ETH_QUEUE_STATE_STARTED :
				 !txq->deferred_start)
			ret = refnic_tx_queue_hw_start(dev, txq);
	}
	for (q = 0; ret == 0 && q < dev->data->nb_rx_queues; q++) {
		struct refnic_rx_queue *rxq = dev->data->rx_queues[q];

		if (st != NULL ? st->rx_state[q] == RTE_ETH_QUEUE_STATE_STARTED :
				 !rxq->deferred_start)
			ret = refnic_rx_queue_hw_start(dev, rxq);
	}
	/* Undone, but the port's started state left as it is: a recovery
	 * tries again, and until it gives up the application must not see
	 * a stopped port it may reconfigure (fuzz_completions freed the
	 * queues under a retry). */
	if (ret != 0) {
		port_stop(dev);
		return ret;
	}
	dev->data->dev_started = 1;
	__atomic_store_n(&ad->started, true, __ATOMIC_RELEASE);
	refnic_db_check_start(dev);
	if (ad->link_down_requested && refnic_link_set(ad, false) != 0)
		PMD_DRV_LOG(ERR, "port %u: cannot keep the link down", dev->data->port_id);
	refnic_link_update(dev, 0);
	return 0;
}

static int
refnic_dev_start(struct rte_eth_dev *dev)
{
	return port_start(dev, NULL);
}

/*
 * Proactive recovery (refnic_failure.c), with the data path paused: the
 * device is reset, which stops its DMA, the buffers of the dead rings go
 * back to their pools, and the port starts again with its whole
 * configuration, MAC addresses included (ethdev restores those at a start
 * it makes, not at this one).
 */
void
refnic_recovery_state_save(struct rte_eth_dev *dev, struct refnic_recovery_state *st)
{
	/* Each queue comes back as the application left it, started or not
	 * (deferred-start queues it started, queues it stopped). */
	memcpy(st->rx_state, dev->data->rx_queue_state, dev->data->nb_rx_queues);
	memcpy(st->tx_state, dev->data->tx_queue_state, dev->data->nb_tx_queues);
}


static int __rte_format_printf(2, 3)
fit_refuse(struct rte_eth_dev *dev, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	PMD_DRV_LOG(ERR, "port %u: after its reset the device offers %s: less than the "
		    "port runs with; reconfigure it (rte_eth_dev_reset)",
		    dev->data->port_id, what);
	return -ENOTSUP;
}

/*
 * A device re-identified at a reset may come back with other limits (new
 * firmware): the running configuration, checked against them when it was
 * made, is checked again before it is replayed, so that no offload is
 * asked of a device that no longer has it.
 */
static int
config_fits_device(struct rte_eth_dev *dev)
{
	const struct rte_eth_conf *conf = &dev->data->dev_conf;
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct rte_eth_dev_info info;
	uint16_t q;

	memset(&info, 0, sizeof(info));
	refnic_dev_infos_get(dev, &info);
	if (dev->data->nb_rx_queues > info.max_rx_queues ||
	    dev->data->nb_tx_queues > info.max_tx_queues)
		return fit_refuse(dev, "%u queue pairs, %u configured", info.max_rx_queues,
			   RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues));
	if (dev->data->mtu < info.min_mtu || dev->data->mtu > info.max_mtu)
		return fit_refuse(dev, "MTU %u-%u, %u set", info.min_mtu, info.max_mtu, dev->data->mtu);
	if ((conf->rxmode.mq_mode & RTE_ETH_MQ_RX_RSS_FLAG) && info.reta_size == 0)
		return fit_refuse(dev, "no RSS");
	if (!TAILQ_EMPTY(&ad->flows.list) && !(ad->ident.caps & REFNIC_CAP_FLOW))
		return fit_refuse(dev, "no flow table, and flow rules are in place");
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		const struct refnic_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq->size < info.rx_desc_lim.nb_min || rxq->size > info.rx_desc_lim.nb_max)
			return fit_refuse(dev, "RX rings of %u-%u descriptors, queue %u has %u",
				   info.rx_desc_lim.nb_min, info.rx_desc_lim.nb_max, q, rxq->size);
		if (rxq->buf_size < info.min_rx_bufsize)
			return fit_refuse(dev, "RX buffers of %u bytes at least, queue %u has %u",
				   info.min_rx_bufsize, q, rxq->buf_size);
		if (rxq->offloads & ~info.rx_offload_capa)
			return fit_refuse(dev, "RX offloads 0x%" PRIx64 ", queue %u uses 0x%" PRIx64,
				   info.rx_offload_capa, q, rxq->offloads);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		const struct refnic_tx_queue *txq = dev->data->tx_queues[q];

		if (txq->size < info.tx_desc_lim.nb_min || txq->size > info.tx_desc_lim.nb_max)
			return fit_refuse(dev, "TX rings of %u-%u descriptors, queue %u has %u",
				   info.tx_desc_lim.nb_min, info.tx_desc_lim.nb_max, q, txq->size);
		if (txq->offloads & ~info.tx_offload_capa)
			return fit_refuse(dev, "TX offloads 0x%" PRIx64 ", queue %u uses 0x%" PRIx64,
				   info.tx_offload_capa, q, txq->offloads);
	}
	return 0;
}

int
refnic_dev_recover(struct rte_eth_dev *dev, const struct refnic_recovery_state *st)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	uint16_t q;
	int ret;

	refnic_rxq_intr_teardown(dev);
	/* Counters go on across it, as across a restart (refnic_hw_init()). */
	ret = refnic_hw_init(ad);
	if (ret == 0)
		ret = config_fits_device(dev);
	if (ret != 0)
		return ret;
	/* The reset took every queue off the device. */
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		__atomic_store_n(&((struct refnic_tx_queue *)dev->data->tx_queues[q])->started,
				 false, __ATOMIC_RELEASE);
	for (q = 0; q < dev->data->nb_rx_queues; q++)
		__atomic_store_n(&((struct refnic_rx_queue *)dev->data->rx_queues[q])->started,
				 false, __ATOMIC_RELEASE);
	refnic_queues_free_mbufs(dev);
	ret = port_start(dev, st);
	if (ret == 0)
		ret = refnic_macs_restore(dev);
	return ret;
}

static void
refnic_queues_release(struct rte_eth_dev *dev)
{
	uint16_t q;

	for (q = 0; q < dev->data->nb_rx_queues; q++)
		refnic_rx_queue_release(dev, q);
	for (q = 0; q < dev->data->nb_tx_queues; q++)
		refnic_tx_queue_release(dev, q);
}

static int
refnic_dev_close(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);

	bool secondaries_gone;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	/* Secondaries burst on these queues from their own tables: they let
	 * go of the port before its memory does. */
	secondaries_gone = refnic_mp_port_closing(dev) == 0;
	if (dev->data->dev_started)
		refnic_dev_stop(dev);
	refnic_reset_event_clear(ad);
	refnic_db_check_stop(dev);
	refnic_intr_fini(dev);
	/* Quiet the device first: it forgets the rings we free next. If it
	 * does not answer, or a secondary may still be inside a burst, leave
	 * them allocated rather than free live memory. */
	if (!secondaries_gone) {
		PMD_DRV_LOG(ERR, "port %u: a secondary process did not let go of it; its "
			    "rings and buffers are left allocated", dev->data->port_id);
	} else if (refnic_hw_reset(ad) == 0) {
		ad->dma_unsafe = false;
		refnic_queues_free_mbufs(dev);
		refnic_queues_release(dev);
		refnic_admin_fini(ad);
		refnic_aeq_free(ad);
	} else {
		PMD_DRV_LOG(ERR, "port %u: device did not reset; its rings and buffers "
			    "are left allocated", dev->data->port_id);
	}
	refnic_flow_fini(dev);
	refnic_port_bar[dev->data->port_id] = NULL;
	if (ad->bus != NULL && ad->bus->release != NULL)
		ad->bus->release(ad);
	return 0;
}

/* rte_eth_dev_reset(): the port comes back from a failure; the app reconfigures. */
static int
refnic_dev_reset(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	int ret;

	/* The device is reset (quiet) first, then the queues' memory is freed. */
	ret = refnic_hw_init(ad);
	if (!ad->dma_unsafe) {
		refnic_queues_free_mbufs(dev);
		refnic_queues_release(dev);
	}
	if (ret != 0) {
		/* Whatever answered, the device is not one to run on: configure
		 * and start refuse until a reset goes through. */
		__atomic_store_n(&ad->failed, true, __ATOMIC_RELEASE);
		PMD_DRV_LOG(ERR, "port %u: reset failed: %s; the port stays failed until "
			    "a reset succeeds", dev->data->port_id, rte_strerror(-ret));
	} else {
		refnic_reset_event_clear(ad);
		PMD_DRV_LOG(NOTICE, "port %u: reset done", dev->data->port_id);
	}
	return ret;
}

int
refnic_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	const struct refnic_identify *id = &refnic_adapter(dev)->ident;

	info->max_rx_queues = id->max_queues;
	info->err_handle_mode = RTE_ETH_ERROR_HANDLE_MODE_PROACTIVE;
	/* Flow rules stay across stop/start (refnic_flow.c replays them). */
	if (id->caps & REFNIC_CAP_FLOW)
		info->dev_capa |= RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP;
	info->max_tx_queues = id->max_queues;
	info->min_rx_bufsize = id->min_rx_buf_size;
	info->max_rx_pktlen = id->max_mtu + REFNIC_ETH_OVERHEAD;
	info->min_mtu = id->min_mtu;
	info->max_mtu = id->max_mtu;
	info->max_mac_addrs = refnic_max_mac_addrs(refnic_adapter(dev));
	info->rx_offload_capa = 0;
	if (id->caps & REFNIC_CAP_SCATTER)
		info->rx_offload_capa |= RTE_ETH_RX_OFFLOAD_SCATTER;
	if (id->caps & REFNIC_CAP_VLAN_FILTER)
		info->rx_offload_capa |= RTE_ETH_RX_OFFLOAD_VLAN_FILTER;
	if (id->caps & REFNIC_CAP_VLAN_STRIP)
		info->rx_offload_capa |= RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
	if (id->caps & REFNIC_CAP_RX_CSUM)
		info->rx_offload_capa |= REFNIC_RX_CKSUM_OFFLOADS;
	if (id->caps & REFNIC_CAP_RX_TSTAMP)
		info->rx_offload_capa |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
	if (id->caps & REFNIC_CAP_RSS) {
		info->rx_offload_capa |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
		info->reta_size = REFNIC_RSS_RETA_SIZE;
		info->hash_key_size = REFNIC_RSS_KEY_SIZE;
		info->flow_type_rss_offloads = refnic_rss_offloads();
	}
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
				RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	if (id->caps & REFNIC_CAP_TX_CSUM)
		info->tx_offload_capa |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
					 RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
					 RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	if (id->caps & REFNIC_CAP_VLAN_INSERT)
		info->tx_offload_capa |= RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
	if (id->caps & REFNIC_CAP_TSO)
		info->tx_offload_capa |= RTE_ETH_TX_OFFLOAD_TCP_TSO;
	info->rx_desc_lim = (struct rte_eth_desc_lim) {
		.nb_max = id->max_ring_size,
		.nb_min = id->min_ring_size,
		.nb_align = id->min_ring_size,
	};
	info->tx_desc_lim = (struct rte_eth_desc_lim) {
		.nb_max = id->max_ring_size,
		.nb_min = id->min_ring_size,
		.nb_align = id->min_ring_size,
		/* A TSO packet may span more descriptors than a frame. */
		.nb_seg_max = id->caps & REFNIC_CAP_TSO ?
			      RTE_MAX(id->max_tx_segs, id->max_tso_segs) : id->max_tx_segs,
		.nb_mtu_seg_max = id->max_tx_segs,
	};
	info->default_rxconf.rx_free_thresh = REFNIC_DEFAULT_RX_FREE_THRESH;
	info->default_txconf.tx_free_thresh = REFNIC_DEFAULT_TX_FREE_THRESH;
	info->default_rxportconf.burst_size = REFNIC_DEFAULT_BURST;
	info->default_txportconf.burst_size = REFNIC_DEFAULT_BURST;
	info->default_rxportconf.ring_size = REFNIC_DEFAULT_RING_SIZE;
	info->default_txportconf.ring_size = REFNIC_DEFAULT_RING_SIZE;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	info->speed_capa = rte_eth_speed_bitflag(id->link_speed_mbps, RTE_ETH_LINK_FULL_DUPLEX);
	return 0;
}

/*
 * ethdev updates dev->data->promiscuous/all_multicast after these return, so
 * they pass the new mode. A stopped port gets its mode at start.
 */
static int
refnic_rx_mode_update(struct rte_eth_dev *dev, bool promisc, bool allmulti)
{
	return dev->data->dev_started ? refnic_set_rx_mode(dev, promisc, allmulti) : 0;
}

static int
refnic_promiscuous_enable(struct rte_eth_dev *dev)
{
	return refnic_rx_mode_update(dev, true, dev->data->all_multicast);
}

static int
refnic_promiscuous_disable(struct rte_eth_dev *dev)
{
	return refnic_rx_mode_update(dev, false, dev->data->all_multicast);
}

static int
refnic_allmulticast_enable(struct rte_eth_dev *dev)
{
	return refnic_rx_mode_update(dev, dev->data->promiscuous, true);
}

static int
refnic_allmulticast_disable(struct rte_eth_dev *dev)
{
	return refnic_rx_mode_update(dev, dev->data->promiscuous, false);
}

static int
refnic_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	int ret;

	/* A stopped port chooses its RX path at start. */
	if (!dev->data->dev_started)
		return 0;
	ret = refnic_rx_scatter_set(dev, mtu, true);
	return ret != 0 ? ret : refnic_set_mtu(ad, mtu);
}

static int
refnic_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *mac)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_SET_MAC };

	/* ethdev keeps the address (mac_addrs[0]); the device gets it here. */
	memcpy(cmd.mac, mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	return refnic_admin_exec(refnic_adapter(dev), &cmd, NULL);
}

REFNIC_STATS_GET_OP(refnic_stats_get, refnic_stats_fill)

int
refnic_fw_version_get(struct rte_eth_dev *dev, char *fw_version, size_t fw_size)
{
	const char *v = refnic_adapter(dev)->ident.fw_version;
	size_t need = strlen(v) + 1;

	strlcpy(fw_version, v, fw_size);
	return need > fw_size ? (int)need : 0;
}

/* Register dump: the global, vector and queue blocks of BAR0. */
#define REFNIC_REG_DUMP_END	(REFNIC_REG_RXQ_BASE + REFNIC_MAX_QUEUES * REFNIC_REG_Q_STRIDE)

int
refnic_get_reg(struct rte_eth_dev *dev, struct rte_dev_reg_info *regs)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	uint32_t *data = regs->data, off;

	if (data == NULL) {
		regs->length = REFNIC_REG_DUMP_END / 4;
		regs->width = sizeof(uint32_t);
		return 0;
	}
	if (regs->length != 0 && regs->length != REFNIC_REG_DUMP_END / 4)
		return -ENOTSUP;	/* whole dumps only */
	for (off = 0; off < REFNIC_REG_DUMP_END; off += 4)
		data[off / 4] = refnic_reg_read(&ad->hw, off);
	regs->length = REFNIC_REG_DUMP_END / 4;
	regs->width = sizeof(uint32_t);
	regs->version = refnic_reg_read(&ad->hw, REFNIC_REG_VERSION);
	return 0;
}

const uint32_t *
refnic_ptypes(struct rte_eth_dev *dev __rte_unused, size_t *len)
{
	static const uint32_t ptypes[] = {
		RTE_PTYPE_L2_ETHER,
		RTE_PTYPE_L3_IPV4_EXT_UNKNOWN,
		RTE_PTYPE_L3_IPV6_EXT_UNKNOWN,
		RTE_PTYPE_L4_TCP,
		RTE_PTYPE_L4_UDP,
		RTE_PTYPE_UNKNOWN
	};

	*len = RTE_DIM(ptypes) - 1;
	return ptypes;
}
REFNIC_PTYPES_GET_OP(refnic_supported_ptypes_get, refnic_ptypes)

/*
 * rte_eth_dev_set_ptypes(): ethdev has checked that the mask is made of
 * whole layers (L2, L3, L4, ...); the layers not asked for are reported as
 * unknown, 0 meaning none at all, as the application that does its own
 * parsing wants. The burst masks; the device classifies (REFNIC_CAP_RX_PTYPE)
 * only while L3 or L4 is asked for, from the next start or at once on a
 * started port.
 */
static int
refnic_ptypes_set(struct rte_eth_dev *dev, uint32_t ptype_mask)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	uint16_t q;

	ad->ptype_mask = ptype_mask;
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct refnic_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq != NULL)
			__atomic_store_n(&rxq->ptype_mask, ptype_mask, __ATOMIC_RELAXED);
	}
	return dev->data->dev_started ? refnic_features_apply(dev) : 0;
}

static const struct eth_dev_ops refnic_eth_dev_ops = {
	.dev_configure = refnic_dev_configure,
	.dev_start = refnic_dev_start,
	.dev_stop = refnic_dev_stop,
	.dev_close = refnic_dev_close,
	.dev_reset = refnic_dev_reset,
	.dev_infos_get = refnic_dev_infos_get,
	.dev_supported_ptypes_get = refnic_supported_ptypes_get,
	.dev_ptypes_set = refnic_ptypes_set,
	.link_update = refnic_link_update,
	.dev_set_link_up = refnic_dev_set_link_up,
	.dev_set_link_down = refnic_dev_set_link_down,
	.promiscuous_enable = refnic_promiscuous_enable,
	.promiscuous_disable = refnic_promiscuous_disable,
	.allmulticast_enable = refnic_allmulticast_enable,
	.allmulticast_disable = refnic_allmulticast_disable,
	.mac_addr_set = refnic_mac_addr_set,
	.mtu_set = refnic_mtu_set,
	.stats_get = refnic_stats_get,
	.stats_reset = refnic_stats_reset,
	.xstats_get = refnic_xstats_get,
	.xstats_get_names = refnic_xstats_get_names,
	.xstats_reset = refnic_xstats_reset,
	.fw_version_get = refnic_fw_version_get,
	.get_reg = refnic_get_reg,
	.mac_addr_add = refnic_mac_addr_add,
	.mac_addr_remove = refnic_mac_addr_remove,
	.set_mc_addr_list = refnic_set_mc_addr_list,
	.vlan_filter_set = refnic_vlan_filter_set,
	.vlan_offload_set = refnic_vlan_offload_set,
	.reta_update = refnic_reta_update,
	.reta_query = refnic_reta_query,
	.rss_hash_update = refnic_rss_hash_update,
	.rss_hash_conf_get = refnic_rss_hash_conf_get,
	.rx_queue_start = refnic_rx_queue_start,
	.rx_queue_stop = refnic_rx_queue_stop,
	.tx_queue_start = refnic_tx_queue_start,
	.tx_queue_stop = refnic_tx_queue_stop,
	.rxq_info_get = refnic_rxq_info_get,
	.txq_info_get = refnic_txq_info_get,
	.tx_done_cleanup = refnic_tx_done_cleanup,
	.rx_queue_setup = refnic_rx_queue_setup,
	.rx_queue_release = refnic_rx_queue_release,
	.tx_queue_setup = refnic_tx_queue_setup,
	.tx_queue_release = refnic_tx_queue_release,
	.eth_dev_priv_dump = refnic_dev_priv_dump,
	.rx_burst_mode_get = refnic_rx_burst_mode_get,
	.rx_queue_intr_enable = refnic_rx_queue_intr_enable,
	.rx_queue_intr_disable = refnic_rx_queue_intr_disable,
	.get_monitor_addr = refnic_get_monitor_addr,
	.tx_burst_mode_get = refnic_tx_burst_mode_get,
	.flow_ops_get = refnic_flow_ops_get,
	.rx_metadata_negotiate = refnic_rx_metadata_negotiate,
	.read_clock = refnic_read_clock,
	.timesync_enable = refnic_timesync_enable,
	.timesync_disable = refnic_timesync_disable,
	.timesync_read_rx_timestamp = refnic_timesync_read_rx_timestamp,
	.timesync_read_tx_timestamp = refnic_timesync_read_tx_timestamp,
	.timesync_adjust_time = refnic_timesync_adjust_time,
	.timesync_read_time = refnic_timesync_read_time,
	.timesync_write_time = refnic_timesync_write_time,
};
