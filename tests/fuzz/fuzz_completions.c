/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * libFuzzer: the device hands the PMD RX and TX completions, admin
 * completions, admin reply buffers (IDENTIFY, STATS_GET, RSS_GET) and
 * events whose bytes come from the fuzzer's input (the device's tamper hook;
 * the phase bit stays the device's, so the PMD takes them for real). The
 * input's first byte says whether port A is reset first (bit 7: IDENTIFY
 * and the counters' baseline from the input); then each input drives a
 * little traffic, a stats read and an RSS read over a refnic pair;
 * then the device behaves again, and the port must carry a frame again:
 * by itself (proactive recovery) or after rte_eth_dev_reset(). Nothing may
 * crash or reach outside its rings (ASan, UBSan); a port that a healthy
 * device cannot bring back is a finding (abort). Two pairs run the vector
 * bursts, one AVX2 (where the CPU has it) with its RX completions written
 * back (rx_wb=on), one SSE with them in a ring; the first byte's
 * bit 6 picks the pair, its low four bits B's RX burst size (4 to 19: an
 * AVX2 step of eight, the SSE step of four, the scalar rest). The vector
 * bursts hand any completion they do not take whole to the scalar core:
 * all see the garbage.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "refnic_emu.h"

#define FZ_RING		64
#define FZ_BURST	8
#define FZ_RX_BURST_MAX	19
#define FZ_WAIT_MS	2000	/* a recovery takes tens of ms */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rte_mempool *pool;

/* The pairs, by simd=; each input drives one (port_a to port_b). */
static const struct {
	const char *a, *b, *args;
} pairs[] = {
	{ "net_refnic_fza", "net_refnic_fzb",
	  "cable=fz,profile=ideal,itr=off,simd=avx2,rx_wb=on" },
	{ "net_refnic_fzc", "net_refnic_fzd", "cable=fz2,profile=ideal,itr=off,simd=sse" },
};
static uint16_t pair_ports[RTE_DIM(pairs)][2];
static struct rte_ether_addr pair_macs[RTE_DIM(pairs)];
static uint16_t port_a, port_b, rx_burst;
static struct rte_ether_addr mac_b;

/* The input, consumed entry by entry: a byte says whether to overwrite the
 * next entry, and which kinds may be (REFNIC_EMU_CORRUPT_* bits); the
 * entry's bytes follow. */
static const uint8_t *in_data;
static size_t in_left;

static void
tamper(void *ctx __rte_unused, uint8_t what, void *entry, size_t len)
{
	uint8_t sel;

	if (in_left == 0)
		return;
	sel = *in_data++;
	in_left--;
	if (!(sel & what))
		return;
	len = RTE_MIN(len, in_left);
	memcpy(entry, in_data, len);
	in_data += len;
	in_left -= len;
}

static int
port_start(uint16_t port)
{
	struct rte_eth_conf conf = { 0 };
	int ret;

	rte_eth_dev_stop(port);
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, FZ_RING, SOCKET_ID_ANY, NULL, pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, FZ_RING, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret == 0)
		ret = rte_eth_promiscuous_enable(port);
	return ret;
}

static void
send_frames(unsigned int n)
{
	struct rte_mbuf *m[FZ_BURST];
	unsigned int i, sent;

	n = RTE_MIN(n, (unsigned int)FZ_BURST);
	if (rte_pktmbuf_alloc_bulk(pool, m, n) != 0)
		return;
	for (i = 0; i < n; i++) {
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m[i], struct rte_ether_hdr *);

		memset(eh, 0, 64);
		eh->dst_addr = mac_b;
		eh->ether_type = rte_cpu_to_be_16(0x88b5);
		m[i]->data_len = m[i]->pkt_len = 64 + i * 100;
	}
	sent = rte_eth_tx_burst(port_a, 0, m, n);
	rte_pktmbuf_free_bulk(m + sent, n - sent);
}

static unsigned int
receive(void)
{
	struct rte_mbuf *buf[FZ_RX_BURST_MAX];
	/* The burst's array ends where buf does: a store past nb_pkts is
	 * ASan's to see. */
	struct rte_mbuf **m = buf + FZ_RX_BURST_MAX - rx_burst;
	unsigned int got = 0, n;

	while ((n = rte_eth_rx_burst(port_b, 0, m, rx_burst)) != 0) {
		got += n;
		rte_pktmbuf_free_bulk(m, n);
	}
	return got;
}

/* Set when a port will not come back by itself: it asked the application
 * for a reset (EAL's interrupt thread), or the application's reset failed. */
static bool reset_asked;

static int
on_intr_reset(uint16_t port __rte_unused, enum rte_eth_event_type type __rte_unused,
	      void *arg __rte_unused, void *ret __rte_unused)
{
	__atomic_store_n(&reset_asked, true, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Does a frame get from A to B within FZ_WAIT_MS (recoveries included)?
 * Not worth waiting for once a port will not come back by itself (a
 * quarter of the inputs; each waited the whole 2 s).
 */
static bool
frame_passes(void)
{
	uint64_t end = rte_get_timer_cycles() + FZ_WAIT_MS * rte_get_timer_hz() / 1000;

	receive();
	send_frames(1);
	do {
		if (receive() != 0)
			return true;
		if (__atomic_load_n(&reset_asked, __ATOMIC_ACQUIRE))
			return false;
		rte_delay_us_sleep(1000);
		send_frames(1);	/* the first may have met a recovery */
	} while (rte_get_timer_cycles() < end);
	return false;
}

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv)
{
	char *eal[] = { (*argv)[0], "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0", "--log-level=*:emerg", NULL };
	unsigned int i;

	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0)
		abort();
	pool = rte_pktmbuf_pool_create("fuzz", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL)
		abort();
	for (i = 0; i < RTE_DIM(pairs); i++) {
		if (rte_vdev_init(pairs[i].a, pairs[i].args) != 0 ||
		    rte_vdev_init(pairs[i].b, pairs[i].args) != 0 ||
		    rte_eth_dev_get_port_by_name(pairs[i].a, &pair_ports[i][0]) != 0 ||
		    rte_eth_dev_get_port_by_name(pairs[i].b, &pair_ports[i][1]) != 0 ||
		    port_start(pair_ports[i][0]) != 0 || port_start(pair_ports[i][1]) != 0 ||
		    rte_eth_macaddr_get(pair_ports[i][1], &pair_macs[i]) != 0)
			abort();
		refnic_emu_set_tamper(refnic_emu_lookup(pairs[i].a), tamper, NULL);
		refnic_emu_set_tamper(refnic_emu_lookup(pairs[i].b), tamper, NULL);
	}
	if (rte_eth_dev_callback_register(RTE_ETH_ALL, RTE_ETH_EVENT_INTR_RESET,
					  on_intr_reset, NULL) != 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_eth_rss_reta_entry64 reta[REFNIC_RSS_RETA_SIZE / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_eth_rss_conf rss = { 0 };
	struct rte_eth_stats st;
	unsigned int round, i;

	if (size == 0)
		return 0;
	i = (data[0] >> 6) & 1;
	port_a = pair_ports[i][0];
	port_b = pair_ports[i][1];
	mac_b = pair_macs[i];
	rx_burst = 4 + (data[0] & 0xf);
	__atomic_store_n(&reset_asked, false, __ATOMIC_RELAXED);
	in_data = data + 1;
	in_left = size - 1;
	if (data[0] & 0x80) {
		/* IDENTIFY and STATS_GET from the input; a refusal is fine. */
		rte_eth_dev_stop(port_a);
		if (rte_eth_dev_reset(port_a) == 0)
			port_start(port_a);
		else
			__atomic_store_n(&reset_asked, true, __ATOMIC_RELEASE);
	}
	for (round = 0; round < 4 && in_left != 0; round++) {
		send_frames(FZ_BURST);
		receive();
		rte_eth_tx_done_cleanup(port_a, 0, 0);
		rte_eth_stats_get(port_a, &st);		/* an admin exchange each */
		rte_eth_stats_get(port_b, &st);
		for (i = 0; i < RTE_DIM(reta); i++)
			reta[i].mask = UINT64_MAX;
		/* What reaches the application names a queue the port has. */
		if (rte_eth_dev_rss_reta_query(port_a, reta, REFNIC_RSS_RETA_SIZE) == 0)
			for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++)
				if (reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE])
					abort();
		rte_eth_dev_rss_hash_conf_get(port_a, &rss);
	}
	in_left = 0;
	if (frame_passes())
		return 0;
	/* Not by itself (a stopped port, a reset asked for, RECOVERY_FAILED):
	 * as a user would. */
	if (rte_eth_dev_reset(port_a) != 0 || rte_eth_dev_reset(port_b) != 0 ||
	    port_start(port_a) != 0 || port_start(port_b) != 0 || !frame_passes())
		abort();
	return 0;
}
