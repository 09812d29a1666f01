/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * rte_flow on refnic: port A sends to port B (4 Rx queues, no RSS of its
 * own: what no rule takes lands on queue 0). What B's application sees is
 * asserted (the queue each frame arrives on, its mbuf flags, exact counts),
 * with the device's own counters (per-queue rx_packets, rx_filtered) as a
 * second witness, and rte_softrss() as the judge of a rule's RSS.
 */

#include <string.h>

#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_thash.h>
#include <rte_udp.h>

#include "refnic_config.h"
#include "test_common.h"

#define FL_A		"net_refnic_fla"
#define FL_B		"net_refnic_flb"
#define FL_QUEUES	4
#define FL_LEN		128

static uint16_t port_a, port_b;
static struct rte_ether_addr mac_b;

static int
fl_start_b(void)
{
	/* RSS on (the hash offload needs it) with no hash types: the device
	 * hashes nothing, and what no rule takes goes to queue 0. */
	struct rte_eth_conf conf = {
		.rxmode = { .mq_mode = RTE_ETH_MQ_RX_RSS,
			    .offloads = RTE_ETH_RX_OFFLOAD_RSS_HASH },
		.rx_adv_conf.rss_conf.rss_hf = 0,
	};

	return test_port_setup(port_b, &conf, FL_QUEUES, 0, 0, NULL);
}

static int
fl_setup(void)
{
	if (!REFNIC_HAVE_RTE_FLOW) {
		printf("    no rte_flow in this build: DPDK's rte_flow_driver.h was not at hand\n");
		return TEST_SKIPPED;
	}
	if (test_pair_create(FL_A, FL_B, &port_a, &port_b) != 0)
		return -1;
	if (test_port_start(port_a, 0, 0) != 0 || fl_start_b() != 0 ||
	    rte_eth_macaddr_get(port_b, &mac_b) != 0) {
		test_pair_destroy(FL_A, FL_B);
		return -1;
	}
	return 0;
}

/* Each case leaves the table empty and the port not isolated, even failing. */
static void
fl_case_end(void)
{
	struct rte_flow_error err;

	rte_flow_flush(port_b, &err);
	rte_flow_isolate(port_b, 0, &err);
}

static void
fl_teardown(void)
{
	struct rte_flow_error err;

	rte_flow_flush(port_b, &err);
	rte_flow_isolate(port_b, 0, &err);
	test_pair_destroy(FL_A, FL_B);
}

/* A frame's headers, as the tests vary them. */
struct fl_pkt {
	uint16_t vlan;		/* VID + 1 if tagged, 0 untagged */
	bool v6;
	uint8_t proto;		/* IPPROTO_UDP or _TCP */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
};

static struct rte_mbuf *
fl_make(const struct fl_pkt *p)
{
	struct rte_mbuf *m = test_make_pkt(&mac_b, FL_LEN, p->sport, 1);
	uint8_t *b = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t l3 = RTE_ETHER_HDR_LEN, l4;
	uint16_t type = p->v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4;

	if (m == NULL)
		return NULL;
	if (p->vlan != 0) {
		b[12] = 0x81;
		b[13] = 0x00;
		b[14] = (p->vlan - 1) >> 8;
		b[15] = (p->vlan - 1) & 0xff;
		l3 += 4;
	}
	b[l3 - 2] = type >> 8;
	b[l3 - 1] = type & 0xff;
	if (p->v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + l3);

		memset(ip, 0, sizeof(*ip));
		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16(FL_LEN - l3 - sizeof(*ip));
		ip->proto = p->proto;
		ip->hop_limits = 64;
		memcpy(REFNIC_IPV6_BYTES(ip->src_addr), p->src, 16);
		memcpy(REFNIC_IPV6_BYTES(ip->dst_addr), p->dst, 16);
		l4 = l3 + sizeof(*ip);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + l3);

		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(FL_LEN - l3);
		ip->time_to_live = 64;
		ip->next_proto_id = p->proto;
		memcpy(&ip->src_addr, p->src, 4);
		memcpy(&ip->dst_addr, p->dst, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		l4 = l3 + sizeof(*ip);
	}
	((struct rte_udp_hdr *)(b + l4))->src_port = rte_cpu_to_be_16(p->sport);
	((struct rte_udp_hdr *)(b + l4))->dst_port = rte_cpu_to_be_16(p->dport);
	return m;
}

/* IPv4 UDP 10.0.0.1:sport -> 10.0.0.<d>:dport. */
static struct fl_pkt
fl_udp4(uint8_t d, uint16_t sport, uint16_t dport)
{
	struct fl_pkt p = {
		.proto = IPPROTO_UDP, .src = { 10, 0, 0, 1 }, .dst = { 10, 0, 0, d },
		.sport = sport, .dport = dport,
	};

	return p;
}

/* What B received, per queue. */
struct fl_rx {
	unsigned int n[FL_QUEUES];
	unsigned int total;
	struct rte_mbuf *m[FL_QUEUES][64];	/* the first ones, kept for checks */
};

static void
fl_rx_free(struct fl_rx *rx)
{
	unsigned int q, i;

	for (q = 0; q < FL_QUEUES; q++)
		for (i = 0; i < RTE_MIN(rx->n[q], 64u); i++)
			rte_pktmbuf_free(rx->m[q][i]);
	memset(rx, 0, sizeof(*rx));
}

/*
 * Send n frames from A (p's sport + i each), then take what B's queues
 * receive until want arrived, and 20 ms more for any extra. want 0: all
 * are to be dropped; wait for the device to count n more rx_filtered.
 */
static void
fl_send(const struct fl_pkt *p, unsigned int n, unsigned int want, struct fl_rx *rx)
{
	uint64_t hz = rte_get_timer_hz(), deadline = rte_get_timer_cycles() + TEST_WAIT_S * hz;
	uint64_t settle = 0;
	struct rte_mbuf *pkts[64], *got[32];
	struct fl_pkt v = *p;
	unsigned int i;
	uint16_t q, k, nb;

	uint64_t filtered = 0;
	struct refnic_hw_stats s;

	memset(rx, 0, sizeof(*rx));
	if (want == 0) {
		test_hw_stats(FL_B, &s);
		filtered = s.rx_filtered + n;
	}
	for (i = 0; i < n && i < 64; i++) {
		v.sport = p->sport + i;
		pkts[i] = fl_make(&v);
	}
	test_tx_all(port_a, pkts, i);
	if (filtered != 0) {	/* dropped: counted, then nothing may arrive */
		test_hw_counter_wait(FL_B, offsetof(struct refnic_hw_stats, rx_filtered),
				     filtered);
		settle = rte_get_timer_cycles() + hz / 50;
	}
	while (rte_get_timer_cycles() < deadline) {
		for (q = 0; q < FL_QUEUES; q++) {
			nb = rte_eth_rx_burst(port_b, q, got, RTE_DIM(got));
			for (k = 0; k < nb; k++) {
				if (rx->n[q] < 64)
					rx->m[q][rx->n[q]] = got[k];
				else
					rte_pktmbuf_free(got[k]);
				rx->n[q]++;
				rx->total++;
			}
		}
		if (rx->total >= want && settle == 0)
			settle = rte_get_timer_cycles() + hz / 50;
		if (settle != 0 && rte_get_timer_cycles() > settle)
			break;
	}
}

static struct rte_flow *
fl_create(const struct rte_flow_attr *attr, const struct rte_flow_item *pattern,
	  const struct rte_flow_action *actions)
{
	struct rte_flow_error err = { 0 };
	struct rte_flow *f;

	if (rte_flow_validate(port_b, attr, pattern, actions, &err) != 0) {
		printf("    validate: %s\n", err.message ? err.message : "(no message)");
		return NULL;
	}
	f = rte_flow_create(port_b, attr, pattern, actions, &err);
	if (f == NULL)
		printf("    create: %s\n", err.message ? err.message : "(no message)");
	return f;
}

static const struct rte_flow_attr ingress = { .ingress = 1 };

/* actions: queue index q / end (one rule's use at a time per queue). */
static struct rte_flow_action *
fl_to_queue(uint16_t q)
{
	static struct rte_flow_action_queue conf[FL_QUEUES];
	static struct rte_flow_action actions[FL_QUEUES][2];

	conf[q].index = q;
	actions[q][0] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_QUEUE,
						  .conf = &conf[q] };
	actions[q][1] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_END };
	return actions[q];
}

/* A rule's counts, or UINT64_MAX. */
static uint64_t
fl_hits(struct rte_flow *f, uint64_t *bytes, bool reset)
{
	struct rte_flow_query_count qc = { .reset = reset };
	struct rte_flow_action count[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT }, { .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err = { 0 };

	if (rte_flow_query(port_b, f, count, &qc, &err) != 0 || !qc.hits_set) {
		printf("    query: %s\n", err.message ? err.message : "(no message)");
		return UINT64_MAX;
	}
	if (bytes != NULL)
		*bytes = qc.bytes;
	return qc.hits;
}

/* eth / ipv4 dst 10.0.0.<d> / udp dst dport -> actions */
#define UDP4_PATTERN(d, dport)							\
	struct rte_flow_item_ipv4 ip_s = { .hdr.dst_addr = RTE_BE32(0x0a000000 | (d)) }; \
	struct rte_flow_item_ipv4 ip_m = { .hdr.dst_addr = RTE_BE32(0xffffffff) }; \
	struct rte_flow_item_udp udp_s = { .hdr.dst_port = RTE_BE16(dport) };	\
	struct rte_flow_item_udp udp_m = { .hdr.dst_port = RTE_BE16(0xffff) };	\
	struct rte_flow_item pattern[] = {					\
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },				\
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip_s, .mask = &ip_m }, \
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp_s, .mask = &udp_m }, \
		{ .type = RTE_FLOW_ITEM_TYPE_END },				\
	}

/* Device RX packets of B's queue q. */
static uint64_t
fl_hw_rx(uint16_t q)
{
	struct refnic_hw_stats s;

	test_hw_stats(FL_B, &s);
	return s.q[q].rx_packets;
}

/*
 * eth / ipv4 dst / udp dst -> queue 3, count: the 10 frames it matches
 * arrive on queue 3, the 6 others (another port, another address) on 0;
 * the device counted 10 on queue 3; the rule counted 10 frames of FL_LEN.
 */
static int
test_flow_queue_and_count(void)
{
	UDP4_PATTERN(7, 4000);
	struct rte_flow_action_queue queue = { .index = 3 };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct fl_pkt hit = fl_udp4(7, 100, 4000), miss_port = fl_udp4(7, 200, 4001),
		      miss_ip = fl_udp4(8, 300, 4000);
	uint64_t hw3 = fl_hw_rx(3), bytes = 0;
	struct rte_flow *f = fl_create(&ingress, pattern, actions);
	struct fl_rx rx;

	TEST_ASSERT(f != NULL, "rule refused");
	fl_send(&hit, 10, 10, &rx);
	TEST_ASSERT(rx.n[3] == 10 && rx.total == 10, "matching: %u on queue 3 of %u",
		    rx.n[3], rx.total);
	fl_rx_free(&rx);
	fl_send(&miss_port, 3, 3, &rx);
	TEST_ASSERT(rx.n[0] == 3 && rx.total == 3, "other port: %u on queue 0 of %u",
		    rx.n[0], rx.total);
	fl_rx_free(&rx);
	fl_send(&miss_ip, 3, 3, &rx);
	TEST_ASSERT(rx.n[0] == 3 && rx.total == 3, "other address: %u on queue 0 of %u",
		    rx.n[0], rx.total);
	fl_rx_free(&rx);
	TEST_ASSERT_EQUAL(fl_hw_rx(3) - hw3, 10, "device's queue 3 count");
	TEST_ASSERT_EQUAL(fl_hits(f, &bytes, false), 10, "rule's hits");
	TEST_ASSERT_EQUAL(bytes, 10 * FL_LEN, "rule's bytes");
	/* Reset on query: the next count starts from 0. */
	TEST_ASSERT_EQUAL(fl_hits(f, NULL, true), 10, "");
	fl_send(&hit, 4, 4, &rx);
	fl_rx_free(&rx);
	TEST_ASSERT_EQUAL(fl_hits(f, NULL, false), 4, "hits after a reset query");
	TEST_ASSERT_SUCCESS(rte_flow_destroy(port_b, f, NULL), "");
	/* Gone: the same frames land on queue 0. */
	fl_send(&hit, 5, 5, &rx);
	TEST_ASSERT(rx.n[0] == 5 && rx.total == 5, "after destroy: %u on queue 0 of %u",
		    rx.n[0], rx.total);
	fl_rx_free(&rx);
	return TEST_SUCCESS;
}

/* ipv4 src 10.0.0.1 / udp dst 5555 -> drop, count: nothing arrives, rx_filtered
 * grows by exactly the frames sent, the rule counts them; others still pass. */
static int
test_flow_drop(void)
{
	UDP4_PATTERN(9, 5555);
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct fl_pkt hit = fl_udp4(9, 1, 5555), miss = fl_udp4(9, 1, 5556);
	struct refnic_hw_stats s0, s1;
	struct rte_flow *f = fl_create(&ingress, pattern, actions);
	struct fl_rx rx;

	TEST_ASSERT(f != NULL, "rule refused");
	test_hw_stats(FL_B, &s0);
	fl_send(&hit, 7, 0, &rx);
	TEST_ASSERT_EQUAL(rx.total, 0, "dropped frames received");
	test_hw_stats(FL_B, &s1);
	TEST_ASSERT_EQUAL(s1.rx_filtered - s0.rx_filtered, 7, "device's rx_filtered");
	TEST_ASSERT_EQUAL(fl_hits(f, NULL, false), 7, "rule's hits");
	fl_send(&miss, 5, 5, &rx);
	TEST_ASSERT(rx.n[0] == 5 && rx.total == 5, "others: %u on queue 0 of %u",
		    rx.n[0], rx.total);
	fl_rx_free(&rx);
	return rte_flow_destroy(port_b, f, NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* Frames have RTE_MBUF_F_RX_FDIR_ID with mark id, or no FDIR flag at all. */
static bool
fl_marked(const struct fl_rx *rx, uint16_t q, bool want, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < RTE_MIN(rx->n[q], 64u); i++) {
		const struct rte_mbuf *m = rx->m[q][i];
		bool has = (m->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID)) ==
			   (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID);

		if (has != want || (want && m->hash.fdir.hi != id) ||
		    (!want && (m->ol_flags & RTE_MBUF_F_RX_FDIR))) {
			printf("    queue %u frame %u: ol_flags 0x%" PRIx64 " fdir.hi 0x%x\n", q, i,
			       m->ol_flags, m->hash.fdir.hi);
			return false;
		}
	}
	return true;
}

/* mark id 0xabcd + queue 2: the matching frames carry the mark in the mbuf;
 * mark alone (no fate) marks and leaves the queue to the default. */
static int
test_flow_mark(void)
{
	UDP4_PATTERN(11, 6000);
	struct rte_flow_action_mark mark = { .id = 0xabcd }, mark2 = { .id = 0x12345678 };
	struct rte_flow_action_queue queue = { .index = 2 };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_action mark_only[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark2 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct fl_pkt hit = fl_udp4(11, 10, 6000), miss = fl_udp4(12, 10, 6000);
	struct rte_flow *f = fl_create(&ingress, pattern, actions), *g;
	struct fl_rx rx;

	TEST_ASSERT(f != NULL, "rule refused");
	fl_send(&hit, 6, 6, &rx);
	TEST_ASSERT(rx.n[2] == 6 && rx.total == 6, "%u on queue 2 of %u", rx.n[2], rx.total);
	TEST_ASSERT(fl_marked(&rx, 2, true, 0xabcd), "mark not in the mbufs");
	fl_rx_free(&rx);
	fl_send(&miss, 4, 4, &rx);
	TEST_ASSERT(rx.n[0] == 4 && fl_marked(&rx, 0, false, 0), "unmatched frames marked");
	fl_rx_free(&rx);
	TEST_ASSERT_SUCCESS(rte_flow_destroy(port_b, f, NULL), "");

	ip_s.hdr.dst_addr = RTE_BE32(0x0a00000c);	/* 10.0.0.12 */
	g = fl_create(&ingress, pattern, mark_only);
	TEST_ASSERT(g != NULL, "mark-only rule refused");
	fl_send(&miss, 4, 4, &rx);
	TEST_ASSERT(rx.n[0] == 4 && fl_marked(&rx, 0, true, 0x12345678),
		    "mark-only: %u on queue 0", rx.n[0]);
	fl_rx_free(&rx);
	return rte_flow_destroy(port_b, g, NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * rss over queues 1, 2, 3 with its own key and UDP/IPv4 4-tuple hashing:
 * each frame arrives on queues[(hash % 64) % 3] (the rule's table), with
 * the hash rte_softrss() computes over the 4-tuple with that key.
 */
static int
test_flow_rss_group(void)
{
	static const uint8_t key[40] = {
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
		21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
	};
	static const uint16_t queues[] = { 1, 2, 3 };
	UDP4_PATTERN(13, 7000);
	struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP, .key_len = sizeof(key), .key = key,
		.queue_num = RTE_DIM(queues), .queue = queues,
	};
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct fl_pkt hit = fl_udp4(13, 1000, 7000);
	struct rte_flow *f = fl_create(&ingress, pattern, actions);
	unsigned int q, i, used = 0;
	struct fl_rx rx;

	TEST_ASSERT(f != NULL, "rule refused");
	fl_send(&hit, 48, 48, &rx);
	TEST_ASSERT(rx.total == 48 && rx.n[0] == 0, "%u received, %u on queue 0", rx.total,
		    rx.n[0]);
	for (q = 1; q < FL_QUEUES; q++) {
		used += rx.n[q] != 0;
		for (i = 0; i < rx.n[q]; i++) {
			const struct rte_mbuf *m = rx.m[q][i];
			const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
			const struct rte_ipv4_hdr *ip = (const void *)(b + RTE_ETHER_HDR_LEN);
			const struct rte_udp_hdr *u = (const void *)(ip + 1);
			uint32_t tuple[3] = {
				rte_be_to_cpu_32(ip->src_addr), rte_be_to_cpu_32(ip->dst_addr),
				(uint32_t)rte_be_to_cpu_16(u->src_port) << 16 |
				rte_be_to_cpu_16(u->dst_port),
			};
			uint32_t hash = rte_softrss(tuple, RTE_DIM(tuple), key);

			TEST_ASSERT(m->ol_flags & RTE_MBUF_F_RX_RSS_HASH, "no hash flag");
			TEST_ASSERT(m->hash.rss == hash, "hash 0x%x, rte_softrss 0x%x",
				    m->hash.rss, hash);
			TEST_ASSERT(queues[(hash % 64) % RTE_DIM(queues)] == q,
				    "hash 0x%x on queue %u, queue %u expected", hash, q,
				    queues[(hash % 64) % RTE_DIM(queues)]);
		}
	}
	TEST_ASSERT_EQUAL(used, 3, "48 flows did not spread over the 3 queues");
	fl_rx_free(&rx);
	return rte_flow_destroy(port_b, f, NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * Priorities: ipv4 dst 10.0.0.20 -> queue 1 at priority 2, then the narrower
 * ipv4 dst 10.0.0.20 / udp dst 53 -> queue 2 at priority 1, created after
 * it: port 53 goes to 2, the rest to 1. A third at priority 3 (-> 3) matching
 * all is never reached for those frames.
 */
static int
test_flow_priorities(void)
{
	UDP4_PATTERN(20, 53);
	struct rte_flow_item ip_only[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip_s, .mask = &ip_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_item any[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH }, { .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_attr p1 = { .ingress = 1, .priority = 1 };
	struct rte_flow_attr p2 = { .ingress = 1, .priority = 2 };
	struct rte_flow_attr p3 = { .ingress = 1, .priority = 3 };
	struct fl_pkt dns = fl_udp4(20, 5, 53), other = fl_udp4(20, 5, 54);
	struct fl_pkt far = fl_udp4(21, 5, 53);
	struct fl_rx rx;

	TEST_ASSERT(fl_create(&p3, any, fl_to_queue(3)) != NULL, "");
	TEST_ASSERT(fl_create(&p2, ip_only, fl_to_queue(1)) != NULL, "");
	TEST_ASSERT(fl_create(&p1, pattern, fl_to_queue(2)) != NULL, "");
	fl_send(&dns, 5, 5, &rx);
	TEST_ASSERT(rx.n[2] == 5 && rx.total == 5, "port 53: %u on queue 2 of %u", rx.n[2],
		    rx.total);
	fl_rx_free(&rx);
	fl_send(&other, 5, 5, &rx);
	TEST_ASSERT(rx.n[1] == 5 && rx.total == 5, "port 54: %u on queue 1 of %u", rx.n[1],
		    rx.total);
	fl_rx_free(&rx);
	fl_send(&far, 5, 5, &rx);
	TEST_ASSERT(rx.n[3] == 5 && rx.total == 5, "10.0.0.21: %u on queue 3 of %u", rx.n[3],
		    rx.total);
	fl_rx_free(&rx);
	return rte_flow_flush(port_b, NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * Masks: ipv4 dst 192.168.1.0/24 -> 1; ipv6 dst 2001:db8:1::/48 / tcp ->
 * 2; vlan vid 100 -> 3. Frames inside and outside each.
 */
static int
test_flow_masks(void)
{
	struct rte_flow_item_ipv4 v4_s = { .hdr.dst_addr = RTE_BE32(0xc0a80100) };
	struct rte_flow_item_ipv4 v4_m = { .hdr.dst_addr = RTE_BE32(0xffffff00) };
	static const uint8_t v6_net[] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1 };
	struct rte_flow_item_ipv6 v6_s = { 0 }, v6_m = { 0 };
	struct rte_flow_item_vlan vl_s = { .hdr.vlan_tci = RTE_BE16(100) };
	struct rte_flow_item p_v4[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &v4_s, .mask = &v4_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_item p_v6[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &v6_s, .mask = &v6_m },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_item p_vlan[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN, .spec = &vl_s },	/* default mask: VID */
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct fl_pkt in4 = {
		.proto = IPPROTO_UDP, .src = { 1, 1, 1, 1 }, .dst = { 192, 168, 1, 77 },
	};
	struct fl_pkt out4 = in4;
	struct fl_pkt in6 = { .v6 = true, .proto = IPPROTO_TCP,
			      .dst = { 0x20, 0x01, 0x0d, 0xb8, 0, 1, 0xaa, 0xbb, [15] = 9 } };
	struct fl_pkt udp6 = in6, out6 = in6, tagged, tagged101;
	struct fl_rx rx;

	memcpy(REFNIC_IPV6_BYTES(v6_s.hdr.dst_addr), v6_net, sizeof(v6_net));
	memset(REFNIC_IPV6_BYTES(v6_m.hdr.dst_addr), 0xff, sizeof(v6_net));	/* a /48 */
	out4.dst[2] = 2;			/* 192.168.2.77 */
	tagged = out4;
	udp6.proto = IPPROTO_UDP;		/* right prefix, not TCP */
	out6.dst[5] = 2;			/* 2001:db8:2:: */
	tagged.vlan = 1 + (0x2000 | 100);	/* PCP 1, VID 100: the mask takes the VID */
	tagged101 = tagged;
	tagged101.vlan = 1 + 101;

	TEST_ASSERT(fl_create(&ingress, p_v4, fl_to_queue(1)) != NULL, "");
	TEST_ASSERT(fl_create(&ingress, p_v6, fl_to_queue(2)) != NULL, "");
	TEST_ASSERT(fl_create(&ingress, p_vlan, fl_to_queue(3)) != NULL, "");
	fl_send(&in4, 3, 3, &rx);
	TEST_ASSERT(rx.n[1] == 3 && rx.total == 3, "192.168.1.77: %u on 1", rx.n[1]);
	fl_rx_free(&rx);
	fl_send(&out4, 3, 3, &rx);
	TEST_ASSERT(rx.n[0] == 3 && rx.total == 3, "192.168.2.77: %u on 0", rx.n[0]);
	fl_rx_free(&rx);
	fl_send(&in6, 3, 3, &rx);
	TEST_ASSERT(rx.n[2] == 3 && rx.total == 3, "2001:db8:1:aabb::9 tcp: %u on 2", rx.n[2]);
	fl_rx_free(&rx);
	fl_send(&udp6, 3, 3, &rx);
	TEST_ASSERT(rx.n[0] == 3 && rx.total == 3, "2001:db8:1:: udp: %u on 0", rx.n[0]);
	fl_rx_free(&rx);
	fl_send(&out6, 3, 3, &rx);
	TEST_ASSERT(rx.n[0] == 3 && rx.total == 3, "2001:db8:2:: tcp: %u on 0", rx.n[0]);
	fl_rx_free(&rx);
	fl_send(&tagged101, 3, 3, &rx);
	TEST_ASSERT(rx.n[0] == 3 && rx.total == 3, "VID 101: %u on 0 of %u (%u %u %u)", rx.n[0],
		    rx.total, rx.n[1], rx.n[2], rx.n[3]);
	fl_rx_free(&rx);
	/* The VLAN rule comes after the IPv4 one: out4's address, VID 100. */
	fl_send(&tagged, 3, 3, &rx);
	TEST_ASSERT(rx.n[3] == 3 && rx.total == 3, "VID 100: %u on 3", rx.n[3]);
	fl_rx_free(&rx);
	return rte_flow_flush(port_b, NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * eth: dst (B's address), src (A's frames carry 02:02:02:02:02:02) and type
 * IPv4 -> queue 2: IPv4 frames arrive there, IPv6 ones (type 0x86dd) and
 * IPv4 ones from another rule's source do not.
 */
static int
test_flow_eth(void)
{
	struct rte_flow_item_eth s = {
		.hdr.src_addr.addr_bytes = { 2, 2, 2, 2, 2, 2 },
		.hdr.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4),
	};
	struct rte_flow_item_eth m = {	/* the default mask leaves the type out */
		.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		.hdr.src_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		.hdr.ether_type = RTE_BE16(0xffff),
	};
	struct rte_flow_item_eth src_other = {
		.hdr.src_addr.addr_bytes = { 2, 2, 2, 2, 2, 3 },
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &s, .mask = &m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_item p_other[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &src_other,
		  .mask = &rte_flow_item_eth_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct fl_pkt v4 = fl_udp4(1, 1, 1), v6 = { .v6 = true, .proto = IPPROTO_UDP };
	struct fl_rx rx;

	rte_ether_addr_copy(&mac_b, &s.hdr.dst_addr);
	TEST_ASSERT(fl_create(&ingress, p, fl_to_queue(2)) != NULL, "");
	TEST_ASSERT(fl_create(&ingress, p_other, fl_to_queue(3)) != NULL, "");
	fl_send(&v4, 4, 4, &rx);
	TEST_ASSERT(rx.n[2] == 4 && rx.total == 4, "IPv4: %u on queue 2 of %u", rx.n[2], rx.total);
	fl_rx_free(&rx);
	fl_send(&v6, 4, 4, &rx);
	TEST_ASSERT(rx.n[0] == 4 && rx.total == 4, "IPv6: %u on queue 0 of %u", rx.n[0], rx.total);
	fl_rx_free(&rx);
	return TEST_SUCCESS;
}

/*
 * passthru: ipv4 dst 10.0.0.70 -> mark 7, count, passthru at priority 0,
 * then udp dst 70 -> queue 3 at priority 1: a frame matching both is
 * marked, counted by the first and steered by the second; one matching
 * only the first is marked and counted, and goes where no rule says (0).
 */
static int
test_flow_passthru(void)
{
	UDP4_PATTERN(70, 70);
	struct rte_flow_item p_ip[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip_s, .mask = &ip_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_item p_udp[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp_s, .mask = &udp_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_mark mark = { .id = 7 };
	struct rte_flow_action first[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_PASSTHRU },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_attr p1 = { .ingress = 1, .priority = 1 };
	struct fl_pkt both = fl_udp4(70, 1, 70), first_only = fl_udp4(70, 1, 71);
	struct rte_flow *f;
	struct fl_rx rx;

	RTE_SET_USED(pattern);
	f = fl_create(&ingress, p_ip, first);
	TEST_ASSERT(f != NULL, "");
	TEST_ASSERT(fl_create(&p1, p_udp, fl_to_queue(3)) != NULL, "");
	fl_send(&both, 5, 5, &rx);
	TEST_ASSERT(rx.n[3] == 5 && rx.total == 5 && fl_marked(&rx, 3, true, 7),
		    "both: %u on queue 3 of %u", rx.n[3], rx.total);
	fl_rx_free(&rx);
	fl_send(&first_only, 3, 3, &rx);
	TEST_ASSERT(rx.n[0] == 3 && rx.total == 3 && fl_marked(&rx, 0, true, 7),
		    "first only: %u on queue 0 of %u", rx.n[0], rx.total);
	fl_rx_free(&rx);
	TEST_ASSERT_EQUAL(fl_hits(f, NULL, false), 8, "the passthru rule's count");
	return TEST_SUCCESS;
}

/*
 * More distinct masks than the device hashes (32): 31 IPv6 rules of masks
 * /8 to /38 that IPv4 frames never match, then ipv4 dst -> queue 1 at
 * priority 2 (the last hashed mask), ipv4 dst / udp dst -> queue 2 at
 * priority 1 and ipv4 -> queue 3 at priority 3 (walked): priorities hold
 * across the two, as in one table.
 */
static int
test_flow_many_masks(void)
{
	UDP4_PATTERN(90, 90);
	struct rte_flow_item_ipv6 v6_s = { 0 }, v6_m;
	struct rte_flow_item p_v6[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &v6_s, .mask = &v6_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_item p_ip[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip_s, .mask = &ip_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_item p_any4[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 }, { .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP }, { .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_attr p1 = { .ingress = 1, .priority = 1 };
	struct rte_flow_attr p2 = { .ingress = 1, .priority = 2 };
	struct rte_flow_attr p3 = { .ingress = 1, .priority = 3 };
	struct fl_pkt both = fl_udp4(90, 1, 90), dst_only = fl_udp4(90, 1, 91);
	struct fl_pkt other = fl_udp4(91, 1, 90);
	unsigned int bits, i;
	struct fl_rx rx;

	REFNIC_IPV6_BYTES(v6_s.hdr.dst_addr)[0] = 0xff;
	for (bits = 8; bits < 8 + 31; bits++) {
		memset(&v6_m, 0, sizeof(v6_m));
		for (i = 0; i < bits; i++)
			REFNIC_IPV6_BYTES(v6_m.hdr.dst_addr)[i / 8] |= 0x80 >> (i % 8);
		TEST_ASSERT(fl_create(&ingress, p_v6, drop) != NULL, "mask /%u", bits);
	}
	TEST_ASSERT(fl_create(&p2, p_ip, fl_to_queue(1)) != NULL, "");
	TEST_ASSERT(fl_create(&p1, pattern, fl_to_queue(2)) != NULL, "");
	TEST_ASSERT(fl_create(&p3, p_any4, fl_to_queue(3)) != NULL, "");
	fl_send(&both, 4, 4, &rx);
	TEST_ASSERT(rx.n[2] == 4 && rx.total == 4, "both: %u on queue 2 of %u", rx.n[2], rx.total);
	fl_rx_free(&rx);
	fl_send(&dst_only, 4, 4, &rx);
	TEST_ASSERT(rx.n[1] == 4 && rx.total == 4, "dst: %u on queue 1 of %u", rx.n[1], rx.total);
	fl_rx_free(&rx);
	fl_send(&other, 4, 4, &rx);
	TEST_ASSERT(rx.n[3] == 4 && rx.total == 4, "other: %u on queue 3 of %u", rx.n[3],
		    rx.total);
	fl_rx_free(&rx);
	return TEST_SUCCESS;
}

/* As many rules as the table has slots, then ENOSPC with a message; a flush
 * makes room again. */
static int
test_flow_table_full(void)
{
	struct rte_flow_item_ipv4 s = { 0 }, m = { .hdr.src_addr = RTE_BE32(0xffffffff) };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &s, .mask = &m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP }, { .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err = { 0 };
	unsigned int n = 0;

	for (;;) {
		s.hdr.src_addr = rte_cpu_to_be_32(0x0b000000 + n);
		if (rte_flow_create(port_b, &ingress, pattern, actions, &err) == NULL)
			break;
		if (++n > REFNIC_MAX_FLOWS)
			break;
	}
	TEST_ASSERT_EQUAL(n, 1024, "rules taken: the device announces 1024 slots");
	TEST_ASSERT_EQUAL(rte_errno, ENOSPC, "");
	TEST_ASSERT(err.message != NULL && strstr(err.message, "full") != NULL,
		    "message: %s", err.message ? err.message : "(none)");
	/* Validate judges the rule, not the room: it still says yes. */
	TEST_ASSERT_SUCCESS(rte_flow_validate(port_b, &ingress, pattern, actions, &err), "");
	TEST_ASSERT_SUCCESS(rte_flow_flush(port_b, &err), "");
	TEST_ASSERT(rte_flow_create(port_b, &ingress, pattern, actions, &err) != NULL,
		    "no room after flush");
	return rte_flow_flush(port_b, &err) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/* One invalid rule: validate refuses it with type and a message holding what. */
struct fl_bad {
	const char *what;
	struct rte_flow_attr attr;
	struct rte_flow_item pattern[4];
	struct rte_flow_action actions[3];
	enum rte_flow_error_type type;
};

static int
test_flow_invalid_refused_at_validate(void)
{
	static const struct rte_flow_item_ipv4 tos = { .hdr.type_of_service = 0xff };
	static const struct rte_flow_item_tcp flags = { .hdr.tcp_flags = 0x02 };
	static const struct rte_flow_action_queue q9 = { .index = 9 };
	static const struct rte_flow_action_queue q1 = { .index = 1 };
	static const struct rte_flow_action_jump jump = { .group = 1 };
	static const uint16_t qs[] = { 0, 1 };
	static const struct rte_flow_action_rss xor = {
		.func = RTE_ETH_HASH_FUNCTION_SIMPLE_XOR, .queue_num = 2, .queue = qs,
	};
	static const struct rte_flow_action_rss short_key = {
		.key_len = 20, .key = (const uint8_t *)"0123456789abcdefghij", .queue_num = 2,
		.queue = qs,
	};
	static const struct rte_flow_action_rss sctp = {
		.types = RTE_ETH_RSS_NONFRAG_IPV4_SCTP, .queue_num = 2, .queue = qs,
	};
#define END_ITEM { .type = RTE_FLOW_ITEM_TYPE_END }
#define ETH_ITEM { .type = RTE_FLOW_ITEM_TYPE_ETH }
#define DROP_ACT { .type = RTE_FLOW_ACTION_TYPE_DROP }
#define END_ACT { .type = RTE_FLOW_ACTION_TYPE_END }
	const struct fl_bad bad[] = {
		{ "egress", { .egress = 1 }, { ETH_ITEM, END_ITEM }, { DROP_ACT, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ATTR_EGRESS },
		{ "group", { .ingress = 1, .group = 1 }, { ETH_ITEM, END_ITEM },
		  { DROP_ACT, END_ACT }, RTE_FLOW_ERROR_TYPE_ATTR_GROUP },
		{ "priority", { .ingress = 1, .priority = 15 }, { ETH_ITEM, END_ITEM },
		  { DROP_ACT, END_ACT }, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY },
		{ "sctp", { .ingress = 1 }, { ETH_ITEM, { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		  { .type = RTE_FLOW_ITEM_TYPE_SCTP }, END_ITEM }, { DROP_ACT, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ITEM },
		{ "ipv4", { .ingress = 1 }, { { .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &tos,
		  .mask = &tos }, END_ITEM }, { DROP_ACT, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ITEM_MASK },
		{ "tcp", { .ingress = 1 }, { { .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &flags,
		  .mask = &flags }, END_ITEM }, { DROP_ACT, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ITEM_MASK },
		{ "order", { .ingress = 1 }, { { .type = RTE_FLOW_ITEM_TYPE_UDP },
		  { .type = RTE_FLOW_ITEM_TYPE_IPV4 }, END_ITEM }, { DROP_ACT, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ITEM },
		{ "jump", { .ingress = 1 }, { ETH_ITEM, END_ITEM },
		  { { .type = RTE_FLOW_ACTION_TYPE_JUMP, .conf = &jump }, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ACTION },
		{ "index 9", { .ingress = 1 }, { ETH_ITEM, END_ITEM },
		  { { .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q9 }, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ACTION_CONF },
		{ "one fate", { .ingress = 1 }, { ETH_ITEM, END_ITEM },
		  { { .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q1 }, DROP_ACT, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ACTION },
		{ "Toeplitz", { .ingress = 1 }, { ETH_ITEM, END_ITEM },
		  { { .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &xor }, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ACTION_CONF },
		{ "key of 20", { .ingress = 1 }, { ETH_ITEM, END_ITEM },
		  { { .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &short_key }, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ACTION_CONF },
		{ "not hashed", { .ingress = 1 }, { ETH_ITEM, END_ITEM },
		  { { .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &sctp }, END_ACT },
		  RTE_FLOW_ERROR_TYPE_ACTION_CONF },
		{ "action flag", { .ingress = 1 }, { ETH_ITEM, END_ITEM },
		  { { .type = RTE_FLOW_ACTION_TYPE_FLAG }, END_ACT }, RTE_FLOW_ERROR_TYPE_ACTION },
	};
	uint64_t cmds = test_xstat(port_b, "admin_commands");
	struct rte_flow_error err;
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		memset(&err, 0, sizeof(err));
		if (rte_flow_validate(port_b, &bad[i].attr, bad[i].pattern, bad[i].actions,
				      &err) == 0) {
			printf("    rule %u (%s) validated\n", i, bad[i].what);
			return TEST_FAILED;
		}
		if (err.type != bad[i].type || err.message == NULL ||
		    strstr(err.message, bad[i].what) == NULL) {
			printf("    rule %u: error type %d, message \"%s\"; expected type %d "
			       "naming \"%s\"\n", i, err.type, err.message ? err.message : "",
			       bad[i].type, bad[i].what);
			return TEST_FAILED;
		}
		/* create refuses it the same way, before asking the device. */
		if (rte_flow_create(port_b, &bad[i].attr, bad[i].pattern, bad[i].actions,
				    &err) != NULL)
			return TEST_FAILED;
	}
	/* Nothing reached the device (xstats themselves cost one command). */
	TEST_ASSERT(test_xstat(port_b, "admin_commands") - cmds <= 2,
		    "%" PRIu64 " admin commands for refused rules",
		    test_xstat(port_b, "admin_commands") - cmds);
	return TEST_SUCCESS;
#undef END_ITEM
#undef ETH_ITEM
#undef DROP_ACT
#undef END_ACT
}

/* How the tamper hook rewrites a FLOW_QUERY reply (24 bytes) for the next test. */
enum fl_lie { LIE_NONE, LIE_BACK, LIE_BYTES, LIE_SLOT };
static enum fl_lie fl_lie;

static void
fl_tamper(void *ctx __rte_unused, uint8_t what, void *entry, size_t len)
{
	struct refnic_flow_counters *c = entry;

	if (what != REFNIC_EMU_CORRUPT_REPLY || len != sizeof(*c))
		return;
	switch (fl_lie) {
	case LIE_BACK:
		c->hits = 1;		/* 4 were read before */
		break;
	case LIE_BYTES:
		c->hits += 1;		/* one frame more, of 100000 bytes */
		c->bytes += 100000;
		break;
	case LIE_SLOT:
		c->id ^= 1;
		break;
	default:
		break;
	}
}

/*
 * A FLOW_QUERY reply is untrusted: counts that go back, a frame of more
 * bytes than a frame can hold, another slot's counters are refused (EIO,
 * admin_reply_errors counts each); the last good count stands after.
 */
static int
test_flow_query_reply_checked(void)
{
	static const enum fl_lie lies[] = { LIE_BACK, LIE_BYTES, LIE_SLOT };
	UDP4_PATTERN(80, 80);
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT }, { .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_action count[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT }, { .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct refnic_emu *emu = refnic_emu_lookup(FL_B);
	struct fl_pkt hit = fl_udp4(80, 1, 80);
	uint64_t errors = test_xstat(port_b, "admin_reply_errors");
	struct rte_flow *f = fl_create(&ingress, pattern, actions);
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct fl_rx rx;
	unsigned int i;
	int ret = TEST_SUCCESS;

	TEST_ASSERT(f != NULL, "");
	fl_send(&hit, 4, 4, &rx);
	fl_rx_free(&rx);
	TEST_ASSERT_EQUAL(fl_hits(f, NULL, false), 4, "");
	refnic_emu_set_tamper(emu, fl_tamper, NULL);
	for (i = 0; i < RTE_DIM(lies) && ret == TEST_SUCCESS; i++) {
		fl_lie = lies[i];
		memset(&qc, 0, sizeof(qc));
		memset(&err, 0, sizeof(err));
		if (rte_flow_query(port_b, f, count, &qc, &err) != -EIO || qc.hits_set ||
		    err.message == NULL || strstr(err.message, "counters not read") == NULL) {
			printf("    lie %u taken: hits %" PRIu64 ", \"%s\"\n", fl_lie, qc.hits,
			       err.message ? err.message : "");
			ret = TEST_FAILED;
		}
	}
	refnic_emu_set_tamper(emu, NULL, NULL);
	fl_lie = LIE_NONE;
	TEST_ASSERT_SUCCESS(ret, "");
	TEST_ASSERT_EQUAL(test_xstat(port_b, "admin_reply_errors") - errors, 3, "");
	TEST_ASSERT_EQUAL(fl_hits(f, NULL, false), 4, "the last good count");
	return TEST_SUCCESS;
}

/* Isolated: only what rules take is received, the rest dropped (rx_filtered). */
static int
test_flow_isolate(void)
{
	UDP4_PATTERN(30, 8000);
	struct rte_flow_action_queue queue = { .index = 1 };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct fl_pkt hit = fl_udp4(30, 1, 8000), miss = fl_udp4(31, 1, 8000);
	struct refnic_hw_stats s0, s1;
	struct fl_rx rx;

	TEST_ASSERT_SUCCESS(rte_flow_isolate(port_b, 1, NULL), "");
	TEST_ASSERT(fl_create(&ingress, pattern, actions) != NULL, "");
	test_hw_stats(FL_B, &s0);
	fl_send(&hit, 4, 4, &rx);
	TEST_ASSERT(rx.n[1] == 4 && rx.total == 4, "matching: %u on 1", rx.n[1]);
	fl_rx_free(&rx);
	fl_send(&miss, 4, 0, &rx);
	TEST_ASSERT_EQUAL(rx.total, 0, "isolated port received unmatched frames");
	test_hw_stats(FL_B, &s1);
	TEST_ASSERT_EQUAL(s1.rx_filtered - s0.rx_filtered, 4, "");
	/* A flush keeps isolated mode. */
	TEST_ASSERT_SUCCESS(rte_flow_flush(port_b, NULL), "");
	fl_send(&hit, 2, 0, &rx);
	TEST_ASSERT_EQUAL(rx.total, 0, "flushed isolated port received frames");
	TEST_ASSERT_SUCCESS(rte_flow_isolate(port_b, 0, NULL), "");
	fl_send(&miss, 4, 4, &rx);
	TEST_ASSERT(rx.n[0] == 4 && rx.total == 4, "after isolation: %u on 0", rx.n[0]);
	fl_rx_free(&rx);
	return TEST_SUCCESS;
}

/*
 * RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP, as dev_info says: a rule made on the
 * started port and one made while it is stopped both steer after a start.
 */
static int
test_flow_kept_across_stop_start(void)
{
	UDP4_PATTERN(45, 450);
	struct rte_flow_item p_other[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip_s, .mask = &ip_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct fl_pkt hit = fl_udp4(45, 1, 450), hit_stopped = fl_udp4(46, 1, 450);
	struct rte_eth_dev_info info;
	struct fl_rx rx;

	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(port_b, &info), "");
	TEST_ASSERT(info.dev_capa & RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP, "no FLOW_RULE_KEEP");
	TEST_ASSERT(fl_create(&ingress, pattern, fl_to_queue(2)) != NULL, "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(port_b), "");
	ip_s.hdr.dst_addr = RTE_BE32(0x0a00002e);	/* 10.0.0.46 */
	TEST_ASSERT(fl_create(&ingress, p_other, fl_to_queue(3)) != NULL, "on a stopped port");
	TEST_ASSERT_SUCCESS(rte_eth_dev_start(port_b), "");
	fl_send(&hit, 4, 4, &rx);
	TEST_ASSERT(rx.n[2] == 4 && rx.total == 4, "%u on queue 2 of %u", rx.n[2], rx.total);
	fl_rx_free(&rx);
	fl_send(&hit_stopped, 4, 4, &rx);
	TEST_ASSERT(rx.n[3] == 4 && rx.total == 4, "%u on queue 3 of %u", rx.n[3], rx.total);
	fl_rx_free(&rx);
	return TEST_SUCCESS;
}

/* A rule and its count after rte_eth_dev_reset() and a new start. */
static int
test_flow_survives_reset(void)
{
	UDP4_PATTERN(40, 9000);
	struct rte_flow_action_mark mark = { .id = 40 };
	struct rte_flow_action_queue queue = { .index = 2 };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct fl_pkt hit = fl_udp4(40, 1, 9000);
	struct rte_flow *f = fl_create(&ingress, pattern, actions);
	struct fl_rx rx;

	TEST_ASSERT(f != NULL, "");
	fl_send(&hit, 5, 5, &rx);
	fl_rx_free(&rx);
	TEST_ASSERT_EQUAL(fl_hits(f, NULL, false), 5, "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(port_b), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_reset(port_b), "");
	TEST_ASSERT_SUCCESS(fl_start_b(), "");
	fl_send(&hit, 5, 5, &rx);
	TEST_ASSERT(rx.n[2] == 5 && rx.total == 5 && fl_marked(&rx, 2, true, 40),
		    "after reset: %u on queue 2 of %u", rx.n[2], rx.total);
	fl_rx_free(&rx);
	TEST_ASSERT_EQUAL(fl_hits(f, NULL, false), 10, "count across the reset");
	return rte_flow_destroy(port_b, f, NULL) == 0 ? TEST_SUCCESS : TEST_FAILED;
}

static unsigned int recoveries;

static int
fl_recovered(uint16_t port __rte_unused, enum rte_eth_event_type type __rte_unused,
	     void *arg __rte_unused, void *ret __rte_unused)
{
	__atomic_fetch_add(&recoveries, 1, __ATOMIC_RELEASE);
	return 0;
}

/* A fatal device error on the started port: the PMD recovers, and the
 * rule steers, marks and counts again; isolated mode holds too. */
static int
test_flow_survives_recovery(void)
{
	UDP4_PATTERN(50, 9500);
	struct rte_flow_action_mark mark = { .id = 50 };
	struct rte_flow_action_queue queue = { .index = 3 };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct fl_pkt hit = fl_udp4(50, 1, 9500), miss = fl_udp4(51, 1, 9500);
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	struct rte_flow *f = fl_create(&ingress, pattern, actions);
	struct refnic_hw_stats s0, s1;
	struct fl_rx rx;
	int ret = TEST_FAILED;

	TEST_ASSERT(f != NULL, "");
	TEST_ASSERT_SUCCESS(rte_flow_isolate(port_b, 1, NULL), "");
	fl_send(&hit, 3, 3, &rx);
	fl_rx_free(&rx);
	TEST_ASSERT_EQUAL(fl_hits(f, NULL, false), 3, "");
	recoveries = 0;
	rte_eth_dev_callback_register(port_b, RTE_ETH_EVENT_RECOVERY_SUCCESS, fl_recovered, NULL);
	refnic_emu_inject_fatal(refnic_emu_lookup(FL_B));
	while (__atomic_load_n(&recoveries, __ATOMIC_ACQUIRE) == 0 &&
	       rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(1000);
	if (recoveries != 1) {
		printf("    no recovery\n");
		goto out;
	}
	fl_send(&hit, 5, 5, &rx);
	if (rx.n[3] != 5 || rx.total != 5 || !fl_marked(&rx, 3, true, 50)) {
		printf("    after recovery: %u on queue 3 of %u\n", rx.n[3], rx.total);
		goto out;
	}
	fl_rx_free(&rx);
	test_hw_stats(FL_B, &s0);
	fl_send(&miss, 3, 0, &rx);
	test_hw_stats(FL_B, &s1);
	if (rx.total != 0 || s1.rx_filtered - s0.rx_filtered != 3) {
		printf("    isolated mode lost: %u received\n", rx.total);
		goto out;
	}
	if (fl_hits(f, NULL, false) != 8) {
		printf("    count across the recovery not 8\n");
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	fl_rx_free(&rx);
	rte_eth_dev_callback_unregister(port_b, RTE_ETH_EVENT_RECOVERY_SUCCESS, fl_recovered,
					NULL);
	rte_flow_isolate(port_b, 0, NULL);
	rte_flow_destroy(port_b, f, NULL);
	return ret;
}

/* Flush: three rules gone at once, their frames back on queue 0. */
static int
test_flow_flush(void)
{
	struct rte_flow_action_queue queue = { .index = 1 };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct fl_pkt p[3] = { fl_udp4(60, 1, 1), fl_udp4(61, 1, 1), fl_udp4(62, 1, 1) };
	struct fl_rx rx;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		UDP4_PATTERN(60 + i, 1);
		TEST_ASSERT(fl_create(&ingress, pattern, actions) != NULL, "");
	}
	for (i = 0; i < 3; i++) {
		fl_send(&p[i], 2, 2, &rx);
		TEST_ASSERT(rx.n[1] == 2 && rx.total == 2, "rule %u: %u on 1", i, rx.n[1]);
		fl_rx_free(&rx);
	}
	TEST_ASSERT_SUCCESS(rte_flow_flush(port_b, NULL), "");
	for (i = 0; i < 3; i++) {
		fl_send(&p[i], 2, 2, &rx);
		TEST_ASSERT(rx.n[0] == 2 && rx.total == 2, "flushed %u: %u on 0", i, rx.n[0]);
		fl_rx_free(&rx);
	}
	return TEST_SUCCESS;
}

/* A device without a flow table (caps_off=flow): validate says so. */
static int
test_flow_no_table(void)
{
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH }, { .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP }, { .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err = { 0 };
	uint16_t port;
	int ret;

	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_flnone", "caps_off=flow,profile=ideal",
					     &port), "");
	ret = rte_flow_validate(port, &ingress, pattern, actions, &err);
	test_port_destroy("net_refnic_flnone");
	TEST_ASSERT(ret == -ENOTSUP && err.message != NULL &&
		    strstr(err.message, "no flow table") != NULL, "ret %d, \"%s\"", ret,
		    err.message ? err.message : "");
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_flow_suite = {
	.name = "flow",
	.setup = fl_setup,
	.teardown = fl_teardown,
	.cases = {
		TEST_CASE_ST(NULL, fl_case_end, test_flow_queue_and_count),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_drop),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_mark),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_rss_group),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_priorities),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_masks),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_eth),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_passthru),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_many_masks),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_table_full),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_invalid_refused_at_validate),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_query_reply_checked),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_isolate),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_flush),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_kept_across_stop_start),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_survives_reset),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_survives_recovery),
		TEST_CASE_ST(NULL, fl_case_end, test_flow_no_table),
		TEST_CASES_END()
	},
};
