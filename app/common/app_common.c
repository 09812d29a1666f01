/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>

#include "app_common.h"

volatile sig_atomic_t app_quit;
static bool port_started[RTE_MAX_ETHPORTS];
static unsigned int intr_drain_rounds;

static void
on_signal(int sig __rte_unused)
{
	app_quit = 1;
}

void
app_signals_install(void)
{
	/* A second signal is not caught: it ends a stop that hangs. */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int
app_port_start(uint16_t port, const struct app_port_conf *conf, struct rte_mempool *mp)
{
	struct rte_eth_conf eth_conf = { .rxmode = { .mq_mode = RTE_ETH_MQ_RX_NONE } };
	struct rte_eth_dev_info info;
	uint16_t nb_rxd = conf->nb_rxd, nb_txd = conf->nb_txd, q;
	int ret;

	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		goto fail;
	if (conf->nb_rxq > 1) {
		eth_conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		eth_conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads &
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP);
	}
	eth_conf.intr_conf.rxq = conf->rx_intr;
	if (conf->mtu != 0)
		eth_conf.rxmode.mtu = conf->mtu;
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
		eth_conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
	if (conf->rx_timestamp && (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP))
		eth_conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
	ret = rte_eth_dev_configure(port, conf->nb_rxq, conf->nb_txq, &eth_conf);
	if (ret != 0)
		goto fail;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret != 0)
		goto fail;
	for (q = 0; q < conf->nb_rxq; q++) {
		ret = rte_eth_rx_queue_setup(port, q, nb_rxd, rte_eth_dev_socket_id(port),
					     NULL, mp);
		if (ret != 0)
			goto fail;
	}
	for (q = 0; q < conf->nb_txq; q++) {
		struct rte_eth_txconf txconf = info.default_txconf;

		txconf.offloads = eth_conf.txmode.offloads;
		ret = rte_eth_tx_queue_setup(port, q, nb_txd, rte_eth_dev_socket_id(port),
					     &txconf);
		if (ret != 0)
			goto fail;
	}
	ret = rte_eth_dev_start(port);
	if (ret != 0)
		goto fail;
	port_started[port] = true;
	/* Not every PMD has a promiscuous mode (net_null has none): not fatal. */
	if (conf->promisc && rte_eth_promiscuous_enable(port) != 0)
		fprintf(stderr, "port %u: cannot enable promiscuous mode\n", port);
	return 0;
fail:
	fprintf(stderr, "port %u: cannot start: %s\n", port, rte_strerror(-ret));
	return ret;
}

static void
intr_drain_cb(void *arg)
{
	struct rte_intr_handle *ih = arg;
	uint64_t v;

	if (read(rte_intr_fd_get(ih), &v, sizeof(v)) == sizeof(v))
		__atomic_add_fetch(&intr_drain_rounds, 1, __ATOMIC_RELEASE);
}

/*
 * Return once the EAL interrupt thread has handled every event pending now.
 * Stopping or closing one end of a pair that lives in this process (memif's
 * server and client) wakes the other end's handler on that thread, and
 * memif's handler and its own stop/close free the same regions unlocked.
 * Two rounds of an eventfd: the second write follows the first callback, so
 * it is seen by a later epoll_wait than every event already pending.
 */
static void
intr_thread_drain(void)
{
	struct rte_intr_handle *ih;
	uint64_t one = 1, deadline;
	unsigned int round;
	int fd;

	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return;
	ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (ih == NULL || rte_intr_fd_set(ih, fd) != 0 ||
	    rte_intr_type_set(ih, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(ih, intr_drain_cb, ih) != 0)
		goto out;
	__atomic_store_n(&intr_drain_rounds, 0, __ATOMIC_RELAXED);
	deadline = rte_get_timer_cycles() + rte_get_timer_hz();	/* 1 s */
	for (round = 1; round <= 2; round++) {
		if (write(fd, &one, sizeof(one)) != sizeof(one))
			break;
		while (__atomic_load_n(&intr_drain_rounds, __ATOMIC_ACQUIRE) < round &&
		       rte_get_timer_cycles() < deadline)
			rte_delay_us_sleep(100);
	}
	rte_intr_callback_unregister_sync(ih, intr_drain_cb, ih);
out:
	rte_intr_instance_free(ih);
	close(fd);
}

void
app_ports_close(void)
{
	uint16_t port;

	RTE_ETH_FOREACH_DEV(port) {
		if (!port_started[port])
			continue;
		port_started[port] = false;
		rte_eth_dev_stop(port);
		intr_thread_drain();
		rte_eth_dev_close(port);
		intr_thread_drain();
	}
}

bool
app_rx_intr_usable(const char *prog, uint16_t port, uint16_t queue)
{
	struct rte_eth_dev_info info;
	int ret = rte_eth_dev_rx_intr_enable(port, queue);

	if (ret == 0) {
		rte_eth_dev_rx_intr_disable(port, queue);
		return true;
	}
	if (rte_eth_dev_info_get(port, &info) != 0)
		info.driver_name = "?";
	fprintf(stderr, "%s: port %u (%s) has no Rx interrupts; use --wait poll\n", prog, port,
		info.driver_name);
	return false;
}

bool
app_wait_link(uint16_t port, unsigned int timeout_ms)
{
	struct rte_eth_link link;
	unsigned int waited;

	for (waited = 0; waited <= timeout_ms && !app_quit; waited += 10) {
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return true;
		/* Sleep: the device behind the port may need this core. */
		rte_delay_us_sleep(10000);
	}
	return false;
}

int
app_parse_u64(const char *prog, const char *what, const char *s,
	      uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, "%s: %s: '%s' is not a number from %" PRIu64 " to %" PRIu64 "\n",
			prog, what, s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}
