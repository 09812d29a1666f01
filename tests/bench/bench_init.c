/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Port bring-up time per admin polling policy, side by side in one run:
 * from rte_vdev_init() to link up (reset, identify, configure, queues,
 * start), next to the time the device itself imposed (its command latencies
 * and reset time: the floor any policy can reach).
 *
 *   refnic-bench-init [runs] [profile] [lcores]
 *
 * lcores is EAL's -l: "0" leaves the other CPU to the device engine, "0-1"
 * (every CPU an lcore, as testpmd users type it) has the engine share the
 * CPU of the thread that waits for it.
 *
 * Prints a markdown table and one JSON line per policy.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "refnic_emu.h"

#define BENCH_PORT	"net_refnic_bench"

static const char * const policies[] = { "backoff", "exp:100:5000", "fixed:5000" };

#define MAX_RUNS	1000

/*
 * Sums over the runs, and per-run samples for medians: a VM loses its vCPU
 * now and then for milliseconds (steal time), which a mean would report.
 */
struct result {
	double init_us;		/* probe to link up */
	double floor_us;	/* time the device imposed */
	double commands;
	double polls;
	double wait_us;		/* admin and reset waits, as the driver measured them */
	double reset_wait_us;	/* the reset's share of wait_us */
	unsigned int n;
	double init_sample[MAX_RUNS];
	double wait_sample[MAX_RUNS];
	double admin_sample[MAX_RUNS];	/* wait_us less the reset's */
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Admin counters, read in one xstats call (each read is an admin command). */
static void
admin_counters(uint16_t port, struct result *r)
{
	int n = rte_eth_xstats_get_names(port, NULL, 0), i;
	struct rte_eth_xstat_name *names = calloc(n, sizeof(*names));
	struct rte_eth_xstat *values = calloc(n, sizeof(*values));

	if (names != NULL && values != NULL && rte_eth_xstats_get_names(port, names, n) == n &&
	    rte_eth_xstats_get(port, values, n) == n) {
		for (i = 0; i < n; i++) {
			if (strcmp(names[i].name, "admin_commands") == 0)
				r->commands += values[i].value;
			else if (strcmp(names[i].name, "admin_polls") == 0)
				r->polls += values[i].value;
			else if (strcmp(names[i].name, "admin_wait_us") == 0)
				r->wait_us += values[i].value;
			else if (strcmp(names[i].name, "reset_wait_us") == 0) {
				r->wait_us += values[i].value;
				r->reset_wait_us += values[i].value;
			}
		}
	}
	free(names);
	free(values);
}

/* One bring-up; returns 0 and fills the sample, or an error. */
static int
bring_up(const char *args, struct rte_mempool *mp, struct result *r)
{
	struct rte_eth_conf conf = { 0 };
	struct refnic_hw_stats hw;
	struct rte_eth_link link;
	uint64_t start, end;
	uint16_t port;
	int ret;

	start = rte_get_timer_cycles();
	ret = rte_vdev_init(BENCH_PORT, args);
	if (ret == 0)
		ret = rte_eth_dev_get_port_by_name(BENCH_PORT, &port);
	if (ret == 0)
		ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, 512, SOCKET_ID_ANY, NULL, mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, 512, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	/* Only a port that came up has a link to wait for. */
	while (ret == 0) {
		if (rte_eth_link_get_nowait(port, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			break;
	}
	end = rte_get_timer_cycles();
	if (ret == 0) {
		double init_us = (double)(end - start) * 1e6 / rte_get_timer_hz();
		double wait_before = r->wait_us, reset_before = r->reset_wait_us;

		refnic_emu_read_stats(refnic_emu_lookup(BENCH_PORT), &hw);
		r->init_us += init_us;
		r->floor_us += hw.control_latency_us;
		admin_counters(port, r);
		r->init_sample[r->n] = init_us;
		r->admin_sample[r->n] = r->wait_us - wait_before -
					(r->reset_wait_us - reset_before);
		r->wait_sample[r->n++] = r->wait_us - wait_before;
	}
	rte_vdev_uninit(BENCH_PORT);
	return ret;
}

int
main(int argc, char **argv)
{
	char *eal_args[] = { argv[0], "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			     "--no-telemetry", "-l", argc > 3 ? argv[3] : "0",
			     "--log-level=pmd.net.refnic.*:warning", NULL };
	static struct result results[RTE_DIM(policies)];
	double med_init[RTE_DIM(policies)], med_wait[RTE_DIM(policies)];
	double med_admin[RTE_DIM(policies)];
	const char *profile = "baremetal";
	struct rte_mempool *mp;
	unsigned int runs = 10, p, i;
	char args[128];

	if (argc > 1)
		runs = atoi(argv[1]);
	if (argc > 2)
		profile = argv[2];
	if (runs == 0 || runs > MAX_RUNS || rte_eal_init(RTE_DIM(eal_args) - 1, eal_args) < 0) {
		fprintf(stderr, "usage: refnic-bench-init [runs] [profile] [lcores]\n");
		return 2;
	}
	mp = rte_pktmbuf_pool_create("bench", 2048, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	if (mp == NULL)
		return 1;
	memset(results, 0, sizeof(results));
	/* Interleaved, so that drift on the machine falls on every policy alike. */
	for (i = 0; i < runs; i++) {
		for (p = 0; p < RTE_DIM(policies); p++) {
			snprintf(args, sizeof(args), "profile=%s,admin_poll=%s", profile,
				 policies[p]);
			if (bring_up(args, mp, &results[p]) != 0) {
				fprintf(stderr, "bring-up failed with %s\n", args);
				return 1;
			}
		}
	}
	for (p = 0; p < RTE_DIM(policies); p++) {
		med_init[p] = median(results[p].init_sample, runs);
		med_wait[p] = median(results[p].wait_sample, runs);
		med_admin[p] = median(results[p].admin_sample, runs);
	}
	printf("| admin_poll | bring-up to link up, median (us) | mean (us) | "
	       "waiting for the device, median (us) | device floor (us) | waiting / floor | "
	       "bring-up / backoff's | admin commands | polls/command | "
	       "of the waiting: admin commands, median (us) |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (p = 0; p < RTE_DIM(policies); p++) {
		struct result *r = &results[p];

		printf("| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.1f | %.0f | %.1f | %.0f |\n",
		       policies[p], med_init[p], r->init_us / runs, med_wait[p],
		       r->floor_us / runs, med_wait[p] / (r->floor_us / runs),
		       med_init[p] / med_init[0], r->commands / runs, r->polls / r->commands,
		       med_admin[p]);
	}
	for (p = 0; p < RTE_DIM(policies); p++)
		printf("{\"admin_poll\": \"%s\", \"profile\": \"%s\", \"runs\": %u, "
		       "\"init_us_median\": %.1f, \"wait_us_median\": %.1f, \"floor_us\": %.1f, "
		       "\"polls_per_command\": %.2f}\n", policies[p], profile, runs, med_init[p],
		       med_wait[p], results[p].floor_us / runs,
		       results[p].polls / results[p].commands);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return 0;
}
