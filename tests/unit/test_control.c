/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The control path: admin polling policies (counts, not time), commands the
 * device never answers, resets that never finish, link events, and the
 * admin-driven port features: RSS (checked against Microsoft's Toeplitz
 * verification vectors), MAC, multicast and VLAN filters, MTU, register dump.
 */

#include <math.h>
#include <pthread.h>

#include <rte_bus_vdev.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_thash.h>

#include "test_common.h"

#define CP_A	"net_refnic_cp0"
#define CP_B	"net_refnic_cp1"

#define POLL_TIMED_CMDS	20	/* STATS_GET commands timed by the test */

/*
 * The most polls admin_poll=backoff may make in wait_us: the first at
 * once, then one after each wait of waited / 8 us (at least 1, at most
 * 1000), in whole microseconds as the driver counts them, and the last.
 * Any real wait is at least as long as its step, so a driver that follows
 * the policy polls no more often than this.
 */
static double
backoff_polls(double wait_us)
{
	uint64_t waited = 0, polls = 1;

	while (waited < wait_us) {
		waited += RTE_MAX(UINT64_C(1), RTE_MIN(waited / 8, UINT64_C(1000)));
		polls++;
	}
	return polls + 1;
}

/*
 * Polls per admin command stay within what each policy allows for the time
 * a command took, as the test measures it (wall clock around calls that
 * make exactly one command each, counted by the device; admin latencies
 * x20 so that a command takes a few polls' worth), never as the driver
 * reports it (admin_wait_us): a driver that polls too often cannot buy
 * itself a looser bound by over-reporting its wait.
 */
static int
test_poll_policies_bounded(void)
{
	static const struct { const char *arg; double min_us, max_us; } policies[] = {
		{ "admin_poll=backoff", 0, 0 },
		{ "admin_poll=fixed:200", 200, 200 },
		{ "admin_poll=exp:10:400", 10, 400 },
	};
	char args[128];
	unsigned int i, k;

	for (i = 0; i < RTE_DIM(policies); i++) {
		uint64_t cmds, polls, cmds0, polls0, start, elapsed_us;
		struct refnic_hw_stats hw;
		struct rte_eth_stats st;
		double per_cmd, bound;
		uint16_t port;

		snprintf(args, sizeof(args), "profile=baremetal,admin_latency_pct=2000,%s",
			 policies[i].arg);
		TEST_ASSERT_SUCCESS(test_port_create(CP_A, args, &port), "%s", args);
		TEST_ASSERT_SUCCESS(test_port_start(port, 0, 0), "%s", args);
		polls0 = test_xstat(port, "admin_polls");
		test_hw_stats(CP_A, &hw);
		cmds0 = hw.admin_commands;
		/* rte_eth_stats_get(): one STATS_GET each, nothing else waited on. */
		start = rte_get_timer_cycles();
		for (k = 0; k < POLL_TIMED_CMDS; k++)
			rte_eth_stats_get(port, &st);
		elapsed_us = (rte_get_timer_cycles() - start) * 1000000 / rte_get_timer_hz();
		test_hw_stats(CP_A, &hw);
		cmds = hw.admin_commands - cmds0;
		polls = test_xstat(port, "admin_polls") - polls0;
		test_port_destroy(CP_A);
		TEST_ASSERT_EQUAL(cmds, POLL_TIMED_CMDS, "%s: the device completed %" PRIu64
				  " commands for %u stats reads", args, cmds, POLL_TIMED_CMDS);
		/* The read of admin_polls may count its own STATS_GET's polls. */
		cmds++;
		TEST_ASSERT(polls >= cmds - 1, "%s: %" PRIu64 " polls for %" PRIu64 " commands",
			    args, polls, cmds);
		per_cmd = (double)elapsed_us / (cmds - 1);
		if (policies[i].max_us == 0)
			bound = backoff_polls(per_cmd);
		else if (policies[i].min_us == policies[i].max_us)
			bound = 2 + per_cmd / policies[i].min_us;
		else
			bound = 2 + log2(RTE_MAX(per_cmd, policies[i].min_us) / policies[i].min_us);
		printf("    %-22s %3" PRIu64 " commands, %5.1f polls/command (bound %.1f), "
		       "%6.1f us/command by the clock\n", policies[i].arg, cmds,
		       (double)polls / cmds, bound, per_cmd);
		/* A bound from the time taken, so it holds on a slow machine too; the
		 * absolute target (24 per command) is measured by bench.sh init. */
		TEST_ASSERT((double)polls / cmds <= bound, "%s polls too often", args);
	}
	return TEST_SUCCESS;
}

/*
 * A command the device never answers: the caller gets -ETIMEDOUT, the port
 * fails fast afterwards, and rte_eth_dev_reset() brings it back.
 */
static int
test_admin_timeout_then_reset(void)
{
	struct refnic_emu_faults faults = {
		.admin_timeout_opcode = REFNIC_ADMIN_QUEUE_CREATE,
		.admin_timeout_times = 1,
	};
	struct refnic_emu_resources res;
	struct rte_mbuf *m, *rx;
	struct rte_ether_addr mac;
	uint64_t start, took_us;
	uint32_t timeout_us;
	uint16_t a, b;
	int ret;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	/* The device's own bound, from its register: the driver must wait that
	 * long for a command, and not much longer. */
	refnic_emu_get_resources(refnic_emu_lookup(CP_A), &res);
	timeout_us = *(volatile uint32_t *)(res.bar0 + REFNIC_REG_ADMIN_TIMEOUT_US);
	refnic_emu_set_faults(refnic_emu_lookup(CP_A), &faults);
	start = rte_get_timer_cycles();
	ret = test_port_start(a, 0, 0);
	took_us = (rte_get_timer_cycles() - start) * 1000000 / rte_get_timer_hz();
	printf("    lost QUEUE_CREATE: -ETIMEDOUT after %" PRIu64 " us (ADMIN_TIMEOUT_US %u)\n",
	       took_us, timeout_us);
	if (timeout_us == 0 || took_us < timeout_us ||
	    took_us > timeout_us + timeout_us / 4 + 100000) {
		test_pair_destroy(CP_A, CP_B);
		TEST_ASSERT(false, "gave up after %" PRIu64 " us on a device whose bound is %u us",
			    took_us, timeout_us);
	}
	TEST_ASSERT_EQUAL(ret, -ETIMEDOUT, "start with a lost QUEUE_CREATE");
	TEST_ASSERT_EQUAL(rte_eth_dev_start(a), -EIO, "a failed port fails fast");
	TEST_ASSERT(test_xstat(a, "admin_commands") != UINT64_MAX, "xstats still answer");

	TEST_ASSERT_SUCCESS(rte_eth_dev_reset(a), "reset");
	TEST_ASSERT_SUCCESS(test_port_start(a, 0, 0), "start after reset");
	TEST_ASSERT_SUCCESS(test_port_start(b, 0, 0), "");
	rte_eth_macaddr_get(b, &mac);
	m = test_make_pkt(&mac, 200, 1, 1);
	ret = test_tx_all(a, &m, 1) == 1 && test_rx_wait(b, &rx, 1) == 1 ? 0 : -1;
	if (ret == 0)
		rte_pktmbuf_free(rx);
	test_pair_destroy(CP_A, CP_B);
	TEST_ASSERT_SUCCESS(ret, "no traffic after recovery");
	return TEST_SUCCESS;
}

/* A reset that never finishes fails the probe cleanly, within the device's bound. */
static int
test_reset_failure(void)
{
	uint16_t port, before = rte_eth_dev_count_avail();

	TEST_ASSERT(test_port_create(CP_A, "fault_reset_fail=1", &port) != 0,
		    "probe succeeded on a device that never leaves reset");
	rte_vdev_uninit(CP_A);
	TEST_ASSERT(refnic_emu_lookup(CP_A) == NULL, "device left behind");
	TEST_ASSERT_EQUAL(rte_eth_dev_count_avail(), before, "port left behind");
	TEST_ASSERT_SUCCESS(test_port_create(CP_A, "", &port), "a healthy device after");
	test_port_destroy(CP_A);
	return TEST_SUCCESS;
}

static unsigned int lsc_events[RTE_MAX_ETHPORTS];

static int
lsc_cb(uint16_t port, enum rte_eth_event_type type __rte_unused, void *arg __rte_unused,
       void *ret __rte_unused)
{
	__atomic_fetch_add(&lsc_events[port], 1, __ATOMIC_RELAXED);
	return 0;
}

/* Wait for the port's LSC count to reach n and its link to be `up`. */
static bool
lsc_wait(uint16_t port, unsigned int n, bool up)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct rte_eth_link link;

	do {
		rte_eth_link_get_nowait(port, &link);
		if (__atomic_load_n(&lsc_events[port], __ATOMIC_RELAXED) >= n &&
		    link.link_status == (up ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN))
			return __atomic_load_n(&lsc_events[port], __ATOMIC_RELAXED) == n;
		rte_delay_us_sleep(1000);
	} while (rte_get_timer_cycles() < deadline);
	return false;
}

/* Pulling the cable raises LSC on both ends, pushing it back raises it again. */
static int
test_lsc_on_unplug_replug(void)
{
	struct rte_eth_conf conf = { .intr_conf = { .lsc = 1 } };
	uint16_t ports[2], p;
	int ret = TEST_SUCCESS;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &ports[0], &ports[1]), "");
	for (p = 0; p < 2; p++) {
		lsc_events[ports[p]] = 0;
		rte_eth_dev_callback_register(ports[p], RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL);
		if (rte_eth_dev_configure(ports[p], 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(ports[p], 0, TEST_RING_SIZE, SOCKET_ID_ANY, NULL,
					   test_pool) != 0 ||
		    rte_eth_tx_queue_setup(ports[p], 0, TEST_RING_SIZE, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start(ports[p]) != 0)
			ret = TEST_FAILED;
	}
	if (ret == TEST_SUCCESS) {
		refnic_emu_set_cable_plugged(refnic_emu_lookup(CP_A), false);
		if (!lsc_wait(ports[0], 1, false) || !lsc_wait(ports[1], 1, false))
			ret = TEST_FAILED;
		refnic_emu_set_cable_plugged(refnic_emu_lookup(CP_A), true);
		if (!lsc_wait(ports[0], 2, true) || !lsc_wait(ports[1], 2, true))
			ret = TEST_FAILED;
	}
	if (ret != TEST_SUCCESS)
		printf("    LSC events: %u and %u\n", lsc_events[ports[0]], lsc_events[ports[1]]);
	for (p = 0; p < 2; p++)
		rte_eth_dev_callback_unregister(ports[p], RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL);
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/* Frames A sends that B receives (n sent, waited for up to TEST_WAIT_S if
 * expected, else a 20 ms look). */
static uint16_t
link_frames_cross(uint16_t a, uint16_t b, uint16_t n, bool expected)
{
	struct rte_ether_addr mac_b;
	struct rte_mbuf *pkts[8];
	uint64_t end;
	uint16_t i, got = 0;

	rte_eth_macaddr_get(b, &mac_b);
	for (i = 0; i < n; i++)
		pkts[i] = test_make_pkt(&mac_b, 64, i, 1);
	test_tx_all(a, pkts, n);
	if (expected)
		got = test_rx_wait(b, pkts, n);
	end = rte_get_timer_cycles() + rte_get_timer_hz() / 50;
	while (!expected && got < n && rte_get_timer_cycles() < end)
		got += rte_eth_rx_burst(b, 0, pkts + got, n - got);
	rte_pktmbuf_free_bulk(pkts, got);
	return got;
}

/*
 * rte_eth_dev_set_link_down() turns the port's PHY off through the device:
 * both ends see the link go (LSC on each), nothing crosses, and a restart
 * keeps it down; set_link_up brings both back.
 */
static int
test_link_down_up_seen_by_peer(void)
{
	struct rte_eth_conf conf = { .intr_conf = { .lsc = 1 } };
	uint64_t dropped_before, dropped_after = 0;
	uint16_t ports[2], p, crossed_down = 0, crossed_up = 0;
	int ret = TEST_SUCCESS;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &ports[0], &ports[1]), "");
	for (p = 0; p < 2; p++) {
		lsc_events[ports[p]] = 0;
		rte_eth_dev_callback_register(ports[p], RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL);
		if (rte_eth_dev_configure(ports[p], 1, 1, &conf) != 0 ||
		    rte_eth_rx_queue_setup(ports[p], 0, TEST_RING_SIZE, SOCKET_ID_ANY, NULL,
					   test_pool) != 0 ||
		    rte_eth_tx_queue_setup(ports[p], 0, TEST_RING_SIZE, SOCKET_ID_ANY, NULL) != 0 ||
		    rte_eth_dev_start(ports[p]) != 0 || rte_eth_promiscuous_enable(ports[p]) != 0)
			ret = TEST_FAILED;
	}
	dropped_before = test_xstat(ports[0], "cable_tx_dropped");
	if (ret == TEST_SUCCESS && rte_eth_dev_set_link_down(ports[0]) != 0)
		ret = TEST_FAILED;
	if (ret == TEST_SUCCESS && (!lsc_wait(ports[0], 1, false) || !lsc_wait(ports[1], 1, false)))
		ret = TEST_FAILED;
	if (ret == TEST_SUCCESS) {
		crossed_down = link_frames_cross(ports[0], ports[1], 8, false) +
			       link_frames_cross(ports[1], ports[0], 8, false);
		dropped_after = test_xstat(ports[0], "cable_tx_dropped");
		/* Stopped and started again, the port stays down. */
		if (rte_eth_dev_stop(ports[0]) != 0 || rte_eth_dev_start(ports[0]) != 0 ||
		    !lsc_wait(ports[1], 1, false))
			ret = TEST_FAILED;
	}
	if (ret == TEST_SUCCESS && rte_eth_dev_set_link_up(ports[0]) != 0)
		ret = TEST_FAILED;
	if (ret == TEST_SUCCESS && (!lsc_wait(ports[0], 2, true) || !lsc_wait(ports[1], 2, true)))
		ret = TEST_FAILED;
	if (ret == TEST_SUCCESS)
		crossed_up = link_frames_cross(ports[0], ports[1], 8, true);
	if (ret != TEST_SUCCESS)
		printf("    LSC events: %u and %u\n", lsc_events[ports[0]], lsc_events[ports[1]]);
	for (p = 0; p < 2; p++)
		rte_eth_dev_callback_unregister(ports[p], RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL);
	test_pair_destroy(CP_A, CP_B);
	TEST_ASSERT_SUCCESS(ret, "link down/up not seen as expected");
	TEST_ASSERT_EQUAL(crossed_down, 0, "frames crossed a link that is down");
	TEST_ASSERT_EQUAL(dropped_after - dropped_before, 8, "A's frames lost on the cable");
	TEST_ASSERT_EQUAL(crossed_up, 8, "frames after the link came back");
	return TEST_SUCCESS;
}

/* Microsoft's RSS verification suite, IPv4 and IPv6 with TCP. */
static const struct {
	uint8_t src[16], dst[16];
	bool v6;
	uint16_t sport, dport;
	uint32_t hash_ip, hash_tcp;
} rss_vectors[] = {
	{ { 66, 9, 149, 187 }, { 161, 142, 100, 80 }, false, 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ { 199, 92, 111, 2 }, { 65, 69, 140, 83 }, false, 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ { 24, 19, 198, 95 }, { 12, 22, 207, 184 }, false, 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ { 38, 27, 205, 30 }, { 209, 142, 163, 6 }, false, 48228, 2217, 0x82989176, 0xafc7327f },
	{ { 153, 39, 163, 191 }, { 202, 188, 127, 2 }, false, 44251, 1303, 0x5d1809c5, 0x10e828a2 },
	{ { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x07 },
	  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01 },
	  true, 2794, 1766, 0x2cc18cd5, 0x40207d3d },
};

/* A TCP frame for vector i. */
static struct rte_mbuf *
rss_frame(unsigned int i)
{
	return test_make_tcp_pkt(rss_vectors[i].src, rss_vectors[i].dst, rss_vectors[i].v6,
			      rss_vectors[i].sport, rss_vectors[i].dport);
}

#define RSS_QUEUES	4

/* Send vector i A->B; return the RX queue it landed on (or -1) and its hash. */
static int
rss_send_frame(uint16_t a, uint16_t b, struct rte_mbuf *m, uint32_t *hash, bool *has_hash)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct rte_mbuf *rx;
	uint16_t q;

	if (m == NULL || test_tx_all(a, &m, 1) != 1)
		return -1;
	do {
		for (q = 0; q < RSS_QUEUES; q++) {
			if (rte_eth_rx_burst(b, q, &rx, 1) == 1) {
				*has_hash = rx->ol_flags & RTE_MBUF_F_RX_RSS_HASH;
				*hash = rx->hash.rss;
				rte_pktmbuf_free(rx);
				return q;
			}
		}
	} while (rte_get_timer_cycles() < deadline);
	return -1;
}

static int
rss_send(uint16_t a, uint16_t b, unsigned int i, uint32_t *hash, bool *has_hash)
{
	return rss_send_frame(a, b, rss_frame(i), hash, has_hash);
}

/* What RETA entry j is set to below: no pattern a hash % 4 would give. */
static uint8_t
rss_reta_entry(unsigned int j)
{
	return (j * 3 + j / 16 + j / 64) % RSS_QUEUES;
}

/* DPDK's own Toeplitz (rte_softrss) of an IPv4 2-tuple under key. */
static uint32_t
rss_soft_ipv4(const uint8_t *src, const uint8_t *dst, const uint8_t *key)
{
	uint32_t tuple[2] = {
		(uint32_t)src[0] << 24 | src[1] << 16 | src[2] << 8 | src[3],
		(uint32_t)dst[0] << 24 | dst[1] << 16 | dst[2] << 8 | dst[3],
	};

	return rte_softrss(tuple, RTE_DIM(tuple), key);
}

/*
 * One IPv4 flow for every RETA entry, found with rte_softrss() under key;
 * each must land with that hash on the queue its entry names.
 */
static int
rss_every_entry(uint16_t a, uint16_t b, const uint8_t *key)
{
	static const uint8_t dst[4] = { 192, 0, 2, 1 };
	uint32_t found[REFNIC_RSS_RETA_SIZE], want, hash;
	unsigned int n = 0, flow, j;
	uint8_t src[4];
	bool has_hash;
	int q;

	memset(found, 0xff, sizeof(found));
	for (flow = 0; n < REFNIC_RSS_RETA_SIZE && flow < 1u << 16; flow++) {
		src[0] = 10, src[1] = 1, src[2] = flow >> 8, src[3] = flow;
		j = rss_soft_ipv4(src, dst, key) % REFNIC_RSS_RETA_SIZE;
		if (found[j] == UINT32_MAX) {
			found[j] = flow;
			n++;
		}
	}
	TEST_ASSERT_EQUAL(n, REFNIC_RSS_RETA_SIZE, "flows for %u entries only", n);
	for (j = 0; j < REFNIC_RSS_RETA_SIZE; j++) {
		src[0] = 10, src[1] = 1, src[2] = found[j] >> 8, src[3] = found[j];
		want = rss_soft_ipv4(src, dst, key);
		q = rss_send_frame(a, b, test_make_tcp_pkt(src, dst, false, 1000 + j, 80), &hash,
				   &has_hash);
		TEST_ASSERT(has_hash && hash == want && q == rss_reta_entry(j),
			    "entry %u (10.1.%u.%u): queue %d hash 0x%08x, want queue %u hash 0x%08x",
			    j, found[j] >> 8, found[j] & 0xff, q, hash, rss_reta_entry(j), want);
	}
	return TEST_SUCCESS;
}

static int
rss_port_start(uint16_t port, uint64_t rss_hf)
{
	struct rte_eth_conf conf = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_RSS, .offloads = RTE_ETH_RX_OFFLOAD_RSS_HASH },
		.rx_adv_conf.rss_conf = { .rss_hf = rss_hf },
	};
	uint16_t q;
	int ret = rte_eth_dev_configure(port, RSS_QUEUES, RSS_QUEUES, &conf);

	for (q = 0; ret == 0 && q < RSS_QUEUES; q++)
		ret = rte_eth_rx_queue_setup(port, q, TEST_RING_SIZE, SOCKET_ID_ANY, NULL,
					     test_pool) |
		      rte_eth_tx_queue_setup(port, q, TEST_RING_SIZE, SOCKET_ID_ANY, NULL);
	return ret == 0 ? rte_eth_dev_start(port) : ret;
}

/* The device's Toeplitz hash, queue choice, RETA and key updates. */
static int
test_rss(void)
{
	struct rte_eth_rss_reta_entry64 reta[REFNIC_RSS_RETA_SIZE / RTE_ETH_RETA_GROUP_SIZE];
	uint64_t hf_tcp = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP |
			  RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_TCP;
	uint8_t key[REFNIC_RSS_KEY_SIZE];
	struct rte_eth_rss_conf rss_conf = { .rss_key = key, .rss_key_len = sizeof(key) };
	uint16_t a, b;
	uint32_t hash;
	bool has_hash;
	unsigned int i;
	int q, ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (rss_port_start(a, hf_tcp) != 0 || rss_port_start(b, hf_tcp) != 0)
		goto out;
	/* IP + TCP hashing: the 4-tuple vectors, queue = RETA[hash % 128] = hash % 4. */
	for (i = 0; i < RTE_DIM(rss_vectors); i++) {
		q = rss_send(a, b, i, &hash, &has_hash);
		if (q < 0 || !has_hash || hash != rss_vectors[i].hash_tcp ||
		    q != (int)(hash % RSS_QUEUES)) {
			printf("    vector %u: queue %d hash 0x%08x, want queue %u hash 0x%08x\n",
			       i, q, hash, rss_vectors[i].hash_tcp % RSS_QUEUES,
			       rss_vectors[i].hash_tcp);
			goto out;
		}
	}
	/* IP-only hashing: the 2-tuple vectors. */
	rss_conf.rss_key = NULL;
	rss_conf.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_IPV6;
	if (rte_eth_dev_rss_hash_update(b, &rss_conf) != 0)
		goto out;
	for (i = 0; i < RTE_DIM(rss_vectors); i++) {
		q = rss_send(a, b, i, &hash, &has_hash);
		if (q < 0 || hash != rss_vectors[i].hash_ip) {
			printf("    vector %u IP only: hash 0x%08x, want 0x%08x\n", i, hash,
			       rss_vectors[i].hash_ip);
			goto out;
		}
	}
	/* A new key changes the hash to what DPDK's Toeplitz says for that key. */
	for (i = 0; i < sizeof(key); i++)
		key[i] = i * 7 + 1;
	rss_conf.rss_key = key;
	rss_conf.rss_hf = RTE_ETH_RSS_IPV4;
	if (rte_eth_dev_rss_hash_update(b, &rss_conf) != 0 || rss_send(a, b, 0, &hash, &has_hash) < 0 ||
	    hash != rss_soft_ipv4(rss_vectors[0].src, rss_vectors[0].dst, key)) {
		printf("    new key: hash 0x%08x, rte_softrss 0x%08x\n", hash,
		       rss_soft_ipv4(rss_vectors[0].src, rss_vectors[0].dst, key));
		goto out;
	}
	/* A table with no pattern: it reads back entry by entry, and every entry
	 * sends its flows to the queue it names. */
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask = UINT64_MAX;
		reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] =
			rss_reta_entry(i);
	}
	if (rte_eth_dev_rss_reta_update(b, reta, REFNIC_RSS_RETA_SIZE) != 0)
		goto out;
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < RTE_DIM(reta); i++)
		reta[i].mask = UINT64_MAX;
	if (rte_eth_dev_rss_reta_query(b, reta, REFNIC_RSS_RETA_SIZE) != 0)
		goto out;
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++)
		if (reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE] !=
		    rss_reta_entry(i)) {
			printf("    RETA entry %u reads %u, written %u\n", i,
			       reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE],
			       rss_reta_entry(i));
			goto out;
		}
	if (rss_every_entry(a, b, key) != TEST_SUCCESS)
		goto out;
	/* Everything to queue 3 (the IPv4 flows: IPv6 is not hashed now). */
	for (i = 0; i < RTE_DIM(reta); i++) {
		reta[i].mask = UINT64_MAX;
		for (q = 0; q < RTE_ETH_RETA_GROUP_SIZE; q++)
			reta[i].reta[q] = 3;
	}
	if (rte_eth_dev_rss_reta_update(b, reta, REFNIC_RSS_RETA_SIZE) != 0)
		goto out;
	for (i = 0; i < RTE_DIM(rss_vectors); i++)
		if (!rss_vectors[i].v6 && rss_send(a, b, i, &hash, &has_hash) != 3)
			goto out;
	memset(key, 0, sizeof(key));
	if (rte_eth_dev_rss_hash_conf_get(b, &rss_conf) != 0 || key[1] != 8 ||
	    rss_conf.rss_hf != RTE_ETH_RSS_IPV4)
		goto out;
	ret = TEST_SUCCESS;
out:
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

static int
test_filters(void)
{
	static const struct rte_ether_addr extra = {{ 0x02, 0, 0, 0, 0x12, 0x34 }};
	static const struct rte_ether_addr mc = {{ 0x01, 0x00, 0x5e, 0, 0, 5 }};
	struct rte_ether_addr mc_list[1] = { mc };
	struct rte_ether_addr own;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (test_port_start(a, 0, 0) != 0 ||
	    test_port_start(b, RTE_ETH_RX_OFFLOAD_VLAN_FILTER, 0) != 0 ||
	    rte_eth_promiscuous_disable(b) != 0 || rte_eth_macaddr_get(b, &own) != 0)
		goto out;
	if (!test_frame_passes(a, b, &own, 0) || test_frame_passes(a, b, &extra, 0))
		goto out;
	if (rte_eth_dev_mac_addr_add(b, (struct rte_ether_addr *)&extra, 0) != 0 ||
	    !test_frame_passes(a, b, &extra, 0))
		goto out;
	if (rte_eth_dev_mac_addr_remove(b, (struct rte_ether_addr *)&extra) != 0 ||
	    test_frame_passes(a, b, &extra, 0))
		goto out;
	if (test_frame_passes(a, b, &mc, 0) || rte_eth_dev_set_mc_addr_list(b, mc_list, 1) != 0 ||
	    !test_frame_passes(a, b, &mc, 0))
		goto out;
	/* VLAN filtering on: tagged frames need their VID in the table. */
	if (test_frame_passes(a, b, &own, 100) || rte_eth_dev_vlan_filter(b, 100, 1) != 0 ||
	    !test_frame_passes(a, b, &own, 100) || test_frame_passes(a, b, &own, 101))
		goto out;
	ret = TEST_SUCCESS;
out:
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/* A smaller MTU on a started port: the device drops what no longer fits. */
static int
test_mtu_runtime(void)
{
	struct refnic_hw_stats s;
	struct rte_ether_addr mac;
	struct rte_mbuf *m;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (test_port_start(a, 0, 0) != 0 || test_port_start(b, 0, 0) != 0 ||
	    rte_eth_macaddr_get(b, &mac) != 0 || rte_eth_dev_set_mtu(b, 1000) != 0)
		goto out;
	if (rte_eth_dev_set_mtu(b, REFNIC_MAX_MTU + 1) == 0)
		goto out;
	test_hw_stats(CP_B, &s);
	if (!test_frame_passes(a, b, &mac, 0))	/* 100 bytes: fine */
		goto out;
	m = test_make_pkt(&mac, 1200, 1, 1);	/* 1200 bytes: dropped */
	if (test_tx_all(a, &m, 1) != 1 ||
	    test_hw_counter_wait(CP_B, offsetof(struct refnic_hw_stats, rx_oversize),
				 s.rx_oversize + 1) != s.rx_oversize + 1)
		goto out;
	ret = TEST_SUCCESS;
out:
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/* The register dump into regs, REFNIC_BAR0_REGS_END bytes. */
static int
dump_regs(uint16_t port, uint32_t *regs)
{
	struct rte_dev_reg_info info = { 0 };
	int ret;

	ret = rte_eth_dev_get_reg_info(port, &info);
	if (ret != 0 || info.width != 4 || info.length == 0 ||
	    info.length * 4 > REFNIC_BAR0_REGS_END)
		return ret != 0 ? ret : -EINVAL;
	info.data = regs;
	return rte_eth_dev_get_reg_info(port, &info);
}

/* The register dump: its size, the magic, a started queue's ring size. */
static int
test_get_reg(void)
{
	static uint32_t regs[REFNIC_BAR0_REGS_END / 4];
	uint16_t port;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_port_create(CP_A, "profile=ideal", &port), "");
	if (test_port_start(port, 0, 0) == 0 && dump_regs(port, regs) == 0 &&
	    regs[REFNIC_REG_MAGIC / 4] == REFNIC_HW_MAGIC &&
	    regs[(REFNIC_REG_TXQ(0) + REFNIC_Q_RING_SIZE) / 4] == TEST_RING_SIZE &&
	    (regs[REFNIC_REG_STATUS / 4] & REFNIC_STATUS_STATE_MASK) == REFNIC_STATE_READY)
		ret = TEST_SUCCESS;
	test_port_destroy(CP_A);
	return ret;
}

/*
 * Once the device is idle, the dump says where it is in the rings: the
 * HEAD registers of a loopback port that sent and received 5 frames.
 */
static int
test_get_reg_heads_after_traffic(void)
{
	static uint32_t regs[REFNIC_BAR0_REGS_END / 4];
	struct rte_ether_addr any = {{ 0x02, 0, 0, 0, 0, 5 }};
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct rte_mbuf *pkts[5];
	uint32_t tx_head = 0, rx_head = 0;
	uint16_t port, i;

	TEST_ASSERT_SUCCESS(test_port_create(CP_A, "profile=ideal", &port), "");
	TEST_ASSERT_SUCCESS(test_port_start(port, 0, 0), "");
	for (i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = test_make_pkt(&any, 100, i, 1);
	test_tx_all(port, pkts, RTE_DIM(pkts));
	i = test_rx_wait(port, pkts, RTE_DIM(pkts));
	rte_pktmbuf_free_bulk(pkts, i);
	do {
		if (dump_regs(port, regs) != 0)
			break;
		tx_head = regs[(REFNIC_REG_TXQ(0) + REFNIC_Q_HEAD) / 4];
		rx_head = regs[(REFNIC_REG_RXQ(0) + REFNIC_Q_HEAD) / 4];
		rte_delay_ms(1);
	} while ((tx_head != RTE_DIM(pkts) || rx_head != RTE_DIM(pkts)) &&
		 rte_get_timer_cycles() < deadline);
	test_port_destroy(CP_A);
	TEST_ASSERT_EQUAL(i, RTE_DIM(pkts), "frames looped back");
	TEST_ASSERT_EQUAL(tx_head, RTE_DIM(pkts), "TX HEAD in the dump");
	TEST_ASSERT_EQUAL(rx_head, RTE_DIM(pkts), "RX HEAD in the dump");
	return TEST_SUCCESS;
}

/* The failure and recovery events of one port, in the order they came. */
static struct {
	unsigned int n;
	enum rte_eth_event_type type[16];
} recovery_log;

static int
recovery_cb(uint16_t port __rte_unused, enum rte_eth_event_type type, void *arg __rte_unused,
	    void *ret __rte_unused)
{
	unsigned int n = __atomic_load_n(&recovery_log.n, __ATOMIC_RELAXED);

	if (n < RTE_DIM(recovery_log.type))
		recovery_log.type[n] = type;
	__atomic_store_n(&recovery_log.n, n + 1, __ATOMIC_RELEASE);
	return 0;
}

static const enum rte_eth_event_type recovery_events[] = {
	RTE_ETH_EVENT_INTR_RESET, RTE_ETH_EVENT_ERR_RECOVERING,
	RTE_ETH_EVENT_RECOVERY_SUCCESS, RTE_ETH_EVENT_RECOVERY_FAILED,
};

static void
recovery_log_start(uint16_t port, bool on)
{
	unsigned int i;

	memset(&recovery_log, 0, sizeof(recovery_log));
	for (i = 0; i < RTE_DIM(recovery_events); i++) {
		if (on)
			rte_eth_dev_callback_register(port, recovery_events[i], recovery_cb, NULL);
		else
			rte_eth_dev_callback_unregister(port, recovery_events[i], recovery_cb,
							NULL);
	}
}

/* Wait for the log to hold n events; true if it holds exactly want[0..n). */
static bool
recovery_log_is(const enum rte_eth_event_type *want, unsigned int n)
{
	uint64_t deadline = rte_get_timer_cycles() + 2 * TEST_WAIT_S * rte_get_timer_hz();
	unsigned int i;

	while (__atomic_load_n(&recovery_log.n, __ATOMIC_ACQUIRE) < n &&
	       rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(1000);
	rte_delay_us_sleep(20000);	/* one too many would come now */
	if (recovery_log.n != n) {
		printf("    %u events, %u expected\n", recovery_log.n, n);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (recovery_log.type[i] != want[i]) {
			printf("    event %u is %d, %d expected\n", i, recovery_log.type[i], want[i]);
			return false;
		}
	}
	return true;
}

static const enum rte_eth_event_type recovered[] = {
	RTE_ETH_EVENT_ERR_RECOVERING, RTE_ETH_EVENT_RECOVERY_SUCCESS,
};

/* One frame from a to b, received. */
static bool
frame_arrives(uint16_t a, uint16_t b, const struct rte_ether_addr *mac, uint32_t seed)
{
	struct rte_mbuf *m = test_make_pkt(mac, 128, seed, 1), *rx;

	if (test_tx_all(a, &m, 1) != 1 || test_rx_wait(b, &rx, 1) != 1)
		return false;
	rte_pktmbuf_free(rx);
	return true;
}

/*
 * A device that fails under a stopped port raises RTE_ETH_EVENT_INTR_RESET;
 * the port fails fast and the first rte_eth_dev_reset() brings it back.
 */
static int
test_fatal_on_stopped_port_then_reset(void)
{
	static const enum rte_eth_event_type reset[] = { RTE_ETH_EVENT_INTR_RESET };
	struct rte_eth_conf conf = { 0 };
	struct rte_ether_addr mac;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	recovery_log_start(a, true);
	if (test_port_start(a, 0, 0) != 0 || test_port_start(b, 0, 0) != 0 ||
	    rte_eth_dev_stop(a) != 0)
		goto out;
	refnic_emu_inject_fatal(refnic_emu_lookup(CP_A));
	if (!recovery_log_is(reset, RTE_DIM(reset)) || test_xstat(a, "reset_requests") != 1 ||
	    rte_eth_dev_start(a) != -EIO) {
		printf("    a failed port must say INTR_RESET and refuse to start with -EIO\n");
		goto out;
	}
	if (rte_eth_dev_reset(a) != 0) {
		printf("    the first reset after FATAL failed\n");
		goto out;
	}
	if (rte_eth_dev_configure(a, 1, 1, &conf) != 0 || test_port_start(a, 0, 0) != 0 ||
	    rte_eth_macaddr_get(b, &mac) != 0)
		goto out;
	if (frame_arrives(a, b, &mac, 5))
		ret = TEST_SUCCESS;
out:
	recovery_log_start(a, false);
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/*
 * A started port whose device fails recovers by itself (err_handle_mode
 * PROACTIVE): ERR_RECOVERING then RECOVERY_SUCCESS, nothing else, and
 * everything the application configured holds again: MTU, an extra MAC
 * address, the multicast list, the VLAN table, promiscuous off. Every mbuf
 * of the dead rings is back; no call of the application was needed.
 */
static int
test_fatal_recovers_with_configuration(void)
{
	static const struct rte_ether_addr extra = {{ 0x02, 0, 0, 0, 0x12, 0x34 }};
	static const struct rte_ether_addr mc = {{ 0x01, 0x00, 0x5e, 0, 0, 5 }};
	struct rte_ether_addr mc_list[1] = { mc }, own;
	struct rte_eth_stats st, st_after;
	struct rte_eth_dev_info info;
	struct refnic_hw_stats s;
	unsigned int in_use;
	struct rte_mbuf *m;
	uint16_t a, b, mtu = 0;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	recovery_log_start(b, true);
	if (rte_eth_dev_info_get(b, &info) != 0 ||
	    info.err_handle_mode != RTE_ETH_ERROR_HANDLE_MODE_PROACTIVE) {
		printf("    err_handle_mode is not PROACTIVE\n");
		goto out;
	}
	if (test_port_start(a, 0, 0) != 0 ||
	    test_port_start(b, RTE_ETH_RX_OFFLOAD_VLAN_FILTER, 1000) != 0 ||
	    rte_eth_promiscuous_disable(b) != 0 || rte_eth_macaddr_get(b, &own) != 0 ||
	    rte_eth_dev_mac_addr_add(b, (struct rte_ether_addr *)&extra, 0) != 0 ||
	    rte_eth_dev_set_mc_addr_list(b, mc_list, 1) != 0 ||
	    rte_eth_dev_vlan_filter(b, 100, 1) != 0)
		goto out;
	in_use = rte_mempool_in_use_count(test_pool);
	/* One frame before the failure: B counts it; A's TX ring keeps its mbuf
	 * (reclaimed later, in batches), B's RX ring is one buffer short. */
	if (!test_frame_passes(a, b, &own, 0) || rte_eth_stats_get(b, &st) != 0)
		goto out;
	refnic_emu_inject_fatal(refnic_emu_lookup(CP_B));
	if (!recovery_log_is(recovered, RTE_DIM(recovered)))
		goto out;
	if (rte_eth_stats_get(b, &st_after) != 0 || st_after.ipackets < st.ipackets) {
		printf("    counters went back across the recovery\n");
		goto out;
	}
	/* The dead rings' buffers back, B's new RX ring full: as before the
	 * frame, plus the one mbuf A still holds. */
	if (rte_mempool_in_use_count(test_pool) != in_use + 1) {
		printf("    %u mbufs in use after recovery, %u expected\n",
		       rte_mempool_in_use_count(test_pool), in_use + 1);
		goto out;
	}
	if (!test_frame_passes(a, b, &own, 0) || !test_frame_passes(a, b, &extra, 0) ||
	    !test_frame_passes(a, b, &mc, 0) || !test_frame_passes(a, b, &own, 100) ||
	    test_frame_passes(a, b, &own, 101) ||
	    test_frame_passes(a, b, &(struct rte_ether_addr){{ 0x02, 9, 9, 9, 9, 9 }}, 0)) {
		printf("    filters not as configured after recovery\n");
		goto out;
	}
	test_hw_stats(CP_B, &s);
	m = test_make_pkt(&own, 1200, 1, 1);	/* beyond MTU 1000: dropped */
	if (rte_eth_dev_get_mtu(b, &mtu) != 0 || mtu != 1000 || test_tx_all(a, &m, 1) != 1 ||
	    test_hw_counter_wait(CP_B, offsetof(struct refnic_hw_stats, rx_oversize),
				 s.rx_oversize + 1) != s.rx_oversize + 1) {
		printf("    MTU %u not restored in the device\n", mtu);
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	recovery_log_start(b, false);
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/*
 * The device stops a TX queue on an error of its own (as an MDD event):
 * the port recovers by itself, with the same two events, and sends again.
 */
static int
test_queue_error_recovers(void)
{
	struct rte_ether_addr mac;
	unsigned int in_use;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	recovery_log_start(a, true);
	if (test_port_start(a, 0, 0) != 0 || test_port_start(b, 0, 0) != 0 ||
	    rte_eth_macaddr_get(b, &mac) != 0)
		goto out;
	in_use = rte_mempool_in_use_count(test_pool);
	refnic_emu_inject_queue_error(refnic_emu_lookup(CP_A), true, 0);
	if (!recovery_log_is(recovered, RTE_DIM(recovered)))
		goto out;
	if (test_xstat(a, "queue_errors") != 1 || test_xstat(a, "recoveries") != 1 ||
	    test_xstat(a, "recovery_failures") != 0) {
		printf("    xstats queue_errors %" PRIu64 ", recoveries %" PRIu64 "\n",
		       test_xstat(a, "queue_errors"), test_xstat(a, "recoveries"));
		goto out;
	}
	if (rte_mempool_in_use_count(test_pool) != in_use) {
		printf("    %u mbufs in use after recovery, %u before\n",
		       rte_mempool_in_use_count(test_pool), in_use);
		goto out;
	}
	if (!frame_arrives(a, b, &mac, 7)) {
		printf("    no traffic after the recovery\n");
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	recovery_log_start(a, false);
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/*
 * Queues 1 the application stopped stay stopped, as the device sees them:
 * an IPv4 frame the RETA sends to RX queue 1 is dropped for want of a
 * buffer and never received, and TX queue 1 takes nothing and rings no
 * doorbell.
 */
static bool
queues_1_stopped(uint16_t a, uint16_t b)
{
	struct rte_eth_rxq_info rxq;
	struct rte_eth_txq_info txq;
	struct refnic_hw_stats s, t;
	struct rte_mbuf *m, *rx;
	uint64_t deadline;

	if (rte_eth_rx_queue_info_get(b, 1, &rxq) != 0 || rte_eth_tx_queue_info_get(b, 1, &txq) != 0 ||
	    rxq.queue_state != RTE_ETH_QUEUE_STATE_STOPPED ||
	    txq.queue_state != RTE_ETH_QUEUE_STATE_STOPPED) {
		printf("    queue 1 states: RX %u, TX %u\n", rxq.queue_state, txq.queue_state);
		return false;
	}
	test_hw_stats(CP_B, &s);
	m = rss_frame(0);
	if (m == NULL || test_tx_all(a, &m, 1) != 1 ||
	    test_hw_counter_wait(CP_B, offsetof(struct refnic_hw_stats, q[1].rx_no_buffer),
				 s.q[1].rx_no_buffer + 1) != s.q[1].rx_no_buffer + 1) {
		test_hw_stats(CP_B, &t);
		printf("    RX queue 1: %" PRIu64 " frames taken, %" PRIu64 " dropped for no "
		       "buffer; 0 and 1 expected\n", t.q[1].rx_packets - s.q[1].rx_packets,
		       t.q[1].rx_no_buffer - s.q[1].rx_no_buffer);
		return false;
	}
	m = test_make_pkt(&(struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 1 }}, 64, 1, 1);
	if (m == NULL || rte_eth_tx_burst(b, 1, &m, 1) != 0) {
		printf("    stopped TX queue 1 took a packet\n");
		return false;
	}
	rte_pktmbuf_free(m);
	deadline = rte_get_timer_cycles() + rte_get_timer_hz() / 50;	/* 20 ms */
	while (rte_get_timer_cycles() < deadline)
		if (rte_eth_rx_burst(b, 1, &rx, 1) != 0) {
			rte_pktmbuf_free(rx);
			printf("    stopped RX queue 1 received\n");
			return false;
		}
	test_hw_stats(CP_B, &t);
	if (t.q[1].tx_doorbells != s.q[1].tx_doorbells || t.q[1].tx_packets != s.q[1].tx_packets ||
	    t.q[1].rx_packets != s.q[1].rx_packets) {
		printf("    queue 1 on the device: %" PRIu64 " TX doorbells, %" PRIu64 " sent, %"
		       PRIu64 " received\n", t.q[1].tx_doorbells - s.q[1].tx_doorbells,
		       t.q[1].tx_packets - s.q[1].tx_packets, t.q[1].rx_packets - s.q[1].rx_packets);
		return false;
	}
	return true;
}

/*
 * A recovery brings each queue back as the application left it: a
 * deferred-start RX queue 0 it started by hand receives again, and the
 * queues 1 it stopped stay stopped. first_fails: the first attempt fails
 * in the start (a QUEUE_CREATE the device drops), after its error path
 * stopped every queue; the next attempt must still bring back what the
 * application had, not what the failed one left.
 */
static int
recovery_keeps_queue_states(bool first_fails)
{
	struct refnic_emu_faults faults = {
		.admin_timeout_opcode = REFNIC_ADMIN_QUEUE_CREATE,
		.admin_timeout_times = 1,
	};
	struct rte_eth_rss_reta_entry64 reta[REFNIC_RSS_RETA_SIZE / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_eth_rxconf rxconf = { .rx_deferred_start = 1 };
	uint64_t resets;
	struct rte_eth_conf conf = {
		.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS,
		.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IPV4,
	};
	struct rte_ether_addr mac;
	unsigned int i, j;
	uint16_t a, b;
	int ret = TEST_FAILED;

	/* Every hashed frame to RX queue 1; the others (test frames) go to 0. */
	for (i = 0; i < RTE_DIM(reta); i++) {
		reta[i].mask = UINT64_MAX;
		for (j = 0; j < RTE_ETH_RETA_GROUP_SIZE; j++)
			reta[i].reta[j] = 1;
	}
	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	recovery_log_start(b, true);
	if (test_port_start(a, 0, 0) != 0 || rte_eth_dev_configure(b, 2, 2, &conf) != 0 ||
	    rte_eth_rx_queue_setup(b, 0, TEST_RING_SIZE, SOCKET_ID_ANY, &rxconf,
				   test_pool) != 0 ||
	    rte_eth_rx_queue_setup(b, 1, TEST_RING_SIZE, SOCKET_ID_ANY, NULL, test_pool) != 0 ||
	    rte_eth_tx_queue_setup(b, 0, TEST_RING_SIZE, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_tx_queue_setup(b, 1, TEST_RING_SIZE, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(b) != 0 || rte_eth_promiscuous_enable(b) != 0 ||
	    rte_eth_dev_rss_reta_update(b, reta, REFNIC_RSS_RETA_SIZE) != 0 ||
	    rte_eth_dev_rx_queue_start(b, 0) != 0 || rte_eth_dev_rx_queue_stop(b, 1) != 0 ||
	    rte_eth_dev_tx_queue_stop(b, 1) != 0 || rte_eth_macaddr_get(b, &mac) != 0 ||
	    !frame_arrives(a, b, &mac, 11) || !queues_1_stopped(a, b))
		goto out;
	resets = test_xstat(b, "device_resets");
	if (first_fails)
		refnic_emu_set_faults(refnic_emu_lookup(CP_B), &faults);
	refnic_emu_inject_fatal(refnic_emu_lookup(CP_B));
	if (!recovery_log_is(recovered, RTE_DIM(recovered)))
		goto out;
	/* One device reset per attempt (a failed one may take another). */
	resets = test_xstat(b, "device_resets") - resets;
	if (first_fails ? resets < 2 : resets != 1) {
		printf("    %" PRIu64 " device resets in the recovery\n", resets);
		goto out;
	}
	if (!frame_arrives(a, b, &mac, 12)) {
		printf("    the hand-started queue did not come back\n");
		goto out;
	}
	if (!queues_1_stopped(a, b)) {
		printf("    the queues the application stopped came back started\n");
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	recovery_log_start(b, false);
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

static int
test_recovery_keeps_queue_states(void)
{
	return recovery_keeps_queue_states(false);
}

static int
test_recovery_retry_keeps_queue_states(void)
{
	return recovery_keeps_queue_states(true);
}

/*
 * A device whose resets never finish: the recovery gives up with
 * RECOVERY_FAILED, bursts return 0, the process lives; once the device
 * behaves, rte_eth_dev_reset() brings the port back.
 */
static int
test_recovery_failure(void)
{
	static const enum rte_eth_event_type failed[] = {
		RTE_ETH_EVENT_ERR_RECOVERING, RTE_ETH_EVENT_RECOVERY_FAILED,
	};
	struct refnic_emu_faults faults = { .reset_fail_times = 100 };
	struct rte_eth_conf conf = { 0 };
	struct rte_mbuf *m, *rx;
	struct rte_ether_addr mac;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	recovery_log_start(a, true);
	if (test_port_start(a, 0, 0) != 0 || test_port_start(b, 0, 0) != 0 ||
	    rte_eth_macaddr_get(b, &mac) != 0)
		goto out;
	refnic_emu_set_faults(refnic_emu_lookup(CP_A), &faults);
	refnic_emu_inject_fatal(refnic_emu_lookup(CP_A));
	if (!recovery_log_is(failed, RTE_DIM(failed)))
		goto out;
	if (test_xstat(a, "recovery_failures") != 1 || test_xstat(a, "recoveries") != 0) {
		printf("    xstat recovery_failures %" PRIu64 "\n",
		       test_xstat(a, "recovery_failures"));
		goto out;
	}
	m = test_make_pkt(&mac, 128, 8, 1);
	if (rte_eth_tx_burst(a, 0, &m, 1) != 0 || rte_eth_rx_burst(a, 0, &rx, 1) != 0) {
		printf("    bursts on a port that failed to recover moved frames\n");
		goto out;
	}
	rte_pktmbuf_free(m);
	faults.reset_fail_times = 0;
	refnic_emu_set_faults(refnic_emu_lookup(CP_A), &faults);
	rte_eth_dev_stop(a);
	if (rte_eth_dev_reset(a) != 0 || rte_eth_dev_configure(a, 1, 1, &conf) != 0 ||
	    test_port_start(a, 0, 0) != 0) {
		printf("    no way back through rte_eth_dev_reset()\n");
		goto out;
	}
	if (frame_arrives(a, b, &mac, 9))
		ret = TEST_SUCCESS;
out:
	recovery_log_start(a, false);
	test_pair_destroy(CP_A, CP_B);
	return ret;
}

/*
 * Stats read while another thread resets them never come out torn: a
 * count computed from one fetch against a base from another would wrap
 * past what was ever sent.
 */
static int
test_stats_consistent_under_concurrency(void)
{
	struct test_stats_thread r = { .reset = true };
	struct rte_eth_stats st;
	struct rte_ether_addr mac;
	struct rte_mbuf *m[TEST_BURST];
	unsigned int round, i, bad = 0;
	uint64_t sent = 0;
	pthread_t thread;
	uint16_t a, b;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (test_port_start(a, 0, 0) != 0 || test_port_start(b, 0, 0) != 0 ||
	    rte_eth_macaddr_get(b, &mac) != 0) {
		test_pair_destroy(CP_A, CP_B);
		return TEST_FAILED;
	}
	r.port = b;
	TEST_ASSERT_SUCCESS(pthread_create(&thread, NULL, test_stats_loop, &r), "");
	for (round = 0; round < 200; round++) {
		for (i = 0; i < TEST_BURST; i++)
			m[i] = test_make_pkt(&mac, 64, i, 1);
		sent += test_tx_all(a, m, TEST_BURST);
		i = test_rx_wait(b, m, TEST_BURST);
		rte_pktmbuf_free_bulk(m, i);
		if (rte_eth_stats_get(b, &st) == 0 &&
		    (st.ipackets > sent || st.ibytes > sent * 64 || st.imissed > sent))
			bad++;
	}
	r.stop = true;
	pthread_join(thread, NULL);
	test_pair_destroy(CP_A, CP_B);
	TEST_ASSERT(r.calls > 0, "the resetting thread never ran");
	TEST_ASSERT_EQUAL(bad, 0, "torn stats: counts beyond what was sent");
	return TEST_SUCCESS;
}

/*
 * Recoveries while another thread keeps asking the device for its counters
 * (as telemetry does): the reset and the new admin queue wait for the
 * command under way, which would otherwise run on a queue being rebuilt
 * under it, and every recovery succeeds.
 */
static int
test_recovery_while_stats_read(void)
{
	struct test_stats_thread r = { .reset = false };
	struct rte_ether_addr mac;
	unsigned int round;
	pthread_t thread;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (test_port_start(a, 0, 0) != 0 || test_port_start(b, 0, 0) != 0 ||
	    rte_eth_macaddr_get(b, &mac) != 0) {
		test_pair_destroy(CP_A, CP_B);
		return TEST_FAILED;
	}
	r.port = b;
	TEST_ASSERT_SUCCESS(pthread_create(&thread, NULL, test_stats_loop, &r), "");
	for (round = 0; round < 10; round++) {
		recovery_log_start(b, true);
		refnic_emu_inject_fatal(refnic_emu_lookup(CP_B));
		if (!recovery_log_is(recovered, RTE_DIM(recovered))) {
			printf("    round %u: no clean recovery\n", round);
			goto out;
		}
		recovery_log_start(b, false);
		if (!frame_arrives(a, b, &mac, round)) {
			printf("    round %u: no frame after the recovery\n", round);
			goto out;
		}
	}
	ret = TEST_SUCCESS;
out:
	recovery_log_start(b, false);
	r.stop = true;
	pthread_join(thread, NULL);
	test_pair_destroy(CP_A, CP_B);
	TEST_ASSERT(r.calls > 0, "the reading thread never ran");
	return ret;
}

struct traffic_thread {
	uint16_t a, b;
	struct rte_ether_addr mac;
	volatile bool stop;
	uint64_t sent, received;
};

static void *
traffic_loop(void *arg)
{
	struct traffic_thread *t = arg;
	struct rte_mbuf *m[TEST_BURST];
	uint16_t i, n;

	/* Both ways: whichever device the control call locks first, a
	 * doorbell holds the other's TX lock. */
	while (!t->stop) {
		for (i = 0; i < TEST_BURST; i++)
			m[i] = test_make_pkt(&t->mac, 64, i, 1);
		n = rte_eth_tx_burst(t->a, 0, m, TEST_BURST / 2);
		n += rte_eth_tx_burst(t->b, 0, m + n, TEST_BURST - n);
		t->sent += n;
		rte_pktmbuf_free_bulk(m + n, TEST_BURST - n);
		n = rte_eth_rx_burst(t->b, 0, m, TEST_BURST);
		n += rte_eth_rx_burst(t->a, 0, m + n, TEST_BURST - n);
		t->received += n;
		rte_pktmbuf_free_bulk(m, n);
	}
	return NULL;
}

/*
 * Device control calls (a cable pulled and pushed back) while another
 * thread's TX doorbells deliver inline into the peer's RX ring: they take
 * the same queue locks, and must take them in the same order. A deadlock
 * hangs this test (test.sh's timeout ends it); the soak found one.
 */
static int
test_control_calls_during_inline_traffic(void)
{
	struct traffic_thread t = { 0 };
	pthread_t thread;
	uint64_t deadline;
	unsigned int i;
	uint16_t a, b;

	TEST_ASSERT_SUCCESS(test_pair_create(CP_A, CP_B, &a, &b), "");
	if (test_port_start(a, 0, 0) != 0 || test_port_start(b, 0, 0) != 0 ||
	    rte_eth_macaddr_get(b, &t.mac) != 0) {
		test_pair_destroy(CP_A, CP_B);
		return TEST_FAILED;
	}
	t.a = a;
	t.b = b;
	TEST_ASSERT_SUCCESS(pthread_create(&thread, NULL, traffic_loop, &t), "");
	deadline = rte_get_timer_cycles() + rte_get_timer_hz();	/* 1 s of flaps */
	while (t.sent == 0 && rte_get_timer_cycles() < deadline)
		rte_pause();
	for (i = 0; rte_get_timer_cycles() < deadline || i < 400; i++)
		refnic_emu_set_cable_plugged(refnic_emu_lookup(i % 4 < 2 ? CP_A : CP_B),
					     i % 2 != 0);
	t.stop = true;
	pthread_join(thread, NULL);
	test_pair_destroy(CP_A, CP_B);
	TEST_ASSERT(t.sent > 0 && t.received > 0, "no traffic ran alongside");
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_control_suite = {
	.name = "control",
	.cases = {
		TEST_CASE(test_poll_policies_bounded),
		TEST_CASE(test_admin_timeout_then_reset),
		TEST_CASE(test_reset_failure),
		TEST_CASE(test_fatal_on_stopped_port_then_reset),
		TEST_CASE(test_fatal_recovers_with_configuration),
		TEST_CASE(test_queue_error_recovers),
		TEST_CASE(test_recovery_keeps_queue_states),
		TEST_CASE(test_recovery_retry_keeps_queue_states),
		TEST_CASE(test_recovery_failure),
		TEST_CASE(test_stats_consistent_under_concurrency),
		TEST_CASE(test_recovery_while_stats_read),
		TEST_CASE(test_control_calls_during_inline_traffic),
		TEST_CASE(test_lsc_on_unplug_replug),
		TEST_CASE(test_link_down_up_seen_by_peer),
		TEST_CASE(test_rss),
		TEST_CASE(test_filters),
		TEST_CASE(test_mtu_runtime),
		TEST_CASE(test_get_reg),
		TEST_CASE(test_get_reg_heads_after_traffic),
		TEST_CASES_END()
	},
};
