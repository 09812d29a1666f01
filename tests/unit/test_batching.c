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

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "test_common.h"

#define BT_A	"net_refnic_bt0"
#define BT_B	"net_refnic_bt1"
#define BT_C	"net_refnic_bt2"	/* a pair whose receiver takes interrupts */
#define BT_D	"net_refnic_bt3"

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

const struct unit_test_suite refnic_batching_suite = {
	.name = "batching",
	.setup = bt_setup,
	.teardown = bt_teardown,
	.cases = {
		TEST_CASE(test_burst_is_one_pass),
		TEST_CASE(test_parse_only_when_asked),
		TEST_CASE(test_burst_matches_single_path),
		TEST_CASES_END(),
	},
};
