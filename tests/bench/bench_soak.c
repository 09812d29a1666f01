/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Soak: minutes of forwarding between two refnic ports while the main
 * lcore, every PERTURB_MS, does one thing a bad day brings: a link flap,
 * a queue stopped and started, a port reset, a device fatal error (the
 * PMD recovers by itself), a burst of garbled completions, a port
 * detached and attached again. At the end, a summary a person can read:
 * what happened how often, frames sent and received, drops and where they
 * were counted, mbufs in use against the baseline, and that the process
 * is alive to print it.
 *
 *   refnic-bench-soak [seconds]
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "refnic_emu.h"

#define PORT_A		"net_refnic_soak_a"
#define PORT_B		"net_refnic_soak_b"
#define RING		512
#define BURST		32
#define PERTURB_MS	200

enum perturbation {
	P_LINK_FLAP,
	P_QUEUE_RESTART,
	P_PORT_RESET,
	P_FATAL,
	P_GARBLE,
	P_DETACH,
	NB_PERTURBATIONS
};

static const char * const perturbation_names[NB_PERTURBATIONS] = {
	"link flaps", "queue stop/start", "port resets", "device fatal errors",
	"garbled completion bursts", "detach/attach",
};

static struct rte_mempool *pool;
static uint16_t ports[2];
static const char * const names[2] = { PORT_A, PORT_B };

/* The forwarding lcore, and the main lcore's hold on it around control calls. */
static volatile bool fwd_stop, fwd_hold, fwd_held;
static uint64_t sent, received;
static unsigned int events[RTE_ETH_EVENT_MAX];

static int
event_cb(uint16_t port __rte_unused, enum rte_eth_event_type type, void *arg __rte_unused,
	 void *ret __rte_unused)
{
	__atomic_fetch_add(&events[type], 1, __ATOMIC_RELAXED);
	return 0;
}

static const enum rte_eth_event_type watched[] = {
	RTE_ETH_EVENT_INTR_LSC, RTE_ETH_EVENT_INTR_RESET, RTE_ETH_EVENT_ERR_RECOVERING,
	RTE_ETH_EVENT_RECOVERY_SUCCESS, RTE_ETH_EVENT_RECOVERY_FAILED,
};

static int
port_up(unsigned int i)
{
	struct rte_eth_conf conf = { .intr_conf = { .lsc = 1 } };
	unsigned int e;
	int ret;

	if (rte_eth_dev_get_port_by_name(names[i], &ports[i]) != 0)
		return -1;
	for (e = 0; e < RTE_DIM(watched); e++)
		rte_eth_dev_callback_register(ports[i], watched[e], event_cb, NULL);
	rte_eth_dev_stop(ports[i]);
	ret = rte_eth_dev_configure(ports[i], 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(ports[i], 0, RING, SOCKET_ID_ANY, NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(ports[i], 0, RING, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(ports[i]);
	if (ret == 0)
		ret = rte_eth_promiscuous_enable(ports[i]);
	return ret;
}

static int
port_attach(unsigned int i)
{
	if (rte_vdev_init(names[i], "cable=soak,profile=ideal") != 0)
		return -1;
	return port_up(i);
}

static void
port_detach(unsigned int i)
{
	unsigned int e;

	for (e = 0; e < RTE_DIM(watched); e++)
		rte_eth_dev_callback_unregister(ports[i], watched[e], event_cb, NULL);
	rte_eth_dev_stop(ports[i]);
	rte_eth_dev_close(ports[i]);
	rte_vdev_uninit(names[i]);
}

/* Each port sends a burst to the other and takes what came. */
static int
forward(void *arg __rte_unused)
{
	struct rte_mbuf *m[BURST];
	unsigned int i, k, n;

	while (!fwd_stop) {
		if (fwd_hold) {
			fwd_held = true;
			while (fwd_hold && !fwd_stop)
				rte_pause();
			fwd_held = false;
			continue;
		}
		for (i = 0; i < 2; i++) {
			if (rte_pktmbuf_alloc_bulk(pool, m, BURST) == 0) {
				for (k = 0; k < BURST; k++) {
					struct rte_ether_hdr *eh =
						rte_pktmbuf_mtod(m[k], struct rte_ether_hdr *);

					memset(eh, 0xff, sizeof(*eh));
					eh->ether_type = rte_cpu_to_be_16(0x88b5);
					m[k]->data_len = m[k]->pkt_len = 64 + (k % 4) * 300;
				}
				n = rte_eth_tx_burst(ports[i], 0, m, BURST);
				sent += n;
				rte_pktmbuf_free_bulk(m + n, BURST - n);
			}
			n = rte_eth_rx_burst(ports[i ^ 1], 0, m, BURST);
			received += n;
			rte_pktmbuf_free_bulk(m, n);
		}
	}
	return 0;
}

/* The forwarding lcore out of the PMD while the main lcore uses control calls. */
static void
hold(bool on)
{
	fwd_hold = on;
	while (on && !fwd_held)
		rte_pause();
}

static void
perturb(enum perturbation p, unsigned int i)
{
	struct rte_eth_conf conf = { .intr_conf = { .lsc = 1 } };
	struct refnic_emu_faults garble = {
		.corrupt_what = REFNIC_EMU_CORRUPT_RX | REFNIC_EMU_CORRUPT_TX,
		.corrupt_every = 50,
	};
	struct refnic_emu_faults none = { 0 };
	struct refnic_emu *emu = refnic_emu_lookup(names[i]);

	switch (p) {
	case P_LINK_FLAP:
		refnic_emu_set_cable_plugged(emu, false);
		rte_delay_ms(20);
		refnic_emu_set_cable_plugged(emu, true);
		break;
	case P_QUEUE_RESTART:
		hold(true);
		rte_eth_dev_rx_queue_stop(ports[i], 0);
		rte_eth_dev_tx_queue_stop(ports[i], 0);
		rte_eth_dev_rx_queue_start(ports[i], 0);
		rte_eth_dev_tx_queue_start(ports[i], 0);
		hold(false);
		break;
	case P_PORT_RESET:
		hold(true);
		rte_eth_dev_stop(ports[i]);
		if (rte_eth_dev_reset(ports[i]) == 0 &&
		    rte_eth_dev_configure(ports[i], 1, 1, &conf) == 0)
			port_up(i);
		hold(false);
		break;
	case P_FATAL:
		refnic_emu_inject_fatal(emu);	/* the PMD recovers on its own */
		break;
	case P_GARBLE:
		refnic_emu_set_faults(emu, &garble);
		rte_delay_ms(50);
		refnic_emu_set_faults(emu, &none);
		break;
	case P_DETACH:
		hold(true);
		port_detach(i);
		if (port_attach(i) != 0)
			printf("  attach of %s failed\n", names[i]);
		hold(false);
		break;
	default:
		break;
	}
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-huge", "-m", "1024", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0-1", "--log-level=pmd.net.refnic.*:error",
			NULL };
	double seconds = argc > 1 ? atof(argv[1]) : 180.0;
	unsigned int counts[NB_PERTURBATIONS] = { 0 }, baseline, p, i, in_use;
	uint64_t end, hz;
	struct rte_eth_stats st;
	uint64_t missed = 0, errors = 0;

	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0 || rte_lcore_count() < 2) {
		fprintf(stderr, "EAL init failed (two lcores needed)\n");
		return 1;
	}
	pool = rte_pktmbuf_pool_create("soak", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL)
		return 1;
	baseline = rte_mempool_in_use_count(pool);
	if (port_attach(0) != 0 || port_attach(1) != 0) {
		fprintf(stderr, "cannot set up the ports\n");
		return 1;
	}
	hz = rte_get_timer_hz();
	end = rte_get_timer_cycles() + (uint64_t)(seconds * hz);
	rte_eal_remote_launch(forward, NULL, rte_get_next_lcore(-1, 1, 0));
	while (rte_get_timer_cycles() < end) {
		rte_delay_ms(PERTURB_MS);
		p = rte_rand_max(NB_PERTURBATIONS);
		i = rte_rand_max(2);
		perturb(p, i);
		counts[p]++;
	}
	rte_delay_ms(500);	/* a recovery under way ends */
	fwd_stop = true;
	rte_eal_mp_wait_lcore();
	for (i = 0; i < 2; i++) {
		if (rte_eth_stats_get(ports[i], &st) == 0) {
			missed += st.imissed;
			errors += st.ierrors + st.oerrors;
		}
	}
	port_detach(0);
	port_detach(1);
	in_use = rte_mempool_in_use_count(pool);

	printf("# ./devtools/bench.sh soak %.0f\n", seconds);
	printf("perturbations, one every %u ms on a random port:\n", PERTURB_MS);
	for (p = 0; p < NB_PERTURBATIONS; p++)
		printf("  %-28s %u\n", perturbation_names[p], counts[p]);
	printf("events: %u link changes, %u recovering, %u recovered, %u recovery failed, "
	       "%u reset requests\n", events[RTE_ETH_EVENT_INTR_LSC],
	       events[RTE_ETH_EVENT_ERR_RECOVERING], events[RTE_ETH_EVENT_RECOVERY_SUCCESS],
	       events[RTE_ETH_EVENT_RECOVERY_FAILED], events[RTE_ETH_EVENT_INTR_RESET]);
	printf("frames: %" PRIu64 " sent, %" PRIu64 " received; the difference is what the "
	       "perturbations cost (rings dropped at resets, recoveries and detaches, links "
	       "down)\n", sent, received);
	printf("counted drops in the last port lives: %" PRIu64 " rx missed, %" PRIu64
	       " errors\n", missed, errors);
	printf("mbufs in use after the ports closed: %u (baseline %u): %s\n", in_use, baseline,
	       in_use == baseline ? "none leaked" : "LEAKED");
	printf("crashes: 0 (this line is printed by the process that ran it all)\n");
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return in_use == baseline ? 0 : 1;
}
