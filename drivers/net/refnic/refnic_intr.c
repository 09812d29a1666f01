/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Interrupts. Vector 0 carries the device's async events (link changes,
 * fatal errors). Its eventfd is watched by the EAL interrupt thread; the
 * handler drains the event ring and raises RTE_ETH_EVENT_INTR_LSC when the
 * port's link changed and the application asked for it (intr_conf.lsc).
 *
 * With intr_conf.rxq, vector 1 + q is queue pair q's: its eventfd goes into
 * the port's interrupt handle as RX queue q's, where
 * rte_eth_dev_rx_intr_ctl_q() finds it for the application's epoll set.
 * The handle is a VDEV one: EAL reads (clears) the eventfd when a wait
 * returns on it. Arming is one-shot in the device: a write of the queue's
 * completion index with REFNIC_Q_CQ_ARM, so a completion written before
 * the arm fires at once and none is missed between the last poll and the
 * sleep. Nothing of it touches the burst functions.
 */

#include <sys/eventfd.h>

#include <rte_interrupts.h>

#include "refnic.h"
#include "refnic_tsan.h"
#include "refnic_rxtx.h"
#include "rte_pmd_refnic.h"

#define REFNIC_AEQ_DEPTH	64

/* Program the event ring into the device; after every device reset. */
int
refnic_aeq_setup(struct refnic_adapter *ad)
{
	struct refnic_aeq *aeq = &ad->aeq;

	if (!(refnic_reg_read(&ad->hw, REFNIC_REG_CAPS_LO) & REFNIC_CAP_AEQ))
		return 0;

	if (aeq->mz == NULL) {
		char name[RTE_MEMZONE_NAMESIZE];

		snprintf(name, sizeof(name), "refnic_aeq_%p", (void *)ad);
		rte_spinlock_init(&aeq->lock);
		aeq->mz = rte_memzone_reserve_aligned(name,
						      REFNIC_AEQ_DEPTH * sizeof(*aeq->ring),
						      SOCKET_ID_ANY, RTE_MEMZONE_IOVA_CONTIG,
						      RTE_CACHE_LINE_SIZE);
		if (aeq->mz == NULL)
			return -ENOMEM;
	}
	rte_spinlock_lock(&aeq->lock);
	memset(aeq->mz->addr, 0, aeq->mz->len);
	aeq->ring = aeq->mz->addr;
	aeq->head = 0;
	aeq->phase = REFNIC_PHASE_BIT;
	rte_spinlock_unlock(&aeq->lock);
	refnic_reg_write64(&ad->hw, REFNIC_REG_AEQ_BASE_LO, aeq->mz->iova);
	refnic_reg_write(&ad->hw, REFNIC_REG_AEQ_DEPTH, REFNIC_AEQ_DEPTH);
	refnic_reg_write(&ad->hw, REFNIC_REG_AEQ_HEAD, 0);
	refnic_reg_write(&ad->hw, REFNIC_REG_AEQ_CTRL, REFNIC_AEQ_CTRL_ENABLE);
	return 0;
}

/*
 * Does the status register of started queue qid say the device stopped it
 * on an error? Then its bursts stop (broken) until a recovery restarts it,
 * and true: the caller reports the failure once it holds no lock. seen:
 * how the driver came to look, for the log.
 */
bool
refnic_queue_error_confirm(struct rte_eth_dev *dev, bool tx, uint16_t qid, const char *seen)
{
	struct refnic_rx_queue *rxq = tx ? NULL : dev->data->rx_queues[qid];
	struct refnic_tx_queue *txq = tx ? dev->data->tx_queues[qid] : NULL;
	uint32_t status;

	status = refnic_reg_read(&refnic_adapter(dev)->hw, (tx ? REFNIC_REG_TXQ(qid) :
				 REFNIC_REG_RXQ(qid)) + REFNIC_Q_STATUS);
	if (!(status & REFNIC_Q_STATUS_ERROR))
		return false;
	if (rxq != NULL)
		__atomic_store_n(&rxq->broken, true, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&txq->broken, true, __ATOMIC_RELEASE);
	PMD_DRV_LOG(ERR, "port %u: device stopped %s queue %u on an error (%s)",
		    dev->data->port_id, tx ? "TX" : "RX", qid, seen);
	return true;
}

/*
 * The device stopped one of our queues: it moves nothing until a reset.
 * Returns true if that is a started queue of the port whose status
 * register says so too (the event is untrusted; the device sets the
 * status before it posts).
 */
static bool
queue_error_event(struct rte_eth_dev *dev, uint32_t data)
{
	uint16_t type = data >> 16, qid = data & UINT16_MAX;
	struct refnic_rx_queue *rxq = NULL;
	struct refnic_tx_queue *txq = NULL;

	if (type == REFNIC_QTYPE_RX && qid < dev->data->nb_rx_queues)
		rxq = dev->data->rx_queues[qid];
	else if (type == REFNIC_QTYPE_TX && qid < dev->data->nb_tx_queues)
		txq = dev->data->tx_queues[qid];
	if ((rxq == NULL || !rxq->started) && (txq == NULL || !txq->started)) {
		PMD_DRV_LOG(ERR, "port %u: queue error event for queue %u of type %u, "
			    "which the port has not started", dev->data->port_id, qid, type);
		return false;
	}
	if (refnic_queue_error_confirm(dev, rxq == NULL, qid, "event"))
		return true;
	PMD_DRV_LOG(ERR, "port %u: queue error event for %s queue %u, whose status "
		    "shows no error: ignored", dev->data->port_id, rxq != NULL ? "RX" : "TX", qid);
	return false;
}

/*
 * Read the new events, at most a ring's worth per call: a device that
 * keeps posting must not hold the interrupt thread. What is left waits for
 * the next call, which the handler asks for by signalling its own vector.
 * Runs in the EAL interrupt thread.
 */
static void
refnic_aeq_process(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_aeq *aeq = &ad->aeq;
	bool link_changed = false, fatal = false, queue_error = false;
	unsigned int budget = REFNIC_AEQ_DEPTH;
	uint16_t start;

	rte_spinlock_lock(&aeq->lock);
	start = aeq->head;
	for (;;) {
		const struct refnic_event *ev = &aeq->ring[aeq->head];

		if ((__atomic_load_n(&ev->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) !=
		    aeq->phase)
			break;
		if (budget-- == 0) {
			eventfd_write(ad->hw.vector_fd[REFNIC_ADMIN_VECTOR], 1);
			break;
		}
		switch (ev->type) {
		case REFNIC_EVENT_LINK_CHANGE:
			link_changed = true;
			break;
		case REFNIC_EVENT_FATAL:
			PMD_DRV_LOG(ERR, "port %u: device reports fatal error %u",
				    dev->data->port_id, ev->data);
			fatal = true;
			break;
		case REFNIC_EVENT_QUEUE_ERROR:
			queue_error |= queue_error_event(dev, ev->data);
			break;
		default:
			PMD_DRV_LOG(DEBUG, "port %u: event %u ignored",
				    dev->data->port_id, ev->type);
			break;
		}
		aeq->head = (aeq->head + 1) % REFNIC_AEQ_DEPTH;
		if (aeq->head == 0)
			aeq->phase ^= REFNIC_PHASE_BIT;
	}
	if (aeq->head != start)
		refnic_reg_write(&ad->hw, REFNIC_REG_AEQ_HEAD, aeq->head);
	rte_spinlock_unlock(&aeq->lock);
	if (fatal)
		refnic_port_fail(ad, "device fatal error");
	else if (queue_error)
		refnic_queue_failed(ad, "the device stopped a queue");
	/* The event says something changed; the status register says what. */
	if (link_changed && dev->dev_ops->link_update(dev, 0) == 0 &&
	    dev->data->dev_conf.intr_conf.lsc)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
}

static void
refnic_intr_handler(void *arg)
{
	struct rte_eth_dev *dev = arg;
	eventfd_t count;

	REFNIC_EAL_SYNC_ACQUIRE(dev);
	eventfd_read(refnic_adapter(dev)->hw.vector_fd[REFNIC_ADMIN_VECTOR], &count);
	refnic_aeq_process(dev);
	REFNIC_EAL_SYNC_RELEASE(dev);
}

int
refnic_intr_init(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct rte_intr_handle *h;
	int ret;

	h = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_SHARED);
	if (h == NULL)
		return -ENOMEM;
	if (rte_intr_fd_set(h, ad->hw.vector_fd[REFNIC_ADMIN_VECTOR]) != 0 ||
	    rte_intr_type_set(h, RTE_INTR_HANDLE_VDEV) != 0 ||
	    rte_intr_efd_counter_size_set(h, sizeof(eventfd_t)) != 0) {
		rte_intr_instance_free(h);
		return -EINVAL;
	}
	/* Without an event queue there are no link events to deliver. */
	if (ad->ident.caps & REFNIC_CAP_AEQ) {
		REFNIC_EAL_SYNC_RELEASE(dev);
		ret = rte_intr_callback_register(h, refnic_intr_handler, dev);
		if (ret != 0) {
			PMD_INIT_LOG(ERR, "cannot register the event interrupt: %s",
				     rte_strerror(-ret));
			rte_intr_instance_free(h);
			return ret;
		}
		dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC;
		ad->events_registered = true;
	}
	dev->intr_handle = h;
	return 0;
}

/* dev_start with intr_conf.rxq: RX queue q's interrupt is vector 1 + q. */
int
refnic_rxq_intr_setup(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct rte_intr_handle *h = dev->intr_handle;
	uint16_t nb = dev->data->nb_rx_queues, q;

	if (!dev->data->dev_conf.intr_conf.rxq)
		return 0;
	if (h == NULL || nb >= ad->hw.nb_vectors || nb > RTE_MAX_RXTX_INTR_VEC_ID) {
		PMD_DRV_LOG(ERR, "port %u: %u RX queue interrupts asked, the device has %u",
			    dev->data->port_id, nb, h == NULL ? 0 : ad->hw.nb_vectors - 1);
		return -ENOTSUP;
	}
	if (rte_intr_vec_list_alloc(h, "refnic_intr_vec", nb) != 0)
		return -ENOMEM;
	for (q = 0; q < nb; q++) {
		if (rte_intr_vec_list_index_set(h, q, RTE_INTR_VEC_RXTX_OFFSET + q) != 0 ||
		    rte_intr_efds_index_set(h, q, ad->hw.vector_fd[REFNIC_QUEUE_VECTOR(q)]) != 0) {
			refnic_rxq_intr_teardown(dev);
			return -rte_errno;
		}
	}
	if (rte_intr_nb_efd_set(h, nb) != 0 || rte_intr_max_intr_set(h, nb + 1) != 0) {
		refnic_rxq_intr_teardown(dev);
		return -rte_errno;
	}
	return 0;
}

/* The eventfds are the device's: take them out of epoll sets, never close them. */
void
refnic_rxq_intr_teardown(struct rte_eth_dev *dev)
{
	struct rte_intr_handle *h = dev->intr_handle;

	if (h == NULL || rte_intr_nb_efd_get(h) <= 0)
		return;
	rte_intr_free_epoll_fd(h);
	rte_intr_nb_efd_set(h, 0);
	rte_intr_max_intr_set(h, 0);
	rte_intr_vec_list_free(h);
}

static bool
queue_intr_ready(struct rte_eth_dev *dev, bool started)
{
	return dev->data->dev_conf.intr_conf.rxq && started &&
	       !refnic_port_failed(refnic_adapter(dev));
}

static int
rxq_intr_write(struct rte_eth_dev *dev, uint16_t qid, bool arm)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_rx_queue *rxq = dev->data->rx_queues[qid];

	if (rxq == NULL || !queue_intr_ready(dev, rxq->started))
		return -EINVAL;
	if (arm)
		refnic_itr_adapt(ad, qid, false,
				 __atomic_load_n(&rxq->stats.packets, __ATOMIC_RELAXED), rxq->size);
	refnic_reg_write(&ad->hw, REFNIC_REG_RXQ(qid) + REFNIC_Q_CQ_HEAD,
			 rxq->next | (arm ? REFNIC_Q_CQ_ARM : 0));
	return 0;
}

int
refnic_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t qid)
{
	return rxq_intr_write(dev, qid, true);
}

int
refnic_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t qid)
{
	return rxq_intr_write(dev, qid, false);
}

static int
txq_intr_write(uint16_t port_id, uint16_t qid, bool arm)
{
	struct refnic_tx_queue *txq;
	struct refnic_adapter *ad;
	struct rte_eth_dev *dev;
	int ret = refnic_port_queue_get(port_id, qid, true, &dev);

	if (ret != 0)
		return ret;
	ad = refnic_adapter(dev);
	txq = qid < dev->data->nb_tx_queues ? dev->data->tx_queues[qid] : NULL;
	if (txq == NULL || !queue_intr_ready(dev, txq->started)) {
		PMD_DRV_LOG(ERR, "port %u TX queue %u: no interrupt (needs intr_conf.rxq "
			    "and a started queue)", port_id, qid);
		return -EINVAL;
	}
	if (arm)
		refnic_itr_adapt(ad, qid, true,
				 __atomic_load_n(&txq->stats.packets, __ATOMIC_RELAXED), txq->size);
	refnic_reg_write(&ad->hw, REFNIC_REG_TXQ(qid) + REFNIC_Q_CQ_HEAD,
			 txq->cq_head | (arm ? REFNIC_Q_CQ_ARM : 0));
	return 0;
}

int
rte_pmd_refnic_tx_intr_enable(uint16_t port_id, uint16_t queue_id)
{
	return txq_intr_write(port_id, queue_id, true);
}

int
rte_pmd_refnic_tx_intr_disable(uint16_t port_id, uint16_t queue_id)
{
	return txq_intr_write(port_id, queue_id, false);
}

#define INTR_UNREGISTER_WAIT_US	1000000

static void
refnic_intr_free_handle(struct rte_intr_handle *h, void *arg __rte_unused)
{
	rte_intr_instance_free(h);
}

void
refnic_intr_fini(struct rte_eth_dev *dev)
{
	struct rte_intr_handle *h = dev->intr_handle;
	unsigned int waited_us = 0;
	int ret;

	if (h == NULL)
		return;
	refnic_rxq_intr_teardown(dev);
	dev->intr_handle = NULL;
	if (!refnic_adapter(dev)->events_registered) {
		rte_intr_instance_free(h);
		return;
	}
	/* Closed from an event callback, i.e. inside our own handler: the
	 * interrupt thread drops the callback once the handler returns. */
	if (rte_thread_is_intr()) {
		rte_intr_callback_unregister_pending(h, refnic_intr_handler, dev,
						     refnic_intr_free_handle);
		return;
	}
	/* -EAGAIN while the handler runs elsewhere: wait, for a while. */
	while ((ret = rte_intr_callback_unregister(h, refnic_intr_handler, dev)) == -EAGAIN &&
	       waited_us < INTR_UNREGISTER_WAIT_US) {
		rte_delay_us_sleep(100);
		waited_us += 100;
	}
	REFNIC_EAL_SYNC_ACQUIRE(dev);
	if (ret == -EAGAIN) {
		PMD_DRV_LOG(ERR, "port %u: event handler still running; its interrupt "
			    "handle is left allocated", dev->data->port_id);
		return;
	}
	rte_intr_instance_free(h);
}

/* Only once the device forgot the ring (after a reset). */
void
refnic_aeq_free(struct refnic_adapter *ad)
{
	rte_memzone_free(ad->aeq.mz);
	ad->aeq.mz = NULL;
}
