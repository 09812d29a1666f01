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
 *   refnic-bench-insns [EAL args] -- COUNT [PRIME [RX_OFFLOADS]]
 *
 * RX_OFFLOADS (e.g. 0xe, the checksums) are asked of every port: on refnic
 * they have the device classify each burst before it places it.
 *
 * Prints "received N polls P empty E"; exit status 0 once COUNT arrived.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define BURST		32
#define FRAME_LEN	60
#define LINK_WAIT_MS	30000	/* valgrind, and memif's control channel */
#define EMPTY_MAX	100000000ull	/* polls finding nothing: the frames are lost */

static int
port_start(uint16_t port, struct rte_mempool *mp, uint64_t rx_offloads)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = rx_offloads;
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_socket_id(), NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, rte_socket_id(), NULL) != 0 ||
	    rte_eth_promiscuous_enable(port) != 0 || rte_eth_dev_start(port) != 0)
		return -1;
	return 0;
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

/* PRIME broadcast frames onto the wire; how many went. */
static uint64_t
prime_frames(uint16_t port, struct rte_mempool *mp, unsigned int prime)
{
	struct rte_mbuf *pkts[BURST];
	uint64_t sent = 0;
	unsigned int i, j, n;

	for (i = 0; i < prime; i += n) {
		n = RTE_MIN((unsigned int)BURST, prime - i);
		if (rte_pktmbuf_alloc_bulk(mp, pkts, n) != 0)
			break;
		for (j = 0; j < n; j++) {
			uint8_t *d = (uint8_t *)rte_pktmbuf_append(pkts[j], FRAME_LEN);

			memset(d, 0, FRAME_LEN);
			memset(d, 0xff, RTE_ETHER_ADDR_LEN);	/* to everyone */
			d[6] = 0x02;				/* from a local address */
			d[12] = 0x08;				/* IPv4's type, no header */
		}
		j = rte_eth_tx_burst(port, 0, pkts, n);
		rte_pktmbuf_free_bulk(pkts + j, n - j);
		sent += j;
	}
	return sent;
}

/* What callgrind counts: kept out of line so that any PMD's bursts are
 * inside them, and not left by a tail call before the burst runs. */
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

int
main(int argc, char **argv)
{
	uint64_t count, rx_offloads, got = 0, polls = 0, empty = 0;
	struct rte_mbuf *pkts[BURST];
	struct rte_mempool *mp;
	unsigned int prime;
	uint16_t port, nb_ports;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	count = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000;
	prime = argc > 2 ? (unsigned int)atoi(argv[2]) : 256;
	rx_offloads = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
	mp = rte_pktmbuf_pool_create("bench_insns", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     rte_socket_id());
	nb_ports = RTE_MIN(rte_eth_dev_count_avail(), 2);
	if (mp == NULL || nb_ports == 0) {
		fprintf(stderr, "no port to run on\n");
		return 1;
	}
	for (port = 0; port < nb_ports; port++) {
		if (port_start(port, mp, rx_offloads) != 0) {
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
			rte_pktmbuf_free_bulk(pkts, rte_eth_rx_burst(port, 0, pkts, BURST));
		if (prime_frames(0, mp, prime) != 0)
			break;
		rte_delay_ms(1);
	}
	if (ret == 1000) {
		fprintf(stderr, "nothing sent\n");
		return 1;
	}
	for (port = nb_ports - 1; got < count && empty < EMPTY_MAX;
	     port = (port + 1) % nb_ports) {
		uint16_t n = bench_rx(port, pkts, BURST), t;

		polls++;
		if (n == 0) {
			empty++;
			continue;
		}
		got += n;
		t = bench_tx(port, pkts, n);
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
