/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * A fixed workload for instruction counts (bench.sh insns): port 0 (a
 * loopback with the defaults), PRIME 60-byte frames sent, then received and
 * sent back, BURST at a time, until COUNT frames have been received. The
 * same work every run, whatever the machine's load, so that callgrind's
 * count inside the burst functions (the inline device work included) over
 * COUNT and 2 x COUNT gives instructions per packet. The PMD is loaded as a
 * plugin (-d): any build of it runs the same binary.
 *
 *   refnic-bench-insns [EAL args] -- COUNT [PRIME]
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
#define LINK_WAIT_MS	5000
#define EMPTY_MAX	100000000ull	/* polls finding nothing: the frames are lost */

static int
port_start(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	struct rte_eth_link link;
	unsigned int ms;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, rte_socket_id(), NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, rte_socket_id(), NULL) != 0 ||
	    rte_eth_promiscuous_enable(port) != 0 || rte_eth_dev_start(port) != 0)
		return -1;
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

int
main(int argc, char **argv)
{
	uint64_t count, got = 0, polls = 0, empty = 0;
	struct rte_mbuf *pkts[BURST];
	struct rte_mempool *mp;
	unsigned int prime;
	uint16_t port = 0;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		return 1;
	argc -= ret;
	argv += ret;
	count = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000;
	prime = argc > 2 ? (unsigned int)atoi(argv[2]) : 256;
	mp = rte_pktmbuf_pool_create("bench_insns", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     rte_socket_id());
	if (mp == NULL || rte_eth_dev_count_avail() < 1 || port_start(port, mp) != 0) {
		fprintf(stderr, "no port to run on\n");
		return 1;
	}
	if (prime_frames(port, mp, prime) == 0) {
		fprintf(stderr, "nothing sent\n");
		return 1;
	}
	while (got < count && empty < EMPTY_MAX) {
		uint16_t n = rte_eth_rx_burst(port, 0, pkts, BURST), t;

		polls++;
		if (n == 0) {
			empty++;
			continue;
		}
		got += n;
		t = rte_eth_tx_burst(port, 0, pkts, n);
		rte_pktmbuf_free_bulk(pkts + t, n - t);
	}
	printf("received %" PRIu64 " polls %" PRIu64 " empty %" PRIu64 "\n", got, polls, empty);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return got >= count ? 0 : 1;
}
