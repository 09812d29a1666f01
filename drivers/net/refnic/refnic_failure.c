/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * A port that cannot go on without rte_eth_dev_reset(): an admin command
 * the device never answered, a fatal error it reported, a queue it stopped
 * or that wrote garbage. The application learns it from
 * RTE_ETH_EVENT_INTR_RESET, once per failure, as from a PF that reset its
 * VFs. The event is raised from an EAL alarm, on the interrupt thread where
 * ethdev callbacks run, so that any thread may report a failure: a burst
 * function's included.
 */

#include <rte_alarm.h>

#include "refnic.h"

static void
reset_event_alarm(void *arg)
{
	uint16_t port_id = (uintptr_t)arg;

	rte_eth_dev_callback_process(&rte_eth_devices[port_id], RTE_ETH_EVENT_INTR_RESET, NULL);
}

void
refnic_reset_needed(struct refnic_adapter *ad, const char *why)
{
	int ret;

	if (__atomic_exchange_n(&ad->reset_event_sent, true, __ATOMIC_ACQ_REL))
		return;
	PMD_DRV_LOG(NOTICE, "port %u: RTE_ETH_EVENT_INTR_RESET (%s)", ad->port_id, why);
	ret = rte_eal_alarm_set(1, reset_event_alarm, (void *)(uintptr_t)ad->port_id);
	if (ret != 0)
		PMD_DRV_LOG(ERR, "port %u: cannot raise the reset event: %s", ad->port_id,
			    rte_strerror(-ret));
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
	__atomic_store_n(&ad->reset_event_sent, false, __ATOMIC_RELEASE);
}
