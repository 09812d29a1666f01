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
 *    PROACTIVE): RTE_ETH_EVENT_ERR_RECOVERING, every burst let out of the
 *    port's queues and kept out (bursts_quiesce()), the device reset, the whole configuration
 *    restored as a restart would, then RTE_ETH_EVENT_RECOVERY_SUCCESS; or,
 *    after RECOVERY_ATTEMPTS, RTE_ETH_EVENT_RECOVERY_FAILED with the port
 *    left stopped, for rte_eth_dev_reset();
 *  - a port that is not started gets RTE_ETH_EVENT_INTR_RESET, as from a
 *    PF that reset its VFs: the application resets it when it wants it.
 */

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_string_fns.h>

#include "refnic.h"
#include "refnic_tsan.h"
#include "refnic_rxtx.h"

#define RECOVERY_ATTEMPTS	3
#define QUIESCE_MAX_MS		1000	/* for a burst to leave a queue */

/* A failure a secondary process found, for the primary to act on. */
#define FAILURE_MP_ACTION	"refnic_port_failure"
struct failure_msg {
	uint16_t port_id;
	char why[96];
};

static void
reset_event_alarm(void *arg)
{
	uint16_t port_id = (uintptr_t)arg;
	struct rte_eth_dev *dev = &rte_eth_devices[port_id];

	REFNIC_EAL_SYNC_ACQUIRE(dev);
	__atomic_fetch_add(&refnic_adapter(dev)->failure_stats.reset_requests, 1,
			   __ATOMIC_RELAXED);
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RESET, NULL);
	REFNIC_EAL_SYNC_RELEASE(dev);
}

/*
 * Every thread of every process passes a full barrier: a burst that
 * marked itself in (refnic_burst_enter()) before it read started is seen
 * in. False where the kernel has no such barrier.
 */
static bool
membarrier_global(void)
{
	static int supported = -1;
	long cmds;

	if (supported < 0) {
		cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0);
		supported = cmds >= 0 && (cmds & MEMBARRIER_CMD_GLOBAL);
	}
	return supported && syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0) == 0;
}

/* Wait for the burst inside a queue, if any, to leave it. */
static void
burst_wait(const uint32_t *in_burst, uint64_t deadline, uint16_t port_id, const char *kind,
	   uint16_t q)
{
	while (__atomic_load_n(in_burst, __ATOMIC_ACQUIRE) != 0) {
		if (rte_get_timer_cycles() > deadline) {
			/* A secondary killed mid-burst leaves its mark. */
			PMD_DRV_LOG(ERR, "port %u: a burst stays inside %s queue %u; going on",
				    port_id, kind, q);
			return;
		}
		rte_pause();
	}
}

/*
 * Keep bursts out of the port's queues (held), or let them in again; with
 * stopped, to queues that read as stopped (a failed port's: bursts return
 * 0 at once), marked so before they are let in.
 */
static void
bursts_hold(struct rte_eth_dev *dev, bool held, bool stopped)
{
	uint16_t q;

	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct refnic_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq == NULL)
			continue;
		if (stopped)
			__atomic_store_n(&rxq->started, false, __ATOMIC_RELEASE);
		__atomic_store_n(&rxq->held, held, __ATOMIC_SEQ_CST);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		struct refnic_tx_queue *txq = dev->data->tx_queues[q];

		if (txq == NULL)
			continue;
		if (stopped)
			__atomic_store_n(&txq->started, false, __ATOMIC_RELEASE);
		__atomic_store_n(&txq->held, held, __ATOMIC_SEQ_CST);
	}
}

/*
 * No burst of this port inside the PMD, and none gets in until the
 * recovery ends (what a burst would find meanwhile is the recovery's), in
 * this process or a secondary: held set, the barrier, then each queue's
 * burst let out.
 */
static void
bursts_quiesce(struct rte_eth_dev *dev)
{
	uint64_t deadline;
	uint16_t q;

	bursts_hold(dev, true, false);
	if (!membarrier_global())
		rte_delay_ms(REFNIC_BURST_GRACE_MS);	/* their stores drain meanwhile */
	deadline = rte_get_timer_cycles() + rte_get_timer_hz() * QUIESCE_MAX_MS / 1000;
	for (q = 0; q < dev->data->nb_rx_queues; q++) {
		struct refnic_rx_queue *rxq = dev->data->rx_queues[q];

		if (rxq != NULL)
			burst_wait(&rxq->in_burst, deadline, dev->data->port_id, "RX", q);
	}
	for (q = 0; q < dev->data->nb_tx_queues; q++) {
		struct refnic_tx_queue *txq = dev->data->tx_queues[q];

		if (txq != NULL)
			burst_wait(&txq->in_burst, deadline, dev->data->port_id, "TX", q);
	}
}

static void
recovery_alarm(void *arg)
{
	uint16_t port_id = (uintptr_t)arg;
	struct rte_eth_dev *dev = &rte_eth_devices[port_id];
	struct refnic_recovery_state saved;
	struct refnic_adapter *ad;
	unsigned int attempt;
	int ret = -EIO;

	REFNIC_EAL_SYNC_ACQUIRE(dev);
	ad = refnic_adapter(dev);
	/* Stopped meanwhile: the application's call. */
	if (!__atomic_load_n(&ad->started, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&ad->recovering, false, __ATOMIC_RELEASE);
		reset_event_alarm(arg);
		return;
	}
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_ERR_RECOVERING, NULL);
	bursts_quiesce(dev);
	refnic_recovery_state_save(dev, &saved);
	for (attempt = 0; attempt < RECOVERY_ATTEMPTS && ret != 0; attempt++)
		ret = refnic_dev_recover(dev, &saved);
	/* From here a failure a burst finds is a new one, to act on: armed
	 * again before the bursts come in (a failure a burst found before
	 * reset_event_sent was cleared went unanswered, its queue dead). */
	if (ret == 0)
		__atomic_store_n(&ad->reset_event_sent, false, __ATOMIC_RELEASE);
	__atomic_store_n(&ad->recovering, false, __ATOMIC_RELEASE);
	/* Let them in, to a failed port's queues stopped (until
	 * rte_eth_dev_reset()). */
	bursts_hold(dev, false, ret != 0);
	if (ret == 0) {
		__atomic_fetch_add(&ad->failure_stats.recoveries, 1, __ATOMIC_RELAXED);
		PMD_DRV_LOG(NOTICE, "port %u: recovered", port_id);
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_RECOVERY_SUCCESS, NULL);
	} else {
		/* Left stopped, as said: no doorbell check on a dead port. */
		__atomic_store_n(&ad->failed, true, __ATOMIC_RELEASE);
		refnic_db_check_stop(dev);
		__atomic_store_n(&ad->started, false, __ATOMIC_RELEASE);
		dev->data->dev_started = 0;
		__atomic_fetch_add(&ad->failure_stats.recovery_failures, 1, __ATOMIC_RELAXED);
		PMD_DRV_LOG(ERR, "port %u: recovery failed %u times (%s); the port is stopped "
			    "until rte_eth_dev_reset()", port_id, RECOVERY_ATTEMPTS,
			    rte_strerror(-ret));
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_RECOVERY_FAILED, NULL);
	}
	REFNIC_EAL_SYNC_RELEASE(dev);
}

/* In the primary, on EAL's multi-process thread: a secondary's report. */
static int
failure_action(const struct rte_mp_msg *msg, const void *peer __rte_unused)
{
	const struct failure_msg *f = (const struct failure_msg *)msg->param;
	char why[sizeof(f->why) + 32];

	if (msg->len_param != sizeof(*f) || !rte_eth_dev_is_valid_port(f->port_id) ||
	    !refnic_is_port(&rte_eth_devices[f->port_id]))
		return 0;
	snprintf(why, sizeof(why), "%.*s (in a secondary process)", (int)sizeof(f->why) - 1,
		 f->why);
	refnic_reset_needed(refnic_adapter(&rte_eth_devices[f->port_id]), why);
	return 0;
}

void
refnic_failure_listen(void)
{
	static bool listening;

	if (listening || rte_eal_process_type() != RTE_PROC_PRIMARY)
		return;
	/* ENOTSUP: no multi-process here (--no-shconf, --in-memory). */
	if (rte_mp_action_register(FAILURE_MP_ACTION, failure_action) == 0 ||
	    rte_errno == EEXIST || rte_errno == ENOTSUP)
		listening = true;
}

/* Recovery is the primary's (admin queue, alarms, events): tell it. */
static void
failure_forward(struct refnic_adapter *ad, const char *why)
{
	struct rte_mp_msg msg = { .len_param = sizeof(struct failure_msg) };
	struct failure_msg *f = (struct failure_msg *)msg.param;

	strlcpy(msg.name, FAILURE_MP_ACTION, sizeof(msg.name));
	f->port_id = ad->port_id;
	strlcpy(f->why, why, sizeof(f->why));
	if (rte_mp_sendmsg(&msg) != 0)
		PMD_DRV_LOG(ERR, "port %u: %s; cannot tell the primary process: %s",
			    ad->port_id, why, rte_strerror(rte_errno));
}

void
refnic_reset_needed(struct refnic_adapter *ad, const char *why)
{
	bool started = __atomic_load_n(&ad->started, __ATOMIC_ACQUIRE);
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		failure_forward(ad, why);
		return;
	}
	/* A recovery under way judges its own failures. */
	if (__atomic_load_n(&ad->recovering, __ATOMIC_ACQUIRE) ||
	    __atomic_exchange_n(&ad->reset_event_sent, true, __ATOMIC_ACQ_REL))
		return;
	PMD_DRV_LOG(NOTICE, "port %u: %s: %s", ad->port_id, why,
		    started ? "recovering" : "RTE_ETH_EVENT_INTR_RESET");
	if (started)
		__atomic_store_n(&ad->recovering, true, __ATOMIC_RELEASE);
	REFNIC_EAL_SYNC_RELEASE(&rte_eth_devices[ad->port_id]);
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

/*
 * The application stops the port. A recovery running on the interrupt
 * thread finishes first (rte_eal_alarm_cancel() waits for it): it must not
 * rebuild queues a stop, reset or close is taking apart. One not begun yet
 * is moot on a stopped port, which gets RTE_ETH_EVENT_INTR_RESET instead.
 */
void
refnic_recovery_wait(struct refnic_adapter *ad)
{
	void *port = (void *)(uintptr_t)ad->port_id;
	int ret;

	ret = rte_eal_alarm_cancel(recovery_alarm, port);
	REFNIC_EAL_SYNC_ACQUIRE(&rte_eth_devices[ad->port_id]);
	if (ret <= 0)
		return;
	__atomic_store_n(&ad->recovering, false, __ATOMIC_RELEASE);
	REFNIC_EAL_SYNC_RELEASE(&rte_eth_devices[ad->port_id]);
	if (rte_eal_alarm_set(1, reset_event_alarm, port) != 0)
		__atomic_store_n(&ad->reset_event_sent, false, __ATOMIC_RELEASE);
}

/* The port was reset (or is closing): a later failure is a new one. */
void
refnic_reset_event_clear(struct refnic_adapter *ad)
{
	rte_eal_alarm_cancel(reset_event_alarm, (void *)(uintptr_t)ad->port_id);
	rte_eal_alarm_cancel(recovery_alarm, (void *)(uintptr_t)ad->port_id);
	REFNIC_EAL_SYNC_ACQUIRE(&rte_eth_devices[ad->port_id]);
	__atomic_store_n(&ad->recovering, false, __ATOMIC_RELEASE);
	__atomic_store_n(&ad->reset_event_sent, false, __ATOMIC_RELEASE);
}
