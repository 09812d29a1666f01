/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Failures and recovery: a device that fails under a stopped port
 * (INTR_RESET, then rte_eth_dev_reset()), and a started port that recovers
 * by itself (ERR_RECOVERING, then RECOVERY_SUCCESS or RECOVERY_FAILED) from
 * a fatal error or a queue the device stopped, with its configuration and
 * each queue's state, also while another thread reads its counters.
 */

#include <pthread.h>

#include <rte_mempool.h>

#include "test_common.h"

#define CP_A	"net_refnic_cp0"
#define CP_B	"net_refnic_cp1"

static const struct test_pair_conf cp_pair = { .name_a = CP_A, .name_b = CP_B };

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

/* The end of every case: its port's events unregistered, the pair gone. */
static int
recovery_case_end(uint16_t port, int ret)
{
	recovery_log_start(port, false);
	test_pair_destroy(CP_A, CP_B);
	return ret;
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
 * The application's way back from a failed port a: rte_eth_dev_reset(),
 * configured again with one queue each way and no offload, started; then
 * a frame from a reaches b.
 */
static bool
reset_port_and_send(uint16_t a, uint16_t b, const struct rte_ether_addr *mac, uint32_t seed)
{
	struct rte_eth_conf conf = { 0 };

	if (rte_eth_dev_reset(a) != 0) {
		printf("    rte_eth_dev_reset() failed\n");
		return false;
	}
	if (rte_eth_dev_configure(a, 1, 1, &conf) != 0 || test_port_start(a, 0, 0) != 0) {
		printf("    the port does not start again after its reset\n");
		return false;
	}
	if (!frame_arrives(a, b, mac, seed)) {
		printf("    no traffic after the reset\n");
		return false;
	}
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
	struct rte_ether_addr mac;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_probe(&cp_pair, &a, &b), "");
	recovery_log_start(a, true);
	if (test_pair_start(&cp_pair, a, b, &mac) != 0 || rte_eth_dev_stop(a) != 0)
		goto out;
	refnic_emu_inject_fatal(refnic_emu_lookup(CP_A));
	if (!recovery_log_is(reset, RTE_DIM(reset)) || test_xstat(a, "reset_requests") != 1 ||
	    rte_eth_dev_start(a) != -EIO) {
		printf("    a failed port must say INTR_RESET and refuse to start with -EIO\n");
		goto out;
	}
	if (reset_port_and_send(a, b, &mac, 5))
		ret = TEST_SUCCESS;
out:
	return recovery_case_end(a, ret);
}

/*
 * A device without an event queue (caps_off=aeq) tells no one it failed:
 * the next admin command finds the fatal state while it polls for its
 * completion and fails at once with -EIO (not after the admin timeout,
 * -ETIMEDOUT), logging the device's fatal code; the port then says
 * INTR_RESET, and rte_eth_dev_reset() brings it back.
 */
static int
test_fatal_found_by_polling(void)
{
	static const struct test_pair_conf no_aeq = {
		.name_a = CP_A, .name_b = CP_B, .args_a = "profile=ideal,caps_off=aeq",
		.args_b = "profile=ideal",
	};
	static const enum rte_eth_event_type reset[] = { RTE_ETH_EVENT_INTR_RESET };
	struct rte_ether_addr mac, extra = {{ 0x02, 0, 0, 0, 0x56, 0x78 }};
	char log[4096];
	FILE *capture;
	uint16_t a, b;
	int ret = TEST_FAILED, added;

	TEST_ASSERT_SUCCESS(test_pair_probe(&no_aeq, &a, &b), "");
	recovery_log_start(a, true);
	if (test_pair_start(&no_aeq, a, b, &mac) != 0 || rte_eth_dev_stop(a) != 0)
		goto out;
	refnic_emu_inject_fatal(refnic_emu_lookup(CP_A));
	rte_delay_us_sleep(50000);
	if (__atomic_load_n(&recovery_log.n, __ATOMIC_ACQUIRE) != 0) {
		printf("    an event came from a device without an event queue\n");
		goto out;
	}
	capture = test_log_capture_start(log, sizeof(log));
	added = rte_eth_dev_mac_addr_add(a, &extra, 0);
	test_log_capture_stop(capture);
	if (added != -EIO || test_log_count(log, "device fatal error (code", NULL) != 1) {
		printf("    an address added on a failed device: %d, log:\n%s", added, log);
		goto out;
	}
	if (!recovery_log_is(reset, RTE_DIM(reset)) || rte_eth_dev_start(a) != -EIO) {
		printf("    a failed port must say INTR_RESET and refuse to start with -EIO\n");
		goto out;
	}
	if (reset_port_and_send(a, b, &mac, 6))
		ret = TEST_SUCCESS;
out:
	return recovery_case_end(a, ret);
}

/*
 * A stop the device does not confirm (its QUEUE_DESTROY lost): the PMD
 * cannot know the device stopped writing, so it resets the device before
 * it frees a buffer. Reset done, every buffer of A's rings is back, the
 * port is failed (start refused) until rte_eth_dev_reset(). If that reset
 * never finishes either, the buffers are kept, not freed under a device
 * that may write them, until a reset goes through.
 */
static int
unconfirmed_stop(bool reset_fails)
{
	struct refnic_emu_faults faults = {
		.admin_timeout_opcode = REFNIC_ADMIN_QUEUE_DESTROY, .admin_timeout_times = 1,
		.reset_fail_times = reset_fails ? 1 : 0,
	};
	unsigned int none, started, after_stop, after_reset;
	struct rte_ether_addr mac;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_probe(&cp_pair, &a, &b), "");
	recovery_log_start(a, true);
	/* Counted with B stopped: then only A's rings hold mbufs. */
	if (test_pair_start(&cp_pair, a, b, &mac) != 0 || rte_eth_dev_stop(a) != 0 ||
	    rte_eth_dev_stop(b) != 0)
		goto out;
	none = rte_mempool_in_use_count(test_pool);
	if (rte_eth_dev_start(a) != 0)
		goto out;
	started = rte_mempool_in_use_count(test_pool);
	refnic_emu_set_faults(refnic_emu_lookup(CP_A), &faults);
	rte_eth_dev_stop(a);
	after_stop = rte_mempool_in_use_count(test_pool);
	if (started == none || after_stop != (reset_fails ? started : none) ||
	    rte_eth_dev_start(a) != -EIO) {
		printf("    after the unconfirmed stop: %u mbufs in use (none %u, started %u), "
		       "the port %s\n", after_stop, none, started,
		       rte_eth_dev_start(a) == -EIO ? "failed" : "not failed");
		goto out;
	}
	if (rte_eth_dev_start(b) != 0 || !reset_port_and_send(a, b, &mac, 7))
		goto out;
	rte_eth_dev_stop(a);
	rte_eth_dev_stop(b);
	after_reset = rte_mempool_in_use_count(test_pool);
	if (after_reset != none) {
		printf("    after the reset, both stopped: %u mbufs in use, %u before\n",
		       after_reset, none);
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	return recovery_case_end(a, ret);
}

static int
test_unconfirmed_stop(void)
{
	return unconfirmed_stop(false);
}

static int
test_unconfirmed_stop_and_failed_reset(void)
{
	return unconfirmed_stop(true);
}

/*
 * A device that comes back from its reset without an offload the port runs
 * with (a firmware downgrade: no TX checksums) is not handed the old
 * configuration: ERR_RECOVERING, RECOVERY_FAILED, the log says what it
 * lacks, and the port refuses to start until the application resets it.
 * Reconfigured without the offload, it sends again.
 */
static int
test_recovery_refuses_what_the_device_lost(void)
{
	static const enum rte_eth_event_type failed[] = {
		RTE_ETH_EVENT_ERR_RECOVERING, RTE_ETH_EVENT_RECOVERY_FAILED,
	};
	struct refnic_emu_faults faults = { .caps_lost_at_reset = REFNIC_CAP_TX_CSUM };
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	char log[4096];
	FILE *capture;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_probe(&cp_pair, &a, &b), "");
	recovery_log_start(a, true);
	if (test_port_start_offloads(a, 0, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, 0) != 0 ||
	    test_port_start(b, 0, 0) != 0 || rte_eth_macaddr_get(b, &mac) != 0 ||
	    !frame_arrives(a, b, &mac, 21))
		goto out;
	refnic_emu_set_faults(refnic_emu_lookup(CP_A), &faults);
	capture = test_log_capture_start(log, sizeof(log));
	refnic_emu_inject_fatal(refnic_emu_lookup(CP_A));
	if (!recovery_log_is(failed, RTE_DIM(failed))) {
		test_log_capture_stop(capture);
		printf("    the recovery replayed TX checksums on a device without them\n");
		goto out;
	}
	test_log_capture_stop(capture);
	if (test_log_count(log, "TX offloads 0x", NULL) == 0) {
		printf("    no error line says what the device lacks:\n%s", log);
		goto out;
	}
	if (rte_eth_dev_start(a) != -EIO || test_xstat(a, "recovery_failures") != 1) {
		printf("    the failed port started again without a reset\n");
		goto out;
	}
	if (!reset_port_and_send(a, b, &mac, 22))
		goto out;
	if (rte_eth_dev_info_get(a, &info) != 0 ||
	    (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) != 0) {
		printf("    the reset port still offers TX checksums\n");
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	return recovery_case_end(a, ret);
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
	return recovery_case_end(b, ret);
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

	TEST_ASSERT_SUCCESS(test_pair_probe(&cp_pair, &a, &b), "");
	recovery_log_start(a, true);
	if (test_pair_start(&cp_pair, a, b, &mac) != 0)
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
	return recovery_case_end(a, ret);
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
	/* An IPv4 TCP frame (the RSS suite's first vector): hashed, so the
	 * RETA sends it to queue 1. */
	m = test_make_tcp_pkt((const uint8_t []){ 66, 9, 149, 187 },
			      (const uint8_t []){ 161, 142, 100, 80 }, false, 2794, 1766);
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
	return recovery_case_end(b, ret);
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

/* The probed pair started, its events logged; then port a's device, with
 * these faults, fails. */
static int
start_then_fail(uint16_t a, uint16_t b, struct rte_ether_addr *mac,
		const struct refnic_emu_faults *faults)
{
	recovery_log_start(a, true);
	if (test_pair_start(&cp_pair, a, b, mac) != 0)
		return -1;
	refnic_emu_set_faults(refnic_emu_lookup(CP_A), faults);
	refnic_emu_inject_fatal(refnic_emu_lookup(CP_A));
	return 0;
}

/*
 * Between the attempts of a recovery the port is still started to the
 * application: two attempts fail in the start (a QUEUE_CREATE the device
 * drops, waited for to the admin timeout), the third succeeds. All along,
 * rte_eth_dev_configure() is refused, as on any started port. A port that
 * looked stopped there was reconfigured under the retry, which then ran on
 * freed queues (fuzz_completions crashed so).
 */
static int
test_recovery_retry_port_stays_started(void)
{
	struct refnic_emu_faults faults = {
		.admin_timeout_opcode = REFNIC_ADMIN_QUEUE_CREATE,
		.admin_timeout_times = 2,
	};
	uint64_t end = rte_get_timer_cycles() + 4 * TEST_WAIT_S * rte_get_timer_hz();
	unsigned int tries = 0, accepted = 0;
	struct rte_eth_conf conf = { 0 };
	struct rte_ether_addr mac;
	int ethdev_log = rte_log_register("lib.ethdev"), ret = TEST_FAILED;
	int level = rte_log_get_level(ethdev_log);
	uint16_t a, b;

	TEST_ASSERT_SUCCESS(test_pair_probe(&cp_pair, &a, &b), "");
	if (start_then_fail(a, b, &mac, &faults) != 0)
		goto out;
	/* ethdev says why it refuses, every time: not here. */
	rte_log_set_level(ethdev_log, RTE_LOG_CRIT);
	while (__atomic_load_n(&recovery_log.n, __ATOMIC_ACQUIRE) < RTE_DIM(recovered) &&
	       rte_get_timer_cycles() < end) {
		tries++;
		accepted += rte_eth_dev_configure(a, 1, 1, &conf) == 0;
		rte_delay_us_sleep(10000);
	}
	rte_log_set_level(ethdev_log, level);
	printf("    %u of %u configure calls accepted during the recovery\n", accepted, tries);
	if (!recovery_log_is(recovered, RTE_DIM(recovered)) || test_xstat(a, "recoveries") != 1)
		goto out;
	if (accepted != 0 || tries < 100) {
		printf("    the port looked stopped during its recovery\n");
		goto out;
	}
	if (!frame_arrives(a, b, &mac, 13))
		goto out;
	ret = TEST_SUCCESS;
out:
	return recovery_case_end(a, ret);
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
	struct rte_mbuf *m, *rx;
	struct rte_ether_addr mac;
	uint16_t a, b;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_pair_probe(&cp_pair, &a, &b), "");
	if (start_then_fail(a, b, &mac, &faults) != 0)
		goto out;
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
	if (reset_port_and_send(a, b, &mac, 9))
		ret = TEST_SUCCESS;
out:
	return recovery_case_end(a, ret);
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

	TEST_ASSERT_SUCCESS(test_pair_setup(&cp_pair, &a, &b, &mac), "");
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
	__atomic_store_n(&r.stop, true, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	ret = recovery_case_end(b, ret);
	TEST_ASSERT(r.calls > 0, "the reading thread never ran");
	return ret;
}

const struct unit_test_suite refnic_recovery_suite = {
	.name = "recovery",
	.cases = {
		TEST_CASE(test_fatal_on_stopped_port_then_reset),
		TEST_CASE(test_fatal_found_by_polling),
		TEST_CASE(test_unconfirmed_stop),
		TEST_CASE(test_unconfirmed_stop_and_failed_reset),
		TEST_CASE(test_recovery_refuses_what_the_device_lost),
		TEST_CASE(test_fatal_recovers_with_configuration),
		TEST_CASE(test_queue_error_recovers),
		TEST_CASE(test_recovery_keeps_queue_states),
		TEST_CASE(test_recovery_retry_keeps_queue_states),
		TEST_CASE(test_recovery_retry_port_stays_started),
		TEST_CASE(test_recovery_failure),
		TEST_CASE(test_recovery_while_stats_read),
		TEST_CASES_END()
	},
};
