/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device clock seen from two processes (tests/integration/
 * test_multiprocess.py): one binary, run as the primary, then as a
 * secondary on the same file prefix.
 *
 *   refnic-test-mp-clock --proc-type=primary --vdev net_refnic0 ... -- SEC
 *       starts port 0, sets its clock to SEC seconds (write_time), prints
 *       "primary clock NS" and waits for a line on stdin, then exits
 *   refnic-test-mp-clock --proc-type=secondary ...
 *       prints "secondary clock NS time NS later NS adjust ERR": read_clock,
 *       timesync_read_time, read_clock 10 ms later, and what adjust_time
 *       returned (the primary's)
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

static int
primary(uint16_t port, const char *sec)
{
	struct rte_eth_conf conf = { .rxmode = { .offloads = 0 } };
	struct timespec ts = { .tv_sec = strtol(sec, NULL, 10) };
	struct rte_mempool *mp;
	char line[16];
	uint64_t c;

	mp = rte_pktmbuf_pool_create("mp_clock", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	if (mp == NULL || rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 256, SOCKET_ID_ANY, NULL) != 0 ||
	    rte_eth_dev_start(port) != 0 || rte_eth_timesync_write_time(port, &ts) != 0 ||
	    rte_eth_read_clock(port, &c) != 0) {
		printf("primary: port %u not set up\n", port);
		return 1;
	}
	printf("primary clock %" PRIu64 "\n", c);
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 1;
	rte_eth_dev_stop(port);
	return 0;
}

static int
secondary(uint16_t port)
{
	struct timespec ts;
	uint64_t c, later;
	int adj;

	if (rte_eth_read_clock(port, &c) != 0 || rte_eth_timesync_read_time(port, &ts) != 0 ||
	    (rte_delay_us_sleep(10000), rte_eth_read_clock(port, &later)) != 0) {
		printf("secondary: no clock on port %u\n", port);
		return 1;
	}
	adj = rte_eth_timesync_adjust_time(port, 1);
	printf("secondary clock %" PRIu64 " time %" PRIu64 " later %" PRIu64 " adjust %d\n", c,
	       (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, later, adj);
	return 0;
}

int
main(int argc, char **argv)
{
	int ret = rte_eal_init(argc, argv);

	if (ret < 0 || rte_eth_dev_count_avail() == 0) {
		printf("no port\n");
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		ret = argc >= 2 ? primary(0, argv[1]) : 1;
	else
		ret = secondary(0);
	rte_eal_cleanup();
	return ret;
}
