/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device moves frames a batch at a time, as its own path counters
 * (refnic_emu_read_path_stats()) tell: one receive burst, one publish of
 * RX completions and one TX completion for a burst of plain frames; no
 * header parsed when nothing asks for what a parse gives; and the burst
 * delivers what the per-frame path delivers, byte for byte and counter for
 * counter.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_thash.h>

#include "test_common.h"

#define BT_A	"net_refnic_bt0"
#define BT_B	"net_refnic_bt1"
#define BT_C	"net_refnic_bt2"	/* a pair whose receiver takes interrupts */
#define BT_D	"net_refnic_bt3"
#define BT_E	"net_refnic_bt4"	/* a pair whose receiver has 2 RSS queues */
#define BT_F	"net_refnic_bt5"
#define BT_G	"net_refnic_bt6"	/* a pair whose receiver strips VLAN tags */
#define BT_H	"net_refnic_bt7"

static uint16_t port_a, port_b;
static struct rte_ether_addr mac_b;

static const struct test_pair_conf bt_pair = { .name_a = BT_A, .name_b = BT_B };

static int
bt_setup(void)
{
	return test_pair_setup(&bt_pair, &port_a, &port_b, &mac_b) == 0 ?
	       TEST_SUCCESS : TEST_FAILED;
}

static void
bt_teardown(void)
{
	test_pair_teardown(&bt_pair);
}

static void
path_stats(const char *name, struct refnic_emu_path_stats *ps)
{
	refnic_emu_read_path_stats(refnic_emu_lookup(name), ps);
}

/* n frames of len bytes (seeds from seed) a -> b, all sent in one burst;
 * the received ones in rx (the caller frees them); how many arrived intact. */
static uint16_t
bt_send(uint16_t a, uint16_t b, const struct rte_ether_addr *mac, uint16_t n,
	const uint32_t *len, uint32_t seed, struct rte_mbuf **rx)
{
	struct rte_mbuf *tx[TEST_BURST];
	uint16_t i, sent, got, intact = 0;

	for (i = 0; i < n; i++) {
		tx[i] = test_make_pkt(mac, len[i], seed + i, 1);
		if (tx[i] == NULL) {
			rte_pktmbuf_free_bulk(tx, i);
			return 0;
		}
	}
	sent = rte_eth_tx_burst(a, 0, tx, n);
	rte_pktmbuf_free_bulk(tx + sent, n - sent);
	got = test_rx_wait(b, rx, sent);
	for (i = 0; i < got; i++)
		intact += test_pkt_matches(rx[i], mac, len[i], seed + i);
	return sent == n ? intact : 0;
}

static void
lens_fill(uint32_t *len, uint16_t n, bool mixed)
{
	static const uint32_t sizes[] = { 60, 64, 65, 128, 511, 1000, 1514, 1518 };
	uint16_t i;

	for (i = 0; i < n; i++)
		len[i] = mixed ? sizes[i % RTE_DIM(sizes)] : TEST_MIN_FRAME;
}

/* A burst of 32 plain frames: one receive burst, one publish, one TX completion. */
static int
test_burst_is_one_pass(void)
{
	struct refnic_emu_path_stats a0, a1, b0, b1;
	struct rte_mbuf *rx[TEST_BURST];
	uint32_t len[TEST_BURST];
	unsigned int round;
	uint16_t got;

	lens_fill(len, TEST_BURST, true);
	for (round = 0; round < 4; round++) {
		path_stats(BT_A, &a0);
		path_stats(BT_B, &b0);
		got = bt_send(port_a, port_b, &mac_b, TEST_BURST, len, 100 * round, rx);
		rte_pktmbuf_free_bulk(rx, got);
		TEST_ASSERT_EQUAL(got, TEST_BURST, "round %u: %u of %u intact", round, got,
				  TEST_BURST);
		path_stats(BT_A, &a1);
		path_stats(BT_B, &b1);
		TEST_ASSERT_EQUAL(b1.rx_bursts - b0.rx_bursts, 1, "round %u: receive bursts",
				  round);
		TEST_ASSERT_EQUAL(b1.rx_burst_frames - b0.rx_burst_frames, TEST_BURST,
				  "round %u: frames in the burst", round);
		TEST_ASSERT_EQUAL(b1.rx_single_frames - b0.rx_single_frames, 0,
				  "round %u: frames received one at a time", round);
		TEST_ASSERT_EQUAL(b1.rx_publishes - b0.rx_publishes, 1,
				  "round %u: RX completion publishes", round);
		TEST_ASSERT_EQUAL(a1.tx_completions - a0.tx_completions, 1,
				  "round %u: TX completions written", round);
	}
	return TEST_SUCCESS;
}

/* Set b's packet types; 0 if the port took them. */
static int
ptypes_set(uint16_t port, uint32_t mask)
{
	return rte_eth_dev_set_ptypes(port, mask, NULL, 0);
}

/* A port that asks no packet type, checksum, hash or rule has nothing parsed. */
static int
test_parse_only_when_asked(void)
{
	struct refnic_emu_path_stats b0, b1;
	struct rte_mbuf *rx[TEST_BURST];
	uint32_t len[TEST_BURST];
	uint16_t got, i;
	bool typed = true;

	lens_fill(len, TEST_BURST, false);
	TEST_ASSERT_SUCCESS(ptypes_set(port_b, RTE_PTYPE_UNKNOWN), "no packet types");
	path_stats(BT_B, &b0);
	got = bt_send(port_a, port_b, &mac_b, TEST_BURST, len, 7, rx);
	rte_pktmbuf_free_bulk(rx, got);
	path_stats(BT_B, &b1);
	TEST_ASSERT_EQUAL(got, TEST_BURST, "%u of %u intact", got, TEST_BURST);
	TEST_ASSERT_EQUAL(b1.rx_parsed - b0.rx_parsed, 0, "frames parsed without packet types");

	/* Asked again: each frame parsed once, and typed. */
	TEST_ASSERT_SUCCESS(ptypes_set(port_b, RTE_PTYPE_L2_MASK | RTE_PTYPE_L3_MASK |
				       RTE_PTYPE_L4_MASK), "packet types back");
	path_stats(BT_B, &b0);
	got = bt_send(port_a, port_b, &mac_b, TEST_BURST, len, 9, rx);
	for (i = 0; i < got; i++)
		typed &= (rx[i]->packet_type & RTE_PTYPE_L2_MASK) == RTE_PTYPE_L2_ETHER;
	rte_pktmbuf_free_bulk(rx, got);
	path_stats(BT_B, &b1);
	TEST_ASSERT_EQUAL(got, TEST_BURST, "%u of %u intact", got, TEST_BURST);
	TEST_ASSERT(typed, "a frame without its L2 type");
	TEST_ASSERT_EQUAL(b1.rx_parsed - b0.rx_parsed, TEST_BURST, "frames parsed");
	return TEST_SUCCESS;
}

/* The device counters a receive path adds to. */
struct rx_counts {
	uint64_t packets, bytes, no_buffer, dma_writes, filtered, oversize;
};

static void
rx_counts(const char *name, struct rx_counts *c)
{
	struct refnic_hw_stats s;

	test_hw_stats(name, &s);
	*c = (struct rx_counts){
		.packets = s.q[0].rx_packets, .bytes = s.q[0].rx_bytes,
		.no_buffer = s.q[0].rx_no_buffer, .dma_writes = s.dma_writes,
		.filtered = s.rx_filtered, .oversize = s.rx_oversize,
	};
}

/*
 * The same frames through the burst (b) and through the per-frame path (a
 * receiver with Rx interrupts takes frames one at a time, as it may have
 * to raise one mid-batch): the same bytes, packet types, flags and hashes,
 * and the same counters added.
 */
static int
test_burst_matches_single_path(void)
{
	struct rte_eth_conf conf = { .intr_conf = { .rxq = 1 } };
	const struct test_pair_conf intr_pair = {
		.name_a = BT_C, .name_b = BT_D, .conf = &conf,
	};
	struct refnic_emu_path_stats p0, p1, q0, q1;
	struct rte_mbuf *rb[TEST_BURST], *rs[TEST_BURST];
	struct rx_counts cb0, cb1, cs0, cs1;
	struct rte_ether_addr mac_d;
	uint32_t len[TEST_BURST];
	uint16_t c, d, gb, gs = 0, i;
	int ret = TEST_FAILED;

	if (test_pair_setup(&intr_pair, &c, &d, &mac_d) != 0)
		return TEST_FAILED;
	lens_fill(len, TEST_BURST, true);
	path_stats(BT_B, &p0);
	path_stats(BT_D, &q0);
	rx_counts(BT_B, &cb0);
	rx_counts(BT_D, &cs0);
	/* The same bytes to both: b's address written where d's goes. */
	gb = bt_send(port_a, port_b, &mac_b, TEST_BURST, len, 500, rb);
	gs = bt_send(c, d, &mac_d, TEST_BURST, len, 500, rs);
	path_stats(BT_B, &p1);
	path_stats(BT_D, &q1);
	rx_counts(BT_B, &cb1);
	rx_counts(BT_D, &cs1);
	if (gb != TEST_BURST || gs != TEST_BURST) {
		printf("    %u and %u of %u intact\n", gb, gs, TEST_BURST);
		goto out;
	}
	if (p1.rx_burst_frames - p0.rx_burst_frames != TEST_BURST ||
	    q1.rx_single_frames - q0.rx_single_frames != TEST_BURST ||
	    q1.rx_burst_frames != q0.rx_burst_frames) {
		printf("    paths: %" PRIu64 " frames in bursts on b, %" PRIu64 " one at a time"
		       " and %" PRIu64 " in bursts on d\n", p1.rx_burst_frames - p0.rx_burst_frames,
		       q1.rx_single_frames - q0.rx_single_frames,
		       q1.rx_burst_frames - q0.rx_burst_frames);
		goto out;
	}
	for (i = 0; i < TEST_BURST; i++) {
		const struct rte_mbuf *x = rb[i], *y = rs[i];

		if (x->pkt_len != y->pkt_len || x->nb_segs != y->nb_segs ||
		    x->packet_type != y->packet_type || x->ol_flags != y->ol_flags ||
		    ((x->ol_flags & RTE_MBUF_F_RX_RSS_HASH) && x->hash.rss != y->hash.rss) ||
		    memcmp(rte_pktmbuf_mtod_offset(x, const uint8_t *, RTE_ETHER_ADDR_LEN),
			   rte_pktmbuf_mtod_offset(y, const uint8_t *, RTE_ETHER_ADDR_LEN),
			   x->data_len - RTE_ETHER_ADDR_LEN) != 0) {
			printf("    frame %u differs: len %u/%u, ptype 0x%x/0x%x, flags 0x%" PRIx64
			       "/0x%" PRIx64 "\n", i, x->pkt_len, y->pkt_len, x->packet_type,
			       y->packet_type, x->ol_flags, y->ol_flags);
			goto out;
		}
	}
	if (cb1.packets - cb0.packets != cs1.packets - cs0.packets ||
	    cb1.bytes - cb0.bytes != cs1.bytes - cs0.bytes ||
	    cb1.no_buffer - cb0.no_buffer != cs1.no_buffer - cs0.no_buffer ||
	    cb1.dma_writes - cb0.dma_writes != cs1.dma_writes - cs0.dma_writes ||
	    cb1.filtered - cb0.filtered != cs1.filtered - cs0.filtered ||
	    cb1.oversize - cb0.oversize != cs1.oversize - cs0.oversize ||
	    cb1.packets - cb0.packets != TEST_BURST) {
		printf("    counters differ: packets %" PRIu64 "/%" PRIu64 ", bytes %" PRIu64
		       "/%" PRIu64 "\n", cb1.packets - cb0.packets, cs1.packets - cs0.packets,
		       cb1.bytes - cb0.bytes, cs1.bytes - cs0.bytes);
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	rte_pktmbuf_free_bulk(rb, gb);
	rte_pktmbuf_free_bulk(rs, gs);
	test_pair_teardown(&intr_pair);
	return ret;
}

/* The RX queue a frame of hash lands on, per port's RETA (UINT16_MAX: unknown). */
static uint16_t
reta_queue(uint16_t port, uint32_t hash)
{
	struct rte_eth_rss_reta_entry64 reta[REFNIC_RSS_RETA_SIZE / RTE_ETH_RETA_GROUP_SIZE];
	unsigned int j = hash % REFNIC_RSS_RETA_SIZE;

	memset(reta, 0, sizeof(reta));
	reta[j / RTE_ETH_RETA_GROUP_SIZE].mask = UINT64_C(1) << (j % RTE_ETH_RETA_GROUP_SIZE);
	if (rte_eth_dev_rss_reta_query(port, reta, REFNIC_RSS_RETA_SIZE) != 0)
		return UINT16_MAX;
	return reta[j / RTE_ETH_RETA_GROUP_SIZE].reta[j % RTE_ETH_RETA_GROUP_SIZE];
}

/* DPDK's own Toeplitz (rte_softrss) of the IPv4 2-tuple 10.2.x.y -> dst under key. */
static uint32_t
soft_hash(uint16_t flow, const uint8_t *dst, const uint8_t *key)
{
	uint32_t tuple[2] = {
		(uint32_t)10 << 24 | 2 << 16 | flow,
		(uint32_t)dst[0] << 24 | dst[1] << 16 | dst[2] << 8 | dst[3],
	};

	return rte_softrss(tuple, RTE_DIM(tuple), key);
}

/*
 * n flows (from *next on) whose frames land on queues 0, 1, 0, 1, ... of
 * port, found with rte_softrss() and the port's RETA; their hashes in
 * want. False if the key cannot be read or no such flows turn up.
 */
static bool
flows_alternating(uint16_t port, const uint8_t *dst, uint16_t *flow, uint32_t *want,
		  unsigned int n, uint16_t *next)
{
	uint8_t key[REFNIC_RSS_KEY_SIZE];
	struct rte_eth_rss_conf rss = { .rss_key = key, .rss_key_len = sizeof(key) };
	unsigned int i = 0;

	if (rte_eth_dev_rss_hash_conf_get(port, &rss) != 0)
		return false;
	for (; i < n && *next < UINT16_MAX; (*next)++) {
		uint32_t h = soft_hash(*next, dst, key);

		if (reta_queue(port, h) == i % 2) {
			flow[i] = *next;
			want[i++] = h;
		}
	}
	return i == n;
}

/* Receive on queues 0 and 1 of port until n arrived or TEST_WAIT_S passed;
 * got[q] counts queue q's, rx holds them all, each frame's queue in qof. */
static uint16_t
rx_wait_two_queues(uint16_t port, struct rte_mbuf **rx, uint8_t *qof, uint16_t n,
		   uint16_t got[2])
{
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * TEST_WAIT_S;
	uint16_t total = 0, q, k, i;

	got[0] = got[1] = 0;
	while (total < n && rte_get_timer_cycles() < deadline) {
		for (q = 0; q < 2 && total < n; q++) {
			k = rte_eth_rx_burst(port, q, rx + total, n - total);
			for (i = 0; i < k; i++)
				qof[total + i] = q;
			got[q] += k;
			total += k;
		}
	}
	return total;
}

/* Is every frame hashed as rte_softrss() says, on its RETA's queue? */
static bool
rx_hashed_as(uint16_t port, struct rte_mbuf **rx, const uint8_t *qof, uint16_t n,
	     const uint32_t *want, const uint16_t *flow)
{
	uint16_t i, k;

	for (i = 0; i < n; i++) {
		/* Frame k was built from flow[k]: its source address's low half. */
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(rx[i],
			const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
		uint16_t src = rte_be_to_cpu_32(ip->src_addr) & 0xffff;

		for (k = 0; k < n && flow[k] != src; k++)
			;
		if (k == n || !(rx[i]->ol_flags & RTE_MBUF_F_RX_RSS_HASH) ||
		    rx[i]->hash.rss != want[k] || reta_queue(port, want[k]) != qof[i]) {
			printf("    frame %u (flow %u): on queue %u, hash 0x%08x\n", i, src,
			       qof[i], rx[i]->hash.rss);
			return false;
		}
	}
	return true;
}

/*
 * A 2-queue RSS port takes a burst of 32 flows that alternate between its
 * queues as one classify pass, then one receive burst and one publish per
 * queue (the per-frame path takes 32 frames one at a time and publishes
 * at every change of queue: 32 times); every frame hashed as rte_softrss()
 * says, on its RETA's queue.
 */
static int
test_rss_burst_per_queue(void)
{
	struct rte_eth_conf conf = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_RSS, .offloads = RTE_ETH_RX_OFFLOAD_RSS_HASH },
		.rx_adv_conf.rss_conf = { .rss_hf = RTE_ETH_RSS_IPV4 },
	};
	const struct test_pair_conf rss_pair = {
		.name_a = BT_E, .name_b = BT_F, .conf = &conf, .nb_queues = 2,
	};
	static const uint8_t dst[4] = { 192, 0, 2, 1 };
	struct refnic_emu_path_stats a0, a1, f0, f1;
	struct rte_mbuf *tx[TEST_BURST], *rx[TEST_BURST];
	uint16_t e, f, sent, total = 0, got[2], i, flow[TEST_BURST], next = 0;
	uint32_t want[TEST_BURST];
	uint8_t qof[TEST_BURST], src[4] = { 10, 2, 0, 0 };
	unsigned int round;
	int ret = TEST_FAILED;

	if (test_pair_setup(&rss_pair, &e, &f, NULL) != 0)
		return TEST_FAILED;
	for (round = 0; round < 3; round++) {
		if (!flows_alternating(f, dst, flow, want, TEST_BURST, &next))
			goto out;
		for (i = 0; i < TEST_BURST; i++) {
			src[2] = flow[i] >> 8;
			src[3] = flow[i];
			tx[i] = test_make_tcp_pkt(src, dst, false, 1000 + i, 80);
			if (tx[i] == NULL) {
				rte_pktmbuf_free_bulk(tx, i);
				goto out;
			}
		}
		path_stats(BT_E, &a0);
		path_stats(BT_F, &f0);
		sent = rte_eth_tx_burst(e, 0, tx, TEST_BURST);
		rte_pktmbuf_free_bulk(tx + sent, TEST_BURST - sent);
		total = rx_wait_two_queues(f, rx, qof, sent, got);
		path_stats(BT_E, &a1);
		path_stats(BT_F, &f1);
		printf("    round %u: %u sent, %u + %u received; %" PRIu64 " bursts, %" PRIu64
		       " frames in them, %" PRIu64 " alone, %" PRIu64 " publishes, %" PRIu64
		       " parsed\n", round, sent, got[0], got[1], f1.rx_bursts - f0.rx_bursts,
		       f1.rx_burst_frames - f0.rx_burst_frames,
		       f1.rx_single_frames - f0.rx_single_frames,
		       f1.rx_publishes - f0.rx_publishes, f1.rx_parsed - f0.rx_parsed);
		if (sent != TEST_BURST || got[0] != TEST_BURST / 2 || got[1] != TEST_BURST / 2 ||
		    !rx_hashed_as(f, rx, qof, total, want, flow))
			goto free_rx;
		/* One burst and one publish per queue, every frame in them, each
		 * parsed once; one TX completion for the sender's burst. */
		if (f1.rx_bursts - f0.rx_bursts != 2 ||
		    f1.rx_burst_frames - f0.rx_burst_frames != TEST_BURST ||
		    f1.rx_single_frames - f0.rx_single_frames != 0 ||
		    f1.rx_publishes - f0.rx_publishes != 2 ||
		    f1.rx_parsed - f0.rx_parsed != TEST_BURST ||
		    a1.tx_completions - a0.tx_completions != 1)
			goto free_rx;
		rte_pktmbuf_free_bulk(rx, total);
		total = 0;
	}
	ret = TEST_SUCCESS;
free_rx:
	rte_pktmbuf_free_bulk(rx, total);
out:
	test_pair_teardown(&rss_pair);
	return ret;
}

/*
 * A receiver stripping VLAN tags, frames tagged and plain in turn: each
 * tagged frame goes alone (its tag out, in the mbuf), each plain one in a
 * burst of its own, and no burst that took nothing is counted: 16 bursts,
 * 16 frames in them, 16 alone, every frame intact and in order.
 */
static int
test_tagged_frames_go_alone(void)
{
	struct rte_eth_conf conf = {
		.rxmode = { .offloads = RTE_ETH_RX_OFFLOAD_VLAN_STRIP },
	};
	const struct test_pair_conf strip_pair = { .name_a = BT_G, .name_b = BT_H, .conf = &conf };
	struct refnic_emu_path_stats h0, h1;
	struct rte_mbuf *tx[TEST_BURST], *rx[TEST_BURST];
	struct rte_ether_addr mac;
	uint16_t g, h, i, sent, got = 0, intact = 0;
	int ret = TEST_FAILED;

	if (test_pair_setup(&strip_pair, &g, &h, &mac) != 0)
		return TEST_FAILED;
	for (i = 0; i < TEST_BURST; i++) {
		tx[i] = test_make_pkt(&mac, 200, 700 + i, 1);
		if (tx[i] != NULL && i % 2 == 0) {
			tx[i]->vlan_tci = 100;
			if (rte_vlan_insert(&tx[i]) != 0) {
				rte_pktmbuf_free(tx[i]);
				tx[i] = NULL;
			}
		}
		if (tx[i] == NULL) {
			rte_pktmbuf_free_bulk(tx, i);
			goto out;
		}
	}
	path_stats(BT_H, &h0);
	sent = rte_eth_tx_burst(g, 0, tx, TEST_BURST);
	rte_pktmbuf_free_bulk(tx + sent, TEST_BURST - sent);
	got = test_rx_wait(h, rx, sent);
	path_stats(BT_H, &h1);
	for (i = 0; i < got; i++)
		intact += test_pkt_matches(rx[i], &mac, 200, 700 + i) &&
			  (i % 2 == 0) == !!(rx[i]->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) &&
			  (i % 2 != 0 || rx[i]->vlan_tci == 100);
	printf("    %u sent, %u received, %u intact; %" PRIu64 " bursts, %" PRIu64
	       " frames in them, %" PRIu64 " alone\n", sent, got, intact,
	       h1.rx_bursts - h0.rx_bursts, h1.rx_burst_frames - h0.rx_burst_frames,
	       h1.rx_single_frames - h0.rx_single_frames);
	if (sent == TEST_BURST && intact == TEST_BURST &&
	    h1.rx_bursts - h0.rx_bursts == TEST_BURST / 2 &&
	    h1.rx_burst_frames - h0.rx_burst_frames == TEST_BURST / 2 &&
	    h1.rx_single_frames - h0.rx_single_frames == TEST_BURST / 2)
		ret = TEST_SUCCESS;
	rte_pktmbuf_free_bulk(rx, got);
out:
	test_pair_teardown(&strip_pair);
	return ret;
}

const struct unit_test_suite refnic_batching_suite = {
	.name = "batching",
	.setup = bt_setup,
	.teardown = bt_teardown,
	.cases = {
		TEST_CASE(test_burst_is_one_pass),
		TEST_CASE(test_parse_only_when_asked),
		TEST_CASE(test_burst_matches_single_path),
		TEST_CASE(test_rss_burst_per_queue),
		TEST_CASE(test_tagged_frames_go_alone),
		TEST_CASES_END(),
	},
};
