/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Missed doorbells and the check that recovers them, side by side in one run.
 *
 *   refnic-bench-doorbell [samples] [seconds] [deadline_us]
 *   refnic-bench-doorbell-pqt [samples] [deadline_us]
 *
 * Two refnic ports wired back to back in one process (profile=ideal, the
 * device's work inline on the doorbell's thread), every CPU an lcore (-l 0-1,
 * so EAL's interrupt thread, where the check runs, shares the CPU of the
 * main lcore, which runs everything measured):
 *
 *  - drops: the device misses 0, 1e-4 or 1e-3 of its doorbells
 *    (fault_doorbell_drop=N), the check off or on. Throughput: 512 frames
 *    circulate A -> B -> A, forwarded as testpmd's io mode does, for
 *    `seconds`. Ping-pong: one frame in flight, `samples` round trips, p50,
 *    p99, max. A stall that lasts a second ends a run ("stalled").
 *  - cost: 1, 4, 16 and 64 queue pairs started, ping-pong on queue 0, no
 *    drops: the check off, the check as shipped (one alarm per port), and,
 *    in refnic-bench-doorbell-pqt (bench_doorbell_pqt.c as its schedule), a
 *    timer per queue; with the interrupt thread's CPU time per second.
 *
 * Prints markdown tables and one JSON line per run.
 */

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "../xstat.h"
#include "refnic_emu.h"

#define PORT_A		"net_refnic_dbb0"
#define PORT_B		"net_refnic_dbb1"
#define ETHERTYPE	0x88b5
#define BURST		32
#define IN_FLIGHT	512		/* throughput: frames circulating */
#define STALL_S		1		/* a run with no frame for this long ends */
#define COST_RING	256

#ifdef BENCH_PER_QUEUE_TIMERS
#define CHECK_NAME	"per-queue timers"
#else
#define CHECK_NAME	"one per port"
#endif

static struct rte_mempool *pool;
static uint16_t port_a, port_b;
static uint32_t *rtt_ns;
static uint32_t deadline_ns;

struct result {
	double mpps;			/* throughput, until it stalled if it did */
	bool mpps_stalled;
	double p50_us, p99_us, p999_us, max_us;
	uint32_t over_deadline;		/* round trips longer than the deadline */
	uint32_t samples;		/* round trips done */
	bool stalled;
	double intr_cpu_pct;		/* the interrupt thread, per second of run */
	uint64_t dropped, recoveries, checks;
};

/* CPU time of EAL's interrupt thread (where alarms run), in ns: the first
 * field of its schedstat, which counts in ns (stat's ticks are 10 ms). */
static uint64_t
intr_thread_cpu_ns(void)
{
	char path[300], buf[128], *p;
	unsigned long long ns = 0, v;
	struct dirent *de;
	DIR *dir = opendir("/proc/self/task");
	FILE *f;

	while (dir != NULL && (de = readdir(dir)) != NULL) {
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (p == NULL || strncmp(buf, "eal-intr-thread", 15) != 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", de->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%llu", &v) == 1)
			ns += v;
		fclose(f);
	}
	if (dir != NULL)
		closedir(dir);
	return ns;
}

static int
port_up(const char *name, const char *args, uint16_t nb_q, uint16_t ring, uint16_t *port)
{
	struct rte_eth_conf conf = { .rxmode = { .mq_mode = RTE_ETH_MQ_RX_NONE } };
	uint16_t q;
	int ret = rte_vdev_init(name, args);

	if (ret == 0)
		ret = rte_eth_dev_get_port_by_name(name, port);
	if (ret == 0)
		ret = rte_eth_dev_configure(*port, nb_q, nb_q, &conf);
	for (q = 0; ret == 0 && q < nb_q; q++)
		ret = rte_eth_rx_queue_setup(*port, q, ring, SOCKET_ID_ANY, NULL, pool);
	for (q = 0; ret == 0 && q < nb_q; q++)
		ret = rte_eth_tx_queue_setup(*port, q, ring, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(*port);
	if (ret == 0)
		ret = rte_eth_promiscuous_enable(*port);
	return ret;
}

static int
pair_up(const char *extra, uint16_t nb_q, uint16_t ring)
{
	char args[256];

	snprintf(args, sizeof(args), "cable=%s,profile=ideal,queues=%u,%s", PORT_A,
		 RTE_MAX(nb_q, 8), extra);
	if (port_up(PORT_A, args, nb_q, ring, &port_a) != 0)
		return -1;
	if (port_up(PORT_B, args, nb_q, ring, &port_b) != 0) {
		rte_vdev_uninit(PORT_A);
		return -1;
	}
	return 0;
}

/* Doorbells the device missed, read as a lab instrument would. */
static uint64_t
missed(const char *name)
{
	struct refnic_emu *emu = refnic_emu_lookup(name);
	struct refnic_hw_stats s;

	if (emu == NULL)
		return 0;
	refnic_emu_read_stats(emu, &s);
	return s.doorbells_dropped;
}

static void
pair_down(struct result *r)
{
	/* Summed over the runs of a result (throughput, then ping-pong). */
	r->dropped += missed(PORT_A) + missed(PORT_B);
	r->recoveries += refnic_xstat(port_a, "missed_doorbell_recoveries", 0) +
			 refnic_xstat(port_b, "missed_doorbell_recoveries", 0);
	r->checks += refnic_xstat(port_a, "doorbell_checks", 0) +
		     refnic_xstat(port_b, "doorbell_checks", 0);
	rte_vdev_uninit(PORT_A);
	rte_vdev_uninit(PORT_B);
}

static struct rte_mbuf *
make_frame(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eh;
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, 64);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0, 64);
	eh = (struct rte_ether_hdr *)p;
	eh->dst_addr.addr_bytes[0] = 0x02;
	eh->ether_type = rte_cpu_to_be_16(ETHERTYPE);
	return m;
}

/* 512 frames circulate; both directions forwarded by this one lcore. */
static __rte_unused void
run_throughput(double seconds, struct result *r)
{
	uint64_t hz = rte_get_timer_hz(), start, end, last_move, now, fwd = 0;
	struct rte_mbuf *pkts[BURST];
	uint16_t ports[2] = { port_a, port_b }, n, sent, i;
	unsigned int k;

	for (k = 0; k < IN_FLIGHT / BURST; k++) {
		for (i = 0; i < BURST; i++)
			pkts[i] = make_frame();
		sent = rte_eth_tx_burst(ports[k % 2], 0, pkts, BURST);
		rte_pktmbuf_free_bulk(pkts + sent, BURST - sent);
	}
	start = last_move = rte_get_timer_cycles();
	end = start + (uint64_t)(seconds * hz);
	do {
		bool moved = false;

		for (k = 0; k < 2; k++) {
			n = rte_eth_rx_burst(ports[k], 0, pkts, BURST);
			if (n == 0)
				continue;
			sent = rte_eth_tx_burst(ports[k ^ 1], 0, pkts, n);
			rte_pktmbuf_free_bulk(pkts + sent, n - sent);
			fwd += sent;
			moved = true;
		}
		now = rte_get_timer_cycles();
		if (moved)
			last_move = now;
		if (now - last_move > STALL_S * hz) {
			r->mpps_stalled = true;
			now = last_move;	/* the rate while it moved */
			break;
		}
	} while (now < end);
	r->mpps = fwd / ((double)(now - start) / hz) / 1e6;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One frame in flight on queue 0: A -> B, B echoes, back at A. */
static void
run_pingpong(uint32_t samples, struct result *r)
{
	uint64_t hz = rte_get_timer_hz(), t0, t1, cpu0, wall0;
	struct rte_mbuf *m = make_frame(), *rx;
	uint32_t s;

	r->samples = 0;
	cpu0 = intr_thread_cpu_ns();
	wall0 = rte_get_timer_cycles();
	for (s = 0; s < samples && m != NULL; s++) {
		t0 = rte_get_timer_cycles();
		while (rte_eth_tx_burst(port_a, 0, &m, 1) == 0)
			;
		while (rte_eth_rx_burst(port_b, 0, &rx, 1) == 0)
			if (rte_get_timer_cycles() - t0 > STALL_S * hz)
				goto stalled;
		while (rte_eth_tx_burst(port_b, 0, &rx, 1) == 0)
			;
		while (rte_eth_rx_burst(port_a, 0, &m, 1) == 0)
			if (rte_get_timer_cycles() - t0 > STALL_S * hz)
				goto stalled;
		t1 = rte_get_timer_cycles();
		rtt_ns[s] = (t1 - t0) * 1000000000 / hz;
	}
	rte_pktmbuf_free(m);
	goto done;
stalled:
	r->stalled = true;
done:
	r->samples = s;
	r->intr_cpu_pct = (double)(intr_thread_cpu_ns() - cpu0) /
			  ((double)(rte_get_timer_cycles() - wall0) / hz * 1e9) * 100;
	if (s == 0)
		return;
	qsort(rtt_ns, s, sizeof(*rtt_ns), cmp_u32);
	r->p50_us = rtt_ns[s / 2] / 1e3;
	r->p99_us = rtt_ns[(uint64_t)s * 99 / 100] / 1e3;
	r->p999_us = rtt_ns[(uint64_t)s * 999 / 1000] / 1e3;
	while (r->over_deadline < s && rtt_ns[s - 1 - r->over_deadline] > deadline_ns)
		r->over_deadline++;
	r->max_us = rtt_ns[s - 1] / 1e3;
}

static void
print_json(const char *part, const char *check, uint32_t drop, uint16_t queues,
	   const struct result *r)
{
	printf("{\"part\": \"%s\", \"check\": \"%s\", \"drop_1_in\": %u, \"queues\": %u, "
	       "\"mpps\": %.3f, \"p50_us\": %.2f, \"p99_us\": %.2f, \"p999_us\": %.2f, "
	       "\"max_us\": %.1f, \"over_deadline\": %u, "
	       "\"samples\": %u, \"stalled\": %s, \"mpps_stalled\": %s, \"intr_cpu_pct\": %.3f, "
	       "\"doorbells_dropped\": %" PRIu64 ", \"recoveries\": %" PRIu64
	       ", \"checks\": %" PRIu64 "}\n", part, check, drop, queues, r->mpps, r->p50_us,
	       r->p99_us, r->p999_us, r->max_us, r->over_deadline, r->samples, r->stalled ? "true" : "false",
	       r->mpps_stalled ? "true" : "false",
	       r->intr_cpu_pct, r->dropped, r->recoveries, r->checks);
}

static void
fmt_lat(char *buf, size_t len, const struct result *r)
{
	if (r->stalled)
		snprintf(buf, len, "stalled after %u round trips | - | - | - | -", r->samples);
	else
		snprintf(buf, len, "%.2f | %.2f | %.2f | %.1f | %u", r->p50_us, r->p99_us,
			 r->p999_us, r->max_us, r->over_deadline);
}

#ifndef BENCH_PER_QUEUE_TIMERS
static const uint32_t drops[] = { 0, 10000, 1000 };	/* 1 in N: 0, 1e-4, 1e-3 */

static int
part_drops(uint32_t samples, double seconds, uint32_t deadline_us)
{
	struct result res[RTE_DIM(drops)][2];
	char extra[128], lat[96];
	unsigned int d, c;

	for (d = 0; d < RTE_DIM(drops); d++) {
		for (c = 0; c < 2; c++) {
			struct result *r = &res[d][c];

			memset(r, 0, sizeof(*r));
			if (c)
				snprintf(extra, sizeof(extra), "fault_doorbell_drop=%u,"
					 "doorbell_check=on,doorbell_check_us=%u", drops[d],
					 deadline_us);
			else
				snprintf(extra, sizeof(extra), "fault_doorbell_drop=%u,"
					 "doorbell_check=off", drops[d]);
			if (pair_up(extra, 1, 1024) != 0) {
				fprintf(stderr, "cannot set up the pair (%s)\n", extra);
				return -1;
			}
			run_throughput(seconds, r);
			pair_down(r);
			if (pair_up(extra, 1, 1024) != 0)
				return -1;
			run_pingpong(samples, r);
			pair_down(r);
			print_json("drops", c ? "on" : "off", drops[d], 1, r);
		}
	}
	printf("\n| doorbells missed | check | throughput Mpps | ping-pong p50 us | p99 us | "
	       "p99.9 us | max us | over deadline | missed | re-rings |\n"
	       "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (d = 0; d < RTE_DIM(drops); d++) {
		for (c = 0; c < 2; c++) {
			const struct result *r = &res[d][c];

			fmt_lat(lat, sizeof(lat), r);
			printf("| %s | %s | %.2f%s | %s | %" PRIu64 " | %" PRIu64 " |\n",
			       drops[d] == 0 ? "0" : drops[d] == 10000 ? "1e-4" : "1e-3",
			       c ? "on" : "off", r->mpps, r->mpps_stalled ? " (stalled)" : "",
			       lat, r->dropped, r->recoveries);
		}
	}
	return 0;
}
#endif

static const uint16_t queue_counts[] = { 1, 4, 16, 64 };

/* Ping-pong on queue 0 with n queue pairs started, no drops. */
static int
part_cost(uint32_t samples, uint32_t deadline_us)
{
#ifdef BENCH_PER_QUEUE_TIMERS
	static const char * const modes[] = { CHECK_NAME };
#else
	static const char * const modes[] = { "off", CHECK_NAME };
#endif
	struct result res[RTE_DIM(modes)][RTE_DIM(queue_counts)];
	char extra[128], lat[96];
	unsigned int m, i;

	for (m = 0; m < RTE_DIM(modes); m++) {
		for (i = 0; i < RTE_DIM(queue_counts); i++) {
			struct result *r = &res[m][i];

			memset(r, 0, sizeof(*r));
			if (strcmp(modes[m], "off") == 0)
				snprintf(extra, sizeof(extra), "doorbell_check=off");
			else
				snprintf(extra, sizeof(extra), "doorbell_check=on,"
					 "doorbell_check_us=%u", deadline_us);
			if (pair_up(extra, queue_counts[i], COST_RING) != 0) {
				fprintf(stderr, "cannot set up %u queues (%s)\n", queue_counts[i],
					extra);
				return -1;
			}
			run_pingpong(samples, r);
			pair_down(r);
			print_json("cost", modes[m], 0, queue_counts[i], r);
		}
	}
	printf("\n| check | queue pairs | ping-pong p50 us | p99 us | p99.9 us | max us | "
	       "over deadline | checks | interrupt thread CPU %% |\n"
	       "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (m = 0; m < RTE_DIM(modes); m++) {
		for (i = 0; i < RTE_DIM(queue_counts); i++) {
			const struct result *r = &res[m][i];

			fmt_lat(lat, sizeof(lat), r);
			printf("| %s | %u | %s | %" PRIu64 " | %.3f |\n", modes[m],
			       queue_counts[i], lat, r->checks, r->intr_cpu_pct);
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-huge", "-m", "1024", "--no-pci", "--no-shconf",
			"--no-telemetry", "-l", "0-1", "--log-level=pmd.net.refnic.*:error",
			NULL };
	uint32_t samples = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000000;
#ifndef BENCH_PER_QUEUE_TIMERS
	double seconds = argc > 2 ? atof(argv[2]) : 3.0;
	uint32_t deadline_us = argc > 3 ? strtoul(argv[3], NULL, 10) : 1000;
#else
	uint32_t deadline_us = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
#endif
	int ret;

	if (rte_eal_init(RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	/* 64 queue pairs x 2 ports x 256 RX buffers, and the frames in flight. */
	pool = rte_pktmbuf_pool_create("dbb", 65535, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	rtt_ns = calloc(samples + 1, sizeof(*rtt_ns));
	if (pool == NULL || rtt_ns == NULL) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	deadline_ns = deadline_us * 1000;
	printf("check: %s; deadline %u us; %u ping-pong samples per run\n", CHECK_NAME,
	       deadline_us, samples);
#ifndef BENCH_PER_QUEUE_TIMERS
	ret = part_drops(samples, seconds, deadline_us);
	if (ret == 0)
		ret = part_cost(samples, deadline_us);
#else
	ret = part_cost(samples, deadline_us);
#endif
	free(rtt_ns);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
