/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Exactly once, judged frame by frame: the sequence witness
 * (tests/witness/) stamps every frame with its stream and sequence number
 * and a payload pattern, and the receiver counts per stream and queue what
 * came once, twice, out of order or altered. Over a port pair, on each data
 * path a user can choose (scalar, SSE and AVX2 bursts; pushed and rung TX;
 * lone and burst sends; chains and jumbo frames; RSS; the device on its own
 * thread; interrupt moderation), hundreds of thousands of frames must
 * arrive with none duplicated, reordered or corrupted, and every one lost
 * counted by the receiving port (imissed, rx_nombuf).
 */

#include <stdlib.h>

#include <rte_cpuflags.h>

#include "test_common.h"
#include "witness.h"
#include "witness_frame.h"

#define WIT_A		"net_refnic_wit_a"
#define WIT_B		"net_refnic_wit_b"
/* Order is per stream: one queue, one stream, so that any two frames
 * swapped in a queue show; over RSS, four flows a queue (on average). */
#define WIT_STREAMS_PER_QUEUE	4
#define WIT_MAX_QUEUES	4
/* Frames a path: the slow path shows among these; big frames take an
 * eighth (the same laps of the rings, less copying). REFNIC_WITNESS_FRAMES
 * overrides, for builds that run slower (sanitizers) or soaks. */
#define WIT_DEFAULT_FRAMES	400000
#define WIT_MANY	wit_frames()
#define WIT_FEW		(wit_frames() / 8)

enum wit_sends {
	WIT_BURSTS,	/* full bursts of 32 */
	WIT_LONE,	/* one frame a call: the push path's case */
	WIT_MIXED,	/* 1, 1, 1, 32, 7, 1, 16, ... */
};

struct wit_case {
	const char *args;	/* devargs of both ports */
	uint16_t nb_queues;	/* RSS over this many; 1: none */
	uint32_t frames;
	uint32_t len;		/* frame length; 0: 66 to 1514 by turns */
	uint16_t nb_segs;	/* TX segments a frame */
	bool jumbo;		/* MTU 9000, scattered RX */
	enum wit_sends sends;
};

static uint32_t
wit_frames(void)
{
	const char *env = getenv("REFNIC_WITNESS_FRAMES");
	unsigned long v = env != NULL ? strtoul(env, NULL, 10) : 0;

	return v >= 1000 && v <= 100000000 ? (uint32_t)v : WIT_DEFAULT_FRAMES;
}

static const uint16_t wit_mixed[] = { 1, 1, 1, 32, 7, 1, 16, 1, 3, 32, 32, 1, 5 };

static uint16_t
wit_burst_len(enum wit_sends s, uint64_t turn)
{
	switch (s) {
	case WIT_LONE:
		return 1;
	case WIT_MIXED:
		return wit_mixed[turn % RTE_DIM(wit_mixed)];
	default:
		return TEST_BURST;
	}
}

static uint32_t
wit_len(const struct wit_case *wc, uint64_t n)
{
	if (wc->len != 0)
		return wc->len;
	return WITNESS_FRAME_MIN + (uint32_t)(n * 97 % (RTE_ETHER_MAX_LEN - 4 - WITNESS_FRAME_MIN));
}

/* Receive what is there on every queue of port into the checker. */
static uint64_t
wit_drain(uint16_t port, uint16_t nb_queues, struct witness_checker *w)
{
	struct rte_mbuf *rx[TEST_BURST];
	uint64_t got = 0;
	uint16_t q, n, i;

	for (q = 0; q < nb_queues; q++) {
		n = rte_eth_rx_burst(port, q, rx, TEST_BURST);
		for (i = 0; i < n; i++)
			witness_check_mbuf(w, q, rx[i]);
		rte_pktmbuf_free_bulk(rx, n);
		got += n;
	}
	return got;
}

/*
 * Receive the rest: until every one of total frames is received or counted
 * lost (imissed, rx_nombuf), or port has done nothing for TEST_WAIT_S.
 * Adds to *received; leaves port's last stats in *st. -1 if they fail.
 */
static int
wit_drain_rest(uint16_t port, uint16_t nb_queues, struct witness_checker *w, uint64_t total,
	       uint64_t *received, struct rte_eth_stats *st)
{
	uint64_t idle_since = rte_get_timer_cycles();

	for (;;) {
		uint64_t got = wit_drain(port, nb_queues, w);

		*received += got;
		if (rte_eth_stats_get(port, st) != 0)
			return -1;
		if (*received + st->imissed + st->rx_nombuf >= total)
			return 0;
		if (got != 0)
			idle_since = rte_get_timer_cycles();
		else if (rte_get_timer_cycles() - idle_since > TEST_WAIT_S * rte_get_timer_hz())
			return 0;
	}
}

static int
wit_port_conf(uint16_t nb_queues, bool jumbo, struct rte_eth_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	if (nb_queues > 1) {
		conf->rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf->rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	}
	if (jumbo) {
		conf->rxmode.mtu = 9000;
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	}
	return 0;
}

/*
 * wc's frames A -> B, received as they come; then the judgement: nothing
 * duplicated, reordered or corrupted, and the frames lost exactly those
 * B's port counted missed or without a buffer.
 */
static int
wit_run(const struct wit_case *wc)
{
	uint16_t nq = wc->nb_queues != 0 ? wc->nb_queues : 1;
	uint16_t nb_streams = nq == 1 ? 1 : nq * WIT_STREAMS_PER_QUEUE, s, q;
	uint64_t sent[WIT_MAX_QUEUES * WIT_STREAMS_PER_QUEUE] = { 0 };
	uint64_t total = 0, received = 0, turn = 0, lost = 0;
	struct test_pair_conf pair = {
		.name_a = WIT_A, .name_b = WIT_B, .args_a = wc->args, .nb_queues = nq,
	};
	struct rte_mbuf *tx[TEST_BURST];
	struct witness_checker *w;
	struct rte_eth_stats sa, sb;
	struct witness_counts t;
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	uint16_t a, b, i, n;
	int ret = TEST_FAILED;

	TEST_ASSERT(nq <= WIT_MAX_QUEUES, "queues");
	wit_port_conf(nq, wc->jumbo, &conf);
	pair.conf = &conf;
	w = witness_checker_create(nb_streams, wc->frames / nb_streams + 1, nq);
	TEST_ASSERT(w != NULL, "checker");
	if (test_pair_setup(&pair, &a, &b, &mac) != 0) {
		printf("    pair (%s) does not start\n", wc->args);
		witness_checker_free(w);
		return TEST_FAILED;
	}
	while (total < wc->frames) {
		n = RTE_MIN(wit_burst_len(wc->sends, turn++), wc->frames - total);
		for (i = 0; i < n; i++) {
			s = (total + i) % nb_streams;
			tx[i] = witness_frame(test_pool, &mac, wit_len(wc, total + i),
					      wc->nb_segs != 0 ? wc->nb_segs : 1, s, sent[s]++);
			if (tx[i] == NULL) {
				printf("    no mbufs for frame %" PRIu64 "\n", total + i);
				rte_pktmbuf_free_bulk(tx, i);
				goto out;
			}
		}
		i = test_tx_all(a, tx, n);
		if (i != n) {
			printf("    port %u took %u frames, not %u\n", a, i, n);
			goto out;
		}
		total += n;
		received += wit_drain(b, nq, w);
	}
	if (wit_drain_rest(b, nq, w, total, &received, &sb) != 0)
		goto out;
	rte_eth_stats_get(a, &sa);
	rte_eth_stats_get(b, &sb);
	for (s = 0; s < nb_streams; s++)
		lost += witness_lost(w, s, sent[s]);
	witness_total(w, &t);
	if (t.duplicated != 0 || t.reordered != 0 || t.corrupted != 0 ||
	    lost != sb.imissed + sb.rx_nombuf || t.received != sb.ipackets ||
	    sa.opackets != total || sa.oerrors != 0) {
		witness_print(w, sent, stdout);
		printf("    %s: A opackets %" PRIu64 " oerrors %" PRIu64 "; B ipackets %" PRIu64
		       " imissed %" PRIu64 " rx_nombuf %" PRIu64 " ierrors %" PRIu64 "\n",
		       wc->args, sa.opackets, sa.oerrors, sb.ipackets, sb.imissed,
		       sb.rx_nombuf, sb.ierrors);
		goto out;
	}
	/* RSS spread the streams: every queue had its share. */
	for (q = 0; q < nq; q++)
		if (witness_queue(w, q)->received == 0) {
			printf("    queue %u received nothing of %u streams\n", q, nb_streams);
			goto out;
		}
	printf("    %s: %" PRIu64 " frames, %" PRIu64 " lost (counted), 0 duplicated, "
	       "reordered or corrupted\n", wc->args, total, lost);
	ret = TEST_SUCCESS;
out:
	test_pair_teardown(&pair);
	witness_checker_free(w);
	return ret;
}

/* The checker itself, fed by hand: each fault it is for, counted exactly. */
static int
test_witness_counts_planted_faults(void)
{
	struct witness_checker *w = witness_checker_create(2, 16, 2);
	uint8_t buf[64];
	struct witness_counts t;
	/* Stream 0: 0 1 2 2(dup) 4 3(reordered) 5, 6 never sent, 7 corrupted
	 * (arrives with a byte flipped); stream 1: 0 1 on queue 1. */
	static const uint64_t seqs[] = { 0, 1, 2, 2, 4, 3, 5 };
	unsigned int i;

	TEST_ASSERT(w != NULL, "checker");
	for (i = 0; i < RTE_DIM(seqs); i++) {
		witness_stamp(buf, sizeof(buf), 0, seqs[i]);
		witness_check(w, 0, buf, sizeof(buf));
	}
	witness_stamp(buf, sizeof(buf), 0, 7);
	buf[40] ^= 0x10;
	TEST_ASSERT_EQUAL(witness_check(w, 0, buf, sizeof(buf)), 1, "flipped byte");
	for (i = 0; i < 2; i++) {
		witness_stamp(buf, sizeof(buf), 1, i);
		TEST_ASSERT_EQUAL(witness_check(w, 1, buf, sizeof(buf)), 0, "stream 1");
	}
	witness_total(w, &t);
	TEST_ASSERT_EQUAL(t.received, 10, "received");
	TEST_ASSERT_EQUAL(t.duplicated, 1, "duplicated");
	TEST_ASSERT_EQUAL(t.reordered, 1, "reordered");
	TEST_ASSERT_EQUAL(t.corrupted, 1, "corrupted");
	TEST_ASSERT_EQUAL(witness_queue(w, 1)->received, 2, "queue 1");
	TEST_ASSERT_EQUAL(witness_queue(w, 0)->reordered, 1, "queue 0 reordered");
	/* Sent 0..7: 6 never came, 7 came damaged. */
	TEST_ASSERT_EQUAL(witness_lost(w, 0, 8), 2, "stream 0 lost");
	TEST_ASSERT_EQUAL(witness_lost(w, 1, 2), 0, "stream 1 lost");
	TEST_ASSERT_EQUAL(witness_stream(w, 0)->unique, 6, "stream 0 unique");
	witness_checker_free(w);
	return TEST_SUCCESS;
}

/*
 * Garbage never crashes the checker and is never taken for a frame: random
 * bytes, every single bit of a good witness flipped, every cut of it, and
 * headers that name a stream, sequence or length out of range.
 */
static int
test_witness_garbage_counts_corrupted(void)
{
	struct witness_checker *w = witness_checker_create(4, 1000, 1);
	uint8_t good[80], buf[sizeof(good)];
	uint64_t bad = 0, seq;
	uint16_t stream;
	unsigned int i, bit;
	uint32_t x = 12345;

	TEST_ASSERT(w != NULL, "checker");
	for (i = 0; i < 200000; i++) {
		uint32_t len = i % (sizeof(buf) + 1), k;

		for (k = 0; k < len; k++) {
			x = x * 1103515245u + 12345u;
			buf[k] = (uint8_t)(x >> 16);
		}
		/* Half of them with a right magic, to get past the first check. */
		if (i % 2 == 0 && len >= 4)
			memcpy(buf, "WIT1", 4);
		TEST_ASSERT_EQUAL(witness_check(w, 0, buf, len), 1, "random input %u taken", i);
		bad++;
	}
	witness_stamp(good, sizeof(good), 3, 999);
	TEST_ASSERT_SUCCESS(witness_parse(good, sizeof(good), &stream, &seq), "good");
	TEST_ASSERT(stream == 3 && seq == 999, "stream %u seq %" PRIu64, stream, seq);
	for (bit = 0; bit < sizeof(good) * 8; bit++) {
		memcpy(buf, good, sizeof(good));
		buf[bit / 8] ^= 1u << (bit % 8);
		TEST_ASSERT_EQUAL(witness_check(w, 0, buf, sizeof(buf)), 1, "bit %u flipped", bit);
		bad++;
	}
	for (i = 0; i < sizeof(good); i++) {
		TEST_ASSERT_EQUAL(witness_check(w, 0, good, i), 1, "cut at %u", i);
		bad++;
	}
	/* Well-formed, out of this checker's range. */
	witness_stamp(buf, sizeof(buf), 4, 0);
	TEST_ASSERT_EQUAL(witness_check(w, 0, buf, sizeof(buf)), 1, "stream 4 of 4");
	witness_stamp(buf, sizeof(buf), 0, 1000);
	TEST_ASSERT_EQUAL(witness_check(w, 0, buf, sizeof(buf)), 1, "seq 1000 of 1000");
	TEST_ASSERT_EQUAL(witness_check(w, 7, good, sizeof(good)), 1, "queue 7 of 1");
	bad += 3;
	TEST_ASSERT_EQUAL(witness_queue(w, 0)->corrupted, bad, "corrupted");
	TEST_ASSERT_EQUAL(witness_queue(w, 0)->unique, 0, "nothing taken");
	/* Padding after the witness (Ethernet's minimum) is no damage. */
	witness_stamp(buf, 40, 1, 5);
	memset(buf + 40, 0, sizeof(buf) - 40);
	TEST_ASSERT_EQUAL(witness_check(w, 0, buf, sizeof(buf)), 0, "padded");
	witness_checker_free(w);
	return TEST_SUCCESS;
}

/*
 * TSO: TCP packets of 1 to 16 frames each (MSS 536 to 1460, in 1 to 3
 * mbufs more than the bytes need), four streams on one queue, the
 * payload numbered in the byte stream's order so that every frame the
 * device cuts carries its own witness. Judged frame by frame: none
 * duplicated, reordered or corrupted, every one lost counted by B, and
 * A's port says it sent exactly the frames the packets were cut into.
 */
#define WIT_TSO_STREAMS		4
#define WIT_TSO_MAX_FRAMES	16
#define WIT_TSO_BURST		8	/* packets: at most 128 frames, half B's ring */

static int
test_witness_tso(void)
{
	static const struct rte_eth_conf conf = {
		.txmode.offloads = RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
				   RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
	};
	const struct test_pair_conf pair = {
		.name_a = WIT_A, .name_b = WIT_B, .args_a = "profile=ideal", .conf = &conf,
	};
	uint64_t sent[WIT_TSO_STREAMS] = { 0 }, frames = 0, packets = 0, received = 0, lost = 0;
	uint64_t target = WIT_FEW;
	struct rte_mbuf *tx[WIT_TSO_BURST];
	struct witness_checker *w;
	struct rte_eth_stats sa, sb;
	struct witness_counts t;
	struct rte_ether_addr mac;
	uint16_t a, b, n, k, s;
	int ret = TEST_FAILED;

	w = witness_checker_create(WIT_TSO_STREAMS, target + WIT_TSO_BURST * WIT_TSO_MAX_FRAMES, 1);
	TEST_ASSERT(w != NULL, "checker");
	if (test_pair_setup(&pair, &a, &b, &mac) != 0) {
		witness_checker_free(w);
		return TEST_FAILED;
	}
	while (frames < target) {
		for (n = 0; n < WIT_TSO_BURST; n++) {
			uint16_t nb = 1 + packets % WIT_TSO_MAX_FRAMES;
			uint16_t mss = 536 + (uint16_t)(packets * 131 % (1460 - 536 + 1));
			uint32_t len = WITNESS_TSO_HDRS + (uint32_t)mss * nb;

			s = packets % WIT_TSO_STREAMS;
			tx[n] = witness_tso_packet(test_pool, &mac, mss, nb,
						   (len + 1999) / 2000 + packets % 3, s, sent[s]);
			if (tx[n] == NULL) {
				printf("    no mbufs for packet %" PRIu64 "\n", packets);
				rte_pktmbuf_free_bulk(tx, n);
				goto out;
			}
			sent[s] += nb;
			frames += nb;
			packets++;
		}
		k = rte_eth_tx_prepare(a, 0, tx, n);
		if (k != n) {
			printf("    tx_prepare took %u of %u: %s\n", k, n, strerror(rte_errno));
			rte_pktmbuf_free_bulk(tx, n);
			goto out;
		}
		if (test_tx_all(a, tx, n) != n) {
			printf("    port %u took fewer than %u packets\n", a, n);
			goto out;
		}
		/* All B has: a burst of packets is up to half its ring. */
		while ((n = wit_drain(b, 1, w)) != 0)
			received += n;
	}
	if (wit_drain_rest(b, 1, w, frames, &received, &sb) != 0)
		goto out;
	rte_eth_stats_get(a, &sa);
	rte_eth_stats_get(b, &sb);
	for (s = 0; s < WIT_TSO_STREAMS; s++)
		lost += witness_lost(w, s, sent[s]);
	witness_total(w, &t);
	if (t.duplicated != 0 || t.reordered != 0 || t.corrupted != 0 ||
	    lost != sb.imissed + sb.rx_nombuf || t.received != sb.ipackets ||
	    sa.opackets != frames || sa.oerrors != 0 ||
	    test_xstat(a, "tx_tso_packets") != packets ||
	    test_xstat(a, "tx_tso_segments") != frames) {
		witness_print(w, sent, stdout);
		printf("    %" PRIu64 " packets, %" PRIu64 " frames: A opackets %" PRIu64 " oerrors %"
		       PRIu64 " tx_tso_packets %" PRIu64 " tx_tso_segments %" PRIu64 "; B ipackets %"
		       PRIu64 " imissed %" PRIu64 " rx_nombuf %" PRIu64 "\n", packets, frames,
		       sa.opackets, sa.oerrors, test_xstat(a, "tx_tso_packets"),
		       test_xstat(a, "tx_tso_segments"), sb.ipackets, sb.imissed, sb.rx_nombuf);
		goto out;
	}
	printf("    %" PRIu64 " TSO packets, %" PRIu64 " frames, %" PRIu64 " lost (counted), "
	       "0 duplicated, reordered or corrupted\n", packets, frames, lost);
	ret = TEST_SUCCESS;
out:
	test_pair_teardown(&pair);
	witness_checker_free(w);
	return ret;
}

static bool
wit_has_avx2(void)
{
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0;
}

#define WIT_PATH(fn, ...)						\
static int								\
fn(void)								\
{									\
	const struct wit_case wc = { __VA_ARGS__ };			\
	return wit_run(&wc);						\
}

WIT_PATH(test_witness_scalar, .args = "profile=ideal,simd=scalar", .frames = WIT_MANY,
	 .sends = WIT_MIXED)
WIT_PATH(test_witness_sse, .args = "profile=ideal,simd=sse", .frames = WIT_MANY,
	 .sends = WIT_MIXED)
WIT_PATH(test_witness_push_lone, .args = "profile=baremetal,wc=on", .frames = WIT_MANY,
	 .sends = WIT_LONE)
WIT_PATH(test_witness_push_mixed, .args = "profile=baremetal,wc=on", .frames = WIT_MANY,
	 .sends = WIT_MIXED)
WIT_PATH(test_witness_push_mixed_device_thread, .args = "profile=baremetal,wc=on,exec=thread",
	 .frames = WIT_MANY, .sends = WIT_MIXED)
WIT_PATH(test_witness_doorbell_mixed, .args = "profile=vm,wc=off", .frames = WIT_MANY,
	 .sends = WIT_MIXED)
WIT_PATH(test_witness_doorbell_device_thread, .args = "profile=vm,wc=off,exec=thread",
	 .frames = WIT_MANY, .sends = WIT_MIXED)
WIT_PATH(test_witness_multi_segment, .args = "profile=ideal", .frames = WIT_FEW,
	 .nb_segs = 3, .sends = WIT_MIXED)
WIT_PATH(test_witness_jumbo, .args = "profile=ideal", .frames = WIT_FEW, .len = 9000,
	 .nb_segs = 5, .jumbo = true, .sends = WIT_MIXED)
WIT_PATH(test_witness_rss, .args = "profile=ideal", .nb_queues = 4, .frames = WIT_MANY,
	 .sends = WIT_BURSTS)
WIT_PATH(test_witness_rss_device_thread, .args = "profile=ideal,exec=thread", .nb_queues = 4,
	 .frames = WIT_MANY, .sends = WIT_MIXED)
WIT_PATH(test_witness_moderated, .args = "profile=ideal,rx_itr_us=50", .nb_queues = 2,
	 .frames = WIT_MANY, .sends = WIT_MIXED)
WIT_PATH(test_witness_moderated_device_thread, .args = "profile=ideal,rx_itr_us=50,exec=thread",
	 .frames = WIT_MANY, .sends = WIT_MIXED)

static int
test_witness_avx2(void)
{
	const struct wit_case wc = {
		.args = "profile=ideal,simd=avx2", .frames = WIT_MANY, .sends = WIT_MIXED,
	};

	if (!wit_has_avx2())
		return TEST_SKIPPED;
	return wit_run(&wc);
}

const struct unit_test_suite refnic_witness_suite = {
	.name = "witness",
	.cases = {
		TEST_CASE(test_witness_counts_planted_faults),
		TEST_CASE(test_witness_garbage_counts_corrupted),
		TEST_CASE(test_witness_scalar),
		TEST_CASE(test_witness_sse),
		TEST_CASE(test_witness_avx2),
		TEST_CASE(test_witness_push_lone),
		TEST_CASE(test_witness_push_mixed),
		TEST_CASE(test_witness_push_mixed_device_thread),
		TEST_CASE(test_witness_doorbell_mixed),
		TEST_CASE(test_witness_doorbell_device_thread),
		TEST_CASE(test_witness_multi_segment),
		TEST_CASE(test_witness_jumbo),
		TEST_CASE(test_witness_tso),
		TEST_CASE(test_witness_rss),
		TEST_CASE(test_witness_rss_device_thread),
		TEST_CASE(test_witness_moderated),
		TEST_CASE(test_witness_moderated_device_thread),
		TEST_CASES_END()
	},
};
