/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * A fixed workload for instruction counts (bench.sh insns): PRIME 60-byte
 * frames sent, then received and sent back, BURST at a time, until COUNT
 * frames have been received. On one port (a refnic loopback) frames come
 * back to it; on two (a pair: refnic ports on one cable, memif's server and
 * client) each port sends back what it receives, to the other. The same
 * work every run, whatever the machine's load, so that callgrind's count
 * inside bench_rx() and bench_tx() (the ethdev calls, and any device work
 * they run inline) over COUNT and 2 x COUNT gives instructions per packet,
 * for any PMD, stripped or not. The PMD is loaded as a plugin (-d): any
 * build of it runs the same binary.
 *
 *   refnic-bench-insns [EAL args] -- COUNT [PRIME [RX_OFFLOADS [QUEUES]]]
 *
 * RX_OFFLOADS (e.g. 0xe, the checksums) are asked of every port: on refnic
 * they have the device classify each burst before it places it. With
 * QUEUES, the frames are IPv4/UDP ones of PRIME flows (by source port)
 * instead of a bare IPv4 type, and with more than one queue each port
 * spreads them by RSS (IP and UDP), every queue polled in turn and its
 * frames sent back on the queue of the same number.
 *
 * Prints "received N polls P empty E"; exit status 0 once COUNT arrived.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#define BURST		32
#define FRAME_LEN	60
#define LINK_WAIT_MS	30000	/* valgrind, and memif's control channel */
#define EMPTY_MAX	100000000ull	/* polls finding nothing: the frames are lost */
#define QUEUES_MAX	8

static int
port_start(uint16_t port, struct rte_mempool *mp, uint64_t rx_offloads, uint16_t queues)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint16_t q;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = rx_offloads;
	if (queues > 1) {
		if (rte_eth_dev_info_get(port, &info) != 0)
			return -1;
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) &
						   info.flow_type_rss_offloads;
	}
	if (rte_eth_dev_configure(port, queues, queues, &conf) != 0)
		return -1;
	for (q = 0; q < queues; q++)
		if (rte_eth_rx_queue_setup(port, q, 1024, rte_socket_id(), NULL, mp) != 0 ||
		    rte_eth_tx_queue_setup(port, q, 1024, rte_socket_id(), NULL) != 0)
			return -1;
	if (rte_eth_promiscuous_enable(port) != 0 || rte_eth_dev_start(port) != 0)
		return -1;
	return 0;
}

/* Frame i of PRIME as IPv4/UDP (its flow by source port) over the bare type. */
static void
frame_udp(uint8_t *d, unsigned int i)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(d + RTE_ETHER_HDR_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint16_t l3_len = FRAME_LEN - RTE_ETHER_HDR_LEN;

	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(l3_len);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(198, 18, 0, 1));
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(198, 18, 0, 2));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16(1024 + i);
	udp->dst_port = rte_cpu_to_be_16(9);
	udp->dgram_len = rte_cpu_to_be_16(l3_len - sizeof(*ip));
	udp->dgram_cksum = 0;	/* none, as UDP over IPv4 may */
}

/* After every port started: a pair's link comes up once both ends are. */
static int
link_wait(uint16_t port)
{
	struct rte_eth_link link;
	unsigned int ms;

	for (ms = 0; ms < LINK_WAIT_MS; ms++) {
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status)
			return 0;
		rte_delay_ms(1);
	}
	return -1;
}

/* PRIME broadcast frames onto the wire (queue 0); how many went. */
static uint64_t
prime_frames(uint16_t port, struct rte_mempool *mp, unsigned int prime, bool udp)
{
	struct rte_mbuf *pkts[BURST];
	uint64_t sent = 0;
	unsigned int i, j, n;

	for (i = 0; i < prime; i += n) {
		n = RTE_MIN((unsigned int)BURST, prime - i);
		if (rte_pktmbuf_alloc_bulk(mp, pkts, n) != 0)
			break;
		for (j = 0; j < n; j++) {
			uint8_t *d = rte_pktmbuf_mtod(pkts[j], uint8_t *);

			/* Set, not appended: a fresh 2 KiB buffer always has room. */
			pkts[j]->data_len = FRAME_LEN;
			pkts[j]->pkt_len = FRAME_LEN;

			memset(d, 0, FRAME_LEN);
			memset(d, 0xff, RTE_ETHER_ADDR_LEN);	/* to everyone */
			d[6] = 0x02;				/* from a local address */
			d[12] = 0x08;				/* IPv4's type, no header */
			if (udp)
				frame_udp(d, i + j);
		}
		j = rte_eth_tx_burst(port, 0, pkts, n);
		rte_pktmbuf_free_bulk(pkts + j, n - j);
		sent += j;
	}
	return sent;
}

/* What callgrind counts: kept out of line so that any PMD's bursts are
 * inside them, and not left by a tail call before the burst runs. Queue 0
 * by a constant, as it has always been counted; others by bench_*_q(). */
static __rte_noinline uint16_t
bench_rx(uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t got = rte_eth_rx_burst(port, 0, pkts, n);

	asm volatile("" : "+r"(got));
	return got;
}

static __rte_noinline uint16_t
bench_tx(uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = rte_eth_tx_burst(port, 0, pkts, n);

	asm volatile("" : "+r"(sent));
	return sent;
}

static __rte_noinline uint16_t
bench_rx_q(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t got = rte_eth_rx_burst(port, queue, pkts, n);

	asm volatile("" : "+r"(got));
	return got;
}

static __rte_noinline uint16_t
bench_tx_q(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = rte_eth_tx_burst(port, queue, pkts, n);

	asm volatile("" : "+r"(sent));
	return sent;
}

int
main(int argc, char **argv)
{
	uint64_t count, rx_offloads, got = 0, polls = 0, empty = 0;
	struct rte_mbuf *pkts[BURST];
	struct rte_mempool *mp;
	uint16_t port, queue, nb_ports, queues;
	unsigned int prime;
	bool udp;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	count = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000;
	prime = argc > 2 ? (unsigned int)atoi(argv[2]) : 256;
	rx_offloads = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
	udp = argc > 4;
	queues = udp ? (uint16_t)atoi(argv[4]) : 1;
	if (queues == 0 || queues > QUEUES_MAX) {
		fprintf(stderr, "QUEUES: 1 to %u\n", QUEUES_MAX);
		return 1;
	}
	mp = rte_pktmbuf_pool_create("bench_insns", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     rte_socket_id());
	nb_ports = RTE_MIN(rte_eth_dev_count_avail(), 2);
	if (mp == NULL || nb_ports == 0) {
		fprintf(stderr, "no port to run on\n");
		return 1;
	}
	for (port = 0; port < nb_ports; port++) {
		if (port_start(port, mp, rx_offloads, queues) != 0) {
			fprintf(stderr, "port %u did not start\n", port);
			return 1;
		}
	}
	for (port = 0; port < nb_ports; port++) {
		if (link_wait(port) != 0) {
			fprintf(stderr, "port %u: no link\n", port);
			return 1;
		}
	}
	/* A receiver may give its ring buffers only as it polls (memif's
	 * client): every port polled before each try. */
	for (ret = 0; ret < 1000; ret++) {
		for (port = 0; port < nb_ports; port++)
			for (queue = 0; queue < queues; queue++)
				rte_pktmbuf_free_bulk(pkts, rte_eth_rx_burst(port, queue, pkts,
									     BURST));
		if (prime_frames(0, mp, prime, udp) != 0)
			break;
		rte_delay_ms(1);
	}
	if (ret == 1000) {
		fprintf(stderr, "nothing sent\n");
		return 1;
	}
	/* Each port's queues in turn, then the next port's. */
	for (port = nb_ports - 1, queue = 0; got < count && empty < EMPTY_MAX;
	     queue = (queue + 1) % queues, port = queue == 0 ? (port + 1) % nb_ports : port) {
		uint16_t n = queues == 1 ? bench_rx(port, pkts, BURST) :
			     bench_rx_q(port, queue, pkts, BURST), t;

		polls++;
		if (n == 0) {
			empty++;
			continue;
		}
		got += n;
		t = queues == 1 ? bench_tx(port, pkts, n) : bench_tx_q(port, queue, pkts, n);
		rte_pktmbuf_free_bulk(pkts + t, n - t);
	}
	printf("received %" PRIu64 " polls %" PRIu64 " empty %" PRIu64 "\n", got, polls, empty);
	for (port = 0; port < nb_ports; port++) {
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
	rte_eal_cleanup();
	return got >= count ? 0 : 1;
}
