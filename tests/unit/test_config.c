/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Impossible configurations: more queues than the device has, descriptor
 * counts outside its limits, MTUs outside its range, offloads and RSS it
 * does not offer. Each is refused by the ethdev call that asks for it
 * (ethdev's own checks against dev_info, or the PMD's), and loses nothing:
 * the port then starts with a correct configuration, carries a frame, and
 * every mbuf comes back.
 */

#include <string.h>

#include <rte_errno.h>
#include <rte_mempool.h>

#include "rte_pmd_refnic.h"
#include "test_common.h"

#define CF	"net_refnic_cf"

static uint16_t cf_port;
static unsigned int cf_in_use;

static int
cf_create(const char *extra)
{
	char args[128];

	snprintf(args, sizeof(args), "cable=loopback,profile=ideal%s%s",
		 *extra != '\0' ? "," : "", extra);
	cf_in_use = rte_mempool_in_use_count(test_pool);
	return test_port_create(CF, args, &cf_port);
}

static void
cf_teardown(void)
{
	test_port_destroy(CF);
}

/* One frame round the started port's loopback cable, intact. */
static int
cf_loop_one(uint16_t len, uint32_t seed, uint16_t nb_segs)
{
	struct rte_ether_addr mac;
	struct rte_mbuf *m;

	rte_eth_macaddr_get(cf_port, &mac);
	m = test_make_pkt(&mac, len, seed, nb_segs);
	TEST_ASSERT_EQUAL(test_tx_all(cf_port, &m, 1), 1, "sent");
	TEST_ASSERT_EQUAL(test_rx_wait(cf_port, &m, 1), 1, "received");
	TEST_ASSERT(test_pkt_matches(m, &mac, len, seed), "intact");
	rte_pktmbuf_free(m);
	return TEST_SUCCESS;
}

/* A correct configuration still starts, and a frame goes round. */
static int
cf_works(void)
{
	TEST_ASSERT_SUCCESS(test_port_start(cf_port, 0, 0), "a correct start");
	TEST_ASSERT_SUCCESS(cf_loop_one(300, 9, 2), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(cf_port), "");
	TEST_ASSERT_EQUAL(rte_mempool_in_use_count(test_pool), cf_in_use, "mbufs held");
	return TEST_SUCCESS;
}

/*
 * The link has one speed (dev_info.speed_capa): a fixed other speed, or an
 * autonegotiation list without it, is refused; the speed itself, fixed or
 * in a list, is taken, and the link comes up at it.
 */
static int
test_link_speeds(void)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	uint32_t other;

	TEST_ASSERT_SUCCESS(cf_create(""), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(cf_port, &info), "");
	TEST_ASSERT_EQUAL(__builtin_popcount(info.speed_capa), 1, "one speed: 0x%x",
			  info.speed_capa);
	other = info.speed_capa == RTE_ETH_LINK_SPEED_10G ? RTE_ETH_LINK_SPEED_1G :
							    RTE_ETH_LINK_SPEED_10G;
	conf.link_speeds = RTE_ETH_LINK_SPEED_FIXED | other;
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 1, &conf), -EINVAL,
			  "a fixed speed the link does not have");
	conf.link_speeds = other | RTE_ETH_LINK_SPEED_100G;
	if (info.speed_capa != RTE_ETH_LINK_SPEED_100G)
		TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 1, &conf), -EINVAL,
				  "a speed list without the link's");
	conf.link_speeds = other | info.speed_capa;
	TEST_ASSERT_SUCCESS(rte_eth_dev_configure(cf_port, 1, 1, &conf), "a list with it");
	conf.link_speeds = RTE_ETH_LINK_SPEED_FIXED | info.speed_capa;
	TEST_ASSERT_SUCCESS(rte_eth_dev_configure(cf_port, 1, 1, &conf), "its own, fixed");
	TEST_ASSERT_SUCCESS(rte_eth_rx_queue_setup(cf_port, 0, TEST_RING_SIZE, SOCKET_ID_ANY,
						   NULL, test_pool), "");
	TEST_ASSERT_SUCCESS(rte_eth_tx_queue_setup(cf_port, 0, TEST_RING_SIZE, SOCKET_ID_ANY,
						   NULL), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_start(cf_port), "");
	TEST_ASSERT(test_link_wait(cf_port, RTE_ETH_LINK_UP), "link up");
	TEST_ASSERT_SUCCESS(rte_eth_link_get_nowait(cf_port, &link), "");
	TEST_ASSERT_EQUAL(rte_eth_speed_bitflag(link.link_speed, link.link_duplex),
			  info.speed_capa, "link at %u Mbps", link.link_speed);
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(cf_port), "");
	return cf_works();
}

static int
test_more_queues_than_the_device(void)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;

	TEST_ASSERT_SUCCESS(cf_create("queues=4"), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(cf_port, &info), "");
	TEST_ASSERT_EQUAL(info.max_rx_queues, 4, "the device's queues");
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 5, 1, &conf), -EINVAL, "5 RX queues");
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 5, &conf), -EINVAL, "5 TX queues");
	TEST_ASSERT_SUCCESS(rte_eth_dev_configure(cf_port, 4, 4, &conf), "4 queue pairs");
	return cf_works();
}

static int
test_descriptor_counts(void)
{
	static const uint16_t bad[] = { 32, 63, 100, 192, 8192, 65535 };
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_rxq_info rxq;
	struct rte_eth_txq_info txq;
	unsigned int i;

	TEST_ASSERT_SUCCESS(cf_create(""), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_configure(cf_port, 1, 1, &conf), "");
	/* Below the minimum, not a multiple of it, not a power of two, above
	 * the maximum: refused, by ethdev (dev_info's limits) or the PMD. */
	for (i = 0; i < RTE_DIM(bad); i++) {
		TEST_ASSERT_EQUAL(rte_eth_rx_queue_setup(cf_port, 0, bad[i], SOCKET_ID_ANY,
							 NULL, test_pool), -EINVAL,
				  "%u RX descriptors", bad[i]);
		TEST_ASSERT_EQUAL(rte_eth_tx_queue_setup(cf_port, 0, bad[i], SOCKET_ID_ANY,
							 NULL), -EINVAL,
				  "%u TX descriptors", bad[i]);
	}
	/* Not set up: the port does not start. */
	TEST_ASSERT(rte_eth_dev_start(cf_port) != 0, "started without queues");
	/* Zero: the port's default ring size. */
	TEST_ASSERT_SUCCESS(rte_eth_rx_queue_setup(cf_port, 0, 0, SOCKET_ID_ANY, NULL,
						   test_pool), "0 RX descriptors");
	TEST_ASSERT_SUCCESS(rte_eth_tx_queue_setup(cf_port, 0, 0, SOCKET_ID_ANY, NULL),
			    "0 TX descriptors");
	TEST_ASSERT_SUCCESS(rte_eth_rx_queue_info_get(cf_port, 0, &rxq), "");
	TEST_ASSERT_SUCCESS(rte_eth_tx_queue_info_get(cf_port, 0, &txq), "");
	TEST_ASSERT(rxq.nb_desc == 512 && txq.nb_desc == 512, "default rings %u, %u",
		    rxq.nb_desc, txq.nb_desc);
	/* The limits themselves are fine. */
	TEST_ASSERT_SUCCESS(rte_eth_rx_queue_setup(cf_port, 0, REFNIC_MIN_RING_SIZE,
						   SOCKET_ID_ANY, NULL, test_pool), "min");
	TEST_ASSERT_SUCCESS(rte_eth_tx_queue_setup(cf_port, 0, REFNIC_MAX_RING_SIZE,
						   SOCKET_ID_ANY, NULL), "max");
	TEST_ASSERT_SUCCESS(rte_eth_dev_start(cf_port), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(cf_port), "");
	return cf_works();
}

static int
test_mtu_limits(void)
{
	struct rte_eth_conf conf = { .rxmode.mtu = REFNIC_MAX_MTU + 1 };
	uint16_t mtu, now;

	/* A device that cannot scatter, so that an MTU beyond the buffers is
	 * refused; it does not offer the scatter offload either. */
	TEST_ASSERT_SUCCESS(cf_create("caps_off=scatter"), "");
	conf.rxmode.mtu = 1500;
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_SCATTER;
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 1, &conf), -EINVAL,
			  "RX scatter configured on a device without it");
	conf.rxmode.offloads = 0;
	conf.rxmode.mtu = REFNIC_MAX_MTU + 1;
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 1, &conf), -EINVAL, "MTU 9001");
	conf.rxmode.mtu = REFNIC_MIN_MTU - 1;
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 1, &conf), -EINVAL, "MTU 67");
	TEST_ASSERT_SUCCESS(test_port_start(cf_port, 0, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_get_mtu(cf_port, &mtu), "");
	TEST_ASSERT_EQUAL(rte_eth_dev_set_mtu(cf_port, REFNIC_MAX_MTU + 1), -EINVAL, "9001");
	TEST_ASSERT_EQUAL(rte_eth_dev_set_mtu(cf_port, REFNIC_MIN_MTU - 1), -EINVAL, "67");
	/* Within the range but beyond the started port's buffers, on a device
	 * that cannot scatter. */
	TEST_ASSERT_EQUAL(rte_eth_dev_set_mtu(cf_port, REFNIC_MAX_MTU), -EINVAL, "9000");
	TEST_ASSERT_SUCCESS(rte_eth_dev_get_mtu(cf_port, &now), "");
	TEST_ASSERT_EQUAL(now, mtu, "a refused MTU changed the port's");
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(cf_port), "");
	return cf_works();
}

/* Offloads the port does not offer: refused at configure, queue setup and
 * tx_prepare; a device without checksums and VLAN offers none of those. */
static int
test_offloads_not_offered(void)
{
	struct rte_eth_conf conf = { .rxmode.offloads = RTE_ETH_RX_OFFLOAD_TCP_LRO };
	struct rte_eth_txconf txconf = { .offloads = RTE_ETH_TX_OFFLOAD_TCP_TSO };
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	struct rte_mbuf *m;

	TEST_ASSERT_SUCCESS(cf_create("caps_off=rx_csum+tx_csum+vlan_strip+vlan_insert+tso"), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(cf_port, &info), "");
	TEST_ASSERT(!(info.rx_offload_capa & (RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
					      RTE_ETH_RX_OFFLOAD_VLAN_STRIP)) &&
		    !(info.tx_offload_capa & (RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
					      RTE_ETH_TX_OFFLOAD_VLAN_INSERT |
					      RTE_ETH_TX_OFFLOAD_TCP_TSO)),
		    "offloads the device lacks offered");
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 1, &conf), -EINVAL, "LRO");
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 1, &conf), -EINVAL, "RX csum");
	conf.rxmode.offloads = 0;
	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 1, &conf), -EINVAL, "VLAN insert");
	conf.txmode.offloads = 0;
	TEST_ASSERT_SUCCESS(rte_eth_dev_configure(cf_port, 1, 1, &conf), "");
	TEST_ASSERT_EQUAL(rte_eth_tx_queue_setup(cf_port, 0, TEST_RING_SIZE, SOCKET_ID_ANY,
						 &txconf), -EINVAL, "TSO on a queue");
	TEST_ASSERT_SUCCESS(test_port_start(cf_port, 0, 0), "");
	/* A packet asking for a checksum the device cannot make. */
	rte_eth_macaddr_get(cf_port, &mac);
	m = test_make_pkt(&mac, 100, 1, 1);
	m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = 20;
	rte_errno = 0;
	TEST_ASSERT_EQUAL(rte_eth_tx_prepare(cf_port, 0, &m, 1), 0, "prepared");
	TEST_ASSERT_EQUAL(rte_errno, ENOTSUP, "");
	m->ol_flags = RTE_MBUF_F_TX_VLAN;
	TEST_ASSERT_EQUAL(rte_eth_tx_prepare(cf_port, 0, &m, 1), 0, "VLAN prepared");
	rte_pktmbuf_free(m);
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(cf_port), "");
	return cf_works();
}

/*
 * A push line stored behind the driver's back into TX queue 0's window:
 * one whole 64-byte frame to the port itself, the queue's next slot; its
 * first stored bytes only reach the device (0: all of them).
 */
static void
cf_push_raw_line(const struct refnic_push_hdr *h, uint32_t stored)
{
	struct {
		struct refnic_push_hdr h;
		struct refnic_tx_desc d;
		uint8_t frame[64];
	} __rte_aligned(8) line = {
		.h = *h,
		.d = { .len = 64, .flags = REFNIC_TXD_EOP },
	};
	struct refnic_emu_resources res;
	uint32_t off = REFNIC_PUSH_LINE(0);

	rte_eth_macaddr_get(cf_port, (struct rte_ether_addr *)line.frame);
	line.frame[12] = 0x08;	/* IPv4's ethertype: a frame like any */
	refnic_emu_get_resources(refnic_emu_lookup(CF), &res);
	memcpy(res.bar0 + off, &line, sizeof(line));
	res.trap(res.trap_ctx, off, stored != 0 ? stored : sizeof(line));
}

static void
cf_push_raw_frame(void)
{
	const struct refnic_push_hdr h = { .tail = 2, .nb_desc = 1, .inline_len = 64 };

	cf_push_raw_line(&h, 0);
}

/*
 * A push line whose header the device cannot use (no descriptor, more than
 * a line holds, more bytes inline than it carries, a tail beyond the ring,
 * more bytes inline than were stored: its header and descriptor agree on
 * 64, but only 56 bytes of the line came), stored behind the driver's back
 * after one frame went: the device takes no line, sends none of its bytes,
 * and the port works on (a bad tail is a queue error it recovers from).
 */
static int
test_push_line_bad_header(void)
{
	static const struct refnic_push_hdr bad[] = {
		{ .tail = 2, .nb_desc = 0, .inline_len = 64 },
		{ .tail = 2, .nb_desc = REFNIC_PUSH_MAX_DESC + 1, .inline_len = 64 },
		{ .tail = 2, .nb_desc = 1, .inline_len = 200 },
		{ .tail = TEST_RING_SIZE, .nb_desc = 1, .inline_len = 64 },
		{ .tail = 2, .nb_desc = 1, .inline_len = 64 },
	};
	/* Bytes stored of each (0: the whole line). */
	static const uint32_t stored[RTE_DIM(bad)] = { [4] = 56 };
	struct refnic_hw_stats before, after;
	struct rte_mbuf *rx[4];
	unsigned int i;
	uint16_t n;

	for (i = 0; i < RTE_DIM(bad); i++) {
		TEST_ASSERT_SUCCESS(cf_create(""), "");
		TEST_ASSERT_SUCCESS(test_port_start(cf_port, 0, 0), "");
		TEST_ASSERT_SUCCESS(cf_loop_one(64, 3, 1), "");
		test_hw_stats(CF, &before);
		cf_push_raw_line(&bad[i], stored[i]);
		n = test_rx_wait_ms(cf_port, rx, RTE_DIM(rx), 50);
		rte_pktmbuf_free_bulk(rx, n);
		test_hw_stats(CF, &after);
		TEST_ASSERT(n == 0 && after.tx_push_lines == before.tx_push_lines,
			    "header %u: %u frames sent, %" PRIu64 " lines taken", i, n,
			    after.tx_push_lines - before.tx_push_lines);
		TEST_ASSERT_SUCCESS(rte_eth_dev_stop(cf_port), "");
		TEST_ASSERT_SUCCESS(cf_works(), "header %u", i);
		cf_teardown();
	}
	return TEST_SUCCESS;
}

/*
 * A device without VLAN filters, moderation and the push window
 * (caps_off=vlan_filter+moderation+push) offers none of them: VLAN
 * filtering refused at configure, a VLAN filter entry refused, a
 * moderation interval refused, and a lone packet fetched through TAIL,
 * never pushed (the device sends no push line). The device itself takes
 * no push line written behind the driver's back either. (caps_off=scatter:
 * test_mtu_limits; moderation in the device: intr's
 * test_no_moderation_without_capability.)
 */
static int
test_caps_off_vlan_filter_moderation_push(void)
{
	struct rte_eth_conf conf = { .rxmode.offloads = RTE_ETH_RX_OFFLOAD_VLAN_FILTER };
	struct refnic_hw_stats hw;
	struct rte_eth_dev_info info;
	struct rte_mbuf *m;

	TEST_ASSERT_SUCCESS(cf_create("caps_off=vlan_filter+moderation+push"), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(cf_port, &info), "");
	TEST_ASSERT(!(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_FILTER),
		    "VLAN filtering offered: 0x%" PRIx64, info.rx_offload_capa);
	TEST_ASSERT_EQUAL(rte_eth_dev_configure(cf_port, 1, 1, &conf), -EINVAL, "VLAN filter");
	TEST_ASSERT_SUCCESS(test_port_start(cf_port, 0, 0), "");
	TEST_ASSERT(rte_eth_dev_vlan_filter(cf_port, 100, 1) != 0, "a VLAN filter entry taken");
	TEST_ASSERT_EQUAL(rte_pmd_refnic_rx_itr_set(cf_port, 0, 100), -ENOTSUP, "RX interval");
	TEST_ASSERT_EQUAL(rte_pmd_refnic_tx_itr_set(cf_port, 0, 100), -ENOTSUP, "TX interval");
	TEST_ASSERT_SUCCESS(cf_loop_one(64, 3, 1), "");
	test_hw_stats(CF, &hw);
	TEST_ASSERT(hw.tx_push_lines == 0 && hw.q[0].tx_doorbells == 1,
		    "lone packet: %" PRIu64 " push lines, %" PRIu64 " TAIL writes",
		    hw.tx_push_lines, hw.q[0].tx_doorbells);
	TEST_ASSERT_EQUAL(test_xstat(cf_port, "tx_push_packets"), 0, "pushed");
	TEST_ASSERT_EQUAL(test_xstat(cf_port, "tx_fetch_packets"), 1, "fetched");
	cf_push_raw_frame();
	TEST_ASSERT_EQUAL(test_rx_wait_ms(cf_port, &m, 1, 50), 0,
			  "a device without the window sent a pushed frame");
	test_hw_stats(CF, &hw);
	TEST_ASSERT(hw.tx_push_lines == 0 && hw.q[0].tx_packets == 1,
		    "raw push line: %" PRIu64 " lines taken, %" PRIu64 " packets sent",
		    hw.tx_push_lines, hw.q[0].tx_packets);
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(cf_port), "");
	return cf_works();
}

static int
rss_start(uint16_t nb_rxq, const struct rte_eth_conf *conf)
{
	uint16_t q;
	int ret;

	rte_eth_dev_stop(cf_port);
	ret = rte_eth_dev_configure(cf_port, nb_rxq, 1, conf);
	for (q = 0; ret == 0 && q < nb_rxq; q++)
		ret = rte_eth_rx_queue_setup(cf_port, q, TEST_RING_SIZE, SOCKET_ID_ANY, NULL,
					     test_pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(cf_port, 0, TEST_RING_SIZE, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(cf_port);
	return ret;
}

/* A device without RSS: RSS asked at configure and every RSS call refused. */
static int
test_rss_without_capability(void)
{
	struct rte_eth_conf conf = { .rxmode.mq_mode = RTE_ETH_MQ_RX_RSS };
	struct rte_eth_rss_reta_entry64 reta[2] = {
		{ .mask = UINT64_MAX }, { .mask = UINT64_MAX },
	};
	struct rte_eth_rss_conf rss = { .rss_hf = RTE_ETH_RSS_IPV4 };
	struct rte_eth_dev_info info;

	TEST_ASSERT_SUCCESS(cf_create("caps_off=rss"), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(cf_port, &info), "");
	TEST_ASSERT(info.reta_size == 0 && info.flow_type_rss_offloads == 0 &&
		    !(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH), "RSS offered");
	TEST_ASSERT_EQUAL(rss_start(2, &conf), -ENOTSUP, "RSS mode");
	conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IPV4;
	TEST_ASSERT_EQUAL(rss_start(2, &conf), -EINVAL, "RSS hash types");
	memset(&conf, 0, sizeof(conf));
	TEST_ASSERT_SUCCESS(rss_start(2, &conf), "two queues, no RSS");
	TEST_ASSERT_EQUAL(rte_eth_dev_rss_reta_update(cf_port, reta, REFNIC_RSS_RETA_SIZE),
			  -ENOTSUP, "RETA update");
	TEST_ASSERT_EQUAL(rte_eth_dev_rss_reta_query(cf_port, reta, REFNIC_RSS_RETA_SIZE),
			  -ENOTSUP, "RETA query");
	TEST_ASSERT_EQUAL(rte_eth_dev_rss_hash_update(cf_port, &rss), -EINVAL, "hash update");
	rss.rss_hf = 0;
	TEST_ASSERT_EQUAL(rte_eth_dev_rss_hash_update(cf_port, &rss), -ENOTSUP, "hash update");
	TEST_ASSERT_EQUAL(rte_eth_dev_rss_hash_conf_get(cf_port, &rss), -ENOTSUP, "hash get");
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(cf_port), "");
	return cf_works();
}

/* Bad key lengths and RETA sizes refused; the port's RSS stays as it was. */
static int
test_rss_bad_key_and_reta(void)
{
	uint8_t key[REFNIC_RSS_KEY_SIZE + 1], got[REFNIC_RSS_KEY_SIZE];
	struct rte_eth_conf conf = {
		.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS,
		.rx_adv_conf.rss_conf = {
			.rss_key = key, .rss_key_len = REFNIC_RSS_KEY_SIZE - 1,
			.rss_hf = RTE_ETH_RSS_IPV4,
		},
	};
	struct rte_eth_rss_reta_entry64 reta[4];
	struct rte_eth_rss_conf rss = { .rss_key = got, .rss_key_len = sizeof(got) };
	unsigned int i;

	memset(key, 0x5a, sizeof(key));
	TEST_ASSERT_SUCCESS(cf_create(""), "");
	TEST_ASSERT_EQUAL(rss_start(2, &conf), -EINVAL, "a 39-byte key");
	conf.rx_adv_conf.rss_conf.rss_key_len = REFNIC_RSS_KEY_SIZE;
	TEST_ASSERT_SUCCESS(rss_start(2, &conf), "a 40-byte key");
	/* Refused on the started port... */
	rss.rss_key = key;
	rss.rss_key_len = REFNIC_RSS_KEY_SIZE + 1;
	rss.rss_hf = RTE_ETH_RSS_IPV6;
	TEST_ASSERT_EQUAL(rte_eth_dev_rss_hash_update(cf_port, &rss), -EINVAL, "41 bytes");
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < RTE_DIM(reta); i++)
		reta[i].mask = UINT64_MAX;
	TEST_ASSERT_EQUAL(rte_eth_dev_rss_reta_update(cf_port, reta, 64), -EINVAL, "RETA 64");
	TEST_ASSERT_EQUAL(rte_eth_dev_rss_reta_update(cf_port, reta, 256), -EINVAL, "RETA 256");
	TEST_ASSERT_EQUAL(rte_eth_dev_rss_reta_query(cf_port, reta, 64), -EINVAL, "query 64");
	/* ... and nothing of them taken. */
	rss.rss_key = got;
	rss.rss_key_len = sizeof(got);
	TEST_ASSERT_SUCCESS(rte_eth_dev_rss_hash_conf_get(cf_port, &rss), "");
	TEST_ASSERT(memcmp(got, key, sizeof(got)) == 0 && rss.rss_hf == RTE_ETH_RSS_IPV4,
		    "the refused update changed the port's RSS");
	TEST_ASSERT_SUCCESS(rte_eth_dev_rss_reta_query(cf_port, reta, REFNIC_RSS_RETA_SIZE), "");
	for (i = 0; i < REFNIC_RSS_RETA_SIZE; i++)
		TEST_ASSERT_EQUAL(reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE],
				  i % 2, "entry %u", i);
	TEST_ASSERT_SUCCESS(rte_eth_dev_stop(cf_port), "");
	return cf_works();
}

const struct unit_test_suite refnic_config_suite = {
	.name = "config",
	.cases = {
		TEST_CASE_ST(NULL, cf_teardown, test_more_queues_than_the_device),
		TEST_CASE_ST(NULL, cf_teardown, test_descriptor_counts),
		TEST_CASE_ST(NULL, cf_teardown, test_mtu_limits),
		TEST_CASE_ST(NULL, cf_teardown, test_offloads_not_offered),
		TEST_CASE_ST(NULL, cf_teardown, test_caps_off_vlan_filter_moderation_push),
		TEST_CASE_ST(NULL, cf_teardown, test_push_line_bad_header),
		TEST_CASE_ST(NULL, cf_teardown, test_rss_without_capability),
		TEST_CASE_ST(NULL, cf_teardown, test_rss_bad_key_and_reta),
		TEST_CASE_ST(NULL, cf_teardown, test_link_speeds),
		TEST_CASES_END()
	},
};
