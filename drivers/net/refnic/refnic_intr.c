/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Interrupts: vector 0 carries the device's async events (link changes,
 * fatal errors). Its eventfd is watched by the EAL interrupt thread; the
 * handler drains the event ring and raises RTE_ETH_EVENT_INTR_LSC when the
 * port's link changed and the application asked for it (intr_conf.lsc).
 */

#include <sys/eventfd.h>

#include <rte_interrupts.h>

#include "refnic.h"

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

/* Read every new event; runs in the EAL interrupt thread. */
static void
refnic_aeq_process(struct rte_eth_dev *dev)
{
	struct refnic_adapter *ad = refnic_adapter(dev);
	struct refnic_aeq *aeq = &ad->aeq;
	bool link_changed = false, fatal = false;
	uint16_t start;

	rte_spinlock_lock(&aeq->lock);
	start = aeq->head;
	for (;;) {
		const struct refnic_event *ev = &aeq->ring[aeq->head];

		if ((__atomic_load_n(&ev->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) !=
		    aeq->phase)
			break;
		switch (ev->type) {
		case REFNIC_EVENT_LINK_CHANGE:
			link_changed = true;
			break;
		case REFNIC_EVENT_FATAL:
			PMD_DRV_LOG(ERR, "port %u: device reports fatal error %u",
				    dev->data->port_id, ev->data);
			fatal = true;
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
	if (fatal) {
		ad->failed = true;
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RESET, NULL);
	}
	/* The event says something changed; the status register says what. */
	if (link_changed && dev->dev_ops->link_update(dev, 0) == 0 &&
	    dev->data->dev_conf.intr_conf.lsc)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
}

static void
refnic_intr_handler(void *arg)
{
	struct rte_eth_dev *dev = arg;
	struct refnic_adapter *ad = refnic_adapter(dev);
	eventfd_t count;

	eventfd_read(ad->hw.vector_fd[REFNIC_ADMIN_VECTOR], &count);
	refnic_aeq_process(dev);
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
	    rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) != 0) {
		rte_intr_instance_free(h);
		return -EINVAL;
	}
	/* Without an event queue there are no link events to deliver. */
	if (!(ad->ident.caps & REFNIC_CAP_AEQ)) {
		rte_intr_instance_free(h);
		return 0;
	}
	ret = rte_intr_callback_register(h, refnic_intr_handler, dev);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "cannot register the event interrupt: %s", rte_strerror(-ret));
		rte_intr_instance_free(h);
		return ret;
	}
	dev->intr_handle = h;
	dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC;
	return 0;
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
	dev->intr_handle = NULL;
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
