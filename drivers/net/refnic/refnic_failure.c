/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * A port that cannot go on as it is: an admin command the device never
 * answered, a fatal error it reported, a queue it stopped or that wrote
 * garbage. Reported once per failure, from whichever thread found it (a
 * burst function included), and acted on from an EAL alarm, on the
 * interrupt thread where ethdev callbacks run:
 *  - a started port recovers proactively (dev_info.err_handle_mode is
 *    PROACTIVE): RTE_ETH_EVENT_ERR_RECOVERING, the data path switched to
 *    ethdev's dummy bursts, the device reset, the whole configuration
 *    restored as a restart would, then RTE_ETH_EVENT_RECOVERY_SUCCESS; or,
 *    after RECOVERY_ATTEMPTS, RTE_ETH_EVENT_RECOVERY_FAILED with the port
 *    left stopped, for rte_eth_dev_reset();
 *  - a port that is not started gets RTE_ETH_EVENT_INTR_RESET, as from a
 *    PF that reset its VFs: the application resets it when it wants it.
 */

#include <rte_alarm.h>

#include "refnic.h"

#define RECOVERY_ATTEMPTS	3
#define RECOVERY_GRACE_MS	10	/* for bursts already inside the PMD */

static void
reset_event_alarm(void *arg)
{
	uint16_t port_id = (uintptr_t)arg;
	struct rte_eth_dev *dev = &rte_eth_devices[port_id];

	__atomic_fetch_add(&refnic_adapter(dev)->failure_stats.reset_requests, 1,
			   __ATOMIC_RELAXED);
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RESET, NULL);
}

/* Every lcore's next burst returns 0; the ones under way are let finish. */
static void
datapath_pause(struct rte_eth_dev *dev)
{
	struct rte_eth_fp_ops *fpo = &rte_eth_fp_ops[dev->data->port_id];

	fpo->rx_pkt_burst = rte_eth_pkt_burst_dummy;
	fpo->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	rte_mb();
	rte_delay_ms(RECOVERY_GRACE_MS);
}

static void
datapath_resume(struct rte_eth_dev *dev)
{
	struct rte_eth_fp_ops *fpo = &rte_eth_fp_ops[dev->data->port_id];

	rte_mb();
	fpo->rx_pkt_burst = dev->rx_pkt_burst;
	fpo->tx_pkt_burst = dev->tx_pkt_burst;
}

static void
recovery_alarm(void *arg)
{
	uint16_t port_id = (uintptr_t)arg;
	struct rte_eth_dev *dev = &rte_eth_devices[port_id];
	struct refnic_adapter *ad = refnic_adapter(dev);
	unsigned int attempt;
	int ret = -EIO;

	if (!dev->data->dev_started) {	/* stopped meanwhile: the application's call */
		__atomic_store_n(&ad->recovering, false, __ATOMIC_RELEASE);
		reset_event_alarm(arg);
		return;
	}
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_ERR_RECOVERING, NULL);
	datapath_pause(dev);
	for (attempt = 0; attempt < RECOVERY_ATTEMPTS && ret != 0; attempt++)
		ret = refnic_dev_recover(dev);
	__atomic_store_n(&ad->recovering, false, __ATOMIC_RELEASE);
	if (ret == 0) {
		__atomic_store_n(&ad->reset_event_sent, false, __ATOMIC_RELEASE);
		datapath_resume(dev);
		__atomic_fetch_add(&ad->failure_stats.recoveries, 1, __ATOMIC_RELAXED);
		PMD_DRV_LOG(NOTICE, "port %u: recovered", port_id);
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_RECOVERY_SUCCESS, NULL);
	} else {
		/* Left stopped, as said: no doorbell check on a dead port. */
		__atomic_store_n(&ad->failed, true, __ATOMIC_RELEASE);
		refnic_db_check_stop(dev);
		dev->data->dev_started = 0;
		__atomic_fetch_add(&ad->failure_stats.recovery_failures, 1, __ATOMIC_RELAXED);
		PMD_DRV_LOG(ERR, "port %u: recovery failed %u times (%s); the port is stopped "
			    "until rte_eth_dev_reset()", port_id, RECOVERY_ATTEMPTS,
			    rte_strerror(-ret));
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_RECOVERY_FAILED, NULL);
	}
}

void
refnic_reset_needed(struct refnic_adapter *ad, const char *why)
{
	bool started = rte_eth_devices[ad->port_id].data->dev_started;
	int ret;

	/* A recovery under way judges its own failures. */
	if (__atomic_load_n(&ad->recovering, __ATOMIC_ACQUIRE) ||
	    __atomic_exchange_n(&ad->reset_event_sent, true, __ATOMIC_ACQ_REL))
		return;
	PMD_DRV_LOG(NOTICE, "port %u: %s: %s", ad->port_id, why,
		    started ? "recovering" : "RTE_ETH_EVENT_INTR_RESET");
	if (started)
		__atomic_store_n(&ad->recovering, true, __ATOMIC_RELEASE);
	ret = rte_eal_alarm_set(1, started ? recovery_alarm : reset_event_alarm,
				(void *)(uintptr_t)ad->port_id);
	if (ret != 0) {
		/* Nothing will act on it: let the next failure try again. */
		PMD_DRV_LOG(ERR, "port %u: cannot schedule the %s: %s", ad->port_id,
			    started ? "recovery" : "reset event", rte_strerror(-ret));
		__atomic_store_n(&ad->recovering, false, __ATOMIC_RELEASE);
		__atomic_store_n(&ad->reset_event_sent, false, __ATOMIC_RELEASE);
	}
}

void
refnic_queue_failed(struct refnic_adapter *ad, const char *why)
{
	__atomic_fetch_add(&ad->failure_stats.queue_errors, 1, __ATOMIC_RELAXED);
	refnic_reset_needed(ad, why);
}

void
refnic_port_fail(struct refnic_adapter *ad, const char *why)
{
	__atomic_store_n(&ad->failed, true, __ATOMIC_RELEASE);
	refnic_reset_needed(ad, why);
}

/* The port was reset (or is closing): a later failure is a new one. */
void
refnic_reset_event_clear(struct refnic_adapter *ad)
{
	rte_eal_alarm_cancel(reset_event_alarm, (void *)(uintptr_t)ad->port_id);
	rte_eal_alarm_cancel(recovery_alarm, (void *)(uintptr_t)ad->port_id);
	__atomic_store_n(&ad->recovering, false, __ATOMIC_RELEASE);
	__atomic_store_n(&ad->reset_event_sent, false, __ATOMIC_RELEASE);
}
